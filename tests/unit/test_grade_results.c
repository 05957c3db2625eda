/* test_grade_results: a rubric case's checks against lab reports (tools/grade/evaluate.c), and
 * the grading results in Gradescope's, PrairieLearn's, the plain and the feedback format
 * (tools/grade/results.c).
 *
 *   each check passes, fails or is not graded for the right reason, and says what it expected,
 *   what was measured and the rubric's hint;
 *   a crash, a hang, a CUDA error, no device, a sanitizer's findings end a case with a message;
 *   counters that were not read never pass, and neither does a case without its reference;
 *   Gradescope: score, max_score, execution_time, output, tests[] {name, score, max_score,
 *   status, output, visibility}; PrairieLearn: gradable, score in [0, 1], message, tests[]
 *   {name, points, max_points, message}; a compile error scores 0 with the compiler's message
 *   (Gradescope) or is not gradable with it (PrairieLearn), and so does a refused submission,
 *   with the program's one line; a host that can grade nothing (no device, counters not
 *   readable) scores nothing and says why once, each case "not graded" in a few words, while a
 *   case not graded alone leaves the others their points; the feedback (what a student sees on
 *   Gradescope) leaves out the hidden cases;
 *   a kernels file that lacks a kernel fails the case with the program's line; output past the
 *   grader's cap is noted and the case graded on its report; a flood of output is capped
 *   (runner/process.c) and what is shown of it is sanitized (tools/grade/text.c). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluate.h"
#include "process.h"
#include "results.h"
#include "rubric.h"
#include "text.h"

/* ---- fixtures -------------------------------------------------------------------------------- */

/* A lab report with one record, as the lab programs write it. */
static cJSON *report(const char *variant, int correct, double measured, double predicted,
                     double median_ms, const char *profiler_note)
{
    char text[2048];
    char measured_text[32], predicted_text[32], note[256];
    snprintf(measured_text, sizeof measured_text, isnan(measured) ? "null" : "%.17g", measured);
    snprintf(predicted_text, sizeof predicted_text, isnan(predicted) ? "null" : "%.17g", predicted);
    snprintf(note, sizeof note, profiler_note != NULL ? "\"%s\"" : "null",
             profiler_note != NULL ? profiler_note : "");
    snprintf(text, sizeof text,
             "{\"lab\": \"coalescing\", \"profiler_note\": %s, \"records\": [{"
             "\"variant\": \"%s\", \"params\": {\"n\": 1001, \"stride\": 4},"
             "\"timing\": {\"median_ms\": %g}, \"correct\": %s, \"mismatches\": %d,"
             "\"max_rel_error\": %s,"
             "\"resources\": {\"registers_per_thread\": 16, \"local_bytes_per_thread\": 0,"
             " \"shared_bytes_per_block\": 4224},"
             "\"metrics\": {\"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct\":"
             " {\"alias\": \"gld_efficiency\", \"unit\": \"%%\", \"predicted\": %s,"
             " \"measured\": %s}}}]}",
             note, variant, median_ms, correct ? "true" : "false", correct ? 0 : 1001,
             correct ? "0" : "1", predicted_text, measured_text);
    cJSON *parsed = cJSON_Parse(text);
    assert_non_null(parsed);
    return parsed;
}

static lab_run finished(cJSON *json)
{
    lab_run run;
    memset(&run, 0, sizeof run);
    run.ran = 1;
    run.time_limit_s = 30;
    run.exit_status = LAB_EXIT_OK;
    run.report = json;
    return run;
}

static grading_case one_case(const char *text_in)
{
    rubric_set cases = {0};
    char error[512];
    if (rubric_parse(&cases, text_in, "rubric", error, sizeof error) != 0)
        fail_msg("%s", error);
    grading_case copy = cases.cases[0];
    rubric_free(&cases);
    return copy;
}

/* Evaluates and returns the output text (caller frees). */
static char *evaluate(const grading_case *rubric_case, const lab_run *submission,
                      const lab_run *reference, const lab_run *model, case_status expected)
{
    text_buffer output = {0};
    case_status status = evaluate_case(rubric_case, submission, reference, model, &output);
    char *text = text_take(&output);
    if (status != expected)
        fail_msg("status %d, expected %d; output:\n%s", status, expected, text);
    return text;
}

static void expect_text(const char *text, const char *part)
{
    if (strstr(text, part) == NULL)
        fail_msg("output lacks '%s':\n%s", part, text);
}

/* ---- evaluate_case --------------------------------------------------------------------------- */

static void correct_passes_and_fails_with_the_mismatch_count(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case c 2 visible --n 1001\ncheck correct | read in[i * stride]\n");
    lab_run good = finished(report("strided", 1, NAN, NAN, 1.0, NULL));
    char *text = evaluate(&rubric_case, &good, NULL, NULL, CASE_PASSED);
    expect_text(text, "ok    correct");
    free(text);

    lab_run bad = finished(report("strided", 0, NAN, NAN, 1.0, NULL));
    bad.exit_status = LAB_EXIT_INCORRECT;
    text = evaluate(&rubric_case, &bad, NULL, NULL, CASE_FAILED);
    expect_text(text, "FAIL  correct, strided (n=1001 stride=4): 1001 elements differ");
    expect_text(text, "read in[i * stride]");
    free(text);
    cJSON_Delete(good.report);
    cJSON_Delete(bad.report);
}

