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

#define KIB 1024ll
#define MIB (1024ll * 1024ll)
#define LINE_BYTES 128          /* an L1 and L2 line: a chain uses one 4-byte word of each */

static const ml_param params[] = {
    {"working_set", 64 * KIB, 2 * LINE_BYTES, 4096 * MIB, "chase: bytes of memory the chain spans",
     .used_by = "chase"},
    {"stride", LINE_BYTES, LINE_BYTES, 1024 * MIB,
     "chase: bytes between links (a multiple of 128; large strides show the TLB)",
     .used_by = "chase"},
    {"loads", 16384, 256, 1 << 24, "latency variants: dependent operations timed",
     .used_by = "global_chase,word_chase,constant_warp_chase,fma_latency"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* How a global chase's working set is chosen: --working_set and --stride (chase), or shares of
 * the model GPU's L1 and L2, in whole lines, a line a link. */
typedef struct {
    int sized;
    double l1_share, l2_share;
} working_set_choice;

static const working_set_choice sized_working_set = {1}, in_l1 = {0, 0.125}, in_l2 = {0, 0, 0.125},
                                beyond_l2 = {0, 0, 4};

/* A chase through on-chip memory whose every word is a link: shared and local memory. */
typedef struct {
    unsigned chain_words;
    unsigned warm_loads;        /* the untimed loads the kernel makes first (chase_local: a lap) */
    const char *served_by;
    const char *loads_metric;   /* the counter of its loads, warm and timed: one each */
} word_chain;

static const word_chain shared_chain = {SHARED_CHAIN_WORDS, 0, "shared memory",
                                        "shared_ld_instructions"};
static const word_chain local_chain = {LOCAL_CHAIN_WORDS, LOCAL_CHAIN_WORDS, "L1 (local memory)",
                                       "local_load_transactions"};

/* The constant chains: 256 links of one word (1 KiB), or a link every 256 bytes (64 words) of
 * the whole 56 KiB. */
typedef struct {
    unsigned links, words_per_link;
    unsigned lane_spread;       /* links from one lane's start to the next lane's (0: all alike) */
    double requests_per_load;   /* the addresses a warp's load asks for */
    const char *served_by;
    int fits_first_cache;       /* 0: a link shares no line with the last few: almost none hit */
} constant_chain_layout;

#define CONSTANT_LINE_BYTES 64  /* the constant cache's line */

static const constant_chain_layout broadcast_chain = {256, 1, 0, 1, "constant cache", 1};
static const constant_chain_layout whole_chain = {
    CONSTANT_CHAIN_WORDS / 64, 64, 0, 1, "constant cache, second level", 0};
/* 32 lanes 8 links apart: 32 places, all different */
static const constant_chain_layout divergent_chain = {256, 1, 8, 32, "constant cache", 1};

/* Each bandwidth kernel fills every SM with BANDWIDTH_THREADS_PER_SM threads, in blocks of its
 * table entry's size. The rounds make each kernel run long beside the cost of its launch. */
#define GRID_THREADS 0          /* read_stride or sum_period: every thread of the grid */

/* A bandwidth run: thread t sums the float4s k = t, t + read_stride, ... below vectors, moved on
 * by `move` a round (wrapped at the end), rounds times; its sum is thread t % sum_period's. */
typedef struct {
    size_t vectors;             /* 0: l2_share of the model GPU's L2, in whole grids' float4s */
    double l2_share;
    unsigned rounds, move;
    size_t read_stride, sum_period;
    const char *served_by;
} bandwidth_reads;

/* read_shared and read_region: each block reads all of its buffer a round. read_grid_l2: the grid
 * reads it once a round. read_constant: every thread reads float4 `round`, all make one sum. */
static const bandwidth_reads shared_run = {SHARED_BANDWIDTH_VECTORS, 0, 2000, 32, BANDWIDTH_THREADS,
                                           BANDWIDTH_THREADS, "shared memory"};
static const bandwidth_reads region_run = {REGION_VECTORS, 0, 1000, 32, BANDWIDTH_THREADS,
                                           BANDWIDTH_THREADS, "L1"};
static const bandwidth_reads l2_run = {0, 0.25, 200, 32, GRID_THREADS, GRID_THREADS, "L2"};
static const bandwidth_reads dram_run = {0, 4, 1, 32, GRID_THREADS, GRID_THREADS, "DRAM"};
static const bandwidth_reads constant_run = {CONSTANT_BANDWIDTH_VECTORS, 0, 4096, 1,
                                             CONSTANT_BANDWIDTH_VECTORS, 1, "constant cache"};

/* The latency lessons: a chase through global memory, through on-chip memory one word a link,
 * through constant memory by a warp, and a chain of FMAs. The bandwidth lessons: one family a
 * kernel's arguments. */
extern const ml_family global_chase, word_chase, constant_warp_chase, fma_latency, shared_reads,
    region_reads, grid_reads, constant_reads;

#define CHASE_METRICS "global_hit_rate,l2_read_sectors,dram_read_bytes"
#define CONSTANT_METRICS "constant_instructions,constant_requests_per_instruction,constant_hit_rate"

static const ml_variant variants[] = {
    {.name = "chase", .summary = "dependent global loads over --working_set: L1, L2 or DRAM, by size",
     .family = &global_chase, .kernel = "chase_global", .block = {1},
     .constants = &sized_working_set, .metrics = CHASE_METRICS,
     .course_figure = "L1 1, device memory 200-800 cycles"},
    {.name = "l1_chase", .summary = "dependent global loads over an eighth of the L1",
     .family = &global_chase, .kernel = "chase_global", .block = {1}, .constants = &in_l1,
     .metrics = CHASE_METRICS, .course_figure = "1 cycle"},
    {.name = "l2_chase", .summary = "dependent global loads over an eighth of the L2",
     .family = &global_chase, .kernel = "chase_global", .block = {1}, .constants = &in_l2,
     .metrics = CHASE_METRICS, .course_figure = "(no L2 in the table)"},
    {.name = "dram_chase", .summary = "dependent global loads over four times the L2",
     .family = &global_chase, .kernel = "chase_global", .block = {1}, .constants = &beyond_l2,
     .metrics = CHASE_METRICS, .course_figure = "200-800 cycles"},
    {.name = "shared_chase", .summary = "dependent shared-memory loads (a 16 KiB chain)",
     .family = &word_chase, .kernel = "chase_shared", .block = {1}, .constants = &shared_chain,
     .metrics = "shared_ld_instructions", .course_figure = "~1 cycle"},
    {.name = "local_chase", .summary = "dependent loads from a thread's own array in local memory",
     .family = &word_chase, .kernel = "chase_local", .block = {1}, .constants = &local_chain,
     .metrics = "local_load_transactions", .course_figure = "200-800 cycles (off chip)"},
    {.name = "constant_chase", .summary = "dependent __constant__ loads, one address a warp (1 KiB)",
     .family = &constant_warp_chase, .kernel = "chase_constant", .block = {32},
     .constants = &broadcast_chain, .metrics = CONSTANT_METRICS, .course_figure = "~1 cycle"},
    {.name = "constant_miss", .summary = "dependent __constant__ loads over 56 KiB, 256 bytes apart",
     .family = &constant_warp_chase, .kernel = "chase_constant", .block = {32},
     .constants = &whole_chain, .metrics = CONSTANT_METRICS, .course_figure = "~1 cycle (cached)"},
    {.name = "constant_divergent", .summary = "dependent __constant__ loads, 32 addresses a warp",
     .family = &constant_warp_chase, .kernel = "chase_constant", .block = {32},
     .constants = &divergent_chain, .metrics = CONSTANT_METRICS,
     .course_figure = "~1 cycle (cached)"},
    {.name = "register_chain", .summary = "dependent FMAs on registers",
     .family = &fma_latency, .kernel = "fma_chain", .block = {1}, .metrics = "",
     .course_figure = "1 cycle"},
    {.name = "shared_bandwidth", .summary = "every SM reading its shared memory",
     .family = &shared_reads, .kernel = "read_shared", .block = {BANDWIDTH_THREADS},
     .constants = &shared_run, .metrics = "shared_ld_instructions"},
    {.name = "l1_bandwidth", .summary = "every SM reading a 32 KiB region its L1 holds",
     .family = &region_reads, .kernel = "read_region", .block = {BANDWIDTH_THREADS},
     .constants = &region_run, .metrics = "global_hit_rate"},
    {.name = "l2_bandwidth", .summary = "the grid reading a quarter of the L2 with __ldcg",
     .family = &grid_reads, .kernel = "read_grid_l2", .block = {GRID_READ_THREADS},
     .constants = &l2_run, .metrics = "dram_read_bytes"},
    {.name = "dram_bandwidth", .summary = "the grid reading four times the L2 once",
     .family = &grid_reads, .kernel = "read_grid_l2", .block = {GRID_READ_THREADS},
     .constants = &dram_run, .metrics = "l2_hit_rate,dram_read_bytes"},
    {.name = "constant_bandwidth", .summary = "every warp reading one __constant__ float4 (broadcast)",
     .family = &constant_reads, .kernel = "read_constant", .block = {BANDWIDTH_THREADS},
     .constants = &constant_run, .metrics = "constant_requests_per_instruction"},
};

/* ---- sizes ----------------------------------------------------------------------------------- */

/* A chase: a chain of links in span_bytes of memory, visited in a random order, and the loads a
 * lane makes along it. */
typedef struct {
    uint64_t span_bytes, links, words_per_link;
    unsigned warm_loads, timed_loads;
    uint32_t *order;            /* host: the links in the order the chain visits them */
    unsigned ends[32];          /* where each lane's chase ends, for the inputs fill_inputs made */
    unsigned *next;             /* chase_global, _shared, _local: next[j] is the link after j */
    unsigned start;             /* their first link */
    unsigned *starts;           /* chase_constant: each lane's first link, on the device */
} chase_state;

static chase_state chase_sizes(const ml_problem *problem, uint64_t links, uint64_t words_per_link,
                               unsigned warm_loads)
{
    chase_state sizes = {links * words_per_link * sizeof(unsigned), links, words_per_link,
                         warm_loads, (unsigned)ml_size(problem, "loads")};
    return sizes;
}

/* A global chase spans its working set, a link a stride. The untimed first loads: one lap of the
 * chain, which leaves it in the caches that can hold it (a line a link). A chain of more than
 * twice the L2 goes without: no cache keeps it, and a lap would take seconds. */
static chase_state global_chase_sizes(const ml_problem *problem)
{
    const working_set_choice *choice = ML_CONSTANTS(working_set_choice, problem);
    const ml_gpu_facts *gpu = ml_model_gpu();
    double share = choice->l1_share * gpu->l1_bytes + choice->l2_share * gpu->l2_bytes;
    uint64_t bytes = (uint64_t)share / LINE_BYTES * LINE_BYTES, stride = LINE_BYTES;
    if (choice->sized) {
        bytes = (uint64_t)ml_size(problem, "working_set");
        stride = (uint64_t)ml_size(problem, "stride");
    }
    uint64_t links = bytes / stride;
    unsigned warm_loads = (double)links * LINE_BYTES <= 2 * gpu->l2_bytes ? (unsigned)links : 0;
    chase_state sizes = chase_sizes(problem, links, stride / 4, warm_loads);
    sizes.span_bytes = bytes;
    return sizes;
}

static const char *check_params(const ml_problem *problem)
{
    long long working_set = ml_size(problem, "working_set"), stride = ml_size(problem, "stride");
    if (stride % LINE_BYTES != 0)
        return "--stride must be a multiple of 128 bytes (one link a line)";
    if (working_set / stride < 2)
        return "--working_set must hold at least two links of --stride bytes";
    return NULL;
}

typedef struct {
    float *x;                   /* fma_chain's starting value */
    unsigned timed_operations;
    float fma_end;              /* where the FMA chain ends from it, on the CPU */
} fma_state;

typedef struct {
    const bandwidth_reads *reads;
    float4 *in;                 /* the input in global memory (read_constant: none) */
    size_t vectors, read_stride, sum_period;
    unsigned blocks;
    size_t threads;             /* of the grid */
} bandwidth_state;

static bandwidth_state bandwidth_sizes(const ml_problem *problem)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    const bandwidth_reads *reads = ML_CONSTANTS(bandwidth_reads, problem);
    unsigned blocks = (unsigned)gpu->sm_count *
                      (BANDWIDTH_THREADS_PER_SM / ml_threads_per_block(problem->variant));
    size_t threads = (size_t)gpu->sm_count * BANDWIDTH_THREADS_PER_SM;
    bandwidth_state sizes = {reads, NULL, reads->vectors, reads->read_stride, reads->sum_period,
                             blocks, threads};
    if (sizes.vectors == 0)
        sizes.vectors = (size_t)(gpu->l2_bytes * reads->l2_share / 16) / threads * threads;
    if (sizes.read_stride == GRID_THREADS)
        sizes.read_stride = threads;
    if (sizes.sum_period == GRID_THREADS)
        sizes.sum_period = threads;
    return sizes;
}

/* ---- launches -------------------------------------------------------------------------------- */

/* Each launch is what kernel<<<grid, block>>>(arguments) would be if the program linked
 * kernels.cu; ML_LAUNCH runs the kernel found by name, with the block of its table entry. */

/* chase_global(next, start, warm_loads, timed_loads, end, cycles) */
static void launch_global_chase(const ml_problem *problem)
{
    const chase_state *state = (const chase_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->next), ML_ARG(state->start), ML_ARG(state->warm_loads),
                               ML_ARG(state->timed_loads), ML_ARG(problem->output),
                               ML_ARG(problem->cycles)};
    ML_LAUNCH(problem, dim3(1), 0, arguments);
}

