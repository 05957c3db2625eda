/* Lab 09: host memory and unified memory. The host program (the instructor's): sizes, variants,
 * launches, the model's predictions, the CPU reference. The kernels are in kernels.cu, loaded by
 * name (--kernels FILE runs another file).
 *
 * Variants (the host's memory, and how a kernel reaches it):
 *   pageable_copy        cudaMemcpy to the device from malloc memory
 *   pinned_copy          cudaMemcpy to the device from pinned (page-locked) memory
 *   zero_copy            scale_stream reads mapped pinned memory across the link, each byte once
 *   zero_copy_reused     sum_passes reads mapped pinned memory across the link, each byte
 *                        --reuse times
 *   copy_then_reuse      a pinned copy, then sum_passes reads device memory --reuse times
 *   managed_first_touch  scale_stream reads managed memory the CPU wrote last: page faults
 *   managed_prefetch     cudaMemPrefetchAsync, then scale_stream: the pages move first
 *   managed_resident     scale_stream reads managed memory the GPU wrote last: no migration
 *   managed_sparse       touch_sparse reads one word of every --stride_kib of managed memory
 *   ping_pong            --rounds times: the CPU touches every page, then scale_stream
 *
 * Every timed launch gets new inputs, written where the variant says they are (by the CPU, or on
 * the GPU for managed_resident) before the clock starts: the clock holds the copy, the
 * migrations and the kernel, never the filling. GB/s counts the input's bytes once: the data's
 * rate across the link, whatever the kernel does to move it.
 *
 * Build:  ./memlab run unified_memory --help     (or: make -f Makefile.labs unified_memory)
 * Try:    unified_memory
 *         unified_memory --variant managed_sparse --sweep stride_kib=4,64,2048
 *         unified_memory --model                 (predictions only, no GPU)
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "memlab.h"

#define THREADS_PER_BLOCK 256
/* The grid-stride kernels run this many blocks an SM: enough to keep every SM's loads in
 * flight, and a grid that sweeps the pages in order. */
#define BLOCKS_PER_SM 8

static const ml_param params[] = {
    {"n", 1 << 23, 1, 1ll << 29, "floats of input (4 bytes each)"},
    {"reuse", 4, 1, 16, "zero_copy_reused, copy_then_reuse: times each input float is read",
     .used_by = "reuse"},
    {"stride_kib", 2048, 4, 1 << 20, "managed_sparse: KiB between the words read",
     .used_by = "sparse"},
    {"rounds", 4, 1, 64, "ping_pong: rounds of a CPU touch and a kernel, in one launch",
     .used_by = "ping_pong"},
};

/* ---- the variant table ----------------------------------------------------------------------- */

/* Where a variant's input lives, as data: how its memory is allocated, written before every
 * launch, moved before the kernel reads it, what the kernel's one read of it moves across the
 * link, and which level serves it. A new placement is one more of these, and a table row. */
typedef struct {
    /* Once, in setup: the memory the CPU writes and the address the kernel reads. NULL for
     * managed memory, which fill allocates anew before every launch (renew_managed). */
    void (*allocate)(ml_problem *problem);
    /* Before every launch: the input from problem->seed, written where it lives. */
    void (*fill)(ml_problem *problem);
    /* In the launch, before each kernel: what moves the input first (a prefetch, a copy).
     * NULL: nothing does. */
    void (*before_kernel)(const ml_problem *problem);
    /* The model: what crosses the link while a kernel reads the input once. NULL for memory no
     * kernel reads (the copies' sources). */
    void (*predict_one_read)(const ml_problem *problem, ml_prediction *prediction);
    const char *served_by; /* the level the kernel's loads reach */
    /* The peak the variant's rate is held against (the family's peak_gbps). */
    double (*peak_gbps)(ml_problem *problem, const ml_device_figures *device,
                        double variant_gbps, char *source, size_t size);
} placement;

/* pageable: malloc memory; pinned: page-locked (cudaHostAlloc); copied_to_device: pinned, copied
 * to device memory before the kernel; mapped: pinned and mapped into the GPU's address space;
 * managed_on_host, managed_prefetched: managed memory the CPU wrote last, the second prefetched
 * to the GPU before the kernel; managed_on_device: managed memory a kernel wrote last. */
extern const placement pageable, pinned, copied_to_device, mapped, managed_on_host,
    managed_prefetched, managed_on_device;

/* A copy is a library call; the stream, the sparse touch, the reuse and the ping-pong each have
 * a kernel and a launch of their own. */
