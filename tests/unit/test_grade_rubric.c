/* test_grade_rubric: the rubric reader (tools/grade/rubric.c).
 *
 *   a well-formed rubric gives its cases, points, visibility, arguments, time limits and checks;
 *   every malformed line gives one error line "FILE:LINE: what is wrong";
 *   names are unique across the rubric and the --cases files;
 *   every lab's own rubric (labs/NN_PROGRAM/rubric) reads without an error. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "rubric.h"

static const char *const good =
    "# a comment\n"
    "timeout 20\n"
    "\n"
    "case small_correct 2 visible --variant strided --n 1001 --seed 3\n"
    "  check correct | thread i reads in[i * stride]\n"
    "case conflicts 1.5 hidden --variant padded --rows 67 --metrics shared_ld_conflicts_per_request\n"
    "timeout 90\n"
    "check shared_ld_conflicts_per_request < 0.2 | is your tile padded?\n"
    "check gld_transactions ~ predicted 5%\n"
    "check registers_per_thread <= 32\n"
    "case speed 3 after_due_date --variant coalesced --reps 20\n"
    "check time_ratio <= 1.25\n"
    "check shared_load_instructions ~ reference 2%\n"
    "case bounds 1 visible --variant all --n 1001\n"
    "check memcheck | check i < n\n"
    "check correct\n";

static void a_good_rubric_reads_whole(void **state)
{
    (void)state;
    rubric_set cases = {0};
    char error[512] = "";
    assert_int_equal(rubric_parse(&cases, good, "rubric", error, sizeof error), 0);
    assert_int_equal(cases.count, 4);

    const grading_case *small = rubric_find(&cases, "small_correct");
    assert_non_null(small);
    assert_true(small->points == 2.0);
    assert_string_equal(small->visibility, "visible");
    assert_string_equal(small->arguments, "--variant strided --n 1001 --seed 3");
    assert_int_equal(small->timeout_s, 20);
    assert_int_equal(small->check_count, 1);
    assert_int_equal(small->check[0].kind, CHECK_CORRECT);
    assert_string_equal(small->check[0].hint, "thread i reads in[i * stride]");
    assert_int_equal(small->line, 4);

    const grading_case *conflicts = rubric_find(&cases, "conflicts");
    assert_true(conflicts->points == 1.5);
    assert_int_equal(conflicts->timeout_s, 90);
    assert_int_equal(conflicts->check_count, 3);
    assert_int_equal(conflicts->check[0].kind, CHECK_BOUND);
    assert_int_equal(conflicts->check[0].op, OP_LT);
    assert_true(conflicts->check[0].bound == 0.2);
    assert_string_equal(conflicts->check[0].quantity, "shared_ld_conflicts_per_request");
    assert_int_equal(conflicts->check[1].kind, CHECK_PREDICTED);
    assert_true(conflicts->check[1].tolerance_pct == 5.0);
    assert_string_equal(conflicts->check[1].hint, "");
    assert_true(rubric_check_reads_counter(&conflicts->check[0]));
    assert_false(rubric_check_reads_counter(&conflicts->check[2]));
    assert_true(rubric_case_needs_model(conflicts));
    assert_false(rubric_case_needs_reference(conflicts));

    const grading_case *speed = rubric_find(&cases, "speed");
    assert_int_equal(speed->timeout_s, 20);     /* a case's timeout is its own */
    assert_true(rubric_case_needs_reference(speed));
    assert_int_equal(speed->check[1].kind, CHECK_REFERENCE);

    const char *tool = NULL;
    const grading_case *bounds = rubric_find(&cases, "bounds");
    assert_true(rubric_case_sanitizer(bounds, &tool));
    assert_string_equal(tool, "memcheck");
    assert_false(rubric_case_sanitizer(small, &tool));
    assert_null(rubric_find(&cases, "nope"));
    rubric_free(&cases);

    /* A warp primitive's mask is synccheck's to check. */
    rubric_set masks = {0};
    assert_int_equal(rubric_parse(&masks, "case masks 1 visible --n 7\ncheck synccheck\ncheck correct\n",
                                  "rubric", error, sizeof error), 0);
    const grading_case *shuffle = rubric_find(&masks, "masks");
    assert_int_equal(shuffle->check[0].kind, CHECK_SYNCCHECK);
    assert_true(rubric_case_sanitizer(shuffle, &tool));
    assert_string_equal(tool, "synccheck");
    rubric_free(&masks);
}

/* Each malformed text gives one error line that starts with "rubric:LINE:" and says what. */
static void expect_error(const char *text_in, int line, const char *expected_part)
{
    rubric_set cases = {0};
    char error[512] = "";
    assert_int_equal(rubric_parse(&cases, text_in, "rubric", error, sizeof error), -1);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "rubric:%d: ", line);
    if (strncmp(error, prefix, strlen(prefix)) != 0 || strstr(error, expected_part) == NULL)
        fail_msg("error '%s' is not '%s...%s'", error, prefix, expected_part);
    assert_null(strchr(error, '\n'));
    rubric_free(&cases);
}

