/* test_shared_tiling: lab 02 on a real GPU.
 *
 *   every variant matches the double-accumulating CPU reference on sizes of 1, primes, long thin
 *   shapes and multiples of each tile (and, through the sampled reference, at 1024^3);
 *   sizes whose matrices cannot fit the device are refused with exit status 2;
 *   the shared memory per block that the report shows is the two declared tiles;
 *   at 1024^3 the measured global load sectors of naive, tiled16 and tiled32 are within 5% of
 *   the access model's prediction, and tiled16 loads at least 4 times, tiled32 at least 8 times
 *   fewer sectors than naive;
 *   at 1024^3 the bytes the global loads ask for, and so the FLOPs per global-load byte that
 *   the report shows, are within 5% of the model's for every variant but cuBLAS.
 *
 * Without a GPU it exits 77, which CTest reports as skipped. */
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
#define SECTOR_TOLERANCE 0.05

static void every_variant_is_correct_on_any_shape(void **state)
{
    (void)state;
    /* m x k x n: ones, primes, an outer and an inner product, multiples of 16 but not 32, of
     * 32 and 128, and one whose inner tiles take the coarsened kernel's 16-byte path while its
     * edges do not. */
    const char *sizes[] = {
        "--m 1 --k 1 --n 1",         "--m 17 --k 33 --n 9",      "--m 29 --k 117 --n 85",
        "--m 191 --k 19 --n 241",    "--m 1000 --k 1 --n 1000",  "--m 1 --k 1000 --n 1",
        "--m 48 --k 80 --n 112",     "--m 256 --k 256 --n 256",  "--m 512 --k 64 --n 256",
        "--m 300 --k 200 --n 260",   "--m 4099 --k 7 --n 3",
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments,
                 "--variant all %s --metrics none --reps 1 --warmup 0 --seed %zu", sizes[i], 20 + i);
        cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
        assert_int_equal(gpu_test_record_count(report), gpu_test_variant_count());
        cJSON_Delete(report);
    }
}

/* Three matrices of 10^12 floats each cannot fit any device: refused before anything runs. */
static void sizes_beyond_device_memory_are_refused(void **state)
{
    (void)state;
    int exit_status = 0;
    cJSON *report = gpu_test_run_lab("--variant tiled16 --m 1000000 --k 1000000 --n 1000000",
                                     TIME_LIMIT_S, &exit_status);
    assert_int_equal(exit_status, 2);
    assert_null(report);
}

/* Two tiles of TILE_WIDTH^2 floats: 2 KiB for 16, 8 KiB for 32; the coarsened kernel holds two
 * buffers of a 128 x 8 and an 8 x 128 tile. cuBLAS has no kernel of the lab's own. */
static void shared_memory_per_block_is_the_declared_tiles(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_correct(
        "--variant all --m 33 --k 65 --n 17 --metrics none --reps 1 --warmup 0", TIME_LIMIT_S);
    const char *bytes = "shared_bytes_per_block";
    assert_true(gpu_test_resource(gpu_test_record(report, "tiled16"), bytes) == 2 * 16 * 16 * 4);
    assert_true(gpu_test_resource(gpu_test_record(report, "tiled32"), bytes) == 2 * 32 * 32 * 4);
    assert_true(gpu_test_resource(gpu_test_record(report, "coarsened"), bytes) ==
                2 * 2 * 8 * 128 * 4);
    assert_true(gpu_test_resource(gpu_test_record(report, "naive"), bytes) == 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(gpu_test_record(report, "cublas"),
                                                              "resources")));
    cJSON_Delete(report);
}

/* The 1024^3 run with counters, shared by the counter tests. */
static cJSON *square_report;

static cJSON *square_1024(void)
{
    if (square_report == NULL)
        square_report = gpu_test_run_correct(
            "--variant all --m 1024 --k 1024 --n 1024 --reps 1 --warmup 0", TIME_LIMIT_S);
    return square_report;
}

/* A measured metric of a variant, or a skip when this machine cannot read counters. */
static double measured_metric(const char *variant, const char *alias, double *predicted)
{
    const cJSON *record = gpu_test_record(square_1024(), variant);
    double measured = NAN;
    assert_int_equal(gpu_test_metric(record, alias, predicted, &measured), 0);
    if (isnan(measured)) {
        const char *note = gpu_test_profiler_note(square_1024());
        fprintf(stderr, "counters unavailable on this machine: %s\n", note ? note : "(no note)");
        skip();
    }
    assert_false(isnan(*predicted));
    return measured;
}

static double measured_sectors(const char *variant, double *predicted)
{
    return measured_metric(variant, "gld_transactions", predicted);
}

static void sectors_equal_the_model_at_1024(void **state)
{
    (void)state;
    const char *variants[] = {"naive", "tiled16", "tiled32"};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        double predicted = NAN;
        double measured = measured_sectors(variants[i], &predicted);
        double relative = fabs(measured - predicted) / predicted;
        fprintf(stderr, "  %s: gld_transactions predicted %.0f, measured %.0f (%+.2f%%)\n",
                variants[i], predicted, measured, 100.0 * (measured - predicted) / predicted);
        assert_true(relative <= SECTOR_TOLERANCE);
    }
}

static void tiles_load_fewer_sectors_than_naive(void **state)
{
    (void)state;
    double predicted = NAN;
    double naive = measured_sectors("naive", &predicted);
    double tiled16 = measured_sectors("tiled16", &predicted);
    double tiled32 = measured_sectors("tiled32", &predicted);
    fprintf(stderr, "  naive / tiled16 = %.2f, naive / tiled32 = %.2f\n", naive / tiled16,
            naive / tiled32);
    assert_true(naive >= 4 * tiled16);
    assert_true(naive >= 8 * tiled32);
}

static void flops_per_load_byte_follows_the_model(void **state)
{
    (void)state;
    const char *variants[] = {"naive", "tiled16", "tiled32", "coarsened"};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        double predicted = NAN;
        double measured = measured_metric(variants[i], "gld_bytes", &predicted);
        const cJSON *intensity = cJSON_GetObjectItemCaseSensitive(
            gpu_test_record(square_1024(), variants[i]), "flops_per_gld_byte");
        double intensity_predicted =
            cJSON_GetObjectItemCaseSensitive(intensity, "predicted")->valuedouble;
        double intensity_measured =
            cJSON_GetObjectItemCaseSensitive(intensity, "measured")->valuedouble;
        fprintf(stderr, "  %s: gld_bytes predicted %.0f, measured %.0f; FLOPs per byte "
                "predicted %.3f, measured %.3f\n", variants[i], predicted, measured,
                intensity_predicted, intensity_measured);
        assert_true(fabs(measured - predicted) <= SECTOR_TOLERANCE * predicted);
        assert_true(fabs(intensity_measured - intensity_predicted) <=
                    SECTOR_TOLERANCE * intensity_predicted);
    }
}

int main(void)
{
    if (!gpu_test_device_available()) {
        fprintf(stderr, "no CUDA device: test skipped\n");
        return GPU_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_is_correct_on_any_shape),
        cmocka_unit_test(sizes_beyond_device_memory_are_refused),
        cmocka_unit_test(shared_memory_per_block_is_the_declared_tiles),
        cmocka_unit_test(sectors_equal_the_model_at_1024),
        cmocka_unit_test(tiles_load_fewer_sectors_than_naive),
        cmocka_unit_test(flops_per_load_byte_follows_the_model),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    cJSON_Delete(square_report);
    return failures;
}
