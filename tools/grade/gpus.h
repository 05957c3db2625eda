/* gpus.h: the GPUs a batch grades on (--gpus), as nvidia-smi lists them.
 *
 * The grader links no CUDA: `nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader`
 * names the host's GPUs (its index, its UUID, its model). `all` is every one listed; "0,2" are
 * those indices. A batch gives each grading process one of them through CUDA_VISIBLE_DEVICES,
 * by its UUID: the index nvidia-smi gives and the one CUDA gives may differ (CUDA orders the
 * fastest first), a UUID names one card everywhere.
 */
#ifndef MEMLAB_GPUS_H
#define MEMLAB_GPUS_H

#include <stddef.h>

#define GPUS_MAX 64

typedef struct {
    int index;                  /* as nvidia-smi numbers it */
    char uuid[96];              /* "GPU-8d3c...": what CUDA_VISIBLE_DEVICES is set to */
    char name[128];             /* "NVIDIA H100 80GB HBM3" */
} gpu_device;

typedef struct {
    gpu_device devices[GPUS_MAX];
    int count;
    int mixed;                  /* 1: not all of one model (--mixed-gpus allowed it) */
} gpu_set;

/* 0 if wanted is "all" or indices separated by commas (as many as GPUS_MAX), else -1. Runs
 * nothing. */
int gpus_check_syntax(const char *wanted);

/* Fills chosen with the GPUs wanted names, in the order named. Returns 0, or -1 with one line
 * in error (no nvidia-smi, no GPU, an index not there or named twice, GPUs of different models
 * when mixed_allowed is 0). */
int gpus_choose(const char *wanted, int mixed_allowed, gpu_set *chosen, char *error, size_t size);

#endif
