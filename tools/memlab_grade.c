/* memlab_grade: grades a student's lab source against the lab's rubric.
 *
 *   memlab_grade [--root DIR] LAB SUBMISSION.cu [--format text|gradescope|prairielearn]
 *                [--out FILE] [--cases FILE]... [--case NAME] [--build-dir DIR]
 *   memlab_grade --check-rubric FILE...     read rubric files, report the first error
 *   memlab_grade --visible-cases FILE       the file without its non-visible cases
 *
 * How a submission is graded:
 *   1. copy the instructor's common/, profiling/, Makefile.labs and labs/NN_LAB/ to a scratch
 *      tree, and build the reference solution there (the lab source as it is);
 *   2. put the submission in place of labs/NN_LAB/LAB.cu and build it the same way: a build
 *      error scores 0, with the compiler's messages;
 *   3. run each rubric case as a process of its own with the case's time limit (under
 *      compute-sanitizer for a memcheck or racecheck case), with --format json --out FILE;
 *      a case that compares with the reference solution runs the reference too, and a case
 *      that compares with the access model takes the predictions from the reference's --model
 *      run, so that the submission cannot move them;
 *   4. evaluate each case's checks (evaluate.c) and write the results (results.c).
 * A tree with STUDENT.md at its root is a student pack: it holds no reference solution, so the
 * cases that need one are not graded there.
 *
 * Exit status: 0 every case passed; 1 a case failed, or the submission did not compile;
 * 2 bad usage or a malformed rubric (one line on stderr); 3 not gradable on this host (no CUDA
 * device, counters not readable, no reference solution for a case).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "evaluate.h"
#include "process.h"
#include "results.h"
#include "rubric.h"
#include "text.h"

enum { EXIT_PASSED = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NOT_GRADABLE = 3 };

#define BUILD_TIME_LIMIT_S 1800
#define MODEL_TIME_LIMIT_S 120
#define MAX_CASE_FILES 16
#define MAX_ARGUMENTS 96
#define PATH_SIZE 4096

typedef enum { FORMAT_TEXT, FORMAT_GRADESCOPE, FORMAT_PRAIRIELEARN } output_format;

typedef struct {
    const char *root;
    const char *program;
    const char *submission;
    output_format format;
    const char *out_path;
    const char *case_files[MAX_CASE_FILES];
    int case_file_count;
    const char *only_case;
    const char *build_dir;
} options;

/* Where one grading run keeps its files. */
typedef struct {
    char lab_directory[256];    /* "04_coalescing" */
    char scratch[PATH_SIZE];
    char tree[PATH_SIZE];       /* the copy of the instructor's tree the builds run in */
    char build[PATH_SIZE];      /* make's OUT */
    char reference[PATH_SIZE];  /* the reference solution's program, "" without one */
    char student[PATH_SIZE];    /* the submission's program */
    char sanitizer[PATH_SIZE];
    int runs;                   /* files of runs are numbered */
} session;

static int usage_error(const char *format, const char *detail)
{
    fprintf(stderr, "memlab grade: ");
    fprintf(stderr, format, detail);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
}

static void note(const char *format, const char *detail)
{
    fprintf(stderr, "memlab grade: ");
    fprintf(stderr, format, detail);
    fprintf(stderr, "\n");
}

/* snprintf for paths: a path too long for its buffer stops the grader with a message. */
static void path_format(char *path, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void path_format(char *path, size_t size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(path, size, format, arguments);
    va_end(arguments);
    if (length < 0 || (size_t)length >= size) {
        fprintf(stderr, "memlab grade: a path is longer than %zu characters\n", size - 1);
        exit(EXIT_USAGE);
    }
}

static void join(char *path, size_t size, const char *directory, const char *name)
{
    path_format(path, size, "%s/%s", directory, name);
}

static int exists(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0;
}

static int is_executable(const char *path)
{
    return access(path, X_OK) == 0;
}

/* An existing file that is writable, or a new one in a writable directory. Creates nothing. */
static int can_write(const char *path)
{
    if (exists(path))
        return access(path, W_OK) == 0;
    char directory[PATH_SIZE];
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

static char *read_whole_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    text_buffer buffer = {0};
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
        text_append(&buffer, "%.*s", (int)got, chunk);
    fclose(file);
    return text_take(&buffer);
}

/* ---- the lab and its cases ------------------------------------------------------------------- */

/* labs/NN_PROGRAM/ holding PROGRAM.cu. */
static int find_lab_directory(const char *root, const char *program, char *directory, size_t size)
{
    char labs[PATH_SIZE];
    join(labs, sizeof labs, root, "labs");
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
        char source[PATH_SIZE];
        path_format(source, sizeof source, "%s/%s/%s.cu", labs, name, program);
        if (exists(source)) {
            snprintf(directory, size, "%s", name);
            found = 0;
        }
    }
    closedir(listing);
    return found;
}

