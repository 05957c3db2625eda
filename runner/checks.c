/* checks.c: every launch's output held to the CPU reference (checks.h): the poison before it,
 * new inputs from a secret seed, the whole comparison of the checked launch, positions drawn
 * from the OS's random source after every other, and the guards around the run's buffers. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "compare.h"

int ml_output_is_zeroed(const ml_problem *problem)
{
    return problem->output_kind != ML_OUTPUT_WRITTEN;
}

void ml_poison_output(const ml_problem *problem)
{
    /* All bits set is a NaN: an element the kernel never writes fails the comparison. An output
     * the kernel adds into starts from zero instead. */
    int fill_byte = ml_output_is_zeroed(problem) ? 0 : (int)(ML_POISON_BITS & 0xff);
    ML_CUDA_CHECK(cudaMemset(problem->output, fill_byte, problem->output_count * sizeof(float)));
    /* A clock left from the launch before cannot pass for this one's. */
    if (problem->cycles != NULL)
        ML_CUDA_CHECK(cudaMemset(problem->cycles, 0, sizeof *problem->cycles));
}

void ml_refresh_inputs(ml_problem *problem)
{
    uint64_t seed;
    ml_secret_random(&seed, sizeof seed);
    problem->seed = seed;
    problem->variant->family->fill_inputs(problem);
}

void ml_check_random_positions(const ml_problem *problem, host_staging *staging,
                               const char *which, ml_record *record)
{
    size_t count = problem->output_count;
    size_t checked = count < ML_RANDOM_CHECKS ? count : ML_RANDOM_CHECKS;
    if (checked == count) {
        for (size_t i = 0; i < checked; i++)
            staging->position[i] = i;
    } else {
        uint64_t draw[ML_RANDOM_CHECKS];
        ml_secret_random(draw, checked * sizeof draw[0]);
        /* The modulo's bias is below count / 2^64: nothing a kernel could use. */
        for (size_t i = 0; i < checked; i++)
            staging->position[i] = (size_t)(draw[i] % count);
    }
    ML_CUDA_CHECK(cudaMemcpy(staging->device_position, staging->position,
                             checked * sizeof *staging->position, cudaMemcpyHostToDevice));
    /* Counts are 4-byte words like floats: one gather serves both. */
    ml_gather_words((const uint32_t *)problem->output, staging->device_position, checked,
                    staging->device_gathered);
    ML_CUDA_CHECK(cudaMemcpy(staging->gathered, staging->device_gathered,
                             checked * sizeof *staging->gathered, cudaMemcpyDeviceToHost));
    problem->variant->family->reference_at(problem, staging->position, checked, staging->expected);
    if (problem->output_kind == ML_OUTPUT_WRITTEN) {
        /* A position the kernel must leave unwritten (padding between arrays) expects the
         * poison, and matches only where the poison is still there. */
        for (size_t i = 0; i < checked; i++) {
            if (staging->expected[i] == ML_POISON_BITS && staging->gathered[i] == ML_POISON_BITS)
                staging->expected[i] = staging->gathered[i] = 0;
        }
    }
    ml_comparison found =
        problem->output_kind == ML_OUTPUT_COUNTED
            ? ml_compare_counts(staging->gathered, staging->expected, checked)
            : ml_compare((const float *)staging->gathered, (const float *)staging->expected,
                         checked, problem->tolerance);
    if (found.mismatches == 0)
        return;
    /* Added to the record's comparison, by their index in the output. */
    ml_comparison *comparison = &record->comparison;
    for (size_t i = 0; i < found.reported; i++)
        ml_comparison_report(comparison, staging->position[found.first_index[i]],
                             found.first_got[i], found.first_expected[i]);
    comparison->mismatches += found.mismatches;
    if (found.max_rel_error > comparison->max_rel_error)
        comparison->max_rel_error = found.max_rel_error;
    if (record->correct)
        fprintf(stderr, "memlab: %s: after the %s launch out[%zu] = %.10g, expected %.10g: a "
                        "kernel must compute every element at every launch, from the inputs it "
                        "is given\n",
                problem->variant->name, which, staging->position[found.first_index[0]],
                found.first_got[0], found.first_expected[0]);
    record->correct = 0;
}

