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

enum { PARAM_M, PARAM_K, PARAM_N, PARAM_COUNT };

/* 1,000,000 keeps every grid within CUDA's 65,535 blocks in y (rows of P / 16). The default,
 * 3072, keeps a first run short: gld_bytes is counted by instrumenting every load, which makes
 * the profiled launches much longer than the timed ones. */
static const ml_param params[PARAM_COUNT] = {
    {"m", 3072, 1, 1000000, "rows of M and of P"},
    {"k", 3072, 1, 1000000, "columns of M, rows of N: the length of each dot product"},
    {"n", 3072, 1, 1000000, "columns of N and of P"},
};

/* ---- the variant table ------------------------------------------------------------------------ */

static void launch_naive(const ml_problem *problem);
static void launch_tiled(const ml_problem *problem);
static void launch_coarsened(const ml_problem *problem);
static void launch_cublas(const ml_problem *problem);
static void predict_naive(long long argument, const long long *param, ml_prediction *prediction);
static void predict_tiled(long long tile_width, const long long *param, ml_prediction *prediction);
static void predict_coarsened(long long argument, const long long *param,
                              ml_prediction *prediction);

#define NAIVE_METRICS "gld_transactions,gld_requests,gld_bytes,dram_read_bytes"
#define TILED_METRICS \
    "gld_transactions,gld_requests,gld_bytes,shared_load_transactions,dram_read_bytes"

/* What each variant does, not what it measures to: the handout asks for that. The tiled
 * variants' argument is the tile width (threads per side of the block). cublas is a library
 * call, no kernel of kernels.cu; it is the ceiling, not a lesson: no counters and no prediction
 * (for some shapes it launches two kernels, and the profiler reads exactly one per range). */
