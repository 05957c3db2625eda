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

enum { PARAM_N, PARAM_LANE_STRIDE, PARAM_COUNT };

static const ml_param params[PARAM_COUNT] = {
    {"n", 1 << 22, 1, 1ll << 32, "elements written, one per thread"},
    {"lane_stride", 1, 0, TABLE_LENGTH - 1,
     "table variants: thread i rotates its table by i * lane_stride entries (mod 32)"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* What a variant's kernel computes: its table argument. Setup computes the reference and the
 * FLOPs by it. */
enum { TABLE_SUM, RING_SMOOTHING };

static void launch_table(const ml_problem *problem);
static void launch_smooth(const ml_problem *problem);
static void predict_static_index(long long computation, const long long *param,
                                 ml_prediction *prediction);
static void predict_dynamic_index(long long computation, const long long *param,
                                  ml_prediction *prediction);
static void predict_uncapped(long long computation, const long long *param,
                             ml_prediction *prediction);
static void predict_capped(long long computation, const long long *param,
                           ml_prediction *prediction);

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

/* smem_spill has no prediction: which spills go to shared memory and which to local memory is
 * ptxas's choice. */
static const ml_variant variants[] = {
    {.name = "static_index",
     .summary = "32-entry table rotated with compile-time indices only (a barrel shifter)",
     .kernel = "table_static_index", .block = {THREADS_PER_BLOCK}, .launch = launch_table,
     .argument = TABLE_SUM, .uses = "n,lane_stride", .metrics = STATIC_METRICS,
     .predict = predict_static_index},
    {.name = "dynamic_index", .summary = "the same sum, reading the table at a run-time index",
     .kernel = "table_dynamic_index", .block = {THREADS_PER_BLOCK}, .launch = launch_table,
     .argument = TABLE_SUM, .uses = "n,lane_stride", .metrics = DYNAMIC_METRICS,
     .predict = predict_dynamic_index},
    {.name = "uncapped",
     .summary = "a ring of 64 values per thread smoothed 8 times in place, no register cap",
     .kernel = "smooth_uncapped", .block = {THREADS_PER_BLOCK}, .launch = launch_smooth,
     .argument = RING_SMOOTHING, .uses = "n", .metrics = SMOOTH_METRICS,
     .predict = predict_uncapped},
    {.name = "capped",
     .summary = "the same under a register cap that lets 4 blocks of 256 threads share an SM",
     .kernel = "smooth_capped", .block = {THREADS_PER_BLOCK}, .launch = launch_smooth,
     .argument = RING_SMOOTHING, .uses = "n", .metrics = SMOOTH_METRICS,
     .predict = predict_capped},
    {.name = "smem_spill", .summary = SMEM_SPILL_SUMMARY,
     .kernel = "smooth_smem_spill", .block = {THREADS_PER_BLOCK}, .launch = launch_smooth,
     .argument = RING_SMOOTHING, .uses = "n", .metrics = SMOOTH_METRICS},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

/* ---- launches ----------------------------------------------------------------------------- */

typedef struct {
    float *in;
} lab_state;

/* Each launch is what kernel<<<blocks, THREADS_PER_BLOCK>>>(arguments) would be if the program
 * linked kernels.cu; ml_launch runs the kernel found by name in the loaded kernels file, with
 * the block of its table entry. The table kernels take (in, out, n, lane_stride), the smoothing
 * kernels (in, out, n). */
static void launch_table(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    unsigned lane_stride = (unsigned)problem->param[PARAM_LANE_STRIDE];
    /* table_static_index<<<blocks, THREADS_PER_BLOCK>>>(in, out, n, lane_stride), or
     * table_dynamic_index<<<blocks, THREADS_PER_BLOCK>>>(in, out, n, lane_stride) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n, &lane_stride};
    ml_launch(problem, ml_blocks_of(problem, n), 0, arguments);
}

static void launch_smooth(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    /* smooth_uncapped<<<blocks, THREADS_PER_BLOCK>>>(in, out, n), and the same for
     * smooth_capped and smooth_smem_spill */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n};
    ml_launch(problem, ml_blocks_of(problem, n), 0, arguments);
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

/* Registers hold the table: no local memory at all. */
static void predict_static_index(long long computation, const long long *param,
                                 ml_prediction *prediction)
{
    (void)computation;
    (void)param;
    ml_predict(prediction, "local_load_transactions", 0);
    ml_predict(prediction, "local_store_transactions", 0);
}

/* Every full warp has the same pattern (the rotation depends on the lane only); the last,
 * partial warp is modelled on its own. */
static void predict_dynamic_index(long long computation, const long long *param,
                                  ml_prediction *prediction)
{
    (void)computation;
    uint64_t n = (uint64_t)param[PARAM_N];
    unsigned lane_stride = (unsigned)param[PARAM_LANE_STRIDE];
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

/* No register cap: the model expects no spill, so no local traffic and no shared loads or
 * stores. */
static void predict_uncapped(long long computation, const long long *param,
                             ml_prediction *prediction)
{
    (void)computation;
    (void)param;
    ml_predict(prediction, "local_load_transactions", 0);
    ml_predict(prediction, "local_store_transactions", 0);
    ml_predict(prediction, "shared_load_instructions", 0);
    ml_predict(prediction, "shared_store_instructions", 0);
}

/* How much the capped kernel spills is ptxas's choice, which the model cannot know (ptxas -v
 * tells, per architecture); without the pragma it never spills to shared memory. */
static void predict_capped(long long computation, const long long *param,
                           ml_prediction *prediction)
{
    (void)computation;
    (void)param;
    ml_predict(prediction, "shared_load_instructions", 0);
    ml_predict(prediction, "shared_store_instructions", 0);
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

/* What element i must be: the same float operations in the same order as the kernels. */
static float reference_table(float x, size_t i, unsigned lane_stride)
{
    float table[TABLE_LENGTH];
    fill_table(table, x);
    unsigned rotation = rotation_of(i, lane_stride);
    float sum = 0.0f;
    for (int k = 0; k < TABLE_LENGTH; k++)
        sum = fmaf(table[k], table[(k + rotation) % TABLE_LENGTH], sum);
    return sum;
}

/* Element i for the inputs made from problem->seed: its input recomputed from the seed (the
 * GPU's fill), so no copy of the input comes back. */
static float reference_value(const ml_problem *problem, size_t i)
{
    float x = ml_random_value(problem->seed, i);
    unsigned lane_stride = (unsigned)problem->param[PARAM_LANE_STRIDE];
    return problem->argument == TABLE_SUM ? reference_table(x, i, lane_stride) : smooth_ring(x);
}

static double device_bytes(const ml_variant *variant, const long long *param)
{
    (void)variant;
    return 2.0 * (double)param[PARAM_N] * sizeof(float);
}

/* The input, one value per thread, from the seed: every output element depends on its own. */
static void fill_inputs(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_fill_random(state->in, (size_t)problem->param[PARAM_N], problem->seed);
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
    uint64_t n = (uint64_t)problem->param[PARAM_N];
    int table = problem->argument == TABLE_SUM;

    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    state->in = (float *)ml_device_alloc(n * sizeof(float));
    problem->state = state;
    fill_inputs(problem);

    /* Every element when there are few, else evenly spaced ones from the first to the last
     * (the harness adds positions drawn at run time). */
    size_t check_count = n <= FULL_CHECK_LIMIT ? (size_t)n : CHECK_SAMPLE;
    size_t *check_index = NULL;
    if (check_count < n) {
        check_index = (size_t *)ml_host_alloc(check_count * sizeof(size_t));
        for (size_t k = 0; k < check_count; k++)
            check_index[k] = (size_t)((n - 1) * k / (check_count - 1));
    }
    float *reference = (float *)ml_host_alloc(check_count * sizeof(float));
#pragma omp parallel for
    for (size_t k = 0; k < check_count; k++)
        reference[k] = reference_value(problem, check_index != NULL ? check_index[k] : k);

    problem->output = (float *)ml_device_alloc(n * sizeof(float));
    problem->output_count = n;
    problem->reference = reference;
    problem->check_index = check_index;
    problem->check_count = check_index != NULL ? check_count : 0;
    /* The reference does the same correctly rounded float operations in the same order. */
    problem->tolerance = 1e-6;
    problem->bytes = 2.0 * n * sizeof(float);
    /* Two multiply-adds (2 FLOPs each) per table entry, or per ring value and round plus a
     * multiply to build the value and an add to sum it. */
    problem->flops = table ? 4.0 * TABLE_LENGTH * n
                           : (4.0 * SMOOTHING_ROUNDS + 2.0) * STATE_LENGTH * n;
}

static void teardown(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_device_free(state->in);
    ml_device_free(problem->output);
    free(state);
}

static const ml_lab lab = {
    .program = "register_spill",
    .title = "Lab 01: registers vs local memory: run-time-indexed arrays, register caps, spills",
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