/* chase_shared(next, start, timed_loads, end, cycles); chase_local likewise */
static void launch_word_chase(const ml_problem *problem)
{
    const chase_state *state = (const chase_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->next), ML_ARG(state->start),
                               ML_ARG(state->timed_loads), ML_ARG(problem->output),
                               ML_ARG(problem->cycles)};
    ML_LAUNCH(problem, dim3(1), 0, arguments);
}

/* chase_constant(starts, warm_loads, timed_loads, ends, cycles) */
static void launch_constant_chase(const ml_problem *problem)
{
    const chase_state *state = (const chase_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->starts), ML_ARG(state->warm_loads),
                               ML_ARG(state->timed_loads), ML_ARG(problem->output),
                               ML_ARG(problem->cycles)};
    ML_LAUNCH(problem, dim3(1), 0, arguments);
}

/* fma_chain(x, timed_operations, out, cycles) */
static void launch_fma_chain(const ml_problem *problem)
{
    const fma_state *state = (const fma_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->x), ML_ARG(state->timed_operations),
                               ML_ARG(problem->output), ML_ARG(problem->cycles)};
    ML_LAUNCH(problem, dim3(1), 0, arguments);
}

/* read_shared(in, rounds, sums); read_region likewise */
static void launch_shared_reads(const ml_problem *problem)
{
    const bandwidth_state *state = (const bandwidth_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(state->reads->rounds),
                               ML_ARG(problem->output)};
    ML_LAUNCH(problem, dim3(state->blocks), 0, arguments);
}

