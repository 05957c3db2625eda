/* Lab 08: atomics on global and shared memory, privatization and warp shuffles. The kernels: the
 * file you write and submit.
 *
 * An atomic operation (atomicAdd, atomicMin, atomicMax, atomicExch, atomicCAS) reads, changes and
 * writes one word so that no other thread's update is lost. Atomics on global memory are done by
 * the L2: updates of one address from many threads wait for each other there (contention).
 * Atomics on shared memory are done by the SM, near the threads. The lesson: do as few global
 * atomics on the same address as the answer allows.
 *
 * A histogram counts, for every value, how many of the n values fall in each bin (the values are
 * bin numbers already, 0 .. bins - 1):
 *   histogram_global_atomic    one global atomicAdd per value
 *   histogram_shared_private   a private histogram per block in shared memory, merged into the
 *                              global one with one atomicAdd per bin and block
 *   histogram_warp_aggregated  the lanes of a warp holding the same bin count themselves first
 *                              (__match_any_sync, __popc) and one of them adds for all
 * A sum reduction adds n floats into *sum:
 *   sum_atomic_each            one global atomicAdd per value
 *   sum_shared_tree            a tree of additions in shared memory, one atomicAdd per block
 *   sum_warp_shuffle           each thread adds many values, then the warp adds its 32 partial
 *                              sums by exchanging registers (__shfl_down_sync), one atomicAdd per
 *                              block: no shared-memory tree at all inside a warp
 *
 * This file is device code only: the lab program (atomics.cu, the instructor's) finds each kernel
 * by its name, launches it, checks its output against its CPU reference and reads the hardware
 * counters. The output starts at zero before every launch. Keep the names and the parameters as
 * they are; atomics.h (the block size, values per thread) is the lab's.
 *
 * Build and run:  ./memlab run atomics --variant all
 * Your own file:  ./memlab run atomics --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

#include "atomics.h"

#define FULL_WARP 0xffffffffu

/* ---- histograms ------------------------------------------------------------------------------ */

/* One global atomicAdd per value: every update of a bin goes to the L2, one after another. */
extern "C" __global__ void histogram_global_atomic(const unsigned *values, size_t n,
                                                   unsigned *histogram)
{
    size_t first = (size_t)blockIdx.x * HISTOGRAM_VALUES_PER_BLOCK + threadIdx.x;
    for (int k = 0; k < HISTOGRAM_ITEMS_PER_THREAD; k++) {
        size_t i = first + (size_t)k * ATOMICS_THREADS;
        if (i < n)
            atomicAdd(&histogram[values[i]], 1u);
    }
}

/* A private histogram of bins counters per block in shared memory (bins * 4 bytes of dynamic
 * shared memory): the block's values are counted there, then added to the global histogram,
 * one atomicAdd per bin. */
extern "C" __global__ void histogram_shared_private(const unsigned *values, size_t n,
                                                    unsigned *histogram, unsigned bins)
{
    extern __shared__ unsigned block_histogram[];
    size_t first = (size_t)blockIdx.x * HISTOGRAM_VALUES_PER_BLOCK + threadIdx.x;
    // BEGIN SOLUTION
    // TODO: zero the block's histogram (each thread a share of the bins); make sure every thread
    //       sees it zeroed before any counts in it; count the block's values with shared
    //       atomics; make sure every count is in before any thread reads the histogram; then add
    //       each bin to the global histogram with one atomicAdd.
    for (unsigned bin = threadIdx.x; bin < bins; bin += ATOMICS_THREADS)
        block_histogram[bin] = 0;
    __syncthreads();
    for (int k = 0; k < HISTOGRAM_ITEMS_PER_THREAD; k++) {
        size_t i = first + (size_t)k * ATOMICS_THREADS;
        if (i < n)
            atomicAdd(&block_histogram[values[i]], 1u);
    }
    __syncthreads();
    for (unsigned bin = threadIdx.x; bin < bins; bin += ATOMICS_THREADS)
        atomicAdd(&histogram[bin], block_histogram[bin]);
    // END SOLUTION
}