static void malformed_lines_give_one_error_line(void **state)
{
    (void)state;
    expect_error("chek correct\n", 1, "unknown line 'chek'");
    expect_error("check correct\n", 1, "belongs under a case line");
    expect_error("case a\n", 1, "case NAME POINTS VISIBILITY");
    expect_error("case a 2\n", 1, "case NAME POINTS VISIBILITY");
    expect_error("# x\ncase a two visible --n 1\ncheck correct\n", 2, "points must be a number");
    expect_error("case a -1 visible --n 1\ncheck correct\n", 1, "points must be a number");
    expect_error("case a 1 secret --n 1\ncheck correct\n", 1, "visibility must be");
    expect_error("case a/b 1 visible --n 1\ncheck correct\n", 1, "case name 'a/b'");
    expect_error("case a 1 visible --n 1\n\ncase b 1 visible\ncheck correct\n", 1,
                 "case a has no check line");
    expect_error("case a 1 visible --n 1\n", 1, "case a has no check line");
    expect_error("case a 1 visible --format csv\ncheck correct\n", 1, "cannot hold --format");
    expect_error("case a 1 visible --out x.json\ncheck correct\n", 1, "cannot hold --out");
    expect_error("case a 1 visible --model\ncheck correct\n", 1, "cannot hold --model");
    /* The grader gives the submission's kernels itself; a case cannot run others. */
    expect_error("case a 1 visible --kernels x.cu\ncheck correct\n", 1, "cannot hold --kernels");
    expect_error("case a 1 visible --save-kernels x.fatbin\ncheck correct\n", 1,
                 "cannot hold --save-kernels");
    expect_error("case a 1 visible\ncheck correct\ncase a 2 visible\ncheck correct\n", 3,
                 "case 'a' is defined twice");
    expect_error("case a 1 visible\ncheck gld_efficiency >> 3\n", 2, "a check is");
    expect_error("case a 1 visible\ncheck gld_efficiency < many\n", 2, "'many' is not a number");
    expect_error("case a 1 visible\ncheck gld_efficiency ~ predicted 5\n", 2, "a percentage");
    expect_error("case a 1 visible\ncheck gld_efficiency ~ guessed 5%\n", 2, "predicted or reference");
    expect_error("case a 1 visible\ncheck time_ratio ~ predicted 5%\n", 2, "predicts hardware counters");
    expect_error("case a 1 visible\ncheck time_ratio ~ reference 5%\n", 2, "already relative");
    expect_error("case a 1 visible\ncheck correct |\n", 2, "nothing after '|'");
    expect_error("case a 1 visible\ncheck\n", 2, "a check is");
    expect_error("timeout 0\n", 1, "timeout takes whole seconds");
    expect_error("timeout 1.5\n", 1, "timeout takes whole seconds");
    expect_error("timeout\n", 1, "timeout takes whole seconds");
}

static void a_sanitizer_case_checks_nothing_timed(void **state)
{
    (void)state;
    expect_error("case a 1 visible --n 1\ncheck memcheck\ncheck gld_efficiency > 5\n", 3,
                 "runs under compute-sanitizer memcheck");
    expect_error("case a 1 visible --n 1\ncheck racecheck\ncheck memcheck\n", 3,
                 "runs under compute-sanitizer racecheck");
    expect_error("case a 1 visible --n 1\ncheck synccheck\ncheck racecheck\n", 3,
                 "runs under compute-sanitizer synccheck");
    expect_error("case a 1 visible --n 1\ncheck synccheck\ncheck time_ratio <= 2\n", 3,
                 "runs under compute-sanitizer synccheck");
    expect_error("case a 1 visible --n 1 --metrics none\ncheck memcheck\n", 1, "leave out --metrics");
}

static void names_are_unique_across_files(void **state)
{
    (void)state;
    rubric_set cases = {0};
    char error[512] = "";
    assert_int_equal(rubric_parse(&cases, "case a 1 visible\ncheck correct\n", "rubric", error,
                                  sizeof error), 0);
    assert_int_equal(rubric_parse(&cases, "case b 1 hidden\ncheck correct\n", "hidden", error,
                                  sizeof error), 0);
    assert_int_equal(cases.count, 2);
    assert_string_equal(rubric_find(&cases, "b")->file, "hidden");
    assert_int_equal(rubric_parse(&cases, "\ncase a 1 hidden\ncheck correct\n", "hidden", error,
                                  sizeof error), -1);
    assert_string_equal(error, "hidden:2: case 'a' is defined twice (names must be unique, "
                               "--cases files included)");
    rubric_free(&cases);
}

static void a_missing_file_is_one_error(void **state)
{
    (void)state;
    rubric_set cases = {0};
    char error[512] = "";
    assert_int_equal(rubric_read(&cases, "/nonexistent/rubric", error, sizeof error), -1);
    assert_string_equal(error, "/nonexistent/rubric: cannot read the file");
    rubric_free(&cases);
}

/* Every labs/NN_PROGRAM/rubric of the tree reads cleanly. */
static void every_lab_rubric_reads(void **state)
{
    (void)state;
    char labs[1024];
    snprintf(labs, sizeof labs, "%s/labs", MEMLAB_SOURCE_DIR);
    DIR *listing = opendir(labs);
    assert_non_null(listing);
    int rubrics = 0;
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s/rubric", labs, entry->d_name);
        FILE *file = fopen(path, "r");
        if (file == NULL)
            continue;
        fclose(file);
        rubric_set cases = {0};
        char error[512] = "";
        if (rubric_read(&cases, path, error, sizeof error) != 0)
            fail_msg("%s", error);
        assert_true(cases.count > 0);
        rubrics++;
        rubric_free(&cases);
    }
    closedir(listing);
    assert_true(rubrics >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_good_rubric_reads_whole),
        cmocka_unit_test(malformed_lines_give_one_error_line),
        cmocka_unit_test(a_sanitizer_case_checks_nothing_timed),
        cmocka_unit_test(names_are_unique_across_files),
        cmocka_unit_test(a_missing_file_is_one_error),
        cmocka_unit_test(every_lab_rubric_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
