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

#define STRIDE_THREADS 256
#define STRIDE_BLOCKS 32768
#define STRIDE_OUTPUTS ((size_t)STRIDE_BLOCKS * STRIDE_THREADS) /* one per thread */

static const ml_param params[] = {
    /* Tile rows go in gridDim.y, which stops at 65535. */
    {"rows", 8192, 1, 65535 * TILE, "transposes: rows of the input matrix (floats)",
     .used_by = "naive_transpose,tiled_transpose"},
    {"cols", 8192, 1, 1 << 30, "transposes: columns of the input matrix (floats)",
     .used_by = "naive_transpose,tiled_transpose"},
    {"stride", 32, 1, MAX_STRIDE, "shared_stride: lane i reads element i * stride",
     .used_by = "shared_stride"},
    {"width", 4, 4, 16, "shared_stride: bytes per load, 4, 8 or 16", .used_by = "shared_stride"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* A tiled transpose's shared tile: element (r, c) is word r * row_words + (c ^ (r & swizzle)),
 * the indexing its kernel in kernels.cu does. */
typedef struct {
    unsigned row_words, swizzle;
} tile_layout;

static const tile_layout square_tile = {TILE, 0};          /* tile[r][c] */
static const tile_layout padded_tile = {TILE + 1, 0};      /* tile[32][33] */
static const tile_layout swizzled_tile = {TILE, TILE - 1}; /* tile[r][c ^ r] */

/* A bank experiment's loads: lane i reads element i * stride of width_bytes each. Each is the
 * size the variant reads by the name given, or, without a name, the fixed value beside it. */
typedef struct {
    const char *stride_size, *width_size;
    int stride, width_bytes;
} read_pattern;

static const read_pattern strided_reads = {"stride", "width", 0, 0};
static const read_pattern broadcast_reads = {NULL, NULL, 0, ML_BANK_BYTES};

/* The transposes copy a matrix (the naive one and the tiled ones have different models); the
 * bank experiments run one kernel that reads a shared array, the broadcast at stride 0. */
extern const ml_family naive_transpose, tiled_transpose, shared_reads;

#define GLOBAL_METRICS \
    "gld_efficiency,gst_efficiency,gld_transactions_per_request,gst_transactions_per_request"
#define SHARED_LOAD_METRICS \
    "shared_ld_conflicts_per_request,shared_load_transactions_per_request,shared_ld_bank_conflict," \
    "shared_load_transactions,shared_load_instructions"
#define TILE_METRICS \
    SHARED_LOAD_METRICS ",shared_st_conflicts_per_request,shared_store_transactions_per_request," \
    "shared_st_bank_conflict,shared_store_transactions,shared_store_instructions," GLOBAL_METRICS

static const ml_variant variants[] = {
    {.name = "transpose_naive",
     .summary = "out[c][r] = in[r][c] straight through global memory, no tile",
     .family = &naive_transpose, .kernel = "transpose_naive_kernel", .block = {TILE, BLOCK_ROWS},
     .metrics = GLOBAL_METRICS},
    {.name = "transpose_shared",
     .summary = "through a 32x32 shared tile, written by rows and read down its columns",
     .family = &tiled_transpose, .kernel = "transpose_shared_kernel", .block = {TILE, BLOCK_ROWS},
     .constants = &square_tile, .metrics = TILE_METRICS},
    {.name = "transpose_padded",
     .summary = "the same, the tile padded by one word per row",
     .family = &tiled_transpose, .kernel = "transpose_padded_kernel", .block = {TILE, BLOCK_ROWS},
     .constants = &padded_tile, .metrics = TILE_METRICS},
    {.name = "transpose_swizzled",
     .summary = "the same, a [32][32] tile whose rows are permuted by an XOR swizzle",
     .family = &tiled_transpose, .kernel = "transpose_swizzled_kernel",
     .block = {TILE, BLOCK_ROWS}, .constants = &swizzled_tile, .metrics = TILE_METRICS},
    {.name = "shared_stride",
     .summary = "lane i reads shared element i * stride, --width bytes (4, 8 or 16) each",
     .family = &shared_reads, .kernel = "shared_stride_kernel", .block = {STRIDE_THREADS},
     .constants = &strided_reads, .metrics = SHARED_LOAD_METRICS},
    /* Reads no size: always stride 0 of 4-byte words. */
    {.name = "broadcast",
     .summary = "all 32 lanes of a warp read the same shared word",
     .family = &shared_reads, .kernel = "shared_stride_kernel", .block = {STRIDE_THREADS},
     .constants = &broadcast_reads, .metrics = SHARED_LOAD_METRICS},
};

/* A transpose: the input matrix's shape, and the matrix. */
typedef struct {
    uint64_t rows, cols;
    float *in;
} transpose_state;

/* A bank experiment: its loads, the array it copies into shared memory, and the sum each lane
 * makes of the input fill_inputs wrote, for reference_at (every warp's lane i makes the same). */
typedef struct {
    int stride, width_bytes;
    float *in;
    float lane_sum[WARP_LANES];
} reads_state;

static reads_state read_sizes(const ml_problem *problem)
{
    const read_pattern *pattern = ML_CONSTANTS(read_pattern, problem);
    reads_state sizes = {pattern->stride, pattern->width_bytes, NULL, {0}};
    if (pattern->stride_size != NULL)
        sizes.stride = (int)ml_size(problem, pattern->stride_size);
    if (pattern->width_size != NULL)
        sizes.width_bytes = (int)ml_size(problem, pattern->width_size);
    return sizes;
}

/* ---- launches ------------------------------------------------------------------------------- */

/* Each launch is what kernel<<<grid, block>>>(arguments) would be if the program linked
 * kernels.cu; ML_LAUNCH runs the variant's kernel, found by name in the loaded kernels file,
 * with the block of its table entry. The four transposes take the same arguments and the same
 * launch: one TILE x BLOCK_ROWS block per TILE x TILE tile. */
static void launch_transpose(const ml_problem *problem)
{
    const transpose_state *state = (const transpose_state *)problem->state;
    int rows = (int)state->rows, cols = (int)state->cols;
    dim3 grid(ml_blocks_for((size_t)cols, TILE), ml_blocks_for((size_t)rows, TILE));
    /* transpose_..._kernel<<<grid, block>>>(in, out, rows, cols) */
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(rows),
                               ML_ARG(cols)};
    ML_LAUNCH(problem, grid, 0, arguments);
}

/* shared_stride_kernel<<<STRIDE_BLOCKS, STRIDE_THREADS>>>((const float4 *)in, out, stride,
 *                                                        width_bytes) */
static void launch_reads(const ml_problem *problem)
{
    const reads_state *state = (const reads_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(state->stride),
                               ML_ARG(state->width_bytes)};
    ML_LAUNCH(problem, STRIDE_BLOCKS, 0, arguments);
}

/* ---- predictions: the access model over the warps of the launch ----------------------------- */

/* Counter totals are doubles (ml_shared_totals, ml_global_totals): a 16384 x 16384 transpose
 * makes billions of them.
 *
 * The residue. The model counts the conflicts of each warp's own accesses, but the conflict
 * counters also count waits that other blocks' shared accesses cause: where the model counts no
 * conflict they still read a residue, and the wavefronts as many more (wavefronts less the
 * model's count equal the conflicts). It comes from blocks out of step: one block storing into
 * shared memory while another on the same SM loads from it (not from the L1 traffic of the
 * global loads: loading the tiles past the L1, with __ldcg, leaves it as it is). How many waits
 * there are depends on when the blocks meet, which a count of accesses does not know, so the
 * model states a bound: a conflict-free count is predicted from 0 to the bound, stated against
 * the instructions, and its wavefronts from the model's count to the count plus the bound.
 * Where the model counts conflicts the residue is lost in them, and the prediction stays a
 * point. The runs behind each bound are in the instructor notes.
 *
 * The transposes. A launch that the GPU holds at once (one wave: as many blocks as every SM
 * holds) starts all its blocks together, and the counters read no residue at all. Past one
 * wave, a block starts when an earlier one ends, out of step with the blocks beside it, and the
 * residue appears, larger for loads than for stores, moving with the tile's layout and the
 * matrix's shape: bounded at 1/4 of the load instructions and 1/8 of the store instructions.
 *
 * The bank experiments launch 32,768 blocks, many waves on any GPU: each block's loads meet the
 * copies of the blocks beside it, about one wait a warp whatever the size of the copy: bounded
 * at two a warp, 1/32 of its 64 loads. */
#define TILE_LOAD_RESIDUE 0.25   /* conflicts a load instruction, past one wave */
#define TILE_STORE_RESIDUE 0.125 /* conflicts a store instruction, past one wave */
#define TILE_RESIDUE_REASON "past one wave of blocks, a block storing its tile meets the blocks " \
                            "beside it on its SM loading theirs, and the counter counts the "     \
                            "waits: bounded at 1/4 a load and 1/8 a store (none in one wave)"
#define READS_LOAD_RESIDUE (2.0 / LOADS_PER_THREAD) /* conflicts a load instruction */
#define READS_RESIDUE_REASON "each block's loads meet the copies into shared memory of the "    \
                             "blocks beside it on its SM, and the counter counts the waits: "   \
                             "about one a warp measured, bounded at two (1/32 of a warp's 64 " \
                             "loads)"

/* The five counters of one kind of shared access, by their metric aliases. */
typedef struct {
    const char *wavefronts, *instructions, *conflicts, *wavefronts_per_instruction,
        *conflicts_per_instruction;
} shared_counters;

static const shared_counters shared_load_counters = {
    "shared_load_transactions", "shared_load_instructions", "shared_ld_bank_conflict",
    "shared_load_transactions_per_request", "shared_ld_conflicts_per_request"};
static const shared_counters shared_store_counters = {
    "shared_store_transactions", "shared_store_instructions", "shared_st_bank_conflict",
    "shared_store_transactions_per_request", "shared_st_conflicts_per_request"};

/* residue: the most conflicts per instruction the counter may add where the model counts none
 * (0: none, every prediction a point); reason: why. */
static void predict_shared(const shared_counters *counters, const ml_shared_totals *totals,
                           double residue, const char *reason, ml_prediction *prediction)
{
    ml_predict(prediction, counters->instructions, totals->requests);
    if (totals->bank_conflicts == 0 && residue > 0) {
        double bound = residue * totals->requests;
        ml_predict_range(prediction, counters->wavefronts, totals->wavefronts,
                         totals->wavefronts + bound, reason);
        ml_predict_range(prediction, counters->wavefronts_per_instruction,
                         totals->wavefronts / totals->requests,
                         (totals->wavefronts + bound) / totals->requests, reason);
        ml_predict_residue(prediction, counters->conflicts, bound, totals->requests, reason);
        ml_predict_residue(prediction, counters->conflicts_per_instruction, residue, 1, reason);
    } else {
        ml_predict(prediction, counters->wavefronts, totals->wavefronts);
        ml_predict(prediction, counters->wavefronts_per_instruction,
                   totals->wavefronts / totals->requests);
        ml_predict(prediction, counters->conflicts, totals->bank_conflicts);
        ml_predict(prediction, counters->conflicts_per_instruction,
                   totals->bank_conflicts / totals->requests);
    }
}

static void predict_global(const ml_global_totals *loads, const ml_global_totals *stores,
                           ml_prediction *prediction)
{
    ml_predict(prediction, "gld_efficiency", ml_efficiency_pct(loads));
    ml_predict(prediction, "gst_efficiency", ml_efficiency_pct(stores));
    ml_predict(prediction, "gld_transactions_per_request", ml_sectors_per_request(loads));
    ml_predict(prediction, "gst_transactions_per_request", ml_sectors_per_request(stores));
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
            access.active_mask = ml_first_lanes(edge_lanes);
            ml_global_totals_add(totals, &access, lines);
        }
    }
}

