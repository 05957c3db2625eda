/* stats.c: median, min, max, mean and coefficient of variation of repeated timings. */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *left, const void *right)
{
    double a = *(const double *)left;
    double b = *(const double *)right;
    return (a > b) - (a < b);
}

ml_stats ml_stats_compute(const double *samples, size_t count)
{
    ml_stats stats = {0};
    if (count == 0) {
        return stats;
    }

    /* The median needs the samples in order; sort a copy so the caller's array is untouched. */
    double *sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL) {
        fprintf(stderr, "memlab: out of memory sorting %zu timing samples\n", count);
        exit(EXIT_FAILURE);
    }
    memcpy(sorted, samples, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, compare_doubles);

    size_t middle = count / 2;
    stats.median = count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2.0;
    stats.min = sorted[0];
    stats.max = sorted[count - 1];
    stats.count = count;
    free(sorted);

    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        sum += samples[i];
    }
    stats.mean = sum / (double)count;

    /* Sample standard deviation (divide by n - 1): the repetitions are a sample of all the runs
     * the kernel could have had. One sample says nothing about spread, so its cv is 0. */
    if (count > 1 && stats.mean != 0.0) {
        double squared_deviations = 0.0;
        for (size_t i = 0; i < count; i++) {
            double deviation = samples[i] - stats.mean;
            squared_deviations += deviation * deviation;
        }
        double standard_deviation = sqrt(squared_deviations / (double)(count - 1));
        stats.cv = standard_deviation / stats.mean;
    }
    return stats;
}
