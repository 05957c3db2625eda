/* report.c: the results of a run as JSON, and through it as aligned tables or CSV.
 *
 * JSON and CSV are for programs: full precision, null (JSON) or an empty field (CSV) where a
 * value is missing, and the coefficient of variation as a ratio. The tables are for people
 * (render.c draws them from the JSON).
 */
#include "report.h"
#include "html.h"
#include "render.h"
#include "report_data.h"

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define FIRST_CAPACITY 16

/* ---- records --------------------------------------------------------------------------------- */

static void out_of_memory(void)
{
    fprintf(stderr, "memlab: out of host memory\n");
    exit(EXIT_FAILURE);
}

ml_record *ml_report_add(ml_report *report)
{
    if (report->record_count == report->record_capacity) {
        if (report->record_capacity > INT_MAX / 2)
            out_of_memory();
        int capacity = (report->record_capacity == 0) ? FIRST_CAPACITY
                                                       : 2 * report->record_capacity;
        ml_record *records = realloc(report->records, (size_t)capacity * sizeof(ml_record));
        if (records == NULL)
            out_of_memory();
        report->records = records;
        report->record_capacity = capacity;
    }
    ml_record *record = &report->records[report->record_count];
    report->record_count++;
    memset(record, 0, sizeof *record);
    record->peak_gbps = record->pct_of_peak = NAN;
    return record;
}

void ml_report_free(ml_report *report)
{
    free(report->records);
    report->records = NULL;
    report->record_count = 0;
    report->record_capacity = 0;
}

/* ---- helpers shared by the formats ----------------------------------------------------------- */

/* Timing values mean nothing for a record that was not timed (--model). */
static double if_timed(const ml_record *record, double value)
{
    return record->timed ? value : NAN;
}

/* The lab's table entry of the record's variant, or NULL. */
static const ml_variant *variant_of(const ml_lab *lab, const ml_record *record)
{
    for (int v = 0; v < lab->num_variants; v++)
        if (strcmp(lab->variants[v].name, record->variant) == 0)
            return &lab->variants[v];
    return NULL;
}

/* The course material's figure for the record's variant, or NULL. */
static const char *course_figure_of(const ml_lab *lab, const ml_record *record)
{
    const ml_variant *variant = variant_of(lab, record);
    return variant != NULL ? variant->course_figure : NULL;
}

/* 1 if the record's variant reads size parameter i: the tables show only those (a strided row
 * has no offset), which JSON's params_read names; CSV and JSON keep every parameter, so their
 * columns stay fixed. */
static bool record_uses_param(const ml_lab *lab, const ml_record *record, int i)
{
    const ml_variant *variant = variant_of(lab, record);
    return variant == NULL || ml_variant_uses(lab, variant, lab->params[i].name);
}

#define PARAMS_SIZE 128

/* "n=1024 stride=2": the sizes the record's variant reads, in one line. */
static void format_params(char *text, size_t size, const ml_lab *lab, const ml_record *record)
{
    size_t used = 0;
    text[0] = '\0';
    for (int i = 0; i < lab->num_params && used < size; i++) {
        if (!record_uses_param(lab, record, i))
            continue;
        int written = snprintf(text + used, size - used, "%s%s=%lld", (used > 0) ? " " : "",
                               lab->params[i].name, record->param[i]);
        if (written < 0)
            return;
        used += (size_t)written;
    }
}

/* counter_seconds is NAN when no counters were asked for: then they took no time. */
static double counter_seconds_spent(const ml_report *report)
{
    return isnan(report->counter_seconds) ? 0 : report->counter_seconds;
}

