/* test_report.c: the table, CSV and JSON reports of a small made-up run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"

#define EFFICIENCY_NAME "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
#define SECTORS_NAME "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
/* Larger than 2^53: a JSON number would lose its last digits. */
#define TEST_SEED 18446744073709551557u
#define TEST_SEED_TEXT "18446744073709551557"

/* The report never calls a lab's functions, so they can all be NULL. */
static const ml_param test_params[] = {
    {"n", 1024, 1, 1 << 30, "elements"},
    {"stride", 1, 1, 32, "distance between elements read by neighbouring threads"},
};

static const ml_variant test_variants[] = {
    {.name = "coalesced", .summary = "neighbours read neighbours",
     .metrics = "gld_efficiency,gld_sectors"},
    {.name = "strided", .summary = "neighbours read stride apart", .metrics = "gld_efficiency"},
};

static const ml_lab test_lab = {
    .program = "coalescing",
    .title = "Coalesced vs strided global loads",
    .params = test_params,
    .num_params = 2,
    .variants = test_variants,
    .num_variants = 2,
};

static void set_metric(ml_metric_result *metric, const char *alias, const char *full_name,
                       const char *unit, double predicted, double measured)
{
    snprintf(metric->alias, sizeof metric->alias, "%s", alias);
    snprintf(metric->full_name, sizeof metric->full_name, "%s", full_name);
    snprintf(metric->unit, sizeof metric->unit, "%s", unit);
    metric->predicted = predicted;
    metric->measured = measured;
}

/* Two records: "coalesced" timed and correct with two metrics; "strided" failing its check,
 * with one metric that was not measured. The device name has a comma and quotes, so the CSV
 * must quote it. */
static void make_report(ml_report *report)
{
    memset(report, 0, sizeof *report);
    report->lab = &test_lab;
    snprintf(report->device_name, sizeof report->device_name, "Test GPU, \"rev 2\"");
    report->compute_major = 9;
    report->compute_minor = 0;
    report->sm_count = 132;
    report->l2_mib = 60;
    report->sm_clock_mhz = 1980;
    report->ceiling_gbps = 4000;
    report->counter_seconds = 0.75;
    report->seconds = (ml_run_seconds){.wall = 3.0, .kernels = 0.25, .startup = 0.5, .setup = 0.75,
                                       .check = 0.5, .timing_loop = 0.375, .model = 0.125,
                                       .teardown = 0.0625};
    report->seed = TEST_SEED;
    report->reps = 10;
    report->warmup = 2;

    ml_record *coalesced = ml_report_add(report);
    coalesced->variant = "coalesced";
    coalesced->param[0] = 1024;
    coalesced->param[1] = 1;
    coalesced->timed = 1;
    coalesced->time_ms = (ml_stats){.median = 0.5, .min = 0.4, .max = 0.75, .mean = 0.52,
                                    .cv = 0.05, .count = 10};
    coalesced->bytes = 8192;
    coalesced->gbps = 0.016384;
    coalesced->pct_of_ceiling = 0.0004096;
    coalesced->gflops = NAN;
    coalesced->pct_of_flops_ceiling = NAN;
    coalesced->flops_per_gld_byte_predicted = 0.25;
    coalesced->flops_per_gld_byte_measured = 0.2;
    coalesced->resources = (ml_kernel_resources){.known = 1, .kernel_name = "_Z4copyPKfPfm",
                                                 .registers_per_thread = 16,
                                                 .local_bytes_per_thread = 0,
                                                 .shared_bytes_per_block = 4224,
                                                 .spill_store_bytes = 24,
                                                 .spill_load_bytes = 16,
                                                 .threads_per_block = 256, .blocks_per_sm = 8,
                                                 .occupancy_pct = 100};
    coalesced->checked = 1;
    coalesced->correct = 1;
    coalesced->comparison.count = 1024;
    coalesced->metric_count = 2;
    set_metric(&coalesced->metric[0], "gld_efficiency", EFFICIENCY_NAME, "%", 100, 100);
    set_metric(&coalesced->metric[1], "gld_sectors", SECTORS_NAME, "sectors", 128, 130);

    ml_record *strided = ml_report_add(report);
    strided->variant = "strided";
    strided->param[0] = 1000;
    strided->param[1] = 2;
    strided->timed = 1;
    strided->time_ms = (ml_stats){.median = 1.25, .min = 1, .max = 2, .mean = 1.3, .cv = 0.1,
                                  .count = 10};
    strided->bytes = 8000;
    strided->gbps = 0.0064;
    strided->pct_of_ceiling = 0.00016;
    strided->gflops = NAN;
    strided->pct_of_flops_ceiling = NAN;
    strided->flops_per_gld_byte_predicted = NAN;
    strided->flops_per_gld_byte_measured = NAN;
    strided->checked = 1;
    strided->correct = 0;
    strided->comparison = (ml_comparison){.count = 1000, .mismatches = 3, .max_rel_error = 0.5,
                                          .first_index = {3, 7},
                                          .first_got = {NAN, 2.0f},
                                          .first_expected = {0.25f, 1.0f},
                                          .reported = 2};
    strided->metric_count = 1;
    set_metric(&strided->metric[0], "gld_efficiency", EFFICIENCY_NAME, "%", 50, NAN);
}

