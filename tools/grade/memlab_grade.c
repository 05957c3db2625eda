/* memlab_grade: grades a student's kernels.cu, or a whole class's, against the lab's rubric.
 *
 *   memlab_grade [--root DIR] LAB SUBMISSION.cu --program PATH [--format text|gradescope|prairielearn]
 *                [--out FILE] [--cases FILE]... [--case NAME]
 *   memlab_grade [--root DIR] LAB SUBMISSIONS --program PATH [--out DIR] [--jobs N]
 *                [--cases FILE]... [--case NAME] [--gpus all|N,M,... [--mixed-gpus]]
 *                [--shard K/N] [--merge FOLDER...] [--roster FILE]
 *   memlab_grade --status OUT               what a class's grading (its shards) has done and left
 *   memlab_grade --check-rubric FILE...     read rubric files, report the first error
 *   memlab_grade --visible-cases FILE       the file without its non-visible cases
 *   memlab_grade --case-arguments FILE      each case's name and lab-program arguments
 *   memlab_grade --help                     the usage as ./memlab grade takes it, the options,
 *                                           the exit statuses (exit 0)
 *
 * A submission is a kernels.cu: device code only (the lab contract v2, runner/kernel_loader.h).
 * The grader builds nothing and runs nothing of the submission's but its kernels: every process it
 * starts is the instructor's lab program, PATH (./memlab grade passes the one it built).
 * grading.c grades one submission: it copies the file, has PATH compile it once, runs each case
 * as a process of its own (holding the GPU lock, gpu_lock.h) and evaluates its checks; results.c
 * writes the results. SUBMISSIONS, a folder, a .zip or a .tar.gz (a class, Gradescope's export,
 * or a folder of cloned student repositories), is graded by batch.c, each submission as one
 * (batch.h says where a student's folder holds it). Before anything runs, bad input is refused
 * with one line: a missing program or submission, a submission that is not a regular file (a
 * link, a device) or over the size limit, a malformed rubric, an output that cannot be written.
 * A tree with STUDENT.md at its root is a student pack: its programs carry the student version
 * of the kernels, so the cases that need the reference solution are not graded there.
 *
 * Exit status: 0 every case passed; 1 a case failed, or the submission was refused or did not
 * compile; 2 bad usage, a malformed rubric, a missing program or submission (one line on
 * stderr); 3 not gradable on this host (no CUDA device, counters not readable, no reference
 * solution for a case). A batch: the worst of its submissions', 3 before 1.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "grading.h"
#include "results.h"
#include "rubric.h"
#include "text.h"

enum { EXIT_PASSED = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NOT_GRADABLE = 3 };
/* parse_options' answer to --help: print it and exit 0. */
enum { HELP_ASKED = -1 };

#define MAX_CASE_FILES BATCH_MAX_CASE_FILES
#define MAX_JOBS 64
#define MAX_SHARDS 4096

typedef enum { FORMAT_TEXT, FORMAT_GRADESCOPE, FORMAT_PRAIRIELEARN } output_format;

typedef struct {
    const char *root;
    const char *lab;
    const char *submission;
    const char *program;
    output_format format;
    int format_given;
    const char *out_path;
    const char *case_files[MAX_CASE_FILES];
    int case_file_count;
    const char *only_case;
    int jobs;                   /* 0: not given */
    const char *gpus;           /* --gpus all|N,M,...; NULL: not given */
    int mixed_gpus;
    int shard, shard_count;     /* --shard K/N; shard_count 0: not given */
    char **merge_folders;       /* --merge FOLDER...: into argv */
    int merge_count, merge_given;
    const char *roster;         /* --roster FILE: a class's students by submission */
    const char *status_of;      /* --status OUT */
    int status_json;            /* --format json: --status as one JSON document */
    int isolate_cases;          /* --isolate-cases */
} options;

static int usage_error(const char *format, const char *detail)
{
    fprintf(stderr, "memlab grade: ");
    fprintf(stderr, format, detail);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
}

