/* Lab 05: shared-memory banks: conflicts, padding, swizzling, broadcast. The host program (the
 * instructor's): sizes, variants, launches, the access model's predictions, the CPU reference.
 * The kernels are in kernels.cu, loaded by name (--kernels FILE runs another kernels file).
 *
 * Variants:
 *   transpose_naive     out[c][r] = in[r][c] straight through global memory
 *   transpose_shared    through a 32x32 shared tile, read down its columns
 *   transpose_padded    the tile declared [32][33]
 *   transpose_swizzled  [32][32], element (r, c) kept at tile[r][c ^ r]
 *   shared_stride       lane i reads element i * stride of --width bytes (4, 8 or 16)
 *   broadcast           all 32 lanes read the same word
 * The transposes take any --rows and --cols; GB/s counts the matrix read once and written once.
 * For shared_stride and broadcast GB/s counts the shared-memory bytes the warps read.
 *
 * Build:  ./memlab run bank_conflicts --help     (or: make -f Makefile.labs bank_conflicts)
 * Try:    bank_conflicts --variant transpose_shared --rows 16384 --cols 16384
 *         bank_conflicts --variant shared_stride --sweep stride=1:32
 *         bank_conflicts --variant shared_stride --width 16 --sweep stride=1:8
 *         bank_conflicts --model                 (predictions only, no GPU)
 */
#include "memlab.h"

/* TILE, BLOCK_ROWS, LOADS_PER_THREAD, MAX_STRIDE, BANK_ROW_BYTES, stride_vectors: shared with
 * kernels.cu. */
#include "bank_conflicts.h"

static_assert(WARP_LANES == ML_WARP_SIZE && SHARED_BANKS == ML_SHARED_BANKS &&
                  BANK_BYTES == ML_BANK_BYTES,
              "kernels.cu and the access model must agree on warps and banks");

#define TILE_THREADS (TILE * BLOCK_ROWS)

#define STRIDE_THREADS 256
#define STRIDE_BLOCKS 32768

enum { PARAM_ROWS, PARAM_COLS, PARAM_STRIDE, PARAM_WIDTH, PARAM_COUNT };

static const ml_param params[PARAM_COUNT] = {
    /* Tile rows go in gridDim.y, which stops at 65535. */
    {"rows", 8192, 1, 65535 * TILE, "transposes: rows of the input matrix (floats)"},
    {"cols", 8192, 1, 1 << 30, "transposes: columns of the input matrix (floats)"},
    {"stride", 32, 1, MAX_STRIDE, "shared_stride: lane i reads element i * stride"},
    {"width", 4, 4, 16, "shared_stride: bytes per load, 4, 8 or 16"},
};

/* ---- launches ------------------------------------------------------------------------------- */

typedef struct {
    float *in;
} lab_state;

/* Each launch is what kernel<<<grid, block>>>(arguments) would be if the program linked
 * kernels.cu; ml_launch runs the variant's kernel, found by name in the loaded kernels file.
 * The four transposes take the same arguments and the same launch. */
static void launch_transpose(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    int rows = (int)problem->param[PARAM_ROWS], cols = (int)problem->param[PARAM_COLS];
    dim3 grid(ml_blocks_for((size_t)cols, TILE), ml_blocks_for((size_t)rows, TILE));
    dim3 block(TILE, BLOCK_ROWS);
    /* transpose_..._kernel<<<grid, block>>>(in, out, rows, cols) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &rows, &cols};
    ml_launch(problem, grid, block, 0, arguments);
}

/* shared_stride and broadcast: the same kernel, broadcast at stride 0. */
static void launch_reads(const ml_problem *problem, int stride, int width_bytes)
{
    const lab_state *state = (const lab_state *)problem->state;
    /* shared_stride_kernel<<<STRIDE_BLOCKS, STRIDE_THREADS>>>((const float4 *)in, out, stride,
     *                                                        width_bytes) */
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &stride, &width_bytes};
    ml_launch(problem, STRIDE_BLOCKS, STRIDE_THREADS, 0, arguments);
}