/* read_grid_l2(in, vectors, rounds, sums) */
static void launch_grid_reads(const ml_problem *problem)
{
    const bandwidth_state *state = (const bandwidth_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(state->vectors),
                               ML_ARG(state->reads->rounds), ML_ARG(problem->output)};
    ML_LAUNCH(problem, dim3(state->blocks), 0, arguments);
}

/* read_constant(rounds, sums) */
static void launch_constant_reads(const ml_problem *problem)
{
    const bandwidth_state *state = (const bandwidth_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->reads->rounds), ML_ARG(problem->output)};
    ML_LAUNCH(problem, dim3(state->blocks), 0, arguments);
}

/* ---- predictions ----------------------------------------------------------------------------- */

/* Where the model puts a chain of lines, by its footprint against the model GPU's L1 and L2
 * sizes: the L1 up to three quarters of the L1, a mix of L1 and L2 up to one and a half L1s,
 * the L2 up to half the L2, a slower L2 plateau up to 0.95 of the L2, a mix of L2 and DRAM up to
 * twice the L2, DRAM beyond (where global_chase_sizes makes no warm lap). */
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

/* What a chase of one thread reads from DRAM beyond its fills, its code and constants and the
 * page-table walks of the floor. The DRAM counters count every agent's traffic, not only the
 * kernel's, and a one-thread chase runs long enough to see it: a kernel that touches no memory
 * at all reads tens of KiB in a millisecond (tools/ncu/dram_background.sh measures it; the
 * instructor notes give the runs). The harness keeps the least of three collections of a
 * launch under a millisecond, which leaves out most of it, but not a burst in every window.
 * A chase the L1 serves reads little but its warm lap, so that traffic can outgrow its own: up
 * to 128 KiB more. Any other: up to 32 KiB more (its fills' 15% covers the rest). And a chain of a few dozen links reads up to 1.5 KiB less. All
 * as the census runs read (tests/model_census.sh). The fills themselves: up to 15% more than
 * one a missed link (and once far more, on one run of a chase to DRAM, not on another of the
 * same sizes). */