/* An existing file that is writable, or a new one in a writable directory. Creates nothing. */
static int can_write(const char *path)
{
    if (grading_exists(path))
        return access(path, W_OK) == 0;
    char directory[GRADING_PATH_SIZE];
    snprintf(directory, sizeof directory, "%s", path);
    char *slash = strrchr(directory, '/');
    if (slash == NULL)
        return access(".", W_OK) == 0;
    if (slash == directory)
        slash[1] = '\0';
    else
        *slash = '\0';
    return access(directory, W_OK) == 0;
}

/* ---- the lab, its program and its cases -------------------------------------------------------- */

/* labs/NN_PROGRAM/ holding PROGRAM.cu. */
static int find_lab_directory(const char *root, const char *program, char *directory, size_t size)
{
    char labs[GRADING_PATH_SIZE];
    grading_path(labs, sizeof labs, "%s/labs", root);
    DIR *listing = opendir(labs);
    if (listing == NULL)
        return -1;
    int found = -1;
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL && found != 0) {
        const char *name = entry->d_name;
        if (strlen(name) < 4 || name[0] < '0' || name[0] > '9' || name[1] < '0' ||
            name[1] > '9' || name[2] != '_' || strcmp(name + 3, program) != 0)
            continue;
        char source[GRADING_PATH_SIZE];
        grading_path(source, sizeof source, "%s/%s/%s.cu", labs, name, program);
        if (grading_exists(source)) {
            snprintf(directory, size, "%s", name);
            found = 0;
        }
    }
    closedir(listing);
    return found;
}

/* The lab program: an executable regular file, made absolute (the runs start in the scratch
 * directory). */
static int check_program(const options *given, grading_setup *setup)
{
    struct stat status;
    if (stat(given->program, &status) != 0)
        return usage_error("--program %s: no such file (./memlab grade builds it: "
                           "build/labs/LAB)", given->program);
    if (!S_ISREG(status.st_mode) || !grading_is_executable(given->program))
        return usage_error("--program %s: not an executable file", given->program);
    char resolved[PATH_MAX];
    if (realpath(given->program, resolved) == NULL)
        return usage_error("--program %s: cannot resolve its path", given->program);
    snprintf(setup->program, sizeof setup->program, "%s", resolved);
    return EXIT_PASSED;
}

/* Refuses a submission that is missing, not a regular file (a link, a directory, a device) or
 * over the size limit; one line each. Needs nothing but the file. */
static int check_submission(const char *path)
{
    struct stat status;
    if (lstat(path, &status) != 0)
        return usage_error("no submission %s (no such file)", path);
    if (S_ISLNK(status.st_mode))
        return usage_error("the submission %s is a symbolic link: give the file itself", path);
    if (!S_ISREG(status.st_mode))
        return usage_error("the submission %s is not a regular file", path);
    if ((long long)status.st_size > GRADING_SUBMISSION_MAX_BYTES) {
        char detail[GRADING_PATH_SIZE + 128];
        snprintf(detail, sizeof detail, "the submission %s holds %lld bytes, more than the limit of "
                 "%d for a kernels .cu", path, (long long)status.st_size,
                 GRADING_SUBMISSION_MAX_BYTES);
        return usage_error("%s", detail);
    }
    if (access(path, R_OK) != 0)
        return usage_error("cannot read the submission %s", path);
    return EXIT_PASSED;
}

/* The rubric (its path in `path`) and the --cases files. */
static int read_cases(const options *given, const char *lab_directory, rubric_set *cases,
                      char *path, size_t size)
{
    char error[1024];
    grading_path(path, size, "%s/labs/%s/rubric", given->root, lab_directory);
    if (!grading_exists(path))
        return usage_error("lab %s has no rubric (labs/NN_LAB/rubric: see "
                           "handouts/instructor/grading.md)", given->lab);
    if (rubric_read(cases, path, error, sizeof error) != 0)
        return usage_error("%s", error);
    for (int i = 0; i < given->case_file_count; i++)
        if (rubric_read(cases, given->case_files[i], error, sizeof error) != 0)
            return usage_error("%s", error);
    if (given->only_case != NULL && rubric_find(cases, given->only_case) == NULL)
        return usage_error("no case named '%s' in the rubric (or the --cases files)",
                           given->only_case);
    if (cases->count == 0)
        return usage_error("the rubric of lab %s has no case", given->lab);
    return EXIT_PASSED;
}