extern const ml_family copy, stream, sparse, reuse, ping_pong;

#define UNIFIED_METRICS "um_htod_bytes,um_dtoh_bytes,um_htod_migrations,um_gpu_fault_groups"
#define PING_PONG_METRICS UNIFIED_METRICS ",um_dtoh_migrations,um_cpu_faults"

static const ml_variant variants[] = {
    {.name = "pageable_copy", .summary = "cudaMemcpy to the device from malloc memory",
     .family = &copy, .constants = &pageable},
    {.name = "pinned_copy", .summary = "cudaMemcpy to the device from pinned memory",
     .family = &copy, .constants = &pinned},
    {.name = "zero_copy", .summary = "a kernel reads mapped pinned memory across the link, once",
     .family = &stream, .kernel = "scale_stream", .block = {THREADS_PER_BLOCK},
     .constants = &mapped, .metrics = UNIFIED_METRICS},
    {.name = "zero_copy_reused", .summary = "a kernel reads mapped pinned memory across the link, --reuse times",
     .family = &reuse, .kernel = "sum_passes", .block = {THREADS_PER_BLOCK},
     .constants = &mapped},
    {.name = "copy_then_reuse", .summary = "a pinned copy, then the kernel reads device memory --reuse times",
     .family = &reuse, .kernel = "sum_passes", .block = {THREADS_PER_BLOCK},
     .constants = &copied_to_device},
    {.name = "managed_first_touch", .summary = "a kernel reads managed memory the CPU wrote last",
     .family = &stream, .kernel = "scale_stream", .block = {THREADS_PER_BLOCK},
     .constants = &managed_on_host, .metrics = UNIFIED_METRICS},
    {.name = "managed_prefetch", .summary = "cudaMemPrefetchAsync to the GPU, then the same kernel",
     .family = &stream, .kernel = "scale_stream", .block = {THREADS_PER_BLOCK},
     .constants = &managed_prefetched, .metrics = UNIFIED_METRICS},
    {.name = "managed_resident", .summary = "a kernel reads managed memory the GPU wrote last",
     .family = &stream, .kernel = "scale_stream", .block = {THREADS_PER_BLOCK},
     .constants = &managed_on_device, .metrics = UNIFIED_METRICS},
    {.name = "managed_sparse", .summary = "a kernel reads one word of every --stride_kib of managed memory",
     .family = &sparse, .kernel = "touch_sparse", .block = {THREADS_PER_BLOCK},
     .constants = &managed_on_host, .metrics = UNIFIED_METRICS},
    {.name = "ping_pong", .summary = "--rounds times: the CPU touches every page, then the kernel reads them",
     .family = &ping_pong, .kernel = "scale_stream", .block = {THREADS_PER_BLOCK},
     .constants = &managed_on_host, .metrics = PING_PONG_METRICS},
};

/* ---- launches -------------------------------------------------------------------------------- */

typedef struct {
    size_t n;
    float *host;                /* the input as the CPU writes it (NULL for managed_on_device) */
    const float *device_view;   /* the input as the kernel reads it: the same address for
                                   managed memory, the mapped address for zero-copy, a device
                                   copy for copied_to_device */
    float *device_copy;         /* copied_to_device's copy of the input */
    float *managed;             /* managed memory, new for every launch (renew_managed) */
    unsigned passes;            /* reuse */
    size_t shift;               /* reuse: n / passes */
    size_t stride, touches;     /* sparse, in floats */
    unsigned rounds;            /* ping_pong */
    int device;
} link_state;

static unsigned stream_blocks(size_t n)
{
    return ml_blocks_filling(n, THREADS_PER_BLOCK, BLOCKS_PER_SM);
}

/* What the variant's placement moves before its kernel runs, in the same stream. */
static void move_before_kernel(const ml_problem *problem)
{
    const placement *where = ML_CONSTANTS(placement, problem);
    if (where->before_kernel != NULL)
        where->before_kernel(problem);
}

/* managed_prefetched: the input's pages to the GPU. */
static void prefetch_to_device(const ml_problem *problem)
{
    const link_state *state = (const link_state *)problem->state;
    struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, state->device};
    ML_CUDA_CHECK(cudaMemPrefetchAsync(state->device_view, state->n * sizeof(float), gpu, 0, 0));
}

