/* Lab 01: registers vs local memory: run-time-indexed arrays, register caps, spills.
 *
 * A thread's scalars live in registers. A per-thread array lives in registers only while the
 * compiler can name every element it touches at compile time: index it with a value known only
 * at run time and the whole array moves to local memory, which is per-thread device memory
 * behind the L1 and L2 caches. A kernel that needs more registers than it may have (a cap that
 * lets more blocks share an SM) goes to local memory too: the compiler spills registers there.
 * CUDA 13 can spill to shared memory instead.
 *
 * Local memory is interleaved: word w of lane l sits w * 128 + l * 4 bytes past its warp's
 * base. When the 32 lanes touch the same word they need 4 sectors, the most coalesced access
 * there is; when they touch different words the warp needs up to 32 sectors.
 *
 * Variants (each writes out[i] for i < n, one element per thread):
 *   static_index   a 32-entry table rotated by a run-time amount using compile-time indices
 *                  only (a barrel shifter in unrolled loops): registers, no local memory
 *   dynamic_index  the same result read as table[(k + rotation) % 32]: the table goes to local
 *                  memory; --lane_stride sets how many entries apart neighbouring lanes read
 *   uncapped       a ring of 64 values smoothed 8 times in place: about 72 registers, no spills
 *   capped         the same kernel under __launch_bounds__(256, 4), at most 64 registers: more
 *                  blocks fit on an SM, and the values that do not fit are spilled
 *   smem_spill     capped, with CUDA 13's enable_smem_spilling: spills go to shared memory
 *
 * Beside registers, local and shared memory per kernel, the report shows the spill stores and
 * loads ptxas reported for the code that ran: ptxas_report.sh captures them at build time.
 *
 * Build:  ./memlab run register_spill --help     (or: make -f Makefile.labs register_spill)
 * Try:    register_spill --variant dynamic_index --sweep lane_stride=0:31
 *         register_spill --variant capped
 *         register_spill --model                  (predictions only, no GPU)
 * Ask ptxas yourself:
 *         nvcc -c -arch=sm_90 -Xptxas -v -Icommon labs/01_register_spill/register_spill.cu
 */
#include <math.h>

#include "memlab.h"

/* What ptxas reported for each kernel on each architecture, written at build time by
 * ptxas_report.sh (lab.cmake, lab.mk). A build without that step still works: the report then
 * shows the spills as unknown. */
#if __has_include("register_spill_ptxas.h")
#include "register_spill_ptxas.h"
#else
#define PTXAS_REPORT(kernel) NULL
#endif

#define THREADS_PER_BLOCK 256
#define TABLE_LENGTH 32
#define STATE_LENGTH 64
#define SMOOTHING_ROUNDS 8
/* __launch_bounds__(256, 4): 4 blocks of 256 threads must fit on an SM, so each thread may use
 * at most 65536 / 1024 = 64 registers. 1024 threads fit an SM of every supported GPU. */
#define CAPPED_BLOCKS_PER_SM 4
/* Larger outputs are checked at this many evenly spaced elements, to keep the CPU fast. */
#define FULL_CHECK_LIMIT (1u << 20)
#define CHECK_SAMPLE (1u << 16)

enum { PARAM_N, PARAM_LANE_STRIDE, PARAM_COUNT };

static const ml_param params[PARAM_COUNT] = {
    {"n", 1 << 22, 1, 1ll << 32, "elements written, one per thread"},
    {"lane_stride", 1, 0, TABLE_LENGTH - 1,
     "table variants: thread i rotates its table by i * lane_stride entries (mod 32)"},
};

/* ---- the table kernels: a per-thread array in registers or in local memory ----------------- */

/* A table of values from a recurrence on x, so that every entry has to be kept. */
static __host__ __device__ __forceinline__ void fill_table(float *table, float x)
{
    float half_x = 0.5f * x;
    table[0] = x;
#pragma unroll
    for (int j = 1; j < TABLE_LENGTH; j++)
        table[j] = fmaf(table[j - 1], half_x, 0.5f);
}

/* Thread i's rotation, (i * lane_stride) mod 32. Blocks hold whole warps, so i % 32 is the
 * thread's lane: lane l of every warp rotates by (l * lane_stride) % 32. */