/* ---- results ------------------------------------------------------------------------------ */

static int write_results(const options *given, const grade_result *result)
{
    char *document = given->format == FORMAT_GRADESCOPE     ? results_gradescope(result)
                     : given->format == FORMAT_PRAIRIELEARN ? results_prairielearn(result)
                                                            : results_text(result);
    int status = 0;
    if (given->out_path != NULL) {
        FILE *file = fopen(given->out_path, "w");
        if (file == NULL || fputs(document, file) == EOF || fputs("\n", file) == EOF ||
            fclose(file) != 0) {
            fprintf(stderr, "memlab grade: cannot write %s\n", given->out_path);
            status = -1;
        }
        /* People still read the plain text. */
        if (given->format != FORMAT_TEXT) {
            char *plain = results_text(result);
            fputs(plain, stdout);
            free(plain);
        } else {
            fputs(document, stdout);
        }
    } else {
        fputs(document, stdout);
        if (given->format != FORMAT_TEXT)
            fputc('\n', stdout);
    }
    free(document);
    return status;
}

static int exit_status_of(const grade_result *result)
{
    switch (grade_outcome_of(result)) {
    case OUTCOME_PASSED:
        return EXIT_PASSED;
    case OUTCOME_NOT_GRADED:
        return EXIT_NOT_GRADABLE;
    case OUTCOME_FAILED:
    case OUTCOME_NOT_COMPILED:
    case OUTCOME_REFUSED:
        break;
    }
    return EXIT_FAILED;
}

/* ---- the command line ----------------------------------------------------------------------- */

static int check_rubrics(int count, char **paths)
{
    for (int i = 0; i < count; i++) {
        rubric_set cases = {0};
        char error[1024];
        int status = rubric_read(&cases, paths[i], error, sizeof error);
        rubric_free(&cases);
        if (status != 0)
            return usage_error("%s", error);
    }
    return EXIT_PASSED;
}

/* Prints the file without the lines of its non-visible cases (a case runs from its case line
 * to the line before the next case line). */
static int print_visible_cases(const char *path)
{
    rubric_set cases = {0};
    char error[1024];
    if (rubric_read(&cases, path, error, sizeof error) != 0) {
        rubric_free(&cases);
        return usage_error("%s", error);
    }
    char *content = text_read_file(path);
    if (content == NULL) {
        rubric_free(&cases);
        return usage_error("cannot read %s", path);
    }
    int line_number = 0, current = -1;
    for (char *line = content; *line != '\0';) {
        char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        line_number++;
        if (current + 1 < cases.count && cases.cases[current + 1].line == line_number)
            current++;
        if (current < 0 || strcmp(cases.cases[current].visibility, "visible") == 0)
            printf("%.*s\n", (int)length, line);
        line += length + (end != NULL);
    }
    free(content);
    rubric_free(&cases);
    return EXIT_PASSED;
}

/* "NAME<TAB>ARGUMENTS" a case, in the file's order: what each case runs the lab program with
 * (tests/model_outputs.sh reads it, so that the rubric has one reader). */
static int print_case_arguments(const char *path)
{
    rubric_set cases = {0};
    char error[1024];
    if (rubric_read(&cases, path, error, sizeof error) != 0) {
        rubric_free(&cases);
        return usage_error("%s", error);
    }
    for (int i = 0; i < cases.count; i++)
        printf("%s\t%s\n", cases.cases[i].name, cases.cases[i].arguments);
    rubric_free(&cases);
    return EXIT_PASSED;
}

