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
#include <string.h>

#include "memlab.h"

#include "constant_ldg.h"           /* MAX_MASK, the pattern table's layout: shared with kernels.cu */

static_assert(WARP_LANES == ML_WARP_SIZE, "kernels.cu and the access model must agree on a warp");

#define BLOCK_COLS 32               /* a convolution block is 32 x 8 threads: a warp is 32 */
#define BLOCK_ROWS 8                /* neighbouring pixels of one image row */

#define PATTERN_THREADS 256
#define ROUNDS 512                  /* loads each thread of a pattern variant makes */

/* Work a CPU reference may do in full; a larger problem is checked on a sample of pixels. */
#define FULL_CHECK_TAPS (1ll << 26)

enum { PARAM_ROWS, PARAM_COLS, PARAM_MASK, PARAM_DISTINCT, PARAM_SPACING, PARAM_COUNT };

static const ml_param params[PARAM_COUNT] = {
    /* Rows and columns are ints in the kernels; 32768 x 32768 floats is 4 GiB a buffer. */
    {"rows", 4096, 1, 32768, "image rows; every variant makes one thread per pixel"},
    {"cols", 4096, 1, 32768, "image columns"},
    {"mask", 7, 3, MAX_MASK, "convolution: mask width and height, odd"},
    {"distinct", 32, 1, ML_WARP_SIZE, "divergent variants: different words a warp reads"},
    {"spacing", SLOT_FLOATS, 1, SLOT_FLOATS, "divergent variants: floats between those words"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* What each variant reads, and from where: its table argument. The convolution has its mask in
 * three places; the access patterns read one small table, in constant or in global memory. */
enum {
    MASK_GLOBAL,                /* convolve_global: the mask a plain float * */
    MASK_CONSTANT,              /* convolve_constant: the mask in __constant__ mask_constant */
    MASK_LDG,                   /* convolve_ldg: the mask through const __restrict__ and __ldg */
    PATTERN_CONSTANT_BROADCAST, /* read_constant_broadcast: one constant word a warp */
    PATTERN_CONSTANT_DIVERGENT, /* read_constant_divergent: --distinct constant words a warp */
    PATTERN_LDG_DIVERGENT,      /* read_ldg_divergent: the same words through __ldg */
};

static int is_convolution(long long kind)
{
    return kind == MASK_GLOBAL || kind == MASK_CONSTANT || kind == MASK_LDG;
}

static void launch_convolution(const ml_problem *problem);
static void launch_constant_broadcast(const ml_problem *problem);
static void launch_divergent(const ml_problem *problem);
static void predict_convolution(long long kind, const long long *param, ml_prediction *prediction);
static void predict_constant_pattern(long long kind, const long long *param,
                                     ml_prediction *prediction);
static void predict_ldg_divergent(long long kind, const long long *param,
                                  ml_prediction *prediction);

#define CONVOLUTION_METRICS \
    "gld_requests,gld_transactions,global_hit_rate,constant_requests_per_instruction," \
    "constant_hit_rate"
#define CONSTANT_PATTERN_METRICS \
    "constant_requests_per_instruction,constant_replays_per_instruction,constant_hit_rate"
#define LDG_PATTERN_METRICS \
    "gld_requests,gld_transactions,gld_transactions_per_request,global_hit_rate"

static const ml_variant variants[] = {
    {.name = "global", .summary = "convolution, the mask read from a plain float * in global memory",
     .kernel = "convolve_global", .block = {BLOCK_COLS, BLOCK_ROWS}, .launch = launch_convolution,
     .argument = MASK_GLOBAL, .uses = "rows,cols,mask", .metrics = CONVOLUTION_METRICS,
     .predict = predict_convolution},
    {.name = "constant", .summary = "the same convolution, the mask in __constant__ memory",
     .kernel = "convolve_constant", .block = {BLOCK_COLS, BLOCK_ROWS}, .launch = launch_convolution,
     .argument = MASK_CONSTANT, .uses = "rows,cols,mask", .metrics = CONVOLUTION_METRICS,
     .predict = predict_convolution},
    {.name = "ldg", .summary = "the same convolution, the mask read through const __restrict__ and __ldg",
     .kernel = "convolve_ldg", .block = {BLOCK_COLS, BLOCK_ROWS}, .launch = launch_convolution,
     .argument = MASK_LDG, .uses = "rows,cols,mask", .metrics = CONVOLUTION_METRICS,
     .predict = predict_convolution},
    {.name = "constant_broadcast", .summary = "every lane of a warp reads the same constant word",
     .kernel = "read_constant_broadcast", .block = {PATTERN_THREADS},
     .launch = launch_constant_broadcast, .argument = PATTERN_CONSTANT_BROADCAST,
     .uses = "rows,cols", .metrics = CONSTANT_PATTERN_METRICS, .predict = predict_constant_pattern},
    {.name = "constant_divergent", .summary = "the lanes of a warp read --distinct different constant words",
     .kernel = "read_constant_divergent", .block = {PATTERN_THREADS}, .launch = launch_divergent,
     .argument = PATTERN_CONSTANT_DIVERGENT, .uses = "rows,cols,distinct,spacing",
     .metrics = CONSTANT_PATTERN_METRICS, .predict = predict_constant_pattern},
    {.name = "ldg_divergent", .summary = "the same words as constant_divergent, through __ldg from global memory",
     .kernel = "read_ldg_divergent", .block = {PATTERN_THREADS}, .launch = launch_divergent,
     .argument = PATTERN_LDG_DIVERGENT, .uses = "rows,cols,distinct,spacing",
     .metrics = LDG_PATTERN_METRICS, .predict = predict_ldg_divergent},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

/* ---- launches ------------------------------------------------------------------------------- */

typedef struct {
    float *image;               /* convolution input, rows x cols */
    float *mask;                /* convolution mask in global memory */
    float *table;               /* the pattern table in global memory */
    /* What fill_inputs made, for reference_at: the mask's weights (the convolutions), or the sum
     * each thread of a block makes (the patterns). */
    float weights[MAX_MASK_TAPS];
    float thread_sums[PATTERN_THREADS];
} lab_state;

static size_t pixel_count(const long long *param)
{
    return (size_t)param[PARAM_ROWS] * (size_t)param[PARAM_COLS];
}

static dim3 convolution_grid(const long long *param)
{
    return dim3(ml_blocks_for((size_t)param[PARAM_COLS], BLOCK_COLS),
                ml_blocks_for((size_t)param[PARAM_ROWS], BLOCK_ROWS));
}

/* The convolutions' int arguments: rows, cols and mask width. */
typedef struct {
    int rows, cols, mask_width;
} convolution_sizes;

static convolution_sizes sizes_of(const long long *param)
{
    convolution_sizes sizes = {(int)param[PARAM_ROWS], (int)param[PARAM_COLS], (int)param[PARAM_MASK]};
    return sizes;
}

/* Each launch is what kernel<<<grid, block>>>(arguments) would be if the program linked
 * kernels.cu; ml_launch runs the kernel found by name in the loaded kernels file, with the
 * block of its table entry. */
static void launch_convolution(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    convolution_sizes sizes = sizes_of(problem->param);
    /* convolve_global<<<grid, dim3(BLOCK_COLS, BLOCK_ROWS)>>>(image, mask, out, rows, cols,
     *                                                        mask_width), convolve_ldg the same */
    void *with_mask[] = {(void *)&state->image, (void *)&state->mask, (void *)&problem->output,
                         &sizes.rows, &sizes.cols, &sizes.mask_width};
    /* convolve_constant<<<grid, dim3(BLOCK_COLS, BLOCK_ROWS)>>>(image, out, rows, cols,
     *                                                          mask_width): no mask argument,
     * it reads mask_constant */
    void *without_mask[] = {(void *)&state->image, (void *)&problem->output, &sizes.rows,
                            &sizes.cols, &sizes.mask_width};
    ml_launch(problem, convolution_grid(problem->param), 0,
              problem->argument == MASK_CONSTANT ? without_mask : with_mask);
}

static void launch_constant_broadcast(const ml_problem *problem)
{
    size_t n = pixel_count(problem->param);
    unsigned rounds = ROUNDS;
    /* read_constant_broadcast<<<blocks, PATTERN_THREADS>>>(out, n, ROUNDS) */
    void *arguments[] = {(void *)&problem->output, &n, &rounds};
    ml_launch(problem, ml_blocks_of(problem, n), 0, arguments);
}

static void launch_divergent(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    const long long *param = problem->param;
    size_t n = pixel_count(param);
    unsigned distinct = (unsigned)param[PARAM_DISTINCT], spacing = (unsigned)param[PARAM_SPACING];
    unsigned rounds = ROUNDS;
    /* read_constant_divergent<<<blocks, PATTERN_THREADS>>>(out, n, distinct, spacing, ROUNDS) */
    void *from_constant[] = {(void *)&problem->output, &n, &distinct, &spacing, &rounds};
    /* read_ldg_divergent<<<blocks, PATTERN_THREADS>>>(table, out, n, distinct, spacing, ROUNDS) */
    void *from_global[] = {(void *)&state->table, (void *)&problem->output, &n, &distinct,
                           &spacing, &rounds};
    ml_launch(problem, ml_blocks_of(problem, n), 0,
              problem->argument == PATTERN_LDG_DIVERGENT ? from_global : from_constant);
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
static ml_global_totals convolution_loads(const long long *param, int mask_in_global)
{
    uint64_t rows = (uint64_t)param[PARAM_ROWS], cols = (uint64_t)param[PARAM_COLS];
    int mask_width = (int)param[PARAM_MASK], radius = mask_width / 2;
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

/* The global and ldg variants load the mask from global memory, the constant variant does not. */
static void predict_convolution(long long kind, const long long *param, ml_prediction *prediction)
{
    ml_global_totals loads = convolution_loads(param, kind != MASK_CONSTANT);
    ml_predict(prediction, "gld_requests", loads.requests);
    ml_predict(prediction, "gld_transactions", loads.sectors);
    ml_predict(prediction, "constant_requests_per_instruction",
               convolution_constant_requests_per_instruction());
}

/* The word a thread reads at round r: the kernels' indexing, on the host. */
static unsigned broadcast_word(unsigned thread, unsigned r)
{
    return thread / ML_WARP_SIZE % ML_WARP_SIZE * SLOT_FLOATS + r % SLOT_FLOATS;
}

static unsigned divergent_word(unsigned lane, unsigned r, const long long *param)
{
    return lane % (unsigned)param[PARAM_DISTINCT] * (unsigned)param[PARAM_SPACING] +
           r % SLOT_FLOATS;
}

/* One load of the divergent pattern, round r (both tables are 256-byte aligned). */
static void divergent_access(ml_warp_access *access, unsigned r, const long long *param)
{
    ml_warp_access_strided(access, 0, 0, sizeof(float), ML_ALL_LANES);
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access->address[lane] = divergent_word(lane, r, param) * sizeof(float);
}

static double pattern_warps(const long long *param)
{
    return (double)ml_blocks_for(pixel_count(param), PATTERN_THREADS) *
           (PATTERN_THREADS / ML_WARP_SIZE);
}

/* The constant patterns: a request per different word of a warp's load; an instruction that
 * needs more than one pass replays the rest. */
static void predict_constant_pattern(long long kind, const long long *param,
                                     ml_prediction *prediction)
{
    ml_warp_access access;
    if (kind == PATTERN_CONSTANT_BROADCAST)
        ml_warp_access_strided(&access, broadcast_word(0, 0) * sizeof(float), 0, sizeof(float),
                               ML_ALL_LANES);
    else
        divergent_access(&access, 0, param);
    double words_per_instruction = distinct_words(&access);
    ml_predict(prediction, "constant_requests_per_instruction", words_per_instruction);
    ml_predict(prediction, "constant_replays_per_instruction", words_per_instruction - 1.0);
}

/* Every warp makes ROUNDS loads; the 16 rounds of a cycle start at different offsets within a
 * sector, so each is modelled (ROUNDS is a multiple of 16). */
static void predict_ldg_divergent(long long kind, const long long *param,
                                  ml_prediction *prediction)
{
    (void)kind;
    ml_global_totals cycle = {0};
    for (unsigned r = 0; r < SLOT_FLOATS; r++) {
        ml_warp_access access;
        divergent_access(&access, r, param);
        ml_global_totals_add(&cycle, &access, 1.0);
    }
    double cycles = pattern_warps(param) * (ROUNDS / SLOT_FLOATS);
    ml_predict(prediction, "gld_requests", cycles * cycle.requests);
    ml_predict(prediction, "gld_transactions", cycles * cycle.sectors);
    ml_predict(prediction, "gld_transactions_per_request", ml_sectors_per_request(&cycle));
}

/* ---- CPU reference, buffers ---------------------------------------------------------------- */

static const char *check_params(const long long *param)
{
    static char message[96];
    if (param[PARAM_MASK] % 2 == 1)
        return NULL;
    snprintf(message, sizeof message,
             "--mask must be odd (a mask has a centre pixel), got %lld", param[PARAM_MASK]);
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
static float reference_pixel(uint64_t seed, const long long *param, const float *mask, int64_t row,
                             int64_t col)
{
    int64_t rows = param[PARAM_ROWS], cols = param[PARAM_COLS];
    int mask_width = (int)param[PARAM_MASK], radius = mask_width / 2;
    double sum = 0.0;
    for (int i = 0; i < mask_width; i++) {
        int64_t image_row = row + i - radius;
        if (image_row < 0 || image_row >= rows)
            continue;
        for (int j = 0; j < mask_width; j++) {
            int64_t image_col = col + j - radius;
            if (image_col >= 0 && image_col < cols)
                sum += (double)mask[i * mask_width + j] *
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
static size_t choose_checked_pixels(const long long *param, size_t *index)
{
    int64_t rows = param[PARAM_ROWS], cols = param[PARAM_COLS];
    int64_t radius = param[PARAM_MASK] / 2, taps = param[PARAM_MASK] * param[PARAM_MASK];
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
 * on the host, copied where each variant reads it. */
static void fill_convolution(ml_problem *problem, lab_state *state)
{
    size_t pixels = pixel_count(problem->param);
    int taps = (int)(problem->param[PARAM_MASK] * problem->param[PARAM_MASK]);
    ml_fill_random(state->image, pixels, problem->seed);
    make_mask(problem->seed, pixels, taps, state->weights);
    ML_CUDA_CHECK(cudaMemcpy(state->mask, state->weights, (size_t)taps * sizeof(float),
                             cudaMemcpyHostToDevice));
    /* The constant variant's mask: what cudaMemcpyToSymbol(mask_constant, mask, bytes) would
     * do if the program linked kernels.cu. Only that variant needs the array, so the others run
     * on a kernels file that does not declare it yet. */
    if (problem->argument == MASK_CONSTANT)
        ml_copy_to_symbol("mask_constant", state->weights, (size_t)taps * sizeof(float));
}

static void setup_convolution(ml_problem *problem, lab_state *state)
{
    const long long *param = problem->param;
    size_t pixels = pixel_count(param);
    int taps = (int)(param[PARAM_MASK] * param[PARAM_MASK]);

    state->image = (float *)ml_device_alloc(pixels * sizeof(float));
    state->mask = (float *)ml_device_alloc((size_t)taps * sizeof(float));
    fill_convolution(problem, state);

    size_t checked = choose_checked_pixels(param, NULL);
    float *reference = (float *)ml_host_alloc(checked * sizeof(float));
    if (checked < pixels) {
        problem->check_index = (size_t *)ml_host_alloc(checked * sizeof(size_t));
        problem->check_count = checked;
        choose_checked_pixels(param, problem->check_index);
    }
    uint64_t cols = (uint64_t)param[PARAM_COLS];
#pragma omp parallel for
    for (size_t k = 0; k < checked; k++) {
        size_t pixel = problem->check_index != NULL ? problem->check_index[k] : k;
        reference[k] = reference_pixel(problem->seed, param, state->weights,
                                       (int64_t)(pixel / cols), (int64_t)(pixel % cols));
    }
    problem->reference = reference;
    /* A float sum of taps products, each below 1 in size, is within taps^2 rounding steps of
     * the exact sum; a wrong weight or a missing tap is off by far more. */
    problem->tolerance = (double)taps * taps * ldexp(1.0, -24);
    problem->bytes = 2.0 * pixels * sizeof(float) + taps * sizeof(float);
    problem->flops = 2.0 * pixels * taps;
}

/* A new table from problem->seed, in constant memory and in global memory, and the sum each
 * thread of a block makes of it. Each thread's sum depends only on its position in the block:
 * the lane picks the divergent word, the warp the broadcast word. The CPU adds the same floats
 * in the same order, so the sums agree exactly. */
static void fill_pattern(ml_problem *problem, lab_state *state)
{
    int broadcast = problem->argument == PATTERN_CONSTANT_BROADCAST;
    float table[TABLE_FLOATS];
    for (unsigned k = 0; k < TABLE_FLOATS; k++)
        table[k] = ml_random_value(problem->seed, k);
    /* What cudaMemcpyToSymbol(table_constant, table, sizeof table) would do if the program
     * linked kernels.cu; ldg_divergent reads only the copy in global memory. */
    if (problem->argument != PATTERN_LDG_DIVERGENT)
        ml_copy_to_symbol("table_constant", table, sizeof table);
    ML_CUDA_CHECK(cudaMemcpy(state->table, table, sizeof table, cudaMemcpyHostToDevice));

    for (unsigned thread = 0; thread < PATTERN_THREADS; thread++) {
        float sum = 0.0f;
        for (unsigned r = 0; r < ROUNDS; r++)
            sum += table[broadcast ? broadcast_word(thread, r)
                                   : divergent_word(thread % ML_WARP_SIZE, r, problem->param)];
        state->thread_sums[thread] = sum;
    }
}

/* Element i is thread i % PATTERN_THREADS of its block. */
static void setup_pattern(ml_problem *problem, lab_state *state)
{
    size_t n = pixel_count(problem->param);
    state->table = (float *)ml_device_alloc(TABLE_FLOATS * sizeof(float));
    fill_pattern(problem, state);
    float *reference = (float *)ml_host_alloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        reference[i] = state->thread_sums[i % PATTERN_THREADS];
    problem->reference = reference;
    problem->tolerance = 0.0;
    problem->bytes = (double)n * (ROUNDS + 1) * sizeof(float);
    problem->flops = 0;
}

/* Everything a variant reads, new from problem->seed: the image and the mask (in global and,
 * for the constant variant, in constant memory), or the pattern table. */
static void fill_inputs(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    if (is_convolution(problem->argument))
        fill_convolution(problem, state);
    else
        fill_pattern(problem, state);
}

/* A convolution pixel costs at most 225 taps (mask 15): a few milliseconds for the harness's
 * ML_RANDOM_CHECKS pixels. A pattern element is its thread's sum. */
static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    const lab_state *state = (const lab_state *)problem->state;
    float *reference = (float *)values;
    uint64_t cols = (uint64_t)problem->param[PARAM_COLS];
    for (size_t k = 0; k < count; k++)
        reference[k] = is_convolution(problem->argument)
                           ? reference_pixel(problem->seed, problem->param, state->weights,
                                             (int64_t)(position[k] / cols),
                                             (int64_t)(position[k] % cols))
                           : state->thread_sums[position[k] % PATTERN_THREADS];
}

static double device_bytes(const ml_variant *variant, const long long *param)
{
    double pixels = (double)pixel_count(param);
    if (is_convolution(variant->argument))
        return 2.0 * pixels * sizeof(float) + MAX_MASK_TAPS * sizeof(float);
    return pixels * sizeof(float) + TABLE_FLOATS * sizeof(float);
}

static void setup(ml_problem *problem)
{
    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    memset(state, 0, sizeof *state);
    problem->state = state;
    if (is_convolution(problem->argument))
        setup_convolution(problem, state);
    else
        setup_pattern(problem, state);
    problem->output_count = pixel_count(problem->param);
    problem->output = (float *)ml_device_alloc(problem->output_count * sizeof(float));
}

static void teardown(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_device_free(state->image);
    ml_device_free(state->mask);
    ml_device_free(state->table);
    ml_device_free(problem->output);
    free(state);
}

static const ml_lab lab = {
    .program = "constant_ldg",
    .title = "Lab 03: constant memory and read-only loads",
    .params = params,
    .num_params = PARAM_COUNT,
    .variants = variants,
    .num_variants = VARIANT_COUNT,
    .device_bytes = device_bytes,
    .setup = setup,
    .teardown = teardown,
    .check_params = check_params,
    .kernels = &ml_lab_kernels,
    .fill_inputs = fill_inputs,
    .reference_at = reference_at,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
