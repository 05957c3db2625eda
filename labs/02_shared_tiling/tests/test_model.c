/* test_model_shared_tiling: lab 02's --model predictions, no GPU needed.
 *
 * Every check reads the program's --model report; none repeats the kernels' code. (The tile
 * loads and their boundary tests are the student's to write, and this file ships in the student
 * pack: a brute-force count here would have to spell them out.)
 *
 *   on whole tiles (m, k and n multiples of 32, and of the coarsened kernel's tiles) the
 *   predicted global load sectors and requests equal the counts worked out by hand from one
 *   warp: naive 1 + 4 sectors per step of k (one broadcast element of M, 32 floats of N), tiled
 *   4 + 4 sectors per phase (two 64-byte rows or one 128-byte row of each tile), so that tiled16
 *   issues 16 and tiled32 32 times fewer loads than naive;
 *   on odd and rectangular sizes every prediction equals the value recorded when a brute-force
 *   count agreed with it exactly (the access model run over every load instruction of every
 *   warp of the launch, one by one, where the lab sums classes of equal tiles instead): a change
 *   to the model or to the lab's sums shows here;
 *   DRAM reads follow the L2's capacity: M and N once while they fit in it together; once N
 *   alone outgrows it, N again per block row for the tiled kernels, and for naive and
 *   coarsened N once per wave of resident blocks, up to once more (a range); a range from once
 *   in between; to each the floor every launch reads (its code, its constants, page-table
 *   walks: dram_floor.h), which these checks take off before comparing;
 *   the shared loads' wavefronts are the loads' own count while the launch is one wave of
 *   blocks; past one wave, a range up to one wavefront more a block for each 128 bytes of a
 *   phase's tiles (the waits the counter counts while blocks store their tiles);
 *   the tiled kernels read fewer sectors than naive at every shape, and the model stays fast for
 *   the largest sizes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"
#include "../../../tests/unit/dram_floor.h"

#define TIME_LIMIT_S 60
#define FLOAT_BYTES 4

/* ---- reading the lab's predictions --------------------------------------------------------- */

static cJSON *run_model(long long m, long long k, long long n)
{
    char arguments[256];
    snprintf(arguments, sizeof arguments, "--variant all --m %lld --k %lld --n %lld", m, k, n);
    return gpu_test_run_model(arguments, TIME_LIMIT_S);
}

static double predicted(const cJSON *report, const char *variant, const char *alias)
{
    return gpu_test_predicted(gpu_test_record(report, variant), alias);
}

/* Sector and request counts are whole numbers well below 2^53: they must match exactly. */
static void assert_count(const cJSON *report, const char *variant, const char *alias,
                         double expected)
{
    double value = predicted(report, variant, alias);
    if (value != expected)
        fail_msg("%s %s: predicted %.0f, expected %.0f", variant, alias, value, expected);
}

/* The low end of variant's prediction of alias (the point, for a point) is exactly expected. */
static void assert_low_count(const cJSON *report, const char *variant, const char *alias,
                             double expected)
{
    const char *reason = NULL;
    double value = gpu_test_predicted_low(gpu_test_record(report, variant), alias, &reason);
    if (value != expected)
        fail_msg("%s %s: predicted from %.0f, expected %.0f", variant, alias, value, expected);
}

/* The data bytes of variant's dram_read_bytes, its floor taken off (checked to be the H100's or
 * H200's with check_floor), are low..high. */
static void assert_dram_data(const cJSON *report, const char *variant, double low, double high,
                             int check_floor)
{
    double data_low, data_high;
    dram_data(gpu_test_record(report, variant), check_floor, &data_low, &data_high);
    if (data_low != low || data_high != high)
        fail_msg("%s dram_read_bytes: data %.0f..%.0f, expected %.0f..%.0f", variant, data_low,
                 data_high, low, high);
}

/* ---- tests ------------------------------------------------------------------------------------ */

/* Shapes made of whole tiles of every kernel, so that every warp of a kernel loads alike:
 * m and n multiples of 128 (the coarsened tile of P), k a multiple of 32. */
