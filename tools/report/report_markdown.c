/* report_markdown.c: a lab's JSON report as Markdown tables (see report_markdown.h). The
 * number formats are those of the text table in reporting/report.c, so the demo's report.md reads
 * like the lab program's own output.
 */
#include "report_markdown.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "report_data.h"

/* More size parameters than a lab has (ML_MAX_PARAMS in common/memlab.h); the rest are not
 * shown. */
#define MAX_PARAMS 16

static const cJSON *member(const cJSON *object, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(object, name);
}

static double number_or_nan(const cJSON *item)
{
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

/* A cell's text: a '|' would end the cell, so it is escaped. */
static void cell_text(FILE *stream, const char *text)
{
    fputs(" ", stream);
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '|')
            fputc('\\', stream);
        fputc(*c, stream);
    }
    fputs(" |", stream);
}

/* A number with the given printf format, or "-" for NAN. */
static void cell_number(FILE *stream, const char *format, double value)
{
    if (isnan(value)) {
        fputs(" - |", stream);
        return;
    }
    fputc(' ', stream);
    fprintf(stream, format, value);
    fputs(" |", stream);
}

/* Counter values: counts print whole, fractions with four significant digits. */
static void cell_metric_value(FILE *stream, double value)
{
    bool whole = !isnan(value) && (value == floor(value) || fabs(value) >= 1000);
    cell_number(stream, whole ? "%.0f" : "%.4g", value);
}

