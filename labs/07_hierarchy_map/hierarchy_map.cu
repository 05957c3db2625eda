/* Lab 07: a map of the memory hierarchy, measured on this GPU. The host program (the
 * instructor's): sizes, variants, launches, the model's predictions, the CPU reference. The
 * kernels are in kernels.cu, loaded by name (--kernels FILE runs another file).
 *
 * Latency variants (cycles and ns per dependent operation, from the kernel's own clock64()):
 *   chase               global loads over --working_set, links --stride bytes apart: the staircase
 *                       (--sweep working_set=...), and the TLB with a large stride
 *   l1_chase, l2_chase, dram_chase
 *                       the same chase over a working set the model puts in L1 (an eighth of it),
 *                       in L2 (an eighth of it) or beyond (four L2s)
 *   shared_chase        shared memory
 *   local_chase         a per-thread array indexed at run time (local memory)
 *   constant_chase      __constant__ memory, a 1 KiB chain, one address a warp (broadcast)
 *   constant_miss       __constant__ memory, a 56 KiB chain, 256 bytes a link
 *   constant_divergent  the 1 KiB chain with 32 lanes at 32 places (32 addresses a load)
 *   register_chain      dependent FMAs
 * Bandwidth variants (GB/s, every SM busy): shared, l1, l2, dram, constant broadcast.
 *
 * A chain visits its links in a random order (a single cycle, Sattolo's shuffle from --seed), so
 * no prefetcher can guess the next address. Every launch starts it at a new place drawn from
 * its seed; the CPU knows where the chain ends after any number of loads, and the kernel must
 * end there.
 *
 * Build:  ./memlab run hierarchy_map --help      (or: make -f Makefile.labs hierarchy_map)
 * Try:    hierarchy_map --variant all
 *         hierarchy_map --variant chase --sweep working_set=16384,65536,262144,4194304,67108864
 *         hierarchy_map --model                  (predictions only, no GPU)
 */
#include <math.h>
#include <string.h>

#include "memlab.h"
#include "hierarchy_map.h"

enum { PARAM_WORKING_SET, PARAM_STRIDE, PARAM_LOADS, PARAM_COUNT };

#define KIB 1024ll
#define MIB (1024ll * 1024ll)
#define LINE_BYTES 128          /* an L1 and L2 line: a chain uses one 4-byte word of each */

