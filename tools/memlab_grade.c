/* memlab_grade: grades a student's kernels.cu against the lab's rubric.
 *
 *   memlab_grade [--root DIR] LAB SUBMISSION.cu --program PATH [--format text|gradescope|prairielearn]
 *                [--out FILE] [--cases FILE]... [--case NAME]
 *   memlab_grade --check-rubric FILE...     read rubric files, report the first error
 *   memlab_grade --visible-cases FILE       the file without its non-visible cases
 *
 * A submission is a kernels.cu: device code only (the lab contract v2, common/kernels.h). The
 * grader builds nothing and runs nothing of the submission's but its kernels: every process it
 * starts is the instructor's lab program, PATH (./memlab grade passes the one it built):
 *   1. refuse, with one line, a submission that is missing, not a regular file or over the size
 *      limit; copy it to a scratch directory (later changes to the file do not count);
 *   2. compile it once: PATH --kernels COPY.cu --save-kernels SCRATCH/NAME.fatbin, with a time
 *      limit. The program refuses a file that #includes anything but CUDA headers and the lab's
 *      header (exit 2): score 0 with its one line, never the file or the compiler's output. A
 *      compile error: score 0 with the compiler's messages (they name only the submission);
 *   3. run each rubric case as a process of its own with the case's time limit (under
 *      compute-sanitizer for a memcheck or racecheck case): PATH ARGS --kernels NAME.fatbin
 *      --format json --out FILE. A case that compares with the reference solution also runs
 *      PATH ARGS (the program's own kernels: the instructor's solution); predictions come from
 *      PATH ARGS --model. Each run's stdout and stderr are capped (a kernel's printf cannot fill
 *      the disk); its report is not;
 *   4. evaluate each case's checks (evaluate.c) and write the results (results.c).
 * A tree with STUDENT.md at its root is a student pack: its programs carry the student version
 * of the kernels, so the cases that need the reference solution are not graded there.
 *
 * Exit status: 0 every case passed; 1 a case failed, or the submission was refused or did not
 * compile; 2 bad usage, a malformed rubric, a missing program or submission (one line on
 * stderr); 3 not gradable on this host (no CUDA device, counters not readable, no reference
 * solution for a case).
 */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp, strdup */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* The harness gives nvcc 60 s (ML_KERNELS_COMPILE_TIME_LIMIT_S); the program itself a little
 * more. */
#define COMPILE_TIME_LIMIT_S 90
#define MODEL_TIME_LIMIT_S 120
/* The largest kernels .cu the harness compiles (ML_KERNELS_SOURCE_MAX_BYTES, common/kernels.h). */
#define SUBMISSION_MAX_BYTES (256 * 1024)
/* What is kept of each run's stdout and of its stderr; a report (--out) is not capped. */
#define OUTPUT_CAP_BYTES (1024 * 1024)
/* No file a run writes (a report, a compiler's output, nvcc's temporaries) grows past this. */
#define FILE_LIMIT_BYTES (1024LL * 1024 * 1024)
#define MAX_CASE_FILES 16
#define MAX_ARGUMENTS 96
#define PATH_SIZE 4096
#define NAME_SIZE 256

typedef enum { FORMAT_TEXT, FORMAT_GRADESCOPE, FORMAT_PRAIRIELEARN } output_format;

typedef struct {
    const char *root;
    const char *lab;
    const char *submission;
    const char *program;
    output_format format;
    const char *out_path;
    const char *case_files[MAX_CASE_FILES];
    int case_file_count;
    const char *only_case;
} options;