static void launch_stride(const ml_problem *problem)
{
    launch_reads(problem, (int)problem->param[PARAM_STRIDE], (int)problem->param[PARAM_WIDTH]);
}

static void launch_broadcast(const ml_problem *problem)
{
    launch_reads(problem, 0, ML_BANK_BYTES);
}

/* ---- predictions: the access model over the warps of the launch ----------------------------- */

/* Counter totals in doubles: a 16384 x 16384 transpose makes billions of them. */
typedef struct {
    double instructions, wavefronts, conflicts;
} shared_totals;

static void add_shared(shared_totals *totals, const ml_warp_access *access, double repeat)
{
    ml_shared_cost cost = ml_model_shared(access);
    totals->instructions += repeat * cost.requests;
    totals->wavefronts += repeat * cost.wavefronts;
    totals->conflicts += repeat * cost.bank_conflicts;
}

/* Lanes 0 .. count - 1 (count <= 32). */
static uint32_t first_lanes(unsigned count)
{
    return count >= ML_WARP_SIZE ? ML_ALL_LANES : (1u << count) - 1;
}

static void predict_shared_loads(const shared_totals *loads, ml_prediction *prediction)
{
    ml_predict(prediction, "shared_load_transactions", loads->wavefronts);
    ml_predict(prediction, "shared_load_instructions", loads->instructions);
    ml_predict(prediction, "shared_ld_bank_conflict", loads->conflicts);
    ml_predict(prediction, "shared_load_transactions_per_request",
               loads->wavefronts / loads->instructions);
    ml_predict(prediction, "shared_ld_conflicts_per_request", loads->conflicts / loads->instructions);
}

static void predict_shared_stores(const shared_totals *stores, ml_prediction *prediction)
{
    ml_predict(prediction, "shared_store_transactions", stores->wavefronts);
    ml_predict(prediction, "shared_store_instructions", stores->instructions);
    ml_predict(prediction, "shared_st_bank_conflict", stores->conflicts);
    ml_predict(prediction, "shared_store_transactions_per_request",
               stores->wavefronts / stores->instructions);
    ml_predict(prediction, "shared_st_conflicts_per_request",
               stores->conflicts / stores->instructions);
}

static void predict_global(const ml_global_totals *loads, const ml_global_totals *stores,
                           ml_prediction *prediction)
{
    ml_predict(prediction, "gld_efficiency",
               100.0 * loads->used_bytes / (loads->sectors * ML_SECTOR_BYTES));
    ml_predict(prediction, "gst_efficiency",
               100.0 * stores->used_bytes / (stores->sectors * ML_SECTOR_BYTES));
    ml_predict(prediction, "gld_transactions_per_request", loads->sectors / loads->requests);
    ml_predict(prediction, "gst_transactions_per_request", stores->sectors / stores->requests);
}

/* How many of 0 .. extent - 1 are congruent to residue modulo 32. */
static double count_with_residue(uint64_t extent, unsigned residue)
{
    return (double)(extent / TILE + (residue < extent % TILE ? 1 : 0));
}

/* The global accesses of a transpose. Each warp access covers the part of one line that lies
 * in one tile: line_count lines of line_length floats, lane x of tile t taking float 32 t + x
 * of the line, lane_stride_floats apart in memory (1 along a row; `rows` for the naive
 * kernel's stores, which run down a column of out). An access's sectors depend only on its
 * lanes and on where it starts within 128 bytes, which depends only on the line number modulo
 * 32; so lines are counted by that residue, each with its full tiles and its one partial tile.
 * Buffers are 256-byte aligned. */
static void add_line_accesses(ml_global_totals *totals, uint64_t line_count, uint64_t line_length,
                              uint64_t lane_stride_floats)
{
    uint64_t full_tiles = line_length / TILE;
    unsigned edge_lanes = (unsigned)(line_length % TILE);
    for (unsigned residue = 0; residue < TILE; residue++) {
        double lines = count_with_residue(line_count, residue);
        if (lines == 0)
            continue;
        /* Line l starts at float l * line_length of a row-major matrix; a naive store's line
         * at out[(32 t + x) * rows + l], float l modulo 32. */
        uint64_t start = lane_stride_floats == 1 ? residue * line_length % TILE : residue;
        ml_warp_access access;
        ml_warp_access_strided(&access, start * sizeof(float),
                               (int64_t)(lane_stride_floats * sizeof(float)), sizeof(float),
                               ML_ALL_LANES);
        ml_global_totals_add(totals, &access, lines * (double)full_tiles);
        if (edge_lanes > 0) {
            access.active_mask = first_lanes(edge_lanes);
            ml_global_totals_add(totals, &access, lines);
        }
    }
}

