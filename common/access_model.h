/* access_model.h: what one warp-wide memory instruction costs, predicted on the host.
 *
 * Global and local memory are served in 32-byte sectors grouped into 128-byte lines: a warp's
 * request costs one sector for every distinct 32-byte sector its active lanes touch.
 *
 * Shared memory has 32 banks, each 4 bytes wide; bank b holds the words whose byte offset
 * satisfies (offset / 4) % 32 == b. One wavefront serves at most one word per bank, so a warp's
 * request takes as many wavefronts as the most distinct words any one bank must deliver
 * (lanes reading the same word share it: broadcast; a 1- or 2-byte access reads the word that
 * holds it, an 8- or 16-byte access 2 or 4 consecutive words). 8- and 16-byte accesses are
 * served in phases of 128 bytes, 16 and 8 lanes (lanes 0-15 then 16-31, or lanes 0-7, 8-15,
 * ...), each phase costing its own wavefronts; when every lane of the warp reads what lane
 * n ^ 1 reads (or lane n ^ 2; an inactive partner counts as agreeing), a phase takes twice
 * the lanes (measured on an H200: a 16-byte broadcast to a whole warp is 2 wavefronts, an
 * 8-byte one 1). Bank conflicts are the wavefronts beyond the ideal (one per phase that has an
 * active lane).
 *
 * The labs run this model over the warps of a launch to predict the hardware counters.
 */
#ifndef MEMLAB_ACCESS_MODEL_H
#define MEMLAB_ACCESS_MODEL_H

#include <stdint.h>

#define ML_WARP_SIZE 32
#define ML_SECTOR_BYTES 32
#define ML_LINE_BYTES 128
#define ML_SHARED_BANKS 32
#define ML_BANK_BYTES 4
#define ML_ALL_LANES 0xffffffffu

#ifdef __cplusplus
extern "C" {
#endif

/* One warp-wide access: a byte address per lane, which lanes take part, bytes per lane
 * (1, 2, 4, 8 or 16; each active lane's address a multiple of the width, as the GPU requires:
 * the model asserts both). Addresses of inactive lanes are ignored. For shared memory the
 * address is the byte offset into shared memory. */
typedef struct {
    uint64_t address[ML_WARP_SIZE];
    uint32_t active_mask;
    unsigned width_bytes;
} ml_warp_access;

typedef struct {
    unsigned requests;          /* 1 if any lane is active, else 0 */
    unsigned sectors;           /* distinct 32-byte sectors touched */
    unsigned lines;             /* distinct 128-byte lines touched */
    unsigned used_bytes;        /* distinct bytes the active lanes read or write: lanes that
                                   share an address count once */
} ml_global_cost;

typedef struct {
    unsigned requests;          /* 1 if any lane is active, else 0 */
    unsigned wavefronts;        /* passes through the banks */
    unsigned bank_conflicts;    /* wavefronts beyond the ideal */
} ml_shared_cost;

/* The address of lane i is base + i * stride_bytes: the common case, for building accesses.
 * The stride may be 0 (every lane the same address) or negative (addresses must stay >= 0). */
void ml_warp_access_strided(ml_warp_access *access, uint64_t base, int64_t stride_bytes,
                            unsigned width_bytes, uint32_t active_mask);

ml_global_cost ml_model_global(const ml_warp_access *access);
ml_shared_cost ml_model_shared(const ml_warp_access *access);

/* Lanes 0 .. count - 1: all 32 from count 32 on (a warp's active lanes at the end of an array). */
uint32_t ml_first_lanes(uint64_t count);

/* a / b rounded up (a >= 0, b > 0): blocks, tiles and phases that cover a size. */
long long ml_ceil_div(long long a, long long b);

/* Global/local counter totals over a launch, in doubles: a large launch has billions of
 * sectors, more than the 32-bit counts of one warp's cost can hold. */
typedef struct {
    double requests, sectors, used_bytes;
} ml_global_totals;

/* Adds repeat warps with this access's cost to the totals. */
void ml_global_totals_add(ml_global_totals *totals, const ml_warp_access *access, double repeat);
/* Adds repeat times the totals of a group of warps (a tile, a block) to the totals. */
void ml_global_totals_add_scaled(ml_global_totals *totals, const ml_global_totals *group,
                                 double repeat);

/* Load or store efficiency in percent, as Nsight Compute's
 * smsp__sass_average_data_bytes_per_sector_mem_global_op_{ld,st}.pct counts it: bytes used per
 * byte of the sectors moved (100 for perfectly coalesced, 12.5 for one float per sector). Bytes
 * are counted once however many lanes read them: 32 lanes reading one float use 4 bytes of one
 * sector, 12.5% (read off an H200; nvprof's gld_efficiency counted such a broadcast per lane and
 * could exceed 100%). NAN when no sector was moved. */
double ml_efficiency_pct(const ml_global_totals *totals);
/* Sectors per request (gld_transactions_per_request): NAN when there was no request. */
double ml_sectors_per_request(const ml_global_totals *totals);

/* Shared-memory counter totals over a launch, in doubles. */
typedef struct {
    double requests, wavefronts, bank_conflicts;
} ml_shared_totals;

/* Adds repeat warps with this shared-memory access's cost to the totals. */
void ml_shared_totals_add(ml_shared_totals *totals, const ml_warp_access *access, double repeat);

#ifdef __cplusplus
}
#endif

#endif
