/* Lab 08: atomics on global and shared memory, privatization and warp shuffles. What the kernels
 * (kernels.cu) and the host program (atomics.cu) share: the block size and how many values each
 * thread of a histogram kernel takes. The instructor's file: kernels.cu includes it, a submission
 * does not change it.
 */
#ifndef ATOMICS_H
#define ATOMICS_H

#include <cuda_runtime.h>

#define ATOMICS_THREADS 256     /* threads per block, every kernel */
#define WARPS_PER_BLOCK (ATOMICS_THREADS / 32)

/* A histogram block takes HISTOGRAM_VALUES_PER_BLOCK consecutive values: thread t of block b
 * takes values b * HISTOGRAM_VALUES_PER_BLOCK + k * ATOMICS_THREADS + t, k = 0 .. 31, so the 32
 * lanes of a warp always take 32 consecutive values. Enough values per block that merging a
 * private histogram (one atomic per bin) costs little beside them. */
#define HISTOGRAM_ITEMS_PER_THREAD 32
#define HISTOGRAM_VALUES_PER_BLOCK (HISTOGRAM_ITEMS_PER_THREAD * ATOMICS_THREADS)

#define MAX_BINS 4096           /* a block's private histogram fits in 16 KiB of shared memory */

#endif
