/* test_model_register_spill: lab 01's predictions, read from its --model report (no GPU).
 *
 * The lab runs the access model over the local-memory accesses of its warps; these tests hold
 * the result against the arithmetic by hand. Local memory is interleaved, word w of lane l at
 * w * 128 + l * 4 bytes, so a sector holds one word of 8 neighbouring lanes:
 *   dynamic_index stores its 32-word table: every word costs ceil(active lanes / 8) sectors
 *   (4 for a full warp), 128 sectors per full warp;
 *   it loads word (k + l * lane_stride) % 32 in lane l, for each k: a group of 8 lanes needs as
 *   many sectors as its lanes read distinct words, d = 32 / gcd(lane_stride, 32) capped at 8
 *   (1 for lane_stride 0), so 4 * d sectors per load of a full warp and 32 loads per warp;
 *   static_index and uncapped touch no local memory; the capped kernels' spills are ptxas's
 *   choice, which the model leaves unpredicted.
 */
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
#define EXACT 1e-9
#define WARP_LANES 32
#define TABLE_WORDS 32

static const cJSON *records_of(const cJSON *report)
{
    return cJSON_GetObjectItemCaseSensitive(report, "records");
}

static int has_prediction(const cJSON *record, const char *alias)
{
    double prediction = NAN, measurement = NAN;
    assert_int_equal(gpu_test_metric(record, alias, &prediction, &measurement), 0);
    return !isnan(prediction);
}

static long long gcd(long long a, long long b)
{
    while (b != 0) {
        long long rest = a % b;
        a = b;
        b = rest;
    }
    return a;
}

/* Distinct words 8 neighbouring lanes read in one load. */
static long long words_per_group(long long lane_stride)
{
    long long distinct = TABLE_WORDS / gcd(lane_stride, TABLE_WORDS);
    return distinct < 8 ? distinct : 8;
}

/* Full warps only: every count is per warp times the warps. */
static void check_dynamic_full_warps(long long lane_stride)
{
    const long long warps = 4096;
    char arguments[128];
    snprintf(arguments, sizeof arguments, "--variant dynamic_index --n %lld --lane_stride %lld",
             warps * WARP_LANES, lane_stride);
    cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);
    const cJSON *record = gpu_test_record(report, "dynamic_index");
    long long sectors_per_load = 4 * words_per_group(lane_stride);
    assert_float_equal(gpu_test_predicted(record, "local_store_transactions"),
                       warps * TABLE_WORDS * 4.0, EXACT);
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions"),
                       (double)(warps * TABLE_WORDS * sectors_per_load), EXACT);
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions_per_request"),
                       (double)sectors_per_load, EXACT);
    /* The efficiency counter counts bytes by the address each thread sees: 4 bytes for each
     * distinct table word the 32 lanes read, of the sectors the load moves. */
    long long distinct_words = lane_stride == 0 ? 1 : TABLE_WORDS / gcd(lane_stride, TABLE_WORDS);
    assert_float_equal(gpu_test_predicted(record, "local_load_efficiency"),
                       100.0 * 4.0 * distinct_words / (32.0 * sectors_per_load), EXACT);
    cJSON_Delete(report);
}

static void dynamic_index_full_warps_every_lane_stride(void **state)
{
    (void)state;
    for (long long lane_stride = 0; lane_stride < TABLE_WORDS; lane_stride++)
        check_dynamic_full_warps(lane_stride);
}

/* The coalesced and the scattered ends, spelled out. */
static void dynamic_index_known_values(void **state)
{
    (void)state;
    cJSON *report =
        gpu_test_run_model("--variant dynamic_index --n 32 --lane_stride 0", TIME_LIMIT_S);
    const cJSON *record = gpu_test_record(report, "dynamic_index");
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions_per_request"), 4.0,
                       EXACT);
    /* One word for all lanes: 4 bytes seen of the 128 moved (measured 3.125 on an H200). */
    assert_float_equal(gpu_test_predicted(record, "local_load_efficiency"), 3.125, EXACT);
    cJSON_Delete(report);

    report = gpu_test_run_model("--variant dynamic_index --n 32 --lane_stride 1", TIME_LIMIT_S);
    record = gpu_test_record(report, "dynamic_index");
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions_per_request"), 32.0,
                       EXACT);
    assert_float_equal(gpu_test_predicted(record, "local_load_efficiency"), 12.5, EXACT);
    cJSON_Delete(report);

    report = gpu_test_run_model("--variant dynamic_index --n 32 --lane_stride 16", TIME_LIMIT_S);
    record = gpu_test_record(report, "dynamic_index");
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions_per_request"), 8.0,
                       EXACT);
    assert_float_equal(gpu_test_predicted(record, "local_load_efficiency"), 3.125, EXACT);
    cJSON_Delete(report);
}

