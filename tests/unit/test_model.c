/* test_model.c: the access model against counts worked out by hand.
 *
 * Global memory: 32-byte sectors, 128-byte lines. Shared memory: 32 banks of 4 bytes, word w in
 * bank w % 32; 8-byte accesses in 2 phases of 16 lanes, 16-byte accesses in 4 phases of 8 lanes,
 * each phase twice as wide when the warp's lanes pair up on equal addresses (lane n with n ^ 1,
 * or with n ^ 2): the rule tests/gpu/test_shared_widths.c measured on an H200.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <cmocka.h>

#include "access_model.h"

#define FLOAT_BYTES 4
#define DOUBLE_BYTES 8
#define FLOAT4_BYTES 16
#define TILE 32

/* A 128-byte-aligned base address, well away from 0. */
#define ALIGNED_BASE 4096u

static unsigned gcd(unsigned a, unsigned b)
{
    while (b != 0) {
        unsigned remainder = a % b;
        a = b;
        b = remainder;
    }
    return a;
}

static ml_global_cost global_strided(int64_t stride_bytes, unsigned width_bytes, uint32_t mask)
{
    ml_warp_access access;
    ml_warp_access_strided(&access, ALIGNED_BASE, stride_bytes, width_bytes, mask);
    return ml_model_global(&access);
}

static ml_shared_cost shared_strided(int64_t stride_bytes, unsigned width_bytes, uint32_t mask)
{
    ml_warp_access access;
    ml_warp_access_strided(&access, 0, stride_bytes, width_bytes, mask);
    return ml_model_shared(&access);
}

/* The efficiency the labs compute: one warp's cost as totals. */
static double cost_efficiency_pct(ml_global_cost cost)
{
    ml_global_totals totals = {cost.requests, cost.sectors, cost.used_bytes};
    return ml_efficiency_pct(&totals);
}

/* ---- building accesses ------------------------------------------------------------------ */

static void test_strided_builder(void **state)
{
    (void)state;
    ml_warp_access access;

    ml_warp_access_strided(&access, 1000, 8, DOUBLE_BYTES, 0x0000ffffu);
    assert_int_equal(access.address[0], 1000);
    assert_int_equal(access.address[31], 1000 + 31 * 8);
    assert_int_equal(access.active_mask, 0x0000ffffu);
    assert_int_equal(access.width_bytes, DOUBLE_BYTES);

    /* Zero stride: every lane at base. Negative stride: lane 31 lowest. */
    ml_warp_access_strided(&access, 1000, 0, FLOAT_BYTES, ML_ALL_LANES);
    assert_int_equal(access.address[31], 1000);
    ml_warp_access_strided(&access, 1000, -4, FLOAT_BYTES, ML_ALL_LANES);
    assert_int_equal(access.address[1], 996);
    assert_int_equal(access.address[31], 1000 - 31 * 4);
}

/* ---- global memory ----------------------------------------------------------------------- */

/* Lane i reads float i * s. A sector holds 8 floats, so for s <= 8 the warp spans 32 * s floats
 * = 4 * s sectors, each touched; from s = 8 on, every lane has a sector of its own: 32. */
static void test_global_float_stride_1_to_32(void **state)
{
    (void)state;
    for (unsigned stride = 1; stride <= 32; stride++) {
        ml_global_cost cost = global_strided(stride * FLOAT_BYTES, FLOAT_BYTES, ML_ALL_LANES);
        unsigned expected_sectors = stride <= 8 ? 4 * stride : 32;
        /* The warp spans 32 * s floats = s lines; from s = 32 on, a line per lane. */
        unsigned expected_lines = stride;

        assert_int_equal(cost.requests, 1);
        assert_int_equal(cost.sectors, expected_sectors);
        assert_int_equal(cost.lines, expected_lines);
        assert_int_equal(cost.used_bytes, 32 * FLOAT_BYTES);
        assert_float_equal(cost_efficiency_pct(cost), 100.0 * 128 / (expected_sectors * 32.0),
                           1e-9);
    }
}