static void a_bound_says_measured_and_expected(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case c 2 visible\ncheck gld_efficiency >= 95 | use float4\n");
    lab_run low = finished(report("coalesced", 1, 25.0, 100.0, 1.0, NULL));
    char *text = evaluate(&rubric_case, &low, NULL, NULL, CASE_FAILED);
    expect_text(text, "FAIL  gld_efficiency, coalesced (n=1001 stride=4): measured 25 %, expected >= 95");
    expect_text(text, "use float4");
    free(text);
    lab_run high = finished(report("coalesced", 1, 100.0, 100.0, 1.0, NULL));
    text = evaluate(&rubric_case, &high, NULL, NULL, CASE_PASSED);
    expect_text(text, "ok    gld_efficiency");
    assert_null(strstr(text, "use float4"));    /* hints only for failures */
    free(text);

    grading_case resource = one_case("case r 1 visible\ncheck shared_bytes_per_block >= 4224\n");
    text = evaluate(&resource, &high, NULL, NULL, CASE_PASSED);
    expect_text(text, "measured 4224 bytes");
    free(text);
    cJSON_Delete(low.report);
    cJSON_Delete(high.report);
}

/* A chase record as lab 07 writes it: its cycles per load, or null where the kernel's clock was
 * missing or not believed. */
static cJSON *chase_report(const char *latency)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"lab\": \"hierarchy_map\", \"profiler_note\": null, \"records\": [{"
             "\"variant\": \"dram_chase\", \"params\": {\"loads\": 16384},"
             "\"timing\": {\"median_ms\": 5.5}, \"correct\": true, \"mismatches\": 0,"
             "\"max_rel_error\": 0, \"latency\": %s, \"metrics\": {}}]}", latency);
    cJSON *parsed = cJSON_Parse(text);
    assert_non_null(parsed);
    return parsed;
}

/* cycles_per_op against the reference solution's: an independent-load chase's 12 cycles fail
 * where the reference measured 664; a record without cycles fails too. */
static void cycles_per_op_against_the_reference(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case d 4 visible\ncheck cycles_per_op ~ reference 25% | wait\n");
    lab_run reference = finished(chase_report("{\"cycles_per_op\": 664, \"ns_per_op\": 335}"));
    lab_run close = finished(chase_report("{\"cycles_per_op\": 650, \"ns_per_op\": 328}"));
    lab_run independent = finished(chase_report("{\"cycles_per_op\": 12, \"ns_per_op\": 6}"));
    lab_run no_clock = finished(chase_report("null"));
    char *text = evaluate(&rubric_case, &close, &reference, NULL, CASE_PASSED);
    expect_text(text, "ok    cycles_per_op, dram_chase (loads=16384): measured 650 cycles, expected 664");
    free(text);
    text = evaluate(&rubric_case, &independent, &reference, NULL, CASE_FAILED);
    expect_text(text, "FAIL  cycles_per_op, dram_chase (loads=16384): measured 12 cycles");
    expect_text(text, "wait");
    free(text);
    text = evaluate(&rubric_case, &no_clock, &reference, NULL, CASE_FAILED);
    expect_text(text, "no cycles per operation");
    free(text);
    cJSON_Delete(reference.report);
    cJSON_Delete(close.report);
    cJSON_Delete(independent.report);
    cJSON_Delete(no_clock.report);
}

static void predictions_come_from_the_model_run(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case p 2 visible\ncheck gld_efficiency ~ predicted 2% | one load\n");
    /* The submission claims a prediction of 25 that matches its 25; the reference model says 50. */
    lab_run submission = finished(report("strided", 1, 25.0, 25.0, 1.0, NULL));
    lab_run model = finished(report("strided", 1, NAN, 50.0, 1.0, "not read: --model gives predictions only"));
    char *text = evaluate(&rubric_case, &submission, NULL, &model, CASE_FAILED);
    expect_text(text, "measured 25 %, expected 50 \xc2\xb1 2% (the access model's prediction)");
    expect_text(text, "one load");
    free(text);
    /* Within the tolerance. */
    lab_run close = finished(report("strided", 1, 50.9, 25.0, 1.0, NULL));
    text = evaluate(&rubric_case, &close, NULL, &model, CASE_PASSED);
    free(text);
    /* Without a model run, the prediction in the submission's report (the same program's). */
    text = evaluate(&rubric_case, &submission, NULL, NULL, CASE_PASSED);
    free(text);
    cJSON_Delete(submission.report);
    cJSON_Delete(model.report);
    cJSON_Delete(close.report);
}

