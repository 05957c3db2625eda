/* device.cu: the harness's GPU side: checked calls, allocation, reproducible random inputs. */
#include "memlab.h"

#include <cuda_runtime.h>

void ml_cuda_check(cudaError_t status, const char *call, const char *file, int line)
{
    if (status == cudaSuccess)
        return;
    fprintf(stderr, "memlab: %s:%d: %s failed: %s (%s)\n", file, line, call,
            cudaGetErrorString(status), cudaGetErrorName(status));
    exit(ML_EXIT_CUDA_ERROR);
}

void *ml_device_alloc(size_t bytes)
{
    void *pointer = NULL;
    ML_CUDA_CHECK(cudaMalloc(&pointer, bytes));
    return pointer;
}

void ml_device_free(void *pointer)
{
    ML_CUDA_CHECK(cudaFree(pointer));
}

void *ml_host_alloc(size_t bytes)
{
    void *pointer = malloc(bytes);
    if (pointer == NULL) {
        fprintf(stderr, "memlab: out of host memory (%zu bytes)\n", bytes);
        exit(ML_EXIT_CUDA_ERROR);
    }
    return pointer;
}

unsigned ml_blocks_for(size_t count, unsigned threads_per_block)
{
    return (unsigned)((count + threads_per_block - 1) / threads_per_block);
}

/* A counter-based generator (SplitMix64's finaliser): value i depends only on (seed, i), so the
 * GPU fills a large input in parallel and the CPU reference recomputes any element it needs
 * without copying the input back. */
static __host__ __device__ float random_value(uint64_t seed, uint64_t index)
{
    uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    /* The top 24 bits give every float in [0, 1) a step of 2^-24, exactly representable. */
    float unit = (float)(z >> 40) * (1.0f / 16777216.0f);
    return 2.0f * unit - 1.0f;
}

float ml_random_value(uint64_t seed, uint64_t index)
{
    return random_value(seed, index);
}

static __global__ void fill_random_kernel(float *out, size_t count, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = random_value(seed, i);
}

void ml_fill_random(float *device, size_t count, uint64_t seed)
{
    const unsigned threads = 256;
    unsigned blocks = ml_blocks_for(count, threads);
    if (blocks > 65536)
        blocks = 65536;
    if (blocks == 0)
        return;
    fill_random_kernel<<<blocks, threads>>>(device, count, seed);
    ML_LAUNCH_CHECK();
}