/* copied_to_device: the pinned input to its device copy. */
static void copy_to_device(const ml_problem *problem)
{
    const link_state *state = (const link_state *)problem->state;
    ML_CUDA_CHECK(cudaMemcpyAsync(state->device_copy, state->host, state->n * sizeof(float),
                                  cudaMemcpyHostToDevice, 0));
}

/* pageable_copy, pinned_copy: one cudaMemcpy of the input into the output. */
static void launch_copy(const ml_problem *problem)
{
    const link_state *state = (const link_state *)problem->state;
    ML_CUDA_CHECK(cudaMemcpyAsync(problem->output, state->host, state->n * sizeof(float),
                                  cudaMemcpyHostToDevice, 0));
}

/* scale_stream(in, n, out), on a grid that sweeps the input in order. */
static void launch_stream(const ml_problem *problem)
{
    const link_state *state = (const link_state *)problem->state;
    move_before_kernel(problem);
    ml_argument arguments[] = {ML_ARG(state->device_view), ML_ARG(state->n),
                               ML_ARG(problem->output)};
    ML_LAUNCH(problem, stream_blocks(state->n), 0, arguments);
}

/* touch_sparse(in, stride, touches, out): a thread per word read. */
static void launch_sparse(const ml_problem *problem)
{
    const link_state *state = (const link_state *)problem->state;
    move_before_kernel(problem);
    ml_argument arguments[] = {ML_ARG(state->device_view), ML_ARG(state->stride),
                               ML_ARG(state->touches), ML_ARG(problem->output)};
    ML_LAUNCH(problem, ml_blocks_of(problem, state->touches), 0, arguments);
}

/* sum_passes(in, n, passes, shift, out). */
static void launch_reuse(const ml_problem *problem)
{
    const link_state *state = (const link_state *)problem->state;
    move_before_kernel(problem);
    ml_argument arguments[] = {ML_ARG(state->device_view), ML_ARG(state->n),
                               ML_ARG(state->passes), ML_ARG(state->shift),
                               ML_ARG(problem->output)};
    ML_LAUNCH(problem, stream_blocks(state->n), 0, arguments);
}

/* Rounds of: the CPU reads and writes back one word of every 4 KiB page (the first round's
 * pages are on the host already), then scale_stream. The words keep their values, so the last
 * round's output is the stream's. */
#define CPU_PAGE_BYTES 4096

static void launch_ping_pong(const ml_problem *problem)
{
    const link_state *state = (const link_state *)problem->state;
    volatile float *words = state->host;
    size_t page_floats = CPU_PAGE_BYTES / sizeof(float);
    for (unsigned round = 0; round < state->rounds; round++) {
        if (round > 0) {
            ML_CUDA_CHECK(cudaStreamSynchronize(0));
            for (size_t i = 0; i < state->n; i += page_floats)
                words[i] = words[i];
        }
        move_before_kernel(problem);
        ml_argument arguments[] = {ML_ARG(state->device_view), ML_ARG(state->n),
                                   ML_ARG(problem->output)};
        ML_LAUNCH(problem, stream_blocks(state->n), 0, arguments);
    }
}

/* ---- predictions ----------------------------------------------------------------------------- */

/* How the driver (nvidia-uvm, its source is open: kernel-open/nvidia-uvm/uvm_perf_prefetch.c
 * and uvm_perf_thrashing.c) moves managed memory, as the model counts it. Every rule below was
 * checked against a GPU's counters across a PCIe link (the instructor notes have the runs and
 * what each rule makes of the lab's sizes):
 *
 * - Pages are the CPU's (PAGE_BYTES on x86-64): the driver moves whole pages, never less.
 * - It keeps managed memory in blocks of BLOCK_PAGES pages (a VA block), aligned as
 *   cudaMallocManaged aligns them. An allocation of one block or less sits at the start of a
 *   whole block and the driver's heuristics see all of the block's pages, past the allocation's
 *   end too; a larger one ends its last block at its own last page.
 * - A GPU fault grows to the big page (BIG_PAGE_PAGES pages) around the faulting page; at the
 *   end of a block cut short, to the pages after the last whole big page. Then the prefetcher
 *   looks at a binary tree over the block's pages: for each faulting page, the largest aligned
 *   power-of-two run of pages around it (cut at the block's end) of which more than
 *   PREFETCH_PERCENT% are resident or faulting (grown) moves whole (fault_block).
 * - Each move is one transfer per run of contiguous pages, the faulting pages apart from those
 *   the growth and the prefetcher add.
 * - cudaMemPrefetchAsync moves exactly the pages of the range it is given (rounded out to
 *   pages), one transfer per block it covers; no growth, no prefetcher.
 * - Thrashing: a page that moves again soon after its last move (within the driver's thrashing
 *   lapse, a module parameter of nvidia-uvm) counts a thrashing event; at 3 events the driver
 *   marks it thrashing, and faults on it then move only the pages faulting, with neither growth
 *   nor prefetch (after 10 throttled faults it may even pin the page and map it across the
 *   link). Whether moves come within the lapse of each other is timing, which the model cannot
 *   know. */
