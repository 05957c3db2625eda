/* gpu_test.c: running a lab program and reading its report. */
#define _POSIX_C_SOURCE 200809L
#include "gpu_test.h"
#include "report_data.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define MAX_ARGUMENTS 64
/* --list prints a table and exits: far less than this. */
#define LIST_TIME_LIMIT_S 60

int gpu_test_device_available(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

static char *read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    if (text != NULL && fread(text, 1, (size_t)size, file) == (size_t)size)
        text[size] = '\0';
    else {
        free(text);
        text = NULL;
    }
    fclose(file);
    return text;
}

/* Waits for the child, killing it after time_limit_s. Returns its exit status or -1. */
static int wait_with_limit(pid_t child, int time_limit_s)
{
    struct timespec tick = {0, 20 * 1000 * 1000};
    for (long waited_ms = 0; waited_ms < time_limit_s * 1000L; waited_ms += 20) {
        int status = 0;
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        nanosleep(&tick, NULL);
    }
    fprintf(stderr, "gpu test: %s ran past %d s: killed\n", LAB_PROGRAM, time_limit_s);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return -1;
}

cJSON *gpu_test_run_lab(const char *arguments, int time_limit_s, int *exit_status)
{
    char json_path[] = "/tmp/memlab_gpu_test_XXXXXX";
    int descriptor = mkstemp(json_path);
    if (descriptor < 0) {
        *exit_status = -1;
        return NULL;
    }
    close(descriptor);

    char copy[2048];
    snprintf(copy, sizeof copy, "%s", arguments);
    char *argv[MAX_ARGUMENTS];
    int argc = 0;
    argv[argc++] = (char *)LAB_PROGRAM;
    for (char *word = strtok(copy, " "); word != NULL && argc < MAX_ARGUMENTS - 6;
         word = strtok(NULL, " "))
        argv[argc++] = word;
    argv[argc++] = (char *)"--format";
    argv[argc++] = (char *)"json";
    argv[argc++] = (char *)"--out";
    argv[argc++] = json_path;
    argv[argc] = NULL;

    fprintf(stderr, "gpu test: %s %s\n", LAB_PROGRAM, arguments);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        /* The table the program prints is not needed here; its stderr is. */
        if (freopen("/dev/null", "w", stdout) == NULL)
            _exit(127);
        execv(LAB_PROGRAM, argv);
        _exit(127);
    }
    *exit_status = child < 0 ? -1 : wait_with_limit(child, time_limit_s);
    char *text = read_file(json_path);
    unlink(json_path);
    char error[512];
    cJSON *report = text != NULL ? rd_parse(text, json_path, error, sizeof error) : NULL;
    if (text != NULL && report == NULL)
        fprintf(stderr, "gpu test: %s\n", error);
    free(text);
    return report;
}

/* Reports are read with the one reader of the format, reporting/report_data.h. */
int gpu_test_metric(const cJSON *record, const char *alias, double *predicted, double *measured)
{
    if (rd_metric(record, alias) == NULL)
        return -1;
    char column[160];
    snprintf(column, sizeof column, "%s.predicted", alias);
    *predicted = rd_value(record, column);
    snprintf(column, sizeof column, "%s.measured", alias);
    *measured = rd_value(record, column);
    return 0;
}

const char *gpu_test_profiler_note(const cJSON *report)
{
    return rd_profiler_note(report);
}

long long gpu_test_param(const cJSON *record, const char *name)
{
    return (long long)rd_value(record, name);
}

/* --list prints the lab's title, then one line a variant: two spaces, its name, its summary. */
int gpu_test_variant_count(void)
{
    static int variants; /* --list runs once a test program */
    if (variants > 0)
        return variants;
    int pipe_ends[2];
    assert_int_equal(pipe(pipe_ends), 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(pipe_ends[0]);
        if (dup2(pipe_ends[1], STDOUT_FILENO) < 0)
            _exit(127);
        execl(LAB_PROGRAM, LAB_PROGRAM, "--list", (char *)NULL);
        _exit(127);
    }
    close(pipe_ends[1]);
    if (child < 0) {
        close(pipe_ends[0]);
        fail_msg("gpu test: cannot run %s --list", LAB_PROGRAM);
    }
    FILE *listing = fdopen(pipe_ends[0], "r");
    assert_non_null(listing);
    char *line = NULL;
    size_t line_size = 0;
    int listed = 0;
    while (getline(&line, &line_size, listing) > 0) {
        if (strncmp(line, "  ", 2) == 0 && line[2] != ' ' && line[2] != '\n')
            listed++;
    }
    free(line);
    fclose(listing);
    int exit_status = wait_with_limit(child, LIST_TIME_LIMIT_S);
    if (exit_status != 0 || listed == 0)
        fail_msg("%s --list exited %d and listed %d variants", LAB_PROGRAM, exit_status, listed);
    variants = listed;
    return variants;
}

const cJSON *gpu_test_records(const cJSON *report)
{
    return rd_records(report);
}

int gpu_test_record_count(const cJSON *report)
{
    return cJSON_GetArraySize(rd_records(report));
}

const cJSON *gpu_test_only_record(const cJSON *report)
{
    assert_int_equal(gpu_test_record_count(report), 1);
    return cJSON_GetArrayItem(rd_records(report), 0);
}

const char *gpu_test_variant(const cJSON *record)
{
    return cJSON_GetObjectItemCaseSensitive(record, "variant")->valuestring;
}

