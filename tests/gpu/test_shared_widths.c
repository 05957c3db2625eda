/* test_shared_widths: the shared-memory wavefronts and bank conflicts of one warp-wide 4-, 8- or
 * 16-byte shared load, measured on the GPU for many lane -> address patterns, beside what the
 * access model (ml_model_shared) predicts for them.
 *
 * The model's rule for 8- and 16-byte loads must be the hardware's, measured, not the folklore
 * of "phases of 16 and 8 lanes": on Hopper lanes that pair on equal addresses halve the
 * wavefronts, and an H200 disagrees with the phase rule on several patterns (16-byte loads of
 * element l/2 take 2 wavefronts, not 4; of element l%8, 4, not 2; an 8-byte broadcast, 1, not
 * 2). Every pattern is one row of a tab-separated table, on stdout and, where the environment
 * variable SHARED_WIDTHS_TSV names a file, in that file with a header line:
 *
 *   width  name  elements (32, comma-separated, -1 inactive)  model_wavefronts
 *   model_conflicts  measured_wavefronts_per_instruction  measured_conflicts_per_instruction
 *
 * so that a run on a new GPU is the data a new rule is written from. Every warp of a launch
 * makes the same loads (shared_widths_kernel.cu); the counters are divided by the shared load
 * instructions, which must be exactly warps x loads per lane (else the compiler merged or split
 * the loads, and the test says so). Measured and modelled must agree within 0.05 per
 * instruction: the conflict counter carries about 0.016 per instruction that no layout removes.
 * Each width's test measures all its patterns, then lists every disagreement in one failure.
 *
 * Without a GPU, or where counters cannot be read, it exits 77, which CTest reports as
 * skipped. */
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

#include <cuda_runtime.h>

#include "gpu_test.h"
#include "memlab.h"
#include "profiler.h"

/* Defined in shared_widths_kernel.cu. */
extern const int shared_widths_loads_per_lane;
extern const int shared_widths_block_threads;
extern const int shared_widths_storage_bytes;
void shared_widths_launch(unsigned width_bytes, const int *element_of_lane, float *sums,
                          int blocks);

/* Per instruction, for wavefronts and for conflicts. */
#define TOLERANCE 0.05
#define INACTIVE (-1)
#define MAX_PATTERNS 96
#define NAME_CHARS 48
#define BLOCKS_PER_SM 8
#define RANDOM_SEED 20240611u
#define RANDOM_PATTERNS_PER_KIND 8
#define RANDOM_ELEMENTS 64
#define SMALL_SET_ELEMENTS 4

typedef struct {
    char name[NAME_CHARS];
    int element_of_lane[ML_WARP_SIZE];  /* INACTIVE: the lane makes no load */
} lane_pattern;

typedef struct {
    lane_pattern patterns[MAX_PATTERNS];
    int count;
} pattern_set;

static const char *const metric_names[] = {
    "smsp__inst_executed_op_shared_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
};
enum { INSTRUCTIONS, WAVEFRONTS, CONFLICTS, METRIC_COUNT };

static const char tsv_header[] =
    "width\tname\telements\tmodel_wavefronts\tmodel_conflicts\t"
    "measured_wavefronts_per_instruction\tmeasured_conflicts_per_instruction\n";

static prof_session *session;
static int *device_element_of_lane;
static float *device_sums;
static int blocks;
static FILE *tsv_file;

static lane_pattern *new_pattern(pattern_set *set, const char *name)
{
    if (set->count == MAX_PATTERNS)
        fail_msg("more than %d patterns: raise MAX_PATTERNS", MAX_PATTERNS);
    lane_pattern *pattern = &set->patterns[set->count++];
    snprintf(pattern->name, sizeof pattern->name, "%s", name);
    return pattern;
}

/* A pattern whose element for each lane is expression, of lane (0..31). */
#define ADD_PATTERN(set, name, expression)                                              \
    do {                                                                                \
        lane_pattern *added_ = new_pattern((set), (name));                              \
        for (int lane = 0; lane < ML_WARP_SIZE; lane++)                                 \
            added_->element_of_lane[lane] = (expression);                               \
    } while (0)

