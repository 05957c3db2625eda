/* process.h: running a command as a child process with a time limit (and, where asked, a cap on
 * what it prints).
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
    long long output_bytes;     /* process_run_capped: what it wrote to stdout and stderr */
    long long cut_bytes;        /* of those, what the files do not hold (past the cap) */
} process_result;

/* Runs argv[0] (searched on PATH) in `directory` (NULL: the caller's), with stdout and stderr
 * going to the named files (NULL: /dev/null; the same name twice: one file for both), for at
 * most time_limit_s seconds. Returns 0 when it exited with status 0. */
int process_run(char *const argv[], const char *directory, const char *stdout_path,
                const char *stderr_path, int time_limit_s, process_result *result);

/* The same, with stdout and stderr read through pipes: each file keeps the first cap_bytes the
 * child wrote to it, then a line saying how much was cut, then the last PROCESS_TAIL_BYTES (so
 * the last message survives a flood). A child printing without end (a kernel's printf) never
 * fills the disk, and never blocks: what is past the cap is read and dropped. Files the child
 * writes itself (a report given with --out, a compiler's output) are not capped but by a
 * backstop, file_limit_bytes (0: none): no file it writes grows past it (RLIMIT_FSIZE, with
 * SIGXFSZ ignored: a write past it fails and the child goes on). */
#define PROCESS_TAIL_BYTES 8192
int process_run_capped(char *const argv[], const char *directory, const char *stdout_path,
                       const char *stderr_path, int time_limit_s, long long cap_bytes,
                       long long file_limit_bytes, process_result *result);

/* The last `size` - 1 bytes of a file, NUL-terminated ("" when it cannot be read). */
void process_file_tail(const char *path, char *tail, size_t size);

#endif