/* The header row and the rule under it: alignment[c] is 'l' or 'r'. */
static void header_row(FILE *stream, const char *const *names, const char *alignment)
{
    fputs("|", stream);
    for (int c = 0; names[c] != NULL; c++)
        cell_text(stream, names[c]);
    fputs("\n|", stream);
    for (int c = 0; names[c] != NULL; c++)
        fputs(alignment[c] == 'r' ? " ---: |" : " --- |", stream);
    fputc('\n', stream);
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

/* "n=1024 stride=2": the size parameters the record's variant reads. */
static void cell_params(FILE *stream, const cJSON *record)
{
    const cJSON *param;
    fputc(' ', stream);
    const char *separator = "";
    cJSON_ArrayForEach(param, member(record, "params")) {
        if (!reads_param(record, param->string))
            continue;
        fprintf(stream, "%s%s=%.0f", separator, param->string, number_or_nan(param));
        separator = " ";
    }
    fputs(" |", stream);
}

static void write_facts(const cJSON *report, FILE *stream)
{
    const cJSON *device = member(report, "device");
    const char *name = rd_device_name(report);
    if (name == NULL) {
        fputs("- device: none (--model: predictions only)\n", stream);
    } else {
        const cJSON *capability = member(device, "compute_capability");
        int major = 0, minor = 0;
        if (cJSON_IsString(capability))
            sscanf(capability->valuestring, "%d.%d", &major, &minor);
        fprintf(stream, "- device: %s (sm_%d%d, %.0f SMs, %.4g MiB L2)\n", name, major, minor,
                number_or_nan(member(device, "sm_count")), number_or_nan(member(device, "l2_mib")));
    }
    double ceiling = number_or_nan(member(report, "ceiling_gbps"));
    if (isnan(ceiling))
        fputs("- ceiling: not measured\n", stream);
    else
        fprintf(stream, "- ceiling: %.1f GB/s (device-to-device copy)\n", ceiling);
    const cJSON *seed = member(report, "seed");
    fprintf(stream, "- seed: %s\n", cJSON_IsString(seed) ? seed->valuestring : "-");
    fprintf(stream, "- reps: %.0f (warm-up %.0f)\n", number_or_nan(member(report, "reps")),
            number_or_nan(member(report, "warmup")));
    const cJSON *note = member(report, "profiler_note");
    if (cJSON_IsString(note))
        fprintf(stream, "- counters: %s\n", note->valuestring);
}

static bool any_record_has(const cJSON *records, const char *column)
{
    const cJSON *record;
    cJSON_ArrayForEach(record, records) {
        double value = rd_value(record, column);
        if (!isnan(value) && value > 0)
            return true;
    }
    return false;
}

static void write_results(const cJSON *report, FILE *stream)
{
    const cJSON *records = member(report, "records");
    const cJSON *first_params = member(cJSON_GetArrayItem(records, 0), "params");
    const cJSON *flops_ceiling = member(report, "flops_ceiling_variant");
    bool show_gflops = any_record_has(records, "flops");
    bool show_flops_ceiling = show_gflops && cJSON_IsString(flops_ceiling);
    char ceiling_header[160] = "";
    if (show_flops_ceiling)
        snprintf(ceiling_header, sizeof ceiling_header, "%% of %s", flops_ceiling->valuestring);

    bool show_latency = any_record_has(records, "cycles_per_op");
    bool show_served_by = false, show_course = false;
    const cJSON *each;
    cJSON_ArrayForEach(each, records) {
        show_served_by |= cJSON_IsString(member(each, "served_by"));
        show_course |= cJSON_IsString(member(each, "course_figure"));
    }
    /* The variant, the sizes, six timing columns, two of FLOPs, two of latency, the course's
     * figure, the model's level, the check, the end. */
    const char *names[1 + MAX_PARAMS + 6 + 2 + 2 + 1 + 1 + 1 + 1];
    char alignment[sizeof names / sizeof names[0]];
    int count = 0;
    names[count] = "variant", alignment[count++] = 'l';
    const cJSON *param;
    cJSON_ArrayForEach(param, first_params) {
        if (count <= MAX_PARAMS)
            names[count] = param->string, alignment[count++] = 'r';
    }
    const char *timing[] = {"median ms", "min ms", "max ms", "cv %", "GB/s", "% of ceiling"};
    for (size_t i = 0; i < sizeof timing / sizeof timing[0]; i++)
        names[count] = timing[i], alignment[count++] = 'r';
    if (show_gflops)
        names[count] = "GFLOP/s", alignment[count++] = 'r';
    if (show_flops_ceiling)
        names[count] = ceiling_header, alignment[count++] = 'r';
    if (show_latency) {
        names[count] = "cycles/op", alignment[count++] = 'r';
        names[count] = "ns/op", alignment[count++] = 'r';
    }
    if (show_course)
        names[count] = "course table", alignment[count++] = 'l';
    if (show_served_by)
        names[count] = "served by (model)", alignment[count++] = 'l';
    names[count] = "check", alignment[count++] = 'l';
    names[count] = NULL;
    header_row(stream, names, alignment);

    const cJSON *record;
    cJSON_ArrayForEach(record, records) {
        fputs("|", stream);
        cell_text(stream, member(record, "variant")->valuestring);
        int shown = 0;
        cJSON_ArrayForEach(param, member(record, "params")) {
            if (shown++ >= MAX_PARAMS)
                break;
            if (reads_param(record, param->string))
                cell_number(stream, "%.0f", number_or_nan(param));
            else
                fputs("  |", stream);
        }
        cell_number(stream, "%.4f", rd_value(record, "median_ms"));
        cell_number(stream, "%.4f", rd_value(record, "min_ms"));
        cell_number(stream, "%.4f", rd_value(record, "max_ms"));
        cell_number(stream, "%.1f", 100.0 * rd_value(record, "cv"));
        cell_number(stream, "%.1f", rd_value(record, "gbps"));
        cell_number(stream, "%.1f", rd_value(record, "pct_of_ceiling"));
        if (show_gflops)
            cell_number(stream, "%.1f", rd_value(record, "gflops"));
        if (show_flops_ceiling)
            cell_number(stream, "%.1f", rd_value(record, "pct_of_flops_ceiling"));
        if (show_latency) {
            cell_number(stream, "%.1f", rd_value(record, "cycles_per_op"));
            cell_number(stream, "%.1f", rd_value(record, "ns_per_op"));
        }
        if (show_course) {
            const cJSON *figure = member(record, "course_figure");
            cell_text(stream, cJSON_IsString(figure) ? figure->valuestring : "");
        }
        if (show_served_by) {
            const cJSON *served_by = member(record, "served_by");
            cell_text(stream, cJSON_IsString(served_by) ? served_by->valuestring : "");
        }
        double correct = rd_value(record, "correct");
        if (isnan(correct))
            fputs(" - |", stream);
        else if (correct != 0)
            fputs(" ok |", stream);
        else
            fprintf(stream, " FAIL (%.0f mismatches, max err %.3g) |",
                    rd_value(record, "mismatches"), rd_value(record, "max_rel_error"));
        fputc('\n', stream);
    }
}

/* true if some record's object of that name (resources, metrics) has something in it. */
static bool any_record_with(const cJSON *records, const char *name)
{
    const cJSON *record;
    cJSON_ArrayForEach(record, records) {
        const cJSON *object = member(record, name);
        if (cJSON_IsObject(object) && object->child != NULL)
            return true;
    }
    return false;
}

/* Registers, local and shared memory, and occupancy, for the records with a kernel of their
 * own. */
static void write_resources(const cJSON *report, FILE *stream)
{
    const cJSON *records = member(report, "records");
    const cJSON *record;
    if (!any_record_with(records, "resources"))
        return;
    static const char *const names[] = {"variant", "params", "registers/thread",
                                        "local B/thread", "spill st/ld B", "shared B/block",
                                        "threads/block", "blocks/SM", "occupancy %", NULL};
    fputc('\n', stream);
    header_row(stream, names, "llrrrrrrr");
    cJSON_ArrayForEach(record, records) {
        const cJSON *resources = member(record, "resources");
        if (!cJSON_IsObject(resources))
            continue;
        fputs("|", stream);
        cell_text(stream, member(record, "variant")->valuestring);
        cell_params(stream, record);
        cell_number(stream, "%.0f", rd_value(record, "registers_per_thread"));
        cell_number(stream, "%.0f", rd_value(record, "local_bytes_per_thread"));
        double stores = rd_value(record, "spill_store_bytes");
        double loads = rd_value(record, "spill_load_bytes");
        if (isnan(stores))
            fputs(" - |", stream);
        else
            fprintf(stream, " %.0f/%.0f |", stores, loads);
        cell_number(stream, "%.0f", rd_value(record, "shared_bytes_per_block"));
        cell_number(stream, "%.0f", rd_value(record, "threads_per_block"));
        cell_number(stream, "%.0f", rd_value(record, "blocks_per_sm"));
        cell_number(stream, "%.1f", rd_value(record, "occupancy_pct"));
        fputc('\n', stream);
    }
}

/* One row of the metrics table. */
static void metric_row(FILE *stream, const cJSON *record, const char *alias, const char *unit,
                       double predicted, double measured, bool as_ratio)
{
    fputs("|", stream);
    cell_text(stream, member(record, "variant")->valuestring);
    cell_params(stream, record);
    cell_text(stream, alias);
    cell_text(stream, unit);
    if (as_ratio) {
        cell_number(stream, "%.3f", predicted);
        cell_number(stream, "%.3f", measured);
    } else {
        cell_metric_value(stream, predicted);
        cell_metric_value(stream, measured);
    }
    /* No ratio to a prediction of zero (or to a missing value). */
    bool has_ratio = !isnan(predicted) && !isnan(measured) && predicted != 0;
    cell_number(stream, "%.3f", has_ratio ? measured / predicted : NAN);
    fputc('\n', stream);
}

/* A value as the metrics table writes it, for the two ends of a range. */
static void metric_value_text(char *text, size_t size, double value)
{
    bool whole = !isnan(value) && (value == floor(value) || fabs(value) >= 1000);
    if (isnan(value))
        snprintf(text, size, "-");
    else
        snprintf(text, size, whole ? "%.0f" : "%.4g", value);
}

/* A row whose prediction is a range: low..high, and whether the measurement fell inside (its
 * ends stretched by 5%, as the lab's own table judges it). */
static void range_row(FILE *stream, const cJSON *record, const char *alias, const char *unit,
                      double low, double high, double measured)
{
    char low_text[64], high_text[64];
    metric_value_text(low_text, sizeof low_text, low);
    metric_value_text(high_text, sizeof high_text, high);
    fputs("|", stream);
    cell_text(stream, member(record, "variant")->valuestring);
    cell_params(stream, record);
    cell_text(stream, alias);
    cell_text(stream, unit);
    fprintf(stream, " %s..%s |", low_text, high_text);
    cell_metric_value(stream, measured);
    if (isnan(measured))
        fputs(" - |", stream);
    else
        fprintf(stream, " %s |", rd_in_range(measured, low, high) ? "in range" : "outside the range");
    fputc('\n', stream);
}

/* Why each ranged prediction is a range: each reason once, under the metrics table. */
static void write_range_reasons(const cJSON *records, FILE *stream)
{
    const char *written[64];
    int written_count = 0;
    const cJSON *record;
    cJSON_ArrayForEach(record, records) {
        const cJSON *metric;
        cJSON_ArrayForEach(metric, member(record, "metrics")) {
            const cJSON *reason = member(metric, "range_reason");
            if (!cJSON_IsString(reason) || written_count == 64)
                continue;
            bool seen = false;
            for (int i = 0; i < written_count && !seen; i++)
                seen = strcmp(written[i], reason->valuestring) == 0;
            if (seen)
                continue;
            if (written_count == 0)
                fputc('\n', stream);
            written[written_count++] = reason->valuestring;
            const cJSON *alias = member(metric, "alias");
            fprintf(stream, "Range of %s: %s.\n", cJSON_IsString(alias) ? alias->valuestring : "",
                    reason->valuestring);
        }
    }
}

static void write_metrics(const cJSON *report, FILE *stream)
{
    const cJSON *records = member(report, "records");
    const cJSON *record;
    if (!any_record_with(records, "metrics"))
        return;
    static const char *const names[] = {"variant", "params", "metric", "unit", "predicted",
                                        "measured", "measured/predicted", NULL};
    fputc('\n', stream);
    header_row(stream, names, "llllrrr");
    cJSON_ArrayForEach(record, records) {
        const cJSON *metric;
        cJSON_ArrayForEach(metric, member(record, "metrics")) {
            const cJSON *alias = member(metric, "alias");
            const cJSON *unit = member(metric, "unit");
            const char *name = cJSON_IsString(alias) ? alias->valuestring : metric->string;
            const char *unit_text = cJSON_IsString(unit) ? unit->valuestring : "";
            if (cJSON_IsString(member(metric, "range_reason")))
                range_row(stream, record, name, unit_text,
                          number_or_nan(member(metric, "predicted_low")),
                          number_or_nan(member(metric, "predicted")),
                          number_or_nan(member(metric, "measured")));
            else
                metric_row(stream, record, name, unit_text,
                           number_or_nan(member(metric, "predicted")),
                           number_or_nan(member(metric, "measured")), false);
        }
        double predicted = rd_value(record, "flops_per_gld_byte_predicted");
        double measured = rd_value(record, "flops_per_gld_byte_measured");
        if (!isnan(predicted) && !isnan(measured))
            metric_row(stream, record, "flops_per_gld_byte", "FLOP/B", predicted, measured, true);
    }
    write_range_reasons(records, stream);
}

/* One line: where the run's time went (a GPU run only). */
static void write_seconds(const cJSON *report, FILE *stream)
{
    const cJSON *seconds = member(report, "seconds");
    if (!cJSON_IsObject(seconds))
        return;
    double counters = number_or_nan(member(seconds, "counters"));
    fprintf(stream, "\nTime: %.2f s = kernels %.2f s + counters %.2f s + host %.2f s. Spent in: "
                    "startup %.2f, setup %.2f, check %.2f, timing loop %.2f (kernels included), "
                    "model %.2f, teardown %.2f.\n",
            number_or_nan(member(seconds, "wall")), number_or_nan(member(seconds, "kernels")),
            isnan(counters) ? 0.0 : counters, number_or_nan(member(seconds, "host")),
            number_or_nan(member(seconds, "startup")), number_or_nan(member(seconds, "setup")),
            number_or_nan(member(seconds, "check")), number_or_nan(member(seconds, "timing_loop")),
            number_or_nan(member(seconds, "model")), number_or_nan(member(seconds, "teardown")));
}

void rd_write_markdown(const cJSON *report, FILE *stream)
{
    write_facts(report, stream);
    fputc('\n', stream);
    write_results(report, stream);
    write_resources(report, stream);
    write_metrics(report, stream);
    write_seconds(report, stream);
}
