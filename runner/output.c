/* output.c: what a run writes (output.h): the records' fields from what was measured and
 * predicted, the report in the format asked for, and the progress on stderr. */
#include "output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ml_fill_metric_results(ml_record *record, const prof_selection *selection,
                            const ml_prediction *prediction, const double *measured)
{
    record->metric_count = selection->count;
    for (int i = 0; i < selection->count; i++) {
        const prof_selected_metric *selected = &selection->metric[i];
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

void ml_fill_intensity(ml_record *record)
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

void ml_fill_rates(ml_record *record, double ceiling_gbps)
{
    double seconds = record->time_ms.median * 1e-3;
    /* A variant whose lesson is a latency moves no bytes worth a rate. */
    record->gbps = record->bytes > 0 ? record->bytes / seconds / 1e9 : NAN;
    record->pct_of_ceiling = isnan(ceiling_gbps) ? NAN : 100.0 * record->gbps / ceiling_gbps;
    record->gflops = record->flops > 0 ? record->flops / seconds / 1e9 : NAN;
}

void ml_fill_peak(ml_problem *problem, const ml_device_figures *device, ml_record *record)
{
    if (problem->variant->family->peak_gbps == NULL || isnan(record->gbps))
        return;
    record->peak_gbps = problem->variant->family->peak_gbps(problem, device, record->gbps,
                                                            record->peak_source,
                                                            sizeof record->peak_source);
    record->pct_of_peak = 100.0 * record->gbps / record->peak_gbps;
}

void ml_fill_resources(const ml_problem *problem, const struct cudaDeviceProp *properties,
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

void ml_fill_flops_ceiling(const ml_lab *lab, ml_report *report)
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

int ml_write_report(const ml_report *report, const ml_options *options)
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

progress_state ml_progress_start(long long total)
{
    const char *forced = getenv("MEMLAB_PROGRESS");
    progress_state progress = {PROGRESS_NONE, 0, total};
    if (total > 1 && forced != NULL && strcmp(forced, "1") == 0)
        progress.mode = PROGRESS_LINES;
    else if (total > 1 && isatty(STDERR_FILENO))
        progress.mode = PROGRESS_IN_PLACE;
    return progress;
}

void ml_progress_show(progress_state *progress, const ml_lab *lab, const char *variant,
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

void ml_progress_end(const progress_state *progress)
{
    if (progress->mode == PROGRESS_IN_PLACE)
        fprintf(stderr, "\r%*s\r", 100, "");
}
