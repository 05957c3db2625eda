/* harness.c: ml_main, the run every lab shares.
 *
 *   parse the command line (bad input: exit 2 before anything else)
 *   pick the device, refuse sizes that do not fit, open the profiler (or warn and go on)
 *   measure the device-to-device copy ceiling once
 *   for every selected variant and sweep point:
 *       setup -> poisoned output, one launch, compare with the CPU reference
 *             -> warm-up, timed repetitions with the L2 flushed before each
 *             -> one profiled launch for the counters; the model's predictions beside them
 *       every timed and profiled launch runs on new inputs made from a secret seed, and its
 *       output is compared with the reference at positions drawn from the OS's random source
 *   print the report
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getpid */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cli.h"
#include "lab_table.h"
#include "memlab.h"
#include "process.h"
#include "profiler.h"
#include "report.h"
#include "report_data.h"

#define CEILING_MAX_BYTES ((size_t)1 << 30)
#define CEILING_REPS 10
/* Sizes must leave room for the copy-ceiling buffers and the L2 flush buffer. */
#define USABLE_MEMORY_FRACTION 0.9

/* A metric the run collects: a table entry, or a Perfworks name given on the command line. */
typedef struct {
    prof_metric metric;
    char name[128];
    int supported;              /* 0 when the device's chip does not know one of its inputs */
} selected_metric;

typedef struct {
    selected_metric metric[ML_MAX_METRICS];
    int count;
} metric_selection;

static int add_metric(metric_selection *selection, const char *name, char *error, size_t error_size)
{
    const prof_metric *known = prof_metric_find(name);
    for (int i = 0; i < selection->count; i++)
        if (strcmp(selection->metric[i].name, known ? known->alias : name) == 0)
            return ML_EXIT_OK;
    if (selection->count == ML_MAX_METRICS) {
        snprintf(error, error_size, "--metrics: more than %d metrics", ML_MAX_METRICS);
        return ML_EXIT_USAGE;
    }
    selected_metric *selected = &selection->metric[selection->count];
    if (known != NULL) {
        selected->metric = *known;
        snprintf(selected->name, sizeof selected->name, "%s", known->alias);
    } else if (strstr(name, "__") != NULL && strlen(name) < sizeof selected->name) {
        /* Not in the alias table but shaped like a Perfworks name: checked against the chip
         * once the device is known. */
        snprintf(selected->name, sizeof selected->name, "%s", name);
        memset(&selected->metric, 0, sizeof selected->metric);
        selected->metric.alias = selected->name;
        selected->metric.perfworks = selected->name;
        selected->metric.unit = "";
    } else {
        snprintf(error, error_size, "unknown metric '%s' (./memlab list --metrics shows them)",
                 name);
        return ML_EXIT_USAGE;
    }
    selected->supported = 1;
    selection->count++;
    return ML_EXIT_OK;
}

static int add_metric_list(metric_selection *selection, const char *list, char *error,
                           size_t error_size)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    /* strtok would skip empty names ("a,,b", "a,"): walk the commas so they are refused. */
    char *name = copy;
    for (;;) {
        char *comma = strchr(name, ',');
        if (comma != NULL)
            *comma = '\0';
        if (name[0] == '\0') {
            snprintf(error, error_size, "--metrics: a metric name is empty (names are separated by single commas)");
            return ML_EXIT_USAGE;
        }
        int status = add_metric(selection, name, error, error_size);
        if (status != ML_EXIT_OK || comma == NULL)
            return status;
        name = comma + 1;
    }
}

static int is_metric_group(const char *name)
{
    if (strcmp(name, "all") == 0)
        return 1;
    for (size_t i = 0; i < prof_metric_count(); i++)
        if (strcmp(prof_metric_at(i)->group, name) == 0)
            return 1;
    return 0;
}

/* What --metrics means for one variant. */
static int select_metrics(const char *request, const ml_variant *variant,
                          metric_selection *selection, char *error, size_t error_size)
{
    memset(selection, 0, sizeof *selection);
    if (strcmp(request, "none") == 0)
        return ML_EXIT_OK;
    if (strcmp(request, "default") == 0)
        return variant->metrics == NULL || variant->metrics[0] == '\0'
                   ? ML_EXIT_OK    /* a variant without counters of its own (a library call) */
                   : add_metric_list(selection, variant->metrics, error, error_size);
    if (is_metric_group(request)) {
        for (size_t i = 0; i < prof_metric_count(); i++) {
            const prof_metric *metric = prof_metric_at(i);
            if (strcmp(request, "all") == 0 || strcmp(metric->group, request) == 0) {
                int status = add_metric(selection, metric->alias, error, error_size);
                if (status != ML_EXIT_OK)
                    return status;
            }
        }
        return ML_EXIT_OK;
    }
    return add_metric_list(selection, request, error, error_size);
}

static uint64_t fresh_seed(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t seed = (uint64_t)now.tv_sec * 1000000007ull ^ (uint64_t)now.tv_nsec;
    return seed ^ ((uint64_t)getpid() << 32);
}

static double median_of(double *values, int count)
{
    ml_stats stats = ml_stats_compute(values, (size_t)count);
    return stats.median;
}

/* Device-to-device cudaMemcpy, bytes read plus written: the bandwidth a kernel can hope for. */
static double measure_copy_ceiling(size_t free_bytes)
{
    size_t bytes = CEILING_MAX_BYTES;
    while (bytes > ((size_t)1 << 20) && 2 * bytes > free_bytes / 4)
        bytes /= 2;
    void *source = ml_device_alloc(bytes);
    void *destination = ml_device_alloc(bytes);
    ML_CUDA_CHECK(cudaMemset(source, 1, bytes));
    cudaEvent_t start, stop;
    ML_CUDA_CHECK(cudaEventCreate(&start));
    ML_CUDA_CHECK(cudaEventCreate(&stop));
    ML_CUDA_CHECK(cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToDevice));
    double seconds[CEILING_REPS];
    for (int rep = 0; rep < CEILING_REPS; rep++) {
        ML_CUDA_CHECK(cudaEventRecord(start, 0));
        ML_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, 0));
        ML_CUDA_CHECK(cudaEventRecord(stop, 0));
        ML_CUDA_CHECK(cudaEventSynchronize(stop));
        float milliseconds = 0;
        ML_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));
        seconds[rep] = milliseconds * 1e-3;
    }
    ML_CUDA_CHECK(cudaEventDestroy(start));
    ML_CUDA_CHECK(cudaEventDestroy(stop));
    ml_device_free(source);
    ml_device_free(destination);
    return 2.0 * (double)bytes / median_of(seconds, CEILING_REPS) / 1e9;
}

typedef struct {
    prof_session *session;      /* NULL when counters cannot be read */
    int unified_open;           /* 1 when the unified-memory counters can be read */
    int warned;
    double seconds;             /* wall time spent in the profiler so far */
} profiler_state;

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Seconds since *since, which moves to now. */
static double lap(double *since)
{
    double now = monotonic_seconds();
    double elapsed = now - *since;
    *since = now;
    return elapsed;
}

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

/* Checks every Perfworks name of the selection against the chip. Names typed by the user must be
 * right (exit 2); a table metric the chip lacks is dropped with a warning. */
static int validate_selection(const char *chip, metric_selection *selection, char *error,
                              size_t error_size)
{
    for (int i = 0; i < selection->count; i++) {
        selected_metric *selected = &selection->metric[i];
        const char *inputs[2];
        size_t input_count = prof_metric_inputs(&selected->metric, inputs);
        if (input_count == 0)
            continue; /* a unified-memory counter: no Perfworks name to check */
        size_t bad_index = 0;
        prof_status status = prof_validate_metrics(chip, inputs, input_count, &bad_index, NULL);
        if (status == PROF_OK)
            continue;
        if (status == PROF_ERR_UNKNOWN_METRIC && prof_metric_find(selected->name) == NULL) {
            snprintf(error, error_size, "metric '%s' is not known on this device's chip (%s)",
                     selected->name, chip);
            return ML_EXIT_USAGE;
        }
        fprintf(stderr, "memlab: warning: metric %s is not available on %s: %s\n", selected->name,
                chip, prof_last_error());
        selected->supported = 0;
    }
    return ML_EXIT_OK;
}

/* The L2 flush buffer, swept with reads before every timed launch and, as the profiler's
 * prelude, before every profiled one: the kernel then reads its inputs from DRAM and no earlier
 * dirty line (not even the ones starting the profiler left) is written back during it. */
typedef struct {
    void *buffer;
    size_t bytes;
    const ml_problem *zeroed;   /* the problem whose output a profiler pass must zero, or NULL */
} l2_flush;

static int output_is_zeroed(const ml_problem *problem)
{
    return problem->output_kind != ML_OUTPUT_WRITTEN;
}

