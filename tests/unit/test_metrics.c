/* test_metrics.c: the metric alias table, its validation against chip names through the CUPTI
 * Profiler Host API (no GPU needed), status names, and the target half's refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "profiler.h"

/* Room for the table's names (it has a few dozen entries, each reading 1 or 2 Perfworks names). */
enum { MAX_NAMES = 64 };

/* ---- the table ---------------------------------------------------------------------------- */

static int is_non_empty(const char *text)
{
    return text != NULL && text[0] != '\0';
}

static void test_table_entries_are_consistent(void **state)
{
    (void)state;
    assert_true(prof_metric_count() > 0);
    assert_null(prof_metric_at(prof_metric_count()));
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const prof_metric *metric = prof_metric_at(i);
        assert_non_null(metric);
        assert_true(is_non_empty(metric->alias));
        assert_non_null(metric->legacy_names);
        assert_true(is_non_empty(metric->unit));
        assert_true(is_non_empty(metric->group));
        assert_true(is_non_empty(metric->meaning));
        if (metric->unified != PROF_UM_NONE) {
            /* Read through the activity API: no Perfworks name, the "unified" group, and a
             * counter prof_unified_end fills. */
            assert_null(metric->perfworks);
            assert_null(metric->numerator);
            assert_string_equal(metric->group, "unified");
            assert_true(metric->unified > PROF_UM_NONE && metric->unified < PROF_UM_COUNTERS);
            const char *inputs[2];
            assert_int_equal(prof_metric_inputs(metric, inputs), 0);
            char full_name[128];
            prof_metric_full_name(metric, full_name, sizeof full_name);
            assert_true(strncmp(full_name, "unified_memory:", strlen("unified_memory:")) == 0);
        } else if (metric->perfworks != NULL) {
            assert_true(is_non_empty(metric->perfworks));
            assert_null(metric->numerator);
            assert_null(metric->denominator);
        } else {
            assert_true(is_non_empty(metric->numerator));
            assert_true(is_non_empty(metric->denominator));
            assert_true(metric->scale > 0.0);
        }
    }
}

/* Collects every alias and legacy name of the table into names (legacy lists split at commas). */
static size_t collect_table_names(char names[][128], size_t capacity)
{
    size_t count = 0;
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const prof_metric *metric = prof_metric_at(i);
        assert_true(count < capacity);
        snprintf(names[count++], 128, "%s", metric->alias);
        const char *start = metric->legacy_names;
        while (*start != '\0') {
            const char *comma = strchr(start, ',');
            size_t length = comma != NULL ? (size_t)(comma - start) : strlen(start);
            assert_true(length > 0 && length < 128);
            assert_true(count < capacity);
            memcpy(names[count], start, length);
            names[count][length] = '\0';
            count++;
            if (comma == NULL)
                break;
            start = comma + 1;
        }
    }
    return count;
}

static void test_aliases_and_legacy_names_are_unique(void **state)
{
    (void)state;
    static char names[2 * MAX_NAMES][128];
    size_t count = collect_table_names(names, 2 * MAX_NAMES);
    for (size_t i = 0; i < count; i++) {
        for (size_t j = i + 1; j < count; j++) {
            if (strcmp(names[i], names[j]) == 0)
                fail_msg("\"%s\" names two metrics (or one twice)", names[i]);
        }
    }
}

