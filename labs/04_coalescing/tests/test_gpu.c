/* test_coalescing: lab 04 on a real GPU.
 *
 *   every variant matches the CPU reference on random, odd sizes;
 *   measured global load efficiency and sectors per request equal the access model's prediction
 *   (within 1%) for strides 1..32 and offsets 0..32.
 *
 * Without a GPU it exits 77, which CTest reports as skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "gpu_test.h"

#define TIME_LIMIT_S 300
#define METRIC_TOLERANCE 0.01

static void every_variant_is_correct_on_odd_sizes(void **state)
{
    (void)state;
    const char *cases[] = {
        "--variant all --n 1 --stride 3 --offset 5 --seed 11",
        "--variant all --n 31 --stride 7 --offset 31 --seed 12",
        "--variant all --n 1000003 --stride 5 --offset 13 --seed 13",
        "--variant all --n 4194305 --stride 32 --offset 1",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments, "%s --metrics none --reps 2 --warmup 1", cases[i]);
        cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
        assert_int_equal(gpu_test_record_count(report), gpu_test_variant_count());
        cJSON_Delete(report);
    }
}

/* Sizes whose buffers cannot fit the device are refused before anything runs. */
static void sizes_beyond_device_memory_are_refused(void **state)
{
    (void)state;
    int exit_status = 0;
    cJSON *report = gpu_test_run_lab("--variant strided --n 17179869184 --stride 1024",
                                     TIME_LIMIT_S, &exit_status);
    assert_int_equal(exit_status, 2);
    assert_null(report);
}

static void counters_equal_the_model(const char *arguments, int expected_records)
{
    cJSON *report = gpu_test_run_with_counters(arguments, TIME_LIMIT_S);
    assert_int_equal(gpu_test_record_count(report), expected_records);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
    {
        gpu_test_assert_near_prediction(record, "gld_efficiency", METRIC_TOLERANCE);
        gpu_test_assert_near_prediction(record, "gld_transactions_per_request", METRIC_TOLERANCE);
        gpu_test_assert_near_prediction(record, "gst_efficiency", METRIC_TOLERANCE);
    }
    cJSON_Delete(report);
}

static void strided_counters_equal_the_model(void **state)
{
    (void)state;
    counters_equal_the_model("--variant strided --n 4194304 --sweep stride=1:32 --reps 1 --warmup 0",
                             32);
}

static void offset_counters_equal_the_model(void **state)
{
    (void)state;
    counters_equal_the_model("--variant offset --n 4194304 --sweep offset=0:32 --reps 1 --warmup 0",
                             33);
}

static void coalesced_and_broadcast_counters_equal_the_model(void **state)
{
    (void)state;
    counters_equal_the_model("--variant coalesced --n 4194307 --reps 1 --warmup 0", 1);
    counters_equal_the_model("--variant broadcast --n 4194304 --reps 1 --warmup 0", 1);
}

int main(void)
{
    if (!gpu_test_device_available()) {
        fprintf(stderr, "no CUDA device: test skipped\n");
        return GPU_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_is_correct_on_odd_sizes),
        cmocka_unit_test(sizes_beyond_device_memory_are_refused),
        cmocka_unit_test(strided_counters_equal_the_model),
        cmocka_unit_test(offset_counters_equal_the_model),
        cmocka_unit_test(coalesced_and_broadcast_counters_equal_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
