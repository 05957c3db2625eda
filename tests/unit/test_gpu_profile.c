/* test_gpu_profile.c: GPU profiles (common/gpu_profile.h): the H100 and H200 profiles say what
 * the table says; a bad profile is refused with one line; the order a device's facts come in
 * (its profile, the table, the defaults); the file a device's profile is looked for in.
 *
 * Usage: test_gpu_profile SOURCE_DIR (where tools/calibrate/profiles/ is). No GPU needed.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_facts.h"
#include "gpu_profile.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

static const char *source_dir;
static char scratch[] = "/tmp/memlab-test-gpu-profile-XXXXXX";

/* A device the table knows by a word of its name (H200), whose profile no build folder holds. */
#define TEST_DEVICE "NVIDIA H200 memlab-test"
#define TEST_DEVICE_FILE "nvidia-h200-memlab-test.json"

/* A good profile of TEST_DEVICE, with these figures, and `extra` (JSON members, each followed by
 * a comma) first. */
static void write_profile(const char *path, const char *device, const char *extra,
                          const char *l1_value)
{
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file,
            "{%s \"memlab_gpu_profile\": 1, \"device_name\": \"%s\", \"compute_capability\": "
            "\"9.0\", \"driver_version\": \"580.95.05\", \"cuda_version\": \"13.0\", "
            "\"written_by\": \"./memlab calibrate\", \"date\": \"2026-11-28T15:00:00Z\", "
            "\"sm_count\": {\"value\": 132, \"how\": \"runtime\"}, "
            "\"threads_per_sm\": {\"value\": 1536, \"how\": \"runtime\"}, "
            "\"l1_bytes\": {\"value\": %s, \"how\": \"chase\"}, "
            "\"l2_bytes\": {\"value\": 60817408, \"how\": \"chase\"}, "
            "\"dram_fill_bytes\": {\"value\": 64, \"how\": \"gather\"}}\n",
            extra, device, l1_value);
    fclose(file);
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(scratch));
    char folder[256];
    snprintf(folder, sizeof folder, "%s/memlab", scratch);
    assert_int_equal(mkdir(folder, 0700), 0);
    return 0;
}

/* ---- the H100 and H200 profiles are the table's entries -------------------------------------- */

static void check_profile_is_entry(const char *name)
{
    char path[1024], error[1024];
    snprintf(path, sizeof path, "%s/tools/calibrate/profiles/%s.json", source_dir, name);
    ml_gpu_profile profile;
    if (ml_gpu_profile_read(path, NULL, &profile, error, sizeof error) != 0)
        fail_msg("%s", error);
    const ml_gpu_facts *entry = ml_gpu_facts_named(name), *read = &profile.facts;
    assert_non_null(entry);
    assert_string_equal(read->name, name);
    assert_non_null(strstr(read->device_name, entry->device_name));
    assert_int_equal(read->compute_major, entry->compute_major);
    assert_int_equal(read->compute_minor, entry->compute_minor);
    assert_int_equal(read->sm_count, entry->sm_count);
    assert_int_equal(read->threads_per_sm, entry->threads_per_sm);
    assert_true(read->l1_bytes == entry->l1_bytes);
    assert_true(read->l2_bytes == entry->l2_bytes);
    assert_int_equal(read->dram_fill_bytes, entry->dram_fill_bytes);
    assert_int_equal(read->dram_fill_high_bytes, entry->dram_fill_high_bytes);
    assert_true(read->dram_floor_low_bytes == entry->dram_floor_low_bytes);
    assert_true(read->dram_floor_high_bytes == entry->dram_floor_high_bytes);
    assert_true(read->dram_floor_page_bytes == entry->dram_floor_page_bytes);
    assert_true(read->l2_dirty_low_bytes == entry->l2_dirty_low_bytes);
    assert_true(read->l2_dirty_high_bytes == entry->l2_dirty_high_bytes);
    assert_true(read->l2_traffic_low_share == entry->l2_traffic_low_share);
    assert_true(read->l2_traffic_high_share == entry->l2_traffic_high_share);
    assert_int_equal(profile.launch_figures_measured, 1);
    assert_non_null(strstr(read->source, "profile "));
}

static void h100_and_h200_profiles_are_the_table(void **state)
{
    (void)state;
    check_profile_is_entry("h100");
    check_profile_is_entry("h200");
}

/* ---- bad profiles ---------------------------------------------------------------------------- */

/* The profile at path is refused, with one line that holds `says`. */
static void check_refused(const char *path, const char *device, const char *says)
{
    ml_gpu_profile profile;
    char error[1024] = "";
    assert_int_equal(ml_gpu_profile_read(path, device, &profile, error, sizeof error), -1);
    if (strstr(error, says) == NULL)
        fail_msg("'%s' does not say '%s'", error, says);
    assert_null(strchr(error, '\n'));
    assert_non_null(strstr(error, path));   /* it names the file */
}

