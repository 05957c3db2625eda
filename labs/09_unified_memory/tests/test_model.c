/* test_model_unified_memory: lab 09's --model predictions against counts worked out by hand. No
 * GPU.
 *
 * The driver moves the CPU's 4 KiB pages of managed memory, kept in 2 MiB blocks (512 pages; an
 * allocation of 2 MiB or less has a whole block to itself, a larger one's last block ends at its
 * last page). A GPU fault grows to its 64 KiB big page, then the prefetcher moves the largest
 * aligned power-of-two run of pages around it more than 51% of which is moving or there. So,
 * for n floats of input (p pages):
 *   zero_copy, managed_resident   no page moves: 0 bytes either way;
 *   managed_first_touch           every page once: p pages when the input is more than one
 *                                 block; under one, the power-of-two run the prefetcher rounds
 *                                 them to (64 KiB at least, the block at most);
 *   managed_prefetch              exactly p pages, in one migration per 2 MiB block;
 *   managed_sparse                one big page per word read when words are 128 KiB or more
 *                                 apart, in three transfers (the pages before the word's, its
 *                                 page, those after), two where the word's page ends its big
 *                                 page; closer, what the prefetcher joins;
 *   ping_pong                     what a first touch moves, to the GPU each round and back
 *                                 each round but the first; from the 6th move on, the driver's
 *                                 thrashing detection may cut it to the p pages. */
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
#define PAGE 4096.0
#define BLOCK 65536.0
#define MIB (1024.0 * 1024.0)

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
        const cJSON *record = gpu_test_record_at(report, variants[v], NULL, 0);
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
    assert_point(gpu_test_record_at(report, "managed_first_touch", "n", 8388608), "um_htod_bytes",
                 32 * MIB);
    const cJSON *prefetch = gpu_test_record_at(report, "managed_prefetch", "n", 8388608);
    assert_point(prefetch, "um_htod_bytes", 32 * MIB);
    assert_point(prefetch, "um_htod_migrations", 16);
    /* 4,000,012 bytes: 977 pages (the last one part full), in 2 blocks, the second cut short
     * at the last page: every page moves, no more. */
    assert_point(gpu_test_record_at(report, "managed_first_touch", "n", 1000003), "um_htod_bytes",
                 977 * PAGE);
    const cJSON *prefetch_two = gpu_test_record_at(report, "managed_prefetch", "n", 1000003);
    assert_point(prefetch_two, "um_htod_bytes", 977 * PAGE);
    assert_point(prefetch_two, "um_htod_migrations", 2);
    cJSON_Delete(report);
}

/* Inputs under one block (measured on an H200): a fault moves at least the 64 KiB big page, and
 * the prefetcher the power-of-two run of pages the input fills more than 51% of: 1 float moves
 * 64 KiB; 100,000 floats (98 pages, 112 once grown to big pages) 128 pages, as 112 > 51% of 128
 * but not of 256; 300,000 floats (293 pages, 304 grown) the whole 512. A prefetch moves the
 * pages of its range alone: 1, 98 and 293 pages. Past one block, 600,000 floats: the first
 * block whole, the second's 74 pages (2,400,000 bytes: 586 pages). Where the prefetcher adds
 * pages, the faults may come in batches it judges apart, so the first touch is a range from the
 * grown pages (112, 304) to the run. */
static void a_small_input_moves_its_power_of_two_run(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant managed_first_touch,managed_prefetch --sweep n=1,100000,300000,600000",
        TIME_LIMIT_S);
    const long long n[] = {1, 100000, 300000, 600000};
    const double grown[] = {16, 112, 304, 586}, touched[] = {16, 128, 512, 586};
    const double pages[] = {1, 98, 293, 586};
    for (int k = 0; k < 4; k++) {
        const cJSON *first_touch = gpu_test_record_at(report, "managed_first_touch", "n", n[k]);
        if (grown[k] < touched[k])
            assert_range(first_touch, "um_htod_bytes", grown[k] * PAGE, touched[k] * PAGE);
        else
            assert_point(first_touch, "um_htod_bytes", touched[k] * PAGE);
        const cJSON *prefetch = gpu_test_record_at(report, "managed_prefetch", "n", n[k]);
        assert_point(prefetch, "um_htod_bytes", pages[k] * PAGE);
        assert_point(prefetch, "um_htod_migrations", k < 3 ? 1 : 2);
    }
    cJSON_Delete(report);
}

/* Past 100 MB of input the faults have now and then moved up to a quarter fewer bytes than every
 * page (not a prefetch): 30,000,000 floats, 29,297 pages, from three quarters of them to all;
 * 24,750,000 floats (99 MB), every page. */
