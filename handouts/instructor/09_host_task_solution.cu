/* Lab 09, the host-side task: THE INSTRUCTOR'S SOLUTION (handouts/instructor/, never in a student
 * pack). The student starts from labs/09_unified_memory/host_task/prefetch.cu; this is that file
 * with its four TODOs done. Build from the checkout's root:
 *   nvcc -O2 -o prefetch handouts/instructor/09_host_task_solution.cu && ./prefetch 128
 *
 * What the starter says:
 *
 * Every other part of memlab keeps the host code for the instructor; this file is yours. It is a
 * whole CUDA program of its own (not graded by ./memlab grade): it includes your kernels.cu, so
 * your scale_stream runs here launched with <<<...>>> like any one-file program, and it times
 * three ways to feed that kernel a managed input:
 *
 *   first touch   the CPU writes the input, the kernel runs: the pages fault in as it reads
 *   prefetch      the CPU writes the input, cudaMemPrefetchAsync moves it, the kernel runs
 *   advised       as prefetch, with a cudaMemAdvise on the input before the CPU writes it
 *
 * and afterwards brings the output back to the host the same two ways (the CPU's own faults, or a
 * prefetch to the host) before the CPU checks it. Handout 09, task 7, says what to measure.
 *
 * Build and run (any directory; nvcc 12.2 or newer, for the cudaMemLocation prefetch):
 *   nvcc -O2 -o prefetch labs/09_unified_memory/host_task/prefetch.cu
 *   ./prefetch            (128 MiB)     ./prefetch 512     (512 MiB)
 *
 * Until you fill in the TODOs the program runs, and says which step it is missing.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../labs/09_unified_memory/kernels.cu" /* the reference solution's kernels */

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t status_ = (call);                                                            \
        if (status_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                        \
                    cudaGetErrorString(status_));                                                \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

/* The managed input and output of one run: a fresh allocation each time, as the lab program's
 * managed variants have, so that no page starts where an earlier run left it. */
typedef struct {
    float *in, *out;
    size_t n;
} buffers;

static buffers allocate(size_t n)
{
    buffers b = {NULL, NULL, n};
    CHECK(cudaMallocManaged(&b.in, n * sizeof(float), cudaMemAttachGlobal));
    CHECK(cudaMallocManaged(&b.out, n * sizeof(float), cudaMemAttachGlobal));

    if (b.in == NULL || b.out == NULL) {
        fprintf(stderr, "TODO 1: allocate() returned no managed memory\n");
        exit(2);
    }
    return b;
}

static void release(buffers *b)
{
    CHECK(cudaFree(b->in));
    CHECK(cudaFree(b->out));

    b->in = b->out = NULL;
}

/* Moves a managed range to the GPU (to_device) or to the host, in stream's order. */
static void prefetch(const void *pointer, size_t bytes, int to_device, int device,
                     cudaStream_t stream)
{
    // TODO 3: prefetch [pointer, pointer + bytes) with cudaMemPrefetchAsync. Since CUDA 13 the
    //         destination is a struct cudaMemLocation: which type and id name the GPU `device`,
    //         and which the host? Leave flags 0.
    struct cudaMemLocation where = {to_device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost,
                                    to_device ? device : 0};
    CHECK(cudaMemPrefetchAsync(pointer, bytes, where, 0, stream));
}

/* The grid scale_stream runs on: at most 8 blocks of 256 threads per SM, as in the lab program,
 * so that the grid-stride loop of your kernel is what walks the input. */
static unsigned blocks_for(size_t n, int device)
{
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    size_t wanted = (n + 255) / 256, most = (size_t)sms * 8;
    return (unsigned)(wanted < most ? wanted : most);
}

typedef enum { FIRST_TOUCH, PREFETCH, ADVISED } way;
static const char *way_name[] = {"first touch", "prefetch", "advised"};

/* One run: a new allocation, the CPU writes the input, then the timed part: (prefetch and)
 * kernel. Then the output comes back to the host (prefetched or not) and the CPU checks it,
 * reading the input and the output. Returns the milliseconds of the timed part; *check_ms gets
 * the time of the CPU's check, its page faults included. */
static float run(way how, size_t n, int device, int prefetch_back, float *check_ms)
{
    buffers b = allocate(n);
    size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    if (how == ADVISED) {
        // TODO 4: before the CPU writes the input, advise the driver that the GPU `device` will
        //         mostly read it (cudaMemAdvise; which advice, and which cudaMemLocation?).
        //         Predict first: should it change the timed part, the check, or neither?
        struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, device};
        CHECK(cudaMemAdvise(b.in, bytes, cudaMemAdviseSetReadMostly, gpu));
    }
    for (size_t i = 0; i < n; i++)
        b.in[i] = (float)(i % 1000) * 0.5f;

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    if (how != FIRST_TOUCH)
        prefetch(b.in, bytes, 1, device, stream);
    scale_stream<<<blocks_for(n, device), 256, 0, stream>>>(b.in, n, b.out);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop, stream));
    if (prefetch_back)
        prefetch(b.out, bytes, 0, device, stream);
    CHECK(cudaStreamSynchronize(stream));

    /* The CPU reads the input and the output: each page that is not on the host faults back. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (b.out[i] != 2.0f * b.in[i] + 1.0f)
            wrong++;
    clock_gettime(CLOCK_MONOTONIC, &t1);

    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    *check_ms = (float)((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    if (wrong > 0)
        fprintf(stderr, "%s: %zu of %zu outputs wrong (is your scale_stream written?)\n",
                way_name[how], wrong, n);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    release(&b);
    return ms;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 128;
    if (mib == 0 || mib > 65536) {
        fprintf(stderr, "usage: prefetch [MiB of input, 1 to 65536]\n");
        return 2;
    }
    size_t n = mib * 1024 * 1024 / sizeof(float);
    int device = 0;
    CHECK(cudaSetDevice(device));
    int managed = 0;
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, device));
    if (!managed)
        fprintf(stderr, "note: this GPU or system has no concurrent managed access: prefetches "
                        "and advice may do nothing here (handout 09, \"What this lab assumes\")\n");

    float ignored;
    run(PREFETCH, n, device, 1, &ignored); /* a warm-up: the context, the kernel's first load */
    printf("%zu MiB of input (n = %zu)\n", mib, n);
    printf("%-12s %14s %18s %26s\n", "way", "timed ms", "CPU check ms",
           "CPU check ms, out prefetched");
    for (int how = FIRST_TOUCH; how <= ADVISED; how++) {
        float check_faulting, check_prefetched;
        float ms = run((way)how, n, device, 0, &check_faulting);
        run((way)how, n, device, 1, &check_prefetched);
        printf("%-12s %14.3f %18.3f %26.3f\n", way_name[how], ms, check_faulting, check_prefetched);
    }
    return 0;
}
