/* results.c: a grading run's outcome for Gradescope, PrairieLearn, people, or a student's
 * feedback (see results.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "text.h"

/* PrairieLearn refuses results over 1 MB: long compiler output and case output are cut. */
#define MAX_BUILD_OUTPUT 65536
#define MAX_CASE_OUTPUT 16384

/* The host could grade none of it: every case is not graded, whatever ran. */
static int host_unable(const grade_result *result)
{
    return result->compiled && !result->gradable && result->host_unable;
}

static int passed(const grade_result *result, const case_result *one)
{
    return result->compiled && !host_unable(result) && one->ran && one->status == CASE_PASSED;
}

/* A case runs only where the host can grade: one that did not run, the host could not. */
static int not_graded(const grade_result *result, const case_result *one)
{
    return result->compiled && (host_unable(result) || one->status == CASE_NOT_GRADED);
}

double grade_case_score(const grade_result *result, const case_result *one)
{
    return passed(result, one) ? one->rubric_case->points : 0.0;
}

const char *grade_case_status(const grade_result *result, const case_result *one)
{
    return passed(result, one) ? "PASS" : not_graded(result, one) ? "NOT GRADED" : "FAIL";
}

grade_outcome grade_outcome_of(const grade_result *result)
{
    if (!result->compiled)
        return result->refused ? OUTCOME_REFUSED : OUTCOME_NOT_COMPILED;
    if (!result->gradable)
        return OUTCOME_NOT_GRADED;
    for (int i = 0; i < result->case_count; i++)
        if (!passed(result, &result->cases[i]))
            return OUTCOME_FAILED;
    return OUTCOME_PASSED;
}

double grade_score(const grade_result *result)
{
    double score = 0;
    for (int i = 0; i < result->case_count; i++)
        score += grade_case_score(result, &result->cases[i]);
    return score;
}

double grade_max_score(const grade_result *result)
{
    double total = 0;
    for (int i = 0; i < result->case_count; i++)
        total += result->cases[i].rubric_case->points;
    return total;
}

static void out_of_memory(void)
{
    fprintf(stderr, "memlab_grade: out of host memory\n");
    exit(2);
}

/* A copy of text cut at `limit` bytes, with a note that it was cut. */
static char *cut(const char *text_in, size_t limit)
{
    size_t length = strlen(text_in);
    if (length <= limit) {
        char *copy = strdup(text_in);
        if (copy == NULL)
            out_of_memory();
        return copy;
    }
    text_buffer buffer = {0};
    text_append(&buffer, "%.*s\n[... %zu more bytes cut]\n", (int)limit, text_in, length - limit);
    return text_take(&buffer);
}

/* What a case says: its checks' lines, or why it did not run. When the host could grade
 * nothing, a few words of why: the summary at the top gives the whole reason, once. */
static char *case_output(const grade_result *result, const case_result *one)
{
    text_buffer buffer = {0};
    if (!result->compiled)
        text_append(&buffer, "not run: the submission %s\n",
                    result->refused ? "was refused" : "did not compile");
    else if (host_unable(result))
        text_append(&buffer, "not graded: %s (see the top)\n", result->brief);
    else
        text_append(&buffer, "%s", one->output != NULL ? one->output : "");
    char *whole = text_take(&buffer);
    char *cut_output = cut(whole, MAX_CASE_OUTPUT);
    free(whole);
    return cut_output;
}

/* The summary every format starts with. for_student (the feedback): a submission that was not
 * graded says so, and why, where a score would be; no "score: 0 / N". */
