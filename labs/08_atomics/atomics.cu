/* Lab 08: atomics on global and shared memory, privatization and warp shuffles. The host
 * program (the instructor's): sizes, variants, launches, the model's predictions, the CPU
 * reference. The kernels are in kernels.cu, loaded by name (--kernels FILE runs another file).
 *
 * Variants:
 *   global_atomic     histogram: one global atomicAdd per value
 *   shared_private    histogram: a private histogram per block in shared memory, then one
 *                     global atomicAdd per bin and block
 *   warp_aggregated   histogram: the lanes of a warp with the same bin add once, together
 *   atomic_each       sum: one global atomicAdd per value, all on one address
 *   shared_tree       sum: a tree in shared memory per block, one atomicAdd per block
 *   warp_shuffle      sum: a grid that fills the GPU, warp shuffles, one atomicAdd per block
 *
 * The histogram's values are bin numbers made so that the 32 values of each warp (32
 * consecutive values) fall in exactly --distinct bins, after --hot percent of its lanes that all
 * hold bin 0: the contention knobs. They follow from the sizes alone; --seed makes the sums'
 * floats.
 *
 * Build:  ./memlab run atomics --help         (or: make -f Makefile.labs atomics)
 * Try:    atomics --variant all
 *         atomics --variant global_atomic,shared_private,warp_aggregated --sweep distinct=1,2,8,32
 *         atomics --model                     (predictions only, no GPU)
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "memlab.h"
#include "atomics.h"

enum { PARAM_N, PARAM_BINS, PARAM_DISTINCT, PARAM_HOT, PARAM_COUNT };

/* The default n keeps a first run to a few seconds: atomic_each's 2^24 same-address atomics take
 * 30 ms a launch on an H100 (471 ms at 2^28), and every launch is timed and profiled. */