static void test_find_by_alias(void **state)
{
    (void)state;
    const prof_metric *metric = prof_metric_find("gld_efficiency");
    assert_non_null(metric);
    assert_string_equal(metric->alias, "gld_efficiency");
    assert_string_equal(metric->perfworks,
                        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");

    metric = prof_metric_find("shared_load_transactions_per_request");
    assert_non_null(metric);
    assert_null(metric->perfworks);

    for (size_t i = 0; i < prof_metric_count(); i++)
        assert_true(prof_metric_find(prof_metric_at(i)->alias) == prof_metric_at(i));
}

static void test_find_by_legacy_name(void **state)
{
    (void)state;
    const prof_metric *metric = prof_metric_find("global_load_efficiency");
    assert_non_null(metric);
    assert_string_equal(metric->alias, "gld_efficiency");

    metric = prof_metric_find("inst_executed_shared_loads");
    assert_non_null(metric);
    assert_string_equal(metric->alias, "shared_load_instructions");
}

static void test_find_by_perfworks_name(void **state)
{
    (void)state;
    const prof_metric *metric = prof_metric_find("dram__bytes_read.sum");
    assert_non_null(metric);
    assert_string_equal(metric->alias, "dram_read_bytes");

    metric = prof_metric_find("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    assert_non_null(metric);
    assert_string_equal(metric->alias, "shared_ld_bank_conflict");
}

static void test_find_unknown_name_is_null(void **state)
{
    (void)state;
    assert_null(prof_metric_find("gld_efficiencyy"));
    assert_null(prof_metric_find("global_load"));        /* part of a legacy name */
    assert_null(prof_metric_find("dram__bytez_read.sum"));
    assert_null(prof_metric_find(""));
    assert_null(prof_metric_find(NULL));
}

static void test_inputs_and_full_name_of_plain_metric(void **state)
{
    (void)state;
    const prof_metric *metric = prof_metric_find("achieved_occupancy");
    assert_non_null(metric);
    const char *inputs[2] = { NULL, NULL };
    assert_int_equal(prof_metric_inputs(metric, inputs), 1);
    assert_string_equal(inputs[0], "sm__warps_active.avg.pct_of_peak_sustained_active");

    char full_name[256];
    prof_metric_full_name(metric, full_name, sizeof full_name);
    assert_string_equal(full_name, "sm__warps_active.avg.pct_of_peak_sustained_active");
}

static void test_inputs_and_full_name_of_derived_metric(void **state)
{
    (void)state;
    const prof_metric *metric = prof_metric_find("gld_transactions_per_request");
    assert_non_null(metric);
    const char *inputs[2] = { NULL, NULL };
    assert_int_equal(prof_metric_inputs(metric, inputs), 2);
    assert_string_equal(inputs[0], "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    assert_string_equal(inputs[1], "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");

    char full_name[256];
    prof_metric_full_name(metric, full_name, sizeof full_name);
    assert_string_equal(full_name, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / "
                                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");

    /* A short buffer gets a truncated, terminated name. */
    char short_name[8];
    prof_metric_full_name(metric, short_name, sizeof short_name);
    assert_string_equal(short_name, "l1tex__");
}

/* ---- validation against chips (Profiler Host API, no GPU) ---------------------------------- */

/* Every distinct Perfworks name the table reads. */
static size_t collect_perfworks_names(const char *names[], size_t capacity)
{
    size_t count = 0;
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const char *inputs[2];
        size_t input_count = prof_metric_inputs(prof_metric_at(i), inputs);
        for (size_t k = 0; k < input_count; k++) {
            int seen = 0;
            for (size_t j = 0; j < count; j++)
                seen = seen || strcmp(names[j], inputs[k]) == 0;
            if (!seen) {
                assert_true(count < capacity);
                names[count++] = inputs[k];
            }
        }
    }
    return count;
}

static void check_chip_accepts_table(const char *chip_name)
{
    const char *names[MAX_NAMES];
    size_t count = collect_perfworks_names(names, MAX_NAMES);
    assert_true(count > 0);

    for (size_t i = 0; i < count; i++) {
        size_t bad_index = 99;
        size_t num_passes = 0;
        prof_status status = prof_validate_metrics(chip_name, &names[i], 1, &bad_index,
                                                   &num_passes);
        if (status != PROF_OK)
            fail_msg("%s rejected %s: %s", chip_name, names[i], prof_last_error());
        assert_true(num_passes >= 1);
    }

    size_t num_passes = 0;
    prof_status status = prof_validate_metrics(chip_name, names, count, NULL, &num_passes);
    if (status != PROF_OK)
        fail_msg("%s rejected the table's names together: %s", chip_name, prof_last_error());
    assert_true(num_passes >= 1);
}

static void test_gh100_accepts_every_table_name(void **state)
{
    (void)state;
    check_chip_accepts_table("GH100");
}

static void test_ad102_accepts_every_table_name(void **state)
{
    (void)state;
    check_chip_accepts_table("AD102");
}

static void test_ga100_accepts_every_table_name(void **state)
{
    (void)state;
    check_chip_accepts_table("GA100");
}

static void test_unknown_metric_is_rejected_with_its_index(void **state)
{
    (void)state;
    const char *names[] = {
        "dram__bytes_read.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "dram__bytez_read.sum",
        "dram__bytes_write.sum",
    };
    size_t bad_index = 99;
    size_t num_passes = 99;
    assert_int_equal(prof_validate_metrics("GH100", names, 4, &bad_index, &num_passes),
                     PROF_ERR_UNKNOWN_METRIC);
    assert_int_equal(bad_index, 2);
    assert_int_equal(num_passes, 99);
    assert_non_null(strstr(prof_last_error(), "dram__bytez_read.sum"));
}

static void test_unknown_chip_is_rejected(void **state)
{
    (void)state;
    const char *names[] = { "dram__bytes_read.sum" };
    prof_status status = prof_validate_metrics("NOSUCHCHIP", names, 1, NULL, NULL);
    assert_int_equal(status, PROF_ERR_UNSUPPORTED_DEVICE);
    assert_non_null(strstr(prof_last_error(), "NOSUCHCHIP"));
    assert_non_null(strstr(prof_last_error(), "GH100"));   /* the message lists known chips */
}

static void test_validate_refuses_missing_arguments(void **state)
{
    (void)state;
    const char *names[] = { "dram__bytes_read.sum", NULL };
    assert_int_equal(prof_validate_metrics(NULL, names, 1, NULL, NULL), PROF_ERR_BAD_STATE);
    assert_int_equal(prof_validate_metrics("GH100", NULL, 1, NULL, NULL), PROF_ERR_BAD_STATE);
    assert_int_equal(prof_validate_metrics("GH100", names, 0, NULL, NULL), PROF_ERR_BAD_STATE);
    assert_int_equal(prof_validate_metrics("GH100", names, 2, NULL, NULL), PROF_ERR_BAD_STATE);
}

/* ---- constant memory and read-only loads (lab 03) ------------------------------------------ */

/* The constant-cache aliases read the names found for GH100 with the Profiler Host API, and a
 * lab's whole set of them validates together (one profiled launch reads them all). */
static void check_constant_set_on_chip(const char *chip_name)
{
    const char *aliases[] = {
        "constant_requests", "constant_hits", "constant_hit_rate", "constant_instructions",
        "constant_requests_per_instruction", "constant_replays", "constant_replays_per_instruction",
        "global_hit_rate", "gld_requests", "gld_transactions",
    };
    const char *names[2 * sizeof aliases / sizeof aliases[0]];
    size_t count = 0;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        const prof_metric *metric = prof_metric_find(aliases[i]);
        assert_non_null(metric);
        const char *inputs[2];
        size_t input_count = prof_metric_inputs(metric, inputs);
        for (size_t k = 0; k < input_count; k++)
            names[count++] = inputs[k];
    }
    size_t num_passes = 0;
    prof_status status = prof_validate_metrics(chip_name, names, count, NULL, &num_passes);
    if (status != PROF_OK)
        fail_msg("%s rejected the constant-cache set: %s", chip_name, prof_last_error());
    assert_true(num_passes >= 1);
}

static void test_constant_cache_aliases(void **state)
{
    (void)state;
    const char *plain[][2] = {
        {"constant_requests", "idc__requests.sum"},
        {"constant_hits", "idc__requests_lookup_hit.sum"},
        {"constant_hit_rate", "idc__request_hit_rate.pct"},
        {"constant_instructions", "smsp__inst_executed_op_ldc.sum"},
        {"constant_replays", "sm__idc_divergent_instruction_replays.sum"},
        {"global_hit_rate", "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"},
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        const prof_metric *metric = prof_metric_find(plain[i][0]);
        assert_non_null(metric);
        assert_string_equal(metric->perfworks, plain[i][1]);
    }
    const char *derived[][3] = {
        {"constant_requests_per_instruction", "idc__requests.sum", "smsp__inst_executed_op_ldc.sum"},
        {"constant_replays_per_instruction", "sm__idc_divergent_instruction_replays.sum",
         "smsp__inst_executed_op_ldc.sum"},
    };
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++) {
        const prof_metric *metric = prof_metric_find(derived[i][0]);
        assert_non_null(metric);
        assert_null(metric->perfworks);
        assert_string_equal(metric->numerator, derived[i][1]);
        assert_string_equal(metric->denominator, derived[i][2]);
    }
    check_constant_set_on_chip("GH100");
    check_constant_set_on_chip("AD102");
    check_constant_set_on_chip("GA100");
}

/* ---- local memory (lab 01) ------------------------------------------------------------------ */

/* The local-memory aliases read the names checked for GH100, and the set lab 01 reads for one
 * variant (sectors, requests, efficiency, shared spills, occupancy) validates together. */
static void check_local_set_on_chip(const char *chip_name)
{
    const char *aliases[] = {
        "local_load_transactions", "local_store_transactions", "local_load_requests",
        "local_store_requests", "local_load_transactions_per_request",
        "local_store_transactions_per_request", "local_load_efficiency", "local_store_efficiency",
        "shared_load_instructions", "shared_store_instructions", "achieved_occupancy",
    };
    const char *names[2 * sizeof aliases / sizeof aliases[0]];
    size_t count = 0;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        const prof_metric *metric = prof_metric_find(aliases[i]);
        assert_non_null(metric);
        const char *inputs[2];
        size_t input_count = prof_metric_inputs(metric, inputs);
        for (size_t k = 0; k < input_count; k++)
            names[count++] = inputs[k];
    }
    size_t num_passes = 0;
    prof_status status = prof_validate_metrics(chip_name, names, count, NULL, &num_passes);
    if (status != PROF_OK)
        fail_msg("%s rejected the local-memory set: %s", chip_name, prof_last_error());
    assert_true(num_passes >= 1);
}