static void predict_naive(const long long *param, ml_prediction *prediction)
{
    uint64_t rows = (uint64_t)param[PARAM_ROWS], cols = (uint64_t)param[PARAM_COLS];
    ml_global_totals loads = {0, 0, 0}, stores = {0, 0, 0};
    add_line_accesses(&loads, rows, cols, 1);
    add_line_accesses(&stores, rows, cols, rows);
    predict_global(&loads, &stores, prediction);
}

/* Word offset of tile element (r, c) in each kernel's shared tile: the host's copy of the
 * indexing the kernels of kernels.cu do. */
typedef unsigned (*tile_layout)(unsigned r, unsigned c);
static unsigned layout_plain(unsigned r, unsigned c) { return r * TILE + c; }
static unsigned layout_padded(unsigned r, unsigned c) { return r * (TILE + 1) + c; }
static unsigned layout_swizzled(unsigned r, unsigned c) { return r * TILE + (c ^ r); }

/* The shared accesses of one tile of height x width elements (32 x 32 inside the matrix, less
 * at its right and bottom edges). Filling, tile row k is one warp store with `width` lanes;
 * emptying, tile column k is one warp load with `height` lanes, lane x reading element (x, k).
 * A warp with no element to move makes no access. (The compiler may still issue such a warp's
 * store with every lane switched off, which the instruction counter can count: at sizes that
 * are not multiples of 32, compare conflicts and wavefronts, not instruction counts.) */
static void add_tile(shared_totals *loads, shared_totals *stores, tile_layout layout,
                     unsigned height, unsigned width, double tiles)
{
    ml_warp_access access;
    access.width_bytes = sizeof(float);
    for (unsigned k = 0; k < height; k++) {
        access.active_mask = first_lanes(width);
        for (unsigned x = 0; x < ML_WARP_SIZE; x++)
            access.address[x] = layout(k, x) * sizeof(float);
        add_shared(stores, &access, tiles);
    }
    for (unsigned k = 0; k < width; k++) {
        access.active_mask = first_lanes(height);
        for (unsigned x = 0; x < ML_WARP_SIZE; x++)
            access.address[x] = layout(x, k) * sizeof(float);
        add_shared(loads, &access, tiles);
    }
}

static void predict_tiled(const long long *param, tile_layout layout, ml_prediction *prediction)
{
    uint64_t rows = (uint64_t)param[PARAM_ROWS], cols = (uint64_t)param[PARAM_COLS];
    /* Tiles come in up to four shapes: full, cut at the right, cut at the bottom, the corner. */
    unsigned heights[2] = {TILE, (unsigned)(rows % TILE)};
    unsigned widths[2] = {TILE, (unsigned)(cols % TILE)};
    double row_tiles[2] = {(double)(rows / TILE), rows % TILE ? 1.0 : 0.0};
    double col_tiles[2] = {(double)(cols / TILE), cols % TILE ? 1.0 : 0.0};
    shared_totals shared_loads = {0, 0, 0}, shared_stores = {0, 0, 0};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (row_tiles[i] * col_tiles[j] > 0)
                add_tile(&shared_loads, &shared_stores, layout, heights[i], widths[j],
                         row_tiles[i] * col_tiles[j]);

    /* Global loads are the naive kernel's; stores write the cols rows of out, each rows long. */
    ml_global_totals loads = {0, 0, 0}, stores = {0, 0, 0};
    add_line_accesses(&loads, rows, cols, 1);
    add_line_accesses(&stores, cols, rows, 1);

    predict_shared_loads(&shared_loads, prediction);
    predict_shared_stores(&shared_stores, prediction);
    predict_global(&loads, &stores, prediction);
}

