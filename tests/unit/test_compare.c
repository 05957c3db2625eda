/* test_compare.c: checking outputs against a reference, and the mismatch report. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

#define TOLERANCE 1e-5
#define COUNT 16

static void fill_ramp(float *values, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        values[i] = 0.25f * (float)i - 1.0f;
    }
}

static void test_relative_error(void **state)
{
    (void)state;
    /* |expected| >= 1: relative. */
    assert_float_equal(ml_relative_error(110.0f, 100.0f), 0.1, 1e-12);
    assert_float_equal(ml_relative_error(-90.0f, -100.0f), 0.1, 1e-12);
    /* |expected| < 1: absolute. */
    assert_float_equal(ml_relative_error(0.5f, 0.25f), 0.25, 1e-12);
    assert_float_equal(ml_relative_error(0.0f, 0.0f), 0.0, 1e-12);
    /* Anything not finite is infinitely wrong. */
    assert_true(isinf(ml_relative_error(NAN, 0.25f)));
    assert_true(isinf(ml_relative_error(INFINITY, 0.25f)));
    assert_true(isinf(ml_relative_error(-INFINITY, 0.25f)));
    assert_true(isinf(ml_relative_error(0.25f, NAN)));
}

static void test_identical_arrays(void **state)
{
    (void)state;
    float expected[COUNT];
    float got[COUNT];
    fill_ramp(expected, COUNT);
    fill_ramp(got, COUNT);

    ml_comparison comparison = ml_compare(got, expected, COUNT, TOLERANCE);
    assert_int_equal(comparison.count, COUNT);
    assert_int_equal(comparison.mismatches, 0);
    assert_int_equal(comparison.reported, 0);
    assert_float_equal(comparison.max_rel_error, 0.0, 1e-12);
}

static void test_one_element_off(void **state)
{
    (void)state;
    float expected[COUNT];
    float got[COUNT];
    fill_ramp(expected, COUNT);
    fill_ramp(got, COUNT);
    got[7] += 0.5f; /* expected[7] = 0.75: absolute error 0.5 */

    ml_comparison comparison = ml_compare(got, expected, COUNT, TOLERANCE);
    assert_int_equal(comparison.mismatches, 1);
    assert_int_equal(comparison.reported, 1);
    assert_int_equal(comparison.first_index[0], 7);
    assert_float_equal(comparison.first_got[0], 1.25, 1e-12);
    assert_float_equal(comparison.first_expected[0], 0.75, 1e-12);
    assert_float_equal(comparison.max_rel_error, 0.5, 1e-12);
}

/* The harness compares a large output chunk by chunk as it comes back from the GPU: the chunks'
 * comparisons appended give what one comparison of the whole gives, mismatches in several chunks,
 * past the reported five, and a wrong last element of 2^28 included. */
static ml_comparison compare_in_chunks(const float *got, const float *expected, size_t count,
                                       size_t chunk)
{
    ml_comparison whole = {0};
    for (size_t first = 0; first < count; first += chunk) {
        size_t length = count - first < chunk ? count - first : chunk;
        ml_comparison part = ml_compare(got + first, expected + first, length, TOLERANCE);
        ml_comparison_append(&whole, &part, first);
    }
    return whole;
}

static void test_chunks_compare_like_the_whole(void **state)
{
    (void)state;
    enum { SIZE = 32 };
    float expected[SIZE];
    float got[SIZE];
    fill_ramp(expected, SIZE);
    fill_ramp(got, SIZE);
    const size_t wrong[] = {1, 2, 9, 10, 17, 30, 31};
    for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++)
        got[wrong[k]] += 0.25f * (float)(k + 1);
    got[20] = NAN;
    ml_comparison whole = ml_compare(got, expected, SIZE, TOLERANCE);
    for (size_t chunk = 1; chunk <= SIZE; chunk++) {
        ml_comparison chunked = compare_in_chunks(got, expected, SIZE, chunk);
        assert_int_equal(chunked.count, whole.count);
        assert_int_equal(chunked.mismatches, 8);
        assert_int_equal(chunked.reported, ML_MAX_REPORTED_MISMATCHES);
        assert_true(isinf(chunked.max_rel_error));
        for (size_t i = 0; i < chunked.reported; i++) {
            assert_int_equal(chunked.first_index[i], whole.first_index[i]);
            assert_float_equal(chunked.first_got[i], whole.first_got[i], 0);
        }
    }

    const size_t count = (size_t)1 << 28;
    float *big_got = calloc(count, sizeof(float));
    float *big_expected = calloc(count, sizeof(float));
    assert_non_null(big_got);
    assert_non_null(big_expected);
    big_got[count - 1] = 1e-3f;
    ml_comparison chunked = compare_in_chunks(big_got, big_expected, count, (size_t)1 << 24);
    assert_int_equal(chunked.count, count);
    assert_int_equal(chunked.mismatches, 1);
    assert_int_equal(chunked.first_index[0], count - 1);
    free(big_got);
    free(big_expected);
}