/* The usage names what a user types: ./memlab grade passes --root and --program itself. */
static const char usage_line[] =
    "usage: ./memlab grade LAB KERNELS.cu|SUBMISSIONS [--format text|gradescope|prairielearn] "
    "[--out FILE|DIR] [--jobs N] [--cases FILE] [--case NAME] (./memlab grade --help)";

static void print_help(void)
{
    fputs("usage: ./memlab grade LAB KERNELS.cu [--format text|gradescope|prairielearn]\n"
          "                      [--out FILE] [--cases FILE]... [--case NAME]\n"
          "       ./memlab grade LAB SUBMISSIONS [--out DIR] [--jobs N] [--cases FILE]...\n"
          "                      [--case NAME] [--gpus all|N,M,... [--mixed-gpus]] [--shard K/N]\n"
          "                      [--roster FILE]\n"
          "       ./memlab grade LAB SUBMISSIONS --merge FOLDER... [--out DIR] [--cases FILE]...\n"
          "       ./memlab grade --status DIR [--format text|json]\n"
          "       ./memlab grade --check-rubric RUBRIC...\n"
          "       ./memlab grade --visible-cases RUBRIC\n"
          "\n"
          "Grades a student's kernels.cu against the lab's rubric (labs/NN_LAB/rubric): the\n"
          "instructor's lab program compiles it and runs each case in a process of its own, on\n"
          "the GPU. LAB is a lab program: coalescing, bank_conflicts, ... (./memlab list).\n"
          "\n"
          "SUBMISSIONS, a class: a folder, Gradescope's export, or a .zip, .tar or .tar.gz of\n"
          "either. The folder holds one NAME.cu or one NAME/ folder per student; a NAME/\n"
          "folder's submission is its kernels.cu, else (a clone of the student pack or of the\n"
          "GitHub Classroom repository) its labs/NN_LAB/kernels.cu, else its only .cu file. No\n"
          "symbolic link is followed.\n"
          "\n"
          "options:\n"
          "  --format text|gradescope|prairielearn\n"
          "                     one submission: the results' format (default text)\n"
          "  --out FILE         one submission: write the results to FILE; the text report still\n"
          "                     goes to standard output\n"
          "  --out DIR          a class: scores.csv, canvas.csv, files.csv, feedback/ and\n"
          "                     results/ go into DIR (default grades-LAB)\n"
          "  --jobs N           a class: submissions compiled at once, 1 to 64 (default 1, with\n"
          "                     --gpus one per GPU); their cases take turns on their GPU\n"
          "  --gpus all|N,M,... a class: one grading lane per GPU that nvidia-smi lists (all, or\n"
          "                     these indices); each submission's cases run on one GPU\n"
          "  --mixed-gpus       with --gpus: allow GPUs of different models (a speed case's\n"
          "                     limits suit one model)\n"
          "  --shard K/N        a class: grade only shard K of N (0 <= K < N <= 4096), by the\n"
          "                     hash of each submission's name; DIR's tables hold its rows only\n"
          "  --merge FOLDER...  a class: grade nothing; take each submission's results from the\n"
          "                     shard folder that graded it and write DIR as one run would\n"
          "  --roster FILE      a class in a folder (not Gradescope's export, which names its\n"
          "                     own): a CSV file whose header names the columns submission,\n"
          "                     sid, email and name (any order and case; other columns are\n"
          "                     ignored), one row a submission: NAME for NAME.cu or NAME/, the\n"
          "                     clone's folder name, as scores.csv's Submission ID. It fills\n"
          "                     Name, SID and Email of scores.csv and canvas.csv. A submission\n"
          "                     without a row, a missing column, a submission listed twice or\n"
          "                     a row of the wrong width is refused before anything is graded\n"
          "  --status DIR       what the grading in DIR (each DIR/shards/K) has graded, not\n"
          "                     graded, failed, and has left, from its files (exit 0); with\n"
          "                     --format json one JSON document: shards_left (the shards not\n"
          "                     done), lab, shard_count, each shard's counts and names, all\n"
          "  --cases FILE       more cases, in the rubric's format (hidden cases kept elsewhere);\n"
          "                     up to 16 files\n"
          "  --case NAME        grade this case alone\n"
          "  --isolate-cases    run every case (and each reference and model run) in a lab\n"
          "                     process of its own, not a submission's cases in one: slower,\n"
          "                     the same scores\n"
          "  --check-rubric RUBRIC...\n"
          "                     read rubric files; say what is wrong in the first bad one\n"
          "  --visible-cases RUBRIC\n"
          "                     print the rubric without its cases that are not visible\n"
          "  --case-arguments RUBRIC\n"
          "                     print each case's name, a tab, and its lab program's arguments\n"
          "  --help             this text\n"
          "\n"
          "exit status:\n"
          "  0  every case passed (a class: every submission did)\n"
          "  1  a case failed, or the submission was refused or did not compile (a class: a\n"
          "     submission did, or a student has none)\n"
          "  2  bad usage, a malformed rubric, a missing program or submission, an output that\n"
          "     cannot be written: one line on stderr, nothing graded\n"
          "  3  not gradable on this host: no CUDA device, counters not readable, no reference\n"
          "     solution for a case (a class: any submission, before 1)\n",
          stdout);
}