static void predict_shared(const long long *param, ml_prediction *prediction)
{
    predict_tiled(param, layout_plain, prediction);
}

static void predict_padded(const long long *param, ml_prediction *prediction)
{
    predict_tiled(param, layout_padded, prediction);
}

static void predict_swizzled(const long long *param, ml_prediction *prediction)
{
    predict_tiled(param, layout_swizzled, prediction);
}

/* Every load of every warp has the bank pattern of load 0 (the others are whole bank rows
 * further on), so one warp access, scaled, stands for the launch. */
static void predict_reads(int stride, int width_bytes, ml_prediction *prediction)
{
    ml_warp_access access;
    ml_warp_access_strided(&access, 0, (int64_t)stride * width_bytes, (unsigned)width_bytes,
                           ML_ALL_LANES);
    double warps = (double)STRIDE_BLOCKS * (STRIDE_THREADS / ML_WARP_SIZE);
    shared_totals loads = {0, 0, 0};
    add_shared(&loads, &access, warps * LOADS_PER_THREAD);
    predict_shared_loads(&loads, prediction);
}

static void predict_stride(const long long *param, ml_prediction *prediction)
{
    predict_reads((int)param[PARAM_STRIDE], (int)param[PARAM_WIDTH], prediction);
}

static void predict_broadcast(const long long *param, ml_prediction *prediction)
{
    (void)param;
    predict_reads(0, ML_BANK_BYTES, prediction);
}

/* ---- the variant table ----------------------------------------------------------------------- */

#define GLOBAL_METRICS \
    "gld_efficiency,gst_efficiency,gld_transactions_per_request,gst_transactions_per_request"
#define SHARED_LOAD_METRICS \
    "shared_ld_conflicts_per_request,shared_load_transactions_per_request,shared_ld_bank_conflict," \
    "shared_load_transactions,shared_load_instructions"
#define TILE_METRICS \
    SHARED_LOAD_METRICS ",shared_st_conflicts_per_request,shared_store_transactions_per_request," \
    "shared_st_bank_conflict,shared_store_transactions,shared_store_instructions," GLOBAL_METRICS

enum { TRANSPOSE_NAIVE, TRANSPOSE_SHARED, TRANSPOSE_PADDED, TRANSPOSE_SWIZZLED, SHARED_STRIDE,
       BROADCAST };

