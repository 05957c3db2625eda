/* process.c: running a command as a child process with a time limit (see process.h). */
#define _POSIX_C_SOURCE 200809L /* kill, setpgid, nanosleep, clock_gettime */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 10
#define EXIT_EXEC_FAILED 127
#define READ_CHUNK 65536
#define DRAIN_AFTER_EXIT_S 2.0  /* a writer that left the child's group keeps a pipe open */

extern char **environ; /* POSIX: the program declares it */

static double now_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec * 1e-9;
}

/* In the child: its limits, stdout and stderr to the given descriptors, then exec with
 * `environment`. Never returns. Only async-signal-safe calls here (the caller may have threads). */
static void exec_child(char *const argv[], const process_options *options, int out, int err,
                       char **environment)
{
    setpgid(0, 0);
    if (options->file_limit_bytes > 0) {
        struct rlimit limit = {(rlim_t)options->file_limit_bytes,
                               (rlim_t)options->file_limit_bytes};
        signal(SIGXFSZ, options->file_limit_kills ? SIG_DFL : SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(EXIT_EXEC_FAILED);
    }
    if (options->memory_limit_bytes > 0) {
        struct rlimit limit = {(rlim_t)options->memory_limit_bytes,
                               (rlim_t)options->memory_limit_bytes};
        if (setrlimit(RLIMIT_AS, &limit) != 0)
            _exit(EXIT_EXEC_FAILED);
    }
    if (options->cpu_limit_s > 0) {
        /* SIGXCPU at the soft limit, SIGKILL a second later. */
        struct rlimit limit = {(rlim_t)options->cpu_limit_s, (rlim_t)options->cpu_limit_s + 1};
        if (setrlimit(RLIMIT_CPU, &limit) != 0)
            _exit(EXIT_EXEC_FAILED);
    }
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || dup2(in, STDIN_FILENO) < 0 ||
        dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
        _exit(EXIT_EXEC_FAILED);
    if (options->directory != NULL && chdir(options->directory) != 0) {
        fprintf(stderr, "memlab: cannot enter %s: %s\n", options->directory, strerror(errno));
        _exit(EXIT_EXEC_FAILED);
    }
    environ = environment;
    execvp(argv[0], argv);
    fprintf(stderr, "memlab: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(EXIT_EXEC_FAILED);
}

/* The caller's environment with TMPDIR set to `temporary` (NULL: the caller's environment as
 * it is). Built before fork: a child of a threaded process may not allocate. The caller frees
 * what is not environ. */
static char **child_environment(const char *temporary)
{
    if (temporary == NULL)
        return environ;
    size_t count = 0;
    while (environ[count] != NULL)
        count++;
    char **environment = malloc((count + 2) * sizeof *environment);
    size_t length = strlen("TMPDIR=") + strlen(temporary) + 1;
    char *setting = malloc(length);
    if (environment == NULL || setting == NULL) {
        free(environment);
        free(setting);
        return NULL;
    }
    snprintf(setting, length, "TMPDIR=%s", temporary);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], "TMPDIR=", 7) != 0)
            environment[kept++] = environ[i];
    environment[kept++] = setting;
    environment[kept] = NULL;
    return environment;
}

/* Frees what child_environment made: the array and its last entry, the TMPDIR setting. */
static void free_environment(char **environment)
{
    if (environment == NULL || environment == environ)
        return;
    size_t count = 0;
    while (environment[count] != NULL)
        count++;
    free(environment[count - 1]);
    free(environment);
}

/* ---- capturing a pipe into a capped file ------------------------------------------------------ */

typedef struct {
    int pipe_read;              /* -1 once the writers are gone (or never opened) */
    int pipe_write;             /* the child's end, closed in the parent after fork */
    int file;
    long long cap;
    long long kept;             /* bytes of the head in the file */
    long long total;            /* bytes read */
    char tail[PROCESS_TAIL_BYTES]; /* a ring: the last bytes past the cap */
    size_t tail_start, tail_used;
} capture;

static void write_all(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t wrote = write(fd, data, length);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            return;             /* a full disk: nothing more to keep */
        data += wrote;
        length -= (size_t)wrote;
    }
}

static void keep_tail(capture *one, const char *data, size_t length)
{
    const size_t size = sizeof one->tail;
    if (length >= size) {
        memcpy(one->tail, data + length - size, size);
        one->tail_start = 0;
        one->tail_used = size;
        return;
    }
    for (size_t i = 0; i < length; i++) {
        size_t at = (one->tail_start + one->tail_used) % size;
        one->tail[at] = data[i];
        if (one->tail_used < size)
            one->tail_used++;
        else
            one->tail_start = (one->tail_start + 1) % size;
    }
}

