/* grading.c: grading one submission with the instructor's lab program (see grading.h).
 *
 *   1. copy the file to a scratch directory (later changes to the file do not count);
 *   2. compile it once: PROGRAM --kernels COPY.cu --save-kernels SCRATCH/NAME.fatbin, with a
 *      time limit. The program refuses a file that #includes anything but CUDA headers and the
 *      lab's header, or holds #line: its scan of the text (exit 2), or the compiler's judge
 *      (exit 1 and NAME.fatbin.refused written). Either way score 0 with its one line, never
 *      the file or the compiler's output. A compile error: score 0 with the compiler's
 *      messages (they name only the submission and allowed headers);
 *   3. run each rubric case with the case's time limit (under compute-sanitizer for a memcheck,
 *      racecheck or synccheck case, whose verdict is its exit status): PROGRAM ARGS --kernels
 *      NAME.fatbin --format json --out FILE, holding the GPU lock; the runs together as the
 *      lines of PROGRAM --cases (grade_cases_together), each run the batch did not finish as a
 *      process of its own, or every run alone (--isolate-cases: grade_cases_alone). A case
 *      that compares with the reference solution also runs PROGRAM ARGS (the program's own
 *      kernels: the instructor's solution); predictions come from PROGRAM ARGS --model.
 *      Each run's stdout and stderr are capped (a kernel's printf cannot fill the disk); its
 *      report is not. Every run's TMPDIR is SCRATCH/tmp, removed with the scratch
 *      directory;
 *   4. evaluate each case's checks (evaluate.c) into the result (results.h).
 * A host that can grade nothing (no GPU, counters not readable) stops the grading at once: the
 * result says so, once, and no case scores.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, strdup */
#include "grading.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "evaluate.h"
#include "gpu_lock.h"
#include "process.h"
#include "report_data.h"
#include "text.h"

/* The harness gives nvcc 60 s (ML_KERNELS_COMPILE_TIME_LIMIT_S); the program itself a little
 * more. */
#define COMPILE_TIME_LIMIT_S 90
#define MODEL_TIME_LIMIT_S 120
/* A batch's time limit is its runs' limits and this, for the CUDA context's start and stop. */
#define BATCH_START_S 30
/* What is kept of each run's stdout and of its stderr; a report (--out) is not capped. */
#define OUTPUT_CAP_BYTES PROCESS_OUTPUT_CAP_BYTES
#define MAX_ARGUMENTS 96
#define NAME_SIZE 256

/* Where one grading run keeps its files. */
typedef struct {
    const grading_setup *setup;
    const char *who;            /* the submission, as the GPU lock names it */
    char scratch[GRADING_PATH_SIZE];
    char temporary[GRADING_PATH_SIZE]; /* SCRATCH/tmp: TMPDIR of every run */
    char source_name[NAME_SIZE]; /* the submission's name as messages give it: "kernels.cu" */
    char source[GRADING_PATH_SIZE]; /* the copy the compiler reads: SCRATCH/source/NAME.cu */
    char fatbin_name[NAME_SIZE]; /* "kernels.fatbin" */
    char fatbin[GRADING_PATH_SIZE]; /* SCRATCH/NAME.fatbin: every case loads it */
    int runs;                   /* files of runs are numbered */
} session;

static void note(const grading_setup *setup, const char *format, const char *detail)
{
    if (setup->quiet)
        return;
    fprintf(stderr, "memlab grade: ");
    fprintf(stderr, format, detail);
    fprintf(stderr, "\n");
}

void grading_path(char *path, size_t size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(path, size, format, arguments);
    va_end(arguments);
    if (length < 0 || (size_t)length >= size) {
        fprintf(stderr, "memlab grade: a path is longer than %zu characters\n", size - 1);
        exit(2);
    }
}

static void join(char *path, size_t size, const char *directory, const char *name)
{
    grading_path(path, size, "%s/%s", directory, name);
}

int grading_exists(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0;
}

int grading_is_executable(const char *path)
{
    return access(path, X_OK) == 0;
}

