/* test_report_data.c: the CSV and plot columns that memlab_report derives from a lab's JSON.
 * The CSV must be the harness's own, byte for byte, for a measured and a --model run; the plot
 * columns must pick, order and label the right records. */
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

#include "report.h"
#include "report_data.h"

#define EFFICIENCY_NAME "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
#define SECTORS_NAME "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define ERROR_SIZE 256

/* ---- a run of a made-up lab, through the harness's own report writers ------------------------ */

static const ml_param test_params[] = {
    {"n", 1024, 1, 1 << 30, "elements", NULL},
    {"stride", 1, 1, 32, "distance between elements read by neighbouring threads", NULL},
};

static const ml_variant test_variants[] = {
    {.name = "coalesced", .summary = "neighbours read neighbours",
     .metrics = "gld_efficiency,gld_transactions"},
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

/* Values that print differently in %.9g and in cJSON's shortest form (1/3, 1e-7, 2^40 + 1),
 * a device name that CSV must quote, a record without resources, a metric not measured and a
 * metric only one record has. */
static void make_measured_report(ml_report *report)
{
    memset(report, 0, sizeof *report);
    report->lab = &test_lab;
    snprintf(report->device_name, sizeof report->device_name, "Test GPU, \"rev 2\"");
    report->compute_major = 9;
    report->sm_count = 132;
    report->l2_mib = 60;
    report->ceiling_gbps = 4000;
    report->counter_seconds = 0.75;
    report->seed = 7;
    report->reps = 10;
    report->warmup = 2;

    ml_record *coalesced = ml_report_add(report);
    coalesced->variant = "coalesced";
    coalesced->param[0] = 1099511627777;
    coalesced->param[1] = 1;
    coalesced->timed = 1;
    coalesced->time_ms = (ml_stats){.median = 1.0 / 3.0, .min = 0.25, .max = 0.5, .mean = 0.3,
                                    .cv = 1e-7, .count = 10};
    coalesced->bytes = 8796093022216.0;
    coalesced->gbps = 26388.279066648;
    coalesced->pct_of_ceiling = 659.70697666620001;
    coalesced->flops = 0;
    coalesced->gflops = NAN;
    coalesced->pct_of_flops_ceiling = NAN;
    coalesced->flops_per_gld_byte_predicted = 0.25;
    coalesced->flops_per_gld_byte_measured = 0.2;
    coalesced->resources = (ml_kernel_resources){.known = 1, .registers_per_thread = 16,
                                                 .local_bytes_per_thread = 0,
                                                 .shared_bytes_per_block = 4224,
                                                 .threads_per_block = 256, .blocks_per_sm = 8,
                                                 .occupancy_pct = 100};
    coalesced->checked = 1;
    coalesced->correct = 1;
    coalesced->comparison.count = 1024;
    coalesced->metric_count = 2;
    set_metric(&coalesced->metric[0], "gld_efficiency", EFFICIENCY_NAME, "%", 100, 99.987654321);
    set_metric(&coalesced->metric[1], "gld_transactions", SECTORS_NAME, "sectors", 128, 130);

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
    strided->comparison = (ml_comparison){.count = 1000, .mismatches = 3, .max_rel_error = 0.5};
    strided->metric_count = 1;
    set_metric(&strided->metric[0], "gld_efficiency", EFFICIENCY_NAME, "%", 50, NAN);
}

/* The same run under --model: no device, no timing, no check, no measured counters. */
static void make_model_report(ml_report *report)
{
    make_measured_report(report);
    report->device_name[0] = '\0';
    report->ceiling_gbps = NAN;
    report->counter_seconds = NAN;
    snprintf(report->profiler_note, sizeof report->profiler_note, "not read (--model)");
    for (int r = 0; r < report->record_count; r++) {
        ml_record *record = &report->records[r];
        record->timed = 0;
        record->checked = 0;
        record->resources.known = 0;
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

static char *harness_csv(const ml_report *report)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    ml_report_csv(report, stream);
    return read_back(stream);
}

static cJSON *harness_json(const ml_report *report)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    assert_int_equal(ml_report_json(report, stream), 0);
    char *text = read_back(stream);
    char error[ERROR_SIZE];
    cJSON *parsed = rd_parse(text, "report", error, sizeof error);
    free(text);
    assert_non_null(parsed);
    return parsed;
}

static char *converted_csv(const cJSON *report)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    rd_write_csv(report, stream);
    return read_back(stream);
}

