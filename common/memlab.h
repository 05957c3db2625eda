/* memlab.h: the harness every lab's host program uses, and the only memlab header it includes.
 *
 * A lab is two files (the lab contract v2): kernels.cu, the device code a student writes, and
 * the instructor's host program: its sizes (ml_param, read by name), its families (ml_family:
 * the buffers, the launch, the model and the CPU reference that some variants share) and its
 * variant table (each names its family, kernel, block and constants); main is one call,
 * ml_main(&lab, argc, argv). The harness parses the command line, loads the kernels (the
 * program's own, or --kernels FILE), picks the device, times every variant, checks its output
 * against the CPU reference, reads hardware counters, puts the access model's predictions
 * beside them and prints the report.
 */
#ifndef MEMLAB_H
#define MEMLAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "access_model.h"
#include "gpu_facts.h"
#include "kernel_module.h"

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
    ML_EXIT_LAB_ERROR = 5,      /* the lab program itself is wrong (its table, a prediction): a
                                   bug for its author, not bad input */
};

/* Every CUDA runtime call goes through this: on failure it prints file:line, the call and the
 * error string, and exits. */
#define ML_CUDA_CHECK(call) ml_cuda_check((call), #call, __FILE__, __LINE__)
/* After every kernel launch: catches bad launch configurations at once. */
#define ML_LAUNCH_CHECK() ml_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
void ml_cuda_check(cudaError_t status, const char *call, const char *file, int line);

#define ML_MAX_PARAMS 8
#define ML_MAX_METRICS 16
#define ML_MAX_VARIANTS 64

/* A size or shape flag of a lab: --NAME VALUE on the command line. Declared once, with the
 * variants that read it; the lab reads it by name (ml_size). */
typedef struct {
    const char *name;
    long long default_value;
    long long min_value;
    long long max_value;
    const char *help;
    /* The variants that read it: names of variants or of families, comma-separated ("strided",
     * "chase,tiled"). NULL: every variant. A variant's rows in the text tables show only the
     * sizes it reads, and ml_size stops a variant that reads one it does not declare. */
    const char *used_by;
} ml_param;

/* Predicted metric values, keyed by alias (see profiling/profiler.h and `memlab list --metrics`).
 * A point prediction has low == high == value. Where the model can only bound a counter (what
 * the caches still hold when the kernel ends), it predicts a range low..high with a one-line
 * reason the reports print; value is then high. ml_predict refuses an alias the alias table does
 * not know: the run stops with ML_EXIT_LAB_ERROR, so a misspelt name cannot drop a prediction
 * silently. */
typedef struct {
    const char *alias[ML_MAX_METRICS];
    double value[ML_MAX_METRICS];
    double low[ML_MAX_METRICS], high[ML_MAX_METRICS];
    const char *reason[ML_MAX_METRICS]; /* NULL for a point prediction */
    /* For a range from zero (ml_predict_residue): the count it is a share of; 0 otherwise. */
    double against[ML_MAX_METRICS];
    int count;
    /* Optional: where the model says the variant's accesses are served ("L1", "L2", "DRAM"),
     * shown beside the measured counters that confirm it or not. NULL: not said. */
    const char *served_by;
} ml_prediction;

void ml_predict(ml_prediction *prediction, const char *alias, double value);
void ml_predict_range(ml_prediction *prediction, const char *alias, double low, double high,
                      const char *reason);
/* A count the model puts at zero but that carries a small residue it cannot place: a range from
 * 0 to high, stated against the count it is a share of (the instructions it is counted on; 100
 * for a percentage). The census counts it a prediction when high is at most 5% of against. */
void ml_predict_residue(ml_prediction *prediction, const char *alias, double high, double against,
                        const char *reason);
/* dram_write_bytes of a kernel that writes output_bytes (in whole sectors) and reads no more
 * than that from DRAM: ml_predict_dram_writes_after(prediction, output_bytes, output_bytes,
 * output_bytes). */
