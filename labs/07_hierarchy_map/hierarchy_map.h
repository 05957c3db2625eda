/* Lab 07: a map of the memory hierarchy. What the kernels (kernels.cu) and the host program
 * (hierarchy_map.cu) share: the sizes of the chains and buffers that live in on-chip memory.
 * The instructor's file: kernels.cu includes it, a submission does not change it.
 */
#ifndef HIERARCHY_MAP_H
#define HIERARCHY_MAP_H

#include <cuda_runtime.h>

#define SHARED_CHAIN_WORDS 4096         /* the shared-memory chain: 16 KiB, every word a link */
#define LOCAL_CHAIN_WORDS 256           /* the local-memory chain: 1 KiB a thread */
#define CONSTANT_CHAIN_WORDS 14336      /* the constant chains: 56 KiB (with read_constant's 4 KiB,
                                           most of the 64 KiB of constant memory) */

#define BANDWIDTH_THREADS_PER_SM 2048   /* every bandwidth kernel fills each SM with threads */
#define BANDWIDTH_THREADS 512           /* threads per block of read_shared, read_region and
                                           read_constant: four blocks an SM */
#define GRID_READ_THREADS 256           /* threads per block of read_grid_l2: eight blocks an SM */
#define SHARED_BANDWIDTH_VECTORS 2048   /* float4s a block keeps in shared memory: 32 KiB */
#define REGION_VECTORS 2048             /* float4s of read_region's region: 32 KiB */
#define CONSTANT_BANDWIDTH_VECTORS 256  /* float4s in constant memory: 4 KiB */
#define CONSTANT_ROUNDS_A_STEP 16       /* read_constant's rounds between two loop tests; a
                                           divisor of CONSTANT_BANDWIDTH_VECTORS */

#endif