/* The same run under --model: no device, no timing, no check, no measured counters. */
static void make_model_report(ml_report *report)
{
    make_report(report);
    report->device_name[0] = '\0';
    report->ceiling_gbps = NAN;
    report->counter_seconds = NAN;
    report->seconds = (ml_run_seconds){0};
    snprintf(report->profiler_note, sizeof report->profiler_note, "not read (--model)");
    for (int r = 0; r < report->record_count; r++) {
        ml_record *record = &report->records[r];
        record->timed = 0;
        record->checked = 0;
        record->correct = 0;
        for (int m = 0; m < record->metric_count; m++)
            record->metric[m].measured = NAN;
    }
}

/* Everything written to stream, as one string (free it). */
static char *read_back(FILE *stream)
{
    long length = ftell(stream);
    assert_true(length >= 0);
    rewind(stream);
    char *text = malloc((size_t)length + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)length, stream), (size_t)length);
    text[length] = '\0';
    fclose(stream);
    return text;
}

static char *table_text(const ml_report *report)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    ml_report_table(report, stream);
    return read_back(stream);
}

static char *csv_text(const ml_report *report)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    ml_report_csv(report, stream);
    return read_back(stream);
}

static cJSON *json_parsed(const ml_report *report)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    assert_int_equal(ml_report_json(report, stream), 0);
    char *text = read_back(stream);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

/* Splits text into lines in place; returns how many (at most max_lines). */
static int split_lines(char *text, char **lines, int max_lines)
{
    int count = 0;
    char *line = text;
    while (*line != '\0' && count < max_lines) {
        char *end = strchr(line, '\n');
        assert_non_null(end);   /* every line ends with a newline */
        *end = '\0';
        lines[count] = line;
        count++;
        line = end + 1;
    }
    return count;
}

#define MAX_FIELDS 48
#define FIELD_SIZE 128

/* Splits one CSV line into fields, undoing RFC 4180 quoting; returns how many. */
static int split_csv(const char *line, char fields[MAX_FIELDS][FIELD_SIZE])
{
    int count = 0;
    const char *c = line;
    for (;;) {
        assert_true(count < MAX_FIELDS);
        size_t length = 0;
        if (*c == '"') {
            c++;
            while (!(c[0] == '"' && c[1] != '"')) {
                assert_true(*c != '\0');
                if (c[0] == '"')
                    c++;    /* a doubled quote stands for one */
                fields[count][length++] = *c++;
            }
            c++;
        } else {
            while (*c != ',' && *c != '\0')
                fields[count][length++] = *c++;
        }
        fields[count][length] = '\0';
        count++;
        if (*c == '\0')
            return count;
        assert_int_equal(*c, ',');
        c++;
    }
}

static const cJSON *member(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    assert_non_null(item);
    return item;
}

static double number_member(const cJSON *object, const char *name)
{
    const cJSON *item = member(object, name);
    assert_true(cJSON_IsNumber(item));
    return item->valuedouble;
}

static const char *string_member(const cJSON *object, const char *name)
{
    const cJSON *item = member(object, name);
    assert_true(cJSON_IsString(item));
    return item->valuestring;
}

/* ---- records ------------------------------------------------------------------------------- */