static void whole_tiles_match_the_hand_count(void **state)
{
    (void)state;
    const long long sizes[][3] = {
        {1024, 1024, 1024}, {256, 64, 256}, {2048, 512, 1024}, {128, 32, 384},
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const double m = (double)sizes[s][0], k = (double)sizes[s][1], n = (double)sizes[s][2];
        const double warps = m * n / 32;
        fprintf(stderr, "  %.0f x %.0f x %.0f\n", m, k, n);
        cJSON *report = run_model(sizes[s][0], sizes[s][1], sizes[s][2]);
        /* naive: per warp and step of k, one request for M (1 sector: all lanes read one
         * element) and one for N (32 consecutive floats: 4 sectors). */
        assert_count(report, "naive", "gld_requests", warps * k * 2);
        assert_count(report, "naive", "gld_transactions", warps * k * 5);
        /* tiled16: a warp holds two 16-wide rows: per phase, two 64-byte rows of the M tile and
         * two of the N tile, 4 sectors each. tiled32: one 128-byte row of each, 4 sectors each.
         * Either way the blocks hold m * n threads: m * n / 32 warps. */
        assert_count(report, "tiled16", "gld_requests", warps * (k / 16) * 2);
        assert_count(report, "tiled16", "gld_transactions", warps * (k / 16) * 8);
        assert_count(report, "tiled32", "gld_requests", warps * (k / 32) * 2);
        assert_count(report, "tiled32", "gld_transactions", warps * (k / 32) * 8);
        /* coarsened: per block and phase, 8 warps load 16 rows x 32 bytes of M and 8 warps
         * 512 contiguous bytes of N, one 16-byte load each: 16 sectors per request. */
        double blocks = (m / 128) * (n / 128), phases = k / 8;
        assert_count(report, "coarsened", "gld_requests", blocks * phases * 16);
        assert_count(report, "coarsened", "gld_transactions", blocks * phases * 16 * 16);
        /* The lesson: a tile of width T makes each loaded element serve T threads. */
        assert_true(predicted(report, "naive", "gld_requests") ==
                    16 * predicted(report, "tiled16", "gld_requests"));
        assert_true(predicted(report, "naive", "gld_requests") ==
                    32 * predicted(report, "tiled32", "gld_requests"));
        /* The inputs are read from DRAM once at least. */
        double inputs = (m * k + k * n) * FLOAT_BYTES;
        assert_dram_data(report, "naive", inputs, inputs, 1);
        cJSON_Delete(report);
    }
}

/* The predictions at odd and rectangular shapes (tiles sticking out of M, N and P, single
 * rows, single columns, k of 1), as recorded when a brute-force count over every load of every
 * warp gave exactly these numbers (the shared wavefronts since scaled by 3/4: a 16-byte load
 * that a half-warp's two quarters read alike costs one wavefront for both; they are the low end
 * of a range past one wave of blocks, the next test's). Per shape: naive
 * requests, sectors; tiled16, tiled32 and coarsened requests, sectors, shared wavefronts;
 * tiled16's compulsory DRAM bytes (its data: the floor taken off). */
typedef struct {
    long long m, k, n;
    double value[12];
} recorded_shape;

static const recorded_shape recorded[] = {
    {1, 1, 1, {2, 2, 2, 2, 192,
               2, 2, 1536, 2, 2, 768, 64}},
    {17, 33, 9, {1122, 1683, 61, 213, 1152,
                 67, 165, 3072, 166, 630, 3840, 3488}},
    {29, 117, 85, {20358, 55129, 1428, 7462, 18432,
                   699, 3125, 18432, 588, 7774, 11520, 53408}},
    {191, 19, 241, {58064, 162923, 4992, 21804, 73728,
                    2440, 9174, 73728, 568, 10448, 9216, 32864}},
    {1000, 1, 1000, {64000, 157000, 35469, 39375, 762048,
                     33024, 36000, 1572864, 760, 5000, 49152, 8000}},
    {1, 1000, 1, {2000, 2000, 563, 625, 12096,
                  1032, 1125, 49152, 1500, 1500, 96000, 8000}},
    {48, 80, 112, {30720, 69120, 1680, 6720, 20160,
                   1216, 4160, 36864, 440, 6400, 7680, 51200}},
    {256, 64, 256, {262144, 655360, 16384, 65536, 196608,
                    8192, 32768, 196608, 512, 8192, 24576, 131072}},
    {300, 200, 260, {1080000, 2760000, 65450, 283300, 806208,
                     36900, 141500, 967680, 5700, 54600, 172800, 448000}},
    {130, 12, 132, {15600, 37440, 1071, 4023, 15552,
                    950, 2440, 38400, 240, 2336, 6144, 12576}},
    {257, 36, 131, {92520, 237725, 6237, 28642, 88128,
                    4190, 13770, 138240, 1052, 12606, 23040, 55904}},
    {33, 1000, 70, {198000, 462000, 12855, 58125, 181440,
                    9168, 34375, 294912, 5500, 53500, 96000, 412000}},
};