/* Adds the lab's FLOP/s ceiling (cuBLAS, no counters of its own) beside the report's record. */
static void add_ceiling_record(cJSON *report_json)
{
    cJSON_AddStringToObject(report_json, "flops_ceiling_variant", "cublas");
    cJSON *ceiling = cJSON_Parse("{\"variant\": \"cublas\", \"params\": {\"n\": 1001, \"stride\": 4},"
                                 " \"timing\": {\"median_ms\": 1}, \"correct\": true,"
                                 " \"mismatches\": 0, \"metrics\": {}}");
    assert_non_null(ceiling);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(report_json, "records"), ceiling);
}

static void the_flops_ceiling_is_not_the_submission(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case t 2 visible\ncheck gld_efficiency ~ predicted 2%\n");
    lab_run submission = finished(report("tiled16", 1, 50.0, 50.0, 1.0, NULL));
    lab_run model = finished(report("tiled16", 1, NAN, 50.0, 1.0, "not read: --model"));
    add_ceiling_record(submission.report);
    add_ceiling_record(model.report);
    char *text = evaluate(&rubric_case, &submission, NULL, &model, CASE_PASSED);
    assert_null(strstr(text, "cublas"));
    free(text);
    /* A case that runs the ceiling alone judges it. */
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(submission.report, "records"), 0);
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(model.report, "records"), 0);
    text = evaluate(&rubric_case, &submission, NULL, &model, CASE_FAILED);
    expect_text(text, "cublas");
    free(text);
    cJSON_Delete(submission.report);
    cJSON_Delete(model.report);
}

static void counters_not_read_never_pass(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case c 2 visible\ncheck correct\ncheck gld_efficiency >= 0\n");
    lab_run unread = finished(report("strided", 1, NAN, 25.0, 1.0,
                                     "not read: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"));
    char *text = evaluate(&rubric_case, &unread, NULL, NULL, CASE_NOT_GRADED);
    expect_text(text, "not graded  gld_efficiency");
    expect_text(text, "hardware counters were not read on the grading host");
    free(text);
    /* Read, but no value (a ratio over zero accesses): that is the kernel's doing. */
    lab_run empty = finished(report("strided", 1, NAN, 25.0, 1.0, NULL));
    text = evaluate(&rubric_case, &empty, NULL, NULL, CASE_FAILED);
    expect_text(text, "its denominator was 0");
    free(text);
    /* A failed check outweighs one that cannot be graded. */
    lab_run wrong = finished(report("strided", 0, NAN, 25.0, 1.0, "not read: no permission"));
    text = evaluate(&rubric_case, &wrong, NULL, NULL, CASE_FAILED);
    free(text);
    cJSON_Delete(unread.report);
    cJSON_Delete(empty.report);
    cJSON_Delete(wrong.report);
}

static void time_ratio_needs_the_reference(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case s 2 visible\ncheck time_ratio <= 1.25 | too slow\n");
    lab_run slow = finished(report("coalesced", 1, NAN, NAN, 3.0, NULL));
    lab_run reference = finished(report("coalesced", 1, NAN, NAN, 1.0, NULL));
    char *text = evaluate(&rubric_case, &slow, &reference, NULL, CASE_FAILED);
    expect_text(text, "3 ms / the reference solution's 1 ms = 3, expected <= 1.25");
    expect_text(text, "too slow");
    free(text);
    lab_run fast = finished(report("coalesced", 1, NAN, NAN, 1.1, NULL));
    text = evaluate(&rubric_case, &fast, &reference, NULL, CASE_PASSED);
    free(text);
    lab_run none = {0};
    text = evaluate(&rubric_case, &fast, &none, NULL, CASE_NOT_GRADED);
    expect_text(text, "does not hold");
    free(text);
    lab_run broken = finished(NULL);
    broken.exit_status = LAB_EXIT_CUDA_ERROR;
    text = evaluate(&rubric_case, &fast, &broken, NULL, CASE_NOT_GRADED);
    expect_text(text, "the reference solution failed this case");
    free(text);
    cJSON_Delete(slow.report);
    cJSON_Delete(reference.report);
    cJSON_Delete(fast.report);
}

static void a_run_that_did_not_finish_fails_with_why(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case c 2 visible\ncheck correct\n");
    lab_run hang = finished(NULL);
    hang.timed_out = 1;
    char *text = evaluate(&rubric_case, &hang, NULL, NULL, CASE_FAILED);
    expect_text(text, "ran past the case's time limit (30 s)");
    free(text);

    lab_run crash = finished(NULL);
    crash.signal = SIGSEGV;
    text = evaluate(&rubric_case, &crash, NULL, NULL, CASE_FAILED);
    expect_text(text, "crashed: killed by signal 11");
    free(text);

    lab_run cuda = finished(NULL);
    cuda.exit_status = LAB_EXIT_CUDA_ERROR;
    snprintf(cuda.stderr_tail, sizeof cuda.stderr_tail,
             "memlab: harness.c:300: cudaDeviceSynchronize() failed: an illegal memory access was "
             "encountered (cudaErrorIllegalAddress)\n");
    text = evaluate(&rubric_case, &cuda, NULL, NULL, CASE_FAILED);
    expect_text(text, "a CUDA error stopped the program: memlab: harness.c:300:");
    expect_text(text, "an access outside an array?");
    free(text);

    lab_run no_report = finished(NULL);
    text = evaluate(&rubric_case, &no_report, NULL, NULL, CASE_FAILED);
    expect_text(text, "wrote no JSON report");
    free(text);

    lab_run no_device = finished(NULL);
    no_device.exit_status = LAB_EXIT_NO_DEVICE;
    snprintf(no_device.stderr_tail, sizeof no_device.stderr_tail, "coalescing: no usable CUDA device\n");
    text = evaluate(&rubric_case, &no_device, NULL, NULL, CASE_NOT_GRADED);
    expect_text(text, "no usable CUDA device");
    free(text);
}

