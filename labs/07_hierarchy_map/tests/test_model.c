/* test_model_hierarchy_map: lab 07's --model predictions against counts worked out by hand. No
 * GPU.
 *
 * The model GPU is the H100 (256 KiB of L1 and shared memory a SM, 50 MiB of L2, 64-byte DRAM
 * fills) unless --gpu says otherwise. A chain of L links, one 128-byte line each, has a warm lap
 * of L loads when it is at most twice the L2, then --loads timed ones:
 *   L1 (at most 3/4 of the L1): the timed loads hit it; the warm lap is L reads of the L2 and L
 *       DRAM fills;
 *   L2 (past 1 1/2 L1s): every load is an L2 read; the warm lap the only DRAM fills;
 *   DRAM (past twice the L2): no warm lap; every timed load an L2 read and a DRAM fill.
 * DRAM bytes are a range: the fills less 1.5 KiB, to 15% more and 32 KiB, for what a lone
 * thread's chase reads besides, plus the floor every launch reads (the kernel's code and constants, and page-table walks, 128
 * bytes a 2 MiB page spanned past the first 8 MiB: dram_floor.h), taken off here. */
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
#include "../../../tests/unit/dram_floor.h"

#define TIME_LIMIT_S 60

static void assert_close(double value, double expected)
{
    if (fabs(value - expected) > 1e-9 * fmax(1.0, fabs(expected)))
        fail_msg("predicted %.6f, expected %.6f", value, expected);
}

static const cJSON *record_at(const cJSON *report, int index)
{
    const cJSON *record = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "records"), index);
    assert_non_null(record);
    return record;
}

/* The data ends of a record's dram_read_bytes, the H100's or H200's floor taken off, are
 * low..high; walks_high: the floor's high end of page-table walks. */
static void assert_dram_data(const cJSON *record, double low, double high, double walks_high)
{
    double data_low, data_high;
    dram_data(record, 1, &data_low, &data_high);
    assert_close(data_low, low);
    assert_close(data_high, high);
    const char *reason = NULL;
    gpu_test_predicted_low(record, "dram_read_bytes", &reason);
    assert_close(dram_floor_of(reason).walks_high, walks_high);
}

static const char *served_by(const cJSON *record)
{
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(record, "served_by");
    assert_true(cJSON_IsString(level));
    return level->valuestring;
}

/* The level of each working set, from the H100's 256 KiB L1 and 50 MiB L2. */
static void levels_of_the_staircase(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model(
        "--variant chase --sweep working_set=16384,196608,262144,1048576,16777216,31457280,52428800,268435456",
        TIME_LIMIT_S);
    const char *expected[] = {"L1", "L1", "L1 and L2", "L2", "L2", "L2 (far half)", "L2 and DRAM",
                              "DRAM"};
    for (int i = 0; i < 8; i++)
        assert_string_equal(served_by(record_at(report, i)), expected[i]);
    cJSON_Delete(report);
}

/* 64 KiB: 512 links; 16,384 timed loads after a warm lap of 512. The L1 serves it: up to
 * 128 KiB of other agents' reads (the L2 and DRAM chases below: 32 KiB). */
static void an_l1_chase(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant chase --working_set 65536 --loads 16384", TIME_LIMIT_S);
    const cJSON *record = gpu_test_record(report, "chase");
    assert_close(gpu_test_predicted(record, "global_hit_rate"), 100.0 * 16384 / (16384 + 512));
    assert_close(gpu_test_predicted(record, "l2_read_sectors"), 512);
    assert_dram_data(record, 512 * 64 - 1536, 1.15 * 512 * 64 + 131072, 2944);
    cJSON_Delete(report);
}

/* The fixed levels on the H100: an eighth of the L1 (32 KiB, 256 links), an eighth of the L2
 * (6.25 MiB, 51,200 links), four L2s (200 MiB: no warm lap, 16,384 timed loads a fill each;
 * 96 pages of 2 MiB past the floor's first 8 MiB). */