static void odd_shapes_keep_their_recorded_predictions(void **state)
{
    (void)state;
    static const struct {
        const char *variant, *alias;
    } columns[11] = {
        {"naive", "gld_requests"},       {"naive", "gld_transactions"},
        {"tiled16", "gld_requests"},     {"tiled16", "gld_transactions"},
        {"tiled16", "shared_load_transactions"},
        {"tiled32", "gld_requests"},     {"tiled32", "gld_transactions"},
        {"tiled32", "shared_load_transactions"},
        {"coarsened", "gld_requests"},   {"coarsened", "gld_transactions"},
        {"coarsened", "shared_load_transactions"},
    };
    for (size_t s = 0; s < sizeof recorded / sizeof recorded[0]; s++) {
        const recorded_shape *shape = &recorded[s];
        fprintf(stderr, "  %lld x %lld x %lld\n", shape->m, shape->k, shape->n);
        cJSON *report = run_model(shape->m, shape->k, shape->n);
        for (int c = 0; c < 11; c++)
            assert_low_count(report, columns[c].variant, columns[c].alias, shape->value[c]);
        assert_dram_data(report, "tiled16", shape->value[11], shape->value[11], 1);
        /* M and N once, in whole sectors: the compulsory bytes need no record. */
        double compulsory = (ceil((double)(shape->m * shape->k) * FLOAT_BYTES / 32) +
                             ceil((double)(shape->k * shape->n) * FLOAT_BYTES / 32)) * 32;
        assert_dram_data(report, "naive", compulsory, compulsory, 1);
        cJSON_Delete(report);
    }
}

/* The data of variant's dram_read_bytes is the point `expected`: the range's reason says only
 * the floor. check_floor: as assert_dram_data. */
static void assert_dram_point_on(const cJSON *report, const char *variant, double expected,
                                 int check_floor)
{
    const char *reason = NULL;
    assert_dram_data(report, variant, expected, expected, check_floor);
    gpu_test_predicted_low(gpu_test_record(report, variant), "dram_read_bytes", &reason);
    if (reason == NULL || strncmp(reason, "the data, and each launch's floor", 33) != 0)
        fail_msg("%s dram_read_bytes: '%s', expected the data %.0f and the floor", variant,
                 reason ? reason : "(a point)", expected);
}

static void assert_dram_point(const cJSON *report, const char *variant, double expected)
{
    assert_dram_point_on(report, variant, expected, 1);
}

/* The data of variant's dram_read_bytes is the range low..high, its reason containing `why`. */
static void assert_dram_range_on(const cJSON *report, const char *variant, double low,
                                 double high, const char *why, int check_floor)
{
    const char *reason = NULL;
    assert_dram_data(report, variant, low, high, check_floor);
    gpu_test_predicted_low(gpu_test_record(report, variant), "dram_read_bytes", &reason);
    assert_non_null(reason);
    if (strstr(reason, why) == NULL)
        fail_msg("%s dram_read_bytes: reason '%s' does not say '%s'", variant, reason, why);
}

static void assert_dram_range(const cJSON *report, const char *variant, double low, double high,
                              const char *why)
{
    assert_dram_range_on(report, variant, low, high, why, 1);
}

static const char *const kernels[] = {"naive", "tiled16", "tiled32", "coarsened", NULL};

/* DRAM reads from the L2's capacity (50 MiB on the H100, 40 MiB on an A100), m = n = 4096
 * unless said: M and N that fit in the L2 together are read once, by every kernel; N the L2's
 * size or more is read once per block row by the tiled kernels; in between, a range from once
 * to what a larger N would cost. */
