/* stats.h: summary statistics of repeated timings. */
#ifndef MEMLAB_STATS_H
#define MEMLAB_STATS_H

#include <stddef.h>

typedef struct {
    double median;      /* the middle sample; the mean of the two middle ones for even counts */
    double min;
    double max;
    double mean;
    double cv;          /* coefficient of variation: sample standard deviation / mean */
    size_t count;
} ml_stats;

/* Summarises count samples (the array is left unchanged). One sample has cv 0, and so does a
 * mean of 0; count 0 gives all zeros. */
ml_stats ml_stats_compute(const double *samples, size_t count);

#endif
