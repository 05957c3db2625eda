/* shared_tiling.h: what lab 02's kernels (kernels.cu) and its host program (shared_tiling.cu)
 * share: the shape, the thread layout and the blocks per SM of the coarsened kernel (an
 * instructor extension), which the host program launches and models. None of it is part of a
 * solution: the student pack ships this file whole.
 */
#ifndef SHARED_TILING_H
#define SHARED_TILING_H

#include <cuda_runtime.h>

/* The coarsened kernel: a block of CO_THREADS threads computes a CO_TILE_M x CO_TILE_N tile of
 * P in phases of CO_TILE_K columns of M (rows of N). */
#define CO_TILE_M 128
#define CO_TILE_N 128
#define CO_TILE_K 8
#define CO_THREADS 256
#define CO_HALF 64 /* a thread's second group of 4 rows (or columns) starts this far on */
/* The blocks of the coarsened kernel an SM holds at once, the minimum its __launch_bounds__ asks
 * for: two blocks of its register-hungry threads fill the SM's register file, so no more fit.
 * The host program's DRAM model counts the blocks of a wave with it. */
#define CO_BLOCKS_PER_SM 2

/* The coarsened kernel's 256 threads form a 16 x 16 grid (ty, tx), and warp w of a block is the
 * 4 x 8 patch ty = (w / 2) * 4 + 0..3, tx = (w % 2) * 8 + 0..7: its 8 lanes of one ty read 128
 * contiguous bytes of a row of the N tile. The host program's model of the kernel's shared
 * loads assumes this layout. */
static __forceinline__ __host__ __device__ int co_thread_ty(int warp, int lane)
{
    return warp / 2 * 4 + lane / 8;
}

static __forceinline__ __host__ __device__ int co_thread_tx(int warp, int lane)
{
    return warp % 2 * 8 + lane % 8;
}

#endif
