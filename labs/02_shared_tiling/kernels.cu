/* Lab 02: shared-memory tiling, a matrix multiply of any shape. The kernels: the file you write
 * and submit.
 *
 * P = M x N, with M of m x k, N of k x n and P of m x n, all row-major floats. Computing one
 * element of P takes k multiply-adds and, done naively, a load of each operand from global
 * memory at every step. Tiling reuses what is loaded: the threads of a block load a TILE_WIDTH x
 * TILE_WIDTH tile of M and one of N into shared memory together (one element each), wait at a
 * barrier, and then every thread reads TILE_WIDTH pairs from the fast shared copies, so each
 * element loaded from global memory serves TILE_WIDTH threads. Sizes need not be multiples of
 * the tile: elements outside a matrix are loaded as zero, and only threads inside P store.
 * Predict how many sectors and requests each kernel asks global memory for, then measure it
 * (handouts/02_shared_tiling.md).
 *
 * This file is device code only: the lab program (shared_tiling.cu, the instructor's) finds
 * each kernel by its name, launches it, checks P against a CPU reference, runs cuBLAS SGEMM
 * beside it as the FLOP/s ceiling and reads the hardware counters. Keep the names and the
 * parameters as they are.
 *
 * Build and run:  ./memlab run shared_tiling --variant tiled16 --m 17 --k 33 --n 9
 * Your own file:  ./memlab run shared_tiling --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

#include "shared_tiling.h"

/* Row-major indexing: element (row, col) of a matrix with `cols` columns is at row * cols + col.
 * Indices are ints (every size is at most 1,000,000); offsets are size_t, since a matrix may
 * hold more than 2^31 elements. threadIdx.x runs along the columns of P, so the 32 lanes of a
 * warp read consecutive elements of a row of N. */

/* One thread per element of P, both operands read from global memory at every step of k. */
extern "C" __global__ void matmul_naive(const float *M, const float *N, float *P, int m, int k,
                                        int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION
    // TODO: compute this thread's element of P: the sum of k products, one operand from M and
    //       one from N at every step (which row of M, which column of N?). The grid is rounded
    //       up to whole blocks, so some threads have no element: they must read and write
    //       nothing. Offsets can pass 2^31 elements: form them in size_t.
    if (row < m && col < n) {
        float Pvalue = 0.0f;
        for (int i = 0; i < k; i++)
            Pvalue += M[(size_t)row * k + i] * N[(size_t)i * n + col];
        P[(size_t)row * n + col] = Pvalue;
    }
    // END SOLUTION
}

/* The textbook tiled kernel. A block of TILE_WIDTH x TILE_WIDTH threads computes one tile of P
 * in phases; in each phase it loads one tile of M and one of N into shared memory, one element
 * per thread, and every thread then takes TILE_WIDTH products from them. TILE_WIDTH is a
 * template parameter because the size of a __shared__ array must be known when the kernel is
 * compiled: tiled16 and tiled32 are this one source compiled twice, as the kernels
 * matmul_tiled16 and matmul_tiled32 below (a template cannot be extern "C" itself). */
