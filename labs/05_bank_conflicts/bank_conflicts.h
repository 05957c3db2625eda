/* bank_conflicts.h: what lab 05's kernels (kernels.cu) and its host program (bank_conflicts.cu)
 * both need: the tile and block shapes, the bank geometry and the size of the shared array the
 * bank experiments read. Instructor-owned; kernels.cu includes it. */
#ifndef BANK_CONFLICTS_H
#define BANK_CONFLICTS_H

#define WARP_LANES 32           /* threads in a warp */
#define SHARED_BANKS 32         /* shared memory: 32 banks ... */
#define BANK_BYTES 4            /* ... each 4 bytes wide */
#define BANK_ROW_BYTES (SHARED_BANKS * BANK_BYTES) /* one word in each bank: 128 bytes */

#define TILE 32                 /* a transpose tile is TILE x TILE floats */
#define BLOCK_ROWS 8            /* a block is TILE x BLOCK_ROWS threads: each copies 4 tile rows */

#define LOADS_PER_THREAD 64     /* shared loads each thread of shared_stride and broadcast makes */
#define MAX_STRIDE 32

/* 16-byte vectors the shared array must hold: lane 31 reads element 31 * stride, and load r is
 * r bank rows (128 bytes) further on, which keeps every load's bank pattern. */
static inline __host__ __device__ int stride_vectors(int stride, int width_bytes)
{
    int elements = (WARP_LANES - 1) * stride + 1 +
                   (LOADS_PER_THREAD - 1) * (BANK_ROW_BYTES / width_bytes);
    return (elements * width_bytes + 15) / 16;
}

/* stride_vectors at its largest: 16-byte elements at the largest stride (23,952 bytes). */
#define STRIDE_ARRAY_FLOAT4S \
    ((WARP_LANES - 1) * MAX_STRIDE + 1 + (LOADS_PER_THREAD - 1) * (BANK_ROW_BYTES / 16))

#endif