static void predict_naive(const ml_problem *problem, ml_prediction *prediction)
{
    uint64_t rows = (uint64_t)ml_size(problem, "rows"), cols = (uint64_t)ml_size(problem, "cols");
    ml_global_totals loads = {0}, stores = {0};
    add_line_accesses(&loads, rows, cols, 1);
    add_line_accesses(&stores, rows, cols, rows);
    predict_global(&loads, &stores, prediction);
}

/* Byte offset of tile element (r, c) in the shared tile of this layout. */
static uint64_t tile_byte(const tile_layout *layout, unsigned r, unsigned c)
{
    return (r * layout->row_words + (c ^ (r & layout->swizzle))) * sizeof(float);
}

/* The shared accesses of one tile of height x width elements (32 x 32 inside the matrix, less
 * at its right and bottom edges). Filling, tile row k is one warp store with `width` lanes;
 * emptying, tile column k is one warp load with `height` lanes, lane x reading element (x, k).
 *
 * What the GPU executes at the edges is what the compiler made of the guards, read in the SASS
 * of kernels.cu for sm_90 (CUDA 13.0; `cuobjdump -sass` of the kernels' cubin). The fill's
 * guard, row < rows && col < cols, becomes one predicate per lane on the store
 * (`@!P2 STS [R9], R14`), not a branch: every warp executes its TILE / BLOCK_ROWS stores, and a
 * warp whose tile row lies below the matrix executes its store with every lane switched off.
 * The instruction counter counts that store; it moves no data, so it makes no wavefront (a 7 x 18
 * matrix, one tile: 32 store instructions, 7 of them with lanes on). The emptying loop
 * branches around its load (`@P6 BRA`) for the lanes whose element is outside the matrix, so a
 * warp whose tile column lies past the right edge skips the load altogether: loads count only
 * the tile columns inside the matrix (18 instructions there). */
