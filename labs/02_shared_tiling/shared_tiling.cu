/* Lab 02: shared-memory tiling, a matrix multiply of any shape. The host program (the
 * instructor's): sizes, variants, launches, the access model's predictions, the CPU reference,
 * and cuBLAS, the FLOP/s ceiling. The kernels are in kernels.cu, loaded by name (--kernels FILE
 * runs another kernels file); shared_tiling.h holds what both sides share.
 *
 * P = M x N, with M of m x k, N of k x n and P of m x n, all row-major floats.
 *
 * Variants (each computes all of P; the harness checks it against a CPU reference):
 *   naive      one thread per P element, both operands read from global memory
 *   tiled16    16 x 16 tiles of M and N in shared memory, two barriers per phase
 *   tiled32    the same kernel with 32 x 32 tiles
 *   coarsened  instructor extension: 128 x 128 tiles of P per block, 8 x 8 results per thread
 *              accumulated in registers from shared-memory fragments, 16-byte loads
 *   cublas     cuBLAS SGEMM in FP32 (no TF32): the FLOP/s ceiling every record is compared to
 *
 * Build:  ./memlab run shared_tiling --help      (or: make -f Makefile.labs shared_tiling)
 * Try:    shared_tiling                           (all variants at 3072 x 3072 x 3072)
 *         shared_tiling --variant tiled16 --m 1000 --k 3 --n 777
 *         shared_tiling --model --m 1024 --k 1024 --n 1024   (predictions only, no GPU)
 */
#include <float.h>
#include <math.h>

#include <cublas_v2.h>

#include "memlab.h"
#include "shared_tiling.h"

/* The naive kernel's blocks: NAIVE_BLOCK_WIDTH x NAIVE_BLOCK_WIDTH threads. */
#define NAIVE_BLOCK_WIDTH 32

/* 1,000,000 keeps every grid within CUDA's 65,535 blocks in y (rows of P / 16). The default,
 * 3072, keeps a first run short: gld_bytes is counted by instrumenting every load, which makes
 * the profiled launches much longer than the timed ones. */
static const ml_param params[] = {
    {"m", 3072, 1, 1000000, "rows of M and of P"},
    {"k", 3072, 1, 1000000, "columns of M, rows of N: the length of each dot product"},
    {"n", 3072, 1, 1000000, "columns of N and of P"},
};

/* ---- the variant table ------------------------------------------------------------------------ */

/* A kernel's constants: the tile of P one of its blocks computes, which its grid covers P with.
 * The tiled kernels' tiles are square: their width is the threads per side of the block. */
typedef struct {
    long long rows, cols;
} block_tile;

static const block_tile naive_tile = {NAIVE_BLOCK_WIDTH, NAIVE_BLOCK_WIDTH};
static const block_tile tile16 = {16, 16};
static const block_tile tile32 = {32, 32};
static const block_tile coarsened_tile = {CO_TILE_M, CO_TILE_N};

/* Every variant multiplies the same inputs into the same output, checked against the same
 * reference; a family per model of the loads, and cuBLAS, which is no kernel of the lab. */
extern const ml_family naive_matmul, tiled_matmul, coarsened_matmul, cublas_sgemm;

#define NAIVE_METRICS "gld_transactions,gld_requests,gld_bytes,dram_read_bytes"
#define TILED_METRICS \
    "gld_transactions,gld_requests,gld_bytes,shared_load_transactions,dram_read_bytes"

/* What each variant does, not what it measures to: the handout asks for that. cublas is a
 * library call, no kernel of kernels.cu; it is the ceiling, not a lesson: no counters and no
 * prediction (for some shapes it launches two kernels, and the profiler reads exactly one per
 * range). */
static const ml_variant variants[] = {
    {.name = "naive", .summary = "one thread per P element, both operands read from global memory",
     .family = &naive_matmul, .kernel = "matmul_naive",
     .block = {NAIVE_BLOCK_WIDTH, NAIVE_BLOCK_WIDTH}, .constants = &naive_tile,
     .metrics = NAIVE_METRICS},
    {.name = "tiled16", .summary = "16 x 16 tiles of M and N in shared memory, two barriers per phase",
     .family = &tiled_matmul, .kernel = "matmul_tiled16", .block = {16, 16}, .constants = &tile16,
     .metrics = TILED_METRICS},
    {.name = "tiled32", .summary = "the same kernel with 32 x 32 tiles",
     .family = &tiled_matmul, .kernel = "matmul_tiled32", .block = {32, 32}, .constants = &tile32,
     .metrics = TILED_METRICS},
    {.name = "coarsened", .summary = "instructor extension: 128 x 128 tiles of P, 8 x 8 results per thread",
     .family = &coarsened_matmul, .kernel = "matmul_coarsened", .block = {CO_THREADS},
     .constants = &coarsened_tile, .metrics = TILED_METRICS},
    {.name = "cublas", .summary = "cuBLAS SGEMM, FP32 without TF32: the FLOP/s ceiling",
     .family = &cublas_sgemm},
};

