/* grading.h: grading one submission, a kernels.cu, with the instructor's lab program.
 *
 * Every process it starts is the lab program (under compute-sanitizer for a memcheck, racecheck
 * or synccheck case): it copies the file to a scratch directory, has the program compile it once
 * (PROGRAM --kernels COPY.cu --save-kernels SCRATCH/NAME.fatbin), then runs each rubric case
 * with the case's time limit, holding the GPU lock (gpu_lock.h): a submission's runs together as
 * PROGRAM --cases FILE, or each a process of its own (isolate_cases). Every one runs with TMPDIR inside the scratch directory, which is removed
 * at the end: what a run killed at its limit leaves (a compile's temporaries) goes with it. A
 * crash, a hang or a refusal of the submission ends in its result, never in the caller.
 * tools/grade/README.md says what each step refuses and why.
 */
#ifndef MEMLAB_GRADING_H
#define MEMLAB_GRADING_H

#include <stddef.h>

#include "results.h"
#include "rubric.h"

#define GRADING_PATH_SIZE 4096
/* The largest kernels .cu the harness compiles (ML_KERNELS_SOURCE_MAX_BYTES,
 * runner/kernel_loader.h). */
#define GRADING_SUBMISSION_MAX_BYTES (256 * 1024)
/* No file a run writes (a report, a compiler's output, nvcc's temporaries) grows past this. */
#define GRADING_FILE_LIMIT_BYTES (1024LL * 1024 * 1024)
/* Beside the fatbin, the file the lab program writes when its judge refuses the submission
 * (ML_KERNELS_REFUSED_SUFFIX, runner/kernel_loader.h): a refusal and a compile error exit alike. */
#define GRADING_REFUSED_SUFFIX ".refused"

typedef struct {
    const char *root;                   /* the tree: labs/NN_LAB/ */
    const char *lab;                    /* "coalescing" */
    char lab_directory[256];            /* "04_coalescing" */
    char program[GRADING_PATH_SIZE];    /* the instructor's lab program, absolute */
    const rubric_set *cases;
    const char *only_case;              /* NULL: every case */
    int quiet;                          /* 1: nothing on stderr but the GPU lock's (a batch) */
    long lock_owner;                    /* the grader the GPU lock is taken for */
    /* 1 (--isolate-cases): every run of the lab program a process of its own; 0: a submission's
     * runs together, `PROGRAM --cases FILE`, a process for the model's predictions, one for the
     * plain cases and the reference solution's runs, one per compute-sanitizer tool, and a run
     * of its own for each run a batch did not finish (grading.c says why the scores agree). */
    int isolate_cases;
    /* grading_prepare fills these: */
    char graded_as[GRADING_PATH_SIZE];  /* "labs/04_coalescing/kernels.cu" */
    int have_reference;                 /* 0 in a student pack (STUDENT.md at the root) */
    char sanitizer[GRADING_PATH_SIZE];  /* compute-sanitizer */
} grading_setup;

void grading_prepare(grading_setup *setup);

/* Grades the file at path; `who` names it in the GPU lock ("alice.cu", "submission_1234").
 * The result's strings point into setup and path; grading_free releases the rest. */
void grading_grade(const grading_setup *setup, const char *path, const char *who,
                   grade_result *result);
void grading_free(grade_result *result);

/* snprintf for paths: a path too long for its buffer stops the grader (exit 2) with a message. */
void grading_path(char *path, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* rm -rf path. */
int grading_remove_tree(const char *path);

/* 1 if path names something (stat succeeds); 1 if it is executable. */
int grading_exists(const char *path);
int grading_is_executable(const char *path);

#endif