/* The first option given that is for a class only, or NULL. */
static const char *batch_option_given(const options *given)
{
    if (given->jobs > 0)
        return "--jobs";
    if (given->gpus != NULL)
        return "--gpus";
    if (given->mixed_gpus)
        return "--mixed-gpus";
    if (given->shard_count > 0)
        return "--shard";
    if (given->merge_given)
        return "--merge";
    if (given->roster != NULL)
        return "--roster";
    return NULL;
}

static int parse_options(int argc, char **argv, options *given)
{
    memset(given, 0, sizeof *given);
    given->root = ".";
    const char *positional[2];
    int positional_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0)
            return HELP_ASKED;
        int takes_value = strcmp(flag, "--root") == 0 || strcmp(flag, "--format") == 0 ||
                          strcmp(flag, "--out") == 0 || strcmp(flag, "--cases") == 0 ||
                          strcmp(flag, "--case") == 0 || strcmp(flag, "--program") == 0 ||
                          strcmp(flag, "--jobs") == 0 || strcmp(flag, "--gpus") == 0 ||
                          strcmp(flag, "--shard") == 0 || strcmp(flag, "--status") == 0 ||
                          strcmp(flag, "--roster") == 0;
        if (takes_value && (i + 1 == argc || argv[i + 1][0] == '\0'))
            return usage_error("%s needs a value", flag);
        if (strcmp(flag, "--root") == 0) {
            given->root = argv[++i];
        } else if (strcmp(flag, "--format") == 0) {
            const char *format = argv[++i];
            given->format_given = 1;
            if (strcmp(format, "text") == 0)
                given->format = FORMAT_TEXT;
            else if (strcmp(format, "gradescope") == 0)
                given->format = FORMAT_GRADESCOPE;
            else if (strcmp(format, "prairielearn") == 0)
                given->format = FORMAT_PRAIRIELEARN;
            else if (strcmp(format, "json") == 0)
                given->status_json = 1;
            else
                return usage_error("--format is text, gradescope or prairielearn (json with "
                                   "--status), got '%s'", format);
        } else if (strcmp(flag, "--out") == 0) {
            given->out_path = argv[++i];
        } else if (strcmp(flag, "--cases") == 0) {
            if (given->case_file_count == MAX_CASE_FILES)
                return usage_error("at most %s --cases files", "16");
            given->case_files[given->case_file_count++] = argv[++i];
        } else if (strcmp(flag, "--case") == 0) {
            given->only_case = argv[++i];
        } else if (strcmp(flag, "--program") == 0) {
            given->program = argv[++i];
        } else if (strcmp(flag, "--jobs") == 0) {
            const char *value = argv[++i];
            char *end = NULL;
            long jobs = strtol(value, &end, 10);
            if (*end != '\0' || jobs < 1 || jobs > MAX_JOBS)
                return usage_error("--jobs is a whole number from 1 to 64, got '%s'", value);
            given->jobs = (int)jobs;
        } else if (strcmp(flag, "--gpus") == 0) {
            given->gpus = argv[++i];
            if (gpus_check_syntax(given->gpus) != 0)
                return usage_error("--gpus is all or GPU indices separated by commas (0,1), "
                                   "got '%s'", given->gpus);
        } else if (strcmp(flag, "--isolate-cases") == 0) {
            given->isolate_cases = 1;
        } else if (strcmp(flag, "--mixed-gpus") == 0) {
            given->mixed_gpus = 1;
        } else if (strcmp(flag, "--shard") == 0) {
            const char *value = argv[++i];
            int shard, shard_count, end = 0;
            if (strspn(value, "0123456789/") != strlen(value) ||
                sscanf(value, "%5d/%5d%n", &shard, &shard_count, &end) != 2 ||
                value[end] != '\0' || shard >= shard_count || shard_count > MAX_SHARDS)
                return usage_error("--shard is K/N, a shard K of N with 0 <= K < N <= 4096 "
                                   "(0/4), got '%s'", value);
            given->shard = shard;
            given->shard_count = shard_count;
        } else if (strcmp(flag, "--merge") == 0) {
            /* The folders: every argument up to the next option. */
            if (given->merge_given)
                return usage_error("%s", "--merge is given once, with every folder to merge");
            given->merge_given = 1;
            given->merge_folders = &argv[i + 1];
            while (i + 1 < argc && argv[i + 1][0] != '-' && argv[i + 1][0] != '\0') {
                given->merge_count++;
                i++;
            }
            if (given->merge_count == 0)
                return usage_error("%s", "--merge needs the shard folders to merge "
                                         "(OUT/shards/0 OUT/shards/1 ...)");
        } else if (strcmp(flag, "--roster") == 0) {
            given->roster = argv[++i];
        } else if (strcmp(flag, "--status") == 0) {
            given->status_of = argv[++i];
        } else if (strcmp(flag, "--build-dir") == 0) {
            return usage_error("%s", "--build-dir is gone: the grader builds nothing, it runs the "
                                     "lab program given with --program");
        } else if (flag[0] == '-' || flag[0] == '\0') {
            return usage_error("unknown option '%s' (./memlab grade --help lists them)", flag);
        } else if (positional_count < 2) {
            positional[positional_count++] = flag;
        } else {
            return usage_error("one lab and one submission, then options: '%s' is one too many",
                               flag);
        }
    }
    if (given->status_of != NULL) {
        if (positional_count > 0 || given->program != NULL || given->out_path != NULL ||
            batch_option_given(given) != NULL)
            return usage_error("%s", "--status DIR takes no lab, submission or other option: "
                                     "./memlab grade --status DIR [--format text|json]");
        if (given->format_given && !given->status_json && given->format != FORMAT_TEXT)
            return usage_error("%s", "--status DIR writes text or json: --format text|json");
        return EXIT_PASSED;
    }
    if (given->status_json)
        return usage_error("%s", "--format json is for --status DIR (a submission's results: "
                                 "text, gradescope or prairielearn)");
    if (positional_count < 2)
        return usage_error("%s", usage_line);
    given->lab = positional[0];
    given->submission = positional[1];
    if (given->program == NULL)
        return usage_error("--program PATH is needed: the instructor's built lab program "
                           "(./memlab grade passes build/labs/%s)", given->lab);
    return EXIT_PASSED;
}

