/* kernel_loader.h: the kernels a lab program runs, into its module (kernel_module.h): its own,
 * embedded by the build, or a --kernels FILE: a .cu compiled with nvcc on the spot (device code
 * only, after the judge: source_judge.h), or a .fatbin or .cubin.
 */
#ifndef MEMLAB_KERNEL_LOADER_H
#define MEMLAB_KERNEL_LOADER_H

#include <stddef.h>

#include "kernel_module.h"
#include "nvcc.h"
#include "source_judge.h"

/* Beside FATBIN, a refused file leaves FATBIN.refused holding the one line: a caller that sees
 * only the exit status (the grader) tells a refusal from a compile error by it. */
#define ML_KERNELS_REFUSED_SUFFIX ".refused"

/* Compiles a kernels .cu to a fatbin with nvcc, device code only, for the architectures given
 * ("90" or "80;90"), within the ML_KERNELS_COMPILE_* limits, in a folder of its own under
 * $TMPDIR (every nvcc process's TMPDIR inside it) removed on every path. Before compiling, the
 * judge (source_judge.h) reads what the preprocessor opened for each architecture.
 * Writes fatbin_path and, beside it, fatbin_path + ".ptxas" (what ptxas printed). Returns 0,
 * or -1 with one line in error: a refusal (and fatbin_path + ML_KERNELS_REFUSED_SUFFIX written,
 * nothing on stderr), a compile error (the compiler's messages on stderr: they quote only the
 * file and allowed headers), a limit, or a host that cannot compile. */
int ml_kernels_compile(const ml_kernel_image *image, const char *source_path,
                       const char *architectures, const char *fatbin_path, char *error,
                       size_t error_size);

/* Loads the program's own kernels (path NULL) or path's, on the current device. Returns 0, or
 * -1 with one line in error. */
int ml_kernels_load(const ml_kernel_image *image, const char *path, char *error,
                    size_t error_size);

/* What a compile with no GPU to run on is for: MEMLAB_CUDA_ARCH, else device's architecture
 * ("90"), else the architectures the program was built for. */
void ml_kernels_default_architectures(const ml_kernel_image *image, int device, char *architectures,
                                      size_t size);

#endif
