/* gpu_facts.h: what the access model must know of a GPU beyond one warp's access: how many SMs,
 * how many threads each holds, how large the L2, how many bytes an L2 miss reads from DRAM, what
 * else a launch reads from DRAM, how much of a kernel's output the L2 still holds when it ends.
 *
 * A run on a GPU takes the SM count and L2 size from the runtime (cudaDeviceProp), the DRAM fill
 * from the driver's L2 fetch granularity (cudaLimitMaxL2FetchGranularity, read at run time:
 * ml_gpu_facts_set_fetch_granularity), and the rest from, first found first: a profile of the
 * device that ./memlab calibrate wrote (gpu_profile.h; its L1, L2, threads per SM and fill), the
 * table of known GPUs (matched by name; MEMLAB_GPU_TABLE=off leaves it out), the defaults.
 * `--model` predicts for the H100, for `--gpu NAME`, or for `--gpu-profile FILE`, with the
 * table's (or the profile's) fill; each entry says where its figures come from, and every
 * report names the GPU its predictions are for and the source of its facts (model_gpu.source).
 */
#ifndef MEMLAB_GPU_FACTS_H
#define MEMLAB_GPU_FACTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a GPU's facts come from: memlab's table, a profile (./memlab calibrate's), or the
 * defaults for a GPU neither knows. */
typedef enum { ML_FACTS_TABLE, ML_FACTS_PROFILE, ML_FACTS_DEFAULTS } ml_facts_origin;

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
    /* Bytes an L2 miss reads from DRAM: the L2's fetch granularity, a driver setting
     * (cudaLimitMaxL2FetchGranularity), not a constant of the GPU. The table holds the driver's
     * default where measured (64 on the H100 and H200: two sectors), else the 32-byte sector; a
     * run on a GPU reads the setting (ml_dram_fills_of_limit). dram_fill_high_bytes is
     * dram_fill_bytes, or more for a setting between 64 and 128 bytes, which no run has
     * measured: a range of fills, from dram_fill_bytes to it. */
    unsigned dram_fill_bytes;
    unsigned dram_fill_high_bytes;
    /* What every launch reads from DRAM besides its data, its machine code and its constant bank
     * (ml_predict_dram_reads, memlab.h): page-table walks and the like after the L2 flush, a
     * range, and up to dram_floor_page_bytes more for each 2 MiB page the launch touches. */
    double dram_floor_low_bytes, dram_floor_high_bytes, dram_floor_page_bytes;
    /* The dirty bytes the L2 still holds when a kernel that writes more than that ends (it writes
     * a dirty line back to DRAM only when it evicts it), low and high; 0 and 0: not measured
     * (ml_predict_dram_writes, memlab.h). */
    double l2_dirty_low_bytes, l2_dirty_high_bytes;
    /* The L2's bytes of 128-byte lines that a kernel's traffic (the lines its DRAM reads fill and
     * its output) can pass through before the L2 evicts any: low and high, as shares of l2_bytes.
     * Past them the dirty lines the L2 keeps are at most this capacity's share of the output in
     * the traffic. 0 and 0 where l2_dirty is not measured. */
    double l2_traffic_low_share, l2_traffic_high_share;
    const char *source;         /* where these figures come from */
    ml_facts_origin origin;     /* ML_FACTS_TABLE (0) in the table */
} ml_gpu_facts;

/* The table's entry named NAME (h100, h200, a100, l4, t4, rtx4090; upper or lower case), or NULL. */
const ml_gpu_facts *ml_gpu_facts_named(const char *name);
/* The i-th entry of the table, NULL past its end. */
const ml_gpu_facts *ml_gpu_facts_at(int i);
/* The facts of the device the run found: the runtime's SM count and L2 size, the rest (threads
 * per SM, L1, DRAM fill, the DRAM floor and the dirty L2) from the table entry whose device_name
 * is a word of device_name (32-byte fills, and none of the measured figures, if none is, or if
 * MEMLAB_GPU_TABLE=off); then a profile of the device, where one is found (gpu_profile.h), puts
 * its figures over them (the L2 too: the size that hits, as measured). A profile that cannot be
 * used is said on stderr, one line, and left out. The source names where each came from. */
ml_gpu_facts ml_gpu_facts_of_device(const char *device_name, int compute_major,
                                    int compute_minor, int sm_count, double l2_bytes);
/* The DRAM fills of an L2 fetch granularity of `limit` bytes (cudaLimitMaxL2FetchGranularity, a
 * hint to the driver, 0 to 128): the 32-byte sector below 64, 64 bytes from 64, 128 bytes at 128
 * (a whole line), and a range from 64 to 128 bytes between them, not measured. Measured on an
 * H200, a gather of one float every 68 bytes read 64 bytes an element at 64 (268.4 MB of
 * 4,194,304 elements), 32 at 32 (134.2 MB) and at 128 the 128-byte lines of its whole span,
 * 68 bytes an element (285 MB; 4.5635 GB of 67,108,864 elements, within 0.01%): the fills the
 * setting asks for. 0 (the driver said nothing) leaves the fills as they are. */
void ml_dram_fills_of_limit(unsigned limit, unsigned *fill_bytes, unsigned *fill_high_bytes);
/* Sets a device's fills from the fetch granularity the driver reports (the harness, at run
 * time). */
void ml_gpu_facts_set_fetch_granularity(ml_gpu_facts *facts, size_t limit);

/* The GPU the predictions of this run are for; the harness sets it before any prediction. */
void ml_model_gpu_set(const ml_gpu_facts *gpu);
const ml_gpu_facts *ml_model_gpu(void);

#ifdef __cplusplus
}
#endif

#endif
