/* Lab 07: a map of the memory hierarchy, measured on your own GPU. The kernels: the file you
 * write and submit.
 *
 * How long does one load take? A GPU hides latency by running other warps while one waits, so a
 * kernel's time says little about it. A pointer chase says it exactly: one thread follows a
 * chain of indices, each load's address being the value the load before it returned
 * (j = next[j]). No load can start before the one before it ends, no prefetcher can guess the
 * next address (the chain visits its elements in random order), and clock64() around the loop
 * divided by the loads gives the cycles of one load. Make the chain's working set larger and it
 * falls out of the L1, then out of the L2: the latency climbs a staircase, one step per level.
 *
 * Latency (one thread or one warp, a chain of dependent operations):
 *   chase_global      global loads over a working set of any size: L1, L2 or DRAM
 *   chase_shared      shared memory
 *   chase_local       a per-thread array indexed at run time: local memory
 *   chase_constant    __constant__ memory: the constant cache hit or missed, one address for
 *                     the warp (a broadcast) or one per lane
 *   fma_chain         dependent fused multiply-adds: the register file and the FMA pipe
 * Bandwidth (every SM busy, many independent loads in flight):
 *   read_shared       shared memory
 *   read_region       a small global region every block reads: served by each SM's L1
 *   read_grid_l2      a buffer the grid reads with __ldcg (cached in L2 only): L2, or DRAM
 *                     when the buffer is larger than the L2
 *   read_constant     the whole warp reads one __constant__ float4: a broadcast
 *
 * Every latency kernel stores the clock64() cycles of its timed loop in *cycles (from one
 * thread); the lab program divides them by the loads and checks the chain's end against its CPU
 * reference, and that the cycles fit in the launch's own time. The bandwidth kernels write each
 * thread's sum of what it read. Keep the names and the parameters as they are; hierarchy_map.h
 * is the lab's.
 *
 * Yours: the warm and timed loops of the four chase kernels (the TODOs). fma_chain is given
 * whole, as the worked example of timing a dependent chain with clock64().
 *
 * Build and run:  ./memlab run hierarchy_map --variant all
 * Your own file:  ./memlab run hierarchy_map --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

#include "hierarchy_map.h"

/* ---- latency: dependent loads ---------------------------------------------------------------- */

/* The pointer chase through global memory, by one thread. next[j] holds the index of the next
 * link; start is the first. warm_loads first (untimed): they bring the working set into the
 * caches that can hold it, as far as they can. Then timed_loads more, between two clock64()
 * reads. *end is the index the chain stands at after all of them. */
extern "C" __global__ void chase_global(const unsigned *next, unsigned start, unsigned warm_loads,
                                        unsigned timed_loads, unsigned *end, long long *cycles)
{
    unsigned j = start;
    // BEGIN SOLUTION
    // TODO: follow the chain warm_loads times; read clock64(); follow it timed_loads times, each
    //       load's index the value the one before it returned; read clock64() again; store the
    //       difference in *cycles and the index the chain ends at in *end.
    for (unsigned i = 0; i < warm_loads; i++)
        j = next[j];
    long long begin = clock64();
    for (unsigned i = 0; i < timed_loads; i++)
        j = next[j];
    long long stop = clock64();
    *cycles = stop - begin;
    *end = j;
    // END SOLUTION
}

/* The chase through shared memory: the block's one thread copies the chain in (untimed), then
 * follows it. */
extern "C" __global__ void chase_shared(const unsigned *next, unsigned start, unsigned timed_loads,
                                        unsigned *end, long long *cycles)
{
    __shared__ unsigned chain[SHARED_CHAIN_WORDS];
    for (unsigned k = 0; k < SHARED_CHAIN_WORDS; k++)
        chain[k] = next[k];
    __syncthreads();
    unsigned j = start;
    // BEGIN SOLUTION
    // TODO: time timed_loads dependent loads from chain[] with clock64(), as in chase_global;
    //       store the cycles in *cycles and where the chain ends in *end.
    long long begin = clock64();
    for (unsigned i = 0; i < timed_loads; i++)
        j = chain[j];
    long long stop = clock64();
    *cycles = stop - begin;
    *end = j;
    // END SOLUTION
}

