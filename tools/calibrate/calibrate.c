/* memlab_calibrate (./memlab calibrate): measures what the access model needs of this GPU and
 * the runtime does not report, with the instructor's lab programs, and writes a GPU profile
 * (common/gpu_profile.h) that every later run on this GPU reads.
 *
 *   the L1's capacity for global loads   lab 07's chase swept over working sets: where its
 *   the L2's (and its near half)         latency leaves one plateau for the next (below)
 *   the DRAM fill of an L2 miss          lab 04's gather of one float every 132 bytes (each in a
 *                                        line of its own: isolated misses), dram_read_bytes an
 *                                        element; beside the driver's L2 fetch granularity
 *   the DRAM floor of a launch           lab 04's copy of 1 KiB to 2 MiB: dram_read_bytes
 *                                        beyond its data, code and constant bank
 *   the dirty L2                         lab 04's copy of 1.5 to 4 L2s: output less
 *                                        dram_write_bytes; and of 0.3 to 1.0 L2s of reads and
 *                                        writes: how much passes before anything is written
 *   the host link                        lab 09's pinned copy, GB/s
 *   the migration block                  lab 09's sparse touch of managed memory, bytes moved a
 *                                        word read
 *   SMs, threads per SM                  the runtime (cudaDeviceProp)
 *
 * The knees of the chase: knees.h (mt4g's method). Measured on an H100
 * (handouts/instructor/07_hierarchy_map.md): L1 39.6 cycles, 73.8 at 224 KiB, 195.4 at 256 KiB,
 * L2 283.4: halfway at 247 KiB of 256.
 *
 * The children run with MEMLAB_GPU_PROFILES=off and MEMLAB_GPU_TABLE=off, so that neither an
 * earlier profile nor the table steers them. A figure that needs counters is left out of the
 * profile where they cannot be read (the fill then comes from the fetch granularity, and says so).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "gpu_profile.h"
#include "knees.h"
#include "process.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define EXIT_MEASUREMENT 1
#define EXIT_USAGE 2
#define EXIT_NO_DEVICE 3
#define RUN_LIMIT_S 180         /* one lab program's run; the whole takes about a minute */
#define MAX_POINTS 64
#define LINE_BYTES 128

#define GATHER_STRIDE_FLOATS 33 /* 132 bytes: every element in a line of its own */
#define GATHER_ELEMENTS 2097152
#define SPARSE_FLOATS 33554432  /* 128 MiB of managed memory */
#define SPARSE_STRIDE_KIB 8192  /* one word read every 8 MiB: 16 words, far apart */
#define COPY_FLOATS 67108864    /* a 256 MiB pinned copy */

static const char *usage_line =
    "usage: memlab_calibrate --build DIR [--out FILE.json | --status] [--device N]";

typedef struct {
    const char *build;
    char out[1024];
    int device;
    int status_only;            /* --status: where the model's facts come from; measures nothing */
} calibrate_options;

/* What the runtime says of the device. */
typedef struct {
    struct cudaDeviceProp properties;
    char driver[64];
    int runtime_version;
    size_t fetch_granularity;   /* cudaLimitMaxL2FetchGranularity, 0 where not reported */
} device_facts;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int usage(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "memlab calibrate: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, " (%s)\n", usage_line);
    va_end(arguments);
    return EXIT_USAGE;
}

static int measurement_failed(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "memlab calibrate: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, "; no profile written\n");
    va_end(arguments);
    return EXIT_MEASUREMENT;
}

/* ---- the device ------------------------------------------------------------------------------ */

/* The NVIDIA driver's version, as /proc/driver/nvidia/version gives it ("580.95.05": the first
 * word after "Kernel Module" that starts with a digit, since the open module's line reads
 * "Open Kernel Module for x86_64  580.159.04"), or the CUDA version the driver supports where
 * that file is not there. */
static void driver_version(char *text, size_t size)
{
    FILE *file = fopen("/proc/driver/nvidia/version", "r");
    char line[512] = "";
    if (file != NULL) {
        if (fgets(line, sizeof line, file) == NULL)
            line[0] = '\0';
        fclose(file);
    }
    const char *module = strstr(line, "Kernel Module");
    char version[64];
    int used = 0;
    for (const char *word = module != NULL ? module + strlen("Kernel Module") : "";
         sscanf(word, " %63s%n", version, &used) == 1; word += used) {
        if (version[0] >= '0' && version[0] <= '9' && strchr(version, '.') != NULL) {
            snprintf(text, size, "%s", version);
            return;
        }
    }
    int cuda = 0;
    if (cudaDriverGetVersion(&cuda) != cudaSuccess || cuda <= 0) {
        snprintf(text, size, "not known");
        return;
    }
    snprintf(text, size, "a driver for CUDA %d.%d", cuda / 1000, cuda % 1000 / 10);
}