/* The sizes of a run and its inputs. */
typedef struct {
    long long m, k, n;
    float *M, *N;
    cublasHandle_t cublas;      /* cublas_sgemm's handle; NULL for the kernels */
} matmul_state;

static matmul_state matmul_sizes(const ml_problem *problem)
{
    matmul_state sizes = {ml_size(problem, "m"), ml_size(problem, "k"), ml_size(problem, "n")};
    return sizes;
}

/* ---- launches --------------------------------------------------------------------------------- */

/* Every cuBLAS call goes through this: on failure, file:line, the call and cuBLAS's reason. */
#define CUBLAS_CHECK(call) cublas_check((call), #call, __FILE__, __LINE__)
static void cublas_check(cublasStatus_t status, const char *call, const char *file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "shared_tiling: %s:%d: %s failed: %s (%s)\n", file, line, call,
            cublasGetStatusString(status), cublasGetStatusName(status));
    exit(ML_EXIT_CUDA_ERROR);
}

/* What kernel<<<grid, block>>>(M, N, P, m, k, n) would be if the program linked kernels.cu:
 * ML_LAUNCH runs the variant's kernel, found by name in the loaded kernels file, with the block
 * of its table entry, and a block per tile of P (its constants). Every kernel takes
 * (M, N, P, m, k, n). */
static void launch_kernel(const ml_problem *problem)
{
    const matmul_state *state = (const matmul_state *)problem->state;
    const block_tile *tile = ML_CONSTANTS(block_tile, problem);
    int m = (int)state->m, k = (int)state->k, n = (int)state->n;
    dim3 grid((unsigned)ml_ceil_div(n, tile->cols), (unsigned)ml_ceil_div(m, tile->rows));
    ml_argument arguments[] = {ML_ARG(state->M), ML_ARG(state->N), ML_ARG(problem->output),
                               ML_ARG(m), ML_ARG(k), ML_ARG(n)};
    ML_LAUNCH(problem, grid, 0, arguments);
}

/* cuBLAS is column-major. A row-major matrix read as column-major is its transpose, so the
 * row-major P = M N is the column-major P^T = N^T M^T: cuBLAS multiplies "N" (n x k, leading
 * dimension n) by "M" (k x m, leading dimension k) into "P" (n x m, leading dimension n). */
static void launch_cublas(const ml_problem *problem)
{
    const matmul_state *state = (const matmul_state *)problem->state;
    int m = (int)state->m, k = (int)state->k, n = (int)state->n;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(state->cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, state->N, n,
                             state->M, k, &zero, problem->output, n));
}

/* ---- predictions: the access model over the warps of the launch --------------------------------
 * gld_transactions counts the 32-byte sectors that global load instructions ask L1 for, hits
 * included: what the warps' addresses touch, whatever the caches then do. So it is predicted by
 * running the access model over every warp's load instructions, as the kernels issue them. */

/* A matrix read tile by tile: tile (i, j) holds rows i * tile_rows .. and columns
 * j * tile_cols .. of a rows x cols row-major matrix, and `readers` blocks (or warps) load each
 * tile. model_tile adds the cost of the load instructions that bring in tile (i, j) once. */
typedef struct tile_reads tile_reads;
struct tile_reads {
    long long rows, cols;
    long long tile_rows, tile_cols;
    double readers;
    void (*model_tile)(const tile_reads *reads, long long i, long long j, ml_global_totals *totals);
    int tile_width;             /* tiled: threads per side of the block */
};

/* Tiles whose first elements lie a multiple of 32 floats (one 128-byte line) apart touch the same
 * pattern of sectors, so they cost the same if both lie wholly inside the matrix. Tile origins
 * step by tile_rows * cols floats down and tile_cols across, and x * step modulo 32 repeats
 * with period 32 / gcd(step, 32). */
static long long line_period(long long step_floats)
{
    long long gcd = 32;
    while (step_floats % gcd != 0)
        gcd /= 2;
    return 32 / gcd;
}

/* How many of 0 .. count - 1 are congruent to first modulo period. */
static double members(long long count, long long first, long long period)
{
    return count > first ? (double)((count - 1 - first) / period + 1) : 0.0;
}

/* Sums the cost of every tile load of the launch. The tiles short of the last row and column of
 * tiles lie inside the matrix: they are modelled once per residue class; the last row and column
 * (which may stick out of the matrix) the same way, along their length. */
