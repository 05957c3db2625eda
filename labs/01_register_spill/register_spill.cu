/* Lab 01: registers vs local memory: run-time-indexed arrays, register caps, spills. The host
 * program (the instructor's): sizes, variants, launches, the access model's predictions, the CPU
 * reference. The kernels are in kernels.cu, loaded by name (--kernels FILE runs another kernels
 * file); register_spill.h holds what both sides share.
 *
 * Local memory is interleaved: word w of lane l sits w * 128 + l * 4 bytes past its warp's
 * base, which is what the predictions of dynamic_index run the access model over.
 *
 * Variants (each writes out[i] for i < n, one element per thread):
 *   static_index   a 32-entry table rotated by a run-time amount using compile-time indices
 *                  only (a barrel shifter in unrolled loops)
 *   dynamic_index  the same result read as table[(k + rotation) % 32]; --lane_stride sets how
 *                  many entries apart neighbouring lanes read
 *   uncapped       a ring of 64 values smoothed 8 times in place, no register cap
 *   capped         the same kernel under a register cap that lets CAPPED_BLOCKS_PER_SM blocks
 *                  of THREADS_PER_BLOCK threads share an SM
 *   smem_spill     capped, with CUDA 13's enable_smem_spilling
 *
 * Beside registers, local and shared memory per kernel, the report shows the spill stores and
 * loads ptxas reported for the kernels that ran: the harness reads them from ptxas's log of
 * whatever kernels file it loaded (the embedded one, or --kernels FILE).
 *
 * Build:  ./memlab run register_spill --help     (or: make -f Makefile.labs register_spill)
 * Try:    register_spill --variant dynamic_index --sweep lane_stride=0:31
 *         register_spill --variant capped
 *         register_spill --model                  (predictions only, no GPU)
 * Ask ptxas yourself (no GPU needed; k.fatbin.ptxas is what ptxas printed):
 *         register_spill --kernels labs/01_register_spill/kernels.cu --save-kernels k.fatbin
 */
#include <math.h>

#include "memlab.h"
#include "register_spill.h"

/* Larger outputs are checked at this many evenly spaced elements, to keep the CPU fast. */
#define FULL_CHECK_LIMIT (1u << 20)
#define CHECK_SAMPLE (1u << 16)