static int query_device(int device, device_facts *facts)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        fprintf(stderr, "memlab calibrate: no usable CUDA device (%s): a profile is measured on "
                        "the GPU it describes\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "none found");
        return EXIT_NO_DEVICE;
    }
    if (device >= count)
        return usage("--device %d: this machine has %d CUDA device(s)", device, count);
    if (cudaSetDevice(device) != cudaSuccess ||
        cudaGetDeviceProperties(&facts->properties, device) != cudaSuccess ||
        cudaRuntimeGetVersion(&facts->runtime_version) != cudaSuccess) {
        fprintf(stderr, "memlab calibrate: device %d cannot be read: %s\n", device,
                cudaGetErrorString(cudaGetLastError()));
        return EXIT_NO_DEVICE;
    }
    if (cudaDeviceGetLimit(&facts->fetch_granularity, cudaLimitMaxL2FetchGranularity) !=
        cudaSuccess) {
        facts->fetch_granularity = 0;
        cudaGetLastError();
    }
    driver_version(facts->driver, sizeof facts->driver);
    /* The lab programs open the device themselves: this process lets go of it. */
    cudaDeviceReset();
    return 0;
}

/* ---- running a lab program ------------------------------------------------------------------- */

/* Runs BUILD/labs/PROGRAM with arguments (NULL-terminated) and --format json --out SCRATCH/
 * PROGRAM.json, and returns the report read (the caller deletes it), or NULL having said why. */
static cJSON *run_lab(const calibrate_options *options, const char *scratch, const char *program,
                      const char *const *arguments)
{
    char path[1200], report[1200], log[1200], device[16];
    snprintf(path, sizeof path, "%s/labs/%s", options->build, program);
    snprintf(report, sizeof report, "%s/%s.json", scratch, program);
    snprintf(log, sizeof log, "%s/%s.log", scratch, program);
    snprintf(device, sizeof device, "%d", options->device);
    char *argv[32];
    int argc = 0;
    argv[argc++] = path;
    for (int i = 0; arguments[i] != NULL && argc < 24; i++)
        argv[argc++] = (char *)arguments[i];
    const char *tail[] = {"--device", device, "--format", "json", "--out", report};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        argv[argc++] = (char *)tail[i];
    argv[argc] = NULL;

    process_options limits = {.stdout_path = log, .stderr_path = log,
                              .time_limit_s = RUN_LIMIT_S};
    process_result result;
    remove(report);
    if (process_run(argv, &limits, &result) != 0) {
        char last[600];
        process_file_tail(log, last, sizeof last);
        char *line = strrchr(last, '\n');
        while (line != NULL && line[1] == '\0' && line != last) {   /* the last line of text */
            *line = '\0';
            line = strrchr(last, '\n');
        }
        fprintf(stderr, "memlab calibrate: %s %s: %s\n", program,
                !result.started ? "could not be started (build it: ./memlab calibrate builds)"
                : result.timed_out ? "ran past its time limit" : "failed",
                line != NULL ? line + 1 : last);
        return NULL;
    }
    FILE *file = fopen(report, "rb");
    char *text = NULL;
    long length = -1;
    if (file != NULL && fseek(file, 0, SEEK_END) == 0 && (length = ftell(file)) > 0 &&
        fseek(file, 0, SEEK_SET) == 0 && (text = malloc((size_t)length + 1)) != NULL) {
        length = (long)fread(text, 1, (size_t)length, file);
        text[length] = '\0';
    }
    if (file != NULL)
        fclose(file);
    cJSON *root = text != NULL ? cJSON_Parse(text) : NULL;
    free(text);
    if (root == NULL)
        fprintf(stderr, "memlab calibrate: %s wrote no report that can be read (%s)\n", program,
                report);
    return root;
}

static double number_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

/* The measured value of the metric with this alias in a record, NaN when not read. */
static double measured_metric(const cJSON *record, const char *alias)
{
    const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(record, "metrics");
    const cJSON *metric;
    cJSON_ArrayForEach(metric, metrics) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(metric, "alias");
        if (cJSON_IsString(name) && strcmp(name->valuestring, alias) == 0)
            return number_of(metric, "measured");
    }
    return NAN;
}

static const cJSON *first_record(const cJSON *report)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "records"), 0);
}

/* Why the report has no counters (its profiler note), for a figure that falls back. */
static const char *profiler_note(const cJSON *report)
{
    const cJSON *note = cJSON_GetObjectItemCaseSensitive(report, "profiler_note");
    return cJSON_IsString(note) ? note->valuestring : "counters not read";
}

/* ---- the chase and its knees ----------------------------------------------------------------- */

static int add_point(double *sizes, int count, double bytes)
{
    long long rounded = (long long)(bytes / LINE_BYTES) * LINE_BYTES;
    if (count >= MAX_POINTS || rounded < 2 * LINE_BYTES ||
        (count > 0 && rounded <= sizes[count - 1]))
        return count;
    sizes[count++] = (double)rounded;
    return count;
}

/* The working sets: 16 KiB (the L1's plateau), 32 to 384 KiB by 16 KiB (any L1 of today, 64 to
 * 256 KiB), 1 and 2 MiB (the L2's plateau); then an eighth of the runtime's L2 to 0.8 of it (the
 * near and far halves), 0.8 to 1.3 of it by 0.025 (its knee), and 1.5, 2 and 4 L2s (DRAM). */
