/* shared_tiling.h: what lab 02's kernels (kernels.cu) and its host program (shared_tiling.cu)
 * share: the shape of the coarsened kernel (an instructor extension), which the host program
 * launches and models. None of it is part of a solution: the student pack ships this file whole.
 */
#ifndef SHARED_TILING_H
#define SHARED_TILING_H

/* The coarsened kernel: a block of CO_THREADS threads computes a CO_TILE_M x CO_TILE_N tile of
 * P in phases of CO_TILE_K columns of M (rows of N). */
#define CO_TILE_M 128
#define CO_TILE_N 128
#define CO_TILE_K 8
#define CO_THREADS 256
#define CO_HALF 64 /* a thread's second group of 4 rows (or columns) starts this far on */

#endif
