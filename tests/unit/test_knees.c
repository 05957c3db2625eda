/* test_knees.c: the knees of lab 07's chase (tools/calibrate/knees.h), which ./memlab calibrate
 * reads cache sizes from. On the staircase recorded on an H100 (handouts/instructor/
 * 07_hierarchy_map.md: 256 KiB of L1, 50 MiB of L2 in two halves) the L1 comes out within 4% of
 * 256 KiB and the near half within 8% of 25 MiB; the L2 at 55.8 MiB, 12% over, because that
 * staircase has no working set between 48 and 64 MiB (calibrate's sweep steps by 0.025 L2s
 * there). A chase with no L1 step, or no step past the L2, is refused with one line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "knees.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* The H100's staircase: working set, cycles a load (chase, 128-byte stride, 16,384 loads). */
static const chase_point h100[] = {
    {16384, 39.6},     {65536, 39.6},     {196608, 39.6},     {229376, 73.8},
    {262144, 195.4},   {327680, 262.0},   {1048576, 283.4},   {16777216, 283.3},
    {29360128, 488.7}, {33554432, 528.7}, {50331648, 541.5},  {67108864, 686.5},
    {134217728, 688.7}, {1073741824, 695.3},
};
#define H100_POINTS (int)(sizeof h100 / sizeof h100[0])

static void h100_staircase(void **state)
{
    (void)state;
    chase_knees found;
    char error[256] = "";
    assert_int_equal(find_knees(h100, H100_POINTS, 50 * MIB, &found, error, sizeof error), 0);
    assert_true(found.l1_cycles == 39.6 && found.l2_cycles == 283.4);
    assert_true(found.l2_far_cycles == 528.7 && found.dram_cycles == 695.3);
    /* halfway (161.5 cycles) between 224 KiB (73.8) and 256 KiB (195.4) */
    assert_float_equal(found.l1_bytes / KIB, 224 + 32 * (161.5 - 73.8) / (195.4 - 73.8), 1e-9);
    assert_true(fabs(found.l1_bytes / (256 * KIB) - 1) < 0.04);
    assert_true(fabs(found.l2_near_bytes / (25 * MIB) - 1) < 0.08);
    /* halfway (612 cycles) between 48 MiB (541.5) and 64 MiB (686.5) */
    assert_float_equal(found.l2_bytes / MIB, 48 + 16 * (612 - 541.5) / (686.5 - 541.5), 1e-9);
}

/* One L2 plateau: no near half. */
static void one_l2_plateau(void **state)
{
    (void)state;
    const chase_point points[] = {{16384, 30}, {131072, 30}, {262144, 200}, {1048576, 250},
                                  {4194304, 250}, {5242880, 252}, {7340032, 400},
                                  {8388608, 500}, {33554432, 500}};
    chase_knees found;
    char error[256];
    assert_int_equal(find_knees(points, 9, 6 * MIB, &found, error, sizeof error), 0);
    assert_true(isnan(found.l2_near_bytes));
    assert_float_equal(found.l1_bytes, 131072 + 131072 * (140 - 30) / 170.0, 1e-6);
    /* the far plateau: 250 cycles at 4 MiB (0.67 of the L2); halfway to DRAM's 500: 375 */
    assert_float_equal(found.l2_bytes, 5242880 + 2097152 * (375 - 252) / 148.0, 1e-6);
}

static void refused(const chase_point *points, int count, double l2, const char *says)
{
    chase_knees found;
    char error[256] = "";
    assert_int_equal(find_knees(points, count, l2, &found, error, sizeof error), -1);
    if (strstr(error, says) == NULL)
        fail_msg("'%s' does not say '%s'", error, says);
    assert_null(strchr(error, '\n'));
}

static void chases_without_steps(void **state)
{
    (void)state;
    const chase_point flat_l1[] = {{16384, 250}, {1048576, 260}, {4194304, 260},
                                   {5242880, 262}, {16777216, 600}};
    refused(flat_l1, 5, 6 * MIB, "no L1 step");
    const chase_point flat_l2[] = {{16384, 30}, {1048576, 250}, {4194304, 250},
                                   {5242880, 262}, {16777216, 270}};
    refused(flat_l2, 5, 6 * MIB, "no step past the L2");
    refused(flat_l2, 2, 6 * MIB, "lacks a working set");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_staircase),
        cmocka_unit_test(one_l2_plateau),
        cmocka_unit_test(chases_without_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
