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
    // TODO: for each tile row k this thread copies (threadIdx.y, + 8, + 16, + 24), copy
    //       in[tile_row + k][tile_col + x] to out[tile_col + x][tile_row + k], skipping
    //       elements outside the rows x cols matrix.
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
    // TODO: fill tile[k][x] from in[tile_row + k][tile_col + x] for this thread's tile rows k;
    //       wait for the whole block; then write tile[x][k] to out[tile_col + k][tile_row + x].
    //       Skip elements outside the matrix.
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
    // TODO: declare the tile with one padding word at the end of each row, then fill and
    //       empty it as transpose_shared does.
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
    // TODO: as transpose_shared, but keep tile element (r, c) at tile[r][c ^ r], both when
    //       filling and when emptying the tile.
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
    // TODO: make LOADS_PER_THREAD loads of width_bytes each (words, pairs or storage): load r
    //       reads element lane * stride + r * (BANK_ROW_BYTES / width_bytes). Add the floats of
    //       each load together, then add that to sum, as the CPU reference does.
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
