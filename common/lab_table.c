/* lab_table.c: what a lab's table and its predictions may call (memlab.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "memlab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_facts.h"
#include "profiler.h"

void ml_predict_range(ml_prediction *prediction, const char *alias, double low, double high,
                      const char *reason)
{
    const prof_metric *known = prof_metric_find(alias);
    if (known == NULL || strcmp(known->alias, alias) != 0) {
        fprintf(stderr, "memlab: a prediction names metric '%s', which is no alias of the metric "
                        "table (./memlab list --metrics): a bug in the lab's predict\n", alias);
        exit(ML_EXIT_LAB_ERROR);
    }
    if (prediction->count == ML_MAX_METRICS) {
        fprintf(stderr, "memlab: more than %d predictions for one variant\n", ML_MAX_METRICS);
        exit(ML_EXIT_LAB_ERROR);
    }
    int i = prediction->count++;
    prediction->alias[i] = alias;
    prediction->value[i] = high;
    prediction->low[i] = low;
    prediction->high[i] = high;
    prediction->reason[i] = reason;
    prediction->against[i] = 0;
}

void ml_predict_residue(ml_prediction *prediction, const char *alias, double high, double against,
                        const char *reason)
{
    ml_predict_range(prediction, alias, 0, high, reason);
    prediction->against[prediction->count - 1] = against;
}

void ml_predict(ml_prediction *prediction, const char *alias, double value)
{
    ml_predict_range(prediction, alias, value, value, NULL);
}

/* A reason made at run time, kept for the life of the program: the same text is kept once. */
static const char *kept_reason(const char *text)
{
    static char *kept[64];
    static int count;
    for (int i = 0; i < count; i++)
        if (strcmp(kept[i], text) == 0)
            return kept[i];
    char *copy = strdup(text);
    if (copy == NULL || count == (int)(sizeof kept / sizeof kept[0])) {
        free(copy);
        return "the data, and what a launch reads besides (its code, constants, page tables)";
    }
    kept[count++] = copy;
    return copy;
}

/* The DRAM writes of an output.
 *
 * The L2 is write-back: a store marks its line dirty in the L2, and the line reaches DRAM only
 * when the L2 evicts it to make room, or when something flushes it; the profiler's range closes
 * when the kernel ends, before any flush. So dram_write_bytes counts the output less what the
 * L2 still holds dirty at the end. The harness's flush leaves the L2 full of clean lines before
 * every launch, and the kernel's lines (those its DRAM reads fill, and its output's) replace
 * them; measured on an H200 (gpu_facts.c):
 *   - while the kernel's lines fit in its traffic capacity (at least half the L2), nothing
 *     dirty is evicted: outputs of up to 17.6 MB wrote 0 to 1.1% of their bytes (a 32 MB
 *     output, 0.51 of the L2, wrote 11%);
 *   - past it, the L2 keeps the last lines of the traffic, and of the output among them no more
 *     than 15.5 to 30 MB (a quarter to a half of the L2, as if it evicted dirty lines first once
 *     that many were dirty) and no more than the output's share of the lines times the
 *     capacity (a strided gather that reads 32 times its output's lines kept 2 MB of it).
 * dram_write_bytes is then output - kept, kept between its low and high bound. */
static void dirty_kept(const ml_gpu_facts *gpu, double output_bytes, double read_line_bytes,
                       double traffic_share, double dirty_bytes, double *kept)
{
    double capacity = traffic_share * gpu->l2_bytes;
    double traffic = output_bytes + read_line_bytes;
    if (traffic <= capacity) {
        *kept = output_bytes;
        return;
    }
    double share = capacity * output_bytes / traffic;
    *kept = fmin(output_bytes, fmin(dirty_bytes, share));
}

