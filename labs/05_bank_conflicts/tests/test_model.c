/* test_model_bank_conflicts: lab 05's predictions, read from its --model report (no GPU).
 *
 * The lab runs the access model over its warps; these tests hold the result against the bank
 * rules counted here lane by lane, as the handout states them (no closed form):
 *   a strided load of 4-, 8- or 16-byte elements is served in 1, 2 or 4 phases of 32, 16 or 8
 *   lanes; a phase takes as many wavefronts as the most different words any one bank holds
 *   among its lanes' words, and the conflicts are the wavefronts beyond one per phase;
 *   broadcast: one wavefront; the unpadded tile read down a column: as many wavefronts as rows
 *   in the tile; padded and swizzled tiles, and every tile's row writes: one wavefront;
 *   each warp instruction of a transpose moves one tile row; a load is issued for each tile
 *   column inside the matrix, a store for every tile row of every tile (a row below the matrix
 *   with every lane off: an instruction, no wavefront), as the SASS for sm_90 does;
 *   naive transpose stores: one sector per lane; tiled stores of aligned rows: 100% efficient.
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
#include "report_data.h"

#define TIME_LIMIT_S 60
#define EXACT 1e-9
#define WARP_LANES 32

static const cJSON *records_of(const cJSON *report)
{
    return cJSON_GetObjectItemCaseSensitive(report, "records");
}

#define BANKS 32
#define BANK_BYTES 4

/* The model's own count of alias. Where it counts no conflict, the conflict counters (and,
 * beside as many accesses of the other kind, the wavefront counters) are predicted as a range
 * whose low end is that count and whose high end adds the residue (residue_is_a_range). */
/* The count a predicted range from zero is stated against (NAN if none). */
static double range_against(const cJSON *record, const char *alias)
{
    return rd_metric_number(rd_metric(record, alias), "range_against");
}

static double model_count(const cJSON *record, const char *alias)
{
    const char *reason = NULL;
    double low = gpu_test_predicted_low(record, alias, &reason);
    return reason != NULL ? low : gpu_test_predicted(record, alias);
}

/* Wavefronts of one warp load of width-byte elements, lane i reading element i * stride: per
 * phase, the most different words that one bank must deliver, summed over the phases. */
static double count_wavefronts(long long stride, int width, int phases)
{
    int lanes_per_phase = WARP_LANES / phases, words_per_element = width / BANK_BYTES;
    double wavefronts = 0;
    for (int phase = 0; phase < phases; phase++) {
        long long words[BANKS][WARP_LANES * 4];
        int count[BANKS] = {0};
        for (int lane = phase * lanes_per_phase; lane < (phase + 1) * lanes_per_phase; lane++)
            for (int w = 0; w < words_per_element; w++) {
                long long word = lane * stride * words_per_element + w;
                int bank = (int)(word % BANKS), seen = 0;
                for (int k = 0; k < count[bank]; k++)
                    seen |= words[bank][k] == word;
                if (!seen)
                    words[bank][count[bank]++] = word;
            }
        int busiest = 0;
        for (int bank = 0; bank < BANKS; bank++)
            busiest = count[bank] > busiest ? count[bank] : busiest;
        wavefronts += busiest;
    }
    return wavefronts;
}

/* Wavefronts and conflicts per instruction at every stride 1..32, against the count above.
 * Instructions do not depend on the stride. */