void ml_predict_dram_writes(ml_prediction *prediction, double output_bytes);
/* dram_write_bytes of a kernel that writes output_bytes (in whole sectors) while its DRAM reads
 * fill read_line_bytes of the L2's 128-byte lines (a gather that reads 4 bytes of each line
 * fills whole lines of it). The L2 writes a dirty line to DRAM only when it evicts it, so
 * what it still holds when the kernel's range closes is never written in it. While the
 * kernel's lines (read_line_bytes + output_bytes) fit in the L2's traffic capacity
 * (ml_gpu_facts.l2_traffic_*), nothing is evicted: a residue from zero, at most 5% of the
 * output (measured: 1.1% at most), unless the reads are a sparse gather (their lines under half
 * of read_span_bytes, the span they lie in) across more than 8 MiB: up to a quarter of the
 * output (lab_table.c says what was measured). Past it the L2 keeps at most l2_dirty_* bytes of the output,
 * and no more than the capacity's share of the output in the traffic: a range from the output
 * less the most it keeps to the output less the least. For a GPU whose dirty L2 is not
 * measured, from the output less half the L2 to the output. */
void ml_predict_dram_writes_after(ml_prediction *prediction, double output_bytes,
                                  double read_line_bytes, double read_span_bytes);

typedef struct ml_variant ml_variant;
typedef struct ml_family ml_family;
typedef struct ml_lab ml_lab;

/* What a variant's output holds, and how the harness prepares it before every launch (the
 * checked one, every timed one and every pass of the profiler). */
typedef enum {
    ML_OUTPUT_WRITTEN = 0,  /* floats the kernel writes: poisoned with NaN first, so an element
                               left unwritten fails; compared with reference within tolerance */
    ML_OUTPUT_SUMMED,       /* floats the kernel adds into (atomicAdd): zeroed first; compared
                               with reference within tolerance */
    ML_OUTPUT_COUNTED,      /* 32-bit unsigned counts the kernel adds into (a histogram): zeroed
                               first; compared exactly with reference_counts */
} ml_output_kind;

#define ML_MAX_BUFFERS 16

/* One run of one variant at one set of sizes. The harness fills the first block (for a
 * prediction, only lab, variant and param: no GPU); the family's setup fills the second. */
typedef struct {
    const ml_lab *lab;
    const ml_variant *variant;
    cudaKernel_t kernel;        /* the variant's kernel, found by name in the loaded kernels */
    const long long *param;     /* the sizes, indexed like the lab's param table: read them with
                                   ml_size */
    uint64_t seed;
    void *state;                /* the family's own struct, state_bytes of zeros before setup;
                                   the harness frees it */

    float *output;              /* device buffer the harness prepares before each run and checks:
                                   output_count floats, or 32-bit counts (output_kind) */
    size_t output_count;
    ml_output_kind output_kind; /* ML_OUTPUT_WRITTEN unless setup says otherwise */
    float *reference;           /* host, output_count values from the CPU reference */
    uint32_t *reference_counts; /* instead of reference for ML_OUTPUT_COUNTED */
    /* 1 when setup left the reference to the harness (ml_expect_output_from_reference_at): it
     * fills it from the family's reference_at after setup. */
    int reference_from_reference_at;
    size_t *check_index;        /* optional, for outputs too large to recompute on the CPU: only
                                   output[check_index[i]] is compared, with reference[i], for
                                   i < check_count, and ML_RANDOM_CHECKS positions drawn at run
                                   time (reference_at) */
    size_t check_count;
    double tolerance;           /* largest relative error accepted */
    /* Optional, for a lesson in latency: a device buffer of one long long where the kernel
     * stores the clock64() cycles its timed loop took, and how many dependent operations that
     * loop did. The harness zeroes it before every launch, reads it after every timed one and
     * reports cycles and nanoseconds per operation (medians). A clock that the launch's own time
     * (CUDA events) cannot hold is not believed: the record fails. NULL when the kernel keeps
     * no clock. */
    long long *cycles;
    double timed_operations;

    /* The harness's: what ml_device_buffer, ml_host_buffer and ml_pinned_buffer gave this run,
     * freed after it (each by its own call). */
    void *buffers[ML_MAX_BUFFERS];
    int buffer_kind[ML_MAX_BUFFERS];
    int buffer_count;
    /* Each device buffer sits between two guards of ML_GUARD_BYTES, filled from the OS's random
     * source when it is made: its bytes, and what its guards hold (host, head then tail). */
    size_t buffer_bytes[ML_MAX_BUFFERS];
    unsigned char *guard_expected[ML_MAX_BUFFERS];
} ml_problem;

