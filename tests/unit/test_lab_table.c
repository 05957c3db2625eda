/* test_lab_table: the variant table's contract. A prediction of a metric the alias table does
 * not know stops the program (exit 5), as do too many variants, a variant without a family, a
 * kernel without a block, a used_by that names no variant or family, and a size read by a variant
 * that does not declare it; a variant's rows show only the sizes it reads. The DRAM predictions
 * every lab makes the same way: a launch's reads are its data and the floor (the kernel's code
 * and constants, page-table walks), its writes the output less what the L2 keeps. No GPU. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_cubin.h"
#include "memlab.h"
#include "report.h"

static void launch_nothing(const ml_problem *problem)
{
    (void)problem;
}

static void setup_nothing(ml_problem *problem)
{
    (void)problem;
}

static double no_bytes(const ml_problem *problem)
{
    (void)problem;
    return 0;
}

static void reference_nothing(const ml_problem *problem, const size_t *position, size_t count,
                              void *values)
{
    (void)problem, (void)position, (void)count, (void)values;
}

/* Reads the sizes every variant of the table below may read: n, and its distance. */
static void predict_reading_offset(const ml_problem *problem, ml_prediction *prediction)
{
    ml_predict(prediction, "gld_requests", (double)ml_size(problem, "n"));
    ml_predict(prediction, "gld_transactions", (double)ml_size(problem, "offset"));
}

static const ml_family copy = {.name = "copy", .device_bytes = no_bytes, .setup = setup_nothing,
                               .fill_inputs = setup_nothing, .reference_at = reference_nothing,
                               .launch = launch_nothing};
static const ml_family shifted_copy = {
    .name = "shifted_copy", .device_bytes = no_bytes, .setup = setup_nothing,
    .fill_inputs = setup_nothing, .reference_at = reference_nothing, .launch = launch_nothing,
    .predict = predict_reading_offset};

static const ml_param test_params[] = {
    {"n", 1000, 1, 1ll << 34, "elements"},
    {"stride", 4, 1, 1024, "strided: distance between lanes", .used_by = "strided"},
    {"offset", 1, 0, 1024, "offset: elements the loads are shifted by", .used_by = "shifted_copy"},
};