/* A sparse gather across a wide span: its reads fill under half the lines of the span they lie
 * in, and the span is past GATHER_SPAN_BYTES. Its kernel's lines fit in the L2, and yet the L2
 * writes part of the output back during it. Measured on an H200 (2026-11, lab 04's strided
 * copy with l2_fetch 32 to 128, outputs of 8 KB to 128 KB): at spans of 2 MiB and less, none;
 * at 8 MiB, at most 3% of the output; at 16 MiB, 4.7 to 7.8%; at 20 to 128 MiB, 15 to 24.4%,
 * whether the reads filled 0.5 or 4 MB of lines. A coalesced copy whose input spans 17.6 MB
 * wrote 1.1% at most, so it is the gather's spread, not the span alone. Under Nsight Compute,
 * whose cache control leaves the L2 empty where memlab's flush leaves it full of clean lines,
 * the same gather wrote nothing. So the L2, full, evicts some dirty output lines to make room
 * for the gather's; which lines it picks is its replacement policy, which NVIDIA does not
 * publish, and why a wide spread picks more of them is not known. The model states a residue
 * of up to GATHER_WRITE_SHARE of the output. */
#define GATHER_SPAN_BYTES (8.0 * 1024 * 1024)
#define GATHER_WRITE_SHARE 0.25

void ml_predict_dram_writes_after(ml_prediction *prediction, double output_bytes,
                                  double read_line_bytes, double read_span_bytes)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    if (gpu->l2_dirty_high_bytes <= 0) {
        double low = output_bytes - gpu->l2_bytes / 2;
        ml_predict_range(prediction, "dram_write_bytes", low > 0 ? low : 0, output_bytes,
                         "the L2 writes a line back to DRAM when it evicts it, so up to half the "
                         "L2's size of the output may still be in the L2 when the kernel ends "
                         "(not measured on this GPU)");
        return;
    }
    double kept_most, kept_least;
    dirty_kept(gpu, output_bytes, read_line_bytes, gpu->l2_traffic_high_share,
               gpu->l2_dirty_high_bytes, &kept_most);
    dirty_kept(gpu, output_bytes, read_line_bytes, gpu->l2_traffic_low_share,
               gpu->l2_dirty_low_bytes, &kept_least);
    double low = output_bytes - kept_most, high = output_bytes - kept_least;
    /* What the measurements wrote where nothing was evicted: 1.1% of the output at most. */
    double residue = 0.05 * output_bytes;
    int sparse_wide_gather = read_span_bytes > GATHER_SPAN_BYTES &&
                             read_line_bytes < read_span_bytes / 2;
    if (high <= residue && sparse_wide_gather)
        ml_predict_residue(prediction, "dram_write_bytes", GATHER_WRITE_SHARE * output_bytes,
                           output_bytes,
                           "the kernel's lines fit in the L2, but a gather that reads a line here "
                           "and there across more than 8 MiB makes the L2 write some of the dirty "
                           "output back: up to a quarter of it (measured; lab_table.c)");
    else if (high <= residue)
        ml_predict_residue(prediction, "dram_write_bytes", residue, output_bytes,
                           "the L2 is write-back and the kernel's lines fit in it: its output "
                           "stays in the L2, dirty, when the kernel ends, and almost none of it "
                           "reaches DRAM (at most 5% of it)");
    else if (low <= 0)
        ml_predict_range(prediction, "dram_write_bytes", 0, high,
                         "the L2 is write-back: it writes the output to DRAM only as it evicts "
                         "it, and the kernel's lines about fill it, so from none of the output "
                         "to all but the least the L2 keeps dirty");
    else
        ml_predict_range(prediction, "dram_write_bytes", low, high,
                         "the L2 is write-back: the output less what the L2 still holds dirty "
                         "when the kernel ends (it keeps a share of the GPU's L2, less where the "
                         "kernel's reads pass many more lines through it)");
}

void ml_predict_dram_writes(ml_prediction *prediction, double output_bytes)
{
    ml_predict_dram_writes_after(prediction, output_bytes, output_bytes, output_bytes);
}

double ml_kernel_code_bytes(const ml_problem *problem, double *constant_bytes)
{
    double code = 0, constants = 0;
    const ml_gpu_facts *gpu = ml_model_gpu();
    if (problem->variant != NULL && problem->variant->kernel != NULL)
        ml_kernels_code_bytes(problem->lab->kernels, problem->variant->kernel,
                              gpu->compute_major * 10 + gpu->compute_minor, &code, &constants);
    if (constant_bytes != NULL)
        *constant_bytes = constants;
    return code;
}

/* A kernel's machine code and constants as large as memlab's largest (17.5 KB) and more: the
 * high end of a floor whose code is not found. */