static void a_missing_kernel_fails_the_case_with_the_programs_line(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case c 2 visible --variant strided\ncheck correct\n");
    lab_run missing = finished(NULL);
    missing.exit_status = LAB_EXIT_INCORRECT;
    snprintf(missing.stderr_tail, sizeof missing.stderr_tail,
             "coalescing: your kernels.cu defines no kernel 'copy_strided' (variant strided "
             "launches it): declare it extern \"C\" __global__\n");
    char *text = evaluate(&rubric_case, &missing, NULL, NULL, CASE_FAILED);
    expect_text(text, "FAIL  the program wrote no JSON report (exit status 1): coalescing: your "
                      "kernels.cu defines no kernel 'copy_strided'");
    free(text);
}

static void output_past_the_cap_is_noted_and_the_report_graded(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case c 2 visible --variant strided\ncheck correct\n");
    lab_run flood = finished(report("strided", 1, NAN, NAN, 1.0, NULL));
    flood.output_cap_bytes = 1048576;
    flood.output_cut_bytes = 5000000;
    snprintf(flood.stdout_tail, sizeof flood.stdout_tail, "thread 12 was here\nthread 13 was here\n");
    char *text = evaluate(&rubric_case, &flood, NULL, NULL, CASE_PASSED);
    expect_text(text, "ok    correct");
    expect_text(text, "note  the program printed more than the grader keeps (1048576 bytes");
    expect_text(text, "5000000 bytes were dropped");
    expect_text(text, "its last line on stdout: thread 13 was here");
    free(text);
    /* Wrong is wrong, however much it printed. */
    lab_run wrong = flood;
    wrong.report = report("strided", 0, NAN, NAN, 1.0, NULL);
    text = evaluate(&rubric_case, &wrong, NULL, NULL, CASE_FAILED);
    expect_text(text, "FAIL  correct");
    free(text);
    cJSON_Delete(flood.report);
    cJSON_Delete(wrong.report);
}

static void a_reference_that_fails_its_check_is_no_reference(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case s 2 visible\ncheck time_ratio <= 1.25\n");
    lab_run fast = finished(report("coalesced", 1, NAN, NAN, 1.0, NULL));
    lab_run skeleton = finished(report("coalesced", 0, NAN, NAN, 0.1, NULL));
    skeleton.exit_status = LAB_EXIT_INCORRECT;
    char *text = evaluate(&rubric_case, &fast, &skeleton, NULL, CASE_NOT_GRADED);
    expect_text(text, "no reference solution to compare with");
    free(text);
    cJSON_Delete(fast.report);
    cJSON_Delete(skeleton.report);
}

static void the_sanitizer_speaks_first(void **state)
{
    (void)state;
    grading_case rubric_case = one_case("case b 2 visible\ncheck memcheck | check i < n\ncheck correct\n");
    lab_run dirty = finished(report("strided", 1, NAN, NAN, 1.0, NULL));
    dirty.sanitizer = "memcheck";
    dirty.sanitizer_errors = 23;
    snprintf(dirty.sanitizer_log, sizeof dirty.sanitizer_log,
             "========= Invalid __global__ write of size 4 bytes\n");
    char *text = evaluate(&rubric_case, &dirty, NULL, NULL, CASE_FAILED);
    expect_text(text, "FAIL  compute-sanitizer memcheck: 23 memory errors, expected none");
    expect_text(text, "check i < n");
    expect_text(text, "Invalid __global__ write");
    free(text);

    lab_run clean = dirty;
    clean.sanitizer_errors = 0;
    text = evaluate(&rubric_case, &clean, NULL, NULL, CASE_PASSED);
    expect_text(text, "ok    compute-sanitizer memcheck: no memory error");
    expect_text(text, "ok    correct");
    free(text);

    lab_run broken = dirty;
    broken.sanitizer_errors = -1;
    text = evaluate(&rubric_case, &broken, NULL, NULL, CASE_NOT_GRADED);
    expect_text(text, "did not finish on the grading host");
    free(text);
    cJSON_Delete(dirty.report);
}

/* ---- the result formats ---------------------------------------------------------------------- */

typedef struct {
    grading_case cases[3];
    case_result results[3];
    grade_result result;
} graded;