/* The numbers Nsight Compute read on an H200 (GH100, CUDA 13.0) for these patterns. */
static void test_global_float_stride_efficiency(void **state)
{
    (void)state;
    const unsigned strides[] = {1, 2, 4, 8, 16, 32};
    const double efficiency_pct[] = {100.0, 50.0, 25.0, 12.5, 12.5, 12.5};
    const unsigned sectors_per_request[] = {4, 8, 16, 32, 32, 32};

    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        ml_global_cost cost = global_strided(strides[i] * FLOAT_BYTES, FLOAT_BYTES, ML_ALL_LANES);
        assert_int_equal(cost.sectors, sectors_per_request[i]);
        assert_float_equal(cost_efficiency_pct(cost), efficiency_pct[i], 1e-9);
    }
}

/* Consecutive floats starting o floats past a 128-byte boundary: 128 bytes that start on a
 * sector boundary (o % 8 == 0) fill 4 sectors, otherwise they straddle 5; they fit one line
 * only when they start on a line boundary (o % 32 == 0). */
static void test_global_float_offset_0_to_32(void **state)
{
    (void)state;
    for (unsigned offset = 0; offset <= 32; offset++) {
        ml_warp_access access;
        ml_warp_access_strided(&access, ALIGNED_BASE + offset * FLOAT_BYTES, FLOAT_BYTES,
                               FLOAT_BYTES, ML_ALL_LANES);
        ml_global_cost cost = ml_model_global(&access);

        assert_int_equal(cost.sectors, offset % 8 == 0 ? 4 : 5);
        assert_int_equal(cost.lines, offset % 32 == 0 ? 1 : 2);
        assert_int_equal(cost.used_bytes, 128);
    }
}

/* Every lane reads the same float: 1 sector moved, 4 distinct bytes used, 12.5% (the counter
 * counts a byte once however many lanes read it; measured on an H200). */
static void test_global_same_address(void **state)
{
    (void)state;
    ml_global_cost cost = global_strided(0, FLOAT_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.requests, 1);
    assert_int_equal(cost.sectors, 1);
    assert_int_equal(cost.lines, 1);
    assert_int_equal(cost.used_bytes, 4);
    assert_float_equal(cost_efficiency_pct(cost), 12.5, 1e-9);
}

/* 32 lanes x 16 bytes = 512 bytes: 16 sectors, 4 lines, all of it used. */
static void test_global_float4_coalesced(void **state)
{
    (void)state;
    ml_global_cost cost = global_strided(FLOAT4_BYTES, FLOAT4_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.sectors, 16);
    assert_int_equal(cost.lines, 4);
    assert_int_equal(cost.used_bytes, 512);
    assert_float_equal(cost_efficiency_pct(cost), 100.0, 1e-9);
}

/* 32 lanes x 8 bytes = 256 bytes: 8 sectors, 2 lines. */
static void test_global_double_coalesced(void **state)
{
    (void)state;
    ml_global_cost cost = global_strided(DOUBLE_BYTES, DOUBLE_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.sectors, 8);
    assert_int_equal(cost.lines, 2);
    assert_int_equal(cost.used_bytes, 256);
    assert_float_equal(cost_efficiency_pct(cost), 100.0, 1e-9);
}

static void test_global_inactive_lanes(void **state)
{
    (void)state;

    /* Lanes 0-15 read 64 consecutive bytes: 2 sectors, still 100%. */
    ml_global_cost half = global_strided(FLOAT_BYTES, FLOAT_BYTES, 0x0000ffffu);
    assert_int_equal(half.requests, 1);
    assert_int_equal(half.sectors, 2);
    assert_int_equal(half.lines, 1);
    assert_int_equal(half.used_bytes, 64);
    assert_float_equal(cost_efficiency_pct(half), 100.0, 1e-9);

    /* No lane: no request, nothing moved. */
    ml_global_cost none = global_strided(FLOAT_BYTES, FLOAT_BYTES, 0);
    assert_int_equal(none.requests, 0);
    assert_int_equal(none.sectors, 0);
    assert_int_equal(none.lines, 0);
    assert_int_equal(none.used_bytes, 0);
    assert_true(isnan(cost_efficiency_pct(none)));

    /* One lane (lane 5): 4 bytes out of a 32-byte sector. */
    ml_global_cost one = global_strided(FLOAT_BYTES, FLOAT_BYTES, 1u << 5);
    assert_int_equal(one.requests, 1);
    assert_int_equal(one.sectors, 1);
    assert_int_equal(one.lines, 1);
    assert_int_equal(one.used_bytes, 4);
    assert_float_equal(cost_efficiency_pct(one), 12.5, 1e-9);
}