static const ml_param params[PARAM_COUNT] = {
    {"working_set", 64 * KIB, 2 * LINE_BYTES, 4096 * MIB, "chase: bytes of memory the chain spans"},
    {"stride", LINE_BYTES, LINE_BYTES, 1024 * MIB,
     "chase: bytes between links (a multiple of 128; large strides show the TLB)"},
    {"loads", 16384, 256, 1 << 24, "latency variants: dependent operations timed"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

enum {
    CHASE_SWEPT, CHASE_L1, CHASE_L2, CHASE_DRAM, CHASE_SHARED, CHASE_LOCAL,
    CONSTANT_HIT, CONSTANT_MISS, CONSTANT_DIVERGENT, REGISTER_CHAIN,
    BANDWIDTH_SHARED, BANDWIDTH_L1, BANDWIDTH_L2, BANDWIDTH_DRAM, BANDWIDTH_CONSTANT,
};

static void launch_chase(const ml_problem *problem);
static void launch_word_chase(const ml_problem *problem);
static void launch_constant_chase(const ml_problem *problem);
static void launch_register_chain(const ml_problem *problem);
static void launch_bandwidth(const ml_problem *problem);
static void predict_chase(long long kind, const long long *param, ml_prediction *prediction);
static void predict_on_chip(long long kind, const long long *param, ml_prediction *prediction);
static void predict_bandwidth(long long kind, const long long *param, ml_prediction *prediction);

#define CHASE_METRICS "global_hit_rate,l2_read_sectors,dram_read_bytes"
#define CONSTANT_METRICS "constant_instructions,constant_requests_per_instruction,constant_hit_rate"

static const ml_variant variants[] = {
    {.name = "chase", .summary = "dependent global loads over --working_set: L1, L2 or DRAM, by size",
     .kernel = "chase_global", .block = {1}, .launch = launch_chase, .argument = CHASE_SWEPT,
     .uses = "working_set,stride,loads", .metrics = CHASE_METRICS, .predict = predict_chase,
     .course_figure = "L1 1, device memory 200-800 cycles"},
    {.name = "l1_chase", .summary = "dependent global loads over an eighth of the L1",
     .kernel = "chase_global", .block = {1}, .launch = launch_chase, .argument = CHASE_L1,
     .uses = "loads", .metrics = CHASE_METRICS, .predict = predict_chase, .course_figure = "1 cycle"},
    {.name = "l2_chase", .summary = "dependent global loads over an eighth of the L2",
     .kernel = "chase_global", .block = {1}, .launch = launch_chase, .argument = CHASE_L2,
     .uses = "loads", .metrics = CHASE_METRICS, .predict = predict_chase,
     .course_figure = "(no L2 in the table)"},
    {.name = "dram_chase", .summary = "dependent global loads over four times the L2",
     .kernel = "chase_global", .block = {1}, .launch = launch_chase, .argument = CHASE_DRAM,
     .uses = "loads", .metrics = CHASE_METRICS, .predict = predict_chase,
     .course_figure = "200-800 cycles"},
    {.name = "shared_chase", .summary = "dependent shared-memory loads (a 16 KiB chain)",
     .kernel = "chase_shared", .block = {1}, .launch = launch_word_chase,
     .argument = CHASE_SHARED, .uses = "loads", .metrics = "shared_ld_instructions",
     .predict = predict_on_chip, .course_figure = "~1 cycle"},
    {.name = "local_chase", .summary = "dependent loads from a thread's own array in local memory",
     .kernel = "chase_local", .block = {1}, .launch = launch_word_chase,
     .argument = CHASE_LOCAL, .uses = "loads", .metrics = "local_load_transactions",
     .predict = predict_on_chip, .course_figure = "200-800 cycles (off chip)"},
    {.name = "constant_chase", .summary = "dependent __constant__ loads, one address a warp (1 KiB)",
     .kernel = "chase_constant", .block = {32}, .launch = launch_constant_chase,
     .argument = CONSTANT_HIT, .uses = "loads", .metrics = CONSTANT_METRICS,
     .predict = predict_on_chip, .course_figure = "~1 cycle"},
    {.name = "constant_miss", .summary = "dependent __constant__ loads over 56 KiB, 256 bytes apart",
     .kernel = "chase_constant", .block = {32}, .launch = launch_constant_chase,
     .argument = CONSTANT_MISS, .uses = "loads", .metrics = CONSTANT_METRICS,
     .predict = predict_on_chip, .course_figure = "~1 cycle (cached)"},
    {.name = "constant_divergent", .summary = "dependent __constant__ loads, 32 addresses a warp",
     .kernel = "chase_constant", .block = {32}, .launch = launch_constant_chase,
     .argument = CONSTANT_DIVERGENT, .uses = "loads", .metrics = CONSTANT_METRICS,
     .predict = predict_on_chip, .course_figure = "~1 cycle (cached)"},
    {.name = "register_chain", .summary = "dependent FMAs on registers",
     .kernel = "fma_chain", .block = {1}, .launch = launch_register_chain,
     .argument = REGISTER_CHAIN, .uses = "loads", .metrics = "", .predict = predict_on_chip,
     .course_figure = "1 cycle"},
    {.name = "shared_bandwidth", .summary = "every SM reading its shared memory",
     .kernel = "read_shared", .block = {BANDWIDTH_THREADS}, .launch = launch_bandwidth,
     .argument = BANDWIDTH_SHARED, .uses = "", .metrics = "shared_ld_instructions",
     .predict = predict_bandwidth},
    {.name = "l1_bandwidth", .summary = "every SM reading a 32 KiB region its L1 holds",
     .kernel = "read_region", .block = {BANDWIDTH_THREADS}, .launch = launch_bandwidth,
     .argument = BANDWIDTH_L1, .uses = "", .metrics = "global_hit_rate",
     .predict = predict_bandwidth},
    {.name = "l2_bandwidth", .summary = "the grid reading a quarter of the L2 with __ldcg",
     .kernel = "read_grid_l2", .block = {BANDWIDTH_THREADS}, .launch = launch_bandwidth,
     .argument = BANDWIDTH_L2, .uses = "", .metrics = "dram_read_bytes",
     .predict = predict_bandwidth},
    {.name = "dram_bandwidth", .summary = "the grid reading four times the L2 once",
     .kernel = "read_grid_l2", .block = {BANDWIDTH_THREADS}, .launch = launch_bandwidth,
     .argument = BANDWIDTH_DRAM, .uses = "", .metrics = "l2_hit_rate,dram_read_bytes",
     .predict = predict_bandwidth},
    {.name = "constant_bandwidth", .summary = "every warp reading one __constant__ float4 (broadcast)",
     .kernel = "read_constant", .block = {BANDWIDTH_THREADS}, .launch = launch_bandwidth,
     .argument = BANDWIDTH_CONSTANT, .uses = "", .metrics = "constant_requests_per_instruction",
     .predict = predict_bandwidth},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

static int is_global_chase(long long kind)
{
    return kind == CHASE_SWEPT || kind == CHASE_L1 || kind == CHASE_L2 || kind == CHASE_DRAM;
}

static int is_bandwidth(long long kind)
{
    return kind >= BANDWIDTH_SHARED;
}

/* ---- the global chase's working set ---------------------------------------------------------- */

/* The span and stride of a global chase: the parameters for `chase`, else a size the model GPU
 * puts in one level, a line a link. */
static void chase_span(long long kind, const long long *param, uint64_t *bytes, uint64_t *stride)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    *stride = LINE_BYTES;
    switch (kind) {
    case CHASE_L1:
        *bytes = (uint64_t)(gpu->l1_bytes / 8);
        break;
    case CHASE_L2:
        *bytes = (uint64_t)(gpu->l2_bytes / 8) / LINE_BYTES * LINE_BYTES;
        break;
    case CHASE_DRAM:
        *bytes = (uint64_t)(gpu->l2_bytes * 4) / LINE_BYTES * LINE_BYTES;
        break;
    default:
        *bytes = (uint64_t)param[PARAM_WORKING_SET];
        *stride = (uint64_t)param[PARAM_STRIDE];
    }
}

static uint64_t chase_links(long long kind, const long long *param)
{
    uint64_t bytes, stride;
    chase_span(kind, param, &bytes, &stride);
    return bytes / stride;
}

/* What the caches hold of the chain: one line per link. */
static double chase_footprint(long long kind, const long long *param)
{
    return (double)chase_links(kind, param) * LINE_BYTES;
}

/* The untimed first loads: one lap of the chain, which leaves it in the caches that can hold
 * it. A chain of more than twice the L2 goes without: no cache keeps it, and a lap would take
 * seconds. */
static uint64_t chase_warm_loads(long long kind, const long long *param)
{
    return chase_footprint(kind, param) <= 2 * ml_model_gpu()->l2_bytes ? chase_links(kind, param)
                                                                        : 0;
}

static const char *check_params(const long long *param)
{
    if (param[PARAM_STRIDE] % LINE_BYTES != 0)
        return "--stride must be a multiple of 128 bytes (one link a line)";
    if (param[PARAM_WORKING_SET] / param[PARAM_STRIDE] < 2)
        return "--working_set must hold at least two links of --stride bytes";
    return NULL;
}

/* ---- launches -------------------------------------------------------------------------------- */

typedef struct {
    unsigned *next;             /* the chain: next[j] is the index of the link after j */
    unsigned start;             /* the first link's index */
    unsigned *starts;           /* chase_constant: each lane's first link */
    uint32_t *order;            /* host: the links in the order the chain visits them */
    uint64_t links, per_link;   /* the chain's links, and words a link */
    uint64_t loads;             /* the loads a lane makes, warm and timed */
    unsigned ends[32];          /* where each lane's chase ends, for the inputs fill_inputs made */
    float *x;                   /* fma_chain's starting value */
    float fma_end;              /* where the FMA chain ends from it, on the CPU */
    float4 *in;                 /* the bandwidth kernels' input */
    size_t vectors;             /* float4s a bandwidth kernel reads a round */
    unsigned rounds;
    unsigned blocks;
} lab_state;

static void launch_chase(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    unsigned warm = (unsigned)chase_warm_loads(problem->argument, problem->param);
    unsigned timed = (unsigned)problem->param[PARAM_LOADS];
    /* chase_global(next, start, warm_loads, timed_loads, end, cycles) */
    void *arguments[] = {(void *)&state->next, (void *)&state->start, &warm, &timed,
                         (void *)&problem->output, (void *)&problem->cycles};
    ml_launch(problem, dim3(1), 0, arguments);
}

/* The chases whose chain every word of is a link: shared and local memory. */
static void launch_word_chase(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    unsigned timed = (unsigned)problem->param[PARAM_LOADS];
    /* chase_shared(next, start, timed_loads, end, cycles); chase_local likewise */
    void *arguments[] = {(void *)&state->next, (void *)&state->start, &timed,
                         (void *)&problem->output, (void *)&problem->cycles};
    ml_launch(problem, dim3(1), 0, arguments);
}

/* The constant chains: 256 links of one word (1 KiB), or a link every 256 bytes (64 words) of
 * the whole 56 KiB. */
#define CONSTANT_MISS_WORDS_PER_LINK 64
#define CONSTANT_LINE_BYTES 64  /* the constant cache's line */

static unsigned constant_words_per_link(long long kind)
{
    return kind == CONSTANT_MISS ? CONSTANT_MISS_WORDS_PER_LINK : 1;
}

static unsigned constant_links(long long kind)
{
    return kind == CONSTANT_MISS ? CONSTANT_CHAIN_WORDS / CONSTANT_MISS_WORDS_PER_LINK : 256;
}

/* One lap of the chain warms the constant caches. */
static void launch_constant_chase(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    unsigned warm = constant_links(problem->argument);
    unsigned timed = (unsigned)problem->param[PARAM_LOADS];
    /* chase_constant(starts, warm_loads, timed_loads, ends, cycles) */
    void *arguments[] = {(void *)&state->starts, &warm, &timed, (void *)&problem->output,
                         (void *)&problem->cycles};
    ml_launch(problem, dim3(1), 0, arguments);
}

static void launch_register_chain(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    unsigned timed = (unsigned)problem->param[PARAM_LOADS];
    /* fma_chain(x, timed_operations, out, cycles) */
    void *arguments[] = {(void *)&state->x, &timed, (void *)&problem->output,
                         (void *)&problem->cycles};
    ml_launch(problem, dim3(1), 0, arguments);
}

static void launch_bandwidth(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    unsigned vectors = (unsigned)state->vectors;
    size_t grid_vectors = state->vectors;
    /* read_shared(in, rounds, sums); read_region(in, vectors, rounds, sums);
     * read_grid_l2(in, vectors, rounds, sums); read_constant(rounds, sums) */
    void *shared_arguments[] = {(void *)&state->in, (void *)&state->rounds, (void *)&problem->output};
    void *region_arguments[] = {(void *)&state->in, &vectors, (void *)&state->rounds,
                                (void *)&problem->output};
    void *grid_arguments[] = {(void *)&state->in, &grid_vectors, (void *)&state->rounds,
                              (void *)&problem->output};
    void *constant_arguments[] = {(void *)&state->rounds, (void *)&problem->output};
    void **arguments = problem->argument == BANDWIDTH_SHARED ? shared_arguments
                       : problem->argument == BANDWIDTH_L1   ? region_arguments
                       : problem->argument == BANDWIDTH_CONSTANT ? constant_arguments
                                                                 : grid_arguments;
    ml_launch(problem, dim3(state->blocks), 0, arguments);
}

/* ---- the bandwidth runs' sizes --------------------------------------------------------------- */

/* Four blocks of 512 threads fill an SM (2,048 threads). The rounds make each kernel run long
 * beside the cost of its launch. */
#define BANDWIDTH_BLOCKS_PER_SM 4
#define REGION_VECTORS 2048     /* read_region: 32 KiB, the same for every block */

typedef struct {
    size_t vectors;             /* float4s of the input */
    unsigned rounds;
} bandwidth_run;

static bandwidth_run bandwidth_size(long long kind)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    size_t threads = (size_t)gpu->sm_count * BANDWIDTH_BLOCKS_PER_SM * BANDWIDTH_THREADS;
    switch (kind) {
    case BANDWIDTH_SHARED:
        return (bandwidth_run){SHARED_BANDWIDTH_VECTORS, 2000};
    case BANDWIDTH_L1:
        return (bandwidth_run){REGION_VECTORS, 1000};
    case BANDWIDTH_L2: /* a quarter of the L2, a whole number of the grid's float4s */
        return (bandwidth_run){(size_t)(gpu->l2_bytes / 4 / 16) / threads * threads, 200};
    case BANDWIDTH_DRAM:
        return (bandwidth_run){(size_t)(gpu->l2_bytes * 4 / 16) / threads * threads, 1};
    default: /* BANDWIDTH_CONSTANT */
        return (bandwidth_run){CONSTANT_BANDWIDTH_VECTORS, 4096};
    }
}

static unsigned bandwidth_blocks(void)
{
    return (unsigned)ml_model_gpu()->sm_count * BANDWIDTH_BLOCKS_PER_SM;
}

/* Bytes the threads read: each reads its float4s every round (read_shared and read_region: a
 * block reads all of its buffer a round; read_constant: one float4 a thread a round). */
static double bandwidth_bytes(long long kind)
{
    bandwidth_run run = bandwidth_size(kind);
    double blocks = bandwidth_blocks();
    switch (kind) {
    case BANDWIDTH_SHARED:
    case BANDWIDTH_L1:
        return blocks * (double)run.vectors * 16.0 * run.rounds;
    case BANDWIDTH_CONSTANT:
        return blocks * BANDWIDTH_THREADS * 16.0 * run.rounds;
    default:
        return (double)run.vectors * 16.0 * run.rounds;
    }
}

/* ---- predictions ----------------------------------------------------------------------------- */

/* Where the model puts a chain of lines, by its footprint against the model GPU's L1 and L2
 * sizes: the L1 up to three quarters of the L1, a mix of L1 and L2 up to one and a half L1s,
 * the L2 up to half the L2, a slower L2 plateau up to 0.95 of the L2, a mix of L2 and DRAM up to
 * twice the L2, DRAM beyond (where chase_warm_loads makes no warm lap). */
typedef enum { LEVEL_L1, LEVEL_L1_L2, LEVEL_L2, LEVEL_L2_FAR, LEVEL_L2_DRAM, LEVEL_DRAM } level;

static level chase_level(double footprint)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    if (footprint <= 0.75 * gpu->l1_bytes)
        return LEVEL_L1;
    if (footprint <= 1.5 * gpu->l1_bytes)
        return LEVEL_L1_L2;
    if (footprint <= 0.5 * gpu->l2_bytes)
        return LEVEL_L2;
    if (footprint <= 0.95 * gpu->l2_bytes)
        return LEVEL_L2_FAR;
    if (footprint <= 2 * gpu->l2_bytes)
        return LEVEL_L2_DRAM;
    return LEVEL_DRAM;
}

