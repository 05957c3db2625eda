/* test_unified_memory: lab 09 on a real GPU.
 *
 *   every variant matches the CPU reference on random, odd sizes;
 *   the driver's unified-memory counters equal the model's predictions (within 1%, or inside a
 *   stated range): no page moves for zero-copy or resident memory, every page once for a first
 *   touch and a prefetch (one migration per 2 MiB block for the prefetch), one 64 KiB big page
 *   (two transfers: the word's page, then the 15 after it) for each word read a multiple of
 *   64 KiB apart, every page both ways each ping-pong round;
 *   the lesson, as ratios within one run: pinned copies beat pageable ones, a prefetch beats
 *   faulting pages in, zero-copy pays the link again for every reuse and a copy does not.
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

static void every_variant_is_correct_on_odd_sizes(void **state)
{
    (void)state;
    /* One float; less than a warp; a warp and one more; a block and one more; a large prime;
     * one with a fresh seed. Sparse strides of a page and of a 64 KiB block. */
    const char *cases[] = {
        "--n 1 --seed 91",        "--n 31 --seed 92 --reuse 5",
        "--n 33 --seed 93",       "--n 257 --seed 94 --reuse 16 --rounds 3",
        "--n 1000003 --seed 95 --reuse 3", "--n 4194305 --stride_kib 64",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments,
                 "--variant all --stride_kib 4 %s --metrics none --reps 2 --warmup 1", cases[i]);
        cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
        assert_int_equal(gpu_test_record_count(report), gpu_test_variant_count());
        cJSON_Delete(report);
    }
}

/* Every prediction of the record: a point within 1% (exactly, for a prediction of 0), a range
 * from its low end to its value. */
static void assert_record_matches_the_model(const cJSON *record)
{
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, cJSON_GetObjectItemCaseSensitive(record, "metrics"))
    {
        const char *alias = cJSON_GetObjectItemCaseSensitive(metric, "alias")->valuestring;
        double predicted = NAN, measured = NAN;
        assert_int_equal(gpu_test_metric(record, alias, &predicted, &measured), 0);
        if (isnan(predicted))
            continue; /* measured only: the model does not predict it */
        assert_false(isnan(measured));
        const char *reason = NULL;
        double low = gpu_test_predicted_low(record, alias, &reason);
        int holds = reason != NULL
                        ? measured >= low * (1 - METRIC_TOLERANCE) &&
                              measured <= predicted * (1 + METRIC_TOLERANCE)
                        : fabs(measured - predicted) <= METRIC_TOLERANCE * predicted;
        if (!holds)
            fprintf(stderr, "  %s: %s predicted %.0f..%.0f, measured %.0f\n",
                    gpu_test_variant(record), alias, low, predicted, measured);
        assert_true(holds);
    }
}

static void migrations_equal_the_model(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_with_counters("--variant all --n 8388608 --reps 1 --warmup 0",
                                               TIME_LIMIT_S);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
    {
        assert_record_matches_the_model(record);
    }
    /* The lesson's own counts, besides the model's: a first touch moves every byte once. */
    double predicted = NAN, measured = NAN;
    assert_int_equal(gpu_test_metric(gpu_test_record(report, "managed_first_touch"),
                                     "um_htod_bytes", &predicted, &measured), 0);
    assert_true(measured == 8388608.0 * 4);
    cJSON_Delete(report);
}

/* One word every 64 KiB or more: the word's 64 KiB big page moves, and nothing else. The words
 * here are multiples of 64 KiB apart, each on the first page of its big page: the driver moves
 * the faulting page, then the 15 pages after it, two transfers (a word inside its big page
 * makes three: the pages before it, its page, the pages after). */
static void isolated_words_move_one_block_each(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_with_counters(
        "--variant managed_sparse --n 33554432 --sweep stride_kib=64,256,2048,8192 --reps 1 --warmup 0",
        TIME_LIMIT_S);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
    {
        double predicted = NAN, bytes = NAN, migrations = NAN;
        assert_int_equal(gpu_test_metric(record, "um_htod_bytes", &predicted, &bytes), 0);
        assert_int_equal(gpu_test_metric(record, "um_htod_migrations", &predicted, &migrations), 0);
        long long stride_kib = gpu_test_param(record, "stride_kib");
        fprintf(stderr, "  stride %lld KiB: %.0f bytes in %.0f migrations\n", stride_kib, bytes,
                migrations);
        double touches = ceil(33554432.0 * 4 / (1024.0 * stride_kib));
        assert_true(bytes == touches * 65536.0);
        /* Below 128 KiB the prefetcher joins neighbouring big pages: their transfers are
         * measured only. */
        if (stride_kib >= 128)
            assert_true(migrations == 2 * touches);
        assert_record_matches_the_model(record);
    }
    cJSON_Delete(report);
}

/* The lesson in one run, as ratios of medians. */
static void the_link_is_used_as_the_lesson_says(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_correct(
        "--variant pageable_copy,pinned_copy,zero_copy,zero_copy_reused,copy_then_reuse,"
        "managed_first_touch,managed_prefetch --n 16777216 --reuse 4 --metrics none --reps 5 "
        "--warmup 1",
        TIME_LIMIT_S);
    double pageable = gpu_test_median_ms(report, "pageable_copy");
    double pinned = gpu_test_median_ms(report, "pinned_copy");
    double once = gpu_test_median_ms(report, "zero_copy");
    double reused = gpu_test_median_ms(report, "zero_copy_reused");
    double copied = gpu_test_median_ms(report, "copy_then_reuse");
    double faulted = gpu_test_median_ms(report, "managed_first_touch");
    double prefetched = gpu_test_median_ms(report, "managed_prefetch");
    fprintf(stderr, "  ms: pageable %.3f pinned %.3f | zero-copy %.3f, reused x4 %.3f, copy then "
                    "reuse %.3f | first touch %.3f, prefetched %.3f\n",
            pageable, pinned, once, reused, copied, faulted, prefetched);
    assert_true(pageable >= 1.5 * pinned);
    /* Four reads across the link cost at least three times one; one copy and four reads of
     * device memory cost less than the four across the link. */
    assert_true(reused >= 3 * once);
    assert_true(copied < reused);
    assert_true(faulted >= 2 * prefetched);
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
        cmocka_unit_test(migrations_equal_the_model),
        cmocka_unit_test(isolated_words_move_one_block_each),
        cmocka_unit_test(the_link_is_used_as_the_lesson_says),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
