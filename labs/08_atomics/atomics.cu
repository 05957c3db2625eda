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
 * hold bin 0: the contention knobs. The seed turns each warp's bins round their 32-byte sectors
 * (which bins, not how many sectors and lines a warp touches), and makes the sums' floats.
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

/* The default n keeps a first run short: atomic_each makes n atomics on one address, and every
 * launch is timed and profiled. */
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

/* ---- the histogram's values: a warp pattern -------------------------------------------------- */

/* Lanes of a warp holding the hot bin, 0. */
static unsigned hot_lanes(const long long *param)
{
    return (unsigned)((param[PARAM_HOT] * 32 + 50) / 100);
}

/* What the values are made from: the sizes (passed by value to the fill kernel). */
typedef struct {
    unsigned bins, distinct, hot; /* hot: lanes of a warp holding bin 0 */
} warp_pattern;

static warp_pattern pattern_of(const long long *param)
{
    return (warp_pattern){(unsigned)param[PARAM_BINS], (unsigned)param[PARAM_DISTINCT],
                          hot_lanes(param)};
}

/* The pattern's value of element i: lanes below hot hold bin 0; the others cycle through
 * distinct bins, step = cold_bins / distinct apart, among the bins other than 0 when some lanes
 * are hot (so the two never meet), from a start that moves 97 bins a warp. From the sizes
 * alone, so that the model can count where each warp's atomics land. */
static __host__ __device__ unsigned pattern_value(uint64_t i, warp_pattern pattern)
{
    unsigned lane = (unsigned)(i % 32);
    if (lane < pattern.hot)
        return 0;
    unsigned first_bin = pattern.hot > 0 ? 1 : 0;
    unsigned cold_bins = pattern.bins - first_bin, step = cold_bins / pattern.distinct;
    unsigned start = (unsigned)(i / 32 * 97 % cold_bins);
    return first_bin + (start + (lane - pattern.hot) % pattern.distinct * step) % cold_bins;
}

/* How far the seed turns the bins of warp w: 0 .. 7, the top 3 bits of its random value. */
static __host__ __device__ unsigned warp_turn(uint64_t seed, uint64_t warp)
{
    return (unsigned)(4.0f * (ml_random_value(seed, warp) + 1.0f));
}

/* A bin moved `turn` places round the bins of its 32-byte sector that may move: all but the
 * hot bin 0, none past the last bin. Two bins share a sector (a line) after the turn exactly
 * when they did before, so a warp's atomics cost the L2 what the model counts for its pattern,
 * whatever the turn; which bins gain the counts is what the seed decides. */
static __host__ __device__ unsigned turned_bin(unsigned bin, unsigned turn, warp_pattern pattern)
{
    unsigned low = bin / 8 * 8, high = low + 8 < pattern.bins ? low + 8 : pattern.bins;
    if (pattern.hot > 0 && low == 0)
        low = 1;
    if (bin < low)
        return bin; /* the hot bin */
    return low + (bin - low + turn) % (high - low);
}

/* The value of element i: its pattern value, turned by its warp's turn. */
static __host__ __device__ unsigned histogram_value(uint64_t i, warp_pattern pattern,
                                                    uint64_t seed)
{
    return turned_bin(pattern_value(i, pattern), warp_turn(seed, i / 32), pattern);
}

static __global__ void fill_histogram_values(unsigned *values, size_t n, warp_pattern pattern,
                                             uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        values[i] = histogram_value(i, pattern, seed);
}

static const char *check_params(const long long *param)
{
    unsigned hot = hot_lanes(param);
    if (hot < 32 && param[PARAM_DISTINCT] > param[PARAM_BINS] - (hot > 0 ? 1 : 0))
        return hot > 0 ? "--distinct must be below --bins when --hot is set (bin 0 is the hot one)"
                       : "--distinct must be at most --bins";
    return NULL;
}

/* ---- launches -------------------------------------------------------------------------------- */