/* Every pass of the profiler runs the kernel again: an output it adds into is zeroed in the
 * prelude's kernel, so that the launch after the last pass can be checked like any other. */
static void flush_prelude(void *argument)
{
    const l2_flush *flush = argument;
    const ml_problem *zeroed = flush->zeroed;
    ml_flush_l2(flush->buffer, flush->bytes, zeroed != NULL ? zeroed->output : NULL,
                zeroed != NULL ? zeroed->output_count * sizeof(float) : 0);
}

/* Before every launch the output is poisoned (an element the kernel never writes fails) or
 * zeroed (an output the kernel adds into), and a kernel that keeps a clock has it zeroed. */
static void poison_output(const ml_problem *problem)
{
    /* All bits set is a NaN: an element the kernel never writes fails the comparison. An output
     * the kernel adds into starts from zero instead. */
    int fill_byte = output_is_zeroed(problem) ? 0 : (int)(ML_POISON_BITS & 0xff);
    ML_CUDA_CHECK(cudaMemset(problem->output, fill_byte, problem->output_count * sizeof(float)));
    /* A clock left from the launch before cannot pass for this one's. */
    if (problem->cycles != NULL)
        ML_CUDA_CHECK(cudaMemset(problem->cycles, 0, sizeof *problem->cycles));
}

/* Before every timed and profiled launch: inputs made from a secret seed, so that no launch sees
 * inputs an earlier one saw (a result computed once and replayed is wrong) and no kernel can
 * know them in advance. */
static void refresh_inputs(ml_problem *problem)
{
    uint64_t seed;
    ml_secret_random(&seed, sizeof seed);
    problem->seed = seed;
    problem->variant->family->fill_inputs(problem);
}

/* The checked output comes back in chunks through two pinned buffers, made once for the run:
 * the copy of one chunk overlaps the comparison of the one before, and the pinned memory stays
 * at two chunks whatever the output's size (pinning gigabytes costs as much as comparing them).
 * A sampled check (check_index) gathers from the whole output, copied into pinned memory grown
 * to the largest one. The random checks gather their positions on the GPU. */
#define CHECK_CHUNK_FLOATS ((size_t)1 << 22) /* 16 MiB */

typedef struct {
    void *chunk[2];             /* CHECK_CHUNK_FLOATS elements of 4 bytes: floats or counts */
    cudaEvent_t copied[2];
    cudaStream_t stream;
    float *whole;
    size_t whole_count;
    /* ML_RANDOM_CHECKS of each: positions drawn, what the output holds there (device and host)
     * and what the reference says */
    size_t *position, *device_position;
    uint32_t *device_gathered, *gathered, *expected;
} host_staging;

/* Compares the output at ML_RANDOM_CHECKS positions drawn from the OS's random source (every
 * element of a smaller output) with the lab's reference there, and adds what differs to the
 * record. `which` launch it was is named once, when the record fails here first. */
static void check_random_positions(const ml_problem *problem, host_staging *staging,
                                   const char *which, ml_record *record)
{
    size_t count = problem->output_count;
    size_t checked = count < ML_RANDOM_CHECKS ? count : ML_RANDOM_CHECKS;
    if (checked == count) {
        for (size_t i = 0; i < checked; i++)
            staging->position[i] = i;
    } else {
        uint64_t draw[ML_RANDOM_CHECKS];
        ml_secret_random(draw, checked * sizeof draw[0]);
        /* The modulo's bias is below count / 2^64: nothing a kernel could use. */
        for (size_t i = 0; i < checked; i++)
            staging->position[i] = (size_t)(draw[i] % count);
    }
    ML_CUDA_CHECK(cudaMemcpy(staging->device_position, staging->position,
                             checked * sizeof *staging->position, cudaMemcpyHostToDevice));
    /* Counts are 4-byte words like floats: one gather serves both. */
    ml_gather_words((const uint32_t *)problem->output, staging->device_position, checked,
                    staging->device_gathered);
    ML_CUDA_CHECK(cudaMemcpy(staging->gathered, staging->device_gathered,
                             checked * sizeof *staging->gathered, cudaMemcpyDeviceToHost));
    problem->variant->family->reference_at(problem, staging->position, checked, staging->expected);
    if (problem->output_kind == ML_OUTPUT_WRITTEN) {
        /* A position the kernel must leave unwritten (padding between arrays) expects the
         * poison, and matches only where the poison is still there. */
        for (size_t i = 0; i < checked; i++) {
            if (staging->expected[i] == ML_POISON_BITS && staging->gathered[i] == ML_POISON_BITS)
                staging->expected[i] = staging->gathered[i] = 0;
        }
    }
    ml_comparison found =
        problem->output_kind == ML_OUTPUT_COUNTED
            ? ml_compare_counts(staging->gathered, staging->expected, checked)
            : ml_compare((const float *)staging->gathered, (const float *)staging->expected,
                         checked, problem->tolerance);
    if (found.mismatches == 0)
        return;
    /* Added to the record's comparison, by their index in the output. */
    ml_comparison *comparison = &record->comparison;
    for (size_t i = 0; i < found.reported; i++)
        ml_comparison_report(comparison, staging->position[found.first_index[i]],
                             found.first_got[i], found.first_expected[i]);
    comparison->mismatches += found.mismatches;
    if (found.max_rel_error > comparison->max_rel_error)
        comparison->max_rel_error = found.max_rel_error;
    if (record->correct)
        fprintf(stderr, "memlab: %s: after the %s launch out[%zu] = %.10g, expected %.10g: a "
                        "kernel must compute every element at every launch, from the inputs it "
                        "is given\n",
                problem->variant->name, which, staging->position[found.first_index[0]],
                found.first_got[0], found.first_expected[0]);
    record->correct = 0;
}

/* Rule 7: after every launch whose output is checked, nothing outside the run's buffers
 * changed (the guards around each, ml_device_buffer). A changed guard word counts as a
 * mismatch of the record, whatever the kernel knew about being checked. */
static void check_guards(const ml_problem *problem, const char *which, ml_record *record)
{
    char where[256];
    size_t changed = ml_guard_words_changed(problem, where, sizeof where);
    if (changed == 0)
        return;
    record->comparison.mismatches += changed;
    if (record->correct)
        fprintf(stderr, "memlab: %s: after the %s launch %s had changed (%zu words outside the "
                        "run's buffers in all): a kernel must write nothing but its output\n",
                problem->variant->name, which, where, changed);
    record->correct = 0;
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
        refresh_inputs(problem);
        poison_output(problem);
        if (collect(profiler, problem, dram_names, dram_count, dram_values) != PROF_OK)
            return; /* the first collection's values stand; the next collection will warn */
        /* Rule 7: these launches are checked like every other. */
        check_random_positions(problem, staging, "profiled", record);
        check_guards(problem, "profiled", record);
        for (size_t i = 0; i < dram_count; i++)
            values[at[i]] = fmin(values[at[i]], dram_values[i]);
    }
}

/* 1 if the selection has a unified-memory counter (unified 1) or a Perfworks metric (0). */
static int selects(const metric_selection *selection, int unified)
{
    for (int i = 0; i < selection->count; i++)
        if ((selection->metric[i].metric.unified != PROF_UM_NONE) == unified)
            return 1;
    return 0;
}

/* The selection's unified-memory counters: one launch of its own on new inputs, with CUPTI's
 * activity records on (the range profiler replays a kernel, and a replay finds the pages the
 * first pass moved already on the GPU). */
static void collect_unified(profiler_state *profiler, ml_report *report,
                            const metric_selection *selection, ml_problem *problem,
                            host_staging *staging, ml_record *record, double *measured)
{
    if (!profiler->unified_open || !selects(selection, 1))
        return;
    double values[PROF_UM_COUNTERS];
    refresh_inputs(problem);
    poison_output(problem);
    double start = monotonic_seconds();
    prof_status status = prof_unified_begin();
    if (status == PROF_OK) {
        problem->variant->family->launch(problem);
        ML_LAUNCH_CHECK();
        status = prof_unified_end(values);
    }
    profiler->seconds += monotonic_seconds() - start;
    if (status != PROF_OK) {
        profiler_warn(profiler, report, prof_last_error());
        if (prof_status_is_environmental(status))
            profiler->unified_open = 0;
        return;
    }
    check_random_positions(problem, staging, "counted", record);
    check_guards(problem, "counted", record);
    for (int i = 0; i < selection->count; i++)
        if (selection->metric[i].metric.unified != PROF_UM_NONE)
            measured[i] = values[selection->metric[i].metric.unified];
}

/* Reads the selected metrics of one variant, all in one collection (the unified-memory
 * counters in a launch of their own). */