static void dram_reads_follow_the_l2(void **state)
{
    (void)state;
    const double mib = 1048576.0;

    /* k = 512: M = N = 4096 x 512 x 4 B = 8 MiB, 16 MiB in all. */
    cJSON *report = run_model(4096, 512, 4096);
    for (const char *const *variant = kernels; *variant != NULL; variant++)
        assert_dram_point(report, *variant, 16 * mib);
    cJSON_Delete(report);

    /* k = 1600: M = N = 4096 x 1600 x 4 B = 25 MiB, 50 MiB in all: exactly the L2, still once.
     * k = 1601: M = N = 4096 x 1601 x 4 B = 26,230,784 B (819,712 sectors), 52,461,568 B in
     * all, over the L2's 52,428,800 while N is under it: a range from once. */
    report = run_model(4096, 1600, 4096);
    for (const char *const *variant = kernels; *variant != NULL; variant++)
        assert_dram_point(report, *variant, 50 * mib);
    cJSON_Delete(report);
    report = run_model(4096, 1601, 4096);
    for (const char *const *variant = kernels; *variant != NULL; variant++) {
        double data_low, data_high;
        dram_data(gpu_test_record(report, *variant), 1, &data_low, &data_high);
        assert_true(data_low == 52461568.0 && data_high > data_low);
    }
    cJSON_Delete(report);

    /* The demo's odd shape, 2045 x 2051 x 2043: M is 2045 x 2051 x 4 = 16,777,180 B, 524,287
     * sectors (16,777,184 B); N 2051 x 2043 x 4 = 16,760,772 B, 523,775 sectors (16,760,800 B):
     * 33,537,984 B, under the L2, read once by every kernel. coarsened writes P (n % 4 != 0:
     * all of it) with 4-byte stores, which leave sectors partly written: up to 4% of P's
     * 2045 x 2043 x 4 bytes more. */
    report = run_model(2045, 2051, 2043);
    for (const char *const *variant = kernels; *variant != NULL; variant++) {
        if (strcmp(*variant, "coarsened") == 0)
            assert_dram_range(report, *variant, 33537984.0,
                              33537984.0 + 0.04 * 2045.0 * 2043 * 4, "4-byte-stored");
        else
            assert_dram_point(report, *variant, 33537984.0);
    }
    cJSON_Delete(report);

    /* k = 4096: M = N = 64 MiB, N over the L2: the tiled kernels read N once per block row,
     * 4096 / 16 = 256 block rows for tiled16, 128 for tiled32; an H200's 60 MiB L2 alike. */
    for (const char *const *gpu = (const char *const[]){"h100", "h200", NULL}; *gpu != NULL;
         gpu++) {
        char arguments[128];
        snprintf(arguments, sizeof arguments,
                 "--variant tiled16,tiled32 --m 4096 --k 4096 --n 4096 --gpu %s", *gpu);
        report = gpu_test_run_model(arguments, TIME_LIMIT_S);
        assert_dram_point(report, "tiled16", 64 * mib + 256 * 64 * mib);
        assert_dram_point(report, "tiled32", 64 * mib + 128 * 64 * mib);
        cJSON_Delete(report);
    }

    /* k = 2048: M = N = 32 MiB, 64 MiB in all, over the L2 while N is under it: from once to
     * what N over the L2 would cost. The tiled kernels: N per block row, 32 + 256 x 32 MiB for
     * tiled16 and 32 + 128 x 32 MiB for tiled32. naive and coarsened: the top of their
     * in-step range (see dram_reads_per_wave_in_step): N read 62.125 + 1 times by naive,
     * 4 + 1 times by coarsened. */
    report = run_model(4096, 2048, 4096);
    const char *between = "N alone does not";
    assert_dram_range(report, "tiled16", 64 * mib, 32 * mib + 256 * 32 * mib, between);
    assert_dram_range(report, "tiled32", 64 * mib, 32 * mib + 128 * 32 * mib, between);
    assert_dram_range(report, "naive", 64 * mib, 32 * mib + 63.125 * 32 * mib, between);
    assert_dram_range(report, "coarsened", 64 * mib, 32 * mib + 5 * 32 * mib, between);
    cJSON_Delete(report);

    /* k = 3072: N of 48 MiB is over an A100's 40 MiB L2, a point for tiled32, 48 + 128 x 48
     * MiB; on the H100, 48 MiB is under 50: a range from the 96 MiB of M and N up to it. */
    report = gpu_test_run_model("--variant tiled32 --m 4096 --k 3072 --n 4096 --gpu a100",
                                TIME_LIMIT_S);
    assert_dram_point_on(report, "tiled32", 48 * mib + 128 * 48 * mib, 0);
    cJSON_Delete(report);
    report = run_model(4096, 3072, 4096);
    assert_dram_range(report, "tiled32", 96 * mib, 48 * mib + 128 * 48 * mib, between);
    cJSON_Delete(report);
}