/* A good profile with `from` replaced by `to` (the first time it appears) is refused. */
static void check_edit_refused(const char *from, const char *to, const char *says)
{
    char good[512], bad[512];
    snprintf(good, sizeof good, "%s/good.json", scratch);
    snprintf(bad, sizeof bad, "%s/bad.json", scratch);
    write_profile(good, TEST_DEVICE, "", "229376");
    FILE *file = fopen(good, "r");
    assert_non_null(file);
    char text[4096];
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    char *at = strstr(text, from);
    if (at == NULL)
        fail_msg("the test's profile has no '%s'", from);
    file = fopen(bad, "w");
    assert_non_null(file);
    fprintf(file, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    fclose(file);
    check_refused(bad, NULL, says);
}

static void bad_profiles_are_refused_in_one_line(void **state)
{
    (void)state;
    char good[512], path[512];
    snprintf(good, sizeof good, "%s/good.json", scratch);
    write_profile(good, TEST_DEVICE, "", "229376");
    ml_gpu_profile profile;
    char error[1024];
    if (ml_gpu_profile_read(good, TEST_DEVICE, &profile, error, sizeof error) != 0)
        fail_msg("the good profile was refused: %s", error);

    /* missing fields */
    check_edit_refused("\"l1_bytes\": {\"value\": 229376, \"how\": \"chase\"}, ", "",
                       "\"l1_bytes\" is missing");
    check_edit_refused("\"device_name\": \"" TEST_DEVICE "\", ", "", "\"device_name\" is missing");
    check_edit_refused("\"driver_version\": \"580.95.05\", ", "", "\"driver_version\" is missing");
    check_edit_refused(", \"how\": \"gather\"", "", "\"dram_fill_bytes\" must be {");
    check_edit_refused("\"memlab_gpu_profile\": 1", "\"memlab_gpu_profile\": 2",
                       "not a memlab GPU profile of format 1");
    /* negative, fractional and impossible sizes */
    check_edit_refused("\"value\": 60817408", "\"value\": -60817408", "\"l2_bytes\" is -60817408");
    check_edit_refused("\"value\": 229376", "\"value\": -1", "\"l1_bytes\" is -1");
    check_edit_refused("\"value\": 229376", "\"value\": 229376.5", "whole number");
    check_edit_refused("\"value\": 60817408", "\"value\": 200000",
                       "\"l1_bytes\" (229376) must be less than \"l2_bytes\" (200000)");
    check_edit_refused("\"value\": 132", "\"value\": 0", "\"sm_count\" is 0");
    check_edit_refused("\"value\": 1536", "\"value\": 1000", "a multiple of 32");
    check_edit_refused("\"value\": 64", "\"value\": 48", "whole 32-byte sectors");
    check_edit_refused("\"value\": 64", "\"value\": 256", "\"dram_fill_bytes\" is 256");
    check_edit_refused("\"9.0\"", "\"nine\"", "MAJOR.MINOR");
    check_edit_refused("{", "{\"l2_dirty_bytes\": {\"low\": 2, \"high\": 1, \"how\": \"x\"},",
                       "\"l2_dirty_bytes\" is 2 to 1");
    check_edit_refused("{", "{\"dram_floor_bytes\": {\"low\": 1, \"high\": 2, \"how\": \"x\"},",
                       "\"dram_floor_bytes\" must be {");
    check_edit_refused("}}\n", "}", "not a JSON object");
    /* another GPU's name */
    check_refused(good, "NVIDIA H100 80GB HBM3",
                  "a profile of the " TEST_DEVICE ", not of this GPU");
    /* no such file */
    snprintf(path, sizeof path, "%s/none.json", scratch);
    check_refused(path, NULL, "cannot read");
}

/* ---- where a device's facts come from -------------------------------------------------------- */

static void profile_file_names(void **state)
{
    (void)state;
    char name[300];
    ml_gpu_profile_file_name("NVIDIA H200", name, sizeof name);
    assert_string_equal(name, "nvidia-h200.json");
    ml_gpu_profile_file_name("NVIDIA GeForce RTX 4090", name, sizeof name);
    assert_string_equal(name, "nvidia-geforce-rtx-4090.json");
    ml_gpu_profile_file_name("  Tesla V100-SXM2-16GB ", name, sizeof name);
    assert_string_equal(name, "tesla-v100-sxm2-16gb.json");
}

/* The profile in $XDG_CONFIG_HOME/memlab/, then the table, then the defaults, figure by figure. */
static void facts_come_from_the_profile_then_the_table_then_the_defaults(void **state)
{
    (void)state;
    char profile_path[512];
    snprintf(profile_path, sizeof profile_path, "%s/memlab/" TEST_DEVICE_FILE, scratch);
    setenv("XDG_CONFIG_HOME", scratch, 1);
    unsetenv("MEMLAB_GPU_TABLE");
    unsetenv("MEMLAB_GPU_PROFILES");
    remove(profile_path);

    /* No profile: the table's H200. */
    ml_gpu_facts facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l1_bytes == 256 * KIB);
    assert_int_equal(facts.dram_fill_bytes, 64);
    assert_true(facts.l2_dirty_high_bytes == 30e6);
    assert_non_null(strstr(facts.source, "memlab's table (h200)"));
    assert_int_equal(facts.origin, ML_FACTS_TABLE);

    /* The table off: the defaults. */
    setenv("MEMLAB_GPU_TABLE", "off", 1);
    facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l1_bytes == 128 * KIB);
    assert_int_equal(facts.dram_fill_bytes, 32);
    assert_int_equal(facts.threads_per_sm, 2048);
    assert_true(facts.l2_dirty_high_bytes == 0);
    assert_true(facts.l2_bytes == 60 * MIB);
    assert_non_null(strstr(facts.source, "MEMLAB_GPU_TABLE=off"));
    assert_int_equal(facts.origin, ML_FACTS_DEFAULTS);

    /* A profile, the table off: the profile's figures, the rest the defaults. */
    write_profile(profile_path, TEST_DEVICE, "", "229376");
    facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l1_bytes == 229376);
    assert_true(facts.l2_bytes == 60817408);
    assert_int_equal(facts.threads_per_sm, 1536);
    assert_int_equal(facts.dram_fill_bytes, 64);
    assert_true(facts.l2_dirty_high_bytes == 0);
    assert_true(facts.dram_floor_high_bytes == 4 * KIB);
    assert_int_equal(facts.sm_count, 132);
    assert_non_null(strstr(facts.source, profile_path));
    assert_non_null(strstr(facts.source, "from the defaults"));
    assert_int_equal(facts.origin, ML_FACTS_PROFILE);

    /* A profile, the table on: the profile's figures, the DRAM floor and dirty L2 the table's. */
    unsetenv("MEMLAB_GPU_TABLE");
    facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l1_bytes == 229376);
    assert_int_equal(facts.threads_per_sm, 1536);
    assert_true(facts.l2_dirty_high_bytes == 30e6);
    assert_true(facts.dram_floor_low_bytes == 1.25 * KIB);
    assert_non_null(strstr(facts.source, "from memlab's table"));

    /* A profile that measured the launch's figures too: all of them its own. */
    write_profile(profile_path, TEST_DEVICE,
                  "\"l2_dirty_bytes\": {\"low\": 1e6, \"high\": 2e6, \"how\": \"census\"},",
                  "229376");
    facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l2_dirty_high_bytes == 2e6);
    assert_null(strstr(facts.source, "from memlab's table"));

    /* MEMLAB_GPU_PROFILES=off (calibrate's own runs): the table again. */
    setenv("MEMLAB_GPU_PROFILES", "off", 1);
    facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l1_bytes == 256 * KIB);
    unsetenv("MEMLAB_GPU_PROFILES");

    /* A profile in the device's file that names another GPU, or is broken: said, and not used. */
    write_profile(profile_path, "NVIDIA H100 80GB HBM3", "", "229376");
    facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l1_bytes == 256 * KIB);
    write_profile(profile_path, TEST_DEVICE, "", "-5");
    facts = ml_gpu_facts_of_device(TEST_DEVICE, 9, 0, 132, 60 * MIB);
    assert_true(facts.l1_bytes == 256 * KIB);
    assert_non_null(strstr(facts.source, "memlab's table (h200)"));

    /* A GPU neither has: the defaults, which say it is not in the table. */
    facts = ml_gpu_facts_of_device("memlab test GPU", 8, 6, 82, 6 * MIB);
    assert_true(facts.l1_bytes == 128 * KIB);
    assert_non_null(strstr(facts.source, "not in memlab's table"));
    remove(profile_path);
}