static void collect_metrics(profiler_state *profiler, ml_report *report,
                            const metric_selection *selection, ml_problem *problem,
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
    refresh_inputs(problem);
    poison_output(problem);
    double start = monotonic_seconds();
    prof_status status = collect(profiler, problem, names, name_count, values);
    profiler->seconds += monotonic_seconds() - start;
    if (status != PROF_OK) {
        profiler_warn(profiler, report, prof_last_error());
        if (prof_status_is_environmental(status)) {
            prof_close(profiler->session);
            profiler->session = NULL;
        }
        return;
    }
    check_random_positions(problem, staging, "profiled", record);
    check_guards(problem, "profiled", record);
    if (record->time_ms.median < DRAM_RECOLLECT_MS) {
        start = monotonic_seconds();
        recollect_dram(profiler, problem, staging, record, names, name_count, values);
        profiler->seconds += monotonic_seconds() - start;
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

static void fill_metric_results(ml_record *record, const metric_selection *selection,
                                const ml_prediction *prediction, const double *measured)
{
    record->metric_count = selection->count;
    for (int i = 0; i < selection->count; i++) {
        const selected_metric *selected = &selection->metric[i];
        ml_metric_result *result = &record->metric[i];
        snprintf(result->alias, sizeof result->alias, "%s", selected->name);
        prof_metric_full_name(&selected->metric, result->full_name, sizeof result->full_name);
        snprintf(result->unit, sizeof result->unit, "%s", selected->metric.unit);
        result->predicted = result->predicted_low = result->range_against = NAN;
        result->reason[0] = '\0';
        for (int p = 0; p < prediction->count; p++) {
            if (strcmp(prediction->alias[p], selected->name) != 0)
                continue;
            result->predicted = prediction->value[p];
            if (prediction->reason[p] != NULL) {
                result->predicted_low = prediction->low[p];
                if (prediction->against[p] > 0)
                    result->range_against = prediction->against[p];
                snprintf(result->reason, sizeof result->reason, "%s", prediction->reason[p]);
            }
        }
        result->measured = measured ? measured[i] : NAN;
    }
}

/* FLOPs per byte the global loads asked for: the tiling lesson's compute-to-memory ratio. */
static void fill_intensity(ml_record *record)
{
    record->flops_per_gld_byte_predicted = NAN;
    record->flops_per_gld_byte_measured = NAN;
    if (record->flops <= 0)
        return;
    for (int i = 0; i < record->metric_count; i++) {
        const ml_metric_result *result = &record->metric[i];
        if (strcmp(result->alias, "gld_bytes") != 0)
            continue;
        if (result->predicted > 0)
            record->flops_per_gld_byte_predicted = record->flops / result->predicted;
        if (result->measured > 0)
            record->flops_per_gld_byte_measured = record->flops / result->measured;
    }
}

/* The cycles a self-timing kernel stored for one timed launch, per operation, or NAN when they
 * cannot be believed: none, or more than the launch's own elapsed time holds at the highest SM
 * clock (clock64 counts at the clock the SM runs, never above it; the launch also holds the
 * kernel's untimed work). A failed record says why once. */
static double read_cycles_per_op(const ml_problem *problem, double elapsed_ms, double sm_clock_hz,
                                 ml_record *record)
{
    long long cycles = 0;
    ML_CUDA_CHECK(cudaMemcpy(&cycles, problem->cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    double clock_ms = 1e3 * (double)cycles / sm_clock_hz;
    /* 2% and 10 microseconds of slack for the events' own resolution. */
    if (cycles > 0 && clock_ms <= 1.02 * elapsed_ms + 0.01)
        return (double)cycles / problem->timed_operations;
    if (record->correct)
        fprintf(stderr, "memlab: %s: the kernel's clock says %lld cycles (%.4f ms at %.0f MHz) for "
                        "a launch of %.4f ms: a kernel must store the clock64() cycles of its "
                        "timed loop\n",
                problem->variant->name, cycles, clock_ms, sm_clock_hz / 1e6, elapsed_ms);
    record->correct = 0;
    return NAN;
}

static void time_variant(ml_problem *problem, const ml_options *options,
                         const l2_flush *flush, host_staging *staging, double sm_clock_hz,
                         ml_record *record)
{
    for (int i = 0; i < options->warmup; i++) {
        problem->variant->family->launch(problem);
        ML_LAUNCH_CHECK();
    }
    ML_CUDA_CHECK(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    ML_CUDA_CHECK(cudaEventCreate(&start));
    ML_CUDA_CHECK(cudaEventCreate(&stop));
    double *milliseconds = ml_host_alloc((size_t)options->reps * sizeof *milliseconds);
    double *cycles_per_op = ml_host_alloc((size_t)options->reps * sizeof *cycles_per_op);
    for (int rep = 0; rep < options->reps; rep++) {
        refresh_inputs(problem);
        poison_output(problem);
        /* Inputs that fit in the L2 are read from DRAM every time (and the poison and the new
         * inputs are written back before the clock starts). */
        ml_flush_l2(flush->buffer, flush->bytes, NULL, 0);
        ML_CUDA_CHECK(cudaEventRecord(start, 0));
        problem->variant->family->launch(problem);
        ML_LAUNCH_CHECK();
        ML_CUDA_CHECK(cudaEventRecord(stop, 0));
        ML_CUDA_CHECK(cudaEventSynchronize(stop));
        float elapsed = 0;
        ML_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
        milliseconds[rep] = elapsed;
        if (problem->cycles != NULL)
            cycles_per_op[rep] = read_cycles_per_op(problem, elapsed, sm_clock_hz, record);
        check_random_positions(problem, staging, "timed", record);
        check_guards(problem, "timed", record);
    }
    ML_CUDA_CHECK(cudaEventDestroy(start));
    ML_CUDA_CHECK(cudaEventDestroy(stop));
    record->timed = 1;
    record->time_ms = ml_stats_compute(milliseconds, (size_t)options->reps);
    if (problem->cycles != NULL && record->correct) {
        record->has_latency = 1;
        record->cycles_per_op = ml_stats_compute(cycles_per_op, (size_t)options->reps);
        record->ns_per_op = 1e9 * record->cycles_per_op.median / sm_clock_hz;
    }
    free(milliseconds);
    free(cycles_per_op);
}

/* GPU time of the variant's own launches: the timed ones as measured, the checked one and the
 * warm-ups at the median. */
static double kernel_seconds(const ml_record *record, const ml_options *options)
{
    return 1e-3 * (record->time_ms.mean * options->reps +
                   record->time_ms.median * (1 + options->warmup));
}

static void staging_open(host_staging *staging)
{
    for (int i = 0; i < 2; i++) {
        ML_CUDA_CHECK(cudaMallocHost(&staging->chunk[i], CHECK_CHUNK_FLOATS * sizeof(float)));
        ML_CUDA_CHECK(cudaEventCreateWithFlags(&staging->copied[i], cudaEventDisableTiming));
    }
    ML_CUDA_CHECK(cudaStreamCreate(&staging->stream));
    staging->position = ml_host_alloc(ML_RANDOM_CHECKS * sizeof *staging->position);
    staging->gathered = ml_host_alloc(ML_RANDOM_CHECKS * sizeof *staging->gathered);
    staging->expected = ml_host_alloc(ML_RANDOM_CHECKS * sizeof *staging->expected);
    staging->device_position = ml_device_alloc(ML_RANDOM_CHECKS * sizeof *staging->position);
    staging->device_gathered = ml_device_alloc(ML_RANDOM_CHECKS * sizeof *staging->gathered);
}

static void staging_close(host_staging *staging)
{
    for (int i = 0; i < 2; i++) {
        ML_CUDA_CHECK(cudaFreeHost(staging->chunk[i]));
        ML_CUDA_CHECK(cudaEventDestroy(staging->copied[i]));
    }
    ML_CUDA_CHECK(cudaStreamDestroy(staging->stream));
    if (staging->whole != NULL)
        ML_CUDA_CHECK(cudaFreeHost(staging->whole));
    free(staging->position);
    free(staging->gathered);
    free(staging->expected);
    ml_device_free(staging->device_position);
    ml_device_free(staging->device_gathered);
}

/* Elements of chunk c of an output of count elements. */
static size_t chunk_length(size_t count, size_t c)
{
    size_t first = c * CHECK_CHUNK_FLOATS;
    return count - first < CHECK_CHUNK_FLOATS ? count - first : CHECK_CHUNK_FLOATS;
}

/* Chunk c is copied into buffer c % 2 while chunk c - 1 is compared. */
static ml_comparison compare_in_chunks(const ml_problem *problem, host_staging *staging)
{
    size_t count = problem->output_count;
    size_t chunks = (count + CHECK_CHUNK_FLOATS - 1) / CHECK_CHUNK_FLOATS;
    ml_comparison comparison = {0};
    for (size_t c = 0; c <= chunks; c++) {
        if (c < chunks) {
            /* Counts are 4 bytes like floats: the same offsets. */
            ML_CUDA_CHECK(cudaMemcpyAsync(staging->chunk[c % 2],
                                          problem->output + c * CHECK_CHUNK_FLOATS,
                                          chunk_length(count, c) * sizeof(float),
                                          cudaMemcpyDeviceToHost, staging->stream));
            ML_CUDA_CHECK(cudaEventRecord(staging->copied[c % 2], staging->stream));
        }
        if (c > 0) {
            size_t first = (c - 1) * CHECK_CHUNK_FLOATS;
            ML_CUDA_CHECK(cudaEventSynchronize(staging->copied[(c - 1) % 2]));
            size_t length = chunk_length(count, c - 1);
            ml_comparison part =
                problem->output_kind == ML_OUTPUT_COUNTED
                    ? ml_compare_counts(staging->chunk[(c - 1) % 2],
                                        problem->reference_counts + first, length)
                    : ml_compare(staging->chunk[(c - 1) % 2], problem->reference + first, length,
                                 problem->tolerance);
            ml_comparison_append(&comparison, &part, first);
        }
    }
    return comparison;
}

static ml_comparison compare_sample(const ml_problem *problem, host_staging *staging)
{
    if (problem->output_count > staging->whole_count) {
        if (staging->whole != NULL)
            ML_CUDA_CHECK(cudaFreeHost(staging->whole));
        ML_CUDA_CHECK(cudaMallocHost((void **)&staging->whole, problem->output_count * sizeof(float)));
        staging->whole_count = problem->output_count;
    }
    ML_CUDA_CHECK(cudaMemcpy(staging->whole, problem->output, problem->output_count * sizeof(float),
                             cudaMemcpyDeviceToHost));
    float *sample = ml_host_alloc(problem->check_count * sizeof(float));
#pragma omp parallel for
    for (size_t i = 0; i < problem->check_count; i++)
        sample[i] = staging->whole[problem->check_index[i]];
    ml_comparison comparison = ml_compare(sample, problem->reference, problem->check_count,
                                          problem->tolerance);
    /* Mismatches are reported by their index in the output, not in the sample. */
    for (size_t i = 0; i < comparison.reported; i++)
        comparison.first_index[i] = problem->check_index[comparison.first_index[i]];
    free(sample);
    return comparison;
}

/* What setup made must fit its output kind: a bug of the lab's, not bad input. */
static void check_problem(const ml_lab *lab, const ml_problem *problem)
{
    int counted = problem->output_kind == ML_OUTPUT_COUNTED;
    const char *wrong = NULL;
    if (counted && (problem->reference_counts == NULL || problem->check_index != NULL))
        wrong = "a counted output needs reference_counts, and is compared whole (no check_index)";
    else if (!counted && problem->reference == NULL)
        wrong = "setup made no reference";
    else if (problem->cycles != NULL && !(problem->timed_operations > 0))
        wrong = "a kernel that keeps a clock needs the number of operations it times";
    if (wrong != NULL) {
        fprintf(stderr, "%s: lab error: %s: %s\n", lab->program, problem->variant->name, wrong);
        exit(ML_EXIT_LAB_ERROR);
    }
}

/* The checked launch, on the inputs of --seed (so a failure can be replayed): every element
 * compared with the reference, or the lab's sample of them and positions no one can know. */
static void check_variant(const ml_problem *problem, host_staging *staging,
                          ml_record *record)
{
    poison_output(problem);
    problem->variant->family->launch(problem);
    ML_LAUNCH_CHECK();
    ML_CUDA_CHECK(cudaDeviceSynchronize());
    record->checked = 1;
    record->comparison = problem->check_index == NULL ? compare_in_chunks(problem, staging)
                                                      : compare_sample(problem, staging);
    record->correct = record->comparison.mismatches == 0;
    if (problem->check_index != NULL)
        check_random_positions(problem, staging, "checked", record);
    check_guards(problem, "checked", record);
}

static void fill_rates(ml_record *record, double ceiling_gbps)
{
    double seconds = record->time_ms.median * 1e-3;
    /* A variant whose lesson is a latency moves no bytes worth a rate. */
    record->gbps = record->bytes > 0 ? record->bytes / seconds / 1e9 : NAN;
    record->pct_of_ceiling = isnan(ceiling_gbps) ? NAN : 100.0 * record->gbps / ceiling_gbps;
    record->gflops = record->flops > 0 ? record->flops / seconds / 1e9 : NAN;
}

/* The level's peak, where the family knows it, and the variant's share of it. */
static void fill_peak(ml_problem *problem, const ml_device_figures *device, ml_record *record)
{
    if (problem->variant->family->peak_gbps == NULL || isnan(record->gbps))
        return;
    record->peak_gbps = problem->variant->family->peak_gbps(problem, device, record->gbps,
                                                            record->peak_source,
                                                            sizeof record->peak_source);
    record->pct_of_peak = 100.0 * record->gbps / record->peak_gbps;
}

/* What the variant's kernel costs the SM at its block size, and the spills ptxas reported for
 * the code that runs (compiled for the architecture cudaFuncAttributes.binaryVersion names). */
static void fill_resources(const ml_problem *problem, const struct cudaDeviceProp *properties,
                           ml_record *record)
{
    const ml_variant *variant = problem->variant;
    unsigned threads_per_block = ml_threads_per_block(variant);
    if (variant->kernel == NULL || threads_per_block == 0)
        return;
    const void *kernel = (const void *)problem->kernel;
    struct cudaFuncAttributes attributes;
    ML_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    int blocks_per_sm = 0;
    ML_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, kernel, (int)threads_per_block, 0));
    ml_kernel_resources *resources = &record->resources;
    snprintf(resources->kernel_name, sizeof resources->kernel_name, "%s", variant->kernel);
    resources->known = 1;
    resources->registers_per_thread = attributes.numRegs;
    resources->local_bytes_per_thread = attributes.localSizeBytes;
    resources->shared_bytes_per_block = attributes.sharedSizeBytes;
    resources->threads_per_block = threads_per_block;
    resources->blocks_per_sm = blocks_per_sm;
    resources->occupancy_pct = 100.0 * blocks_per_sm * threads_per_block /
                               properties->maxThreadsPerMultiProcessor;
    ml_kernels_spills(variant->kernel, attributes.binaryVersion, &resources->spill_store_bytes,
                      &resources->spill_load_bytes);
}

/* Each record's GFLOP/s as % of the ceiling variant's at the same sizes. */
static void fill_flops_ceiling(const ml_lab *lab, ml_report *report)
{
    for (int r = 0; r < report->record_count; r++) {
        ml_record *record = &report->records[r];
        record->pct_of_flops_ceiling = NAN;
        if (lab->flops_ceiling == NULL || !record->timed)
            continue;
        for (int c = 0; c < report->record_count; c++) {
            const ml_record *ceiling = &report->records[c];
            if (strcmp(ceiling->variant, lab->flops_ceiling) == 0 && ceiling->timed &&
                memcmp(ceiling->param, record->param, sizeof record->param) == 0)
                record->pct_of_flops_ceiling = 100.0 * record->gflops / ceiling->gflops;
        }
    }
}

static int write_report(const ml_report *report, const ml_options *options)
{
    if (options->out_path != NULL) {
        FILE *file = fopen(options->out_path, "w");
        if (file == NULL) {
            fprintf(stderr, "memlab: cannot write %s\n", options->out_path);
            return ML_EXIT_USAGE;
        }
        if (options->format == ML_FORMAT_CSV)
            ml_report_csv(report, file);
        else if (options->format == ML_FORMAT_JSON)
            ml_report_json(report, file);
        else if (options->format == ML_FORMAT_HTML)
            ml_report_html(report, file);
        else
            ml_report_table(report, file);
        if (fclose(file) != 0) {
            fprintf(stderr, "memlab: writing %s failed\n", options->out_path);
            return ML_EXIT_USAGE;
        }
        /* People still see the table; programs read the file. */
        ml_report_table(report, stdout);
        return ML_EXIT_OK;
    }
    if (options->format == ML_FORMAT_CSV)
        ml_report_csv(report, stdout);
    else if (options->format == ML_FORMAT_JSON)
        ml_report_json(report, stdout);
    else if (options->format == ML_FORMAT_HTML)
        ml_report_html(report, stdout);
    else
        ml_report_table(report, stdout);
    return ML_EXIT_OK;
}

/* "point n of N" on stderr while a run of several records goes on: in place on a terminal, a
 * line each for a program that reads them (MEMLAB_PROGRESS=1: ./memlab demo). */
typedef enum { PROGRESS_NONE, PROGRESS_IN_PLACE, PROGRESS_LINES } progress_mode;

typedef struct {
    progress_mode mode;
    long long done, total;
} progress_state;

static progress_state progress_start(long long total)
{
    const char *forced = getenv("MEMLAB_PROGRESS");
    progress_state progress = {PROGRESS_NONE, 0, total};
    if (total > 1 && forced != NULL && strcmp(forced, "1") == 0)
        progress.mode = PROGRESS_LINES;
    else if (total > 1 && isatty(STDERR_FILENO))
        progress.mode = PROGRESS_IN_PLACE;
    return progress;
}

static void progress_show(progress_state *progress, const ml_lab *lab, const char *variant,
                          const long long *param, const ml_options *options)
{
    if (progress->mode == PROGRESS_NONE)
        return;
    progress->done++;
    char what[256];
    int length = snprintf(what, sizeof what, "%s", variant);
    /* The swept size, or every size when nothing is swept. */
    for (int i = 0; i < lab->num_params && length < (int)sizeof what; i++)
        if (options->sweep_param < 0 || options->sweep_param == i)
            length += snprintf(what + length, sizeof what - (size_t)length, " %s=%lld",
                               lab->params[i].name, param[i]);
    if (progress->mode == PROGRESS_IN_PLACE)
        fprintf(stderr, "\r%s: %lld of %lld: %-60.60s", lab->program, progress->done,
                progress->total, what);
    else
        fprintf(stderr, "progress: %lld of %lld: %s\n", progress->done, progress->total, what);
    fflush(stderr);
}

static void progress_end(const progress_state *progress)
{
    if (progress->mode == PROGRESS_IN_PLACE)
        fprintf(stderr, "\r%*s\r", 100, "");
}

static int usage_error(const ml_lab *lab, const char *message)
{
    fprintf(stderr, "%s: %s\n", lab->program, message);
    return ML_EXIT_USAGE;
}

/* A --sweep over a size that selected variants do not read (its used_by in the param table
 * leaves it out) repeats their one run at every point: said once, naming them, as the runs
 * start (after every refusal). */
static void warn_unread_sweep(const ml_lab *lab, const ml_options *options)
{
    if (options->sweep_param < 0)
        return;
    const char *swept = lab->params[options->sweep_param].name;
    char names[512] = "";
    int count = 0;
    for (int v = 0; v < lab->num_variants; v++) {
        if (!options->variant_selected[v] || ml_variant_uses(lab, &lab->variants[v], swept))
            continue;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", count++ > 0 ? ", " : "",
                 lab->variants[v].name);
    }
    if (count > 0)
        fprintf(stderr, "%s: warning: --sweep %s: variant%s %s %s not read %s: %s records repeat "
                        "one run at every point\n", lab->program, swept, count > 1 ? "s" : "",
                names, count > 1 ? "do" : "does", swept, count > 1 ? "their" : "its");
}

/* Why no CUDA device can be used, in words a user can act on. cudart answers
 * cudaErrorInsufficientDriver both where the NVIDIA driver is older than cudart and where there
 * is no driver at all: the driver's library, libcuda.so.1, loads in the first case only. */
static void no_device_reason(cudaError_t status, char *reason, size_t size)
{
    if (status == cudaSuccess) {
        snprintf(reason, size, "none found");
        return;
    }
    if (status != cudaErrorInsufficientDriver) {
        snprintf(reason, size, "%s", cudaGetErrorString(status));
        return;
    }
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver == NULL) {
        snprintf(reason, size, "no NVIDIA driver is installed here: libcuda.so.1 cannot be loaded");
        return;
    }
    dlclose(driver);
    int driver_version = 0, runtime_version = 0;
    if (cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version > 0 &&
        cudaRuntimeGetVersion(&runtime_version) == cudaSuccess)
        snprintf(reason, size, "the NVIDIA driver supports CUDA %d.%d, older than this program's "
                 "CUDA %d.%d: update the driver", driver_version / 1000,
                 driver_version % 1000 / 10, runtime_version / 1000, runtime_version % 1000 / 10);
    else
        snprintf(reason, size, "the NVIDIA driver is older than this program's CUDA: update it");
}

/* Everything that can be refused without a GPU: metric names for every selected variant. */
static int select_all_metrics(const ml_lab *lab, const ml_options *options,
                              metric_selection *selections, char *error, size_t error_size)
{
    for (int v = 0; v < lab->num_variants; v++) {
        if (!options->variant_selected[v])
            continue;
        int status = select_metrics(options->metrics, &lab->variants[v], &selections[v], error,
                                    error_size);
        if (status != ML_EXIT_OK)
            return status;
    }
    return ML_EXIT_OK;
}

/* --save-kernels: compile --kernels FILE.cu for MEMLAB_CUDA_ARCH, else this machine's GPU, else
 * the architectures the program was built for. */
static int save_kernels(const ml_lab *lab, const ml_options *options)
{
    char architectures[256], error[512];
    ml_kernels_default_architectures(lab->kernels, options->device, architectures,
                                     sizeof architectures);
    if (ml_kernels_compile(lab->kernels, options->kernels_path, architectures,
                           options->save_kernels_path, error, sizeof error) != 0) {
        fprintf(stderr, "%s: %s\n", lab->program, error);
        return ML_EXIT_INCORRECT;
    }
    fprintf(stderr, "%s: %s compiled for sm_%s into %s\n", lab->program, options->kernels_path,
            architectures, options->save_kernels_path);
    return ML_EXIT_OK;
}

/* A kernels file without a kernel a selected variant launches: said by name (`where`: "" or
 * " for sm_75"), and the exit status of a wrong submission. */
static int missing_kernel(const ml_lab *lab, const char *origin, const ml_variant *variant,
                          const char *where)
{
    const char *slash = strrchr(origin, '/');
    fprintf(stderr, "%s: your %s defines no kernel '%s'%s (variant %s launches it): declare it "
                    "extern \"C\" __global__\n",
            lab->program, slash != NULL ? slash + 1 : origin, variant->kernel, where,
            variant->name);
    return ML_EXIT_INCORRECT;
}

/* Loads the kernels and finds every selected variant's: a kernels file that lacks one fails
 * here, by name, before anything runs. */
static int load_kernels(const ml_lab *lab, const ml_options *options, cudaKernel_t *kernels)
{
    char error[512];
    /* Under --cases the kernels of the case before go first, with every __device__ and
     * __constant__ variable of theirs: no state lives from one case into the next. */
    ml_kernels_unload();
    if (ml_kernels_load(lab->kernels, options->kernels_path, error, sizeof error) != 0) {
        fprintf(stderr, "%s: %s\n", lab->program, error);
        return options->kernels_path != NULL ? ML_EXIT_INCORRECT : ML_EXIT_CUDA_ERROR;
    }
    for (int v = 0; v < lab->num_variants; v++) {
        const ml_variant *variant = &lab->variants[v];
        kernels[v] = NULL;
        if (!options->variant_selected[v] || variant->kernel == NULL)
            continue;
        kernels[v] = ml_kernels_find(variant->kernel);
        if (kernels[v] == NULL)
            return missing_kernel(lab, ml_kernels_origin(), variant, "");
    }
    return ML_EXIT_OK;
}

/* Whether the fatbin a compile wrote holds every kernel the selected variants launch, in the
 * cubin of every architecture it was compiled for (one may sit behind #if __CUDA_ARCH__): read
 * from its ELF sections, which needs no GPU. Says which is missing and returns
 * ML_EXIT_INCORRECT, as a load on a GPU would; else ML_EXIT_OK with the kernels counted. */
static int find_kernels_in(const ml_lab *lab, const ml_options *options, const char *fatbin,
                           const char *architectures, int *kernel_count)
{
    size_t bytes = 0;
    char *data = ml_kernels_read_file(fatbin, &bytes);
    if (data == NULL) {
        fprintf(stderr, "%s: cannot read %s, just compiled: %s\n", lab->program, fatbin,
                strerror(errno));
        return ML_EXIT_INCORRECT;
    }
    int several = strpbrk(architectures, "; ,") != NULL;
    *kernel_count = 0;
    for (int v = 0; v < lab->num_variants; v++) {
        const ml_variant *variant = &lab->variants[v];
        if (!options->variant_selected[v] || variant->kernel == NULL)
            continue;
        int counted = 0; /* variants may share a kernel: each name counts once */
        for (int w = 0; w < v && !counted; w++)
            counted = options->variant_selected[w] && lab->variants[w].kernel != NULL &&
                      strcmp(lab->variants[w].kernel, variant->kernel) == 0;
        *kernel_count += !counted;
        /* "75;80;90", "90a": the number of each, as the fatbin's entries name them. */
        for (const char *at = architectures; *at != '\0';) {
            char *end = NULL;
            long arch = strtol(at, &end, 10);
            if (end == at) {
                at++;
                continue;
            }
            at = end;
            double code_bytes = 0, constant_bytes = 0;
            if (ml_kernels_code_bytes_in(data, bytes, variant->kernel, (int)arch, &code_bytes,
                                         &constant_bytes) != 0) {
                char where[32] = "";
                if (several)
                    snprintf(where, sizeof where, " for sm_%ld", arch);
                free(data);
                return missing_kernel(lab, options->kernels_path, variant, where);
            }
            while (*at != '\0' && *at != ';' && *at != ' ' && *at != ',')
                at++;
        }
    }
    free(data);
    return ML_EXIT_OK;
}

/* --kernels FILE.cu and no device to run it: what can be told without one is told first. The
 * file is compiled as a run on a GPU would (ml_kernels_compile: the judge, then nvcc, device
 * code only; its errors on stderr, a refused file's never), for the architectures --save-kernels
 * would use, and the kernels the run launches are looked up in it; only then one line says that
 * running them needs a GPU (exit 3). A file that does not compile or lacks a kernel exits 1, as
 * with a GPU. */
static int check_kernels_without_device(const ml_lab *lab, const ml_options *options,
                                        const char *reason)
{
    const char *temporary = getenv("TMPDIR");
    if (temporary == NULL || temporary[0] == '\0')
        temporary = "/tmp";
    char scratch[4096], fatbin[4200], log_path[4300], refused_path[4300], architectures[256],
        error[512];
    snprintf(scratch, sizeof scratch, "%s/memlab-check-XXXXXX", temporary);
    if (mkdtemp(scratch) == NULL) {
        fprintf(stderr, "%s: cannot make a scratch directory in %s to compile %s: %s\n",
                lab->program, temporary, options->kernels_path, strerror(errno));
        return ML_EXIT_INCORRECT;
    }
    snprintf(fatbin, sizeof fatbin, "%s/kernels.fatbin", scratch);
    snprintf(log_path, sizeof log_path, "%s.ptxas", fatbin);
    snprintf(refused_path, sizeof refused_path, "%s%s", fatbin, ML_KERNELS_REFUSED_SUFFIX);
    ml_kernels_default_architectures(lab->kernels, options->device, architectures,
                                     sizeof architectures);
    int status = ML_EXIT_OK, kernel_count = 0;
    if (ml_kernels_compile(lab->kernels, options->kernels_path, architectures, fatbin, error,
                           sizeof error) != 0) {
        fprintf(stderr, "%s: %s\n", lab->program, error);
        status = ML_EXIT_INCORRECT;
    } else {
        status = find_kernels_in(lab, options, fatbin, architectures, &kernel_count);
    }
    /* What the compile left: the fatbin and ptxas's log, or the refusal's note. */
    const char *left[] = {fatbin, log_path, refused_path};
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++)
        if (unlink(left[i]) != 0 && errno != ENOENT)
            fprintf(stderr, "%s: warning: cannot remove %s: %s\n", lab->program, left[i],
                    strerror(errno));
    if (rmdir(scratch) != 0)
        fprintf(stderr, "%s: warning: cannot remove %s: %s\n", lab->program, scratch,
                strerror(errno));
    if (status != ML_EXIT_OK)
        return status;
    fprintf(stderr, "%s: %s compiles (sm_%s) and defines the %d kernel%s this run launches; "
                    "running %s needs a GPU: no usable CUDA device (%s)\n",
            lab->program, options->kernels_path, architectures, kernel_count,
            kernel_count == 1 ? "" : "s", kernel_count == 1 ? "it" : "them", reason);
    return ML_EXIT_NO_DEVICE;
}