static void the_fixed_levels(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant l1_chase,l2_chase,dram_chase --loads 16384",
                                       TIME_LIMIT_S);
    const cJSON *l1 = gpu_test_record(report, "l1_chase");
    const cJSON *l2 = gpu_test_record(report, "l2_chase");
    const cJSON *dram = gpu_test_record(report, "dram_chase");
    assert_string_equal(served_by(l1), "L1");
    assert_string_equal(served_by(l2), "L2");
    assert_string_equal(served_by(dram), "DRAM");
    assert_close(gpu_test_predicted(l1, "l2_read_sectors"), 256);
    assert_close(gpu_test_predicted(l2, "global_hit_rate"), 0);
    assert_close(gpu_test_predicted(l2, "l2_read_sectors"), 51200 + 16384);
    assert_dram_data(l2, 51200 * 64.0 - 1536, 1.15 * 51200 * 64 + 32768, 2944);
    assert_close(gpu_test_predicted(dram, "l2_read_sectors"), 16384);
    assert_dram_data(dram, 16384 * 64.0 - 1536, 1.15 * 16384 * 64 + 32768, 2944 + 128 * 96);
    cJSON_Delete(report);
    /* The H200's L2 is 60 MiB: its eighth, 7.5 MiB, is 61,440 links. */
    report = gpu_test_run_model("--gpu h200 --variant l2_chase --loads 4096", TIME_LIMIT_S);
    assert_close(gpu_test_predicted(gpu_test_record(report, "l2_chase"), "l2_read_sectors"),
                 61440 + 4096);
    cJSON_Delete(report);
}

/* One warp instruction a link: the shared chase's timed loads; the local chase's warm lap of 256
 * and its timed loads, a sector each; the constant chases' laps (256 links, or 224 of the 56 KiB
 * chain) and timed loads, 32 requests each when the lanes diverge, 16 line misses in all. */
static void the_on_chip_chases(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant all --loads 1000", TIME_LIMIT_S);
    assert_close(gpu_test_predicted(gpu_test_record(report, "shared_chase"), "shared_ld_instructions"),
                 1000);
    assert_close(gpu_test_predicted(gpu_test_record(report, "local_chase"), "local_load_transactions"),
                 256 + 1000);
    const cJSON *broadcast = gpu_test_record(report, "constant_chase");
    const cJSON *miss = gpu_test_record(report, "constant_miss");
    const cJSON *divergent = gpu_test_record(report, "constant_divergent");
    const char *reason = NULL;
    assert_close(gpu_test_predicted(broadcast, "constant_instructions"), 256 + 1000);
    assert_close(gpu_test_predicted(miss, "constant_instructions"), 224 + 1000);
    assert_close(gpu_test_predicted(broadcast, "constant_requests_per_instruction"), 1);
    assert_close(gpu_test_predicted(divergent, "constant_requests_per_instruction"), 32);
    assert_close(gpu_test_predicted(broadcast, "constant_hit_rate"), 100.0 * (1 - 16.0 / 1256));
    assert_close(gpu_test_predicted(divergent, "constant_hit_rate"),
                 100.0 * (1 - 16.0 / (32 * 1256)));
    assert_close(gpu_test_predicted_low(miss, "constant_hit_rate", &reason), 0);
    assert_non_null(reason);
    /* From zero to 1%, stated against 100%: a residue, not a wide range. */
    assert_close(rd_metric_number(rd_metric(miss, "constant_hit_rate"), "range_against"), 100);
    assert_string_equal(served_by(gpu_test_record(report, "register_chain")), "registers");
    cJSON_Delete(report);
}

/* The bandwidth runs on the H100 (132 SMs, 4 blocks of 512 threads each: 270,336 threads):
 * shared memory, 2,000 rounds of 4 float4 loads a thread; the L2, 811,008 float4s (a quarter of
 * the L2 rounded down to whole grids) read 200 times with __ldcg, the first time from DRAM;
 * DRAM, 12,976,128 float4s (four L2s, likewise) read once. */
static void the_bandwidth_runs(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant shared_bandwidth,l2_bandwidth,dram_bandwidth",
                                       TIME_LIMIT_S);
    assert_close(gpu_test_predicted(gpu_test_record(report, "shared_bandwidth"), "shared_ld_instructions"),
                 132.0 * 4 * 16 * 2000 * 4);
    /* The L2 run spans 12,976,128 B: 3 pages of 2 MiB past the floor's first 8 MiB; the DRAM
     * run 207,618,048 B (198 MiB): 95. */
    assert_dram_data(gpu_test_record(report, "l2_bandwidth"), 811008.0 * 16, 811008.0 * 16,
                     2944 + 128 * 3);
    assert_dram_data(gpu_test_record(report, "dram_bandwidth"), 12976128.0 * 16,
                     12976128.0 * 16, 2944 + 128 * 95);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_of_the_staircase),
        cmocka_unit_test(an_l1_chase),
        cmocka_unit_test(the_fixed_levels),
        cmocka_unit_test(the_on_chip_chases),
        cmocka_unit_test(the_bandwidth_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