static void add_tile_reads(const tile_reads *reads, ml_global_totals *totals)
{
    long long tiles_i = ml_ceil_div(reads->rows, reads->tile_rows);
    long long tiles_j = ml_ceil_div(reads->cols, reads->tile_cols);
    long long period_i = line_period(reads->tile_rows * reads->cols);
    long long period_j = line_period(reads->tile_cols);
    /* Class c < period: the inner tiles congruent to c; class `period`: the last tile. */
    for (long long ci = 0; ci <= period_i; ci++) {
        double count_i = ci < period_i ? members(tiles_i - 1, ci, period_i) : 1.0;
        long long i = ci < period_i ? ci : tiles_i - 1;
        for (long long cj = 0; cj <= period_j && count_i > 0; cj++) {
            double count_j = cj < period_j ? members(tiles_j - 1, cj, period_j) : 1.0;
            long long j = cj < period_j ? cj : tiles_j - 1;
            if (count_j == 0)
                continue;
            ml_global_totals one = {0};
            reads->model_tile(reads, i, j, &one);
            ml_global_totals_add_scaled(totals, &one, count_i * count_j * reads->readers);
        }
    }
}

/* naive, M: at each step of its loop a warp's lanes all read one element of M (the warp lies in
 * one row of P): one sector, whichever lanes are active. A "tile" is that one element. */
static void model_naive_m(const tile_reads *reads, long long i, long long j, ml_global_totals *totals)
{
    ml_warp_access access;
    ml_warp_access_strided(&access, (uint64_t)(i * reads->cols + j) * sizeof(float), 0,
                           sizeof(float), ML_ALL_LANES);
    ml_global_totals_add(totals, &access, 1.0);
}

/* naive, N: a warp reads 32 consecutive elements of row i of N, columns 32j .., those < n. */
static void model_naive_n(const tile_reads *reads, long long i, long long j, ml_global_totals *totals)
{
    ml_warp_access access;
    long long first = j * NAIVE_BLOCK_WIDTH;
    ml_warp_access_strided(&access, (uint64_t)(i * reads->cols + first) * sizeof(float),
                           sizeof(float), sizeof(float), ml_first_lanes(reads->cols - first));
    ml_global_totals_add(totals, &access, 1.0);
}

/* tiled: thread (ty, tx) of the block loads element (i * T + ty, j * T + tx) if it lies inside
 * the matrix; a warp is 32 consecutive threads in row-major order (two rows of a 16-wide
 * block, one row of a 32-wide one). The same shape holds for M (i: block row, j: phase) and
 * for N (i: phase, j: block column). */
static void model_tiled_tile(const tile_reads *reads, long long i, long long j,
                             ml_global_totals *totals)
{
    int width = reads->tile_width;
    for (int warp = 0; warp < width * width / ML_WARP_SIZE; warp++) {
        ml_warp_access access = {{0}, 0, (unsigned)sizeof(float)};
        for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
            int thread = warp * ML_WARP_SIZE + lane;
            long long row = i * width + thread / width, col = j * width + thread % width;
            if (row < reads->rows && col < reads->cols) {
                access.active_mask |= 1u << lane;
                access.address[lane] = (uint64_t)(row * reads->cols + col) * sizeof(float);
            }
        }
        ml_global_totals_add(totals, &access, 1.0);
    }
}

/* coarsened: thread t loads four consecutive elements at row i * tile_rows + t / (tile_cols / 4),
 * column j * tile_cols + (t % (tile_cols / 4)) * 4: one 16-byte load when the tile lies inside
 * the matrix and rows are 16-byte aligned (cols % 4 == 0), else four 4-byte loads, each only
 * where its element lies inside (a thread whose row is outside loads nothing). */
static void model_coarsened_tile(const tile_reads *reads, long long i, long long j,
                                 ml_global_totals *totals)
{
    long long per_row = reads->tile_cols / 4;
    int inside = (i + 1) * reads->tile_rows <= reads->rows &&
                 (j + 1) * reads->tile_cols <= reads->cols && reads->cols % 4 == 0;
    for (int warp = 0; warp < CO_THREADS / ML_WARP_SIZE; warp++) {
        for (int element = 0; element < (inside ? 1 : 4); element++) {
            ml_warp_access access = {{0}, 0, (unsigned)((inside ? 4 : 1) * sizeof(float))};
            for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
                int thread = warp * ML_WARP_SIZE + lane;
                long long row = i * reads->tile_rows + thread / per_row;
                long long col = j * reads->tile_cols + (thread % per_row) * 4 + element;
                if (row < reads->rows && col < reads->cols) {
                    access.active_mask |= 1u << lane;
                    access.address[lane] = (uint64_t)(row * reads->cols + col) * sizeof(float);
                }
            }
            ml_global_totals_add(totals, &access, 1.0);
        }
    }
}

