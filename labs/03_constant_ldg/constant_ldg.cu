/* Lab 03: constant memory and read-only loads. The host program (the instructor's): sizes,
 * variants, launches, the access model's predictions, the CPU reference. The kernels are in
 * kernels.cu, loaded by name (--kernels FILE runs another kernels file); the mask and the pattern
 * table reach its __constant__ arrays by name too (ml_copy_to_symbol).
 *
 * Variants:
 *   global              2D convolution, the mask read from a plain float * in global memory
 *   constant            the same convolution, the mask in __constant__ memory
 *   ldg                 the same convolution, the mask read through const __restrict__ and __ldg
 *   constant_broadcast  every lane of a warp reads the same constant word, ROUNDS times
 *   constant_divergent  lane i reads word (i % distinct) * spacing + r: --distinct words a warp
 *   ldg_divergent       the same loads through __ldg from global memory
 * The convolution computes out[r][c] = sum of mask[i][j] * image[r + i - R][c + j - R] over the
 * odd --mask x --mask mask (R = mask / 2), with zeros outside the image; its GB/s counts the
 * image read once and the output written once. The three pattern variants make one thread per
 * pixel too; their GB/s counts the bytes their loads hand to the threads.
 *
 * Words read by the divergent variants are --spacing floats apart; the default 16 (64 bytes)
 * puts each in a cache line of its own. --spacing 1 puts them next to each other.
 *
 * Build:  ./memlab run constant_ldg --help     (or: make -f Makefile.labs constant_ldg)
 * Try:    constant_ldg --variant constant_divergent --sweep distinct=1:32
 *         constant_ldg --variant ldg_divergent --sweep distinct=1:32
 *         constant_ldg --sweep mask=3:15:2
 *         constant_ldg --model                 (predictions only, no GPU)
 */
#include <math.h>

#include "memlab.h"

#include "constant_ldg.h"           /* MAX_MASK, the pattern table's layout: shared with kernels.cu */

static_assert(WARP_LANES == ML_WARP_SIZE, "kernels.cu and the access model must agree on a warp");

#define BLOCK_COLS 32               /* a convolution block is 32 x 8 threads: a warp is 32 */
#define BLOCK_ROWS 8                /* neighbouring pixels of one image row */

#define PATTERN_THREADS 256
#define ROUNDS 512                  /* loads each thread of a pattern variant makes */

/* Work a CPU reference may do in full; a larger problem is checked on a sample of pixels. */
#define FULL_CHECK_TAPS (1ll << 26)