#define PAGE_BYTES 4096.0
#define BIG_PAGE_PAGES 16
#define BLOCK_PAGES 512
#define PREFETCH_PERCENT 51
/* The driver starts tracking a page's moves at its 2nd move at the earliest, and counts
 * thrashing events at the 3rd, 4th and 5th: the 6th move is the first that thrashing can make
 * smaller. */
#define FIRST_MOVE_THRASHING_MAY_CUT 6

/* Pages of n floats. */
static long long pages_of(const ml_problem *problem)
{
    return (long long)ceil((double)ml_size(problem, "n") * sizeof(float) / PAGE_BYTES);
}

/* The pages of the allocation's 2 MiB blocks: whole ones, and a last one cut at the
 * allocation's last page when the allocation is larger than one block. */
static int block_leaves(long long pages, long long block)
{
    if (pages <= BLOCK_PAGES)
        return BLOCK_PAGES;
    long long left = pages - block * BLOCK_PAGES;
    return left < BLOCK_PAGES ? (int)left : BLOCK_PAGES;
}

/* grown_pages: the pages the faults' growth to big pages moves without the prefetcher. */
typedef struct {
    double pages, transfers, grown_pages;
} migration;

/* One GPU fault batch on a block of `leaves` pages none of which the GPU holds: faulting[p]
 * marks the pages the kernel touches. Adds the pages that move and their transfers. */
static void fault_block(const unsigned char *faulting, int leaves, migration *moved)
{
    unsigned char grown[BLOCK_PAGES] = {0}, moves[BLOCK_PAGES] = {0};
    int counted[BLOCK_PAGES + 1] = {0};
    for (int first = 0; first < leaves; first += BIG_PAGE_PAGES) {
        int end = first + BIG_PAGE_PAGES < leaves ? first + BIG_PAGE_PAGES : leaves, any = 0;
        for (int p = first; p < end; p++)
            any |= faulting[p];
        for (int p = first; any && p < end; p++)
            grown[p] = 1;
    }
    for (int p = 0; p < leaves; p++)
        counted[p + 1] = counted[p] + grown[p];
    int tree = 1;
    while (tree < leaves)
        tree *= 2;
    for (int p = 0; p < leaves; p++) {
        if (!faulting[p])
            continue;
        int from = p, to = p + 1;
        for (int size = 1; size <= tree; size *= 2) {
            int first = p / size * size, end = first + size < leaves ? first + size : leaves;
            if ((counted[end] - counted[first]) * 100 > (end - first) * PREFETCH_PERCENT) {
                from = first;
                to = end;
            }
        }
        for (int q = from; q < to; q++)
            moves[q] = 1;
    }
    for (int p = 0; p < leaves; p++) {
        moved->pages += moves[p];
        moved->grown_pages += grown[p];
        /* A run starts where the page's kind (faulting, or added) differs from the one before. */
        if (moves[p] && (p == 0 || !moves[p - 1] || faulting[p - 1] != faulting[p]))
            moved->transfers++;
    }
}

/* What the kernel's first touch of managed memory moves, block by block: every page of the
 * input (stride_bytes 0), or the pages of words words (word k at byte k * stride_bytes). */
static migration first_touch(long long pages, double stride_bytes, long long words)
{
    migration moved = {0, 0, 0};
    long long blocks = (pages + BLOCK_PAGES - 1) / BLOCK_PAGES;
    long long word = 0;
    for (long long block = 0; block < blocks; block++) {
        int leaves = block_leaves(pages, block);
        unsigned char faulting[BLOCK_PAGES] = {0};
        long long first_page = block * BLOCK_PAGES;
        if (stride_bytes == 0) {
            for (long long p = first_page; p < pages && p < first_page + leaves; p++)
                faulting[p - first_page] = 1;
        } else {
            for (; word < words; word++) {
                long long page = (long long)((double)word * stride_bytes / PAGE_BYTES);
                if (page >= first_page + BLOCK_PAGES)
                    break;
                faulting[page - first_page] = 1;
            }
        }
        fault_block(faulting, leaves, &moved);
    }
    return moved;
}