/* The guards around every device buffer of a run (rule 7 of what a grader may trust): a write
 * outside a buffer, up to 64 KiB before or after it (a row past the end of a matrix of 16384
 * floats), changes a guard, whatever the kernel knows of being checked. A multiple of 256, so
 * the buffer keeps cudaMalloc's alignment. */
#define ML_GUARD_BYTES ((size_t)64 * 1024)
/* The 4-byte words of the run's guards that changed since they were filled, or 0; where the
 * first one is, in words, in where. Changed guards are put back, so the next call counts only
 * what the launches after this one wrote. */
size_t ml_guard_words_changed(const ml_problem *problem, char *where, size_t where_size);

/* The value of the size parameter `name` in this run. A name the lab does not declare, or one
 * the variant does not read (its used_by), stops the run with ML_EXIT_LAB_ERROR: a bug in the
 * lab, caught by --model before any GPU runs. Read a size once, not in a loop. */
long long ml_size(const ml_problem *problem, const char *name);
/* The variant's own constants (its table entry's .constants), as its family's struct. */
#define ML_CONSTANTS(type, problem) ((const type *)(problem)->variant->constants)

/* The bytes of the variant's kernel's machine code, and in constant_bytes (NULL: not wanted)
 * its constant bank 0, for the model GPU's architecture (the cubin the driver runs there), from
 * the loaded kernels or, under --model, the program's own (ml_kernels_code_bytes,
 * kernel_module.h). 0 and 0 when the kernels hold no cubin for it, or the variant has no kernel. */
double ml_kernel_code_bytes(const ml_problem *problem, double *constant_bytes);
/* dram_read_bytes of one launch of the variant's kernel whose data reads are data_low to
 * data_high bytes (a point when equal; data_reason says why not, NULL for a point), touching
 * span_bytes of memory (its buffers). To the data it adds the launch's floor: the kernel's
 * machine code and constant bank, which the harness's L2 flush leaves in DRAM, and what the
 * model GPU's table says a launch reads besides (page-table walks: dram_floor_* of
 * ml_gpu_facts, and at the high end the page term for each 2 MiB of span_bytes past the first
 * 8 MiB, which the measured floor covers). Where the code is
 * unknown (ml_kernel_code_bytes 0) the floor is a range from none of it to 32 KiB. Always a
 * range, with a reason that says what the floor is. */
void ml_predict_dram_reads(ml_prediction *prediction, const ml_problem *problem, double data_low,
                           double data_high, double span_bytes, const char *data_reason);

/* Threads per block of a kernel: x by y (y 0 means 1: a one-dimensional block). */
typedef struct {
    unsigned x, y;
} ml_block;

/* What the harness measured or read of the device, for a family's peak_gbps. */
typedef struct {
    int sm_count;
    double sm_clock_mhz;        /* the SM clock the runtime reports (its highest) */
    double copy_ceiling_gbps;   /* device-to-device cudaMemcpy: bytes read + written a second */
    double published_dram_gbps; /* the data sheet's DRAM peak: 2 x memory clock x bus width */
} ml_device_figures;

/* The link between the current device and the host's memory, each way, in GB/s (0 when the
 * driver does not say), and its name in name ("PCIe 5.0 x16"; "" when unknown): from NVML
 * (loaded at run time; none on a machine without the driver), PCIe's generation and width as
 * the link trained at most, after encoding (8b/10b to 2.0, 128b/130b from 3.0); NVLink-C2C's
 * published rate (a Grace Hopper) where the device reads host memory through the host's page
 * tables with native atomics. Looked up at the first call, for a family's peak_gbps. */
double ml_host_link(char *name, size_t size);

/* A family: the variants that share buffers, a CPU reference and a model, told apart by their
 * constants. Every function takes the run; predict, device_bytes, bytes_read, bytes_written and
 * flops need no GPU (only lab, variant and param are set). Fields in this order: */