/* Relative above 1 (1000 and the next float up: 6e-8), absolute below (5e-6): inside 1e-5. */
/* The harness compares every element of outputs up to 2^28 (lab 04's and lab 06's largest): one
 * wrong element among them, found on several threads, is still a failure, with its index. The
 * arrays are calloc'ed zeros, so only the pages written cost memory. */
static void test_one_wrong_element_of_2_to_the_28(void **state)
{
    (void)state;
    const size_t count = (size_t)1 << 28;
    const size_t wrong[] = {0, 123456789, count - 1};
    for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
        float *got = calloc(count, sizeof(float));
        float *expected = calloc(count, sizeof(float));
        assert_non_null(got);
        assert_non_null(expected);
        got[wrong[k]] = 1e-3f;
        ml_comparison comparison = ml_compare(got, expected, count, 1e-6);
        assert_int_equal(comparison.count, count);
        assert_int_equal(comparison.mismatches, 1);
        assert_int_equal(comparison.reported, 1);
        assert_int_equal(comparison.first_index[0], wrong[k]);
        assert_float_equal(comparison.max_rel_error, 1e-3, 1e-9);
        /* And an element never written: the poison is NaN. */
        got[wrong[k]] = 0.0f;
        got[count / 2 + k] = NAN;
        comparison = ml_compare(got, expected, count, 1e-6);
        assert_int_equal(comparison.mismatches, 1);
        assert_int_equal(comparison.first_index[0], count / 2 + k);
        assert_true(isinf(comparison.max_rel_error));
        free(got);
        free(expected);
    }
}

static void test_within_tolerance_passes(void **state)
{
    (void)state;
    const float expected[] = {1000.0f, -2.0f, 0.5f};
    const float got[] = {nextafterf(1000.0f, 2000.0f), -2.00001f, 0.500005f};

    ml_comparison comparison = ml_compare(got, expected, 3, TOLERANCE);
    assert_int_equal(comparison.mismatches, 0);
    assert_true(comparison.max_rel_error > 0.0);
    assert_true(comparison.max_rel_error <= TOLERANCE);
}

/* The poison: an element the kernel never wrote is NaN and must fail, whatever the tolerance. */
static void test_nan_fails(void **state)
{
    (void)state;
    float expected[COUNT];
    float got[COUNT];
    fill_ramp(expected, COUNT);
    fill_ramp(got, COUNT);
    got[12] = NAN;

    ml_comparison comparison = ml_compare(got, expected, COUNT, 1e30);
    assert_int_equal(comparison.mismatches, 1);
    assert_int_equal(comparison.reported, 1);
    assert_int_equal(comparison.first_index[0], 12);
    assert_true(isnan(comparison.first_got[0]));
    assert_true(isinf(comparison.max_rel_error));
}

static void test_infinity_fails(void **state)
{
    (void)state;
    const float expected[] = {1.0f, 2.0f};
    const float got[] = {1.0f, INFINITY};

    ml_comparison comparison = ml_compare(got, expected, 2, INFINITY);
    assert_int_equal(comparison.mismatches, 1);
    assert_int_equal(comparison.first_index[0], 1);
}

/* Every odd element wrong: 8 mismatches, the first five reported (1, 3, 5, 7, 9). */
static void test_many_mismatches(void **state)
{
    (void)state;
    float expected[COUNT];
    float got[COUNT];
    fill_ramp(expected, COUNT);
    fill_ramp(got, COUNT);
    for (size_t i = 1; i < COUNT; i += 2) {
        got[i] = -got[i] - 10.0f;
    }

    ml_comparison comparison = ml_compare(got, expected, COUNT, TOLERANCE);
    assert_int_equal(comparison.mismatches, COUNT / 2);
    assert_int_equal(comparison.reported, ML_MAX_REPORTED_MISMATCHES);
    for (size_t i = 0; i < ML_MAX_REPORTED_MISMATCHES; i++) {
        size_t index = 2 * i + 1;
        assert_int_equal(comparison.first_index[i], index);
        assert_float_equal(comparison.first_got[i], got[index], 1e-12);
        assert_float_equal(comparison.first_expected[i], expected[index], 1e-12);
    }
}