static void check_stride_sweep(int width, int phases)
{
    char arguments[128];
    snprintf(arguments, sizeof arguments, "--variant shared_stride --width %d --sweep stride=1:32",
             width);
    cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);
    assert_int_equal(cJSON_GetArraySize(records_of(report)), 32);
    double instructions = NAN;
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, records_of(report))
    {
        long long stride = gpu_test_param(record, "stride");
        double wavefronts = count_wavefronts(stride, width, phases);
        assert_float_equal(model_count(record, "shared_load_transactions_per_request"),
                           wavefronts, EXACT);
        assert_float_equal(model_count(record, "shared_ld_conflicts_per_request"),
                           wavefronts - phases, EXACT);
        double count = model_count(record, "shared_load_instructions");
        assert_true(count > 0);
        if (isnan(instructions))
            instructions = count;
        assert_float_equal(count, instructions, EXACT);
        assert_float_equal(model_count(record, "shared_load_transactions"),
                           count * wavefronts, EXACT * count);
        assert_float_equal(model_count(record, "shared_ld_bank_conflict"),
                           count * (wavefronts - phases), EXACT * count);
    }
    cJSON_Delete(report);
}

static void four_byte_loads_are_served_in_one_phase(void **state)
{
    (void)state;
    check_stride_sweep(4, 1);
}

static void eight_byte_loads_are_served_in_two_phases(void **state)
{
    (void)state;
    check_stride_sweep(8, 2);
}

static void sixteen_byte_loads_are_served_in_four_phases(void **state)
{
    (void)state;
    check_stride_sweep(16, 4);
}

static void broadcast_is_one_wavefront(void **state)
{
    (void)state;
    /* --width does not apply to broadcast: it reads 4-byte words whatever is given. */
    cJSON *report = gpu_test_run_model("--variant broadcast --width 16", TIME_LIMIT_S);
    const cJSON *record = gpu_test_record(report, "broadcast");
    assert_float_equal(model_count(record, "shared_load_transactions_per_request"), 1.0,
                       EXACT);
    assert_float_equal(model_count(record, "shared_ld_conflicts_per_request"), 0.0, EXACT);
    assert_float_equal(model_count(record, "shared_ld_bank_conflict"), 0.0, EXACT);
    cJSON_Delete(report);
}

static void check_conflict_free_tile(const cJSON *record)
{
    assert_float_equal(model_count(record, "shared_ld_conflicts_per_request"), 0.0, EXACT);
    assert_float_equal(model_count(record, "shared_load_transactions_per_request"), 1.0,
                       EXACT);
    assert_float_equal(model_count(record, "shared_ld_bank_conflict"), 0.0, EXACT);
}

static void check_tile_writes_and_counts(const cJSON *record, double rows, double cols)
{
    /* A load reads one tile column: a column of in per tile row of the grid. A store writes one
     * tile row, a row of in per tile column of the grid, in one wavefront; every tile issues
     * its 32 stores, those of rows below the matrix with no lane on. */
    double tiles = ceil(rows / 32) * ceil(cols / 32), store_wavefronts = ceil(cols / 32) * rows;
    assert_float_equal(model_count(record, "shared_st_conflicts_per_request"), 0.0, EXACT);
    assert_float_equal(model_count(record, "shared_store_transactions"), store_wavefronts, EXACT);
    assert_float_equal(model_count(record, "shared_store_transactions_per_request"),
                       store_wavefronts / (32 * tiles), EXACT);
    assert_float_equal(model_count(record, "shared_load_instructions"),
                       ceil(rows / 32) * cols, EXACT);
    assert_float_equal(model_count(record, "shared_store_instructions"), 32 * tiles, EXACT);
}

