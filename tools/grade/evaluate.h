/* evaluate.h: a rubric case's checks against what the lab program reported.
 *
 * Every run is of the instructor's lab program: the submission's run loads the student's
 * kernels (--kernels), the reference run the program's own (the instructor's solution), the
 * model run makes predictions only (--model). The grader hands each run here as a lab_run.
 * evaluate_case says whether the case passed, failed, or could not be graded on this host, and
 * writes one line per check (and per record) with what was expected and what was measured.
 */
#ifndef MEMLAB_EVALUATE_H
#define MEMLAB_EVALUATE_H

#include <cjson/cJSON.h>

#include "rubric.h"
#include "text.h"

typedef enum {
    CASE_PASSED,
    CASE_FAILED,
    CASE_NOT_GRADED,            /* the grading host could not tell (no GPU, no counters, ...) */
} case_status;

/* What a check says when the run read no counters (a not graded check): the grading host
 * cannot read them, for every case. */
#define EVALUATE_COUNTERS_NOT_READ "hardware counters were not read on the grading host"

/* Exit statuses of the lab programs (common/memlab.h). */
enum { LAB_EXIT_OK = 0, LAB_EXIT_INCORRECT = 1, LAB_EXIT_USAGE = 2, LAB_EXIT_NO_DEVICE = 3,
       LAB_EXIT_CUDA_ERROR = 4 };

/* How one run of a lab program ended, and what it wrote. */
typedef struct {
    int ran;                    /* 0: nothing was run (no reference solution in this tree) */
    int timed_out;              /* stopped at the time limit */
    int time_limit_s;
    int signal;                 /* killed by this signal (not the time limit), else 0 */
    int exit_status;            /* when it exited by itself */
    char stderr_tail[2048];     /* the end of its stderr */
    char stdout_tail[512];      /* the end of its stdout (a kernel's printf goes there) */
    long long output_cut_bytes; /* what the grader dropped of its stdout and stderr (the cap) */
    long long output_cap_bytes; /* the cap: what it keeps of each */
    cJSON *report;              /* its JSON report, NULL if it wrote none */
    const char *sanitizer;      /* "memcheck", "racecheck" or "synccheck" under compute-sanitizer */
    /* The tool's verdict, from its exit status (evaluate_sanitizer_verdict): > 0 it found errors
     * (the count of its own summary, unless sanitizer_uncounted), 0 none, -1 it cannot give a
     * verdict on this host (the reason in sanitizer_log). */
    int sanitizer_errors;
    int sanitizer_uncounted;    /* 1: errors found, their count not known */
    char sanitizer_log[4096];   /* the start of its findings: for people, never for the verdict */
} lab_run;

/* compute-sanitizer's exit status when it found errors (--error-exitcode): one the lab program
 * never exits with (ML_EXIT_* are 0 to 5), nor a shell's 126 and 127, nor 128 + a signal. */
#define SANITIZER_EXIT_FOUND 86
#define SANITIZER_EXIT_FOUND_TEXT "86"

/* Sets run's sanitizer verdict from the exit status of a compute-sanitizer run that ran to its
 * end (neither timed out nor killed): SANITIZER_EXIT_FOUND is errors found, any other status
 * the program's own, passed on by the tool (its errors found: none). `log` is the tool's log
 * (--log-file); no line of it decides anything, since a file name a submission chose (#line)
 * can stand anywhere in it: only its last line, the tool's own summary, gives the count. */
void evaluate_sanitizer_verdict(lab_run *run, const char *log);

/* Evaluates every check of the case and appends the explanation to `output`.
 * reference: the reference solution's run with the same arguments, or NULL when no check needs
 *            it (ran == 0 when the tree holds no reference solution: a student pack);
 * model:     the program's --model run with the same arguments, or NULL; without it the
 *            predictions come from the submission's report (the same program's). */
case_status evaluate_case(const grading_case *rubric_case, const lab_run *submission,
                          const lab_run *reference, const lab_run *model, text_buffer *output);

#endif
