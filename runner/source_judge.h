/* source_judge.h: what a submitted kernels.cu may hold, judged before nvcc compiles it.
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
#ifndef MEMLAB_SOURCE_JUDGE_H
#define MEMLAB_SOURCE_JUDGE_H

#include <stddef.h>

#include "nvcc.h"

#define ML_KERNELS_SOURCE_MAX_BYTES (256 * 1024)
#define ML_KERNELS_BINARY_MAX_BYTES (64 * 1024 * 1024)

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

enum { JUDGE_PASSED = 0, JUDGE_REFUSED = 1, JUDGE_STOPPED = 2 };

/* Whether the folder's copy may be compiled, from what the preprocessor read for every
 * architecture (source_judge.c says how): JUDGE_PASSED, JUDGE_REFUSED or JUDGE_STOPPED with the
 * one line in error, or -1 (the host has no nvcc). */
int ml_judge_source(const compile_folder *folder, const char *source_path, char gencode[][64],
                    int gencode_count, char *error, size_t error_size);

#endif