static const ml_param params[] = {
    /* Rows and columns are ints in the kernels; 32768 x 32768 floats is 4 GiB a buffer. */
    {"rows", 4096, 1, 32768, "image rows; every variant makes one thread per pixel"},
    {"cols", 4096, 1, 32768, "image columns"},
    {"mask", 7, 3, MAX_MASK, "convolution: mask width and height, odd",
     .used_by = "global,constant,ldg"},
    {"distinct", 32, 1, ML_WARP_SIZE, "divergent variants: different words a warp reads",
     .used_by = "constant_divergent,ldg_divergent"},
    {"spacing", SLOT_FLOATS, 1, SLOT_FLOATS, "divergent variants: floats between those words",
     .used_by = "constant_divergent,ldg_divergent"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* The convolutions differ in where the mask is: a kernel argument, read plainly (global) or
 * through __ldg (ldg), or __constant__ mask_constant, which convolve_constant reads instead of
 * an argument. The access patterns read one small table, in constant or in global memory; their
 * constants say which word each thread reads, and which sizes place it. */
typedef struct {
    unsigned distinct, spacing; /* the divergent patterns' sizes; the broadcast reads neither */
} table_spread;

typedef struct {
    table_spread (*spread)(const ml_problem *problem);
    /* The word thread `thread` of a block reads at round r: the kernel's indexing, on the host. */
    unsigned (*word)(unsigned thread, unsigned r, table_spread spread);
} table_words;

static table_spread no_spread(const ml_problem *problem)
{
    table_spread none = {0, 0};
    return none;
}

static table_spread divergent_spread(const ml_problem *problem)
{
    table_spread spread = {(unsigned)ml_size(problem, "distinct"),
                           (unsigned)ml_size(problem, "spacing")};
    return spread;
}

/* Warp w of a block reads slot w % 32 with all its lanes. */
static unsigned broadcast_word(unsigned thread, unsigned r, table_spread spread)
{
    return thread / ML_WARP_SIZE % ML_WARP_SIZE * SLOT_FLOATS + r % SLOT_FLOATS;
}

/* Lane i reads slot i % distinct, the slots spacing floats apart. */
static unsigned divergent_word(unsigned thread, unsigned r, table_spread spread)
{
    return thread % ML_WARP_SIZE % spread.distinct * spread.spacing + r % SLOT_FLOATS;
}

static const table_words slot_per_warp = {no_spread, broadcast_word};
static const table_words slot_per_lane = {divergent_spread, divergent_word};

/* One family per kernel signature: the convolutions share buffers and the reference, the
 * patterns theirs. */
extern const ml_family global_mask_convolution, constant_mask_convolution, broadcast_reads,
    constant_divergent_reads, ldg_divergent_reads;

#define CONVOLUTION_METRICS \
    "gld_requests,gld_transactions,global_hit_rate,constant_requests_per_instruction," \
    "constant_hit_rate"
#define CONSTANT_PATTERN_METRICS \
    "constant_requests_per_instruction,constant_replays_per_instruction,constant_hit_rate"
#define LDG_PATTERN_METRICS \
    "gld_requests,gld_transactions,gld_transactions_per_request,global_hit_rate"

static const ml_variant variants[] = {
    {.name = "global", .summary = "convolution, the mask read from a plain float * in global memory",
     .family = &global_mask_convolution, .kernel = "convolve_global",
     .block = {BLOCK_COLS, BLOCK_ROWS}, .metrics = CONVOLUTION_METRICS},
    {.name = "constant", .summary = "the same convolution, the mask in __constant__ memory",
     .family = &constant_mask_convolution, .kernel = "convolve_constant",
     .block = {BLOCK_COLS, BLOCK_ROWS}, .metrics = CONVOLUTION_METRICS},
    {.name = "ldg", .summary = "the same convolution, the mask read through const __restrict__ and __ldg",
     .family = &global_mask_convolution, .kernel = "convolve_ldg",
     .block = {BLOCK_COLS, BLOCK_ROWS}, .metrics = CONVOLUTION_METRICS},
    {.name = "constant_broadcast", .summary = "every lane of a warp reads the same constant word",
     .family = &broadcast_reads, .kernel = "read_constant_broadcast", .block = {PATTERN_THREADS},
     .constants = &slot_per_warp, .metrics = CONSTANT_PATTERN_METRICS},
    {.name = "constant_divergent", .summary = "the lanes of a warp read --distinct different constant words",
     .family = &constant_divergent_reads, .kernel = "read_constant_divergent",
     .block = {PATTERN_THREADS}, .constants = &slot_per_lane, .metrics = CONSTANT_PATTERN_METRICS},
    {.name = "ldg_divergent", .summary = "the same words as constant_divergent, through __ldg from global memory",
     .family = &ldg_divergent_reads, .kernel = "read_ldg_divergent", .block = {PATTERN_THREADS},
     .constants = &slot_per_lane, .metrics = LDG_PATTERN_METRICS},
};

/* ---- launches ------------------------------------------------------------------------------- */

/* A convolution's sizes (rows, cols and mask width are the kernels' int arguments), its
 * buffers, and the mask's weights fill_inputs made, for reference_at. */
typedef struct {
    int rows, cols, mask_width;
    size_t pixels;
    int taps;
    float *image;               /* rows x cols */
    float *mask;                /* the mask in global memory */
    float weights[MAX_MASK_TAPS];
} convolution_state;

/* A pattern's sizes, its table in global memory, and what fill_inputs made: the table and the
 * sum each thread of a block makes of it (for reference_at). */
typedef struct {
    size_t n;                   /* elements, one per pixel and thread */
    table_spread spread;
    float *table;
    float values[TABLE_FLOATS];
    float thread_sums[PATTERN_THREADS];
} pattern_state;

static size_t pixel_count(const ml_problem *problem)
{
    return (size_t)ml_size(problem, "rows") * (size_t)ml_size(problem, "cols");
}

static convolution_state convolution_sizes(const ml_problem *problem)
{
    convolution_state sizes = {0};
    sizes.rows = (int)ml_size(problem, "rows");
    sizes.cols = (int)ml_size(problem, "cols");
    sizes.mask_width = (int)ml_size(problem, "mask");
    sizes.pixels = (size_t)sizes.rows * (size_t)sizes.cols;
    sizes.taps = sizes.mask_width * sizes.mask_width;
    return sizes;
}

static dim3 convolution_grid(const convolution_state *sizes)
{
    return dim3(ml_blocks_for((size_t)sizes->cols, BLOCK_COLS),
                ml_blocks_for((size_t)sizes->rows, BLOCK_ROWS));
}

/* Each launch is what kernel<<<grid, block>>>(arguments) would be if the program linked
 * kernels.cu; ML_LAUNCH runs the kernel found by name in the loaded kernels file, with the
 * block of its table entry. */

/* convolve_global(image, mask, out, rows, cols, mask_width), convolve_ldg the same */
static void launch_global_mask(const ml_problem *problem)
{
    const convolution_state *state = (const convolution_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->image), ML_ARG(state->mask), ML_ARG(problem->output),
                               ML_ARG(state->rows), ML_ARG(state->cols),
                               ML_ARG(state->mask_width)};
    ML_LAUNCH(problem, convolution_grid(state), 0, arguments);
}

/* convolve_constant(image, out, rows, cols, mask_width): no mask argument, it reads
 * mask_constant */
static void launch_constant_mask(const ml_problem *problem)
{
    const convolution_state *state = (const convolution_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->image), ML_ARG(problem->output), ML_ARG(state->rows),
                               ML_ARG(state->cols), ML_ARG(state->mask_width)};
    ML_LAUNCH(problem, convolution_grid(state), 0, arguments);
}

