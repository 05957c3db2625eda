/* Lab 04: coalesced vs strided vs misaligned global memory access. The kernels: the file you
 * write and submit.
 *
 * A warp's loads are served in 32-byte sectors. How many sectors one load instruction of a warp
 * touches depends on where its 32 lanes' addresses fall, and every byte of a sector is moved
 * whether a lane asked for it or not. Each kernel below copies n floats from `in` to `out`, one
 * output element per thread (the float4 copy: four), and differs from the others only in which
 * input element thread i reads. Predict, for each one, how many sectors a warp's load touches
 * and what fraction of their bytes is used; then measure it (handouts/04_coalescing.md).
 *
 * This file is device code only: the lab program (coalescing.cu, the instructor's) finds each
 * kernel by its name, launches it, checks every output element against its CPU reference and
 * reads the hardware counters. Keep the names and the parameters as they are.
 *
 * Build and run:  ./memlab run coalescing --variant all
 * Your own file:  ./memlab run coalescing --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

/* Thread i copies the float4 i: in and out seen as arrays of n / 4 float4 (cudaMalloc returns
 * 256-byte-aligned buffers, so every float4 is aligned). The last n % 4 floats, which make no
 * whole float4, are copied one by one by the first threads. The launch has
 * max(n / 4, n % 4) threads. */
extern "C" __global__ void copy_coalesced(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION
    // TODO: move this thread's share of the n floats as the comment above says, with the
    //       widest load and store each element allows. Which float4 is this thread's, and
    //       which of the last n % 4 floats (if any)? Touch no byte past the n floats.
    size_t vector_count = n / 4;
    if (i < vector_count)
        ((float4 *)out)[i] = ((const float4 *)in)[i];
    size_t tail = vector_count * 4 + i;
    if (tail < n)
        out[tail] = in[tail];
    // END SOLUTION
}

/* Thread i reads the input element i * stride: neighbouring lanes read stride floats apart. */
extern "C" __global__ void copy_strided(const float *in, float *out, size_t n, size_t stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION
    // TODO: copy this thread's element as the comment above says. The input holds only
    //       (n - 1) * stride + 1 floats and the grid is rounded up to whole blocks: which
    //       threads must read and write nothing?
    if (i < n)
        out[i] = in[i * stride];
    // END SOLUTION
}

/* Thread i reads the input element i + offset: each warp's 32 floats start 4 * offset bytes
 * later than those of the aligned copy. */
extern "C" __global__ void copy_offset(const float *in, float *out, size_t n, size_t offset)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION
    // TODO: copy this thread's element as the comment above says. The input holds n + offset
    //       floats and the output n: which threads must read and write nothing?
    if (i < n)
        out[i] = in[i + offset];
    // END SOLUTION
}

/* Every lane of warp w reads the same input element, w: out[i] = in[i / 32]. */
extern "C" __global__ void copy_broadcast(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION
    // TODO: copy this thread's element as the comment above says. The input holds
    //       (n - 1) / 32 + 1 floats: which threads must read and write nothing?
    if (i < n)
        out[i] = in[i / 32];
    // END SOLUTION
}