static int chase_sizes(double l2_bytes, double *sizes)
{
    int count = 0;
    count = add_point(sizes, count, 16 * KIB);
    for (double bytes = 32 * KIB; bytes <= 384 * KIB; bytes += 16 * KIB)
        count = add_point(sizes, count, bytes);
    count = add_point(sizes, count, 1 * MIB);
    count = add_point(sizes, count, 2 * MIB);
    const double shares[] = {0.125, 0.25, 0.375, 0.5, 0.625, 0.75};
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++)
        count = add_point(sizes, count, shares[i] * l2_bytes);
    for (int step = 0; step <= 20; step++)
        count = add_point(sizes, count, (0.8 + 0.025 * step) * l2_bytes);
    count = add_point(sizes, count, 1.5 * l2_bytes);
    count = add_point(sizes, count, 2 * l2_bytes);
    count = add_point(sizes, count, 4 * l2_bytes);
    return count;
}

static int measure_chase(const calibrate_options *options, const char *scratch,
                         const device_facts *device, chase_knees *found)
{
    double sizes[MAX_POINTS];
    int count = chase_sizes((double)device->properties.l2CacheSize, sizes);
    char sweep[4096] = "working_set=";
    for (int i = 0; i < count; i++)
        snprintf(sweep + strlen(sweep), sizeof sweep - strlen(sweep), "%s%.0f", i > 0 ? "," : "",
                 sizes[i]);
    const char *arguments[] = {"--variant", "chase", "--stride", "128", "--loads", "8192",
                               "--reps", "1", "--warmup", "0", "--metrics", "none", "--sweep",
                               sweep, NULL};
    cJSON *report = run_lab(options, scratch, "hierarchy_map", arguments);
    if (report == NULL)
        return EXIT_MEASUREMENT;
    chase_point points[MAX_POINTS];
    int read = 0;
    const cJSON *record;
    cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(report, "records")) {
        double bytes = number_of(cJSON_GetObjectItemCaseSensitive(record, "params"), "working_set");
        double cycles = number_of(cJSON_GetObjectItemCaseSensitive(record, "latency"),
                                  "cycles_per_op");
        if (read < MAX_POINTS && isfinite(bytes) && isfinite(cycles))
            points[read++] = (chase_point){bytes, cycles};
    }
    cJSON_Delete(report);
    if (read != count)
        return measurement_failed("hierarchy_map timed %d of the chase's %d working sets", read,
                                  count);
    char error[512];
    if (find_knees(points, count, (double)device->properties.l2CacheSize, found, error,
                   sizeof error) != 0)
        return measurement_failed("%s", error);
    printf("  chase: L1 %.1f cycles a load, L2 %.1f (%.1f at 0.5-0.8 of it), DRAM %.1f: "
           "L1 %.0f KiB, L2 %.1f MiB\n", found->l1_cycles, found->l2_cycles,
           found->l2_far_cycles, found->dram_cycles, found->l1_bytes / KIB,
           found->l2_bytes / MIB);
    return 0;
}

/* ---- the DRAM fill, the host link, the migration block --------------------------------------- */

/* The fill an L2 miss reads: lab 04's gather, dram_read_bytes an element, in whole sectors.
 * Where counters cannot be read, the fill the driver's fetch granularity sets (how says so). */
static int measure_fill(const calibrate_options *options, const char *scratch,
                        const device_facts *device, double *fill, char *how, size_t how_size)
{
    char stride[16], elements[16];
    snprintf(stride, sizeof stride, "%d", GATHER_STRIDE_FLOATS);
    snprintf(elements, sizeof elements, "%d", GATHER_ELEMENTS);
    const char *arguments[] = {"--variant", "strided", "--stride", stride, "--n", elements,
                               "--reps", "1", "--warmup", "0", "--metrics", "dram_read_bytes",
                               NULL};
    cJSON *report = run_lab(options, scratch, "coalescing", arguments);
    if (report == NULL)
        return EXIT_MEASUREMENT;
    double bytes = measured_metric(first_record(report), "dram_read_bytes");
    unsigned limit_fill = 32, limit_fill_high = 32;
    ml_dram_fills_of_limit((unsigned)(device->fetch_granularity > 128 ? 128
                                                                      : device->fetch_granularity),
                           &limit_fill, &limit_fill_high);
    if (!isfinite(bytes)) {
        *fill = limit_fill;
        snprintf(how, how_size, "not measured (%s): the fill the driver's L2 fetch granularity "
                                "(%zu bytes) sets", profiler_note(report),
                 device->fetch_granularity);
        cJSON_Delete(report);
        return 0;
    }
    cJSON_Delete(report);
    double per_element = bytes / GATHER_ELEMENTS;
    *fill = 32 * floor(per_element / 32 + 0.5);
    if (*fill < 32 || *fill > 128)
        return measurement_failed("lab 04's gather read %.1f bytes an element from DRAM: no fill "
                                  "of 32 to 128 bytes", per_element);
    snprintf(how, how_size, "lab 04's gather of one float every %d bytes (%d elements, each in a "
                            "line of its own) read %.1f bytes an element from DRAM "
                            "(dram_read_bytes); the driver's L2 fetch granularity is %zu bytes, "
                            "which sets fills of %u%s", GATHER_STRIDE_FLOATS * 4, GATHER_ELEMENTS,
             per_element, device->fetch_granularity, limit_fill,
             (double)limit_fill == *fill ? ", as measured" : ": the measurement is kept");
    printf("  DRAM fill: %.1f bytes an isolated miss: %.0f (fetch granularity %zu)\n",
           per_element, *fill, device->fetch_granularity);
    return 0;
}