static void test_local_memory_aliases(void **state)
{
    (void)state;
    const char *plain[][2] = {
        {"local_load_transactions", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"},
        {"local_store_transactions", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"},
        {"local_load_requests", "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"},
        {"local_store_requests", "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"},
        {"local_load_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_local_op_ld.pct"},
        {"local_store_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_local_op_st.pct"},
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        const prof_metric *metric = prof_metric_find(plain[i][0]);
        assert_non_null(metric);
        assert_string_equal(metric->perfworks, plain[i][1]);
        assert_string_equal(metric->group, "local");
    }
    const char *derived[][3] = {
        {"local_load_transactions_per_request", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
         "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"},
        {"local_store_transactions_per_request", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
         "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"},
    };
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++) {
        const prof_metric *metric = prof_metric_find(derived[i][0]);
        assert_non_null(metric);
        assert_null(metric->perfworks);
        assert_string_equal(metric->numerator, derived[i][1]);
        assert_string_equal(metric->denominator, derived[i][2]);
        assert_string_equal(metric->group, "local");
    }
    check_local_set_on_chip("GH100");
    check_local_set_on_chip("AD102");
    check_local_set_on_chip("GA100");
    check_local_set_on_chip("TU102");
}

/* ---- statuses ----------------------------------------------------------------------------- */

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(prof_status_name(PROF_OK), "PROF_OK");
    assert_string_equal(prof_status_name(PROF_ERR_NO_DEVICE), "PROF_ERR_NO_DEVICE");
    assert_string_equal(prof_status_name(PROF_ERR_UNSUPPORTED_DEVICE),
                        "PROF_ERR_UNSUPPORTED_DEVICE");
    assert_string_equal(prof_status_name(PROF_ERR_PRIVILEGES), "PROF_ERR_PRIVILEGES");
    assert_string_equal(prof_status_name(PROF_ERR_OTHER_SUBSCRIBER), "PROF_ERR_OTHER_SUBSCRIBER");
    assert_string_equal(prof_status_name(PROF_ERR_UNKNOWN_METRIC), "PROF_ERR_UNKNOWN_METRIC");
    assert_string_equal(prof_status_name(PROF_ERR_BAD_STATE), "PROF_ERR_BAD_STATE");
    assert_string_equal(prof_status_name(PROF_ERR_DROPPED_RANGES), "PROF_ERR_DROPPED_RANGES");
    assert_string_equal(prof_status_name(PROF_ERR_NAN), "PROF_ERR_NAN");
    assert_string_equal(prof_status_name(PROF_ERR_CUPTI), "PROF_ERR_CUPTI");
    assert_string_equal(prof_status_name((prof_status)99), "unknown prof_status");
}