static double input_bytes(const ml_problem *problem)
{
    return (double)ml_size(problem, "n") * sizeof(float);
}

/* Past FAULTED_DEFICIT_INPUT_BYTES of input, the faults of a kernel have now and then moved fewer
 * bytes to the GPU than every page: up to a quarter fewer, on a first touch and in ping_pong's
 * moves to the GPU, never for a prefetch nor below that size (the instructor notes have the
 * runs). The cause is not found, so the model states the range. */
#define FAULTED_DEFICIT_INPUT_BYTES 100e6
#define FAULTED_DEFICIT_SHARE 0.25
#define FAULTED_DEFICIT_REASON                                                                   \
    "past 100 MB of input, faults have now and then moved up to a quarter fewer bytes to the "    \
    "GPU than every page (cause not found)"

/* The placements' predictions for a kernel that reads the input once. managed_on_host: faults
 * on every page of the input, grown and prefetched as the driver does. The prefetcher judges
 * each batch of faults by the pages resident or faulting when it arrives, and the faults of one
 * kernel can come in several batches: where the prefetcher would add pages to the grown ones,
 * it may add none (the instructor notes have the run), so the model states the range between. */
static void predict_first_touch(const ml_problem *problem, ml_prediction *prediction)
{
    migration moved = first_touch(pages_of(problem), 0, 0);
    if (input_bytes(problem) > FAULTED_DEFICIT_INPUT_BYTES)
        ml_predict_range(prediction, "um_htod_bytes",
                         (1 - FAULTED_DEFICIT_SHARE) * moved.pages * PAGE_BYTES,
                         moved.pages * PAGE_BYTES, FAULTED_DEFICIT_REASON);
    else if (moved.grown_pages < moved.pages)
        ml_predict_range(prediction, "um_htod_bytes", moved.grown_pages * PAGE_BYTES,
                         moved.pages * PAGE_BYTES,
                         "the faulting pages grown to big pages, up to what the prefetcher adds "
                         "when one batch holds enough of the faults (the batches are timing)");
    else
        ml_predict(prediction, "um_htod_bytes", moved.pages * PAGE_BYTES);
}

/* managed_prefetched: the prefetch moves the input's pages exactly, one migration per 2 MiB
 * block. */
static void predict_prefetch(const ml_problem *problem, ml_prediction *prediction)
{
    long long pages = pages_of(problem);
    ml_predict(prediction, "um_htod_bytes", (double)pages * PAGE_BYTES);
    ml_predict(prediction, "um_htod_migrations", (double)((pages + BLOCK_PAGES - 1) / BLOCK_PAGES));
}

/* Zero-copy reads cross the link without moving a page; resident pages and a device copy do not
 * move. */
static void predict_no_migration(const ml_problem *problem, ml_prediction *prediction)
{
    (void)problem;
    ml_predict(prediction, "um_htod_bytes", 0);
}

static void predict_stream(const ml_problem *problem, ml_prediction *prediction)
{
    const placement *where = ML_CONSTANTS(placement, problem);
    if (where->predict_one_read != NULL)
        where->predict_one_read(problem, prediction);
    ml_predict(prediction, "um_dtoh_bytes", 0);
    prediction->served_by = where->served_by;
}

/* One word read of every stride: the faults of one batch (every thread faults at once), grown
 * and prefetched as first_touch does. Where the words are far enough apart that none shares a
 * big page with another nor fills more than PREFETCH_PERCENT% of a run of whole big pages, the
 * model states the transfers too (fault_block counts them). Closer, the prefetcher joins their
 * pages, and the batches the faults arrive in decide the transfers, which the model leaves to
 * the measurement. */
static void predict_sparse(const ml_problem *problem, ml_prediction *prediction)
{
    double stride_bytes = 1024.0 * ml_size(problem, "stride_kib");
    long long words = (long long)ceil(input_bytes(problem) / stride_bytes);
    migration moved = first_touch(pages_of(problem), stride_bytes, words);
    ml_predict(prediction, "um_htod_bytes", moved.pages * PAGE_BYTES);
    if (stride_bytes >= 2.0 * BIG_PAGE_PAGES * PAGE_BYTES)
        ml_predict(prediction, "um_htod_migrations", moved.transfers);
    ml_predict(prediction, "um_dtoh_bytes", 0);
    prediction->served_by = ML_CONSTANTS(placement, problem)->served_by;
}