/* ---- a run, phase by phase ------------------------------------------------------------------ */

/* What one run of a lab program holds from one phase to the next. */
typedef struct {
    const ml_lab *lab;
    double start;                       /* monotonic_seconds() when ml_main began */
    ml_options options;
    metric_selection selections[ML_MAX_VARIANTS];
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

/* What the cases of --cases learn once: whether the profiler (and the unified-memory counters)
 * could be opened, and if not why, so that every case that asks for counters reports what a run
 * of its own would. */
typedef struct {
    int tried;
    int failed;
    char failure[512];
} open_attempt;

static open_attempt perfworks_attempt, unified_attempt;

/* What a phase returns when the run goes on; any other value is the program's exit status. */
#define RUN_GOES_ON (-1)

/* The command line, and what it asks that needs no run (help, the lists, saving kernels). */
static int parse(lab_run *run, int argc, char **argv)
{
    const ml_lab *lab = run->lab;
    if (ml_check_lab_table(lab) != ML_EXIT_OK)
        return ML_EXIT_LAB_ERROR;
    char error[512];
    if (ml_parse_args(lab, argc, argv, &run->options, error, sizeof error) != ML_EXIT_OK)
        return usage_error(lab, error);
    switch (run->options.action) {
    case ML_ACTION_HELP:
        ml_print_help(lab, stdout);
        return ML_EXIT_OK;
    case ML_ACTION_LIST:
        ml_print_variants(lab, stdout);
        return ML_EXIT_OK;
    case ML_ACTION_LIST_METRICS:
        ml_print_metrics(stdout);
        return ML_EXIT_OK;
    case ML_ACTION_SAVE_KERNELS:
        return save_kernels(lab, &run->options);
    default:
        return RUN_GOES_ON;
    }
}

/* What runs: the variants (the FLOP/s ceiling whenever any variant runs), the sizes the lab
 * accepts at every sweep point, each variant's metrics, the seed; then the report's header. */
static int plan(lab_run *run)
{
    const ml_lab *lab = run->lab;
    ml_options *options = &run->options;
    for (int v = 0; v < lab->num_variants && lab->flops_ceiling != NULL; v++)
        if (strcmp(lab->variants[v].name, lab->flops_ceiling) == 0)
            options->variant_selected[v] = 1;
    if (lab->check_params != NULL) {
        for (long long point = 0; point < ml_sweep_count(options); point++) {
            long long param[ML_MAX_PARAMS];
            ml_sweep_point(options, point, param);
            ml_problem sizes = {.lab = lab, .param = param};
            const char *message = lab->check_params(&sizes);
            if (message != NULL)
                return usage_error(lab, message);
        }
    }
    char error[512];
    if (select_all_metrics(lab, options, run->selections, error, sizeof error) != ML_EXIT_OK)
        return usage_error(lab, error);
    if (!options->seed_given)
        options->seed = fresh_seed();

    ml_report *report = &run->report;
    report->lab = lab;
    report->seed = options->seed;
    report->reps = options->reps;
    report->warmup = options->warmup;
    report->ceiling_gbps = NAN;
    report->sm_clock_mhz = NAN;
    report->published_dram_gbps = NAN;
    report->counter_seconds = NAN;
    return RUN_GOES_ON;
}

/* The record's predictions, beside what was measured (NULL under --model). */
static void predict_record(const lab_run *run, int v, ml_record *record, const double *measured)
{
    const ml_variant *variant = &run->lab->variants[v];
    ml_prediction prediction = {0};
    ml_problem sizes = {.lab = run->lab, .variant = variant, .param = record->param};
    if (variant->family->predict != NULL)
        variant->family->predict(&sizes, &prediction);
    record->served_by = prediction.served_by;
    fill_metric_results(record, &run->selections[v], &prediction, measured);
}

/* --model: each record's predictions for the GPU --gpu names (the H100 by default), no device. */
static int predict_only(lab_run *run)
{
    const ml_lab *lab = run->lab;
    const ml_options *options = &run->options;
    ml_report *report = &run->report;
    ml_model_gpu_set(options->model_gpu != NULL ? options->model_gpu : ml_gpu_facts_named("h100"));
    report->model_gpu = ml_model_gpu();
    snprintf(report->profiler_note, sizeof report->profiler_note,
             "not read: --model gives predictions only");
    /* A --kernels file here would otherwise pass for checked: said once, and the run goes on. */
    if (options->kernels_path != NULL)
        fprintf(stderr, "%s: warning: --model does not read --kernels %s: its predictions come "
                        "from the access model alone\n", lab->program, options->kernels_path);
    warn_unread_sweep(lab, options);
    long long points = ml_sweep_count(options);
    for (int v = 0; v < lab->num_variants; v++) {
        if (!options->variant_selected[v])
            continue;
        const ml_variant *variant = &lab->variants[v];
        for (long long point = 0; point < points; point++) {
            ml_record *record = ml_report_add(report);
            record->variant = variant->name;
            ml_sweep_point(options, point, record->param);
            record->pct_of_ceiling = record->gbps = record->gflops = NAN;
            record->pct_of_flops_ceiling = NAN;
            record->flops_per_gld_byte_predicted = record->flops_per_gld_byte_measured = NAN;
            predict_record(run, v, record, NULL);
        }
    }
    int status = write_report(report, options);
    ml_report_free(report);
    return status;
}

/* The device: there is one, --device names one of them, its kernels load, and every variant
 * fits in its free memory at every sweep point. Then its facts go into the report and the
 * model. */
static int open_device(lab_run *run)
{
    const ml_lab *lab = run->lab;
    const ml_options *options = &run->options;
    int device_count = 0;
    cudaError_t device_status = cudaGetDeviceCount(&device_count);
    if (device_status != cudaSuccess || device_count == 0) {
        char reason[256];
        no_device_reason(device_status, reason, sizeof reason);
        size_t path_length = options->kernels_path != NULL ? strlen(options->kernels_path) : 0;
        if (path_length > 3 && strcmp(options->kernels_path + path_length - 3, ".cu") == 0)
            return check_kernels_without_device(lab, options, reason);
        fprintf(stderr, "%s: no usable CUDA device (%s); ./memlab run %s --model gives the "
                        "predictions without one\n", lab->program, reason, lab->program);
        return ML_EXIT_NO_DEVICE;
    }
    char error[512];
    if (options->device >= device_count) {
        snprintf(error, sizeof error, "--device %d: this machine has %d CUDA device(s)",
                 options->device, device_count);
        return usage_error(lab, error);
    }
    ML_CUDA_CHECK(cudaSetDevice(options->device));
    int kernels_status = load_kernels(lab, options, run->kernels);
    if (kernels_status != ML_EXIT_OK)
        return kernels_status;
    struct cudaDeviceProp *properties = &run->properties;
    ML_CUDA_CHECK(cudaGetDeviceProperties(properties, options->device));
    size_t total_bytes = 0;
    ML_CUDA_CHECK(cudaMemGetInfo(&run->free_bytes, &total_bytes));
    for (int v = 0; v < lab->num_variants; v++) {
        if (!options->variant_selected[v])
            continue;
        for (long long point = 0; point < ml_sweep_count(options); point++) {
            long long param[ML_MAX_PARAMS];
            ml_sweep_point(options, point, param);
            ml_problem sizes = {.lab = lab, .variant = &lab->variants[v], .param = param};
            double needed = lab->variants[v].family->device_bytes(&sizes);
            if (needed > USABLE_MEMORY_FRACTION * (double)run->free_bytes) {
                snprintf(error, sizeof error,
                         "variant %s needs %.2f GiB of device memory at these sizes; %s has "
                         "%.2f GiB free: choose smaller sizes",
                         lab->variants[v].name, needed / 1073741824.0, properties->name,
                         run->free_bytes / 1073741824.0);
                return usage_error(lab, error);
            }
        }
    }

    ml_report *report = &run->report;
    snprintf(report->device_name, sizeof report->device_name, "%s", properties->name);
    report->compute_major = properties->major;
    report->compute_minor = properties->minor;
    report->sm_count = properties->multiProcessorCount;
    report->l2_mib = properties->l2CacheSize / 1048576.0;
    int sm_clock_khz = 0;
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, options->device));
    report->sm_clock_mhz = sm_clock_khz / 1e3;
    int memory_clock_khz = 0, bus_bits = 0;
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate,
                                         options->device));
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth,
                                         options->device));
    /* Double data rate: two transfers a memory clock, bus_bits / 8 bytes each. */
    if (memory_clock_khz > 0 && bus_bits > 0)
        report->published_dram_gbps = 2.0 * memory_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    run->device_facts = ml_gpu_facts_of_device(properties->name, properties->major,
                                               properties->minor,
                                               properties->multiProcessorCount,
                                               (double)properties->l2CacheSize);
    /* An L2 miss reads the L2's fetch granularity from DRAM: a driver setting (64 bytes by
     * default on the H100 and H200), read here, not taken from the table. A driver that does
     * not report it leaves the table's fill. */
    size_t fetch_granularity = 0;
    if (cudaDeviceGetLimit(&fetch_granularity, cudaLimitMaxL2FetchGranularity) == cudaSuccess)
        ml_gpu_facts_set_fetch_granularity(&run->device_facts, fetch_granularity);
    else
        cudaGetLastError();
    ml_model_gpu_set(&run->device_facts);
    report->model_gpu = ml_model_gpu();
    return RUN_GOES_ON;
}

