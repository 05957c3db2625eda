/* test_model_atomics: lab 08's --model predictions against counts worked out by hand. No GPU.
 *
 * The histogram's 32 values of a warp fall in exactly --distinct bins after the hot lanes (all in
 * bin 0), from a start that moves 97 bins a warp, so the model's counts follow from n, bins,
 * distinct and hot alone. A RED instruction sends one L2 request per 128-byte line its lanes
 * touch and a 32-byte operand per sector, each times the most lanes on one address in it; lanes
 * that come back to a line (a sector) after lanes on others may be merged into its request or
 * sent apart (an H200 did both), so there the model predicts the range between:
 *   global_atomic    one RED instruction per warp of values; bins 32 apart or more put every
 *                    lane in a run of its own: 32 operands a warp;
 *   shared_private   one shared atomic instruction per warp of values, then per block one RED
 *                    per 32 bins (8,192 values a block): one request and 4 operands each;
 *   warp_aggregated  one RED instruction per warp of values, one lane per bin taking part.
 * The sums: one RED per warp (atomic_each, all lanes on one address: 32 requests), per block
 * (shared_tree, warp_shuffle). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"

#define TIME_LIMIT_S 60

static void assert_close(double value, double expected)
{
    if (fabs(value - expected) > 1e-9 * fmax(1.0, fabs(expected)))
        fail_msg("predicted %.0f, expected %.0f", value, expected);
}

static double predicted(const cJSON *report, const char *variant, const char *alias)
{
    return gpu_test_predicted(gpu_test_record(report, variant), alias);
}

/* 2^20 values, 256 bins, 8 per warp: 32,768 warps, 128 blocks. */
static void histogram_counts(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant global_atomic,shared_private,warp_aggregated --n 1048576 --bins 256 --distinct 8",
        TIME_LIMIT_S);
    const double warps = 1048576.0 / 32, blocks = 1048576.0 / 8192;
    assert_close(predicted(report, "global_atomic", "global_red_instructions"), warps);
    assert_close(predicted(report, "global_atomic", "l2_red_bytes"), 32 * 1048576.0);
    assert_close(predicted(report, "shared_private", "shared_atom_instructions"), warps);
    assert_close(predicted(report, "shared_private", "global_red_instructions"), blocks * 8);
    assert_close(predicted(report, "shared_private", "l2_red_requests"), blocks * 8);
    assert_close(predicted(report, "shared_private", "l2_red_bytes"), 32 * blocks * 256 / 8);
    assert_close(predicted(report, "warp_aggregated", "global_red_instructions"), warps);
    assert_close(predicted(report, "warp_aggregated", "l2_red_bytes"), 32 * warps * 8);
    /* The lesson of --distinct 1: privatization cuts the global atomics at least 32-fold. */
    cJSON_Delete(report);
    report = gpu_test_run_model("--variant global_atomic,shared_private --n 1048576 --bins 1 --distinct 1",
                                TIME_LIMIT_S);
    assert_true(predicted(report, "shared_private", "l2_red_bytes") * 32 <=
                predicted(report, "global_atomic", "l2_red_bytes"));
    cJSON_Delete(report);
}

/* A range's two ends. */
static void assert_range(const cJSON *report, const char *variant, const char *alias, double low,
                         double high)
{
    const char *reason = NULL;
    const cJSON *record = gpu_test_record(report, variant);
    assert_close(gpu_test_predicted_low(record, alias, &reason), low);
    assert_non_null(reason);
    assert_close(gpu_test_predicted(record, alias), high);
}

/* Hot lanes: 25% of 32 lanes (8) hold bin 0, the other 24 fall in 5 of bins 1-96, 19 apart
 * (round the 96) from 1 + start, start = warp % 96: 6 leaders a warp, in 6 sectors, except
 * where a cold bin falls in bins 1-7 and shares sector 0 with the hot leader (lane 0). That is
 * 7 starts for each of the 5 cold bins, 35 of the 96 (they never meet: the bins are 19 or more
 * apart); warps 0-95 have each start once and warps 96-99 starts 0-3: 39 warps of 5 operands,
 * 61 of 6, when the leader that comes back to sector 0 is merged. When it is sent apart, only
 * the warps whose first cold bin (the leader just after lane 0) is in bins 1-7 save an operand:
 * starts 0-6, warps 0-6 and 96-99, 11 warps of 5, 89 of 6. The last warp of n = 3,203 has 3
 * lanes, all hot: 1 operand. */
static void hot_lanes_and_a_partial_warp(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant warp_aggregated --n 3203 --bins 97 --distinct 5 --hot 25", TIME_LIMIT_S);
    assert_range(report, "warp_aggregated", "l2_red_bytes", 32 * (61 * 6 + 39 * 5 + 1),
                 32 * (89 * 6 + 11 * 5 + 1));
    assert_close(predicted(report, "warp_aggregated", "global_red_instructions"), 101);
    cJSON_Delete(report);
}

/* The two ends, each measured on an H200. At 45 bins and 7 a warp (6 apart, round the 45 from a
 * start that moves 97 a warp), every warp's 7 leaders touch both lines (bins 0-31, 32-44), and
 * in 600 of the 1,000 warps they come back to their first line after the other (0, 1, 0 or
 * 1, 0, 1): 2,000 requests if the return is merged, 2,600 if not (measured at n = 46,277: 2 a
 * warp, the low end). At 256 bins and 32 a warp (8 apart),
 * the lanes go through all 8 lines in order and, unless the warp starts on a line's first bin
 * (1 start in 4), back to the first line in the last lanes: 8 or 9 requests a warp (measured:
 * 8.75 a warp, the high end). */
static void lanes_back_on_a_line(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant warp_aggregated --n 32000 --bins 45 --distinct 7", TIME_LIMIT_S);
    assert_range(report, "warp_aggregated", "l2_red_requests", 2 * 1000, 2 * 1000 + 600);
    cJSON_Delete(report);
    report = gpu_test_run_model("--variant global_atomic --n 4194304 --bins 256 --distinct 32",
                                TIME_LIMIT_S);
    const double warps = 4194304.0 / 32;
    assert_range(report, "global_atomic", "l2_red_requests", 8 * warps, 8.75 * warps);
    cJSON_Delete(report);
}

/* The tree: per block 8 stores of the values, then all 8 warps at each of the 8 steps (the step
 * is predicated, not branched around): 2 loads and a store each, and thread 0's last load. The
 * shuffle grid on the model's H100 (132 SMs): 8 blocks an SM. */
static void sum_counts(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant all --n 16777216", TIME_LIMIT_S);
    const double n = 16777216, blocks = n / 256, grid = 132 * 8;
    assert_close(predicted(report, "atomic_each", "global_red_instructions"), n / 32);
    assert_close(predicted(report, "atomic_each", "l2_red_requests"), n);
    assert_close(predicted(report, "shared_tree", "global_red_instructions"), blocks);
    assert_close(predicted(report, "shared_tree", "shared_st_instructions"), blocks * (8 + 64));
    assert_close(predicted(report, "shared_tree", "shared_ld_instructions"), blocks * 129);
    assert_close(predicted(report, "warp_shuffle", "global_red_instructions"), grid);
    assert_close(predicted(report, "warp_shuffle", "shuffle_thread_instructions"),
                 grid * 256 * 5 + grid * 32 * 5);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(histogram_counts),
        cmocka_unit_test(hot_lanes_and_a_partial_warp),
        cmocka_unit_test(lanes_back_on_a_line),
        cmocka_unit_test(sum_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
