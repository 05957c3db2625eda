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
 * An L2 miss reads the L2's fetch granularity from DRAM, not one sector: a driver setting
 * (cudaLimitMaxL2FetchGranularity), read at run time (64 bytes by default on the GPUs whose
 * fills memlab has measured: common/gpu_facts.c), which --l2_fetch sets before the kernels run.
 *
 * Build:  ./memlab run coalescing --help     (or: make -f Makefile.labs coalescing)
 * Try:    coalescing --variant strided --sweep stride=1:32
 *         coalescing --variant offset --sweep offset=0:32
 *         coalescing --variant strided --stride 17 --sweep l2_fetch=32,64,128
 *         coalescing --model                 (predictions only, no GPU)
 */
#include <math.h>

#include "memlab.h"

#define THREADS_PER_BLOCK 256

static const ml_param params[] = {
    {"n", 1 << 26, 1, 1ll << 34, "elements written, one per thread"},
    {"stride", 4, 1, 1024, "strided: distance in elements between neighbouring lanes' loads",
     .used_by = "strided"},
    {"offset", 1, 0, 1024, "offset: elements the loads are shifted by from an aligned start",
     .used_by = "offset"},
    {"l2_fetch", 0, 0, 128,
     "bytes an L2 miss reads from DRAM at most (the driver's L2 fetch granularity), set before "
     "the kernels run: 32, 64 or 128; 0 leaves the driver's own"},
};

/* The fetch granularities the driver takes: 0 leaves its own. */
static const char *check_params(const ml_problem *problem)
{
    long long fetch = ml_size(problem, "l2_fetch");
    if (fetch == 0 || fetch == 32 || fetch == 64 || fetch == 128)
        return NULL;
    return "--l2_fetch takes 32, 64 or 128 bytes, or 0 for the driver's own";
}

/* ---- the variant table ----------------------------------------------------------------------- */

/* Every variant copies: output element i is input element source(i, distance), where distance
 * is the size the variant's kernel takes last (none: 0). */
typedef struct {
    const char *distance;
    uint64_t (*source)(uint64_t i, uint64_t distance);
} copy_source;

static uint64_t same_index(uint64_t i, uint64_t distance) { return i; }
static uint64_t strided_index(uint64_t i, uint64_t stride) { return i * stride; }
static uint64_t offset_index(uint64_t i, uint64_t offset) { return i + offset; }
static uint64_t warp_index(uint64_t i, uint64_t distance) { return i / 32; }

static const copy_source aligned = {NULL, same_index};
static const copy_source strided = {"stride", strided_index};
static const copy_source shifted = {"offset", offset_index};
static const copy_source broadcast = {NULL, warp_index};

/* Three launches (a float4 copy, a copy with a distance, one without): one family each, sharing
 * the buffers and the reference. */
extern const ml_family vector_copy, distance_copy, warp_copy;

#define COPY_METRICS \
    "gld_efficiency,gld_transactions_per_request,gst_efficiency,gst_transactions_per_request," \
    "dram_read_bytes,dram_write_bytes"

static const ml_variant variants[] = {
    {.name = "coalesced", .summary = "out[i] = in[i], one float4 (16 bytes) per thread",
     .family = &vector_copy, .kernel = "copy_coalesced", .block = {THREADS_PER_BLOCK},
     .constants = &aligned, .metrics = COPY_METRICS},
    {.name = "strided", .summary = "out[i] = in[i * stride]: neighbouring lanes read stride floats apart",
     .family = &distance_copy, .kernel = "copy_strided", .block = {THREADS_PER_BLOCK},
     .constants = &strided, .metrics = COPY_METRICS},
    {.name = "offset", .summary = "out[i] = in[i + offset]: the warp's floats start offset floats late",
     .family = &distance_copy, .kernel = "copy_offset", .block = {THREADS_PER_BLOCK},
     .constants = &shifted, .metrics = COPY_METRICS},
    {.name = "broadcast", .summary = "out[i] = in[i / 32]: all 32 lanes of a warp read one address",
     .family = &warp_copy, .kernel = "copy_broadcast", .block = {THREADS_PER_BLOCK},
     .constants = &broadcast, .metrics = COPY_METRICS},
};

/* The sizes of a copy: n, the distance its kernel takes, and where the input comes from. */
typedef struct {
    uint64_t n, distance;
    const copy_source *source;
    float *in;
    size_t in_count;            /* the input's elements: up to the last one read */
} copy_state;

static copy_state copy_sizes(const ml_problem *problem)
{
    const copy_source *source = ML_CONSTANTS(copy_source, problem);
    copy_state sizes = {(uint64_t)ml_size(problem, "n"), 0, source, NULL, 0};
    if (source->distance != NULL)
        sizes.distance = (uint64_t)ml_size(problem, source->distance);
    sizes.in_count = source->source(sizes.n - 1, sizes.distance) + 1;
    return sizes;
}