/* read_constant_broadcast(out, n, ROUNDS) */
static void launch_broadcast(const ml_problem *problem)
{
    const pattern_state *state = (const pattern_state *)problem->state;
    unsigned rounds = ROUNDS;
    ml_argument arguments[] = {ML_ARG(problem->output), ML_ARG(state->n), ML_ARG(rounds)};
    ML_LAUNCH(problem, ml_blocks_of(problem, state->n), 0, arguments);
}

/* read_constant_divergent(out, n, distinct, spacing, ROUNDS) */
static void launch_constant_divergent(const ml_problem *problem)
{
    const pattern_state *state = (const pattern_state *)problem->state;
    unsigned rounds = ROUNDS;
    ml_argument arguments[] = {ML_ARG(problem->output), ML_ARG(state->n),
                               ML_ARG(state->spread.distinct), ML_ARG(state->spread.spacing),
                               ML_ARG(rounds)};
    ML_LAUNCH(problem, ml_blocks_of(problem, state->n), 0, arguments);
}

/* read_ldg_divergent(table, out, n, distinct, spacing, ROUNDS) */
static void launch_ldg_divergent(const ml_problem *problem)
{
    const pattern_state *state = (const pattern_state *)problem->state;
    unsigned rounds = ROUNDS;
    ml_argument arguments[] = {ML_ARG(state->table), ML_ARG(problem->output), ML_ARG(state->n),
                               ML_ARG(state->spread.distinct), ML_ARG(state->spread.spacing),
                               ML_ARG(rounds)};
    ML_LAUNCH(problem, ml_blocks_of(problem, state->n), 0, arguments);
}