/* In the order of the enum above. */
static const ml_variant variants[] = {
    {"transpose_naive", "out[c][r] = in[r][c] straight through global memory, no tile",
     GLOBAL_METRICS, launch_transpose, predict_naive, "transpose_naive_kernel", TILE_THREADS},
    {"transpose_shared", "through a 32x32 shared tile, written by rows and read down its columns",
     TILE_METRICS, launch_transpose, predict_shared, "transpose_shared_kernel", TILE_THREADS},
    {"transpose_padded", "the same, the tile padded by one word per row",
     TILE_METRICS, launch_transpose, predict_padded, "transpose_padded_kernel", TILE_THREADS},
    {"transpose_swizzled", "the same, a [32][32] tile whose rows are permuted by an XOR swizzle",
     TILE_METRICS, launch_transpose, predict_swizzled, "transpose_swizzled_kernel", TILE_THREADS},
    {"shared_stride", "lane i reads shared element i * stride, --width bytes (4, 8 or 16) each",
     SHARED_LOAD_METRICS, launch_stride, predict_stride, "shared_stride_kernel", STRIDE_THREADS},
    {"broadcast", "all 32 lanes of a warp read the same shared word",
     SHARED_LOAD_METRICS, launch_broadcast, predict_broadcast, "shared_stride_kernel",
     STRIDE_THREADS},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

static int is_transpose(const ml_variant *variant)
{
    return variant - variants <= TRANSPOSE_SWIZZLED;
}

/* The stride and width the bank experiments run with: broadcast is stride 0, 4-byte words. */
static int stride_of(const ml_variant *variant, const long long *param)
{
    return variant - variants == BROADCAST ? 0 : (int)param[PARAM_STRIDE];
}

static int width_of(const ml_variant *variant, const long long *param)
{
    return variant - variants == BROADCAST ? ML_BANK_BYTES : (int)param[PARAM_WIDTH];
}

static const char *check_params(const long long *param)
{
    static char message[96];
    long long width = param[PARAM_WIDTH];
    if (width == 4 || width == 8 || width == 16)
        return NULL;
    snprintf(message, sizeof message, "--width must be 4, 8 or 16 (bytes per shared load), got %lld",
             width);
    return message;
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static double device_bytes(const ml_variant *variant, const long long *param)
{
    if (is_transpose(variant))
        return 2.0 * (double)param[PARAM_ROWS] * (double)param[PARAM_COLS] * sizeof(float);
    double vectors = stride_vectors(stride_of(variant, param), width_of(variant, param));
    return vectors * sizeof(float4) + (double)STRIDE_BLOCKS * STRIDE_THREADS * sizeof(float);
}

/* out[c][r] = in[r][c]; the input value at index i is ml_random_value(seed, i). */
static float *transpose_reference(uint64_t seed, uint64_t rows, uint64_t cols)
{
    float *reference = (float *)ml_host_alloc(rows * cols * sizeof(float));
#pragma omp parallel for
    for (uint64_t c = 0; c < cols; c++)
        for (uint64_t r = 0; r < rows; r++)
            reference[c * rows + r] = ml_random_value(seed, r * cols + c);
    return reference;
}

/* Each thread's sum depends only on its lane: the same loads, added in the same order. */
static float *reads_reference(uint64_t seed, int stride, int width_bytes)
{
    int words_per_element = width_bytes / 4, row_elements = BANK_ROW_BYTES / width_bytes;
    float lane_sum[ML_WARP_SIZE];
    for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
        float sum = 0.0f;
        for (int load = 0; load < LOADS_PER_THREAD; load++) {
            uint64_t first = (uint64_t)(lane * stride + load * row_elements) * words_per_element;
            float element = ml_random_value(seed, first);
            for (int w = 1; w < words_per_element; w++)
                element += ml_random_value(seed, first + w);
            sum += element;
        }
        lane_sum[lane] = sum;
    }
    size_t threads = (size_t)STRIDE_BLOCKS * STRIDE_THREADS;
    float *reference = (float *)ml_host_alloc(threads * sizeof(float));
    for (size_t i = 0; i < threads; i++)
        reference[i] = lane_sum[i % ML_WARP_SIZE];
    return reference;
}

static void setup(ml_problem *problem)
{
    const long long *param = problem->param;
    const ml_variant *variant = problem->variant;
    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    if (is_transpose(variant)) {
        uint64_t rows = (uint64_t)param[PARAM_ROWS], cols = (uint64_t)param[PARAM_COLS];
        state->in = (float *)ml_device_alloc(rows * cols * sizeof(float));
        ml_fill_random(state->in, rows * cols, problem->seed);
        problem->output_count = rows * cols;
        problem->reference = transpose_reference(problem->seed, rows, cols);
        problem->bytes = 2.0 * (double)(rows * cols) * sizeof(float);
    } else {
        int stride = stride_of(variant, param), width = width_of(variant, param);
        size_t words = (size_t)stride_vectors(stride, width) * 4;
        state->in = (float *)ml_device_alloc(words * sizeof(float));
        ml_fill_random(state->in, words, problem->seed);
        problem->output_count = (size_t)STRIDE_BLOCKS * STRIDE_THREADS;
        problem->reference = reads_reference(problem->seed, stride, width);
        problem->bytes = (double)problem->output_count * LOADS_PER_THREAD * width;
    }
    problem->state = state;
    problem->output = (float *)ml_device_alloc(problem->output_count * sizeof(float));
    /* Copies are exact, and the sums add the same floats in the same order as the kernel. */
    problem->tolerance = 0.0;
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
    "bank_conflicts", "Lab 05: shared-memory banks: conflicts, padding, swizzling, broadcast",
    params, PARAM_COUNT, variants, VARIANT_COUNT, device_bytes, setup, teardown, check_params,
    NULL, &ml_lab_kernels,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
