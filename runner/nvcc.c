/* nvcc.c: nvcc run on the copy of a --kernels .cu in a folder of its own, within the compile's
 * limits, and the helpers the judge and the loader share (nvcc.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, realpath (XSI) */
#define _XOPEN_SOURCE 700
#include "nvcc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ml_kernels_fail(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
    return -1;
}

int ml_kernels_ends_with(const char *text, const char *suffix)
{
    size_t length = strlen(text), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

const char *ml_kernels_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

char *ml_kernels_read_file(const char *path, size_t *bytes)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    char *text = NULL;
    size_t size = 0, used = 0, got;
    char chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) {
        if (used + got + 1 > size) {
            size = 2 * (used + got + 1);
            char *grown = realloc(text, size);
            if (grown == NULL) {
                free(text);
                fclose(file);
                return NULL;
            }
            text = grown;
        }
        memcpy(text + used, chunk, got);
        used += got;
    }
    fclose(file);
    if (text == NULL && (text = malloc(1)) == NULL)
        return NULL;
    text[used] = '\0';
    if (bytes != NULL)
        *bytes = used;
    return text;
}

/* ---- compiling ------------------------------------------------------------------------------ */

/* "75;80;90" or "75 80 90" into nvcc's -gencode options; "90-real" counts as 90. */
int ml_nvcc_gencode(const char *architectures, char options[][64], int max, char *error,
                    size_t error_size)
{
    int count = 0;
    const char *p = architectures;
    while (*p != '\0') {
        while (*p == ';' || *p == ' ' || *p == ',')
            p++;
        if (*p == '\0')
            break;
        char arch[16];
        size_t n = 0;
        while (isalnum((unsigned char)*p) && n + 1 < sizeof arch)
            arch[n++] = *p++;
        arch[n] = '\0';
        while (*p != '\0' && *p != ';' && *p != ' ' && *p != ',')
            p++;
        if (n == 0 || !isdigit((unsigned char)arch[0]) || count == max)
            return ml_kernels_fail(error, error_size,
                                   "CUDA architectures '%s': expected numbers such as 90",
                                   architectures);
        snprintf(options[count++], 64, "-gencode=arch=compute_%s,code=sm_%s", arch, arch);
    }
    if (count == 0)
        return ml_kernels_fail(error, error_size, "no CUDA architecture to compile for");
    return count;
}

static const char *nvcc_path(const ml_kernel_image *image)
{
    const char *given = getenv("MEMLAB_NVCC");
    if (given != NULL && given[0] != '\0')
        return given;
    if (image->nvcc != NULL && access(image->nvcc, X_OK) == 0)
        return image->nvcc;
    return "nvcc";
}

static double now_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec * 1e-9;
}

int ml_kernels_scratch(char *path, size_t size, char *error, size_t error_size)
{
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(path, size, "%s/memlab-kernels-XXXXXX", temporary);
    if (mkdtemp(path) == NULL)
        return ml_kernels_fail(error, error_size, "cannot make a scratch directory in %s",
                               temporary);
    return 0;
}

void ml_kernels_remove_directory(const char *directory)
{
    char *argv[] = {"rm", "-rf", (char *)directory, NULL};
    process_options options = {.time_limit_s = 60};
    process_result result;
    process_run(argv, &options, &result);
}

static int copy_file(const char *from, const char *to)
{
    size_t bytes = 0;
    char *text = ml_kernels_read_file(from, &bytes);
    FILE *file = text != NULL ? fopen(to, "wb") : NULL;
    int copied = file != NULL && fwrite(text, 1, bytes, file) == bytes;
    if (file != NULL && fclose(file) != 0)
        copied = 0;
    free(text);
    return copied ? 0 : -1;
}

/* The name the lab's header has if it has one, "coalescing.h" for labs/04_coalescing: the lab's
 * folder is NN_PROGRAM. */
static void lab_header_name(const ml_kernel_image *image, char *name, size_t size)
{
    const char *folder = ml_kernels_base_name(image->lab_directory);
    const char *underscore = strchr(folder, '_');
    snprintf(name, size, "%s.h", underscore != NULL ? underscore + 1 : folder);
}

int ml_kernels_lab_header(const ml_kernel_image *image, char *name, size_t size)
{
    name[0] = '\0';
    if (image == NULL || image->lab_directory == NULL)
        return 0;
    char header_name[256], path[PATH_SIZE + 300];
    lab_header_name(image, header_name, sizeof header_name);
    snprintf(path, sizeof path, "%s/%s", image->lab_directory, header_name);
    if (access(path, F_OK) != 0)
        return 0;
    snprintf(name, size, "%s", header_name);
    return 1;
}

