/* lab_run.h: what one run of a lab program holds from one phase to the next (the phases: run.c,
 * open_device.c, counters.c; --cases runs many in one process, cases.c). */
#ifndef MEMLAB_LAB_RUN_H
#define MEMLAB_LAB_RUN_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "checks.h"
#include "cli.h"
#include "memlab.h"
#include "metric_selection.h"
#include "profiler.h"
#include "report.h"
#include "timing.h"

_Static_assert(PROF_MAX_SELECTED == ML_MAX_METRICS, "a selection fills a record's metrics");

/* The profiler of the run (counters.c). */
typedef struct {
    prof_session *session;      /* NULL when counters cannot be read */
    int unified_open;           /* 1 when the unified-memory counters can be read */
    int warned;
    double seconds;             /* wall time spent in the profiler so far */
} profiler_state;

/* What one run of a lab program holds from one phase to the next. */
typedef struct {
    const ml_lab *lab;
    double start;                       /* ml_monotonic_seconds() when ml_main began */
    ml_options options;
    prof_selection selections[ML_MAX_VARIANTS];
    ml_report report;
    cudaKernel_t kernels[ML_MAX_VARIANTS];
    struct cudaDeviceProp properties;
    size_t free_bytes;
    ml_gpu_facts device_facts;          /* the model's GPU: this device's SMs and L2 */
    ml_device_figures figures;          /* what a family's peak_gbps is given */
    profiler_state profiler;
    int wants_metrics;
    l2_flush flush;
    host_staging staging;
    int keep_open;                      /* --cases: the profiler, flush buffer and staging stay
                                           open for the next case */
} lab_run;

/* What a phase returns when the run goes on; any other value is the program's exit status. */
#define RUN_GOES_ON (-1)

#endif