/* ---- predictions: the access model over the warps of the launch ----------------------------- */

/* Different words one warp-wide load reads: what the constant cache serialises on. Lanes that
 * share a word count once, which is what the model's used bytes count. */
static unsigned distinct_words(const ml_warp_access *access)
{
    return ml_model_global(access).used_bytes / access->width_bytes;
}

/* Every LDC of the convolutions reads one word for the whole warp: a mask weight (the same for
 * every pixel) or a kernel parameter. So one request per instruction. */
static double convolution_constant_requests_per_instruction(void)
{
    ml_warp_access weight;
    ml_warp_access_strided(&weight, 0, 0, sizeof(float), ML_ALL_LANES);
    return distinct_words(&weight);
}

/* The image loads, for one image row that a warp reads at one mask row: warps at columns
 * 0, 32, 64, ..., and for each the mask columns j = 0 .. width - 1. Lane x of the warp at column
 * c0 reads column c0 + x + j - radius if its own pixel exists (c0 + x < cols) and that column
 * is inside the image. Sectors depend on where the image row starts within a 32-byte sector,
 * row_start_floats = (row * cols) % 8 (the buffer is 256-byte aligned). A warp whose lanes all
 * stay inside the image at every j costs the same as any other such warp, so it is modelled
 * once and counted. */
static ml_global_totals image_row_loads(uint64_t cols, int mask_width, unsigned row_start_floats)
{
    int radius = mask_width / 2;
    ml_global_totals row = {0}, interior = {0};
    int interior_known = 0;
    for (uint64_t c0 = 0; c0 < cols; c0 += ML_WARP_SIZE) {
        int is_interior = c0 >= (uint64_t)radius && c0 + ML_WARP_SIZE + radius <= cols;
        if (is_interior && interior_known) {
            ml_global_totals_add_scaled(&row, &interior, 1.0);
            continue;
        }
        ml_global_totals warp = {0};
        for (int j = 0; j < mask_width; j++) {
            ml_warp_access access = {{0}, 0, sizeof(float)};
            for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
                int64_t col = (int64_t)(c0 + lane) + j - radius;
                if (c0 + lane < cols && col >= 0 && col < (int64_t)cols) {
                    access.active_mask |= 1u << lane;
                    access.address[lane] = (row_start_floats + (uint64_t)col) * sizeof(float);
                }
            }
            ml_global_totals_add(&warp, &access, 1.0);
        }
        if (is_interior) {
            interior = warp;
            interior_known = 1;
        }
        ml_global_totals_add_scaled(&row, &warp, 1.0);
    }
    return row;
}

/* Global loads of a convolution: each image row rr is read by the output rows rr - i + radius
 * that exist, one mask row i each (a mask row outside the image is skipped); the global and
 * ldg variants add one load per weight of that mask row per warp, all lanes at one address. */
static ml_global_totals convolution_loads(const convolution_state *sizes, int mask_in_global)
{
    uint64_t rows = (uint64_t)sizes->rows, cols = (uint64_t)sizes->cols;
    int mask_width = sizes->mask_width, radius = mask_width / 2;
    const unsigned floats_per_sector = ML_SECTOR_BYTES / sizeof(float);
    ml_global_totals by_start[ML_SECTOR_BYTES / sizeof(float)];
    int known[ML_SECTOR_BYTES / sizeof(float)] = {0};
    ml_global_totals total = {0};
    double warps_per_row = (double)ml_ceil_div((long long)cols, ML_WARP_SIZE);
    ml_warp_access weight;
    ml_warp_access_strided(&weight, 0, 0, sizeof(float), ML_ALL_LANES);
    for (uint64_t rr = 0; rr < rows; rr++) {
        unsigned start = (unsigned)(rr * cols % floats_per_sector);
        if (!known[start]) {
            by_start[start] = image_row_loads(cols, mask_width, start);
            known[start] = 1;
        }
        /* Output rows rr + radius - i for i = 0 .. mask_width - 1, clipped to the image. */
        int64_t first = (int64_t)rr + radius - (mask_width - 1), last = (int64_t)rr + radius;
        if (first < 0)
            first = 0;
        if (last > (int64_t)rows - 1)
            last = (int64_t)rows - 1;
        double readers = (double)(last - first + 1);
        ml_global_totals_add_scaled(&total, &by_start[start], readers);
        /* Each of those warps loads the mask row's weights, all lanes one address. */
        if (mask_in_global)
            ml_global_totals_add(&total, &weight, readers * warps_per_row * mask_width);
    }
    return total;
}

