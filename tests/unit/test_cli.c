/* test_cli: the shared command line, every bad input included. No GPU needed. */
#define _DEFAULT_SOURCE /* mkstemps */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kernel_loader.h"

static const ml_param test_params[] = {
    {"n", 1000, 1, 1ll << 34, "elements"},
    {"stride", 4, 1, 1024, "stride"},
};
static const ml_variant test_variants[] = {
    {.name = "first", .summary = "the first variant", .metrics = "gld_efficiency"},
    {.name = "second", .summary = "the second variant", .metrics = "gld_efficiency"},
};
static const ml_lab test_lab = {
    "testlab", "a lab for tests", test_params, 2, test_variants, 2, NULL, NULL, NULL,
};

static int parse(ml_options *options, char *error, const char *first, ...)
{
    char *argv[32] = {"testlab"};
    int argc = 1;
    va_list arguments;
    va_start(arguments, first);
    for (const char *word = first; word != NULL; word = va_arg(arguments, const char *))
        argv[argc++] = (char *)word;
    va_end(arguments);
    return ml_parse_args(&test_lab, argc, argv, options, error, 256);
}

/* Parses argv and expects exit status 2 with a message that contains `expected`. */
#define REFUSED(expected, ...)                                                                  \
    do {                                                                                        \
        ml_options options;                                                                     \
        char error[256];                                                                        \
        assert_int_equal(parse(&options, error, __VA_ARGS__, NULL), ML_EXIT_USAGE);            \
        assert_non_null(strstr(error, expected));                                               \
        assert_null(strchr(error, '\n'));                                                       \
    } while (0)

static void defaults(void **state)
{
    (void)state;
    ml_options options;
    char error[256];
    char *argv[] = {"testlab"};
    assert_int_equal(ml_parse_args(&test_lab, 1, argv, &options, error, sizeof error), ML_EXIT_OK);
    assert_int_equal(options.action, ML_ACTION_RUN);
    assert_int_equal(options.variant_selected[0], 1);
    assert_int_equal(options.variant_selected[1], 1);
    assert_int_equal(options.param[0], 1000);
    assert_int_equal(options.param[1], 4);
    assert_int_equal(options.sweep_param, -1);
    assert_int_equal(ml_sweep_count(&options), 1);
    assert_int_equal(options.reps, 10);
    assert_int_equal(options.warmup, 2);
    assert_int_equal(options.seed_given, 0);
    assert_string_equal(options.metrics, "default");
    assert_int_equal(options.format, ML_FORMAT_TABLE);
    assert_null(options.out_path);
    assert_int_equal(options.device, 0);
}

static void every_flag(void **state)
{
    (void)state;
    ml_options options;
    char error[256];
    assert_int_equal(parse(&options, error, "--variant", "second", "--n", "77", "--stride", "3",
                           "--reps", "5", "--warmup", "0", "--seed", "18446744073709551615",
                           "--metrics", "dram", "--format", "json", "--out", "/tmp/memlab_cli.json",
                           "--device", "1", NULL),
                     ML_EXIT_OK);
    assert_int_equal(options.variant_selected[0], 0);
    assert_int_equal(options.variant_selected[1], 1);
    assert_int_equal(options.param[0], 77);
    assert_int_equal(options.param[1], 3);
    assert_int_equal(options.reps, 5);
    assert_int_equal(options.warmup, 0);
    assert_true(options.seed == UINT64_MAX);
    assert_int_equal(options.seed_given, 1);
    assert_string_equal(options.metrics, "dram");
    assert_int_equal(options.format, ML_FORMAT_JSON);
    assert_string_equal(options.out_path, "/tmp/memlab_cli.json");
    assert_int_equal(options.device, 1);

    assert_int_equal(parse(&options, error, "--model", "--variant", "all", NULL), ML_EXIT_OK);
    assert_int_equal(options.action, ML_ACTION_MODEL);
    assert_int_equal(options.variant_selected[0] + options.variant_selected[1], 2);
    assert_int_equal(parse(&options, error, "--variant", "second,first", NULL), ML_EXIT_OK);
    assert_int_equal(options.variant_selected[0] + options.variant_selected[1], 2);
    assert_int_equal(parse(&options, error, "--list", NULL), ML_EXIT_OK);
    assert_int_equal(options.action, ML_ACTION_LIST);
    assert_int_equal(parse(&options, error, "--n", "5x", "--help", NULL), ML_EXIT_USAGE);
    assert_int_equal(parse(&options, error, "--help", "--n", "5x", NULL), ML_EXIT_OK);
    assert_int_equal(options.action, ML_ACTION_HELP);
}

