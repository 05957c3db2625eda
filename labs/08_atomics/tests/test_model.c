/* test_model_atomics: lab 08's --model predictions against counts worked out by hand. No GPU.
 *
 * The histogram's 32 values of a warp fall in exactly --distinct bins after the hot lanes (all in
 * bin 0), from a start that moves 97 bins a warp, so the model's counts follow from n, bins,
 * distinct and hot alone. A RED instruction sends a 32-byte operand per run of lanes (in lane
 * order) on one sector, times the most lanes on one address of the run (as an H100 counts it):
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

/* Hot lanes: 25% of 32 lanes (8) hold bin 0, the other 24 fall in 5 of bins 1-96, 19 apart from
 * 1 + start, start = warp % 96: 6 leaders a warp, in 6 sectors, except where the first cold bin
 * shares sector 0 (bins 0-7) with the hot leader just before it (start 0-6: warps 0-6 and
 * 96-99): 5 operands. The last warp of n = 3,203 has 3 lanes, all hot: 1 operand. */
static void hot_lanes_and_a_partial_warp(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant warp_aggregated --n 3203 --bins 97 --distinct 5 --hot 25", TIME_LIMIT_S);
    assert_close(predicted(report, "warp_aggregated", "l2_red_bytes"), 32 * (89 * 6 + 11 * 5 + 1));
    assert_close(predicted(report, "warp_aggregated", "global_red_instructions"), 101);
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
        cmocka_unit_test(sum_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