static void test_environmental_statuses(void **state)
{
    (void)state;
    assert_true(prof_status_is_environmental(PROF_ERR_NO_DEVICE));
    assert_true(prof_status_is_environmental(PROF_ERR_UNSUPPORTED_DEVICE));
    assert_true(prof_status_is_environmental(PROF_ERR_PRIVILEGES));
    assert_true(prof_status_is_environmental(PROF_ERR_OTHER_SUBSCRIBER));

    assert_false(prof_status_is_environmental(PROF_OK));
    assert_false(prof_status_is_environmental(PROF_ERR_UNKNOWN_METRIC));
    assert_false(prof_status_is_environmental(PROF_ERR_BAD_STATE));
    assert_false(prof_status_is_environmental(PROF_ERR_DROPPED_RANGES));
    assert_false(prof_status_is_environmental(PROF_ERR_NAN));
    assert_false(prof_status_is_environmental(PROF_ERR_CUPTI));
}

/* ---- the target half's refusals ------------------------------------------------------------ */

static void test_target_half_refuses_null_session(void **state)
{
    (void)state;
    const char *names[] = { "dram__bytes_read.sum" };
    double values[1];
    assert_int_equal(prof_open(0, NULL), PROF_ERR_BAD_STATE);
    assert_int_equal(prof_begin(NULL, names, 1), PROF_ERR_BAD_STATE);
    assert_int_equal(prof_end(NULL, values), PROF_ERR_BAD_STATE);
    int another_pass = 1;
    assert_int_equal(prof_next_pass(NULL, &another_pass), PROF_ERR_BAD_STATE);
    assert_int_equal(prof_set_prelude(NULL, NULL, NULL), PROF_ERR_BAD_STATE);
    assert_string_equal(prof_chip_name(NULL), "");
    prof_close(NULL);
}