static void test_add_grows_and_zeroes(void **state)
{
    (void)state;
    ml_report report = {0};
    for (int i = 0; i < 100; i++) {
        ml_record *record = ml_report_add(&report);
        assert_non_null(record);
        assert_int_equal(record->metric_count, 0);
        assert_int_equal(record->timed, 0);
        assert_true(record->variant == NULL);
        record->param[0] = i;
    }
    assert_int_equal(report.record_count, 100);
    assert_true(report.record_capacity >= 100);
    for (int i = 0; i < 100; i++)
        assert_int_equal(report.records[i].param[0], i);

    ml_report_free(&report);
    assert_true(report.records == NULL);
    assert_int_equal(report.record_count, 0);
    assert_int_equal(report.record_capacity, 0);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void test_json_run(void **state)
{
    (void)state;
    ml_report report;
    make_report(&report);
    cJSON *root = json_parsed(&report);

    assert_string_equal(string_member(root, "lab"), "coalescing");
    assert_string_equal(string_member(root, "title"), test_lab.title);
    assert_string_equal(string_member(root, "seed"), TEST_SEED_TEXT);
    assert_float_equal(number_member(root, "ceiling_gbps"), 4000, 1e-9);
    assert_float_equal(number_member(root, "reps"), 10, 0);
    assert_float_equal(number_member(root, "warmup"), 2, 0);
    assert_true(cJSON_IsNull(member(root, "profiler_note")));
    assert_float_equal(number_member(root, "counter_seconds"), 0.75, 0);

    /* Where the time went: the host's share is what the kernels and counters leave. */
    const cJSON *seconds = member(root, "seconds");
    assert_float_equal(number_member(seconds, "wall"), 3.0, 0);
    assert_float_equal(number_member(seconds, "kernels"), 0.25, 0);
    assert_float_equal(number_member(seconds, "counters"), 0.75, 0);
    assert_float_equal(number_member(seconds, "host"), 2.0, 1e-12);
    assert_float_equal(number_member(seconds, "startup"), 0.5, 0);
    assert_float_equal(number_member(seconds, "setup"), 0.75, 0);
    assert_float_equal(number_member(seconds, "check"), 0.5, 0);
    assert_float_equal(number_member(seconds, "timing_loop"), 0.375, 0);
    assert_float_equal(number_member(seconds, "model"), 0.125, 0);
    assert_float_equal(number_member(seconds, "teardown"), 0.0625, 0);

    const cJSON *device = member(root, "device");
    assert_string_equal(string_member(device, "name"), report.device_name);
    assert_string_equal(string_member(device, "compute_capability"), "9.0");
    assert_float_equal(number_member(device, "sm_count"), 132, 0);
    assert_float_equal(number_member(device, "l2_mib"), 60, 0);

    const cJSON *records = member(root, "records");
    assert_true(cJSON_IsArray(records));
    assert_int_equal(cJSON_GetArraySize(records), 2);

    const cJSON *coalesced = cJSON_GetArrayItem(records, 0);
    assert_string_equal(string_member(coalesced, "variant"), "coalesced");
    const cJSON *params = member(coalesced, "params");
    assert_int_equal(cJSON_GetArraySize(params), 2);
    assert_float_equal(number_member(params, "n"), 1024, 0);
    assert_float_equal(number_member(params, "stride"), 1, 0);
    const cJSON *timing = member(coalesced, "timing");
    assert_float_equal(number_member(timing, "median_ms"), 0.5, 1e-12);
    assert_float_equal(number_member(timing, "min_ms"), 0.4, 1e-12);
    assert_float_equal(number_member(timing, "max_ms"), 0.75, 1e-12);
    assert_float_equal(number_member(timing, "cv"), 0.05, 1e-12);
    assert_float_equal(number_member(timing, "reps"), 10, 0);
    assert_float_equal(number_member(coalesced, "bytes"), 8192, 0);
    assert_float_equal(number_member(coalesced, "gbps"), 0.016384, 1e-12);
    assert_true(cJSON_IsNull(member(coalesced, "gflops")));
    assert_true(cJSON_IsTrue(member(coalesced, "correct")));
    assert_float_equal(number_member(coalesced, "mismatches"), 0, 0);
    assert_true(cJSON_IsNull(member(coalesced, "pct_of_flops_ceiling")));
    const cJSON *intensity = member(coalesced, "flops_per_gld_byte");
    assert_float_equal(number_member(intensity, "predicted"), 0.25, 0);
    assert_float_equal(number_member(intensity, "measured"), 0.2, 0);
    const cJSON *resources = member(coalesced, "resources");
    assert_string_equal(string_member(resources, "kernel"), "_Z4copyPKfPfm");
    assert_float_equal(number_member(resources, "registers_per_thread"), 16, 0);
    assert_float_equal(number_member(resources, "local_bytes_per_thread"), 0, 0);
    assert_float_equal(number_member(resources, "spill_store_bytes"), 24, 0);
    assert_float_equal(number_member(resources, "spill_load_bytes"), 16, 0);
    assert_float_equal(number_member(resources, "shared_bytes_per_block"), 4224, 0);
    assert_float_equal(number_member(resources, "threads_per_block"), 256, 0);
    assert_float_equal(number_member(resources, "blocks_per_sm"), 8, 0);
    assert_float_equal(number_member(resources, "occupancy_pct"), 100, 0);

    const cJSON *metrics = member(coalesced, "metrics");
    assert_int_equal(cJSON_GetArraySize(metrics), 2);
    const cJSON *efficiency = member(metrics, EFFICIENCY_NAME);
    assert_string_equal(string_member(efficiency, "alias"), "gld_efficiency");
    assert_string_equal(string_member(efficiency, "unit"), "%");
    assert_float_equal(number_member(efficiency, "predicted"), 100, 0);
    assert_float_equal(number_member(efficiency, "measured"), 100, 0);
    const cJSON *sectors = member(metrics, SECTORS_NAME);
    assert_string_equal(string_member(sectors, "alias"), "gld_sectors");
    assert_float_equal(number_member(sectors, "measured"), 130, 0);

    const cJSON *strided = cJSON_GetArrayItem(records, 1);
    assert_string_equal(string_member(strided, "variant"), "strided");
    assert_float_equal(number_member(member(strided, "params"), "n"), 1000, 0);
    assert_true(cJSON_IsFalse(member(strided, "correct")));
    assert_true(cJSON_IsNull(member(strided, "resources")));
    assert_float_equal(number_member(strided, "mismatches"), 3, 0);
    assert_float_equal(number_member(strided, "max_rel_error"), 0.5, 1e-12);
    const cJSON *unmeasured = member(member(strided, "metrics"), EFFICIENCY_NAME);
    assert_float_equal(number_member(unmeasured, "predicted"), 50, 0);
    assert_true(cJSON_IsNull(member(unmeasured, "measured")));

    cJSON_Delete(root);
    ml_report_free(&report);
}

static void test_json_model_only(void **state)
{
    (void)state;
    ml_report report;
    make_model_report(&report);
    cJSON *root = json_parsed(&report);

    assert_true(cJSON_IsNull(member(root, "ceiling_gbps")));
    assert_string_equal(string_member(root, "profiler_note"), "not read (--model)");
    assert_true(cJSON_IsNull(member(root, "counter_seconds")));
    assert_true(cJSON_IsNull(member(root, "seconds")));
    const cJSON *device = member(root, "device");
    assert_true(cJSON_IsNull(member(device, "name")));
    assert_true(cJSON_IsNull(member(device, "compute_capability")));

    const cJSON *record = cJSON_GetArrayItem(member(root, "records"), 0);
    assert_true(cJSON_IsNull(member(record, "timing")));
    assert_true(cJSON_IsNull(member(record, "gbps")));
    assert_true(cJSON_IsNull(member(record, "pct_of_ceiling")));
    assert_true(cJSON_IsNull(member(record, "correct")));
    assert_true(cJSON_IsNull(member(record, "max_rel_error")));
    assert_float_equal(number_member(record, "bytes"), 8192, 0);
    const cJSON *efficiency = member(member(record, "metrics"), EFFICIENCY_NAME);
    assert_float_equal(number_member(efficiency, "predicted"), 100, 0);
    assert_true(cJSON_IsNull(member(efficiency, "measured")));

    cJSON_Delete(root);
    ml_report_free(&report);
}

/* cJSON allocations that fail once allocations_left reaches 0. */
static int allocations_left;

static void *failing_malloc(size_t size)
{
    if (allocations_left == 0)
        return NULL;
    allocations_left--;
    return malloc(size);
}

/* Running out of memory at any allocation gives -1 and writes nothing (and, under a leak
 * checker, leaks nothing). */
static void test_json_out_of_memory(void **state)
{
    (void)state;
    ml_report report;
    make_report(&report);
    cJSON_Hooks hooks = {.malloc_fn = failing_malloc, .free_fn = free};
    cJSON_InitHooks(&hooks);

    int result = -1;
    for (int allowed = 0; result != 0; allowed++) {
        assert_true(allowed < 10000);
        allocations_left = allowed;
        FILE *stream = tmpfile();
        assert_non_null(stream);
        result = ml_report_json(&report, stream);
        if (result != 0) {
            assert_int_equal(result, -1);
            assert_int_equal(ftell(stream), 0);
        }
        fclose(stream);
    }

    cJSON_InitHooks(NULL);
    ml_report_free(&report);
}

/* ---- CSV ----------------------------------------------------------------------------------- */

static const char *const expected_csv_columns[] = {
    "lab", "variant", "n", "stride", "device", "median_ms", "min_ms", "max_ms", "cv", "bytes",
    "gbps", "pct_of_ceiling", "peak_gbps", "pct_of_peak", "flops", "gflops",
    "pct_of_flops_ceiling", "flops_per_gld_byte_predicted", "flops_per_gld_byte_measured", "correct",
    "max_rel_error", "registers_per_thread", "local_bytes_per_thread", "spill_store_bytes",
    "spill_load_bytes", "shared_bytes_per_block",
    "threads_per_block", "blocks_per_sm", "occupancy_pct", "cycles_per_op", "ns_per_op",
    "gld_efficiency_predicted", "gld_efficiency_measured",
    "gld_sectors_predicted", "gld_sectors_measured",
};
#define EXPECTED_CSV_COLUMN_COUNT \
    ((int)(sizeof expected_csv_columns / sizeof expected_csv_columns[0]))

/* Index of a column in expected_csv_columns. */
static int csv_column(const char *name)
{
    for (int i = 0; i < EXPECTED_CSV_COLUMN_COUNT; i++)
        if (strcmp(expected_csv_columns[i], name) == 0)
            return i;
    fail_msg("no CSV column %s", name);
    return -1;
}

static void test_csv(void **state)
{
    (void)state;
    ml_report report;
    make_report(&report);
    char *text = csv_text(&report);
    char *lines[8];
    assert_int_equal(split_lines(text, lines, 8), 3);   /* header + one line per record */

    static char fields[MAX_FIELDS][FIELD_SIZE];
    assert_int_equal(split_csv(lines[0], fields), EXPECTED_CSV_COLUMN_COUNT);
    for (int i = 0; i < EXPECTED_CSV_COLUMN_COUNT; i++)
        assert_string_equal(fields[i], expected_csv_columns[i]);

    assert_int_equal(split_csv(lines[1], fields), EXPECTED_CSV_COLUMN_COUNT);
    assert_string_equal(fields[csv_column("lab")], "coalescing");
    assert_string_equal(fields[csv_column("variant")], "coalesced");
    assert_string_equal(fields[csv_column("n")], "1024");
    assert_string_equal(fields[csv_column("stride")], "1");
    assert_string_equal(fields[csv_column("device")], report.device_name);
    assert_string_equal(fields[csv_column("median_ms")], "0.5");
    assert_string_equal(fields[csv_column("cv")], "0.05");
    assert_string_equal(fields[csv_column("bytes")], "8192");
    assert_string_equal(fields[csv_column("gflops")], "");
    assert_string_equal(fields[csv_column("flops_per_gld_byte_predicted")], "0.25");
    assert_string_equal(fields[csv_column("flops_per_gld_byte_measured")], "0.2");
    assert_string_equal(fields[csv_column("correct")], "1");
    assert_string_equal(fields[csv_column("gld_sectors_measured")], "130");
    assert_string_equal(fields[csv_column("registers_per_thread")], "16");
    assert_string_equal(fields[csv_column("spill_store_bytes")], "24");
    assert_string_equal(fields[csv_column("spill_load_bytes")], "16");
    assert_string_equal(fields[csv_column("shared_bytes_per_block")], "4224");
    assert_string_equal(fields[csv_column("blocks_per_sm")], "8");
    assert_string_equal(fields[csv_column("pct_of_flops_ceiling")], "");

    assert_int_equal(split_csv(lines[2], fields), EXPECTED_CSV_COLUMN_COUNT);
    assert_string_equal(fields[csv_column("variant")], "strided");
    assert_string_equal(fields[csv_column("correct")], "0");
    /* strided has no kernel resources */
    assert_string_equal(fields[csv_column("registers_per_thread")], "");
    assert_string_equal(fields[csv_column("max_rel_error")], "0.5");
    assert_string_equal(fields[csv_column("gld_efficiency_predicted")], "50");
    assert_string_equal(fields[csv_column("gld_efficiency_measured")], "");
    /* strided has no gld_sectors metric at all */
    assert_string_equal(fields[csv_column("gld_sectors_predicted")], "");
    assert_string_equal(fields[csv_column("gld_sectors_measured")], "");

    /* The device name is quoted, its quotes doubled. */
    assert_non_null(strstr(lines[1], ",\"Test GPU, \"\"rev 2\"\"\","));

    free(text);
    ml_report_free(&report);
}

static void test_csv_model_only(void **state)
{
    (void)state;
    ml_report report;
    make_model_report(&report);
    char *text = csv_text(&report);
    char *lines[8];
    assert_int_equal(split_lines(text, lines, 8), 3);

    static char fields[MAX_FIELDS][FIELD_SIZE];
    assert_int_equal(split_csv(lines[1], fields), EXPECTED_CSV_COLUMN_COUNT);
    assert_string_equal(fields[csv_column("device")], "");
    assert_string_equal(fields[csv_column("median_ms")], "");
    assert_string_equal(fields[csv_column("gbps")], "");
    assert_string_equal(fields[csv_column("correct")], "");
    assert_string_equal(fields[csv_column("bytes")], "8192");
    assert_string_equal(fields[csv_column("gld_efficiency_predicted")], "100");

    free(text);
    ml_report_free(&report);
}

/* ---- table --------------------------------------------------------------------------------- */

/* The first line at or after lines[from] that starts with prefix, or -1. */
static int find_line(char **lines, int count, int from, const char *prefix)
{
    for (int i = from; i < count; i++)
        if (strncmp(lines[i], prefix, strlen(prefix)) == 0)
            return i;
    return -1;
}

static void test_table_contents(void **state)
{
    (void)state;
    ml_report report;
    make_report(&report);
    char *text = table_text(&report);

    assert_non_null(strstr(text, "coalescing: Coalesced vs strided global loads\n"));
    assert_non_null(strstr(text, "Test GPU, \"rev 2\" (sm_90, 132 SMs, 60 MiB L2, SM clock 1980 MHz)"));
    assert_non_null(strstr(text, "4000.0 GB/s"));
    assert_non_null(strstr(text, TEST_SEED_TEXT));
    assert_null(strstr(text, "counters:"));     /* counters were read */
    assert_null(strstr(text, "GFLOP/s"));       /* no record does arithmetic */
    assert_non_null(strstr(text, "\ntime: 3.00 s = kernels 0.25 s + counters 0.75 s + host 2.00 s. "
                                 "Spent in: startup 0.50, setup 0.75, check 0.50, timing loop 0.38 "
                                 "(kernels included), model 0.12, teardown 0.06\n"));
    /* The check cell reads as in the demo's Markdown (both are drawn from the JSON, which does
     * not keep the number of elements compared); the failure is explained after the tables,
     * with that number and its first mismatches. */
    assert_non_null(strstr(text, "FAIL (3 mismatches, max err 0.5)"));
    assert_non_null(strstr(text, "\nFAIL strided n=1000 stride=2: 3 of 1000 elements"));
    assert_non_null(strstr(text, "[3]"));
    assert_non_null(strstr(text, "[7]"));
    /* FLOPs per global-load byte: a row of the metrics table for the record that has it. */
    const char *intensity = strstr(text, "flops_per_gld_byte");
    assert_non_null(intensity);
    assert_null(strstr(intensity + 1, "flops_per_gld_byte"));
    assert_non_null(strstr(intensity, "FLOP/B"));
    assert_non_null(strstr(intensity, "0.800"));

    char *lines[64];
    int count = split_lines(text, lines, 64);
    int timing_header = find_line(lines, count, 0, "variant ");
    assert_true(timing_header >= 0);
    assert_non_null(strstr(lines[timing_header], "median ms"));
    assert_non_null(strstr(lines[timing_header], "% of ceiling"));
    assert_true(strncmp(lines[timing_header + 2], "coalesced ", 10) == 0);
    assert_true(strncmp(lines[timing_header + 3], "strided ", 8) == 0);
    assert_non_null(strstr(lines[timing_header + 2], " ok"));

    /* Only coalesced has kernel resources: one row. */
    int resources_header = find_line(lines, count, timing_header + 1, "variant ");
    assert_true(resources_header > timing_header);
    assert_non_null(strstr(lines[resources_header], "registers/thread"));
    assert_true(strncmp(lines[resources_header + 2], "coalesced ", 10) == 0);
    assert_non_null(strstr(lines[resources_header + 2], " 4224 "));
    assert_string_equal(lines[resources_header + 3], "");

    int metrics_header = find_line(lines, count, resources_header + 1, "variant ");
    assert_true(metrics_header > resources_header);
    assert_non_null(strstr(lines[metrics_header], "measured/predicted"));
    int unmeasured = find_line(lines, count, metrics_header, "strided ");
    assert_true(unmeasured > metrics_header);
    assert_non_null(strstr(lines[unmeasured], "gld_efficiency"));
    assert_non_null(strstr(lines[unmeasured], "  -  "));   /* measured */
    size_t length = strlen(lines[unmeasured]);
    assert_string_equal(lines[unmeasured] + length - 2, " -");   /* and so no ratio */
    int sectors = find_line(lines, count, metrics_header, "coalesced ");
    sectors = find_line(lines, count, sectors + 1, "coalesced ");
    assert_non_null(strstr(lines[sectors], "gld_sectors"));
    assert_non_null(strstr(lines[sectors], "1.016"));   /* 130 / 128 */

    free(text);
    ml_report_free(&report);
}

/* Where heading starts in a header line: a whole heading, with a space or the line's end on
 * each side (so "n" is not the n of "variant"). */
static size_t find_heading(const char *header, const char *heading)
{
    size_t length = strlen(heading);
    for (const char *found = strstr(header, heading); found != NULL;
         found = strstr(found + 1, heading)) {
        bool starts = (found == header || found[-1] == ' ');
        bool ends = (found[length] == ' ' || found[length] == '\0');
        if (starts && ends)
            return (size_t)(found - header);
    }
    fail_msg("no column %s in \"%s\"", heading, header);
    return 0;
}

/* In the rule under a header, columns are runs of dashes separated by spaces. Every row of the
 * table must have a space at every gap, and a right-aligned column ends where its dashes end. */
static void check_alignment(char **lines, int header, int row_count, const char *right_column)
{
    const char *rule = lines[header + 1];
    assert_int_equal(strspn(rule, "- "), strlen(rule));
    size_t header_length = strlen(lines[header]);
    assert_true(strlen(rule) >= header_length);

    size_t column_end = find_heading(lines[header], right_column) + strlen(right_column);
    assert_int_equal(rule[column_end - 1], '-');
    assert_int_equal(rule[column_end], ' ');

    for (int row = header + 2; row < header + 2 + row_count; row++) {
        const char *line = lines[row];
        for (size_t i = 0; i < strlen(rule) && i < strlen(line); i++)
            if (rule[i] == ' ')
                assert_int_equal(line[i], ' ');
        assert_true(line[column_end - 1] != ' ');
        assert_int_equal(line[column_end], ' ');
    }
}

static void test_table_alignment(void **state)
{
    (void)state;
    ml_report report;
    make_report(&report);
    /* Make the columns of the two rows very different in width. */
    report.records[1].param[0] = 123456789;
    report.records[1].time_ms.median = 1234.5;
    report.records[0].flops = 2048;
    report.records[0].gflops = 4.096;
    char *text = table_text(&report);

    char *lines[64];
    int count = split_lines(text, lines, 64);
    int timing_header = find_line(lines, count, 0, "variant ");
    assert_true(timing_header >= 0);
    assert_non_null(strstr(lines[timing_header], "GFLOP/s"));
    check_alignment(lines, timing_header, 2, "median ms");
    check_alignment(lines, timing_header, 2, "n");
    check_alignment(lines, timing_header, 2, "GFLOP/s");

    /* Only coalesced has kernel resources: one row. */
    int resources_header = find_line(lines, count, timing_header + 1, "variant ");
    assert_true(resources_header > timing_header);
    assert_non_null(strstr(lines[resources_header], "registers/thread"));
    assert_true(strncmp(lines[resources_header + 2], "coalesced ", 10) == 0);
    assert_non_null(strstr(lines[resources_header + 2], " 4224 "));
    assert_string_equal(lines[resources_header + 3], "");

    int metrics_header = find_line(lines, count, resources_header + 1, "variant ");
    assert_true(metrics_header > resources_header);
    check_alignment(lines, metrics_header, 3, "measured");
    check_alignment(lines, metrics_header, 3, "predicted");

    /* No line ends in a space. */
    for (int i = 0; i < count; i++) {
        size_t length = strlen(lines[i]);
        assert_true(length == 0 || lines[i][length - 1] != ' ');
    }

    free(text);
    ml_report_free(&report);
}

static void test_table_model_only(void **state)
{
    (void)state;
    ml_report report;
    make_model_report(&report);
    char *text = table_text(&report);

    assert_non_null(strstr(text, "not measured"));
    assert_non_null(strstr(text, "counters: not read (--model)\n"));
    assert_null(strstr(text, "FAIL"));
    assert_null(strstr(text, "\ntime: "));

    char *lines[64];
    int count = split_lines(text, lines, 64);
    int timing_header = find_line(lines, count, 0, "variant ");
    assert_true(timing_header >= 0);
    for (int row = timing_header + 2; row < timing_header + 4; row++) {
        const char *line = lines[row];
        assert_null(strchr(line, '.'));                    /* no timing numbers */
        assert_string_equal(line + strlen(line) - 3, "  -");   /* not checked */
    }

    free(text);
    ml_report_free(&report);
}

/* A kernel that times itself: its cycles and ns per operation show in the table, the JSON and
 * the CSV; the course's figure and the model's level in the table and the JSON; a record without
 * them has null. */
static void test_latency_and_served_by(void **state)
{
    (void)state;
    /* The test lab, with the course material's figure for its first variant. */
    ml_variant course_variants[2] = {test_variants[0], test_variants[1]};
    course_variants[0].course_figure = "200-800 cycles";
    ml_lab course_lab = test_lab;
    course_lab.variants = course_variants;
    ml_report report;
    make_report(&report);
    report.lab = &course_lab;
    ml_record *coalesced = &report.records[0];
    coalesced->has_latency = 1;
    coalesced->cycles_per_op = (ml_stats){.median = 287.5, .min = 287, .max = 290, .count = 10};
    coalesced->ns_per_op = 145.2;
    coalesced->served_by = "L2 (far half)";

    char *text = table_text(&report);
    char *lines[64];
    int count = split_lines(text, lines, 64);
    int header = find_line(lines, count, 0, "variant ");
    assert_true(header >= 0);
    assert_non_null(strstr(lines[header], "cycles/op"));
    assert_non_null(strstr(lines[header], "served by (model)"));
    assert_non_null(strstr(lines[header + 2], "287.5"));
    assert_non_null(strstr(lines[header + 2], "145.2"));
    assert_non_null(strstr(lines[header + 2], "L2 (far half)"));
    assert_non_null(strstr(lines[header], "course table"));
    assert_non_null(strstr(lines[header + 2], "200-800 cycles"));
    assert_null(strstr(lines[header + 3], "200-800 cycles"));
    free(text);

    cJSON *root = json_parsed(&report);
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(root, "records");
    const cJSON *first = cJSON_GetArrayItem(records, 0), *second = cJSON_GetArrayItem(records, 1);
    const cJSON *latency = cJSON_GetObjectItemCaseSensitive(first, "latency");
    assert_float_equal(number_member(latency, "cycles_per_op"), 287.5, 0);
    assert_float_equal(number_member(latency, "min_cycles_per_op"), 287, 0);
    assert_float_equal(number_member(latency, "ns_per_op"), 145.2, 1e-12);
    assert_string_equal(string_member(first, "served_by"), "L2 (far half)");
    assert_string_equal(string_member(first, "course_figure"), "200-800 cycles");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(second, "course_figure")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(second, "latency")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(second, "served_by")));
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(root, "device");
    assert_float_equal(number_member(device, "sm_clock_mhz"), 1980, 0);
    cJSON_Delete(root);

    text = csv_text(&report);
    assert_int_equal(split_lines(text, lines, 8), 3);
    static char fields[MAX_FIELDS][FIELD_SIZE];
    split_csv(lines[1], fields);
    assert_string_equal(fields[csv_column("cycles_per_op")], "287.5");
    assert_string_equal(fields[csv_column("ns_per_op")], "145.2");
    split_csv(lines[2], fields);
    assert_string_equal(fields[csv_column("cycles_per_op")], "");
    free(text);
    ml_report_free(&report);
}

