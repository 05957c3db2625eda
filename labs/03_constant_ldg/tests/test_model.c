/* test_model_constant_ldg: lab 03's predictions, read from its --model report (no GPU).
 *
 *   the convolutions' global load requests and sectors equal a brute-force count made here,
 *   warp by warp and tap by tap, at sizes that are not multiples of the block;
 *   constant_broadcast predicts one request per LDC, constant_divergent one per different word;
 *   ldg_divergent predicts one request per load and a sector per different 32 bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"

#define TIME_LIMIT_S 120
#define WARP 32
#define SECTOR_FLOATS 8
#define PATTERN_THREADS 256
#define ROUNDS 512
#define SLOT_FLOATS 16

/* ---- the convolutions ------------------------------------------------------------------------ */

/* Adds value to the set values[0..*count) unless it is there. */
static void add_distinct(int64_t *values, int *count, int64_t value)
{
    for (int i = 0; i < *count; i++)
        if (values[i] == value)
            return;
    values[(*count)++] = value;
}

/* Every warp (32 neighbouring pixels of a row) and every tap whose mask row lies inside the
 * image: a request when a lane reads inside the image, a sector for every different 32 bytes of
 * the image read, and one weight load (one sector) for the variants with the mask in global
 * memory. */
static void count_loads(int64_t rows, int64_t cols, int mask, double *image_requests,
                        double *image_sectors, double *weight_loads)
{
    int radius = mask / 2;
    *image_requests = *image_sectors = *weight_loads = 0;
    for (int64_t row = 0; row < rows; row++)
        for (int64_t c0 = 0; c0 < cols; c0 += WARP)
            for (int i = 0; i < mask; i++) {
                int64_t image_row = row + i - radius;
                if (image_row < 0 || image_row >= rows)
                    continue;
                for (int j = 0; j < mask; j++) {
                    int64_t seen[WARP];
                    int count = 0;
                    for (int lane = 0; lane < WARP && c0 + lane < cols; lane++) {
                        int64_t image_col = c0 + lane + j - radius;
                        if (image_col >= 0 && image_col < cols)
                            add_distinct(seen, &count,
                                         (image_row * cols + image_col) / SECTOR_FLOATS);
                    }
                    *image_requests += count > 0;
                    *image_sectors += count;
                    *weight_loads += 1;
                }
            }
}

static void check_convolution(int64_t rows, int64_t cols, int mask)
{
    char arguments[128];
    snprintf(arguments, sizeof arguments, "--rows %lld --cols %lld --mask %d", (long long)rows,
             (long long)cols, mask);
    cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);

    double image_requests, image_sectors, weight_loads;
    count_loads(rows, cols, mask, &image_requests, &image_sectors, &weight_loads);

    const cJSON *constant = gpu_test_record(report, "constant");
    assert_float_equal(gpu_test_predicted(constant, "gld_requests"), image_requests, 0.5);
    assert_float_equal(gpu_test_predicted(constant, "gld_transactions"), image_sectors, 0.5);
    assert_float_equal(gpu_test_predicted(constant, "constant_requests_per_instruction"), 1.0, 0.0);
    const char *mask_in_global[] = {"global", "ldg"};
    for (int v = 0; v < 2; v++) {
        const cJSON *record = gpu_test_record(report, mask_in_global[v]);
        assert_float_equal(gpu_test_predicted(record, "gld_requests"),
                           image_requests + weight_loads, 0.5);
        assert_float_equal(gpu_test_predicted(record, "gld_transactions"),
                           image_sectors + weight_loads, 0.5);
        assert_float_equal(gpu_test_predicted(record, "constant_requests_per_instruction"), 1.0,
                           0.0);
    }
    cJSON_Delete(report);
}

static void convolution_loads_equal_a_brute_force_count(void **state)
{
    (void)state;
    const int64_t sizes[][2] = {{1, 1}, {31, 33}, {1000, 17}, {67, 300}, {8, 4096}};
    const int masks[] = {3, 7, 15};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
            check_convolution(sizes[s][0], sizes[s][1], masks[m]);
}

/* A 1 x 1 image with a 3 x 3 mask: the one warp reads the one pixel once (the centre tap), and
 * with the mask in global memory the middle mask row's 3 weights. */