/* The shared loads' counter counts more than the loads make. Past one wave of blocks (more
 * blocks than the GPU holds at once) a block starts when an earlier one ends, out of step with
 * the blocks beside it on its SM, and their loads wait while it stores its tiles: the counter
 * counts each wait as one more load wavefront. No instruction makes them (ncu's counts by
 * instruction, "L1 Wavefronts Shared", equal the model's; only the total is higher), and a
 * block's waits do not grow with its phases; lab 05's transposes show the same residue. Within
 * one wave the counter reads the model's count. So past one wave the prediction is a range,
 * from the loads' wavefronts up to one more for each 128 bytes of the tiles a block stores in a
 * phase (16 for tiled16, 64 for tiled32 and coarsened). The runs behind the bound are in the
 * instructor notes. */
#define SHARED_WAITS_REASON "past one wave of blocks, blocks storing their tiles make the loads " \
                            "of the blocks beside them wait, and the counter counts the waits: " \
                            "bounded at a wavefront a block for each 128 bytes of a phase's " \
                            "tiles (none in one wave)"

static void predict_shared_loads(ml_prediction *prediction, long long m, long long n,
                                 long long k, const block_tile *tile, long long tile_k,
                                 int blocks_per_sm, double wavefronts_per_phase)
{
    double blocks = (double)ml_ceil_div(m, tile->rows) * (double)ml_ceil_div(n, tile->cols);
    double loads = blocks * (double)ml_ceil_div(k, tile_k) * wavefronts_per_phase;
    double tile_bytes = (double)(tile->rows + tile->cols) * (double)tile_k * sizeof(float);
    double wave = (double)ml_model_gpu()->sm_count * blocks_per_sm;
    if (blocks <= wave)
        ml_predict(prediction, "shared_load_transactions", loads);
    else
        ml_predict_range(prediction, "shared_load_transactions", loads,
                         loads + blocks * tile_bytes / (ML_SHARED_BANKS * ML_BANK_BYTES),
                         SHARED_WAITS_REASON);
}

/* tiled, the shared-load wavefronts of one phase of a block, as the compiler emits the loads:
 * Ms[ty][i .. i+3] with one 16-byte load, a row of Ms being contiguous and aligned, and
 * Ns[i][tx] with one 4-byte load per i (test_shared_tiling_sass.sh checks the SASS). Every warp
 * of every block runs every phase. */
static double tiled_shared_phase(int width)
{
    ml_shared_totals per_phase = {0};
    for (int warp = 0; warp < width * width / ML_WARP_SIZE; warp++) {
        ml_warp_access ms_read = {{0}, ML_ALL_LANES, 4 * (unsigned)sizeof(float)};
        ml_warp_access ns_read = {{0}, ML_ALL_LANES, (unsigned)sizeof(float)};
        for (int i = 0; i < width; i++) {
            for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
                int thread = warp * ML_WARP_SIZE + lane, ty = thread / width, tx = thread % width;
                ms_read.address[lane] = (uint64_t)(ty * width + i / 4 * 4) * sizeof(float);
                ns_read.address[lane] = (uint64_t)(width * width + i * width + tx) * sizeof(float);
            }
            if (i % 4 == 0)
                ml_shared_totals_add(&per_phase, &ms_read, 1.0);
            ml_shared_totals_add(&per_phase, &ns_read, 1.0);
        }
    }
    return per_phase.wavefronts;
}

/* coarsened, the shared-load wavefronts of one phase of a block: four 16-byte loads per step of
 * its 8: a thread's first and second group of 4 values of a column of the (transposed) M tile
 * and of a row of the N tile, the threads laid out as shared_tiling.h says. */
static double coarsened_shared_phase(void)
{
    const uint64_t ns_base = CO_TILE_K * CO_TILE_M * sizeof(float);
    ml_shared_totals per_phase = {0};
    for (int warp = 0; warp < CO_THREADS / ML_WARP_SIZE; warp++) {
        for (int step = 0; step < CO_TILE_K; step++) {
            for (int half = 0; half < 2; half++) {
                ml_warp_access ms_read = {{0}, ML_ALL_LANES, 4 * (unsigned)sizeof(float)};
                ml_warp_access ns_read = {{0}, ML_ALL_LANES, 4 * (unsigned)sizeof(float)};
                for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
                    int ty = co_thread_ty(warp, lane), tx = co_thread_tx(warp, lane);
                    ms_read.address[lane] =
                        (uint64_t)(step * CO_TILE_M + half * CO_HALF + ty * 4) * sizeof(float);
                    ns_read.address[lane] = ns_base + (uint64_t)(step * CO_TILE_N + half * CO_HALF +
                                                                 tx * 4) * sizeof(float);
                }
                ml_shared_totals_add(&per_phase, &ms_read, 1.0);
                ml_shared_totals_add(&per_phase, &ns_read, 1.0);
            }
        }
    }
    return per_phase.wavefronts;
}

