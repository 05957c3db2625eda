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
 * (the default of --model), 32 on a GPU whose fills memlab has not measured (--gpu a100);
 * writes are the output's sectors. */
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
        assert_close(predicted(report, "strided", "stride", stride, "dram_read_bytes"),
                     fills * fill_bytes);
        assert_close(predicted(report, "strided", "stride", stride, "dram_write_bytes"),
                     ALIGNED_N * FLOAT_BYTES);
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
        assert_close(predicted(report, "offset", "offset", offset, "dram_read_bytes"),
                     (last - first + 1) * 64);
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
    assert_close(predicted(report, "broadcast", NULL, 0, "dram_read_bytes"),
                 ALIGNED_N / 32.0 / 16.0 * 64);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_transactions_per_request"), 16);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_efficiency"), 100);
    assert_close(predicted(report, "coalesced", NULL, 0, "gld_requests"), ALIGNED_N / 4.0 / 32.0);
    assert_close(predicted(report, "coalesced", NULL, 0, "gst_transactions_per_request"), 16);
    assert_close(predicted(report, "coalesced", NULL, 0, "dram_read_bytes"), ALIGNED_N * FLOAT_BYTES);
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
    /* DRAM writes: whole sectors of the output, the last partly filled. */
    assert_close(predicted(report, "coalesced", NULL, 0, "dram_write_bytes"),
                 ceil(1000003 * FLOAT_BYTES / SECTOR_BYTES) * SECTOR_BYTES);
    cJSON_Delete(report);
}

/* Writes reach DRAM when the L2 evicts them: a 256 MiB output is predicted as 256 MiB less half
 * the L2 (25 MiB on the H100, 2 MiB on a T4) up to 256 MiB; a 4 MiB one as 4 - 25 MiB, below
 * zero, so 0, up to 4 MiB. */
static void dram_writes_are_a_range_as_large_as_half_the_l2(void **state)
{
    (void)state;
    const double output = 67108864.0 * FLOAT_BYTES;
    const char *reason = NULL;
    const char *runs[] = {"--variant coalesced --n 67108864 --metrics dram_write_bytes",
                          "--variant coalesced --n 67108864 --metrics dram_write_bytes --gpu t4",
                          "--variant coalesced --n 1048576 --metrics dram_write_bytes"};
    const double low[] = {output - 25 * 1048576.0, output - 2 * 1048576.0, 0};
    const double high[] = {output, output, 1048576 * FLOAT_BYTES};
    for (int i = 0; i < 3; i++) {
        cJSON *report = gpu_test_run_model(runs[i], TIME_LIMIT_S);
        const cJSON *record = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "records"), 0);
        assert_close(gpu_test_predicted_low(record, "dram_write_bytes", &reason), low[i]);
        assert_close(predicted(report, "coalesced", NULL, 0, "dram_write_bytes"), high[i]);
        assert_non_null(reason);
        assert_non_null(strstr(reason, "evicts"));
        cJSON_Delete(report);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strided_sectors_grow_with_the_stride),
        cmocka_unit_test(offset_costs_a_fifth_sector_off_the_line),
        cmocka_unit_test(broadcast_and_float4),
        cmocka_unit_test(float4_tail_is_one_more_request),
        cmocka_unit_test(dram_writes_are_a_range_as_large_as_half_the_l2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