static int read_cases(const options *given, const char *lab_directory, rubric_set *cases)
{
    char path[PATH_SIZE], error[1024];
    snprintf(path, sizeof path, "%s/labs/%s/rubric", given->root, lab_directory);
    if (!exists(path))
        return usage_error("lab %s has no rubric (labs/NN_LAB/rubric: see "
                           "handouts/instructor/grading.md)", given->program);
    if (rubric_read(cases, path, error, sizeof error) != 0)
        return usage_error("%s", error);
    for (int i = 0; i < given->case_file_count; i++)
        if (rubric_read(cases, given->case_files[i], error, sizeof error) != 0)
            return usage_error("%s", error);
    if (given->only_case != NULL && rubric_find(cases, given->only_case) == NULL)
        return usage_error("no case named '%s' in the rubric (or the --cases files)",
                           given->only_case);
    if (cases->count == 0)
        return usage_error("the rubric of lab %s has no case", given->program);
    return EXIT_PASSED;
}

/* ---- building ---------------------------------------------------------------------------------- */

static int copy_into(const char *source, const char *destination)
{
    char *argv[] = {"cp", "-R", "-p", (char *)source, (char *)destination, NULL};
    process_result result;
    return process_run(argv, NULL, NULL, NULL, BUILD_TIME_LIMIT_S, &result);
}

static int remove_tree(const char *path)
{
    char *argv[] = {"rm", "-rf", (char *)path, NULL};
    process_result result;
    return process_run(argv, NULL, NULL, NULL, BUILD_TIME_LIMIT_S, &result);
}

static int copy_file(const char *source, const char *destination)
{
    FILE *in = fopen(source, "rb");
    if (in == NULL)
        return -1;
    FILE *out = fopen(destination, "wb");
    if (out == NULL) {
        fclose(in);
        return -1;
    }
    char chunk[8192];
    size_t got;
    int status = 0;
    while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
        if (fwrite(chunk, 1, got, out) != got)
            status = -1;
    if (ferror(in))
        status = -1;
    fclose(in);
    if (fclose(out) != 0)
        status = -1;
    return status;
}

/* The scratch tree: the instructor's harness, build files and this lab's directory. */
static int prepare_tree(const options *given, session *grading)
{
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    path_format(grading->scratch, sizeof grading->scratch, "%s/memlab-grade-XXXXXX", temporary);
    if (mkdtemp(grading->scratch) == NULL)
        return -1;
    join(grading->tree, sizeof grading->tree, grading->scratch, "tree");
    char labs[PATH_SIZE], source[PATH_SIZE];
    join(labs, sizeof labs, grading->tree, "labs");
    if (mkdir(grading->tree, 0755) != 0 || mkdir(labs, 0755) != 0)
        return -1;
    const char *parts[] = {"common", "profiling", "Makefile.labs"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        join(source, sizeof source, given->root, parts[i]);
        if (copy_into(source, grading->tree) != 0)
            return -1;
    }
    path_format(source, sizeof source, "%s/labs/%s", given->root, grading->lab_directory);
    if (copy_into(source, labs) != 0)
        return -1;
    if (given->build_dir != NULL)
        snprintf(grading->build, sizeof grading->build, "%s", given->build_dir);
    else
        join(grading->build, sizeof grading->build, grading->scratch, "build");
    return 0;
}