static void past_100_mb_faults_may_move_less(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant managed_first_touch,managed_prefetch --sweep n=24750000,30000000", TIME_LIMIT_S);
    assert_range(gpu_test_record_at(report, "managed_first_touch", "n", 30000000), "um_htod_bytes",
                 0.75 * 29297 * PAGE, 29297 * PAGE);
    assert_point(gpu_test_record_at(report, "managed_prefetch", "n", 30000000), "um_htod_bytes",
                 29297 * PAGE);
    assert_point(gpu_test_record_at(report, "managed_first_touch", "n", 24750000), "um_htod_bytes",
                 24170 * PAGE);
    cJSON_Delete(report);
}

static void a_sparse_word_moves_its_block(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant managed_sparse --n 33554432 --sweep stride_kib=4,256,2048,8192", TIME_LIMIT_S);
    /* 128 MiB: words 2 MiB apart are 64, 8 MiB apart 16: a block each, moved in two transfers. */
    const cJSON *far = gpu_test_record_at(report, "managed_sparse", "stride_kib", 2048);
    assert_point(far, "um_htod_bytes", 64 * BLOCK);
    assert_point(far, "um_htod_migrations", 2 * 64);
    const cJSON *farther = gpu_test_record_at(report, "managed_sparse", "stride_kib", 8192);
    assert_point(farther, "um_htod_bytes", 16 * BLOCK);
    assert_point(farther, "um_htod_migrations", 2 * 16);
    /* 256 KiB apart: 512 words in 512 blocks. */
    const cJSON *apart = gpu_test_record_at(report, "managed_sparse", "stride_kib", 256);
    assert_point(apart, "um_htod_bytes", 512 * BLOCK);
    assert_point(apart, "um_htod_migrations", 2 * 512);
    /* A word in every page: every block of the 128 MiB. */
    assert_point(gpu_test_record_at(report, "managed_sparse", "stride_kib", 4), "um_htod_bytes",
                 128 * MIB);
    cJSON_Delete(report);

    /* 7,500,412 bytes, a word every 198 KiB (49.5 pages): 37 words, each in a big page of its
     * own, at page 0, 1, 3, 4, 6, ... 15, 0, 2, ... of it: 5 of them first or last in their big
     * page (two transfers), 32 inside (three): 106 transfers (measured on an H200: 106). */
    report = gpu_test_run_model("--variant managed_sparse --n 1875103 --stride_kib 198",
                                TIME_LIMIT_S);
    const cJSON *inside = gpu_test_record_at(report, "managed_sparse", NULL, 0);
    assert_point(inside, "um_htod_bytes", 37 * BLOCK);
    assert_point(inside, "um_htod_migrations", 5 * 2 + 32 * 3);
    cJSON_Delete(report);

    /* A word every 47 KiB of 430,376 bytes (106 pages): 9 words in big pages 0-5 of the input's
     * block; 96 of the 128 pages 0-127 grown, more than 51%: the 128 move (measured: 524,288). */
    report = gpu_test_run_model("--variant managed_sparse --n 107594 --stride_kib 47",
                                TIME_LIMIT_S);
    assert_point(gpu_test_record_at(report, "managed_sparse", NULL, 0), "um_htod_bytes",
                 128 * PAGE);
    cJSON_Delete(report);
}

static void ping_pong_moves_every_page_both_ways(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant ping_pong --n 8388608 --rounds 3", TIME_LIMIT_S);
    const cJSON *record = gpu_test_record_at(report, "ping_pong", NULL, 0);
    assert_point(record, "um_htod_bytes", 3 * 32 * MIB);
    assert_point(record, "um_dtoh_bytes", 2 * 32 * MIB);
    cJSON_Delete(report);

    /* One float: a first touch moves its 64 KiB big page, and so does every move after it until
     * the driver may mark the page thrashing, after its 5th move: 3 rounds (5 moves) move 64 KiB
     * each time; 4 rounds add a 6th and 7th move of 64 KiB or of the one page. */
    report = gpu_test_run_model("--variant ping_pong --n 1 --sweep rounds=3,4", TIME_LIMIT_S);
    const cJSON *three = gpu_test_record_at(report, "ping_pong", "rounds", 3);
    assert_point(three, "um_htod_bytes", 3 * BLOCK);
    assert_point(three, "um_dtoh_bytes", 2 * BLOCK);
    const cJSON *four = gpu_test_record_at(report, "ping_pong", "rounds", 4);
    assert_range(four, "um_htod_bytes", 3 * BLOCK + PAGE, 4 * BLOCK);
    assert_range(four, "um_dtoh_bytes", 2 * BLOCK + PAGE, 3 * BLOCK);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_moves_for_zero_copy_or_resident_pages),
        cmocka_unit_test(a_first_touch_moves_every_page_once),
        cmocka_unit_test(a_small_input_moves_its_power_of_two_run),
        cmocka_unit_test(past_100_mb_faults_may_move_less),
        cmocka_unit_test(a_sparse_word_moves_its_block),
        cmocka_unit_test(ping_pong_moves_every_page_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
