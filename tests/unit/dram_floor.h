/* dram_floor.h: the floor ml_predict_dram_reads (common/lab_table.c) adds to every dram_read_bytes
 * prediction (the kernel's machine code and constant bank, and what every launch reads besides), read back from
 * the prediction's reason, so that a lab's model test checks its own count of the data apart
 * from it, and checks the floor itself. For the labs' tests (labs/NN_name/tests/test_model.c),
 * which include it after gpu_test.h and cmocka.h. */
#ifndef MEMLAB_DRAM_FLOOR_H
#define MEMLAB_DRAM_FLOOR_H

#include <stdio.h>
#include <string.h>

/* What the floor's reason says: code and constants (0 and 0, code_known 0, when no code of
 * the kernel was found and the high end allows unknown_code bytes for it) and the walks. */
typedef struct {
    double code, constants, unknown_code, walks_low, walks_high;
    int code_known;
} dram_floor;

/* The floor the reason states ("...; and each launch's floor: 640 B of code and 560 B of
 * constants (sm_90) left in DRAM by the L2 flush, 1280-2944 B more (page tables and the like:
 * gpu_facts.c)", or "up to
 * 32768 B of code and constants (none for sm_80 found), ..."); fails the running CMocka test if
 * it states none. */
static inline dram_floor dram_floor_of(const char *reason)
{
    dram_floor floor = {0, 0, 0, 0, 0, 0};
    const char *at = reason != NULL ? strstr(reason, "floor: ") : NULL;
    const char *walks = reason != NULL ? strstr(reason, " B more (page tables") : NULL;
    if (at == NULL || walks == NULL)
        fail_msg("dram_read_bytes: no floor in the reason '%s'", reason ? reason : "(a point)");
    if (sscanf(at, "floor: %lf B of code and %lf B of constants", &floor.code,
               &floor.constants) == 2)
        floor.code_known = 1;
    else if (sscanf(at, "floor: up to %lf B of code and constants", &floor.unknown_code) != 1)
        fail_msg("dram_read_bytes: the floor's code is unreadable in '%s'", reason);
    /* "..., LOW-HIGH B more (page tables ...": back from " B more (page tables" to ", ". */
    const char *comma = NULL;
    for (const char *next = strstr(at, ", "); next != NULL && next < walks;
         next = strstr(next + 1, ", "))
        comma = next;
    if (comma == NULL || sscanf(comma, ", %lf-%lf B", &floor.walks_low, &floor.walks_high) != 2)
        fail_msg("dram_read_bytes: the floor's walks are unreadable in '%s'", reason);
    return floor;
}

/* The data counts of a dram_read_bytes prediction of a record: its low and high ends less the
 * floor's. With check_floor, the floor must be what the H100's and H200's table says: walks of
 * 1280 to at least 2944 bytes, and code of 128 bytes to 32 KiB with a constant bank of 528 bytes
 * (the driver's) or more where the build holds sm_90 code (a build for other architectures
 * only, MEMLAB_CUDA_ARCH=75, has none: up to 32 KiB). */
static inline void dram_data(const cJSON *record, int check_floor, double *data_low,
                             double *data_high)
{
    const char *reason = NULL;
    double low = gpu_test_predicted_low(record, "dram_read_bytes", &reason);
    double high = gpu_test_predicted(record, "dram_read_bytes");
    dram_floor floor = dram_floor_of(reason);
    int code_fits = floor.code_known ? floor.code >= 128 && floor.code <= 32768 &&
                                           floor.constants >= 528
                                     : floor.unknown_code == 32768;
    if (check_floor && (!code_fits || floor.walks_low != 1280 || floor.walks_high < 2944))
        fail_msg("dram_read_bytes: the floor is not the H100/H200's: '%s'", reason);
    *data_low = low - floor.code - floor.constants - floor.walks_low;
    *data_high = high - floor.code - floor.constants - floor.unknown_code - floor.walks_high;
}

#endif
