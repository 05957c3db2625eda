/* render.c: a lab's JSON report as text or Markdown: one builder per table (see render.h).
 *
 * The tables are for people: numbers rounded for reading, "-" where there is nothing to show,
 * the coefficient of variation in %.
 */
#include "render.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "report_data.h"

#define COUNT(array) (sizeof(array) / sizeof(array[0]))
#define PARAMS_SIZE 256
#define FACT_SIZE 512
/* Range reasons kept to print each once; a run has a handful. */
#define MAX_RANGE_NOTES 64

static const cJSON *member(const cJSON *object, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(object, name);
}

static double number_or_nan(const cJSON *item)
{
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static const char *text_or(const cJSON *item, const char *otherwise)
{
    return cJSON_IsString(item) ? item->valuestring : otherwise;
}

/* true if the record's variant reads the size parameter: the tables show only those (a strided
 * row has no offset). A report without "params_read" shows every one. */
static bool reads_param(const cJSON *record, const char *name)
{
    const cJSON *names = member(record, "params_read");
    if (!cJSON_IsArray(names))
        return true;
    const cJSON *read;
    cJSON_ArrayForEach(read, names) {
        if (cJSON_IsString(read) && strcmp(read->valuestring, name) == 0)
            return true;
    }
    return false;
}

/* "n=1024 stride=2": the size parameters the record's variant reads, in one cell. */
static const char *params_text(const cJSON *record, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    const cJSON *param;
    cJSON_ArrayForEach(param, rd_params(record)) {
        if (used >= size || !reads_param(record, param->string))
            continue;
        int written = snprintf(text + used, size - used, "%s%s=%.0f", (used > 0) ? " " : "",
                               param->string, number_or_nan(param));
        if (written > 0)
            used += (size_t)written;
    }
    return text;
}

/* ---- facts ----------------------------------------------------------------------------------- */

/* One fact: "key:      value" in text (values aligned), "- key: value" in Markdown. */
static void write_fact(FILE *stream, rt_style style, const char *key, const char *value)
{
    if (style == RT_MARKDOWN) {
        fprintf(stream, "- %s: %s\n", key, value);
        return;
    }
    char label[32];
    snprintf(label, sizeof label, "%s:", key);
    fprintf(stream, "%-10s%s\n", label, value);
}

/* The GPU that ran; under --model, none. The text names the SM clock and the GPU the
 * predictions are for; the demo's list, whose page says it all holds predictions, does not. */
static void device_text(const cJSON *report, rt_style style, char *text, size_t size)
{
    const cJSON *device = member(report, "device");
    const cJSON *model_gpu = member(report, "model_gpu");
    const char *name = rd_device_name(report);
    if (name == NULL && style == RT_TEXT && cJSON_IsObject(model_gpu)) {
        snprintf(text, size, "none (--model: predictions for the %s: %.0f SMs, %.4g MiB L2, "
                             "%.0f-byte DRAM fills)", text_or(member(model_gpu, "device_name"), ""),
                 number_or_nan(member(model_gpu, "sm_count")),
                 number_or_nan(member(model_gpu, "l2_mib")),
                 number_or_nan(member(model_gpu, "dram_fill_bytes")));
        return;
    }
    if (name == NULL) {
        snprintf(text, size, "none (--model: predictions only)");
        return;
    }
    int major = 0, minor = 0;
    const cJSON *capability = member(device, "compute_capability");
    if (cJSON_IsString(capability))
        sscanf(capability->valuestring, "%d.%d", &major, &minor);
    char clock[64] = "";
    if (style == RT_TEXT)
        snprintf(clock, sizeof clock, ", SM clock %.0f MHz",
                 number_or_nan(member(device, "sm_clock_mhz")));
    snprintf(text, size, "%s (sm_%d%d, %.0f SMs, %.4g MiB L2%s)", name, major, minor,
             number_or_nan(member(device, "sm_count")), number_or_nan(member(device, "l2_mib")),
             clock);
}

/* Where the model's figures come from (model_gpu.origin): memlab's table, by its entry's name;
 * a profile or the defaults, by the source line itself, which names the file or what is assumed.
 * 0 for a report that names none. */
static int facts_text(const cJSON *report, char *text, size_t size)
{
    const cJSON *model_gpu = member(report, "model_gpu");
    const char *origin = text_or(member(model_gpu, "origin"), NULL);
    const char *source = text_or(member(model_gpu, "source"), NULL);
    if (origin == NULL || source == NULL)
        return 0;
    if (strcmp(origin, "table") == 0)
        snprintf(text, size, "memlab's table (%s)", text_or(member(model_gpu, "name"), "?"));
    else
        snprintf(text, size, "%s", source);
    return 1;
}

void rd_write_facts(const cJSON *report, rt_style style, FILE *stream)
{
    char value[FACT_SIZE];
    if (style == RT_TEXT)
        fprintf(stream, "%s: %s\n", rd_report_text(report, "lab"), rd_title(report));
    device_text(report, style, value, sizeof value);
    write_fact(stream, style, "device", value);
    if (facts_text(report, value, sizeof value))
        write_fact(stream, style, "facts", value);

    double ceiling = rd_report_number(report, "ceiling_gbps");
    if (isnan(ceiling))
        snprintf(value, sizeof value, "not measured");
    else
        snprintf(value, sizeof value, "%.1f GB/s (device-to-device copy)", ceiling);
    write_fact(stream, style, "ceiling", value);
    double dram_peak = number_or_nan(member(member(report, "device"), "published_dram_gbps"));
    if (!isnan(dram_peak)) {
        snprintf(value, sizeof value,
                 "%.1f GB/s of DRAM, as published (2 x memory clock x bus width)", dram_peak);
        write_fact(stream, style, "peak", value);
    }

    const char *seed = rd_report_text(report, "seed");
    write_fact(stream, style, "seed", seed != NULL ? seed : "-");
    snprintf(value, sizeof value, "%.0f (warm-up %.0f)", rd_report_number(report, "reps"),
             rd_report_number(report, "warmup"));
    write_fact(stream, style, "reps", value);

    const char *note = rd_profiler_note(report);
    if (note != NULL)
        write_fact(stream, style, "counters", note);
}

/* ---- the results table ----------------------------------------------------------------------- */

/* The columns that only some runs have. */
typedef struct {
    bool gflops;                /* a record does arithmetic */
    const char *flops_ceiling;  /* the variant GFLOP/s are compared with, or NULL */
    bool latency;               /* a kernel timed itself: cycles and ns per operation */
    bool course;                /* the course's table has a figure for a record's access */
    bool served_by;             /* the model names the level that serves a record's accesses */
    bool peak;                  /* a record's level has a peak (a lesson in bandwidth) */
} result_columns;

static result_columns results_shown(const cJSON *report)
{
    result_columns shown = {0};
    const cJSON *record;
    cJSON_ArrayForEach(record, rd_records(report)) {
        shown.gflops |= rd_value(record, "flops") > 0;
        shown.latency |= cJSON_IsObject(member(record, "latency"));
        shown.course |= cJSON_IsString(member(record, "course_figure"));
        shown.served_by |= cJSON_IsString(member(record, "served_by"));
        shown.peak |= !isnan(rd_value(record, "peak_gbps"));
    }
    if (shown.gflops)
        shown.flops_ceiling = rd_report_text(report, "flops_ceiling_variant");
    return shown;
}

/* Every size parameter has a column (every record has the lab's, in the lab's order). */
static void results_header(rt_table *table, const cJSON *report, const result_columns *shown)
{
    static const char *const timing[] = {"median ms", "min ms", "max ms", "cv %", "GB/s",
                                         "% of ceiling"};
    rt_column(table, "variant", RT_LEFT);
    const cJSON *param;
    cJSON_ArrayForEach(param, rd_params(cJSON_GetArrayItem(rd_records(report), 0)))
        rt_column(table, param->string, RT_RIGHT);
    for (size_t i = 0; i < COUNT(timing); i++)
        rt_column(table, timing[i], RT_RIGHT);
    if (shown->peak) {
        rt_column(table, "% of peak", RT_RIGHT);
        rt_column(table, "peak GB/s", RT_RIGHT);
        rt_column(table, "peak from", RT_LEFT);
    }
    if (shown->gflops)
        rt_column(table, "GFLOP/s", RT_RIGHT);
    if (shown->flops_ceiling != NULL) {
        char header[PARAMS_SIZE];
        snprintf(header, sizeof header, "%% of %s", shown->flops_ceiling);
        rt_column(table, header, RT_RIGHT);
    }
    if (shown->latency) {
        rt_column(table, "cycles/op", RT_RIGHT);
        rt_column(table, "ns/op", RT_RIGHT);
    }
    if (shown->course)
        rt_column(table, "course table", RT_LEFT);
    if (shown->served_by)
        rt_column(table, "served by (model)", RT_LEFT);
    rt_column(table, "check", RT_LEFT);
}

/* "ok", "FAIL (...)", or no value for a record that was not checked (--model). */
static void check_cell(rt_table *table, const cJSON *record)
{
    double correct = rd_value(record, "correct");
    if (isnan(correct))
        rt_missing(table);
    else if (correct != 0)
        rt_text(table, "ok");
    else
        rt_text(table, "FAIL (%.0f mismatches, max err %.3g)", rd_value(record, "mismatches"),
                rd_value(record, "max_rel_error"));
}

static void results_row(rt_table *table, const cJSON *record, const result_columns *shown)
{
    rt_text(table, "%s", rd_variant(record));
    const cJSON *param;
    cJSON_ArrayForEach(param, rd_params(record)) {
        if (reads_param(record, param->string))
            rt_number(table, "%.0f", number_or_nan(param));
        else
            rt_text(table, "%s", "");
    }
    rt_number(table, "%.4f", rd_value(record, "median_ms"));
    rt_number(table, "%.4f", rd_value(record, "min_ms"));
    rt_number(table, "%.4f", rd_value(record, "max_ms"));
    rt_number(table, "%.1f", 100.0 * rd_value(record, "cv"));
    rt_number(table, "%.1f", rd_value(record, "gbps"));
    rt_number(table, "%.1f", rd_value(record, "pct_of_ceiling"));
    if (shown->peak) {
        rt_number(table, "%.1f", rd_value(record, "pct_of_peak"));
        rt_number(table, "%.1f", rd_value(record, "peak_gbps"));
        rt_text(table, "%s", text_or(member(record, "peak_source"), ""));
    }
    if (shown->gflops)
        rt_number(table, "%.1f", rd_value(record, "gflops"));
    if (shown->flops_ceiling != NULL)
        rt_number(table, "%.1f", rd_value(record, "pct_of_flops_ceiling"));
    if (shown->latency) {
        rt_number(table, "%.1f", rd_value(record, "cycles_per_op"));
        rt_number(table, "%.1f", rd_value(record, "ns_per_op"));
    }
    if (shown->course)
        rt_text(table, "%s", text_or(member(record, "course_figure"), ""));
    if (shown->served_by)
        rt_text(table, "%s", text_or(member(record, "served_by"), ""));
    check_cell(table, record);
}

static void results_table(const cJSON *report, rt_table *table)
{
    result_columns shown = results_shown(report);
    rt_init(table);
    results_header(table, report, &shown);
    const cJSON *record;
    cJSON_ArrayForEach(record, rd_records(report))
        results_row(table, record, &shown);
}

/* ---- the resources table --------------------------------------------------------------------- */

/* Registers, local and shared memory, and the occupancy they allow, for each record with a
 * kernel of its own. */
static void resources_table(const cJSON *report, rt_table *table)
{
    static const char *const headers[] = {"variant", "params", "registers/thread",
                                          "local B/thread", "spill st/ld B", "shared B/block",
                                          "threads/block", "blocks/SM", "occupancy %"};
    rt_init(table);
    for (size_t i = 0; i < COUNT(headers); i++)
        rt_column(table, headers[i], (i < 2) ? RT_LEFT : RT_RIGHT);
    const cJSON *record;
    cJSON_ArrayForEach(record, rd_records(report)) {
        if (!cJSON_IsObject(member(record, "resources")))
            continue;
        char params[PARAMS_SIZE];
        rt_text(table, "%s", rd_variant(record));
        rt_text(table, "%s", params_text(record, params, sizeof params));
        rt_number(table, "%.0f", rd_value(record, "registers_per_thread"));
        rt_number(table, "%.0f", rd_value(record, "local_bytes_per_thread"));
        double stores = rd_value(record, "spill_store_bytes");  /* null: no ptxas report */
        if (isnan(stores))
            rt_missing(table);
        else
            rt_text(table, "%.0f/%.0f", stores, rd_value(record, "spill_load_bytes"));
        rt_number(table, "%.0f", rd_value(record, "shared_bytes_per_block"));
        rt_number(table, "%.0f", rd_value(record, "threads_per_block"));
        rt_number(table, "%.0f", rd_value(record, "blocks_per_sm"));
        rt_number(table, "%.1f", rd_value(record, "occupancy_pct"));
    }
}

/* ---- the metrics table ----------------------------------------------------------------------- */

static void metric_row_start(rt_table *table, const cJSON *record, const char *params,
                             const char *name, const char *unit)
{
    rt_text(table, "%s", rd_variant(record));
    rt_text(table, "%s", params);
    rt_text(table, "%s", name);
    rt_text(table, "%s", unit);
}

/* No ratio to a prediction of zero (or to a missing value). */
static void ratio_cell(rt_table *table, double predicted, double measured)
{
    bool has_ratio = !isnan(predicted) && !isnan(measured) && predicted != 0;
    rt_number(table, "%.3f", has_ratio ? measured / predicted : NAN);
}

/* A ranged prediction: low..high, and whether the measurement fell inside (rd_in_range). */
static void range_cells(rt_table *table, double low, double high, double measured)
{
    char low_text[64], high_text[64];
    rt_metric_text(low_text, sizeof low_text, low);
    rt_metric_text(high_text, sizeof high_text, high);
    rt_text(table, "%s..%s", low_text, high_text);
    rt_metric_value(table, measured);
    if (isnan(measured))
        rt_missing(table);
    else
        rt_text(table, "%s", rd_in_range(measured, low, high) ? "in range" : "outside the range");
}

static void metric_row(rt_table *table, const cJSON *record, const char *params,
                       const cJSON *metric)
{
    const char *alias = rd_metric_text(metric, "alias");
    const char *unit = rd_metric_text(metric, "unit");
    double predicted = rd_metric_number(metric, "predicted");
    double measured = rd_metric_number(metric, "measured");
    metric_row_start(table, record, params, alias != NULL ? alias : metric->string,
                     unit != NULL ? unit : "");
    if (rd_metric_text(metric, "range_reason") != NULL) {
        range_cells(table, rd_metric_number(metric, "predicted_low"), predicted, measured);
        return;
    }
    rt_metric_value(table, predicted);
    rt_metric_value(table, measured);
    ratio_cell(table, predicted, measured);
}

/* Each record's metrics, then its FLOPs per global-load byte when both are known. */
static void metrics_table(const cJSON *report, rt_table *table)
{
    static const char *const headers[] = {"variant", "params", "metric", "unit", "predicted",
                                          "measured", "measured/predicted"};
    rt_init(table);
    for (size_t i = 0; i < COUNT(headers); i++)
        rt_column(table, headers[i], (i < 4) ? RT_LEFT : RT_RIGHT);
    const cJSON *record;
    cJSON_ArrayForEach(record, rd_records(report)) {
        char params[PARAMS_SIZE];
        params_text(record, params, sizeof params);
        const cJSON *metric;
        cJSON_ArrayForEach(metric, rd_metrics(record))
            metric_row(table, record, params, metric);
        double predicted = rd_value(record, "flops_per_gld_byte_predicted");
        double measured = rd_value(record, "flops_per_gld_byte_measured");
        if (isnan(predicted) || isnan(measured))
            continue;
        metric_row_start(table, record, params, "flops_per_gld_byte", "FLOP/B");
        rt_number(table, "%.3f", predicted);
        rt_number(table, "%.3f", measured);
        ratio_cell(table, predicted, measured);
    }
}

/* Why each ranged prediction is a range: each reason once, under the metrics table. */
static void write_range_notes(const cJSON *report, rt_style style, FILE *stream)
{
    const char *written[MAX_RANGE_NOTES];
    int written_count = 0;
    const cJSON *record, *metric;
    cJSON_ArrayForEach(record, rd_records(report)) {
        cJSON_ArrayForEach(metric, rd_metrics(record)) {
            const char *reason = rd_metric_text(metric, "range_reason");
            bool seen = (reason == NULL || written_count == MAX_RANGE_NOTES);
            for (int i = 0; i < written_count && !seen; i++)
                seen = strcmp(written[i], reason) == 0;
            if (seen)
                continue;
            if (written_count == 0)
                fputc('\n', stream);
            written[written_count++] = reason;
            const char *alias = rd_metric_text(metric, "alias");
            fprintf(stream, style == RT_MARKDOWN ? "Range of %s: %s.\n" : "range: %s: %s\n",
                    alias != NULL ? alias : "", reason);
        }
    }
}

/* ---- the whole ------------------------------------------------------------------------------- */

/* A table after a blank line; nothing when it has no rows. */
static void print_later_table(const rt_table *table, rt_style style, FILE *stream)
{
    if (rt_row_count(table) == 0)
        return;
    fputc('\n', stream);
    rt_print(table, style, stream);
}

void rd_write_tables(const cJSON *report, rt_style style, FILE *stream)
{
    rt_table table;
    results_table(report, &table);
    rt_print(&table, style, stream);
    rt_free(&table);
    resources_table(report, &table);
    print_later_table(&table, style, stream);
    rt_free(&table);
    metrics_table(report, &table);
    print_later_table(&table, style, stream);
    rt_free(&table);
    write_range_notes(report, style, stream);
}

void rd_write_seconds(const cJSON *report, rt_style style, FILE *stream)
{
    const cJSON *seconds = member(report, "seconds");
    if (!cJSON_IsObject(seconds))
        return;
    bool markdown = (style == RT_MARKDOWN);
    double counters = number_or_nan(member(seconds, "counters"));   /* null: none asked for */
    fprintf(stream, "\n%s: %.2f s = kernels %.2f s + counters %.2f s + host %.2f s. Spent in: "
                    "startup %.2f, setup %.2f, check %.2f, timing loop %.2f (kernels included), "
                    "model %.2f, teardown %.2f%s\n",
            markdown ? "Time" : "time", number_or_nan(member(seconds, "wall")),
            number_or_nan(member(seconds, "kernels")), isnan(counters) ? 0.0 : counters,
            number_or_nan(member(seconds, "host")), number_or_nan(member(seconds, "startup")),
            number_or_nan(member(seconds, "setup")), number_or_nan(member(seconds, "check")),
            number_or_nan(member(seconds, "timing_loop")), number_or_nan(member(seconds, "model")),
            number_or_nan(member(seconds, "teardown")), markdown ? "." : "");
}

void rd_write_markdown(const cJSON *report, FILE *stream)
{
    rd_write_facts(report, RT_MARKDOWN, stream);
    fputc('\n', stream);
    rd_write_tables(report, RT_MARKDOWN, stream);
    rd_write_seconds(report, RT_MARKDOWN, stream);
}
