/* test_model_unified_memory: lab 09's --model predictions against counts worked out by hand. No
 * GPU.
 *
 * The driver moves managed memory in 64 KiB blocks around a faulting page, or in whole 2 MiB
 * regions (a prefetch; dense faults); a CPU page is 4 KiB. So, for n floats of input:
 *   zero_copy, managed_resident   no page moves: 0 bytes either way;
 *   managed_first_touch           every page once: 4n bytes rounded up to a block (at least) or a
 *                                 region (at most);
 *   managed_prefetch              the same bytes, in one migration per 2 MiB region;
 *   managed_sparse                one block per word read when words are a block or more apart
 *                                 (two transfers each, as the driver reports them); closer,
 *                                 every block;
 *   ping_pong                     every page to the GPU each round, back each round but the
 *                                 first. */
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
#define BLOCK 65536.0
#define REGION 2097152.0
#define MIB (1024.0 * 1024.0)

/* The record of variant at one value of a size (or the first record of variant when param is
 * NULL). */
static const cJSON *record_at(const cJSON *report, const char *variant, const char *param,
                              long long value)
{
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(report, "records"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(record, "variant");
        if (strcmp(name->valuestring, variant) == 0 &&
            (param == NULL || gpu_test_param(record, param) == value))
            return record;
    }
    fail_msg("no record of %s with %s %lld", variant, param ? param : "-", value);
    return NULL;
}

static void assert_point(const cJSON *record, const char *alias, double expected)
{
    const char *reason = NULL;
    double low = gpu_test_predicted_low(record, alias, &reason);
    assert_null(reason);
    assert_true(low == expected);
    assert_true(gpu_test_predicted(record, alias) == expected);
}

static void assert_range(const cJSON *record, const char *alias, double low, double high)
{
    const char *reason = NULL;
    assert_true(gpu_test_predicted_low(record, alias, &reason) == low);
    assert_non_null(reason);
    assert_true(gpu_test_predicted(record, alias) == high);
}

static void nothing_moves_for_zero_copy_or_resident_pages(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant zero_copy,managed_resident --n 1000003",
                                       TIME_LIMIT_S);
    const char *variants[] = {"zero_copy", "managed_resident"};
    for (int v = 0; v < 2; v++) {
        const cJSON *record = record_at(report, variants[v], NULL, 0);
        assert_point(record, "um_htod_bytes", 0);
        assert_point(record, "um_dtoh_bytes", 0);
    }
    cJSON_Delete(report);
}

static void a_first_touch_moves_every_page_once(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant managed_first_touch,managed_prefetch --sweep n=1000003,8388608", TIME_LIMIT_S);
    /* 32 MiB: 512 blocks, 16 regions, the same bytes either way. */
    assert_point(record_at(report, "managed_first_touch", "n", 8388608), "um_htod_bytes", 32 * MIB);
    const cJSON *prefetch = record_at(report, "managed_prefetch", "n", 8388608);
    assert_point(prefetch, "um_htod_bytes", 32 * MIB);
    assert_point(prefetch, "um_htod_migrations", 16);
    /* 4,000,012 bytes: 62 blocks (4,063,232 bytes) to 2 regions (4 MiB). */
    assert_range(record_at(report, "managed_first_touch", "n", 1000003), "um_htod_bytes",
                 62 * BLOCK, 2 * REGION);
    assert_point(record_at(report, "managed_prefetch", "n", 1000003), "um_htod_migrations", 2);
    cJSON_Delete(report);
}

static void a_sparse_word_moves_its_block(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant managed_sparse --n 33554432 --sweep stride_kib=4,256,2048,8192", TIME_LIMIT_S);
    /* 128 MiB: words 2 MiB apart are 64, 8 MiB apart 16: a block each, moved in two transfers. */
    const cJSON *far = record_at(report, "managed_sparse", "stride_kib", 2048);
    assert_point(far, "um_htod_bytes", 64 * BLOCK);
    assert_point(far, "um_htod_migrations", 2 * 64);
    const cJSON *farther = record_at(report, "managed_sparse", "stride_kib", 8192);
    assert_point(farther, "um_htod_bytes", 16 * BLOCK);
    assert_point(farther, "um_htod_migrations", 2 * 16);
    /* 256 KiB apart: 512 words in 512 blocks. */
    const cJSON *apart = record_at(report, "managed_sparse", "stride_kib", 256);
    assert_point(apart, "um_htod_bytes", 512 * BLOCK);
    assert_point(apart, "um_htod_migrations", 2 * 512);
    /* A word in every page: every block of the 128 MiB. */
    assert_point(record_at(report, "managed_sparse", "stride_kib", 4), "um_htod_bytes", 128 * MIB);
    cJSON_Delete(report);
}

static void ping_pong_moves_every_page_both_ways(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant ping_pong --n 8388608 --rounds 3", TIME_LIMIT_S);
    const cJSON *record = record_at(report, "ping_pong", NULL, 0);
    assert_point(record, "um_htod_bytes", 3 * 32 * MIB);
    assert_point(record, "um_dtoh_bytes", 2 * 32 * MIB);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_moves_for_zero_copy_or_resident_pages),
        cmocka_unit_test(a_first_touch_moves_every_page_once),
        cmocka_unit_test(a_sparse_word_moves_its_block),
        cmocka_unit_test(ping_pong_moves_every_page_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