/* --gpu-profile FILE: the profile's facts, for --model; a bad one is NULL with its line. */
static void gpu_profile_load(void **state)
{
    (void)state;
    char path[512], error[1024] = "";
    snprintf(path, sizeof path, "%s/tools/calibrate/profiles/h200.json", source_dir);
    const ml_gpu_facts *facts = ml_gpu_profile_load(path, error, sizeof error);
    assert_non_null(facts);
    assert_string_equal(facts->name, "h200");
    assert_true(facts->l2_bytes == 60 * MIB);
    snprintf(path, sizeof path, "%s/none.json", scratch);
    assert_null(ml_gpu_profile_load(path, error, sizeof error));
    assert_non_null(strstr(error, "cannot read"));
}

static int teardown(void **state)
{
    (void)state;
    char path[512];
    const char *files[] = {"good.json", "bad.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", scratch, files[i]);
        remove(path);
    }
    snprintf(path, sizeof path, "%s/memlab", scratch);
    rmdir(path);
    rmdir(scratch);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_gpu_profile SOURCE_DIR\n");
        return 2;
    }
    source_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_and_h200_profiles_are_the_table),
        cmocka_unit_test(bad_profiles_are_refused_in_one_line),
        cmocka_unit_test(profile_file_names),
        cmocka_unit_test(facts_come_from_the_profile_then_the_table_then_the_defaults),
        cmocka_unit_test(gpu_profile_load),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
