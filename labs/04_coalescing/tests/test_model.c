/* test_model_coalescing: lab 04's --model predictions against counts worked out by hand. No GPU.
 *
 * One float per thread, 32 lanes a warp, 32-byte sectors:
 *   strided s    lane i loads float i * s: the warp's 32 floats span 32 * s floats, so it touches
 *                min(4 s, 32) sectors per request and uses 128 bytes of them;
 *   offset o     32 consecutive floats starting o floats past a 128-byte line: 5 sectors unless
 *                o is a multiple of 8 (4 sectors);
 *   broadcast    the warp's 32 lanes read one float: one sector, 4 bytes of it used (12.5%);
 *   coalesced    a float4 per lane: 512 bytes a warp, 16 sectors per request, every byte used.
 * Stores are one float per lane, consecutive: 4 sectors per request, 100%. DRAM reads are the
 * distinct pieces of the input the copy touches, in the GPU's DRAM fills: 64 bytes on the H100
 * (the default of --model), 32 on a GPU whose fills memlab has not measured (--gpu a100), or
 * what --l2_fetch sets; plus the floor every launch reads (dram_floor.h). Writes are the
 * output's sectors less what the L2 still holds dirty when the kernel ends. */
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
#define SECTOR_BYTES 32.0
#define FLOAT_BYTES 4.0

/* n: a multiple of 128 floats (no partial warp, no float4 tail) */
#define ALIGNED_N 1048576LL

/* The predicted value of alias in the record of this variant whose parameter `param` is value. */
static double predicted(const cJSON *report, const char *variant, const char *param,
                        long long value, const char *alias)
{
    const cJSON *records = cJSON_GetObjectItemCaseSensitive(report, "records");
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, records)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(record, "variant");
        if (strcmp(name->valuestring, variant) != 0 ||
            (param != NULL && gpu_test_param(record, param) != value))
            continue;
        return gpu_test_predicted(record, alias);
    }
    fail_msg("no record of %s with %s = %lld", variant, param ? param : "-", value);
    return NAN;
}

static void assert_close(double value, double expected)
{
    if (!(fabs(value - expected) <= 1e-9 * fmax(1.0, fabs(expected))))
        fail_msg("predicted %.12g, expected %.12g", value, expected);
}

/* The input bytes a record's dram_read_bytes counts besides the floor: one count, low and high
 * ends alike (the fills of one size). With check_floor, the floor is the H100's or H200's. */
static double data_read(const cJSON *report, const char *variant, const char *param,
                        long long value, int check_floor)
{
    double low, high;
    dram_data(gpu_test_record_at(report, variant, param, value), check_floor, &low, &high);
    assert_close(high, low);
    return low;
}

/* A metric of a record, by alias, as the report holds it. */
static const cJSON *metric_of(const cJSON *record, const char *alias)
{
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, cJSON_GetObjectItemCaseSensitive(record, "metrics"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(metric, "alias");
        if (cJSON_IsString(name) && strcmp(name->valuestring, alias) == 0)
            return metric;
    }
    fail_msg("no metric %s in the record", alias);
    return NULL;
}

#define METRICS                                                                                    \
    " --metrics gld_efficiency,gld_transactions_per_request,gst_efficiency,"                       \
    "gst_transactions_per_request,gld_requests,gld_transactions,dram_read_bytes,dram_write_bytes"

/* The strided sweep for the GPU named gpu, whose DRAM fills are fill_bytes. */
static void strided_sweep(const char *gpu, double fill_bytes)
{
    char arguments[256];
    snprintf(arguments, sizeof arguments,
             "--variant strided --n %lld --sweep stride=1:20 --gpu %s" METRICS, ALIGNED_N, gpu);
    cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);
    double warps = ALIGNED_N / 32.0;
    for (long long stride = 1; stride <= 20; stride++) {
        double sectors = fmin(4.0 * stride, 32.0);
        assert_close(predicted(report, "strided", "stride", stride, "gld_transactions_per_request"),
                     sectors);
        assert_close(predicted(report, "strided", "stride", stride, "gld_efficiency"),
                     100.0 * 128.0 / (sectors * SECTOR_BYTES));
        assert_close(predicted(report, "strided", "stride", stride, "gld_requests"), warps);
        assert_close(predicted(report, "strided", "stride", stride, "gld_transactions"),
                     warps * sectors);
        assert_close(predicted(report, "strided", "stride", stride, "gst_transactions_per_request"), 4);
        assert_close(predicted(report, "strided", "stride", stride, "gst_efficiency"), 100);
        /* The n floats read lie 4 s bytes apart: while that is at most a fill, every fill from
         * the first to the one that holds float (n - 1) * s; beyond, a fill each. */
        double spacing = 4.0 * stride;
        double fills = spacing > fill_bytes ? (double)ALIGNED_N
                                            : floor((ALIGNED_N - 1) * spacing / fill_bytes) + 1;
        assert_close(data_read(report, "strided", "stride", stride, fill_bytes == 64),
                     fills * fill_bytes);
    }
    cJSON_Delete(report);
}