/* naive and coarsened, once N alone outgrows the L2: the blocks of a wave (SMs x blocks per
 * SM) share each slab of N in the L2, so N is read once per full wave plus, for the last wave,
 * the share of the block columns its blocks cover; the range goes up to one N more. */
static void dram_reads_per_wave_in_step(void **state)
{
    (void)state;
    const double mib = 1048576.0;
    const char *in_step = "once per wave";

    /* 4096^3, M = N = 64 MiB, on the H100 and the H200 alike (132 SMs, 2048 threads each; N
     * is over either L2).
     * naive: blocks of 32 x 32 = 1024 threads, 2 per SM: waves of 264 blocks. 128 x 128 =
     * 16,384 blocks = 62 waves of 264 and 16 blocks, which cover 16 of the 128 block columns:
     * N read 62 + 16/128 = 62.125 times, 4,236,247,040 B, up to 63.125 times, 4,303,355,904 B.
     * coarsened: 2 blocks per SM (CO_BLOCKS_PER_SM): waves of 264 blocks. 32 x 32 = 1,024
     * blocks = 3 waves and 232 blocks, which cover all 32 block columns: N read 4 times,
     * 335,544,320 B, up to 5 times, 402,653,184 B. */
    for (const char *const *gpu = (const char *const[]){"h100", "h200", NULL}; *gpu != NULL;
         gpu++) {
        char arguments[128];
        snprintf(arguments, sizeof arguments,
                 "--variant naive,coarsened --m 4096 --k 4096 --n 4096 --gpu %s", *gpu);
        cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);
        assert_dram_range(report, "naive", 4236247040.0, 4303355904.0, in_step);
        assert_dram_range(report, "coarsened", 335544320.0, 402653184.0, in_step);
        cJSON_Delete(report);
    }

    /* An L4 (58 SMs, 1536 threads each): one naive block per SM, waves of 58 blocks, under the
     * 128 block columns: a wave reads 58/128 of N. 16,384 blocks = 282 waves and 28 blocks:
     * N read (282 x 58 + 28) / 128 = 128 times, once per block row, 64 + 128 x 64 MiB =
     * 8,657,043,456 B, up to 8,724,152,320 B. coarsened: waves of 116 blocks, 1,024 = 8 waves
     * and 96 blocks, which cover all 32 columns: N read 9 times, 640 MiB up to 704 MiB. */
    cJSON *report = gpu_test_run_model("--variant naive,coarsened --m 4096 --k 4096 --n 4096 "
                                       "--gpu l4", TIME_LIMIT_S);
    assert_dram_range_on(report, "naive", 8657043456.0, 8724152320.0, in_step, 0);
    assert_dram_range_on(report, "coarsened", 640 * mib, 704 * mib, in_step, 0);
    cJSON_Delete(report);

    /* m = 1000, k = 8192, n = 2048 on the H100: M is 1000 x 8192 x 4 = 32,768,000 B (whole
     * sectors), N 64 MiB, over the L2. naive: ceil(1000 / 32) = 32 block rows of 64 blocks,
     * 2,048 blocks = 7 waves of 264 and 200 blocks, which cover all 64 columns: N read 8
     * times, 32,768,000 + 8 x 67,108,864 = 569,638,912 B, up to 636,747,776 B. */
    report = run_model(1000, 8192, 2048);
    assert_dram_range(report, "naive", 569638912.0, 636747776.0, in_step);
    cJSON_Delete(report);
}

/* The shared loads' counter also counts the waits of blocks out of step, past one wave of blocks
 * (on the H100: 132 SMs of 2048 threads). The bound: a wavefront a block for each 128 bytes of
 * the tiles it stores in a phase: tiled16 2 x 16 x 16 floats, 2 KiB: 16; tiled32 8 KiB: 64;
 * coarsened (128 + 128) x 8 floats, 8 KiB: 64. */