#define CHASE_UNPLACED_L1_BYTES (128 * KIB)
#define CHASE_UNPLACED_BYTES (32 * KIB)
#define CHASE_SHORT_BYTES (1.5 * KIB)
#define CHASE_FILLS_OVER 1.15

/* The DRAM bytes of the chase, as a range: from low_fills fills to CHASE_FILLS_OVER times
 * high_fills fills (the model GPU's fills: the L2's fetch granularity), plus the floor every
 * launch reads (ml_predict_dram_reads: the kernel's code and constant bank, which the L2 flush
 * leaves in DRAM, and page-table walks, 128 bytes a 2 MiB page the chain spans beyond the first
 * few), and up to CHASE_UNPLACED_L1_BYTES or CHASE_UNPLACED_BYTES more (CHASE_SHORT_BYTES
 * less at the low end). A chase of a few hundred fills reads about as much again for the floor
 * and what is unplaced, so its range is wide; one of many thousands, a narrow one. */
static void predict_dram_fills(const ml_problem *problem, ml_prediction *prediction,
                               double low_fills, double high_fills, double span_bytes,
                               level where)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    int from_l1 = where == LEVEL_L1 || where == LEVEL_L1_L2;
    double fills_low = low_fills * gpu->dram_fill_bytes - CHASE_SHORT_BYTES;
    ml_predict_dram_reads(prediction, problem, fills_low > 0 ? fills_low : 0,
                          CHASE_FILLS_OVER * high_fills * gpu->dram_fill_high_bytes +
                              (from_l1 ? CHASE_UNPLACED_L1_BYTES : CHASE_UNPLACED_BYTES),
                          span_bytes,
                          from_l1 ? "a fill a missed link (15% more at most), and up to 128 KiB "
                                    "other agents read while a lone thread's chase runs"
                                  : "a fill a missed link (15% more at most), and up to 32 KiB "
                                    "other agents read while a lone thread's chase runs");
}

/* Every load is one 4-byte word: one sector of one line. The warm lap misses everywhere (the
 * harness empties the L2 before each launch): each of its loads is an L2 read and a DRAM fill.
 * A timed load the L1 misses is an L2 read; one the L2 misses, a DRAM fill too. */
static void predict_global_chase(const ml_problem *problem, ml_prediction *prediction)
{
    chase_state chain = global_chase_sizes(problem);
    double links = (double)chain.links, bytes = (double)chain.span_bytes;
    double warm = chain.warm_loads, timed = chain.timed_loads;
    double loads = warm + timed;
    double timed_pct = 100.0 * timed / loads;
    level where = chase_level(links * LINE_BYTES);
    prediction->served_by = level_names[where];
    switch (where) {
    case LEVEL_L1:
        ml_predict(prediction, "global_hit_rate", timed_pct);
        ml_predict(prediction, "l2_read_sectors", warm);
        predict_dram_fills(problem, prediction, warm, warm, bytes, where);
        break;
    case LEVEL_L1_L2:
        ml_predict_range(prediction, "global_hit_rate", 0, timed_pct,
                         "a lap of the chain about fills the L1: some of it stays there");
        ml_predict_range(prediction, "l2_read_sectors", warm, loads,
                         "a lap of the chain about fills the L1: some of it stays there");
        predict_dram_fills(problem, prediction, warm, warm, bytes, where);
        break;
    case LEVEL_L2:
    case LEVEL_L2_FAR:
        ml_predict(prediction, "global_hit_rate", 0);
        ml_predict(prediction, "l2_read_sectors", loads);
        predict_dram_fills(problem, prediction, warm, warm, bytes, where);
        break;
    case LEVEL_L2_DRAM:
        ml_predict(prediction, "global_hit_rate", 0);
        ml_predict(prediction, "l2_read_sectors", loads);
        predict_dram_fills(problem, prediction, warm, loads, bytes, where);
        break;
    default: { /* LEVEL_DRAM: the timed loads touch links the L2 has not seen */
        double fills = timed < links ? timed : links;
        ml_predict(prediction, "global_hit_rate", 0);
        ml_predict(prediction, "l2_read_sectors", loads);
        predict_dram_fills(problem, prediction, fills, fills, bytes, where);
    }
    }
}

/* One load instruction a link, of one warp; a sector each in local memory. */
static void predict_word_chase(const ml_problem *problem, ml_prediction *prediction)
{
    const word_chain *memory = ML_CONSTANTS(word_chain, problem);
    prediction->served_by = memory->served_by;
    ml_predict(prediction, memory->loads_metric,
               (double)memory->warm_loads + (double)ml_size(problem, "loads"));
}

/* One load instruction a link, of one warp, asking for one address or 32. The 1 KiB chain is 16
 * lines of 64 bytes: one miss each, in the warm lap, then every request hits. The 56 KiB chain
 * is more than the first constant cache holds: every request misses it (the second level serves
 * them). */
static void predict_constant_chase(const ml_problem *problem, ml_prediction *prediction)
{
    const constant_chain_layout *layout = ML_CONSTANTS(constant_chain_layout, problem);
    double warm = layout->links, timed = (double)ml_size(problem, "loads");
    double requests = layout->requests_per_load * (warm + timed);
    double lines = warm * layout->words_per_link * 4 / CONSTANT_LINE_BYTES;
    prediction->served_by = layout->served_by;
    ml_predict(prediction, "constant_instructions", warm + timed);
    ml_predict(prediction, "constant_requests_per_instruction", layout->requests_per_load);
    if (layout->fits_first_cache)
        ml_predict(prediction, "constant_hit_rate", 100.0 * (1 - lines / requests));
    else
        ml_predict_residue(prediction, "constant_hit_rate", 1, 100,
                           "a link shares no line with the last few, so almost none hit");
}