/* On the H100 a stride of 9 reads the whole span (1.125 x one sector per element), from 17 on
 * 64 bytes per element (2 x): what Nsight Compute measured there. */
static void strided_sectors_grow_with_the_stride(void **state)
{
    (void)state;
    strided_sweep("h100", 64);
    strided_sweep("a100", 32);
}

static void offset_costs_a_fifth_sector_off_the_line(void **state)
{
    (void)state;
    char arguments[256];
    snprintf(arguments, sizeof arguments, "--variant offset --n %lld --sweep offset=0:16" METRICS,
             ALIGNED_N);
    cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);
    for (long long offset = 0; offset <= 16; offset++) {
        double sectors = offset % 8 == 0 ? 4 : 5;
        assert_close(predicted(report, "offset", "offset", offset, "gld_transactions_per_request"),
                     sectors);
        assert_close(predicted(report, "offset", "offset", offset, "gld_efficiency"),
                     100.0 * 128.0 / (sectors * SECTOR_BYTES));
        /* The input read is floats offset .. offset + n - 1: whole 64-byte fills from the one
         * that holds the first to the one that holds the last. */
        double first = floor(offset * FLOAT_BYTES / 64);
        double last = floor((offset + ALIGNED_N - 1) * FLOAT_BYTES / 64);
        assert_close(data_read(report, "offset", "offset", offset, 1), (last - first + 1) * 64);
    }
    cJSON_Delete(report);
}

static void broadcast_and_float4(void **state)
{
    (void)state;
    char arguments[256];
    snprintf(arguments, sizeof arguments, "--variant all --n %lld" METRICS, ALIGNED_N);
    cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);
    assert_close(predicted(report, "broadcast", NULL, 0, "gld_transactions_per_request"), 1);
    assert_close(predicted(report, "broadcast", NULL, 0, "gld_efficiency"), 12.5);
    /* n / 32 floats read, sixteen to a 64-byte fill. */
    assert_close(data_read(report, "broadcast", NULL, 0, 1), ALIGNED_N / 32.0 / 16.0 * 64);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_transactions_per_request"), 16);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_efficiency"), 100);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_requests"), ALIGNED_N / 4.0 / 32.0);
    assert_close(predicted(report, "coalesced", NULL, 0, "gst_transactions_per_request"), 16);
    assert_close(data_read(report, "coalesced", NULL, 0, 1), ALIGNED_N * FLOAT_BYTES);
    cJSON_Delete(report);
}

/* n = 1000003: a float4 tail of 3 floats (one more request of 1 sector), a partial warp. */
static void float4_tail_is_one_more_request(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant coalesced --n 1000003" METRICS, TIME_LIMIT_S);
    /* 250000 float4s: 7812 full warps of 16 sectors, a warp of 16 lanes (8 sectors), then the
     * 3-float tail (1 sector). */
    double requests = 7812 + 1 + 1, sectors = 7812 * 16.0 + 8 + 1;
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_requests"), requests);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_transactions"), sectors);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_transactions_per_request"),
                 sectors / requests);
    /* DRAM writes: whole sectors of the output, the last partly filled; input and output fit
     * in the L2, so they stay there: a residue, stated against the output's sectors. */
    const cJSON *writes =
        metric_of(gpu_test_record_at(report, "coalesced", NULL, 0), "dram_write_bytes");
    double output = ceil(1000003 * FLOAT_BYTES / SECTOR_BYTES) * SECTOR_BYTES;
    assert_close(cJSON_GetObjectItemCaseSensitive(writes, "range_against")->valuedouble, output);
    assert_close(predicted(report, "coalesced", NULL, 0, "dram_write_bytes"), 0.05 * output);
    cJSON_Delete(report);
}

/* The dram_write_bytes of the first record of a --model run: its range, what a range from zero
 * is stated against (0: nothing), and its reason (copied into reason[256]). */