/* The pinned copy's GB/s, NaN where the run gave none. */
static int measure_host_link(const calibrate_options *options, const char *scratch, double *gbps)
{
    char elements[16];
    snprintf(elements, sizeof elements, "%d", COPY_FLOATS);
    const char *arguments[] = {"--variant", "pinned_copy", "--n", elements, "--reps", "3",
                               "--warmup", "1", "--metrics", "none", NULL};
    cJSON *report = run_lab(options, scratch, "unified_memory", arguments);
    if (report == NULL)
        return EXIT_MEASUREMENT;
    *gbps = number_of(first_record(report), "gbps");
    cJSON_Delete(report);
    if (isfinite(*gbps))
        printf("  host link: %.1f GB/s (a %d MiB pinned copy)\n", *gbps, COPY_FLOATS / 262144);
    return 0;
}

/* Bytes the driver migrates for one word read from managed memory; NaN without its counters. */
static int measure_migration(const calibrate_options *options, const char *scratch,
                             double *block_bytes)
{
    char elements[16], stride[16];
    snprintf(elements, sizeof elements, "%d", SPARSE_FLOATS);
    snprintf(stride, sizeof stride, "%d", SPARSE_STRIDE_KIB);
    const char *arguments[] = {"--variant", "managed_sparse", "--n", elements, "--stride_kib",
                               stride, "--reps", "1", "--warmup", "0", "--metrics",
                               "um_htod_bytes", NULL};
    cJSON *report = run_lab(options, scratch, "unified_memory", arguments);
    if (report == NULL)
        return EXIT_MEASUREMENT;
    double bytes = measured_metric(first_record(report), "um_htod_bytes");
    cJSON_Delete(report);
    double words = (double)SPARSE_FLOATS * 4 / (SPARSE_STRIDE_KIB * KIB);
    *block_bytes = bytes / words;
    if (isfinite(*block_bytes))
        printf("  migration block: %.0f KiB a word read\n", *block_bytes / KIB);
    return 0;
}

/* ---- what a launch reads besides its data, and what the L2 keeps of its output ------------- */

/* The floor and the dirty L2, measured as tests/model_census.sh measured the table's on the H100
 * and H200, in far fewer runs: lab 04's copy (out[i] = in[i], a float4 a thread) at sizes where
 * each figure shows alone. The children run with the table and profiles off, so the low end of a
 * prediction of DRAM reads holds the data, the kernel's code and its constant bank, no floor. */
typedef struct {
    int floor_measured, dirty_measured;     /* 0: counters not read (the profile leaves it out) */
    double floor_low, floor_high, dirty_low, dirty_high, traffic_low, traffic_high;
    char floor_how[400], dirty_how[400], traffic_how[400];
} launch_figures;

#define FLOOR_SIZES 12          /* copies of 1 KiB to 2 MiB: no page walks past the first 8 MiB */
#define FLOOR_BURSTS 2          /* the largest samples left out: other agents' bursts */
#define DIRTY_MARGIN 0.25       /* one size's kept bytes varied by a quarter on the H200 */
#define TRAFFIC_STEPS 8         /* copies whose reads and writes pass 0.3 to 1.0 of the L2 */

/* The metric's predicted low end in a record, NaN when absent. */
static double predicted_low(const cJSON *record, const char *alias)
{
    const cJSON *metric;
    cJSON_ArrayForEach(metric, cJSON_GetObjectItemCaseSensitive(record, "metrics")) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(metric, "alias");
        if (cJSON_IsString(name) && strcmp(name->valuestring, alias) == 0)
            return number_of(metric, "predicted_low");
    }
    return NAN;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs a variant of lab 04 (coalesced: the copy) at `count` rising sizes (n: floats written)
 * with its DRAM counters, and returns the report (the caller deletes it), or NULL having said
 * why. */
static cJSON *run_copies(const calibrate_options *options, const char *scratch,
                         const char *variant, const double *floats, int count)
{
    char sweep[2048] = "n=";
    for (int i = 0; i < count; i++)
        snprintf(sweep + strlen(sweep), sizeof sweep - strlen(sweep), "%s%.0f", i > 0 ? "," : "",
                 floats[i]);
    const char *arguments[] = {"--variant", variant, "--reps", "1", "--warmup", "0",
                               "--metrics", "dram_read_bytes,dram_write_bytes", "--sweep", sweep,
                               NULL};
    return run_lab(options, scratch, "coalescing", arguments);
}