/* A class: a folder or an archive (.zip, .tar.gz) of submissions, each graded as one. */
static int grade_batch(const options *given, grading_setup *setup, const char *rubric)
{
    if (given->format_given)
        return usage_error("%s", "--format is for one submission: a batch writes scores.csv, "
                                 "canvas.csv, feedback/ and results/ (Gradescope's format) in its "
                                 "--out folder");
    char default_out[GRADING_PATH_SIZE];
    grading_path(default_out, sizeof default_out, "grades-%s", given->lab);
    batch_options batch = {0};
    batch.submissions = given->submission;
    batch.out = given->out_path != NULL ? given->out_path : default_out;
    if (given->mixed_gpus && given->gpus == NULL)
        return usage_error("%s", "--mixed-gpus goes with --gpus");
    if (given->merge_given && (given->gpus != NULL || given->shard_count > 0 || given->jobs > 0))
        return usage_error("%s", "--merge grades nothing: --gpus, --shard and --jobs are for a "
                                 "run that grades");
    static gpu_set gpus; /* large: not on the stack */
    if (given->gpus != NULL) {
        char error[1024];
        if (gpus_choose(given->gpus, given->mixed_gpus, &gpus, error, sizeof error) != 0)
            return usage_error("%s", error);
        batch.gpus = &gpus;
    }
    /* One submission in flight per GPU by default (GPUS_MAX is MAX_JOBS). */
    batch.jobs = given->jobs > 0 ? given->jobs : batch.gpus != NULL ? gpus.count : 1;
    batch.shard = given->shard;
    batch.shard_count = given->shard_count;
    batch.merge_folders = given->merge_folders;
    batch.merge_count = given->merge_count;
    batch.roster = given->roster;
    batch.rubric = rubric;
    for (int i = 0; i < given->case_file_count; i++)
        batch.case_files[i] = given->case_files[i];
    batch.case_file_count = given->case_file_count;
    setup->quiet = 1;
    setup->lock_owner = (long)getpid();
    return batch_grade(setup, &batch);
}

