/* Lab 04: coalesced vs strided vs misaligned global memory access. The host program (the
 * instructor's): sizes, variants, launches, the access model's predictions, the CPU reference.
 * The kernels are in kernels.cu, loaded by name (--kernels FILE runs another kernels file).
 *
 * Variants (each writes out[i] for i < n, one element per thread):
 *   coalesced  out[i] = in[i], 16 bytes (float4) per thread
 *   strided    out[i] = in[i * stride]
 *   offset     out[i] = in[i + offset]
 *   broadcast  out[i] = in[i / 32]
 *
 * Build:  ./memlab run coalescing --help     (or: make -f Makefile.labs coalescing)
 * Try:    coalescing --variant strided --sweep stride=1:32
 *         coalescing --variant offset --sweep offset=0:32
 *         coalescing --model                 (predictions only, no GPU)
 */
#include <math.h>

#include "memlab.h"

#define THREADS_PER_BLOCK 256

enum { PARAM_N, PARAM_STRIDE, PARAM_OFFSET, PARAM_COUNT };

static const ml_param params[PARAM_COUNT] = {
    {"n", 1 << 26, 1, 1ll << 34, "elements written, one per thread"},
    {"stride", 4, 1, 1024, "strided: distance in elements between neighbouring lanes' loads"},
    {"offset", 1, 0, 1024, "offset: elements the loads are shifted by from an aligned start"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* What each variant reads: its table argument. Output element i comes from input element
 * source_index(kind, i). */
enum { SOURCE_COALESCED, SOURCE_STRIDED, SOURCE_OFFSET, SOURCE_BROADCAST };

static void launch_coalesced(const ml_problem *problem);
static void launch_gather(const ml_problem *problem);
static void predict_coalesced(long long kind, const long long *param, ml_prediction *prediction);
static void predict_gather(long long kind, const long long *param, ml_prediction *prediction);

#define COPY_METRICS \
    "gld_efficiency,gld_transactions_per_request,gst_efficiency,gst_transactions_per_request," \
    "dram_read_bytes,dram_write_bytes"

static const ml_variant variants[] = {
    {.name = "coalesced", .summary = "out[i] = in[i], one float4 (16 bytes) per thread",
     .kernel = "copy_coalesced", .block = {THREADS_PER_BLOCK}, .launch = launch_coalesced,
     .argument = SOURCE_COALESCED, .uses = "n", .metrics = COPY_METRICS,
     .predict = predict_coalesced},
    {.name = "strided", .summary = "out[i] = in[i * stride]: neighbouring lanes read stride floats apart",
     .kernel = "copy_strided", .block = {THREADS_PER_BLOCK}, .launch = launch_gather,
     .argument = SOURCE_STRIDED, .uses = "n,stride", .metrics = COPY_METRICS,
     .predict = predict_gather},
    {.name = "offset", .summary = "out[i] = in[i + offset]: the warp's floats start offset floats late",
     .kernel = "copy_offset", .block = {THREADS_PER_BLOCK}, .launch = launch_gather,
     .argument = SOURCE_OFFSET, .uses = "n,offset", .metrics = COPY_METRICS,
     .predict = predict_gather},
    {.name = "broadcast", .summary = "out[i] = in[i / 32]: all 32 lanes of a warp read one address",
     .kernel = "copy_broadcast", .block = {THREADS_PER_BLOCK}, .launch = launch_gather,
     .argument = SOURCE_BROADCAST, .uses = "n", .metrics = COPY_METRICS,
     .predict = predict_gather},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

static uint64_t source_index(long long kind, uint64_t i, const long long *param)
{
    switch (kind) {
    case SOURCE_STRIDED:
        return i * (uint64_t)param[PARAM_STRIDE];
    case SOURCE_OFFSET:
        return i + (uint64_t)param[PARAM_OFFSET];
    case SOURCE_BROADCAST:
        return i / 32;
    default:
        return i;
    }
}

/* ---- launches ------------------------------------------------------------------------------- */

typedef struct {
    float *in;
    size_t in_count;
} lab_state;

/* Each launch is what kernel<<<blocks, THREADS_PER_BLOCK>>>(arguments) would be if the program
 * linked kernels.cu; ml_launch runs the kernel found by name in the loaded kernels file, with
 * the block of its table entry. */
static void launch_coalesced(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    size_t threads = n / 4 > n % 4 ? n / 4 : n % 4;
    /* copy_coalesced<<<blocks, THREADS_PER_BLOCK>>>(in, out, n) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n};
    ml_launch(problem, ml_blocks_of(problem, threads), 0, arguments);
}

/* One float per thread: copy_strided(in, out, n, stride), copy_offset(in, out, n, offset),
 * copy_broadcast(in, out, n) (which reads the first three arguments only). */
static void launch_gather(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    size_t distance = (size_t)problem->param[problem->argument == SOURCE_STRIDED ? PARAM_STRIDE
                                                                                 : PARAM_OFFSET];
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n, &distance};
    ml_launch(problem, ml_blocks_of(problem, n), 0, arguments);
}

/* ---- predictions: the access model over the warps of the launch ----------------------------- */

/* Bytes the input read brings from DRAM. The L2 is flushed before every run, so each piece of
 * the input the warps touch is read once, in the pieces an L2 miss fills: the model GPU's
 * dram_fill_bytes (gpu_facts.h). Element i + 1 reads at most one step past element i (4 bytes
 * times the stride, 4 bytes, or none): a step shorter than a fill skips no fill, so the fills
 * read are every one from the first element's to the last's; a step of a fill or more puts
 * every element in a fill of its own. */
static double dram_read_bytes(long long kind, uint64_t n, const long long *param)
{
    uint64_t fill_bytes = ml_model_gpu()->dram_fill_bytes;
    uint64_t step_bytes = kind == SOURCE_STRIDED ? (uint64_t)param[PARAM_STRIDE] * sizeof(float)
                                                 : sizeof(float);
    uint64_t fills = n;
    if (step_bytes < fill_bytes)
        fills = source_index(kind, n - 1, param) * sizeof(float) / fill_bytes -
                source_index(kind, 0, param) * sizeof(float) / fill_bytes + 1;
    return (double)fills * fill_bytes;
}

static void predict_from_totals(const ml_global_totals *loads, const ml_global_totals *stores,
                                double dram_read, uint64_t n, ml_prediction *prediction)
{
    ml_predict(prediction, "gld_efficiency", ml_efficiency_pct(loads));
    ml_predict(prediction, "gst_efficiency", ml_efficiency_pct(stores));
    ml_predict(prediction, "gld_transactions_per_request", ml_sectors_per_request(loads));
    ml_predict(prediction, "gst_transactions_per_request", ml_sectors_per_request(stores));
    ml_predict(prediction, "gld_transactions", loads->sectors);
    ml_predict(prediction, "gld_requests", loads->requests);
    ml_predict(prediction, "dram_read_bytes", dram_read);
    /* DRAM is written in whole sectors, when the L2 evicts them: a range. */
    double output_sectors = ceil((double)n * sizeof(float) / ML_SECTOR_BYTES);
    ml_predict_dram_writes(prediction, output_sectors * ML_SECTOR_BYTES);
}

/* A one-float-per-thread copy: warp w reads element source_index(i) for its lanes
 * i = 32w + lane and writes out[i]. Every full warp has the same pattern relative to a 128-byte
 * line (buffers are 256-byte aligned and a warp's step is a multiple of 128 bytes), so the
 * first full warp stands for all of them; the last, partial warp is modelled on its own. */
static void predict_gather(long long kind, const long long *param, ml_prediction *prediction)
{
    uint64_t n = (uint64_t)param[PARAM_N];
    uint64_t full_warps = n / ML_WARP_SIZE;
    ml_global_totals loads = {0}, stores = {0};
    uint64_t warp_starts[2] = {0, full_warps * ML_WARP_SIZE};
    double repeats[2] = {(double)full_warps, 1.0};
    for (int k = 0; k < 2; k++) {
        uint64_t first = warp_starts[k];
        if (first >= n || (k == 0 && full_warps == 0))
            continue;
        ml_warp_access load, store;
        ml_warp_access_strided(&store, first * sizeof(float), sizeof(float), sizeof(float),
                               ml_first_lanes(n - first));
        load = store;
        for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
            load.address[lane] = source_index(kind, first + lane, param) * sizeof(float);
        ml_global_totals_add(&loads, &load, repeats[k]);
        ml_global_totals_add(&stores, &store, repeats[k]);
    }
    predict_from_totals(&loads, &stores, dram_read_bytes(kind, n, param), n, prediction);
}

/* The float4 copy: lane i moves 16 bytes at 16 * i, then the first n % 4 lanes of warp 0 move
 * the scalar tail (a second load and store instruction, one request each). */
static void predict_coalesced(long long kind, const long long *param, ml_prediction *prediction)
{
    uint64_t n = (uint64_t)param[PARAM_N];
    uint64_t vectors = n / 4, full_warps = vectors / ML_WARP_SIZE;
    ml_global_totals moves = {0};
    ml_warp_access access;
    if (full_warps > 0) {
        ml_warp_access_strided(&access, 0, sizeof(float4), sizeof(float4), ML_ALL_LANES);
        ml_global_totals_add(&moves, &access, (double)full_warps);
    }
    if (vectors % ML_WARP_SIZE != 0) {
        uint64_t first = full_warps * ML_WARP_SIZE;
        ml_warp_access_strided(&access, first * sizeof(float4), sizeof(float4), sizeof(float4),
                               ml_first_lanes(vectors - first));
        ml_global_totals_add(&moves, &access, 1.0);
    }
    if (n % 4 != 0) {
        ml_warp_access_strided(&access, vectors * sizeof(float4), sizeof(float), sizeof(float),
                               ml_first_lanes(n % 4));
        ml_global_totals_add(&moves, &access, 1.0);
    }
    /* Loads and stores have the same shape. */
    predict_from_totals(&moves, &moves, dram_read_bytes(kind, n, param), n, prediction);
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static double device_bytes(const ml_variant *variant, const long long *param)
{
    uint64_t n = (uint64_t)param[PARAM_N];
    uint64_t in_count = source_index(variant->argument, n - 1, param) + 1;
    return (double)(in_count + n) * sizeof(float);
}

/* The input from the seed; the reference recomputes each value it needs from the same seed, so
 * no copy of the input comes back. */
static void fill_inputs(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_fill_random(state->in, state->in_count, problem->seed);
}

static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++)
        reference[k] = ml_random_value(
            problem->seed, source_index(problem->argument, position[k], problem->param));
}

static void setup(ml_problem *problem)
{
    const long long *param = problem->param;
    uint64_t n = (uint64_t)param[PARAM_N];
    long long kind = problem->argument;

    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    state->in_count = source_index(kind, n - 1, param) + 1;
    state->in = (float *)ml_device_alloc(state->in_count * sizeof(float));
    problem->state = state;
    fill_inputs(problem);

    float *reference = (float *)ml_host_alloc(n * sizeof(float));
#pragma omp parallel for
    for (uint64_t i = 0; i < n; i++)
        reference[i] = ml_random_value(problem->seed, source_index(kind, i, param));

    problem->output = (float *)ml_device_alloc(n * sizeof(float));
    problem->output_count = n;
    problem->reference = reference;
    problem->tolerance = 0.0; /* a copy is exact */
    problem->bytes = 2.0 * n * sizeof(float);
    problem->flops = 0;
}

static void teardown(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_device_free(state->in);
    ml_device_free(problem->output);
    free(state);
}

static const ml_lab lab = {
    .program = "coalescing",
    .title = "Lab 04: coalesced vs strided vs misaligned global memory access",
    .params = params,
    .num_params = PARAM_COUNT,
    .variants = variants,
    .num_variants = VARIANT_COUNT,
    .device_bytes = device_bytes,
    .setup = setup,
    .teardown = teardown,
    .kernels = &ml_lab_kernels,
    .fill_inputs = fill_inputs,
    .reference_at = reference_at,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