static void sweeps(void **state)
{
    (void)state;
    ml_options options;
    char error[256];
    long long param[ML_MAX_PARAMS];
    assert_int_equal(parse(&options, error, "--sweep", "stride=1:32", NULL), ML_EXIT_OK);
    assert_int_equal(options.sweep_param, 1);
    assert_int_equal(ml_sweep_count(&options), 32);
    ml_sweep_point(&options, 31, param);
    assert_int_equal(param[1], 32);
    assert_int_equal(param[0], 1000);

    assert_int_equal(parse(&options, error, "--sweep", "n=100:1000:300", NULL), ML_EXIT_OK);
    assert_int_equal(ml_sweep_count(&options), 4); /* 100, 400, 700, 1000 */
    ml_sweep_point(&options, 3, param);
    assert_int_equal(param[0], 1000);

    assert_int_equal(parse(&options, error, "--sweep", "stride=7:7", NULL), ML_EXIT_OK);
    assert_int_equal(ml_sweep_count(&options), 1);

    /* A list: these values, in this order (a log-spaced sweep). */
    assert_int_equal(parse(&options, error, "--sweep", "stride=1,2,4,32", NULL), ML_EXIT_OK);
    assert_int_equal(options.sweep_param, 1);
    assert_int_equal(ml_sweep_count(&options), 4);
    ml_sweep_point(&options, 2, param);
    assert_int_equal(param[1], 4);
    ml_sweep_point(&options, 3, param);
    assert_int_equal(param[1], 32);
    assert_int_equal(param[0], 1000);
}

static void unknown_flags_and_variants(void **state)
{
    (void)state;
    REFUSED("unknown flag '--bogus'", "--bogus", "1");
    REFUSED("unknown variant 'third'", "--variant", "third");
    REFUSED("unknown variant 'third'", "--variant", "first,third");
    REFUSED("unknown variant ''", "--variant", "first,");
    REFUSED("unexpected argument 'stray'", "stray");
    REFUSED("--format must be table, csv or json", "--format", "xml");
    REFUSED("unknown flag", "--n=5");
}

/* A refusal's hint is a command a user can type from the project's root. */
static void hints_name_commands(void **state)
{
    (void)state;
    REFUSED("unknown flag '--bogus' (./memlab run testlab --help lists them)", "--bogus", "1");
    REFUSED("unexpected argument 'stray' (flags start with --: ./memlab run testlab --help)",
            "stray");
    REFUSED("unknown variant 'third' (./memlab run testlab --list shows them)", "--variant",
            "third");
    REFUSED("'width' is not a parameter of testlab (./memlab run testlab --help lists them)",
            "--sweep", "width=1:4");
}

/* The include rule names the lab's header, or says the lab has none (this one has no kernels
 * image, so no header). */
static void kernels_include_rule(void **state)
{
    (void)state;
    char path[] = "/tmp/test_cli_XXXXXX.cu";
    int descriptor = mkstemps(path, 3);
    assert_true(descriptor >= 0);
    assert_int_equal(write(descriptor, "#include \"testlab.h\"\n", 21), 21);
    close(descriptor);
    REFUSED("#include \"testlab.h\" is not allowed: a kernels file includes only CUDA headers "
            "(<cuda_runtime.h>, ...); this lab has no header", "--kernels", path);
    unlink(path);
    char error[256];
    assert_int_equal(ml_kernels_check_source("#include \"testlab.h\"\n", "testlab.h", error,
                                             sizeof error), 0);
    assert_int_equal(ml_kernels_check_source("#include \"rubric\"\n", "testlab.h", error,
                                             sizeof error), -1);
    assert_non_null(strstr(error, "includes only CUDA headers (<cuda_runtime.h>, ...) and "
                                  "\"testlab.h\""));
    assert_int_equal(ml_kernels_check_source("#include \"testlab.h\"\n", NULL, error,
                                             sizeof error), -1);
    assert_non_null(strstr(error, "; this lab has no header"));
}

static void missing_values(void **state)
{
    (void)state;
    REFUSED("--n needs a value", "--n");
    REFUSED("--variant needs a value", "--variant");
    REFUSED("--out needs a value", "--out");
    REFUSED("--sweep needs a value", "--sweep");
}

static void bad_numbers(void **state)
{
    (void)state;
    REFUSED("--n must be a whole number", "--n", "abc");
    REFUSED("--n must be a whole number", "--n", "5x");
    REFUSED("--n must be a whole number", "--n", "");
    REFUSED("--n must be a whole number", "--n", " 5");
    REFUSED("--n must be a whole number", "--n", "+5");
    REFUSED("--n must be a whole number", "--n", "1.5");
    REFUSED("--n must be a whole number", "--n", "0");
    REFUSED("--n must be a whole number", "--n", "-3");
    REFUSED("--n must be a whole number", "--n", "99999999999999999999");
    REFUSED("--n must be a whole number", "--n", "17179869185"); /* above the lab's maximum */
    REFUSED("--stride must be a whole number", "--stride", "1025");
    REFUSED("--reps must be a whole number", "--reps", "0");
    REFUSED("--reps must be a whole number", "--reps", "-1");
    REFUSED("--warmup must be a whole number", "--warmup", "-1");
    REFUSED("--seed must be a whole number", "--seed", "-1");
    REFUSED("--seed must be a whole number", "--seed", "18446744073709551616");
    REFUSED("--seed must be a whole number", "--seed", "12ab");
    REFUSED("--device must be a device index", "--device", "-1");
    REFUSED("--device must be a device index", "--device", "x");
    REFUSED("no GPU 'v100' in memlab's table (h100, h200, a100, l4, t4, rtx4090)", "--model",
            "--gpu", "v100");
    REFUSED("use it with --model", "--gpu", "h200");
}