static __host__ __device__ __forceinline__ unsigned rotation_of(size_t i, unsigned lane_stride)
{
    return (unsigned)(i % TABLE_LENGTH) * lane_stride % TABLE_LENGTH;
}

/* out[i] = sum over k of table[k] * table[(k + rotation) % 32]. The rotation is known only at
 * run time, so it is done in five steps of 1, 2, 4, 8 and 16 entries, each taken or not: every
 * index below is a constant once the loops are unrolled, and both arrays stay in registers. */
static __global__ void table_static_index(const float *in, float *out, size_t n,
                                          unsigned lane_stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float table[TABLE_LENGTH];
    fill_table(table, in[i]);
    unsigned rotation = rotation_of(i, lane_stride);
    // BEGIN SOLUTION
    // TODO: rotate a copy of table by `rotation` entries with compile-time indices only: five
    //       steps (by 1, 2, 4, 8, 16 entries, each taken when its bit of rotation is set) in
    //       fully unrolled loops; then out[i] = sum over k = 0..31 of table[k] * rotated[k],
    //       accumulated with fmaf in that order. Check: -Xptxas -v shows 0 bytes stack frame.
    // STUB: (void)rotation;
    float rotated[TABLE_LENGTH];
#pragma unroll
    for (int j = 0; j < TABLE_LENGTH; j++)
        rotated[j] = table[j];
#pragma unroll
    for (int step = 1; step < TABLE_LENGTH; step *= 2) {
        float shifted[TABLE_LENGTH];
#pragma unroll
        for (int j = 0; j < TABLE_LENGTH; j++)
            shifted[j] = (rotation & step) ? rotated[(j + step) % TABLE_LENGTH] : rotated[j];
#pragma unroll
        for (int j = 0; j < TABLE_LENGTH; j++)
            rotated[j] = shifted[j];
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < TABLE_LENGTH; k++)
        sum = fmaf(table[k], rotated[k], sum);
    out[i] = sum;
    // END SOLUTION
}

/* The same sum, indexing the table with the run-time rotation: the table cannot be registers.
 * The compiler stores it with 8 16-byte stores (STL.128) and reads it with 32 4-byte loads
 * (LDL), one per k: cuobjdump -sass shows them. */
static __global__ void table_dynamic_index(const float *in, float *out, size_t n,
                                           unsigned lane_stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float table[TABLE_LENGTH];
    fill_table(table, in[i]);
    unsigned rotation = rotation_of(i, lane_stride);
    float sum = 0.0f;
    for (int k = 0; k < TABLE_LENGTH; k++)
        sum = fmaf(table[k], table[(k + rotation) % TABLE_LENGTH], sum);
    out[i] = sum;
}

/* ---- the smoothing kernels: too many registers, then a cap -------------------------------- */

/* Each thread holds a ring of 64 values built from x and smooths it in place, 8 times:
 * value j becomes 0.5 * value j + 0.25 * value j+1 + 0.125. The last update of a round reads
 * the first one's new value, so all 64 values are live at once: 64 registers, plus a few for
 * the index and the pointers. Every loop is unrolled: the kernel is straight-line code. */
static __host__ __device__ __forceinline__ float smooth_ring(float x)
{
    float ring[STATE_LENGTH];
#pragma unroll
    for (int j = 0; j < STATE_LENGTH; j++)
        ring[j] = x * ((float)(j + 1) / STATE_LENGTH);
#pragma unroll
    for (int pass = 0; pass < SMOOTHING_ROUNDS; pass++) {
#pragma unroll
        for (int j = 0; j < STATE_LENGTH; j++)
            ring[j] = fmaf(ring[j], 0.5f, fmaf(ring[(j + 1) % STATE_LENGTH], 0.25f, 0.125f));
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < STATE_LENGTH; j++)
        sum += ring[j];
    return sum;
}

static __global__ void smooth_uncapped(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = smooth_ring(in[i]);
}

/* The same kernel, promised to run in blocks of at most 256 threads with 4 blocks per SM. */
// BEGIN SOLUTION
// TODO: smooth_capped: the body of smooth_uncapped, declared with a register cap that lets
//       CAPPED_BLOCKS_PER_SM blocks of THREADS_PER_BLOCK threads share an SM.
// STUB: static __global__ void smooth_capped(const float *in, float *out, size_t n) {}
static __global__ void __launch_bounds__(THREADS_PER_BLOCK, CAPPED_BLOCKS_PER_SM)
smooth_capped(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = smooth_ring(in[i]);
}
// END SOLUTION