/* xorshift32: the same random patterns on every machine, whatever its C library. */
static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

static void add_random_permutation(pattern_set *set, const char *name, uint32_t *random_state)
{
    lane_pattern *pattern = new_pattern(set, name);
    for (int lane = 0; lane < ML_WARP_SIZE; lane++)
        pattern->element_of_lane[lane] = lane;
    for (int lane = ML_WARP_SIZE - 1; lane > 0; lane--) {
        int other = (int)(next_random(random_state) % (uint32_t)(lane + 1));
        int kept = pattern->element_of_lane[lane];
        pattern->element_of_lane[lane] = pattern->element_of_lane[other];
        pattern->element_of_lane[other] = kept;
    }
}

/* Every lane reads one of a few distinct elements: broadcasts mixed with conflicts. */
static void add_random_small_set(pattern_set *set, const char *name, uint32_t *random_state)
{
    int elements[SMALL_SET_ELEMENTS];
    for (int i = 0; i < SMALL_SET_ELEMENTS; i++) {
        int fresh;
        do {
            elements[i] = (int)(next_random(random_state) % RANDOM_ELEMENTS);
            fresh = 1;
            for (int j = 0; j < i; j++)
                fresh = fresh && elements[j] != elements[i];
        } while (!fresh);
    }
    lane_pattern *pattern = new_pattern(set, name);
    for (int lane = 0; lane < ML_WARP_SIZE; lane++)
        pattern->element_of_lane[lane] =
            elements[next_random(random_state) % SMALL_SET_ELEMENTS];
}

/* Any of 64 elements, about a quarter of the lanes inactive (at least one active). */
static void add_random_sparse(pattern_set *set, const char *name, uint32_t *random_state)
{
    lane_pattern *pattern = new_pattern(set, name);
    int active = 0;
    while (!active) {
        for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
            int inactive = next_random(random_state) % 4 == 0;
            pattern->element_of_lane[lane] =
                inactive ? INACTIVE : (int)(next_random(random_state) % RANDOM_ELEMENTS);
            active += !inactive;
        }
    }
}

/* The 4-byte loads: a control set whose costs the plain bank rule is known to give. */
static void build_4_byte_patterns(pattern_set *set)
{
    set->count = 0;
    uint32_t random_state = RANDOM_SEED;
    ADD_PATTERN(set, "l", lane);
    ADD_PATTERN(set, "l*2", lane * 2);
    ADD_PATTERN(set, "l*32", lane * 32);
    ADD_PATTERN(set, "broadcast_0", 0);
    ADD_PATTERN(set, "l/2", lane / 2);
    add_random_permutation(set, "random_permutation_1", &random_state);
}