/* ---- CSV ------------------------------------------------------------------------------------- */

static void check_csv_round_trip(const ml_report *report)
{
    char *expected = harness_csv(report);
    cJSON *json = harness_json(report);
    char *got = converted_csv(json);
    assert_string_equal(got, expected);
    free(got);
    free(expected);
    cJSON_Delete(json);
}

static void test_csv_of_a_measured_run_is_the_harness_csv(void **state)
{
    (void)state;
    ml_report report;
    make_measured_report(&report);
    check_csv_round_trip(&report);
    ml_report_free(&report);
}

static void test_csv_of_a_model_run_is_the_harness_csv(void **state)
{
    (void)state;
    ml_report report;
    make_model_report(&report);
    check_csv_round_trip(&report);
    ml_report_free(&report);
}

/* ---- values by column name ------------------------------------------------------------------- */

static void test_values_by_column_name(void **state)
{
    (void)state;
    ml_report report;
    make_measured_report(&report);
    cJSON *json = harness_json(&report);
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(json, "records");
    const cJSON *coalesced = cJSON_GetArrayItem(records, 0);
    const cJSON *strided = cJSON_GetArrayItem(records, 1);

    assert_float_equal(rd_value(coalesced, "median_ms"), 1.0 / 3.0, 0);
    assert_float_equal(rd_value(coalesced, "gbps"), 26388.279066648, 0);
    assert_float_equal(rd_value(coalesced, "registers_per_thread"), 16, 0);
    assert_float_equal(rd_value(coalesced, "correct"), 1, 0);
    assert_float_equal(rd_value(strided, "correct"), 0, 0);
    assert_float_equal(rd_value(coalesced, "n"), 1099511627777.0, 0);
    assert_float_equal(rd_value(strided, "stride"), 2, 0);
    /* A metric by alias and by Perfworks name. */
    assert_float_equal(rd_value(coalesced, "gld_efficiency.measured"), 99.987654321, 0);
    assert_float_equal(rd_value(coalesced, EFFICIENCY_NAME ".predicted"), 100, 0);
    assert_float_equal(rd_value(coalesced, "gld_transactions.measured"), 130, 0);
    /* Missing: not measured, not in this record, no resources, no such column. */
    assert_true(isnan(rd_value(strided, "gld_efficiency.measured")));
    assert_true(isnan(rd_value(strided, "gld_transactions.predicted")));
    assert_true(isnan(rd_value(strided, "registers_per_thread")));
    assert_true(isnan(rd_value(coalesced, "gflops")));
    assert_true(isnan(rd_value(coalesced, "no_such_column")));
    assert_true(isnan(rd_value(coalesced, ".measured")));

    assert_string_equal(rd_device_name(json), "Test GPU, \"rev 2\"");
    cJSON_Delete(json);
    ml_report_free(&report);

    make_model_report(&report);
    json = harness_json(&report);
    assert_null(rd_device_name(json));
    cJSON_Delete(json);
    ml_report_free(&report);
}

static void test_what_is_not_a_report_is_refused(void **state)
{
    (void)state;
    const char *bad[] = {
        "",
        "{\"lab\": \"coalescing\", \"records\": [",
        "[1, 2]",
        "{\"records\": []}",
        "{\"lab\": 4, \"records\": []}",
        "{\"lab\": \"coalescing\"}",
        "{\"lab\": \"coalescing\", \"records\": {}}",
        "{\"lab\": \"coalescing\", \"records\": [{\"params\": {}}]}",
        "{\"lab\": \"coalescing\", \"records\": [{\"variant\": \"a\", \"params\": 3}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char error[ERROR_SIZE] = "";
        cJSON *report = rd_parse(bad[i], "bad.json", error, sizeof error);
        if (report != NULL)
            fail_msg("accepted as a report: %s", bad[i]);
        assert_non_null(strstr(error, "bad.json"));
    }
    char error[ERROR_SIZE];
    assert_null(rd_load("/nonexistent/report.json", error, sizeof error));
    assert_non_null(strstr(error, "cannot read"));
}