/* The compiler's messages without make's own lines. */
static char *compiler_messages(const char *log_path)
{
    char *log = read_whole_file(log_path);
    if (log == NULL)
        return strdup("(no build log)");
    text_buffer buffer = {0};
    for (char *line = log; *line != '\0';) {
        char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "make:", 5) != 0 && strncmp(line, "make[", 5) != 0)
            text_append(&buffer, "%.*s\n", (int)length, line);
        line += length + (end != NULL);
    }
    free(log);
    return text_take(&buffer);
}

/* Builds the lab in the scratch tree and moves the program to `program_path`. On failure
 * returns -1 and *messages holds what the build said (the caller frees it). */
static int build_lab(const options *given, session *grading, const char *program_path,
                     const char *log_name, char **messages)
{
    char out_argument[PATH_SIZE + 8], arch_argument[256] = "", log_path[PATH_SIZE];
    char built[PATH_SIZE];
    path_format(out_argument, sizeof out_argument, "OUT=%s", grading->build);
    join(log_path, sizeof log_path, grading->scratch, log_name);
    path_format(built, sizeof built, "%s/labs/%s", grading->build, given->program);
    unlink(built);

    char *argv[8];
    int argc = 0;
    argv[argc++] = "make";
    argv[argc++] = "-s";
    argv[argc++] = "-f";
    argv[argc++] = "Makefile.labs";
    argv[argc++] = out_argument;
    /* As ./memlab takes it: "80;90" or "80 90". */
    const char *architectures = getenv("MEMLAB_CUDA_ARCH");
    if (architectures != NULL && architectures[0] != '\0') {
        snprintf(arch_argument, sizeof arch_argument, "CUDA_ARCH=%s", architectures);
        for (char *c = arch_argument; *c != '\0'; c++)
            if (*c == ';')
                *c = ' ';
        argv[argc++] = arch_argument;
    }
    argv[argc++] = (char *)given->program;
    argv[argc] = NULL;

    process_result result;
    int status = process_run(argv, grading->tree, log_path, log_path, BUILD_TIME_LIMIT_S, &result);
    if (status == 0 && rename(built, program_path) != 0) {
        char *copy_argv[] = {"cp", "-p", built, (char *)program_path, NULL};
        process_result copied;
        status = process_run(copy_argv, NULL, NULL, NULL, BUILD_TIME_LIMIT_S, &copied);
    }
    if (status == 0)
        return 0;
    if (!result.started)
        *messages = strdup("make could not be run: install make (and the CUDA toolkit)");
    else if (result.timed_out)
        *messages = strdup("the build ran past its time limit");
    else
        *messages = compiler_messages(log_path);
    return -1;
}

/* The reference program goes in the scratch directory, or with --build-dir beside the build,
 * with a copy of the source it was built from: a later grading with the same --build-dir reuses
 * it while the lab source is the same. Returns 1 when it reuses one. */
static int reuse_reference(const options *given, session *grading)
{
    if (given->build_dir == NULL) {
        join(grading->reference, sizeof grading->reference, grading->scratch, "reference");
        return 0;
    }
    char source[PATH_SIZE], kept_source[PATH_SIZE];
    path_format(grading->reference, sizeof grading->reference, "%s/reference-%s",
                given->build_dir, given->program);
    path_format(kept_source, sizeof kept_source, "%s.cu", grading->reference);
    path_format(source, sizeof source, "%s/labs/%s/%s.cu", given->root, grading->lab_directory,
                given->program);
    char *current = read_whole_file(source), *kept = read_whole_file(kept_source);
    int same = current != NULL && kept != NULL && strcmp(current, kept) == 0 &&
               is_executable(grading->reference);
    free(current);
    free(kept);
    if (same)
        note("reusing the reference solution built in %s", given->build_dir);
    return same;
}

static void keep_reference(const options *given, const session *grading)
{
    if (given->build_dir == NULL)
        return;
    char source[PATH_SIZE], kept_source[PATH_SIZE];
    path_format(kept_source, sizeof kept_source, "%s.cu", grading->reference);
    path_format(source, sizeof source, "%s/labs/%s/%s.cu", given->root, grading->lab_directory,
                given->program);
    copy_file(source, kept_source);
}

