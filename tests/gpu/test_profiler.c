/* test_profiler: the CUPTI layer itself on a real GPU, with the harness's L2 flush as prelude.
 *
 *   a read-only sweep of four L2s, profiled after the prelude, reads every byte it swept from
 *   DRAM and writes almost nothing back: the dirty lines that a memset and the profiler's own
 *   start left in the L2 are written back by the prelude, not during the profiled kernel
 *   (without the prelude an H200 showed 7 MB of writes on a 268 MB read-only sweep);
 *   a second kernel after the prelude's is refused as a dropped range, not mixed in;
 *   metrics that need two passes (an instrumented one beside hardware counters) take one
 *   launch per pass, each after its own prelude, and every pass reads the same sweep; ending
 *   after the first pass is refused;
 *   collections with the same names in a row each read their own kernel: a full sweep, then
 *   half of it.
 *
 * Without a GPU, or where counters cannot be read, it exits 77, which CTest reports as
 * skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include <cuda_runtime.h>

#include "gpu_test.h"
#include "memlab.h"
#include "profiler.h"

/* Writes back at most this share of the bytes read: the DRAM refresh of a page or two, not a
 * cache's worth of dirty lines. */
#define WRITE_SHARE_LIMIT 0.005

typedef struct {
    void *buffer;
    size_t bytes;
} l2_sweep;

static prof_session *session;
static l2_sweep prelude_sweep, profiled_sweep;

static void sweep_prelude(void *argument)
{
    const l2_sweep *sweep = argument;
    ml_flush_l2(sweep->buffer, sweep->bytes, NULL, 0);
}

static void read_only_sweep_writes_nothing_back(void **state)
{
    (void)state;
    /* The memset leaves the L2 full of dirty lines of the swept buffer itself. */
    ML_CUDA_CHECK(cudaMemset(profiled_sweep.buffer, 1, profiled_sweep.bytes));
    ML_CUDA_CHECK(cudaDeviceSynchronize());

    const char *names[] = { "dram__bytes_read.sum", "dram__bytes_write.sum" };
    double values[2];
    assert_int_equal(prof_begin(session, names, 2), PROF_OK);
    ml_flush_l2(profiled_sweep.buffer, profiled_sweep.bytes, NULL, 0);
    prof_status status = prof_end(session, values);
    if (status != PROF_OK)
        fail_msg("prof_end: %s", prof_last_error());

    double swept = (double)profiled_sweep.bytes;
    print_message("swept %.0f bytes: DRAM read %.0f, written %.0f\n", swept, values[0], values[1]);
    assert_true(values[0] >= 0.99 * swept && values[0] <= 1.01 * swept);
    assert_true(values[1] <= WRITE_SHARE_LIMIT * values[0]);
}

static void second_kernel_is_refused(void **state)
{
    (void)state;
    const char *names[] = { "dram__bytes_read.sum" };
    double values[1];
    assert_int_equal(prof_begin(session, names, 1), PROF_OK);
    ml_flush_l2(profiled_sweep.buffer, profiled_sweep.bytes, NULL, 0);
    ml_flush_l2(profiled_sweep.buffer, profiled_sweep.bytes, NULL, 0);
    assert_int_equal(prof_end(session, values), PROF_ERR_DROPPED_RANGES);
    print_message("%s\n", prof_last_error());
}

/* smsp__sass_* metrics are read by instrumenting the kernel's SASS, in a pass of their own. */
static const char *const two_pass_names[] = { "dram__bytes_read.sum", "dram__bytes_write.sum",
                                              "smsp__sass_data_bytes_mem_global_op_ld.sum" };

/* Runs the two-pass names over the first bytes of the profiled sweep; values as two_pass_names.
 * Returns the launches it took. */
static int collect_two_passes(size_t bytes, double *values)
{
    int launches = 0, another_pass = 1;
    prof_status status = prof_begin(session, two_pass_names, 3);
    while (status == PROF_OK && another_pass) {
        ml_flush_l2(profiled_sweep.buffer, bytes, NULL, 0);
        launches++;
        status = prof_next_pass(session, &another_pass);
    }
    if (status == PROF_OK)
        status = prof_end(session, values);
    if (status != PROF_OK)
        fail_msg("collection of %zu bytes: %s", bytes, prof_last_error());
    return launches;
}