static void shared_loads_past_one_wave_are_a_range(void **state)
{
    (void)state;
    const char *reason = NULL;
    /* 1000 x 1 x 1000: tiled16 63 x 63 = 3,969 blocks, over one wave of 132 x 8 = 1,056;
     * tiled32 32 x 32 = 1,024 blocks, over 132 x 2 = 264; coarsened 8 x 8 = 64 blocks, under
     * 132 x 2 (CO_BLOCKS_PER_SM): a point. One phase each. */
    cJSON *report = run_model(1000, 1, 1000);
    const cJSON *tiled16 = gpu_test_record(report, "tiled16");
    double low = gpu_test_predicted_low(tiled16, "shared_load_transactions", &reason);
    assert_true(low == 762048.0);
    assert_true(gpu_test_predicted(tiled16, "shared_load_transactions") == low + 3969.0 * 16);
    assert_non_null(reason);
    assert_non_null(strstr(reason, "past one wave of blocks"));
    const cJSON *tiled32 = gpu_test_record(report, "tiled32");
    low = gpu_test_predicted_low(tiled32, "shared_load_transactions", &reason);
    assert_true(low == 1572864.0);
    assert_true(gpu_test_predicted(tiled32, "shared_load_transactions") == low + 1024.0 * 64);
    const cJSON *coarsened = gpu_test_record(report, "coarsened");
    assert_true(gpu_test_predicted_low(coarsened, "shared_load_transactions", &reason) ==
                gpu_test_predicted(coarsened, "shared_load_transactions"));
    assert_null(reason);
    cJSON_Delete(report);

    /* 4096^3: 256 phases, but one phase's tiles a block: coarsened's 1,024 blocks, over 264,
     * range up to 1,024 x 64 more. */
    report = run_model(4096, 4096, 4096);
    coarsened = gpu_test_record(report, "coarsened");
    low = gpu_test_predicted_low(coarsened, "shared_load_transactions", &reason);
    assert_true(gpu_test_predicted(coarsened, "shared_load_transactions") == low + 1024.0 * 64);
    cJSON_Delete(report);

    /* 256 x 64 x 256: 256 tiled16 blocks, one wave: a point with no reason. */
    report = run_model(256, 64, 256);
    tiled16 = gpu_test_record(report, "tiled16");
    assert_true(gpu_test_predicted_low(tiled16, "shared_load_transactions", &reason) ==
                gpu_test_predicted(tiled16, "shared_load_transactions"));
    assert_null(reason);
    cJSON_Delete(report);
}

/* The tiled kernels read fewer sectors than naive at every shape, not only squares. */
static void tiles_cut_sectors_on_rectangles(void **state)
{
    (void)state;
    const long long sizes[][3] = {{4096, 4096, 4096}, {1000, 1000, 1000}, {8192, 512, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        cJSON *report = run_model(sizes[s][0], sizes[s][1], sizes[s][2]);
        double naive = predicted(report, "naive", "gld_transactions");
        assert_true(naive >= 4 * predicted(report, "tiled16", "gld_transactions"));
        assert_true(naive >= 8 * predicted(report, "tiled32", "gld_transactions"));
        assert_true(predicted(report, "tiled32", "gld_transactions") >
                    predicted(report, "coarsened", "gld_transactions"));
        cJSON_Delete(report);
    }
}

/* Predictions sum classes of equal tiles, so even 10^18 multiply-adds take no time. */
static void the_model_is_fast_for_the_largest_sizes(void **state)
{
    (void)state;
    int exit_status = 0;
    cJSON *report = gpu_test_run_lab("--model --m 1000000 --k 999999 --n 999997", 20, &exit_status);
    assert_int_equal(exit_status, 0);
    assert_non_null(report);
    assert_true(predicted(report, "naive", "gld_transactions") > 1e17);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_tiles_match_the_hand_count),
        cmocka_unit_test(odd_shapes_keep_their_recorded_predictions),
        cmocka_unit_test(tiles_cut_sectors_on_rectangles),
        cmocka_unit_test(shared_loads_past_one_wave_are_a_range),
        cmocka_unit_test(dram_reads_follow_the_l2),
        cmocka_unit_test(dram_reads_per_wave_in_step),
        cmocka_unit_test(the_model_is_fast_for_the_largest_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