/* The exit status of fn(argument) run in a child process, its stderr in `message`. */
static int exit_status_of(void (*fn)(const void *), const void *argument, char *message,
                          size_t size)
{
    int pipe_ends[2];
    assert_int_equal(pipe(pipe_ends), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        dup2(pipe_ends[1], STDERR_FILENO);
        close(pipe_ends[0]);
        fn(argument);
        _exit(0);
    }
    close(pipe_ends[1]);
    ssize_t got = read(pipe_ends[0], message, size - 1);
    message[got > 0 ? got : 0] = '\0';
    close(pipe_ends[0]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void predict_alias(const void *alias)
{
    ml_prediction prediction = {0};
    ml_predict(&prediction, (const char *)alias, 1.0);
}

static void misspelt_prediction_stops_the_program(void **state)
{
    (void)state;
    char message[1024];
    assert_int_equal(exit_status_of(predict_alias, "gld_efficency", message, sizeof message),
                     ML_EXIT_LAB_ERROR);
    assert_non_null(strstr(message, "'gld_efficency'"));
    assert_int_equal(exit_status_of(predict_alias, "gld_efficiency", message, sizeof message), 0);

    ml_prediction prediction = {0};
    ml_predict(&prediction, "gld_transactions_per_request", 16);
    assert_int_equal(prediction.count, 1);
    assert_string_equal(prediction.alias[0], "gld_transactions_per_request");
}

static void run_lab(const void *lab)
{
    char *argv[] = {"testlab", "--model", NULL};
    exit(ml_main_with((const ml_lab *)lab, NULL, 2, argv));
}

static void bad_tables_are_refused(void **state)
{
    (void)state;
    char message[1024];
    static const ml_variant no_block[] = {
        {.name = "naive", .summary = "s", .family = &copy, .kernel = "copy"},
    };
    static const ml_variant no_family[] = {
        {.name = "lonely", .summary = "s", .kernel = "copy", .block = {256}},
    };
    static ml_variant many[ML_MAX_VARIANTS + 1];
    for (int v = 0; v <= ML_MAX_VARIANTS; v++)
        many[v] = (ml_variant){.name = "v", .summary = "s", .family = &copy};
    ml_lab lab = {.program = "testlab", .title = "t", .params = test_params, .num_params = 1};

    lab.variants = no_block;
    lab.num_variants = 1;
    assert_int_equal(exit_status_of(run_lab, &lab, message, sizeof message), ML_EXIT_LAB_ERROR);
    assert_non_null(strstr(message, "variant naive"));

    lab.variants = no_family;
    assert_int_equal(exit_status_of(run_lab, &lab, message, sizeof message), ML_EXIT_LAB_ERROR);
    assert_non_null(strstr(message, "variant lonely"));

    /* test_params says stride is used by "strided": no variant or family of this table. */
    static const ml_variant copies[] = {{.name = "plain", .summary = "s", .family = &copy}};
    lab.variants = copies;
    lab.num_params = 3;
    assert_int_equal(exit_status_of(run_lab, &lab, message, sizeof message), ML_EXIT_LAB_ERROR);
    assert_non_null(strstr(message, "'strided'"));

    lab.variants = many;
    lab.num_variants = ML_MAX_VARIANTS + 1;
    assert_int_equal(exit_status_of(run_lab, &lab, message, sizeof message), ML_EXIT_LAB_ERROR);
    assert_non_null(strstr(message, "at most 64"));

    /* A parameter named "bytes" could not be told from the bytes a record moves. */
    static const ml_param column_named[] = {{"bytes", 1024, 256, 1 << 30, "working set"}};
    ml_lab shadowing = {.program = "testlab", .title = "t", .params = column_named,
                        .num_params = 1, .variants = copies, .num_variants = 1};
    assert_int_equal(exit_status_of(run_lab, &shadowing, message, sizeof message),
                     ML_EXIT_LAB_ERROR);
    assert_non_null(strstr(message, "parameter 'bytes'"));
}

static const ml_variant table_variants[] = {
    {.name = "coalesced", .summary = "s", .family = &copy, .kernel = "copy_coalesced",
     .block = {256}},
    {.name = "strided", .summary = "s", .family = &copy, .kernel = "copy_strided",
     .block = {32, 8}},
    {.name = "offset", .summary = "s", .family = &shifted_copy, .kernel = "copy_offset",
     .block = {256}},
};
static const ml_lab table_lab = {.program = "testlab", .title = "t", .params = test_params,
                                 .num_params = 3, .variants = table_variants, .num_variants = 3};

static void uses_and_blocks(void **state)
{
    (void)state;
    const ml_lab *lab = &table_lab;
    assert_true(ml_variant_uses(lab, &table_variants[1], "n"));
    assert_true(ml_variant_uses(lab, &table_variants[1], "stride"));
    assert_false(ml_variant_uses(lab, &table_variants[1], "offset"));
    assert_false(ml_variant_uses(lab, &table_variants[1], "stri"));
    assert_false(ml_variant_uses(lab, &table_variants[0], "stride"));
    /* By its family's name. */
    assert_true(ml_variant_uses(lab, &table_variants[2], "offset"));
    assert_false(ml_variant_uses(lab, &table_variants[2], "stride"));
    assert_int_equal(ml_threads_per_block(&table_variants[0]), 256);
    assert_int_equal(ml_threads_per_block(&table_variants[1]), 256);

    ml_problem problem = {.lab = lab, .variant = &table_variants[1],
                          .param = (const long long[]){1000, 7, 13}};
    assert_int_equal(ml_size(&problem, "stride"), 7);
    problem.variant = NULL; /* check_params: any declared size */
    assert_int_equal(ml_size(&problem, "offset"), 13);
}

/* A size read by a variant whose used_by does not name it stops the program: here the offset
 * family's predict shared by a variant of another family. */
static const ml_family wrongly_shared = {
    .name = "wrongly_shared", .device_bytes = no_bytes, .setup = setup_nothing,
    .fill_inputs = setup_nothing, .reference_at = reference_nothing, .launch = launch_nothing,
    .predict = predict_reading_offset};

static void undeclared_size_stops_the_program(void **state)
{
    (void)state;
    char message[1024];
    static const ml_variant fine[] = {
        {.name = "offset", .summary = "s", .family = &shifted_copy},
        {.name = "strided", .summary = "s", .family = &copy},
    };
    static const ml_variant wrong[] = {
        {.name = "offset", .summary = "s", .family = &shifted_copy},
        {.name = "strided", .summary = "s", .family = &wrongly_shared},
    };
    ml_lab lab = {.program = "testlab", .title = "t", .params = test_params, .num_params = 3,
                  .variants = fine, .num_variants = 2};
    assert_int_equal(exit_status_of(run_lab, &lab, message, sizeof message), 0);
    lab.variants = wrong;
    assert_int_equal(exit_status_of(run_lab, &lab, message, sizeof message), ML_EXIT_LAB_ERROR);
    assert_non_null(strstr(message, "variant strided reads size 'offset'"));
}

/* The text table leaves a parameter's cell blank in the rows of a variant that does not use it. */
static void rows_show_the_parameters_used(void **state)
{
    (void)state;
    ml_report report = {0};
    report.lab = &table_lab;
    const char *names[] = {"coalesced", "strided", "offset"};
    for (int r = 0; r < 3; r++) {
        ml_record *record = ml_report_add(&report);
        record->variant = names[r];
        record->param[0] = 1000;
        record->param[1] = 7;
        record->param[2] = 13;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&text, &size);
    ml_report_table(&report, stream);
    fclose(stream);
    char line[512];
    int rows_seen = 0;
    /* The results table: the lines up to the first blank one after it starts. */
    const char *results = strstr(text, "\nvariant ");
    assert_non_null(results);
    const char *end = strstr(results + 1, "\n\n");
    for (const char *at = results + 1; *at != '\0' && (end == NULL || at < end);) {
        size_t length = strcspn(at, "\n");
        snprintf(line, sizeof line, "%.*s", (int)length, at);
        at += length + (at[length] == '\n');
        if (strncmp(line, "coalesced ", 10) == 0) {
            assert_non_null(strstr(line, "1000"));
            assert_null(strstr(line, " 7 "));
            assert_null(strstr(line, " 13 "));
            rows_seen++;
        } else if (strncmp(line, "strided ", 8) == 0) {
            assert_non_null(strstr(line, " 7 "));
            assert_null(strstr(line, " 13 "));
            rows_seen++;
        } else if (strncmp(line, "offset ", 7) == 0) {
            assert_null(strstr(line, " 7 "));
            assert_non_null(strstr(line, " 13 "));
            rows_seen++;
        }
    }
    assert_int_equal(rows_seen, 3);
    free(text);
    ml_report_free(&report);
}

static void assert_near(double value, double expected)
{
    if (!(fabs(value - expected) <= 1e-9 * fmax(1.0, fabs(expected))))
        fail_msg("%.12g, expected %.12g", value, expected);
}

/* dram_read_bytes: the data, plus the kernel's code and constant bank in the cubin for the model
 * GPU (the program's own kernels: none is loaded here), plus 1280 to 2944 bytes of walks on an
 * H200 and 128 bytes a 2 MiB page spanned past 8 MiB; a kernel the kernels lack, or a GPU whose
 * architecture they lack: up to 32 KiB of code, and a GPU not measured 0 to 4 KiB of walks. */
static void dram_reads_are_the_data_and_the_floor(void **state)
{
    (void)state;
    static unsigned char fatbin[4096] __attribute__((aligned(16)));
    unsigned char cubin[2048];
    size_t size = fake_fatbin_start(fatbin);
    size_t bytes = fake_cubin(cubin, 90, 8, "copy", 768, 552);
    fake_entry(fatbin, &size, 2, 90, 0x11, cubin, bytes);
    fake_fatbin_end(fatbin, size);
    const ml_kernel_image image = {fatbin, size, "", "kernels.cu", ".", "nvcc", "90"};
    static const ml_variant variants[] = {
        {.name = "coalesced", .summary = "s", .family = &copy, .kernel = "copy", .block = {256}},
        {.name = "other", .summary = "s", .family = &copy, .kernel = "gather", .block = {256}},
    };
    ml_lab lab = {.program = "testlab", .title = "t", .params = test_params, .num_params = 3,
                  .variants = variants, .num_variants = 2, .kernels = &image};
    ml_problem problem = {.lab = &lab, .variant = &variants[0]};
    ml_model_gpu_set(ml_gpu_facts_named("h200"));
    double constants = 0;
    assert_near(ml_kernel_code_bytes(&problem, &constants), 768);
    assert_near(constants, 552);

    ml_prediction prediction = {0};
    ml_predict_dram_reads(&prediction, &problem, 4096, 4096, 4096, NULL);
    assert_near(prediction.low[0], 4096 + 768 + 552 + 1280);
    assert_near(prediction.high[0], 4096 + 768 + 552 + 2944);
    assert_non_null(strstr(prediction.reason[0], "768 B of code and 552 B of constants (sm_90)"));
    /* 20 MiB spanned: 6 pages past the first 8 MiB; a range of data keeps its reason. */
    ml_predict_dram_reads(&prediction, &problem, 1000, 2000, 20 * 1048576.0, "N is read again");
    assert_near(prediction.low[1], 1000 + 768 + 552 + 1280);
    assert_near(prediction.high[1], 2000 + 768 + 552 + 2944 + 6 * 128);
    assert_true(strncmp(prediction.reason[1], "N is read again; ", 17) == 0);

    problem.variant = &variants[1];
    assert_near(ml_kernel_code_bytes(&problem, NULL), 0);
    ml_predict_dram_reads(&prediction, &problem, 4096, 4096, 4096, NULL);
    assert_near(prediction.low[2], 4096 + 1280);
    assert_near(prediction.high[2], 4096 + 32768 + 2944);
    assert_non_null(strstr(prediction.reason[2], "none for sm_90 found"));

    problem.variant = &variants[0];
    ml_model_gpu_set(ml_gpu_facts_named("a100"));
    ml_predict_dram_reads(&prediction, &problem, 4096, 4096, 4096, NULL);
    assert_near(prediction.low[3], 4096);
    assert_near(prediction.high[3], 4096 + 32768 + 4096);
    ml_model_gpu_set(ml_gpu_facts_named("h100"));
}

/* dram_write_bytes on an H200 (60 MiB of L2; it keeps 15.5 to 30 MB of an output dirty, within
 * traffic shares of 0.5 to 1.1 of the L2):
 *   12 MiB written, 12 MiB read: 24 MiB of lines, under 0.5 x 60 MiB: a residue, at most 5% of
 *   the output;
 *   256 MiB written and read: the output less 30 MB to less 15.5 MB;
 *   4 MiB written, 128 MiB of lines read (a float a line): the L2 keeps the output's share of
 *   its traffic capacity, 4/132 of 0.5 to 1.1 x 60 MiB;
 *   30 MiB written, 30 MiB read: 60 MiB, over 0.5 of the L2 and under 1.1: from none of it to
 *   the output less the 15.5 MB kept at least;
 * on a T4, not measured: the output less half its 4 MiB L2, to the output. */
static void dram_writes_are_the_output_less_what_the_l2_keeps(void **state)
{
    (void)state;
    const double mib = 1048576.0, l2 = 60 * mib;
    ml_prediction prediction = {0};
    ml_model_gpu_set(ml_gpu_facts_named("h200"));
    ml_predict_dram_writes_after(&prediction, 12 * mib, 12 * mib, 12 * mib);
    assert_near(prediction.low[0], 0);
    assert_near(prediction.high[0], 0.05 * 12 * mib);
    assert_near(prediction.against[0], 12 * mib);
    ml_predict_dram_writes(&prediction, 256 * mib);
    assert_near(prediction.low[1], 256 * mib - 30e6);
    assert_near(prediction.high[1], 256 * mib - 15.5e6);
    assert_near(prediction.against[1], 0);
    ml_predict_dram_writes_after(&prediction, 4 * mib, 128 * mib, 128 * mib);
    assert_near(prediction.low[2], 4 * mib - 1.1 * l2 * 4 / 132);
    assert_near(prediction.high[2], 4 * mib - 0.5 * l2 * 4 / 132);
    ml_predict_dram_writes_after(&prediction, 30 * mib, 30 * mib, 30 * mib);
    assert_near(prediction.low[3], 0);
    assert_near(prediction.high[3], 30 * mib - 15.5e6);
    assert_near(prediction.against[3], 0);
    /* A sparse gather: 0.5 MiB of lines across 32 MiB (lab 04's strided copy at n 8192, stride
     * 1024) may write a quarter of its output back; across 8 MiB, or dense, the 5% residue. */
    ml_predict_dram_writes_after(&prediction, 32768, 0.5 * mib, 32 * mib);
    assert_near(prediction.low[4], 0);
    assert_near(prediction.high[4], 0.25 * 32768);
    assert_near(prediction.against[4], 32768);
    ml_predict_dram_writes_after(&prediction, 32768, 0.5 * mib, 8 * mib);
    assert_near(prediction.high[5], 0.05 * 32768);
    ml_predict_dram_writes_after(&prediction, 32768, 20 * mib, 32 * mib);
    assert_near(prediction.high[6], 0.05 * 32768);
    ml_model_gpu_set(ml_gpu_facts_named("t4"));
    ml_predict_dram_writes(&prediction, 256 * mib);
    assert_near(prediction.low[7], 254 * mib);
    assert_near(prediction.high[7], 256 * mib);
    ml_model_gpu_set(ml_gpu_facts_named("h100"));
}

/* A run on a GPU takes its fills from the driver's L2 fetch granularity: 32 below 64 bytes, 64 at
 * 64, 128 at 128, 64 to 128 between (not measured); 0 (nothing said) leaves the table's. */
static void fills_follow_the_fetch_granularity(void **state)
{
    (void)state;
    ml_gpu_facts device = ml_gpu_facts_of_device("NVIDIA H200", 9, 0, 132, 62914560.0);
    assert_int_equal(device.dram_fill_bytes, 64);
    ml_gpu_facts_set_fetch_granularity(&device, 32);
    assert_int_equal(device.dram_fill_bytes, 32);
    assert_int_equal(device.dram_fill_high_bytes, 32);
    ml_gpu_facts_set_fetch_granularity(&device, 128);
    assert_int_equal(device.dram_fill_bytes, 128);
    assert_int_equal(device.dram_fill_high_bytes, 128);
    ml_gpu_facts_set_fetch_granularity(&device, 96);
    assert_int_equal(device.dram_fill_bytes, 64);
    assert_int_equal(device.dram_fill_high_bytes, 128);
    ml_gpu_facts_set_fetch_granularity(&device, 64);
    assert_int_equal(device.dram_fill_high_bytes, 64);
    ml_gpu_facts_set_fetch_granularity(&device, 0);
    assert_int_equal(device.dram_fill_bytes, 64);
    ml_gpu_facts unknown = ml_gpu_facts_of_device("NVIDIA L40S", 8, 9, 142, 100663296.0);
    assert_int_equal(unknown.dram_fill_bytes, 32);
    ml_gpu_facts_set_fetch_granularity(&unknown, 64);
    assert_int_equal(unknown.dram_fill_bytes, 64);
    assert_true(unknown.l2_dirty_high_bytes == 0);
    assert_true(device.l2_dirty_high_bytes == 30e6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(misspelt_prediction_stops_the_program),
        cmocka_unit_test(bad_tables_are_refused),
        cmocka_unit_test(uses_and_blocks),
        cmocka_unit_test(undeclared_size_stops_the_program),
        cmocka_unit_test(rows_show_the_parameters_used),
        cmocka_unit_test(dram_reads_are_the_data_and_the_floor),
        cmocka_unit_test(dram_writes_are_the_output_less_what_the_l2_keeps),
        cmocka_unit_test(fills_follow_the_fetch_granularity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