double gpu_test_median_ms(const cJSON *report, const char *variant)
{
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(gpu_test_record(report, variant),
                                                           "timing");
    const cJSON *median = cJSON_GetObjectItemCaseSensitive(timing, "median_ms");
    assert_true(cJSON_IsNumber(median));
    return median->valuedouble;
}

double gpu_test_measured(const cJSON *record, const char *alias)
{
    double predicted = NAN, measured = NAN;
    assert_int_equal(gpu_test_metric(record, alias, &predicted, &measured), 0);
    assert_false(isnan(measured));
    return measured;
}

double gpu_test_resource(const cJSON *record, const char *name)
{
    const cJSON *resources = cJSON_GetObjectItemCaseSensitive(record, "resources");
    assert_true(cJSON_IsObject(resources));
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(resources, name);
    if (!cJSON_IsNumber(value))
        fail_msg("%s: resources.%s is not a number", gpu_test_variant(record), name);
    return value->valuedouble;
}

void gpu_test_print_miss(const cJSON *record, const char *what, double expected, double measured)
{
    char sizes[512] = "";
    size_t used = 0;
    const cJSON *name = NULL;
    cJSON_ArrayForEach(name, cJSON_GetObjectItemCaseSensitive(record, "params_read"))
    {
        if (cJSON_IsString(name) && used < sizeof sizes)
            used += (size_t)snprintf(sizes + used, sizeof sizes - used, " %s=%lld",
                                     name->valuestring, gpu_test_param(record, name->valuestring));
    }
    fprintf(stderr, "  %s%s: %s expected %g, measured %g\n", gpu_test_variant(record), sizes, what,
            expected, measured);
}

void gpu_test_assert_near_prediction(const cJSON *record, const char *alias,
                                     double relative_tolerance)
{
    double predicted = NAN, measured = NAN;
    assert_int_equal(gpu_test_metric(record, alias, &predicted, &measured), 0);
    assert_false(isnan(predicted));
    assert_false(isnan(measured));
    double relative = fabs(measured - predicted) / predicted;
    if (relative > relative_tolerance)
        gpu_test_print_miss(record, alias, predicted, measured);
    assert_true(relative <= relative_tolerance);
}

cJSON *gpu_test_run_correct(const char *arguments, int time_limit_s)
{
    int exit_status = 0;
    cJSON *report = gpu_test_run_lab(arguments, time_limit_s, &exit_status);
    assert_int_equal(exit_status, 0);
    assert_non_null(report);
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(report, "records");
    assert_true(cJSON_GetArraySize(records) > 0);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, records)
    {
        if (rd_value(record, "correct") != 1)
            fail_msg("%s is not correct with %s", rd_variant(record), arguments);
    }
    return report;
}

cJSON *gpu_test_run_with_counters(const char *arguments, int time_limit_s)
{
    cJSON *report = gpu_test_run_correct(arguments, time_limit_s);
    const char *note = gpu_test_profiler_note(report);
    if (note != NULL) {
        fprintf(stderr, "counters unavailable on this machine: %s\n", note);
        cJSON_Delete(report);
        skip();
    }
    return report;
}

cJSON *gpu_test_run_model(const char *arguments, int time_limit_s)
{
    char model_arguments[512];
    snprintf(model_arguments, sizeof model_arguments, "--model %s", arguments);
    int exit_status = -1;
    cJSON *report = gpu_test_run_lab(model_arguments, time_limit_s, &exit_status);
    assert_int_equal(exit_status, 0);
    assert_non_null(report);
    return report;
}

double gpu_test_predicted(const cJSON *record, const char *alias)
{
    double prediction = NAN, measurement = NAN;
    assert_int_equal(gpu_test_metric(record, alias, &prediction, &measurement), 0);
    assert_false(isnan(prediction));
    return prediction;
}

double gpu_test_predicted_low(const cJSON *record, const char *alias, const char **reason)
{
    const cJSON *metric = rd_metric(record, alias);
    if (metric == NULL)
        fail_msg("no %s in the record", alias);
    *reason = rd_metric_text(metric, "range_reason");
    return rd_metric_number(metric, "predicted_low");
}

const cJSON *gpu_test_record(const cJSON *report, const char *variant)
{
    const cJSON *record = rd_record(report, variant);
    if (record == NULL)
        fail_msg("no record of variant %s", variant);
    return record;
}

const cJSON *gpu_test_record_at(const cJSON *report, const char *variant, const char *param,
                                long long value)
{
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(report, "records"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(record, "variant");
        if (cJSON_IsString(name) && strcmp(name->valuestring, variant) == 0 &&
            (param == NULL || gpu_test_param(record, param) == value))
            return record;
    }
    fail_msg("no record of %s with %s = %lld", variant, param ? param : "-", value);
    return NULL;
}

void gpu_test_write_kernels(const char *text, char *path, size_t size)
{
    char directory[] = "/tmp/memlab_kernels_XXXXXX";
    assert_non_null(mkdtemp(directory));
    assert_true((size_t)snprintf(path, size, "%s/kernels.cu", directory) < size);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    assert_true(fputs(text, file) >= 0);
    assert_int_equal(fclose(file), 0);
}

void gpu_test_remove_kernels(const char *path)
{
    char directory[4096];
    snprintf(directory, sizeof directory, "%s", path);
    char *slash = strrchr(directory, '/');
    remove(path);
    if (slash != NULL) {
        *slash = '\0';
        rmdir(directory);
    }
}