/* The 8- and 16-byte loads. elements_per_bank_row is 128 / width. */
static void build_wide_patterns(pattern_set *set, int elements_per_bank_row)
{
    set->count = 0;
    /* Permutations and swaps within a warp. */
    ADD_PATTERN(set, "l", lane);
    ADD_PATTERN(set, "31-l", 31 - lane);
    ADD_PATTERN(set, "l^1", lane ^ 1);
    ADD_PATTERN(set, "l^2", lane ^ 2);
    ADD_PATTERN(set, "l^4", lane ^ 4);
    ADD_PATTERN(set, "l^8", lane ^ 8);
    ADD_PATTERN(set, "l^16", lane ^ 16);
    /* Neighbouring lanes sharing an address. */
    ADD_PATTERN(set, "l/2", lane / 2);
    ADD_PATTERN(set, "l/4", lane / 4);
    ADD_PATTERN(set, "l/8", lane / 8);
    ADD_PATTERN(set, "l/16", lane / 16);
    ADD_PATTERN(set, "broadcast_0", 0);
    /* Groups of lanes repeating the first group's addresses. */
    ADD_PATTERN(set, "l%2", lane % 2);
    ADD_PATTERN(set, "l%4", lane % 4);
    ADD_PATTERN(set, "l%8", lane % 8);
    ADD_PATTERN(set, "l%16", lane % 16);
    /* Lanes sharing an address, the shared addresses spaced out. */
    ADD_PATTERN(set, "(l/2)*2", (lane / 2) * 2);
    ADD_PATTERN(set, "(l/4)*4", (lane / 4) * 4);
    ADD_PATTERN(set, "(l/8)*8", (lane / 8) * 8);
    ADD_PATTERN(set, "(l/2)*3", (lane / 2) * 3);
    ADD_PATTERN(set, "(l/2)*4", (lane / 2) * 4);
    ADD_PATTERN(set, "(l/2)*8", (lane / 2) * 8);
    /* Lanes n and n^2 share an address (pairs on n^2 only), and n and n^4. */
    ADD_PATTERN(set, "(l%2)+2*(l/4)", (lane % 2) + 2 * (lane / 4));
    ADD_PATTERN(set, "(l%4)+4*(l/8)", (lane % 4) + 4 * (lane / 8));
    /* Strides. */
    ADD_PATTERN(set, "l*2", lane * 2);
    ADD_PATTERN(set, "l*3", lane * 3);
    ADD_PATTERN(set, "l*4", lane * 4);
    ADD_PATTERN(set, "l*5", lane * 5);
    ADD_PATTERN(set, "l*8", lane * 8);
    ADD_PATTERN(set, "l*16", lane * 16);
    /* Pairing in part of the warp only. */
    ADD_PATTERN(set, "l/2_first_half_l_second", lane < 16 ? lane / 2 : lane);
    ADD_PATTERN(set, "l_first_quarter_l/2_elsewhere", lane < 8 ? lane : lane / 2);
    ADD_PATTERN(set, "l/2_lane5_reads_100", lane == 5 ? 100 : lane / 2);
    /* Inactive lanes. */
    ADD_PATTERN(set, "l_lanes_0-15", lane < 16 ? lane : INACTIVE);
    ADD_PATTERN(set, "l_even_lanes", lane % 2 == 0 ? lane : INACTIVE);
    ADD_PATTERN(set, "l_lanes_0-7", lane < 8 ? lane : INACTIVE);
    ADD_PATTERN(set, "l_lane_0_only", lane == 0 ? 0 : INACTIVE);
    ADD_PATTERN(set, "l_lanes_0_and_16", lane == 0 || lane == 16 ? lane : INACTIVE);
    /* Pairs on n^1 in the same banks, consecutive pairs one bank row (128 bytes) apart. */
    ADD_PATTERN(set, "(l/2)*bank_row", (lane / 2) * elements_per_bank_row);

    uint32_t random_state = RANDOM_SEED;
    char name[NAME_CHARS];
    for (int i = 1; i <= RANDOM_PATTERNS_PER_KIND; i++) {
        snprintf(name, sizeof name, "random_permutation_%d", i);
        add_random_permutation(set, name, &random_state);
    }
    for (int i = 1; i <= RANDOM_PATTERNS_PER_KIND; i++) {
        snprintf(name, sizeof name, "random_of_4_elements_%d", i);
        add_random_small_set(set, name, &random_state);
    }
    for (int i = 1; i <= RANDOM_PATTERNS_PER_KIND; i++) {
        snprintf(name, sizeof name, "random_sparse_%d", i);
        add_random_sparse(set, name, &random_state);
    }
}

static void build_patterns(pattern_set *set, unsigned width_bytes)
{
    if (width_bytes == 4)
        build_4_byte_patterns(set);
    else
        build_wide_patterns(set, ML_LINE_BYTES / (int)width_bytes);
}

/* Every load of every lane stays inside the kernel's shared storage: load r of a lane reads
 * its element plus r bank rows. */
static void check_pattern_fits(const lane_pattern *pattern, unsigned width_bytes)
{
    int elements_per_bank_row = ML_LINE_BYTES / (int)width_bytes;
    int capacity = shared_widths_storage_bytes / (int)width_bytes;
    for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
        int element = pattern->element_of_lane[lane];
        int last = element + (shared_widths_loads_per_lane - 1) * elements_per_bank_row;
        if (element >= 0 && last >= capacity)
            fail_msg("%u-byte pattern %s: lane %d's last load reads element %d of %d",
                     width_bytes, pattern->name, lane, last, capacity);
    }
}