/* ---- running a case ------------------------------------------------------------------------ */

/* compute-sanitizer: $MEMLAB_SANITIZER, on PATH, beside nvcc, or in $CUDA_HOME/bin. */
static void find_sanitizer(char *path, size_t size)
{
    const char *given = getenv("MEMLAB_SANITIZER");
    if (given != NULL && given[0] != '\0') {
        snprintf(path, size, "%s", given);
        return;
    }
    const char *search = getenv("PATH");
    char *copy = strdup(search != NULL ? search : "");
    const char *names[] = {"compute-sanitizer", "nvcc"};
    for (size_t n = 0; n < 2 && copy != NULL; n++) {
        char *saved = NULL;
        char *scratch_copy = strdup(copy);
        for (char *directory = strtok_r(scratch_copy, ":", &saved); directory != NULL;
             directory = strtok_r(NULL, ":", &saved)) {
            char candidate[PATH_SIZE];
            snprintf(candidate, sizeof candidate, "%s/%s", directory, names[n]);
            if (!is_executable(candidate))
                continue;
            snprintf(candidate, sizeof candidate, "%s/compute-sanitizer", directory);
            if (is_executable(candidate)) {
                snprintf(path, size, "%s", candidate);
                free(scratch_copy);
                free(copy);
                return;
            }
        }
        free(scratch_copy);
    }
    free(copy);
    const char *cuda_home = getenv("CUDA_HOME");
    snprintf(path, size, "%s/bin/compute-sanitizer",
             cuda_home != NULL ? cuda_home : "/usr/local/cuda");
}

/* The sanitizer's verdict from its log: the error count of its summary (-1 when there is no
 * summary: it did not finish) and the start of its findings. */
static void read_sanitizer_log(const char *path, lab_run *run)
{
    run->sanitizer_errors = -1;
    char *log = read_whole_file(path);
    if (log == NULL)
        return;
    const char *summary = strcmp(run->sanitizer, "racecheck") == 0 ? "RACECHECK SUMMARY:"
                                                                   : "ERROR SUMMARY:";
    /* A device the tool cannot instrument (seen under gVisor): the run says nothing. */
    const char *found = strstr(log, "not supported") != NULL ? NULL : strstr(log, summary);
    if (found != NULL) {
        found += strlen(summary);
        /* "RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)": the errors count. */
        const char *errors = strchr(found, '(');
        const char *line_end = strchr(found, '\n');
        if (strcmp(run->sanitizer, "racecheck") == 0 && errors != NULL &&
            (line_end == NULL || errors < line_end))
            run->sanitizer_errors = atoi(errors + 1);
        else
            run->sanitizer_errors = atoi(found);
    }
    snprintf(run->sanitizer_log, sizeof run->sanitizer_log, "%s", log);
    free(log);
}