static const ml_variant variants[] = {
    {.name = "naive", .summary = "one thread per P element, both operands read from global memory",
     .kernel = "matmul_naive", .block = {NAIVE_BLOCK_WIDTH, NAIVE_BLOCK_WIDTH},
     .launch = launch_naive, .metrics = NAIVE_METRICS, .predict = predict_naive},
    {.name = "tiled16", .summary = "16 x 16 tiles of M and N in shared memory, two barriers per phase",
     .kernel = "matmul_tiled16", .block = {16, 16}, .launch = launch_tiled, .argument = 16,
     .metrics = TILED_METRICS, .predict = predict_tiled},
    {.name = "tiled32", .summary = "the same kernel with 32 x 32 tiles",
     .kernel = "matmul_tiled32", .block = {32, 32}, .launch = launch_tiled, .argument = 32,
     .metrics = TILED_METRICS, .predict = predict_tiled},
    {.name = "coarsened", .summary = "instructor extension: 128 x 128 tiles of P, 8 x 8 results per thread",
     .kernel = "matmul_coarsened", .block = {CO_THREADS}, .launch = launch_coarsened,
     .metrics = TILED_METRICS, .predict = predict_coarsened},
    {.name = "cublas", .summary = "cuBLAS SGEMM, FP32 without TF32: the FLOP/s ceiling",
     .launch = launch_cublas},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

/* ---- launches --------------------------------------------------------------------------------- */

typedef struct {
    float *M, *N;
    cublasHandle_t cublas;      /* the cublas variant's handle; NULL for the others */
} lab_state;

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

/* Each launch is what kernel<<<grid, block>>>(arguments) would be if the program linked
 * kernels.cu; ml_launch runs the variant's kernel, found by name in the loaded kernels file,
 * with the block of its table entry. Every kernel takes (M, N, P, m, k, n). */
static void launch_naive(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    int m = (int)problem->param[PARAM_M], k = (int)problem->param[PARAM_K];
    int n = (int)problem->param[PARAM_N];
    dim3 grid((unsigned)ml_ceil_div(n, NAIVE_BLOCK_WIDTH),
              (unsigned)ml_ceil_div(m, NAIVE_BLOCK_WIDTH));
    /* matmul_naive<<<grid, block>>>(M, N, P, m, k, n), block 32 x 32 */
    void *arguments[] = {(void *)&state->M, (void *)&state->N, (void *)&problem->output,
                         &m, &k, &n};
    ml_launch(problem, grid, 0, arguments);
}

/* The argument is the tile width: a block of tile_width x tile_width threads per tile of P. */
static void launch_tiled(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    int m = (int)problem->param[PARAM_M], k = (int)problem->param[PARAM_K];
    int n = (int)problem->param[PARAM_N];
    long long tile_width = problem->argument;
    dim3 grid((unsigned)ml_ceil_div(n, tile_width), (unsigned)ml_ceil_div(m, tile_width));
    /* matmul_tiled16<<<grid, block>>>(M, N, P, m, k, n), block 16 x 16, or
     * matmul_tiled32<<<grid, block>>>(M, N, P, m, k, n), block 32 x 32 */
    void *arguments[] = {(void *)&state->M, (void *)&state->N, (void *)&problem->output,
                         &m, &k, &n};
    ml_launch(problem, grid, 0, arguments);
}

static void launch_coarsened(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    int m = (int)problem->param[PARAM_M], k = (int)problem->param[PARAM_K];
    int n = (int)problem->param[PARAM_N];
    dim3 grid((unsigned)ml_ceil_div(n, CO_TILE_N), (unsigned)ml_ceil_div(m, CO_TILE_M));
    /* matmul_coarsened<<<grid, CO_THREADS>>>(M, N, P, m, k, n) */
    void *arguments[] = {(void *)&state->M, (void *)&state->N, (void *)&problem->output,
                         &m, &k, &n};
    ml_launch(problem, grid, 0, arguments);
}

/* cuBLAS is column-major. A row-major matrix read as column-major is its transpose, so the
 * row-major P = M N is the column-major P^T = N^T M^T: cuBLAS multiplies "N" (n x k, leading
 * dimension n) by "M" (k x m, leading dimension k) into "P" (n x m, leading dimension n). */
static void launch_cublas(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    int m = (int)problem->param[PARAM_M], k = (int)problem->param[PARAM_K];
    int n = (int)problem->param[PARAM_N];
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

/* tiled, shared loads of one phase, as the compiler emits them: Ms[ty][i .. i+3] with one
 * 16-byte load, a row of Ms being contiguous and aligned, and Ns[i][tx] with one 4-byte load
 * per i (test_shared_tiling_sass.sh checks the SASS). Every warp of every block runs every
 * phase. */
static double predict_tiled_shared(long long m, long long k, long long n, int width)
{
    double blocks = (double)ml_ceil_div(m, width) * (double)ml_ceil_div(n, width);
    double phases = (double)ml_ceil_div(k, width);
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
    return blocks * phases * per_phase.wavefronts;
}

/* coarsened, shared loads of one phase: four 16-byte loads per step of its 8: a thread's two
 * halves of 4 values of a column of the (transposed) M tile and of a row of the N tile, the
 * threads laid out as shared_tiling.h says. */
static double predict_coarsened_shared(long long m, long long k, long long n)
{
    double blocks = (double)ml_ceil_div(m, CO_TILE_M) * (double)ml_ceil_div(n, CO_TILE_N);
    double phases = (double)ml_ceil_div(k, CO_TILE_K);
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
    return blocks * phases * per_phase.wavefronts;
}

/* DRAM bytes read, from the model GPU's L2 capacity, between two bounds: M and N once (the L2
 * is flushed before every run), and M once with N once per block row (a strip of P's rows).
 * The prediction is the lower bound while M and N together are at most a third of the L2
 * (naive and tiled), the upper bound for the tiled kernels once N alone is the L2's size or
 * more, and the range between the two otherwise and always for coarsened. The instructor
 * notes compare these predictions with measured bytes. */
typedef enum { READS_NAIVE, READS_TILED, READS_COARSENED } read_pattern;

static double whole_sectors(double bytes)
{
    return ceil(bytes / ML_SECTOR_BYTES) * ML_SECTOR_BYTES;
}

static void predict_dram_reads(long long m, long long k, long long n, long long block_rows,
                               read_pattern pattern, ml_prediction *prediction)
{
    double m_bytes = whole_sectors((double)m * k * sizeof(float));
    double n_bytes = whole_sectors((double)k * n * sizeof(float));
    double l2_bytes = ml_model_gpu()->l2_bytes;
    double once = m_bytes + n_bytes, per_block_row = m_bytes + n_bytes * (double)block_rows;
    if (pattern != READS_COARSENED && once <= l2_bytes / 3)
        ml_predict(prediction, "dram_read_bytes", once);
    else if (pattern == READS_TILED && n_bytes >= l2_bytes)
        ml_predict(prediction, "dram_read_bytes", per_block_row);
    else
        ml_predict_range(prediction, "dram_read_bytes", once, per_block_row,
                         "M and N are over a third of the L2: each block row reads again what "
                         "the L2 no longer holds of N, from none of it to all of it");
}

static void predict_loads(const ml_global_totals *loads, ml_prediction *prediction)
{
    ml_predict(prediction, "gld_transactions", loads->sectors);
    ml_predict(prediction, "gld_requests", loads->requests);
    ml_predict(prediction, "gld_bytes", loads->used_bytes);
}

static void predict_naive(long long argument, const long long *param, ml_prediction *prediction)
{
    (void)argument;
    long long m = param[PARAM_M], k = param[PARAM_K], n = param[PARAM_N];
    /* Warps of rows outside P do nothing; each of the ceil(n / 32) warps of a row of P reads
     * all of that row of M, and together they read all of N once per row of P. */
    tile_reads m_reads = {m, k, 1, 1, (double)ml_ceil_div(n, NAIVE_BLOCK_WIDTH), model_naive_m, 0};
    tile_reads n_reads = {k, n, 1, NAIVE_BLOCK_WIDTH, (double)m, model_naive_n, 0};
    ml_global_totals loads = {0};
    add_tile_reads(&m_reads, &loads);
    add_tile_reads(&n_reads, &loads);
    predict_loads(&loads, prediction);
    predict_dram_reads(m, k, n, ml_ceil_div(m, NAIVE_BLOCK_WIDTH), READS_NAIVE, prediction);
}

static void predict_tiled(long long tile_width, const long long *param, ml_prediction *prediction)
{
    long long m = param[PARAM_M], k = param[PARAM_K], n = param[PARAM_N];
    int width = (int)tile_width;
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
    predict_dram_reads(m, k, n, ml_ceil_div(m, width), READS_TILED, prediction);
    ml_predict(prediction, "shared_load_transactions", predict_tiled_shared(m, k, n, width));
}

static void predict_coarsened(long long argument, const long long *param,
                              ml_prediction *prediction)
{
    (void)argument;
    long long m = param[PARAM_M], k = param[PARAM_K], n = param[PARAM_N];
    tile_reads m_reads = {m, k, CO_TILE_M, CO_TILE_K, (double)ml_ceil_div(n, CO_TILE_N),
                          model_coarsened_tile, 0};
    tile_reads n_reads = {k, n, CO_TILE_K, CO_TILE_N, (double)ml_ceil_div(m, CO_TILE_M),
                          model_coarsened_tile, 0};
    ml_global_totals loads = {0};
    add_tile_reads(&m_reads, &loads);
    add_tile_reads(&n_reads, &loads);
    predict_loads(&loads, prediction);
    predict_dram_reads(m, k, n, ml_ceil_div(m, CO_TILE_M), READS_COARSENED, prediction);
    ml_predict(prediction, "shared_load_transactions", predict_coarsened_shared(m, k, n));
}

/* ---- CPU reference, buffers ------------------------------------------------------------------- */

/* Up to this many multiply-adds the reference computes all of P; beyond, a sample of it. */
#define FULL_REFERENCE_MULTIPLY_ADDS (1ll << 27)
/* A sample is every element where SAMPLE_LINES rows meet SAMPLE_LINES columns of P. */
#define SAMPLE_LINES 64

static double device_bytes(const ml_variant *variant, const long long *param)
{
    (void)variant;
    double m = (double)param[PARAM_M], k = (double)param[PARAM_K], n = (double)param[PARAM_N];
    return (m * k + k * n + m * n) * sizeof(float);
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

/* Fills the reference (double accumulation) for the chosen rows and columns of P; for a sample,
 * also the index in P of each reference value. */
static void compute_reference(ml_problem *problem)
{
    long long m = problem->param[PARAM_M], k = problem->param[PARAM_K];
    long long n = problem->param[PARAM_N];
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
    float *reference = (float *)ml_host_alloc(count * sizeof(float));
    int sampled = row_count < m || col_count < n;
    size_t *check_index = sampled ? (size_t *)ml_host_alloc(count * sizeof(size_t)) : NULL;
#pragma omp parallel for
    for (long long r = 0; r < row_count; r++) {
        for (long long c = 0; c < col_count; c++) {
            double sum = 0.0;
            for (long long i = 0; i < k; i++)
                sum += (double)m_rows[r * k + i] * (double)n_cols[c * k + i];
            reference[r * col_count + c] = (float)sum;
            if (sampled)
                check_index[r * col_count + c] = (size_t)(rows[r] * n + cols[c]);
        }
    }
    free(m_rows);
    free(n_cols);
    free(rows);
    free(cols);
    problem->reference = reference;
    problem->check_index = check_index;
    problem->check_count = sampled ? count : 0;
}

/* M and N from the seed: every element of P depends on a whole row of M and column of N. */
static void fill_inputs(ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    long long m = problem->param[PARAM_M], k = problem->param[PARAM_K];
    long long n = problem->param[PARAM_N];
    ml_fill_random(state->M, (size_t)(m * k), problem->seed);
    ml_fill_random(state->N, (size_t)(k * n), seed_of_n(problem->seed));
}

/* Each element's dot product, its row of M and column of N recomputed from the seeds (2k values
 * of the generator per element, the larger part of the cost): no copy of an input comes back.
 * The elements are spread over the cores. */
static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    long long k = problem->param[PARAM_K], n = problem->param[PARAM_N];
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
    long long m = problem->param[PARAM_M], k = problem->param[PARAM_K];
    long long n = problem->param[PARAM_N];
    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    state->M = (float *)ml_device_alloc((size_t)(m * k) * sizeof(float));
    state->N = (float *)ml_device_alloc((size_t)(k * n) * sizeof(float));
    problem->state = state;
    fill_inputs(problem);
    state->cublas = NULL;
    if (problem->variant->kernel == NULL) { /* the cublas variant: a library call, no kernel */
        CUBLAS_CHECK(cublasCreate(&state->cublas));
        /* The default math mode computes in FP32; TF32 tensor cores would need
         * CUBLAS_TF32_TENSOR_OP_MATH. Set explicitly so the ceiling is a like-for-like one. */
        CUBLAS_CHECK(cublasSetMathMode(state->cublas, CUBLAS_DEFAULT_MATH));
    }

    problem->output = (float *)ml_device_alloc((size_t)(m * n) * sizeof(float));
    problem->output_count = (size_t)(m * n);
    compute_reference(problem);
    /* Each element is a sum of k products of values in [-1, 1). Summed in float one after the
     * other, each addition rounds the running sum (typically sqrt(i / 9) after i terms) by up
     * to half an FLT_EPSILON of it: a random walk whose spread is about k * FLT_EPSILON / 15,
     * less once divided by |expected| (the error is relative to max(|expected|, 1)). Simulated
     * over 20,000 dot products each for k from 9 to 16,384, the largest error was
     * 0.22 * k * FLT_EPSILON. Twice k * FLT_EPSILON leaves room for any summation order, and
     * still fails a single product dropped or counted twice (k up to tens of thousands) and
     * TF32 inputs (10-bit mantissas: errors near 2^-11 * sqrt(k) / 3). */
    problem->tolerance = 2.0 * (double)k * FLT_EPSILON;
    problem->bytes = (double)(m * k + k * n + m * n) * sizeof(float);
    problem->flops = 2.0 * (double)m * (double)n * (double)k;
}

static void teardown(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    if (state->cublas != NULL)
        CUBLAS_CHECK(cublasDestroy(state->cublas));
    ml_device_free(state->M);
    ml_device_free(state->N);
    ml_device_free(problem->output);
    free(state);
}

static const ml_lab lab = {
    .program = "shared_tiling",
    .title = "Lab 02: shared-memory tiling, a matrix multiply of any shape",
    .params = params,
    .num_params = PARAM_COUNT,
    .variants = variants,
    .num_variants = VARIANT_COUNT,
    .device_bytes = device_bytes,
    .setup = setup,
    .teardown = teardown,
    .flops_ceiling = "cublas",
    .kernels = &ml_lab_kernels,
    .fill_inputs = fill_inputs,
    .reference_at = reference_at,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
