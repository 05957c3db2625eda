/* rubric.h: a lab's grading cases, read from labs/NN_PROGRAM/rubric (and --cases files).
 *
 * One directive a line; '#' starts a comment line; blank lines are ignored:
 *
 *   timeout SECONDS                       before the first case: every case's time limit
 *                                         (default 60); after a case line: that case's
 *   case NAME POINTS VISIBILITY ARGS...   a case: the lab program runs once with ARGS
 *   check correct                         every record matches the CPU reference
 *   check QUANTITY OP NUMBER [| HINT]     OP is <, <=, >, >= or ==
 *   check QUANTITY ~ predicted PCT% [| HINT]   within PCT% of the access model's prediction
 *   check QUANTITY ~ reference PCT% [| HINT]   within PCT% of the reference solution's measurement
 *   check memcheck [| HINT]               compute-sanitizer memcheck finds no error
 *   check racecheck [| HINT]              compute-sanitizer racecheck finds no hazard
 *   check synccheck [| HINT]              compute-sanitizer synccheck finds no misused barrier
 *                                         or warp primitive
 *
 * QUANTITY is a metric alias (memlab list --metrics), time_ratio (the median time over the
 * reference solution's, same arguments, same grading run), registers_per_thread,
 * local_bytes_per_thread or shared_bytes_per_block (what the kernel costs the SM), or
 * cycles_per_op (a self-timing kernel's cycles per dependent operation).
 * VISIBILITY is visible, hidden, after_due_date or after_published (Gradescope's words).
 * handouts/instructor/grading.md explains each with examples.
 */
#ifndef MEMLAB_RUBRIC_H
#define MEMLAB_RUBRIC_H

#include <stddef.h>

#define RUBRIC_MAX_CHECKS 16
#define RUBRIC_DEFAULT_TIMEOUT_S 60
#define RUBRIC_ARGUMENTS_SIZE 512

typedef enum {
    CHECK_CORRECT,
    CHECK_BOUND,                /* quantity OP bound */
    CHECK_PREDICTED,            /* quantity within tolerance_pct of the model's prediction */
    CHECK_REFERENCE,            /* quantity within tolerance_pct of the reference's measurement */
    CHECK_MEMCHECK,
    CHECK_RACECHECK,
    CHECK_SYNCCHECK,            /* barriers and warp primitives: a wrong mask, a divergent barrier */
} check_kind;

/* The compute-sanitizer tool a check runs ("memcheck", ...), or NULL for a check that needs none. */
const char *rubric_check_tool(check_kind kind);

typedef enum { OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ } check_op;

typedef struct {
    check_kind kind;
    char quantity[128];
    check_op op;
    double bound;               /* CHECK_BOUND */
    double tolerance_pct;       /* CHECK_PREDICTED, CHECK_REFERENCE */
    char hint[256];             /* "" when none */
    int line;
} grading_check;

typedef struct {
    char name[64];
    double points;
    char visibility[32];
    char arguments[RUBRIC_ARGUMENTS_SIZE]; /* the lab program's arguments, as written */
    int timeout_s;
    grading_check check[RUBRIC_MAX_CHECKS];
    int check_count;
    char file[256];             /* where the case is written, for messages */
    int line;
} grading_case;

typedef struct {
    grading_case *cases;
    int count;
    int capacity;
} rubric_set;

/* Reads the cases of one file and appends them to `rubric` (names must be unique across every
 * file read into it). Returns 0, or -1 with "FILE:LINE: what is wrong" in error. */
int rubric_read(rubric_set *rubric, const char *path, char *error, size_t error_size);

/* Like rubric_read, from text in memory; `name` stands for the file in messages. */
int rubric_parse(rubric_set *rubric, const char *text, const char *name, char *error,
                 size_t error_size);

void rubric_free(rubric_set *rubric);

const grading_case *rubric_find(const rubric_set *rubric, const char *name);

/* 1 if the case runs under compute-sanitizer (it has a memcheck, racecheck or synccheck check). */
int rubric_case_sanitizer(const grading_case *rubric_case, const char **tool);

/* 1 if a check of the case needs a run of the reference solution (time_ratio, ~ reference). */
int rubric_case_needs_reference(const grading_case *rubric_case);

/* 1 if a check of the case compares with the access model (~ predicted). */
int rubric_case_needs_model(const grading_case *rubric_case);

/* 1 if a check of the case reads a hardware counter. */
int rubric_check_reads_counter(const grading_check *check);

const char *rubric_op_text(check_op op);

#endif