/* Reads what is there; closes the pipe at its end. */
static void capture_read(capture *one)
{
    char chunk[READ_CHUNK];
    ssize_t got = read(one->pipe_read, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (got <= 0) {
        close(one->pipe_read);
        one->pipe_read = -1;
        return;
    }
    one->total += got;
    size_t head = 0;
    if (one->kept < one->cap) {
        long long room = one->cap - one->kept;
        head = (size_t)(got < room ? got : room);
        write_all(one->file, chunk, head);
        one->kept += (long long)head;
    }
    if ((size_t)got > head)
        keep_tail(one, chunk + head, (size_t)got - head);
}

/* The cut note and the tail, then the file is closed. Returns the bytes cut. */
static long long capture_finish(capture *one)
{
    if (one->pipe_read >= 0)
        close(one->pipe_read);
    one->pipe_read = -1;
    long long cut = one->total - one->kept - (long long)one->tail_used;
    if (one->total > one->kept) {
        char note[256];
        int length = snprintf(note, sizeof note,
                              "\n[... memlab: %lld bytes of output cut here: more than %lld bytes "
                              "were written; the last %zu follow ...]\n",
                              cut, one->cap, one->tail_used);
        write_all(one->file, note, (size_t)length);
        size_t first = sizeof one->tail - one->tail_start;
        if (first > one->tail_used)
            first = one->tail_used;
        write_all(one->file, one->tail + one->tail_start, first);
        write_all(one->file, one->tail, one->tail_used - first);
    }
    close(one->file);
    return cut;
}

static int capture_open(capture *one, const char *path, long long cap)
{
    memset(one, 0, sizeof *one);
    one->pipe_read = one->pipe_write = -1;
    one->cap = cap;
    one->file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int ends[2];
    if (one->file < 0 || pipe(ends) != 0) {
        if (one->file >= 0)
            close(one->file);
        return -1;
    }
    one->pipe_read = ends[0];
    one->pipe_write = ends[1];
    fcntl(ends[0], F_SETFD, FD_CLOEXEC);
    fcntl(ends[1], F_SETFD, FD_CLOEXEC); /* the child's copies are its dup2'd 1 and 2 */
    return 0;
}

/* Reads every open capture for at most wait_ms (poll's timeout; 0: what is there now).
 * Returns how many are still open. */
static int capture_poll(capture *captures, int count, int wait_ms)
{
    struct pollfd fds[2];
    int index[2], open_count = 0;
    for (int i = 0; i < count; i++) {
        if (captures[i].pipe_read < 0)
            continue;
        fds[open_count].fd = captures[i].pipe_read;
        fds[open_count].events = POLLIN;
        fds[open_count].revents = 0;
        index[open_count++] = i;
    }
    if (open_count == 0) {
        struct timespec tick = {0, (long)wait_ms * 1000 * 1000};
        nanosleep(&tick, NULL);
        return 0;
    }
    if (poll(fds, (nfds_t)open_count, wait_ms) > 0)
        for (int i = 0; i < open_count; i++)
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
                capture_read(&captures[index[i]]);
    int still = 0;
    for (int i = 0; i < count; i++)
        still += captures[i].pipe_read >= 0;
    return still;
}

/* ---- a capture of the caller's own output ---------------------------------------------------- */

struct process_capture {
    capture stream[2];          /* stdout, stderr */
    pthread_t reader;
};

static void *read_captures(void *argument)
{
    process_capture *both = argument;
    while (capture_poll(both->stream, 2, POLL_MS) > 0)
        continue;
    return NULL;
}

process_capture *process_capture_start(const char *stdout_path, const char *stderr_path,
                                       long long cap_bytes, int *stdout_fd, int *stderr_fd)
{
    process_capture *both = calloc(1, sizeof *both);
    if (both == NULL)
        return NULL;
    if (capture_open(&both->stream[0], stdout_path, cap_bytes) != 0) {
        free(both);
        return NULL;
    }
    if (capture_open(&both->stream[1], stderr_path, cap_bytes) != 0) {
        close(both->stream[0].pipe_write);
        capture_finish(&both->stream[0]);
        free(both);
        return NULL;
    }
    *stdout_fd = both->stream[0].pipe_write;
    *stderr_fd = both->stream[1].pipe_write;
    if (pthread_create(&both->reader, NULL, read_captures, both) != 0) {
        for (int i = 0; i < 2; i++) {
            close(both->stream[i].pipe_write);
            capture_finish(&both->stream[i]);
        }
        free(both);
        return NULL;
    }
    return both;
}

long long process_capture_finish(process_capture *both)
{
    pthread_join(both->reader, NULL);
    long long cut = capture_finish(&both->stream[0]) + capture_finish(&both->stream[1]);
    free(both);
    return cut;
}

/* ---- running -------------------------------------------------------------------------------- */

int process_run(char *const argv[], const process_options *options, process_result *result)
{
    memset(result, 0, sizeof *result);
    const char *stdout_path = options->stdout_path, *stderr_path = options->stderr_path;
    const long long cap_bytes = options->output_cap_bytes;
    const char *out_path = stdout_path != NULL ? stdout_path : "/dev/null";
    const char *err_path = stderr_path != NULL ? stderr_path : "/dev/null";
    int shared = strcmp(out_path, err_path) == 0;
    /* The child's ends: a file opened here, or a pipe's write end. */
    int out = -1, err = -1, capture_count = 0, ok;
    capture captures[2];
    if (cap_bytes > 0 && stdout_path != NULL) {
        ok = capture_open(&captures[capture_count], out_path, cap_bytes) == 0;
        if (ok)
            out = captures[capture_count++].pipe_write;
    } else {
        out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ok = out >= 0;
    }
    if (ok && shared) {
        err = out;
    } else if (ok && cap_bytes > 0 && stderr_path != NULL) {
        ok = capture_open(&captures[capture_count], err_path, cap_bytes) == 0;
        if (ok)
            err = captures[capture_count++].pipe_write;
    } else if (ok) {
        err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ok = err >= 0;
    }
    char **environment = ok ? child_environment(options->temporary_directory) : NULL;
    if (environment == NULL)
        ok = 0;
    if (!ok) {
        if (out >= 0)
            close(out);
        if (err >= 0 && err != out)
            close(err);
        for (int i = 0; i < capture_count; i++)
            capture_finish(&captures[i]);
        return -1;
    }

    fflush(NULL);
    double start = now_s();
    pid_t child = fork();
    if (child == 0)
        exec_child(argv, options, out, err, environment);
    free_environment(environment);
    /* The parent keeps only the pipes' read ends. */
    close(out);
    if (!shared)
        close(err);
    if (child < 0) {
        for (int i = 0; i < capture_count; i++)
            capture_finish(&captures[i]);
        return -1;
    }
    setpgid(child, child); /* also here: whichever of the two runs first */
    result->started = 1;

    int status = 0;
    for (;;) {
        capture_poll(captures, capture_count, POLL_MS);
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        if (done < 0 && errno != EINTR) {
            kill(-child, SIGKILL);
            for (int i = 0; i < capture_count; i++)
                capture_finish(&captures[i]);
            return -1;
        }
        if (now_s() - start > options->time_limit_s) {
            kill(-child, SIGKILL);
            kill(child, SIGKILL);
            while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                continue;
            result->timed_out = 1;
            break;
        }
    }
    /* What the child left running in its group (a compiler, the program under a tool). */
    kill(-child, SIGKILL);
    double drain_end = now_s() + DRAIN_AFTER_EXIT_S;
    while (capture_count > 0 && capture_poll(captures, capture_count, POLL_MS) > 0 &&
           now_s() < drain_end)
        continue;
    for (int i = 0; i < capture_count; i++) {
        result->output_bytes += captures[i].total;
        result->cut_bytes += capture_finish(&captures[i]);
    }
    result->seconds = now_s() - start;
    if (result->timed_out)
        return -1;
    if (WIFSIGNALED(status)) {
        result->signal = WTERMSIG(status);
        return -1;
    }
    result->exit_status = WEXITSTATUS(status);
    if (result->exit_status == EXIT_EXEC_FAILED)
        result->started = 0;
    return result->exit_status == 0 ? 0 : -1;
}

void process_file_tail(const char *path, char *tail, size_t size)
{
    tail[0] = '\0';
    FILE *file = fopen(path, "rb");
    if (file == NULL || size == 0) {
        if (file != NULL)
            fclose(file);
        return;
    }
    if (fseek(file, 0, SEEK_END) == 0) {
        long length = ftell(file);
        long start = length > (long)size - 1 ? length - ((long)size - 1) : 0;
        if (length >= 0 && fseek(file, start, SEEK_SET) == 0) {
            size_t got = fread(tail, 1, size - 1, file);
            tail[got] = '\0';
        }
    }
    fclose(file);
}
