/* test_chips.c: the metric table against one chip of each GPU family from Volta on, through
 * CUPTI's Profiler Host API (no GPU needed): GV100 (Volta), TU104 (Turing), GA100 and GA102
 * (Ampere), AD102 and AD104 (Ada), GH100 (Hopper). Every Perfworks name the table reads must be a
 * metric of each, alone and all together in one configuration; and a counter a chip lacks is
 * refused with one line naming the counter and the chip (GB202, Blackwell, has no
 * dram__bytes_read.sum under that name with CUDA 13.0), which a run reports before it goes on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "profiler.h"

#define MAX_NAMES 256

static const char *const family_chips[] = {"GV100", "TU104", "GA100", "GA102",
                                           "AD102", "AD104", "GH100"};

/* Every distinct Perfworks name the table reads (derived metrics: both of their inputs). */
static size_t table_names(const char *names[MAX_NAMES])
{
    size_t count = 0;
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const char *inputs[2];
        size_t input_count = prof_metric_inputs(prof_metric_at(i), inputs);
        for (size_t k = 0; k < input_count; k++) {
            int seen = 0;
            for (size_t j = 0; j < count && !seen; j++)
                seen = strcmp(names[j], inputs[k]) == 0;
            if (!seen) {
                assert_true(count < MAX_NAMES);
                names[count++] = inputs[k];
            }
        }
    }
    return count;
}

static void every_family_knows_every_table_name(void **state)
{
    (void)state;
    const char *names[MAX_NAMES];
    size_t count = table_names(names);
    assert_true(count >= 20);   /* the table reads dozens of counters: a short list is a bug */
    for (size_t c = 0; c < sizeof family_chips / sizeof family_chips[0]; c++) {
        const char *chip = family_chips[c];
        for (size_t i = 0; i < count; i++) {
            size_t bad_index = 99, passes = 0;
            if (prof_validate_metrics(chip, &names[i], 1, &bad_index, &passes) != PROF_OK)
                fail_msg("%s: %s", chip, prof_last_error());
            assert_true(passes >= 1);
        }
        size_t passes = 0;
        if (prof_validate_metrics(chip, names, count, NULL, &passes) != PROF_OK)
            fail_msg("%s, the whole table in one configuration: %s", chip, prof_last_error());
        /* Instrumented and hardware counters take passes of their own. */
        assert_true(passes >= 2);
    }
}

static void a_counter_a_chip_lacks_is_one_line(void **state)
{
    (void)state;
    const char *names[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                           "dram__bytes_read.sum"};
    size_t bad_index = 99, passes = 99;
    assert_int_equal(prof_validate_metrics("GB202", names, 2, &bad_index, &passes),
                     PROF_ERR_UNKNOWN_METRIC);
    assert_int_equal(bad_index, 1);
    assert_int_equal(passes, 99);
    const char *line = prof_last_error();
    assert_non_null(strstr(line, "dram__bytes_read.sum"));
    assert_non_null(strstr(line, "GB202"));
    assert_null(strchr(line, '\n'));
    /* The same names on a chip that has them. */
    assert_int_equal(prof_validate_metrics("GH100", names, 2, NULL, &passes), PROF_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_family_knows_every_table_name),
        cmocka_unit_test(a_counter_a_chip_lacks_is_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
