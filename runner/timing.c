/* timing.c: the clocks of a run (timing.h): the device's copy ceiling, the L2 flush before every
 * timed and profiled launch, the timed repetitions of a variant, the host's own seconds. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "checks.h"
#include "stats.h"

#define CEILING_MAX_BYTES ((size_t)1 << 30)
#define CEILING_REPS 10

static double median_of(double *values, int count)
{
    ml_stats stats = ml_stats_compute(values, (size_t)count);
    return stats.median;
}

double ml_measure_copy_ceiling(size_t free_bytes)
{
    size_t bytes = CEILING_MAX_BYTES;
    while (bytes > ((size_t)1 << 20) && 2 * bytes > free_bytes / 4)
        bytes /= 2;
    void *source = ml_device_alloc(bytes);
    void *destination = ml_device_alloc(bytes);
    ML_CUDA_CHECK(cudaMemset(source, 1, bytes));
    cudaEvent_t start, stop;
    ML_CUDA_CHECK(cudaEventCreate(&start));
    ML_CUDA_CHECK(cudaEventCreate(&stop));
    ML_CUDA_CHECK(cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToDevice));
    double seconds[CEILING_REPS];
    for (int rep = 0; rep < CEILING_REPS; rep++) {
        ML_CUDA_CHECK(cudaEventRecord(start, 0));
        ML_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, 0));
        ML_CUDA_CHECK(cudaEventRecord(stop, 0));
        ML_CUDA_CHECK(cudaEventSynchronize(stop));
        float milliseconds = 0;
        ML_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));
        seconds[rep] = milliseconds * 1e-3;
    }
    ML_CUDA_CHECK(cudaEventDestroy(start));
    ML_CUDA_CHECK(cudaEventDestroy(stop));
    ml_device_free(source);
    ml_device_free(destination);
    return 2.0 * (double)bytes / median_of(seconds, CEILING_REPS) / 1e9;
}

double ml_monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

double ml_lap(double *since)
{
    double now = ml_monotonic_seconds();
    double elapsed = now - *since;
    *since = now;
    return elapsed;
}

/* Every pass of the profiler runs the kernel again: an output it adds into is zeroed in the
 * prelude's kernel, so that the launch after the last pass can be checked like any other. */
void ml_flush_prelude(void *argument)
{
    const l2_flush *flush = argument;
    const ml_problem *zeroed = flush->zeroed;
    ml_flush_l2(flush->buffer, flush->bytes, zeroed != NULL ? zeroed->output : NULL,
                zeroed != NULL ? zeroed->output_count * sizeof(float) : 0);
}

/* The cycles a self-timing kernel stored for one timed launch, per operation, or NAN when they
 * cannot be believed: none, or more than the launch's own elapsed time holds at the highest SM
 * clock (clock64 counts at the clock the SM runs, never above it; the launch also holds the
 * kernel's untimed work). A failed record says why once. */
static double read_cycles_per_op(const ml_problem *problem, double elapsed_ms, double sm_clock_hz,
                                 ml_record *record)
{
    long long cycles = 0;
    ML_CUDA_CHECK(cudaMemcpy(&cycles, problem->cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    double clock_ms = 1e3 * (double)cycles / sm_clock_hz;
    /* 2% and 10 microseconds of slack for the events' own resolution. */
    if (cycles > 0 && clock_ms <= 1.02 * elapsed_ms + 0.01)
        return (double)cycles / problem->timed_operations;
    if (record->correct)
        fprintf(stderr, "memlab: %s: the kernel's clock says %lld cycles (%.4f ms at %.0f MHz) for "
                        "a launch of %.4f ms: a kernel must store the clock64() cycles of its "
                        "timed loop\n",
                problem->variant->name, cycles, clock_ms, sm_clock_hz / 1e6, elapsed_ms);
    record->correct = 0;
    return NAN;
}

void ml_time_variant(ml_problem *problem, const ml_options *options,
                     const l2_flush *flush, host_staging *staging, double sm_clock_hz,
                     ml_record *record)
{
    for (int i = 0; i < options->warmup; i++) {
        problem->variant->family->launch(problem);
        ML_LAUNCH_CHECK();
    }
    ML_CUDA_CHECK(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    ML_CUDA_CHECK(cudaEventCreate(&start));
    ML_CUDA_CHECK(cudaEventCreate(&stop));
    double *milliseconds = ml_host_alloc((size_t)options->reps * sizeof *milliseconds);
    double *cycles_per_op = ml_host_alloc((size_t)options->reps * sizeof *cycles_per_op);
    for (int rep = 0; rep < options->reps; rep++) {
        ml_refresh_inputs(problem);
        ml_poison_output(problem);
        /* Inputs that fit in the L2 are read from DRAM every time (and the poison and the new
         * inputs are written back before the clock starts). */
        ml_flush_l2(flush->buffer, flush->bytes, NULL, 0);
        ML_CUDA_CHECK(cudaEventRecord(start, 0));
        problem->variant->family->launch(problem);
        ML_LAUNCH_CHECK();
        ML_CUDA_CHECK(cudaEventRecord(stop, 0));
        ML_CUDA_CHECK(cudaEventSynchronize(stop));
        float elapsed = 0;
        ML_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
        milliseconds[rep] = elapsed;
        if (problem->cycles != NULL)
            cycles_per_op[rep] = read_cycles_per_op(problem, elapsed, sm_clock_hz, record);
        ml_check_random_positions(problem, staging, "timed", record);
        ml_check_guards(problem, "timed", record);
    }
    ML_CUDA_CHECK(cudaEventDestroy(start));
    ML_CUDA_CHECK(cudaEventDestroy(stop));
    record->timed = 1;
    record->time_ms = ml_stats_compute(milliseconds, (size_t)options->reps);
    if (problem->cycles != NULL && record->correct) {
        record->has_latency = 1;
        record->cycles_per_op = ml_stats_compute(cycles_per_op, (size_t)options->reps);
        record->ns_per_op = 1e9 * record->cycles_per_op.median / sm_clock_hz;
    }
    free(milliseconds);
    free(cycles_per_op);
}

double ml_kernel_seconds(const ml_record *record, const ml_options *options)
{
    return 1e-3 * (record->time_ms.mean * options->reps +
                   record->time_ms.median * (1 + options->warmup));
}
