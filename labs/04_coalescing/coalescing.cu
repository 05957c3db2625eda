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

/* ---- what each variant reads, launches and should cost ------------------------------------ */

typedef struct {
    float *in;
    size_t in_count;
} lab_state;

/* Index of the input element that output element i comes from. */
static uint64_t source_coalesced(uint64_t i, const long long *param) { (void)param; return i; }
static uint64_t source_strided(uint64_t i, const long long *param) { return i * (uint64_t)param[PARAM_STRIDE]; }
static uint64_t source_offset(uint64_t i, const long long *param) { return i + (uint64_t)param[PARAM_OFFSET]; }
static uint64_t source_broadcast(uint64_t i, const long long *param) { (void)param; return i / 32; }

/* Each launch is what kernel<<<blocks, THREADS_PER_BLOCK>>>(arguments) would be if the program
 * linked kernels.cu; ml_launch runs the kernel found by name in the loaded kernels file. */
static void launch_coalesced(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    size_t threads = n / 4 > n % 4 ? n / 4 : n % 4;
    /* copy_coalesced<<<blocks, THREADS_PER_BLOCK>>>(in, out, n) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n};
    ml_launch(problem, ml_blocks_for(threads, THREADS_PER_BLOCK), THREADS_PER_BLOCK, 0, arguments);
}

static void launch_strided(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N], stride = (size_t)problem->param[PARAM_STRIDE];
    /* copy_strided<<<blocks, THREADS_PER_BLOCK>>>(in, out, n, stride) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n, &stride};
    ml_launch(problem, ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK, 0, arguments);
}

static void launch_offset(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N], offset = (size_t)problem->param[PARAM_OFFSET];
    /* copy_offset<<<blocks, THREADS_PER_BLOCK>>>(in, out, n, offset) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n, &offset};
    ml_launch(problem, ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK, 0, arguments);
}

static void launch_broadcast(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    /* copy_broadcast<<<blocks, THREADS_PER_BLOCK>>>(in, out, n) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n};
    ml_launch(problem, ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK, 0, arguments);
}

/* The lanes of a warp whose first lane is element `first`: all 32, or fewer at the end. */
static uint32_t lanes_from(uint64_t first, uint64_t count)
{
    uint64_t lanes = count - first < ML_WARP_SIZE ? count - first : ML_WARP_SIZE;
    return lanes == ML_WARP_SIZE ? ML_ALL_LANES : (1u << lanes) - 1;
}

/* Sectors the whole input read touches: each is read from DRAM once, since the L2 is flushed
 * before every run. Indices are non-decreasing in i, so a new sector shows as a change from
 * element i - 1 (element 0 always starts one). */
static double distinct_input_sectors(uint64_t n, const long long *param,
                                     uint64_t (*source)(uint64_t, const long long *))
{
    uint64_t sectors = 0;
#pragma omp parallel for reduction(+ : sectors)
    for (uint64_t i = 0; i < n; i++) {
        uint64_t sector = source(i, param) * sizeof(float) / ML_SECTOR_BYTES;
        if (i == 0 || sector != source(i - 1, param) * sizeof(float) / ML_SECTOR_BYTES)
            sectors++;
    }
    return (double)sectors;
}

static void predict_from_totals(const ml_global_totals *loads, const ml_global_totals *stores,
                                double dram_read_sectors, uint64_t n, ml_prediction *prediction)
{
    ml_predict(prediction, "gld_efficiency", 100.0 * loads->used_bytes / (loads->sectors * ML_SECTOR_BYTES));
    ml_predict(prediction, "gst_efficiency", 100.0 * stores->used_bytes / (stores->sectors * ML_SECTOR_BYTES));
    ml_predict(prediction, "gld_transactions_per_request", loads->sectors / loads->requests);
    ml_predict(prediction, "gst_transactions_per_request", stores->sectors / stores->requests);
    ml_predict(prediction, "gld_transactions", loads->sectors);
    ml_predict(prediction, "gld_requests", loads->requests);
    ml_predict(prediction, "dram_read_bytes", dram_read_sectors * ML_SECTOR_BYTES);
    /* DRAM is written in whole sectors. */
    double output_sectors = ceil((double)n * sizeof(float) / ML_SECTOR_BYTES);
    ml_predict(prediction, "dram_write_bytes", output_sectors * ML_SECTOR_BYTES);
}

/* A one-float-per-thread copy: warp w reads element source(i) for its lanes i = 32w + lane and
 * writes out[i]. Every full warp has the same pattern relative to a 128-byte line (buffers are
 * 256-byte aligned and a warp's step is a multiple of 128 bytes), so the first full warp stands
 * for all of them; the last, partial warp is modelled on its own. */
static void predict_gather(const long long *param, uint64_t (*source)(uint64_t, const long long *),
                           ml_prediction *prediction)
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
                               lanes_from(first, n));
        load = store;
        for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
            load.address[lane] = source(first + lane, param) * sizeof(float);
        ml_global_totals_add(&loads, &load, repeats[k]);
        ml_global_totals_add(&stores, &store, repeats[k]);
    }
    predict_from_totals(&loads, &stores, distinct_input_sectors(n, param, source), n, prediction);
}