static void transposes_on_whole_tiles(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--rows 4096 --cols 2048", TIME_LIMIT_S);
    const char *tiled[] = {"transpose_shared", "transpose_padded", "transpose_swizzled"};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *record = gpu_test_record(report, tiled[i]);
        check_tile_writes_and_counts(record, 4096, 2048);
        assert_float_equal(gpu_test_predicted(record, "gld_efficiency"), 100.0, EXACT);
        assert_float_equal(gpu_test_predicted(record, "gst_efficiency"), 100.0, EXACT);
        assert_float_equal(gpu_test_predicted(record, "gld_transactions_per_request"), 4.0, EXACT);
        assert_float_equal(gpu_test_predicted(record, "gst_transactions_per_request"), 4.0, EXACT);
    }
    const cJSON *plain = gpu_test_record(report, "transpose_shared");
    assert_float_equal(gpu_test_predicted(plain, "shared_ld_conflicts_per_request"), 31.0, EXACT);
    assert_float_equal(gpu_test_predicted(plain, "shared_load_transactions_per_request"), 32.0,
                       EXACT);
    assert_float_equal(gpu_test_predicted(plain, "shared_ld_bank_conflict"),
                       31.0 * 4096 * 2048 / 32, EXACT);
    check_conflict_free_tile(gpu_test_record(report, "transpose_padded"));
    check_conflict_free_tile(gpu_test_record(report, "transpose_swizzled"));

    const cJSON *naive = gpu_test_record(report, "transpose_naive");
    assert_float_equal(gpu_test_predicted(naive, "gld_efficiency"), 100.0, EXACT);
    assert_float_equal(gpu_test_predicted(naive, "gst_efficiency"), 12.5, EXACT);
    assert_float_equal(gpu_test_predicted(naive, "gst_transactions_per_request"), 32.0, EXACT);
    cJSON_Delete(report);
}

/* 31 x 33: two tiles of 31 rows, the second one column wide. Every column read has 31 lanes in
 * one bank: 30 conflicts. */
static void transposes_on_partial_tiles(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--rows 31 --cols 33", TIME_LIMIT_S);
    const cJSON *plain = gpu_test_record(report, "transpose_shared");
    check_tile_writes_and_counts(plain, 31, 33);
    assert_float_equal(gpu_test_predicted(plain, "shared_load_instructions"), 33.0, EXACT);
    assert_float_equal(gpu_test_predicted(plain, "shared_store_instructions"), 64.0, EXACT);
    assert_float_equal(gpu_test_predicted(plain, "shared_store_transactions"), 62.0, EXACT);
    assert_float_equal(gpu_test_predicted(plain, "shared_ld_conflicts_per_request"), 30.0, EXACT);
    check_tile_writes_and_counts(gpu_test_record(report, "transpose_padded"), 31, 33);
    check_conflict_free_tile(gpu_test_record(report, "transpose_padded"));
    check_tile_writes_and_counts(gpu_test_record(report, "transpose_swizzled"), 31, 33);
    check_conflict_free_tile(gpu_test_record(report, "transpose_swizzled"));
    cJSON_Delete(report);
}

/* 1000 x 17: one column of tiles, 17 wide; 31 tiles of 32 rows and one of 8. A row of in is 17
 * floats: 68 bytes that start at a multiple of 4 bytes within a sector, so always 3 sectors.
 * Rows of out are 1000 floats (a multiple of 8), so tiled stores start on a sector. */
static void transposes_on_a_narrow_matrix(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--rows 1000 --cols 17", TIME_LIMIT_S);
    const char *tiled[] = {"transpose_shared", "transpose_padded", "transpose_swizzled"};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *record = gpu_test_record(report, tiled[i]);
        check_tile_writes_and_counts(record, 1000, 17);
        assert_float_equal(gpu_test_predicted(record, "gld_transactions_per_request"), 3.0, EXACT);
        assert_float_equal(gpu_test_predicted(record, "gld_efficiency"), 100.0 * 68 / 96, EXACT);
        assert_float_equal(gpu_test_predicted(record, "gst_efficiency"), 100.0, EXACT);
    }
    /* Column reads of 32 lanes (31 tiles) and 8 lanes (the last), 17 of each per tile. */
    const cJSON *plain = gpu_test_record(report, "transpose_shared");
    assert_float_equal(gpu_test_predicted(plain, "shared_ld_conflicts_per_request"),
                       (31.0 * 31 + 7) / 32, EXACT);
    const cJSON *naive = gpu_test_record(report, "transpose_naive");
    assert_float_equal(gpu_test_predicted(naive, "gst_efficiency"), 12.5, EXACT);
    assert_float_equal(gpu_test_predicted(naive, "gst_transactions_per_request"), 17.0, EXACT);
    cJSON_Delete(report);
}