static const char *const level_names[] = {"L1", "L1 and L2", "L2", "L2 (far half)",
                                          "L2 and DRAM", "DRAM"};

/* The DRAM bytes of the chase's DRAM fills, as a range: from low_fills fills to 1.3 times
 * high_fills fills, plus 160 KiB and 128 bytes a 2 MiB page the chain spans for what else DRAM
 * serves while one thread chases (page-table walks, instruction fetches). */
static void predict_dram_fills(ml_prediction *prediction, double low_fills, double high_fills,
                               double span_bytes)
{
    double fill = ml_model_gpu()->dram_fill_bytes;
    double pages = ceil(span_bytes / (2.0 * MIB));
    ml_predict_range(prediction, "dram_read_bytes", low_fills * fill,
                     1.3 * high_fills * fill + 160 * KIB + 128 * pages,
                     "a DRAM fill a missed link, and page-table walks and instruction fetches");
}

/* Every load is one 4-byte word: one sector of one line. The warm lap misses everywhere (the
 * harness empties the L2 before each launch): each of its loads is an L2 read and a DRAM fill.
 * A timed load the L1 misses is an L2 read; one the L2 misses, a DRAM fill too. */
static void predict_chase(long long kind, const long long *param, ml_prediction *prediction)
{
    uint64_t bytes, stride;
    chase_span(kind, param, &bytes, &stride);
    double links = (double)chase_links(kind, param);
    double warm = (double)chase_warm_loads(kind, param);
    double timed = (double)param[PARAM_LOADS];
    double loads = warm + timed;
    double timed_pct = 100.0 * timed / loads;
    level where = chase_level(chase_footprint(kind, param));
    prediction->served_by = level_names[where];
    switch (where) {
    case LEVEL_L1:
        ml_predict(prediction, "global_hit_rate", timed_pct);
        ml_predict(prediction, "l2_read_sectors", warm);
        predict_dram_fills(prediction, warm, warm, (double)bytes);
        break;
    case LEVEL_L1_L2:
        ml_predict_range(prediction, "global_hit_rate", 0, timed_pct,
                         "a lap of the chain about fills the L1: some of it stays there");
        ml_predict_range(prediction, "l2_read_sectors", warm, loads,
                         "a lap of the chain about fills the L1: some of it stays there");
        predict_dram_fills(prediction, warm, warm, (double)bytes);
        break;
    case LEVEL_L2:
    case LEVEL_L2_FAR:
        ml_predict(prediction, "global_hit_rate", 0);
        ml_predict(prediction, "l2_read_sectors", loads);
        predict_dram_fills(prediction, warm, warm, (double)bytes);
        break;
    case LEVEL_L2_DRAM:
        ml_predict(prediction, "global_hit_rate", 0);
        ml_predict(prediction, "l2_read_sectors", loads);
        predict_dram_fills(prediction, warm, loads, (double)bytes);
        break;
    default: { /* LEVEL_DRAM: the timed loads touch links the L2 has not seen */
        double fills = timed < links ? timed : links;
        ml_predict(prediction, "global_hit_rate", 0);
        ml_predict(prediction, "l2_read_sectors", loads);
        predict_dram_fills(prediction, fills, fills, (double)bytes);
    }
    }
}