/* The profiler, when a variant asks for metrics: opened, and every selection known to the
 * device's chip (an unknown metric is bad input); where counters cannot be read, a warning and
 * the run goes on without them. */
static int open_profiler(lab_run *run)
{
    const ml_lab *lab = run->lab;
    profiler_state *profiler = &run->profiler;
    int wants_perfworks = 0, wants_unified = 0;
    for (int v = 0; v < lab->num_variants; v++) {
        if (!run->options.variant_selected[v])
            continue;
        wants_perfworks |= selects(&run->selections[v], 0);
        wants_unified |= selects(&run->selections[v], 1);
    }
    run->wants_metrics = wants_perfworks || wants_unified;
    /* Under --cases an earlier case may have opened either already, or failed to. */
    if (wants_unified && unified_attempt.failed) {
        profiler_warn(profiler, &run->report, unified_attempt.failure);
    } else if (wants_unified && !profiler->unified_open) {
        double start = monotonic_seconds();
        prof_status status = prof_unified_open(run->options.device);
        profiler->seconds += monotonic_seconds() - start;
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
        double start = monotonic_seconds();
        prof_status status = prof_open(run->options.device, &profiler->session);
        profiler->seconds += monotonic_seconds() - start;
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
            validate_selection(prof_chip_name(profiler->session), &run->selections[v], error,
                               sizeof error) != ML_EXIT_OK) {
            prof_close(profiler->session);
            profiler->session = NULL;
            return usage_error(lab, error);
        }
    }
    return RUN_GOES_ON;
}

