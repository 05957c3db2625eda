/* compare.h: checking an output against the CPU reference. */
#ifndef MEMLAB_COMPARE_H
#define MEMLAB_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ML_MAX_REPORTED_MISMATCHES 5

typedef struct {
    size_t count;               /* elements compared */
    size_t mismatches;          /* elements whose error exceeds the tolerance, or NaN/Inf */
    double max_rel_error;       /* largest ml_relative_error seen (Inf if any NaN/Inf) */
    size_t first_index[ML_MAX_REPORTED_MISMATCHES];     /* first mismatches, in index order */
    double first_got[ML_MAX_REPORTED_MISMATCHES];         /* a float, or a count (exact) */
    double first_expected[ML_MAX_REPORTED_MISMATCHES];
    size_t reported;            /* how many of first_* are filled */
} ml_comparison;

/* Error of one element: |got - expected| / max(|expected|, 1), computed in double: relative for
 * values of size 1 or more and absolute below (so values near zero do not blow it up).
 * INFINITY when got or expected is NaN or Inf.
 * An element is wrong when its error exceeds tolerance, or got is NaN or Inf (the harness
 * poisons outputs with NaN, so an unwritten element fails). */
double ml_relative_error(double got, double expected);
ml_comparison ml_compare(const float *got, const float *expected, size_t count, double tolerance);
/* Counts (a histogram): an element is wrong unless it equals the reference exactly; the error of
 * a wrong one is ml_relative_error's of the two counts. */
ml_comparison ml_compare_counts(const uint32_t *got, const uint32_t *expected, size_t count);
/* Adds a mismatch at index to the reported ones, while there is room for it. */
void ml_comparison_report(ml_comparison *comparison, size_t index, double got, double expected);
/* Adds part, the comparison of elements [first, first + part->count), to whole, the comparison of
 * the elements before them: an output compared in chunks gives what one ml_compare would. */
void ml_comparison_append(ml_comparison *whole, const ml_comparison *part, size_t first);
/* Prints the reported mismatches to stream, one line each, as
 *     [12] got nan, expected 0.25 (error inf)
 * (the error is ml_relative_error), then "  ... and N more" if there were more mismatches. */
void ml_print_mismatches(FILE *stream, const ml_comparison *comparison);

#endif
