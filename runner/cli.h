/* cli.h: the command line every lab shares. Parsing never allocates device memory, never
 * touches the GPU and never writes a file: bad input is refused before anything happens. */
#ifndef MEMLAB_CLI_H
#define MEMLAB_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_facts.h"
#include "memlab.h"

typedef enum { ML_FORMAT_TABLE, ML_FORMAT_CSV, ML_FORMAT_JSON, ML_FORMAT_HTML } ml_format;

typedef enum {
    ML_ACTION_RUN,      /* time, check, profile */
    ML_ACTION_MODEL,    /* predictions only, no GPU */
    ML_ACTION_LIST,     /* print variants and exit */
    ML_ACTION_LIST_METRICS, /* print the metric alias table and exit */
    ML_ACTION_HELP,     /* print help and exit */
    ML_ACTION_SAVE_KERNELS, /* compile --kernels FILE.cu into --save-kernels FILE and exit */
    ML_ACTION_CASES,    /* --cases FILE: one run per line of FILE, in one process */
} ml_action;

#define ML_MAX_SWEEP_POINTS 4096

typedef struct {
    ml_action action;
    int variant_selected[ML_MAX_VARIANTS]; /* 1 for each variant to run, indexed like lab->variants */
    long long param[ML_MAX_PARAMS]; /* sizes, indexed like lab->params */
    int sweep_param;                /* index into lab->params, or -1 for no sweep */
    int sweep_count;                /* points of the sweep, in order */
    long long sweep_value[ML_MAX_SWEEP_POINTS];
    int reps;
    int warmup;
    uint64_t seed;
    int seed_given;
    char metrics[1024];             /* "default", "none", a group, or a comma-separated list */
    ml_format format;
    const char *out_path;           /* NULL: stdout */
    int device;
    const char *kernels_path;       /* --kernels: NULL for the program's own */
    const char *save_kernels_path;  /* --save-kernels: where the compiled fatbin goes */
    const ml_gpu_facts *model_gpu;  /* --gpu NAME (with --model): NULL for the default, the H100 */
    const char *gpu_profile_path;   /* --gpu-profile FILE (with --model): model_gpu is its facts */
    int time_limit_s;               /* --time-limit S: SIGALRM stops the run after S s; 0: none */
    const char *cases_path;         /* --cases FILE */
} ml_options;

/* Parses argv. Returns ML_EXIT_OK, or ML_EXIT_USAGE with a one-line reason in error
 * (no newline). The seed, when not given, is left for the caller to draw. */
int ml_parse_args(const ml_lab *lab, int argc, char **argv, ml_options *options, char *error,
                  size_t error_size);

/* Parses a whole decimal integer in [min, max]: no sign games, no trailing garbage, no overflow.
 * Returns 0 on success, -1 otherwise. */
int ml_parse_integer(const char *text, long long min, long long max, long long *value);

/* Number of points of the sweep (1 when there is none), and the parameters of point i. */
long long ml_sweep_count(const ml_options *options);
void ml_sweep_point(const ml_options *options, long long index, long long *param);

/* --cases FILE: one case a line, its arguments as on the command line (words separated by spaces
 * or tabs, no quoting; blank lines skipped). Every line names its report with --out REPORT; the
 * case's stdout and stderr go to REPORT.stdout and REPORT.stderr, capped as the grader caps a
 * run's (runner/process.h), and REPORT.exit gets "STATUS CUT" once it has ended: its exit
 * status and the bytes of its output the cap dropped (a case without it did not end: the process
 * died in it). A line may not hold --cases or --device (the cases share one process and one
 * device). */
#define ML_CASES_MAX_BYTES (1024 * 1024)
#define ML_CASE_MAX_WORDS 96
#define ML_CASE_EXIT_SUFFIX ".exit"
#define ML_CASE_STDOUT_SUFFIX ".stdout"
#define ML_CASE_STDERR_SUFFIX ".stderr"

typedef struct {
    int argc;                       /* argv[0] is the program's name */
    char *argv[ML_CASE_MAX_WORDS + 2];
    const char *out_path;           /* the line's --out */
    int line;
} ml_case;

typedef struct {
    ml_case *cases;
    int count;
    char *text;                     /* the file, split in place: every argv word points into it */
} ml_case_list;

/* Reads and checks the whole file before any case runs. Returns ML_EXIT_OK, or ML_EXIT_USAGE
 * with "FILE:LINE: what" (or "FILE: what") in error. A line's other arguments are parsed when
 * its case runs: a bad one is that case's exit status 2, as it would be alone. */
int ml_read_cases(const char *program, const char *path, ml_case_list *list, char *error,
                  size_t error_size);
void ml_free_cases(ml_case_list *list);

/* Bad input: its one line on stderr ("PROGRAM: message"); returns ML_EXIT_USAGE. */
int ml_usage_error(const ml_lab *lab, const char *message);

void ml_print_help(const ml_lab *lab, FILE *stream);
void ml_print_variants(const ml_lab *lab, FILE *stream);
/* The metric alias table: memlab names, nvprof names, Perfworks names, what changed. */
void ml_print_metrics(FILE *stream);

#endif