/* The address of an inactive lane does not count, however far away it is. */
static void test_global_inactive_lane_address_ignored(void **state)
{
    (void)state;
    ml_warp_access access;
    ml_warp_access_strided(&access, ALIGNED_BASE, FLOAT_BYTES, FLOAT_BYTES, 0x7fffffffu);
    access.address[31] = 1u << 30;
    ml_global_cost cost = ml_model_global(&access);
    assert_int_equal(cost.sectors, 4);
    assert_int_equal(cost.lines, 1);
}

static void test_global_totals_add(void **state)
{
    (void)state;
    ml_global_totals total = {0};
    ml_warp_access coalesced, strided;
    ml_warp_access_strided(&coalesced, ALIGNED_BASE, FLOAT_BYTES, FLOAT_BYTES, ML_ALL_LANES);
    ml_warp_access_strided(&strided, ALIGNED_BASE, 8 * FLOAT_BYTES, FLOAT_BYTES, ML_ALL_LANES);

    ml_global_totals_add(&total, &coalesced, 2.0);
    ml_global_totals_add(&total, &strided, 1.0);

    assert_float_equal(total.requests, 3, 0);
    assert_float_equal(total.sectors, 4 + 4 + 32, 0);
    assert_float_equal(total.used_bytes, 3 * 128, 0);
    /* 384 bytes requested from 40 sectors of 32 bytes = 30%; 40 sectors over 3 requests. */
    assert_float_equal(ml_efficiency_pct(&total), 30.0, 1e-9);
    assert_float_equal(ml_sectors_per_request(&total), 40.0 / 3.0, 1e-12);

    /* A group of warps (a tile) added five times. */
    ml_global_totals launch = {0};
    ml_global_totals_add_scaled(&launch, &total, 5.0);
    assert_float_equal(launch.requests, 15, 0);
    assert_float_equal(launch.sectors, 200, 0);
    assert_float_equal(launch.used_bytes, 1920, 0);

    /* Nothing moved: no efficiency and no sectors per request, rather than a made-up 0. */
    ml_global_totals nothing = {0};
    assert_true(isnan(ml_efficiency_pct(&nothing)));
    assert_true(isnan(ml_sectors_per_request(&nothing)));
}

static void test_lanes_and_ceil_div(void **state)
{
    (void)state;
    assert_int_equal(ml_first_lanes(0), 0);
    assert_int_equal(ml_first_lanes(1), 1);
    assert_int_equal(ml_first_lanes(5), 0x1f);
    assert_int_equal(ml_first_lanes(31), 0x7fffffffu);
    assert_int_equal(ml_first_lanes(32), ML_ALL_LANES);
    assert_int_equal(ml_first_lanes(1000), ML_ALL_LANES);
    assert_int_equal(ml_ceil_div(0, 32), 0);
    assert_int_equal(ml_ceil_div(1, 32), 1);
    assert_int_equal(ml_ceil_div(32, 32), 1);
    assert_int_equal(ml_ceil_div(33, 32), 2);
    assert_int_equal(ml_ceil_div(4099, 16), 257);
}

/* ---- shared memory ----------------------------------------------------------------------- */

/* Lane i reads word i * s: bank (i * s) % 32. Exactly gcd(s, 32) lanes land on each bank used,
 * all on distinct words, so the warp needs gcd(s, 32) wavefronts. */
static void test_shared_word_stride_1_to_32(void **state)
{
    (void)state;
    for (unsigned stride = 1; stride <= 32; stride++) {
        ml_shared_cost cost = shared_strided(stride * FLOAT_BYTES, FLOAT_BYTES, ML_ALL_LANES);
        assert_int_equal(cost.requests, 1);
        assert_int_equal(cost.wavefronts, gcd(stride, 32));
        assert_int_equal(cost.bank_conflicts, gcd(stride, 32) - 1);
    }
}

/* All lanes read one word: broadcast, no conflict. */
static void test_shared_broadcast(void **state)
{
    (void)state;
    ml_shared_cost cost = shared_strided(0, FLOAT_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.requests, 1);
    assert_int_equal(cost.wavefronts, 1);
    assert_int_equal(cost.bank_conflicts, 0);
}

