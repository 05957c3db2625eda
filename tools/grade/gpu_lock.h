/* gpu_lock.h: one grading run on a GPU at a time, across every grader on the machine.
 *
 * The lock is flock(2) on /tmp/memlab-gpu-DEVICE.lock, DEVICE the first entry of
 * CUDA_VISIBLE_DEVICES (the device the lab programs use: --device 0 of what is visible), "0"
 * when it is unset, "none" when it is set and empty (no device is visible). A grader holds it
 * around each case's runs of the lab program (never around a compile), so two graders never
 * collect counters or time kernels at once on one GPU. While it holds the lock, the file says
 * who: "pid 1234: case strided_correct of alice.cu (since 14:02:11)". A grader that finds the
 * lock taken by another grader says that it waits, and for what. The kernel drops the lock of a
 * process that dies.
 */
#ifndef MEMLAB_GPU_LOCK_H
#define MEMLAB_GPU_LOCK_H

#include <stdio.h>

typedef struct {
    int fd;                     /* -1: no lock file (it could not be opened: one warning) */
    int writable;               /* 0: opened read-only (another user's file): holder not written */
    char device[64];
    char path[128];
    long owner;                 /* the grader this process works for (a batch's pid, else its own) */
    double released_at;         /* when this process last let go of it (monotonic seconds), or 0 */
    long reported;              /* the last other grader this process said it waits for */
} gpu_lock;

/* Opens (creating it) the lock file of this process's device. Says on `console` when it cannot:
 * the runs then go on without the lock. */
void gpu_lock_open(gpu_lock *lock, long owner, FILE *console);

/* Blocks until this process holds the lock, then writes `what` in the file. When another
 * grader holds it, says so on `console` first (once for each grader it waits for). A process
 * that let go of the lock a moment ago waits that moment out first, so that a grader waiting
 * for it gets its turn between two cases rather than after a whole class. */
void gpu_lock_take(gpu_lock *lock, const char *what, FILE *console);

void gpu_lock_release(gpu_lock *lock);
void gpu_lock_close(gpu_lock *lock);

#endif