/* The chase through local memory: an array of the thread's own indexed by values known only at
 * run time cannot live in registers, so the compiler puts it in local memory. The thread copies
 * the chain in (untimed), then follows it. */
extern "C" __global__ void chase_local(const unsigned *next, unsigned start, unsigned timed_loads,
                                       unsigned *end, long long *cycles)
{
    unsigned chain[LOCAL_CHAIN_WORDS];
    for (unsigned k = 0; k < LOCAL_CHAIN_WORDS; k++)
        chain[k] = next[k];
    unsigned j = start;
    // BEGIN SOLUTION
    // TODO: follow chain[] once round its LOCAL_CHAIN_WORDS links, untimed (the warm lap); then
    //       time timed_loads dependent loads from chain[] with clock64(), as in chase_global;
    //       store the cycles in *cycles and where the chain ends in *end.
    for (unsigned k = 0; k < LOCAL_CHAIN_WORDS; k++)
        j = chain[j];
    long long begin = clock64();
    for (unsigned i = 0; i < timed_loads; i++)
        j = chain[j];
    long long stop = clock64();
    *cycles = stop - begin;
    *end = j;
    // END SOLUTION
}

/* The chains of chase_constant, written by the lab program before the launch. */
__constant__ unsigned constant_chain[CONSTANT_CHAIN_WORDS];

/* The chase through constant memory, by one warp: lane l starts at starts[l]. When all lanes
 * start alike, every load reads one address for the whole warp (a broadcast); when they differ,
 * one load of the warp asks for up to 32 addresses. */
extern "C" __global__ void chase_constant(const unsigned *starts, unsigned warm_loads,
                                          unsigned timed_loads, unsigned *ends, long long *cycles)
{
    unsigned lane = threadIdx.x;
    unsigned j = starts[lane];
    // BEGIN SOLUTION
    // TODO: every lane follows constant_chain[] from its start warm_loads times, then
    //       timed_loads times between two clock64() reads, as in chase_global; lane 0 stores
    //       the cycles in *cycles, and every lane stores where it ends in ends[lane].
    for (unsigned i = 0; i < warm_loads; i++)
        j = constant_chain[j];
    long long begin = clock64();
    for (unsigned i = 0; i < timed_loads; i++)
        j = constant_chain[j];
    long long stop = clock64();
    if (lane == 0)
        *cycles = stop - begin;
    ends[lane] = j;
    // END SOLUTION
}

/* Dependent fused multiply-adds by one thread, from *x: each needs the one before it, so the
 * loop runs at the FMA's latency, with its operands in registers. The worked example: clock64()
 * just before and just after the chain, nothing else between them, the difference stored. */
extern "C" __global__ void fma_chain(const float *x, unsigned timed_operations, float *out,
                                     long long *cycles)
{
    float a = *x;
    long long begin = clock64();
#pragma unroll 16
    for (unsigned i = 0; i < timed_operations; i++)
        a = fmaf(a, 0.9999f, 0.0001f);
    long long stop = clock64();
    *cycles = stop - begin;
    *out = a;
}

/* ---- bandwidth: many independent loads ------------------------------------------------------- */

/* A level's bandwidth needs every SM busy and many loads in flight: each thread issues all of a
 * round's loads before it adds any of them (the loops below have a fixed count, so the compiler
 * unrolls them), and a load's address costs an add and a mask, not a division, or the SM would
 * spend its issue slots on arithmetic instead of loads. Each round's loads start a warp's width
 * further on (wrapped at the buffer's end), so no round reads what the one before it read into
 * the same registers, and the compiler cannot keep a round's values for the next. */