/* The residue: where the model counts no conflict, the conflict counters are a range from 0,
 * stated against the instructions, and the wavefronts a range from the model's count up by as
 * much. shared_stride and broadcast: up to two conflicts a warp, 2 / 64 = 0.03125 a load, at
 * any stride; a conflicted stride keeps its point. The tiled transposes: none in a launch of one
 * wave (132 SMs x 8 blocks = 1,056 tiles on the H100 --model predicts for), every prediction a
 * point; past it, up to 1/4 conflict a load and 1/8 a store. */
static void residue_is_a_range(void **state)
{
    (void)state;
    const char *reason = NULL;
    cJSON *report = gpu_test_run_model("--variant shared_stride --width 16 --sweep stride=1,2,31",
                                       TIME_LIMIT_S);
    const cJSON *free_of_conflicts = cJSON_GetArrayItem(records_of(report), 0);
    const cJSON *two_way = cJSON_GetArrayItem(records_of(report), 1);
    const cJSON *widest = cJSON_GetArrayItem(records_of(report), 2);
    assert_float_equal(gpu_test_predicted_low(free_of_conflicts, "shared_ld_conflicts_per_request",
                                              &reason), 0.0, EXACT);
    assert_non_null(reason);
    assert_non_null(strstr(reason, "beside it"));
    assert_float_equal(gpu_test_predicted(free_of_conflicts, "shared_ld_conflicts_per_request"),
                       0.03125, EXACT);
    assert_float_equal(gpu_test_predicted(widest, "shared_ld_conflicts_per_request"), 0.03125,
                       EXACT);
    assert_float_equal(range_against(free_of_conflicts, "shared_ld_conflicts_per_request"), 1.0,
                       EXACT);
    assert_float_equal(gpu_test_predicted_low(free_of_conflicts,
                                              "shared_load_transactions_per_request", &reason),
                       4.0, EXACT);
    assert_non_null(reason);
    assert_float_equal(gpu_test_predicted(free_of_conflicts,
                                          "shared_load_transactions_per_request"),
                       4.03125, EXACT);
    gpu_test_predicted_low(two_way, "shared_ld_conflicts_per_request", &reason);
    assert_null(reason);
    assert_float_equal(gpu_test_predicted(two_way, "shared_ld_conflicts_per_request"), 4.0, EXACT);
    cJSON_Delete(report);

    /* 4096 x 2048: 8,192 tiles, past one wave. */
    report = gpu_test_run_model("--rows 4096 --cols 2048", TIME_LIMIT_S);
    const cJSON *padded = gpu_test_record(report, "transpose_padded");
    assert_float_equal(gpu_test_predicted_low(padded, "shared_ld_conflicts_per_request", &reason),
                       0.0, EXACT);
    assert_non_null(reason);
    assert_non_null(strstr(reason, "one wave"));
    assert_float_equal(gpu_test_predicted(padded, "shared_ld_conflicts_per_request"), 0.25, EXACT);
    assert_float_equal(range_against(padded, "shared_ld_bank_conflict"), 4096.0 * 2048 / 32,
                       EXACT);
    assert_float_equal(gpu_test_predicted_low(padded, "shared_load_transactions_per_request",
                                              &reason), 1.0, EXACT);
    assert_non_null(reason);
    assert_float_equal(gpu_test_predicted(padded, "shared_load_transactions_per_request"), 1.25,
                       EXACT);
    assert_float_equal(gpu_test_predicted(padded, "shared_st_conflicts_per_request"), 0.125,
                       EXACT);
    assert_float_equal(gpu_test_predicted(padded, "shared_store_transactions_per_request"), 1.125,
                       EXACT);
    const cJSON *shared = gpu_test_record(report, "transpose_shared");
    gpu_test_predicted_low(shared, "shared_ld_conflicts_per_request", &reason);
    assert_null(reason);
    assert_float_equal(gpu_test_predicted(shared, "shared_st_conflicts_per_request"), 0.125, EXACT);
    assert_float_equal(gpu_test_predicted_low(shared, "shared_st_conflicts_per_request", &reason),
                       0.0, EXACT);
    assert_non_null(reason);
    cJSON_Delete(report);
}