/* Each round moves the input to the GPU, and each round but the first moves it back (the CPU's
 * touch of one word a page faults every page): the pages a first touch moves, each way (the
 * CPU's faults grow and prefetch as the GPU's do, so they bring back all that went). Moves
 * alternate, GPU, CPU, GPU, ...: from the 6th on, a page the driver has marked thrashing moves
 * alone, without the rest of its big page or run: where the first touch moves more than the
 * input's pages (an input under 2 MiB that does not fill its power-of-two run of pages), the
 * rounds after the 3rd move between the input's pages and the first touch's, as the timing
 * decides. */
static void predict_ping_pong(const ml_problem *problem, ml_prediction *prediction)
{
    long long rounds = ml_size(problem, "rounds"), pages = pages_of(problem);
    double touched = first_touch(pages, 0, 0).pages;
    double most[2] = {0, 0}, least[2] = {0, 0}; /* to the GPU, back */
    for (long long move = 1; move <= 2 * rounds - 1; move++) {
        int back = move % 2 == 0;
        most[back] += touched * PAGE_BYTES;
        least[back] += (move < FIRST_MOVE_THRASHING_MAY_CUT ? touched : (double)pages) * PAGE_BYTES;
    }
    const char *reason = "from the 6th move on, pages the driver marks thrashing (moves within "
                         "its thrashing lapse) move without the rest of their big page: timing decides";
    const char *reasons[2] = {reason, reason};
    if (input_bytes(problem) > FAULTED_DEFICIT_INPUT_BYTES) {
        least[0] *= 1 - FAULTED_DEFICIT_SHARE;
        reasons[0] = FAULTED_DEFICIT_REASON;
    }
    const char *aliases[2] = {"um_htod_bytes", "um_dtoh_bytes"};
    for (int back = 0; back < 2; back++) {
        if (least[back] == most[back])
            ml_predict(prediction, aliases[back], most[back]);
        else
            ml_predict_range(prediction, aliases[back], least[back], most[back], reasons[back]);
    }
    prediction->served_by = ML_CONSTANTS(placement, problem)->served_by;
}

/* ---- peaks ----------------------------------------------------------------------------------- */

/* The link's published rate each way. A variant faster than the link's figure names itself
 * the peak (a figure NVML got wrong, or a link it does not name). */
static double link_peak(ml_problem *problem, const ml_device_figures *device,
                        double variant_gbps, char *source, size_t size)
{
    (void)problem;
    (void)device;
    char link[64];
    double link_gbps = ml_host_link(link, sizeof link);
    if (!(link_gbps > 0)) {
        snprintf(source, size, "none: the driver names no host link (NVML not found)");
        return NAN;
    }
    if (variant_gbps > link_gbps) {
        snprintf(source, size, "this variant: faster than %s's %.1f GB/s", link, link_gbps);
        return variant_gbps;
    }
    snprintf(source, size, "%s, each way, after encoding", link);
    return link_gbps;
}

/* managed_on_device: the stream reads device memory and writes as many bytes as it reads: half
 * the device-to-device copy's rate. */
static double device_peak(ml_problem *problem, const ml_device_figures *device,
                          double variant_gbps, char *source, size_t size)
{
    (void)problem;
    (void)variant_gbps;
    snprintf(source, size, "half the device-to-device copy (it writes what it reads)");
    return device->copy_ceiling_gbps / 2;
}

/* The families' peak: their placement's. */
static double placement_peak(ml_problem *problem, const ml_device_figures *device,
                             double variant_gbps, char *source, size_t size)
{
    return ML_CONSTANTS(placement, problem)->peak_gbps(problem, device, variant_gbps, source, size);
}

/* ---- CPU reference, buffers ------------------------------------------------------------------ */

/* The input on the CPU: float i of the seed, in parallel (for managed memory, every thread's
 * first write to a page the GPU holds faults it back). */
static void write_on_host(float *in, size_t n, uint64_t seed)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; i++)
        in[i] = ml_random_value(seed, i);
}

/* The placements' allocations: host memory the CPU writes, and the address the kernel reads
 * it at. */
static void allocate_pageable(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    state->host = (float *)ml_host_buffer(problem, state->n * sizeof(float));
}

static void allocate_pinned(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    state->host = (float *)ml_pinned_buffer(problem, state->n * sizeof(float), 0);
}

static void allocate_pinned_and_device_copy(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    allocate_pinned(problem);
    state->device_copy = (float *)ml_device_buffer(problem, state->n * sizeof(float));
    state->device_view = state->device_copy;
}