/* The float4 copy: lane i moves 16 bytes at 16 * i, then the first n % 4 lanes of warp 0 move
 * the scalar tail (a second load and store instruction, one request each). */
static void predict_coalesced(const long long *param, ml_prediction *prediction)
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
                               lanes_from(first, vectors));
        ml_global_totals_add(&moves, &access, 1.0);
    }
    if (n % 4 != 0) {
        ml_warp_access_strided(&access, vectors * sizeof(float4), sizeof(float), sizeof(float),
                               (1u << (n % 4)) - 1);
        ml_global_totals_add(&moves, &access, 1.0);
    }
    /* Loads and stores have the same shape. */
    predict_from_totals(&moves, &moves, distinct_input_sectors(n, param, source_coalesced), n,
                        prediction);
}

static void predict_strided(const long long *param, ml_prediction *prediction)
{
    predict_gather(param, source_strided, prediction);
}

static void predict_offset(const long long *param, ml_prediction *prediction)
{
    predict_gather(param, source_offset, prediction);
}

static void predict_broadcast(const long long *param, ml_prediction *prediction)
{
    predict_gather(param, source_broadcast, prediction);
}

/* ---- the variant table ----------------------------------------------------------------------- */

#define COPY_METRICS \
    "gld_efficiency,gld_transactions_per_request,gst_efficiency,gst_transactions_per_request," \
    "dram_read_bytes,dram_write_bytes"

typedef uint64_t (*source_function)(uint64_t, const long long *);

static const ml_variant variants[] = {
    {"coalesced", "out[i] = in[i], one float4 (16 bytes) per thread",
     COPY_METRICS, launch_coalesced, predict_coalesced, "copy_coalesced", THREADS_PER_BLOCK},
    {"strided", "out[i] = in[i * stride]: neighbouring lanes read stride floats apart",
     COPY_METRICS, launch_strided, predict_strided, "copy_strided", THREADS_PER_BLOCK},
    {"offset", "out[i] = in[i + offset]: the warp's floats start offset floats late",
     COPY_METRICS, launch_offset, predict_offset, "copy_offset", THREADS_PER_BLOCK},
    {"broadcast", "out[i] = in[i / 32]: all 32 lanes of a warp read one address",
     COPY_METRICS, launch_broadcast, predict_broadcast, "copy_broadcast", THREADS_PER_BLOCK},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

/* What each variant reads, in the order of the table above: setup and device_bytes need it. */
static source_function source_of(const ml_variant *variant)
{
    const source_function sources[VARIANT_COUNT] = {source_coalesced, source_strided,
                                                    source_offset, source_broadcast};
    return sources[variant - variants];
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static double device_bytes(const ml_variant *variant, const long long *param)
{
    uint64_t n = (uint64_t)param[PARAM_N];
    uint64_t in_count = source_of(variant)(n - 1, param) + 1;
    return (double)(in_count + n) * sizeof(float);
}

static void setup(ml_problem *problem)
{
    const long long *param = problem->param;
    uint64_t n = (uint64_t)param[PARAM_N];
    source_function source = source_of(problem->variant);

    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    state->in_count = source(n - 1, param) + 1;
    state->in = (float *)ml_device_alloc(state->in_count * sizeof(float));
    ml_fill_random(state->in, state->in_count, problem->seed);

    /* The reference recomputes each input value from the seed: no copy of the input needed. */
    float *reference = (float *)ml_host_alloc(n * sizeof(float));
#pragma omp parallel for
    for (uint64_t i = 0; i < n; i++)
        reference[i] = ml_random_value(problem->seed, source(i, param));

    problem->state = state;
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
    "coalescing", "Lab 04: coalesced vs strided vs misaligned global memory access",
    params, PARAM_COUNT, variants, VARIANT_COUNT, device_bytes, setup, teardown,
    NULL, NULL, &ml_lab_kernels,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
