/* process.h: running a command as a child process with a time limit.
 *
 * The child gets a process group of its own, so that at the time limit the whole group (a compiler,
 * compute-sanitizer and the program under it) is killed, never the caller.
 */
#ifndef MEMLAB_PROCESS_H
#define MEMLAB_PROCESS_H

#include <stddef.h>

typedef struct {
    int started;                /* 0: fork or exec failed */
    int timed_out;
    int signal;                 /* killed by this signal, else 0 */
    int exit_status;            /* when it exited by itself */
    double seconds;
} process_result;

/* Runs argv[0] (searched on PATH) in `directory` (NULL: the caller's), with stdout and stderr
 * going to the named files (NULL: /dev/null; the same name twice: one file for both), for at
 * most time_limit_s seconds. Returns 0 when it exited with status 0. */
int process_run(char *const argv[], const char *directory, const char *stdout_path,
                const char *stderr_path, int time_limit_s, process_result *result);

/* The last `size` - 1 bytes of a file, NUL-terminated ("" when it cannot be read). */
void process_file_tail(const char *path, char *tail, size_t size);

#endif
