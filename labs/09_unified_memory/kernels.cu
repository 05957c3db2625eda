/* Lab 09: host memory and unified memory. The kernels: the file you write and submit.
 *
 * Below the GPU's DRAM is the host's memory, across a link (PCIe, or NVLink-C2C on a Grace
 * Hopper) an order of magnitude slower. A kernel reaches it three ways, and the lab program
 * (unified_memory.cu, the instructor's) runs the kernels below on each:
 *   a copy first (cudaMemcpy, from pageable malloc memory or from pinned memory), then the
 *       kernel reads device memory;
 *   zero-copy: the kernel reads pinned host memory mapped into the GPU's address space, each
 *       load crossing the link;
 *   managed memory (cudaMallocManaged): one address for the CPU and the GPU, the driver moving
 *       pages to whichever touches them: on demand when the kernel faults on them, or before it
 *       runs with cudaMemPrefetchAsync.
 * For each, predict how many bytes cross the link, in pieces of what size, and how fast; then
 * measure it (handouts/09_unified_memory.md). How a kernel walks its data decides how well each
 * way works: across the link every request pays, and the driver moves managed pages in the order
 * the faults ask for them.
 *
 * This file is device code only: the lab program finds each kernel by its name, launches it,
 * checks its output against the CPU's and reads the driver's unified-memory counters. Keep the
 * names and the parameters as they are.
 *
 * Build and run:  ./memlab run unified_memory
 * Your own file:  ./memlab run unified_memory --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

/* out[i] = 2 in[i] + 1 for every i < n, on a grid that may hold fewer threads than n: the
 * stream that zero-copy, managed memory and the copies are compared on. in may be device,
 * mapped host or managed memory: the same loads reach whichever it is. */
extern "C" __global__ void scale_stream(const float *in, size_t n, float *out)
{
    // BEGIN SOLUTION
    // TODO: a grid-stride loop. Which elements should the 32 lanes of a warp read together,
    //       and in what order should the grid move through the pages of in?
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads)
        out[i] = 2.0f * in[i] + 1.0f;
    // END SOLUTION
}

/* out[k] = 2 in[k * stride] + 1 for every k < touches: one word of every stride floats, and
 * nothing else of in. How much of in must move for each word used? */
extern "C" __global__ void touch_sparse(const float *in, size_t stride, size_t touches,
                                        float *out)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION
    // TODO: thread k reads the word at k * stride (when k < touches) and writes out[k].
    if (k < touches)
        out[k] = 2.0f * in[k * stride] + 1.0f;
    // END SOLUTION
}

/* out[i] = in[i] + in[(i + shift) % n] + in[(i + 2 shift) % n] + ... (passes terms, added in
 * that order, in float), for every i < n: every element of in is read passes times, by threads
 * far apart. Read from device memory after one copy, or across the link every time? */
extern "C" __global__ void sum_passes(const float *in, size_t n, unsigned passes, size_t shift,
                                      float *out)
{
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads) {
        // BEGIN SOLUTION
        // TODO: add the passes terms in order, wrapping each index round n.
        float sum = 0.0f;
        size_t index = i;
        for (unsigned pass = 0; pass < passes; pass++) {
            sum += in[index];
            index += shift;
            if (index >= n)
                index -= n;
        }
        out[i] = sum;
        // END SOLUTION
    }
}