/* The floor: what copies of 1 KiB to 2 MiB read beyond their data, code and constants, from the
 * least to the largest but the FLOOR_BURSTS largest, 64 bytes outward. */
static int measure_floor(const calibrate_options *options, const char *scratch,
                         launch_figures *figures)
{
    double floats[FLOOR_SIZES], samples[FLOOR_SIZES];
    for (int i = 0; i < FLOOR_SIZES; i++)
        floats[i] = 256.0 * (1 << i);
    cJSON *report = run_copies(options, scratch, "coalesced", floats, FLOOR_SIZES);
    if (report == NULL)
        return EXIT_MEASUREMENT;
    int count = 0;
    const cJSON *record;
    cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(report, "records")) {
        double beyond = measured_metric(record, "dram_read_bytes") -
                        predicted_low(record, "dram_read_bytes");
        if (isfinite(beyond) && count < FLOOR_SIZES)
            samples[count++] = beyond;
    }
    cJSON_Delete(report);
    if (count < FLOOR_SIZES)
        return 0;   /* counters not read */
    qsort(samples, FLOOR_SIZES, sizeof samples[0], compare_doubles);
    figures->floor_low = fmax(0, 64 * floor(samples[0] / 64));
    figures->floor_high = 64 * ceil(samples[FLOOR_SIZES - 1 - FLOOR_BURSTS] / 64);
    snprintf(figures->floor_how, sizeof figures->floor_how,
             "lab 04's copies of 1 KiB to 2 MiB (%d sizes) read %.0f to %.0f bytes beyond their "
             "data, code and constant bank; the %d largest left out as other agents' bursts; 128 "
             "bytes a 2 MiB page past 8 MiB assumed (the H200's)", FLOOR_SIZES, samples[0],
             samples[FLOOR_SIZES - 1], FLOOR_BURSTS);
    figures->floor_measured = 1;
    printf("  DRAM floor: %.0f to %.0f bytes a launch\n", figures->floor_low,
           figures->floor_high);
    return 0;
}

/* The least share of the L2 that a kernel's traffic (the lines it reads and writes) can pass
 * before the L2 writes any of its output back: of runs of `variant` whose traffic is 0.3, 0.4,
 * ... 1.0 of the L2, the largest share up to which each wrote at most 5% of its output (0 if
 * none did, -1 without counters). traffic_bytes_per_float: what a float written passes. */
static double clean_traffic_share(const calibrate_options *options, const char *scratch,
                                  const char *variant, double traffic_bytes_per_float,
                                  double l2_bytes)
{
    double floats[TRAFFIC_STEPS];
    for (int step = 0; step < TRAFFIC_STEPS; step++)
        floats[step] = floor((0.3 + 0.1 * step) * l2_bytes / traffic_bytes_per_float / 32) * 32;
    cJSON *report = run_copies(options, scratch, variant, floats, TRAFFIC_STEPS);
    if (report == NULL)
        return -1;
    double share = 0;
    int step = 0, clean = 1;
    const cJSON *record;
    cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(report, "records")) {
        if (step >= TRAFFIC_STEPS)
            break;
        double written = measured_metric(record, "dram_write_bytes");
        if (!isfinite(written))
            share = -1;
        clean = clean && share >= 0 && written <= 0.05 * floats[step] * 4;
        if (clean)
            share = 0.3 + 0.1 * step;
        step++;
    }
    cJSON_Delete(report);
    return share;
}

/* The dirty L2: copies of 1.5 to 4 L2s of output leave output - dram_write_bytes of it in the
 * L2; from the least to the most, DIRTY_MARGIN wider. The traffic: the least clean share of the
 * copy (8 bytes a float: read and written) and of the broadcast (out[i] = in[i / 32]: 4 bytes a
 * float and a 32nd of that read; on the H200 a broadcast at 0.51 of the L2 wrote 11% of its
 * output back, where copies up to 0.7 wrote none) is the low end, and the high end is 0.6 more
 * (the width measured on the H100 and H200, 0.5 to 1.1, assumed). */