static double whole_sectors(double bytes)
{
    return ceil(bytes / ML_SECTOR_BYTES) * ML_SECTOR_BYTES;
}

/* The share of N that `blocks` blocks consecutive in the grid read: the block columns they
 * cover, out of all of them. */
static double share_of_n(long long blocks, long long block_columns)
{
    return (double)(blocks < block_columns ? blocks : block_columns) / (double)block_columns;
}

/* DRAM bytes read, from the model GPU's L2 (flushed before every run), with M and N in whole
 * sectors. While M and N fit in the L2 together, each is read once: a point. Once N alone is
 * the L2's size or more, N is read again, by kernel:
 *   the tiled kernels (in_step_blocks_per_sm 0) read it once per block row (a strip of P's
 *   rows): a point;
 *   naive and coarsened (in_step_blocks_per_sm: the blocks an SM holds) read it once per wave:
 *   the blocks resident together (SMs x blocks per SM, in grid order, block columns fastest)
 *   read each slab of N at about the same time, so the L2 serves all but the first of them.
 *   A wave reads the share of N its blocks' columns cover, all of it for a full wave of at
 *   least a block row. That is the low end of a range whose high end reads N once more, as the
 *   waves' blocks fall out of step.
 * Between the two (M and N over the L2, N alone under it), a range from once to the high end
 * for a larger N. The instructor notes compare these predictions with measured bytes. To each,
 * ml_predict_dram_reads adds what every launch reads besides its data: the kernel's machine
 * code and constants (the L2 flush leaves them in DRAM: 2 KB for tiled16 to 17.5 KB for
 * coarsened on sm_90, the larger part of what a small multiply reads) and page-table walks.
 *
 * partial_store_bytes: the bytes of P a kernel writes with 4-byte stores at a 16-byte lane stride
 * (coarsened's guarded stores: all of P when n % 4 != 0, else its edge blocks'). Each such
 * store fills a quarter of each 16 bytes, so P's sectors stay partly written until the fourth.
 * Measured, the DRAM then reads more than the model's data, by up to a few percent of P's bytes
 * and by a different amount each run, where tiled16 at the same sizes, with whole stores, reads
 * exactly the data (the instructor notes of lab 02 have the runs). The L2 seems to fetch some
 * partly written sectors to merge them; which, and when, the model cannot know: up to
 * PARTIAL_STORE_READ_SHARE of those bytes more. */
#define PARTIAL_STORE_READ_SHARE 0.04

static void predict_dram_reads(const ml_problem *problem, long long m, long long k, long long n,
                               const block_tile *tile, int in_step_blocks_per_sm,
                               double partial_store_bytes, ml_prediction *prediction)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    double m_bytes = whole_sectors((double)m * k * sizeof(float));
    double n_bytes = whole_sectors((double)k * n * sizeof(float));
    double once = m_bytes + n_bytes;
    long long block_rows = ml_ceil_div(m, tile->rows), block_columns = ml_ceil_div(n, tile->cols);
    double outgrown_low, outgrown_high;
    if (in_step_blocks_per_sm > 0) {
        long long wave = (long long)gpu->sm_count * in_step_blocks_per_sm;
        long long blocks = block_rows * block_columns;
        double n_reads = (double)(blocks / wave) * share_of_n(wave, block_columns) +
                         share_of_n(blocks % wave, block_columns);
        outgrown_low = m_bytes + n_reads * n_bytes;
        outgrown_high = outgrown_low + n_bytes;
    } else {
        outgrown_low = outgrown_high = m_bytes + n_bytes * (double)block_rows;
    }
    double span = m_bytes + n_bytes + whole_sectors((double)m * n * sizeof(float));
    double low = outgrown_low, high = outgrown_low;
    const char *reason = NULL;
    if (once <= gpu->l2_bytes) {
        low = high = once;
    } else if (n_bytes < gpu->l2_bytes) {
        low = once;
        high = outgrown_high;
        reason = "M and N outgrow the L2 but N alone does not: N is read from once to as often "
                 "as if it outgrew the L2 too";
    } else if (in_step_blocks_per_sm > 0) {
        high = outgrown_high;
        reason = "N is read once per wave of resident blocks, and up to once more as the waves' "
                 "blocks fall out of step";
    }
    if (partial_store_bytes > 0) {
        high += PARTIAL_STORE_READ_SHARE * partial_store_bytes;
        /* Short: the report keeps 255 characters, and the floor's reason follows. */
        reason = reason != NULL ? "N as the L2 allows, and up to 4% of P's 4-byte-stored bytes "
                                  "(partly written sectors)"
                                : "M and N once, and up to 4% of P's 4-byte-stored bytes (partly "
                                  "written sectors)";
    }
    ml_predict_dram_reads(prediction, problem, low, high, span, reason);
}