static void add_tile(ml_shared_totals *loads, ml_shared_totals *stores, const tile_layout *layout,
                     unsigned height, unsigned width, double tiles)
{
    ml_warp_access access;
    access.width_bytes = sizeof(float);
    for (unsigned k = 0; k < height; k++) {
        access.active_mask = ml_first_lanes(width);
        for (unsigned x = 0; x < ML_WARP_SIZE; x++)
            access.address[x] = tile_byte(layout, k, x);
        ml_shared_totals_add(stores, &access, tiles);
    }
    /* The stores of tile rows height .. TILE - 1, every lane off: instructions only. */
    stores->requests += (double)(TILE - height) * tiles;
    for (unsigned k = 0; k < width; k++) {
        access.active_mask = ml_first_lanes(height);
        for (unsigned x = 0; x < ML_WARP_SIZE; x++)
            access.address[x] = tile_byte(layout, x, k);
        ml_shared_totals_add(loads, &access, tiles);
    }
}

static void predict_tiled(const ml_problem *problem, ml_prediction *prediction)
{
    const tile_layout *layout = ML_CONSTANTS(tile_layout, problem);
    uint64_t rows = (uint64_t)ml_size(problem, "rows"), cols = (uint64_t)ml_size(problem, "cols");
    /* Tiles come in up to four shapes: full, cut at the right, cut at the bottom, the corner. */
    unsigned heights[2] = {TILE, (unsigned)(rows % TILE)};
    unsigned widths[2] = {TILE, (unsigned)(cols % TILE)};
    double row_tiles[2] = {(double)(rows / TILE), rows % TILE ? 1.0 : 0.0};
    double col_tiles[2] = {(double)(cols / TILE), cols % TILE ? 1.0 : 0.0};
    ml_shared_totals shared_loads = {0}, shared_stores = {0};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (row_tiles[i] * col_tiles[j] > 0)
                add_tile(&shared_loads, &shared_stores, layout, heights[i], widths[j],
                         row_tiles[i] * col_tiles[j]);

    /* Global loads are the naive kernel's; stores write the cols rows of out, each rows long. */
    ml_global_totals loads = {0}, stores = {0};
    add_line_accesses(&loads, rows, cols, 1);
    add_line_accesses(&stores, cols, rows, 1);

    /* One wave: the blocks (one a tile) that the GPU holds at once, as many on each SM as its
     * threads allow (these kernels' 29 or 30 registers a thread and 4 KiB tiles allow that many
     * on every GPU of the table: 8 blocks of 256 threads on an SM of 2048 threads). */
    const ml_gpu_facts *gpu = ml_model_gpu();
    double wave = (double)gpu->sm_count * (double)(gpu->threads_per_sm / (TILE * BLOCK_ROWS));
    double tiles = (row_tiles[0] + row_tiles[1]) * (col_tiles[0] + col_tiles[1]);
    int one_wave = tiles <= wave;
    predict_shared(&shared_load_counters, &shared_loads, one_wave ? 0 : TILE_LOAD_RESIDUE,
                   TILE_RESIDUE_REASON, prediction);
    predict_shared(&shared_store_counters, &shared_stores, one_wave ? 0 : TILE_STORE_RESIDUE,
                   TILE_RESIDUE_REASON, prediction);
    predict_global(&loads, &stores, prediction);
}