/* Three cases: a visible pass (2 points), a visible failure (3), a hidden pass (1). */
static void make_graded(graded *g)
{
    memset(g, 0, sizeof *g);
    g->cases[0] = one_case("case first 2 visible --n 1\ncheck correct\n");
    g->cases[1] = one_case("case second 3 visible --n 2\ncheck correct\n");
    g->cases[2] = one_case("case third 1 hidden --n 3\ncheck correct\n");
    case_status statuses[3] = {CASE_PASSED, CASE_FAILED, CASE_PASSED};
    const char *outputs[3] = {"ok    correct\n", "FAIL  correct, strided: 4 elements differ\n",
                              "ok    correct\n"};
    for (int i = 0; i < 3; i++) {
        g->results[i].rubric_case = &g->cases[i];
        g->results[i].status = statuses[i];
        g->results[i].ran = 1;
        g->results[i].output = (char *)outputs[i];
    }
    g->result.lab = "coalescing";
    g->result.submission = "coalescing.cu";
    g->result.compiled = 1;
    g->result.gradable = 1;
    g->result.execution_time_s = 12.4;
    g->result.cases = g->results;
    g->result.case_count = 3;
}

static cJSON *parsed(char *document)
{
    cJSON *json = cJSON_Parse(document);
    free(document);
    assert_non_null(json);
    return json;
}

static double number(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    assert_true(cJSON_IsNumber(item));
    return item->valuedouble;
}

static const char *string(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    assert_true(cJSON_IsString(item));
    return item->valuestring;
}

/* Gradescope's spec: the keys of the file and of each test, their types and their values. */
static void check_gradescope_shape(const cJSON *json, double score, double max_score)
{
    assert_true(number(json, "score") == score);
    assert_true(number(json, "max_score") == max_score);
    assert_true(number(json, "execution_time") >= 0);
    string(json, "output");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(json, "tests");
    assert_true(cJSON_IsArray(tests));
    double sum = 0, max_sum = 0;
    const cJSON *test = NULL;
    cJSON_ArrayForEach(test, tests)
    {
        string(test, "name");
        string(test, "output");
        double test_score = number(test, "score"), test_max = number(test, "max_score");
        assert_true(test_score >= 0 && test_score <= test_max);
        const char *status = string(test, "status");
        assert_true(strcmp(status, "passed") == 0 || strcmp(status, "failed") == 0);
        assert_true((strcmp(status, "passed") == 0) == (test_score == test_max && test_max > 0));
        const char *visibility = string(test, "visibility");
        assert_true(strcmp(visibility, "visible") == 0 || strcmp(visibility, "hidden") == 0 ||
                    strcmp(visibility, "after_due_date") == 0 ||
                    strcmp(visibility, "after_published") == 0);
        sum += test_score;
        max_sum += test_max;
    }
    assert_true(sum == score);
    assert_true(max_sum == max_score);
}

static void gradescope_results_follow_the_spec(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    assert_true(grade_score(&g.result) == 3.0);
    assert_true(grade_max_score(&g.result) == 6.0);
    cJSON *json = parsed(results_gradescope(&g.result));
    check_gradescope_shape(json, 3.0, 6.0);
    assert_true(number(json, "execution_time") == 12.0);
    assert_string_equal(string(json, "output_format"), "text");
    const cJSON *second = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "tests"), 1);
    assert_string_equal(string(second, "name"), "second");
    assert_string_equal(string(second, "status"), "failed");
    assert_non_null(strstr(string(second, "output"), "4 elements differ"));
    const cJSON *third = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "tests"), 2);
    assert_string_equal(string(third, "visibility"), "hidden");
    cJSON_Delete(json);
}

static void prairielearn_results_follow_the_spec(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    cJSON *json = parsed(results_prairielearn(&g.result));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "gradable")));
    assert_true(fabs(number(json, "score") - 0.5) < 1e-12);
    string(json, "message");
    string(json, "output");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(json, "tests");
    assert_int_equal(cJSON_GetArraySize(tests), 2);     /* the hidden case is not listed */
    const cJSON *test = NULL;
    cJSON_ArrayForEach(test, tests)
    {
        string(test, "name");
        string(test, "message");
        assert_true(number(test, "points") >= 0 && number(test, "points") <= number(test, "max_points"));
    }
    const cJSON *second = cJSON_GetArrayItem(tests, 1);
    assert_true(number(second, "points") == 0);
    assert_non_null(strstr(string(second, "message"), "4 elements differ"));
    cJSON_Delete(json);
}

