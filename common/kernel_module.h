/* kernel_module.h: the lab's kernels as a loaded module (the lab contract v2).
 *
 * A lab program never links its kernels: it loads them. By default it loads its own
 * labs/NN_PROGRAM/kernels.cu, compiled to a fatbin at build time and embedded in the program
 * (common/embed_kernels.sh); with --kernels FILE it loads FILE instead (the runner's loader,
 * runner/kernel_loader.h). Every kernel is then found by name, so whatever FILE holds, the host
 * code that launches, checks and measures it is the instructor's. This is the module itself:
 * what is loaded, its kernels by name, their spills and machine code.
 */
#ifndef MEMLAB_KERNEL_MODULE_H
#define MEMLAB_KERNEL_MODULE_H

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

/* Puts a module in place of the one loaded (the runner's loader, kernel_loader.h, gives it):
 * origin, the file it came from for messages; ptxas_log, what ptxas printed compiling it (the
 * spills; NULL: none known); binary, its bytes (bytes long), which the module frees later when
 * owned, else borrows (the embedded image), for ml_kernels_code_bytes. The library is loaded
 * from binary, or from library_path when that is not NULL. Returns 0, or -1 with one line in
 * error. */
int ml_kernels_use(const char *origin, const char *ptxas_log, const void *binary, size_t bytes,
                   int owned, const char *library_path, char *error, size_t error_size);

/* Unloads the loaded module, if any, with every __device__ and __constant__ variable of it: what
 * the next ml_kernels_load loads starts from the module's initial values (--cases: no state
 * lives from one case into the next). */
void ml_kernels_unload(void);

/* The loaded module's kernel of that name, or NULL. */
cudaKernel_t ml_kernels_find(const char *name);

/* The file the loaded kernels came from, for messages: "kernels.cu" or the --kernels file's
 * name. */
const char *ml_kernels_origin(void);

/* The spill bytes per thread ptxas reported for kernel `name` compiled for `arch` (90 for
 * sm_90); -1 each when unknown (a .fatbin or .cubin with no .ptxas file beside it). */
void ml_kernels_spills(const char *name, int arch, int *store_bytes, int *load_bytes);

/* The bytes of kernel `name`'s machine code (its .text section) and constant bank 0 (the
 * driver's constants and the launch's parameters) in the cubin for sm_`arch` (90 for sm_90) of
 * the loaded kernels, or of image's when none are loaded (--model: the program's own kernels,
 * which a --kernels FILE does not replace there). The cubin is the one the driver would run on
 * such a device: its own architecture's, else the newest of the same major version below it.
 * Returns 0, or -1 with both 0 when there is none (a fatbin of PTX only, a compressed one: the
 * build and --kernels compile with -compress-mode=none) or it has no such kernel. */
int ml_kernels_code_bytes(const ml_kernel_image *image, const char *name, int arch,
                          double *code_bytes, double *constant_bytes);
/* The same, in the bytes of a fatbin or a cubin (bytes long). */
int ml_kernels_code_bytes_in(const void *binary, size_t bytes, const char *name, int arch,
                             double *code_bytes, double *constant_bytes);

#ifdef __cplusplus
}
#endif

#endif