/* Every load of every warp has the bank pattern of load 0 (the others are whole bank rows
 * further on), so one warp access, scaled, stands for the launch. (Each block first copies
 * stride_vectors 16-byte vectors into shared memory: stores, which no counter of this family
 * reads, but which make the loads' residue.) */
static void predict_reads(const ml_problem *problem, ml_prediction *prediction)
{
    reads_state reads = read_sizes(problem);
    ml_warp_access access;
    ml_warp_access_strided(&access, 0, (int64_t)reads.stride * reads.width_bytes,
                           (unsigned)reads.width_bytes, ML_ALL_LANES);
    double warps = (double)STRIDE_BLOCKS * (STRIDE_THREADS / ML_WARP_SIZE);
    ml_shared_totals loads = {0};
    ml_shared_totals_add(&loads, &access, warps * LOADS_PER_THREAD);
    predict_shared(&shared_load_counters, &loads, READS_LOAD_RESIDUE, READS_RESIDUE_REASON,
                   prediction);
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static const char *check_params(const ml_problem *problem)
{
    static char message[96];
    long long width = ml_size(problem, "width");
    if (width == 4 || width == 8 || width == 16)
        return NULL;
    snprintf(message, sizeof message, "--width must be 4, 8 or 16 (bytes per shared load), got %lld",
             width);
    return message;
}

/* The matrix, read once and written once. */
static double matrix_bytes(const ml_problem *problem)
{
    return (double)(ml_size(problem, "rows") * ml_size(problem, "cols")) * sizeof(float);
}

/* The input and the output. */
static double matrix_device_bytes(const ml_problem *problem)
{
    return 2.0 * matrix_bytes(problem);
}

/* The input value at index i is ml_random_value(seed, i): out[c][r] = in[r][c], element
 * c * rows + r of the output. */
static float transposed_value(uint64_t seed, uint64_t rows, uint64_t cols, size_t position)
{
    uint64_t c = position / rows, r = position % rows;
    return ml_random_value(seed, r * cols + c);
}

/* The matrix, new from problem->seed, on the GPU. */
static void fill_matrix(ml_problem *problem)
{
    transpose_state *state = (transpose_state *)problem->state;
    ml_fill_random(state->in, (size_t)state->rows * (size_t)state->cols, problem->seed);
}

static void transposed_at(const ml_problem *problem, const size_t *position, size_t count,
                          void *values)
{
    const transpose_state *state = (const transpose_state *)problem->state;
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++)
        reference[k] = transposed_value(problem->seed, state->rows, state->cols, position[k]);
}