static void a_compile_error_scores_zero_with_the_message(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    g.result.compiled = 0;
    g.result.graded_as = "labs/04_coalescing/kernels.cu";
    g.result.program = "coalescing";
    g.result.build_output = "coalescing.cu(58): error: expected a \";\"\n";
    for (int i = 0; i < 3; i++) {
        g.results[i].ran = 0;
        g.results[i].output = NULL;
    }
    assert_true(grade_score(&g.result) == 0);

    cJSON *json = parsed(results_gradescope(&g.result));
    check_gradescope_shape(json, 0.0, 6.0);
    assert_non_null(strstr(string(json, "output"), "coalescing.cu(58): error: expected a \";\""));
    assert_non_null(strstr(string(json, "output"), "did not compile"));
    cJSON_Delete(json);

    json = parsed(results_prairielearn(&g.result));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(json, "gradable")));
    assert_null(cJSON_GetObjectItemCaseSensitive(json, "score"));
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(json, "format_errors");
    assert_true(cJSON_IsArray(errors));
    assert_non_null(strstr(cJSON_GetArrayItem(errors, 0)->valuestring, "error: expected a"));
    cJSON_Delete(json);

    char *text = results_text(&g.result);
    assert_non_null(strstr(text, "score: 0 / 6"));
    assert_non_null(strstr(text, "graded as labs/04_coalescing/kernels.cu, run by the instructor's "
                                 "coalescing program"));
    assert_non_null(strstr(text, "case first: FAIL, 0 / 2 points"));
    assert_non_null(strstr(text, "not run: the submission did not compile"));
    free(text);
}

static void a_refused_submission_scores_zero_with_one_line(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    const char *line = "coalescing: kernels.cu: line 3: #include \"rubric\" is not allowed: a "
                       "kernels file includes only CUDA headers (<cuda_runtime.h>, ...) and "
                       "\"coalescing.h\"";
    g.result.compiled = 0;
    g.result.refused = 1;
    g.result.build_output = (char *)line;
    for (int i = 0; i < 3; i++) {
        g.results[i].ran = 0;
        g.results[i].output = NULL;
    }
    cJSON *json = parsed(results_gradescope(&g.result));
    check_gradescope_shape(json, 0.0, 6.0);
    assert_non_null(strstr(string(json, "output"), "was refused before it was compiled"));
    assert_non_null(strstr(string(json, "output"), line));
    assert_null(strstr(string(json, "output"), "compiler said"));
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "tests"), 0);
    assert_string_equal(string(first, "status"), "failed");
    assert_non_null(strstr(string(first, "output"), "not run: the submission was refused"));
    cJSON_Delete(json);

    json = parsed(results_prairielearn(&g.result));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(json, "gradable")));
    assert_string_equal(string(json, "message"), "The submission was refused.");
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(json, "format_errors");
    assert_int_equal(cJSON_GetArraySize(errors), 1);
    assert_string_equal(cJSON_GetArrayItem(errors, 0)->valuestring, line);
    cJSON_Delete(json);

    char *text = results_text(&g.result);
    assert_non_null(strstr(text, "score: 0 / 6"));
    assert_non_null(strstr(text, "not run: the submission was refused"));
    free(text);
}

/* Counts the times `part` is in text. */
static int occurrences(const char *text, const char *part)
{
    int count = 0;
    for (const char *found = strstr(text, part); found != NULL; found = strstr(found + 1, part))
        count++;
    return count;
}

static void no_device_scores_nothing_and_says_why_once(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    g.result.gradable = 0;
    g.result.host_unable = 1;
    snprintf(g.result.brief, sizeof g.result.brief, "no usable CUDA device");
    snprintf(g.result.reason, sizeof g.result.reason,
             "the grading host has no usable CUDA device (the lab program said: no device)");
    for (int i = 0; i < 3; i++) {
        g.results[i].ran = 0;
        g.results[i].output = NULL;
    }
    assert_true(grade_score(&g.result) == 0);
    assert_int_equal(grade_outcome_of(&g.result), OUTCOME_NOT_GRADED);
    char *document = results_gradescope(&g.result);
    assert_int_equal(occurrences(document, "the lab program said"), 1);
    cJSON *json = parsed(document);
    check_gradescope_shape(json, 0.0, 6.0);
    assert_non_null(strstr(string(json, "output"), "NOT GRADED: the grading host has no usable CUDA device"));
    const cJSON *test = NULL;
    cJSON_ArrayForEach(test, cJSON_GetObjectItemCaseSensitive(json, "tests"))
        assert_string_equal(string(test, "output"), "not graded: no usable CUDA device (see the top)\n");
    cJSON_Delete(json);

    document = results_prairielearn(&g.result);
    assert_int_equal(occurrences(document, "the lab program said"), 1);
    json = parsed(document);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(json, "gradable")));
    assert_string_equal(string(json, "message"),
                        "Not graded: no usable CUDA device on the grading host (the output says more).");
    cJSON_ArrayForEach(test, cJSON_GetObjectItemCaseSensitive(json, "tests"))
        assert_string_equal(string(test, "message"), "not graded: no usable CUDA device (see the top)");
    cJSON_Delete(json);

    char *text = results_text(&g.result);
    assert_int_equal(occurrences(text, "the lab program said"), 1);
    assert_non_null(strstr(text, "case first: NOT GRADED, 0 / 2 points\n    arguments: --n 1\n"
                                 "    not graded: no usable CUDA device (see the top)\n"));
    assert_non_null(strstr(text, "3 not graded"));
    free(text);
}

/* Without a GPU, the instructor's grading tells the student to tell their instructor; a
 * student's own check in a student pack (self_check) points to a machine that can grade it. */