/* The model's cost per instruction: the mean over the loads each lane makes (one bank row
 * apart, so for a model that looks at banks alone every load costs the same). */
static void model_cost(const lane_pattern *pattern, unsigned width_bytes, double *wavefronts,
                       double *conflicts)
{
    int elements_per_bank_row = ML_LINE_BYTES / (int)width_bytes;
    double wavefront_sum = 0, conflict_sum = 0;
    for (int load = 0; load < shared_widths_loads_per_lane; load++) {
        ml_warp_access access;
        memset(&access, 0, sizeof access);
        access.width_bytes = width_bytes;
        for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
            int element = pattern->element_of_lane[lane];
            if (element < 0)
                continue;
            access.active_mask |= 1u << lane;
            access.address[lane] =
                (uint64_t)(element + load * elements_per_bank_row) * width_bytes;
        }
        ml_shared_cost cost = ml_model_shared(&access);
        wavefront_sum += cost.wavefronts;
        conflict_sum += cost.bank_conflicts;
    }
    *wavefronts = wavefront_sum / shared_widths_loads_per_lane;
    *conflicts = conflict_sum / shared_widths_loads_per_lane;
}

/* One collection of the counters over one launch per pass; values as metric_names. */
static void measure(const lane_pattern *pattern, unsigned width_bytes, double *values)
{
    ML_CUDA_CHECK(cudaMemcpy(device_element_of_lane, pattern->element_of_lane,
                             sizeof pattern->element_of_lane, cudaMemcpyHostToDevice));
    int another_pass = 1;
    prof_status status = prof_begin(session, metric_names, METRIC_COUNT);
    while (status == PROF_OK && another_pass) {
        shared_widths_launch(width_bytes, device_element_of_lane, device_sums, blocks);
        status = prof_next_pass(session, &another_pass);
    }
    if (status == PROF_OK)
        status = prof_end(session, values);
    if (status != PROF_OK)
        fail_msg("%u-byte pattern %s: %s", width_bytes, pattern->name, prof_last_error());
    ML_CUDA_CHECK(cudaDeviceSynchronize());
}

static void print_row(FILE *file, unsigned width_bytes, const lane_pattern *pattern,
                      double model_wavefronts, double model_conflicts,
                      double measured_wavefronts, double measured_conflicts)
{
    fprintf(file, "%u\t%s\t", width_bytes, pattern->name);
    for (int lane = 0; lane < ML_WARP_SIZE; lane++) {
        int element = pattern->element_of_lane[lane];
        fprintf(file, "%s%d", lane > 0 ? "," : "", element < 0 ? INACTIVE : element);
    }
    fprintf(file, "\t%g\t%g\t%.4f\t%.4f\n", model_wavefronts, model_conflicts,
            measured_wavefronts, measured_conflicts);
    fflush(file);
}

/* NaN (a counter that read nothing) is never close. */
static int close_enough(double measured, double modelled)
{
    return fabs(measured - modelled) <= TOLERANCE;
}