/* The capped kernel, allowed to spill into shared memory. The pragma goes at the start of the
 * kernel's body and applies to that kernel; ptxas sizes the shared spill area from the launch
 * bounds (without them it assumes 1024 threads per block), and what does not fit still goes to
 * local memory. */
#if __CUDACC_VER_MAJOR__ >= 13
#define SMEM_SPILL_SUMMARY "capped, with CUDA 13's enable_smem_spilling: spills go to shared memory"
#else
#define SMEM_SPILL_SUMMARY "capped; this toolkit (before CUDA 13) cannot spill to shared memory"
#endif

static __global__ void __launch_bounds__(THREADS_PER_BLOCK, CAPPED_BLOCKS_PER_SM)
smooth_smem_spill(const float *in, float *out, size_t n)
{
#if __CUDACC_VER_MAJOR__ >= 13
    asm volatile(".pragma \"enable_smem_spilling\";");
#endif
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = smooth_ring(in[i]);
}

/* ---- launches ----------------------------------------------------------------------------- */

typedef struct {
    float *in;
} lab_state;

static void launch_static_index(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    table_static_index<<<ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK>>>(
        state->in, problem->output, n, (unsigned)problem->param[PARAM_LANE_STRIDE]);
}

static void launch_dynamic_index(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    table_dynamic_index<<<ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK>>>(
        state->in, problem->output, n, (unsigned)problem->param[PARAM_LANE_STRIDE]);
}

static void launch_uncapped(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    smooth_uncapped<<<ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK>>>(
        state->in, problem->output, n);
}

static void launch_capped(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    smooth_capped<<<ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK>>>(
        state->in, problem->output, n);
}

static void launch_smem_spill(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    smooth_smem_spill<<<ml_blocks_for(n, THREADS_PER_BLOCK), THREADS_PER_BLOCK>>>(
        state->in, problem->output, n);
}

/* ---- predictions ---------------------------------------------------------------------------- */

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
    /* The loads' used_bytes count bytes by the address each thread sees (word * 4), as the
     * efficiency counter does: measured on an H200, all 32 lanes reading the same word gave
     * 3.125% (4 bytes of the 4 sectors the interleaved copies fill), not 100%. */
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
static void predict_static_index(const long long *param, ml_prediction *prediction)
{
    (void)param;
    ml_predict(prediction, "local_load_transactions", 0);
    ml_predict(prediction, "local_store_transactions", 0);
}

/* Every full warp has the same pattern (the rotation depends on the lane only); the last,
 * partial warp is modelled on its own. */
static void predict_dynamic_index(const long long *param, ml_prediction *prediction)
{
    uint64_t n = (uint64_t)param[PARAM_N];
    unsigned lane_stride = (unsigned)param[PARAM_LANE_STRIDE];
    uint64_t full_warps = n / ML_WARP_SIZE;
    unsigned tail_lanes = (unsigned)(n % ML_WARP_SIZE);
    ml_global_totals loads = {0}, stores = {0};
    if (full_warps > 0)
        add_table_warp(&loads, &stores, ML_ALL_LANES, lane_stride, (double)full_warps);
    if (tail_lanes > 0)
        add_table_warp(&loads, &stores, (1u << tail_lanes) - 1, lane_stride, 1.0);
    ml_predict(prediction, "local_load_transactions", loads.sectors);
    ml_predict(prediction, "local_store_transactions", stores.sectors);
    ml_predict(prediction, "local_load_transactions_per_request", loads.sectors / loads.requests);
    ml_predict(prediction, "local_load_efficiency",
               100.0 * loads.used_bytes / (loads.sectors * ML_SECTOR_BYTES));
}

/* 72 registers are no trouble: nothing is spilled, to local or to shared memory. */
static void predict_uncapped(const long long *param, ml_prediction *prediction)
{
    (void)param;
    ml_predict(prediction, "local_load_transactions", 0);
    ml_predict(prediction, "local_store_transactions", 0);
    ml_predict(prediction, "shared_load_instructions", 0);
    ml_predict(prediction, "shared_store_instructions", 0);
}