/* After every refusal (bad input gets its one line and nothing else): the copy ceiling, the L2
 * flush buffer, which the profiler also runs before each profiled launch; the startup's time;
 * the host staging. */
static void prepare_measuring(lab_run *run)
{
    warn_unread_sweep(run->lab, &run->options);
    ml_report *report = &run->report;
    report->ceiling_gbps = measure_copy_ceiling(run->free_bytes);
    ml_device_figures *figures = &run->figures;
    figures->sm_count = report->sm_count;
    figures->sm_clock_mhz = report->sm_clock_mhz;
    figures->copy_ceiling_gbps = report->ceiling_gbps;
    figures->published_dram_gbps = report->published_dram_gbps;
    size_t l2_bytes = (size_t)run->properties.l2CacheSize;
    l2_flush *flush = &run->flush;
    /* Under --cases the buffer of an earlier case is kept, zeroed again: nothing a kernel wrote
     * there lives into this case. */
    if (flush->buffer == NULL) {
        flush->bytes = 2 * (l2_bytes > 4194304 ? l2_bytes : 4194304);
        flush->buffer = ml_device_alloc(flush->bytes);
    }
    ML_CUDA_CHECK(cudaMemset(flush->buffer, 0, flush->bytes));
    if (run->profiler.session != NULL &&
        prof_set_prelude(run->profiler.session, flush_prelude, flush) != PROF_OK) {
        fprintf(stderr, "memlab: %s\n", prof_last_error());
        exit(ML_EXIT_CUDA_ERROR);
    }
    run->report.seconds.startup = monotonic_seconds() - run->start;
    if (run->staging.position == NULL)
        staging_open(&run->staging);
}