static void allocate_mapped(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    state->host = (float *)ml_pinned_buffer(problem, state->n * sizeof(float), 1);
    void *device_address = NULL;
    ML_CUDA_CHECK(cudaHostGetDevicePointer(&device_address, state->host, 0));
    state->device_view = (const float *)device_address;
}

/* Managed memory with no past: the driver counts how often a page moves back and forth, and
 * after a few round trips it maps a page across the link instead of moving it (its thrashing
 * heuristics). Every launch here must see the migrations a program's first launch sees, so each
 * gets a new allocation. */
static void renew_managed(link_state *state)
{
    if (state->managed != NULL)
        ML_CUDA_CHECK(cudaFree(state->managed));
    ML_CUDA_CHECK(cudaMallocManaged((void **)&state->managed, state->n * sizeof(float),
                                    cudaMemAttachGlobal));
    state->device_view = state->managed;
}

/* The placements' fills. Host memory, pinned or not: the CPU writes it. */
static void fill_on_host(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    write_on_host(state->host, state->n, problem->seed);
}

/* Managed memory the CPU writes: its pages on the host. */
static void fill_managed_on_host(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    renew_managed(state);
    state->host = state->managed;
    write_on_host(state->host, state->n, problem->seed);
}

/* Managed memory a kernel writes: its pages on the GPU. */
static void fill_managed_on_device(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    renew_managed(state);
    ml_fill_random(state->managed, state->n, problem->seed);
    ML_CUDA_CHECK(cudaDeviceSynchronize());
}

static void fill_link(ml_problem *problem)
{
    ML_CONSTANTS(placement, problem)->fill(problem);
}

static void free_managed(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    if (state->managed != NULL)
        ML_CUDA_CHECK(cudaFree(state->managed));
    state->managed = NULL;
}

static void link_setup(ml_problem *problem, size_t outputs)
{
    link_state *state = (link_state *)problem->state;
    const placement *where = ML_CONSTANTS(placement, problem);
    state->n = (size_t)ml_size(problem, "n");
    ML_CUDA_CHECK(cudaGetDevice(&state->device));
    if (where->allocate != NULL)
        where->allocate(problem);
    ml_expect_output_from_reference_at(problem, ML_OUTPUT_WRITTEN, outputs, 1e-6);
}

/* Copies and streams: out[i] from float i of the seed (a copy's output is the input itself). */
static void copy_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                              void *values)
{
    for (size_t k = 0; k < count; k++)
        ((float *)values)[k] = ml_random_value(problem->seed, position[k]);
}

static void stream_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                                void *values)
{
    for (size_t k = 0; k < count; k++)
        ((float *)values)[k] = 2.0f * ml_random_value(problem->seed, position[k]) + 1.0f;
}

static void sparse_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                                void *values)
{
    const link_state *state = (const link_state *)problem->state;
    for (size_t k = 0; k < count; k++)
        ((float *)values)[k] =
            2.0f * ml_random_value(problem->seed, position[k] * state->stride) + 1.0f;
}

/* The passes terms added in the kernel's order, in float: the same sum to the last bit. */
static void reuse_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                               void *values)
{
    const link_state *state = (const link_state *)problem->state;
    for (size_t k = 0; k < count; k++) {
        float sum = 0.0f;
        size_t index = position[k];
        for (unsigned pass = 0; pass < state->passes; pass++) {
            sum += ml_random_value(problem->seed, index);
            index += state->shift;
            if (index >= state->n)
                index -= state->n;
        }
        ((float *)values)[k] = sum;
    }
}

/* The copies, the stream and the ping-pong: an output element per input float. */
static void whole_input_setup(ml_problem *problem)
{
    link_setup(problem, (size_t)ml_size(problem, "n"));
    fill_link(problem);
}

static void sparse_setup(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    size_t n = (size_t)ml_size(problem, "n");
    state->stride = (size_t)ml_size(problem, "stride_kib") * 1024 / sizeof(float);
    state->touches = (n + state->stride - 1) / state->stride;
    link_setup(problem, state->touches);
    fill_link(problem);
}

static void reuse_setup(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    state->passes = (unsigned)ml_size(problem, "reuse");
    state->shift = (size_t)ml_size(problem, "n") / state->passes;
    link_setup(problem, (size_t)ml_size(problem, "n"));
    fill_link(problem);
}