struct ml_family {
    const char *name;
    size_t state_bytes;         /* sizeof the family's state struct (problem->state); 0: none */
    /* Device memory a run needs at these sizes, to refuse sizes before anything is allocated. */
    double (*device_bytes)(const ml_problem *problem);
    /* Allocates inputs (ml_device_buffer) and the output, fills the inputs (fill_inputs) from
     * problem->seed. The reference: most outputs leave it to the harness, which computes it from
     * reference_at after setup (ml_expect_output_from_reference_at); an output whose whole
     * reference is cheaper computed whole (a GEMM's rows) has setup fill it (ml_expect_output). */
    void (*setup)(ml_problem *problem);
    /* Writes the inputs on the device from problem->seed. The harness calls it again with a seed
     * drawn from the OS's random source before every timed and profiled launch, so no launch
     * sees inputs an earlier one saw: a result kept in a __device__ buffer is wrong. */
    void (*fill_inputs)(ml_problem *problem);
    /* The reference at `count` positions of the output, for the inputs fill_inputs made from
     * problem->seed: floats, or 32-bit counts for an ML_OUTPUT_COUNTED output. The harness asks
     * for positions drawn from the OS's random source after every launch (ML_RANDOM_CHECKS), so
     * no kernel can know which elements are looked at. A position of a written output that the
     * kernel must leave alone (padding between arrays) gives the poison's bits, ML_POISON_BITS. */
    void (*reference_at)(const ml_problem *problem, const size_t *position, size_t count,
                         void *values);
    /* Launches exactly one kernel on the default stream, asynchronously: problem->kernel with
     * ML_LAUNCH, or a library call. */
    void (*launch)(const ml_problem *problem);
    /* Optional: predicted metrics from the variant and the sizes alone (no GPU needed). */
    void (*predict)(const ml_problem *problem, ml_prediction *prediction);
    /* Bytes the algorithm must read and write (for GB/s); NULL for a lesson in latency. */
    double (*bytes_read)(const ml_problem *problem);
    double (*bytes_written)(const ml_problem *problem);
    /* Optional: floating-point operations (for GFLOP/s). */
    double (*flops)(const ml_problem *problem);
    /* Optional, for a lesson in bandwidth: the most the level the variant reads can deliver on
     * this device, in GB/s, with where that figure comes from in source (one line). The harness
     * calls it on the GPU after timing the variant (variant_gbps: the rate the variant itself
     * achieved), and reports the variant's % of it. */
    double (*peak_gbps)(ml_problem *problem, const ml_device_figures *device, double variant_gbps,
                        char *source, size_t size);
    /* Optional: what the harness does not free itself (a library handle). The harness frees
     * the state, every ml_device_buffer and ml_host_buffer, and the output. */
    void (*teardown)(ml_problem *problem);
};

/* One row of a lab's variant table, with designated initializers in this order:
 *   {.name = "strided", .summary = "...", .family = &gather, .kernel = "copy_strided",
 *    .block = {256}, .constants = &strided_source, .metrics = COPY_METRICS}
 * and, where the course's table names the access, .course_figure last. */
struct ml_variant {
    const char *name;
    const char *summary;        /* one line: what it teaches */
    const ml_family *family;
    /* The extern "C" __global__ function of kernels.cu that the family's launch runs, by name,
     * and its block: ML_LAUNCH launches it with that block, and the report shows what it costs
     * the SM (registers, local memory and spills per thread, shared memory per block, blocks per
     * SM). NULL and no block for a variant that is not a kernel of the lab (a library call). */
    const char *kernel;
    ml_block block;
    /* What sets this variant apart in its family: a struct of the family's (ML_CONSTANTS), or
     * NULL. */
    const void *constants;
    const char *metrics;        /* metric aliases that tell its story, comma-separated (none:
                                   a variant without counters of its own, a library call) */
    /* Optional: what the course material's cost table says this variant's access costs ("1
     * cycle", "200-800 cycles"), printed beside the measurement. NULL: it says nothing. */
    const char *course_figure;
};

