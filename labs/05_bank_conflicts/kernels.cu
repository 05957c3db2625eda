/* Lab 05: shared-memory banks: conflicts, padding, swizzling, broadcast. The kernels: the file
 * you write and submit.
 *
 * Shared memory is split into 32 banks, each 4 bytes wide: word w (byte offset / 4) lives in
 * bank w % 32, and each bank delivers one word per pass (a wavefront). How many passes a warp's
 * shared load takes depends on which words its 32 lanes ask for and in which banks those lie.
 * The transposes below stage a tile in shared memory, write it by rows and read it by columns,
 * three ways; shared_stride_kernel reads shared memory at a stride, with 4-, 8- and 16-byte
 * loads. Predict, for each, the wavefronts and bank conflicts of a warp's load, then measure
 * them (handouts/05_bank_conflicts.md).
 *
 * This file is device code only: the lab program (bank_conflicts.cu, the instructor's) finds
 * each kernel by its name, launches it, checks every output element against its CPU reference
 * and reads the hardware counters. Keep the names and the parameters as they are.
 *
 * Build and run:  ./memlab run bank_conflicts --variant all
 * Your own file:  ./memlab run bank_conflicts --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

#include "bank_conflicts.h"

/* ---- the transposes, from the naive one to the best -------------------------------------------
 *
 * in is rows x cols, out is cols x rows, both row-major: out[c][r] = in[r][c]. The program
 * launches blocks of TILE x BLOCK_ROWS (32 x 8) threads on a grid of tiles: block (bx, by) moves
 * the 32 x 32 tile whose top-left element is in[32 by][32 bx]; thread (x, y) copies tile rows
 * y, y + 8, y + 16 and y + 24, so a warp (fixed y, x = 0..31) moves one tile row at a time.
 * Tiles at the right and bottom edges may be cut: only elements inside the matrix move.
 * __restrict__ promises that in and out do not overlap, so the compiler may issue all four
 * loads of a thread before its first store. */

/* Straight through global memory, no tile. */
extern "C" __global__ void transpose_naive_kernel(const float *__restrict__ in,
                                                  float *__restrict__ out, int rows, int cols)
{
    int x = threadIdx.x;
    int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    // BEGIN SOLUTION
    // TODO: move the four elements of the tile that this thread owns (the comment above the
    //       kernels says which) from in to their transposed places in out, through global
    //       memory only. Edge tiles may be cut: move only elements inside the matrix.
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int row = tile_row + j + threadIdx.y, col = tile_col + x;
        /* Neighbouring lanes read neighbouring floats but write `rows` floats apart. */
        if (row < rows && col < cols)
            out[(size_t)col * rows + row] = in[(size_t)row * cols + col];
    }
    // END SOLUTION
}

/* Through a TILE x TILE shared tile: tile row k is filled from a row of in (a coalesced read);
 * tile column k is written as a row of out (a coalesced write), lane x reading tile[x][k]. */
extern "C" __global__ void transpose_shared_kernel(const float *__restrict__ in,
                                                   float *__restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int x = threadIdx.x;
    int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    // BEGIN SOLUTION
    // TODO: stage the block's tile in `tile`: fill it from rows of in, so that a warp's 32
    //       loads are neighbours, then empty it into rows of out, so that a warp's 32 stores
    //       are neighbours too. Which tile element must lane x read for that? A thread reads
    //       elements other threads stored: make sure they are there. Move only elements inside
    //       the matrix.
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int k = j + threadIdx.y;
        if (tile_row + k < rows && tile_col + x < cols)
            tile[k][x] = in[(size_t)(tile_row + k) * cols + tile_col + x];
    }
    __syncthreads();
    /* Column tile_col + k of in is row tile_col + k of out. */
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int k = j + threadIdx.y;
        if (tile_col + k < cols && tile_row + x < rows)
            out[(size_t)(tile_col + k) * rows + tile_row + x] = tile[x][k];
    }
    // END SOLUTION
}