/* One record: set up, check against the reference, time, count, predict, tear down. Returns 1
 * when its outputs were correct. */
static int run_record(lab_run *run, int v, long long point, progress_state *progress)
{
    const ml_lab *lab = run->lab;
    const ml_variant *variant = &lab->variants[v];
    ml_report *report = &run->report;
    ml_record *record = ml_report_add(report);
    record->variant = variant->name;
    ml_sweep_point(&run->options, point, record->param);
    progress_show(progress, lab, variant->name, record->param, &run->options);

    const ml_family *family = variant->family;
    ml_problem problem = {.lab = lab, .variant = variant, .kernel = run->kernels[v],
                          .param = record->param, .seed = run->options.seed};
    problem.state = calloc(1, family->state_bytes > 0 ? family->state_bytes : 1);
    if (problem.state == NULL) {
        fprintf(stderr, "memlab: out of host memory\n");
        exit(ML_EXIT_CUDA_ERROR);
    }
    double phase_start = monotonic_seconds();
    family->setup(&problem);
    check_problem(lab, &problem);
    record->bytes = (family->bytes_read != NULL ? family->bytes_read(&problem) : 0) +
                    (family->bytes_written != NULL ? family->bytes_written(&problem) : 0);
    record->flops = family->flops != NULL ? family->flops(&problem) : 0;
    fill_resources(&problem, &run->properties, record);
    report->seconds.setup += lap(&phase_start);

    check_variant(&problem, &run->staging, record);
    report->seconds.check += lap(&phase_start);
    time_variant(&problem, &run->options, &run->flush, &run->staging,
                 report->sm_clock_mhz * 1e6, record);
    fill_rates(record, report->ceiling_gbps);
    fill_peak(&problem, &run->figures, record);
    report->seconds.kernels += kernel_seconds(record, &run->options);
    report->seconds.timing_loop += lap(&phase_start);

    double measured[ML_MAX_METRICS];
    run->flush.zeroed = output_is_zeroed(&problem) ? &problem : NULL;
    collect_metrics(&run->profiler, report, &run->selections[v], &problem, &run->staging,
                    record, measured);
    run->flush.zeroed = NULL;
    lap(&phase_start);  /* the profiler keeps its own time: counter_seconds */
    predict_record(run, v, record, measured);
    fill_intensity(record);
    report->seconds.model += lap(&phase_start);

    if (family->teardown != NULL)
        family->teardown(&problem);
    ml_free_run_buffers(&problem);
    free(problem.state);
    report->seconds.teardown += lap(&phase_start);
    return record->correct;
}