/* ---- plot columns ---------------------------------------------------------------------------- */

/* A record of a made-up copy lab: variant, sizes n and stride, GB/s (negative: none), and a
 * predicted and measured efficiency (negative: none). */
static void add_record(cJSON *records, const char *variant, double n, double stride, double gbps,
                       double predicted, double measured)
{
    cJSON *record = cJSON_CreateObject();
    cJSON_AddStringToObject(record, "variant", variant);
    cJSON *params = cJSON_AddObjectToObject(record, "params");
    cJSON_AddNumberToObject(params, "n", n);
    cJSON_AddNumberToObject(params, "stride", stride);
    if (gbps >= 0)
        cJSON_AddNumberToObject(record, "gbps", gbps);
    else
        cJSON_AddNullToObject(record, "gbps");
    cJSON *metric = cJSON_AddObjectToObject(cJSON_AddObjectToObject(record, "metrics"),
                                            EFFICIENCY_NAME);
    cJSON_AddStringToObject(metric, "alias", "gld_efficiency");
    if (predicted >= 0)
        cJSON_AddNumberToObject(metric, "predicted", predicted);
    else
        cJSON_AddNullToObject(metric, "predicted");
    if (measured >= 0)
        cJSON_AddNumberToObject(metric, "measured", measured);
    else
        cJSON_AddNullToObject(metric, "measured");
    cJSON_AddItemToArray(records, record);
}

static cJSON *new_report(const char *lab, cJSON **records)
{
    cJSON *report = cJSON_CreateObject();
    cJSON_AddStringToObject(report, "lab", lab);
    *records = cJSON_AddArrayToObject(report, "records");
    return report;
}

static char *series_text(cJSON **reports, int count, const rd_query *query, int *rows,
                         bool has_data[RD_MAX_COLUMNS])
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    *rows = rd_write_series((const cJSON *const *)reports, count, query, stream, has_data);
    return read_back(stream);
}

static char *bars_text(cJSON **reports, int count, const rd_query *query, int *rows,
                       bool has_data[RD_MAX_COLUMNS])
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    *rows = rd_write_bars((const cJSON *const *)reports, count, query, stream, has_data);
    return read_back(stream);
}

/* A run of every variant at stride 4, a sweep of strided over stride 8, 1, 2, 4 (out of
 * order), and a run of another lab that must be ignored. */
static void make_copy_runs(cJSON *reports[3])
{
    cJSON *records;
    reports[0] = new_report("copy", &records);
    add_record(records, "coalesced", 4096, 4, 900, 100, 99);
    add_record(records, "strided", 4096, 4, 111, 25, 24);
    reports[1] = new_report("copy", &records);
    add_record(records, "strided", 4096, 8, 80, 12.5, -1);
    add_record(records, "strided", 4096, 1, 800, 100, -1);
    add_record(records, "strided", 4096, 2, 400, 50, -1);
    add_record(records, "strided", 4096, 4, 200, 25, -1);
    reports[2] = new_report("other", &records);
    add_record(records, "strided", 4096, 3, 5, 5, 5);
}