/* One kernels.cu. */
static int grade_one(const options *given, grading_setup *setup)
{
    const char *batch_only = batch_option_given(given);
    if (batch_only != NULL)
        return usage_error("%s is for a batch: a folder or an archive of submissions", batch_only);
    int status = check_submission(given->submission);
    if (status != EXIT_PASSED)
        return status;
    if (given->out_path != NULL && !can_write(given->out_path))
        return usage_error("cannot write %s", given->out_path);
    setup->lock_owner = (long)getpid();
    grade_result result;
    grading_grade(setup, given->submission, given->submission, &result);
    int write_status = write_results(given, &result);
    status = write_status != 0 ? EXIT_USAGE : exit_status_of(&result);
    grading_free(&result);
    return status;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--check-rubric") == 0)
        return argc == 2 ? usage_error("%s", "--check-rubric needs rubric files")
                         : check_rubrics(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "--visible-cases") == 0)
        return argc == 3 ? print_visible_cases(argv[2])
                         : usage_error("%s", "--visible-cases takes one rubric file");
    if (argc >= 2 && strcmp(argv[1], "--case-arguments") == 0)
        return argc == 3 ? print_case_arguments(argv[2])
                         : usage_error("%s", "--case-arguments takes one rubric file");

    options given;
    int status = parse_options(argc, argv, &given);
    if (status == HELP_ASKED) {
        print_help();
        return EXIT_PASSED;
    }
    if (status != EXIT_PASSED)
        return status;
    if (given.status_of != NULL)
        return batch_status(given.status_of, given.status_json);

    grading_setup setup = {0};
    setup.root = given.root;
    setup.lab = given.lab;
    setup.only_case = given.only_case;
    setup.isolate_cases = given.isolate_cases;
    if (find_lab_directory(given.root, given.lab, setup.lab_directory,
                           sizeof setup.lab_directory) != 0)
        return usage_error("no lab '%s' here (labs/NN_LAB/LAB.cu)", given.lab);
    status = check_program(&given, &setup);
    if (status != EXIT_PASSED)
        return status;
    rubric_set cases = {0};
    char rubric[GRADING_PATH_SIZE];
    status = read_cases(&given, setup.lab_directory, &cases, rubric, sizeof rubric);
    if (status == EXIT_PASSED) {
        setup.cases = &cases;
        grading_prepare(&setup);
        status = batch_is_batch(given.submission) ? grade_batch(&given, &setup, rubric)
                                                   : grade_one(&given, &setup);
    }
    rubric_free(&cases);
    return status;
}