/* x * y of the variant's block: 0 for a variant without a kernel. */
unsigned ml_threads_per_block(const ml_variant *variant);
/* 1 if the variant reads the lab's size parameter param_name (its used_by names the variant or
 * its family, or is NULL). */
int ml_variant_uses(const ml_lab *lab, const ml_variant *variant, const char *param_name);

/* Elements of a table (an array, not a pointer). */
#define ML_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

struct ml_lab {
    const char *program;
    const char *title;
    const ml_param *params;
    int num_params;             /* ML_COUNT(params) */
    const ml_variant *variants;
    int num_variants;           /* at most ML_MAX_VARIANTS */
    /* Optional: a rule between sizes that min and max cannot say (an odd mask width, a divisor).
     * Returns NULL when the sizes are fine, else a one-line message; the run exits 2 before
     * anything is allocated. Called for every sweep point, --model included; problem->variant
     * is NULL. */
    const char *(*check_params)(const ml_problem *problem);
    /* Optional: the name of the variant that is the FLOP/s ceiling (a vendor library). It runs
     * at every sweep point, and every record's GFLOP/s is also shown as % of it. */
    const char *flops_ceiling;
    /* Optional: the kernels to load; NULL: the program's own kernels.cu (ml_lab_kernels). */
    const ml_kernel_image *kernels;
};

/* Positions of an output compared after each launch besides the reference's own (every element
 * of a smaller output): a kernel that writes any fixed 99% of its output passes one with
 * probability 0.99, and all of them with 0.99^2062 < 1e-9. */
#define ML_RANDOM_CHECKS 2062
/* What every 32-bit word of a written output holds before each launch: a NaN (all bits set),
 * so an element the kernel never writes fails. */
#define ML_POISON_BITS 0xFFFFFFFFu

/* Every lab program's own kernels.cu, compiled and embedded by the build. */
extern const ml_kernel_image ml_lab_kernels;

/* Runs the lab with the kernels given (NULL: the lab's .kernels). */
int ml_main_with(const ml_lab *lab, const ml_kernel_image *kernels, int argc, char **argv);
/* main's one call: the lab with the program's own kernels.cu, unless the table names others. */
static inline int ml_main(const ml_lab *lab, int argc, char **argv)
{
    return ml_main_with(lab, lab->kernels != NULL ? lab->kernels : &ml_lab_kernels, argc, argv);
}

/* One argument of a kernel launch: where its value is and its size. ML_ARG(x) takes x's address,
 * so the launch passes x, as kernel<<<...>>>(x) would. */
typedef struct {
    void *value;
    size_t bytes;
} ml_argument;
#define ML_ARG(x) {(void *)&(x), sizeof(x)}
/* Launches problem->kernel with its table entry's block and the arguments, in the kernel's order:
 * what kernel<<<grid, block, shared_bytes>>>(...) does for a kernel the program links. The
 * first launch of a kernel compares the arguments, count and sizes, with the parameters the
 * runtime reports for the loaded kernel, and stops with one line at a mismatch. */
#define ML_LAUNCH(problem, grid, shared_bytes, arguments)                                          \
    ml_launch((problem), (grid), (shared_bytes), (arguments), ML_COUNT(arguments))
void ml_launch(const ml_problem *problem, dim3 grid, size_t shared_bytes,
               const ml_argument *arguments, int argument_count);
/* Copies bytes to the __constant__ or __device__ variable `name` of the loaded kernels: what
 * cudaMemcpyToSymbol does for a variable the program links. */
void ml_copy_to_symbol(const char *name, const void *data, size_t bytes);

/* Helpers for labs. */
/* Device and host memory for this run: the harness frees it after the run. */
void *ml_device_buffer(ml_problem *problem, size_t bytes);
void *ml_host_buffer(ml_problem *problem, size_t bytes);
/* Page-locked host memory (cudaHostAlloc), which copies move at the link's rate; mapped: also
 * in the device's address space (zero-copy: a kernel reads it across the link, and
 * cudaHostGetDevicePointer gives the address it uses). */
