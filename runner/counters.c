/* counters.c: the hardware counters of a run (counters.h): the profiler opened once, each
 * variant's selection read in one collection on new inputs, every counted launch checked. */
#include "counters.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "timing.h"

static void profiler_warn(profiler_state *profiler, ml_report *report, const char *what)
{
    /* The note holds what fits of the reason (stderr has it whole). */
    snprintf(report->profiler_note, sizeof report->profiler_note, "not read: %.*s",
             (int)(sizeof report->profiler_note - sizeof "not read: "), what);
    if (!profiler->warned)
        fprintf(stderr, "memlab: warning: hardware counters are not read (%s); timings and "
                        "predictions go on\n", what);
    profiler->warned = 1;
}

/* Collects names[0..count): one launch of the variant in each pass the names need. */
static prof_status collect(profiler_state *profiler, const ml_problem *problem,
                           const char *const *names, size_t count, double *values)
{
    prof_status status = prof_begin(profiler->session, names, count);
    int another_pass = 1;
    while (status == PROF_OK && another_pass) {
        problem->variant->family->launch(problem);
        ML_LAUNCH_CHECK();
        status = prof_next_pass(profiler->session, &another_pass);
    }
    if (status == PROF_OK)
        status = prof_end(profiler->session, values);
    return status;
}

/* The DRAM counters count every agent's traffic, not only the kernel's: a kernel that touches
 * no memory at all read 2.5 to 8 KiB in 0.1 ms, and up to 93 KiB in 1 ms, as other agents'
 * bursts landed in its window or not (tools/ncu/dram_background.sh; the runs are in
 * common/gpu_facts.c). A launch shorter than DRAM_RECOLLECT_MS has its DRAM counters collected
 * DRAM_COLLECTIONS times in all, each after the prelude's L2 flush, and keeps the least of
 * each: a burst seldom lands in every window, so the least is the launch's own traffic. */
#define DRAM_COLLECTIONS 3
#define DRAM_RECOLLECT_MS 1.0

static void recollect_dram(profiler_state *profiler, ml_problem *problem, host_staging *staging,
                           ml_record *record, const char *const *names, size_t count,
                           double *values)
{
    const char *dram_names[2 * ML_MAX_METRICS];
    size_t at[2 * ML_MAX_METRICS], dram_count = 0;
    for (size_t i = 0; i < count; i++) {
        if (strncmp(names[i], "dram__", strlen("dram__")) == 0) {
            dram_names[dram_count] = names[i];
            at[dram_count++] = i;
        }
    }
    for (int collection = 1; collection < DRAM_COLLECTIONS && dram_count > 0; collection++) {
        double dram_values[2 * ML_MAX_METRICS];
        ml_refresh_inputs(problem);
        ml_poison_output(problem);
        if (collect(profiler, problem, dram_names, dram_count, dram_values) != PROF_OK)
            return; /* the first collection's values stand; the next collection will warn */
        /* Rule 7: these launches are checked like every other. */
        ml_check_random_positions(problem, staging, "profiled", record);
        ml_check_guards(problem, "profiled", record);
        for (size_t i = 0; i < dram_count; i++)
            values[at[i]] = fmin(values[at[i]], dram_values[i]);
    }
}

/* The selection's unified-memory counters: one launch of its own on new inputs, with CUPTI's
 * activity records on (the range profiler replays a kernel, and a replay finds the pages the
 * first pass moved already on the GPU). */
static void collect_unified(profiler_state *profiler, ml_report *report,
                            const prof_selection *selection, ml_problem *problem,
                            host_staging *staging, ml_record *record, double *measured)
{
    if (!profiler->unified_open || !prof_selection_has(selection, 1))
        return;
    double values[PROF_UM_COUNTERS];
    ml_refresh_inputs(problem);
    ml_poison_output(problem);
    double start = ml_monotonic_seconds();
    prof_status status = prof_unified_begin();
    if (status == PROF_OK) {
        problem->variant->family->launch(problem);
        ML_LAUNCH_CHECK();
        status = prof_unified_end(values);
    }
    profiler->seconds += ml_monotonic_seconds() - start;
    if (status != PROF_OK) {
        profiler_warn(profiler, report, prof_last_error());
        if (prof_status_is_environmental(status))
            profiler->unified_open = 0;
        return;
    }
    ml_check_random_positions(problem, staging, "counted", record);
    ml_check_guards(problem, "counted", record);
    for (int i = 0; i < selection->count; i++)
        if (selection->metric[i].metric.unified != PROF_UM_NONE)
            measured[i] = values[selection->metric[i].metric.unified];
}

/* Reads the selected metrics of one variant, all in one collection (the unified-memory
 * counters in a launch of their own). */
