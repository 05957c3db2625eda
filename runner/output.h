/* output.h: what a run writes: the records' fields from what was measured and predicted, the
 * report in the format asked for, and the progress on stderr. */
#ifndef MEMLAB_OUTPUT_H
#define MEMLAB_OUTPUT_H

#include <cuda_runtime_api.h>

#include "cli.h"
#include "memlab.h"
#include "metric_selection.h"
#include "report.h"

/* The record's metrics: the selection's names, the prediction beside each, what was measured
 * (NULL: nothing, --model). */
void ml_fill_metric_results(ml_record *record, const prof_selection *selection,
                            const ml_prediction *prediction, const double *measured);
/* FLOPs per byte the global loads asked for: the tiling lesson's compute-to-memory ratio. */
void ml_fill_intensity(ml_record *record);
/* GB/s and GFLOP/s from the median time, and the share of the copy ceiling. */
void ml_fill_rates(ml_record *record, double ceiling_gbps);
/* The level's peak, where the family knows it, and the variant's share of it. */
void ml_fill_peak(ml_problem *problem, const ml_device_figures *device, ml_record *record);
/* What the variant's kernel costs the SM at its block size, and the spills ptxas reported for
 * the code that runs (compiled for the architecture cudaFuncAttributes.binaryVersion names). */
void ml_fill_resources(const ml_problem *problem, const struct cudaDeviceProp *properties,
                       ml_record *record);
/* Each record's GFLOP/s as % of the ceiling variant's at the same sizes. */
void ml_fill_flops_ceiling(const ml_lab *lab, ml_report *report);

/* The report in --format to --out (and the table on stdout too), or to stdout. Returns
 * ML_EXIT_OK, or ML_EXIT_USAGE when the file cannot be written. */
int ml_write_report(const ml_report *report, const ml_options *options);

/* "point n of N" on stderr while a run of several records goes on: in place on a terminal, a
 * line each for a program that reads them (MEMLAB_PROGRESS=1: ./memlab demo). */
typedef enum { PROGRESS_NONE, PROGRESS_IN_PLACE, PROGRESS_LINES } progress_mode;

typedef struct {
    progress_mode mode;
    long long done, total;
} progress_state;

progress_state ml_progress_start(long long total);
void ml_progress_show(progress_state *progress, const ml_lab *lab, const char *variant,
                      const long long *param, const ml_options *options);
void ml_progress_end(const progress_state *progress);

#endif