static void predict_fma_chain(const ml_problem *problem, ml_prediction *prediction)
{
    prediction->served_by = "registers";
}

/* A 16-byte load a thread for each float4 of its share, each round. */
static void predict_shared_reads(const ml_problem *problem, ml_prediction *prediction)
{
    bandwidth_state run = bandwidth_sizes(problem);
    double blocks = run.blocks, warps_per_block = BANDWIDTH_THREADS / 32;
    double rounds = run.reads->rounds;
    prediction->served_by = run.reads->served_by;
    ml_predict(prediction, "shared_ld_instructions",
               blocks * warps_per_block * rounds * (run.vectors / BANDWIDTH_THREADS));
}

static void predict_region_reads(const ml_problem *problem, ml_prediction *prediction)
{
    bandwidth_state run = bandwidth_sizes(problem);
    double rounds = run.reads->rounds;
    prediction->served_by = run.reads->served_by;
    ml_predict_range(prediction, "global_hit_rate", 100.0 * (rounds - 1) / rounds, 100,
                     "the first round of the first block on each SM misses, the rest hit");
}

/* The first round reads the buffer from DRAM; an L2 that holds it serves the rest. Read once,
 * no line is read twice. */
static void predict_grid_reads(const ml_problem *problem, ml_prediction *prediction)
{
    bandwidth_state run = bandwidth_sizes(problem);
    prediction->served_by = run.reads->served_by;
    if (run.reads->rounds == 1)
        ml_predict_residue(prediction, "l2_hit_rate", 0.01, 100,
                           "no line is read twice; the launch's own reads (its code, its "
                           "parameters) may hit");
    double bytes = (double)run.vectors * 16.0;
    ml_predict_dram_reads(prediction, problem, bytes, bytes, bytes, NULL);
}

static void predict_constant_reads(const ml_problem *problem, ml_prediction *prediction)
{
    prediction->served_by = ML_CONSTANTS(bandwidth_reads, problem)->served_by;
    ml_predict(prediction, "constant_requests_per_instruction", 1);
}

/* ---- chains, CPU reference, buffers ---------------------------------------------------------- */

static double global_chase_bytes(const ml_problem *problem)
{
    return (double)global_chase_sizes(problem).span_bytes;
}