static int measure_dirty(const calibrate_options *options, const char *scratch, double l2_bytes,
                         launch_figures *figures)
{
    const double output_l2s[] = {1.5, 2, 3, 4};
    double floats[4];
    for (int i = 0; i < 4; i++)
        floats[i] = floor(output_l2s[i] * l2_bytes / 64) * 16;
    cJSON *report = run_copies(options, scratch, "coalesced", floats, 4);
    if (report == NULL)
        return EXIT_MEASUREMENT;
    double least = INFINITY, most = 0;
    int count = 0;
    const cJSON *record;
    cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(report, "records")) {
        double kept = count < 4 ? floats[count] * 4 - measured_metric(record, "dram_write_bytes")
                                : NAN;
        if (isfinite(kept)) {
            least = fmin(least, kept);
            most = fmax(most, kept);
            count++;
        }
    }
    cJSON_Delete(report);
    if (count < 4)
        return 0;   /* counters not read */
    figures->dirty_low = fmax(0, (1 - DIRTY_MARGIN) * least);
    figures->dirty_high = fmin(l2_bytes, (1 + DIRTY_MARGIN) * most);
    snprintf(figures->dirty_how, sizeof figures->dirty_how,
             "lab 04's copies of 1.5, 2, 3 and 4 L2s of output left %.1f to %.1f MB of it in the "
             "L2 (output - dram_write_bytes), a quarter wider each way", least / 1e6, most / 1e6);

    double copy_share = clean_traffic_share(options, scratch, "coalesced", 8, l2_bytes);
    double broadcast_share = clean_traffic_share(options, scratch, "broadcast", 4 + 4.0 / 32,
                                                 l2_bytes);
    if (copy_share <= 0 || broadcast_share <= 0)
        return 0;   /* no counters, or not even 0.3 of the L2 passes: the dirty L2 unmeasured */
    figures->traffic_low = fmin(copy_share, broadcast_share);
    figures->traffic_high = figures->traffic_low + 0.6;
    snprintf(figures->traffic_how, sizeof figures->traffic_how,
             "lab 04's copies wrote at most 5%% of their output while their reads and writes "
             "passed up to %.1f of the L2, its broadcasts up to %.1f (0.3 to 1.0 tried): the "
             "least is the low end; the high end 0.6 more, as on the H100 and H200 (assumed)",
             copy_share, broadcast_share);
    figures->dirty_measured = 1;
    printf("  dirty L2: %.1f to %.1f MB kept; traffic %.1f to %.1f of the L2\n",
           figures->dirty_low / 1e6, figures->dirty_high / 1e6, figures->traffic_low,
           figures->traffic_high);
    return 0;
}

/* ---- the profile ----------------------------------------------------------------------------- */

static int add_figure(cJSON *root, const char *key, double value, const char *how)
{
    cJSON *figure = cJSON_AddObjectToObject(root, key);
    return figure != NULL && cJSON_AddNumberToObject(figure, "value", value) != NULL &&
           cJSON_AddStringToObject(figure, "how", how) != NULL;
}

/* {"low": L, "high": H, "page": P (where P >= 0), "how": "..."} */
static int add_range(cJSON *root, const char *key, double low, double high, double page,
                     const char *how)
{
    cJSON *range = cJSON_AddObjectToObject(root, key);
    return range != NULL && cJSON_AddNumberToObject(range, "low", low) != NULL &&
           cJSON_AddNumberToObject(range, "high", high) != NULL &&
           (page < 0 || cJSON_AddNumberToObject(range, "page", page) != NULL) &&
           cJSON_AddStringToObject(range, "how", how) != NULL;
}

