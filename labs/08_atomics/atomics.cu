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

/* The default n keeps a first run short: atomic_each makes n atomics on one address, and every
 * launch is timed and profiled. */
static const ml_param params[] = {
    {"n", 1 << 24, 1, 1ll << 30, "values counted or added"},
    {"bins", 256, 1, MAX_BINS, "histogram: bins (the values are 0 .. bins - 1)",
     .used_by = "histogram,private_histogram"},
    {"distinct", 32, 1, 32, "histogram: bins the values of one warp fall in",
     .used_by = "histogram,private_histogram"},
    {"hot", 0, 0, 100, "histogram: percent of each warp's lanes whose value is bin 0",
     .used_by = "histogram,private_histogram"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* A histogram of one global RED instruction per warp of values. aggregated: only the lowest lane
 * of each bin takes part, adding for all of them; finding them costs the shuffle unit a VOTE of
 * the whole warp every round (32 thread instructions) and a MATCH per lane with a value. */
typedef struct {
    int aggregated;
    double vote_lanes_per_round, match_lanes_per_value;
} red_histogram;

static const red_histogram each_lane_adds = {0, 0, 0};
static const red_histogram lanes_agree = {1, 32, 1};

/* The sum_warp_shuffle grid: this many blocks per SM keep every SM busy (8 x 256 threads, the
 * most an SM holds), fewer when n has not that many float4s. The SMs are the model GPU's: the
 * device's own on a run (the harness takes them from the runtime), so the launch and the model
 * count the same grid. */
#define SHUFFLE_BLOCKS_PER_SM 8

static unsigned gpu_filling_blocks(const ml_problem *problem, size_t n)
{
    return ml_blocks_filling(n / 4 > 0 ? n / 4 : 1, ATOMICS_THREADS, SHUFFLE_BLOCKS_PER_SM);
}

/* A sum's grid (ml_blocks_of: a thread per value) and, for a sum that adds once per block
 * (block_sum), the model's count of what each block issues besides its atomicAdd. */
typedef struct {
    unsigned (*blocks)(const ml_problem *problem, size_t n);
    double shared_loads, shared_stores, shuffle_lanes; /* per block */
} sum_plan;

/* atomic_each: a thread per value, no shared memory, no shuffles. */
static const sum_plan value_per_thread = {ml_blocks_of, 0, 0, 0};
/* shared_tree: 8 warps store their values; then the model counts each step's two loads and store
 * as issued by all 8 warps at every one of the 8 steps, lanes at or above the stride switched off
 * (nvcc predicates them, no branch); thread 0's warp loads partial[0] once more. */
static const sum_plan tree_of_values = {ml_blocks_of, WARPS_PER_BLOCK * 8 * 2 + 1,
                                        WARPS_PER_BLOCK * (1 + 8), 0};
/* warp_shuffle: every warp shuffles 5 times, warp 0 of each block 5 times more; each block's
 * lane 0s store a warp's sum and warp 0 loads them. */
static const sum_plan shuffled_warps = {gpu_filling_blocks, 1, WARPS_PER_BLOCK,
                                        ATOMICS_THREADS * 5 + 32 * 5};

/* The histograms share their values and counts, the sums their floats and sum. The privatized
 * histogram has a launch of its own; the sum of an atomic per value a model of its own. */
extern const ml_family histogram, private_histogram, atomic_sum, block_sum;

#define HISTOGRAM_METRICS "global_red_instructions,l2_red_requests,l2_red_bytes,shared_atom_instructions,shuffle_thread_instructions"
#define SUM_METRICS "global_red_instructions,l2_red_requests,shared_ld_instructions,shared_st_instructions,shuffle_thread_instructions"

static const ml_variant variants[] = {
    {.name = "global_atomic", .summary = "histogram: one global atomicAdd per value",
     .family = &histogram, .kernel = "histogram_global_atomic", .block = {ATOMICS_THREADS},
     .constants = &each_lane_adds, .metrics = HISTOGRAM_METRICS},
    {.name = "shared_private", .summary = "histogram: a block's own in shared memory, merged with one atomic per bin",
     .family = &private_histogram, .kernel = "histogram_shared_private",
     .block = {ATOMICS_THREADS}, .metrics = HISTOGRAM_METRICS},
    {.name = "warp_aggregated", .summary = "histogram: lanes with the same bin add once, together",
     .family = &histogram, .kernel = "histogram_warp_aggregated", .block = {ATOMICS_THREADS},
     .constants = &lanes_agree, .metrics = HISTOGRAM_METRICS},
    {.name = "atomic_each", .summary = "sum: one global atomicAdd per value, all on one address",
     .family = &atomic_sum, .kernel = "sum_atomic_each", .block = {ATOMICS_THREADS},
     .constants = &value_per_thread, .metrics = SUM_METRICS},
    {.name = "shared_tree", .summary = "sum: a tree in shared memory, one atomicAdd per block",
     .family = &block_sum, .kernel = "sum_shared_tree", .block = {ATOMICS_THREADS},
     .constants = &tree_of_values, .metrics = SUM_METRICS},
    {.name = "warp_shuffle", .summary = "sum: float4 loads, warp shuffles, one atomicAdd per block",
     .family = &block_sum, .kernel = "sum_warp_shuffle", .block = {ATOMICS_THREADS},
     .constants = &shuffled_warps, .metrics = SUM_METRICS},
};

/* ---- the histogram's values: a warp pattern -------------------------------------------------- */

/* What the values are made from: the sizes (passed by value to the fill kernel). */
typedef struct {
    unsigned bins, distinct, hot; /* hot: lanes of a warp holding bin 0 */
} warp_pattern;

static warp_pattern pattern_of(const ml_problem *problem)
{
    warp_pattern pattern = {(unsigned)ml_size(problem, "bins"),
                            (unsigned)ml_size(problem, "distinct"),
                            (unsigned)((ml_size(problem, "hot") * 32 + 50) / 100)};
    return pattern;
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

static const char *check_params(const ml_problem *problem)
{
    warp_pattern pattern = pattern_of(problem);
    if (pattern.hot < 32 && pattern.distinct > pattern.bins - (pattern.hot > 0 ? 1 : 0))
        return pattern.hot > 0
                   ? "--distinct must be below --bins when --hot is set (bin 0 is the hot one)"
                   : "--distinct must be at most --bins";
    return NULL;
}

/* ---- launches -------------------------------------------------------------------------------- */

typedef struct {
    size_t n;
    warp_pattern pattern;
    unsigned *values;           /* device: the bins counted */
    uint32_t *counts;           /* host: the histogram of the values fill_inputs made */
} histogram_state;

typedef struct {
    size_t n;
    float *in;                  /* device: the floats added */
    double sum;                 /* the sum of the floats fill_inputs made */
} sum_state;

/* histogram_global_atomic, histogram_warp_aggregated(values, n, histogram) */
static void launch_histogram(const ml_problem *problem)
{
    const histogram_state *state = (const histogram_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->values), ML_ARG(state->n), ML_ARG(problem->output)};
    ML_LAUNCH(problem, ml_blocks_for(state->n, HISTOGRAM_VALUES_PER_BLOCK), 0, arguments);
}

/* histogram_shared_private(values, n, histogram, bins), with bins * 4 bytes of shared memory */
static void launch_private_histogram(const ml_problem *problem)
{
    const histogram_state *state = (const histogram_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->values), ML_ARG(state->n), ML_ARG(problem->output),
                               ML_ARG(state->pattern.bins)};
    ML_LAUNCH(problem, ml_blocks_for(state->n, HISTOGRAM_VALUES_PER_BLOCK),
              state->pattern.bins * sizeof(unsigned), arguments);
}

/* sum_...(in, n, sum), on the variant's grid */
static void launch_sum(const ml_problem *problem)
{
    const sum_state *state = (const sum_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(state->n), ML_ARG(problem->output)};
    ML_LAUNCH(problem, ML_CONSTANTS(sum_plan, problem)->blocks(problem, state->n), 0, arguments);
}

/* ---- predictions ----------------------------------------------------------------------------- */

/* What one warp's RED instruction sends the L2, from the bins its taking-part lanes add to, in
 * lane order. The L1 sends one request per 128-byte line its lanes touch and a 32-byte operand
 * per sector; lanes on one address are not merged (each add is done at the L2, one after
 * another), so a line (a sector) costs as many requests (operands) as the most lanes on one
 * address in it: 32 lanes on one address, 32 requests (atomic_each: n requests).
 *
 * Lanes that come back to a line after lanes on other lines (in lane order) are where the model
 * stops being exact. The GPU merges them into the line's earlier request in some patterns and
 * sends them in a request of their own in others: at 45 bins, 7 distinct (bins 6 apart: most
 * warps' leaders go line 0, line 1, line 0, or 1, 0, 1), warp_aggregated's returns all merge;
 * at 256 bins, 32 distinct (bins 8 apart: lines L, L+1, ..., L+7, and L again in the last
 * lanes for 3 warps in 4), none of global_atomic's do; at 199 bins, 27 distinct, 58% hot, about
 * half, run after run (the instructor notes have the runs). What decides it is not documented
 * and no rule of the lines or lanes in between matched all the runs, so the
 * model bounds the count: every return merged (group_cost: the lanes of each line, or sector,
 * together whatever their order) to none (run_cost: a new request, or operand, whenever the
 * line, or sector, changes from one lane to the next). Where no lane comes back to a line after
 * another, the two agree and the prediction is a point. A student sees both ends with
 * --variant warp_aggregated --bins 45 --distinct 7 (the low end) and --variant global_atomic
 * --bins 256 --distinct 32 (the high end). */
typedef struct {
    double requests, bytes;           /* every return merged */
    double most_requests, most_bytes; /* none merged */
} red_cost;

/* The most lanes on one address among lanes first .. end - 1 of bin that fall in group. */
static unsigned most_on_one_address(const unsigned *bin, unsigned first, unsigned end,
                                    unsigned bins_per_group, unsigned group)
{
    unsigned most = 0;
    for (unsigned a = first; a < end; a++) {
        if (bin[a] / bins_per_group != group)
            continue;
        unsigned same = 0;
        for (unsigned b = first; b < end; b++)
            same += bin[b] == bin[a];
        if (same > most)
            most = same;
    }
    return most;
}

/* Every group (line, or sector) the lanes touch, with all its lanes together. */
static double group_cost(const unsigned *bin, unsigned lanes, unsigned bins_per_group)
{
    double total = 0;
    for (unsigned a = 0; a < lanes; a++) {
        unsigned group = bin[a] / bins_per_group, seen = 0;
        for (unsigned b = 0; b < a; b++)
            seen |= bin[b] / bins_per_group == group;
        if (!seen)
            total += most_on_one_address(bin, a, lanes, bins_per_group, group);
    }
    return total;
}

/* Every run of consecutive lanes in one group, apart. */
static double run_cost(const unsigned *bin, unsigned lanes, unsigned bins_per_group)
{
    double total = 0;
    unsigned first = 0;
    while (first < lanes) {
        unsigned group = bin[first] / bins_per_group, end = first;
        while (end < lanes && bin[end] / bins_per_group == group)
            end++;
        total += most_on_one_address(bin, first, end, bins_per_group, group);
        first = end;
    }
    return total;
}

static void add_red(const unsigned *bin, unsigned lanes, double repeat, red_cost *cost)
{
    cost->requests += repeat * group_cost(bin, lanes, 32);
    cost->bytes += repeat * 32.0 * group_cost(bin, lanes, 8);
    cost->most_requests += repeat * run_cost(bin, lanes, 32);
    cost->most_bytes += repeat * 32.0 * run_cost(bin, lanes, 8);
}

/* Adds what the RED of the warp of values `warp` (its first `lanes` lanes) sends the L2, times
 * repeat. aggregated: only the first lane of each bin takes part. */
static void add_warp_reds(uint64_t warp, unsigned lanes, warp_pattern pattern, int aggregated,
                          double repeat, red_cost *cost)
{
    unsigned bin[32], count = 0;
    for (unsigned lane = 0; lane < lanes; lane++) {
        unsigned value = pattern_value(warp * 32 + lane, pattern);
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
static red_cost predict_histogram_reds(uint64_t n, warp_pattern pattern, int aggregated)
{
    uint64_t full_warps = n / 32;
    uint64_t period = pattern.bins - (pattern.hot > 0 ? 1 : 0);
    if (period == 0)
        period = 1; /* every lane hot: every warp alike */
    red_cost cost = {0, 0, 0, 0};
    for (uint64_t w = 0; w < full_warps && w < period; w++) {
        double sharing = (double)(full_warps / period + (w < full_warps % period));
        add_warp_reds(w, 32, pattern, aggregated, sharing, &cost);
    }
    if (n % 32 != 0)
        add_warp_reds(full_warps, (unsigned)(n % 32), pattern, aggregated, 1.0, &cost);
    return cost;
}

/* A point where every return merged and none merged agree; else the range between. */
static void predict_between(ml_prediction *prediction, const char *alias, double merged,
                            double apart)
{
    if (merged == apart)
        ml_predict(prediction, alias, merged);
    else
        ml_predict_range(prediction, alias, merged, apart,
                         "lanes back on a line after other lines: merged into its request or "
                         "sent apart, as the L1 decides (measured both ways)");
}

/* global_atomic and warp_aggregated: one RED instruction per warp of values. */
static void predict_red_histogram(const ml_problem *problem, ml_prediction *prediction)
{
    const red_histogram *reds = ML_CONSTANTS(red_histogram, problem);
    uint64_t n = (uint64_t)ml_size(problem, "n");
    double warps = (double)ml_ceil_div((long long)n, 32);
    double blocks = (double)ml_ceil_div((long long)n, HISTOGRAM_VALUES_PER_BLOCK);
    /* Rounds of the loop in which a warp has a value: it votes in every round of its block. */
    double rounds = blocks * WARPS_PER_BLOCK * HISTOGRAM_ITEMS_PER_THREAD;
    red_cost cost = predict_histogram_reds(n, pattern_of(problem), reds->aggregated);
    ml_predict(prediction, "global_red_instructions", warps);
    predict_between(prediction, "l2_red_requests", cost.requests, cost.most_requests);
    predict_between(prediction, "l2_red_bytes", cost.bytes, cost.most_bytes);
    ml_predict(prediction, "shared_atom_instructions", 0);
    ml_predict(prediction, "shuffle_thread_instructions",
               reds->vote_lanes_per_round * rounds + reds->match_lanes_per_value * (double)n);
}

/* shared_private: one shared atomic instruction per warp of values, then every block merges
 * every bin: one RED per warp of 32 consecutive bins, one line (one request), a 32-byte operand
 * per sector of 8 bins. */
static void predict_private_histogram(const ml_problem *problem, ml_prediction *prediction)
{
    long long n = ml_size(problem, "n"), bins = ml_size(problem, "bins");
    double warps = (double)ml_ceil_div(n, 32);
    double blocks = (double)ml_ceil_div(n, HISTOGRAM_VALUES_PER_BLOCK);
    double merge_instructions = blocks * (double)ml_ceil_div(bins, 32);
    ml_predict(prediction, "global_red_instructions", merge_instructions);
    ml_predict(prediction, "l2_red_requests", merge_instructions);
    ml_predict(prediction, "l2_red_bytes", 32.0 * blocks * (double)ml_ceil_div(bins, 8));
    ml_predict(prediction, "shared_atom_instructions", warps);
    ml_predict(prediction, "shuffle_thread_instructions", 0);
}

/* atomic_each: all 32 lanes add to one address: 32 requests a warp. */
static void predict_atomic_sum(const ml_problem *problem, ml_prediction *prediction)
{
    long long n = ml_size(problem, "n");
    ml_predict(prediction, "global_red_instructions", (double)ml_ceil_div(n, 32));
    ml_predict(prediction, "l2_red_requests", (double)n);
    ml_predict(prediction, "shared_ld_instructions", 0);
    ml_predict(prediction, "shared_st_instructions", 0);
    ml_predict(prediction, "shuffle_thread_instructions", 0);
}

/* shared_tree and warp_shuffle: one RED (one request) per block, and the plan's counts. */
static void predict_block_sum(const ml_problem *problem, ml_prediction *prediction)
{
    const sum_plan *plan = ML_CONSTANTS(sum_plan, problem);
    double grid = plan->blocks(problem, (size_t)ml_size(problem, "n"));
    ml_predict(prediction, "global_red_instructions", grid);
    ml_predict(prediction, "l2_red_requests", grid);
    ml_predict(prediction, "shared_ld_instructions", grid * plan->shared_loads);
    ml_predict(prediction, "shared_st_instructions", grid * plan->shared_stores);
    ml_predict(prediction, "shuffle_thread_instructions", grid * plan->shuffle_lanes);
}

/* ---- CPU reference, buffers ------------------------------------------------------------------ */

static double histogram_device_bytes(const ml_problem *problem)
{
    return (double)ml_size(problem, "n") * sizeof(unsigned) + ml_size(problem, "bins") * 4.0;
}

static double sum_device_bytes(const ml_problem *problem)
{
    return (double)ml_size(problem, "n") * sizeof(float) + sizeof(float);
}

/* Every variant reads its n values (bins or floats, 4 bytes each) once. */
static double values_read(const ml_problem *problem)
{
    return (double)ml_size(problem, "n") * sizeof(float);
}

/* The values on the GPU, from the seed; their counts on the CPU, from the same function of
 * (seed, index), while the GPU writes them. A full warp's values are its pattern's bins (a start,
 * the distinct bins from it and the lanes on each) turned by its turn: the full warps are counted
 * by (start, turn), each pair's bins added once, times the warps that have it. */
static void fill_histogram(ml_problem *problem)
{
    histogram_state *state = (histogram_state *)problem->state;
    warp_pattern pattern = state->pattern;
    uint64_t n = state->n, full_warps = n / 32;
    unsigned blocks = ml_blocks_for(n, ATOMICS_THREADS);
    fill_histogram_values<<<blocks < 65536 ? blocks : 65536, ATOMICS_THREADS>>>(
        state->values, n, pattern, problem->seed);
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

/* The counts fill_histogram kept. */
static void histogram_reference_at(const ml_problem *problem, const size_t *position,
                                   size_t count, void *values)
{
    const histogram_state *state = (const histogram_state *)problem->state;
    for (size_t k = 0; k < count; k++)
        ((uint32_t *)values)[k] = state->counts[position[k]];
}

static void histogram_setup(ml_problem *problem)
{
    histogram_state *state = (histogram_state *)problem->state;
    state->n = (size_t)ml_size(problem, "n");
    state->pattern = pattern_of(problem);
    size_t count_bytes = state->pattern.bins * sizeof(uint32_t);
    state->values = (unsigned *)ml_device_buffer(problem, state->n * sizeof(unsigned));
    state->counts = (uint32_t *)ml_host_buffer(problem, count_bytes);
    fill_histogram(problem);
    ml_expect_output(problem, ML_OUTPUT_COUNTED, state->pattern.bins, 0.0);
    memcpy(problem->reference_counts, state->counts, count_bytes);
}

/* The floats on the GPU from the seed, added on the host in double (from the same seed, while
 * the GPU writes them). Any order of float additions rounds; with partial sums of a few sqrt(n)
 * and rounding errors that add like a random walk, 4 n FLT_EPSILON bounds the error with room to
 * spare. A value left out or added twice moves the sum by up to 1, beyond the bound below
 * n = 2^21: the rubric checks sums of 10^6 values (a bound of 0.48); larger runs catch only
 * larger errors. */
static void fill_sum(ml_problem *problem)
{
    sum_state *state = (sum_state *)problem->state;
    uint64_t n = state->n;
    ml_fill_random(state->in, n, problem->seed);
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (uint64_t i = 0; i < n; i++)
        sum += ml_random_value(problem->seed, i);
    state->sum = sum;
    problem->tolerance = 4.0 * (double)n * FLT_EPSILON / fmax(fabs(sum), 1.0);
}

/* The sum fill_sum kept. */
static void sum_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                             void *values)
{
    const sum_state *state = (const sum_state *)problem->state;
    for (size_t k = 0; k < count; k++)
        ((float *)values)[k] = (float)state->sum;
}

static void sum_setup(ml_problem *problem)
{
    sum_state *state = (sum_state *)problem->state;
    state->n = (size_t)ml_size(problem, "n");
    state->in = (float *)ml_device_buffer(problem, state->n * sizeof(float));
    /* The tolerance follows the sum: fill_sum sets it, for every seed. */
    ml_expect_output(problem, ML_OUTPUT_SUMMED, 1, 0.0);
    fill_sum(problem);
    problem->reference[0] = (float)state->sum;
}

const ml_family histogram = {
    .name = "histogram", .state_bytes = sizeof(histogram_state),
    .device_bytes = histogram_device_bytes, .setup = histogram_setup,
    .fill_inputs = fill_histogram, .reference_at = histogram_reference_at,
    .launch = launch_histogram, .predict = predict_red_histogram, .bytes_read = values_read,
};
const ml_family private_histogram = {
    .name = "private_histogram", .state_bytes = sizeof(histogram_state),
    .device_bytes = histogram_device_bytes, .setup = histogram_setup,
    .fill_inputs = fill_histogram, .reference_at = histogram_reference_at,
    .launch = launch_private_histogram, .predict = predict_private_histogram,
    .bytes_read = values_read,
};
const ml_family atomic_sum = {
    .name = "atomic_sum", .state_bytes = sizeof(sum_state), .device_bytes = sum_device_bytes,
    .setup = sum_setup, .fill_inputs = fill_sum, .reference_at = sum_reference_at,
    .launch = launch_sum, .predict = predict_atomic_sum, .bytes_read = values_read,
};
const ml_family block_sum = {
    .name = "block_sum", .state_bytes = sizeof(sum_state), .device_bytes = sum_device_bytes,
    .setup = sum_setup, .fill_inputs = fill_sum, .reference_at = sum_reference_at,
    .launch = launch_sum, .predict = predict_block_sum, .bytes_read = values_read,
};

static const ml_lab lab = {
    .program = "atomics",
    .title = "Lab 08: atomics on global and shared memory, privatization and warp shuffles",
    .params = params,
    .num_params = ML_COUNT(params),
    .variants = variants,
    .num_variants = ML_COUNT(variants),
    .check_params = check_params,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