static void predict_loads(const ml_global_totals *loads, ml_prediction *prediction)
{
    ml_predict(prediction, "gld_transactions", loads->sectors);
    ml_predict(prediction, "gld_requests", loads->requests);
    ml_predict(prediction, "gld_bytes", loads->used_bytes);
}

static void predict_naive(const ml_problem *problem, ml_prediction *prediction)
{
    matmul_state sizes = matmul_sizes(problem);
    long long m = sizes.m, k = sizes.k, n = sizes.n;
    /* Warps of rows outside P do nothing; each of the ceil(n / 32) warps of a row of P reads
     * all of that row of M, and together they read all of N once per row of P. */
    tile_reads m_reads = {m, k, 1, 1, (double)ml_ceil_div(n, NAIVE_BLOCK_WIDTH), model_naive_m, 0};
    tile_reads n_reads = {k, n, 1, NAIVE_BLOCK_WIDTH, (double)m, model_naive_n, 0};
    ml_global_totals loads = {0};
    add_tile_reads(&m_reads, &loads);
    add_tile_reads(&n_reads, &loads);
    predict_loads(&loads, prediction);
    /* With no shared memory and few registers, only threads bound naive's blocks per SM. */
    int blocks_per_sm = ml_model_gpu()->threads_per_sm / (NAIVE_BLOCK_WIDTH * NAIVE_BLOCK_WIDTH);
    predict_dram_reads(problem, m, k, n, ML_CONSTANTS(block_tile, problem), blocks_per_sm, 0,
                       prediction);
}

static void predict_tiled(const ml_problem *problem, ml_prediction *prediction)
{
    matmul_state sizes = matmul_sizes(problem);
    long long m = sizes.m, k = sizes.k, n = sizes.n;
    int width = (int)ML_CONSTANTS(block_tile, problem)->rows;
    /* Each M tile is loaded by every block of its block row, each N tile by every block of its
     * block column. */
    tile_reads m_reads = {m, k, width, width, (double)ml_ceil_div(n, width), model_tiled_tile,
                          width};
    tile_reads n_reads = {k, n, width, width, (double)ml_ceil_div(m, width), model_tiled_tile,
                          width};
    ml_global_totals loads = {0};
    add_tile_reads(&m_reads, &loads);
    add_tile_reads(&n_reads, &loads);
    predict_loads(&loads, prediction);
    /* Blocks not in step: N again per block row. */
    predict_dram_reads(problem, m, k, n, ML_CONSTANTS(block_tile, problem), 0, 0, prediction);
    /* Only threads bound the tiled kernels' blocks per SM (their tiles are a few KiB). */
    predict_shared_loads(prediction, m, n, k, ML_CONSTANTS(block_tile, problem), width,
                         ml_model_gpu()->threads_per_sm / (width * width),
                         tiled_shared_phase(width));
}

static void predict_coarsened(const ml_problem *problem, ml_prediction *prediction)
{
    matmul_state sizes = matmul_sizes(problem);
    long long m = sizes.m, k = sizes.k, n = sizes.n;
    tile_reads m_reads = {m, k, CO_TILE_M, CO_TILE_K, (double)ml_ceil_div(n, CO_TILE_N),
                          model_coarsened_tile, 0};
    tile_reads n_reads = {k, n, CO_TILE_K, CO_TILE_N, (double)ml_ceil_div(m, CO_TILE_M),
                          model_coarsened_tile, 0};
    ml_global_totals loads = {0};
    add_tile_reads(&m_reads, &loads);
    add_tile_reads(&n_reads, &loads);
    predict_loads(&loads, prediction);
    /* P's 4-byte stores: all of it when its rows are not 16-byte aligned, else the last block
     * row's and block column's, which hold P's edges. */
    double p_bytes = (double)m * n * sizeof(float), partial_store_bytes = p_bytes;
    if (n % 4 == 0) {
        long long inner_rows = m / CO_TILE_M * CO_TILE_M, inner_cols = n / CO_TILE_N * CO_TILE_N;
        partial_store_bytes = p_bytes - (double)inner_rows * inner_cols * sizeof(float);
    }
    predict_dram_reads(problem, m, k, n, ML_CONSTANTS(block_tile, problem), CO_BLOCKS_PER_SM,
                       partial_store_bytes, prediction);
    predict_shared_loads(prediction, m, n, k, ML_CONSTANTS(block_tile, problem), CO_TILE_K,
                         CO_BLOCKS_PER_SM, coarsened_shared_phase());
}

/* ---- CPU reference, buffers ------------------------------------------------------------------- */

/* Up to this many multiply-adds the reference computes all of P; beyond, a sample of it. */
#define FULL_REFERENCE_MULTIPLY_ADDS (1ll << 27)
/* A sample is every element where SAMPLE_LINES rows meet SAMPLE_LINES columns of P. */
#define SAMPLE_LINES 64

