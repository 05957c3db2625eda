/* test_hierarchy_map: lab 07 on a real GPU. Every variant follows its chain to the end the CPU
 * computes and sums what it read exactly; latency rises from level to level; the L1 and L2 steps
 * of the staircase appear within 25% of the L1 (memlab's table) and L2 (the runtime) sizes; the
 * counters of a chase agree with the level the model names; shared memory and the L1 deliver
 * the same bandwidth and each level below them less, and every bandwidth variant reaches at least 90% of its level's peak
 * (the L1 at least 110 bytes a clock per SM on Hopper). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"

#define TIME_LIMIT_S 300
#define METRIC_TOLERANCE 0.02   /* a point prediction */
#define RANGE_SLACK 0.05        /* a range's ends, stretched as the reports judge them */

static double number_at(const cJSON *object, const char *first, const char *second)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, first);
    if (second != NULL)
        item = cJSON_GetObjectItemCaseSensitive(item, second);
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static double cycles_per_op(const cJSON *record)
{
    double cycles = number_at(record, "latency", "cycles_per_op");
    assert_false(isnan(cycles));
    return cycles;
}

static void every_variant_is_correct(void **state)
{
    (void)state;
    const char *cases[] = {
        "--variant all --loads 1001 --seed 71",
        /* Chains of two links, of 106, of 7,812 and of 781,250, 384 bytes apart. */
        "--variant chase --stride 384 --loads 777 --sweep working_set=768,40960,3000064,300000000 --seed 72",
        "--variant l1_chase,shared_chase,local_chase,constant_divergent,register_chain --loads 256",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments, "%s --metrics none --reps 2 --warmup 1", cases[i]);
        cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
        const cJSON *record;
        cJSON_ArrayForEach(record, gpu_test_records(report)) {
            /* Every latency variant measured its cycles, and the launch held them. */
            if (strstr(gpu_test_variant(record), "bandwidth") == NULL)
                assert_true(cycles_per_op(record) > 0);
        }
        cJSON_Delete(report);
    }
}

/* Registers, shared memory, the L1, the L2, DRAM: each level's dependent access is slower than
 * the one before it. */
static void latency_rises_from_level_to_level(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_correct(
        "--variant register_chain,shared_chase,l1_chase,l2_chase,dram_chase --metrics none "
        "--reps 3 --warmup 1", TIME_LIMIT_S);
    const char *ladder[] = {"register_chain", "shared_chase", "l1_chase", "l2_chase", "dram_chase"};
    double before = 0;
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        double cycles = cycles_per_op(gpu_test_record(report, ladder[i]));
        fprintf(stderr, "  %-15s %7.1f cycles\n", ladder[i], cycles);
        assert_true(cycles > before);
        before = cycles;
    }
    cJSON_Delete(report);
}

/* The first working set of the sweep whose latency passes `threshold`, in bytes. */
static double first_step(const cJSON *report, double threshold)
{
    const cJSON *record;
    cJSON_ArrayForEach(record, gpu_test_records(report)) {
        double cycles = cycles_per_op(record);
        double bytes = (double)gpu_test_param(record, "working_set");
        fprintf(stderr, "  chase %10.0f bytes: %7.1f cycles\n", bytes, cycles);
        if (cycles > threshold)
            return bytes;
    }
    return NAN;
}

/* A sweep over fractions of a size: "--sweep working_set=..." from half of it to one and a half. */
static void sweep_around(double size, char *text, size_t text_size)
{
    static const double fractions[] = {0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.5};
    int used = snprintf(text, text_size, "--sweep working_set=");
    for (size_t i = 0; i < sizeof fractions / sizeof fractions[0]; i++)
        used += snprintf(text + used, text_size - (size_t)used, "%s%.0f", i > 0 ? "," : "",
                         floor(fractions[i] * size / 128) * 128);
}

/* The L1 step: the first working set whose loads take half again the L1 chase's cycles. The L2
 * step: the first within a tenth of the DRAM chase's. Both within 25% of the sizes. */
static void the_steps_sit_at_the_cache_sizes(void **state)
{
    (void)state;
    cJSON *levels = gpu_test_run_correct("--variant l1_chase,dram_chase --metrics none --reps 3 "
                                         "--warmup 1", TIME_LIMIT_S);
    double l1_cycles = cycles_per_op(gpu_test_record(levels, "l1_chase"));
    double dram_cycles = cycles_per_op(gpu_test_record(levels, "dram_chase"));
    double l1_bytes = 1024 * number_at(levels, "model_gpu", "l1_kib");
    double l2_bytes = 1048576 * number_at(levels, "device", "l2_mib");
    assert_false(isnan(l1_bytes) || isnan(l2_bytes));
    cJSON_Delete(levels);

    char sweep[256], arguments[512];
    sweep_around(l1_bytes, sweep, sizeof sweep);
    snprintf(arguments, sizeof arguments, "--variant chase %s --metrics none --reps 1 --warmup 0", sweep);
    cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
    double l1_step = first_step(report, 1.5 * l1_cycles);
    cJSON_Delete(report);
    fprintf(stderr, "  L1 step at %.0f bytes; the L1 holds %.0f\n", l1_step, l1_bytes);
    assert_true(l1_step >= 0.75 * l1_bytes && l1_step <= 1.25 * l1_bytes);

    sweep_around(l2_bytes, sweep, sizeof sweep);
    snprintf(arguments, sizeof arguments, "--variant chase %s --metrics none --reps 1 --warmup 0", sweep);
    report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
    double l2_step = first_step(report, 0.9 * dram_cycles);
    cJSON_Delete(report);
    fprintf(stderr, "  L2 step at %.0f bytes; the L2 holds %.0f\n", l2_step, l2_bytes);
    assert_true(l2_step >= 0.75 * l2_bytes && l2_step <= 1.25 * l2_bytes);
}