/* How much the capped kernel spills is ptxas's choice, which the model cannot know (ptxas -v
 * tells, per architecture); without the pragma it never spills to shared memory. */
static void predict_capped(const long long *param, ml_prediction *prediction)
{
    (void)param;
    ml_predict(prediction, "shared_load_instructions", 0);
    ml_predict(prediction, "shared_store_instructions", 0);
}

/* Which spills go to shared memory and which to local memory is ptxas's choice: nothing to
 * predict. */
static void predict_smem_spill(const long long *param, ml_prediction *prediction)
{
    (void)param;
    (void)prediction;
}

/* ---- the variant table ----------------------------------------------------------------------- */

#define STATIC_METRICS "local_load_transactions,local_store_transactions"
#define DYNAMIC_METRICS \
    "local_load_transactions,local_store_transactions,local_load_transactions_per_request," \
    "local_load_efficiency"
#define SMOOTH_METRICS \
    "local_load_transactions,local_store_transactions,shared_load_instructions," \
    "shared_store_instructions,achieved_occupancy"

static const ml_variant variants[] = {
    {"static_index", "32-entry table rotated with compile-time indices only: all in registers",
     STATIC_METRICS, launch_static_index, predict_static_index, (const void *)table_static_index,
     THREADS_PER_BLOCK, PTXAS_REPORT(table_static_index)},
    {"dynamic_index", "the same table read at a run-time index: it moves to local memory",
     DYNAMIC_METRICS, launch_dynamic_index, predict_dynamic_index,
     (const void *)table_dynamic_index, THREADS_PER_BLOCK, PTXAS_REPORT(table_dynamic_index)},
    {"uncapped", "64 values live per thread: many registers, few blocks per SM, no spills",
     SMOOTH_METRICS, launch_uncapped, predict_uncapped, (const void *)smooth_uncapped,
     THREADS_PER_BLOCK, PTXAS_REPORT(smooth_uncapped)},
    {"capped", "the same under __launch_bounds__(256, 4): more blocks, spills to local memory",
     SMOOTH_METRICS, launch_capped, predict_capped, (const void *)smooth_capped,
     THREADS_PER_BLOCK, PTXAS_REPORT(smooth_capped)},
    {"smem_spill", SMEM_SPILL_SUMMARY, SMOOTH_METRICS, launch_smem_spill, predict_smem_spill,
     (const void *)smooth_smem_spill, THREADS_PER_BLOCK, PTXAS_REPORT(smooth_smem_spill)},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

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

static int is_table_variant(const ml_variant *variant)
{
    return variant->launch == launch_static_index || variant->launch == launch_dynamic_index;
}

static double device_bytes(const ml_variant *variant, const long long *param)
{
    (void)variant;
    return 2.0 * (double)param[PARAM_N] * sizeof(float);
}

static void setup(ml_problem *problem)
{
    uint64_t n = (uint64_t)problem->param[PARAM_N];
    unsigned lane_stride = (unsigned)problem->param[PARAM_LANE_STRIDE];
    int table = is_table_variant(problem->variant);

    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    state->in = (float *)ml_device_alloc(n * sizeof(float));
    ml_fill_random(state->in, n, problem->seed);

    /* Every element when there are few, else evenly spaced ones from the first to the last. */
    size_t check_count = n <= FULL_CHECK_LIMIT ? (size_t)n : CHECK_SAMPLE;
    size_t *check_index = NULL;
    if (check_count < n) {
        check_index = (size_t *)ml_host_alloc(check_count * sizeof(size_t));
        for (size_t k = 0; k < check_count; k++)
            check_index[k] = (size_t)((n - 1) * k / (check_count - 1));
    }
    float *reference = (float *)ml_host_alloc(check_count * sizeof(float));
    for (size_t k = 0; k < check_count; k++) {
        size_t i = check_index != NULL ? check_index[k] : k;
        float x = ml_random_value(problem->seed, i);
        reference[k] = table ? reference_table(x, i, lane_stride) : smooth_ring(x);
    }

    problem->state = state;
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
    "register_spill",
    "Lab 01: registers vs local memory: run-time-indexed arrays, register caps, spills",
    params, PARAM_COUNT, variants, VARIANT_COUNT, device_bytes, setup, teardown,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