static double device_bytes(const ml_problem *problem)
{
    matmul_state sizes = matmul_sizes(problem);
    double m = (double)sizes.m, k = (double)sizes.k, n = (double)sizes.n;
    return (m * k + k * n + m * n) * sizeof(float);
}

/* Every variant reads M and N once and writes P once, in 2 m n k flops. */
static double bytes_read(const ml_problem *problem)
{
    matmul_state sizes = matmul_sizes(problem);
    return (double)(sizes.m * sizes.k + sizes.k * sizes.n) * sizeof(float);
}

static double bytes_written(const ml_problem *problem)
{
    matmul_state sizes = matmul_sizes(problem);
    return (double)(sizes.m * sizes.n) * sizeof(float);
}

static double flops(const ml_problem *problem)
{
    matmul_state sizes = matmul_sizes(problem);
    return 2.0 * (double)sizes.m * (double)sizes.n * (double)sizes.k;
}

/* N's values come from the seed after M's, so the two matrices are independent. */
static uint64_t seed_of_n(uint64_t seed)
{
    return seed + 1;
}

/* The rows (or columns) of P the reference covers: all `count` of them, or the first, the last
 * and SAMPLE_LINES - 2 drawn from the seed. Returns how many were chosen. */
static long long choose_lines(long long count, int all, uint64_t seed, long long *lines)
{
    if (all || count <= SAMPLE_LINES) {
        for (long long i = 0; i < count; i++)
            lines[i] = i;
        return count;
    }
    lines[0] = 0;
    lines[1] = count - 1;
    for (long long i = 2; i < SAMPLE_LINES; i++) {
        /* In [0, 1) in steps of 2^-24: every one of up to 1,000,000 lines can be drawn. */
        double unit = (ml_random_value(seed, (uint64_t)i) + 1.0) / 2.0;
        lines[i] = (long long)(unit * (double)count);
    }
    return SAMPLE_LINES;
}

/* The output, and its reference (double accumulation) for the chosen rows and columns of P;
 * for a sample, also the index in P of each reference value. */
static void expect_output(ml_problem *problem, double tolerance)
{
    const matmul_state *state = (const matmul_state *)problem->state;
    long long m = state->m, k = state->k, n = state->n;
    int all = (double)m * n * k <= (double)FULL_REFERENCE_MULTIPLY_ADDS;
    long long row_capacity = all || m <= SAMPLE_LINES ? m : SAMPLE_LINES;
    long long col_capacity = all || n <= SAMPLE_LINES ? n : SAMPLE_LINES;
    long long *rows = (long long *)ml_host_alloc((size_t)row_capacity * sizeof *rows);
    long long *cols = (long long *)ml_host_alloc((size_t)col_capacity * sizeof *cols);
    long long row_count = choose_lines(m, all, problem->seed ^ 0x5EED0F0055ull, rows);
    long long col_count = choose_lines(n, all, problem->seed ^ 0x5EED0FC011ull, cols);

    /* The chosen rows of M and columns of N, recomputed from the seeds like the GPU's fill;
     * a column of N is stored contiguously for the dot products. */
    float *m_rows = (float *)ml_host_alloc((size_t)(row_count * k) * sizeof(float));
    float *n_cols = (float *)ml_host_alloc((size_t)(col_count * k) * sizeof(float));
#pragma omp parallel for
    for (long long r = 0; r < row_count; r++)
        for (long long i = 0; i < k; i++)
            m_rows[r * k + i] = ml_random_value(problem->seed, (uint64_t)(rows[r] * k + i));
#pragma omp parallel for
    for (long long c = 0; c < col_count; c++)
        for (long long i = 0; i < k; i++)
            n_cols[c * k + i] = ml_random_value(seed_of_n(problem->seed), (uint64_t)(i * n + cols[c]));

    size_t count = (size_t)(row_count * col_count);
    if (row_count < m || col_count < n)
        ml_expect_sampled_output(problem, (size_t)(m * n), count, tolerance);
    else
        ml_expect_output(problem, ML_OUTPUT_WRITTEN, count, tolerance);
    float *reference = problem->reference;
    size_t *check_index = problem->check_index;
#pragma omp parallel for
    for (long long r = 0; r < row_count; r++) {
        for (long long c = 0; c < col_count; c++) {
            double sum = 0.0;
            for (long long i = 0; i < k; i++)
                sum += (double)m_rows[r * k + i] * (double)n_cols[c * k + i];
            reference[r * col_count + c] = (float)sum;
            if (check_index != NULL)
                check_index[r * col_count + c] = (size_t)(rows[r] * n + cols[c]);
        }
    }
    free(m_rows);
    free(n_cols);
    free(rows);
    free(cols);
}