/* Every selected variant at every sweep point, in order. Returns ML_EXIT_OK, or
 * ML_EXIT_INCORRECT when a record's outputs were wrong. */
static int run_records(lab_run *run)
{
    const ml_lab *lab = run->lab;
    long long points = ml_sweep_count(&run->options);
    long long records = 0;
    for (int v = 0; v < lab->num_variants; v++)
        records += run->options.variant_selected[v] ? points : 0;
    progress_state progress = progress_start(records);
    int exit_status = ML_EXIT_OK;
    for (int v = 0; v < lab->num_variants; v++) {
        if (!run->options.variant_selected[v])
            continue;
        for (long long point = 0; point < points; point++)
            if (!run_record(run, v, point, &progress))
                exit_status = ML_EXIT_INCORRECT;
    }
    progress_end(&progress);
    return exit_status;
}

/* Frees the run's buffers, closes the profiler, and writes the report. */
static int finish(lab_run *run, int exit_status)
{
    profiler_state *profiler = &run->profiler;
    if (!run->keep_open) {
        ml_device_free(run->flush.buffer);
        staging_close(&run->staging);
        if (profiler->session != NULL) {
            double start = monotonic_seconds();
            prof_close(profiler->session);
            profiler->seconds += monotonic_seconds() - start;
        }
    }
    ml_report *report = &run->report;
    if (run->wants_metrics)
        report->counter_seconds = profiler->seconds;
    fill_flops_ceiling(run->lab, report);
    report->seconds.wall = monotonic_seconds() - run->start;
    int write_status = write_report(report, &run->options);
    ml_report_free(report);
    return write_status != ML_EXIT_OK ? write_status : exit_status;
}

/* One run, from its parsed command line to its report. */
static int run_parsed(lab_run *run)
{
    int status = plan(run);
    if (status != RUN_GOES_ON)
        return status;
    if (run->options.action == ML_ACTION_MODEL)
        return predict_only(run);
    status = open_device(run);
    if (status == RUN_GOES_ON)
        status = open_profiler(run);
    if (status != RUN_GOES_ON)
        return status;
    prepare_measuring(run);
    return finish(run, run_records(run));
}

/* ---- --cases: one process, many runs -------------------------------------------------------- */

/* path + suffix into buffer; 0, or -1 when it does not fit. */
static int case_file(char *buffer, size_t size, const char *path, const char *suffix)
{
    int length = snprintf(buffer, size, "%s%s", path, suffix);
    return length >= 0 && (size_t)length < size ? 0 : -1;
}

/* stdout and stderr (fd 1 and 2, so a kernel's printf too) into the case's own files, kept as
 * the grader keeps a run's: the first PROCESS_OUTPUT_CAP_BYTES of each, then the last
 * PROCESS_TAIL_BYTES (process_capture). NULL when they cannot be made. */
static process_capture *capture_output(const lab_run *run, const char *out_path)
{
    char stdout_path[4200], stderr_path[4200];
    int stdout_fd = -1, stderr_fd = -1;
    process_capture *capture = NULL;
    if (case_file(stdout_path, sizeof stdout_path, out_path, ML_CASE_STDOUT_SUFFIX) == 0 &&
        case_file(stderr_path, sizeof stderr_path, out_path, ML_CASE_STDERR_SUFFIX) == 0)
        capture = process_capture_start(stdout_path, stderr_path, PROCESS_OUTPUT_CAP_BYTES,
                                        &stdout_fd, &stderr_fd);
    if (capture == NULL) {
        fprintf(stderr, "%s: --cases: cannot write %s%s and %s\n", run->lab->program, out_path,
                ML_CASE_STDOUT_SUFFIX, ML_CASE_STDERR_SUFFIX);
        return NULL;
    }
    fflush(stdout);
    fflush(stderr);
    dup2(stdout_fd, STDOUT_FILENO);
    dup2(stderr_fd, STDERR_FILENO);
    close(stdout_fd);
    close(stderr_fd);
    return capture;
}

/* Back to the process's own stdout and stderr; the case's files finished. Returns the bytes the
 * cap dropped. */
static long long release_output(process_capture *capture, int saved_stdout, int saved_stderr)
{
    fflush(stdout);
    fflush(stderr);
    dup2(saved_stdout, STDOUT_FILENO);
    dup2(saved_stderr, STDERR_FILENO);
    return process_capture_finish(capture);
}

/* REPORT.exit, written last: the case ended, with this status, and its output lost this many
 * bytes to the cap ("1 0"). */
static int record_exit(const lab_run *run, const char *out_path, int status, long long cut_bytes)
{
    char path[4200];
    FILE *file = case_file(path, sizeof path, out_path, ML_CASE_EXIT_SUFFIX) == 0
                     ? fopen(path, "w")
                     : NULL;
    int written = file != NULL && fprintf(file, "%d %lld\n", status, cut_bytes) > 0;
    if (file != NULL && fclose(file) != 0)
        written = 0;
    if (!written)
        fprintf(stderr, "%s: --cases: cannot write %s%s\n", run->lab->program, out_path,
                ML_CASE_EXIT_SUFFIX);
    return written ? 0 : -1;
}

/* Each case as a run of its own would go, in this process: the CUDA context, the profiler's
 * session, the L2 flush buffer and the host staging stay open; the kernels are unloaded and
 * loaded again (load_kernels), the seeds, check positions, poison and guards drawn anew, and the
 * case's --time-limit stops the whole process (SIGALRM) in the case that runs past it. A case
 * that kills the process leaves no REPORT.exit: its caller runs it, and the cases after it,
 * again on their own. */
static int run_cases(lab_run *run)
{
    const ml_lab *lab = run->lab;
    ml_case_list list;
    char error[512];
    if (ml_read_cases(lab->program, run->options.cases_path, &list, error, sizeof error) !=
        ML_EXIT_OK) {
        ml_free_cases(&list);
        return usage_error(lab, error);
    }
    int saved_stdout = dup(STDOUT_FILENO), saved_stderr = dup(STDERR_FILENO);
    int status = ML_EXIT_OK;
    for (int c = 0; c < list.count && status == ML_EXIT_OK; c++) {
        const ml_case *one = &list.cases[c];
        process_capture *capture = capture_output(run, one->out_path);
        if (capture == NULL) {
            status = ML_EXIT_USAGE;
            break;
        }
        /* A fresh run but for what stays open. */
        profiler_state profiler = {.session = run->profiler.session,
                                   .unified_open = run->profiler.unified_open};
        l2_flush flush = run->flush;
        host_staging staging = run->staging;
        memset(run, 0, sizeof *run);
        run->lab = lab;
        run->keep_open = 1;
        run->profiler = profiler;
        run->flush = flush;
        run->staging = staging;
        run->start = monotonic_seconds();
        int case_status = parse(run, one->argc, (char **)one->argv);
        if (case_status == RUN_GOES_ON) {
            alarm((unsigned)run->options.time_limit_s);
            case_status = run_parsed(run);
            alarm(0);
        }
        long long cut_bytes = release_output(capture, saved_stdout, saved_stderr);
        if (record_exit(run, one->out_path, case_status, cut_bytes) != 0)
            status = ML_EXIT_USAGE;
    }
    close(saved_stdout);
    close(saved_stderr);
    ml_kernels_unload();
    if (run->flush.buffer != NULL)
        ml_device_free(run->flush.buffer);
    if (run->staging.position != NULL)
        staging_close(&run->staging);
    if (run->profiler.session != NULL)
        prof_close(run->profiler.session);
    ml_free_cases(&list);
    return status;
}

int ml_main_with(const ml_lab *lab, const ml_kernel_image *kernels, int argc, char **argv)
{
    /* Static: the selections and the model's device facts are large and outlive the phases. */
    static lab_run run;
    static ml_lab lab_with_kernels;
    lab_with_kernels = *lab;
    lab_with_kernels.kernels = kernels;
    run.lab = &lab_with_kernels;
    run.start = monotonic_seconds();
    int status = parse(&run, argc, argv);
    if (status != RUN_GOES_ON)
        return status;
    if (run.options.action == ML_ACTION_CASES)
        return run_cases(&run);
    /* The default action on SIGALRM ends the process: a run past its limit stops there. */
    alarm((unsigned)run.options.time_limit_s);
    return run_parsed(&run);
}