static void setup_transpose(ml_problem *problem)
{
    transpose_state *state = (transpose_state *)problem->state;
    uint64_t rows = (uint64_t)ml_size(problem, "rows"), cols = (uint64_t)ml_size(problem, "cols");
    state->rows = rows;
    state->cols = cols;
    state->in = (float *)ml_device_buffer(problem, rows * cols * sizeof(float));
    fill_matrix(problem);
    /* A copy is exact. */
    ml_expect_output_from_reference_at(problem, ML_OUTPUT_WRITTEN, rows * cols, 0.0);
}

/* The floats shared_stride_kernel copies into shared memory (broadcast's too). */
static size_t read_words(const reads_state *reads)
{
    return (size_t)stride_vectors(reads->stride, reads->width_bytes) * 4;
}

static double reads_device_bytes(const ml_problem *problem)
{
    reads_state reads = read_sizes(problem);
    return (double)(read_words(&reads) + STRIDE_OUTPUTS) * sizeof(float);
}

/* The shared-memory bytes the warps read. */
static double shared_bytes_read(const ml_problem *problem)
{
    return (double)STRIDE_OUTPUTS * LOADS_PER_THREAD * read_sizes(problem).width_bytes;
}

/* Each thread's sum depends only on its lane: the same loads, added in the same order. */
static void sum_lanes(uint64_t seed, int stride, int width_bytes, float *lane_sum)
{
    int words_per_element = width_bytes / 4, row_elements = BANK_ROW_BYTES / width_bytes;
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
}