/* The host can grade none of the submission: every case is not graded, the score is 0. */
static void cannot_grade(grade_result *result, const char *brief, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void cannot_grade(grade_result *result, const char *brief, const char *format, ...)
{
    result->gradable = 0;
    result->host_unable = 1;
    snprintf(result->brief, sizeof result->brief, "%s", brief);
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(result->reason, sizeof result->reason, format, arguments);
    va_end(arguments);
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
    char scratch_slash[GRADING_PATH_SIZE + 1];
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
        exit(2);
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

/* Copies the submission, as it is now, to SCRATCH/source/NAME.cu (a directory of its own: the
 * harness compiles a copy of it alone anyway). Reads at most the limit: a file that grew since
 * it was checked is refused. */
static int copy_submission(const char *path, session *grading, char *error, size_t error_size)
{
    char directory[GRADING_PATH_SIZE];
    join(directory, sizeof directory, grading->scratch, "source");
    join(grading->source, sizeof grading->source, directory, grading->source_name);
    grading_path(grading->fatbin, sizeof grading->fatbin, "%s/%s", grading->scratch,
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
    static char data[GRADING_SUBMISSION_MAX_BYTES + 1];
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
    if (used > GRADING_SUBMISSION_MAX_BYTES) {
        snprintf(error, error_size, "the submission grew past %d bytes while it was read",
                 GRADING_SUBMISSION_MAX_BYTES);
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

/* SCRATCH/tmp, every run's TMPDIR: removed with the scratch directory. */
static int make_temporary(session *grading, char *error, size_t error_size)
{
    join(grading->temporary, sizeof grading->temporary, grading->scratch, "tmp");
    if (mkdir(grading->temporary, 0700) == 0)
        return 0;
    snprintf(error, error_size, "the grader could not make %.900s (%s)", grading->temporary,
             strerror(errno));
    return -1;
}

int grading_remove_tree(const char *path)
{
    char *argv[] = {"rm", "-rf", (char *)path, NULL};
    process_options options = {.time_limit_s = 600};
    process_result result;
    return process_run(argv, &options, &result);
}

/* Runs the lab program (or compute-sanitizer over it) in the scratch directory, with TMPDIR
 * inside it, its stdout and stderr capped and no file it writes past the file limit. No
 * memory limit: a CUDA program reserves far more address space than it uses. */
static void run_in_scratch(const session *grading, char *const argv[], const char *stdout_path,
                           const char *stderr_path, int time_limit_s, process_result *result)
{
    process_options options = {
        .directory = grading->scratch,
        .stdout_path = stdout_path,
        .stderr_path = stderr_path,
        .time_limit_s = time_limit_s,
        .output_cap_bytes = OUTPUT_CAP_BYTES,
        .file_limit_bytes = GRADING_FILE_LIMIT_BYTES,
        .temporary_directory = grading->temporary,
    };
    process_run(argv, &options, result);
}

/* ---- compiling the submission, once ----------------------------------------------------------- */

/* PROGRAM --kernels SOURCE --save-kernels FATBIN. Sets result->compiled, refused and
 * build_output, or says the host could not compile anything. */
static void compile_submission(session *grading, grade_result *result)
{
    const grading_setup *setup = grading->setup;
    char log_path[GRADING_PATH_SIZE], refused_path[GRADING_PATH_SIZE];
    join(log_path, sizeof log_path, grading->scratch, "compile.log");
    grading_path(refused_path, sizeof refused_path, "%s%s", grading->fatbin,
                 GRADING_REFUSED_SUFFIX);
    char *argv[] = {(char *)setup->program, "--kernels", grading->source, "--save-kernels",
                    grading->fatbin, NULL};
    process_result run;
    note(setup, "compiling the submission %s", grading->source_name);
    run_in_scratch(grading, argv, log_path, log_path, COMPILE_TIME_LIMIT_S, &run);
    char *raw = text_read_file(log_path);
    char *said = student_words(grading, raw != NULL ? raw : "");
    free(raw);
    char line[1024];
    text_last_line(said, line, sizeof line);

    if (!run.started) {
        cannot_grade(result, "the lab program would not run",
                     "the lab program %.900s could not be run", setup->program);
    } else if (run.timed_out) {
        result->compiled = 0;
        char message[256];
        snprintf(message, sizeof message, "compiling %s took more than %d s: stopped",
                 grading->source_name, COMPILE_TIME_LIMIT_S);
        result->build_output = strdup(message);
    } else if (run.signal != 0) {
        cannot_grade(result, "the lab program crashed while compiling",
                     "the lab program was killed by signal %d while compiling the submission",
                     run.signal);
    } else if (run.exit_status == LAB_EXIT_OK) {
        if (!grading_exists(grading->fatbin))
            cannot_grade(result, "the lab program wrote no fatbin",
                         "the lab program compiled the submission but wrote no fatbin (%.800s)",
                         line);
    } else if (run.exit_status == LAB_EXIT_USAGE) {
        /* Refused before the compiler saw it: the program's one line, nothing else (the file's
         * text is the student's; what a compiler would print of other files never exists). */
        result->compiled = 0;
        result->refused = 1;
        result->build_output = strdup(line);
    } else if (run.exit_status == LAB_EXIT_INCORRECT && grading_exists(refused_path)) {
        /* Refused by the compiler's judge: its one line, from the file it wrote (never the
         * preprocessor's messages, which the program does not print). */
        char *refusal = text_read_file(refused_path);
        char *words = student_words(grading, refusal != NULL ? refusal : "");
        free(refusal);
        text_last_line(words, line, sizeof line);
        free(words);
        result->compiled = 0;
        result->refused = 1;
        result->build_output = strdup(line);
    } else if (run.exit_status == LAB_EXIT_INCORRECT &&
               (strstr(line, "does not compile") != NULL || strstr(line, "took more than") != NULL)) {
        result->compiled = 0;
        result->build_output = said;
        said = NULL;
    } else {
        cannot_grade(result, "the grading host could not compile it",
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
            char candidate[GRADING_PATH_SIZE];
            snprintf(candidate, sizeof candidate, "%s/%s", directory, names[n]);
            if (!grading_is_executable(candidate))
                continue;
            snprintf(candidate, sizeof candidate, "%s/compute-sanitizer", directory);
            if (grading_is_executable(candidate)) {
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

/* The sanitizer's verdict, from its exit status (evaluate_sanitizer_verdict); its log is read
 * for people only. */
static void read_sanitizer_log(const char *path, lab_run *run)
{
    char *log = text_read_file(path);
    evaluate_sanitizer_verdict(run, log != NULL ? log : "");
    free(log);
}

/* Runs the lab program with the case's arguments; fills `run`.
 *   kind RUN_SUBMISSION:       with --kernels the submission's fatbin (under compute-sanitizer
 *                              for a memcheck, racecheck or synccheck case);
 *   kind RUN_REFERENCE:        the program's own kernels, the instructor's solution;
 *   kind RUN_SANITIZER_CHECK:  the program's own kernels under the case's compute-sanitizer
 *                              tool: can the tool run here at all (sanitizer_usable);
 *   kind RUN_MODEL:            --model, predictions only. */
typedef enum { RUN_SUBMISSION, RUN_REFERENCE, RUN_SANITIZER_CHECK, RUN_MODEL } run_kind;

/* The tool a run of this kind runs under, or NULL. */
static const char *run_tool(const grading_case *one, run_kind kind)
{
    const char *tool = NULL;
    int under_tool = kind == RUN_SUBMISSION || kind == RUN_SANITIZER_CHECK;
    return under_tool && rubric_case_sanitizer(one, &tool) ? tool : NULL;
}

/* compute-sanitizer's words before the program: its verdict is its exit status, never a line
 * of the log (a file name in it is the submission's to choose). */
static int sanitizer_words(const session *grading, const char *tool, char *log_path, char **argv)
{
    int argc = 0;
    argv[argc++] = (char *)grading->setup->sanitizer;
    argv[argc++] = "--tool";
    argv[argc++] = (char *)tool;
    argv[argc++] = "--error-exitcode";
    argv[argc++] = SANITIZER_EXIT_FOUND_TEXT;
    argv[argc++] = "--log-file";
    argv[argc++] = log_path;
    /* Memory errors and races only: a CUDA call the harness expects to fail is no finding. */
    argv[argc++] = "--report-api-errors";
    argv[argc++] = "no";
    return argc;
}

/* The lab program's arguments for a run of the case (after the program's name): the case's,
 * then what the kind adds, then the report's. `arguments` holds the words (split in place). */
static int case_words(const session *grading, const grading_case *one, run_kind kind,
                      const char *json_path, char *arguments, char **argv, int room)
{
    int argc = 0;
    snprintf(arguments, RUBRIC_ARGUMENTS_SIZE, "%s", one->arguments);
    char *saved = NULL;
    for (char *word = strtok_r(arguments, " \t", &saved); word != NULL && argc < room - 10;
         word = strtok_r(NULL, " \t", &saved))
        argv[argc++] = word;
    if (run_tool(one, kind) != NULL) {
        argv[argc++] = "--metrics";
        argv[argc++] = "none";
    }
    if (kind == RUN_SUBMISSION) {
        argv[argc++] = "--kernels";
        argv[argc++] = (char *)grading->fatbin;
    }
    if (kind == RUN_MODEL)
        argv[argc++] = "--model";
    argv[argc++] = "--format";
    argv[argc++] = "json";
    argv[argc++] = "--out";
    argv[argc++] = (char *)json_path;
    return argc;
}

/* What a run left: its stderr and stdout tails (in the student's words), its report. */
static void read_run_files(const session *grading, const char *json_path, const char *stdout_path,
                           const char *stderr_path, lab_run *run)
{
    process_file_tail(stderr_path, run->stderr_tail, sizeof run->stderr_tail);
    student_words_in_place(grading, run->stderr_tail, sizeof run->stderr_tail);
    process_file_tail(stdout_path, run->stdout_tail, sizeof run->stdout_tail);
    student_words_in_place(grading, run->stdout_tail, sizeof run->stdout_tail);
    /* Read with the one reader of the format: a file that is not a whole report is none. */
    char *json = text_read_file(json_path);
    if (json != NULL) {
        char error[256];
        run->report = rd_parse(json, "the report", error, sizeof error);
        free(json);
    }
}

static void run_lab(session *grading, const grading_case *one, run_kind kind, lab_run *run)
{
    memset(run, 0, sizeof *run);
    run->ran = 1;
    run->time_limit_s = kind == RUN_MODEL ? MODEL_TIME_LIMIT_S : one->timeout_s;
    run->output_cap_bytes = OUTPUT_CAP_BYTES;
    int number = ++grading->runs;
    char json_path[GRADING_PATH_SIZE], stdout_path[GRADING_PATH_SIZE],
        stderr_path[GRADING_PATH_SIZE], log_path[GRADING_PATH_SIZE];
    grading_path(json_path, sizeof json_path, "%s/run-%d.json", grading->scratch, number);
    grading_path(stdout_path, sizeof stdout_path, "%s/run-%d.out", grading->scratch, number);
    grading_path(stderr_path, sizeof stderr_path, "%s/run-%d.err", grading->scratch, number);
    grading_path(log_path, sizeof log_path, "%s/run-%d.sanitizer", grading->scratch, number);

    char arguments[RUBRIC_ARGUMENTS_SIZE];
    char *argv[MAX_ARGUMENTS];
    int argc = 0;
    const char *tool = run_tool(one, kind);
    if (tool != NULL) {
        run->sanitizer = tool;
        run->sanitizer_errors = -1; /* until its exit status says otherwise */
        argc = sanitizer_words(grading, tool, log_path, argv);
    }
    argv[argc++] = (char *)grading->setup->program;
    argc += case_words(grading, one, kind, json_path, arguments, argv + argc, MAX_ARGUMENTS - argc);
    argv[argc] = NULL;


    process_result result;
    run_in_scratch(grading, argv, stdout_path, stderr_path, run->time_limit_s, &result);
    run->timed_out = result.timed_out;
    run->signal = result.signal;
    run->exit_status = result.exit_status;
    run->output_cut_bytes = result.cut_bytes;
    read_run_files(grading, json_path, stdout_path, stderr_path, run);
    if (!result.started) {
        run->exit_status = 127;
        if (tool != NULL)
            snprintf(run->sanitizer_log, sizeof run->sanitizer_log,
                     "%.3000s could not be run (set MEMLAB_SANITIZER to its path)",
                     grading->setup->sanitizer);
    }
    if (tool != NULL && result.started && !result.timed_out && result.signal == 0) {
        read_sanitizer_log(log_path, run);
        student_words_in_place(grading, run->sanitizer_log, sizeof run->sanitizer_log);
    }
}

static void free_run(lab_run *run)
{
    cJSON_Delete(run->report);
    run->report = NULL;
}

/* Whether compute-sanitizer's tool can give a verdict on this host: "not supported" is known
 * only from the tool's own status on the lab program's own kernels, run with the first case of
 * the tool: it must run the program to its end (exit status 0 or 1, the program's own) and find
 * nothing. Checked once per tool in a grader's process; nothing a submission does reaches it.
 * The program's own kernels are the instructor's solution; in a student pack they are the
 * student's own build, so a kernel there that errs under the tool makes that tool's cases
 * "not graded" in a student's self-check (never in the instructor's grading). */
typedef struct {
    const char *tool;
    int usable;
    char reason[1024];
} sanitizer_check;

static sanitizer_check sanitizer_checks[3]; /* one per tool: memcheck, racecheck, synccheck */
static int sanitizer_check_count;

static void judge_sanitizer_check(sanitizer_check *check, const char *tool, const lab_run *own);

static const sanitizer_check *sanitizer_usable(session *grading, const grading_case *one,
                                               const char *tool)
{
    for (int i = 0; i < sanitizer_check_count; i++)
        if (strcmp(sanitizer_checks[i].tool, tool) == 0)
            return &sanitizer_checks[i];
    lab_run own;
    run_lab(grading, one, RUN_SANITIZER_CHECK, &own);
    const int size = (int)(sizeof sanitizer_checks / sizeof sanitizer_checks[0]);
    sanitizer_check *check = &sanitizer_checks[sanitizer_check_count < size ? sanitizer_check_count++
                                                                            : size - 1];
    judge_sanitizer_check(check, tool, &own);
    cJSON_Delete(own.report);
    return check;
}

/* Whether a run of the program's own kernels under the tool shows that the tool works here. */
static void judge_sanitizer_check(sanitizer_check *check, const char *tool, const lab_run *own)
{
    check->tool = tool;
    check->usable = !own->timed_out && own->signal == 0 && own->sanitizer_errors == 0 &&
                    (own->exit_status == LAB_EXIT_OK || own->exit_status == LAB_EXIT_INCORRECT);
    char line[512];
    text_last_line(own->sanitizer_log[0] != '\0' ? own->sanitizer_log : own->stderr_tail, line,
                   sizeof line);
    snprintf(check->reason, sizeof check->reason,
             "it cannot check the lab program's own kernels here (%s; exit status %d%s%s)",
             own->timed_out ? "time limit" : own->signal != 0 ? "killed by a signal" : "ran",
             own->exit_status, line[0] != '\0' ? ": " : "", line);
}

/* 1 if the tool's check has been made in this grader's process. */
static int sanitizer_checked(const char *tool)
{
    for (int i = 0; i < sanitizer_check_count; i++)
        if (strcmp(sanitizer_checks[i].tool, tool) == 0)
            return 1;
    return 0;
}

/* The tool's check from a run of the program's own kernels that a batch made: kept when the
 * batch gave its verdict (the run ran to its end), else left to sanitizer_usable. */
static void remember_sanitizer_check(const char *tool, const lab_run *own)
{
    if (!own->ran || sanitizer_checked(tool) ||
        sanitizer_check_count == (int)(sizeof sanitizer_checks / sizeof sanitizer_checks[0]))
        return;
    sanitizer_check *check = &sanitizer_checks[sanitizer_check_count++];
    judge_sanitizer_check(check, tool, own);
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

/* The counters' note of a run's report: why they were not read. */
static const char *profiler_note(const lab_run *run)
{
    const char *note = rd_profiler_note(run->report);
    return note != NULL ? note : "no reason given";
}

/* A case's verdict from its runs, into its result, as grade_cases_alone gives it; the runs are
 * freed. Returns 1 when the host can grade nothing more (counters not readable): stop. */
static int conclude_case(const session *grading, grade_result *result, case_result *one,
                         lab_run *submission, lab_run *reference, lab_run *model)
{
    const grading_case *rubric_case = one->rubric_case;
    text_buffer output = {0};
    one->status = evaluate_case(rubric_case, submission,
                                rubric_case_needs_reference(rubric_case) ? reference : NULL,
                                model->ran ? model : NULL, &output);
    one->output = text_take(&output);
    one->ran = 1;
    if (one->status == CASE_NOT_GRADED &&
        strstr(one->output, EVALUATE_COUNTERS_NOT_READ) != NULL) {
        cannot_grade(result, "hardware counters not readable",
                     "the grading host cannot read the GPU's hardware counters (%.900s)",
                     profiler_note(submission));
    } else if (one->status == CASE_NOT_GRADED && result->gradable) {
        /* This case alone (no reference solution here, a sanitizer that did not finish):
         * the others are graded. */
        result->gradable = 0;
        not_graded_reason(one->output, result->reason, sizeof result->reason);
    }
    if (!grading->setup->quiet)
        fprintf(stderr, "memlab grade: case %s: %s\n", rubric_case->name,
                one->status == CASE_PASSED   ? "passed"
                : one->status == CASE_FAILED ? "failed"
                                             : "not graded");
    free_run(submission);
    free_run(reference);
    free_run(model);
    return result->host_unable;
}

/* The submission's run said there is no CUDA device: nothing can be graded. */
static int no_device_run(const lab_run *submission)
{
    return !submission->timed_out && submission->signal == 0 &&
           submission->exit_status == LAB_EXIT_NO_DEVICE;
}

static void cannot_grade_no_device(grade_result *result, const lab_run *submission)
{
    char line[1024];
    text_last_line(submission->stderr_tail, line, sizeof line);
    cannot_grade(result, "no usable CUDA device",
                 "the grading host has no usable CUDA device (the lab program said: %.900s)",
                 line);
}

/* A sanitizer case's verdict needs the tool to work here (sanitizer_usable). */
static void apply_sanitizer_check(session *grading, const grading_case *rubric_case,
                                  lab_run *submission)
{
    if (submission->sanitizer == NULL || submission->sanitizer_errors < 0)
        return;
    const sanitizer_check *check = sanitizer_usable(grading, rubric_case, submission->sanitizer);
    if (!check->usable) {
        submission->sanitizer_errors = -1;
        snprintf(submission->sanitizer_log, sizeof submission->sanitizer_log, "%s",
                 check->reason);
    }
}

/* --isolate-cases: each case in turn, each run a process of its own, the case's runs holding
 * the GPU lock. A host that can grade nothing (no GPU, counters not readable) stops the grading
 * at the first case that shows it. */
static void grade_cases_alone(session *grading, grade_result *result)
{
    const grading_setup *setup = grading->setup;
    gpu_lock lock;
    gpu_lock_open(&lock, setup->lock_owner, stderr);
    for (int i = 0; i < result->case_count; i++) {
        case_result *one = &result->cases[i];
        const grading_case *rubric_case = one->rubric_case;
        note(setup, "case %s ...", rubric_case->name);
        char what[512];
        snprintf(what, sizeof what, "case %s of %.300s", rubric_case->name, grading->who);
        gpu_lock_take(&lock, what, stderr);
        lab_run submission, reference = {0}, model = {0};
        run_lab(grading, rubric_case, RUN_SUBMISSION, &submission);
        int no_device = no_device_run(&submission);
        if (!no_device)
            apply_sanitizer_check(grading, rubric_case, &submission);
        if (!no_device && rubric_case_needs_reference(rubric_case) && setup->have_reference)
            run_lab(grading, rubric_case, RUN_REFERENCE, &reference);
        gpu_lock_release(&lock);

        if (no_device) {
            cannot_grade_no_device(result, &submission);
            free_run(&submission);
            break;
        }
        if (rubric_case_needs_model(rubric_case))
            run_lab(grading, rubric_case, RUN_MODEL, &model);
        if (conclude_case(grading, result, one, &submission, &reference, &model))
            break;
    }
    gpu_lock_close(&lock);
}

/* ---- the cases together: one lab process for many runs --------------------------------------- */

/* One run of a batch: what grade_cases_alone would run as a process of its own. */
typedef struct {
    const grading_case *rubric_case;
    run_kind kind;
    lab_run *run;               /* where its outcome goes */
    int done;                   /* 1: the batch's process ran it to its end */
} batch_item;

/* The exit status a case of `PROGRAM --cases` wrote once it ended, and the bytes of its output
 * the cap dropped; -1 when it never ended. */
static int case_exit_status(const char *json_path, long long *cut_bytes)
{
    char path[GRADING_PATH_SIZE + 16];
    grading_path(path, sizeof path, "%s.exit", json_path);
    char *text = text_read_file(path);
    int status = -1;
    char end = '\0';
    if (text == NULL || sscanf(text, "%d %lld%c", &status, cut_bytes, &end) != 3 || end != '\n' ||
        status < 0 || status > 255 || *cut_bytes < 0)
        status = -1;
    free(text);
    return status;
}

/* Runs the items as one `PROGRAM --cases FILE` (under compute-sanitizer's tool when given),
 * each line with its case's --time-limit, and fills the run of each item that ran to its end:
 * in order, up to the first that did not (the process died in it: a crash, its time limit).
 * Under a tool, nothing counts unless the process ended by itself without the tool's "found
 * errors" status: the verdict is the whole process's, so on an error every item is left for a
 * run of its own. */
static void run_batch(session *grading, batch_item *items, int count, const char *tool)
{
    int number = ++grading->runs;
    char cases_path[GRADING_PATH_SIZE], stdout_path[GRADING_PATH_SIZE],
        stderr_path[GRADING_PATH_SIZE], log_path[GRADING_PATH_SIZE];
    grading_path(cases_path, sizeof cases_path, "%s/batch-%d.cases", grading->scratch, number);
    grading_path(stdout_path, sizeof stdout_path, "%s/batch-%d.out", grading->scratch, number);
    grading_path(stderr_path, sizeof stderr_path, "%s/batch-%d.err", grading->scratch, number);
    grading_path(log_path, sizeof log_path, "%s/batch-%d.sanitizer", grading->scratch, number);
    FILE *cases = fopen(cases_path, "w");
    if (cases == NULL)
        return;                 /* every item then runs alone */
    int time_limit_s = BATCH_START_S;
    for (int k = 0; k < count; k++) {
        char json_path[GRADING_PATH_SIZE], arguments[RUBRIC_ARGUMENTS_SIZE];
        char *words[MAX_ARGUMENTS];
        grading_path(json_path, sizeof json_path, "%s/batch-%d-%d.json", grading->scratch,
                     number, k + 1);
        int word_count = case_words(grading, items[k].rubric_case, items[k].kind, json_path,
                                    arguments, words, MAX_ARGUMENTS);
        int limit_s = items[k].kind == RUN_MODEL ? MODEL_TIME_LIMIT_S
                                                 : items[k].rubric_case->timeout_s;
        for (int w = 0; w < word_count; w++)
            fprintf(cases, "%s ", words[w]);
        fprintf(cases, "--time-limit %d\n", limit_s);
        time_limit_s += limit_s;
    }
    if (fclose(cases) != 0)
        return;

    char *argv[16];
    int argc = tool != NULL ? sanitizer_words(grading, tool, log_path, argv) : 0;
    argv[argc++] = (char *)grading->setup->program;
    argv[argc++] = "--cases";
    argv[argc++] = cases_path;
    argv[argc] = NULL;
    process_result result;
    run_in_scratch(grading, argv, stdout_path, stderr_path, time_limit_s, &result);
    if (tool != NULL && (!result.started || result.timed_out || result.signal != 0 ||
                         result.exit_status == SANITIZER_EXIT_FOUND))
        return;
    char *log = tool != NULL ? text_read_file(log_path) : NULL;
    for (int k = 0; k < count; k++) {
        char json_path[GRADING_PATH_SIZE], case_stdout[GRADING_PATH_SIZE + 16],
            case_stderr[GRADING_PATH_SIZE + 16];
        grading_path(json_path, sizeof json_path, "%s/batch-%d-%d.json", grading->scratch,
                     number, k + 1);
        long long cut_bytes = 0;
        int status = case_exit_status(json_path, &cut_bytes);
        if (status < 0)
            break;
        grading_path(case_stdout, sizeof case_stdout, "%s.stdout", json_path);
        grading_path(case_stderr, sizeof case_stderr, "%s.stderr", json_path);
        lab_run *run = items[k].run;
        memset(run, 0, sizeof *run);
        run->ran = 1;
        run->time_limit_s = items[k].kind == RUN_MODEL ? MODEL_TIME_LIMIT_S
                                                       : items[k].rubric_case->timeout_s;
        run->output_cap_bytes = OUTPUT_CAP_BYTES;
        run->exit_status = status;
        run->output_cut_bytes = cut_bytes;
        read_run_files(grading, json_path, case_stdout, case_stderr, run);
        if (tool != NULL) {
            run->sanitizer = tool;
            evaluate_sanitizer_verdict(run, log != NULL ? log : "");
            student_words_in_place(grading, run->sanitizer_log, sizeof run->sanitizer_log);
        }
        items[k].done = 1;
    }
    free(log);
}

/* The items as one batch holding the GPU lock (none for --model runs), then each that the
 * batch did not finish as a process of its own, as grade_cases_alone runs it: the one the batch
 * died in is scored as it would be alone, and so is every one after it. */
static void run_items(session *grading, batch_item *items, int count, const char *tool,
                      gpu_lock *lock, const char *what)
{
    if (count == 0)
        return;
    if (lock != NULL)
        gpu_lock_take(lock, what, stderr);
    run_batch(grading, items, count, tool);
    if (lock != NULL)
        gpu_lock_release(lock);
    for (int k = 0; k < count; k++) {
        if (items[k].done)
            continue;
        char alone[512];
        snprintf(alone, sizeof alone, "case %s of %.300s", items[k].rubric_case->name,
                 grading->who);
        if (lock != NULL)
            gpu_lock_take(lock, alone, stderr);
        run_lab(grading, items[k].rubric_case, items[k].kind, items[k].run);
        if (lock != NULL)
            gpu_lock_release(lock);
    }
}

/* What each case's runs gave. */
typedef struct {
    lab_run submission, reference, model;
} case_runs;

/* The default: the submission's cases as few processes as the rubric allows: the model's
 * predictions in one (no GPU), the plain cases with the reference solution's runs beside them
 * in one, and each compute-sanitizer tool's cases in one (with the tool's check on the
 * program's own kernels, once per grader process). Then each case is concluded in the rubric's
 * order exactly as grade_cases_alone concludes it. */
static void grade_cases_together(session *grading, grade_result *result)
{
    const grading_setup *setup = grading->setup;
    int n = result->case_count;
    if (n == 0)
        return;
    case_runs *runs = calloc((size_t)n, sizeof *runs);
    batch_item *items = calloc((size_t)(2 * n + 1), sizeof *items);
    lab_run own = {0};
    if (runs == NULL || items == NULL) {
        fprintf(stderr, "memlab grade: out of host memory\n");
        exit(2);
    }
    gpu_lock lock;
    gpu_lock_open(&lock, setup->lock_owner, stderr);
    char what[512];
    snprintf(what, sizeof what, "the cases of %.300s", grading->who);
    note(setup, "%s", "the cases, together ...");

    int count = 0;
    for (int i = 0; i < n; i++)
        if (rubric_case_needs_model(result->cases[i].rubric_case))
            items[count++] =
                (batch_item){result->cases[i].rubric_case, RUN_MODEL, &runs[i].model, 0};
    run_items(grading, items, count, NULL, NULL, what);

    /* The cases that read no counters first (--metrics none): the program opens the
     * profiler's session once, at the first case that reads them, and closes it at a case that
     * does not, so this order opens it once. Each reference run stands after its case's. */
    count = 0;
    for (int reads_counters = 0; reads_counters <= 1; reads_counters++) {
        for (int i = 0; i < n; i++) {
            const grading_case *rubric_case = result->cases[i].rubric_case;
            const char *tool = NULL;
            if (rubric_case_sanitizer(rubric_case, &tool) ||
                (strstr(rubric_case->arguments, "--metrics none") == NULL) != reads_counters)
                continue;
            items[count++] = (batch_item){rubric_case, RUN_SUBMISSION, &runs[i].submission, 0};
            if (rubric_case_needs_reference(rubric_case) && setup->have_reference)
                items[count++] = (batch_item){rubric_case, RUN_REFERENCE, &runs[i].reference, 0};
        }
    }
    /* A sanitizer case's reference runs (none in today's rubrics) come last. */
    for (int i = 0; i < n; i++) {
        const grading_case *rubric_case = result->cases[i].rubric_case;
        const char *tool = NULL;
        if (rubric_case_sanitizer(rubric_case, &tool) && rubric_case_needs_reference(rubric_case) &&
            setup->have_reference)
            items[count++] = (batch_item){rubric_case, RUN_REFERENCE, &runs[i].reference, 0};
    }
    run_items(grading, items, count, NULL, &lock, what);

    const char *tools[] = {"memcheck", "racecheck", "synccheck"};
    for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
        count = 0;
        for (int i = 0; i < n; i++) {
            const grading_case *rubric_case = result->cases[i].rubric_case;
            const char *tool = NULL;
            if (!rubric_case_sanitizer(rubric_case, &tool) || strcmp(tool, tools[t]) != 0)
                continue;
            /* The tool's check on the program's own kernels rides along, once per grader. */
            if (count == 0 && !sanitizer_checked(tool))
                items[count++] = (batch_item){rubric_case, RUN_SANITIZER_CHECK, &own, 0};
            items[count++] = (batch_item){rubric_case, RUN_SUBMISSION, &runs[i].submission, 0};
        }
        if (count == 0)
            continue;
        run_items(grading, items, count, tools[t], &lock, what);
        if (items[0].kind == RUN_SANITIZER_CHECK)
            remember_sanitizer_check(tools[t], &own);
        free_run(&own);
    }

    for (int i = 0; i < n; i++) {
        case_result *one = &result->cases[i];
        case_runs *these = &runs[i];
        if (!these->submission.ran)
            break;
        if (no_device_run(&these->submission)) {
            cannot_grade_no_device(result, &these->submission);
            break;
        }
        const char *tool = these->submission.sanitizer;
        if (tool != NULL && !sanitizer_checked(tool)) {
            gpu_lock_take(&lock, what, stderr);
            apply_sanitizer_check(grading, one->rubric_case, &these->submission);
            gpu_lock_release(&lock);
        } else {
            apply_sanitizer_check(grading, one->rubric_case, &these->submission);
        }
        if (conclude_case(grading, result, one, &these->submission, &these->reference,
                          &these->model))
            break;
    }
    for (int i = 0; i < n; i++) {
        free_run(&runs[i].submission);
        free_run(&runs[i].reference);
        free_run(&runs[i].model);
    }
    free(runs);
    free(items);
    gpu_lock_close(&lock);
}

/* 1 if the compiled kernels may call malloc or new on the device (the word is in the fatbin,
 * whose cubins nvcc leaves uncompressed: runner/nvcc.c): the device heap lives as long as the
 * CUDA context, through the unloading of the kernels, so such a submission's cases each get a
 * process of their own. A false alarm costs only time. */
static int uses_device_heap(const char *fatbin)
{
    static const char word[] = "malloc";
    const size_t length = sizeof word - 1;
    FILE *file = fopen(fatbin, "rb");
    if (file == NULL)
        return 1;
    /* Read in blocks that overlap by the word's length, so no match falls between two. */
    char block[65536];
    size_t kept = 0, got;
    int found = 0;
    while (!found && (got = fread(block + kept, 1, sizeof block - kept, file)) > 0) {
        size_t filled = kept + got;
        for (size_t i = 0; i + length <= filled && !found; i++)
            found = memcmp(block + i, word, length) == 0;
        kept = filled < length ? filled : length - 1;
        memmove(block, block + filled - kept, kept);
    }
    fclose(file);
    return found;
}

static void grade_cases(session *grading, grade_result *result)
{
    if (grading->setup->isolate_cases || uses_device_heap(grading->fatbin))
        grade_cases_alone(grading, result);
    else
        grade_cases_together(grading, result);
}

/* ---- one submission ------------------------------------------------------------------------- */

void grading_prepare(grading_setup *setup)
{
    grading_path(setup->graded_as, sizeof setup->graded_as, "labs/%s/kernels.cu",
                 setup->lab_directory);
    /* A student pack's programs carry the student version of the kernels: no reference. */
    char pack_marker[GRADING_PATH_SIZE];
    join(pack_marker, sizeof pack_marker, setup->root, "STUDENT.md");
    setup->have_reference = !grading_exists(pack_marker);
    find_sanitizer(setup->sanitizer, sizeof setup->sanitizer);
}

void grading_grade(const grading_setup *setup, const char *path, const char *who,
                   grade_result *result)
{
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    memset(result, 0, sizeof *result);
    result->lab = setup->lab;
    const char *slash = strrchr(path, '/');
    result->submission = slash != NULL ? slash + 1 : path;
    result->graded_as = setup->graded_as;
    result->program = setup->lab;
    result->self_check = !setup->have_reference;
    result->compiled = 1;
    result->gradable = 1;
    result->cases = calloc((size_t)setup->cases->count, sizeof *result->cases);
    if (result->cases == NULL) {
        fprintf(stderr, "memlab grade: out of host memory\n");
        exit(2);
    }
    for (int i = 0; i < setup->cases->count; i++) {
        if (setup->only_case != NULL && strcmp(setup->cases->cases[i].name, setup->only_case) != 0)
            continue;
        result->cases[result->case_count++].rubric_case = &setup->cases->cases[i];
    }

    /* The scratch directory: the submission's copy, its fatbin, each run's files. */
    session grading = {0};
    grading.setup = setup;
    grading.who = who;
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    grading_path(grading.scratch, sizeof grading.scratch, "%s/memlab-grade-XXXXXX", temporary);
    submission_names(path, &grading);
    char error[1024];
    if (mkdtemp(grading.scratch) == NULL) {
        cannot_grade(result, "no scratch directory",
                     "the grader could not make its scratch directory in %.900s (%s)", temporary,
                     strerror(errno));
        grading.scratch[0] = '\0';
    } else if (make_temporary(&grading, error, sizeof error) != 0) {
        cannot_grade(result, "no scratch directory", "%s", error);
    } else if (copy_submission(path, &grading, error, sizeof error) != 0) {
        cannot_grade(result, "the submission could not be copied", "%s", error);
    }
    if (result->gradable)
        compile_submission(&grading, result);
    if (result->compiled && result->gradable)
        grade_cases(&grading, result);

    if (grading.scratch[0] != '\0')
        grading_remove_tree(grading.scratch);
    clock_gettime(CLOCK_MONOTONIC, &end);
    result->execution_time_s = (double)(end.tv_sec - start.tv_sec) +
                               (end.tv_nsec - start.tv_nsec) * 1e-9;
}

void grading_free(grade_result *result)
{
    for (int i = 0; i < result->case_count; i++)
        free(result->cases[i].output);
    free(result->cases);
    free(result->build_output);
    result->cases = NULL;
    result->build_output = NULL;
    result->case_count = 0;
}
