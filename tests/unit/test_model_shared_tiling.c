/* test_model_shared_tiling: lab 02's --model predictions, no GPU needed.
 *
 *   at 1024^3 the predicted global load sectors and requests equal the counts worked out by hand
 *   from one warp: naive 1 + 4 sectors per step of k (one broadcast element of M, 32 floats of
 *   N), tiled 4 + 4 sectors per phase (two 64-byte rows or one 128-byte row of each tile), so
 *   that tiled16 issues 16 and tiled32 32 times fewer loads than naive;
 *   on odd and rectangular sizes every prediction equals a brute-force count: the access model
 *   run over every load instruction of every warp of the launch, one by one, with the kernels'
 *   own index arithmetic and boundary tests (the lab sums classes of equal tiles instead);
 *   the model stays fast for the largest sizes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "access_model.h"
#include "gpu_test.h"

#define TIME_LIMIT_S 60
#define FLOAT_BYTES 4

/* The kernels' shapes, as the lab declares them. */
#define NAIVE_WIDTH 32
#define CO_TILE_M 128
#define CO_TILE_N 128
#define CO_TILE_K 8
#define CO_THREADS 256
#define CO_HALF 64

typedef struct {
    double requests, sectors, wavefronts;
} counts;

static long long ceil_div(long long a, long long b)
{
    return (a + b - 1) / b;
}

static void add_global(counts *total, const ml_warp_access *access)
{
    ml_global_cost cost = ml_model_global(access);
    total->requests += cost.requests;
    total->sectors += cost.sectors;
}

static void add_shared(counts *total, const ml_warp_access *access, double repeat)
{
    total->wavefronts += repeat * ml_model_shared(access).wavefronts;
}

/* Lane `lane` of `access` reads element (row, col) of a matrix with `cols` columns. */
static void set_lane(ml_warp_access *access, int lane, long long row, long long col, long long cols)
{
    access->active_mask |= 1u << lane;
    access->address[lane] = (uint64_t)(row * cols + col) * FLOAT_BYTES;
}

static ml_warp_access empty_access(unsigned width_bytes)
{
    ml_warp_access access;
    memset(&access, 0, sizeof access);
    access.width_bytes = width_bytes;
    return access;
}

/* naive: 32 x 32 blocks, a warp is 32 columns of one row of P; a thread outside P does
 * nothing; at step i the warp loads M[row][i] and N[i][col]. */
static counts brute_naive(long long m, long long k, long long n)
{
    counts total = {0, 0, 0};
    for (long long row = 0; row < ceil_div(m, NAIVE_WIDTH) * NAIVE_WIDTH; row++) {
        for (long long first = 0; first < ceil_div(n, NAIVE_WIDTH) * NAIVE_WIDTH; first += 32) {
            for (long long i = 0; i < k; i++) {
                ml_warp_access m_load = empty_access(FLOAT_BYTES);
                ml_warp_access n_load = empty_access(FLOAT_BYTES);
                for (int lane = 0; lane < 32; lane++) {
                    long long col = first + lane;
                    if (row < m && col < n) {
                        set_lane(&m_load, lane, row, i, k);
                        set_lane(&n_load, lane, i, col, n);
                    }
                }
                add_global(&total, &m_load);
                add_global(&total, &n_load);
            }
        }
    }
    return total;
}

/* tiled: blocks of width x width threads, warps of 32 consecutive threads in row-major order.
 * In phase ph thread (ty, tx) loads M[row][ph*width + tx] and N[ph*width + ty][col] where they
 * lie inside, then reads Ms[ty][i..i+3] (one 16-byte load per 4 steps, as the compiler emits
 * it) and Ns[i][tx] for i < width. */