/* ---- launches ------------------------------------------------------------------------------- */

/* Each launch is what kernel<<<blocks, THREADS_PER_BLOCK>>>(arguments) would be if the program
 * linked kernels.cu; ML_LAUNCH runs the kernel found by name in the loaded kernels file, with
 * the block of its table entry. */
static void launch_vector_copy(const ml_problem *problem)
{
    const copy_state *state = (const copy_state *)problem->state;
    size_t n = state->n;
    size_t threads = n / 4 > n % 4 ? n / 4 : n % 4;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(n)};
    ML_LAUNCH(problem, ml_blocks_of(problem, threads), 0, arguments);
}

/* One float per thread: copy_strided(in, out, n, stride), copy_offset(in, out, n, offset). */
static void launch_distance_copy(const ml_problem *problem)
{
    const copy_state *state = (const copy_state *)problem->state;
    size_t n = state->n, distance = state->distance;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(n),
                               ML_ARG(distance)};
    ML_LAUNCH(problem, ml_blocks_of(problem, n), 0, arguments);
}

/* copy_broadcast(in, out, n) */
static void launch_warp_copy(const ml_problem *problem)
{
    const copy_state *state = (const copy_state *)problem->state;
    size_t n = state->n;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(n)};
    ML_LAUNCH(problem, ml_blocks_of(problem, n), 0, arguments);
}

/* ---- predictions: the access model over the warps of the launch ----------------------------- */

/* The DRAM fills of this run: the L2's fetch granularity, a driver setting. --l2_fetch sets
 * it; 0 leaves the driver's, which a run reads at start (the model GPU's dram_fill_bytes; the
 * table's default under --model). ml_dram_fills_of_limit says what each setting fills: 32, 64
 * or 128 bytes. */
static void dram_fills(const ml_problem *problem, unsigned *fill_bytes, unsigned *fill_high_bytes)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    *fill_bytes = gpu->dram_fill_bytes;
    *fill_high_bytes = gpu->dram_fill_high_bytes;
    ml_dram_fills_of_limit((unsigned)ml_size(problem, "l2_fetch"), fill_bytes, fill_high_bytes);
}

/* Bytes of the input the copy brings from DRAM in fills of fill_bytes. The L2 is flushed before
 * every run, so each piece of the input the warps touch is read once, in the pieces an L2 miss
 * fills. Element i + 1 reads at most one step past element i (4 bytes times the stride, 4
 * bytes, or none): a step shorter than a fill skips no fill, so the fills read are every one
 * from the first element's to the last's; a step of a fill or more puts every element in a
 * fill of its own. With fill_bytes 128: the bytes of the L2's lines the reads fill. */
static double dram_read_bytes(const copy_state *copy, uint64_t fill_bytes)
{
    uint64_t step_bytes = (copy->source->source(1, copy->distance) -
                           copy->source->source(0, copy->distance)) * sizeof(float);
    uint64_t fills = copy->n;
    if (step_bytes < fill_bytes)
        fills = copy->source->source(copy->n - 1, copy->distance) * sizeof(float) / fill_bytes -
                copy->source->source(0, copy->distance) * sizeof(float) / fill_bytes + 1;
    return (double)fills * fill_bytes;
}

/* DRAM reads: the input's fills, and the floor every launch reads besides (the kernel's code and
 * constants, page-table walks: ml_predict_dram_reads). DRAM writes: the output in whole sectors,
 * less what the L2 still holds dirty when the kernel ends (ml_predict_dram_writes_after), which
 * depends on how many of the L2's lines the reads pass through it, and on how widely they are
 * spread over the input. */
static void predict_dram(const ml_problem *problem, const copy_state *copy,
                         ml_prediction *prediction)
{
    unsigned fill_bytes, fill_high_bytes;
    dram_fills(problem, &fill_bytes, &fill_high_bytes);
    double span = (double)(copy->in_count + copy->n) * sizeof(float);
    ml_predict_dram_reads(prediction, problem, dram_read_bytes(copy, fill_bytes),
                          dram_read_bytes(copy, fill_high_bytes), span,
                          fill_high_bytes > fill_bytes
                              ? "the input in fills of 64 to 128 bytes (the fetch granularity set "
                                "between them)"
                              : NULL);
    double output_sectors = ceil((double)copy->n * sizeof(float) / ML_SECTOR_BYTES);
    ml_predict_dram_writes_after(prediction, output_sectors * ML_SECTOR_BYTES,
                                 dram_read_bytes(copy, 128), (double)copy->in_count * sizeof(float));
}

