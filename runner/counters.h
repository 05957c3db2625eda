/* counters.h: the hardware counters of a run: each variant's selection (metric_selection.h) read
 * in one collection on new inputs, its DRAM counters again for a short launch, the
 * unified-memory counters in a launch of their own; every counted launch checked. */
#ifndef MEMLAB_COUNTERS_H
#define MEMLAB_COUNTERS_H

#include "checks.h"
#include "lab_run.h"
#include "memlab.h"
#include "metric_selection.h"
#include "report.h"

/* Reads the selected metrics of one variant into measured (NAN: not read), all in one
 * collection (the unified-memory counters in a launch of their own). Where counters cannot be
 * read, one warning and the report's profiler note say why. */
void ml_collect_metrics(profiler_state *profiler, ml_report *report,
                        const prof_selection *selection, ml_problem *problem,
                        host_staging *staging, ml_record *record, double *measured);

/* The profiler, when a variant asks for metrics: opened, and every selection known to the
 * device's chip (an unknown metric is bad input); where counters cannot be read, a warning and
 * the run goes on without them. RUN_GOES_ON, or the exit status. */
int ml_open_profiler(lab_run *run);

#endif
