/* access_model.c: sectors, lines, wavefronts and bank conflicts of one warp-wide access.
 *
 * Everything here is counting distinct things: distinct sectors and lines for global memory,
 * distinct words per bank for shared memory. A warp has 32 lanes, so plain arrays and linear
 * searches are all it takes.
 */
#include "access_model.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>

/* The GPU only issues naturally aligned 1-, 2-, 4-, 8- and 16-byte accesses (anything else
 * faults with "misaligned address"), so the model accepts nothing else either. Because of
 * this, one lane never straddles a sector, a line or more than width/4 words. */
static inline bool is_valid_width(unsigned width_bytes)
{
    return width_bytes == 1 || width_bytes == 2 || width_bytes == 4 || width_bytes == 8 ||
           width_bytes == 16;
}

static bool lane_is_active(const ml_warp_access *access, unsigned lane)
{
    return (access->active_mask >> lane) & 1u;
}

/* Adds value to the set values[0..*count) unless it is already there. */
static void add_distinct(uint64_t *values, unsigned *count, uint64_t value)
{
    for (unsigned i = 0; i < *count; i++) {
        if (values[i] == value) {
            return;
        }
    }
    values[*count] = value;
    (*count)++;
}

void ml_warp_access_strided(ml_warp_access *access, uint64_t base, int64_t stride_bytes,
                            unsigned width_bytes, uint32_t active_mask)
{
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
        /* Unsigned arithmetic wraps, so a negative stride steps down from base as expected. */
        access->address[lane] = base + (uint64_t)((int64_t)lane * stride_bytes);
    }
    access->active_mask = active_mask;
    access->width_bytes = width_bytes;
}

ml_global_cost ml_model_global(const ml_warp_access *access)
{
    assert(is_valid_width(access->width_bytes));

    uint64_t sectors[ML_WARP_SIZE];
    uint64_t lines[ML_WARP_SIZE];
    uint64_t addresses[ML_WARP_SIZE];
    unsigned sector_count = 0;
    unsigned line_count = 0;
    unsigned address_count = 0;
    unsigned active_lanes = 0;

    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
        if (!lane_is_active(access, lane)) {
            continue;
        }
        uint64_t address = access->address[lane];
        assert(address % access->width_bytes == 0);
        add_distinct(sectors, &sector_count, address / ML_SECTOR_BYTES);
        add_distinct(lines, &line_count, address / ML_LINE_BYTES);
        /* Accesses are aligned and of one width, so distinct addresses never overlap. */
        add_distinct(addresses, &address_count, address);
        active_lanes++;
    }

    ml_global_cost cost = {
        .requests = active_lanes > 0 ? 1 : 0,
        .sectors = sector_count,
        .lines = line_count,
        .used_bytes = address_count * access->width_bytes,
    };
    return cost;
}

/* Wavefronts of one phase: lanes first_lane .. first_lane + lane_count - 1. Each bank delivers
 * one word per wavefront, so the phase takes as many wavefronts as the busiest bank has
 * distinct words. Returns 0 when no lane of the phase is active. */
static unsigned phase_wavefronts(const ml_warp_access *access, unsigned first_lane,
                                 unsigned lane_count)
{
    /* A phase moves at most 128 bytes: 32 words. */
    uint64_t words[ML_WARP_SIZE];
    unsigned word_count = 0;
    unsigned words_per_lane = access->width_bytes >= ML_BANK_BYTES
                                  ? access->width_bytes / ML_BANK_BYTES
                                  : 1;

    for (unsigned lane = first_lane; lane < first_lane + lane_count; lane++) {
        if (!lane_is_active(access, lane)) {
            continue;
        }
        uint64_t address = access->address[lane];
        assert(address % access->width_bytes == 0);
        /* Lanes reading the same word share it (broadcast), so only distinct words count. */
        uint64_t first_word = address / ML_BANK_BYTES;
        for (unsigned w = 0; w < words_per_lane; w++) {
            add_distinct(words, &word_count, first_word + w);
        }
    }

    unsigned words_in_bank[ML_SHARED_BANKS] = {0};
    unsigned busiest_bank_words = 0;
    for (unsigned i = 0; i < word_count; i++) {
        unsigned bank = (unsigned)(words[i] % ML_SHARED_BANKS);
        words_in_bank[bank]++;
        if (words_in_bank[bank] > busiest_bank_words) {
            busiest_bank_words = words_in_bank[bank];
        }
    }
    return busiest_bank_words;
}