/* Lanes holding the same bin agree first: __match_any_sync gives each lane the mask of lanes
 * whose value equals its own; the lowest of them adds the mask's population for all. */
extern "C" __global__ void histogram_warp_aggregated(const unsigned *values, size_t n,
                                                     unsigned *histogram)
{
    size_t first = (size_t)blockIdx.x * HISTOGRAM_VALUES_PER_BLOCK + threadIdx.x;
    unsigned lane = threadIdx.x % 32;
    for (int k = 0; k < HISTOGRAM_ITEMS_PER_THREAD; k++) {
        size_t i = first + (size_t)k * ATOMICS_THREADS;
        /* Every lane reaches the vote (the loop runs alike in all of them); those past n sit
         * out of the match. */
        unsigned in_range = __ballot_sync(FULL_WARP, i < n);
        if (i >= n)
            continue;
        unsigned value = values[i];
        // BEGIN SOLUTION
        // TODO: find the lanes (of in_range) whose value equals this lane's; let the lowest of
        //       them add their number to histogram[value]; the others add nothing.
        unsigned same = __match_any_sync(in_range, value);
        if (lane == (unsigned)(__ffs(same) - 1))
            atomicAdd(&histogram[value], (unsigned)__popc(same));
        // END SOLUTION
    }
}

/* ---- sum reductions -------------------------------------------------------------------------- */

/* One global atomicAdd per value, all on the same address: the slowest way to add. */
extern "C" __global__ void sum_atomic_each(const float *in, size_t n, float *sum)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(sum, in[i]);
}

/* The classic tree: each thread puts one value in shared memory, then half the threads add the
 * other half's values, and again, until partial[0] holds the block's sum (8 steps for 256
 * threads, a barrier after each); thread 0 adds it to *sum. */
extern "C" __global__ void sum_shared_tree(const float *in, size_t n, float *sum)
{
    __shared__ float partial[ATOMICS_THREADS];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned t = threadIdx.x;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    // BEGIN SOLUTION
    // TODO: for stride = ATOMICS_THREADS / 2, then half of that, down to 1: threads below the
    //       stride add partial[t + stride] to partial[t]; every thread waits for the step to
    //       end before the next. Then thread 0 adds partial[0] to *sum.
    for (unsigned stride = ATOMICS_THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride)
            partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(sum, partial[0]);
    // END SOLUTION
}

/* The sum of value over the 32 lanes of a warp, in lane 0: five steps, each lane adding the
 * value of the lane offset above it (16, 8, 4, 2, 1), registers only. */
static __device__ float warp_sum(float value)
{
    // BEGIN SOLUTION
    // TODO: for offset = 16, 8, 4, 2, 1: value += the value of lane (this lane + offset), read
    //       with __shfl_down_sync over the whole warp.
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_down_sync(FULL_WARP, value, offset);
    // END SOLUTION
    return value;
}

/* A grid that fills the GPU (the launch sizes it) walks the input in float4s: each thread adds
 * its share, warp_sum adds a warp's 32 partial sums, lane 0 of each warp leaves its sum in
 * shared memory, warp 0 adds those (warp_sum again) and thread 0 adds the block's sum to *sum.
 * The last n % 4 values, which make no float4, go to the first threads of the grid. */
extern "C" __global__ void sum_warp_shuffle(const float *in, size_t n, float *sum)
{
    __shared__ float warp_sums[WARPS_PER_BLOCK];
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t vectors = n / 4;
    float value = 0.0f;
    for (size_t v = thread; v < vectors; v += threads) {
        float4 four = ((const float4 *)in)[v];
        value += (four.x + four.y) + (four.z + four.w);
    }
    if (thread < n % 4)
        value += in[vectors * 4 + thread];

    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_sum(value);
    if (lane == 0)
        warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = warp_sum(lane < WARPS_PER_BLOCK ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(sum, value);
    }
}