/* As transpose_shared, through a tile with one padding word at the end of each row. */
extern "C" __global__ void transpose_padded_kernel(const float *__restrict__ in,
                                                   float *__restrict__ out, int rows, int cols)
{
    int x = threadIdx.x;
    int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    // BEGIN SOLUTION
    // TODO: transpose as transpose_shared does, through a tile whose column reads hit 32
    //       different banks. How many words must a row of the tile hold for that, and why?
    __shared__ float tile[TILE][TILE + 1];
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int k = j + threadIdx.y;
        if (tile_row + k < rows && tile_col + x < cols)
            tile[k][x] = in[(size_t)(tile_row + k) * cols + tile_col + x];
    }
    __syncthreads();
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int k = j + threadIdx.y;
        if (tile_col + k < cols && tile_row + x < rows)
            out[(size_t)(tile_col + k) * rows + tile_row + x] = tile[x][k];
    }
    // END SOLUTION
}

/* As transpose_shared, through an unpadded TILE x TILE tile that keeps element (r, c) at
 * tile[r][c ^ r]: XOR with r shuffles the 32 columns of row r. */
extern "C" __global__ void transpose_swizzled_kernel(const float *__restrict__ in,
                                                     float *__restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int x = threadIdx.x;
    int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;
    // BEGIN SOLUTION
    // TODO: as transpose_shared, but keep each tile element at the place the comment above
    //       gives it, both when filling the tile and when emptying it.
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int k = j + threadIdx.y;
        if (tile_row + k < rows && tile_col + x < cols)
            tile[k][x ^ k] = in[(size_t)(tile_row + k) * cols + tile_col + x];
    }
    __syncthreads();
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        int k = j + threadIdx.y;
        if (tile_col + k < cols && tile_row + x < rows)
            out[(size_t)(tile_col + k) * rows + tile_row + x] = tile[x][k ^ x];
    }
    // END SOLUTION
}

/* ---- the bank experiments -------------------------------------------------------------------
 *
 * shared_stride and broadcast both run this kernel, on a fixed grid of 256-thread blocks (the
 * broadcast with stride 0 and 4-byte words). Each block copies in[] into shared memory, then
 * every thread makes LOADS_PER_THREAD loads of width_bytes: lane i reads element
 * i * stride + r * (one bank row), r = 0, 1, ... Each load is at a new address, so the compiler
 * can neither drop nor merge any of them, and the sum of all of them is written out so that
 * none is dead. */
extern "C" __global__ void shared_stride_kernel(const float4 *in, float *out, int stride,
                                                int width_bytes)
{
    __shared__ float4 storage[STRIDE_ARRAY_FLOAT4S];
    int vector_count = stride_vectors(stride, width_bytes);
    for (int i = threadIdx.x; i < vector_count; i += blockDim.x)
        storage[i] = in[i];
    __syncthreads();
    /* The same bytes seen as 4- and 8-byte elements; the barrier orders the copy before them. */
    const float *words = (const float *)storage;
    const float2 *pairs = (const float2 *)storage;

    int lane = threadIdx.x % WARP_LANES;
    float sum = 0.0f;
    // BEGIN SOLUTION
    // TODO: make the LOADS_PER_THREAD loads the comment above describes, each width_bytes
    //       wide (words, pairs and storage see the same bytes at three widths). Add the floats
    //       of each load together, then add that to sum: the CPU reference adds in that order.
    if (width_bytes == 4) {
        for (int r = 0; r < LOADS_PER_THREAD; r++)
            sum += words[lane * stride + r * (BANK_ROW_BYTES / 4)];
    } else if (width_bytes == 8) {
        for (int r = 0; r < LOADS_PER_THREAD; r++) {
            float2 value = pairs[lane * stride + r * (BANK_ROW_BYTES / 8)];
            sum += value.x + value.y;
        }
    } else {
        for (int r = 0; r < LOADS_PER_THREAD; r++) {
            float4 value = storage[lane * stride + r * (BANK_ROW_BYTES / 16)];
            sum += value.x + value.y + value.z + value.w;
        }
    }
    // END SOLUTION
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