static void predict_from_totals(const ml_global_totals *loads, const ml_global_totals *stores,
                                ml_prediction *prediction)
{
    ml_predict(prediction, "gld_efficiency", ml_efficiency_pct(loads));
    ml_predict(prediction, "gst_efficiency", ml_efficiency_pct(stores));
    ml_predict(prediction, "gld_transactions_per_request", ml_sectors_per_request(loads));
    ml_predict(prediction, "gst_transactions_per_request", ml_sectors_per_request(stores));
    ml_predict(prediction, "gld_transactions", loads->sectors);
    ml_predict(prediction, "gld_requests", loads->requests);
}

/* A one-float-per-thread copy: warp w reads element source_index(i) for its lanes
 * i = 32w + lane and writes out[i]. Every full warp has the same pattern relative to a 128-byte
 * line (buffers are 256-byte aligned and a warp's step is a multiple of 128 bytes), so the
 * first full warp stands for all of them; the last, partial warp is modelled on its own. */
static void predict_gather(const ml_problem *problem, ml_prediction *prediction)
{
    copy_state copy = copy_sizes(problem);
    uint64_t n = copy.n;
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
            load.address[lane] = copy.source->source(first + lane, copy.distance) * sizeof(float);
        ml_global_totals_add(&loads, &load, repeats[k]);
        ml_global_totals_add(&stores, &store, repeats[k]);
    }
    predict_from_totals(&loads, &stores, prediction);
    predict_dram(problem, &copy, prediction);
}

/* The float4 copy: lane i moves 16 bytes at 16 * i, then the first n % 4 lanes of warp 0 move
 * the scalar tail (a second load and store instruction, one request each). */
static void predict_coalesced(const ml_problem *problem, ml_prediction *prediction)
{
    copy_state copy = copy_sizes(problem);
    uint64_t n = copy.n;
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
    predict_from_totals(&moves, &moves, prediction);
    predict_dram(problem, &copy, prediction);
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static double device_bytes(const ml_problem *problem)
{
    copy_state copy = copy_sizes(problem);
    return (double)(copy.in_count + copy.n) * sizeof(float);
}

static double bytes_moved(const ml_problem *problem)
{
    return (double)copy_sizes(problem).n * sizeof(float);
}

/* The input from the seed; the reference recomputes each value it needs from the same seed, so
 * no copy of the input comes back. */
static void fill_inputs(ml_problem *problem)
{
    copy_state *state = (copy_state *)problem->state;
    ml_fill_random(state->in, state->in_count, problem->seed);
}

static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    const copy_state *state = (const copy_state *)problem->state;
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++)
        reference[k] = ml_random_value(problem->seed,
                                       state->source->source(position[k], state->distance));
}

/* --l2_fetch: the L2's fetch granularity for this run's kernels (0: the driver's own, read
 * before the first change, so a sweep that comes back to 0 gets it back). The setting is a hint:
 * where the driver keeps another value, the run says so, since the predictions assume it. */
static void set_fetch_granularity(const ml_problem *problem)
{
    static size_t driver_default;
    static int default_read, warned;
    if (!default_read) {
        ML_CUDA_CHECK(cudaDeviceGetLimit(&driver_default, cudaLimitMaxL2FetchGranularity));
        default_read = 1;
    }
    long long asked = ml_size(problem, "l2_fetch");
    size_t wanted = asked > 0 ? (size_t)asked : driver_default, granted = 0;
    ML_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, wanted));
    ML_CUDA_CHECK(cudaDeviceGetLimit(&granted, cudaLimitMaxL2FetchGranularity));
    if (granted != wanted && !warned) {
        fprintf(stderr, "coalescing: warning: the driver set the L2 fetch granularity to %zu bytes "
                        "when asked for %zu; the DRAM predictions assume %zu\n",
                granted, wanted, wanted);
        warned = 1;
    }
}

static void setup(ml_problem *problem)
{
    copy_state *state = (copy_state *)problem->state;
    set_fetch_granularity(problem);
    *state = copy_sizes(problem);
    state->in = (float *)ml_device_buffer(problem, state->in_count * sizeof(float));
    fill_inputs(problem);
    /* A copy is exact. */
    ml_expect_output_from_reference_at(problem, ML_OUTPUT_WRITTEN, state->n, 0.0);
}

const ml_family vector_copy = {
    .name = "vector_copy", .state_bytes = sizeof(copy_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_vector_copy, .predict = predict_coalesced, .bytes_read = bytes_moved,
    .bytes_written = bytes_moved,
};
const ml_family distance_copy = {
    .name = "distance_copy", .state_bytes = sizeof(copy_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_distance_copy, .predict = predict_gather, .bytes_read = bytes_moved,
    .bytes_written = bytes_moved,
};
const ml_family warp_copy = {
    .name = "warp_copy", .state_bytes = sizeof(copy_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_warp_copy, .predict = predict_gather, .bytes_read = bytes_moved,
    .bytes_written = bytes_moved,
};

static const ml_lab lab = {
    .program = "coalescing",
    .title = "Lab 04: coalesced vs strided vs misaligned global memory access",
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