/* The array, new from problem->seed, on the GPU, and each lane's sum of it (2,048 loads of at
 * most 4 floats, on the host). */
static void fill_reads(ml_problem *problem)
{
    reads_state *state = (reads_state *)problem->state;
    ml_fill_random(state->in, read_words(state), problem->seed);
    sum_lanes(problem->seed, state->stride, state->width_bytes, state->lane_sum);
}

static void lane_sums_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    const reads_state *state = (const reads_state *)problem->state;
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++)
        reference[k] = state->lane_sum[position[k] % ML_WARP_SIZE];
}

static void setup_reads(ml_problem *problem)
{
    reads_state *state = (reads_state *)problem->state;
    *state = read_sizes(problem);
    state->in = (float *)ml_device_buffer(problem, read_words(state) * sizeof(float));
    fill_reads(problem);
    /* The sums add the same floats in the same order as the kernel: exact. */
    ml_expect_output_from_reference_at(problem, ML_OUTPUT_WRITTEN, STRIDE_OUTPUTS, 0.0);
}

const ml_family naive_transpose = {
    .name = "naive_transpose", .state_bytes = sizeof(transpose_state),
    .device_bytes = matrix_device_bytes, .setup = setup_transpose, .fill_inputs = fill_matrix,
    .reference_at = transposed_at, .launch = launch_transpose, .predict = predict_naive,
    .bytes_read = matrix_bytes, .bytes_written = matrix_bytes};
const ml_family tiled_transpose = {
    .name = "tiled_transpose", .state_bytes = sizeof(transpose_state),
    .device_bytes = matrix_device_bytes, .setup = setup_transpose, .fill_inputs = fill_matrix,
    .reference_at = transposed_at, .launch = launch_transpose, .predict = predict_tiled,
    .bytes_read = matrix_bytes, .bytes_written = matrix_bytes};
const ml_family shared_reads = {
    .name = "shared_reads", .state_bytes = sizeof(reads_state), .device_bytes = reads_device_bytes,
    .setup = setup_reads, .fill_inputs = fill_reads, .reference_at = lane_sums_at,
    .launch = launch_reads, .predict = predict_reads, .bytes_read = shared_bytes_read};

static const ml_lab lab = {
    .program = "bank_conflicts",
    .title = "Lab 05: shared-memory banks: conflicts, padding, swizzling, broadcast",
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
