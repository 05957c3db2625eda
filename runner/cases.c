/* cases.c: --cases FILE, one process and many runs (cases.h): each case's output in files of its
 * own, and its exit status written last. */
#define _POSIX_C_SOURCE 200809L /* dup2 */
#include "cases.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "process.h"
#include "run.h"
#include "timing.h"

/* path + suffix into buffer; 0, or -1 when it does not fit. */
static int case_file(char *buffer, size_t size, const char *path, const char *suffix)
{
    int length = snprintf(buffer, size, "%s%s", path, suffix);
    return length >= 0 && (size_t)length < size ? 0 : -1;
}

/* stdout and stderr (fd 1 and 2, so a kernel's printf too) into the case's own files, kept as
 * the grader keeps a run's: the first PROCESS_OUTPUT_CAP_BYTES of each, then the last
 * PROCESS_TAIL_BYTES (process_capture). NULL when they cannot be made. */
static process_capture *capture_output(const lab_run *run, const char *out_path)
{
    char stdout_path[4200], stderr_path[4200];
    int stdout_fd = -1, stderr_fd = -1;
    process_capture *capture = NULL;
    if (case_file(stdout_path, sizeof stdout_path, out_path, ML_CASE_STDOUT_SUFFIX) == 0 &&
        case_file(stderr_path, sizeof stderr_path, out_path, ML_CASE_STDERR_SUFFIX) == 0)
        capture = process_capture_start(stdout_path, stderr_path, PROCESS_OUTPUT_CAP_BYTES,
                                        &stdout_fd, &stderr_fd);
    if (capture == NULL) {
        fprintf(stderr, "%s: --cases: cannot write %s%s and %s\n", run->lab->program, out_path,
                ML_CASE_STDOUT_SUFFIX, ML_CASE_STDERR_SUFFIX);
        return NULL;
    }
    fflush(stdout);
    fflush(stderr);
    dup2(stdout_fd, STDOUT_FILENO);
    dup2(stderr_fd, STDERR_FILENO);
    close(stdout_fd);
    close(stderr_fd);
    return capture;
}

/* Back to the process's own stdout and stderr; the case's files finished. Returns the bytes the
 * cap dropped. */
static long long release_output(process_capture *capture, int saved_stdout, int saved_stderr)
{
    fflush(stdout);
    fflush(stderr);
    dup2(saved_stdout, STDOUT_FILENO);
    dup2(saved_stderr, STDERR_FILENO);
    return process_capture_finish(capture);
}

/* REPORT.exit, written last: the case ended, with this status, and its output lost this many
 * bytes to the cap ("1 0"). */
static int record_exit(const lab_run *run, const char *out_path, int status, long long cut_bytes)
{
    char path[4200];
    FILE *file = case_file(path, sizeof path, out_path, ML_CASE_EXIT_SUFFIX) == 0
                     ? fopen(path, "w")
                     : NULL;
    int written = file != NULL && fprintf(file, "%d %lld\n", status, cut_bytes) > 0;
    if (file != NULL && fclose(file) != 0)
        written = 0;
    if (!written)
        fprintf(stderr, "%s: --cases: cannot write %s%s\n", run->lab->program, out_path,
                ML_CASE_EXIT_SUFFIX);
    return written ? 0 : -1;
}

/* Each case as a run of its own would go, in this process: the CUDA context, the profiler's
 * session, the L2 flush buffer and the host staging stay open; the kernels are unloaded and
 * loaded again (load_kernels), the seeds, check positions, poison and guards drawn anew, and the
 * case's --time-limit stops the whole process (SIGALRM) in the case that runs past it. A case
 * that kills the process leaves no REPORT.exit: its caller runs it, and the cases after it,
 * again on their own. */
int ml_run_cases(lab_run *run)
{
    const ml_lab *lab = run->lab;
    ml_case_list list;
    char error[512];
    if (ml_read_cases(lab->program, run->options.cases_path, &list, error, sizeof error) !=
        ML_EXIT_OK) {
        ml_free_cases(&list);
        return ml_usage_error(lab, error);
    }
    int saved_stdout = dup(STDOUT_FILENO), saved_stderr = dup(STDERR_FILENO);
    int status = ML_EXIT_OK;
    for (int c = 0; c < list.count && status == ML_EXIT_OK; c++) {
        const ml_case *one = &list.cases[c];
        process_capture *capture = capture_output(run, one->out_path);
        if (capture == NULL) {
            status = ML_EXIT_USAGE;
            break;
        }
        /* A fresh run but for what stays open. */
        profiler_state profiler = {.session = run->profiler.session,
                                   .unified_open = run->profiler.unified_open};
        l2_flush flush = run->flush;
        host_staging staging = run->staging;
        memset(run, 0, sizeof *run);
        run->lab = lab;
        run->keep_open = 1;
        run->profiler = profiler;
        run->flush = flush;
        run->staging = staging;
        run->start = ml_monotonic_seconds();
        int case_status = ml_run_parse(run, one->argc, (char **)one->argv);
        if (case_status == RUN_GOES_ON) {
            alarm((unsigned)run->options.time_limit_s);
            case_status = ml_run_parsed(run);
            alarm(0);
        }
        long long cut_bytes = release_output(capture, saved_stdout, saved_stderr);
        if (record_exit(run, one->out_path, case_status, cut_bytes) != 0)
            status = ML_EXIT_USAGE;
    }
    close(saved_stdout);
    close(saved_stderr);
    ml_kernels_unload();
    if (run->flush.buffer != NULL)
        ml_device_free(run->flush.buffer);
    if (run->staging.position != NULL)
        ml_staging_close(&run->staging);
    if (run->profiler.session != NULL)
        prof_close(run->profiler.session);
    ml_free_cases(&list);
    return status;
}
