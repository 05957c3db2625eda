/* report.h: the results of a run, as an aligned table for people or CSV / JSON for programs.
 * JSON keys metrics by their full Perfworks names (comparable with Nsight Compute) with the
 * alias alongside. */
#ifndef MEMLAB_REPORT_H
#define MEMLAB_REPORT_H

#include <stdio.h>

#include "compare.h"
#include "gpu_facts.h"
#include "memlab.h"
#include "stats.h"

typedef struct {
    char alias[128];
    char full_name[256];        /* Perfworks name, or "numerator / denominator" */
    char unit[32];
    double predicted;           /* NAN when the model makes no prediction; a range's high end */
    double predicted_low;       /* a range's low end; NAN for a point prediction */
    char reason[256];           /* why the model predicts a range ("" for a point) */
    double range_against;       /* a range from zero: the count it is a share of; NAN if none */
    double measured;            /* NAN when not measured (no profiler, --model) */
} ml_metric_result;

/* What a kernel costs the SM, from cudaFuncGetAttributes and the occupancy calculator. */
typedef struct {
    int known;                  /* 0 for a variant without a kernel of its own, or --model */
    char kernel_name[256];      /* as the driver names it (mangled), for Nsight Compute's filters */
    int registers_per_thread;
    size_t local_bytes_per_thread;
    size_t shared_bytes_per_block;  /* static __shared__ declarations */
    unsigned threads_per_block;
    int blocks_per_sm;          /* resident blocks the resources allow */
    double occupancy_pct;       /* resident warps / the SM's maximum, in % */
    int spill_store_bytes;      /* per thread, as ptxas reported them; -1 when unknown */
    int spill_load_bytes;
} ml_kernel_resources;

typedef struct {
    const char *variant;
    long long param[ML_MAX_PARAMS];
    int timed;                  /* 0 under --model */
    ml_stats time_ms;
    double bytes;
    double flops;
    double gbps;                /* bytes / median time */
    double pct_of_ceiling;      /* gbps / copy ceiling, in % (NAN without ceiling) */
    double peak_gbps;           /* the level's peak (ml_family.peak_gbps); NAN: none */
    double pct_of_peak;         /* gbps / peak_gbps, in % */
    char peak_source[160];      /* where the peak comes from ("" when none) */
    double gflops;              /* NAN when the variant does no arithmetic */
    double pct_of_flops_ceiling;    /* gflops / the lab's flops_ceiling variant's, in % (NAN) */
    /* Arithmetic intensity against global loads: flops over the gld_bytes metric, predicted and
     * measured (NAN when the variant does no arithmetic or gld_bytes is not among its metrics). */
    double flops_per_gld_byte_predicted;
    double flops_per_gld_byte_measured;
    ml_kernel_resources resources;
    /* A kernel that times itself (ml_problem.cycles): SM clock cycles per dependent operation
     * over the timed launches, and the median in nanoseconds at the SM clock. */
    int has_latency;
    ml_stats cycles_per_op;
    double ns_per_op;
    const char *served_by;      /* the model's level for the accesses (ml_prediction), or NULL */
    int checked;                /* 0 under --model */
    int correct;
    ml_comparison comparison;
    int metric_count;
    ml_metric_result metric[ML_MAX_METRICS];
} ml_record;

/* Where a run's wall time went, in seconds (all 0 under --model). The host's share is the wall
 * time less the kernels' and the counters'. */
typedef struct {
    double wall;                /* from ml_main's start to the report */
    double kernels;             /* the variants' own launches on the GPU: the timed ones as
                                   measured, the checked one and the warm-ups at their median */
    double startup;             /* device, kernels file, profiler, copy ceiling, flush buffer */
    double setup;               /* the lab's setup: buffers, inputs, CPU references */
    double check;               /* the checked launch, its copy back and the comparison */
    double timing_loop;         /* warm-ups and timed launches, with their flushes and samples */
    double model;               /* the access model's predictions */
    double teardown;
} ml_run_seconds;

typedef struct {
    const ml_lab *lab;
    char device_name[256];      /* "" under --model */
    int compute_major, compute_minor;
    int sm_count;
    double l2_mib;
    double sm_clock_mhz;        /* the SM clock the runtime reports (its highest); NAN: none */
    double ceiling_gbps;        /* device-to-device copy, bytes read + written; NAN if not measured */
    double published_dram_gbps; /* 2 x memory clock x bus width; NAN if not known */
    uint64_t seed;
    int reps, warmup;
    char profiler_note[256];    /* "" when counters were read, else why not */
    double counter_seconds;     /* wall time spent reading counters (opening the profiler, every
                                   collection, closing it); NAN if none were asked for */
    ml_run_seconds seconds;
    const ml_gpu_facts *model_gpu;  /* the GPU the predictions are for (NULL: none made) */
    int record_count;
    int record_capacity;
    ml_record *records;
} ml_report;

/* Appends a zeroed record (growing the array) and returns it. */
ml_record *ml_report_add(ml_report *report);
void ml_report_free(ml_report *report);

/* Each returns 0, or -1 if the report's JSON could not be built (the table and the CSV are
 * made from it). */
int ml_report_table(const ml_report *report, FILE *stream);
int ml_report_csv(const ml_report *report, FILE *stream);
int ml_report_json(const ml_report *report, FILE *stream);
/* One page for a browser (html.h's rd_write_html): a memory chart per kernel, measured beside
 * predicted, and the tables. */
int ml_report_html(const ml_report *report, FILE *stream);

#endif