/* Where one grading run keeps its files. */
typedef struct {
    char lab_directory[256];    /* "04_coalescing" */
    char scratch[PATH_SIZE];
    char program[PATH_SIZE];    /* the instructor's lab program, absolute */
    char source_name[NAME_SIZE]; /* the submission's name as messages give it: "kernels.cu" */
    char source[PATH_SIZE];     /* the copy the compiler reads: SCRATCH/source/NAME.cu */
    char fatbin_name[NAME_SIZE]; /* "kernels.fatbin" */
    char fatbin[PATH_SIZE];     /* SCRATCH/NAME.fatbin: every case loads it */
    int have_reference;         /* 0 in a student pack */
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

/* A copy of text with every `from` replaced by `to` (the caller frees it). */
static char *replace_all(const char *text_in, const char *from, const char *to)
{
    text_buffer buffer = {0};
    size_t from_length = strlen(from);
    const char *cursor = text_in;
    for (const char *found; from_length > 0 && (found = strstr(cursor, from)) != NULL;
         cursor = found + from_length)
        text_append(&buffer, "%.*s%s", (int)(found - cursor), cursor, to);
    text_append(&buffer, "%s", cursor);
    return text_take(&buffer);
}

/* What a run of the lab program said, as a student should read it: the scratch copy and the
 * compiled fatbin are called by the submission's name, the scratch directory is not shown, and
 * nothing in it can move a terminal's cursor or break the results' JSON. The caller frees it. */
static char *student_words(const session *grading, const char *said)
{
    char scratch_slash[PATH_SIZE + 1];
    snprintf(scratch_slash, sizeof scratch_slash, "%s/", grading->scratch);
    const char *from[] = {grading->fatbin, grading->source, grading->fatbin_name, scratch_slash};
    const char *to[] = {grading->source_name, grading->source_name, grading->source_name, ""};
    char *text_out = strdup(said);
    for (size_t i = 0; i < sizeof from / sizeof from[0] && text_out != NULL; i++) {
        char *next = replace_all(text_out, from[i], to[i]);
        free(text_out);
        text_out = next;
    }
    if (text_out == NULL) {
        fprintf(stderr, "memlab grade: out of host memory\n");
        exit(EXIT_USAGE);
    }
    text_sanitize(text_out);
    return text_out;
}

/* The same, into a fixed buffer (the words only get shorter). */
static void student_words_in_place(const session *grading, char *text_in, size_t size)
{
    char *words = student_words(grading, text_in);
    snprintf(text_in, size, "%s", words);
    free(words);
}

/* The last non-empty line of a run's output: where the lab programs say what went wrong. */
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

/* ---- the lab, its program and its cases -------------------------------------------------------- */

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

/* The lab program: an executable regular file, made absolute (the runs start in the scratch
 * directory). */
static int check_program(const options *given, session *grading)
{
    struct stat status;
    if (stat(given->program, &status) != 0)
        return usage_error("--program %s: no such file (./memlab grade builds it: "
                           "build/labs/LAB)", given->program);
    if (!S_ISREG(status.st_mode) || !is_executable(given->program))
        return usage_error("--program %s: not an executable file", given->program);
    char resolved[PATH_MAX];
    if (realpath(given->program, resolved) == NULL)
        return usage_error("--program %s: cannot resolve its path", given->program);
    snprintf(grading->program, sizeof grading->program, "%s", resolved);
    return EXIT_PASSED;
}

/* The name the submission goes by: its own when it is a plain NAME.cu, else kernels.cu. */
static void submission_names(const char *path, session *grading)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    size_t length = strlen(name);
    int plain = length > 3 && length < 128 && strcmp(name + length - 3, ".cu") == 0 &&
                name[0] != '.' && name[0] != '-';
    for (size_t i = 0; plain && i < length; i++) {
        char c = name[i];
        plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-' || c == '.';
    }
    snprintf(grading->source_name, sizeof grading->source_name, "%s", plain ? name : "kernels.cu");
    length = strlen(grading->source_name);
    snprintf(grading->fatbin_name, sizeof grading->fatbin_name, "%.*s.fatbin", (int)(length - 3),
             grading->source_name);
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
    if ((long long)status.st_size > SUBMISSION_MAX_BYTES) {
        char detail[PATH_SIZE + 128];
        snprintf(detail, sizeof detail, "the submission %s holds %lld bytes, more than the limit of "
                 "%d for a kernels .cu", path, (long long)status.st_size, SUBMISSION_MAX_BYTES);
        return usage_error("%s", detail);
    }
    if (access(path, R_OK) != 0)
        return usage_error("cannot read the submission %s", path);
    return EXIT_PASSED;
}

/* Copies the submission, as it is now, to SCRATCH/source/NAME.cu (a directory of its own: the
 * harness compiles a copy of it alone anyway). Reads at most the limit: a file that grew since
 * it was checked is refused. */
static int copy_submission(const char *path, session *grading, char *error, size_t error_size)
{
    char directory[PATH_SIZE];
    join(directory, sizeof directory, grading->scratch, "source");
    join(grading->source, sizeof grading->source, directory, grading->source_name);
    path_format(grading->fatbin, sizeof grading->fatbin, "%s/%s", grading->scratch,
                grading->fatbin_name);
    if (mkdir(directory, 0700) != 0) {
        snprintf(error, error_size, "cannot make %.900s: %s", directory, strerror(errno));
        return -1;
    }
    int in = open(path, O_RDONLY | O_NOFOLLOW);
    if (in < 0) {
        snprintf(error, error_size, "cannot read the submission: %s", strerror(errno));
        return -1;
    }
    static char data[SUBMISSION_MAX_BYTES + 1];
    size_t used = 0;
    ssize_t got;
    while (used < sizeof data && (got = read(in, data + used, sizeof data - used)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(error, error_size, "cannot read the submission: %s", strerror(errno));
            close(in);
            return -1;
        }
        used += (size_t)got;
    }
    close(in);
    if (used > SUBMISSION_MAX_BYTES) {
        snprintf(error, error_size, "the submission grew past %d bytes while it was read",
                 SUBMISSION_MAX_BYTES);
        return -1;
    }
    FILE *out = fopen(grading->source, "wb");
    int status = out != NULL && fwrite(data, 1, used, out) == used ? 0 : -1;
    if (out != NULL && fclose(out) != 0)
        status = -1;
    if (status != 0)
        snprintf(error, error_size, "cannot write %.900s", grading->source);
    return status;
}