/* Runs `program` with the case's arguments; fills `run`. model: add --model (predictions only). */
static void run_lab(session *grading, const char *program, const grading_case *one, int model,
                    lab_run *run)
{
    memset(run, 0, sizeof *run);
    run->ran = 1;
    run->time_limit_s = model ? MODEL_TIME_LIMIT_S : one->timeout_s;
    int number = ++grading->runs;
    char json_path[PATH_SIZE], stdout_path[PATH_SIZE], stderr_path[PATH_SIZE], log_path[PATH_SIZE];
    path_format(json_path, sizeof json_path, "%s/run-%d.json", grading->scratch, number);
    path_format(stdout_path, sizeof stdout_path, "%s/run-%d.out", grading->scratch, number);
    path_format(stderr_path, sizeof stderr_path, "%s/run-%d.err", grading->scratch, number);
    path_format(log_path, sizeof log_path, "%s/run-%d.sanitizer", grading->scratch, number);

    char arguments[RUBRIC_ARGUMENTS_SIZE];
    snprintf(arguments, sizeof arguments, "%s", one->arguments);
    char *argv[MAX_ARGUMENTS];
    int argc = 0;
    const char *tool = NULL;
    if (!model && rubric_case_sanitizer(one, &tool)) {
        run->sanitizer = tool;
        run->sanitizer_errors = -1; /* until its log says otherwise */
        argv[argc++] = grading->sanitizer;
        argv[argc++] = "--tool";
        argv[argc++] = (char *)tool;
        argv[argc++] = "--log-file";
        argv[argc++] = log_path;
        /* Memory errors and races only: a CUDA call the harness expects to fail is no finding. */
        argv[argc++] = "--report-api-errors";
        argv[argc++] = "no";
    }
    argv[argc++] = (char *)program;
    char *saved = NULL;
    for (char *word = strtok_r(arguments, " \t", &saved); word != NULL && argc < MAX_ARGUMENTS - 8;
         word = strtok_r(NULL, " \t", &saved))
        argv[argc++] = word;
    if (tool != NULL) {
        argv[argc++] = "--metrics";
        argv[argc++] = "none";
    }
    if (model)
        argv[argc++] = "--model";
    argv[argc++] = "--format";
    argv[argc++] = "json";
    argv[argc++] = "--out";
    argv[argc++] = json_path;
    argv[argc] = NULL;

    process_result result;
    process_run(argv, grading->scratch, stdout_path, stderr_path, run->time_limit_s, &result);
    run->timed_out = result.timed_out;
    run->signal = result.signal;
    run->exit_status = result.exit_status;
    process_file_tail(stderr_path, run->stderr_tail, sizeof run->stderr_tail);
    if (!result.started) {
        run->exit_status = 127;
        if (tool != NULL)
            snprintf(run->sanitizer_log, sizeof run->sanitizer_log,
                     "%.3000s could not be run (set MEMLAB_SANITIZER to its path)", grading->sanitizer);
    }
    char *json = read_whole_file(json_path);
    if (json != NULL) {
        run->report = cJSON_Parse(json);
        free(json);
    }
    if (tool != NULL && result.started)
        read_sanitizer_log(log_path, run);
}

static void free_run(lab_run *run)
{
    cJSON_Delete(run->report);
    run->report = NULL;
}