static void check_width(unsigned width_bytes)
{
    static pattern_set set;
    build_patterns(&set, width_bytes);
    for (int i = 0; i < set.count; i++)
        check_pattern_fits(&set.patterns[i], width_bytes);

    double warps = (double)blocks * shared_widths_block_threads / ML_WARP_SIZE;
    double expected_instructions = warps * shared_widths_loads_per_lane;
    char *mismatches = NULL;
    size_t mismatches_size = 0;
    FILE *mismatch_list = open_memstream(&mismatches, &mismatches_size);
    assert_non_null(mismatch_list);
    int mismatch_count = 0;

    for (int i = 0; i < set.count; i++) {
        const lane_pattern *pattern = &set.patterns[i];
        double model_wavefronts, model_conflicts, values[METRIC_COUNT];
        model_cost(pattern, width_bytes, &model_wavefronts, &model_conflicts);
        measure(pattern, width_bytes, values);
        double measured_wavefronts = values[WAVEFRONTS] / values[INSTRUCTIONS];
        double measured_conflicts = values[CONFLICTS] / values[INSTRUCTIONS];
        print_row(stdout, width_bytes, pattern, model_wavefronts, model_conflicts,
                  measured_wavefronts, measured_conflicts);
        if (tsv_file != NULL)
            print_row(tsv_file, width_bytes, pattern, model_wavefronts, model_conflicts,
                      measured_wavefronts, measured_conflicts);

        int instructions_right = fabs(values[INSTRUCTIONS] - expected_instructions) < 0.5;
        int costs_right = close_enough(measured_wavefronts, model_wavefronts) &&
                          close_enough(measured_conflicts, model_conflicts);
        if (!instructions_right)
            fprintf(mismatch_list,
                    "  %s: %.0f shared load instructions, not %.0f (%.0f warps x %d loads): "
                    "the compiler merged or split the loads\n",
                    pattern->name, values[INSTRUCTIONS], expected_instructions, warps,
                    shared_widths_loads_per_lane);
        if (!costs_right)
            fprintf(mismatch_list,
                    "  %s: wavefronts %.4f measured, %g modelled; conflicts %.4f measured, "
                    "%g modelled\n",
                    pattern->name, measured_wavefronts, model_wavefronts, measured_conflicts,
                    model_conflicts);
        mismatch_count += !instructions_right || !costs_right;
    }
    fclose(mismatch_list);
    if (mismatch_count > 0) {
        /* One line per print_error: CMocka 1.1.5 cuts each message at 1024 characters. */
        print_error("%d of %d %u-byte patterns disagree with the model (within %.2f per "
                    "instruction):\n", mismatch_count, set.count, width_bytes, TOLERANCE);
        for (char *line = mismatches, *end; *line != '\0'; line = end + 1) {
            end = strchr(line, '\n');
            *end = '\0';
            print_error("%s\n", line);
        }
        free(mismatches);
        fail_msg("%d of %d %u-byte patterns disagree with the model: listed above",
                 mismatch_count, set.count, width_bytes);
    }
    free(mismatches);
}

static void four_byte_loads_match_the_model(void **state)
{
    (void)state;
    check_width(4);
}

static void eight_byte_loads_match_the_model(void **state)
{
    (void)state;
    check_width(8);
}

static void sixteen_byte_loads_match_the_model(void **state)
{
    (void)state;
    check_width(16);
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
    size_t bad_index = 0, passes = 0;
    status = prof_validate_metrics(prof_chip_name(session), metric_names, METRIC_COUNT,
                                   &bad_index, &passes);
    if (status != PROF_OK) {
        fprintf(stderr, "%s cannot count %s: %s\n", prof_chip_name(session),
                metric_names[bad_index], prof_last_error());
        prof_close(session);
        return 1;
    }

    const char *tsv_path = getenv("SHARED_WIDTHS_TSV");
    if (tsv_path != NULL && tsv_path[0] != '\0') {
        tsv_file = fopen(tsv_path, "w");
        if (tsv_file == NULL) {
            fprintf(stderr, "cannot write SHARED_WIDTHS_TSV=%s\n", tsv_path);
            prof_close(session);
            return 1;
        }
        fputs(tsv_header, tsv_file);
    }

    int sm_count = 0;
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    blocks = BLOCKS_PER_SM * sm_count;
    device_element_of_lane = ml_device_alloc(ML_WARP_SIZE * sizeof(int));
    device_sums = ml_device_alloc((size_t)blocks * shared_widths_block_threads * sizeof(float));
    printf("%s: %zu pass(es); %d blocks of %d threads, %d shared loads per lane\n",
           prof_chip_name(session), passes, blocks, shared_widths_block_threads,
           shared_widths_loads_per_lane);
    fputs(tsv_header, stdout);
    fflush(stdout);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(four_byte_loads_match_the_model),
        cmocka_unit_test(eight_byte_loads_match_the_model),
        cmocka_unit_test(sixteen_byte_loads_match_the_model),
    };
    int failures = cmocka_run_group_tests(tests, NULL, NULL);
    if (tsv_file != NULL)
        fclose(tsv_file);
    prof_close(session);
    ml_device_free(device_element_of_lane);
    ml_device_free(device_sums);
    return failures;
}