/* Lanes 2k and 2k + 1 read word k * 32 + k: 16 distinct words in 16 distinct banks, each word
 * shared by two lanes, so 1 wavefront. Then the same pairs on words 32 * k: all in bank 0,
 * 16 distinct words, 16 wavefronts (not 32: each pair still shares its word). */
static void test_shared_pairs_share_words(void **state)
{
    (void)state;
    ml_warp_access access;
    ml_warp_access_strided(&access, 0, 0, FLOAT_BYTES, ML_ALL_LANES);

    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
        unsigned pair = lane / 2;
        access.address[lane] = (uint64_t)(pair * 32 + pair) * FLOAT_BYTES;
    }
    ml_shared_cost spread = ml_model_shared(&access);
    assert_int_equal(spread.wavefronts, 1);
    assert_int_equal(spread.bank_conflicts, 0);

    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
        unsigned pair = lane / 2;
        access.address[lane] = (uint64_t)(pair * 32) * FLOAT_BYTES;
    }
    ml_shared_cost same_bank = ml_model_shared(&access);
    assert_int_equal(same_bank.wavefronts, 16);
    assert_int_equal(same_bank.bank_conflicts, 15);
}

/* Lane i reads tile[i][column]: the float at (i * row_floats + column). */
static void tile_column_read(ml_warp_access *access, unsigned row_floats, unsigned column)
{
    ml_warp_access_strided(access, column * FLOAT_BYTES, (int64_t)row_floats * FLOAT_BYTES,
                           FLOAT_BYTES, ML_ALL_LANES);
}

/* float tile[32][32] read down a column: every word in bank `column`, 32-way conflict. */
static void test_shared_tile_column(void **state)
{
    (void)state;
    for (unsigned column = 0; column < TILE; column++) {
        ml_warp_access access;
        tile_column_read(&access, TILE, column);
        ml_shared_cost cost = ml_model_shared(&access);
        assert_int_equal(cost.wavefronts, 32);
        assert_int_equal(cost.bank_conflicts, 31);
    }
}

/* float tile[32][33]: lane i is in bank (i * 33 + column) % 32 = (i + column) % 32, all distinct. */
static void test_shared_tile_column_padded(void **state)
{
    (void)state;
    for (unsigned column = 0; column < TILE; column++) {
        ml_warp_access access;
        tile_column_read(&access, TILE + 1, column);
        ml_shared_cost cost = ml_model_shared(&access);
        assert_int_equal(cost.wavefronts, 1);
        assert_int_equal(cost.bank_conflicts, 0);
    }
}

/* float tile[32][32], lane i reads tile[i][column ^ i]: bank column ^ i, distinct for distinct i. */
static void test_shared_tile_column_xor_swizzle(void **state)
{
    (void)state;
    for (unsigned column = 0; column < TILE; column++) {
        ml_warp_access access;
        ml_warp_access_strided(&access, 0, 0, FLOAT_BYTES, ML_ALL_LANES);
        for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++) {
            access.address[lane] = (uint64_t)(lane * TILE + (column ^ lane)) * FLOAT_BYTES;
        }
        ml_shared_cost cost = ml_model_shared(&access);
        assert_int_equal(cost.wavefronts, 1);
        assert_int_equal(cost.bank_conflicts, 0);
    }
}

/* Consecutive doubles: each phase of 16 lanes reads 128 bytes, one word per bank. */
static void test_shared_double_coalesced(void **state)
{
    (void)state;
    ml_shared_cost cost = shared_strided(DOUBLE_BYTES, DOUBLE_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.requests, 1);
    assert_int_equal(cost.wavefronts, 2);
    assert_int_equal(cost.bank_conflicts, 0);
}

/* Every other double (16-byte steps): in phase 0, lane i reads words 4i and 4i + 1, banks
 * (4i) % 32 and (4i + 1) % 32; lanes i and i + 8 land on the same two banks with different
 * words, so 2 wavefronts per phase: 4 in all, 2 beyond the ideal of one per phase. */
static void test_shared_double_stride_2(void **state)
{
    (void)state;
    ml_shared_cost cost = shared_strided(2 * DOUBLE_BYTES, DOUBLE_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.wavefronts, 4);
    assert_int_equal(cost.bank_conflicts, 2);
}

