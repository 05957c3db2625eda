/* run.c: one run of a lab program, the run every lab shares, phase by phase (run.h).
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
 * ml_main (main.c) calls it. Each job has a file of its own: the device and its kernels
 * (open_device.c), the checks (checks.c), the clocks (timing.c), the counters (counters.c), what
 * is written (output.c), --cases (cases.c), the command line (cli.c).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getpid */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "checks.h"
#include "counters.h"
#include "open_device.h"
#include "output.h"
#include "report_data.h"
#include "timing.h"

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

static uint64_t fresh_seed(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t seed = (uint64_t)now.tv_sec * 1000000007ull ^ (uint64_t)now.tv_nsec;
    return seed ^ ((uint64_t)getpid() << 32);
}

/* Everything that can be refused without a GPU: metric names for every selected variant. */
static int select_all_metrics(const ml_lab *lab, const ml_options *options,
                              prof_selection *selections, char *error, size_t error_size)
{
    for (int v = 0; v < lab->num_variants; v++) {
        if (!options->variant_selected[v])
            continue;
        if (prof_select_metrics(options->metrics, lab->variants[v].metrics, &selections[v], error,
                                error_size) != 0)
            return ML_EXIT_USAGE;
    }
    return ML_EXIT_OK;
}

/* The table's own mistakes, caught before anything runs: a parameter named like a column of the
 * report, too many variants, a variant without a family or a launch, a kernel without a block,
 * a used_by naming no variant or family. */
static int check_lab_table(const ml_lab *lab)
{
    if (lab->num_variants > ML_MAX_VARIANTS || lab->num_params > ML_MAX_PARAMS) {
        fprintf(stderr, "%s: %d variants and %d sizes; a lab has at most %d and %d\n",
                lab->program, lab->num_variants, lab->num_params, ML_MAX_VARIANTS, ML_MAX_PARAMS);
        return ML_EXIT_LAB_ERROR;
    }
    for (int v = 0; v < lab->num_variants; v++) {
        const ml_variant *variant = &lab->variants[v];
        const ml_family *family = variant->family;
        if (family == NULL || family->launch == NULL || family->setup == NULL ||
            family->device_bytes == NULL || family->fill_inputs == NULL ||
            family->reference_at == NULL || (variant->kernel != NULL && variant->block.x == 0)) {
            fprintf(stderr, "%s: variant %s: every variant needs a family with device_bytes, "
                            "setup, fill_inputs, reference_at and launch (every timed launch gets "
                            "new inputs, checked at positions drawn at run time), and a kernel "
                            "a block\n", lab->program, variant->name);
            return ML_EXIT_LAB_ERROR;
        }
    }
    for (int i = 0; i < lab->num_params; i++) {
        const ml_param *param = &lab->params[i];
        if (rd_is_record_column(param->name)) {
            fprintf(stderr, "%s: parameter '%s' has the name of a column of every record: name it "
                            "otherwise\n", lab->program, param->name);
            return ML_EXIT_LAB_ERROR;
        }
        for (const char *name = param->used_by; name != NULL && *name != '\0';) {
            size_t length = strcspn(name, ",");
            int found = 0;
            for (int v = 0; v < lab->num_variants; v++) {
                const ml_variant *variant = &lab->variants[v];
                found |= (strlen(variant->name) == length &&
                          strncmp(variant->name, name, length) == 0) ||
                         (strlen(variant->family->name) == length &&
                          strncmp(variant->family->name, name, length) == 0);
            }
            if (!found) {
                fprintf(stderr, "%s: size %s is used by '%.*s', which is no variant or family of "
                                "the lab\n", lab->program, param->name, (int)length, name);
                return ML_EXIT_LAB_ERROR;
            }
            name += length;
            name += (*name == ',');
        }
    }
    return ML_EXIT_OK;
}

/* The command line, and what it asks that needs no run (help, the lists, saving kernels). */
int ml_run_parse(lab_run *run, int argc, char **argv)
{
    const ml_lab *lab = run->lab;
    if (check_lab_table(lab) != ML_EXIT_OK)
        return ML_EXIT_LAB_ERROR;
    char error[512];
    if (ml_parse_args(lab, argc, argv, &run->options, error, sizeof error) != ML_EXIT_OK)
        return ml_usage_error(lab, error);
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
        return ml_save_kernels(lab, &run->options);
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
                return ml_usage_error(lab, message);
        }
    }
    char error[512];
    if (select_all_metrics(lab, options, run->selections, error, sizeof error) != ML_EXIT_OK)
        return ml_usage_error(lab, error);
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
    ml_fill_metric_results(record, &run->selections[v], &prediction, measured);
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
    int status = ml_write_report(report, options);
    ml_report_free(report);
    return status;
}