template <int TILE_WIDTH>
__device__ __forceinline__ void matmul_tiled(const float *M, const float *N, float *P, int m,
                                             int k, int n)
{
    __shared__ float Ms[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Ns[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_WIDTH + ty;
    int col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0.0f;
    /* Every thread takes part in every phase, also those outside P: they load their share of
     * the tiles and meet the barriers like all the others. */
    int phases = (k + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int ph = 0; ph < phases; ph++) {
        // BEGIN SOLUTION
        // TODO: load this phase's tile of M and tile of N into shared memory, one element of
        //       each per thread, placed where the products below will look for them. Which
        //       element of each matrix belongs to this thread in phase ph? Where m, k or n is no
        //       multiple of TILE_WIDTH, some of those elements lie outside their matrix: never
        //       read them, and decide what the tile must hold there so that the sum stays right.
        int m_col = ph * TILE_WIDTH + tx;
        int n_row = ph * TILE_WIDTH + ty;
        Ms[ty][tx] = (row < m && m_col < k) ? M[(size_t)row * k + m_col] : 0.0f;
        Ns[ty][tx] = (n_row < k && col < n) ? N[(size_t)n_row * n + col] : 0.0f;
        // END SOLUTION
        // BEGIN SOLUTION
        // TODO: the products below read elements of Ms and Ns that other threads stored. What
        //       must be true before any thread reads them, and what makes it so?
        __syncthreads();
        // END SOLUTION
        // BEGIN SOLUTION
        // TODO: add this phase's share of the dot product to Pvalue, reading only the tiles.
        for (int i = 0; i < TILE_WIDTH; i++)
            Pvalue += Ms[ty][i] * Ns[i][tx];
        // END SOLUTION
        // BEGIN SOLUTION
        // TODO: the next phase stores new elements into the same two tiles. What goes wrong
        //       if one thread gets there while others still read this phase's elements, and
        //       what here prevents it (if anything is needed at all)?
        __syncthreads();
        // END SOLUTION
    }
    // BEGIN SOLUTION
    // TODO: write this thread's result. Every thread of the block ran the phases, but not
    //       every thread has an element of P.
    if (row < m && col < n)
        P[(size_t)row * n + col] = Pvalue;
    // END SOLUTION
}

/* The two instances the lab program launches, in blocks of 16 x 16 and 32 x 32 threads. */
extern "C" __global__ void matmul_tiled16(const float *M, const float *N, float *P, int m, int k,
                                          int n)
{
    matmul_tiled<16>(M, N, P, m, k, n);
}

extern "C" __global__ void matmul_tiled32(const float *M, const float *N, float *P, int m, int k,
                                          int n)
{
    matmul_tiled<32>(M, N, P, m, k, n);
}

/* ---- instructor extension: register tiling ----------------------------------------------------
 * How far the same idea goes. The other variants do not depend on it. Its solution region is
 * optional: a student pack made with MEMLAB_PACK_KEEP=coarsened gives this kernel whole, to
 * measure and read (handout 02, question 11); a default pack leaves it to write. Its shape
 * (CO_TILE_M, ...) is in shared_tiling.h.
 *
 * A block of 256 threads computes a 128 x 128 tile of P; each thread accumulates an 8 x 8 block
 * of it in registers. Per phase (8 columns of M, 8 rows of N) every thread loads 4 elements of
 * the M tile and 4 of the N tile (one 16-byte load each where the tile lies inside the matrix
 * and its rows are 16-byte aligned, four guarded loads at the edges); then, at each of the 8
 * steps of the phase, it reads 8 + 8 values from shared memory and does 64 multiply-adds with
 * them, from registers. The M tile is stored transposed, so that a thread's 8 values of a
 * column of it are contiguous. The 256 threads form a 16 x 16 grid (ty, tx);
 * thread (ty, tx) owns rows ty*4 + 0..3 and 64 + ty*4 + 0..3 of the block's tile of P, and
 * columns tx*4 + 0..3 and 64 + tx*4 + 0..3. A warp is a 4 x 8 patch of that grid: its 8 lanes of
 * one ty read 8 neighbouring 16-byte pieces of a row of the N tile (128 contiguous bytes, no
 * bank conflict), and its 4 values of ty read 4 neighbouring pieces of the M tile. Two shared
 * buffers let the loads of the next tile be in flight while the current one is used, with one
 * barrier per phase. */
extern "C" __global__ void __launch_bounds__(CO_THREADS, CO_BLOCKS_PER_SM)
matmul_coarsened(const float *M, const float *N, float *P, int m, int k, int n)
{
    /* What this thread computes: its place (ty, tx) in the 16 x 16 grid of threads described
     * above (shared_tiling.h, which the host program's model of the shared loads uses too). */
    int t = threadIdx.x;
    int warp = t / 32, lane = t % 32;
    int ty = co_thread_ty(warp, lane), tx = co_thread_tx(warp, lane);
    // BEGIN SOLUTION
    // OPTIONAL: coarsened
    // TODO: (instructor extension) the register-tiled kernel described above.
    // STUB: (void)ty;
    // STUB: (void)tx;
    __shared__ __align__(16) float Ms[2][CO_TILE_K][CO_TILE_M]; /* transposed: [k][row] */
    __shared__ __align__(16) float Ns[2][CO_TILE_K][CO_TILE_N];
    int block_row = blockIdx.y * CO_TILE_M;
    int block_col = blockIdx.x * CO_TILE_N;

    /* What this thread loads: 4 consecutive elements of a row of each tile. */
    int m_load_row = t / (CO_TILE_K / 4), m_load_col = (t % (CO_TILE_K / 4)) * 4;
    int n_load_row = t / (CO_TILE_N / 4), n_load_col = (t % (CO_TILE_N / 4)) * 4;
    int m_row = block_row + m_load_row;
    int n_col = block_col + n_load_col;
    bool m_rows_inside = block_row + CO_TILE_M <= m && k % 4 == 0;
    bool n_cols_inside = block_col + CO_TILE_N <= n && n % 4 == 0;

    float sum[8][8];
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int c = 0; c < 8; c++)
            sum[r][c] = 0.0f;

    /* Step ph loads tile ph into registers, computes on tile ph - 1 (already in shared
     * memory) meanwhile, then stores tile ph into the other buffer. */
    int phases = (k + CO_TILE_K - 1) / CO_TILE_K;
    for (int ph = 0; ph <= phases; ph++) {
        float4 m_four = make_float4(0.0f, 0.0f, 0.0f, 0.0f), n_four = m_four;
        if (ph < phases) {
            bool phase_inside = (ph + 1) * CO_TILE_K <= k;
            int m_col = ph * CO_TILE_K + m_load_col;
            int n_row = ph * CO_TILE_K + n_load_row;
            const float *m_source = M + (size_t)m_row * k + m_col;
            const float *n_source = N + (size_t)n_row * n + n_col;
            if (m_rows_inside && phase_inside) {
                m_four = *(const float4 *)m_source;
            } else if (m_row < m) {
                m_four.x = m_col + 0 < k ? m_source[0] : 0.0f;
                m_four.y = m_col + 1 < k ? m_source[1] : 0.0f;
                m_four.z = m_col + 2 < k ? m_source[2] : 0.0f;
                m_four.w = m_col + 3 < k ? m_source[3] : 0.0f;
            }
            if (n_cols_inside && phase_inside) {
                n_four = *(const float4 *)n_source;
            } else if (n_row < k) {
                n_four.x = n_col + 0 < n ? n_source[0] : 0.0f;
                n_four.y = n_col + 1 < n ? n_source[1] : 0.0f;
                n_four.z = n_col + 2 < n ? n_source[2] : 0.0f;
                n_four.w = n_col + 3 < n ? n_source[3] : 0.0f;
            }
        }
        if (ph > 0) {
            int buffer = (ph - 1) % 2;
#pragma unroll
            for (int i = 0; i < CO_TILE_K; i++) {
                float4 a_low = *(const float4 *)&Ms[buffer][i][ty * 4];
                float4 a_high = *(const float4 *)&Ms[buffer][i][CO_HALF + ty * 4];
                float4 b_low = *(const float4 *)&Ns[buffer][i][tx * 4];
                float4 b_high = *(const float4 *)&Ns[buffer][i][CO_HALF + tx * 4];
                float a[8] = {a_low.x, a_low.y, a_low.z, a_low.w,
                              a_high.x, a_high.y, a_high.z, a_high.w};
                float b[8] = {b_low.x, b_low.y, b_low.z, b_low.w,
                              b_high.x, b_high.y, b_high.z, b_high.w};
#pragma unroll
                for (int r = 0; r < 8; r++)
#pragma unroll
                    for (int c = 0; c < 8; c++)
                        sum[r][c] += a[r] * b[c];
            }
        }
        if (ph < phases) {
            int buffer = ph % 2;
            Ms[buffer][m_load_col + 0][m_load_row] = m_four.x;
            Ms[buffer][m_load_col + 1][m_load_row] = m_four.y;
            Ms[buffer][m_load_col + 2][m_load_row] = m_four.z;
            Ms[buffer][m_load_col + 3][m_load_row] = m_four.w;
            *(float4 *)&Ns[buffer][n_load_row][n_load_col] = n_four;
        }
        /* Tile ph is complete, and no thread reads tile ph - 1 any more: the next step
         * overwrites its buffer. */
        __syncthreads();
    }

    /* Inside P with 16-byte-aligned rows: 16-byte stores; at the edges, guarded ones. */
    bool p_inside = block_row + CO_TILE_M <= m && block_col + CO_TILE_N <= n && n % 4 == 0;
#pragma unroll
    for (int r = 0; r < 8; r++) {
        int row = block_row + (r < 4 ? ty * 4 + r : CO_HALF + ty * 4 + r - 4);
#pragma unroll
        for (int group = 0; group < 2; group++) {
            int col = block_col + group * CO_HALF + tx * 4;
            float4 value = make_float4(sum[r][group * 4 + 0], sum[r][group * 4 + 1],
                                       sum[r][group * 4 + 2], sum[r][group * 4 + 3]);
            float *target = P + (size_t)row * n + col;
            if (p_inside) {
                *(float4 *)target = value;
            } else if (row < m) {
                if (col + 0 < n)
                    target[0] = value.x;
                if (col + 1 < n)
                    target[1] = value.y;
                if (col + 2 < n)
                    target[2] = value.z;
                if (col + 3 < n)
                    target[3] = value.w;
            }
        }
    }
    // END SOLUTION
}