static void one_pixel_reads_the_centre_tap(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--rows 1 --cols 1 --mask 3", TIME_LIMIT_S);
    const cJSON *record = gpu_test_record(report, "constant");
    assert_float_equal(gpu_test_predicted(record, "gld_requests"), 1.0, 0.0);
    assert_float_equal(gpu_test_predicted(record, "gld_transactions"), 1.0, 0.0);
    record = gpu_test_record(report, "global");
    assert_float_equal(gpu_test_predicted(record, "gld_requests"), 4.0, 0.0);
    assert_float_equal(gpu_test_predicted(record, "gld_transactions"), 4.0, 0.0);
    cJSON_Delete(report);
}

/* ---- the access patterns ----------------------------------------------------------------------
 */

static void broadcast_is_one_request_per_instruction(void **state)
{
    (void)state;
    cJSON *report =
        gpu_test_run_model("--variant constant_broadcast --rows 1000 --cols 17", TIME_LIMIT_S);
    const cJSON *record = gpu_test_record(report, "constant_broadcast");
    assert_float_equal(gpu_test_predicted(record, "constant_requests_per_instruction"), 1.0, 0.0);
    assert_float_equal(gpu_test_predicted(record, "constant_replays_per_instruction"), 0.0, 0.0);
    cJSON_Delete(report);
}

/* Sectors one warp load of the divergent pattern touches at round r: lane i reads word
 * (i % distinct) * spacing + r % 16. */
static int pattern_sectors(int distinct, int spacing, int r)
{
    int64_t seen[WARP];
    int count = 0;
    for (int lane = 0; lane < WARP; lane++)
        add_distinct(seen, &count, ((lane % distinct) * spacing + r % SLOT_FLOATS) / SECTOR_FLOATS);
    return count;
}

static void divergent_requests_equal_distinct_words(void **state)
{
    (void)state;
    const int distinct[] = {1, 2, 3, 8, 17, 31, 32};
    const int spacing[] = {1, 5, 16};
    const long long rows = 333, cols = 77;
    double warps = (double)((rows * cols + PATTERN_THREADS - 1) / PATTERN_THREADS) *
                   (PATTERN_THREADS / WARP);
    for (size_t d = 0; d < sizeof distinct / sizeof distinct[0]; d++)
        for (size_t s = 0; s < sizeof spacing / sizeof spacing[0]; s++) {
            char arguments[128];
            snprintf(arguments, sizeof arguments,
                     "--rows %lld --cols %lld --distinct %d --spacing %d", rows, cols, distinct[d],
                     spacing[s]);
            cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);

            const cJSON *constant = gpu_test_record(report, "constant_divergent");
            assert_float_equal(gpu_test_predicted(constant, "constant_requests_per_instruction"),
                               distinct[d], 0.0);
            assert_float_equal(gpu_test_predicted(constant, "constant_replays_per_instruction"),
                               distinct[d] - 1, 0.0);

            double sectors = 0;
            for (int r = 0; r < SLOT_FLOATS; r++)
                sectors += pattern_sectors(distinct[d], spacing[s], r);
            const cJSON *ldg = gpu_test_record(report, "ldg_divergent");
            assert_float_equal(gpu_test_predicted(ldg, "gld_requests"), warps * ROUNDS, 0.5);
            assert_float_equal(gpu_test_predicted(ldg, "gld_transactions"),
                               warps * ROUNDS / SLOT_FLOATS * sectors, 0.5);
            assert_float_equal(gpu_test_predicted(ldg, "gld_transactions_per_request"),
                               sectors / SLOT_FLOATS, 1e-12);
            cJSON_Delete(report);
        }
}

/* Words a whole line apart: the ldg twin needs a sector per word, the constant cache a request. */
static void spaced_words_cost_a_sector_each(void **state)
{
    (void)state;
    cJSON *report =
        gpu_test_run_model("--variant ldg_divergent --distinct 32 --spacing 16", TIME_LIMIT_S);
    assert_float_equal(gpu_test_predicted(gpu_test_record(report, "ldg_divergent"),
                                          "gld_transactions_per_request"),
                       32.0, 0.0);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(convolution_loads_equal_a_brute_force_count),
        cmocka_unit_test(one_pixel_reads_the_centre_tap),
        cmocka_unit_test(broadcast_is_one_request_per_instruction),
        cmocka_unit_test(divergent_requests_equal_distinct_words),
        cmocka_unit_test(spaced_words_cost_a_sector_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
