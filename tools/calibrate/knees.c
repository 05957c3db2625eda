/* knees.c: where a pointer chase's latency steps (see knees.h). */
#include "knees.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

static int fail(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
    return -1;
}

/* The least cycles among the points of working sets in [from, to], NaN if none. */
static double plateau(const chase_point *points, int count, double from, double to)
{
    double least = NAN;
    for (int i = 0; i < count; i++)
        if (points[i].bytes >= from && points[i].bytes <= to &&
            (isnan(least) || points[i].cycles < least))
            least = points[i].cycles;
    return least;
}

/* The working set, at or past `from`, where the latency first reaches `level`, between the two
 * points around it (linear); NaN if it never does. */
static double crossing(const chase_point *points, int count, double from, double level)
{
    for (int i = 1; i < count; i++) {
        if (points[i].bytes < from || points[i].cycles < level)
            continue;
        const chase_point *below = &points[i - 1], *above = &points[i];
        if (below->cycles >= level)
            return below->bytes;
        return below->bytes + (above->bytes - below->bytes) * (level - below->cycles) /
                                  (above->cycles - below->cycles);
    }
    return NAN;
}

/* The cycles of the largest working set in [from, to], NaN if none. */
static double last_in(const chase_point *points, int count, double from, double to)
{
    double cycles = NAN;
    for (int i = 0; i < count; i++)
        if (points[i].bytes >= from && points[i].bytes <= to)
            cycles = points[i].cycles;
    return cycles;
}

int find_knees(const chase_point *points, int count, double runtime_l2, chase_knees *found,
               char *error, size_t error_size)
{
    found->l1_cycles = plateau(points, count, 0, 64 * KIB);
    found->l2_cycles = plateau(points, count, 1 * MIB, 0.25 * runtime_l2);
    found->l2_far_cycles = last_in(points, count, 0.5 * runtime_l2, 0.8 * runtime_l2);
    found->dram_cycles = last_in(points, count, 2 * runtime_l2, INFINITY);
    if (isnan(found->l1_cycles) || isnan(found->l2_cycles) || isnan(found->l2_far_cycles) ||
        isnan(found->dram_cycles))
        return fail(error, error_size, "the chase lacks a working set it needs");
    if (found->l2_cycles < 1.5 * found->l1_cycles)
        return fail(error, error_size, "the chase shows no L1 step: %.1f cycles a load up to "
                                       "64 KiB, %.1f from 1 MiB", found->l1_cycles,
                    found->l2_cycles);
    if (found->dram_cycles < 1.2 * found->l2_far_cycles)
        return fail(error, error_size, "the chase shows no step past the L2: %.1f cycles a load "
                                       "at 0.5 to 0.8 of it, %.1f at the largest working set",
                    found->l2_far_cycles, found->dram_cycles);
    found->l1_bytes = crossing(points, count, 0, (found->l1_cycles + found->l2_cycles) / 2);
    found->l2_bytes = crossing(points, count, 0.5 * runtime_l2,
                               (found->l2_far_cycles + found->dram_cycles) / 2);
    found->l2_near_bytes = NAN;
    /* Two L2 plateaus (the H100's halves: 283 and 530 cycles): the near half's size too. */
    if (found->l2_far_cycles > 1.3 * found->l2_cycles)
        found->l2_near_bytes = crossing(points, count, 2 * MIB,
                                        (found->l2_cycles + found->l2_far_cycles) / 2);
    if (isnan(found->l1_bytes) || isnan(found->l2_bytes))
        return fail(error, error_size, "the chase's latency crosses no halfway mark");
    return 0;
}