static void bad_sweeps(void **state)
{
    (void)state;
    REFUSED("is empty", "--sweep", "stride=32:1");
    REFUSED("not a parameter", "--sweep", "width=1:4");
    REFUSED("expects PARAM=FIRST:LAST", "--sweep", "stride");
    REFUSED("expects PARAM=FIRST:LAST", "--sweep", "stride=4");
    REFUSED("expects PARAM=FIRST:LAST", "--sweep", "stride=1:2:3:4");
    REFUSED("bounds must be whole numbers", "--sweep", "stride=0:4");
    REFUSED("bounds must be whole numbers", "--sweep", "stride=1:x");
    REFUSED("bounds must be whole numbers", "--sweep", "stride=1:2000");
    REFUSED("step must be a positive whole number", "--sweep", "stride=1:8:0");
    REFUSED("step must be a positive whole number", "--sweep", "stride=1:8:-2");
    REFUSED("more than", "--sweep", "n=1:100000");
    REFUSED("expects PARAM=FIRST:LAST", "--sweep", "stride=1:4,8");
    REFUSED("expects PARAM=FIRST:LAST", "--sweep", "stride=1,,8");
    REFUSED("expects PARAM=FIRST:LAST", "--sweep", "stride=1,8,");
    REFUSED("the values must rise, got 2 after 4", "--sweep", "stride=1,4,2");
    REFUSED("the values must rise, got 4 after 4", "--sweep", "stride=4,4");
    REFUSED("values must be whole numbers in [1, 1024], got '0'", "--sweep", "stride=0,4");
    REFUSED("values must be whole numbers in [1, 1024], got 'x'", "--sweep", "stride=2,x");
}

static void unwritable_output(void **state)
{
    (void)state;
    REFUSED("does not exist or is not writable", "--out", "/nonexistent/directory/report.json");
    REFUSED("--out needs a file name", "--out", "");
    /* Refusing must not create the file. */
    assert_int_not_equal(access("/nonexistent/directory/report.json", F_OK), 0);
}

/* --model --gpu NAME: the predictions are for that GPU of the table; --model alone leaves the
 * choice to the harness (the H100). */
static void model_for_a_named_gpu(void **state)
{
    (void)state;
    ml_options options;
    char error[256];
    assert_int_equal(parse(&options, error, "--model", "--gpu", "a100", NULL), ML_EXIT_OK);
    assert_int_equal(options.action, ML_ACTION_MODEL);
    assert_non_null(options.model_gpu);
    assert_string_equal(options.model_gpu->name, "a100");
    assert_int_equal(options.model_gpu->dram_fill_bytes, 32);
    assert_int_equal(parse(&options, error, "--model", NULL), ML_EXIT_OK);
    assert_null(options.model_gpu);
    assert_int_equal(ml_gpu_facts_named("h100")->dram_fill_bytes, 64);
    /* Names as NVIDIA writes them are the same GPUs. */
    assert_ptr_equal(ml_gpu_facts_named("H100"), ml_gpu_facts_named("h100"));
    assert_ptr_equal(ml_gpu_facts_named("RTX4090"), ml_gpu_facts_named("rtx4090"));
    assert_null(ml_gpu_facts_named("h10"));
    assert_null(ml_gpu_facts_named("h1000"));
}

/* A device the table knows by a word of its name gets its fills; another gets the sector. */
static void facts_of_a_device(void **state)
{
    (void)state;
    ml_gpu_facts h100 = ml_gpu_facts_of_device("NVIDIA H100 80GB HBM3", 9, 0, 132, 52428800.0);
    assert_int_equal(h100.dram_fill_bytes, 64);
    assert_int_equal(h100.sm_count, 132);
    ml_gpu_facts l40s = ml_gpu_facts_of_device("NVIDIA L40S", 8, 9, 142, 100663296.0);
    assert_int_equal(l40s.dram_fill_bytes, 32);
    assert_non_null(strstr(l40s.source, "not in memlab's table"));
    ml_gpu_facts l4 = ml_gpu_facts_of_device("NVIDIA L4", 8, 9, 58, 50331648.0);
    assert_non_null(strstr(l4.source, "L4 datasheet"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(every_flag),
        cmocka_unit_test(sweeps),
        cmocka_unit_test(unknown_flags_and_variants),
        cmocka_unit_test(hints_name_commands),
        cmocka_unit_test(kernels_include_rule),
        cmocka_unit_test(missing_values),
        cmocka_unit_test(bad_numbers),
        cmocka_unit_test(bad_sweeps),
        cmocka_unit_test(unwritable_output),
        cmocka_unit_test(model_for_a_named_gpu),
        cmocka_unit_test(facts_of_a_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