/* One wave: 1024 x 1056 is 32 x 33 = 1,056 tiles, every block on the GPU at once: the
 * conflict-free counts are points at 0 conflicts and one wavefront an access. One tile row more
 * (1056 x 1056, 1,089 tiles) is past it: ranges. */
static void one_wave_has_no_residue(void **state)
{
    (void)state;
    const char *tiled[] = {"transpose_shared", "transpose_padded", "transpose_swizzled"};
    const char *conflict_free[] = {"shared_st_conflicts_per_request",
                                   "shared_store_transactions_per_request",
                                   "shared_st_bank_conflict", "shared_store_transactions"};
    const char *reason = NULL;
    cJSON *report = gpu_test_run_model("--rows 1024 --cols 1056", TIME_LIMIT_S);
    for (size_t i = 0; i < 3; i++) {
        const cJSON *record = gpu_test_record(report, tiled[i]);
        for (size_t k = 0; k < 4; k++) {
            gpu_test_predicted_low(record, conflict_free[k], &reason);
            assert_null(reason);
        }
        assert_float_equal(gpu_test_predicted(record, "shared_st_bank_conflict"), 0.0, EXACT);
    }
    const cJSON *padded = gpu_test_record(report, "transpose_padded");
    gpu_test_predicted_low(padded, "shared_ld_bank_conflict", &reason);
    assert_null(reason);
    assert_float_equal(gpu_test_predicted(padded, "shared_ld_bank_conflict"), 0.0, EXACT);
    cJSON_Delete(report);

    report = gpu_test_run_model("--rows 1056 --cols 1056", TIME_LIMIT_S);
    for (size_t i = 0; i < 3; i++) {
        gpu_test_predicted_low(gpu_test_record(report, tiled[i]), "shared_st_bank_conflict",
                               &reason);
        assert_non_null(reason);
    }
    cJSON_Delete(report);
}

/* At the bottom edge every warp still issues its stores (predicated, not branched around): a
 * 7 x 18 matrix is one tile, 32 store instructions, of which 7 move a row (7 wavefronts), and 18
 * loads, one for each column inside the matrix. */
static void edge_stores_are_issued_with_no_lane(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant transpose_padded --rows 7 --cols 18",
                                       TIME_LIMIT_S);
    const cJSON *padded = gpu_test_record(report, "transpose_padded");
    assert_float_equal(gpu_test_predicted(padded, "shared_store_instructions"), 32.0, EXACT);
    assert_float_equal(gpu_test_predicted(padded, "shared_store_transactions"), 7.0, EXACT);
    assert_float_equal(gpu_test_predicted(padded, "shared_store_transactions_per_request"),
                       7.0 / 32, EXACT);
    assert_float_equal(gpu_test_predicted(padded, "shared_load_instructions"), 18.0, EXACT);
    assert_float_equal(gpu_test_predicted(padded, "shared_load_transactions"), 18.0, EXACT);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(four_byte_loads_are_served_in_one_phase),
        cmocka_unit_test(eight_byte_loads_are_served_in_two_phases),
        cmocka_unit_test(sixteen_byte_loads_are_served_in_four_phases),
        cmocka_unit_test(broadcast_is_one_wavefront),
        cmocka_unit_test(transposes_on_whole_tiles),
        cmocka_unit_test(transposes_on_partial_tiles),
        cmocka_unit_test(transposes_on_a_narrow_matrix),
        cmocka_unit_test(residue_is_a_range),
        cmocka_unit_test(one_wave_has_no_residue),
        cmocka_unit_test(edge_stores_are_issued_with_no_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