__device__ float total(float4 sum)
{
    return sum.x + sum.y + sum.z + sum.w;
}

/* Shared memory: a block copies SHARED_BANDWIDTH_VECTORS float4s in, then reads them rounds
 * times; thread t reads t, t + BANDWIDTH_THREADS, ... each round. */
extern "C" __global__ void read_shared(const float4 *in, unsigned rounds, float *sums)
{
    __shared__ float4 buffer[SHARED_BANDWIDTH_VECTORS];
    for (unsigned k = threadIdx.x; k < SHARED_BANDWIDTH_VECTORS; k += BANDWIDTH_THREADS)
        buffer[k] = in[k];
    __syncthreads();
    float4 sum = make_float4(0, 0, 0, 0);
    for (unsigned round = 0; round < rounds; round++) {
        unsigned start = threadIdx.x + 32 * round;
#pragma unroll
        for (unsigned i = 0; i < SHARED_BANDWIDTH_VECTORS / BANDWIDTH_THREADS; i++) {
            float4 v = buffer[(start + i * BANDWIDTH_THREADS) % SHARED_BANDWIDTH_VECTORS];
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
    }
    sums[blockIdx.x * BANDWIDTH_THREADS + threadIdx.x] = total(sum);
}

/* Global loads every block makes of the same small region (REGION_VECTORS float4s), rounds
 * times, in the same order as read_shared: after the first round, each SM's L1 holds the
 * region. */
extern "C" __global__ void read_region(const float4 *in, unsigned rounds, float *sums)
{
    float4 sum = make_float4(0, 0, 0, 0);
    for (unsigned round = 0; round < rounds; round++) {
        unsigned start = threadIdx.x + 32 * round;
#pragma unroll
        for (unsigned i = 0; i < REGION_VECTORS / BANDWIDTH_THREADS; i++) {
            float4 v = in[(start + i * BANDWIDTH_THREADS) % REGION_VECTORS];
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
    }
    sums[blockIdx.x * BANDWIDTH_THREADS + threadIdx.x] = total(sum);
}

/* The grid reads vectors float4s, each once a round, with __ldcg: cached in the L2, not the L1.
 * A buffer the L2 holds is read from it after the first round; a larger one from DRAM. The
 * buffer's size is known only at run time, so the wrap is a subtraction (the round's start is
 * below vectors, and so is each thread's k). */
extern "C" __global__ void read_grid_l2(const float4 *in, size_t vectors, unsigned rounds,
                                        float *sums)
{
    size_t thread = (size_t)blockIdx.x * GRID_READ_THREADS + threadIdx.x;
    size_t threads = (size_t)gridDim.x * GRID_READ_THREADS;
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
    sums[thread] = total(sum);
}

/* The float4s of read_constant, written by the lab program before the launch. */
__constant__ float4 constant_vectors[CONSTANT_BANDWIDTH_VECTORS];

/* Every lane of a warp reads the same __constant__ float4 each round: one address, broadcast.
 * Float4 `round` (wrapped at CONSTANT_BANDWIDTH_VECTORS), CONSTANT_ROUNDS_A_STEP rounds a step,
 * their loads independent; rounds is a multiple of CONSTANT_ROUNDS_A_STEP. */
extern "C" __global__ void read_constant(unsigned rounds, float *sums)
{
    float4 sum = make_float4(0, 0, 0, 0);
    for (unsigned round = 0; round < rounds; round += CONSTANT_ROUNDS_A_STEP) {
        unsigned first = round % CONSTANT_BANDWIDTH_VECTORS;
#pragma unroll
        for (unsigned i = 0; i < CONSTANT_ROUNDS_A_STEP; i++) {
            float4 v = constant_vectors[first + i];
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
    }
    sums[blockIdx.x * BANDWIDTH_THREADS + threadIdx.x] = total(sum);
}