/* A record whose family knows its level's peak: the JSON carries peak_gbps, pct_of_peak and
 * peak_source, the table shows "% of peak", "peak GB/s" and "peak from" (a record without a peak
 * leaves them empty), the CSV the two numbers, and the device its published DRAM peak; a report
 * with no peak shows no such column. */
static void test_peak(void **state)
{
    (void)state;
    ml_report report;
    make_report(&report);
    char *text = table_text(&report);
    assert_null(strstr(text, "% of peak"));
    free(text);

    report.published_dram_gbps = 3352.32;
    ml_record *coalesced = &report.records[0];
    coalesced->peak_gbps = 0.032768;
    coalesced->pct_of_peak = 50;
    snprintf(coalesced->peak_source, sizeof coalesced->peak_source, "2 SMs x 1 MHz x 16 bytes");

    text = table_text(&report);
    char *lines[64];
    int count = split_lines(text, lines, 64);
    assert_true(find_line(lines, count, 0, "peak:     3352.3 GB/s of DRAM, as published") >= 0);
    int header = find_line(lines, count, 0, "variant ");
    assert_true(header >= 0);
    assert_non_null(strstr(lines[header], "% of peak"));
    assert_non_null(strstr(lines[header], "peak GB/s"));
    assert_non_null(strstr(lines[header], "peak from"));
    assert_non_null(strstr(lines[header + 2], " 50.0 "));
    assert_non_null(strstr(lines[header + 2], "2 SMs x 1 MHz x 16 bytes"));
    assert_null(strstr(lines[header + 3], "bytes"));
    free(text);

    cJSON *root = json_parsed(&report);
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(root, "records");
    const cJSON *first = cJSON_GetArrayItem(records, 0), *second = cJSON_GetArrayItem(records, 1);
    assert_float_equal(number_member(first, "peak_gbps"), 0.032768, 1e-12);
    assert_float_equal(number_member(first, "pct_of_peak"), 50, 0);
    assert_string_equal(string_member(first, "peak_source"), "2 SMs x 1 MHz x 16 bytes");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(second, "peak_gbps")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(second, "peak_source")));
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(root, "device");
    assert_float_equal(number_member(device, "published_dram_gbps"), 3352.32, 1e-9);
    cJSON_Delete(root);

    text = csv_text(&report);
    split_lines(text, lines, 8);
    static char fields[MAX_FIELDS][FIELD_SIZE];
    split_csv(lines[1], fields);
    assert_string_equal(fields[csv_column("pct_of_peak")], "50");
    split_csv(lines[2], fields);
    assert_string_equal(fields[csv_column("peak_gbps")], "");
    free(text);
    ml_report_free(&report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_and_served_by),
        cmocka_unit_test(test_peak),
        cmocka_unit_test(test_add_grows_and_zeroes),
        cmocka_unit_test(test_json_run),
        cmocka_unit_test(test_json_model_only),
        cmocka_unit_test(test_json_out_of_memory),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_csv_model_only),
        cmocka_unit_test(test_table_contents),
        cmocka_unit_test(test_table_alignment),
        cmocka_unit_test(test_table_model_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
