/* register_spill.h: what lab 01's kernels (kernels.cu) and its host program (register_spill.cu)
 * share: the sizes of the per-thread arrays, the launch shape, and the helpers that both the
 * kernels and the CPU reference run, so that the reference does the same float operations in
 * the same order. None of it is part of a solution: the student pack ships this file whole.
 */
#ifndef REGISTER_SPILL_H
#define REGISTER_SPILL_H

#include <cuda_runtime.h>

/* Every kernel runs in blocks of this many threads (whole warps). */
#define THREADS_PER_BLOCK 256
/* The table of the table kernels: entries per thread. */
#define TABLE_LENGTH 32
/* The ring of the smoothing kernels: values per thread, and the rounds of smoothing. */
#define STATE_LENGTH 64
#define SMOOTHING_ROUNDS 8
/* The capped kernels must let this many blocks of THREADS_PER_BLOCK threads share an SM. */
#define CAPPED_BLOCKS_PER_SM 4

/* A table of values from a recurrence on x, so that every entry has to be kept. */
static __forceinline__ __host__ __device__ void fill_table(float *table, float x)
{
    float half_x = 0.5f * x;
    table[0] = x;
#pragma unroll
    for (int j = 1; j < TABLE_LENGTH; j++)
        table[j] = fmaf(table[j - 1], half_x, 0.5f);
}

/* Thread i's rotation, (i * lane_stride) mod 32. Blocks hold whole warps, so i % 32 is the
 * thread's lane: lane l of every warp rotates by (l * lane_stride) % 32. */
static __forceinline__ __host__ __device__ unsigned rotation_of(size_t i, unsigned lane_stride)
{
    return (unsigned)(i % TABLE_LENGTH) * lane_stride % TABLE_LENGTH;
}

/* Each thread holds a ring of 64 values built from x and smooths it in place, 8 times:
 * value j becomes 0.5 * value j + 0.25 * value j+1 + 0.125. The last update of a round reads
 * the first one's new value, so all 64 values are live at once. Every loop is unrolled: a
 * kernel that calls it is straight-line code. */
static __forceinline__ __host__ __device__ float smooth_ring(float x)
{
    float ring[STATE_LENGTH];
#pragma unroll
    for (int j = 0; j < STATE_LENGTH; j++)
        ring[j] = x * ((float)(j + 1) / STATE_LENGTH);
#pragma unroll
    for (int pass = 0; pass < SMOOTHING_ROUNDS; pass++) {
#pragma unroll
        for (int j = 0; j < STATE_LENGTH; j++)
            ring[j] = fmaf(ring[j], 0.5f, fmaf(ring[(j + 1) % STATE_LENGTH], 0.25f, 0.125f));
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < STATE_LENGTH; j++)
        sum += ring[j];
    return sum;
}

#endif