/* Consecutive float4s: 4 phases of 8 lanes x 16 bytes = 128 bytes, one word per bank. */
static void test_shared_float4_coalesced(void **state)
{
    (void)state;
    ml_shared_cost cost = shared_strided(FLOAT4_BYTES, FLOAT4_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.requests, 1);
    assert_int_equal(cost.wavefronts, 4);
    assert_int_equal(cost.bank_conflicts, 0);
}

/* One float4 read by every lane (a broadcast, as the tiled products read a row of Ms): the lanes
 * pair up, so 2 phases of 16 lanes, 1 wavefront each, as an H100 and an H200 count. */
static void test_shared_float4_broadcast(void **state)
{
    (void)state;
    ml_shared_cost cost = shared_strided(0, FLOAT4_BYTES, ML_ALL_LANES);
    assert_int_equal(cost.requests, 1);
    assert_int_equal(cost.wavefronts, 2);
    assert_int_equal(cost.bank_conflicts, 0);
}

/* Counts read off an H200 (tests/gpu/test_shared_widths.c). Lane l reads float4 number l / 8
 * (the coarsened product's M tile): the lanes pair up, 2 half-warp phases of 2 distinct
 * float4s, 2 wavefronts. Float4 number l % 8 (its N tile): no lane reads what lane l ^ 1 or
 * l ^ 2 reads, 4 quarter-warp phases, 4 wavefronts. Float4 number (l / 8) * 8: paired, and each
 * half's two float4s lie in banks 0-3: 2 wavefronts a phase, 4 in all, 2 conflicts. */
static void test_shared_float4_pairs(void **state)
{
    (void)state;
    ml_warp_access access;
    ml_warp_access_strided(&access, 0, 0, FLOAT4_BYTES, ML_ALL_LANES);
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access.address[lane] = (uint64_t)(lane / 8) * FLOAT4_BYTES;
    assert_int_equal(ml_model_shared(&access).wavefronts, 2);

    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access.address[lane] = (uint64_t)(lane % 8) * FLOAT4_BYTES;
    assert_int_equal(ml_model_shared(&access).wavefronts, 4);

    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access.address[lane] = (uint64_t)(lane / 8 * 8) * FLOAT4_BYTES;
    ml_shared_cost same_banks = ml_model_shared(&access);
    assert_int_equal(same_banks.wavefronts, 4);
    assert_int_equal(same_banks.bank_conflicts, 2);
}

/* Doubles, read off an H200: lane l reading double l / 2 or l % 2 pairs up (n ^ 1, n ^ 2): one
 * phase of 32 lanes, 1 wavefront. Double l % 4 pairs only at n ^ 4: 2 phases, 2 wavefronts.
 * Double l / 2 but lane 5 elsewhere: no pairing, 2 phases. Only the even lanes active: their
 * partners are idle, so one phase, where doubles 0 and 16 share banks 0-1: 2 wavefronts, 1
 * conflict. */
static void test_shared_double_pairs(void **state)
{
    (void)state;
    ml_warp_access access;
    ml_warp_access_strided(&access, 0, 0, DOUBLE_BYTES, ML_ALL_LANES);
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access.address[lane] = (uint64_t)(lane / 2) * DOUBLE_BYTES;
    assert_int_equal(ml_model_shared(&access).wavefronts, 1);
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access.address[lane] = (uint64_t)(lane % 2) * DOUBLE_BYTES;
    assert_int_equal(ml_model_shared(&access).wavefronts, 1);
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access.address[lane] = (uint64_t)(lane % 4) * DOUBLE_BYTES;
    assert_int_equal(ml_model_shared(&access).wavefronts, 2);
    for (unsigned lane = 0; lane < ML_WARP_SIZE; lane++)
        access.address[lane] = (uint64_t)(lane == 5 ? 100 : lane / 2) * DOUBLE_BYTES;
    ml_shared_cost unpaired = ml_model_shared(&access);
    assert_int_equal(unpaired.wavefronts, 3);
    assert_int_equal(unpaired.bank_conflicts, 1);

    ml_shared_cost even = shared_strided(DOUBLE_BYTES, DOUBLE_BYTES, 0x55555555u);
    assert_int_equal(even.wavefronts, 2);
    assert_int_equal(even.bank_conflicts, 1);
}