static void ping_pong_setup(ml_problem *problem)
{
    link_state *state = (link_state *)problem->state;
    state->rounds = (unsigned)ml_size(problem, "rounds");
    whole_input_setup(problem);
}

/* Device memory: the output, and the input where it lives on the device (managed memory may
 * move there whole; copy_then_reuse copies it there). */
static double output_and_input(const ml_problem *problem)
{
    return 2.0 * input_bytes(problem);
}

static double sparse_device_bytes(const ml_problem *problem)
{
    double touches = ceil(input_bytes(problem) / (1024.0 * ml_size(problem, "stride_kib")));
    return input_bytes(problem) + touches * sizeof(float);
}

/* The input and its reference (or its copy) in host memory: at most half of what the machine
 * has, so that the CPU's fills never swap. */
static const char *check_params(const ml_problem *problem)
{
    double pages = (double)sysconf(_SC_PHYS_PAGES), page_bytes = (double)sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_bytes > 0 && 2.0 * input_bytes(problem) > 0.5 * pages * page_bytes)
        return "--n: the input and its reference need more than half of this machine's memory: "
               "choose a smaller --n";
    return NULL;
}

const placement pageable = {
    .allocate = allocate_pageable, .fill = fill_on_host, .served_by = "host",
    .peak_gbps = link_peak,
};
const placement pinned = {
    .allocate = allocate_pinned, .fill = fill_on_host, .served_by = "host",
    .peak_gbps = link_peak,
};
const placement copied_to_device = {
    .allocate = allocate_pinned_and_device_copy, .fill = fill_on_host,
    .before_kernel = copy_to_device, .predict_one_read = predict_no_migration,
    .served_by = "DRAM", .peak_gbps = link_peak,
};
const placement mapped = {
    .allocate = allocate_mapped, .fill = fill_on_host, .predict_one_read = predict_no_migration,
    .served_by = "host", .peak_gbps = link_peak,
};
const placement managed_on_host = {
    .fill = fill_managed_on_host, .predict_one_read = predict_first_touch, .served_by = "host",
    .peak_gbps = link_peak,
};
const placement managed_prefetched = {
    .fill = fill_managed_on_host, .before_kernel = prefetch_to_device,
    .predict_one_read = predict_prefetch, .served_by = "host", .peak_gbps = link_peak,
};
const placement managed_on_device = {
    .fill = fill_managed_on_device, .predict_one_read = predict_no_migration,
    .served_by = "DRAM", .peak_gbps = device_peak,
};

/* Every family frees managed memory (free_managed), whichever its placement. */
const ml_family copy = {
    .name = "copy", .state_bytes = sizeof(link_state), .device_bytes = output_and_input,
    .setup = whole_input_setup, .fill_inputs = fill_link, .reference_at = copy_reference_at,
    .launch = launch_copy, .bytes_read = input_bytes, .peak_gbps = placement_peak,
    .teardown = free_managed,
};
const ml_family stream = {
    .name = "stream", .state_bytes = sizeof(link_state), .device_bytes = output_and_input,
    .setup = whole_input_setup, .fill_inputs = fill_link, .reference_at = stream_reference_at,
    .launch = launch_stream, .predict = predict_stream, .bytes_read = input_bytes,
    .peak_gbps = placement_peak, .teardown = free_managed,
};
const ml_family sparse = {
    .name = "sparse", .state_bytes = sizeof(link_state), .device_bytes = sparse_device_bytes,
    .setup = sparse_setup, .fill_inputs = fill_link, .reference_at = sparse_reference_at,
    .launch = launch_sparse, .predict = predict_sparse, .teardown = free_managed,
};
const ml_family reuse = {
    .name = "reuse", .state_bytes = sizeof(link_state), .device_bytes = output_and_input,
    .setup = reuse_setup, .fill_inputs = fill_link, .reference_at = reuse_reference_at,
    .launch = launch_reuse, .bytes_read = input_bytes, .peak_gbps = placement_peak,
    .teardown = free_managed,
};
const ml_family ping_pong = {
    .name = "ping_pong", .state_bytes = sizeof(link_state), .device_bytes = output_and_input,
    .setup = ping_pong_setup, .fill_inputs = fill_link, .reference_at = stream_reference_at,
    .launch = launch_ping_pong, .predict = predict_ping_pong, .bytes_read = input_bytes,
    .peak_gbps = placement_peak, .teardown = free_managed,
};

static const ml_lab lab = {
    .program = "unified_memory",
    .title = "Lab 09: host memory and unified memory: pageable, pinned, zero-copy, managed",
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
