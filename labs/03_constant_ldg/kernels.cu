/* Lab 03: constant memory and read-only loads. The kernels: the file you write and submit.
 *
 * Data that every thread reads but none writes can reach a warp three ways: as a plain global
 * load, from __constant__ memory through the SM's constant cache, or through the read-only path
 * of L1 (a const __restrict__ pointer read with __ldg). The three convolutions below read the
 * same mask those three ways; the three pattern kernels after them read a small table with every
 * lane at one address or at several. Predict, for each, how many requests and sectors a warp's
 * load costs, then measure it (handouts/03_constant_ldg.md).
 *
 * This file is device code only: the lab program (constant_ldg.cu, the instructor's) finds each
 * kernel by its name, fills the __constant__ arrays by their names (what cudaMemcpyToSymbol
 * does), launches the kernels, checks every output against its CPU reference and reads the
 * hardware counters. Keep the names and the parameters as they are; declare the __constant__
 * arrays at file scope and not static, so that the program can find them.
 *
 * Build and run:  ./memlab run constant_ldg --variant all
 * Your own file:  ./memlab run constant_ldg --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

#include "constant_ldg.h"

/* ---- the convolution, the mask in three places -----------------------------------------------
 *
 * out[row][col] = sum over i, j < mask_width of mask[i * mask_width + j] *
 * image[row + i - radius][col + j - radius], radius = mask_width / 2, with pixels outside the
 * image counted as 0. The program launches blocks of 32 x 8 threads: thread (x, y) of block
 * (bx, by) computes pixel (8 by + y, 32 bx + x), so a warp covers 32 neighbouring pixels of one
 * row and reads each mask weight with all its lanes at once. The three kernels read the image
 * the same way; only where the mask comes from differs. */

/* Pixel col of an image row, or 0 left or right of the image: the zero border. The lanes of a
 * warp outside the image make no load. */
static __device__ float pixel_or_zero(const float *image_row, int cols, int col)
{
    return col >= 0 && col < cols ? image_row[col] : 0.0f;
}

/* The mask from a plain pointer to global memory. */
extern "C" __global__ void convolve_global(const float *image, const float *mask, float *out,
                                           int rows, int cols, int mask_width)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols)
        return;
    int radius = mask_width / 2;
    float sum = 0.0f;
    for (int i = 0; i < mask_width; i++) {
        /* A mask row above or below the image adds nothing; a warp (one image row) skips it. */
        int image_row = row + i - radius;
        if (image_row < 0 || image_row >= rows)
            continue;
        const float *pixels = image + (size_t)image_row * cols;
        for (int j = 0; j < mask_width; j++)
            sum += mask[i * mask_width + j] * pixel_or_zero(pixels, cols, col + j - radius);
    }
    out[(size_t)row * cols + col] = sum;
}

/* The mask in constant memory. The program copies the mask_width * mask_width weights into the
 * array named mask_constant before it launches convolve_constant. */
// BEGIN SOLUTION
// TODO: declare mask_constant, MAX_MASK_TAPS floats in constant memory (at file scope, not
//       static: the program fills it by that name).
__constant__ float mask_constant[MAX_MASK_TAPS];
// END SOLUTION

extern "C" __global__ void convolve_constant(const float *image, float *out, int rows, int cols,
                                             int mask_width)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols)
        return;
    float sum = 0.0f;
    // BEGIN SOLUTION
    // TODO: the sum convolve_global makes, over the same taps, each weight read from
    //       mask_constant (laid out as mask is: weight (i, j) at i * mask_width + j).
    int radius = mask_width / 2;
    for (int i = 0; i < mask_width; i++) {
        int image_row = row + i - radius;
        if (image_row < 0 || image_row >= rows)
            continue;
        const float *pixels = image + (size_t)image_row * cols;
        for (int j = 0; j < mask_width; j++)
            sum += mask_constant[i * mask_width + j] * pixel_or_zero(pixels, cols, col + j - radius);
    }
    // END SOLUTION
    out[(size_t)row * cols + col] = sum;
}

/* __restrict__ promises that nothing else writes the mask while the kernel runs, and __ldg
 * loads it through the read-only (non-coherent) path of L1. */
extern "C" __global__ void convolve_ldg(const float *image, const float *__restrict__ mask,
                                        float *out, int rows, int cols, int mask_width)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols)
        return;
    float sum = 0.0f;
    // BEGIN SOLUTION
    // TODO: the sum convolve_global makes, over the same taps, each weight of mask loaded
    //       with __ldg.
    int radius = mask_width / 2;
    for (int i = 0; i < mask_width; i++) {
        int image_row = row + i - radius;
        if (image_row < 0 || image_row >= rows)
            continue;
        const float *pixels = image + (size_t)image_row * cols;
        for (int j = 0; j < mask_width; j++)
            sum += __ldg(&mask[i * mask_width + j]) * pixel_or_zero(pixels, cols, col + j - radius);
    }
    // END SOLUTION
    out[(size_t)row * cols + col] = sum;
}

/* ---- the access patterns on their own --------------------------------------------------------
 *
 * A table of 32 slots of 16 floats (64 bytes each), in constant memory (table_constant, filled
 * by the program) and in global memory (a copy, for read_ldg_divergent). The program launches
 * blocks of 256 threads, one thread per output element. Round r reads word r % 16 of the
 * thread's slot, so every load of a thread is at a new address (the compiler can neither drop
 * nor merge one) and a warp's loads stay within a few lines that the cache keeps. Every thread
 * makes all `rounds` loads, including those past the last element, so every warp is whole; only
 * the store is guarded. The round count comes in as an argument: a constant one would let the
 * compiler unroll the whole loop and see that the words repeat. */

/* Aligned like a cudaMalloc buffer, so that a slot is exactly one 64-byte line. */
__constant__ __align__(256) float table_constant[TABLE_FLOATS];

/* Warp w of a block reads slot w % 32 with all its lanes: one address per load. */
extern "C" __global__ void read_constant_broadcast(float *out, size_t n, unsigned rounds)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned slot = threadIdx.x / WARP_LANES % TABLE_SLOTS;
    float sum = 0.0f;
    for (unsigned r = 0; r < rounds; r++)
        sum += table_constant[slot * SLOT_FLOATS + r % SLOT_FLOATS];
    if (i < n)
        out[i] = sum;
}

/* Lane i reads slot i % distinct, the slots `spacing` floats apart: `distinct` different words
 * each load. */
extern "C" __global__ void read_constant_divergent(float *out, size_t n, unsigned distinct,
                                                   unsigned spacing, unsigned rounds)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned slot = threadIdx.x % WARP_LANES % distinct;
    float sum = 0.0f;
    for (unsigned r = 0; r < rounds; r++)
        sum += table_constant[slot * spacing + r % SLOT_FLOATS];
    if (i < n)
        out[i] = sum;
}

/* The same words from global memory, through the read-only path. */
extern "C" __global__ void read_ldg_divergent(const float *__restrict__ table, float *out,
                                              size_t n, unsigned distinct, unsigned spacing,
                                              unsigned rounds)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned slot = threadIdx.x % WARP_LANES % distinct;
    float sum = 0.0f;
    for (unsigned r = 0; r < rounds; r++)
        sum += __ldg(&table[slot * spacing + r % SLOT_FLOATS]);
    if (i < n)
        out[i] = sum;
}
