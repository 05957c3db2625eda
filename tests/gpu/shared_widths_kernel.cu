/* shared_widths_kernel.cu: the device side of test_shared_widths. Every warp makes the same
 * shared loads: lane l reads element element_of_lane[l] of one width (4, 8 or 16 bytes) from a
 * block's shared storage, SHARED_WIDTHS_LOADS times, each load one bank row (128 bytes) further
 * on than the one before: the same lanes in the same banks, at a new address, so the compiler
 * can neither drop a load nor merge two. The test divides the counters by the instructions. */
#include <cuda_runtime.h>

#include "memlab.h"

#define SHARED_WIDTHS_LOADS 16
#define SHARED_WIDTHS_BLOCK_THREADS 256
#define SHARED_WIDTHS_STORAGE_BYTES 16384
#define BANK_ROW_BYTES 128

/* What the test needs to know of the launch (it is C and cannot see these macros). */
extern "C" const int shared_widths_loads_per_lane = SHARED_WIDTHS_LOADS;
extern "C" const int shared_widths_block_threads = SHARED_WIDTHS_BLOCK_THREADS;
extern "C" const int shared_widths_storage_bytes = SHARED_WIDTHS_STORAGE_BYTES;

__device__ __forceinline__ float component_sum(float value)
{
    return value;
}

__device__ __forceinline__ float component_sum(float2 value)
{
    return value.x + value.y;
}

__device__ __forceinline__ float component_sum(float4 value)
{
    return value.x + value.y + value.z + value.w;
}

/* Element is float, float2 or float4: the width of the load (LDS.32, .64, .128). A template
 * because the three kernels differ only in that type (a template cannot be extern "C" itself:
 * the kernels below are its instances). */
template <typename Element>
__device__ __forceinline__ void load_shared_elements(const int *element_of_lane, float *sums)
{
    __shared__ float4 storage[SHARED_WIDTHS_STORAGE_BYTES / sizeof(float4)];
    const int vectors = SHARED_WIDTHS_STORAGE_BYTES / sizeof(float4);
    /* Values the compiler cannot know (they depend on the block), so no load folds away.
     * The stores are not loads: the counters the test reads do not see them. */
    for (int i = threadIdx.x; i < vectors; i += blockDim.x)
        storage[i] = make_float4((float)i, (float)blockIdx.x, (float)(i + 1), 1.0f);
    __syncthreads();

    int element = element_of_lane[threadIdx.x % ML_WARP_SIZE];
    float sum = 0.0f;
    /* An inactive lane makes no load at all: the loads are predicated off (or branched
     * around), never issued with a stand-in address that would change the bank pattern. */
    if (element >= 0) {
        const Element *view = (const Element *)storage;
        const int elements_per_bank_row = BANK_ROW_BYTES / (int)sizeof(Element);
#pragma unroll
        for (int load = 0; load < SHARED_WIDTHS_LOADS; load++)
            sum += component_sum(view[element + load * elements_per_bank_row]);
    }
    /* Written so the loads are live. */
    sums[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

extern "C" __global__ void shared_loads_4_bytes(const int *element_of_lane, float *sums)
{
    load_shared_elements<float>(element_of_lane, sums);
}

extern "C" __global__ void shared_loads_8_bytes(const int *element_of_lane, float *sums)
{
    load_shared_elements<float2>(element_of_lane, sums);
}

extern "C" __global__ void shared_loads_16_bytes(const int *element_of_lane, float *sums)
{
    load_shared_elements<float4>(element_of_lane, sums);
}

/* One launch of blocks x SHARED_WIDTHS_BLOCK_THREADS threads for a width of 4, 8 or 16 bytes;
 * sums holds one float per thread. Any other width is refused as an invalid value. */
extern "C" void shared_widths_launch(unsigned width_bytes, const int *element_of_lane,
                                     float *sums, int blocks)
{
    switch (width_bytes) {
    case 4:
        shared_loads_4_bytes<<<blocks, SHARED_WIDTHS_BLOCK_THREADS>>>(element_of_lane, sums);
        break;
    case 8:
        shared_loads_8_bytes<<<blocks, SHARED_WIDTHS_BLOCK_THREADS>>>(element_of_lane, sums);
        break;
    case 16:
        shared_loads_16_bytes<<<blocks, SHARED_WIDTHS_BLOCK_THREADS>>>(element_of_lane, sums);
        break;
    default:
        ML_CUDA_CHECK(cudaErrorInvalidValue);
    }
    ML_LAUNCH_CHECK();
}