static const ml_param params[PARAM_COUNT] = {
    {"n", 1 << 24, 1, 1ll << 30, "values counted or added"},
    {"bins", 256, 1, MAX_BINS, "histogram: bins (the values are 0 .. bins - 1)"},
    {"distinct", 32, 1, 32, "histogram: bins the values of one warp fall in"},
    {"hot", 0, 0, 100, "histogram: percent of each warp's lanes whose value is bin 0"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

enum { HISTOGRAM_GLOBAL, HISTOGRAM_SHARED, HISTOGRAM_AGGREGATED, SUM_ATOMIC, SUM_TREE, SUM_SHUFFLE };

static void launch_histogram(const ml_problem *problem);
static void launch_sum(const ml_problem *problem);
static void predict_histogram(long long kind, const long long *param, ml_prediction *prediction);
static void predict_sum(long long kind, const long long *param, ml_prediction *prediction);

#define HISTOGRAM_METRICS "global_red_instructions,l2_red_requests,l2_red_bytes,shared_atom_instructions,shuffle_thread_instructions"
#define SUM_METRICS "global_red_instructions,l2_red_requests,shared_ld_instructions,shared_st_instructions,shuffle_thread_instructions"

static const ml_variant variants[] = {
    {.name = "global_atomic", .summary = "histogram: one global atomicAdd per value",
     .kernel = "histogram_global_atomic", .block = {ATOMICS_THREADS},
     .launch = launch_histogram, .argument = HISTOGRAM_GLOBAL, .uses = "n,bins,distinct,hot",
     .metrics = HISTOGRAM_METRICS, .predict = predict_histogram},
    {.name = "shared_private", .summary = "histogram: a block's own in shared memory, merged with one atomic per bin",
     .kernel = "histogram_shared_private", .block = {ATOMICS_THREADS},
     .launch = launch_histogram, .argument = HISTOGRAM_SHARED, .uses = "n,bins,distinct,hot",
     .metrics = HISTOGRAM_METRICS, .predict = predict_histogram},
    {.name = "warp_aggregated", .summary = "histogram: lanes with the same bin add once, together",
     .kernel = "histogram_warp_aggregated", .block = {ATOMICS_THREADS},
     .launch = launch_histogram, .argument = HISTOGRAM_AGGREGATED, .uses = "n,bins,distinct,hot",
     .metrics = HISTOGRAM_METRICS, .predict = predict_histogram},
    {.name = "atomic_each", .summary = "sum: one global atomicAdd per value, all on one address",
     .kernel = "sum_atomic_each", .block = {ATOMICS_THREADS}, .launch = launch_sum,
     .argument = SUM_ATOMIC, .uses = "n", .metrics = SUM_METRICS, .predict = predict_sum},
    {.name = "shared_tree", .summary = "sum: a tree in shared memory, one atomicAdd per block",
     .kernel = "sum_shared_tree", .block = {ATOMICS_THREADS}, .launch = launch_sum,
     .argument = SUM_TREE, .uses = "n", .metrics = SUM_METRICS, .predict = predict_sum},
    {.name = "warp_shuffle", .summary = "sum: float4 loads, warp shuffles, one atomicAdd per block",
     .kernel = "sum_warp_shuffle", .block = {ATOMICS_THREADS}, .launch = launch_sum,
     .argument = SUM_SHUFFLE, .uses = "n", .metrics = SUM_METRICS, .predict = predict_sum},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

static int is_histogram(long long kind)
{
    return kind == HISTOGRAM_GLOBAL || kind == HISTOGRAM_SHARED || kind == HISTOGRAM_AGGREGATED;
}

/* The sum_warp_shuffle grid: this many blocks per SM keep every SM busy (8 x 256 threads, the
 * most an SM holds), fewer when n has not that many float4s. The SMs are the model GPU's: the
 * device's own on a run (the harness takes them from the runtime), so the launch and the model
 * count the same grid. */
#define SHUFFLE_BLOCKS_PER_SM 8

static unsigned shuffle_blocks(uint64_t n)
{
    uint64_t needed = ml_ceil_div((long long)(n / 4 > 0 ? n / 4 : 1), ATOMICS_THREADS);
    uint64_t filling = (uint64_t)ml_model_gpu()->sm_count * SHUFFLE_BLOCKS_PER_SM;
    return (unsigned)(needed < filling ? needed : filling);
}

/* ---- the histogram's values: a warp pattern ---------------------------------------------------- */

/* Lanes of a warp holding the hot bin, 0. */
static unsigned hot_lanes(const long long *param)
{
    return (unsigned)((param[PARAM_HOT] * 32 + 50) / 100);
}

/* The value of element i: lanes below hot_lanes hold bin 0; the others cycle through distinct
 * bins, step = cold_bins / distinct apart, among the bins other than 0 when some lanes are hot
 * (so the two never meet), from a start that moves 97 bins a warp. Made from the sizes alone
 * (--seed changes the sums' inputs, not these), so that the model can count exactly where each
 * warp's atomics land. */
static unsigned histogram_value(uint64_t i, const long long *param)
{
    unsigned lane = (unsigned)(i % 32), hot = hot_lanes(param);
    if (lane < hot)
        return 0;
    unsigned first_bin = hot > 0 ? 1 : 0;
    unsigned cold_bins = (unsigned)param[PARAM_BINS] - first_bin;
    unsigned distinct = (unsigned)param[PARAM_DISTINCT], step = cold_bins / distinct;
    unsigned start = (unsigned)(i / 32 * 97 % cold_bins);
    return first_bin + (start + (lane - hot) % distinct * step) % cold_bins;
}

static const char *check_params(const long long *param)
{
    unsigned hot = hot_lanes(param);
    if (hot < 32 && param[PARAM_DISTINCT] > param[PARAM_BINS] - (hot > 0 ? 1 : 0))
        return hot > 0 ? "--distinct must be below --bins when --hot is set (bin 0 is the hot one)"
                       : "--distinct must be at most --bins";
    return NULL;
}

/* ---- launches ----------------------------------------------------------------------------------- */

typedef struct {
    void *in;                   /* the histogram's values (unsigned) or the floats to add */
} lab_state;

static void launch_histogram(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    unsigned bins = (unsigned)problem->param[PARAM_BINS];
    dim3 grid(ml_blocks_for(n, HISTOGRAM_VALUES_PER_BLOCK));
    /* histogram_global_atomic(values, n, histogram); the private one also gets bins and
     * bins * 4 bytes of shared memory */
    void *arguments[] = {(void *)&state->in, &n, (void *)&problem->output, &bins};
    size_t shared = problem->argument == HISTOGRAM_SHARED ? bins * sizeof(unsigned) : 0;
    ml_launch(problem, grid, shared, arguments);
}

static void launch_sum(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    dim3 grid(problem->argument == SUM_SHUFFLE ? shuffle_blocks(n) : ml_blocks_of(problem, n));
    /* sum_...(in, n, sum) */
    void *arguments[] = {(void *)&state->in, &n, (void *)&problem->output};
    ml_launch(problem, grid, 0, arguments);
}

/* ---- predictions ------------------------------------------------------------------------------ */

/* What one warp's RED instruction sends the L2, from the bins its taking-part lanes add to, in
 * lane order (measured on an H100): the L1 takes lanes in order and starts a request whenever
 * the 128-byte line changes, and a 32-byte operand whenever the sector changes; a run of lanes
 * on one line (sector) costs as many requests (operands) as the most lanes on one address in it.
 * So 32 lanes adding to one bin make 32 requests and 32 operands; 32 consecutive bins make 1 and
 * 4; bins 8 apart from a start s make 8 requests, or 9 when the run of s's line comes back at
 * the end (8.75 a warp measured, for starts spread evenly). */
typedef struct {
    double requests, bytes;
} red_cost;

static double lane_runs(const unsigned *bin, unsigned lanes, unsigned bins_per_group)
{
    double total = 0;
    unsigned first = 0;
    while (first < lanes) {
        unsigned end = first;
        while (end < lanes && bin[end] / bins_per_group == bin[first] / bins_per_group)
            end++;
        unsigned most = 0;
        for (unsigned a = first; a < end; a++) {
            unsigned same = 0;
            for (unsigned b = first; b < end; b++)
                same += bin[b] == bin[a];
            if (same > most)
                most = same;
        }
        total += most;
        first = end;
    }
    return total;
}

static void add_red(const unsigned *bin, unsigned lanes, double repeat, red_cost *cost)
{
    cost->requests += repeat * lane_runs(bin, lanes, 32);
    cost->bytes += repeat * 32.0 * lane_runs(bin, lanes, 8);
}

/* Adds what the RED of the warp of values `warp` (its first `lanes` lanes) sends the L2, times
 * repeat. aggregated: only the first lane of each bin takes part. */
static void add_warp_reds(uint64_t warp, unsigned lanes, const long long *param, int aggregated,
                          double repeat, red_cost *cost)
{
    unsigned bin[32], count = 0;
    for (unsigned lane = 0; lane < lanes; lane++) {
        unsigned value = histogram_value(warp * 32 + lane, param);
        int seen = 0;
        for (unsigned k = 0; aggregated && k < count; k++)
            seen |= bin[k] == value;
        if (!seen)
            bin[count++] = value;
    }
    add_red(bin, count, repeat, cost);
}

/* The histograms' global reductions, warp of values by warp of values (32 consecutive values).
 * Warps w and w + cold_bins start alike, so one warp of each start stands for all that share
 * it; the last warp, if n is no multiple of 32, has fewer lanes. */
static red_cost predict_histogram_reds(const long long *param, int aggregated)
{
    uint64_t n = (uint64_t)param[PARAM_N], full_warps = n / 32;
    uint64_t period = (uint64_t)param[PARAM_BINS] - (hot_lanes(param) > 0 ? 1 : 0);
    if (period == 0)
        period = 1; /* every lane hot: every warp alike */
    red_cost cost = {0, 0};
    for (uint64_t w = 0; w < full_warps && w < period; w++) {
        double sharing = (double)(full_warps / period + (w < full_warps % period));
        add_warp_reds(w, 32, param, aggregated, sharing, &cost);
    }
    if (n % 32 != 0)
        add_warp_reds(full_warps, (unsigned)(n % 32), param, aggregated, 1.0, &cost);
    return cost;
}

static void predict_histogram(long long kind, const long long *param, ml_prediction *prediction)
{
    uint64_t n = (uint64_t)param[PARAM_N], bins = (uint64_t)param[PARAM_BINS];
    double warps = (double)ml_ceil_div((long long)n, 32);
    double blocks = (double)ml_ceil_div((long long)n, HISTOGRAM_VALUES_PER_BLOCK);
    /* Rounds of the loop in which a warp has a value: it votes in every round of its block. */
    double rounds = blocks * WARPS_PER_BLOCK * HISTOGRAM_ITEMS_PER_THREAD;
    switch (kind) {
    case HISTOGRAM_GLOBAL: {
        red_cost cost = predict_histogram_reds(param, 0);
        ml_predict(prediction, "global_red_instructions", warps);
        ml_predict(prediction, "l2_red_requests", cost.requests);
        ml_predict(prediction, "l2_red_bytes", cost.bytes);
        ml_predict(prediction, "shared_atom_instructions", 0);
        ml_predict(prediction, "shuffle_thread_instructions", 0);
        break;
    }
    case HISTOGRAM_SHARED: {
        /* Every block merges every bin: one RED per warp of 32 consecutive bins, one line (one
         * request), a 32-byte operand per sector of 8 bins. */
        double merge_instructions = blocks * (double)ml_ceil_div((long long)bins, 32);
        ml_predict(prediction, "global_red_instructions", merge_instructions);
        ml_predict(prediction, "l2_red_requests", merge_instructions);
        ml_predict(prediction, "l2_red_bytes",
                   32.0 * blocks * (double)ml_ceil_div((long long)bins, 8));
        ml_predict(prediction, "shared_atom_instructions", warps);
        ml_predict(prediction, "shuffle_thread_instructions", 0);
        break;
    }
    default: { /* HISTOGRAM_AGGREGATED */
        red_cost cost = predict_histogram_reds(param, 1);
        ml_predict(prediction, "global_red_instructions", warps);
        ml_predict(prediction, "l2_red_requests", cost.requests);
        ml_predict(prediction, "l2_red_bytes", cost.bytes);
        ml_predict(prediction, "shared_atom_instructions", 0);
        /* Every lane of every round votes (VOTE); those with a value match (MATCH). */
        ml_predict(prediction, "shuffle_thread_instructions", 32.0 * rounds + (double)n);
        break;
    }
    }
}

static void predict_sum(long long kind, const long long *param, ml_prediction *prediction)
{
    uint64_t n = (uint64_t)param[PARAM_N];
    double blocks = (double)ml_ceil_div((long long)n, ATOMICS_THREADS);
    double warps = (double)ml_ceil_div((long long)n, 32);
    switch (kind) {
    case SUM_ATOMIC:
        /* All 32 lanes add to one address: 32 requests a warp. */
        ml_predict(prediction, "global_red_instructions", warps);
        ml_predict(prediction, "l2_red_requests", (double)n);
        ml_predict(prediction, "shared_ld_instructions", 0);
        ml_predict(prediction, "shared_st_instructions", 0);
        ml_predict(prediction, "shuffle_thread_instructions", 0);
        break;
    case SUM_TREE: {
        /* Per block: 8 warps store their values; nvcc predicates each step's two loads and
         * store (no branch), so all 8 warps issue them at every one of the 8 steps, lanes at
         * or above the stride switched off (measured on an H100, CUDA 13.0); thread 0's warp
         * loads partial[0] once more. */
        double steps = 8;
        double loads = WARPS_PER_BLOCK * steps * 2 + 1, stores = WARPS_PER_BLOCK * (1 + steps);
        ml_predict(prediction, "global_red_instructions", blocks);
        ml_predict(prediction, "l2_red_requests", blocks);
        ml_predict(prediction, "shared_ld_instructions", blocks * loads);
        ml_predict(prediction, "shared_st_instructions", blocks * stores);
        ml_predict(prediction, "shuffle_thread_instructions", 0);
        break;
    }
    default: { /* SUM_SHUFFLE */
        double grid = shuffle_blocks(n);
        /* Every warp shuffles 5 times, warp 0 of each block 5 times more; each block's lane 0s
         * store a warp's sum and warp 0 loads them. */
        ml_predict(prediction, "global_red_instructions", grid);
        ml_predict(prediction, "l2_red_requests", grid);
        ml_predict(prediction, "shared_ld_instructions", grid);
        ml_predict(prediction, "shared_st_instructions", grid * WARPS_PER_BLOCK);
        ml_predict(prediction, "shuffle_thread_instructions",
                   grid * ATOMICS_THREADS * 5 + grid * 32 * 5);
        break;
    }
    }
}

/* ---- CPU reference, buffers ---------------------------------------------------------------------- */

static double device_bytes(const ml_variant *variant, const long long *param)
{
    double n = (double)param[PARAM_N];
    return is_histogram(variant->argument) ? n * sizeof(unsigned) + param[PARAM_BINS] * 4.0
                                           : n * sizeof(float) + sizeof(float);
}

/* The histogram's values, made on the host (each from its index and the sizes) and copied over,
 * counted as they are made: each thread of the loop keeps its own counts, added at the end (an
 * array reduction). */
static void setup_histogram(ml_problem *problem, lab_state *state)
{
    const long long *param = problem->param;
    uint64_t n = (uint64_t)param[PARAM_N];
    unsigned bins = (unsigned)param[PARAM_BINS];
    unsigned *values = (unsigned *)ml_host_alloc(n * sizeof(unsigned));
    uint32_t *counts = (uint32_t *)ml_host_alloc(bins * sizeof(uint32_t));
    memset(counts, 0, bins * sizeof(uint32_t));
#pragma omp parallel for reduction(+ : counts[:bins])
    for (uint64_t i = 0; i < n; i++) {
        values[i] = histogram_value(i, param);
        counts[values[i]]++;
    }
    state->in = ml_device_alloc(n * sizeof(unsigned));
    ML_CUDA_CHECK(cudaMemcpy(state->in, values, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    free(values);

    problem->output = (float *)ml_device_alloc(bins * sizeof(uint32_t));
    problem->output_count = bins;
    problem->output_kind = ML_OUTPUT_COUNTED;
    problem->reference_counts = counts;
    problem->bytes = (double)n * sizeof(unsigned);
}

/* The sum: the floats made on the GPU from the seed, added on the host in double. Any order of
 * float additions rounds; with partial sums of a few sqrt(n) and rounding errors that add like
 * a random walk, 4 n FLT_EPSILON bounds the error with room to spare. A value left out or added
 * twice moves the sum by up to 1, beyond the bound below n = 2^21: the rubric checks sums of 10^6
 * values (a bound of 0.48); larger runs catch only larger errors. */
static void setup_sum(ml_problem *problem, lab_state *state)
{
    uint64_t n = (uint64_t)problem->param[PARAM_N];
    state->in = ml_device_alloc(n * sizeof(float));
    ml_fill_random((float *)state->in, n, problem->seed);
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t i = 0; i < n; i++)
        sum += ml_random_value(problem->seed, i);
    float *reference = (float *)ml_host_alloc(sizeof(float));
    reference[0] = (float)sum;
    problem->output = (float *)ml_device_alloc(sizeof(float));
    problem->output_count = 1;
    problem->output_kind = ML_OUTPUT_SUMMED;
    problem->reference = reference;
    problem->tolerance = 4.0 * (double)n * FLT_EPSILON / fmax(fabs(sum), 1.0);
    problem->bytes = (double)n * sizeof(float);
}

static void setup(ml_problem *problem)
{
    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    if (is_histogram(problem->argument))
        setup_histogram(problem, state);
    else
        setup_sum(problem, state);
    problem->state = state;
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
    "atomics", "Lab 08: atomics on global and shared memory, privatization and warp shuffles",
    params, PARAM_COUNT, variants, VARIANT_COUNT, device_bytes, setup, teardown,
    check_params, NULL, &ml_lab_kernels,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