void ml_check_guards(const ml_problem *problem, const char *which, ml_record *record)
{
    char where[256];
    size_t changed = ml_guard_words_changed(problem, where, sizeof where);
    if (changed == 0)
        return;
    record->comparison.mismatches += changed;
    if (record->correct)
        fprintf(stderr, "memlab: %s: after the %s launch %s had changed (%zu words outside the "
                        "run's buffers in all): a kernel must write nothing but its output\n",
                problem->variant->name, which, where, changed);
    record->correct = 0;
}

void ml_staging_open(host_staging *staging)
{
    for (int i = 0; i < 2; i++) {
        ML_CUDA_CHECK(cudaMallocHost(&staging->chunk[i], CHECK_CHUNK_FLOATS * sizeof(float)));
        ML_CUDA_CHECK(cudaEventCreateWithFlags(&staging->copied[i], cudaEventDisableTiming));
    }
    ML_CUDA_CHECK(cudaStreamCreate(&staging->stream));
    staging->position = ml_host_alloc(ML_RANDOM_CHECKS * sizeof *staging->position);
    staging->gathered = ml_host_alloc(ML_RANDOM_CHECKS * sizeof *staging->gathered);
    staging->expected = ml_host_alloc(ML_RANDOM_CHECKS * sizeof *staging->expected);
    staging->device_position = ml_device_alloc(ML_RANDOM_CHECKS * sizeof *staging->position);
    staging->device_gathered = ml_device_alloc(ML_RANDOM_CHECKS * sizeof *staging->gathered);
}

void ml_staging_close(host_staging *staging)
{
    for (int i = 0; i < 2; i++) {
        ML_CUDA_CHECK(cudaFreeHost(staging->chunk[i]));
        ML_CUDA_CHECK(cudaEventDestroy(staging->copied[i]));
    }
    ML_CUDA_CHECK(cudaStreamDestroy(staging->stream));
    if (staging->whole != NULL)
        ML_CUDA_CHECK(cudaFreeHost(staging->whole));
    free(staging->position);
    free(staging->gathered);
    free(staging->expected);
    ml_device_free(staging->device_position);
    ml_device_free(staging->device_gathered);
}

/* Elements of chunk c of an output of count elements. */
static size_t chunk_length(size_t count, size_t c)
{
    size_t first = c * CHECK_CHUNK_FLOATS;
    return count - first < CHECK_CHUNK_FLOATS ? count - first : CHECK_CHUNK_FLOATS;
}

/* Chunk c is copied into buffer c % 2 while chunk c - 1 is compared. */
static ml_comparison compare_in_chunks(const ml_problem *problem, host_staging *staging)
{
    size_t count = problem->output_count;
    size_t chunks = (count + CHECK_CHUNK_FLOATS - 1) / CHECK_CHUNK_FLOATS;
    ml_comparison comparison = {0};
    for (size_t c = 0; c <= chunks; c++) {
        if (c < chunks) {
            /* Counts are 4 bytes like floats: the same offsets. */
            ML_CUDA_CHECK(cudaMemcpyAsync(staging->chunk[c % 2],
                                          problem->output + c * CHECK_CHUNK_FLOATS,
                                          chunk_length(count, c) * sizeof(float),
                                          cudaMemcpyDeviceToHost, staging->stream));
            ML_CUDA_CHECK(cudaEventRecord(staging->copied[c % 2], staging->stream));
        }
        if (c > 0) {
            size_t first = (c - 1) * CHECK_CHUNK_FLOATS;
            ML_CUDA_CHECK(cudaEventSynchronize(staging->copied[(c - 1) % 2]));
            size_t length = chunk_length(count, c - 1);
            ml_comparison part =
                problem->output_kind == ML_OUTPUT_COUNTED
                    ? ml_compare_counts(staging->chunk[(c - 1) % 2],
                                        problem->reference_counts + first, length)
                    : ml_compare(staging->chunk[(c - 1) % 2], problem->reference + first, length,
                                 problem->tolerance);
            ml_comparison_append(&comparison, &part, first);
        }
    }
    return comparison;
}

