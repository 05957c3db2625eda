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
 * (PROGRAM.h, where the lab has one) and nothing else, and holds no #line or line marker. The
 * compiler is the judge: ml_kernels_compile copies the file into a folder of its own beside a
 * copy of PROGRAM.h (no include path names the lab's folder, which holds the rubric), has the
 * preprocessor list every file it opens or looks for and write its output, and refuses the
 * file, with one line and none of the preprocessor's messages (they quote what they read), when
 * it names any other file.
 * ml_kernels_check_source, a scan of the text, is only a fast first filter with clear messages:
 * a lexer of our own can be fooled (a lone CR, a splice with spaces, a digit separator, a
 * byte-order mark), the preprocessor cannot.
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
#define ML_KERNELS_COMPILE_TIME_LIMIT_S 60   /* the judge's preprocessing and the compile */
/* Limits of every process of a compile (nvcc, the preprocessor, cicc, ptxas): address space
 * (a preprocessor or template bomb fails an allocation), the size of any file it writes (the
 * preprocessed text of a bomb), CPU seconds (it dies even if its caller was killed). Each
 * compile of the labs' kernels fits in a fraction of them. */
#define ML_KERNELS_COMPILE_MEMORY_LIMIT_BYTES (4LL * 1024 * 1024 * 1024)
#define ML_KERNELS_COMPILE_FILE_LIMIT_BYTES (64LL * 1024 * 1024)
/* Beside FATBIN, a refused file leaves FATBIN.refused holding the one line: a caller that sees
 * only the exit status (the grader) tells a refusal from a compile error by it. */
#define ML_KERNELS_REFUSED_SUFFIX ".refused"

/* The lab's own header, PROGRAM.h in the lab's folder labs/NN_PROGRAM: its file name
 * ("bank_conflicts.h") in name and 1 where the lab has one; "" and 0 where it has none (lab 04)
 * or image is NULL. */
int ml_kernels_lab_header(const ml_kernel_image *image, char *name, size_t size);

/* A --kernels FILE that can be loaded: readable, a .cu, .fatbin or .cubin, within its size
 * limit, and for a .cu passing ml_kernels_check_source (the first filter; the judge is
 * ml_kernels_compile). lab_header: the lab's header (ml_kernels_lab_header), NULL or "" for a
 * lab without one. Needs no GPU and touches nothing. Returns 0, or -1 with one line in error. */
int ml_kernels_check_file(const char *path, const char *lab_header, char *error,
                          size_t error_size);

/* The first filter, on a file's text: no #include but the CUDA headers and "lab_header" (none
 * where it is NULL or ""), no #line or line marker, no raw string (its end is not where a simple
 * scan finds it). The refusal names what the file may include. */
int ml_kernels_check_source(const char *text, const char *lab_header, char *error,
                            size_t error_size);

/* Compiles a kernels .cu to a fatbin with nvcc, device code only, for the architectures given
 * ("90" or "80;90"), within the ML_KERNELS_COMPILE_* limits, in a folder of its own under
 * $TMPDIR (every nvcc process's TMPDIR inside it) removed on every path. Before compiling, the
 * judge (see the top of this file) reads what the preprocessor opened for each architecture.
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

/* Unloads the loaded module, if any, with every __device__ and __constant__ variable of it: what
 * the next ml_kernels_load loads starts from the module's initial values (--cases: no state
 * lives from one case into the next). */
void ml_kernels_unload(void);

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

/* The whole file at path, NUL-terminated (*bytes long, not counting the NUL; bytes may be
 * NULL), or NULL when it cannot be read. The caller frees it. */
char *ml_kernels_read_file(const char *path, size_t *bytes);

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