/* The run's wall time less its kernels' and its counters'. */
static double host_seconds(const ml_report *report)
{
    return report->seconds.wall - report->seconds.kernels - counter_seconds_spent(report);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* Every builder returns NULL when cJSON runs out of memory; json_add and json_append pass that
 * failure up, so a whole document is built or none of it is. */

/* A number, or null for NAN and infinities (JSON has neither). */
static cJSON *json_number(double value)
{
    return isfinite(value) ? cJSON_CreateNumber(value) : cJSON_CreateNull();
}

static cJSON *json_string_or_null(const char *text)
{
    return (text[0] != '\0') ? cJSON_CreateString(text) : cJSON_CreateNull();
}

/* Adds item to object under name; on failure frees item and returns false. */
static bool json_add(cJSON *object, const char *name, cJSON *item)
{
    if (item == NULL)
        return false;
    if (!cJSON_AddItemToObject(object, name, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

static bool json_append(cJSON *array, cJSON *item)
{
    if (item == NULL)
        return false;
    if (!cJSON_AddItemToArray(array, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

/* Returns object, or frees it and returns NULL when building it failed. */
static cJSON *json_built(cJSON *object, bool ok)
{
    if (ok)
        return object;
    cJSON_Delete(object);
    return NULL;
}

/* Under --model there is no device: the object is kept (so readers find the same keys) with
 * every value null. */
static cJSON *json_device(const ml_report *report)
{
    bool has_device = (report->device_name[0] != '\0');
    char compute_capability[32];
    snprintf(compute_capability, sizeof compute_capability, "%d.%d", report->compute_major,
             report->compute_minor);

    cJSON *device = cJSON_CreateObject();
    bool ok = json_add(device, "name", json_string_or_null(report->device_name)) &&
              json_add(device, "compute_capability",
                       has_device ? cJSON_CreateString(compute_capability) : cJSON_CreateNull()) &&
              json_add(device, "sm_count", json_number(has_device ? report->sm_count : NAN)) &&
              json_add(device, "l2_mib", json_number(has_device ? report->l2_mib : NAN)) &&
              json_add(device, "sm_clock_mhz", json_number(has_device ? report->sm_clock_mhz : NAN)) &&
              json_add(device, "published_dram_gbps",
                       json_number(has_device ? report->published_dram_gbps : NAN));
    return json_built(device, ok);
}

/* Where the model's figures come from, as the report names it (reporting/render.c reads it). */
static const char *facts_origin_name(ml_facts_origin origin)
{
    switch (origin) {
    case ML_FACTS_TABLE:
        return "table";
    case ML_FACTS_PROFILE:
        return "profile";
    case ML_FACTS_DEFAULTS:
        return "defaults";
    }
    return "defaults";
}

/* The GPU the predictions are for, and where its figures come from. */
static cJSON *json_model_gpu(const ml_report *report)
{
    const ml_gpu_facts *gpu = report->model_gpu;
    if (gpu == NULL)
        return cJSON_CreateNull();
    cJSON *object = cJSON_CreateObject();
    bool ok = json_add(object, "name", cJSON_CreateString(gpu->name)) &&
              json_add(object, "device_name", cJSON_CreateString(gpu->device_name)) &&
              json_add(object, "sm_count", cJSON_CreateNumber(gpu->sm_count)) &&
              json_add(object, "l2_mib", cJSON_CreateNumber(gpu->l2_bytes / 1048576.0)) &&
              json_add(object, "l1_kib", cJSON_CreateNumber(gpu->l1_bytes / 1024.0)) &&
              json_add(object, "dram_fill_bytes", cJSON_CreateNumber(gpu->dram_fill_bytes)) &&
              json_add(object, "origin", cJSON_CreateString(facts_origin_name(gpu->origin))) &&
              json_add(object, "source", cJSON_CreateString(gpu->source));
    return json_built(object, ok);
}

static cJSON *json_params(const ml_lab *lab, const ml_record *record)
{
    cJSON *params = cJSON_CreateObject();
    bool ok = (params != NULL);
    for (int i = 0; i < lab->num_params && ok; i++)
        ok = json_add(params, lab->params[i].name, cJSON_CreateNumber((double)record->param[i]));
    return json_built(params, ok);
}

/* The names of the size parameters the record's variant reads: the ones a table shows (the
 * tables, text and Markdown, are drawn from the JSON). */
static cJSON *json_params_read(const ml_lab *lab, const ml_record *record)
{
    cJSON *names = cJSON_CreateArray();
    bool ok = (names != NULL);
    for (int i = 0; i < lab->num_params && ok; i++)
        if (record_uses_param(lab, record, i))
            ok = json_append(names, cJSON_CreateString(lab->params[i].name));
    return json_built(names, ok);
}

/* null for a record that was not timed (--model). */
static cJSON *json_timing(const ml_record *record)
{
    if (!record->timed)
        return cJSON_CreateNull();
    cJSON *timing = cJSON_CreateObject();
    bool ok = json_add(timing, "median_ms", json_number(record->time_ms.median)) &&
              json_add(timing, "min_ms", json_number(record->time_ms.min)) &&
              json_add(timing, "max_ms", json_number(record->time_ms.max)) &&
              json_add(timing, "cv", json_number(record->time_ms.cv)) &&
              json_add(timing, "reps", cJSON_CreateNumber((double)record->time_ms.count));
    return json_built(timing, ok);
}

/* Keyed by full Perfworks name, so the keys match Nsight Compute's; a metric without one (not
 * resolved) is keyed by its alias. */
static cJSON *json_metrics(const ml_record *record)
{
    cJSON *metrics = cJSON_CreateObject();
    bool ok = (metrics != NULL);
    for (int m = 0; m < record->metric_count && ok; m++) {
        const ml_metric_result *result = &record->metric[m];
        const char *key = (result->full_name[0] != '\0') ? result->full_name : result->alias;
        cJSON *metric = cJSON_CreateObject();
        bool metric_ok = json_add(metric, "alias", cJSON_CreateString(result->alias)) &&
                         json_add(metric, "unit", cJSON_CreateString(result->unit)) &&
                         json_add(metric, "predicted", json_number(result->predicted)) &&
                         json_add(metric, "predicted_low",
                                  json_number(result->reason[0] != '\0' ? result->predicted_low
                                                                         : result->predicted)) &&
                         json_add(metric, "range_reason",
                                  result->reason[0] != '\0' ? cJSON_CreateString(result->reason)
                                                             : cJSON_CreateNull()) &&
                         json_add(metric, "range_against", json_number(result->range_against)) &&
                         json_add(metric, "measured", json_number(result->measured));
        ok = json_add(metrics, key, json_built(metric, metric_ok));
    }
    return json_built(metrics, ok);
}

/* null for a variant without a kernel of its own, and under --model. */
static cJSON *json_resources(const ml_record *record)
{
    const ml_kernel_resources *resources = &record->resources;
    if (!resources->known)
        return cJSON_CreateNull();
    bool spills_known = resources->spill_store_bytes >= 0; /* -1: no ptxas report for the code */
    cJSON *object = cJSON_CreateObject();
    bool ok =
        json_add(object, "kernel", cJSON_CreateString(resources->kernel_name)) &&
        json_add(object, "registers_per_thread", cJSON_CreateNumber(resources->registers_per_thread)) &&
        json_add(object, "local_bytes_per_thread",
                 cJSON_CreateNumber((double)resources->local_bytes_per_thread)) &&
        json_add(object, "spill_store_bytes",
                 json_number(spills_known ? resources->spill_store_bytes : NAN)) &&
        json_add(object, "spill_load_bytes",
                 json_number(spills_known ? resources->spill_load_bytes : NAN)) &&
        json_add(object, "shared_bytes_per_block",
                 cJSON_CreateNumber((double)resources->shared_bytes_per_block)) &&
        json_add(object, "threads_per_block", cJSON_CreateNumber(resources->threads_per_block)) &&
        json_add(object, "blocks_per_sm", cJSON_CreateNumber(resources->blocks_per_sm)) &&
        json_add(object, "occupancy_pct", json_number(resources->occupancy_pct));
    return json_built(object, ok);
}

/* null for a record whose kernel keeps no clock, and under --model. */
static cJSON *json_latency(const ml_record *record)
{
    if (!record->has_latency)
        return cJSON_CreateNull();
    cJSON *object = cJSON_CreateObject();
    bool ok = json_add(object, "cycles_per_op", json_number(record->cycles_per_op.median)) &&
              json_add(object, "min_cycles_per_op", json_number(record->cycles_per_op.min)) &&
              json_add(object, "max_cycles_per_op", json_number(record->cycles_per_op.max)) &&
              json_add(object, "ns_per_op", json_number(record->ns_per_op));
    return json_built(object, ok);
}

static cJSON *json_intensity(const ml_record *record)
{
    cJSON *object = cJSON_CreateObject();
    bool ok = json_add(object, "predicted", json_number(record->flops_per_gld_byte_predicted)) &&
              json_add(object, "measured", json_number(record->flops_per_gld_byte_measured));
    return json_built(object, ok);
}

static cJSON *json_record(const ml_report *report, const ml_record *record)
{
    bool checked = record->checked;
    const char *course_figure = course_figure_of(report->lab, record);
    cJSON *object = cJSON_CreateObject();
    bool ok =
        json_add(object, "variant", cJSON_CreateString(record->variant)) &&
        json_add(object, "params", json_params(report->lab, record)) &&
        json_add(object, "params_read", json_params_read(report->lab, record)) &&
        json_add(object, "timing", json_timing(record)) &&
        json_add(object, "bytes", json_number(record->bytes)) &&
        json_add(object, "gbps", json_number(if_timed(record, record->gbps))) &&
        json_add(object, "pct_of_ceiling", json_number(if_timed(record, record->pct_of_ceiling))) &&
        json_add(object, "peak_gbps", json_number(if_timed(record, record->peak_gbps))) &&
        json_add(object, "pct_of_peak", json_number(if_timed(record, record->pct_of_peak))) &&
        json_add(object, "peak_source", json_string_or_null(record->timed ? record->peak_source
                                                                          : "")) &&
        json_add(object, "flops", json_number(record->flops)) &&
        json_add(object, "gflops", json_number(if_timed(record, record->gflops))) &&
        json_add(object, "pct_of_flops_ceiling",
                 json_number(if_timed(record, record->pct_of_flops_ceiling))) &&
        json_add(object, "flops_per_gld_byte", json_intensity(record)) &&
        json_add(object, "latency", json_latency(record)) &&
        json_add(object, "served_by", json_string_or_null(record->served_by != NULL
                                                              ? record->served_by : "")) &&
        json_add(object, "course_figure",
                 json_string_or_null(course_figure != NULL ? course_figure : "")) &&
        json_add(object, "resources", json_resources(record)) &&
        json_add(object, "correct",
                 checked ? cJSON_CreateBool(record->correct) : cJSON_CreateNull()) &&
        json_add(object, "max_rel_error",
                 json_number(checked ? record->comparison.max_rel_error : NAN)) &&
        json_add(object, "mismatches",
                 json_number(checked ? (double)record->comparison.mismatches : NAN)) &&
        json_add(object, "metrics", json_metrics(record));
    return json_built(object, ok);
}

/* null under --model, where nothing ran. */
static cJSON *json_seconds(const ml_report *report)
{
    const ml_run_seconds *seconds = &report->seconds;
    if (seconds->wall <= 0)
        return cJSON_CreateNull();
    cJSON *object = cJSON_CreateObject();
    bool ok = json_add(object, "wall", cJSON_CreateNumber(seconds->wall)) &&
              json_add(object, "kernels", cJSON_CreateNumber(seconds->kernels)) &&
              json_add(object, "counters", json_number(report->counter_seconds)) &&
              json_add(object, "host", cJSON_CreateNumber(host_seconds(report))) &&
              json_add(object, "startup", cJSON_CreateNumber(seconds->startup)) &&
              json_add(object, "setup", cJSON_CreateNumber(seconds->setup)) &&
              json_add(object, "check", cJSON_CreateNumber(seconds->check)) &&
              json_add(object, "timing_loop", cJSON_CreateNumber(seconds->timing_loop)) &&
              json_add(object, "model", cJSON_CreateNumber(seconds->model)) &&
              json_add(object, "teardown", cJSON_CreateNumber(seconds->teardown));
    return json_built(object, ok);
}

static cJSON *json_records(const ml_report *report)
{
    cJSON *records = cJSON_CreateArray();
    bool ok = (records != NULL);
    for (int r = 0; r < report->record_count && ok; r++)
        ok = json_append(records, json_record(report, &report->records[r]));
    return json_built(records, ok);
}

/* The seed is written as a string: it is a 64-bit integer, and most parsers read a JSON number
 * as a double, which is exact only up to 2^53. */
static cJSON *json_report(const ml_report *report)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, report->seed);

    cJSON *root = cJSON_CreateObject();
    bool ok = json_add(root, "lab", cJSON_CreateString(report->lab->program)) &&
              json_add(root, "title", cJSON_CreateString(report->lab->title)) &&
              json_add(root, "device", json_device(report)) &&
              json_add(root, "model_gpu", json_model_gpu(report)) &&
              json_add(root, "ceiling_gbps", json_number(report->ceiling_gbps)) &&
              json_add(root, "flops_ceiling_variant",
                       report->lab->flops_ceiling != NULL
                           ? cJSON_CreateString(report->lab->flops_ceiling)
                           : cJSON_CreateNull()) &&
              json_add(root, "seed", cJSON_CreateString(seed)) &&
              json_add(root, "reps", cJSON_CreateNumber(report->reps)) &&
              json_add(root, "warmup", cJSON_CreateNumber(report->warmup)) &&
              json_add(root, "profiler_note", json_string_or_null(report->profiler_note)) &&
              json_add(root, "counter_seconds", json_number(report->counter_seconds)) &&
              json_add(root, "seconds", json_seconds(report)) &&
              json_add(root, "records", json_records(report));
    return json_built(root, ok);
}

/* ---- text ------------------------------------------------------------------------------------ */

/* Each failed check in words, with the number of elements compared and the first mismatches:
 * the JSON keeps neither, so they come from the run itself. */
static void print_failures(const ml_report *report, FILE *stream)
{
    for (int r = 0; r < report->record_count; r++) {
        const ml_record *record = &report->records[r];
        if (!record->checked || record->correct)
            continue;
        char params[PARAMS_SIZE];
        format_params(params, sizeof params, report->lab, record);
        fprintf(stream, "\nFAIL %s %s: %zu of %zu elements differ from the CPU reference "
                        "(max relative error %.3g)\n",
                record->variant, params, record->comparison.mismatches, record->comparison.count,
                record->comparison.max_rel_error);
        ml_print_mismatches(stream, &record->comparison);
    }
}

/* The tables are drawn from the JSON document by the builders that draw the demo's Markdown
 * (render.h), so a run's text output and its report.md show the same tables. */
int ml_report_table(const ml_report *report, FILE *stream)
{
    cJSON *root = json_report(report);
    if (root == NULL)
        return -1;
    rd_write_facts(root, RT_TEXT, stream);
    fputc('\n', stream);
    rd_write_tables(root, RT_TEXT, stream);
    print_failures(report, stream);
    rd_write_seconds(root, RT_TEXT, stream);
    cJSON_Delete(root);
    return 0;
}

/* ---- CSV ------------------------------------------------------------------------------------- */

/* The one CSV writer is report_data.c's, which memlab_report also uses on a report's JSON: the
 * program's --format csv goes through the JSON it would write (every double kept exactly), so
 * the CSV of a run and the CSV made later from its JSON are the same text by construction. */
int ml_report_csv(const ml_report *report, FILE *stream)
{
    cJSON *root = json_report(report);
    if (root == NULL)
        return -1;
    rd_write_csv(root, stream);
    cJSON_Delete(root);
    return 0;
}

int ml_report_json(const ml_report *report, FILE *stream)
{
    cJSON *root = json_report(report);
    if (root == NULL)
        return -1;
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (text == NULL)
        return -1;
    fputs(text, stream);
    fputc('\n', stream);
    cJSON_free(text);
    return 0;
}

/* The lab's plot files: labs/NN_PROGRAM/plots in the source tree the program was built from
 * (MEMLAB_SOURCE_DIR, set by CMake and Makefile.labs). 0 where that tree is not here (a program
 * copied elsewhere): its page then has no plots. */
static int find_plots(const char *program, char *path, size_t size)
{
#ifdef MEMLAB_SOURCE_DIR
    char labs[4096];
    snprintf(labs, sizeof labs, "%s/labs", MEMLAB_SOURCE_DIR);
    DIR *folder = opendir(labs);
    if (folder == NULL)
        return 0;
    int found = 0;
    for (struct dirent *entry = readdir(folder); entry != NULL && !found; entry = readdir(folder)) {
        const char *name = entry->d_name;
        /* NN_PROGRAM: two digits, an underscore, the program's name. */
        found = name[0] >= '0' && name[0] <= '9' && name[1] >= '0' && name[1] <= '9' &&
                name[2] == '_' && strcmp(name + 3, program) == 0;
        if (found)
            snprintf(path, size, "%s/%s/plots", labs, name);
    }
    closedir(folder);
    return found;
#else
    (void)program;
    (void)path;
    (void)size;
    return 0;
#endif
}

int ml_report_html(const ml_report *report, FILE *stream)
{
    cJSON *root = json_report(report);
    if (root == NULL)
        return -1;
    char plots[4400];
    rd_write_html(root, find_plots(report->lab->program, plots, sizeof plots) ? plots : NULL,
                  stream);
    cJSON_Delete(root);
    return 0;
}