void ml_collect_metrics(profiler_state *profiler, ml_report *report,
                        const prof_selection *selection, ml_problem *problem,
                        host_staging *staging, ml_record *record,
                        double *measured)
{
    const char *names[2 * ML_MAX_METRICS];
    int first_input[ML_MAX_METRICS], input_count[ML_MAX_METRICS];
    size_t name_count = 0;
    for (int i = 0; i < selection->count; i++) {
        measured[i] = NAN;
        first_input[i] = (int)name_count;
        input_count[i] = 0;
        if (!selection->metric[i].supported)
            continue;
        input_count[i] = (int)prof_metric_inputs(&selection->metric[i].metric, &names[name_count]);
        name_count += (size_t)input_count[i];
    }
    collect_unified(profiler, report, selection, problem, staging, record, measured);
    if (profiler->session == NULL || name_count == 0)
        return;

    double values[2 * ML_MAX_METRICS];
    ml_refresh_inputs(problem);
    ml_poison_output(problem);
    double start = ml_monotonic_seconds();
    prof_status status = collect(profiler, problem, names, name_count, values);
    profiler->seconds += ml_monotonic_seconds() - start;
    if (status != PROF_OK) {
        profiler_warn(profiler, report, prof_last_error());
        if (prof_status_is_environmental(status)) {
            prof_close(profiler->session);
            profiler->session = NULL;
        }
        return;
    }
    ml_check_random_positions(problem, staging, "profiled", record);
    ml_check_guards(problem, "profiled", record);
    if (record->time_ms.median < DRAM_RECOLLECT_MS) {
        start = ml_monotonic_seconds();
        recollect_dram(profiler, problem, staging, record, names, name_count, values);
        profiler->seconds += ml_monotonic_seconds() - start;
    }
    for (int i = 0; i < selection->count; i++) {
        if (input_count[i] == 1)
            measured[i] = values[first_input[i]];
        else if (input_count[i] == 2)
            measured[i] = values[first_input[i] + 1] == 0.0
                              ? NAN
                              : selection->metric[i].metric.scale * values[first_input[i]] /
                                    values[first_input[i] + 1];
    }
}

/* What the cases of --cases learn once: whether the profiler (and the unified-memory counters)
 * could be opened, and if not why, so that every case that asks for counters reports what a run
 * of its own would. */
typedef struct {
    int tried;
    int failed;
    char failure[512];
} open_attempt;

static open_attempt perfworks_attempt, unified_attempt;

int ml_open_profiler(lab_run *run)
{
    const ml_lab *lab = run->lab;
    profiler_state *profiler = &run->profiler;
    int wants_perfworks = 0, wants_unified = 0;
    for (int v = 0; v < lab->num_variants; v++) {
        if (!run->options.variant_selected[v])
            continue;
        wants_perfworks |= prof_selection_has(&run->selections[v], 0);
        wants_unified |= prof_selection_has(&run->selections[v], 1);
    }
    run->wants_metrics = wants_perfworks || wants_unified;
    /* Under --cases an earlier case may have opened either already, or failed to. */
    if (wants_unified && unified_attempt.failed) {
        profiler_warn(profiler, &run->report, unified_attempt.failure);
    } else if (wants_unified && !profiler->unified_open) {
        double start = ml_monotonic_seconds();
        prof_status status = prof_unified_open(run->options.device);
        profiler->seconds += ml_monotonic_seconds() - start;
        unified_attempt.tried = 1;
        if (status == PROF_OK) {
            profiler->unified_open = 1;
        } else {
            unified_attempt.failed = 1;
            snprintf(unified_attempt.failure, sizeof unified_attempt.failure, "%s",
                     prof_last_error());
            profiler_warn(profiler, &run->report, unified_attempt.failure);
        }
    }
    /* Under --cases a session an earlier case opened is closed before a case that reads no
     * counters: its launches run, and are timed, as they would in a process of their own,
     * with no profiler attached. */
    if (!wants_perfworks && profiler->session != NULL) {
        prof_close(profiler->session);
        profiler->session = NULL;
    }
    if (!wants_perfworks)
        return RUN_GOES_ON;
    if (perfworks_attempt.failed) {
        profiler_warn(profiler, &run->report, perfworks_attempt.failure);
        return RUN_GOES_ON;
    }
    if (profiler->session == NULL) {
        double start = ml_monotonic_seconds();
        prof_status status = prof_open(run->options.device, &profiler->session);
        profiler->seconds += ml_monotonic_seconds() - start;
        perfworks_attempt.tried = 1;
        if (status != PROF_OK) {
            profiler->session = NULL;
            perfworks_attempt.failed = 1;
            snprintf(perfworks_attempt.failure, sizeof perfworks_attempt.failure, "%s",
                     prof_last_error());
            profiler_warn(profiler, &run->report, perfworks_attempt.failure);
            return RUN_GOES_ON;
        }
    }
    char error[512];
    for (int v = 0; v < lab->num_variants; v++) {
        if (run->options.variant_selected[v] &&
            prof_check_selection(prof_chip_name(profiler->session), &run->selections[v], error,
                                 sizeof error) != 0) {
            prof_close(profiler->session);
            profiler->session = NULL;
            return ml_usage_error(lab, error);
        }
    }
    return RUN_GOES_ON;
}
