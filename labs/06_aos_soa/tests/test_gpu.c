/* test_aos_soa: lab 06 on a real GPU.
 *
 *   every variant, with both updates (--fields 1 and 8), matches the CPU reference on random,
 *   odd numbers of particles;
 *   soa's global load efficiency is 100% (within 1%);
 *   aos's counters with one field equal the access model's prediction (within 1%), and so do
 *   every layout's with either update;
 *   with one field, aos reads at least 4 times the DRAM bytes soa reads.
 *
 * Without a GPU it exits 77, which CTest reports as skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"

#define TIME_LIMIT_S 300
#define METRIC_TOLERANCE 0.01

/* A report with counters and this many records, or a skip where this machine cannot read
 * counters. */
static cJSON *run_with_counters(const char *arguments, int expected_records)
{
    cJSON *report = gpu_test_run_with_counters(arguments, TIME_LIMIT_S);
    assert_int_equal(gpu_test_record_count(report), expected_records);
    return report;
}

static void every_variant_is_correct_on_odd_sizes(void **state)
{
    (void)state;
    /* One particle; less than a warp; a warp and one more; a soa block (1024) and one more;
     * a large prime; and one with a fresh seed. */
    const char *cases[] = {
        "--n 1 --seed 21",       "--n 31 --seed 22",      "--n 33 --seed 23",
        "--n 1025 --seed 24",    "--n 1000003 --seed 25", "--n 4194305",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments,
                 "--variant all --sweep fields=1:8:7 %s --metrics none --reps 2 --warmup 1",
                 cases[i]);
        cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
        assert_int_equal(gpu_test_record_count(report), 2 * gpu_test_variant_count());
        cJSON_Delete(report);
    }
}

/* Bad input is refused before anything runs, on a GPU machine too. */
static void bad_fields_and_oversized_runs_are_refused(void **state)
{
    (void)state;
    const char *cases[] = {
        "--fields 4",
        "--sweep fields=1:8",
        /* 2^31 particles: 128 GiB for aos's input and output, more than any one GPU of the
         * course machines holds (an H200 has 141 GB). */
        "--variant aos --n 2147483648",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int exit_status = 0;
        cJSON *report = gpu_test_run_lab(cases[i], TIME_LIMIT_S, &exit_status);
        assert_int_equal(exit_status, 2);
        assert_null(report);
    }
}

static double measured_metric(const cJSON *record, const char *alias, double *predicted)
{
    double measured = NAN;
    assert_int_equal(gpu_test_metric(record, alias, predicted, &measured), 0);
    assert_false(isnan(*predicted));
    assert_false(isnan(measured));
    return measured;
}

static void assert_within(const cJSON *record, const char *alias, double measured, double expected)
{
    double relative = fabs(measured - expected) / expected;
    if (relative > METRIC_TOLERANCE)
        gpu_test_print_miss(record, alias, expected, measured);
    assert_true(relative <= METRIC_TOLERANCE);
}

static void assert_access_matches(const cJSON *record)
{
    gpu_test_assert_near_prediction(record, "gld_efficiency", METRIC_TOLERANCE);
    gpu_test_assert_near_prediction(record, "gld_transactions_per_request", METRIC_TOLERANCE);
    gpu_test_assert_near_prediction(record, "gst_efficiency", METRIC_TOLERANCE);
    gpu_test_assert_near_prediction(record, "gst_transactions_per_request", METRIC_TOLERANCE);
}

/* n is a multiple of every group of particles the kernels use, so there is no partial warp. */
#define COUNTER_RUN "--n 4194304 --reps 1 --warmup 0"

static void soa_loads_are_fully_coalesced(void **state)
{
    (void)state;
    cJSON *report = run_with_counters("--variant soa --sweep fields=1:8:7 " COUNTER_RUN, 2);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
    {
        double predicted = NAN;
        double measured = measured_metric(record, "gld_efficiency", &predicted);
        assert_within(record, "gld_efficiency", measured, 100.0);
    }
    cJSON_Delete(report);
}

static void aos_with_one_field_equals_the_model(void **state)
{
    (void)state;
    cJSON *report = run_with_counters("--variant aos --fields 1 " COUNTER_RUN, 1);
    assert_access_matches(cJSON_GetArrayItem(gpu_test_records(report), 0));
    cJSON_Delete(report);
}

static void every_layout_equals_the_model(void **state)
{
    (void)state;
    cJSON *report = run_with_counters("--variant all --sweep fields=1:8:7 " COUNTER_RUN,
                                      2 * gpu_test_variant_count());
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
    {
        assert_access_matches(record);
    }
    cJSON_Delete(report);
}

/* Touching x alone, the AoS still brings in whole particles: the model says 8x the SoA's bytes,
 * the issue asks for at least 4x measured. */
static void one_field_aos_reads_four_times_the_dram_of_soa(void **state)
{
    (void)state;
    cJSON *report = run_with_counters(
        "--variant all --fields 1 --n 16777216 --metrics dram_read_bytes,dram_write_bytes "
        "--reps 1 --warmup 0",
        gpu_test_variant_count());
    double aos_bytes = NAN, soa_bytes = NAN;
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
    {
        double predicted = NAN;
        double measured = measured_metric(record, "dram_read_bytes", &predicted);
        if (strcmp(gpu_test_variant(record), "aos") == 0)
            aos_bytes = measured;
        else if (strcmp(gpu_test_variant(record), "soa") == 0)
            soa_bytes = measured;
    }
    fprintf(stderr, "  DRAM bytes read with one field: aos %.0f, soa %.0f (%.2fx)\n", aos_bytes,
            soa_bytes, aos_bytes / soa_bytes);
    assert_true(soa_bytes > 0);
    assert_true(aos_bytes >= 4 * soa_bytes);
    cJSON_Delete(report);
}

int main(void)
{
    if (!gpu_test_device_available()) {
        fprintf(stderr, "no CUDA device: test skipped\n");
        return GPU_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_is_correct_on_odd_sizes),
        cmocka_unit_test(bad_fields_and_oversized_runs_are_refused),
        cmocka_unit_test(soa_loads_are_fully_coalesced),
        cmocka_unit_test(aos_with_one_field_equals_the_model),
        cmocka_unit_test(every_layout_equals_the_model),
        cmocka_unit_test(one_field_aos_reads_four_times_the_dram_of_soa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