/* A partial last warp: n = 3 warps + 13 lanes. Its stores cost ceil(13 / 8) = 2 sectors a word.
 * With lane_stride 0 its loads cost 2 sectors each; with lane_stride 1 lanes 0-7 read 8 words
 * and lanes 8-12 read 5, 13 sectors per load. */
static void dynamic_index_partial_warp(void **state)
{
    (void)state;
    const double full_warps = 3, requests = (full_warps + 1) * TABLE_WORDS;
    cJSON *report =
        gpu_test_run_model("--variant dynamic_index --n 109 --lane_stride 0", TIME_LIMIT_S);
    const cJSON *record = gpu_test_record(report, "dynamic_index");
    assert_float_equal(gpu_test_predicted(record, "local_store_transactions"),
                       full_warps * TABLE_WORDS * 4 + TABLE_WORDS * 2, EXACT);
    double loads = full_warps * TABLE_WORDS * 4 + TABLE_WORDS * 2;
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions"), loads, EXACT);
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions_per_request"),
                       loads / requests, EXACT);
    assert_float_equal(gpu_test_predicted(record, "local_load_efficiency"),
                       100.0 * (full_warps + 1) * TABLE_WORDS * 4 / (loads * 32),
                       EXACT);
    cJSON_Delete(report);

    report = gpu_test_run_model("--variant dynamic_index --n 109 --lane_stride 1", TIME_LIMIT_S);
    record = gpu_test_record(report, "dynamic_index");
    loads = full_warps * TABLE_WORDS * 32 + TABLE_WORDS * 13;
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions"), loads, EXACT);
    assert_float_equal(gpu_test_predicted(record, "local_load_transactions_per_request"),
                       loads / requests, EXACT);
    cJSON_Delete(report);
}

/* Registers only: no local memory, whatever the sizes; the uncapped kernel spills nowhere. */
static void register_variants_predict_no_local_traffic(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--n 1000003 --lane_stride 5", TIME_LIMIT_S);
    assert_int_equal(cJSON_GetArraySize(records_of(report)), gpu_test_variant_count());
    const char *variants[] = {"static_index", "uncapped"};
    for (size_t v = 0; v < 2; v++) {
        const cJSON *record = gpu_test_record(report, variants[v]);
        assert_float_equal(gpu_test_predicted(record, "local_load_transactions"), 0.0, EXACT);
        assert_float_equal(gpu_test_predicted(record, "local_store_transactions"), 0.0, EXACT);
    }
    const cJSON *uncapped = gpu_test_record(report, "uncapped");
    assert_float_equal(gpu_test_predicted(uncapped, "shared_load_instructions"), 0.0, EXACT);
    assert_float_equal(gpu_test_predicted(uncapped, "shared_store_instructions"), 0.0, EXACT);
    cJSON_Delete(report);
}

/* How much ptxas spills is not the model's to say: no local prediction for the capped kernels,
 * and none of shared traffic for smem_spill; without the pragma nothing goes to shared memory. */
static void spilling_variants_leave_spills_unpredicted(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--n 4096", TIME_LIMIT_S);
    const char *variants[] = {"capped", "smem_spill"};
    for (size_t v = 0; v < 2; v++) {
        const cJSON *record = gpu_test_record(report, variants[v]);
        assert_false(has_prediction(record, "local_load_transactions"));
        assert_false(has_prediction(record, "local_store_transactions"));
    }
    const cJSON *capped = gpu_test_record(report, "capped");
    assert_float_equal(gpu_test_predicted(capped, "shared_load_instructions"), 0.0, EXACT);
    assert_false(has_prediction(gpu_test_record(report, "smem_spill"), "shared_load_instructions"));
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dynamic_index_full_warps_every_lane_stride),
        cmocka_unit_test(dynamic_index_known_values),
        cmocka_unit_test(dynamic_index_partial_warp),
        cmocka_unit_test(register_variants_predict_no_local_traffic),
        cmocka_unit_test(spilling_variants_leave_spills_unpredicted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
