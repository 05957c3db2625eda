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
 *   DRAM reads follow the L2's capacity: once while M and N fit, N once per block row when it
 *   does not (a range in between, and for naive and coarsened);
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
        assert_count(report, "naive", "dram_read_bytes", (m * k + k * n) * FLOAT_BYTES);
        cJSON_Delete(report);
    }
}

/* The predictions at odd and rectangular shapes (tiles sticking out of M, N and P, single
 * rows, single columns, k of 1), as recorded when a brute-force count over every load of every
 * warp gave exactly these numbers (the shared wavefronts since scaled by 3/4: a 16-byte load
 * that a half-warp's two quarters read alike costs one wavefront for both). Per shape: naive
 * requests, sectors; tiled16, tiled32 and coarsened requests, sectors, shared wavefronts;
 * tiled16's compulsory DRAM bytes. */
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
    } columns[12] = {
        {"naive", "gld_requests"},       {"naive", "gld_transactions"},
        {"tiled16", "gld_requests"},     {"tiled16", "gld_transactions"},
        {"tiled16", "shared_load_transactions"},
        {"tiled32", "gld_requests"},     {"tiled32", "gld_transactions"},
        {"tiled32", "shared_load_transactions"},
        {"coarsened", "gld_requests"},   {"coarsened", "gld_transactions"},
        {"coarsened", "shared_load_transactions"},
        {"tiled16", "dram_read_bytes"},
    };
    for (size_t s = 0; s < sizeof recorded / sizeof recorded[0]; s++) {
        const recorded_shape *shape = &recorded[s];
        fprintf(stderr, "  %lld x %lld x %lld\n", shape->m, shape->k, shape->n);
        cJSON *report = run_model(shape->m, shape->k, shape->n);
        for (int c = 0; c < 12; c++)
            assert_count(report, columns[c].variant, columns[c].alias, shape->value[c]);
        /* M and N once, in whole sectors: the compulsory bytes need no record. */
        double compulsory = (ceil((double)(shape->m * shape->k) * FLOAT_BYTES / 32) +
                             ceil((double)(shape->k * shape->n) * FLOAT_BYTES / 32)) * 32;
        assert_count(report, "naive", "dram_read_bytes", compulsory);
        cJSON_Delete(report);
    }
}

/* DRAM reads from the L2's capacity (50 MiB on the H100, 40 MiB on an A100), m = n = 4096:
 * M and N together within a third of the L2 (k = 512: 16 MiB) are read once; N the L2's size
 * or more (k = 4096: 64 MiB) is read once per block row by the tiled kernels (256 block rows of
 * tiled16, 128 of tiled32); between the two, and for naive and coarsened whenever the matrices
 * do not fit, a range from "once" to "N once per block row" with its reason. */
static void dram_reads_follow_the_l2(void **state)
{
    (void)state;
    const double mib = 1048576.0;
    const char *reason = NULL;
    cJSON *report = run_model(4096, 512, 4096);
    const double once_512 = 16 * mib;
    for (const char *const *variant = (const char *const[]){"naive", "tiled16", "tiled32", NULL};
         *variant != NULL; variant++) {
        assert_count(report, *variant, "dram_read_bytes", once_512);
        gpu_test_predicted_low(gpu_test_record(report, *variant), "dram_read_bytes", &reason);
        assert_null(reason);
    }
    /* coarsened: a range even where the matrices fit, up to N once per 128-row block row. */
    assert_count(report, "coarsened", "dram_read_bytes", 8 * mib + 32 * 8 * mib);
    assert_true(gpu_test_predicted_low(gpu_test_record(report, "coarsened"), "dram_read_bytes",
                                       &reason) == once_512);
    assert_non_null(reason);
    cJSON_Delete(report);

    report = run_model(4096, 4096, 4096);
    assert_count(report, "tiled16", "dram_read_bytes", 64 * mib + 256 * 64 * mib);
    assert_count(report, "tiled32", "dram_read_bytes", 64 * mib + 128 * 64 * mib);
    assert_count(report, "naive", "dram_read_bytes", 64 * mib + 128 * 64 * mib);
    assert_true(gpu_test_predicted_low(gpu_test_record(report, "naive"), "dram_read_bytes",
                                       &reason) == 128 * mib);
    assert_non_null(strstr(reason, "third of the L2"));
    cJSON_Delete(report);

    /* k = 2048: N of 32 MiB is between a third of the L2 and all of it: a range for tiled16. */
    report = run_model(4096, 2048, 4096);
    assert_count(report, "tiled16", "dram_read_bytes", 32 * mib + 256 * 32 * mib);
    assert_true(gpu_test_predicted_low(gpu_test_record(report, "tiled16"), "dram_read_bytes",
                                       &reason) == 64 * mib);
    assert_non_null(reason);
    cJSON_Delete(report);

    /* An A100's 40 MiB L2: at k = 3072, N of 48 MiB is over it, a point for tiled32 (on the
     * H100, 48 MiB is under 50: a range). */
    report = gpu_test_run_model("--variant tiled32 --m 4096 --k 3072 --n 4096 --gpu a100",
                                TIME_LIMIT_S);
    assert_count(report, "tiled32", "dram_read_bytes", 48 * mib + 128 * 48 * mib);
    gpu_test_predicted_low(gpu_test_record(report, "tiled32"), "dram_read_bytes", &reason);
    assert_null(reason);
    cJSON_Delete(report);
    report = run_model(4096, 3072, 4096);
    gpu_test_predicted_low(gpu_test_record(report, "tiled32"), "dram_read_bytes", &reason);
    assert_non_null(reason);
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
        cmocka_unit_test(dram_reads_follow_the_l2),
        cmocka_unit_test(the_model_is_fast_for_the_largest_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