void *ml_pinned_buffer(ml_problem *problem, size_t bytes, int mapped);
/* The run's output: count elements on the device (floats, or 32-bit counts for
 * ML_OUTPUT_COUNTED); tolerance is the largest relative error accepted (0 for counts). The
 * harness computes its reference after setup from the family's reference_at, every element in
 * parallel (OpenMP): setup fills nothing. */
void ml_expect_output_from_reference_at(ml_problem *problem, ml_output_kind kind, size_t count,
                                        double tolerance);
/* The same output with the host reference beside it (problem->reference or reference_counts)
 * for setup to fill: for a reference cheaper computed whole than element by element. */
void ml_expect_output(ml_problem *problem, ml_output_kind kind, size_t count, double tolerance);
/* An output of count floats too large to recompute on the CPU, compared at checked positions:
 * problem->check_index holds checked positions for setup to fill, and the harness computes the
 * reference there from reference_at after setup (and adds ML_RANDOM_CHECKS positions of its own
 * after every launch). */
void ml_expect_sampled_output_from_reference_at(ml_problem *problem, size_t count, size_t checked,
                                                double tolerance);
/* The same, with problem->reference (checked elements) also for setup to fill. */
void ml_expect_sampled_output(ml_problem *problem, size_t count, size_t checked,
                              double tolerance);
/* Memory that is not one run's: the harness's own, and a lab's temporaries. */
/* Bytes from the OS's random source (getrandom), which no kernel can read, recompute or guess:
 * guards, secret seeds, check positions. Exits ML_EXIT_LAB_ERROR if the source fails. */
void ml_secret_random(void *buffer, size_t count);
void *ml_device_alloc(size_t bytes);
void ml_device_free(void *pointer);
void *ml_host_alloc(size_t bytes);
/* Fills a device buffer with reproducible values in [-1, 1): value i is ml_random_value(seed, i). */
void ml_fill_random(float *device, size_t count, uint64_t seed);

#ifdef __CUDACC__
#define ML_HOST_DEVICE __host__ __device__
#else
#define ML_HOST_DEVICE
#endif
/* A counter-based generator (SplitMix64's finaliser): value i depends only on (seed, i), so the
 * GPU fills a large input in parallel and a CPU reference recomputes any element it needs
 * without copying the input back. Inline: a reference calls it billions of times. */
static inline ML_HOST_DEVICE float ml_random_value(uint64_t seed, uint64_t index)
{
    uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    /* The top 24 bits give every float in [0, 1) a step of 2^-24, exactly representable. */
    float unit = (float)(z >> 40) * (1.0f / 16777216.0f);
    return 2.0f * unit - 1.0f;
}
/* Leaves the L2 holding only clean lines of buffer (at least twice the L2 size, 16-byte
 * aligned), so the next kernel starts with a cold cache, as Nsight Compute's cache control does.
 * The harness calls it before every timed and profiled launch. First, in the same kernel (a
 * profiler pass sees it as the one kernel before the profiled one), it zeroes zero_bytes at zero
 * (a multiple of 4; NULL and 0 for none): an output the profiled kernel adds into. */
void ml_flush_l2(void *buffer, size_t bytes, void *zero, size_t zero_bytes);
/* The harness's: frees what ml_device_buffer, ml_host_buffer and ml_pinned_buffer gave the run,
 * after it. */
void ml_free_run_buffers(ml_problem *problem);
/* The harness's: gathered[i] = words[position[i]] for i < count, all three on the device. */
void ml_gather_words(const uint32_t *words, const size_t *position, size_t count,
                     uint32_t *gathered);
/* Blocks of threads_per_block needed to cover count items. */
unsigned ml_blocks_for(size_t count, unsigned threads_per_block);
/* Blocks of the variant's (one-dimensional) block needed to cover count items. */
unsigned ml_blocks_of(const ml_problem *problem, size_t count);
/* The grid of a grid-stride kernel that fills the GPU once: blocks_per_sm blocks on each SM of
 * the model GPU (the device's own on a run, so the launch and the model count one grid), or
 * fewer when ml_blocks_for(count, threads_per_block) is fewer. */
unsigned ml_blocks_filling(size_t count, unsigned threads_per_block, unsigned blocks_per_sm);

#ifdef __cplusplus
}
#endif

#endif