/* A phase with no active lane costs nothing: doubles with only lanes 0-15 take 1 phase. */
static void test_shared_double_idle_phase(void **state)
{
    (void)state;
    ml_shared_cost cost = shared_strided(DOUBLE_BYTES, DOUBLE_BYTES, 0x0000ffffu);
    assert_int_equal(cost.requests, 1);
    assert_int_equal(cost.wavefronts, 1);
    assert_int_equal(cost.bank_conflicts, 0);
}

/* Bytes and halves: lanes reading bytes of the same word share it. 32 consecutive bytes are 8
 * words in 8 banks; 32 consecutive shorts are 16 words. Either way 1 wavefront. */
static void test_shared_narrow_widths(void **state)
{
    (void)state;
    ml_shared_cost bytes = shared_strided(1, 1, ML_ALL_LANES);
    assert_int_equal(bytes.wavefronts, 1);
    assert_int_equal(bytes.bank_conflicts, 0);

    ml_shared_cost halves = shared_strided(2, 2, ML_ALL_LANES);
    assert_int_equal(halves.wavefronts, 1);
    assert_int_equal(halves.bank_conflicts, 0);

    /* Bytes 128 apart: words 32 apart, all in bank 0, 32 distinct words. */
    ml_shared_cost strided_bytes = shared_strided(128, 1, ML_ALL_LANES);
    assert_int_equal(strided_bytes.wavefronts, 32);
    assert_int_equal(strided_bytes.bank_conflicts, 31);
}

static void test_shared_inactive_lanes(void **state)
{
    (void)state;

    /* Column of tile[32][32] with every other lane: 16 distinct words in one bank. */
    ml_warp_access access;
    ml_warp_access_strided(&access, 0, TILE * FLOAT_BYTES, FLOAT_BYTES, 0x55555555u);
    ml_shared_cost half = ml_model_shared(&access);
    assert_int_equal(half.requests, 1);
    assert_int_equal(half.wavefronts, 16);
    assert_int_equal(half.bank_conflicts, 15);

    ml_shared_cost none = shared_strided(TILE * FLOAT_BYTES, FLOAT_BYTES, 0);
    assert_int_equal(none.requests, 0);
    assert_int_equal(none.wavefronts, 0);
    assert_int_equal(none.bank_conflicts, 0);
}

static void test_shared_totals_add(void **state)
{
    (void)state;
    ml_shared_totals total = {0};
    ml_warp_access column;
    ml_warp_access padded;
    tile_column_read(&column, TILE, 0);
    tile_column_read(&padded, TILE + 1, 0);

    ml_shared_totals_add(&total, &column, 1.0);
    ml_shared_totals_add(&total, &padded, 2.0);

    assert_float_equal(total.requests, 3, 0);
    assert_float_equal(total.wavefronts, 32 + 1 + 1, 0);
    assert_float_equal(total.bank_conflicts, 31, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strided_builder),
        cmocka_unit_test(test_global_float_stride_1_to_32),
        cmocka_unit_test(test_global_float_stride_efficiency),
        cmocka_unit_test(test_global_float_offset_0_to_32),
        cmocka_unit_test(test_global_same_address),
        cmocka_unit_test(test_global_float4_coalesced),
        cmocka_unit_test(test_global_double_coalesced),
        cmocka_unit_test(test_global_inactive_lanes),
        cmocka_unit_test(test_global_inactive_lane_address_ignored),
        cmocka_unit_test(test_global_totals_add),
        cmocka_unit_test(test_lanes_and_ceil_div),
        cmocka_unit_test(test_shared_word_stride_1_to_32),
        cmocka_unit_test(test_shared_broadcast),
        cmocka_unit_test(test_shared_pairs_share_words),
        cmocka_unit_test(test_shared_tile_column),
        cmocka_unit_test(test_shared_tile_column_padded),
        cmocka_unit_test(test_shared_tile_column_xor_swizzle),
        cmocka_unit_test(test_shared_double_coalesced),
        cmocka_unit_test(test_shared_double_stride_2),
        cmocka_unit_test(test_shared_float4_coalesced),
        cmocka_unit_test(test_shared_float4_broadcast),
        cmocka_unit_test(test_shared_float4_pairs),
        cmocka_unit_test(test_shared_double_pairs),
        cmocka_unit_test(test_shared_double_idle_phase),
        cmocka_unit_test(test_shared_narrow_widths),
        cmocka_unit_test(test_shared_inactive_lanes),
        cmocka_unit_test(test_shared_totals_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