/* After every refusal (bad input gets its one line and nothing else): the copy ceiling, the L2
 * flush buffer, which the profiler also runs before each profiled launch; the startup's time;
 * the host staging. */
static void prepare_measuring(lab_run *run)
{
    warn_unread_sweep(run->lab, &run->options);
    ml_report *report = &run->report;
    report->ceiling_gbps = ml_measure_copy_ceiling(run->free_bytes);
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
        prof_set_prelude(run->profiler.session, ml_flush_prelude, flush) != PROF_OK) {
        fprintf(stderr, "memlab: %s\n", prof_last_error());
        exit(ML_EXIT_CUDA_ERROR);
    }
    run->report.seconds.startup = ml_monotonic_seconds() - run->start;
    if (run->staging.position == NULL)
        ml_staging_open(&run->staging);
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
    ml_progress_show(progress, lab, variant->name, record->param, &run->options);

    const ml_family *family = variant->family;
    ml_problem problem = {.lab = lab, .variant = variant, .kernel = run->kernels[v],
                          .param = record->param, .seed = run->options.seed};
    problem.state = calloc(1, family->state_bytes > 0 ? family->state_bytes : 1);
    if (problem.state == NULL) {
        fprintf(stderr, "memlab: out of host memory\n");
        exit(ML_EXIT_CUDA_ERROR);
    }
    double phase_start = ml_monotonic_seconds();
    family->setup(&problem);
    ml_fill_reference(&problem);
    ml_check_problem(lab, &problem);
    record->bytes = (family->bytes_read != NULL ? family->bytes_read(&problem) : 0) +
                    (family->bytes_written != NULL ? family->bytes_written(&problem) : 0);
    record->flops = family->flops != NULL ? family->flops(&problem) : 0;
    ml_fill_resources(&problem, &run->properties, record);
    report->seconds.setup += ml_lap(&phase_start);

    ml_check_variant(&problem, &run->staging, record);
    report->seconds.check += ml_lap(&phase_start);
    ml_time_variant(&problem, &run->options, &run->flush, &run->staging,
                 report->sm_clock_mhz * 1e6, record);
    ml_fill_rates(record, report->ceiling_gbps);
    ml_fill_peak(&problem, &run->figures, record);
    report->seconds.kernels += ml_kernel_seconds(record, &run->options);
    report->seconds.timing_loop += ml_lap(&phase_start);

    double measured[ML_MAX_METRICS];
    run->flush.zeroed = ml_output_is_zeroed(&problem) ? &problem : NULL;
    ml_collect_metrics(&run->profiler, report, &run->selections[v], &problem, &run->staging,
                    record, measured);
    run->flush.zeroed = NULL;
    ml_lap(&phase_start);  /* the profiler keeps its own time: counter_seconds */
    predict_record(run, v, record, measured);
    ml_fill_intensity(record);
    report->seconds.model += ml_lap(&phase_start);

    if (family->teardown != NULL)
        family->teardown(&problem);
    ml_free_run_buffers(&problem);
    free(problem.state);
    report->seconds.teardown += ml_lap(&phase_start);
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
    progress_state progress = ml_progress_start(records);
    int exit_status = ML_EXIT_OK;
    for (int v = 0; v < lab->num_variants; v++) {
        if (!run->options.variant_selected[v])
            continue;
        for (long long point = 0; point < points; point++)
            if (!run_record(run, v, point, &progress))
                exit_status = ML_EXIT_INCORRECT;
    }
    ml_progress_end(&progress);
    return exit_status;
}

/* Frees the run's buffers, closes the profiler, and writes the report. */
static int finish(lab_run *run, int exit_status)
{
    profiler_state *profiler = &run->profiler;
    if (!run->keep_open) {
        ml_device_free(run->flush.buffer);
        ml_staging_close(&run->staging);
        if (profiler->session != NULL) {
            double start = ml_monotonic_seconds();
            prof_close(profiler->session);
            profiler->seconds += ml_monotonic_seconds() - start;
        }
    }
    ml_report *report = &run->report;
    if (run->wants_metrics)
        report->counter_seconds = profiler->seconds;
    ml_fill_flops_ceiling(run->lab, report);
    report->seconds.wall = ml_monotonic_seconds() - run->start;
    int write_status = ml_write_report(report, &run->options);
    ml_report_free(report);
    return write_status != ML_EXIT_OK ? write_status : exit_status;
}

int ml_run_parsed(lab_run *run)
{
    int status = plan(run);
    if (status != RUN_GOES_ON)
        return status;
    if (run->options.action == ML_ACTION_MODEL)
        return predict_only(run);
    status = ml_open_device(run);
    if (status == RUN_GOES_ON)
        status = ml_open_profiler(run);
    if (status != RUN_GOES_ON)
        return status;
    prepare_measuring(run);
    return finish(run, run_records(run));
}