/* The profile's JSON text (the caller frees it), NULL when out of memory. */
static char *profile_text(const device_facts *device, const chase_knees *found, double fill,
                          const char *fill_how, const launch_figures *launch, double link_gbps,
                          double block_bytes, double seconds)
{
    const struct cudaDeviceProp *p = &device->properties;
    char capability[16], cuda[16], date[32], how[512];
    snprintf(capability, sizeof capability, "%d.%d", p->major, p->minor);
    snprintf(cuda, sizeof cuda, "%d.%d", device->runtime_version / 1000,
             device->runtime_version % 1000 / 10);
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    char name[300];
    ml_gpu_profile_file_name(p->name, name, sizeof name);
    name[strlen(name) - strlen(".json")] = '\0';

    cJSON *root = cJSON_CreateObject();
    int ok = root != NULL && cJSON_AddNumberToObject(root, "memlab_gpu_profile",
                                                     ML_GPU_PROFILE_FORMAT) != NULL &&
             cJSON_AddStringToObject(root, "name", name) != NULL &&
             cJSON_AddStringToObject(root, "device_name", p->name) != NULL &&
             cJSON_AddStringToObject(root, "compute_capability", capability) != NULL &&
             cJSON_AddStringToObject(root, "driver_version", device->driver) != NULL &&
             cJSON_AddStringToObject(root, "cuda_version", cuda) != NULL &&
             cJSON_AddStringToObject(root, "written_by", "./memlab calibrate") != NULL &&
             cJSON_AddStringToObject(root, "date", date) != NULL &&
             cJSON_AddNumberToObject(root, "seconds", floor(seconds * 10 + 0.5) / 10) != NULL;
    ok = ok && add_figure(root, "sm_count", p->multiProcessorCount,
                          "cudaDeviceProp.multiProcessorCount");
    ok = ok && add_figure(root, "threads_per_sm", p->maxThreadsPerMultiProcessor,
                          "cudaDeviceProp.maxThreadsPerMultiProcessor");
    snprintf(how, sizeof how, "lab 07's chase (one 128-byte line a link, random order): halfway "
                              "between the L1's %.1f cycles a load and the L2's %.1f",
             found->l1_cycles, found->l2_cycles);
    ok = ok && add_figure(root, "l1_bytes", LINE_BYTES * floor(found->l1_bytes / LINE_BYTES), how);
    snprintf(how, sizeof how, "lab 07's chase: halfway between the L2's %.1f cycles a load (at "
                              "0.5 to 0.8 of it) and DRAM's %.1f; cudaDeviceProp.l2CacheSize is "
                              "%d bytes", found->l2_far_cycles, found->dram_cycles,
             p->l2CacheSize);
    ok = ok && add_figure(root, "l2_bytes", LINE_BYTES * floor(found->l2_bytes / LINE_BYTES), how);
    if (isfinite(found->l2_near_bytes)) {
        snprintf(how, sizeof how, "lab 07's chase: the L2 has two plateaus, %.1f and %.1f cycles "
                                  "a load; halfway between them", found->l2_cycles,
                 found->l2_far_cycles);
        ok = ok && add_figure(root, "l2_near_bytes",
                              LINE_BYTES * floor(found->l2_near_bytes / LINE_BYTES), how);
    }
    ok = ok && add_figure(root, "dram_fill_bytes", fill, fill_how);
    ok = ok && add_figure(root, "l2_fetch_granularity", (double)device->fetch_granularity,
                          "cudaDeviceGetLimit(cudaLimitMaxL2FetchGranularity), 0 where not "
                          "reported");
    if (launch->floor_measured)
        ok = ok && add_range(root, "dram_floor_bytes", launch->floor_low, launch->floor_high,
                             128, launch->floor_how);
    if (launch->dirty_measured)
        ok = ok && add_range(root, "l2_dirty_bytes", launch->dirty_low, launch->dirty_high, -1,
                             launch->dirty_how) &&
             add_range(root, "l2_traffic_share", launch->traffic_low, launch->traffic_high, -1,
                       launch->traffic_how);
    if (isfinite(link_gbps))
        ok = ok && add_figure(root, "host_link_gbps", floor(link_gbps * 10 + 0.5) / 10,
                              "lab 09's pinned copy of 256 MiB to the device, median of 3");
    if (isfinite(block_bytes))
        ok = ok && add_figure(root, "managed_migration_bytes", floor(block_bytes + 0.5),
                              "lab 09's managed_sparse: um_htod_bytes a word read, one word "
                              "every 8 MiB of 128 MiB the CPU wrote last");
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* Writes text to path through a temporary file beside it, so that a reader never sees half. */
static int write_profile(const char *path, const char *text)
{
    char temporary[1100];
    snprintf(temporary, sizeof temporary, "%s.part", path);
    FILE *file = fopen(temporary, "w");
    int ok = file != NULL && fputs(text, file) >= 0 && fputc('\n', file) != EOF;
    if (file != NULL && fclose(file) != 0)
        ok = 0;
    if (!ok || rename(temporary, path) != 0) {
        fprintf(stderr, "memlab calibrate: cannot write %s: %s\n", path, strerror(errno));
        remove(temporary);
        return EXIT_MEASUREMENT;
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------------------------ */

/* The scratch folder and what the runs left in it: each program's report and log. */
static void remove_scratch(const char *scratch)
{
    const char *programs[] = {"hierarchy_map", "coalescing", "unified_memory"};
    char path[1200];
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.json", scratch, programs[i]);
        remove(path);
        snprintf(path, sizeof path, "%s/%s.log", scratch, programs[i]);
        remove(path);
    }
    if (rmdir(scratch) != 0)
        fprintf(stderr, "memlab calibrate: warning: %s was not removed: %s\n", scratch,
                strerror(errno));
}

/* 1 when the folder that would hold path exists and can be written to. */
static int folder_writable(const char *path)
{
    char folder[1024];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (slash == NULL)
        snprintf(folder, sizeof folder, ".");
    else if (slash == folder)
        folder[1] = '\0';
    else
        *slash = '\0';
    struct stat info;
    return stat(folder, &info) == 0 && S_ISDIR(info.st_mode) && access(folder, W_OK | X_OK) == 0;
}

static int parse_options(int argc, char **argv, calibrate_options *options, int *out_given)
{
    *out_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--status") == 0) {
            options->status_only = 1;
            continue;
        }
        if (strcmp(flag, "--build") != 0 && strcmp(flag, "--out") != 0 &&
            strcmp(flag, "--device") != 0)
            return usage("unknown option '%s'", flag);
        if (i + 1 >= argc || argv[i + 1][0] == '\0')
            return usage("%s needs a value", flag);
        const char *value = argv[++i];
        if (strcmp(flag, "--build") == 0) {
            options->build = value;
        } else if (strcmp(flag, "--out") == 0) {
            size_t length = strlen(value);
            if (length < 6 || strcmp(value + length - 5, ".json") != 0 ||
                length >= sizeof options->out)
                return usage("--out writes a .json file, got '%s'", value);
            if (!folder_writable(value))
                return usage("--out: cannot write '%s' (its folder must exist and be writable)",
                             value);
            snprintf(options->out, sizeof options->out, "%s", value);
            *out_given = 1;
        } else {
            char *end = NULL;
            errno = 0;
            long device = strtol(value, &end, 10);
            if (errno != 0 || *end != '\0' || device < 0 || device > 64)
                return usage("--device must be a device index (0, 1, ...), got '%s'", value);
            options->device = (int)device;
        }
    }
    if (options->build == NULL)
        return usage("--build DIR is needed: the build folder that holds labs/");
    if (options->status_only && *out_given)
        return usage("--status writes nothing: give --out or --status, not both");
    return 0;
}

