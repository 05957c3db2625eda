/* test_reference: the reference the harness computes after setup from the family's reference_at
 * (ml_expect_output_from_reference_at, runner/checks.c): every element of the output in chunks
 * over the cores, or only the checked ones, floats or counts, each value the one reference_at
 * gives its position; a reference setup fills itself is left alone. No GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "checks.h"
#include "memlab.h"

/* Element i of the output is 3i + 1: a float, or a count. */
static void thrice_plus_one(const ml_problem *problem, const size_t *position, size_t count,
                            void *values)
{
    for (size_t k = 0; k < count; k++) {
        if (problem->output_kind == ML_OUTPUT_COUNTED)
            ((uint32_t *)values)[k] = (uint32_t)(3 * position[k] + 1);
        else
            ((float *)values)[k] = (float)(3 * position[k] + 1);
    }
}

static const ml_family thrice = {.name = "thrice", .reference_at = thrice_plus_one};
static const ml_variant variant = {.name = "thrice", .family = &thrice};
static const ml_lab lab = {.program = "test_reference", .variants = &variant, .num_variants = 1};

/* An output of count elements whose reference setup left to the harness. */
static ml_problem left_to_the_harness(size_t count, ml_output_kind kind)
{
    ml_problem problem = {.lab = &lab, .variant = &variant, .output_count = count,
                          .output_kind = kind, .reference_from_reference_at = 1};
    return problem;
}

/* Several chunks of positions and a part of one. */
#define ELEMENTS (3 * 4096 + 5)

static void test_every_element_of_a_written_output(void **state)
{
    (void)state;
    ml_problem problem = left_to_the_harness(ELEMENTS, ML_OUTPUT_WRITTEN);
    ml_fill_reference(&problem);
    assert_non_null(problem.reference);
    assert_null(problem.reference_counts);
    for (size_t i = 0; i < ELEMENTS; i++)
        assert_true(problem.reference[i] == (float)(3 * i + 1));
    ml_free_run_buffers(&problem);
}

static void test_every_count_of_a_counted_output(void **state)
{
    (void)state;
    ml_problem problem = left_to_the_harness(ELEMENTS, ML_OUTPUT_COUNTED);
    ml_fill_reference(&problem);
    assert_non_null(problem.reference_counts);
    assert_null(problem.reference);
    for (size_t i = 0; i < ELEMENTS; i++)
        assert_int_equal(problem.reference_counts[i], 3 * i + 1);
    ml_free_run_buffers(&problem);
}

static void test_only_the_checked_positions_of_a_sampled_output(void **state)
{
    (void)state;
    size_t output_count = 1000003, checked = 2 * 4096 + 7;
    ml_problem problem = left_to_the_harness(output_count, ML_OUTPUT_WRITTEN);
    size_t *check_index = malloc(checked * sizeof *check_index);
    assert_non_null(check_index);
    for (size_t k = 0; k < checked; k++)
        check_index[k] = k * 101 % output_count;
    problem.check_index = check_index;
    problem.check_count = checked;
    ml_fill_reference(&problem);
    for (size_t k = 0; k < checked; k++)
        assert_true(problem.reference[k] == (float)(3 * check_index[k] + 1));
    ml_free_run_buffers(&problem);
    free(check_index);
}

static void test_a_reference_setup_filled_is_left_alone(void **state)
{
    (void)state;
    float filled[4] = {7, 7, 7, 7};
    ml_problem problem = left_to_the_harness(4, ML_OUTPUT_WRITTEN);
    problem.reference_from_reference_at = 0;
    problem.reference = filled;
    ml_fill_reference(&problem);
    assert_ptr_equal(problem.reference, filled);
    assert_true(filled[0] == 7 && filled[3] == 7);
    assert_int_equal(problem.buffer_count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_element_of_a_written_output),
        cmocka_unit_test(test_every_count_of_a_counted_output),
        cmocka_unit_test(test_only_the_checked_positions_of_a_sampled_output),
        cmocka_unit_test(test_a_reference_setup_filled_is_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
