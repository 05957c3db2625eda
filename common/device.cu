/* device.cu: the harness's GPU side: checked calls, allocation, reproducible random inputs. */
#include "memlab.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

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

/* The guards' values (and the harness's secret seeds and check positions) come from the OS's
 * random source: no kernel can know or recompute them, so no stray store can happen to write
 * what was there. */
void ml_secret_random(void *buffer, size_t count)
{
    unsigned char *bytes = (unsigned char *)buffer;
    while (count > 0) {
        ssize_t got = getrandom(bytes, count, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "memlab: the OS's random source failed (getrandom: %s)\n",
                    strerror(errno));
            exit(ML_EXIT_LAB_ERROR);
        }
        bytes += got;
        count -= (size_t)got;
    }
}

void *ml_device_buffer(ml_problem *problem, size_t bytes)
{
    unsigned char *base = (unsigned char *)ml_device_alloc(bytes + 2 * ML_GUARD_BYTES);
    unsigned char *expected = (unsigned char *)ml_host_alloc(2 * ML_GUARD_BYTES);
    ml_secret_random(expected, 2 * ML_GUARD_BYTES);
    ML_CUDA_CHECK(cudaMemcpy(base, expected, ML_GUARD_BYTES, cudaMemcpyHostToDevice));
    ML_CUDA_CHECK(cudaMemcpy(base + ML_GUARD_BYTES + bytes, expected + ML_GUARD_BYTES,
                             ML_GUARD_BYTES, cudaMemcpyHostToDevice));
    /* Zeroed, as a new process's memory is: nothing an earlier run (under --cases, an earlier
     * case) left in memory the allocator hands out again reaches this one. */
    ML_CUDA_CHECK(cudaMemset(base + ML_GUARD_BYTES, 0, bytes));
    int index = problem->buffer_count;
    keep_buffer(problem, base + ML_GUARD_BYTES, DEVICE_BUFFER);
    problem->buffer_bytes[index] = bytes;
    problem->guard_expected[index] = expected;
    return base + ML_GUARD_BYTES;
}

size_t ml_guard_words_changed(const ml_problem *problem, char *where, size_t where_size)
{
    static unsigned char *found;
    if (found == NULL)
        found = (unsigned char *)ml_host_alloc(2 * ML_GUARD_BYTES);
    size_t changed = 0;
    where[0] = '\0';
    for (int i = 0; i < problem->buffer_count; i++) {
        if (problem->buffer_kind[i] != DEVICE_BUFFER)
            continue;
        const unsigned char *buffer = (const unsigned char *)problem->buffers[i];
        ML_CUDA_CHECK(cudaMemcpy(found, buffer - ML_GUARD_BYTES, ML_GUARD_BYTES,
                                 cudaMemcpyDeviceToHost));
        ML_CUDA_CHECK(cudaMemcpy(found + ML_GUARD_BYTES, buffer + problem->buffer_bytes[i],
                                 ML_GUARD_BYTES, cudaMemcpyDeviceToHost));
        const unsigned char *expected = problem->guard_expected[i];
        size_t changed_before = changed;
        for (size_t word = 0; word < 2 * ML_GUARD_BYTES / 4; word++) {
            if (memcmp(found + 4 * word, expected + 4 * word, 4) == 0)
                continue;
            if (changed++ > 0)
                continue;
            const char *name = buffer == (const unsigned char *)problem->output ? "the output"
                               : buffer == (const unsigned char *)problem->cycles ? "the clock"
                                                                                  : "an input";
            if (4 * word < ML_GUARD_BYTES)
                snprintf(where, where_size, "the 4 bytes %zu bytes before the start of %s "
                         "(buffer %d of the run)", ML_GUARD_BYTES - 4 * word, name, i + 1);
            else
                snprintf(where, where_size, "the 4 bytes %zu bytes after the end of %s (buffer "
                         "%d of the run)", 4 * word - ML_GUARD_BYTES, name, i + 1);
        }
        /* Put back, so that each launch's stray writes are its own. */
        if (changed > changed_before) {
            ML_CUDA_CHECK(cudaMemcpy((unsigned char *)buffer - ML_GUARD_BYTES, expected,
                                     ML_GUARD_BYTES, cudaMemcpyHostToDevice));
            ML_CUDA_CHECK(cudaMemcpy((unsigned char *)buffer + problem->buffer_bytes[i],
                                     expected + ML_GUARD_BYTES, ML_GUARD_BYTES,
                                     cudaMemcpyHostToDevice));
        }
    }
    return changed;
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
            ml_device_free((unsigned char *)problem->buffers[i] - ML_GUARD_BYTES);
            free(problem->guard_expected[i]);
            problem->guard_expected[i] = NULL;
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

void ml_expect_output_from_reference_at(ml_problem *problem, ml_output_kind kind, size_t count,
                                        double tolerance)
{
    make_output(problem, kind, count, tolerance);
    problem->reference_from_reference_at = 1;
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

/* An output compared at checked positions, which setup fills in check_index. */
static void make_sampled_output(ml_problem *problem, size_t count, size_t checked,
                                double tolerance)
{
    make_output(problem, ML_OUTPUT_WRITTEN, count, tolerance);
    problem->check_index = (size_t *)ml_host_buffer(problem, checked * sizeof(size_t));
    problem->check_count = checked;
}

void ml_expect_sampled_output_from_reference_at(ml_problem *problem, size_t count, size_t checked,
                                                double tolerance)
{
    make_sampled_output(problem, count, checked, tolerance);
    problem->reference_from_reference_at = 1;
}

void ml_expect_sampled_output(ml_problem *problem, size_t count, size_t checked,
                              double tolerance)
{
    make_sampled_output(problem, count, checked, tolerance);
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
