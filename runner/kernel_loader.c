/* kernel_loader.c: the kernels a lab program runs, into its module (kernel_loader.h): the embedded
 * ones, a .fatbin or .cubin file, or a .cu judged (source_judge.c) and compiled with nvcc
 * (nvcc.c) on the spot. */
#define _POSIX_C_SOURCE 200809L
#include "kernel_loader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "nvcc.h"
#include "source_judge.h"

/* What the compiler prints for people is capped: a file of #pragma messages cannot fill the
 * disk. */
#define COMPILER_OUTPUT_CAP_BYTES (1024 * 1024)

/* The device's architecture as nvcc names it: "90". */
static int device_architecture(int device, char *architecture, size_t size)
{
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
        return -1;
    snprintf(architecture, size, "%d%d", major, minor);
    return 0;
}

void ml_kernels_default_architectures(const ml_kernel_image *image, int device, char *architectures,
                                      size_t size)
{
    const char *given = getenv("MEMLAB_CUDA_ARCH");
    if (given != NULL && given[0] != '\0')
        snprintf(architectures, size, "%s", given);
    else if (device_architecture(device, architectures, size) != 0)
        snprintf(architectures, size, "%s", image->architectures);
}

int ml_kernels_compile(const ml_kernel_image *image, const char *source_path,
                       const char *architectures, const char *fatbin_path, char *error,
                       size_t error_size)
{
    char gencode[16][64];
    int gencode_count = ml_nvcc_gencode(architectures, gencode, 16, error, error_size);
    if (gencode_count < 0)
        return -1;
    char output[2 * PATH_SIZE], here[PATH_SIZE], log_path[2 * PATH_SIZE + 16],
        refused_path[2 * PATH_SIZE + 16];
    /* nvcc runs in the scratch directory: a relative output path must not land there. */
    if (fatbin_path[0] == '/')
        snprintf(output, sizeof output, "%s", fatbin_path);
    else if (getcwd(here, sizeof here) != NULL)
        snprintf(output, sizeof output, "%s/%s", here, fatbin_path);
    else
        return ml_kernels_fail(error, error_size, "cannot tell the current directory");
    fatbin_path = output;
    snprintf(log_path, sizeof log_path, "%s.ptxas", fatbin_path);
    snprintf(refused_path, sizeof refused_path, "%s%s", fatbin_path, ML_KERNELS_REFUSED_SUFFIX);
    if (unlink(refused_path) != 0 && errno != ENOENT)
        return ml_kernels_fail(error, error_size, "cannot remove %s", refused_path);

    compile_folder folder;
    if (ml_nvcc_open_folder(&folder, image, source_path, error, error_size) != 0)
        return -1;
    int verdict = ml_judge_source(&folder, source_path, gencode, gencode_count, error, error_size);
    if (verdict == JUDGE_REFUSED) {
        /* Told apart from a compile error by a file, not by words: the caller (the grader) sees
         * one exit status for both. */
        FILE *file = fopen(refused_path, "w");
        if (file == NULL || fprintf(file, "%s\n", error) < 0 || fclose(file) != 0)
            fprintf(stderr, "memlab: cannot write %s\n", refused_path);
    }
    if (verdict != JUDGE_PASSED) {
        ml_kernels_remove_directory(folder.root);
        return -1;
    }

    /* -compress-mode=none: the cubins stay plain ELF, whose kernels' machine code the model
     * reads (ml_kernels_code_bytes), as the build's embed step does (embed_kernels.sh). */
    char *compile_options[] = {"-lineinfo", "-compress-mode=none", "-Xptxas", "-v", "-o",
                               (char *)fatbin_path, NULL};
    char *argv[48];
    ml_nvcc_command(&folder, "-fatbin", gencode, gencode_count, 0, compile_options, argv, 48);
    /* What the compiler prints is capped: a file of #pragma messages cannot fill the disk. */
    process_result result;
    int status = ml_nvcc_run(&folder, argv, log_path, log_path, COMPILER_OUTPUT_CAP_BYTES, &result);
    if (status == 0) {
        ml_kernels_remove_directory(folder.root);
        return 0;
    }
    ml_nvcc_failed(&result, log_path, &folder, source_path, error, error_size);
    ml_kernels_remove_directory(folder.root);
    return -1;
}

int ml_kernels_load(const ml_kernel_image *image, const char *path, char *error, size_t error_size)
{
    if (path == NULL)
        return ml_kernels_use(image->source, image->ptxas_log, image->fatbin, image->fatbin_bytes,
                              0, NULL, error, error_size);
    if (!ml_kernels_ends_with(path, ".cu")) {
        char log_path[PATH_SIZE];
        snprintf(log_path, sizeof log_path, "%s.ptxas", path);
        char *log = ml_kernels_read_file(log_path, NULL);
        size_t bytes = 0;
        char *binary = ml_kernels_read_file(path, &bytes);
        int status = ml_kernels_use(path, log, binary, bytes, 1, path, error, error_size);
        free(log);
        return status;
    }
    char architecture[16], work[PATH_SIZE], fatbin[PATH_SIZE + 16], log_path[PATH_SIZE + 32];
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        device_architecture(device, architecture, sizeof architecture) != 0)
        return ml_kernels_fail(error, error_size, "cannot read the device's compute capability");
    if (ml_kernels_scratch(work, sizeof work, error, error_size) != 0)
        return -1;
    snprintf(fatbin, sizeof fatbin, "%s/kernels.fatbin", work);
    snprintf(log_path, sizeof log_path, "%s.ptxas", fatbin);
    int status = ml_kernels_compile(image, path, architecture, fatbin, error, error_size);
    if (status == 0) {
        size_t bytes = 0;
        char *data = ml_kernels_read_file(fatbin, &bytes);
        char *log = ml_kernels_read_file(log_path, NULL);
        /* The module keeps the fatbin's bytes, and frees them when the next module comes. */
        status = data != NULL ? ml_kernels_use(path, log, data, bytes, 1, NULL, error, error_size)
                              : ml_kernels_fail(error, error_size, "cannot read %s", fatbin);
        free(log);
    }
    ml_kernels_remove_directory(work);
    return status;
}