static void test_series_takes_the_sweep_in_order_of_x(void **state)
{
    (void)state;
    cJSON *reports[3];
    make_copy_runs(reports);
    rd_query query = {.lab = "copy", .variant = {"strided"}, .variant_count = 1, .x = "stride",
                      .column = {"gld_efficiency.predicted", "gld_efficiency.measured", "gbps"},
                      .column_count = 3};
    bool has_data[RD_MAX_COLUMNS];
    int rows;
    char *text = series_text(reports, 3, &query, &rows, has_data);
    /* At stride 4 the sweep's record wins over the single run's. */
    assert_int_equal(rows, 4);
    assert_string_equal(text, "stride gld_efficiency.predicted gld_efficiency.measured gbps\n"
                              "1 100 NaN 800\n"
                              "2 50 NaN 400\n"
                              "4 25 NaN 200\n"
                              "8 12.5 NaN 80\n");
    assert_true(has_data[0]);
    assert_false(has_data[1]);
    assert_true(has_data[2]);
    free(text);

    /* Without the sweep, the single run's point is all there is. */
    text = series_text(reports, 1, &query, &rows, has_data);
    assert_int_equal(rows, 1);
    assert_string_equal(text, "stride gld_efficiency.predicted gld_efficiency.measured gbps\n"
                              "4 25 24 111\n");
    assert_true(has_data[1]);
    free(text);

    /* Where clauses: an exact value, and the largest value. */
    query.where_param[0] = "stride";
    query.where_value[0] = "2";
    query.where_count = 1;
    text = series_text(reports, 3, &query, &rows, has_data);
    assert_int_equal(rows, 1);
    assert_string_equal(text, "stride gld_efficiency.predicted gld_efficiency.measured gbps\n"
                              "2 50 NaN 400\n");
    free(text);
    query.where_value[0] = "max";
    text = series_text(reports, 3, &query, &rows, has_data);
    assert_int_equal(rows, 1);
    assert_string_equal(text, "stride gld_efficiency.predicted gld_efficiency.measured gbps\n"
                              "8 12.5 NaN 80\n");
    free(text);

    /* No such variant: a header and nothing else. */
    query.where_count = 0;
    query.variant[0] = "broadcast";
    text = series_text(reports, 3, &query, &rows, has_data);
    assert_int_equal(rows, 0);
    assert_false(has_data[0] || has_data[1] || has_data[2]);
    free(text);
    for (int r = 0; r < 3; r++)
        cJSON_Delete(reports[r]);
}

static void test_bars_come_from_single_runs_ordered_by_size(void **state)
{
    (void)state;
    cJSON *reports[5], *records;
    make_copy_runs(reports);
    /* A single run at another n, and a repeat of the first run's strided record. */
    reports[3] = new_report("copy", &records);
    add_record(records, "strided", 1024, 4, 50, 25, 25);
    add_record(records, "coalesced", 1024, 4, 300, 100, 100);
    reports[4] = new_report("copy", &records);
    add_record(records, "strided", 4096, 4, 999, 25, 25);

    rd_query query = {.lab = "copy", .column = {"gbps", "gld_efficiency.measured"},
                      .column_count = 2};
    bool has_data[RD_MAX_COLUMNS];
    int rows;
    char *text = bars_text(reports, 5, &query, &rows, has_data);
    /* Not the sweep: it holds more strided records than the single runs; not the repeat. Labels
     * name n, the only size that differs; rows go by n, then by variant in first-seen order. */
    assert_int_equal(rows, 4);
    assert_string_equal(text, "label gbps gld_efficiency.measured\n"
                              "\"coalesced n=1024\" 300 100\n"
                              "\"strided n=1024\" 50 25\n"
                              "\"coalesced n=4096\" 900 99\n"
                              "\"strided n=4096\" 111 24\n");
    assert_true(has_data[0] && has_data[1]);
    free(text);

    /* Named variants keep their order; a where clause leaves one n, so no size in the labels. */
    query.variant[0] = "strided";
    query.variant[1] = "coalesced";
    query.variant_count = 2;
    query.where_param[0] = "n";
    query.where_value[0] = "max";
    query.where_count = 1;
    text = bars_text(reports, 5, &query, &rows, has_data);
    assert_int_equal(rows, 2);
    assert_string_equal(text, "label gbps gld_efficiency.measured\n"
                              "\"strided\" 111 24\n"
                              "\"coalesced\" 900 99\n");
    free(text);
    for (int r = 0; r < 5; r++)
        cJSON_Delete(reports[r]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_of_a_measured_run_is_the_harness_csv),
        cmocka_unit_test(test_csv_of_a_model_run_is_the_harness_csv),
        cmocka_unit_test(test_values_by_column_name),
        cmocka_unit_test(test_what_is_not_a_report_is_refused),
        cmocka_unit_test(test_series_takes_the_sweep_in_order_of_x),
        cmocka_unit_test(test_bars_come_from_single_runs_ordered_by_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