static void summary_for(const grade_result *result, text_buffer *buffer, int for_student)
{
    int failed = 0, not_graded_count = 0;
    for (int i = 0; i < result->case_count; i++) {
        const case_result *one = &result->cases[i];
        if (passed(result, one))
            continue;
        if (not_graded(result, one))
            not_graded_count++;
        else
            failed++;
    }
    /* The file's name is the student's: escaped, it cannot break this line. */
    text_append(buffer, "memlab grade: lab %s, submission ", result->lab);
    text_append_escaped(buffer, result->submission);
    text_append(buffer, "\n");
    if (result->graded_as != NULL)
        text_append(buffer, "graded as %s, run by the instructor's %s program\n",
                    result->graded_as, result->program != NULL ? result->program : result->lab);
    if (for_student && result->compiled && !result->gradable)
        text_append(buffer, "not graded: %s (no score until it is graded; %d of %d cases "
                            "passed", host_unable(result) ? result->brief : result->reason,
                    result->case_count - failed - not_graded_count, result->case_count);
    else
        text_append(buffer, "score: %g / %g (%d of %d cases passed", grade_score(result),
                    grade_max_score(result), result->case_count - failed - not_graded_count,
                    result->case_count);
    if (failed > 0)
        text_append(buffer, ", %d failed", failed);
    if (not_graded_count > 0)
        text_append(buffer, ", %d not graded", not_graded_count);
    text_append(buffer, ")\n");
    if (!result->compiled && result->refused) {
        text_append(buffer, "\nThe submission was refused before it was compiled, so no case "
                            "ran: score 0.\n%s\n",
                    result->build_output != NULL ? result->build_output : "");
    } else if (!result->compiled) {
        char *messages = cut(result->build_output != NULL ? result->build_output : "",
                             MAX_BUILD_OUTPUT);
        text_append(buffer, "\nThe submission did not compile, so no case ran: score 0. The "
                            "compiler said:\n%s", messages);
        free(messages);
    } else if (host_unable(result)) {
        text_append(buffer, "\nNOT GRADED: %s\nNo case could be graded on this host, so %s "
                            "until the submission is graded on one that can (%s).\n",
                    result->reason, for_student ? "no score is given" : "the score is 0",
                    result->self_check ? "a machine with an NVIDIA GPU whose counters you may "
                                         "read, or your course's grader"
                                       : "tell your instructor");
    } else if (!result->gradable) {
        text_append(buffer, "\nNOT GRADED: %s\nNo points are given for a case that could not "
                            "be graded here; the submission needs a grading host that can "
                            "(%s).\n", result->reason,
                    result->self_check ? "a machine with an NVIDIA GPU whose counters you may "
                                         "read, or your course's grader"
                                       : "tell your instructor");
    }
}

static void summary(const grade_result *result, text_buffer *buffer)
{
    summary_for(result, buffer, 0);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static cJSON *checked(cJSON *item)
{
    if (item == NULL)
        out_of_memory();
    return item;
}

static void add_string(cJSON *object, const char *name, const char *value)
{
    checked(cJSON_AddStringToObject(object, name, value));
}

static void add_number(cJSON *object, const char *name, double value)
{
    checked(cJSON_AddNumberToObject(object, name, value));
}

static char *print(cJSON *root)
{
    char *printed = cJSON_Print(root);
    cJSON_Delete(root);
    if (printed == NULL)
        out_of_memory();
    /* cJSON_Print's memory comes from cJSON's allocator; hand back plain malloc'd memory. */
    char *copy = strdup(printed);
    cJSON_free(printed);
    if (copy == NULL)
        out_of_memory();
    return copy;
}

char *results_gradescope(const grade_result *result)
{
    cJSON *root = checked(cJSON_CreateObject());
    add_number(root, "score", grade_score(result));
    add_number(root, "max_score", grade_max_score(result));
    add_number(root, "execution_time", (double)(long)(result->execution_time_s + 0.5));
    text_buffer buffer = {0};
    summary(result, &buffer);
    char *summary_text = text_take(&buffer);
    add_string(root, "output", summary_text);
    free(summary_text);
    /* Plain text: compiler messages hold '<' and '>', which the default format reads as HTML. */
    add_string(root, "output_format", "text");
    add_string(root, "test_output_format", "text");

    cJSON *tests = checked(cJSON_AddArrayToObject(root, "tests"));
    for (int i = 0; i < result->case_count; i++) {
        const case_result *one = &result->cases[i];
        cJSON *test = checked(cJSON_CreateObject());
        cJSON_AddItemToArray(tests, test);
        add_string(test, "name", one->rubric_case->name);
        add_number(test, "score", grade_case_score(result, one));
        add_number(test, "max_score", one->rubric_case->points);
        add_string(test, "status", passed(result, one) ? "passed" : "failed");
        char *output = case_output(result, one);
        add_string(test, "output", output);
        free(output);
        add_string(test, "visibility", one->rubric_case->visibility);
    }
    return print(root);
}

/* The first line of a case's output that is not "ok": what a student reads first. */
static char *first_problem(const char *output)
{
    const char *line = output;
    while (*line != '\0') {
        const char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "ok ", 3) != 0 && length > 0) {
            text_buffer buffer = {0};
            text_append(&buffer, "%.*s", (int)length, line);
            return text_take(&buffer);
        }
        line += length + (end != NULL);
    }
    char *none = strdup("every check passed");
    if (none == NULL)
        out_of_memory();
    return none;
}