/* The on-chip chases: one load instruction a link, of one warp. */
static void predict_on_chip(long long kind, const long long *param, ml_prediction *prediction)
{
    double timed = (double)param[PARAM_LOADS];
    switch (kind) {
    case CHASE_SHARED:
        prediction->served_by = "shared memory";
        ml_predict(prediction, "shared_ld_instructions", timed);
        break;
    case REGISTER_CHAIN:
        prediction->served_by = "registers";
        break;
    case CHASE_LOCAL: /* the warm lap and the timed loads, a sector each */
        prediction->served_by = "L1 (local memory)";
        ml_predict(prediction, "local_load_transactions", LOCAL_CHAIN_WORDS + timed);
        break;
    default: {
        /* The 1 KiB chain is 16 lines of 64 bytes: one miss each, then every request hits. The
         * 56 KiB chain, a link every 256 bytes, is more than the first constant cache holds:
         * every request misses it (the second level serves them). */
        double warm = constant_links(kind);
        double requests_per_load = kind == CONSTANT_DIVERGENT ? 32 : 1;
        double requests = requests_per_load * (warm + timed);
        prediction->served_by = kind == CONSTANT_MISS ? "constant cache, second level"
                                                      : "constant cache";
        double lines = warm * constant_words_per_link(kind) * 4 / CONSTANT_LINE_BYTES;
        ml_predict(prediction, "constant_instructions", warm + timed);
        ml_predict(prediction, "constant_requests_per_instruction", requests_per_load);
        if (kind == CONSTANT_MISS)
            ml_predict_range(prediction, "constant_hit_rate", 0, 1,
                             "a link shares no line with the last few, so almost none hit");
        else
            ml_predict(prediction, "constant_hit_rate", 100.0 * (1 - lines / requests));
    }
    }
}