static void predict_convolution(const ml_problem *problem, int mask_in_global,
                                ml_prediction *prediction)
{
    convolution_state sizes = convolution_sizes(problem);
    ml_global_totals loads = convolution_loads(&sizes, mask_in_global);
    ml_predict(prediction, "gld_requests", loads.requests);
    ml_predict(prediction, "gld_transactions", loads.sectors);
    ml_predict(prediction, "constant_requests_per_instruction",
               convolution_constant_requests_per_instruction());
}

/* The global and ldg variants load the mask from global memory, the constant variant does not. */
static void predict_global_mask(const ml_problem *problem, ml_prediction *prediction)
{
    predict_convolution(problem, 1, prediction);
}

static void predict_constant_mask(const ml_problem *problem, ml_prediction *prediction)
{
    predict_convolution(problem, 0, prediction);
}

/* One load of the first warp of a block, round r (both tables are 256-byte aligned). */
static void pattern_access(const table_words *words, table_spread spread, unsigned r,
                           ml_warp_access *access)
{
    ml_warp_access_strided(access, 0, 0, sizeof(float), ML_ALL_LANES);
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access->address[lane] = words->word(lane, r, spread) * sizeof(float);
}

static double pattern_warps(const ml_problem *problem)
{
    return (double)ml_blocks_for(pixel_count(problem), PATTERN_THREADS) *
           (PATTERN_THREADS / ML_WARP_SIZE);
}

/* The constant patterns: a request per different word of a warp's load; an instruction that
 * needs more than one pass replays the rest. */
static void predict_constant_reads(const ml_problem *problem, ml_prediction *prediction)
{
    const table_words *words = ML_CONSTANTS(table_words, problem);
    ml_warp_access access;
    pattern_access(words, words->spread(problem), 0, &access);
    double words_per_instruction = distinct_words(&access);
    ml_predict(prediction, "constant_requests_per_instruction", words_per_instruction);
    ml_predict(prediction, "constant_replays_per_instruction", words_per_instruction - 1.0);
}

/* Every warp makes ROUNDS loads; the 16 rounds of a cycle start at different offsets within a
 * sector, so each is modelled (ROUNDS is a multiple of 16). */
