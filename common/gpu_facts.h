/* gpu_facts.h: what the access model must know of a GPU beyond one warp's access: how many SMs,
 * how many threads each holds, how large the L2, how many bytes an L2 miss reads from DRAM.
 *
 * A run on a GPU takes the SM count and L2 size from the runtime (cudaDeviceProp) and the rest
 * from the table of known GPUs (matched by name); a GPU not in the table gets 32-byte fills, the
 * sector. `--model` predicts for the H100, or for `--gpu NAME`; each entry says where its
 * figures come from, and every report names the GPU its predictions are for.
 */
#ifndef MEMLAB_GPU_FACTS_H
#define MEMLAB_GPU_FACTS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;           /* --gpu NAME */
    const char *device_name;    /* a word of cudaDeviceProp.name that tells it ("H100") */
    int compute_major, compute_minor;
    int sm_count;
    /* Threads an SM holds at once (cudaDeviceProp.maxThreadsPerMultiProcessor), which bounds the
     * blocks of a wave: from the table, 2048 assumed for a GPU not in it. */
    int threads_per_sm;
    double l2_bytes;
    /* The SM's unified L1 data cache and shared memory, in bytes (what a kernel that asks for no
     * shared memory can use as L1): the runtime does not report it, so it comes from the table
     * (NVIDIA's published figures), 128 KiB assumed for a GPU not in it. */
    double l1_bytes;
    /* Bytes an L2 miss reads from DRAM: 64 (two sectors) where measured so, else the 32-byte
     * sector. */
    unsigned dram_fill_bytes;
    const char *source;         /* where these figures come from */
} ml_gpu_facts;

/* The table's entry named NAME (h100, h200, a100, l4, t4, rtx4090; upper or lower case), or NULL. */
const ml_gpu_facts *ml_gpu_facts_named(const char *name);
/* The i-th entry of the table, NULL past its end. */
const ml_gpu_facts *ml_gpu_facts_at(int i);
/* The facts of the device the run found: the runtime's SM count and L2 size, the rest (threads
 * per SM, L1, DRAM fill) from the table entry whose device_name is a word of device_name
 * (32-byte fills if none is). */
ml_gpu_facts ml_gpu_facts_of_device(const char *device_name, int compute_major,
                                    int compute_minor, int sm_count, double l2_bytes);

/* The GPU the predictions of this run are for; the harness sets it before any prediction. */
void ml_model_gpu_set(const ml_gpu_facts *gpu);
const ml_gpu_facts *ml_model_gpu(void);

#ifdef __cplusplus
}
#endif

#endif