static void predict_bandwidth(long long kind, const long long *param, ml_prediction *prediction)
{
    (void)param;
    bandwidth_run run = bandwidth_size(kind);
    double blocks = bandwidth_blocks(), warps_per_block = BANDWIDTH_THREADS / 32;
    double rounds = run.rounds, buffer_bytes = (double)run.vectors * 16.0;
    double later_rounds_pct = 100.0 * (rounds - 1) / rounds;
    switch (kind) {
    case BANDWIDTH_SHARED: /* a 16-byte load a thread for each float4 of its share, each round */
        prediction->served_by = "shared memory";
        ml_predict(prediction, "shared_ld_instructions",
                   blocks * warps_per_block * rounds * (run.vectors / BANDWIDTH_THREADS));
        break;
    case BANDWIDTH_L1:
        prediction->served_by = "L1";
        ml_predict_range(prediction, "global_hit_rate", later_rounds_pct, 100,
                         "the first round of the first block on each SM misses, the rest hit");
        break;
    case BANDWIDTH_L2: /* the first round reads the buffer from DRAM, the L2 serves the rest */
        prediction->served_by = "L2";
        ml_predict(prediction, "dram_read_bytes", buffer_bytes);
        break;
    case BANDWIDTH_DRAM:
        prediction->served_by = "DRAM";
        ml_predict_range(prediction, "l2_hit_rate", 0, 0.01,
                         "no line is read twice; the launch's own reads (its code, its "
                         "parameters) may hit");
        ml_predict(prediction, "dram_read_bytes", buffer_bytes);
        break;
    default: /* BANDWIDTH_CONSTANT */
        prediction->served_by = "constant cache";
        ml_predict(prediction, "constant_requests_per_instruction", 1);
    }
}

/* ---- chains, CPU reference, buffers ---------------------------------------------------------- */

