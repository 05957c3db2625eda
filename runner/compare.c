/* compare.c: checking an output against the CPU reference, element by element. */
#include "compare.h"

#include <math.h>

double ml_relative_error(double got, double expected)
{
    /* NaN compares false with everything, so "error > tolerance" would let it pass: report it
     * as an infinite error instead. The harness poisons outputs with NaN, so this is what an
     * element the kernel never wrote looks like. A non-finite reference is a bug too. */
    if (!isfinite(got) || !isfinite(expected)) {
        return INFINITY;
    }
    double difference = fabs(got - expected);
    double scale = fmax(fabs(expected), 1.0);
    return difference / scale;
}

/* An element passes when its error is within the tolerance and it is a number. */
static int element_fails(float got, float expected, double tolerance, double *error)
{
    *error = ml_relative_error(got, expected);
    return !(*error <= tolerance && isfinite(got));
}

/* Outputs of up to 2^30 elements: counting runs on every core (OpenMP), and only a failed check
 * pays for the second, serial pass that finds the first mismatches in order. */
ml_comparison ml_compare(const float *got, const float *expected, size_t count, double tolerance)
{
    ml_comparison comparison = {0};
    comparison.count = count;

    double max_error = 0;
    size_t mismatches = 0;
#pragma omp parallel for reduction(max : max_error) reduction(+ : mismatches) if (count > 65536)
    for (size_t i = 0; i < count; i++) {
        double error;
        if (element_fails(got[i], expected[i], tolerance, &error))
            mismatches++;
        if (error > max_error)
            max_error = error;
    }
    comparison.max_rel_error = max_error;
    comparison.mismatches = mismatches;

    for (size_t i = 0; i < count && comparison.reported < mismatches &&
                       comparison.reported < ML_MAX_REPORTED_MISMATCHES; i++) {
        double error;
        if (element_fails(got[i], expected[i], tolerance, &error))
            ml_comparison_report(&comparison, i, got[i], expected[i]);
    }
    return comparison;
}

ml_comparison ml_compare_counts(const uint32_t *got, const uint32_t *expected, size_t count)
{
    ml_comparison comparison = {0};
    comparison.count = count;

    double max_error = 0;
    size_t mismatches = 0;
#pragma omp parallel for reduction(max : max_error) reduction(+ : mismatches) if (count > 65536)
    for (size_t i = 0; i < count; i++) {
        if (got[i] == expected[i])
            continue;
        mismatches++;
        double error = ml_relative_error(got[i], expected[i]);
        if (error > max_error)
            max_error = error;
    }
    comparison.max_rel_error = max_error;
    comparison.mismatches = mismatches;

    for (size_t i = 0; i < count && comparison.reported < mismatches &&
                       comparison.reported < ML_MAX_REPORTED_MISMATCHES; i++) {
        if (got[i] != expected[i])
            ml_comparison_report(&comparison, i, got[i], expected[i]);
    }
    return comparison;
}

void ml_comparison_report(ml_comparison *comparison, size_t index, double got, double expected)
{
    if (comparison->reported == ML_MAX_REPORTED_MISMATCHES)
        return;
    comparison->first_index[comparison->reported] = index;
    comparison->first_got[comparison->reported] = got;
    comparison->first_expected[comparison->reported] = expected;
    comparison->reported++;
}

void ml_comparison_append(ml_comparison *whole, const ml_comparison *part, size_t first)
{
    for (size_t i = 0; i < part->reported; i++)
        ml_comparison_report(whole, first + part->first_index[i], part->first_got[i],
                             part->first_expected[i]);
    whole->count += part->count;
    whole->mismatches += part->mismatches;
    if (part->max_rel_error > whole->max_rel_error)
        whole->max_rel_error = part->max_rel_error;
}

/* printf shows a NaN with its sign bit set as "-nan"; the sign means nothing, so always "nan". */
static void print_value(FILE *stream, double value)
{
    if (isnan(value)) {
        fputs("nan", stream);
    } else if (value == floor(value) && fabs(value) < 1e15) {
        fprintf(stream, "%.0f", value); /* a count, whole: 268435456, not 2.684355e+08 */
    } else {
        fprintf(stream, "%.7g", value);
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