static void a_self_check_without_a_gpu_names_what_would_grade_it(void **state)
{
    (void)state;
    graded g;
    for (int self_check = 0; self_check <= 1; self_check++) {
        make_graded(&g);
        g.result.gradable = 0;
        g.result.host_unable = 1;
        g.result.self_check = self_check;
        snprintf(g.result.brief, sizeof g.result.brief, "no usable CUDA device");
        snprintf(g.result.reason, sizeof g.result.reason,
                 "the grading host has no usable CUDA device (the lab program said: no device)");
        char *text = results_text(&g.result);
        if (self_check) {
            assert_null(strstr(text, "tell your instructor"));
            assert_non_null(strstr(text, "a machine with an NVIDIA GPU whose counters you may "
                                         "read, or your course's grader"));
        } else {
            assert_non_null(strstr(text, "(tell your instructor)"));
        }
        free(text);
    }
}

/* Counters not readable: the cases that ran and passed before it showed are not graded either,
 * and score nothing. */
static void a_host_that_cannot_read_counters_grades_nothing(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    g.result.gradable = 0;
    g.result.host_unable = 1;
    snprintf(g.result.brief, sizeof g.result.brief, "hardware counters not readable");
    snprintf(g.result.reason, sizeof g.result.reason,
             "the grading host cannot read the GPU's hardware counters (ERR_NVGPUCTRPERM)");
    g.results[2].ran = 0;       /* grading stopped at the second case */
    g.results[2].output = NULL;
    assert_true(grade_score(&g.result) == 0);
    assert_string_equal(grade_case_status(&g.result, &g.results[0]), "NOT GRADED");
    assert_true(grade_case_score(&g.result, &g.results[0]) == 0);
    char *document = results_gradescope(&g.result);
    assert_int_equal(occurrences(document, "ERR_NVGPUCTRPERM"), 1);
    assert_null(strstr(document, "ok    correct"));  /* what ran is not shown as a result */
    cJSON *json = parsed(document);
    check_gradescope_shape(json, 0.0, 6.0);
    cJSON_Delete(json);
    char *text = results_feedback(&g.result);
    assert_int_equal(occurrences(text, "ERR_NVGPUCTRPERM"), 1);
    assert_int_equal(occurrences(text, "not graded: hardware counters not readable (see the top)"), 2);
    free(text);
}

/* A case alone not graded (no reference solution in a student pack): the others keep their
 * points, and that case says why in its own words. */
static void a_case_not_graded_alone_keeps_the_others(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    g.result.gradable = 0;
    snprintf(g.result.reason, sizeof g.result.reason, "this case compares with the reference solution");
    g.results[1].status = CASE_NOT_GRADED;
    g.results[1].output = "not graded  this case compares with the reference solution\n";
    assert_true(grade_score(&g.result) == 3.0);
    assert_int_equal(grade_outcome_of(&g.result), OUTCOME_NOT_GRADED);
    assert_string_equal(grade_case_status(&g.result, &g.results[0]), "PASS");
    assert_string_equal(grade_case_status(&g.result, &g.results[1]), "NOT GRADED");
    char *text = results_text(&g.result);
    assert_non_null(strstr(text, "case second: NOT GRADED, 0 / 3 points"));
    assert_non_null(strstr(text, "not graded  this case compares with the reference solution"));
    free(text);
}

/* What a student sees on Gradescope: every case but the hidden ones, which are counted. */
static void the_feedback_leaves_out_hidden_cases(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    char *text = results_feedback(&g.result);
    assert_non_null(strstr(text, "score: 3 / 6 (2 of 3 cases passed, 1 failed)"));
    assert_non_null(strstr(text, "case first: PASS, 2 / 2 points\n    ok    correct\n"));
    assert_non_null(strstr(text, "case second: FAIL, 0 / 3 points\n    FAIL  correct, strided"));
    assert_null(strstr(text, "third"));
    assert_null(strstr(text, "arguments:"));
    assert_non_null(strstr(text, "1 hidden case is counted in the score; its result is not shown."));
    free(text);
}

static void the_text_lists_every_case(void **state)
{
    (void)state;
    graded g;
    make_graded(&g);
    char *text = results_text(&g.result);
    assert_non_null(strstr(text, "score: 3 / 6 (2 of 3 cases passed, 1 failed)"));
    assert_non_null(strstr(text, "case first: PASS, 2 / 2 points\n    arguments: --n 1\n    ok    correct\n"));
    assert_non_null(strstr(text, "case second: FAIL, 0 / 3 points"));
    assert_non_null(strstr(text, "case third: PASS, 1 / 1 points (hidden)"));
    free(text);
}

/* ---- the output cap and what is shown of a child's output ---------------------------------- */

/* A child under an output cap and a file-size backstop, as the grader runs the lab program. */
static int run_capped(char *const argv[], const char *stdout_path, const char *stderr_path,
                      int time_limit_s, long long cap_bytes, long long file_limit_bytes,
                      process_result *result)
{
    process_options options = {.stdout_path = stdout_path, .stderr_path = stderr_path,
                               .time_limit_s = time_limit_s, .output_cap_bytes = cap_bytes,
                               .file_limit_bytes = file_limit_bytes};
    return process_run(argv, &options, result);
}