static double device_bytes(const ml_variant *variant, const long long *param)
{
    long long kind = variant->argument;
    if (is_global_chase(kind)) {
        uint64_t bytes, stride;
        chase_span(kind, param, &bytes, &stride);
        return (double)bytes;
    }
    if (is_bandwidth(kind))
        return (double)bandwidth_size(kind).vectors * 16.0 +
               bandwidth_blocks() * BANDWIDTH_THREADS * 4.0;
    return CONSTANT_CHAIN_WORDS * 4.0;
}

/* A reproducible stream of numbers from the seed (splitmix64). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The order a chain of `links` links visits them: a random single cycle (Sattolo's shuffle: each
 * link swaps with one before it, never itself), so a lap visits every link once. */
static uint32_t *chain_order(uint64_t links, uint64_t seed)
{
    uint32_t *order = (uint32_t *)ml_host_alloc(links * sizeof *order);
    for (uint64_t i = 0; i < links; i++)
        order[i] = (uint32_t)i;
    uint64_t random = seed;
    for (uint64_t i = links - 1; i > 0; i--) {
        uint64_t k = next_random(&random) % i;
        uint32_t swap = order[i];
        order[i] = order[k];
        order[k] = swap;
    }
    return order;
}

/* The chain as the kernels read it: words_per_link words a link, the first of link order[i]
 * holding the index of link order[i + 1]'s first word. The other words stay 0. */
static unsigned *chain_words(const uint32_t *order, uint64_t links, uint64_t words_per_link)
{
    size_t words = links * words_per_link;
    unsigned *next = (unsigned *)ml_host_alloc(words * sizeof *next);
    memset(next, 0, words * sizeof *next);
    for (uint64_t i = 0; i < links; i++)
        next[order[i] * words_per_link] = (unsigned)(order[(i + 1) % links] * words_per_link);
    return next;
}

/* The index a chain stands at after `loads` loads from order[first]. */
static uint32_t chain_end(const uint32_t *order, uint64_t links, uint64_t first, uint64_t loads,
                          uint64_t words_per_link)
{
    return (uint32_t)(order[(first + loads) % links] * words_per_link);
}

/* The chase's output: the index each lane's chain ends at, counted exactly. */
static void expect_ends(ml_problem *problem, size_t count)
{
    problem->output = (float *)ml_device_alloc(count * sizeof(uint32_t));
    problem->output_count = count;
    problem->output_kind = ML_OUTPUT_COUNTED;
    problem->reference_counts = (uint32_t *)ml_host_alloc(count * sizeof(uint32_t));
    problem->cycles = (long long *)ml_device_alloc(sizeof(long long));
    problem->timed_operations = (double)problem->param[PARAM_LOADS];
}

/* A chain made from --seed, kept for fill_inputs: its order, and the loads each lane makes. */
static void keep_chain(lab_state *state, uint32_t *order, uint64_t links, uint64_t per_link,
                       uint64_t loads)
{
    state->order = order;
    state->links = links;
    state->per_link = per_link;
    state->loads = loads;
}

static void setup_global_chase(ml_problem *problem, lab_state *state)
{
    uint64_t bytes, stride;
    chase_span(problem->argument, problem->param, &bytes, &stride);
    uint64_t links = bytes / stride, per_link = stride / 4;
    uint32_t *order = chain_order(links, problem->seed);
    unsigned *next = chain_words(order, links, per_link);
    state->next = (unsigned *)ml_device_alloc(bytes);
    ML_CUDA_CHECK(cudaMemcpy(state->next, next, links * per_link * 4, cudaMemcpyHostToDevice));
    free(next);
    keep_chain(state, order, links, per_link,
               chase_warm_loads(problem->argument, problem->param) +
                   (uint64_t)problem->param[PARAM_LOADS]);
    expect_ends(problem, 1);
    /* Carveout 0: the least of the SM's on-chip memory for shared memory, the most for the L1. */
    ML_CUDA_CHECK(cudaFuncSetAttribute((const void *)problem->kernel,
                                       cudaFuncAttributePreferredSharedMemoryCarveout, 0));
}

/* The shared and local chains: every word a link, one lap of warm-up for the local one. */
static void setup_word_chase(ml_problem *problem, lab_state *state, uint64_t links,
                             uint64_t warm_loads)
{
    uint32_t *order = chain_order(links, problem->seed);
    unsigned *next = chain_words(order, links, 1);
    state->next = (unsigned *)ml_device_alloc(links * 4);
    ML_CUDA_CHECK(cudaMemcpy(state->next, next, links * 4, cudaMemcpyHostToDevice));
    free(next);
    keep_chain(state, order, links, 1, warm_loads + (uint64_t)problem->param[PARAM_LOADS]);
    expect_ends(problem, 1);
}

static void setup_constant_chase(ml_problem *problem, lab_state *state)
{
    long long kind = problem->argument;
    uint64_t per_link = constant_words_per_link(kind);
    uint64_t links = constant_links(kind);
    uint32_t *order = chain_order(links, problem->seed);
    unsigned *next = chain_words(order, links, per_link);
    ml_copy_to_symbol("constant_chain", next, links * per_link * 4);
    free(next);
    keep_chain(state, order, links, per_link, links + (uint64_t)problem->param[PARAM_LOADS]);
    state->starts = (unsigned *)ml_device_alloc(32 * sizeof(unsigned));
    expect_ends(problem, 32);
}

