/* test_stats.c: summary statistics of timing samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "stats.h"

#define EXACT 1e-12

static void test_odd_count(void **state)
{
    (void)state;
    const double samples[] = {5.0, 1.0, 4.0, 2.0, 3.0};
    ml_stats stats = ml_stats_compute(samples, 5);

    assert_int_equal(stats.count, 5);
    assert_float_equal(stats.median, 3.0, EXACT);
    assert_float_equal(stats.min, 1.0, EXACT);
    assert_float_equal(stats.max, 5.0, EXACT);
    assert_float_equal(stats.mean, 3.0, EXACT);
}

/* Even count: the median is the mean of the two middle values, (2 + 10) / 2 = 6. */
static void test_even_count(void **state)
{
    (void)state;
    const double samples[] = {10.0, 1.0, 2.0, 100.0};
    ml_stats stats = ml_stats_compute(samples, 4);

    assert_int_equal(stats.count, 4);
    assert_float_equal(stats.median, 6.0, EXACT);
    assert_float_equal(stats.min, 1.0, EXACT);
    assert_float_equal(stats.max, 100.0, EXACT);
    assert_float_equal(stats.mean, 113.0 / 4.0, EXACT);
}

static void test_input_unchanged(void **state)
{
    (void)state;
    double samples[] = {3.5, -1.0, 7.25, 0.0, 2.0, 2.0};
    double original[sizeof samples / sizeof samples[0]];
    memcpy(original, samples, sizeof samples);

    ml_stats stats = ml_stats_compute(samples, 6);

    assert_true(memcmp(samples, original, sizeof samples) == 0);
    assert_float_equal(stats.median, 2.0, EXACT);
    assert_float_equal(stats.min, -1.0, EXACT);
    assert_float_equal(stats.max, 7.25, EXACT);
}

static void test_one_sample(void **state)
{
    (void)state;
    const double samples[] = {0.125};
    ml_stats stats = ml_stats_compute(samples, 1);

    assert_int_equal(stats.count, 1);
    assert_float_equal(stats.median, 0.125, EXACT);
    assert_float_equal(stats.min, 0.125, EXACT);
    assert_float_equal(stats.max, 0.125, EXACT);
    assert_float_equal(stats.mean, 0.125, EXACT);
    assert_float_equal(stats.cv, 0.0, EXACT);
}

/* {1, 2, 3, 4}: mean 2.5, squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, sample variance
 * 5 / 3, sample standard deviation 1.290994, cv 1.290994 / 2.5 = 0.516398. */
static void test_known_cv(void **state)
{
    (void)state;
    const double samples[] = {1.0, 2.0, 3.0, 4.0};
    ml_stats stats = ml_stats_compute(samples, 4);

    assert_float_equal(stats.mean, 2.5, EXACT);
    assert_float_equal(stats.median, 2.5, EXACT);
    assert_float_equal(stats.cv, 0.516398, 1e-6);
}

static void test_equal_samples_have_zero_cv(void **state)
{
    (void)state;
    const double samples[] = {2.0, 2.0, 2.0};
    ml_stats stats = ml_stats_compute(samples, 3);

    assert_float_equal(stats.median, 2.0, EXACT);
    assert_float_equal(stats.cv, 0.0, EXACT);
}

static void test_no_samples(void **state)
{
    (void)state;
    ml_stats stats = ml_stats_compute(NULL, 0);

    assert_int_equal(stats.count, 0);
    assert_float_equal(stats.median, 0.0, EXACT);
    assert_float_equal(stats.mean, 0.0, EXACT);
    assert_float_equal(stats.cv, 0.0, EXACT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_count),
        cmocka_unit_test(test_even_count),
        cmocka_unit_test(test_input_unchanged),
        cmocka_unit_test(test_one_sample),
        cmocka_unit_test(test_known_cv),
        cmocka_unit_test(test_equal_samples_have_zero_cv),
        cmocka_unit_test(test_no_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