typedef struct {
    void *in;                   /* the histogram's values (unsigned) or the floats to add */
    uint32_t *counts;           /* host: the histogram of the values fill_inputs made */
    double sum;                 /* the sum of the floats it made */
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

/* ---- predictions ----------------------------------------------------------------------------- */

/* What one warp's RED instruction sends the L2, from the bins its taking-part lanes add to, in
 * lane order. The model's rule: the L1 takes lanes in order and starts a request whenever the
 * 128-byte line changes, and a 32-byte operand whenever the sector changes; a run of lanes on
 * one line (sector) costs as many requests (operands) as the most lanes on one address in it.
 * lane_runs counts either, given the bins a line or a sector holds. */
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
        unsigned value = pattern_value(warp * 32 + lane, pattern_of(param));
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
        /* Per block: 8 warps store their values; then the model counts each step's two loads
         * and store as issued by all 8 warps at every one of the 8 steps, lanes at or above
         * the stride switched off (nvcc predicates them, no branch); thread 0's warp loads
         * partial[0] once more. */
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

/* ---- CPU reference, buffers ------------------------------------------------------------------ */

static double device_bytes(const ml_variant *variant, const long long *param)
{
    double n = (double)param[PARAM_N];
    return is_histogram(variant->argument) ? n * sizeof(unsigned) + param[PARAM_BINS] * 4.0
                                           : n * sizeof(float) + sizeof(float);
}

/* The values on the GPU, from the seed; their counts on the CPU, from the same function of
 * (seed, index), while the GPU writes them. A full warp's values are its pattern's bins (a start,
 * the distinct bins from it and the lanes on each) turned by its turn: the full warps are counted
 * by (start, turn), each pair's bins added once, times the warps that have it. */
static void fill_histogram(ml_problem *problem, lab_state *state)
{
    warp_pattern pattern = pattern_of(problem->param);
    uint64_t n = (uint64_t)problem->param[PARAM_N], full_warps = n / 32;
    unsigned blocks = ml_blocks_for(n, ATOMICS_THREADS);
    fill_histogram_values<<<blocks < 65536 ? blocks : 65536, ATOMICS_THREADS>>>(
        (unsigned *)state->in, n, pattern, problem->seed);
    ML_LAUNCH_CHECK();

    uint32_t *counts = state->counts;
    memset(counts, 0, pattern.bins * sizeof *counts);
    counts[0] = (uint32_t)(pattern.hot * full_warps);
    unsigned first_bin = pattern.hot > 0 ? 1 : 0, cold_lanes = 32 - pattern.hot;
    if (cold_lanes > 0 && full_warps > 0) {
        unsigned cold_bins = pattern.bins - first_bin, step = cold_bins / pattern.distinct;
        size_t pairs = (size_t)cold_bins * 8;
        uint32_t *warps = (uint32_t *)ml_host_alloc(pairs * sizeof *warps);
        memset(warps, 0, pairs * sizeof *warps);
#pragma omp parallel for reduction(+ : warps[:pairs])
        for (uint64_t w = 0; w < full_warps; w++)
            warps[w * 97 % cold_bins * 8 + warp_turn(problem->seed, w)]++;
        for (size_t pair = 0; pair < pairs; pair++) {
            unsigned start = (unsigned)(pair / 8), turn = (unsigned)(pair % 8);
            if (warps[pair] == 0)
                continue;
            for (unsigned k = 0; k < pattern.distinct && k < cold_lanes; k++) {
                unsigned lanes =
                    cold_lanes / pattern.distinct + (k < cold_lanes % pattern.distinct);
                unsigned bin = first_bin + (start + k * step) % cold_bins;
                counts[turned_bin(bin, turn, pattern)] += warps[pair] * lanes;
            }
        }
        free(warps);
    }
    for (uint64_t i = full_warps * 32; i < n; i++)
        counts[histogram_value(i, pattern, problem->seed)]++;
}

/* The floats on the GPU from the seed, added on the host in double (from the same seed, while
 * the GPU writes them). Any order of float additions rounds; with partial sums of a few sqrt(n)
 * and rounding errors that add like a random walk, 4 n FLT_EPSILON bounds the error with room to
 * spare. A value left out or added twice moves the sum by up to 1, beyond the bound below
 * n = 2^21: the rubric checks sums of 10^6 values (a bound of 0.48); larger runs catch only
 * larger errors. */
static void fill_sum(ml_problem *problem, lab_state *state)
{
    uint64_t n = (uint64_t)problem->param[PARAM_N];
    ml_fill_random((float *)state->in, n, problem->seed);
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t i = 0; i < n; i++)
        sum += ml_random_value(problem->seed, i);
    state->sum = sum;
    problem->tolerance = 4.0 * (double)n * FLT_EPSILON / fmax(fabs(sum), 1.0);
}

static void fill_inputs(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    if (is_histogram(problem->argument))
        fill_histogram(problem, state);
    else
        fill_sum(problem, state);
}

/* The counts or the sum fill_inputs kept. */
static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    const lab_state *state = (const lab_state *)problem->state;
    for (size_t k = 0; k < count; k++) {
        if (is_histogram(problem->argument))
            ((uint32_t *)values)[k] = state->counts[position[k]];
        else
            ((float *)values)[k] = (float)state->sum;
    }
}

static void setup(ml_problem *problem)
{
    uint64_t n = (uint64_t)problem->param[PARAM_N];
    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    memset(state, 0, sizeof *state);
    problem->state = state;
    problem->flops = 0;
    if (is_histogram(problem->argument)) {
        unsigned bins = (unsigned)problem->param[PARAM_BINS];
        state->in = ml_device_alloc(n * sizeof(unsigned));
        state->counts = (uint32_t *)ml_host_alloc(bins * sizeof(uint32_t));
        fill_inputs(problem);
        problem->output = (float *)ml_device_alloc(bins * sizeof(uint32_t));
        problem->output_count = bins;
        problem->output_kind = ML_OUTPUT_COUNTED;
        problem->reference_counts = (uint32_t *)ml_host_alloc(bins * sizeof(uint32_t));
        memcpy(problem->reference_counts, state->counts, bins * sizeof(uint32_t));
        problem->bytes = (double)n * sizeof(unsigned);
    } else {
        state->in = ml_device_alloc(n * sizeof(float));
        fill_inputs(problem);
        problem->output = (float *)ml_device_alloc(sizeof(float));
        problem->output_count = 1;
        problem->output_kind = ML_OUTPUT_SUMMED;
        problem->reference = (float *)ml_host_alloc(sizeof(float));
        problem->reference[0] = (float)state->sum;
        problem->bytes = (double)n * sizeof(float);
    }
}

static void teardown(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_device_free(state->in);
    ml_device_free(problem->output);
    free(state->counts);
    free(state);
}

static const ml_lab lab = {
    .program = "atomics",
    .title = "Lab 08: atomics on global and shared memory, privatization and warp shuffles",
    .params = params,
    .num_params = PARAM_COUNT,
    .variants = variants,
    .num_variants = VARIANT_COUNT,
    .device_bytes = device_bytes,
    .setup = setup,
    .teardown = teardown,
    .check_params = check_params,
    .kernels = &ml_lab_kernels,
    .fill_inputs = fill_inputs,
    .reference_at = reference_at,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