/* A chain is made once, from --seed: remaking one of hundreds of MiB for every launch would take
 * longer than the launches. Each fill starts it at a new place in its lap instead, drawn from
 * the seed (a stream of its own, apart from the shuffle's), so where it ends is new too and
 * known at once: order[(place + loads) % links]. A divergent warp's lane l starts 8 l links
 * further (32 places, all different); the others' lanes start alike. */
static void fill_chain_starts(ml_problem *problem, lab_state *state)
{
    uint64_t random = ~problem->seed;
    uint64_t first = next_random(&random) % state->links;
    unsigned starts[32];
    for (size_t lane = 0; lane < problem->output_count; lane++) {
        uint64_t place = (first + (problem->argument == CONSTANT_DIVERGENT ? 8 * lane : 0)) %
                         state->links;
        starts[lane] = (unsigned)(state->order[place] * state->per_link);
        state->ends[lane] = chain_end(state->order, state->links, place, state->loads,
                                      state->per_link);
    }
    /* chase_constant reads its starts from memory; the other chases take theirs as an argument. */
    if (state->starts != NULL)
        ML_CUDA_CHECK(cudaMemcpy(state->starts, starts, problem->output_count * sizeof(unsigned),
                                 cudaMemcpyHostToDevice));
    else
        state->start = starts[0];
}

static void setup_register_chain(ml_problem *problem, lab_state *state)
{
    state->x = (float *)ml_device_alloc(sizeof(float));
    problem->output = (float *)ml_device_alloc(sizeof(float));
    problem->output_count = 1;
    problem->reference = (float *)ml_host_alloc(sizeof(float));
    problem->tolerance = 0;
    problem->cycles = (long long *)ml_device_alloc(sizeof(long long));
    problem->timed_operations = (double)problem->param[PARAM_LOADS];
}

/* The FMA chain from a random start, on the CPU in the same order: fmaf rounds once, as the
 * GPU's FFMA does. */
static void fill_register_chain(ml_problem *problem, lab_state *state)
{
    ml_fill_random(state->x, 1, problem->seed);
    float a = ml_random_value(problem->seed, 0);
    for (long long i = 0; i < problem->param[PARAM_LOADS]; i++)
        a = fmaf(a, 0.9999f, 0.0001f);
    state->fma_end = a;
}

/* Input values are whole numbers 0 .. 7, so every sum a thread makes is exact in float whatever
 * the order: the reference is compared exactly. A random value in [-1, 1) (2^-23 apart) gives
 * one exactly, on the CPU and the GPU alike. */
static __host__ __device__ float whole_number(float random)
{
    return floorf(4.0f * (random + 1.0f));
}

static __global__ void fill_whole_numbers(float *values, size_t count, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        values[i] = whole_number(ml_random_value(seed, i));
}

/* The total x + y + z + w of float4 k of the inputs of the seed. */
static double vector_total(uint64_t seed, size_t k)
{
    double total = 0;
    for (size_t c = 0; c < 4; c++)
        total += whole_number(ml_random_value(seed, 4 * k + c));
    return total;
}

