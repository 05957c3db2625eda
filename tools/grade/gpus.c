/* gpus.c: the GPUs a batch grades on (see gpus.h). */
#define _XOPEN_SOURCE 700 /* mkstemp */
#include "gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "process.h"
#include "text.h"

#define NVIDIA_SMI_TIME_LIMIT_S 30 /* a wedged driver can make nvidia-smi hang */

int gpus_check_syntax(const char *wanted)
{
    if (strcmp(wanted, "all") == 0)
        return 0;
    int count = 0;
    for (const char *at = wanted;; at++) {
        if (*at < '0' || *at > '9')
            return -1;
        int digits = 1;
        while (at[1] >= '0' && at[1] <= '9' && digits++ < 6)
            at++;
        if (++count > GPUS_MAX)
            return -1;
        if (at[1] == '\0')
            return 0;
        if (at[1] != ',')
            return -1;
        at++;
    }
}

/* Runs nvidia-smi; its output (the caller frees it), or NULL with the error said. */
static char *list_gpus(char *error, size_t size)
{
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/memlab-gpus-XXXXXX", temporary);
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(error, size, "--gpus: cannot make a scratch file in %s for nvidia-smi's list",
                 temporary);
        return NULL;
    }
    close(fd);
    char *argv[] = {"nvidia-smi", "--query-gpu=index,uuid,name", "--format=csv,noheader", NULL};
    process_options options = {.stdout_path = path, .time_limit_s = NVIDIA_SMI_TIME_LIMIT_S,
                               .output_cap_bytes = 1 << 20};
    process_result result;
    int status = process_run(argv, &options, &result);
    char *listed = status == 0 ? text_read_file(path) : NULL;
    unlink(path);
    if (!result.started)
        snprintf(error, size, "--gpus needs nvidia-smi to list the GPUs, and it did not run (no "
                              "NVIDIA driver here, or nvidia-smi is not on PATH)");
    else if (status != 0)
        snprintf(error, size, "--gpus: nvidia-smi failed (%s %d), so no GPU is known here",
                 result.timed_out ? "it ran past" : result.signal ? "killed by signal" : "exit",
                 result.timed_out ? NVIDIA_SMI_TIME_LIMIT_S : result.signal ? result.signal
                                                                          : result.exit_status);
    else if (listed == NULL)
        snprintf(error, size, "--gpus: cannot read nvidia-smi's list");
    return listed;
}

/* "0, GPU-8d3c..., NVIDIA H100 80GB HBM3" into one; 0, or -1 when the line is not that. */
static int read_line(const char *line, gpu_device *device)
{
    char uuid[sizeof device->uuid], name[sizeof device->name];
    if (sscanf(line, "%d, %95[^, ], %127[^\r\n]", &device->index, uuid, name) != 3 ||
        device->index < 0)
        return -1;
    size_t length = strlen(name);
    while (length > 0 && name[length - 1] == ' ')
        name[--length] = '\0';
    snprintf(device->uuid, sizeof device->uuid, "%s", uuid);
    snprintf(device->name, sizeof device->name, "%s", name);
    return 0;
}

/* Every GPU nvidia-smi lists; -1 with the error said. */
static int read_list(char *listed, gpu_set *host, char *error, size_t size)
{
    memset(host, 0, sizeof *host);
    for (char *line = strtok(listed, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (line[strspn(line, " \r")] == '\0')
            continue;
        if (host->count == GPUS_MAX) {
            snprintf(error, size, "--gpus: nvidia-smi lists more than %d GPUs, the most a batch "
                                  "uses", GPUS_MAX);
            return -1;
        }
        if (read_line(line, &host->devices[host->count]) != 0) {
            char shown[256];
            text_escape(line, shown, sizeof shown);
            snprintf(error, size, "--gpus: cannot read nvidia-smi's line '%.200s'", shown);
            return -1;
        }
        host->count++;
    }
    if (host->count == 0) {
        snprintf(error, size, "--gpus: nvidia-smi lists no GPU on this host");
        return -1;
    }
    return 0;
}

/* "0, 1, 3": the indices listed, for a refusal. */
static void indices_text(const gpu_set *host, char *text, size_t size)
{
    text[0] = '\0';
    for (int i = 0; i < host->count; i++) {
        size_t used = strlen(text);
        snprintf(text + used, size - used, "%s%d", i > 0 ? ", " : "", host->devices[i].index);
    }
}

int gpus_choose(const char *wanted, int mixed_allowed, gpu_set *chosen, char *error, size_t size)
{
    memset(chosen, 0, sizeof *chosen);
    if (gpus_check_syntax(wanted) != 0) {
        snprintf(error, size, "--gpus is all or GPU indices separated by commas (0,1), got "
                              "'%.100s'", wanted);
        return -1;
    }
    char *listed = list_gpus(error, size);
    if (listed == NULL)
        return -1;
    static gpu_set host; /* large: not on the stack */
    int status = read_list(listed, &host, error, size);
    free(listed);
    if (status != 0)
        return -1;
    if (strcmp(wanted, "all") == 0) {
        *chosen = host;
    } else {
        for (const char *at = wanted; at != NULL; at = strchr(at, ',')) {
            at += *at == ',';
            int index = atoi(at), found = -1;
            for (int i = 0; i < host.count && found < 0; i++)
                if (host.devices[i].index == index)
                    found = i;
            for (int i = 0; i < chosen->count; i++)
                if (chosen->devices[i].index == index) {
                    snprintf(error, size, "--gpus: GPU %d is named twice", index);
                    return -1;
                }
            if (found < 0) {
                char indices[GPUS_MAX * 4];
                indices_text(&host, indices, sizeof indices);
                snprintf(error, size, "--gpus: there is no GPU %d on this host (nvidia-smi lists "
                                      "%s)", index, indices);
                return -1;
            }
            chosen->devices[chosen->count++] = host.devices[found];
        }
    }
    for (int i = 1; i < chosen->count; i++)
        chosen->mixed |= strcmp(chosen->devices[i].name, chosen->devices[0].name) != 0;
    if (chosen->mixed && !mixed_allowed) {
        int other = 1;
        while (strcmp(chosen->devices[other].name, chosen->devices[0].name) == 0)
            other++;
        snprintf(error, size, "--gpus: GPU %d (%s) and GPU %d (%s) are of different models: a "
                              "speed case's limits suit one model, so a score would depend on "
                              "the GPU a submission got; --mixed-gpus grades on them anyway",
                 chosen->devices[0].index, chosen->devices[0].name,
                 chosen->devices[other].index, chosen->devices[other].name);
        return -1;
    }
    return 0;
}
