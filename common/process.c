/* process.c: running a command as a child process with a time limit (see process.h). */
#define _POSIX_C_SOURCE 200809L /* kill, setpgid, nanosleep, clock_gettime */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_NS (10 * 1000 * 1000)
#define EXIT_EXEC_FAILED 127

static double now_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec * 1e-9;
}

/* In the child: stdout and stderr to the named files, then exec. Never returns. */
static void exec_child(char *const argv[], const char *directory, const char *stdout_path,
                       const char *stderr_path)
{
    setpgid(0, 0);
    const char *out_path = stdout_path != NULL ? stdout_path : "/dev/null";
    const char *err_path = stderr_path != NULL ? stderr_path : "/dev/null";
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = strcmp(out_path, err_path) == 0 ? out
                                              : open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || dup2(in, STDIN_FILENO) < 0 ||
        dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
        _exit(EXIT_EXEC_FAILED);
    if (directory != NULL && chdir(directory) != 0) {
        fprintf(stderr, "memlab: cannot enter %s: %s\n", directory, strerror(errno));
        _exit(EXIT_EXEC_FAILED);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "memlab: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(EXIT_EXEC_FAILED);
}

int process_run(char *const argv[], const char *directory, const char *stdout_path,
                const char *stderr_path, int time_limit_s, process_result *result)
{
    memset(result, 0, sizeof *result);
    fflush(NULL);
    double start = now_s();
    pid_t child = fork();
    if (child < 0)
        return -1;
    if (child == 0)
        exec_child(argv, directory, stdout_path, stderr_path);
    setpgid(child, child); /* also here: whichever of the two runs first */
    result->started = 1;

    struct timespec tick = {0, POLL_NS};
    int status = 0;
    for (;;) {
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        if (done < 0 && errno != EINTR)
            return -1;
        if (now_s() - start > time_limit_s) {
            kill(-child, SIGKILL);
            kill(child, SIGKILL);
            while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                continue;
            result->timed_out = 1;
            break;
        }
        nanosleep(&tick, NULL);
    }
    /* What the child left running in its group (a compiler, the program under a tool). */
    kill(-child, SIGKILL);
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