#define UNKNOWN_CODE_BYTES (32.0 * 1024)
/* The span the measured floor covers (data under 3 MB, in and out): pages beyond it add their
 * walks. */
#define FLOOR_SPAN_BYTES (8.0 * 1024 * 1024)
#define PAGE_BYTES (2.0 * 1024 * 1024)

void ml_predict_dram_reads(ml_prediction *prediction, const ml_problem *problem, double data_low,
                           double data_high, double span_bytes, const char *data_reason)
{
    const ml_gpu_facts *gpu = ml_model_gpu();
    double constants = 0, code = ml_kernel_code_bytes(problem, &constants);
    double pages = ceil((span_bytes - FLOOR_SPAN_BYTES) / PAGE_BYTES);
    double walks = (pages > 0 ? pages : 0) * gpu->dram_floor_page_bytes;
    double low = data_low + gpu->dram_floor_low_bytes;
    double high = data_high + gpu->dram_floor_high_bytes + walks;
    /* The report keeps 255 characters of a reason: the floor says its figures briefly. */
    char floor[160], reason[400];
    if (code > 0) {
        low += code + constants;
        high += code + constants;
        snprintf(floor, sizeof floor,
                 "%.0f B of code and %.0f B of constants (sm_%d%d) left in DRAM by the L2 flush, "
                 "%.0f-%.0f B more (page tables and the like: gpu_facts.c)", code, constants,
                 gpu->compute_major, gpu->compute_minor, gpu->dram_floor_low_bytes,
                 gpu->dram_floor_high_bytes + walks);
    } else {
        high += UNKNOWN_CODE_BYTES;
        snprintf(floor, sizeof floor,
                 "up to %.0f B of code and constants (none for sm_%d%d found), %.0f-%.0f B "
                 "more (page tables and the like: gpu_facts.c)", UNKNOWN_CODE_BYTES,
                 gpu->compute_major, gpu->compute_minor, gpu->dram_floor_low_bytes,
                 gpu->dram_floor_high_bytes + walks);
    }
    if (data_reason != NULL)
        snprintf(reason, sizeof reason, "%s; and each launch's floor: %s", data_reason, floor);
    else
        snprintf(reason, sizeof reason, "the data, and each launch's floor: %s", floor);
    ml_predict_range(prediction, "dram_read_bytes", low, high, kept_reason(reason));
}

unsigned ml_threads_per_block(const ml_variant *variant)
{
    return variant->block.x * (variant->block.y > 0 ? variant->block.y : 1);
}

/* Whether the comma-separated list names `name`. */
static int list_names(const char *list, const char *name)
{
    size_t length = strlen(name);
    for (const char *item = list; *item != '\0';) {
        size_t item_length = strcspn(item, ",");
        if (item_length == length && strncmp(item, name, length) == 0)
            return 1;
        item += item_length;
        item += (*item == ',');
    }
    return 0;
}

static int param_index(const ml_lab *lab, const char *param_name)
{
    for (int i = 0; i < lab->num_params; i++)
        if (strcmp(lab->params[i].name, param_name) == 0)
            return i;
    return -1;
}

int ml_variant_uses(const ml_lab *lab, const ml_variant *variant, const char *param_name)
{
    int i = param_index(lab, param_name);
    if (i < 0)
        return 0;
    const char *used_by = lab->params[i].used_by;
    return used_by == NULL || list_names(used_by, variant->name) ||
           list_names(used_by, variant->family->name);
}

long long ml_size(const ml_problem *problem, const char *name)
{
    const ml_lab *lab = problem->lab;
    int i = param_index(lab, name);
    if (i < 0) {
        fprintf(stderr, "%s: the lab reads size '%s', which its param table does not declare\n",
                lab->program, name);
        exit(ML_EXIT_LAB_ERROR);
    }
    if (problem->variant != NULL && !ml_variant_uses(lab, problem->variant, name)) {
        fprintf(stderr, "%s: variant %s reads size '%s', whose used_by names neither it nor its "
                        "family %s\n", lab->program, problem->variant->name, name,
                problem->variant->family->name);
        exit(ML_EXIT_LAB_ERROR);
    }
    return problem->param[i];
}