static counts brute_tiled(long long m, long long k, long long n, int width)
{
    counts total = {0, 0, 0};
    long long phases = ceil_div(k, width);
    for (long long by = 0; by < ceil_div(m, width); by++) {
        for (long long bx = 0; bx < ceil_div(n, width); bx++) {
            for (int warp = 0; warp < width * width / 32; warp++) {
                for (long long ph = 0; ph < phases; ph++) {
                    ml_warp_access m_load = empty_access(FLOAT_BYTES);
                    ml_warp_access n_load = empty_access(FLOAT_BYTES);
                    for (int lane = 0; lane < 32; lane++) {
                        int thread = warp * 32 + lane, ty = thread / width, tx = thread % width;
                        long long row = by * width + ty, col = bx * width + tx;
                        if (row < m && ph * width + tx < k)
                            set_lane(&m_load, lane, row, ph * width + tx, k);
                        if (ph * width + ty < k && col < n)
                            set_lane(&n_load, lane, ph * width + ty, col, n);
                    }
                    add_global(&total, &m_load);
                    add_global(&total, &n_load);
                }
                for (int i = 0; i < width; i++) {
                    ml_warp_access ms_read = empty_access(4 * FLOAT_BYTES);
                    ml_warp_access ns_read = empty_access(FLOAT_BYTES);
                    for (int lane = 0; lane < 32; lane++) {
                        int thread = warp * 32 + lane, ty = thread / width, tx = thread % width;
                        set_lane(&ms_read, lane, ty, i - i % 4, width);
                        set_lane(&ns_read, lane, width + i, tx, width); /* Ns follows Ms */
                    }
                    if (i % 4 == 0)
                        add_shared(&total, &ms_read, (double)phases);
                    add_shared(&total, &ns_read, (double)phases);
                }
            }
        }
    }
    return total;
}

/* One tile load of the coarsened kernel: thread t loads 4 consecutive elements from row
 * first_row + t / (tile_cols / 4), column first_col + (t % (tile_cols / 4)) * 4 of a
 * rows x cols matrix; one 16-byte load when the whole tile is inside and cols % 4 == 0, else
 * four guarded 4-byte loads. */
static void brute_coarsened_tile(counts *total, long long rows, long long cols, long long first_row,
                                 long long first_col, long long tile_rows, long long tile_cols)
{
    int inside = first_row + tile_rows <= rows && first_col + tile_cols <= cols && cols % 4 == 0;
    long long per_row = tile_cols / 4;
    for (int warp = 0; warp < CO_THREADS / 32; warp++) {
        if (inside) {
            ml_warp_access load = empty_access(4 * FLOAT_BYTES);
            for (int lane = 0; lane < 32; lane++) {
                int thread = warp * 32 + lane;
                set_lane(&load, lane, first_row + thread / per_row,
                         first_col + thread % per_row * 4, cols);
            }
            add_global(total, &load);
            continue;
        }
        for (int element = 0; element < 4; element++) {
            ml_warp_access load = empty_access(FLOAT_BYTES);
            for (int lane = 0; lane < 32; lane++) {
                int thread = warp * 32 + lane;
                long long row = first_row + thread / per_row;
                long long col = first_col + thread % per_row * 4 + element;
                if (row < rows && col < cols)
                    set_lane(&load, lane, row, col, cols);
            }
            add_global(total, &load);
        }
    }
}

/* coarsened: per phase each block loads a 128 x 8 tile of M and an 8 x 128 tile of N; per
 * phase every warp reads, at each of 8 steps, two 16-byte pieces of a column of the transposed
 * M tile (rows ty*4 and 64 + ty*4) and two of a row of the N tile (columns tx*4, 64 + tx*4),
 * warp w covering ty = (w / 2) * 4 + lane / 8 and tx = (w % 2) * 8 + lane % 8. */