static void predict_ldg_divergent(const ml_problem *problem, ml_prediction *prediction)
{
    const table_words *words = ML_CONSTANTS(table_words, problem);
    table_spread spread = words->spread(problem);
    ml_global_totals cycle = {0};
    for (unsigned r = 0; r < SLOT_FLOATS; r++) {
        ml_warp_access access;
        pattern_access(words, spread, r, &access);
        ml_global_totals_add(&cycle, &access, 1.0);
    }
    double cycles = pattern_warps(problem) * (ROUNDS / SLOT_FLOATS);
    ml_predict(prediction, "gld_requests", cycles * cycle.requests);
    ml_predict(prediction, "gld_transactions", cycles * cycle.sectors);
    ml_predict(prediction, "gld_transactions_per_request", ml_sectors_per_request(&cycle));
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static const char *check_params(const ml_problem *problem)
{
    static char message[96];
    long long mask = ml_size(problem, "mask");
    if (mask % 2 == 1)
        return NULL;
    snprintf(message, sizeof message, "--mask must be odd (a mask has a centre pixel), got %lld",
             mask);
    return message;
}

/* Input values: the image is random value 0 .. pixels - 1 of the seed, the mask the values
 * after it; the pattern table is values 0 .. TABLE_FLOATS - 1. */
static float image_value(uint64_t seed, uint64_t cols, uint64_t row, uint64_t col)
{
    return ml_random_value(seed, row * cols + col);
}

static void make_mask(uint64_t seed, size_t pixels, int taps, float *mask)
{
    for (int k = 0; k < taps; k++)
        mask[k] = ml_random_value(seed, pixels + (uint64_t)k);
}

/* One output pixel, in double: the reference the float sums are held to. */
static float reference_pixel(uint64_t seed, const convolution_state *state, int64_t row,
                             int64_t col)
{
    int64_t rows = state->rows, cols = state->cols;
    int mask_width = state->mask_width, radius = mask_width / 2;
    double sum = 0.0;
    for (int i = 0; i < mask_width; i++) {
        int64_t image_row = row + i - radius;
        if (image_row < 0 || image_row >= rows)
            continue;
        for (int j = 0; j < mask_width; j++) {
            int64_t image_col = col + j - radius;
            if (image_col >= 0 && image_col < cols)
                sum += (double)state->weights[i * mask_width + j] *
                       image_value(seed, (uint64_t)cols, (uint64_t)image_row, (uint64_t)image_col);
        }
    }
    return (float)sum;
}

/* Adds pixel to the checked list (index may be NULL while counting). */
static size_t add_checked(size_t *index, size_t count, int64_t pixel)
{
    if (index != NULL)
        index[count] = (size_t)pixel;
    return count + 1;
}

/* Pixels the convolution's reference checks. Small problems: all of them. Larger ones: every
 * pixel within a mask radius of an edge, where the zero border matters, and every step-th pixel
 * of the rest, about FULL_CHECK_TAPS taps of work. The step is odd, so the sample falls on
 * every lane of a warp. Returns the count; fills index (in increasing order) if not NULL. */
static size_t choose_checked_pixels(const convolution_state *sizes, size_t *index)
{
    int64_t rows = sizes->rows, cols = sizes->cols;
    int64_t radius = sizes->mask_width / 2, taps = sizes->taps;
    int64_t step = rows * cols * taps <= FULL_CHECK_TAPS ? 1 : rows * cols * taps / FULL_CHECK_TAPS | 1;
    size_t count = 0;
    for (int64_t row = 0; row < rows; row++) {
        int64_t start = row * cols;
        /* Columns [0, left_end) and [right_begin, cols) are edge pixels. */
        int64_t left_end = radius < cols ? radius : cols;
        int64_t right_begin = cols - radius > left_end ? cols - radius : left_end;
        if (row < radius || row >= rows - radius)
            left_end = right_begin = cols;
        for (int64_t col = 0; col < left_end; col++)
            count = add_checked(index, count, start + col);
        int64_t first_sampled = (start + left_end + step - 1) / step * step;
        for (int64_t pixel = first_sampled; pixel < start + right_begin; pixel += step)
            count = add_checked(index, count, pixel);
        for (int64_t col = right_begin; col < cols; col++)
            count = add_checked(index, count, start + col);
    }
    return count;
}

/* A new image and mask from problem->seed: the image on the GPU, the mask (at most 225 weights)
 * on the host and in global memory. */
static void fill_convolution(ml_problem *problem)
{
    convolution_state *state = (convolution_state *)problem->state;
    ml_fill_random(state->image, state->pixels, problem->seed);
    make_mask(problem->seed, state->pixels, state->taps, state->weights);
    ML_CUDA_CHECK(cudaMemcpy(state->mask, state->weights, (size_t)state->taps * sizeof(float),
                             cudaMemcpyHostToDevice));
}

/* The constant variant's mask also goes where its kernel reads it: what
 * cudaMemcpyToSymbol(mask_constant, mask, bytes) would do if the program linked kernels.cu.
 * Only that variant needs the array, so the others run on a kernels file that does not declare
 * it yet. */
static void fill_constant_convolution(ml_problem *problem)
{
    fill_convolution(problem);
    const convolution_state *state = (const convolution_state *)problem->state;
    ml_copy_to_symbol("mask_constant", state->weights, (size_t)state->taps * sizeof(float));
}

static void setup_convolution(ml_problem *problem)
{
    convolution_state *state = (convolution_state *)problem->state;
    *state = convolution_sizes(problem);
    state->image = (float *)ml_device_buffer(problem, state->pixels * sizeof(float));
    state->mask = (float *)ml_device_buffer(problem, (size_t)state->taps * sizeof(float));
    problem->variant->family->fill_inputs(problem);

    /* A float sum of taps products, each below 1 in size, is within taps^2 rounding steps of
     * the exact sum; a wrong weight or a missing tap is off by far more. */
    double tolerance = (double)state->taps * state->taps * ldexp(1.0, -24);
    size_t checked = choose_checked_pixels(state, NULL);
    if (checked < state->pixels) {
        ml_expect_sampled_output_from_reference_at(problem, state->pixels, checked, tolerance);
        choose_checked_pixels(state, problem->check_index);
    } else {
        ml_expect_output_from_reference_at(problem, ML_OUTPUT_WRITTEN, state->pixels, tolerance);
    }
}

/* A convolution pixel costs at most 225 taps (mask 15): a few milliseconds for the harness's
 * ML_RANDOM_CHECKS pixels. */
static void convolution_reference_at(const ml_problem *problem, const size_t *position,
                                     size_t count, void *values)
{
    const convolution_state *state = (const convolution_state *)problem->state;
    float *reference = (float *)values;
    uint64_t cols = (uint64_t)state->cols;
    for (size_t k = 0; k < count; k++)
        reference[k] = reference_pixel(problem->seed, state, (int64_t)(position[k] / cols),
                                       (int64_t)(position[k] % cols));
}

/* A new table from problem->seed, in global memory, and the sum each thread of a block makes of
 * it. Each thread's sum depends only on its position in the block: the lane picks the
 * divergent word, the warp the broadcast word. The CPU adds the same floats in the same order,
 * so the sums agree exactly. */
static void fill_table(ml_problem *problem)
{
    pattern_state *state = (pattern_state *)problem->state;
    const table_words *words = ML_CONSTANTS(table_words, problem);
    for (unsigned k = 0; k < TABLE_FLOATS; k++)
        state->values[k] = ml_random_value(problem->seed, k);
    ML_CUDA_CHECK(cudaMemcpy(state->table, state->values, sizeof state->values,
                             cudaMemcpyHostToDevice));
    for (unsigned thread = 0; thread < PATTERN_THREADS; thread++) {
        float sum = 0.0f;
        for (unsigned r = 0; r < ROUNDS; r++)
            sum += state->values[words->word(thread, r, state->spread)];
        state->thread_sums[thread] = sum;
    }
}

/* The constant patterns' table also goes where their kernels read it: what
 * cudaMemcpyToSymbol(table_constant, table, sizeof table) would do if the program linked
 * kernels.cu. ldg_divergent reads only the copy in global memory. */
static void fill_constant_table(ml_problem *problem)
{
    fill_table(problem);
    const pattern_state *state = (const pattern_state *)problem->state;
    ml_copy_to_symbol("table_constant", state->values, sizeof state->values);
}

/* Element i is thread i % PATTERN_THREADS of its block. */
static void setup_pattern(ml_problem *problem)
{
    pattern_state *state = (pattern_state *)problem->state;
    state->n = pixel_count(problem);
    state->spread = ML_CONSTANTS(table_words, problem)->spread(problem);
    state->table = (float *)ml_device_buffer(problem, TABLE_FLOATS * sizeof(float));
    problem->variant->family->fill_inputs(problem);
    ml_expect_output_from_reference_at(problem, ML_OUTPUT_WRITTEN, state->n, 0.0);
}

/* A pattern element is its thread's sum. */
static void pattern_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                                 void *values)
{
    const pattern_state *state = (const pattern_state *)problem->state;
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++)
        reference[k] = state->thread_sums[position[k] % PATTERN_THREADS];
}

