/* Lab 01: registers vs local memory: run-time-indexed arrays, register caps, spills. The
 * kernels: the file you write and submit.
 *
 * A thread's scalars live in registers. A per-thread array lives in registers only while the
 * compiler can name every element it touches at compile time: index it with a value known only
 * at run time and the array is given an address in local memory, which is per-thread device
 * memory behind the L1 and L2 caches. A kernel that needs more registers than it may have (a
 * cap that lets more blocks share an SM) uses local memory too: the compiler spills registers
 * there. CUDA 13 can spill to shared memory instead.
 *
 * Two pairs of kernels. The table kernels build a 32-entry table per thread and sum
 * table[k] * table[(k + rotation) % 32], once with compile-time indices only (the barrel
 * shifter you write) and once indexing the table at run time. The smoothing kernels smooth a
 * ring of 64 values per thread (smooth_ring, in register_spill.h): without a register cap,
 * under the cap you declare, and under the same cap with CUDA 13's shared-memory spilling.
 * Predict what each one costs in registers, local memory and local sectors, then measure it
 * (handouts/01_register_spill.md).
 *
 * This file is device code only: the lab program (register_spill.cu, the instructor's) finds
 * each kernel by its name, launches it, checks its output against the CPU reference and reads
 * the hardware counters; its report shows the registers, local memory and spills that ptxas
 * gave each kernel of the file it ran. Keep the names and the parameters as they are.
 *
 * Build and run:  ./memlab run register_spill --variant all
 * Your own file:  ./memlab run register_spill --kernels path/to/kernels.cu
 * Ask ptxas:      build/labs/register_spill --kernels path/to/kernels.cu --save-kernels k.fatbin
 *                 (no GPU needed; k.fatbin.ptxas holds what ptxas printed for every kernel)
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

#include "register_spill.h"

/* ---- the table kernels: a per-thread array in registers or in local memory ----------------- */

/* out[i] = sum over k of table[k] * table[(k + rotation) % 32]. The rotation is known only at
 * run time, so it is done in five steps of 1, 2, 4, 8 and 16 entries, each taken or not: every
 * index below is a constant once the loops are unrolled, and both arrays stay in registers. */
extern "C" __global__ void table_static_index(const float *in, float *out, size_t n,
                                              unsigned lane_stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float table[TABLE_LENGTH];
    fill_table(table, in[i]);
    unsigned rotation = rotation_of(i, lane_stride);
    // BEGIN SOLUTION
    // TODO: rotate a copy of table by `rotation` entries with compile-time indices only: five
    //       steps (by 1, 2, 4, 8, 16 entries, each taken when its bit of rotation is set) in
    //       fully unrolled loops; then out[i] = sum over k = 0..31 of table[k] * rotated[k],
    //       accumulated with fmaf in that order. Check: ptxas shows 0 bytes stack frame.
    // STUB: (void)rotation;
    float rotated[TABLE_LENGTH];
#pragma unroll
    for (int j = 0; j < TABLE_LENGTH; j++)
        rotated[j] = table[j];
#pragma unroll
    for (int step = 1; step < TABLE_LENGTH; step *= 2) {
        float shifted[TABLE_LENGTH];
#pragma unroll
        for (int j = 0; j < TABLE_LENGTH; j++)
            shifted[j] = (rotation & step) ? rotated[(j + step) % TABLE_LENGTH] : rotated[j];
#pragma unroll
        for (int j = 0; j < TABLE_LENGTH; j++)
            rotated[j] = shifted[j];
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < TABLE_LENGTH; k++)
        sum = fmaf(table[k], rotated[k], sum);
    out[i] = sum;
    // END SOLUTION
}

/* The same sum, indexing the table with the run-time rotation. Look at what the compiler makes
 * of it: ptxas's stack frame, and the local stores (STL) and loads (LDL) in cuobjdump -sass. */
extern "C" __global__ void table_dynamic_index(const float *in, float *out, size_t n,
                                               unsigned lane_stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float table[TABLE_LENGTH];
    fill_table(table, in[i]);
    unsigned rotation = rotation_of(i, lane_stride);
    float sum = 0.0f;
    for (int k = 0; k < TABLE_LENGTH; k++)
        sum = fmaf(table[k], table[(k + rotation) % TABLE_LENGTH], sum);
    out[i] = sum;
}

/* ---- the smoothing kernels: many live values, then a register cap -------------------------- */

/* smooth_ring keeps all 64 values of its ring live at once, plus a few registers for the index
 * and the pointers. No cap: the compiler takes the registers it needs. */
extern "C" __global__ void smooth_uncapped(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = smooth_ring(in[i]);
}

/* The same kernel, promised to run in blocks of at most THREADS_PER_BLOCK threads with
 * CAPPED_BLOCKS_PER_SM blocks on an SM. */
// BEGIN SOLUTION
// TODO: smooth_capped: the body of smooth_uncapped, declared with a register cap that lets
//       CAPPED_BLOCKS_PER_SM blocks of THREADS_PER_BLOCK threads share an SM.
// STUB: extern "C" __global__ void smooth_capped(const float *in, float *out, size_t n) {}
extern "C" __global__ void __launch_bounds__(THREADS_PER_BLOCK, CAPPED_BLOCKS_PER_SM)
smooth_capped(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = smooth_ring(in[i]);
}
// END SOLUTION

/* The capped kernel, allowed to spill into shared memory. The pragma goes at the start of the
 * kernel's body and applies to that kernel; ptxas sizes the shared spill area from the launch
 * bounds (without them it assumes 1024 threads per block), and what does not fit still goes to
 * local memory. Before CUDA 13 the pragma does not exist, and this is smooth_capped again. */
// BEGIN SOLUTION
// TODO: the declaration of smooth_smem_spill, with the same register cap as smooth_capped
//       (ptxas sizes the shared spill area from it).
// STUB: extern "C" __global__ void smooth_smem_spill(const float *in, float *out, size_t n)
extern "C" __global__ void __launch_bounds__(THREADS_PER_BLOCK, CAPPED_BLOCKS_PER_SM)
smooth_smem_spill(const float *in, float *out, size_t n)
// END SOLUTION
{
#if __CUDACC_VER_MAJOR__ >= 13
    asm volatile(".pragma \"enable_smem_spilling\";");
#endif
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = smooth_ring(in[i]);
}
