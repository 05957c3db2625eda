/* test_atomics: lab 08 on a real GPU. Every variant is correct on odd sizes and on skewed
 * inputs (histograms exactly, sums within the tolerance the program derives from n); the
 * atomic, shared and shuffle counters equal the model (or fall inside its range, where lanes
 * come back to a line after other lines); and with all of a warp's values in one
 * bin the privatized histogram sends the L2 at most 1/32 of the naive one's reductions. */
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

static void every_variant_is_correct_on_odd_sizes_and_skew(void **state)
{
    (void)state;
    const char *cases[] = {
        "--variant all --n 1 --bins 1 --distinct 1 --seed 81",
        "--variant all --n 45 --bins 5 --distinct 5 --seed 82",
        "--variant all --n 8193 --bins 97 --distinct 7 --hot 30 --seed 83",
        "--variant all --n 1000003 --bins 4096 --distinct 32 --seed 84",
        /* Skewed: 90% of every warp's lanes in bin 0. */
        "--variant all --n 1000003 --bins 256 --distinct 2 --hot 90 --seed 85",
        "--variant all --n 4194305 --bins 1 --distinct 1",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments, "%s --metrics none --reps 2 --warmup 1", cases[i]);
        cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
        assert_int_equal(gpu_test_record_count(report), gpu_test_variant_count());
        cJSON_Delete(report);
    }
}

static void assert_metric_matches(const cJSON *record, const char *alias)
{
    double predicted = NAN, measured = NAN;
    assert_int_equal(gpu_test_metric(record, alias, &predicted, &measured), 0);
    assert_false(isnan(predicted));
    assert_false(isnan(measured));
    /* A range (lanes back on a line after other lines: merged or not) holds the measured count
     * between its ends; a point, within the tolerance. */
    const char *reason = NULL;
    double low = gpu_test_predicted_low(record, alias, &reason);
    double scale = fmax(predicted, 1.0);
    int holds = reason != NULL ? measured >= low * (1 - METRIC_TOLERANCE) &&
                                     measured <= predicted * (1 + METRIC_TOLERANCE)
                               : fabs(measured - predicted) / scale <= METRIC_TOLERANCE;
    if (!holds) {
        fprintf(stderr, "  %s distinct=%lld: %s predicted %.0f..%.0f, measured %.0f\n",
                gpu_test_variant(record), gpu_test_param(record, "distinct"), alias, low,
                predicted, measured);
        fail();
    }
}

static void counters_equal_the_model(void **state)
{
    (void)state;
    const char *histogram_metrics[] = {"global_red_instructions", "l2_red_requests",
                                       "l2_red_bytes", "shared_atom_instructions",
                                       "shuffle_thread_instructions"};
    const char *sum_metrics[] = {"global_red_instructions", "l2_red_requests",
                                 "shared_ld_instructions", "shared_st_instructions",
                                 "shuffle_thread_instructions"};
    cJSON *report = gpu_test_run_with_counters(
        "--variant global_atomic,shared_private,warp_aggregated --n 4194304 --bins 256 "
        "--sweep distinct=1,8,32 --reps 1 --warmup 0", TIME_LIMIT_S);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
        for (size_t m = 0; m < sizeof histogram_metrics / sizeof histogram_metrics[0]; m++)
            assert_metric_matches(record, histogram_metrics[m]);
    cJSON_Delete(report);

    report = gpu_test_run_with_counters(
        "--variant atomic_each,shared_tree,warp_shuffle --n 4194304 --reps 1 --warmup 0", TIME_LIMIT_S);
    cJSON_ArrayForEach(record, gpu_test_records(report))
        for (size_t m = 0; m < sizeof sum_metrics / sizeof sum_metrics[0]; m++)
            assert_metric_matches(record, sum_metrics[m]);
    cJSON_Delete(report);
}

/* All values of a warp in one bin: the naive histogram sends one reduction operand per value,
 * the private one one per bin and block. */
static void privatization_cuts_global_atomics_32_fold(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_with_counters(
        "--variant global_atomic,shared_private --n 4194304 --bins 1 --distinct 1 "
        "--metrics l2_red_bytes --reps 1 --warmup 0", TIME_LIMIT_S);
    double naive = gpu_test_measured(gpu_test_record(report, "global_atomic"), "l2_red_bytes");
    double private_ = gpu_test_measured(gpu_test_record(report, "shared_private"), "l2_red_bytes");
    fprintf(stderr, "  l2_red_bytes: global_atomic %.0f, shared_private %.0f\n", naive, private_);
    assert_true(private_ * 32 <= naive);
    cJSON_Delete(report);
}

int main(void)
{
    if (!gpu_test_device_available()) {
        fprintf(stderr, "no CUDA device: test skipped\n");
        return GPU_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_is_correct_on_odd_sizes_and_skew),
        cmocka_unit_test(counters_equal_the_model),
        cmocka_unit_test(privatization_cuts_global_atomics_32_fold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
