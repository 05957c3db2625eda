/* nvcc.h: nvcc run on a copy of a --kernels .cu in a folder of its own, under the compile's
 * limits: what the judge (source_judge.c) and the loader's compile (kernel_loader.c) share, and
 * the small helpers of the three.
 */
#ifndef MEMLAB_NVCC_H
#define MEMLAB_NVCC_H

#include <limits.h>
#include <stddef.h>

#include "kernel_module.h"
#include "process.h"

#define PATH_SIZE 4096

#define ML_KERNELS_COMPILE_TIME_LIMIT_S 60   /* the judge's preprocessing and the compile */
/* Limits of every process of a compile (nvcc, the preprocessor, cicc, ptxas): address space
 * (a preprocessor or template bomb fails an allocation), the size of any file it writes (the
 * preprocessed text of a bomb), CPU seconds (it dies even if its caller was killed). Each
 * compile of the labs' kernels fits in a fraction of them. */
#define ML_KERNELS_COMPILE_MEMORY_LIMIT_BYTES (4LL * 1024 * 1024 * 1024)
#define ML_KERNELS_COMPILE_FILE_LIMIT_BYTES (64LL * 1024 * 1024)

/* One compile's folder, removed on every path (finished, refused, failed, timed out):
 *   ROOT/source/kernels.cu  the copy of the file: what is judged is what is compiled
 *   ROOT/source/PROGRAM.h   a copy of the lab's header, if the lab has one: the only file a
 *                           quoted #include can find (no include path names the lab's folder,
 *                           which holds the rubric)
 *   ROOT/tmp/               TMPDIR of every nvcc run: whatever it leaves goes with ROOT
 *   ROOT/judge.*            the preprocessor's output, read by the judge and never shown */
typedef struct {
    char root[PATH_SIZE];
    char source[PATH_SIZE + 32];
    char header[PATH_SIZE + 300];
    char temporary[PATH_SIZE + 8];
    char output[PATH_SIZE + 16];        /* a run's stdout */
    char messages[PATH_SIZE + 16];      /* a run's stderr */
    /* source and header as realpath gives them, found once for the judge's every file name
     * ("" for a lab without a header) */
    char real_source[PATH_MAX], real_header[PATH_MAX];
    const char *nvcc;
    double deadline;                    /* now_s() by which every run of this compile has ended */
} compile_folder;

/* Writes the one-line error and returns -1. */
int ml_kernels_fail(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* The file name of a path, after its last slash. */
const char *ml_kernels_base_name(const char *path);
int ml_kernels_ends_with(const char *text, const char *suffix);

/* A new directory of its own under $TMPDIR (or /tmp), for one compile; and its removal. */
int ml_kernels_scratch(char *path, size_t size, char *error, size_t error_size);
void ml_kernels_remove_directory(const char *directory);

/* The whole file at path, NUL-terminated (*bytes long, not counting the NUL; bytes may be
 * NULL), or NULL when it cannot be read. The caller frees it. */
char *ml_kernels_read_file(const char *path, size_t *bytes);

/* The lab's own header, PROGRAM.h in the lab's folder labs/NN_PROGRAM: its file name
 * ("bank_conflicts.h") in name and 1 where the lab has one; "" and 0 where it has none (lab 04)
 * or image is NULL. */
int ml_kernels_lab_header(const ml_kernel_image *image, char *name, size_t size);

/* "75;80;90" or "75 80 90" into nvcc's -gencode options (at most max); "90-real" counts as 90.
 * Returns how many, or -1 with one line in error. */
int ml_nvcc_gencode(const char *architectures, char options[][64], int max, char *error,
                    size_t error_size);
/* The compile's folder (compile_folder): the copy of source_path and of the lab's header, the
 * folder's TMPDIR, nvcc's path and the compile's deadline. Returns 0, or -1 with one line in
 * error (and nothing left behind). */
int ml_nvcc_open_folder(compile_folder *folder, const ml_kernel_image *image,
                        const char *source_path, char *error, size_t error_size);

/* Runs nvcc in the folder within what is left of the compile's time, under the compile's
 * memory, file-size and CPU limits, with TMPDIR in the folder. The judge reads whole what the
 * preprocessor wrote (output_cap_bytes 0: no cap but the file-size limit); what a compile
 * prints for people is capped. */
int ml_nvcc_run(const compile_folder *folder, char *const argv[], const char *stdout_path,
                const char *stderr_path, long long output_cap_bytes, process_result *result);
/* nvcc's command line for the folder's copy: `mode` ("-E" or "-fatbin"), the -gencode options
 * with architecture `first` first (nvcc -E preprocesses for the first one, with the whole list
 * in __CUDA_ARCH_LIST__, exactly as the compile does for that architecture), `extra` (NULL
 * ended), the copy. Returns the number of words. */
int ml_nvcc_command(const compile_folder *folder, const char *mode, char gencode[][64],
                    int gencode_count, int first, char *const extra[], char *argv[], int max);
/* Why a run of nvcc over the copy failed, in one line: its time limit, a host without nvcc, or
 * the compiler's messages (`log_path`, shown on stderr with the copy called by the file's own
 * name). */
void ml_nvcc_failed(const process_result *result, const char *log_path,
                    const compile_folder *folder, const char *source_path, char *error,
                    size_t error_size);

#endif