/* The last non-empty line of a run's stderr: where the lab programs say what went wrong. */
static void last_line(const char *text_in, char *line, size_t size)
{
    const char *end = text_in + strlen(text_in);
    while (end > text_in && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
        end--;
    const char *start = end;
    while (start > text_in && start[-1] != '\n')
        start--;
    snprintf(line, size, "%.*s", (int)(end - start), start);
}

/* The first "not graded" line of a case's output, without the words: the reason. */
static void not_graded_reason(const char *output, char *reason, size_t size)
{
    const char *line = strstr(output, "not graded  ");
    if (line == NULL) {
        snprintf(reason, size, "a case could not be graded on this host");
        return;
    }
    line += strlen("not graded  ");
    const char *end = strchr(line, '\n');
    snprintf(reason, size, "%.*s", (int)(end != NULL ? end - line : (long)strlen(line)), line);
}

static void grade_cases(session *grading, grade_result *result)
{
    for (int i = 0; i < result->case_count; i++) {
        case_result *one = &result->cases[i];
        const grading_case *rubric_case = one->rubric_case;
        note("case %s ...", rubric_case->name);
        lab_run submission, reference = {0}, model = {0};
        run_lab(grading, grading->student, rubric_case, 0, &submission);

        /* Without a GPU no case can run: stop here rather than try every one. */
        if (!submission.timed_out && submission.signal == 0 &&
            submission.exit_status == LAB_EXIT_NO_DEVICE) {
            char line[1024];
            last_line(submission.stderr_tail, line, sizeof line);
            snprintf(result->reason, sizeof result->reason,
                     "the grading host has no usable CUDA device (the lab program said: %.900s)", line);
            result->gradable = 0;
            free_run(&submission);
            return;
        }
        int have_reference = grading->reference[0] != '\0';
        if (rubric_case_needs_reference(rubric_case) && have_reference)
            run_lab(grading, grading->reference, rubric_case, 0, &reference);
        if (rubric_case_needs_model(rubric_case) && have_reference)
            run_lab(grading, grading->reference, rubric_case, 1, &model);

        text_buffer output = {0};
        one->status = evaluate_case(rubric_case, &submission,
                                    rubric_case_needs_reference(rubric_case) ? &reference : NULL,
                                    model.ran ? &model : NULL, &output);
        one->output = text_take(&output);
        one->ran = 1;
        if (one->status == CASE_NOT_GRADED && result->gradable) {
            result->gradable = 0;
            not_graded_reason(one->output, result->reason, sizeof result->reason);
        }
        fprintf(stderr, "memlab grade: case %s: %s\n", rubric_case->name,
                one->status == CASE_PASSED   ? "passed"
                : one->status == CASE_FAILED ? "failed"
                                             : "not graded");
        free_run(&submission);
        free_run(&reference);
        free_run(&model);
    }
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
    if (!result->compiled)
        return EXIT_FAILED;
    if (!result->gradable)
        return EXIT_NOT_GRADABLE;
    for (int i = 0; i < result->case_count; i++)
        if (!result->cases[i].ran || result->cases[i].status != CASE_PASSED)
            return EXIT_FAILED;
    return EXIT_PASSED;
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
    char *content = read_whole_file(path);
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

static int parse_options(int argc, char **argv, options *given)
{
    memset(given, 0, sizeof *given);
    given->root = ".";
    const char *positional[2];
    int positional_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        int takes_value = strcmp(flag, "--root") == 0 || strcmp(flag, "--format") == 0 ||
                          strcmp(flag, "--out") == 0 || strcmp(flag, "--cases") == 0 ||
                          strcmp(flag, "--case") == 0 || strcmp(flag, "--build-dir") == 0;
        if (takes_value && (i + 1 == argc || argv[i + 1][0] == '\0'))
            return usage_error("%s needs a value", flag);
        if (strcmp(flag, "--root") == 0) {
            given->root = argv[++i];
        } else if (strcmp(flag, "--format") == 0) {
            const char *format = argv[++i];
            if (strcmp(format, "text") == 0)
                given->format = FORMAT_TEXT;
            else if (strcmp(format, "gradescope") == 0)
                given->format = FORMAT_GRADESCOPE;
            else if (strcmp(format, "prairielearn") == 0)
                given->format = FORMAT_PRAIRIELEARN;
            else
                return usage_error("--format is text, gradescope or prairielearn, got '%s'", format);
        } else if (strcmp(flag, "--out") == 0) {
            given->out_path = argv[++i];
        } else if (strcmp(flag, "--cases") == 0) {
            if (given->case_file_count == MAX_CASE_FILES)
                return usage_error("at most %s --cases files", "16");
            given->case_files[given->case_file_count++] = argv[++i];
        } else if (strcmp(flag, "--case") == 0) {
            given->only_case = argv[++i];
        } else if (strcmp(flag, "--build-dir") == 0) {
            given->build_dir = argv[++i];
        } else if (flag[0] == '-' || flag[0] == '\0') {
            return usage_error("unknown option '%s' (see tools/README.md)", flag);
        } else if (positional_count < 2) {
            positional[positional_count++] = flag;
        } else {
            return usage_error("one lab and one submission, then options: '%s' is one too many",
                               flag);
        }
    }
    if (positional_count < 2)
        return usage_error("%s", "usage: memlab grade LAB SUBMISSION.cu [--format "
                                 "text|gradescope|prairielearn] [--out FILE] [--cases FILE] "
                                 "[--case NAME]");
    given->program = positional[0];
    given->submission = positional[1];
    if (given->build_dir != NULL && given->build_dir[0] != '/')
        return usage_error("--build-dir must be an absolute path, got '%s'", given->build_dir);
    return EXIT_PASSED;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--check-rubric") == 0)
        return argc == 2 ? usage_error("%s", "--check-rubric needs rubric files")
                         : check_rubrics(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "--visible-cases") == 0)
        return argc == 3 ? print_visible_cases(argv[2])
                         : usage_error("%s", "--visible-cases takes one rubric file");

    options given;
    int status = parse_options(argc, argv, &given);
    if (status != EXIT_PASSED)
        return status;

    session grading = {0};
    if (find_lab_directory(given.root, given.program, grading.lab_directory,
                           sizeof grading.lab_directory) != 0)
        return usage_error("no lab '%s' here (labs/NN_LAB/LAB.cu)", given.program);
    FILE *submission = fopen(given.submission, "rb");
    if (submission == NULL)
        return usage_error("cannot read the submission %s", given.submission);
    fclose(submission);
    if (given.out_path != NULL && !can_write(given.out_path))
        return usage_error("cannot write %s", given.out_path);
    rubric_set cases = {0};
    status = read_cases(&given, grading.lab_directory, &cases);
    if (status != EXIT_PASSED) {
        rubric_free(&cases);
        return status;
    }

    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    grade_result result = {0};
    result.lab = given.program;
    const char *slash = strrchr(given.submission, '/');
    result.submission = slash != NULL ? slash + 1 : given.submission;
    result.compiled = 1;
    result.gradable = 1;
    result.cases = calloc((size_t)cases.count, sizeof *result.cases);
    if (result.cases == NULL)
        return usage_error("%s", "out of host memory");
    for (int i = 0; i < cases.count; i++) {
        if (given.only_case != NULL && strcmp(cases.cases[i].name, given.only_case) != 0)
            continue;
        result.cases[result.case_count++].rubric_case = &cases.cases[i];
    }

    if (prepare_tree(&given, &grading) != 0) {
        result.gradable = 0;
        snprintf(result.reason, sizeof result.reason,
                 "the grader could not prepare its scratch directory (%s)", strerror(errno));
    }
    find_sanitizer(grading.sanitizer, sizeof grading.sanitizer);

    /* A student pack holds no reference solution; the instructor's tree does. */
    char pack_marker[PATH_SIZE];
    join(pack_marker, sizeof pack_marker, given.root, "STUDENT.md");
    char *messages = NULL, built_as[PATH_SIZE];
    if (result.gradable && !exists(pack_marker) && !reuse_reference(&given, &grading)) {
        note("building the reference solution of %s", given.program);
        if (build_lab(&given, &grading, grading.reference, "build-reference.log", &messages) == 0) {
            keep_reference(&given, &grading);
        } else {
            result.gradable = 0;
            snprintf(result.reason, sizeof result.reason,
                     "the instructor's lab does not build on the grading host: %.900s", messages);
            free(messages);
            messages = NULL;
        }
    }
    if (result.gradable) {
        char placed[PATH_SIZE];
        path_format(placed, sizeof placed, "%s/labs/%s/%s.cu", grading.tree, grading.lab_directory,
                 given.program);
        path_format(built_as, sizeof built_as, "labs/%s/%s.cu", grading.lab_directory,
                    given.program);
        result.built_as = built_as;
        join(grading.student, sizeof grading.student, grading.scratch, "submission");
        note("building the submission %s", given.submission);
        if (copy_file(given.submission, placed) != 0) {
            result.gradable = 0;
            snprintf(result.reason, sizeof result.reason, "cannot copy the submission");
        } else if (build_lab(&given, &grading, grading.student, "build-submission.log",
                             &messages) != 0) {
            result.compiled = 0;
            result.build_output = messages;
        }
    }
    if (result.compiled && result.gradable)
        grade_cases(&grading, &result);

    clock_gettime(CLOCK_MONOTONIC, &end);
    result.execution_time_s = (double)(end.tv_sec - start.tv_sec) +
                              (end.tv_nsec - start.tv_nsec) * 1e-9;
    int write_status = write_results(&given, &result);
    status = write_status != 0 ? EXIT_USAGE : exit_status_of(&result);

    if (grading.scratch[0] != '\0')
        remove_tree(grading.scratch);
    for (int i = 0; i < result.case_count; i++)
        free(result.cases[i].output);
    free(result.cases);
    free(result.build_output);
    rubric_free(&cases);
    return status;
}