/* Measured within 2% of a point prediction, or inside a range stretched by 5%. */
static void assert_agrees(const cJSON *record, const char *alias)
{
    double predicted = NAN, measured = NAN;
    assert_int_equal(gpu_test_metric(record, alias, &predicted, &measured), 0);
    const char *reason = NULL;
    double low = gpu_test_predicted_low(record, alias, &reason);
    assert_false(isnan(measured));
    int ok = reason != NULL
                 ? measured >= low * (1 - RANGE_SLACK) && measured <= predicted * (1 + RANGE_SLACK)
                 : fabs(measured - predicted) <= METRIC_TOLERANCE * fmax(fabs(predicted), 1.0);
    fprintf(stderr, "  %-18s working_set=%-10lld %-33s predicted %.6g..%.6g, measured %.6g%s\n",
            gpu_test_variant(record), gpu_test_param(record, "working_set"), alias, low, predicted,
            measured, ok ? "" : "  <- disagrees");
    assert_true(ok);
}

static void counters_agree_with_the_level(void **state)
{
    (void)state;
    const char *runs[] = {
        "--variant l1_chase,l2_chase,dram_chase",
        "--variant chase --sweep working_set=65536,1048576,16777216,268435456",
        "--variant shared_chase,local_chase,constant_chase,constant_miss,constant_divergent",
        "--variant shared_bandwidth,l2_bandwidth,dram_bandwidth,constant_bandwidth",
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments, "%s --metrics default --reps 1 --warmup 0", runs[i]);
        cJSON *report = gpu_test_run_with_counters(arguments, TIME_LIMIT_S);
        const cJSON *record;
        cJSON_ArrayForEach(record, gpu_test_records(report)) {
            const cJSON *metric;
            cJSON_ArrayForEach(metric, cJSON_GetObjectItemCaseSensitive(record, "metrics")) {
                assert_agrees(record, cJSON_GetObjectItemCaseSensitive(metric, "alias")->valuestring);
            }
        }
        cJSON_Delete(report);
    }
}

/* Shared memory and the L1, each at its peak, deliver the same bytes a clock within 10%. Below
 * them the L2, then DRAM, each deliver less than the level above it. */
static void bandwidth_falls_from_level_to_level(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_correct("--variant shared_bandwidth,l1_bandwidth,l2_bandwidth,"
                                         "dram_bandwidth --metrics none --reps 3 --warmup 1",
                                         TIME_LIMIT_S);
    const char *ladder[] = {"shared_bandwidth", "l1_bandwidth", "l2_bandwidth", "dram_bandwidth"};
    double gbps[4];
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        gbps[i] = number_at(gpu_test_record(report, ladder[i]), "gbps", NULL);
        fprintf(stderr, "  %-17s %9.0f GB/s\n", ladder[i], gbps[i]);
    }
    assert_true(fabs(gbps[1] / gbps[0] - 1) <= 0.1);
    assert_true(gbps[2] < fmin(gbps[0], gbps[1]));
    assert_true(gbps[3] < gbps[2]);
    cJSON_Delete(report);
}

/* Each bandwidth variant at 90% of its level's peak or more: SMs x clock x 128 bytes for shared
 * memory and the L1, the best read or copy for the L2, DRAM and the constant cache. On Hopper
 * the L1 delivers at least 110 bytes a clock to each SM. */
#define PEAK_SHARE_PCT 90.0
#define HOPPER_L1_BYTES_PER_CLOCK 110.0

static void bandwidth_reaches_its_peak(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_correct("--variant shared_bandwidth,l1_bandwidth,l2_bandwidth,"
                                         "dram_bandwidth,constant_bandwidth --metrics none "
                                         "--reps 5 --warmup 1",
                                         TIME_LIMIT_S);
    const cJSON *record;
    cJSON_ArrayForEach(record, gpu_test_records(report)) {
        double pct = number_at(record, "pct_of_peak", NULL);
        const cJSON *source = cJSON_GetObjectItemCaseSensitive(record, "peak_source");
        fprintf(stderr, "  %-19s %9.0f GB/s, %5.1f%% of %9.0f (%s)\n", gpu_test_variant(record),
                number_at(record, "gbps", NULL), pct, number_at(record, "peak_gbps", NULL),
                cJSON_IsString(source) ? source->valuestring : "no source");
        assert_true(cJSON_IsString(source));
        assert_true(pct >= PEAK_SHARE_PCT);
    }
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(report, "device");
    const cJSON *capability = cJSON_GetObjectItemCaseSensitive(device, "compute_capability");
    if (cJSON_IsString(capability) && strcmp(capability->valuestring, "9.0") == 0) {
        double bytes_per_clock = number_at(gpu_test_record(report, "l1_bandwidth"), "gbps", NULL) *
                                 1e9 / (number_at(device, "sm_count", NULL) *
                                        number_at(device, "sm_clock_mhz", NULL) * 1e6);
        fprintf(stderr, "  L1: %.1f bytes a clock per SM\n", bytes_per_clock);
        assert_true(bytes_per_clock >= HOPPER_L1_BYTES_PER_CLOCK);
    }
    cJSON_Delete(report);
}

int main(void)
{
    if (!gpu_test_device_available()) {
        fprintf(stderr, "no CUDA device: test skipped\n");
        return GPU_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_is_correct),
        cmocka_unit_test(latency_rises_from_level_to_level),
        cmocka_unit_test(the_steps_sit_at_the_cache_sizes),
        cmocka_unit_test(counters_agree_with_the_level),
        cmocka_unit_test(bandwidth_falls_from_level_to_level),
        cmocka_unit_test(bandwidth_reaches_its_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
