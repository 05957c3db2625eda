/* checks.h: every launch's output held to the CPU reference: the poison before it, new inputs
 * from a secret seed, the whole comparison of the checked launch, positions drawn from the OS's
 * random source after every other launch, and the guards around the run's buffers. */
#ifndef MEMLAB_CHECKS_H
#define MEMLAB_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "memlab.h"
#include "report.h"

/* The checked output comes back in chunks through two pinned buffers, made once for the run:
 * the copy of one chunk overlaps the comparison of the one before, and the pinned memory stays
 * at two chunks whatever the output's size (pinning gigabytes costs as much as comparing them).
 * A sampled check (check_index) gathers from the whole output, copied into pinned memory grown
 * to the largest one. The random checks gather their positions on the GPU. */
#define CHECK_CHUNK_FLOATS ((size_t)1 << 22) /* 16 MiB */

typedef struct {
    void *chunk[2];             /* CHECK_CHUNK_FLOATS elements of 4 bytes: floats or counts */
    cudaEvent_t copied[2];
    cudaStream_t stream;
    float *whole;
    size_t whole_count;
    /* ML_RANDOM_CHECKS of each: positions drawn, what the output holds there (device and host)
     * and what the reference says */
    size_t *position, *device_position;
    uint32_t *device_gathered, *gathered, *expected;
} host_staging;

void ml_staging_open(host_staging *staging);
void ml_staging_close(host_staging *staging);

/* 1 for an output the kernel adds into (zeroed before each launch, not poisoned). */
int ml_output_is_zeroed(const ml_problem *problem);
/* Before every launch the output is poisoned (an element the kernel never writes fails) or
 * zeroed (an output the kernel adds into), and a kernel that keeps a clock has it zeroed. */
void ml_poison_output(const ml_problem *problem);
/* Before every timed and profiled launch: inputs made from a secret seed, so that no launch sees
 * inputs an earlier one saw (a result computed once and replayed is wrong) and no kernel can
 * know them in advance. */
void ml_refresh_inputs(ml_problem *problem);

/* The reference setup left to the harness (ml_expect_output_from_reference_at): every element
 * of the output, or the checked ones, from the family's reference_at, in parallel. */
void ml_fill_reference(ml_problem *problem);
/* What setup made must fit its output kind: a bug of the lab's, not bad input (exits
 * ML_EXIT_LAB_ERROR). */
void ml_check_problem(const ml_lab *lab, const ml_problem *problem);

/* The checked launch, on the inputs of --seed (so a failure can be replayed): every element
 * compared with the reference, or the lab's sample of them and positions no one can know. */
void ml_check_variant(const ml_problem *problem, host_staging *staging, ml_record *record);
/* Compares the output at ML_RANDOM_CHECKS positions drawn from the OS's random source (every
 * element of a smaller output) with the lab's reference there, and adds what differs to the
 * record. `which` launch it was is named once, when the record fails here first. */
void ml_check_random_positions(const ml_problem *problem, host_staging *staging,
                               const char *which, ml_record *record);
/* Rule 7: after every launch whose output is checked, nothing outside the run's buffers
 * changed (the guards around each, ml_device_buffer). A changed guard word counts as a
 * mismatch of the record, whatever the kernel knew about being checked. */
void ml_check_guards(const ml_problem *problem, const char *which, ml_record *record);

#endif