int ml_nvcc_open_folder(compile_folder *folder, const ml_kernel_image *image,
                        const char *source_path, char *error, size_t error_size)
{
    if (ml_kernels_scratch(folder->root, sizeof folder->root, error, error_size) != 0)
        return -1;
    char directory[PATH_SIZE + 16], header_name[256], lab_header[PATH_SIZE + 300];
    snprintf(directory, sizeof directory, "%s/source", folder->root);
    snprintf(folder->source, sizeof folder->source, "%s/kernels.cu", directory);
    snprintf(folder->temporary, sizeof folder->temporary, "%s/tmp", folder->root);
    snprintf(folder->output, sizeof folder->output, "%s/judge.out", folder->root);
    snprintf(folder->messages, sizeof folder->messages, "%s/judge.log", folder->root);
    lab_header_name(image, header_name, sizeof header_name);
    snprintf(folder->header, sizeof folder->header, "%s/%s", directory, header_name);
    snprintf(lab_header, sizeof lab_header, "%s/%s", image->lab_directory, header_name);
    folder->nvcc = nvcc_path(image);
    folder->deadline = now_s() + ML_KERNELS_COMPILE_TIME_LIMIT_S;
    if (mkdir(directory, 0700) != 0 || mkdir(folder->temporary, 0700) != 0 ||
        copy_file(source_path, folder->source) != 0 ||
        (access(lab_header, F_OK) == 0 && copy_file(lab_header, folder->header) != 0) ||
        realpath(folder->source, folder->real_source) == NULL) {
        ml_kernels_remove_directory(folder->root);
        return ml_kernels_fail(error, error_size, "cannot copy %s to %s", source_path,
                               folder->root);
    }
    if (realpath(folder->header, folder->real_header) == NULL)
        folder->real_header[0] = '\0';
    return 0;
}

int ml_nvcc_run(const compile_folder *folder, char *const argv[], const char *stdout_path,
                const char *stderr_path, long long output_cap_bytes, process_result *result)
{
    int left_s = (int)(folder->deadline - now_s());
    process_options options = {
        .directory = folder->root,
        .stdout_path = stdout_path,
        .stderr_path = stderr_path,
        .time_limit_s = left_s > 1 ? left_s : 1,
        .output_cap_bytes = output_cap_bytes,
        .file_limit_bytes = ML_KERNELS_COMPILE_FILE_LIMIT_BYTES,
        .file_limit_kills = 1,
        .memory_limit_bytes = ML_KERNELS_COMPILE_MEMORY_LIMIT_BYTES,
        .cpu_limit_s = ML_KERNELS_COMPILE_TIME_LIMIT_S,
        .temporary_directory = folder->temporary,
    };
    return process_run(argv, &options, result);
}

int ml_nvcc_command(const compile_folder *folder, const char *mode, char gencode[][64],
                    int gencode_count, int first, char *const extra[], char *argv[], int max)
{
    int argc = 0;
    argv[argc++] = (char *)folder->nvcc;
    argv[argc++] = (char *)mode;
    argv[argc++] = gencode[first];
    for (int i = 0; i < gencode_count; i++)
        if (i != first)
            argv[argc++] = gencode[i];
    for (int i = 0; extra[i] != NULL && argc < max - 2; i++)
        argv[argc++] = extra[i];
    argv[argc++] = (char *)folder->source;
    argv[argc] = NULL;
    return argc;
}

/* What the compiler printed, with the copy called by the file's own name, on stderr. */
static void show_messages(const char *log_path, const char *copy, const char *source_path)
{
    char *log = ml_kernels_read_file(log_path, NULL);
    if (log == NULL)
        return;
    for (char *line = log; *line != '\0';) {
        char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "ptxas info", 10) != 0 && strncmp(line, "    ", 4) != 0) {
            const char *found = strstr(line, copy);
            if (found != NULL && found < line + length)
                fprintf(stderr, "%.*s%s%.*s\n", (int)(found - line), line,
                        ml_kernels_base_name(source_path),
                        (int)(line + length - found - strlen(copy)), found + strlen(copy));
            else
                fprintf(stderr, "%.*s\n", (int)length, line);
        }
        line += length + (end != NULL);
    }
    free(log);
}

void ml_nvcc_failed(const process_result *result, const char *log_path,
                    const compile_folder *folder, const char *source_path, char *error,
                    size_t error_size)
{
    if (result->timed_out) {
        ml_kernels_fail(error, error_size, "compiling %s took more than %d s",
                        ml_kernels_base_name(source_path), ML_KERNELS_COMPILE_TIME_LIMIT_S);
    } else if (!result->started) {
        ml_kernels_fail(error, error_size, "%s could not be run: install the CUDA toolkit",
                        folder->nvcc);
    } else {
        show_messages(log_path, folder->source, source_path);
        ml_kernels_fail(error, error_size,
                        "%s does not compile (the compiler's messages are above)",
                        ml_kernels_base_name(source_path));
    }
}
