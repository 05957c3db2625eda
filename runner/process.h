/* process.h: running a command as a child process with a time limit (and, where asked, caps on
 * what it prints, the files it writes, its memory and CPU time, and a TMPDIR of the caller's).
 *
 * The child gets a process group of its own, so that at the time limit the whole group (a compiler,
 * compute-sanitizer and the program under it) is killed, never the caller.
 */
#ifndef MEMLAB_PROCESS_H
#define MEMLAB_PROCESS_H

#include <stddef.h>

#define PROCESS_TAIL_BYTES 8192 /* what a capped file keeps of the end of the output */

typedef struct {
    int started;                /* 0: fork or exec failed */
    int timed_out;
    int signal;                 /* killed by this signal, else 0 */
    int exit_status;            /* when it exited by itself */
    double seconds;
    long long output_bytes;     /* with an output cap: what it wrote to stdout and stderr */
    long long cut_bytes;        /* of those, what the files do not hold (past the cap) */
} process_result;

/* How to run a child and what it may use. Zero is "no such limit" for every number but
 * time_limit_s. */
typedef struct {
    const char *directory;      /* where it runs (NULL: the caller's directory) */
    const char *stdout_path;    /* NULL: /dev/null; the same name twice: one file for both */
    const char *stderr_path;
    int time_limit_s;           /* wall clock: the whole process group is killed at it */
    /* stdout and stderr read through pipes: each file keeps the first output_cap_bytes the
     * child wrote to it, then a line saying how much was cut, then the last PROCESS_TAIL_BYTES
     * (so the last message survives a flood). A child printing without end (a kernel's printf)
     * never fills the disk, and never blocks: what is past the cap is read and dropped. */
    long long output_cap_bytes;
    /* No file the child (or what it runs) writes grows past this (RLIMIT_FSIZE, SIGXFSZ
     * ignored: a write past it fails and the child goes on): a backstop for the files it
     * writes itself (a report given with --out, a compiler's output and temporaries). */
    long long file_limit_bytes;
    /* 1: a process that writes past file_limit_bytes is killed there (SIGXFSZ): for a compiler,
     * which would go on expanding a bomb it cannot write. */
    int file_limit_kills;
    /* Address space of each process (RLIMIT_AS): an allocation past it fails. Not for a CUDA
     * program, which reserves far more address space than it uses. */
    long long memory_limit_bytes;
    /* CPU seconds of each process (RLIMIT_CPU): the kernel stops a process that outlives the
     * caller that would have killed it at time_limit_s. Not for a multi-threaded tool, whose
     * CPU time outruns the clock. */
    int cpu_limit_s;
    /* TMPDIR for the child (NULL: the caller's): a folder the caller removes, so that what a
     * compiler leaves there goes with it. */
    const char *temporary_directory;
} process_options;

/* Runs argv[0] (searched on PATH) as options say; fills result. Returns 0 when it exited with
 * status 0. */
int process_run(char *const argv[], const process_options *options, process_result *result);

/* What the grader keeps of each run's stdout and of its stderr (output_cap_bytes). */
#define PROCESS_OUTPUT_CAP_BYTES (1024LL * 1024)

/* The caller's own output captured as process_run captures a child's: what is written to
 * *stdout_fd and *stderr_fd (pipes, for the caller to dup2 onto 1 and 2, then close) is kept in
 * the two files, the first cap_bytes of each, a note, and the last PROCESS_TAIL_BYTES, by a
 * thread that reads the pipes as fast as they fill (so a flood of printf takes as long as it
 * takes a child under process_run). NULL when the files or pipes cannot be made. For a lab
 * program's --cases: each case's output as a run of its own would leave it. */
typedef struct process_capture process_capture;
process_capture *process_capture_start(const char *stdout_path, const char *stderr_path,
                                       long long cap_bytes, int *stdout_fd, int *stderr_fd);
/* Once every copy of the two descriptors is closed: the files finished; the bytes cut. */
long long process_capture_finish(process_capture *capture);

/* The last `size` - 1 bytes of a file, NUL-terminated ("" when it cannot be read). */
void process_file_tail(const char *path, char *tail, size_t size);

#endif