static void two_passes_take_two_launches(void **state)
{
    (void)state;
    size_t bad_index = 0, passes = 0;
    assert_int_equal(prof_validate_metrics(prof_chip_name(session), two_pass_names, 3, &bad_index,
                                           &passes), PROF_OK);
    assert_int_equal(passes, 2);

    double values[3];
    assert_int_equal(collect_two_passes(profiled_sweep.bytes, values), 2);

    double swept = (double)profiled_sweep.bytes;
    print_message("two passes: DRAM read %.0f, written %.0f, load bytes %.0f of %.0f swept\n",
                  values[0], values[1], values[2], swept);
    assert_true(values[0] >= 0.99 * swept && values[0] <= 1.01 * swept);
    assert_true(values[1] <= WRITE_SHARE_LIMIT * values[0]);
    /* The sweep's load instructions ask for every byte once. */
    assert_true(values[2] >= 0.99 * swept && values[2] <= 1.01 * swept);
}

static void ending_before_the_last_pass_is_refused(void **state)
{
    (void)state;
    double values[3];
    assert_int_equal(prof_begin(session, two_pass_names, 3), PROF_OK);
    ml_flush_l2(profiled_sweep.buffer, profiled_sweep.bytes, NULL, 0);
    assert_int_equal(prof_end(session, values), PROF_ERR_BAD_STATE);
    print_message("%s\n", prof_last_error());
    /* The refusal ended the collection: the session can begin again. */
    assert_int_equal(prof_begin(session, two_pass_names, 1), PROF_OK);
    ml_flush_l2(profiled_sweep.buffer, profiled_sweep.bytes, NULL, 0);
    assert_int_equal(prof_end(session, values), PROF_OK);
}

static void same_names_again_read_the_new_kernel(void **state)
{
    (void)state;
    size_t sizes[2] = { profiled_sweep.bytes, profiled_sweep.bytes / 2 };
    for (int i = 0; i < 2; i++) {
        double values[3];
        collect_two_passes(sizes[i], values);
        double swept = (double)sizes[i];
        print_message("collection %d: DRAM read %.0f, load bytes %.0f of %.0f swept\n", i + 1,
                      values[0], values[2], swept);
        assert_true(values[0] >= 0.99 * swept && values[0] <= 1.01 * swept);
        assert_true(values[2] >= 0.99 * swept && values[2] <= 1.01 * swept);
    }
}

int main(void)
{
    int device_count = 0;
    if (cudaGetDeviceCount(&device_count) != cudaSuccess || device_count == 0) {
        fprintf(stderr, "no CUDA device: test skipped\n");
        return GPU_TEST_SKIP;
    }
    prof_status status = prof_open(0, &session);
    if (status != PROF_OK) {
        fprintf(stderr, "counters cannot be read here (%s): %s: test skipped\n",
                prof_status_name(status), prof_last_error());
        return prof_status_is_environmental(status) ? GPU_TEST_SKIP : 1;
    }
    int l2_bytes = 0;
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0));
    prelude_sweep.bytes = 2 * (size_t)l2_bytes;
    profiled_sweep.bytes = 4 * (size_t)l2_bytes;
    prelude_sweep.buffer = ml_device_alloc(prelude_sweep.bytes);
    profiled_sweep.buffer = ml_device_alloc(profiled_sweep.bytes);
    ML_CUDA_CHECK(cudaMemset(prelude_sweep.buffer, 0, prelude_sweep.bytes));
    assert_int_equal(prof_set_prelude(session, sweep_prelude, &prelude_sweep), PROF_OK);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_only_sweep_writes_nothing_back),
        cmocka_unit_test(second_kernel_is_refused),
        cmocka_unit_test(two_passes_take_two_launches),
        cmocka_unit_test(ending_before_the_last_pass_is_refused),
        cmocka_unit_test(same_names_again_read_the_new_kernel),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    prof_close(session);
    ml_device_free(prelude_sweep.buffer);
    ml_device_free(profiled_sweep.buffer);
    return failures;
}
