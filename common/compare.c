/* compare.c: checking an output against the CPU reference, element by element. */
#include "compare.h"

#include <math.h>

double ml_relative_error(float got, float expected)
{
    /* NaN compares false with everything, so "error > tolerance" would let it pass: report it
     * as an infinite error instead. The harness poisons outputs with NaN, so this is what an
     * element the kernel never wrote looks like. A non-finite reference is a bug too. */
    if (!isfinite(got) || !isfinite(expected)) {
        return INFINITY;
    }
    double difference = fabs((double)got - (double)expected);
    double scale = fmax(fabs((double)expected), 1.0);
    return difference / scale;
}

ml_comparison ml_compare(const float *got, const float *expected, size_t count, double tolerance)
{
    ml_comparison comparison = {0};
    comparison.count = count;

    for (size_t i = 0; i < count; i++) {
        double error = ml_relative_error(got[i], expected[i]);
        if (error > comparison.max_rel_error) {
            comparison.max_rel_error = error;
        }
        if (error <= tolerance && isfinite(got[i])) {
            continue;
        }
        if (comparison.reported < ML_MAX_REPORTED_MISMATCHES) {
            comparison.first_index[comparison.reported] = i;
            comparison.first_got[comparison.reported] = got[i];
            comparison.first_expected[comparison.reported] = expected[i];
            comparison.reported++;
        }
        comparison.mismatches++;
    }
    return comparison;
}

/* printf shows a NaN with its sign bit set as "-nan"; the sign means nothing, so always "nan". */
static void print_value(FILE *stream, float value)
{
    if (isnan(value)) {
        fputs("nan", stream);
    } else {
        fprintf(stream, "%.7g", (double)value);
    }
}

void ml_print_mismatches(FILE *stream, const ml_comparison *comparison)
{
    for (size_t i = 0; i < comparison->reported; i++) {
        fprintf(stream, "  [%zu] got ", comparison->first_index[i]);
        print_value(stream, comparison->first_got[i]);
        fputs(", expected ", stream);
        print_value(stream, comparison->first_expected[i]);
        fprintf(stream, " (error %.2g)\n",
                ml_relative_error(comparison->first_got[i], comparison->first_expected[i]));
    }
    if (comparison->mismatches > comparison->reported) {
        fprintf(stream, "  ... and %zu more\n", comparison->mismatches - comparison->reported);
    }
}