/* 1 if every lane reads what its partner lane ^ partner_xor reads, or one of the two is
 * inactive: the lanes pair up on equal addresses. */
static int lanes_pair_up(const ml_warp_access *access, unsigned partner_xor)
{
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
        unsigned partner = lane ^ partner_xor;
        if (lane_is_active(access, lane) && lane_is_active(access, partner) &&
            access->address[lane] != access->address[partner])
            return 0;
    }
    return 1;
}

ml_shared_cost ml_model_shared(const ml_warp_access *access)
{
    assert(is_valid_width(access->width_bytes));

    /* 8- and 16-byte accesses are served in phases of 128 bytes: 16 or 8 lanes each. Measured
     * on an H200 (tests/gpu/test_shared_widths.c, 126 patterns of 8- and 16-byte loads): when
     * the lanes of the whole warp pair up on equal addresses, lane n with lane n ^ 1 or lane n
     * with lane n ^ 2, a phase takes twice the lanes (32 or 16), since each pair needs one
     * lane's bytes; pairs at n ^ 4 or further do not count, nor pairs in only part of the warp.
     * Nsight Compute counts conflicts against the ideal of the phases so formed. */
    unsigned lanes_per_phase = access->width_bytes <= ML_BANK_BYTES
                                   ? ML_WARP_SIZE
                                   : ML_SHARED_BANKS * ML_BANK_BYTES / access->width_bytes;
    if (lanes_per_phase < ML_WARP_SIZE && (lanes_pair_up(access, 1) || lanes_pair_up(access, 2)))
        lanes_per_phase *= 2;

    ml_shared_cost cost = {0};
    unsigned active_phases = 0;
    for (unsigned first_lane = 0; first_lane < ML_WARP_SIZE; first_lane += lanes_per_phase) {
        unsigned wavefronts = phase_wavefronts(access, first_lane, lanes_per_phase);
        if (wavefronts > 0) {
            active_phases++;
            cost.wavefronts += wavefronts;
        }
    }

    cost.requests = active_phases > 0 ? 1 : 0;
    /* The ideal is one wavefront per phase that has work to do. */
    cost.bank_conflicts = cost.wavefronts - active_phases;
    return cost;
}

uint32_t ml_first_lanes(uint64_t count)
{
    return count >= ML_WARP_SIZE ? ML_ALL_LANES : (1u << count) - 1;
}

long long ml_ceil_div(long long a, long long b)
{
    assert(a >= 0 && b > 0);
    return (a + b - 1) / b;
}

void ml_global_totals_add(ml_global_totals *totals, const ml_warp_access *access, double repeat)
{
    ml_global_cost cost = ml_model_global(access);
    totals->requests += repeat * cost.requests;
    totals->sectors += repeat * cost.sectors;
    totals->used_bytes += repeat * cost.used_bytes;
}

void ml_global_totals_add_scaled(ml_global_totals *totals, const ml_global_totals *group,
                                 double repeat)
{
    totals->requests += repeat * group->requests;
    totals->sectors += repeat * group->sectors;
    totals->used_bytes += repeat * group->used_bytes;
}

double ml_efficiency_pct(const ml_global_totals *totals)
{
    if (totals->sectors == 0)
        return NAN;
    return 100.0 * totals->used_bytes / (totals->sectors * ML_SECTOR_BYTES);
}

double ml_sectors_per_request(const ml_global_totals *totals)
{
    if (totals->requests == 0)
        return NAN;
    return totals->sectors / totals->requests;
}

void ml_shared_totals_add(ml_shared_totals *totals, const ml_warp_access *access, double repeat)
{
    ml_shared_cost cost = ml_model_shared(access);
    totals->requests += repeat * cost.requests;
    totals->wavefronts += repeat * cost.wavefronts;
    totals->bank_conflicts += repeat * cost.bank_conflicts;
}