static void writes_of(const char *arguments, double *low, double *high, double *against,
                      char *reason)
{
    cJSON *report = gpu_test_run_model(arguments, TIME_LIMIT_S);
    const cJSON *record = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "records"), 0);
    const char *why = NULL;
    *low = gpu_test_predicted_low(record, "dram_write_bytes", &why);
    *high = gpu_test_predicted(record, "dram_write_bytes");
    const cJSON *stated = cJSON_GetObjectItemCaseSensitive(metric_of(record, "dram_write_bytes"),
                                                           "range_against");
    *against = cJSON_IsNumber(stated) ? stated->valuedouble : 0;
    assert_non_null(why);
    snprintf(reason, 256, "%s", why);
    cJSON_Delete(report);
}

/* Writes reach DRAM when the L2 evicts them (gpu_facts.c has the measurements):
 *   a 4 MiB copy's 8 MiB of lines fit in the L2: the output stays there, a residue of at most
 *   5% of it;
 *   a 256 MiB copy (reads as large as its output) leaves 13.1 to 25.5 MB of its output in an
 *   H100's L2, 15.5 to 30 MB in an H200's: on the H100 the output's half of the least traffic
 *   share (0.5 of its 50 MiB L2) is less than the 14 MB it keeps dirty at least;
 *   a gather of one float a line (stride 32) passes 33 times its output's lines through the L2:
 *   an H200 keeps at most 1.1 x 60 MiB / 33 = 2 MiB of its 4 MiB output, at least
 *   0.5 x 60 MiB / 33;
 *   a T4, not measured: 256 MiB less half its 4 MiB L2 to 256 MiB. */
static void dram_writes_are_the_output_less_what_the_l2_keeps(void **state)
{
    (void)state;
    const double mib = 1048576.0, output = 256 * mib;
    double low, high, against;
    char reason[256];
    writes_of("--variant coalesced --n 1048576 --metrics dram_write_bytes", &low, &high, &against,
              reason);
    assert_close(low, 0);
    assert_close(high, 0.05 * 4 * mib);
    assert_close(against, 4 * mib);
    writes_of("--variant coalesced --n 67108864 --metrics dram_write_bytes", &low, &high, &against,
              reason);
    assert_close(low, output - 25.5e6);
    assert_close(high, output - 0.5 * 50 * mib / 2);
    assert_non_null(strstr(reason, "write-back"));
    writes_of("--variant coalesced --n 67108864 --metrics dram_write_bytes --gpu h200", &low,
              &high, &against, reason);
    assert_close(low, output - 30.0e6);
    assert_close(high, output - 15.5e6);
    writes_of("--variant strided --stride 32 --n 1048576 --metrics dram_write_bytes --gpu h200",
              &low, &high, &against, reason);
    assert_close(low, 4 * mib - 1.1 * 60 * mib / 33);
    assert_close(high, 4 * mib - 0.5 * 60 * mib / 33);
    writes_of("--variant coalesced --n 67108864 --metrics dram_write_bytes --gpu t4", &low, &high,
              &against, reason);
    assert_close(low, output - 2 * mib);
    assert_close(high, output);
    assert_non_null(strstr(reason, "evicts"));
}

/* --l2_fetch sets the L2's fetch granularity: a stride-17 gather (68 bytes apart, a fill each
 * at 32 and 64 bytes) reads 32 bytes an element at 32, 64 at 64 and 0 (the H100's default), and
 * at 128 the 128-byte lines of its span (the elements share them). Other values are refused. */
static void the_fetch_granularity_sets_the_fills(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_model("--variant strided --stride 17 --n 1048576 "
                                       "--sweep l2_fetch=0,32,64,128" METRICS, TIME_LIMIT_S);
    const double span_fills = floor((ALIGNED_N - 1) * 68.0 / 128) + 1;
    const double expected[] = {64 * ALIGNED_N, 32 * ALIGNED_N, 64 * ALIGNED_N, 128 * span_fills};
    const long long fetch[] = {0, 32, 64, 128};
    for (int i = 0; i < 4; i++) {
        double low, high;
        dram_data(gpu_test_record_at(report, "strided", "l2_fetch", fetch[i]), 1, &low, &high);
        assert_close(low, expected[i]);
        assert_close(high, expected[i]);
    }
    cJSON_Delete(report);
    int status = 0;
    cJSON *refused = gpu_test_run_lab("--model --l2_fetch 48", TIME_LIMIT_S, &status);
    cJSON_Delete(refused);
    assert_int_equal(status, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strided_sectors_grow_with_the_stride),
        cmocka_unit_test(offset_costs_a_fifth_sector_off_the_line),
        cmocka_unit_test(broadcast_and_float4),
        cmocka_unit_test(float4_tail_is_one_more_request),
        cmocka_unit_test(dram_writes_are_the_output_less_what_the_l2_keeps),
        cmocka_unit_test(the_fetch_granularity_sets_the_fills),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
