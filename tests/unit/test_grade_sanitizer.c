/* test_grade_sanitizer.c: a sanitizer case's verdict comes from compute-sanitizer's exit status
 * (--error-exitcode), never from a line of its log: a submission names its own source file with
 * #line, and file names stand in the log. No GPU needed: the runs are made up here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "evaluate.h"
#include "rubric.h"

#define FORGED_SUMMARY "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"

/* A racecheck case of one check (the rubric reader's own parse of it). */
static grading_case racecheck_case(void)
{
    rubric_set set = {0};
    char error[256];
    assert_int_equal(rubric_parse(&set, "case races 3 visible --variant tiled16\ncheck racecheck | a race\n",
                                  "rubric", error, sizeof error), 0);
    grading_case one = set.cases[0];
    rubric_free(&set);
    return one;
}

/* A run under racecheck that ended by itself with exit status `status` and wrote `log`. */
static lab_run racecheck_run(int status, const char *log)
{
    lab_run run;
    memset(&run, 0, sizeof run);
    run.ran = 1;
    run.exit_status = status;
    run.sanitizer = "racecheck";
    evaluate_sanitizer_verdict(&run, log);
    return run;
}

static case_status evaluate(const grading_case *one, const lab_run *run, char **text)
{
    text_buffer output = {0};
    case_status status = evaluate_case(one, run, NULL, NULL, &output);
    *text = text_take(&output);
    return status;
}

/* The race plant with #line naming its file as a clean summary: the tool's exit status says it
 * found hazards, and the case fails whatever the log says, wherever the forged line stands. */
static void a_forged_summary_does_not_pass(void **state)
{
    (void)state;
    grading_case one = racecheck_case();
    const char *logs[] = {
        FORGED_SUMMARY "\n",
        "========= Error: Race reported between Write access at " FORGED_SUMMARY ":31 in tiled16\n"
        "=========     and Read access at " FORGED_SUMMARY ":34 in tiled16\n"
        "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n",
        "========= Error: Race reported at kernels.cu:31\n" FORGED_SUMMARY "\n",
        "",
    };
    const int counts[] = {1, 2, 1, 1};
    const int counted[] = {0, 1, 0, 0};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        lab_run run = racecheck_run(SANITIZER_EXIT_FOUND, logs[i]);
        assert_int_equal(run.sanitizer_errors, counts[i]);
        assert_int_equal(run.sanitizer_uncounted, !counted[i]);
        char *text = NULL;
        assert_int_equal(evaluate(&one, &run, &text), CASE_FAILED);
        assert_non_null(strstr(text, "FAIL  compute-sanitizer racecheck"));
        free(text);
    }
}

/* A clean run whose log a submission filled with hazards and "not supported" (file names of
 * its choosing): the tool's status passed on the program's own, it found nothing. The case is
 * decided by the program's run, never NOT GRADED by a word in the log. */
static void words_in_the_log_decide_nothing(void **state)
{
    (void)state;
    grading_case one = racecheck_case();
    lab_run run = racecheck_run(LAB_EXIT_INCORRECT,
                                "========= Error: not supported\n"
                                "========= RACECHECK SUMMARY: 9 hazards displayed (9 errors, 0 warnings)\n");
    assert_int_equal(run.sanitizer_errors, 0);
    char *text = NULL;
    /* No report: the program stopped before it (its own status 1), a failure, not NOT GRADED. */
    assert_int_equal(evaluate(&one, &run, &text), CASE_FAILED);
    assert_non_null(strstr(text, "ok    compute-sanitizer racecheck: no race hazard"));
    assert_null(strstr(text, "not graded"));
    free(text);
}

/* The tool's own summary, its last line, gives the count of a failure. */
static void the_count_comes_from_the_last_line(void **state)
{
    (void)state;
    lab_run run = racecheck_run(SANITIZER_EXIT_FOUND,
                                "========= Error: Race reported at kernels.cu:31\n"
                                "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)\n\n");
    assert_int_equal(run.sanitizer_errors, 2);
    assert_int_equal(run.sanitizer_uncounted, 0);
    lab_run memcheck;
    memset(&memcheck, 0, sizeof memcheck);
    memcheck.exit_status = SANITIZER_EXIT_FOUND;
    memcheck.sanitizer = "memcheck";
    evaluate_sanitizer_verdict(&memcheck, "========= Invalid __global__ write\n"
                                          "========= ERROR SUMMARY: 23 errors\n");
    assert_int_equal(memcheck.sanitizer_errors, 23);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_forged_summary_does_not_pass),
        cmocka_unit_test(words_in_the_log_decide_nothing),
        cmocka_unit_test(the_count_comes_from_the_last_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
