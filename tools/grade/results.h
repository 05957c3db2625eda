/* results.h: a grading run's outcome, written for Gradescope, PrairieLearn or people.
 *
 * Gradescope (results.json of its autograder): score, max_score, execution_time, output,
 * tests[] of {name, score, max_score, status "passed"|"failed", output, visibility}.
 * PrairieLearn (results.json of its external grader): gradable, score in [0, 1], message,
 * output, tests[] of {name, description, points, max_points, message, output}; a submission
 * that was refused or did not compile, or that this host could not grade, is "gradable": false
 * with the reason (format_errors holds the refusal or the compiler's messages).
 * Text: a summary line, then one block per case:  case NAME: PASS|FAIL|NOT GRADED, S / P points
 *
 * Feedback: what a student sees of it on Gradescope, as text: the summary, then each case that
 * is not hidden with its points and its output.
 *
 * Points come only from cases that ran and passed: a case that did not run or could not be
 * graded scores 0. When the grading host could grade nothing (no GPU, no counters: host_unable),
 * every format says so once at the top, the score is 0, and every case is "not graded" with a
 * few words of why (brief), never the whole reason again.
 */
#ifndef MEMLAB_RESULTS_H
#define MEMLAB_RESULTS_H

#include "evaluate.h"
#include "rubric.h"

typedef struct {
    const grading_case *rubric_case;
    case_status status;
    int ran;                    /* 0: not run (compile error, or grading stopped before it) */
    char *output;               /* what evaluate_case wrote, or why it did not run */
} case_result;

typedef struct {
    const char *lab;
    const char *submission;     /* the submitted file's name */
    const char *graded_as;      /* the lab file it stands for: "labs/04_coalescing/kernels.cu" */
    const char *program;        /* the lab program that ran it: "coalescing" */
    int compiled;               /* 0: refused or not compiled; build_output says why */
    int refused;                /* with compiled 0: refused before the compiler saw it (an
                                   #include of another file, ...); build_output is one line */
    char *build_output;
    int gradable;               /* 0: this host could not grade it; reason says why */
    int host_unable;            /* with gradable 0: the host could grade none of it (no GPU,
                                   counters not readable, the program would not run) */
    char brief[128];            /* with host_unable: the reason in a few words */
    int self_check;             /* graded in a student pack (STUDENT.md): the student's own
                                   check, on their own machine, where no instructor is at hand */
    char reason[1024];
    double execution_time_s;
    case_result *cases;
    int case_count;
} grade_result;

typedef enum {
    OUTCOME_PASSED,             /* every case passed */
    OUTCOME_FAILED,             /* graded, a case failed */
    OUTCOME_NOT_COMPILED,       /* the compiler stopped it: score 0 */
    OUTCOME_REFUSED,            /* the lab program refused it before compiling: score 0 */
    OUTCOME_NOT_GRADED,         /* this host could not grade it (all of it, or a case) */
} grade_outcome;

double grade_score(const grade_result *result);
double grade_max_score(const grade_result *result);
grade_outcome grade_outcome_of(const grade_result *result);

/* The points a case earned, and "PASS", "FAIL" or "NOT GRADED". */
double grade_case_score(const grade_result *result, const case_result *one);
const char *grade_case_status(const grade_result *result, const case_result *one);

/* Each returns a malloc'd, NUL-terminated document (JSON for the first two). */
char *results_gradescope(const grade_result *result);
char *results_prairielearn(const grade_result *result);
char *results_text(const grade_result *result);
char *results_feedback(const grade_result *result);

#endif