/* Below 1 the error is absolute: 1e-6 off from 1e-6 is 100% relative but only 1e-6 absolute. */
static void test_small_values_use_absolute_error(void **state)
{
    (void)state;
    const float expected[] = {1e-6f, 0.0f};
    const float got[] = {2e-6f, 5e-6f};

    ml_comparison comparison = ml_compare(got, expected, 2, TOLERANCE);
    assert_int_equal(comparison.mismatches, 0);
    assert_float_equal(comparison.max_rel_error, 5e-6, 1e-9);
}

static void test_empty(void **state)
{
    (void)state;
    ml_comparison comparison = ml_compare(NULL, NULL, 0, TOLERANCE);
    assert_int_equal(comparison.count, 0);
    assert_int_equal(comparison.mismatches, 0);
    assert_int_equal(comparison.reported, 0);
}

/* Prints the comparison into a temporary file and returns what was written. */
static void print_to_string(const ml_comparison *comparison, char *text, size_t capacity)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    ml_print_mismatches(stream, comparison);
    rewind(stream);
    size_t length = fread(text, 1, capacity - 1, stream);
    text[length] = '\0';
    fclose(stream);
}

static void test_print_mismatches(void **state)
{
    (void)state;
    const float expected[] = {1.0f, 0.25f, 2.0f};
    /* -NAN: the sign of a NaN means nothing and is not printed. */
    const float got[] = {1.0f, -NAN, 3.0f};
    ml_comparison comparison = ml_compare(got, expected, 3, TOLERANCE);

    char text[256];
    print_to_string(&comparison, text, sizeof text);
    assert_string_equal(text,
                        "  [1] got nan, expected 0.25 (error inf)\n"
                        "  [2] got 3, expected 2 (error 0.5)\n");
}

/* Counts compare exactly: one count off by one in 2^28 fails (a float would round it away), and
 * the report prints both counts whole. */
static void test_counts_compare_exactly(void **state)
{
    (void)state;
    uint32_t expected[COUNT], got[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        expected[i] = got[i] = (uint32_t)(i * 1000);
    expected[5] = 268435456u;
    got[5] = 268435455u;
    assert_true((float)expected[5] == (float)got[5]);

    ml_comparison comparison = ml_compare_counts(got, expected, COUNT);
    assert_int_equal(comparison.count, COUNT);
    assert_int_equal(comparison.mismatches, 1);
    assert_int_equal(comparison.reported, 1);
    assert_int_equal(comparison.first_index[0], 5);
    assert_true(comparison.max_rel_error > 0);

    char text[256];
    print_to_string(&comparison, text, sizeof text);
    assert_string_equal(text, "  [5] got 268435455, expected 268435456 (error 3.7e-09)\n");

    got[5] = expected[5];
    comparison = ml_compare_counts(got, expected, COUNT);
    assert_int_equal(comparison.mismatches, 0);
    assert_true(comparison.max_rel_error == 0);
}

static void test_print_mismatches_says_how_many_more(void **state)
{
    (void)state;
    float expected[COUNT] = {0};
    float got[COUNT];
    for (size_t i = 0; i < COUNT; i++) {
        got[i] = 0.5f;
    }
    ml_comparison comparison = ml_compare(got, expected, COUNT, TOLERANCE);

    char text[512];
    print_to_string(&comparison, text, sizeof text);
    assert_string_equal(text,
                        "  [0] got 0.5, expected 0 (error 0.5)\n"
                        "  [1] got 0.5, expected 0 (error 0.5)\n"
                        "  [2] got 0.5, expected 0 (error 0.5)\n"
                        "  [3] got 0.5, expected 0 (error 0.5)\n"
                        "  [4] got 0.5, expected 0 (error 0.5)\n"
                        "  ... and 11 more\n");
}

static void test_print_nothing_when_all_match(void **state)
{
    (void)state;
    const float values[] = {1.0f, 2.0f};
    ml_comparison comparison = ml_compare(values, values, 2, TOLERANCE);

    char text[64];
    print_to_string(&comparison, text, sizeof text);
    assert_string_equal(text, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative_error),
        cmocka_unit_test(test_identical_arrays),
        cmocka_unit_test(test_one_element_off),
        cmocka_unit_test(test_one_wrong_element_of_2_to_the_28),
        cmocka_unit_test(test_chunks_compare_like_the_whole),
        cmocka_unit_test(test_within_tolerance_passes),
        cmocka_unit_test(test_nan_fails),
        cmocka_unit_test(test_infinity_fails),
        cmocka_unit_test(test_many_mismatches),
        cmocka_unit_test(test_small_values_use_absolute_error),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_print_mismatches),
        cmocka_unit_test(test_print_mismatches_says_how_many_more),
        cmocka_unit_test(test_counts_compare_exactly),
        cmocka_unit_test(test_print_nothing_when_all_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