static uint64_t greatest_common_divisor(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Thread t's sum, as the kernels make it (see kernels.cu), from the float4s' totals: the table
 * of all of them, or, where totals is NULL, each recomputed from the seed. Each round the
 * thread reads the float4s k = t, t + stride, ... moved on by 32 a round (read_constant: float4
 * 0, moved on by 1), wrapped at the end; the rounds repeat after vectors / gcd(move, vectors) of
 * them, so one period's sums count for every whole period and the rest are added once. */
static double thread_sum(long long kind, const bandwidth_run *run, const double *totals,
                         uint64_t seed, size_t t, size_t stride)
{
    uint64_t move = kind == BANDWIDTH_CONSTANT ? 1 : 32;
    uint64_t period = run->vectors / greatest_common_divisor(move, run->vectors);
    uint64_t rounds = run->rounds < period ? run->rounds : period, rest = run->rounds % period;
    double lap = 0, sum = 0;
    for (uint64_t round = 0; round < rounds; round++) {
        double got = 0;
        for (size_t k = t; k < run->vectors; k += stride) {
            size_t index = (k + move * round) % run->vectors;
            got += totals != NULL ? totals[index] : vector_total(seed, index);
        }
        lap += got;
        if (round < rest)
            sum += got;
    }
    return sum + (double)(run->rounds / period) * lap;
}

/* The sums of the threads at `count` positions (NULL: threads 0 .. count - 1). read_constant's
 * threads all make one sum, and read_shared's and read_region's repeat every block: those are
 * made once each; read_grid_l2's thread by thread. */
static void bandwidth_sums(const ml_problem *problem, const double *totals,
                           const size_t *position, size_t count, float *sums)
{
    const lab_state *state = (const lab_state *)problem->state;
    long long kind = problem->argument;
    bandwidth_run run = {state->vectors, state->rounds};
    size_t threads = (size_t)state->blocks * BANDWIDTH_THREADS;
    size_t groups = kind == BANDWIDTH_CONSTANT                          ? 1
                    : kind == BANDWIDTH_SHARED || kind == BANDWIDTH_L1 ? BANDWIDTH_THREADS
                                                                        : threads;
    size_t stride = kind == BANDWIDTH_CONSTANT ? run.vectors : groups;
    if (groups <= BANDWIDTH_THREADS) {
        double group_sum[BANDWIDTH_THREADS];
#pragma omp parallel for
        for (size_t g = 0; g < groups; g++)
            group_sum[g] = thread_sum(kind, &run, totals, problem->seed, g, stride);
        for (size_t k = 0; k < count; k++)
            sums[k] = (float)group_sum[(position != NULL ? position[k] : k) % groups];
        return;
    }
#pragma omp parallel for
    for (size_t k = 0; k < count; k++)
        sums[k] = (float)thread_sum(kind, &run, totals, problem->seed,
                                    position != NULL ? position[k] : k, stride);
}

static void setup_bandwidth(ml_problem *problem, lab_state *state)
{
    bandwidth_run run = bandwidth_size(problem->argument);
    state->vectors = run.vectors;
    state->rounds = run.rounds;
    state->blocks = bandwidth_blocks();
    if (problem->argument != BANDWIDTH_CONSTANT)
        state->in = (float4 *)ml_device_alloc(run.vectors * sizeof(float4));
    size_t threads = (size_t)state->blocks * BANDWIDTH_THREADS;
    problem->output = (float *)ml_device_alloc(threads * sizeof(float));
    problem->output_count = threads;
    problem->reference = (float *)ml_host_alloc(threads * sizeof(float));
    problem->tolerance = 0;
    problem->bytes = bandwidth_bytes(problem->argument);
}

/* The whole output's reference for the checked launch, from a table of every float4's total
 * (each is read by many threads). */
static void bandwidth_reference(ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    double *totals = (double *)ml_host_alloc(state->vectors * sizeof(double));
#pragma omp parallel for
    for (size_t k = 0; k < state->vectors; k++)
        totals[k] = vector_total(problem->seed, k);
    bandwidth_sums(problem, totals, NULL, problem->output_count, problem->reference);
    free(totals);
}

/* The inputs of the seed: whole numbers made on the GPU (read_constant's 4 KiB on the CPU). */
static void fill_bandwidth(ml_problem *problem, lab_state *state)
{
    size_t floats = state->vectors * 4;
    if (problem->argument == BANDWIDTH_CONSTANT) {
        float values[CONSTANT_BANDWIDTH_VECTORS * 4];
        for (size_t i = 0; i < floats; i++)
            values[i] = whole_number(ml_random_value(problem->seed, i));
        ml_copy_to_symbol("constant_vectors", values, sizeof values);
        return;
    }
    unsigned blocks = ml_blocks_for(floats, 256);
    fill_whole_numbers<<<blocks < 65536 ? blocks : 65536, 256>>>((float *)state->in, floats,
                                                                  problem->seed);
    ML_LAUNCH_CHECK();
}

static void fill_inputs(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    if (problem->argument == REGISTER_CHAIN)
        fill_register_chain(problem, state);
    else if (is_bandwidth(problem->argument))
        fill_bandwidth(problem, state);
    else
        fill_chain_starts(problem, state);
}

/* What fill_inputs kept (a chain's ends, the FMA chain's), or the bandwidth sums at those
 * threads. */
static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    const lab_state *state = (const lab_state *)problem->state;
    if (is_bandwidth(problem->argument)) {
        bandwidth_sums(problem, NULL, position, count, (float *)values);
        return;
    }
    for (size_t k = 0; k < count; k++) {
        if (problem->argument == REGISTER_CHAIN)
            ((float *)values)[k] = state->fma_end;
        else
            ((uint32_t *)values)[k] = state->ends[position[k]];
    }
}

static void setup(ml_problem *problem)
{
    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    memset(state, 0, sizeof *state);
    problem->state = state;
    problem->flops = 0;
    long long kind = problem->argument;
    if (is_global_chase(kind))
        setup_global_chase(problem, state);
    else if (kind == CHASE_SHARED)
        setup_word_chase(problem, state, SHARED_CHAIN_WORDS, 0);
    else if (kind == CHASE_LOCAL)
        setup_word_chase(problem, state, LOCAL_CHAIN_WORDS, LOCAL_CHAIN_WORDS);
    else if (kind == REGISTER_CHAIN)
        setup_register_chain(problem, state);
    else if (is_bandwidth(kind))
        setup_bandwidth(problem, state);
    else
        setup_constant_chase(problem, state);
    fill_inputs(problem);
    if (is_bandwidth(kind)) {
        bandwidth_reference(problem);
        return;
    }
    /* One output, or a warp's 32: the reference is reference_at's at every one. */
    size_t position[32];
    for (size_t k = 0; k < problem->output_count; k++)
        position[k] = k;
    reference_at(problem, position, problem->output_count,
                 kind == REGISTER_CHAIN ? (void *)problem->reference
                                        : (void *)problem->reference_counts);
}

static void teardown(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_device_free(state->next);
    ml_device_free(state->starts);
    ml_device_free(state->x);
    ml_device_free(state->in);
    ml_device_free(problem->output);
    ml_device_free(problem->cycles);
    free(state->order);
    free(state);
}

static const ml_lab lab = {
    .program = "hierarchy_map",
    .title = "Lab 07: a map of the memory hierarchy, measured on this GPU",
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
