/* memlab.h: the harness every lab uses, and the only header a lab includes.
 *
 * A lab is a table of variants plus three functions (setup, teardown, and per variant launch
 * and predict); main is one call, ml_main(&lab, argc, argv). The harness parses the command
 * line, picks the device, times every variant, checks its output against the CPU reference,
 * reads hardware counters, puts the access model's predictions beside them and prints the report.
 */
#ifndef MEMLAB_H
#define MEMLAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "access_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of every lab program (also listed by --help). */
enum {
    ML_EXIT_OK = 0,
    ML_EXIT_INCORRECT = 1,      /* a variant's output did not match the CPU reference */
    ML_EXIT_USAGE = 2,          /* bad input: flag, value, variant, size, output file */
    ML_EXIT_NO_DEVICE = 3,      /* no usable CUDA device (and --model was not given) */
    ML_EXIT_CUDA_ERROR = 4,     /* a CUDA runtime call failed */
};

/* Every CUDA runtime call goes through this: on failure it prints file:line, the call and the
 * error string, and exits. */
#define ML_CUDA_CHECK(call) ml_cuda_check((call), #call, __FILE__, __LINE__)
/* After every kernel launch: catches bad launch configurations at once. */
#define ML_LAUNCH_CHECK() ml_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
void ml_cuda_check(cudaError_t status, const char *call, const char *file, int line);

#define ML_MAX_PARAMS 8
#define ML_MAX_METRICS 16

/* A size or shape flag of a lab: --NAME VALUE on the command line. */
typedef struct {
    const char *name;
    long long default_value;
    long long min_value;
    long long max_value;
    const char *help;
} ml_param;

/* Predicted metric values, keyed by alias (see profiling/profiler.h and `memlab list --metrics`). */
typedef struct {
    const char *alias[ML_MAX_METRICS];
    double value[ML_MAX_METRICS];
    int count;
} ml_prediction;

void ml_predict(ml_prediction *prediction, const char *alias, double value);

typedef struct ml_variant ml_variant;

/* What ptxas reported (-Xptxas -v) for one kernel compiled for one architecture, as a lab
 * captures it at build time. A lab's table of them ends with a row whose arch is 0. */
typedef struct {
    int arch;                   /* 10 * major + minor of the code ptxas wrote: sm_90 is 90 */
    int spill_store_bytes;      /* per thread, in the code (not times executed) */
    int spill_load_bytes;
} ml_ptxas_report;

/* One run of one variant at one set of sizes. The harness fills the first block; the lab's
 * setup fills the second. */
typedef struct {
    const ml_variant *variant;
    const long long *param;     /* indexed like the lab's param table */
    uint64_t seed;

    void *state;                /* the lab's own buffers */
    float *output;              /* device buffer the harness poisons before each run and checks */
    size_t output_count;
    float *reference;           /* host, output_count values from the CPU reference; malloc'd by
                                   setup, freed by the harness */
    size_t *check_index;        /* optional, for outputs too large to recompute on the CPU: only
                                   output[check_index[i]] is compared, with reference[i], for
                                   i < check_count; malloc'd by setup, freed by the harness */
    size_t check_count;
    double tolerance;           /* largest relative error accepted */
    double bytes;               /* bytes the algorithm must move (for GB/s) */
    double flops;               /* floating-point operations (for GFLOP/s), 0 if none */
} ml_problem;

struct ml_variant {
    const char *name;
    const char *summary;        /* one line: what it teaches */
    const char *metrics;        /* metric aliases that tell its story, comma-separated */
    /* Launches exactly one kernel on the default stream, asynchronously. */
    void (*launch)(const ml_problem *problem);
    /* Fills predicted metrics from the sizes alone: works without a GPU. */
    void (*predict)(const long long *param, ml_prediction *prediction);
    /* The __global__ function launch() runs and its threads per block, so the report can show
     * what it costs the SM: registers and local memory per thread, shared memory per block,
     * blocks per SM. NULL for a variant that is not one kernel of the lab (a library call). */
    const void *kernel;
    unsigned threads_per_block;
    /* Optional: what ptxas reported for the kernel, per architecture (a table ending in arch 0).
     * The report shows the spills of the row for the code that runs (cudaFuncAttributes
     * binaryVersion); NULL, or no such row (code compiled from PTX at load time): unknown. */
    const ml_ptxas_report *ptxas;
};

typedef struct {
    const char *program;
    const char *title;
    const ml_param *params;
    int num_params;
    const ml_variant *variants;
    int num_variants;
    /* Device memory a run of this variant at these sizes needs, to refuse sizes up front. */
    double (*device_bytes)(const ml_variant *variant, const long long *param);
    /* Allocates inputs and output, fills random inputs from problem->seed, computes the reference. */
    void (*setup)(ml_problem *problem);
    /* Frees what setup allocated on the device and host, except the reference. */
    void (*teardown)(ml_problem *problem);
    /* Optional: a rule between sizes that min and max cannot say (an odd mask width, a divisor).
     * Returns NULL when the sizes are fine, else a one-line message; the run exits 2 before
     * anything is allocated. Called for every sweep point, --model included. */
    const char *(*check_params)(const long long *param);
    /* Optional: the name of the variant that is the FLOP/s ceiling (a vendor library). It runs
     * at every sweep point, and every record's GFLOP/s is also shown as % of it. */
    const char *flops_ceiling;
} ml_lab;

int ml_main(const ml_lab *lab, int argc, char **argv);

/* Helpers for labs. */
void *ml_device_alloc(size_t bytes);
void ml_device_free(void *pointer);
void *ml_host_alloc(size_t bytes);
/* Fills a device buffer with reproducible values in [-1, 1): value i is ml_random_value(seed, i). */
void ml_fill_random(float *device, size_t count, uint64_t seed);
float ml_random_value(uint64_t seed, uint64_t index);
/* Leaves the L2 holding only clean lines of buffer (at least twice the L2 size, 16-byte
 * aligned), so the next kernel starts with a cold cache, as Nsight Compute's cache control does.
 * The harness calls it before every timed and profiled launch. */
void ml_flush_l2(void *buffer, size_t bytes);
/* Blocks of threads_per_block needed to cover count items. */
unsigned ml_blocks_for(size_t count, unsigned threads_per_block);

#ifdef __cplusplus
}
#endif

#endif
