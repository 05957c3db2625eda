/* gpu_lock.c: one grading run on a GPU at a time (see gpu_lock.h). */
#define _DEFAULT_SOURCE /* flock, O_NOFOLLOW, fchmod, nanosleep */
#include "gpu_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_DIRECTORY "/tmp"
/* How long a process lets others take the lock after it let go (the kernel wakes a waiter, but
 * the process that let go may well take it again first). */
#define TURN_S 0.05

static double now_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec * 1e-9;
}

/* The device the lab programs will use, as a file name. */
static void device_name(char *device, size_t size)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible == NULL) {
        snprintf(device, size, "0");
        return;
    }
    size_t length = strcspn(visible, ",");
    if (length == 0) {
        snprintf(device, size, "none");
        return;
    }
    if (length >= size)
        length = size - 1;
    for (size_t i = 0; i < length; i++) {
        char c = visible[i];
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
        device[i] = plain ? c : '_';
    }
    device[length] = '\0';
}

void gpu_lock_open(gpu_lock *lock, long owner, FILE *console)
{
    memset(lock, 0, sizeof *lock);
    lock->owner = owner;
    device_name(lock->device, sizeof lock->device);
    snprintf(lock->path, sizeof lock->path, "%s/memlab-gpu-%s.lock", LOCK_DIRECTORY, lock->device);
    /* Shared by every user of the machine: made writable by all, never followed as a link. */
    lock->fd = open(lock->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    lock->writable = lock->fd >= 0;
    if (lock->fd >= 0) {
        struct stat status;
        if (fstat(lock->fd, &status) == 0 && status.st_uid == geteuid())
            fchmod(lock->fd, 0666);
    } else if (errno == EACCES) {
        lock->fd = open(lock->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (lock->fd < 0)
        fprintf(console, "memlab grade: cannot open the GPU lock %s (%s): the cases run without "
                         "it, and may overlap another grader's on this GPU\n",
                lock->path, strerror(errno));
}

/* The holder's line from the file: "pid 1234: case ... (since 14:02:11)", and its owner. */
static void read_holder(const gpu_lock *lock, char *line, size_t size, long *owner)
{
    char text[512];
    ssize_t got = pread(lock->fd, text, sizeof text - 1, 0);
    text[got > 0 ? got : 0] = '\0';
    *owner = -1;
    line[0] = '\0';
    char *newline = strchr(text, '\n');
    if (newline == NULL || sscanf(text, "owner %ld", owner) != 1)
        return;
    char *end = strchr(newline + 1, '\n');
    if (end != NULL)
        *end = '\0';
    snprintf(line, size, "%s", newline + 1);
}

static void write_holder(const gpu_lock *lock, const char *what)
{
    if (!lock->writable)
        return;
    char since[16];
    time_t now = time(NULL);
    struct tm local;
    strftime(since, sizeof since, "%H:%M:%S", localtime_r(&now, &local));
    char text[512];
    int length = snprintf(text, sizeof text, "owner %ld\npid %ld: %s (since %s)\n", lock->owner,
                          (long)getpid(), what, since);
    if (length < 0)
        return;
    if ((size_t)length >= sizeof text)
        length = (int)sizeof text - 1;
    if (ftruncate(lock->fd, 0) != 0 || pwrite(lock->fd, text, (size_t)length, 0) != length)
        fprintf(stderr, "memlab grade: cannot write who holds %s\n", lock->path);
}

void gpu_lock_take(gpu_lock *lock, const char *what, FILE *console)
{
    if (lock->fd < 0)
        return;
    double since_release = now_s() - lock->released_at;
    if (lock->released_at > 0 && since_release < TURN_S) {
        struct timespec turn = {0, (long)((TURN_S - since_release) * 1e9)};
        nanosleep(&turn, NULL);
    }
    if (flock(lock->fd, LOCK_EX | LOCK_NB) != 0) {
        char holder[512];
        long owner;
        read_holder(lock, holder, sizeof holder, &owner);
        /* The processes of one batch take turns without a word; another grader is worth one,
         * the first time. */
        if (owner != lock->owner && owner != lock->reported) {
            fprintf(console, "memlab grade: waiting for GPU %s: %s is held by %s\n", lock->device,
                    lock->path, holder[0] != '\0' ? holder : "another process");
            lock->reported = owner;
        }
        while (flock(lock->fd, LOCK_EX) != 0 && errno == EINTR)
            continue;
    }
    write_holder(lock, what);
}

void gpu_lock_release(gpu_lock *lock)
{
    if (lock->fd < 0)
        return;
    if (lock->writable && ftruncate(lock->fd, 0) != 0)
        fprintf(stderr, "memlab grade: cannot clear %s\n", lock->path);
    flock(lock->fd, LOCK_UN);
    lock->released_at = now_s();
}

void gpu_lock_close(gpu_lock *lock)
{
    if (lock->fd >= 0)
        close(lock->fd);
    lock->fd = -1;
}
