/* kernels.h: the lab's kernels as a loaded module (the lab contract v2).
 *
 * A lab program never links its kernels: it loads them. By default it loads its own
 * labs/NN_PROGRAM/kernels.cu, compiled to a fatbin at build time and embedded in the program
 * (common/embed_kernels.sh); with --kernels FILE it loads FILE instead: a .cu it compiles with
 * nvcc on the spot (device code only), or a .fatbin or .cubin. Every kernel is then found by
 * name, so whatever FILE holds, the host code that launches, checks and measures it is the
 * instructor's. The grader runs the instructor's program with --kernels on a submission.
 *
 * A kernels.cu given to --kernels may include the CUDA headers and the lab's own header
 * (PROGRAM.h) and nothing else: ml_kernels_check_source refuses every other #include before
 * the compiler sees the file, so it cannot read the rubric or anything else into an error
 * message.
 */
#ifndef MEMLAB_KERNELS_H
#define MEMLAB_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the build embeds in a lab program (written by common/embed_kernels.sh). */
typedef struct {
    const unsigned char *fatbin;
    size_t fatbin_bytes;
    const char *ptxas_log;      /* what ptxas printed compiling it (-Xptxas -v): the spills */
    const char *source;         /* the kernels.cu it was built from (absolute path) */
    const char *lab_directory;  /* its directory: the include path of a --kernels compile */
    const char *nvcc;           /* the compiler the build used */
    const char *architectures;  /* the build's, "75;80;90": a compile with no GPU to ask */
} ml_kernel_image;

#define ML_KERNELS_SOURCE_MAX_BYTES (256 * 1024)
#define ML_KERNELS_BINARY_MAX_BYTES (64 * 1024 * 1024)
#define ML_KERNELS_COMPILE_TIME_LIMIT_S 60

/* A --kernels FILE that can be loaded: readable, a .cu, .fatbin or .cubin, within its size
 * limit, and for a .cu no #include but the CUDA headers and "PROGRAM.h". Needs no GPU and
 * touches nothing. Returns 0, or -1 with one line in error. */
int ml_kernels_check_file(const char *path, const char *program, char *error, size_t error_size);

/* The #include rule alone, on a file's text. */
int ml_kernels_check_source(const char *text, const char *program, char *error,
                            size_t error_size);

/* Compiles a checked kernels .cu to a fatbin with nvcc, device code only, for the
 * architectures given ("90" or "80;90"), within ML_KERNELS_COMPILE_TIME_LIMIT_S. Writes
 * fatbin_path and, beside it, fatbin_path + ".ptxas" (what ptxas printed). On failure returns
 * -1 with one line in error, and the compiler's messages on stderr. */
int ml_kernels_compile(const ml_kernel_image *image, const char *source_path,
                       const char *architectures, const char *fatbin_path, char *error,
                       size_t error_size);

/* Loads the program's own kernels (path NULL) or path's, on the current device. Returns 0, or
 * -1 with one line in error. */
int ml_kernels_load(const ml_kernel_image *image, const char *path, char *error,
                    size_t error_size);

/* The loaded module's kernel of that name, or NULL. */
cudaKernel_t ml_kernels_find(const char *name);

/* The file the loaded kernels came from, for messages: "kernels.cu" or the --kernels file's
 * name. */
const char *ml_kernels_origin(void);

/* What a compile with no GPU to run on is for: MEMLAB_CUDA_ARCH, else device's architecture
 * ("90"), else the architectures the program was built for. */
void ml_kernels_default_architectures(const ml_kernel_image *image, int device, char *architectures,
                                      size_t size);

/* The spill bytes per thread ptxas reported for kernel `name` compiled for `arch` (90 for
 * sm_90); -1 each when unknown (a .fatbin or .cubin with no .ptxas file beside it). */
void ml_kernels_spills(const char *name, int arch, int *store_bytes, int *load_bytes);

#ifdef __cplusplus
}
#endif

#endif