/* M and N from the seed: every element of P depends on a whole row of M and column of N. */
static void fill_inputs(ml_problem *problem)
{
    const matmul_state *state = (const matmul_state *)problem->state;
    ml_fill_random(state->M, (size_t)(state->m * state->k), problem->seed);
    ml_fill_random(state->N, (size_t)(state->k * state->n), seed_of_n(problem->seed));
}

/* Each element's dot product, its row of M and column of N recomputed from the seeds (2k values
 * of the generator per element, the larger part of the cost): no copy of an input comes back.
 * The elements are spread over the cores. */
static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    const matmul_state *state = (const matmul_state *)problem->state;
    long long k = state->k, n = state->n;
    uint64_t seed = problem->seed;
    float *reference = (float *)values;
#pragma omp parallel for
    for (size_t p = 0; p < count; p++) {
        long long row = (long long)(position[p] / (size_t)n);
        long long col = (long long)(position[p] % (size_t)n);
        double sum = 0.0;
        for (long long i = 0; i < k; i++)
            sum += (double)ml_random_value(seed, (uint64_t)(row * k + i)) *
                   (double)ml_random_value(seed_of_n(seed), (uint64_t)(i * n + col));
        reference[p] = (float)sum;
    }
}

static void setup(ml_problem *problem)
{
    matmul_state *state = (matmul_state *)problem->state;
    *state = matmul_sizes(problem);
    long long m = state->m, k = state->k, n = state->n;
    state->M = (float *)ml_device_buffer(problem, (size_t)(m * k) * sizeof(float));
    state->N = (float *)ml_device_buffer(problem, (size_t)(k * n) * sizeof(float));
    fill_inputs(problem);
    /* Each element is a sum of k products of values in [-1, 1). Summed in float one after the
     * other, each addition rounds the running sum (typically sqrt(i / 9) after i terms) by up
     * to half an FLT_EPSILON of it: a random walk whose spread is about k * FLT_EPSILON / 15,
     * less once divided by |expected| (the error is relative to max(|expected|, 1)). Simulated
     * over 20,000 dot products each for k from 9 to 16,384, the largest error was
     * 0.22 * k * FLT_EPSILON. Twice k * FLT_EPSILON leaves room for any summation order, and
     * still fails a single product dropped or counted twice (k up to tens of thousands) and
     * TF32 inputs (10-bit mantissas: errors near 2^-11 * sqrt(k) / 3). */
    expect_output(problem, 2.0 * (double)k * FLT_EPSILON);
}

/* cuBLAS needs a handle besides the buffers: the one thing of a run the harness cannot free. */
static void setup_cublas(ml_problem *problem)
{
    matmul_state *state = (matmul_state *)problem->state;
    setup(problem);
    CUBLAS_CHECK(cublasCreate(&state->cublas));
    /* The default math mode computes in FP32; TF32 tensor cores would need
     * CUBLAS_TF32_TENSOR_OP_MATH. Set explicitly so the ceiling is a like-for-like one. */
    CUBLAS_CHECK(cublasSetMathMode(state->cublas, CUBLAS_DEFAULT_MATH));
}

static void teardown_cublas(ml_problem *problem)
{
    CUBLAS_CHECK(cublasDestroy(((matmul_state *)problem->state)->cublas));
}

const ml_family naive_matmul = {
    .name = "naive_matmul", .state_bytes = sizeof(matmul_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_kernel, .predict = predict_naive, .bytes_read = bytes_read,
    .bytes_written = bytes_written, .flops = flops,
};
const ml_family tiled_matmul = {
    .name = "tiled_matmul", .state_bytes = sizeof(matmul_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_kernel, .predict = predict_tiled, .bytes_read = bytes_read,
    .bytes_written = bytes_written, .flops = flops,
};
const ml_family coarsened_matmul = {
    .name = "coarsened_matmul", .state_bytes = sizeof(matmul_state), .device_bytes = device_bytes,
    .setup = setup, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_kernel, .predict = predict_coarsened, .bytes_read = bytes_read,
    .bytes_written = bytes_written, .flops = flops,
};
const ml_family cublas_sgemm = {
    .name = "cublas_sgemm", .state_bytes = sizeof(matmul_state), .device_bytes = device_bytes,
    .setup = setup_cublas, .fill_inputs = fill_inputs, .reference_at = reference_at,
    .launch = launch_cublas, .bytes_read = bytes_read, .bytes_written = bytes_written,
    .flops = flops, .teardown = teardown_cublas,
};

static const ml_lab lab = {
    .program = "shared_tiling",
    .title = "Lab 02: shared-memory tiling, a matrix multiply of any shape",
    .params = params,
    .num_params = ML_COUNT(params),
    .variants = variants,
    .num_variants = ML_COUNT(variants),
    .flops_ceiling = "cublas",
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