static counts brute_coarsened(long long m, long long k, long long n)
{
    counts total = {0, 0, 0};
    long long phases = ceil_div(k, CO_TILE_K);
    for (long long by = 0; by < ceil_div(m, CO_TILE_M); by++) {
        for (long long bx = 0; bx < ceil_div(n, CO_TILE_N); bx++) {
            for (long long ph = 0; ph < phases; ph++) {
                brute_coarsened_tile(&total, m, k, by * CO_TILE_M, ph * CO_TILE_K, CO_TILE_M,
                                     CO_TILE_K);
                brute_coarsened_tile(&total, k, n, ph * CO_TILE_K, bx * CO_TILE_N, CO_TILE_K,
                                     CO_TILE_N);
            }
            for (int warp = 0; warp < CO_THREADS / 32; warp++) {
                for (int i = 0; i < CO_TILE_K; i++) {
                    for (int group = 0; group < 2; group++) {
                        ml_warp_access ms_read = empty_access(4 * FLOAT_BYTES);
                        ml_warp_access ns_read = empty_access(4 * FLOAT_BYTES);
                        for (int lane = 0; lane < 32; lane++) {
                            int ty = warp / 2 * 4 + lane / 8, tx = warp % 2 * 8 + lane % 8;
                            set_lane(&ms_read, lane, i, group * CO_HALF + ty * 4, CO_TILE_M);
                            /* Ns follows Ms: row CO_TILE_K + i of 128-float rows. */
                            set_lane(&ns_read, lane, CO_TILE_K + i, group * CO_HALF + tx * 4,
                                     CO_TILE_N);
                        }
                        add_shared(&total, &ms_read, (double)phases);
                        add_shared(&total, &ns_read, (double)phases);
                    }
                }
            }
        }
    }
    return total;
}

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

static void square_1024_matches_the_hand_count(void **state)
{
    (void)state;
    const double m = 1024, k = 1024, n = 1024, warps = m * n / 32;
    cJSON *report = run_model(1024, 1024, 1024);
    /* naive: per warp and step of k, one request for M (1 sector: all lanes read one element)
     * and one for N (32 consecutive floats: 4 sectors). */
    assert_count(report, "naive", "gld_requests", warps * k * 2);
    assert_count(report, "naive", "gld_transactions", warps * k * 5);
    /* tiled16: a warp holds two 16-wide rows: per phase, two 64-byte rows of the M tile and two
     * of the N tile, 4 sectors each. tiled32: one 128-byte row of each, 4 sectors each. */
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
    /* The inputs, 4 MiB each, are read from DRAM once at least. */
    assert_count(report, "naive", "dram_read_bytes", 2 * m * k * FLOAT_BYTES);
    cJSON_Delete(report);
}

static void predictions_equal_a_brute_force_count(void **state)
{
    (void)state;
    const long long sizes[][3] = {
        {1, 1, 1},     {17, 33, 9},    {29, 117, 85},  {191, 19, 241}, {1000, 1, 1000},
        {1, 1000, 1},  {48, 80, 112},  {256, 64, 256}, {300, 200, 260}, {130, 12, 132},
        {257, 36, 131}, {33, 1000, 70},
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        long long m = sizes[s][0], k = sizes[s][1], n = sizes[s][2];
        fprintf(stderr, "  %lld x %lld x %lld\n", m, k, n);
        cJSON *report = run_model(m, k, n);
        counts naive = brute_naive(m, k, n);
        assert_count(report, "naive", "gld_requests", naive.requests);
        assert_count(report, "naive", "gld_transactions", naive.sectors);
        const char *tiled_names[2] = {"tiled16", "tiled32"};
        for (int t = 0; t < 2; t++) {
            counts tiled = brute_tiled(m, k, n, t == 0 ? 16 : 32);
            assert_count(report, tiled_names[t], "gld_requests", tiled.requests);
            assert_count(report, tiled_names[t], "gld_transactions", tiled.sectors);
            assert_count(report, tiled_names[t], "shared_load_transactions", tiled.wavefronts);
        }
        counts coarsened = brute_coarsened(m, k, n);
        assert_count(report, "coarsened", "gld_requests", coarsened.requests);
        assert_count(report, "coarsened", "gld_transactions", coarsened.sectors);
        assert_count(report, "coarsened", "shared_load_transactions", coarsened.wavefronts);
        /* M and N once, in whole sectors. */
        double compulsory = (ceil((double)(m * k) * FLOAT_BYTES / 32) +
                             ceil((double)(k * n) * FLOAT_BYTES / 32)) * 32;
        assert_count(report, "tiled16", "dram_read_bytes", compulsory);
        cJSON_Delete(report);
    }
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
        cmocka_unit_test(square_1024_matches_the_hand_count),
        cmocka_unit_test(predictions_equal_a_brute_force_count),
        cmocka_unit_test(tiles_cut_sectors_on_rectangles),
        cmocka_unit_test(the_model_is_fast_for_the_largest_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