/* The chains on chip need little device memory: no more than the constant chain's. */
static double on_chip_bytes(const ml_problem *problem)
{
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
static uint32_t *chain_order(ml_problem *problem, uint64_t links)
{
    uint32_t *order = (uint32_t *)ml_host_buffer(problem, links * sizeof *order);
    for (uint64_t i = 0; i < links; i++)
        order[i] = (uint32_t)i;
    uint64_t random = problem->seed;
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

/* A chain is made once, from --seed: remaking one of hundreds of MiB for every launch would take
 * longer than the launches. Its order stays for fill_inputs; its words come back for the caller
 * to copy where its kernel reads them, and free. */
static unsigned *make_chain(ml_problem *problem, chase_state *state)
{
    state->order = chain_order(problem, state->links);
    return chain_words(state->order, state->links, state->words_per_link);
}

/* A latency kernel's clock: the cycles of its timed loop, and the operations it times. */
static void expect_clock(ml_problem *problem, unsigned timed_operations)
{
    problem->cycles = (long long *)ml_device_buffer(problem, sizeof(long long));
    problem->timed_operations = timed_operations;
}

/* The chase's output: the index each lane's chase ends at, counted exactly; its reference, where
 * the chain ends from the starts the first fill draws. */
static void expect_ends(ml_problem *problem, const chase_state *state, size_t lanes)
{
    ml_expect_output(problem, ML_OUTPUT_COUNTED, lanes, 0);
    expect_clock(problem, state->timed_loads);
    problem->variant->family->fill_inputs(problem);
    memcpy(problem->reference_counts, state->ends, lanes * sizeof(uint32_t));
}

/* One thread's chain, in a device buffer of the bytes it spans. */
static void load_chain(ml_problem *problem, chase_state *state)
{
    unsigned *words = make_chain(problem, state);
    state->next = (unsigned *)ml_device_buffer(problem, state->span_bytes);
    ML_CUDA_CHECK(cudaMemcpy(state->next, words,
                             state->links * state->words_per_link * sizeof(unsigned),
                             cudaMemcpyHostToDevice));
    free(words);
    expect_ends(problem, state, 1);
}

static void setup_global_chase(ml_problem *problem)
{
    chase_state *state = (chase_state *)problem->state;
    *state = global_chase_sizes(problem);
    load_chain(problem, state);
    /* Carveout 0: the least of the SM's on-chip memory for shared memory, the most for the L1. */
    ML_CUDA_CHECK(cudaFuncSetAttribute((const void *)problem->kernel,
                                       cudaFuncAttributePreferredSharedMemoryCarveout, 0));
}

static void setup_word_chase(ml_problem *problem)
{
    const word_chain *memory = ML_CONSTANTS(word_chain, problem);
    chase_state *state = (chase_state *)problem->state;
    *state = chase_sizes(problem, memory->chain_words, 1, memory->warm_loads);
    load_chain(problem, state);
}

/* One lap of the chain warms the constant caches. */
static void setup_constant_chase(ml_problem *problem)
{
    const constant_chain_layout *layout = ML_CONSTANTS(constant_chain_layout, problem);
    chase_state *state = (chase_state *)problem->state;
    *state = chase_sizes(problem, layout->links, layout->words_per_link, layout->links);
    unsigned *words = make_chain(problem, state);
    ml_copy_to_symbol("constant_chain", words, state->span_bytes);
    free(words);
    state->starts = (unsigned *)ml_device_buffer(problem, 32 * sizeof(unsigned));
    expect_ends(problem, state, 32);
}

/* Each fill starts the chain at a new place in its lap, drawn from the seed (a stream of its own,
 * apart from the shuffle's), so where it ends is new too and known at once:
 * order[(place + loads) % links]. Lane l starts lane_spread * l links further. */
static void place_lanes(const ml_problem *problem, chase_state *state, uint64_t lane_spread,
                        unsigned *starts)
{
    uint64_t random = ~problem->seed;
    uint64_t first = next_random(&random) % state->links;
    uint64_t loads = (uint64_t)state->warm_loads + state->timed_loads;
    for (size_t lane = 0; lane < problem->output_count; lane++) {
        uint64_t place = (first + lane_spread * lane) % state->links;
        starts[lane] = (unsigned)(state->order[place] * state->words_per_link);
        state->ends[lane] =
            (uint32_t)(state->order[(place + loads) % state->links] * state->words_per_link);
    }
}

/* One thread's start, an argument of its kernel. */
static void fill_chase(ml_problem *problem)
{
    chase_state *state = (chase_state *)problem->state;
    place_lanes(problem, state, 0, &state->start);
}

/* chase_constant reads its lanes' starts from memory. */
static void fill_constant_chase(ml_problem *problem)
{
    chase_state *state = (chase_state *)problem->state;
    unsigned starts[32];
    place_lanes(problem, state, ML_CONSTANTS(constant_chain_layout, problem)->lane_spread, starts);
    ML_CUDA_CHECK(cudaMemcpy(state->starts, starts, problem->output_count * sizeof(unsigned),
                             cudaMemcpyHostToDevice));
}

/* What fill_inputs kept: where each lane's chase ends. */
static void chase_ends_at(const ml_problem *problem, const size_t *position, size_t count,
                          void *values)
{
    const chase_state *state = (const chase_state *)problem->state;
    for (size_t k = 0; k < count; k++)
        ((uint32_t *)values)[k] = state->ends[position[k]];
}

/* The FMA chain from a random start, on the CPU in the same order: fmaf rounds once, as the
 * GPU's FFMA does. */
static void fill_fma_chain(ml_problem *problem)
{
    fma_state *state = (fma_state *)problem->state;
    ml_fill_random(state->x, 1, problem->seed);
    float a = ml_random_value(problem->seed, 0);
    for (unsigned i = 0; i < state->timed_operations; i++)
        a = fmaf(a, 0.9999f, 0.0001f);
    state->fma_end = a;
}

static void fma_end_at(const ml_problem *problem, const size_t *position, size_t count,
                       void *values)
{
    const fma_state *state = (const fma_state *)problem->state;
    for (size_t k = 0; k < count; k++)
        ((float *)values)[k] = state->fma_end;
}

static void setup_fma_chain(ml_problem *problem)
{
    fma_state *state = (fma_state *)problem->state;
    state->x = (float *)ml_device_buffer(problem, sizeof(float));
    state->timed_operations = (unsigned)ml_size(problem, "loads");
    ml_expect_output(problem, ML_OUTPUT_WRITTEN, 1, 0);
    expect_clock(problem, state->timed_operations);
    fill_fma_chain(problem);
    problem->reference[0] = state->fma_end;
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
 * of all of them, or, where totals is NULL, each recomputed from the seed. The rounds repeat
 * after vectors / gcd(move, vectors) of them, so one period's sums count for every whole period
 * and the rest are added once. */
static double thread_sum(const bandwidth_state *run, const double *totals, uint64_t seed,
                         size_t t)
{
    uint64_t move = run->reads->move;
    unsigned all_rounds = run->reads->rounds;
    uint64_t period = run->vectors / greatest_common_divisor(move, run->vectors);
    uint64_t rounds = all_rounds < period ? all_rounds : period, rest = all_rounds % period;
    double lap = 0, sum = 0;
    for (uint64_t round = 0; round < rounds; round++) {
        double got = 0;
        for (size_t k = t; k < run->vectors; k += run->read_stride) {
            size_t index = (k + move * round) % run->vectors;
            got += totals != NULL ? totals[index] : vector_total(seed, index);
        }
        lap += got;
        if (round < rest)
            sum += got;
    }
    return sum + (double)(all_rounds / period) * lap;
}

/* The sums of the threads at `count` positions (NULL: threads 0 .. count - 1). Sums that repeat
 * (read_constant's threads all make one, read_shared's and read_region's repeat every block) are
 * made once each; read_grid_l2's thread by thread. */
static void bandwidth_sums(const ml_problem *problem, const double *totals,
                           const size_t *position, size_t count, float *sums)
{
    const bandwidth_state *run = (const bandwidth_state *)problem->state;
    size_t groups = run->sum_period;
    if (groups <= BANDWIDTH_THREADS) {
        double group_sum[BANDWIDTH_THREADS];
#pragma omp parallel for
        for (size_t g = 0; g < groups; g++)
            group_sum[g] = thread_sum(run, totals, problem->seed, g);
        for (size_t k = 0; k < count; k++)
            sums[k] = (float)group_sum[(position != NULL ? position[k] : k) % groups];
        return;
    }
#pragma omp parallel for
    for (size_t k = 0; k < count; k++)
        sums[k] = (float)thread_sum(run, totals, problem->seed,
                                    position != NULL ? position[k] : k);
}

static void sums_at(const ml_problem *problem, const size_t *position, size_t count,
                    void *values)
{
    bandwidth_sums(problem, NULL, position, count, (float *)values);
}

/* Every thread's sum, compared exactly. The checked launch's reference comes from a table of
 * every float4's total (each is read by many threads). */
static void expect_sums(ml_problem *problem)
{
    const bandwidth_state *run = (const bandwidth_state *)problem->state;
    ml_expect_output(problem, ML_OUTPUT_WRITTEN, run->threads, 0);
    double *totals = (double *)ml_host_alloc(run->vectors * sizeof(double));
#pragma omp parallel for
    for (size_t k = 0; k < run->vectors; k++)
        totals[k] = vector_total(problem->seed, k);
    bandwidth_sums(problem, totals, NULL, problem->output_count, problem->reference);
    free(totals);
}

/* The inputs of the seed: whole numbers made on the GPU. */
static void fill_buffer(ml_problem *problem)
{
    const bandwidth_state *run = (const bandwidth_state *)problem->state;
    size_t floats = run->vectors * 4;
    unsigned blocks = ml_blocks_for(floats, 256);
    fill_whole_numbers<<<blocks < 65536 ? blocks : 65536, 256>>>((float *)run->in, floats,
                                                                  problem->seed);
    ML_LAUNCH_CHECK();
}

/* read_constant's 4 KiB, made on the CPU. */
static void fill_constant_vectors(ml_problem *problem)
{
    float values[CONSTANT_BANDWIDTH_VECTORS * 4];
    for (size_t i = 0; i < ML_COUNT(values); i++)
        values[i] = whole_number(ml_random_value(problem->seed, i));
    ml_copy_to_symbol("constant_vectors", values, sizeof values);
}

static void setup_buffer_reads(ml_problem *problem)
{
    bandwidth_state *run = (bandwidth_state *)problem->state;
    *run = bandwidth_sizes(problem);
    run->in = (float4 *)ml_device_buffer(problem, run->vectors * sizeof(float4));
    fill_buffer(problem);
    expect_sums(problem);
}

static void setup_constant_reads(ml_problem *problem)
{
    *(bandwidth_state *)problem->state = bandwidth_sizes(problem);
    fill_constant_vectors(problem);
    expect_sums(problem);
}

static double bandwidth_device_bytes(const ml_problem *problem)
{
    bandwidth_state run = bandwidth_sizes(problem);
    return (double)run.vectors * 16.0 + (double)run.threads * 4.0;
}

/* Bytes the threads read: each reads vectors / read_stride float4s a round (read_shared and
 * read_region: a block reads all of its buffer; read_grid_l2: the grid reads it once;
 * read_constant: one float4 a thread). */
static double bandwidth_bytes(const ml_problem *problem)
{
    bandwidth_state run = bandwidth_sizes(problem);
    double threads = (double)run.threads;
    return threads * (double)(run.vectors / run.read_stride) * 16.0 * run.reads->rounds;
}

/* ---- peaks: the most each level can deliver on this device ----------------------------------- */

/* Shared memory and the L1 deliver 32 banks x 4 bytes to each SM a clock. */
#define L1_BYTES_PER_CLOCK 128

static double per_clock_peak(ml_problem *problem, const ml_device_figures *device,
                             double variant_gbps, char *source, size_t size)
{
    (void)problem, (void)variant_gbps;
    snprintf(source, size, "%d SMs x %.0f MHz x %d bytes a clock", device->sm_count,
             device->sm_clock_mhz, L1_BYTES_PER_CLOCK);
    return device->sm_count * device->sm_clock_mhz * 1e6 * L1_BYTES_PER_CLOCK / 1e9;
}

/* The L2, DRAM and the constant cache have no per-clock figure to trust: their peak here is the
 * best a read or copy of them achieves on this device: the variant's own read, a probe run at
 * four block sizes (each filling the SMs, the best of PROBE_REPS launches after one untimed)
 * and, for the L2 and DRAM, the device-to-device copy. The probes are the host program's own
 * kernels, not the lab's. */
#define PROBE_REPS 3
static const unsigned probe_block_threads[] = {128, 256, 512, 1024};

static __global__ void probe_grid_reads(const float4 *in, size_t vectors, unsigned rounds,
                                        float *sums)
{
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    float4 sum = make_float4(0, 0, 0, 0);
    for (unsigned round = 0; round < rounds; round++) {
        size_t start = 32 * (size_t)round % vectors;
#pragma unroll 8
        for (size_t k = thread; k < vectors; k += threads) {
            size_t index = k + start;
            if (index >= vectors)
                index -= vectors;
            float4 v = __ldcg(&in[index]);
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
    }
    sums[thread] = sum.x + sum.y + sum.z + sum.w;
}

static __constant__ float4 probe_constants[CONSTANT_BANDWIDTH_VECTORS];

static __global__ void probe_constant_reads(unsigned rounds, float *sums)
{
    float4 sum = make_float4(0, 0, 0, 0);
    for (unsigned round = 0; round < rounds; round += CONSTANT_ROUNDS_A_STEP) {
        unsigned first = round % CONSTANT_BANDWIDTH_VECTORS;
#pragma unroll
        for (unsigned i = 0; i < CONSTANT_ROUNDS_A_STEP; i++) {
            float4 v = probe_constants[first + i];
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
    }
    sums[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = sum.x + sum.y + sum.z + sum.w;
}

/* The variant's buffer read by probe_grid_reads, or rounds float4s a thread of probe_constants,
 * by `threads`-thread blocks filling sm_count SMs. */
static void launch_probe(const ml_problem *problem, int sm_count, unsigned threads, float *sums)
{
    const bandwidth_state *run = (const bandwidth_state *)problem->state;
    unsigned blocks = (unsigned)sm_count * (BANDWIDTH_THREADS_PER_SM / threads);
    if (run->in != NULL)
        probe_grid_reads<<<blocks, threads>>>(run->in, run->vectors, run->reads->rounds, sums);
    else
        probe_constant_reads<<<blocks, threads>>>(run->reads->rounds, sums);
    ML_LAUNCH_CHECK();
}

/* The probe's best rate in GB/s: each launch reads what the variant reads (bandwidth_bytes). */
static double best_probe_gbps(ml_problem *problem, int sm_count)
{
    float *sums = (float *)ml_device_buffer(problem, (size_t)sm_count * BANDWIDTH_THREADS_PER_SM *
                                                         sizeof(float));
    cudaEvent_t start, stop;
    ML_CUDA_CHECK(cudaEventCreate(&start));
    ML_CUDA_CHECK(cudaEventCreate(&stop));
    float best_ms = INFINITY;
    for (size_t s = 0; s < ML_COUNT(probe_block_threads); s++) {
        for (int rep = 0; rep <= PROBE_REPS; rep++) {
            ML_CUDA_CHECK(cudaEventRecord(start, 0));
            launch_probe(problem, sm_count, probe_block_threads[s], sums);
            ML_CUDA_CHECK(cudaEventRecord(stop, 0));
            ML_CUDA_CHECK(cudaEventSynchronize(stop));
            float ms = 0;
            ML_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            if (rep > 0 && ms < best_ms)
                best_ms = ms;
        }
    }
    ML_CUDA_CHECK(cudaEventDestroy(start));
    ML_CUDA_CHECK(cudaEventDestroy(stop));
    return bandwidth_bytes(problem) / (best_ms * 1e-3) / 1e9;
}

/* The best of the variant, the probe and (unless NAN) the copy, and the three in source. */
static double best_of(double variant_gbps, double probe_gbps, double copy_gbps, char *source,
                      size_t size)
{
    if (isnan(copy_gbps)) {
        snprintf(source, size, "best of this read and a probe's (%.0f)", probe_gbps);
        return fmax(variant_gbps, probe_gbps);
    }
    snprintf(source, size, "best of this read, a probe's (%.0f) and a copy's (%.0f)", probe_gbps,
             copy_gbps);
    return fmax(fmax(variant_gbps, probe_gbps), copy_gbps);
}

/* The L2 and DRAM: the variant's buffer, read by the probe; the copy beside it. */
static double copy_or_read_peak(ml_problem *problem, const ml_device_figures *device,
                                double variant_gbps, char *source, size_t size)
{
    double probe = best_probe_gbps(problem, device->sm_count);
    return best_of(variant_gbps, probe, device->copy_ceiling_gbps, source, size);
}

static double constant_read_peak(ml_problem *problem, const ml_device_figures *device,
                                 double variant_gbps, char *source, size_t size)
{
    double probe = best_probe_gbps(problem, device->sm_count);
    return best_of(variant_gbps, probe, NAN, source, size);
}

const ml_family global_chase = {
    .name = "global_chase", .state_bytes = sizeof(chase_state), .device_bytes = global_chase_bytes,
    .setup = setup_global_chase, .fill_inputs = fill_chase, .reference_at = chase_ends_at,
    .launch = launch_global_chase, .predict = predict_global_chase};
const ml_family word_chase = {
    .name = "word_chase", .state_bytes = sizeof(chase_state), .device_bytes = on_chip_bytes,
    .setup = setup_word_chase, .fill_inputs = fill_chase, .reference_at = chase_ends_at,
    .launch = launch_word_chase, .predict = predict_word_chase};
const ml_family constant_warp_chase = {
    .name = "constant_warp_chase", .state_bytes = sizeof(chase_state),
    .device_bytes = on_chip_bytes, .setup = setup_constant_chase,
    .fill_inputs = fill_constant_chase, .reference_at = chase_ends_at,
    .launch = launch_constant_chase, .predict = predict_constant_chase};
const ml_family fma_latency = {
    .name = "fma_latency", .state_bytes = sizeof(fma_state), .device_bytes = on_chip_bytes,
    .setup = setup_fma_chain, .fill_inputs = fill_fma_chain, .reference_at = fma_end_at,
    .launch = launch_fma_chain, .predict = predict_fma_chain};
const ml_family shared_reads = {
    .name = "shared_reads", .state_bytes = sizeof(bandwidth_state),
    .device_bytes = bandwidth_device_bytes, .setup = setup_buffer_reads, .fill_inputs = fill_buffer,
    .reference_at = sums_at, .launch = launch_shared_reads, .predict = predict_shared_reads,
    .bytes_read = bandwidth_bytes, .peak_gbps = per_clock_peak};
const ml_family region_reads = {
    .name = "region_reads", .state_bytes = sizeof(bandwidth_state),
    .device_bytes = bandwidth_device_bytes, .setup = setup_buffer_reads, .fill_inputs = fill_buffer,
    .reference_at = sums_at, .launch = launch_shared_reads, .predict = predict_region_reads,
    .bytes_read = bandwidth_bytes, .peak_gbps = per_clock_peak};
const ml_family grid_reads = {
    .name = "grid_reads", .state_bytes = sizeof(bandwidth_state),
    .device_bytes = bandwidth_device_bytes, .setup = setup_buffer_reads, .fill_inputs = fill_buffer,
    .reference_at = sums_at, .launch = launch_grid_reads, .predict = predict_grid_reads,
    .bytes_read = bandwidth_bytes, .peak_gbps = copy_or_read_peak};
const ml_family constant_reads = {
    .name = "constant_reads", .state_bytes = sizeof(bandwidth_state),
    .device_bytes = bandwidth_device_bytes, .setup = setup_constant_reads,
    .fill_inputs = fill_constant_vectors, .reference_at = sums_at, .launch = launch_constant_reads,
    .predict = predict_constant_reads, .bytes_read = bandwidth_bytes,
    .peak_gbps = constant_read_peak};

static const ml_lab lab = {
    .program = "hierarchy_map",
    .title = "Lab 07: a map of the memory hierarchy, measured on this GPU",
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