static int read_cases(const options *given, const char *lab_directory, rubric_set *cases)
{
    char path[PATH_SIZE], error[1024];
    snprintf(path, sizeof path, "%s/labs/%s/rubric", given->root, lab_directory);
    if (!exists(path))
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

static int remove_tree(const char *path)
{
    char *argv[] = {"rm", "-rf", (char *)path, NULL};
    process_result result;
    return process_run(argv, NULL, NULL, NULL, 600, &result);
}

/* ---- compiling the submission, once ----------------------------------------------------------- */

/* PROGRAM --kernels SOURCE --save-kernels FATBIN. Sets result->compiled, refused and
 * build_output, or result->gradable and reason when the host could not compile anything. */
static void compile_submission(session *grading, grade_result *result)
{
    char log_path[PATH_SIZE];
    join(log_path, sizeof log_path, grading->scratch, "compile.log");
    char *argv[] = {grading->program, "--kernels", grading->source, "--save-kernels",
                    grading->fatbin, NULL};
    process_result run;
    note("compiling the submission %s", grading->source_name);
    process_run_capped(argv, grading->scratch, log_path, log_path, COMPILE_TIME_LIMIT_S,
                       OUTPUT_CAP_BYTES, FILE_LIMIT_BYTES, &run);
    char *raw = read_whole_file(log_path);
    char *said = student_words(grading, raw != NULL ? raw : "");
    free(raw);
    char line[1024];
    last_line(said, line, sizeof line);

    if (!run.started) {
        result->gradable = 0;
        snprintf(result->reason, sizeof result->reason,
                 "the lab program %.900s could not be run", grading->program);
    } else if (run.timed_out) {
        result->compiled = 0;
        char message[256];
        snprintf(message, sizeof message, "compiling %s took more than %d s: stopped",
                 grading->source_name, COMPILE_TIME_LIMIT_S);
        result->build_output = strdup(message);
    } else if (run.signal != 0) {
        result->gradable = 0;
        snprintf(result->reason, sizeof result->reason,
                 "the lab program was killed by signal %d while compiling the submission",
                 run.signal);
    } else if (run.exit_status == LAB_EXIT_OK) {
        if (!exists(grading->fatbin)) {
            result->gradable = 0;
            snprintf(result->reason, sizeof result->reason,
                     "the lab program compiled the submission but wrote no fatbin (%.800s)", line);
        }
    } else if (run.exit_status == LAB_EXIT_USAGE) {
        /* Refused before the compiler saw it: the program's one line, nothing else (the file's
         * text is the student's; what a compiler would print of other files never exists). */
        result->compiled = 0;
        result->refused = 1;
        result->build_output = strdup(line);
    } else if (run.exit_status == LAB_EXIT_INCORRECT &&
               (strstr(line, "does not compile") != NULL || strstr(line, "took more than") != NULL)) {
        result->compiled = 0;
        result->build_output = said;
        said = NULL;
    } else {
        result->gradable = 0;
        snprintf(result->reason, sizeof result->reason,
                 "the lab program could not compile the submission on the grading host "
                 "(exit status %d): %.800s", run.exit_status, line);
    }
    free(said);
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

/* Runs the lab program with the case's arguments; fills `run`.
 *   kind RUN_SUBMISSION: with --kernels the submission's fatbin (under compute-sanitizer for a
 *                        memcheck or racecheck case);
 *   kind RUN_REFERENCE:  the program's own kernels, the instructor's solution;
 *   kind RUN_MODEL:      --model, predictions only. */
typedef enum { RUN_SUBMISSION, RUN_REFERENCE, RUN_MODEL } run_kind;

static void run_lab(session *grading, const grading_case *one, run_kind kind, lab_run *run)
{
    memset(run, 0, sizeof *run);
    run->ran = 1;
    run->time_limit_s = kind == RUN_MODEL ? MODEL_TIME_LIMIT_S : one->timeout_s;
    run->output_cap_bytes = OUTPUT_CAP_BYTES;
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
    if (kind == RUN_SUBMISSION && rubric_case_sanitizer(one, &tool)) {
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
    argv[argc++] = grading->program;
    char *saved = NULL;
    for (char *word = strtok_r(arguments, " \t", &saved); word != NULL && argc < MAX_ARGUMENTS - 10;
         word = strtok_r(NULL, " \t", &saved))
        argv[argc++] = word;
    if (tool != NULL) {
        argv[argc++] = "--metrics";
        argv[argc++] = "none";
    }
    if (kind == RUN_SUBMISSION) {
        argv[argc++] = "--kernels";
        argv[argc++] = grading->fatbin;
    }
    if (kind == RUN_MODEL)
        argv[argc++] = "--model";
    argv[argc++] = "--format";
    argv[argc++] = "json";
    argv[argc++] = "--out";
    argv[argc++] = json_path;
    argv[argc] = NULL;

    process_result result;
    process_run_capped(argv, grading->scratch, stdout_path, stderr_path, run->time_limit_s,
                       OUTPUT_CAP_BYTES, FILE_LIMIT_BYTES, &result);
    run->timed_out = result.timed_out;
    run->signal = result.signal;
    run->exit_status = result.exit_status;
    run->output_cut_bytes = result.cut_bytes;
    process_file_tail(stderr_path, run->stderr_tail, sizeof run->stderr_tail);
    student_words_in_place(grading, run->stderr_tail, sizeof run->stderr_tail);
    process_file_tail(stdout_path, run->stdout_tail, sizeof run->stdout_tail);
    student_words_in_place(grading, run->stdout_tail, sizeof run->stdout_tail);
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
    if (tool != NULL && result.started) {
        read_sanitizer_log(log_path, run);
        student_words_in_place(grading, run->sanitizer_log, sizeof run->sanitizer_log);
    }
}

static void free_run(lab_run *run)
{
    cJSON_Delete(run->report);
    run->report = NULL;
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
        run_lab(grading, rubric_case, RUN_SUBMISSION, &submission);

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
        if (rubric_case_needs_reference(rubric_case) && grading->have_reference)
            run_lab(grading, rubric_case, RUN_REFERENCE, &reference);
        if (rubric_case_needs_model(rubric_case))
            run_lab(grading, rubric_case, RUN_MODEL, &model);

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

static const char usage_line[] =
    "usage: memlab grade LAB SUBMISSION.cu --program PATH [--format text|gradescope|prairielearn] "
    "[--out FILE] [--cases FILE] [--case NAME]";

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
                          strcmp(flag, "--case") == 0 || strcmp(flag, "--program") == 0;
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
        } else if (strcmp(flag, "--program") == 0) {
            given->program = argv[++i];
        } else if (strcmp(flag, "--build-dir") == 0) {
            return usage_error("%s", "--build-dir is gone: the grader builds nothing, it runs the "
                                     "lab program given with --program");
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
        return usage_error("%s", usage_line);
    given->lab = positional[0];
    given->submission = positional[1];
    if (given->program == NULL)
        return usage_error("--program PATH is needed: the instructor's built lab program "
                           "(./memlab grade passes build/labs/%s)", given->lab);
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
    if (find_lab_directory(given.root, given.lab, grading.lab_directory,
                           sizeof grading.lab_directory) != 0)
        return usage_error("no lab '%s' here (labs/NN_LAB/LAB.cu)", given.lab);
    status = check_program(&given, &grading);
    if (status != EXIT_PASSED)
        return status;
    status = check_submission(given.submission);
    if (status != EXIT_PASSED)
        return status;
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
    result.lab = given.lab;
    const char *slash = strrchr(given.submission, '/');
    result.submission = slash != NULL ? slash + 1 : given.submission;
    char graded_as[PATH_SIZE];
    path_format(graded_as, sizeof graded_as, "labs/%s/kernels.cu", grading.lab_directory);
    result.graded_as = graded_as;
    result.program = given.lab;
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

    /* The scratch directory: the submission's copy, its fatbin, each run's files. */
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    path_format(grading.scratch, sizeof grading.scratch, "%s/memlab-grade-XXXXXX", temporary);
    submission_names(given.submission, &grading);
    char error[1024];
    if (mkdtemp(grading.scratch) == NULL) {
        result.gradable = 0;
        snprintf(result.reason, sizeof result.reason,
                 "the grader could not make its scratch directory in %.900s (%s)", temporary,
                 strerror(errno));
        grading.scratch[0] = '\0';
    } else if (copy_submission(given.submission, &grading, error, sizeof error) != 0) {
        result.gradable = 0;
        snprintf(result.reason, sizeof result.reason, "%s", error);
    }
    find_sanitizer(grading.sanitizer, sizeof grading.sanitizer);
    /* A student pack's programs carry the student version of the kernels: no reference. */
    char pack_marker[PATH_SIZE];
    join(pack_marker, sizeof pack_marker, given.root, "STUDENT.md");
    grading.have_reference = !exists(pack_marker);

    if (result.gradable)
        compile_submission(&grading, &result);
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