static const ml_param params[] = {
    {"n", 1 << 22, 1, 1ll << 32, "elements written, one per thread"},
    {"lane_stride", 1, 0, TABLE_LENGTH - 1,
     "table variants: thread i rotates its table by i * lane_stride entries (mod 32)",
     .used_by = "static_index,dynamic_index"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* What element i must be: the same float operations in the same order as the kernels. */
static float table_sum(float x, size_t i, unsigned lane_stride)
{
    float table[TABLE_LENGTH];
    fill_table(table, x);
    unsigned rotation = rotation_of(i, lane_stride);
    float sum = 0.0f;
    for (int k = 0; k < TABLE_LENGTH; k++)
        sum = fmaf(table[k], table[(k + rotation) % TABLE_LENGTH], sum);
    return sum;
}

static float ring_sum(float x, size_t i, unsigned lane_stride)
{
    return smooth_ring(x);
}

/* What a variant's threads compute, and the counters the model says its kernel leaves at 0. */
typedef struct {
    const char *rotation;       /* the size the table's rotation reads; NULL: none */
    float (*element)(float x, size_t i, unsigned lane_stride); /* output i from its input x */
    double flops_per_element;
    const char *const *untouched; /* NULL-terminated metric aliases; NULL: none */
} thread_work;

/* Two multiply-adds (2 FLOPs each) per table entry, or per ring value and round plus a multiply
 * to build the value and an add to sum it. */
#define TABLE_FLOPS (4.0 * TABLE_LENGTH)
#define RING_FLOPS ((4.0 * SMOOTHING_ROUNDS + 2.0) * STATE_LENGTH)

/* Registers hold the table: no local memory at all. */
static const char *const no_local[] = {"local_load_transactions", "local_store_transactions",
                                       NULL};
/* No register cap: the model expects no spill, so no local traffic and no shared loads or
 * stores. */
static const char *const no_spill[] = {"local_load_transactions", "local_store_transactions",
                                       "shared_load_instructions", "shared_store_instructions",
                                       NULL};
/* How much the capped kernel spills is ptxas's choice, which the model cannot know (ptxas -v
 * tells, per architecture); without the pragma it never spills to shared memory. */
static const char *const no_shared[] = {"shared_load_instructions", "shared_store_instructions",
                                        NULL};

static const thread_work static_table = {"lane_stride", table_sum, TABLE_FLOPS, no_local};
/* Its local traffic is the access model's (local_table's predict). */
static const thread_work dynamic_table = {"lane_stride", table_sum, TABLE_FLOPS, NULL};
static const thread_work uncapped_ring = {NULL, ring_sum, RING_FLOPS, no_spill};
static const thread_work capped_ring = {NULL, ring_sum, RING_FLOPS, no_shared};
/* No prediction: which spills go to shared memory and which to local memory is ptxas's choice. */
static const thread_work smem_spill_ring = {NULL, ring_sum, RING_FLOPS, NULL};

/* Two launches (the table kernels take lane_stride, the smoothing ones do not) and two models of
 * the table (registers, local memory): one family each, sharing the buffers and the reference. */
extern const ml_family register_table, local_table, ring_smoothing;

#define STATIC_METRICS "local_load_transactions,local_store_transactions"
#define DYNAMIC_METRICS \
    "local_load_transactions,local_store_transactions,local_load_transactions_per_request," \
    "local_load_efficiency"
#define SMOOTH_METRICS \
    "local_load_transactions,local_store_transactions,shared_load_instructions," \
    "shared_store_instructions,achieved_occupancy"

/* What each variant does, not what it costs: the handout asks for that. */
#if __CUDACC_VER_MAJOR__ >= 13
#define SMEM_SPILL_SUMMARY "capped, with CUDA 13's enable_smem_spilling pragma"
#else
#define SMEM_SPILL_SUMMARY "capped; this toolkit (before CUDA 13) has no enable_smem_spilling"
#endif

static const ml_variant variants[] = {
    {.name = "static_index",
     .summary = "32-entry table rotated with compile-time indices only (a barrel shifter)",
     .family = &register_table, .kernel = "table_static_index", .block = {THREADS_PER_BLOCK},
     .constants = &static_table, .metrics = STATIC_METRICS},
    {.name = "dynamic_index", .summary = "the same sum, reading the table at a run-time index",
     .family = &local_table, .kernel = "table_dynamic_index", .block = {THREADS_PER_BLOCK},
     .constants = &dynamic_table, .metrics = DYNAMIC_METRICS},
    {.name = "uncapped",
     .summary = "a ring of 64 values per thread smoothed 8 times in place, no register cap",
     .family = &ring_smoothing, .kernel = "smooth_uncapped", .block = {THREADS_PER_BLOCK},
     .constants = &uncapped_ring, .metrics = SMOOTH_METRICS},
    {.name = "capped",
     .summary = "the same under a register cap that lets 4 blocks of 256 threads share an SM",
     .family = &ring_smoothing, .kernel = "smooth_capped", .block = {THREADS_PER_BLOCK},
     .constants = &capped_ring, .metrics = SMOOTH_METRICS},
    {.name = "smem_spill", .summary = SMEM_SPILL_SUMMARY,
     .family = &ring_smoothing, .kernel = "smooth_smem_spill", .block = {THREADS_PER_BLOCK},
     .constants = &smem_spill_ring, .metrics = SMOOTH_METRICS},
};

typedef struct {
    size_t n;
    unsigned lane_stride;       /* the table variants' (thread_work.rotation) */
    float *in;
} spill_state;

/* ---- launches ----------------------------------------------------------------------------- */

/* Each launch is what kernel<<<blocks, THREADS_PER_BLOCK>>>(arguments) would be if the program
 * linked kernels.cu; ML_LAUNCH runs the kernel found by name in the loaded kernels file, with
 * the block of its table entry: table_static_index(in, out, n, lane_stride) and
 * table_dynamic_index(in, out, n, lane_stride). */
static void launch_table(const ml_problem *problem)
{
    const spill_state *state = (const spill_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(state->n),
                               ML_ARG(state->lane_stride)};
    ML_LAUNCH(problem, ml_blocks_of(problem, state->n), 0, arguments);
}

/* smooth_uncapped(in, out, n), and the same for smooth_capped and smooth_smem_spill */
static void launch_smooth(const ml_problem *problem)
{
    const spill_state *state = (const spill_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(state->n)};
    ML_LAUNCH(problem, ml_blocks_of(problem, state->n), 0, arguments);
}

/* ---- predictions: the access model over the local memory of the launch's warps -------------- */

/* Where word `word` of a lane's local memory lies, in bytes past its warp's base: the lanes'
 * copies of one word are consecutive (CUDA C++ Programming Guide, "Local Memory"). */
static uint64_t local_address(unsigned word, unsigned lane)
{
    return ((uint64_t)word * ML_WARP_SIZE + lane) * sizeof(float);
}

/* The dynamic_index table traffic of one warp whose active lanes are `lanes`. The 16-byte
 * stores of words w..w+3 touch the same sectors as four 4-byte stores would, so the stores are
 * modelled word by word (their request count is not predicted). Each k is one load. */
static void add_table_warp(ml_global_totals *loads, ml_global_totals *stores, uint32_t lanes,
                           unsigned lane_stride, double repeat)
{
    ml_warp_access access;
    for (unsigned word = 0; word < TABLE_LENGTH; word++) {
        ml_warp_access_strided(&access, local_address(word, 0), sizeof(float), sizeof(float),
                               lanes);
        ml_global_totals_add(stores, &access, repeat);
    }
    access.active_mask = lanes;
    access.width_bytes = sizeof(float);
    /* The requests and sectors are those of the interleaved addresses; the used bytes are
     * counted by the address each thread sees (word * 4), as the efficiency counter counts
     * them (the instructor notes give the reason). */
    ml_warp_access seen_by_threads = access;
    for (unsigned k = 0; k < TABLE_LENGTH; k++) {
        for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
            unsigned word = (k + rotation_of(lane, lane_stride)) % TABLE_LENGTH;
            access.address[lane] = local_address(word, lane);
            seen_by_threads.address[lane] = (uint64_t)word * sizeof(float);
        }
        ml_global_cost moved = ml_model_global(&access);
        ml_global_cost used = ml_model_global(&seen_by_threads);
        loads->requests += repeat * moved.requests;
        loads->sectors += repeat * moved.sectors;
        loads->used_bytes += repeat * used.used_bytes;
    }
}

/* The counters the model says the variant's kernel leaves at 0 (its thread_work.untouched). */
static void predict_untouched(const ml_problem *problem, ml_prediction *prediction)
{
    const char *const *untouched = ML_CONSTANTS(thread_work, problem)->untouched;
    for (int k = 0; untouched != NULL && untouched[k] != NULL; k++)
        ml_predict(prediction, untouched[k], 0);
}

/* Every full warp has the same pattern (the rotation depends on the lane only); the last,
 * partial warp is modelled on its own. */
static void predict_dynamic_index(const ml_problem *problem, ml_prediction *prediction)
{
    uint64_t n = (uint64_t)ml_size(problem, "n");
    unsigned lane_stride = (unsigned)ml_size(problem, "lane_stride");
    uint64_t full_warps = n / ML_WARP_SIZE;
    unsigned tail_lanes = (unsigned)(n % ML_WARP_SIZE);
    ml_global_totals loads = {0}, stores = {0};
    if (full_warps > 0)
        add_table_warp(&loads, &stores, ML_ALL_LANES, lane_stride, (double)full_warps);
    if (tail_lanes > 0)
        add_table_warp(&loads, &stores, ml_first_lanes(tail_lanes), lane_stride, 1.0);
    ml_predict(prediction, "local_load_transactions", loads.sectors);
    ml_predict(prediction, "local_store_transactions", stores.sectors);
    ml_predict(prediction, "local_load_transactions_per_request", ml_sectors_per_request(&loads));
    ml_predict(prediction, "local_load_efficiency", ml_efficiency_pct(&loads));
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static double device_bytes(const ml_problem *problem)
{
    return 2.0 * (double)ml_size(problem, "n") * sizeof(float);
}

/* One float read and one written per thread. */
static double bytes_per_direction(const ml_problem *problem)
{
    return (double)ml_size(problem, "n") * sizeof(float);
}

static double flops(const ml_problem *problem)
{
    return ML_CONSTANTS(thread_work, problem)->flops_per_element * (double)ml_size(problem, "n");
}

/* The input, one value per thread, from the seed: every output element depends on its own. */
static void fill_inputs(ml_problem *problem)
{
    spill_state *state = (spill_state *)problem->state;
    ml_fill_random(state->in, state->n, problem->seed);
}

/* Element i for the inputs made from problem->seed: its input recomputed from the seed (the
 * GPU's fill), so no copy of the input comes back. */
static float reference_value(const ml_problem *problem, size_t i)
{
    const spill_state *state = (const spill_state *)problem->state;
    float x = ml_random_value(problem->seed, i);
    return ML_CONSTANTS(thread_work, problem)->element(x, i, state->lane_stride);
}

/* A smoothing element costs about a thousand float operations: the positions are spread over
 * the cores. */
static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    float *reference = (float *)values;
#pragma omp parallel for
    for (size_t k = 0; k < count; k++)
        reference[k] = reference_value(problem, position[k]);
}

static void setup(ml_problem *problem)
{
    const thread_work *work = ML_CONSTANTS(thread_work, problem);
    spill_state *state = (spill_state *)problem->state;
    size_t n = (size_t)ml_size(problem, "n");
    state->n = n;
    if (work->rotation != NULL)
        state->lane_stride = (unsigned)ml_size(problem, work->rotation);
    state->in = (float *)ml_device_buffer(problem, n * sizeof(float));
    fill_inputs(problem);

    /* Every element when there are few, else evenly spaced ones from the first to the last
     * (the harness adds positions drawn at run time); the harness computes the reference there
     * from reference_at, which does the same correctly rounded float operations in the same
     * order. */
    if (n <= FULL_CHECK_LIMIT) {
        ml_expect_output_from_reference_at(problem, ML_OUTPUT_WRITTEN, n, 1e-6);
    } else {
        ml_expect_sampled_output_from_reference_at(problem, n, CHECK_SAMPLE, 1e-6);
        for (size_t k = 0; k < CHECK_SAMPLE; k++)
            problem->check_index[k] = (size_t)((n - 1) * k / (CHECK_SAMPLE - 1));
    }
}

const ml_family register_table = {
    .name = "register_table", .state_bytes = sizeof(spill_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_table, .predict = predict_untouched, .bytes_read = bytes_per_direction,
    .bytes_written = bytes_per_direction, .flops = flops,
};
const ml_family local_table = {
    .name = "local_table", .state_bytes = sizeof(spill_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_table, .predict = predict_dynamic_index, .bytes_read = bytes_per_direction,
    .bytes_written = bytes_per_direction, .flops = flops,
};
const ml_family ring_smoothing = {
    .name = "ring_smoothing", .state_bytes = sizeof(spill_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_smooth, .predict = predict_untouched, .bytes_read = bytes_per_direction,
    .bytes_written = bytes_per_direction, .flops = flops,
};

static const ml_lab lab = {
    .program = "register_spill",
    .title = "Lab 01: registers vs local memory: run-time-indexed arrays, register caps, spills",
    .params = params,
    .num_params = ML_COUNT(params),
    .variants = variants,
    .num_variants = ML_COUNT(variants),
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
