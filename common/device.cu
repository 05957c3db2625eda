/* device.cu: the harness's GPU side: checked calls, allocation, reproducible random inputs. */
#include "memlab.h"
#include "lab_table.h"

#include <cuda_runtime.h>
#include <sys/mman.h>

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

/* A CPU reference of a large output is a fresh gigabyte per sweep point: in 4 KiB pages, the
 * first touch of each costs a page fault, together longer than computing the values. Large
 * buffers are aligned to 2 MiB and asked to be backed by huge pages (where the kernel allows
 * it; elsewhere the advice is ignored and they behave as malloc's). free() releases either. */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

void *ml_host_alloc(size_t bytes)
{
    void *pointer = NULL;
    if (bytes >= 16 * HUGE_PAGE_BYTES) {
        size_t rounded = (bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
        if (posix_memalign(&pointer, HUGE_PAGE_BYTES, rounded) != 0)
            pointer = NULL;
        else
            madvise(pointer, rounded, MADV_HUGEPAGE);
    } else {
        pointer = malloc(bytes);
    }
    if (pointer == NULL) {
        fprintf(stderr, "memlab: out of host memory (%zu bytes)\n", bytes);
        exit(ML_EXIT_CUDA_ERROR);
    }
    return pointer;
}

/* What a run's buffer is, so that it is freed by the call that matches its allocation. */
enum { HOST_BUFFER, DEVICE_BUFFER, PINNED_BUFFER };

/* A run's buffer, kept in the run for the harness to free (ml_free_run_buffers). */
static void *keep_buffer(ml_problem *problem, void *pointer, int kind)
{
    if (problem->buffer_count == ML_MAX_BUFFERS) {
        fprintf(stderr, "%s: variant %s: more than %d buffers in one run\n",
                problem->lab->program, problem->variant->name, ML_MAX_BUFFERS);
        exit(ML_EXIT_LAB_ERROR);
    }
    problem->buffers[problem->buffer_count] = pointer;
    problem->buffer_kind[problem->buffer_count] = kind;
    problem->buffer_count++;
    return pointer;
}

void *ml_device_buffer(ml_problem *problem, size_t bytes)
{
    return keep_buffer(problem, ml_device_alloc(bytes), DEVICE_BUFFER);
}

void *ml_host_buffer(ml_problem *problem, size_t bytes)
{
    return keep_buffer(problem, ml_host_alloc(bytes), HOST_BUFFER);
}

void *ml_pinned_buffer(ml_problem *problem, size_t bytes, int mapped)
{
    void *pointer = NULL;
    ML_CUDA_CHECK(cudaHostAlloc(&pointer, bytes, mapped ? cudaHostAllocMapped : cudaHostAllocDefault));
    return keep_buffer(problem, pointer, PINNED_BUFFER);
}

void ml_free_run_buffers(ml_problem *problem)
{
    for (int i = 0; i < problem->buffer_count; i++) {
        switch (problem->buffer_kind[i]) {
        case DEVICE_BUFFER:
            ml_device_free(problem->buffers[i]);
            break;
        case PINNED_BUFFER:
            ML_CUDA_CHECK(cudaFreeHost(problem->buffers[i]));
            break;
        default:
            free(problem->buffers[i]);
        }
    }
    problem->buffer_count = 0;
}

/* The output on the device, for both kinds of expectation. Floats and counts are both 4 bytes. */
static void make_output(ml_problem *problem, ml_output_kind kind, size_t count, double tolerance)
{
    problem->output = (float *)ml_device_buffer(problem, count * sizeof(float));
    problem->output_count = count;
    problem->output_kind = kind;
    problem->tolerance = tolerance;
}

void ml_expect_output(ml_problem *problem, ml_output_kind kind, size_t count, double tolerance)
{
    make_output(problem, kind, count, tolerance);
    void *reference = ml_host_buffer(problem, count * sizeof(float));
    if (kind == ML_OUTPUT_COUNTED)
        problem->reference_counts = (uint32_t *)reference;
    else
        problem->reference = (float *)reference;
}

void ml_expect_sampled_output(ml_problem *problem, size_t count, size_t checked,
                              double tolerance)
{
    make_output(problem, ML_OUTPUT_WRITTEN, count, tolerance);
    problem->check_index = (size_t *)ml_host_buffer(problem, checked * sizeof(size_t));
    problem->check_count = checked;
    problem->reference = (float *)ml_host_buffer(problem, checked * sizeof(float));
}

unsigned ml_blocks_of(const ml_problem *problem, size_t count)
{
    return ml_blocks_for(count, problem->variant->block.x);
}

unsigned ml_blocks_for(size_t count, unsigned threads_per_block)
{
    return (unsigned)((count + threads_per_block - 1) / threads_per_block);
}

unsigned ml_blocks_filling(size_t count, unsigned threads_per_block, unsigned blocks_per_sm)
{
    unsigned needed = ml_blocks_for(count, threads_per_block);
    unsigned filling = (unsigned)ml_model_gpu()->sm_count * blocks_per_sm;
    return needed < filling ? needed : filling;
}

static __global__ void fill_random_kernel(float *out, size_t count, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = ml_random_value(seed, i);
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

static __global__ void gather_words_kernel(const uint32_t *words, const size_t *position,
                                           size_t count, uint32_t *gathered)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        gathered[i] = words[position[i]];
}

void ml_gather_words(const uint32_t *words, const size_t *position, size_t count,
                     uint32_t *gathered)
{
    const unsigned threads = 256;
    if (count == 0)
        return;
    gather_words_kernel<<<ml_blocks_for(count, threads), threads>>>(words, position, count,
                                                                    gathered);
    ML_LAUNCH_CHECK();
}

/* Reads the whole buffer. Only a value no real data produces is ever stored, so the compiler
 * must keep the loads, and the L2 ends up holding clean lines of this buffer: the next kernel
 * reads its inputs from DRAM and no earlier dirty line is written back during it. */
static __global__ void read_all_kernel(const uint4 *buffer, size_t count, unsigned *sink,
                                       unsigned *zero, size_t zero_words)
{
    unsigned bits = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < zero_words; i += stride)
        zero[i] = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        uint4 value = buffer[i];
        bits ^= value.x ^ value.y ^ value.z ^ value.w;
    }
    if (bits == 0x9E3779B9u)
        *sink = bits;
}

void ml_flush_l2(void *buffer, size_t bytes, void *zero, size_t zero_bytes)
{
    /* The buffer's last word is the sink: it is never read as part of the uint4 sweep. */
    size_t vectors = (bytes - sizeof(uint4)) / sizeof(uint4);
    unsigned *sink = (unsigned *)((char *)buffer + bytes - sizeof(unsigned));
    read_all_kernel<<<1024, 256>>>((const uint4 *)buffer, vectors, sink, (unsigned *)zero,
                                   zero_bytes / sizeof(unsigned));
    ML_LAUNCH_CHECK();
}
