/* test_register_spill: lab 01 on a real GPU.
 *
 *   every variant matches the CPU reference on random, odd sizes;
 *   static_index keeps its table in registers: no local bytes, no spills, no local sectors;
 *   dynamic_index's local traffic (sectors, sectors per request, load efficiency) equals the
 *   access model's prediction within 5% for every lane_stride 0..31;
 *   capped spills (ptxas reports spill bytes, local memory per thread) where uncapped does not,
 *   fits more blocks on an SM, and moves more local sectors: as many per warp as ptxas
 *   reported spill bytes per thread, since its code runs straight through;
 *   smem_spill, where the toolkit spilled to shared memory, moves fewer local sectors than
 *   capped and executes shared loads and stores instead;
 *   the spills and registers shown are those of the kernels file loaded: a --kernels file whose
 *   smooth_capped has no cap (a student who left it out) shows no spill and no local memory.
 *
 * Without a GPU it exits 77, which CTest reports as skipped. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_test.h"

#define TIME_LIMIT_S 300
#define METRIC_TOLERANCE 0.05
#define WARP_LANES 32
/* A whole number of warps, so that every warp runs the same code on 32 lanes. */
#define SPILL_N (1 << 20)

/* got within METRIC_TOLERANCE of expected: relatively, or absolutely where expected is 0. */
static void assert_near(const cJSON *record, const char *what, double expected, double got)
{
    double relative = expected == 0 ? fabs(got) : fabs(got - expected) / expected;
    if (relative > METRIC_TOLERANCE)
        gpu_test_print_miss(record, what, expected, got);
    assert_true(relative <= METRIC_TOLERANCE);
}

static void assert_metric_matches(const cJSON *record, const char *alias)
{
    double prediction = gpu_test_predicted(record, alias);
    assert_near(record, alias, prediction, gpu_test_measured(record, alias));
}

static void every_variant_is_correct_on_odd_sizes(void **state)
{
    (void)state;
    const char *cases[] = {
        "--variant all --n 1 --lane_stride 3 --seed 11",
        "--variant all --n 31 --lane_stride 31 --seed 12",
        "--variant all --n 1000003 --lane_stride 5 --seed 13",
        "--variant all --n 4194305 --lane_stride 0",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char arguments[256];
        snprintf(arguments, sizeof arguments, "%s --metrics none --reps 2 --warmup 1", cases[i]);
        cJSON *report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
        assert_int_equal(gpu_test_record_count(report), gpu_test_variant_count());
        cJSON_Delete(report);
    }
}

/* Compile-time indices only: the table is registers, so no local memory exists or is touched. */
static void static_index_stays_in_registers(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_with_counters(
        "--variant static_index --n 1048583 --lane_stride 7 --reps 1 --warmup 0", TIME_LIMIT_S);
    const cJSON *record = gpu_test_only_record(report);
    assert_int_equal((long long)gpu_test_resource(record, "local_bytes_per_thread"), 0);
    assert_int_equal((long long)gpu_test_resource(record, "spill_store_bytes"), 0);
    assert_int_equal((long long)gpu_test_resource(record, "spill_load_bytes"), 0);
    assert_true(gpu_test_measured(record, "local_load_transactions") == 0);
    assert_true(gpu_test_measured(record, "local_store_transactions") == 0);
    cJSON_Delete(report);
}

/* A run-time index puts the table in local memory, and its traffic is the model's. */
static void dynamic_index_local_traffic_equals_the_model(void **state)
{
    (void)state;
    cJSON *report = gpu_test_run_with_counters(
        "--variant dynamic_index --n 1048583 --sweep lane_stride=0:31 --reps 1 --warmup 0",
        TIME_LIMIT_S);
    assert_int_equal(gpu_test_record_count(report), 32);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, gpu_test_records(report))
    {
        /* The 32-float table, at least, lives in local memory; it is not a spill. */
        assert_true(gpu_test_resource(record, "local_bytes_per_thread") >= 32 * sizeof(float));
        assert_metric_matches(record, "local_load_transactions");
        assert_metric_matches(record, "local_store_transactions");
        assert_metric_matches(record, "local_load_transactions_per_request");
        assert_metric_matches(record, "local_load_efficiency");
    }
    cJSON_Delete(report);
}

static cJSON *run_spill_variant(const char *variant)
{
    char arguments[256];
    snprintf(arguments, sizeof arguments, "--variant %s --n %d --reps 3 --warmup 1", variant,
             SPILL_N);
    return gpu_test_run_with_counters(arguments, TIME_LIMIT_S);
}

static double local_sectors(const cJSON *record)
{
    return gpu_test_measured(record, "local_load_transactions") +
           gpu_test_measured(record, "local_store_transactions");
}

/* The cap: fewer registers, more blocks per SM, spills that ptxas reports and the counters see.
 * The kernel is straight-line code and each spill instruction is one 4- or 8-byte access at the
 * same offset in all 32 lanes, so each warp moves one sector per spilled byte per thread. */