static double convolution_device_bytes(const ml_problem *problem)
{
    return 2.0 * (double)pixel_count(problem) * sizeof(float) + MAX_MASK_TAPS * sizeof(float);
}

static double pattern_device_bytes(const ml_problem *problem)
{
    return (double)pixel_count(problem) * sizeof(float) + TABLE_FLOATS * sizeof(float);
}

/* Every variant writes one float a pixel. */
static double output_bytes(const ml_problem *problem)
{
    return (double)pixel_count(problem) * sizeof(float);
}

/* The image once, and the mask. */
static double convolution_bytes_read(const ml_problem *problem)
{
    convolution_state sizes = convolution_sizes(problem);
    return (double)sizes.pixels * sizeof(float) + sizes.taps * sizeof(float);
}

static double convolution_flops(const ml_problem *problem)
{
    convolution_state sizes = convolution_sizes(problem);
    return 2.0 * sizes.pixels * sizes.taps;
}

/* What the pattern's loads hand to the threads. */
static double pattern_bytes_read(const ml_problem *problem)
{
    return (double)pixel_count(problem) * ROUNDS * sizeof(float);
}

const ml_family global_mask_convolution = {
    .name = "global_mask_convolution", .state_bytes = sizeof(convolution_state),
    .device_bytes = convolution_device_bytes, .setup = setup_convolution,
    .fill_inputs = fill_convolution, .reference_at = convolution_reference_at,
    .launch = launch_global_mask, .predict = predict_global_mask,
    .bytes_read = convolution_bytes_read, .bytes_written = output_bytes, .flops = convolution_flops,
};
const ml_family constant_mask_convolution = {
    .name = "constant_mask_convolution", .state_bytes = sizeof(convolution_state),
    .device_bytes = convolution_device_bytes, .setup = setup_convolution,
    .fill_inputs = fill_constant_convolution, .reference_at = convolution_reference_at,
    .launch = launch_constant_mask, .predict = predict_constant_mask,
    .bytes_read = convolution_bytes_read, .bytes_written = output_bytes, .flops = convolution_flops,
};
const ml_family broadcast_reads = {
    .name = "broadcast_reads", .state_bytes = sizeof(pattern_state),
    .device_bytes = pattern_device_bytes, .setup = setup_pattern,
    .fill_inputs = fill_constant_table, .reference_at = pattern_reference_at,
    .launch = launch_broadcast, .predict = predict_constant_reads, .bytes_read = pattern_bytes_read,
    .bytes_written = output_bytes,
};
const ml_family constant_divergent_reads = {
    .name = "constant_divergent_reads", .state_bytes = sizeof(pattern_state),
    .device_bytes = pattern_device_bytes, .setup = setup_pattern,
    .fill_inputs = fill_constant_table, .reference_at = pattern_reference_at,
    .launch = launch_constant_divergent, .predict = predict_constant_reads,
    .bytes_read = pattern_bytes_read, .bytes_written = output_bytes,
};
const ml_family ldg_divergent_reads = {
    .name = "ldg_divergent_reads", .state_bytes = sizeof(pattern_state),
    .device_bytes = pattern_device_bytes, .setup = setup_pattern,
    .fill_inputs = fill_table, .reference_at = pattern_reference_at,
    .launch = launch_ldg_divergent, .predict = predict_ldg_divergent,
    .bytes_read = pattern_bytes_read, .bytes_written = output_bytes,
};

static const ml_lab lab = {
    .program = "constant_ldg",
    .title = "Lab 03: constant memory and read-only loads",
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