static ml_comparison compare_sample(const ml_problem *problem, host_staging *staging)
{
    if (problem->output_count > staging->whole_count) {
        if (staging->whole != NULL)
            ML_CUDA_CHECK(cudaFreeHost(staging->whole));
        ML_CUDA_CHECK(cudaMallocHost((void **)&staging->whole, problem->output_count * sizeof(float)));
        staging->whole_count = problem->output_count;
    }
    ML_CUDA_CHECK(cudaMemcpy(staging->whole, problem->output, problem->output_count * sizeof(float),
                             cudaMemcpyDeviceToHost));
    float *sample = ml_host_alloc(problem->check_count * sizeof(float));
#pragma omp parallel for
    for (size_t i = 0; i < problem->check_count; i++)
        sample[i] = staging->whole[problem->check_index[i]];
    ml_comparison comparison = ml_compare(sample, problem->reference, problem->check_count,
                                          problem->tolerance);
    /* Mismatches are reported by their index in the output, not in the sample. */
    for (size_t i = 0; i < comparison.reported; i++)
        comparison.first_index[i] = problem->check_index[comparison.first_index[i]];
    free(sample);
    return comparison;
}

/* Positions of the output each thread gives reference_at at a time. */
#define REFERENCE_CHUNK 4096

void ml_fill_reference(ml_problem *problem)
{
    if (!problem->reference_from_reference_at)
        return;
    const size_t *checked = problem->check_index;
    size_t count = checked != NULL ? problem->check_count : problem->output_count;
    /* Counts are 4-byte words like floats: one buffer serves both. */
    uint32_t *values = ml_host_buffer(problem, count * sizeof *values);
    if (problem->output_kind == ML_OUTPUT_COUNTED)
        problem->reference_counts = values;
    else
        problem->reference = (float *)values;
    size_t chunks = (count + REFERENCE_CHUNK - 1) / REFERENCE_CHUNK;
#pragma omp parallel for
    for (size_t c = 0; c < chunks; c++) {
        size_t first = c * REFERENCE_CHUNK;
        size_t length = count - first < REFERENCE_CHUNK ? count - first : REFERENCE_CHUNK;
        size_t position[REFERENCE_CHUNK];
        for (size_t k = 0; k < length; k++)
            position[k] = checked != NULL ? checked[first + k] : first + k;
        problem->variant->family->reference_at(problem, position, length, values + first);
    }
}

/* What setup made must fit its output kind: a bug of the lab's, not bad input. */
void ml_check_problem(const ml_lab *lab, const ml_problem *problem)
{
    int counted = problem->output_kind == ML_OUTPUT_COUNTED;
    const char *wrong = NULL;
    if (counted && (problem->reference_counts == NULL || problem->check_index != NULL))
        wrong = "a counted output needs reference_counts, and is compared whole (no check_index)";
    else if (!counted && problem->reference == NULL)
        wrong = "setup made no reference";
    else if (problem->cycles != NULL && !(problem->timed_operations > 0))
        wrong = "a kernel that keeps a clock needs the number of operations it times";
    if (wrong != NULL) {
        fprintf(stderr, "%s: lab error: %s: %s\n", lab->program, problem->variant->name, wrong);
        exit(ML_EXIT_LAB_ERROR);
    }
}

void ml_check_variant(const ml_problem *problem, host_staging *staging,
                      ml_record *record)
{
    ml_poison_output(problem);
    problem->variant->family->launch(problem);
    ML_LAUNCH_CHECK();
    ML_CUDA_CHECK(cudaDeviceSynchronize());
    record->checked = 1;
    record->comparison = problem->check_index == NULL ? compare_in_chunks(problem, staging)
                                                      : compare_sample(problem, staging);
    record->correct = record->comparison.mismatches == 0;
    if (problem->check_index != NULL)
        ml_check_random_positions(problem, staging, "checked", record);
    ml_check_guards(problem, "checked", record);
}