static void capped_spills_where_uncapped_does_not(void **state)
{
    (void)state;
    cJSON *uncapped_report = run_spill_variant("uncapped");
    cJSON *capped_report = run_spill_variant("capped");
    const cJSON *uncapped = gpu_test_only_record(uncapped_report);
    const cJSON *capped = gpu_test_only_record(capped_report);

    assert_int_equal((long long)gpu_test_resource(uncapped, "spill_store_bytes"), 0);
    assert_int_equal((long long)gpu_test_resource(uncapped, "spill_load_bytes"), 0);
    assert_int_equal((long long)gpu_test_resource(uncapped, "local_bytes_per_thread"), 0);
    assert_true(local_sectors(uncapped) == 0);

    double spill_store_bytes = gpu_test_resource(capped, "spill_store_bytes");
    double spill_load_bytes = gpu_test_resource(capped, "spill_load_bytes");
    assert_true(spill_store_bytes > 0);
    assert_true(spill_load_bytes > 0);
    assert_true(gpu_test_resource(capped, "local_bytes_per_thread") > 0);
    assert_true(gpu_test_resource(capped, "registers_per_thread") <= 64);
    assert_true(gpu_test_resource(capped, "registers_per_thread") <
                gpu_test_resource(uncapped, "registers_per_thread"));
    assert_true(gpu_test_resource(capped, "blocks_per_sm") >
                gpu_test_resource(uncapped, "blocks_per_sm"));
    assert_true(local_sectors(capped) > local_sectors(uncapped));

    double warps = SPILL_N / WARP_LANES;
    assert_near(capped, "local_store_transactions", spill_store_bytes * warps,
                gpu_test_measured(capped, "local_store_transactions"));
    assert_near(capped, "local_load_transactions", spill_load_bytes * warps,
                gpu_test_measured(capped, "local_load_transactions"));
    cJSON_Delete(uncapped_report);
    cJSON_Delete(capped_report);
}

/* With enable_smem_spilling the spills that fit go to shared memory: the kernel then has static
 * shared memory, executes shared loads and stores, and moves fewer local sectors. */
static void smem_spill_moves_spills_out_of_local_memory(void **state)
{
    (void)state;
    cJSON *capped_report = run_spill_variant("capped");
    cJSON *smem_report = run_spill_variant("smem_spill");
    const cJSON *capped = gpu_test_only_record(capped_report);
    const cJSON *smem_spill = gpu_test_only_record(smem_report);
    if (gpu_test_resource(smem_spill, "shared_bytes_per_block") == 0) {
        fprintf(stderr, "this toolkit did not spill to shared memory (%s)\n",
                gpu_test_variant(smem_spill));
        cJSON_Delete(capped_report);
        cJSON_Delete(smem_report);
        skip();
    }
    assert_true(gpu_test_resource(smem_spill, "spill_store_bytes") <
                gpu_test_resource(capped, "spill_store_bytes"));
    assert_true(local_sectors(smem_spill) < local_sectors(capped));
    assert_true(gpu_test_measured(smem_spill, "shared_store_instructions") > 0);
    assert_true(gpu_test_measured(smem_spill, "shared_load_instructions") > 0);
    assert_true(gpu_test_measured(capped, "shared_load_instructions") == 0);
    cJSON_Delete(capped_report);
    cJSON_Delete(smem_report);
}

/* The report's resources come from the kernels file that ran, not from the program's own: a
 * --kernels file whose smooth_capped is smooth_uncapped under another name (the cap left out)
 * runs correctly and shows the uncapped kernel's registers, with no spill and no local memory. */
static void spills_are_those_of_the_loaded_kernels(void **state)
{
    (void)state;
    char path[256];
    gpu_test_write_kernels("#include <cuda_runtime.h>\n"
          "#include \"register_spill.h\"\n"
          "extern \"C\" __global__ void smooth_capped(const float *in, float *out, size_t n)\n"
          "{\n"
          "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
          "    if (i < n)\n"
          "        out[i] = smooth_ring(in[i]);\n"
          "}\n",
          path, sizeof path);

    char arguments[512];
    snprintf(arguments, sizeof arguments,
             "--kernels %s --variant capped --n %d --metrics none --reps 1 --warmup 0", path,
             SPILL_N);
    cJSON *loaded_report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
    snprintf(arguments, sizeof arguments, "--variant capped --n %d --metrics none --reps 1 --warmup 0",
             SPILL_N);
    cJSON *own_report = gpu_test_run_correct(arguments, TIME_LIMIT_S);
    const cJSON *loaded = gpu_test_only_record(loaded_report);
    const cJSON *own = gpu_test_only_record(own_report);
    assert_int_equal((long long)gpu_test_resource(loaded, "spill_store_bytes"), 0);
    assert_int_equal((long long)gpu_test_resource(loaded, "spill_load_bytes"), 0);
    assert_int_equal((long long)gpu_test_resource(loaded, "local_bytes_per_thread"), 0);
    assert_true(gpu_test_resource(loaded, "registers_per_thread") > 64);
    assert_true(gpu_test_resource(own, "spill_store_bytes") > 0);
    cJSON_Delete(loaded_report);
    cJSON_Delete(own_report);
    gpu_test_remove_kernels(path);
}

int main(void)
{
    if (!gpu_test_device_available()) {
        fprintf(stderr, "no CUDA device: test skipped\n");
        return GPU_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_is_correct_on_odd_sizes),
        cmocka_unit_test(static_index_stays_in_registers),
        cmocka_unit_test(dynamic_index_local_traffic_equals_the_model),
        cmocka_unit_test(capped_spills_where_uncapped_does_not),
        cmocka_unit_test(smem_spill_moves_spills_out_of_local_memory),
        cmocka_unit_test(spills_are_those_of_the_loaded_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