/* --status: where the lab programs on this device take the model's facts from. Returns 0 for a
 * profile or the table, 1 for the defaults (calibrate before grading). */
static int report_status(const device_facts *device)
{
    const struct cudaDeviceProp *p = &device->properties;
    ml_gpu_facts facts = ml_gpu_facts_of_device(p->name, p->major, p->minor,
                                                p->multiProcessorCount, (double)p->l2CacheSize);
    printf("memlab calibrate: %s: the model's facts come from %s\n", p->name, facts.source);
    if (facts.origin != ML_FACTS_DEFAULTS)
        return 0;
    printf("memlab calibrate: neither a profile nor memlab's table knows this GPU: run "
           "./memlab calibrate before grading\n");
    return EXIT_MEASUREMENT;
}

int main(int argc, char **argv)
{
    calibrate_options options = {0};
    int out_given = 0;
    int status = parse_options(argc, argv, &options, &out_given);
    if (status != 0)
        return status;
    char program[1200];
    snprintf(program, sizeof program, "%s/labs/hierarchy_map", options.build);
    if (access(program, X_OK) != 0)
        return usage("--build %s holds no labs/hierarchy_map: build first", options.build);

    double start = now_seconds();
    device_facts device = {0};
    status = query_device(options.device, &device);
    if (status != 0 || options.status_only)
        return status != 0 ? status : report_status(&device);
    if (!out_given) {
        /* The build folder's profiles/, where the lab programs look first. */
        char folder[1100], file_name[300];
        snprintf(folder, sizeof folder, "%s/profiles", options.build);
        if (mkdir(folder, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "memlab calibrate: cannot make %s: %s\n", folder, strerror(errno));
            return EXIT_USAGE;
        }
        ml_gpu_profile_file_name(device.properties.name, file_name, sizeof file_name);
        if (snprintf(options.out, sizeof options.out, "%s/%s", folder, file_name) >=
            (int)sizeof options.out)
            return usage("--build %s: a name too long for a profile's path", options.build);
    }
    char scratch[] = "/tmp/memlab-calibrate-XXXXXX";
    if (mkdtemp(scratch) == NULL) {
        fprintf(stderr, "memlab calibrate: cannot make a scratch folder: %s\n", strerror(errno));
        return EXIT_MEASUREMENT;
    }
    /* The children predict with the defaults alone: no earlier profile steers them, and the
     * low end of a DRAM read prediction holds no floor (measure_floor). */
    setenv("MEMLAB_GPU_PROFILES", "off", 1);
    setenv("MEMLAB_GPU_TABLE", "off", 1);
    printf("memlab calibrate: %s (sm_%d%d, %d SMs, %.1f MiB L2), driver %s\n",
           device.properties.name, device.properties.major, device.properties.minor,
           device.properties.multiProcessorCount, device.properties.l2CacheSize / MIB,
           device.driver);
    fflush(stdout);

    chase_knees found = {0};
    double fill = 0, link_gbps = NAN, block_bytes = NAN;
    char fill_how[600];
    status = measure_chase(&options, scratch, &device, &found);
    if (status == 0)
        status = measure_fill(&options, scratch, &device, &fill, fill_how, sizeof fill_how);
    launch_figures launch = {0};
    if (status == 0)
        status = measure_floor(&options, scratch, &launch);
    if (status == 0)
        status = measure_dirty(&options, scratch, found.l2_bytes, &launch);
    if (status == 0)
        status = measure_host_link(&options, scratch, &link_gbps);
    if (status == 0)
        status = measure_migration(&options, scratch, &block_bytes);
    remove_scratch(scratch);
    if (status != 0)
        return status;

    double seconds = now_seconds() - start;
    char *text = profile_text(&device, &found, fill, fill_how, &launch, link_gbps, block_bytes,
                              seconds);
    if (text == NULL)
        return measurement_failed("out of memory");
    status = write_profile(options.out, text);
    free(text);
    if (status != 0)
        return status;
    /* What was written must read back as a profile of this GPU. */
    ml_gpu_profile profile;
    char error[1024];
    if (ml_gpu_profile_read(options.out, device.properties.name, &profile, error,
                            sizeof error) != 0) {
        fprintf(stderr, "memlab calibrate: the profile written does not read back: %s\n", error);
        return EXIT_MEASUREMENT;
    }
    printf("memlab calibrate: %s written in %.1f s: L1 %.0f KiB, L2 %.1f MiB, %u-byte DRAM "
           "fills, %d threads an SM\n", options.out, seconds, profile.facts.l1_bytes / KIB,
           profile.facts.l2_bytes / MIB, profile.facts.dram_fill_bytes,
           profile.facts.threads_per_sm);
    return 0;
}