static long file_size(const char *path)
{
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fclose(file);
    return size;
}

static void a_flood_of_output_is_capped_and_its_end_kept(void **state)
{
    (void)state;
    char directory[] = "/tmp/test_grade_results-XXXXXX";
    assert_non_null(mkdtemp(directory));
    char out[256], err[256], both[256];
    snprintf(out, sizeof out, "%s/out", directory);
    snprintf(err, sizeof err, "%s/err", directory);
    snprintf(both, sizeof both, "%s/both", directory);
    /* 8 MB on stdout, then the last word on stderr and on stdout. */
    char *flood[] = {"sh", "-c", "yes 'a kernel printf line' | head -c 8000000; "
                                 "echo 'the last message' >&2; echo 'the last line'", NULL};
    process_result result;
    assert_int_equal(run_capped(flood, out, err, 30, 100000, 0, &result), 0);
    assert_int_equal(result.exit_status, 0);
    assert_true(result.output_bytes == 8000000 + 17 + 14);
    assert_true(result.cut_bytes == 8000000 + 14 - 100000 - PROCESS_TAIL_BYTES);
    assert_true(file_size(out) < 100000 + PROCESS_TAIL_BYTES + 256);
    char tail[64];
    process_file_tail(out, tail, sizeof tail);
    assert_non_null(strstr(tail, "the last line\n"));
    process_file_tail(err, tail, sizeof tail);
    assert_string_equal(tail, "the last message\n");
    /* One file for both, and a child that prints nothing past the cap: nothing is cut. */
    char *small[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    assert_int_equal(run_capped(small, both, both, 30, 100000, 0, &result), -1);
    assert_int_equal(result.exit_status, 3);
    assert_true(result.cut_bytes == 0);
    assert_int_equal(file_size(both), 8);
    /* The time limit still holds while the output is read. */
    char *endless[] = {"sh", "-c", "yes", NULL};
    assert_int_equal(run_capped(endless, out, err, 1, 1000, 0, &result), -1);
    assert_true(result.timed_out);
    assert_true(file_size(out) < 1000 + PROCESS_TAIL_BYTES + 256);
    /* A file the child writes itself stops growing at the backstop: a write past it fails, the
     * child goes on. */
    char big[256], script[512];
    snprintf(big, sizeof big, "%s/big", directory);
    snprintf(script, sizeof script, "head -c 3000000 /dev/zero > %s; echo \"status $?\" >&2", big);
    char *writer[] = {"sh", "-c", script, NULL};
    assert_int_equal(run_capped(writer, out, err, 30, 100000, 1048576, &result), 0);
    assert_int_equal(file_size(big), 1048576);
    process_file_tail(err, tail, sizeof tail);
    if (strstr(tail, "status 0") != NULL)
        fail_msg("the write past the limit succeeded: %s", tail);
    char command[512];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    assert_int_equal(system(command), 0);
}

static void shown_output_is_sanitized(void **state)
{
    (void)state;
    char text_in[] = "ok\tline\n\rscore: 24 / 24\x1b[2J \xe2\x80\x94 \xff\xc3 end";
    text_sanitize(text_in);
    assert_string_equal(text_in, "ok\tline\n?score: 24 / 24?[2J \xe2\x80\x94 ?? end");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(correct_passes_and_fails_with_the_mismatch_count),
        cmocka_unit_test(a_bound_says_measured_and_expected),
        cmocka_unit_test(cycles_per_op_against_the_reference),
        cmocka_unit_test(predictions_come_from_the_model_run),
        cmocka_unit_test(the_flops_ceiling_is_not_the_submission),
        cmocka_unit_test(counters_not_read_never_pass),
        cmocka_unit_test(time_ratio_needs_the_reference),
        cmocka_unit_test(a_run_that_did_not_finish_fails_with_why),
        cmocka_unit_test(a_missing_kernel_fails_the_case_with_the_programs_line),
        cmocka_unit_test(output_past_the_cap_is_noted_and_the_report_graded),
        cmocka_unit_test(a_reference_that_fails_its_check_is_no_reference),
        cmocka_unit_test(the_sanitizer_speaks_first),
        cmocka_unit_test(gradescope_results_follow_the_spec),
        cmocka_unit_test(prairielearn_results_follow_the_spec),
        cmocka_unit_test(a_compile_error_scores_zero_with_the_message),
        cmocka_unit_test(a_refused_submission_scores_zero_with_one_line),
        cmocka_unit_test(no_device_scores_nothing_and_says_why_once),
        cmocka_unit_test(a_host_that_cannot_read_counters_grades_nothing),
        cmocka_unit_test(a_case_not_graded_alone_keeps_the_others),
        cmocka_unit_test(a_self_check_without_a_gpu_names_what_would_grade_it),
        cmocka_unit_test(the_feedback_leaves_out_hidden_cases),
        cmocka_unit_test(the_text_lists_every_case),
        cmocka_unit_test(a_flood_of_output_is_capped_and_its_end_kept),
        cmocka_unit_test(shown_output_is_sanitized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
