/* timing.h: the clocks of a run: the device's copy ceiling, the L2 flush before every timed and
 * profiled launch, a variant's timed repetitions, and the host's own seconds. */
#ifndef MEMLAB_TIMING_H
#define MEMLAB_TIMING_H

#include <stddef.h>

#include "checks.h"
#include "cli.h"
#include "memlab.h"
#include "report.h"

/* The L2 flush buffer, swept with reads before every timed launch and, as the profiler's
 * prelude, before every profiled one: the kernel then reads its inputs from DRAM and no earlier
 * dirty line (not even the ones starting the profiler left) is written back during it. */
typedef struct {
    void *buffer;
    size_t bytes;
    const ml_problem *zeroed;   /* the problem whose output a profiler pass must zero, or NULL */
} l2_flush;

/* Device-to-device cudaMemcpy, bytes read plus written: the bandwidth a kernel can hope for. */
double ml_measure_copy_ceiling(size_t free_bytes);

double ml_monotonic_seconds(void);
/* Seconds since *since, which moves to now. */
double ml_lap(double *since);

/* The profiler's prelude (argument: the l2_flush): the flush, and the zeroing of an output the
 * profiled kernel adds into (every pass runs the kernel again). */
void ml_flush_prelude(void *argument);

/* Warm-ups, then options->reps launches each on new inputs and a poisoned output after an L2
 * flush, timed with CUDA events and checked at positions no one can know: the record's timing
 * statistics, and a self-timing kernel's cycles per operation. */
void ml_time_variant(ml_problem *problem, const ml_options *options, const l2_flush *flush,
                     host_staging *staging, double sm_clock_hz, ml_record *record);

/* GPU time of the variant's own launches: the timed ones as measured, the checked one and the
 * warm-ups at the median. */
double ml_kernel_seconds(const ml_record *record, const ml_options *options);

#endif
