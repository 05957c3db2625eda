/* gpu_test.h: what the GPU tests share. A GPU test runs its lab program as a child process (a
 * crash or hang there fails one case, not the test program), reads the JSON report it wrote, and
 * asserts on correctness and on counters against the model's predictions. */
#ifndef MEMLAB_GPU_TEST_H
#define MEMLAB_GPU_TEST_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* CTest shows a test that exits with this status as skipped. */
#define GPU_TEST_SKIP 77

/* 1 if a CUDA device is usable. */
int gpu_test_device_available(void);

/* Runs LAB_PROGRAM with the space-separated arguments plus "--format json --out PATH" and returns
 * the parsed report (NULL on failure); *exit_status gets the program's exit status, or -1 if it
 * crashed or ran past time_limit_s. */
cJSON *gpu_test_run_lab(const char *arguments, int time_limit_s, int *exit_status);

/* Runs the lab as gpu_test_run_lab does and fails the running CMocka test unless it exited 0
 * with at least one record, every one correct; returns the report. */
cJSON *gpu_test_run_correct(const char *arguments, int time_limit_s);

/* The same, for a run whose counters must be read: skips the running CMocka test (after saying
 * why) where this machine cannot read them. */
cJSON *gpu_test_run_with_counters(const char *arguments, int time_limit_s);

/* The metric with this alias in a record: predicted and measured values (NAN for null).
 * Returns 0 if found. */
int gpu_test_metric(const cJSON *record, const char *alias, double *predicted, double *measured);

/* Runs the lab with "--model" before the arguments (no GPU needed) and fails the running CMocka
 * test unless it exited 0 with a report; returns the report. */
cJSON *gpu_test_run_model(const char *arguments, int time_limit_s);

/* The predicted value of the metric with this alias in a record; fails the running CMocka test
 * if the record has no such metric or no prediction for it. */
double gpu_test_predicted(const cJSON *record, const char *alias);
/* The low end of alias's predicted range in record, and the range's reason (NULL for a point
 * prediction, whose low end is the prediction itself). */
double gpu_test_predicted_low(const cJSON *record, const char *alias, const char **reason);

/* Why counters were not read in this report, or NULL if they were. */
const char *gpu_test_profiler_note(const cJSON *report);

/* The first record of a variant in a report; fails the running CMocka test if there is none. */
const cJSON *gpu_test_record(const cJSON *report, const char *variant);

/* The record of variant whose size param is value (the first record of variant for param
 * NULL); fails the running CMocka test if there is none. */
const cJSON *gpu_test_record_at(const cJSON *report, const char *variant, const char *param,
                                long long value);

/* A parameter of a record. */
long long gpu_test_param(const cJSON *record, const char *name);

/* How many variants the lab's table holds, as the program's --list prints them: the records a
 * "--variant all" run makes at each sweep point. A test counts on this, never on a number of
 * its own, so that a new variant changes no test. Fails the running CMocka test if --list
 * fails or lists none. */
int gpu_test_variant_count(void);

/* The records of a report (to walk with cJSON_ArrayForEach), and how many there are. */
const cJSON *gpu_test_records(const cJSON *report);
int gpu_test_record_count(const cJSON *report);

/* The one record of a report; fails the running CMocka test unless there is exactly one. */
const cJSON *gpu_test_only_record(const cJSON *report);

/* A record's variant name. */
const char *gpu_test_variant(const cJSON *record);

/* The median time of variant's first record, in ms; fails the running CMocka test if there is
 * no such record or it was not timed. */
double gpu_test_median_ms(const cJSON *report, const char *variant);

/* The measured value of the metric with this alias in a record; fails the running CMocka test
 * if the record has no such metric or did not measure it. */
double gpu_test_measured(const cJSON *record, const char *alias);

/* A number of the record's "resources" object (what the kernel costs the SM: registers, local
 * and shared bytes, spills, blocks per SM); fails the running CMocka test if it has none. */
double gpu_test_resource(const cJSON *record, const char *name);

/* Prints on stderr, for a check that failed: the record's variant and the sizes it read, the
 * metric (or what was compared), the value expected and the one measured. */
void gpu_test_print_miss(const cJSON *record, const char *what, double expected, double measured);

/* Fails the running CMocka test unless the metric with this alias was predicted and measured,
 * and the measurement lies within relative_tolerance of the prediction (|measured - predicted|
 * / predicted; a miss is printed first). */
void gpu_test_assert_near_prediction(const cJSON *record, const char *alias,
                                     double relative_tolerance);

/* Writes text as kernels.cu in a fresh directory of its own (so nothing beside it is found by
 * an #include) and puts its path in path; fails the running CMocka test if it cannot. */
void gpu_test_write_kernels(const char *text, char *path, size_t size);

/* Removes what gpu_test_write_kernels wrote. */
void gpu_test_remove_kernels(const char *path);

#endif