/* Without a GPU, prof_open says so. With one, it opens, and refuses a second open and an end
 * without a begin; an environment that cannot read counters (permissions, a profiler attached)
 * skips the rest, as the labs would fall back to timing. */
static void test_open_without_or_with_gpu(void **state)
{
    (void)state;
    int device_count = 0;
    int have_gpu = cudaGetDeviceCount(&device_count) == cudaSuccess && device_count > 0;

    prof_session *session = NULL;
    prof_status status = prof_open(0, &session);
    if (!have_gpu) {
        assert_int_equal(status, PROF_ERR_NO_DEVICE);
        assert_null(session);
        assert_non_null(strstr(prof_last_error(), "no CUDA device"));
        return;
    }
    if (prof_status_is_environmental(status)) {
        print_message("counters cannot be read here (%s): %s\n", prof_status_name(status),
                      prof_last_error());
        skip();
    }
    if (status != PROF_OK)
        fail_msg("prof_open: %s: %s", prof_status_name(status), prof_last_error());
    assert_non_null(session);
    assert_true(is_non_empty(prof_chip_name(session)));

    prof_session *second = NULL;
    assert_int_equal(prof_open(0, &second), PROF_ERR_BAD_STATE);
    assert_null(second);

    double values[1];
    assert_int_equal(prof_end(session, values), PROF_ERR_BAD_STATE);
    int another_pass = 1;
    assert_int_equal(prof_next_pass(session, &another_pass), PROF_ERR_BAD_STATE);
    prof_close(session);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_entries_are_consistent),
        cmocka_unit_test(test_aliases_and_legacy_names_are_unique),
        cmocka_unit_test(test_find_by_alias),
        cmocka_unit_test(test_find_by_legacy_name),
        cmocka_unit_test(test_find_by_perfworks_name),
        cmocka_unit_test(test_find_unknown_name_is_null),
        cmocka_unit_test(test_inputs_and_full_name_of_plain_metric),
        cmocka_unit_test(test_inputs_and_full_name_of_derived_metric),
        cmocka_unit_test(test_gh100_accepts_every_table_name),
        cmocka_unit_test(test_ad102_accepts_every_table_name),
        cmocka_unit_test(test_ga100_accepts_every_table_name),
        cmocka_unit_test(test_unknown_metric_is_rejected_with_its_index),
        cmocka_unit_test(test_unknown_chip_is_rejected),
        cmocka_unit_test(test_validate_refuses_missing_arguments),
        cmocka_unit_test(test_constant_cache_aliases),
        cmocka_unit_test(test_local_memory_aliases),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_environmental_statuses),
        cmocka_unit_test(test_target_half_refuses_null_session),
        cmocka_unit_test(test_open_without_or_with_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