char *results_prairielearn(const grade_result *result)
{
    cJSON *root = checked(cJSON_CreateObject());
    int gradable = result->compiled && result->gradable;
    checked(cJSON_AddBoolToObject(root, "gradable", gradable));
    double max_score = grade_max_score(result);
    if (gradable)
        add_number(root, "score", max_score > 0 ? grade_score(result) / max_score : 0.0);

    text_buffer buffer = {0};
    if (!result->compiled)
        text_append(&buffer, "The submission %s.", result->refused ? "was refused" : "did not compile");
    else if (host_unable(result))
        text_append(&buffer, "Not graded: %s on the grading host (the output says more).",
                    result->brief);
    else if (!result->gradable)
        text_append(&buffer, "Not graded: %s", result->reason);
    else
        text_append(&buffer, "Score: %g / %g.", grade_score(result), max_score);
    int hidden = 0;
    for (int i = 0; i < result->case_count; i++)
        hidden += strcmp(result->cases[i].rubric_case->visibility, "visible") != 0;
    if (hidden > 0 && gradable)
        text_append(&buffer, " %d hidden case%s counted in the score.", hidden,
                    hidden == 1 ? " is" : "s are");
    char *message = text_take(&buffer);
    add_string(root, "message", message);
    free(message);

    summary(result, &buffer);
    char *summary_text = text_take(&buffer);
    add_string(root, "output", summary_text);
    free(summary_text);

    if (!result->compiled) {
        cJSON *errors = checked(cJSON_AddArrayToObject(root, "format_errors"));
        char *messages = cut(result->build_output != NULL ? result->build_output : "",
                             MAX_BUILD_OUTPUT);
        cJSON_AddItemToArray(errors, checked(cJSON_CreateString(messages)));
        free(messages);
    }

    /* PrairieLearn shows every test it is given: only the visible cases are listed. */
    cJSON *tests = checked(cJSON_AddArrayToObject(root, "tests"));
    for (int i = 0; i < result->case_count; i++) {
        const case_result *one = &result->cases[i];
        if (strcmp(one->rubric_case->visibility, "visible") != 0)
            continue;
        cJSON *test = checked(cJSON_CreateObject());
        cJSON_AddItemToArray(tests, test);
        add_string(test, "name", one->rubric_case->name);
        add_string(test, "description", one->rubric_case->arguments);
        add_number(test, "points", grade_case_score(result, one));
        add_number(test, "max_points", one->rubric_case->points);
        char *output = case_output(result, one);
        char *problem = passed(result, one) ? strdup("passed") : first_problem(output);
        if (problem == NULL)
            out_of_memory();
        add_string(test, "message", problem);
        add_string(test, "output", output);
        free(problem);
        free(output);
    }
    return print(root);
}

/* Each line of the case's output, indented under its case. */
static void append_indented(const grade_result *result, const case_result *one,
                            text_buffer *buffer)
{
    char *output = case_output(result, one);
    for (char *line = output; *line != '\0';) {
        char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        text_append(buffer, "    %.*s\n", (int)length, line);
        line += length + (end != NULL);
    }
    free(output);
}

char *results_text(const grade_result *result)
{
    text_buffer buffer = {0};
    summary(result, &buffer);
    for (int i = 0; i < result->case_count; i++) {
        const case_result *one = &result->cases[i];
        text_append(&buffer, "\ncase %s: %s, %g / %g points", one->rubric_case->name,
                    grade_case_status(result, one), grade_case_score(result, one),
                    one->rubric_case->points);
        if (strcmp(one->rubric_case->visibility, "visible") != 0)
            text_append(&buffer, " (%s)", one->rubric_case->visibility);
        text_append(&buffer, "\n    arguments: %s\n", one->rubric_case->arguments);
        append_indented(result, one, &buffer);
    }
    return text_take(&buffer);
}

char *results_feedback(const grade_result *result)
{
    text_buffer buffer = {0};
    summary_for(result, &buffer, 1);
    int hidden = 0;
    for (int i = 0; i < result->case_count; i++) {
        const case_result *one = &result->cases[i];
        if (strcmp(one->rubric_case->visibility, "hidden") == 0) {
            hidden++;
            continue;
        }
        if (not_graded(result, one))
            text_append(&buffer, "\ncase %s: NOT GRADED (%g points when graded)\n",
                        one->rubric_case->name, one->rubric_case->points);
        else
            text_append(&buffer, "\ncase %s: %s, %g / %g points\n", one->rubric_case->name,
                        grade_case_status(result, one), grade_case_score(result, one),
                        one->rubric_case->points);
        append_indented(result, one, &buffer);
    }
    if (hidden > 0)
        text_append(&buffer, "\n%d hidden case%s counted in the score; %s not shown.\n", hidden,
                    hidden == 1 ? " is" : "s are", hidden == 1 ? "its result is" : "their results are");
    return text_take(&buffer);
}
