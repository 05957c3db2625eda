/* kernels.c: loading the lab's kernels as a module, and compiling a --kernels .cu (kernels.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup */
#include "kernels.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memlab.h"
#include "process.h"

#define MAX_SPILL_ROWS 256
#define PATH_SIZE 4096
#define COMPILER_OUTPUT_CAP_BYTES (1024 * 1024)

typedef struct {
    char kernel[128];
    int arch;
    int store_bytes;
    int load_bytes;
} spill_row;

/* The one module a lab program runs: loaded once, used by every launch. */
static struct {
    cudaLibrary_t library;
    char origin[PATH_SIZE];
    spill_row spills[MAX_SPILL_ROWS];
    int spill_count;
} loaded;

static int fail(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
    return -1;
}

static int ends_with(const char *text, const char *suffix)
{
    size_t length = strlen(text), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* The whole file, NUL-terminated, or NULL. */
static char *read_file(const char *path, size_t *bytes)
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

/* ---- the #include rule -------------------------------------------------------------------- */

/* The headers of the CUDA toolkit a kernel may use. */
static const char *const cuda_headers[] = {
    "cuda.h",          "cuda_runtime.h",          "cuda_runtime_api.h", "cuda_fp16.h",
    "cuda_bf16.h",     "device_launch_parameters.h", "vector_types.h",  "math_constants.h",
    "cooperative_groups.h", "cooperative_groups/reduce.h", "mma.h",
};

static int allowed_header(const char *name, char delimiter, const char *program)
{
    if (delimiter == '"') {
        char lab_header[160];
        snprintf(lab_header, sizeof lab_header, "%s.h", program);
        return strcmp(name, lab_header) == 0;
    }
    for (size_t i = 0; i < sizeof cuda_headers / sizeof cuda_headers[0]; i++)
        if (strcmp(name, cuda_headers[i]) == 0)
            return 1;
    return 0;
}

/* The text as the preprocessor's first phases leave it: line splices joined and every comment
 * a space, newlines kept (so line numbers stay right). String and character literals are kept;
 * a raw string literal is refused, since its end is not where a simple scan would find it. */
static char *strip_comments(const char *text, int *raw_string_line)
{
    size_t length = strlen(text);
    char *joined = malloc(length + 1), *out = malloc(length + 1);
    int *line_of = malloc((length + 1) * sizeof *line_of);
    if (joined == NULL || out == NULL || line_of == NULL) {
        free(joined);
        free(out);
        free(line_of);
        return NULL;
    }
    /* Phase 2: a backslash before a newline joins the lines; the newline is kept at the end of
     * the joined line so numbering still follows the file. */
    size_t j = 0, pending_newlines = 0;
    int line = 1;
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '\\' && (text[i + 1] == '\n' || (text[i + 1] == '\r' && text[i + 2] == '\n'))) {
            i += text[i + 1] == '\r' ? 2 : 1;
            pending_newlines++;
            line++;
            continue;
        }
        if (text[i] == '\n') {
            for (; pending_newlines > 0; pending_newlines--) {
                line_of[j] = line;
                joined[j++] = ' ';
            }
            line++;
        }
        line_of[j] = line;
        joined[j++] = text[i];
    }
    joined[j] = '\0';

    enum { CODE, LINE_COMMENT, BLOCK_COMMENT, STRING, CHARACTER } state = CODE;
    size_t o = 0;
    *raw_string_line = 0;
    for (size_t i = 0; i < j; i++) {
        char c = joined[i], next = joined[i + 1];
        switch (state) {
        case CODE:
            if (c == '/' && next == '/') {
                state = LINE_COMMENT;
                out[o++] = ' ';
                i++;
            } else if (c == '/' && next == '*') {
                state = BLOCK_COMMENT;
                out[o++] = ' ';
                i++;
            } else {
                if (c == '"' && i > 0 && joined[i - 1] == 'R' && *raw_string_line == 0)
                    *raw_string_line = line_of[i];
                if (c == '"')
                    state = STRING;
                else if (c == '\'')
                    state = CHARACTER;
                out[o++] = c;
            }
            break;
        case LINE_COMMENT:
            if (c == '\n') {
                state = CODE;
                out[o++] = c;
            }
            break;
        case BLOCK_COMMENT:
            if (c == '*' && next == '/') {
                state = CODE;
                i++;
            } else if (c == '\n') {
                out[o++] = c;
            }
            break;
        case STRING:
        case CHARACTER:
            out[o++] = c;
            if (c == '\\' && next != '\0' && next != '\n') {
                out[o++] = next;
                i++;
            } else if ((state == STRING && c == '"') || (state == CHARACTER && c == '\'') ||
                       c == '\n') {
                state = CODE;
            }
            break;
        }
    }
    out[o] = '\0';
    free(joined);
    free(line_of);
    return out;
}

int ml_kernels_check_source(const char *text, const char *program, char *error, size_t error_size)
{
    int raw_string_line = 0;
    char *code = strip_comments(text, &raw_string_line);
    if (code == NULL)
        return fail(error, error_size, "out of host memory");
    if (raw_string_line != 0) {
        free(code);
        return fail(error, error_size, "line %d: raw string literals are not allowed in a kernels file",
                    raw_string_line);
    }
    int status = 0, line = 1;
    for (char *cursor = code; *cursor != '\0' && status == 0; line++) {
        char *end = strchr(cursor, '\n');
        if (end != NULL)
            *end = '\0';
        if (strstr(cursor, "__has_include") != NULL || strstr(cursor, "__has_embed") != NULL) {
            status = fail(error, error_size, "line %d: __has_include is not allowed in a kernels file",
                          line);
            break;
        }
        char *p = cursor;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
            p++;
        /* A directive starts with # or its digraph %:. */
        int directive = p[0] == '#' || (p[0] == '%' && p[1] == ':');
        if (directive) {
            p += p[0] == '#' ? 1 : 2;
            while (*p == ' ' || *p == '\t')
                p++;
            char word[32];
            size_t w = 0;
            while ((isalnum((unsigned char)*p) || *p == '_') && w + 1 < sizeof word)
                word[w++] = *p++;
            word[w] = '\0';
            if (strcmp(word, "include_next") == 0 || strcmp(word, "import") == 0 ||
                strcmp(word, "embed") == 0) {
                status = fail(error, error_size, "line %d: #%s is not allowed in a kernels file",
                              line, word);
            } else if (strcmp(word, "include") == 0) {
                while (*p == ' ' || *p == '\t')
                    p++;
                char open = *p, close = open == '<' ? '>' : open == '"' ? '"' : '\0';
                char *name_end = close != '\0' ? strchr(p + 1, close) : NULL;
                char name[256] = "";
                if (name_end != NULL && (size_t)(name_end - p - 1) < sizeof name)
                    snprintf(name, sizeof name, "%.*s", (int)(name_end - p - 1), p + 1);
                if (name[0] == '\0' || !allowed_header(name, open, program))
                    status = fail(error, error_size,
                                  "line %d: #include %.80s is not allowed: a kernels file includes "
                                  "only CUDA headers (<cuda_runtime.h>, ...) and \"%s.h\"",
                                  line, p, program);
            }
        }
        if (end == NULL)
            break;
        cursor = end + 1;
    }
    free(code);
    return status;
}

int ml_kernels_check_file(const char *path, const char *program, char *error, size_t error_size)
{
    int source = ends_with(path, ".cu");
    if (!source && !ends_with(path, ".fatbin") && !ends_with(path, ".cubin"))
        return fail(error, error_size, "--kernels %s: expected a .cu, .fatbin or .cubin file", path);
    struct stat status;
    if (stat(path, &status) != 0 || !S_ISREG(status.st_mode) || access(path, R_OK) != 0)
        return fail(error, error_size, "--kernels %s: no such readable file", path);
    long long limit = source ? ML_KERNELS_SOURCE_MAX_BYTES : ML_KERNELS_BINARY_MAX_BYTES;
    if ((long long)status.st_size > limit)
        return fail(error, error_size, "--kernels %s: %lld bytes, more than the limit of %lld",
                    path, (long long)status.st_size, limit);
    if (!source)
        return 0;
    char *text = read_file(path, NULL);
    if (text == NULL)
        return fail(error, error_size, "--kernels %s: cannot read it", path);
    if (strlen(text) != (size_t)status.st_size) {
        free(text);
        return fail(error, error_size, "--kernels %s: a source file holds no NUL bytes", path);
    }
    char rule[512];
    int checked = ml_kernels_check_source(text, program, rule, sizeof rule);
    free(text);
    if (checked != 0)
        return fail(error, error_size, "%s: %s", base_name(path), rule);
    return 0;
}

/* ---- compiling ------------------------------------------------------------------------------ */

/* "75;80;90" or "75 80 90" into nvcc's -gencode options; "90-real" counts as 90. */
static int gencode_options(const char *architectures, char options[][64], int max, char *error,
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
            return fail(error, error_size, "CUDA architectures '%s': expected numbers such as 90",
                        architectures);
        snprintf(options[count++], 64, "-gencode=arch=compute_%s,code=sm_%s", arch, arch);
    }
    if (count == 0)
        return fail(error, error_size, "no CUDA architecture to compile for");
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

/* A new directory of its own under $TMPDIR (or /tmp), for one compile. */
static int make_scratch(char *path, size_t size, char *error, size_t error_size)
{
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(path, size, "%s/memlab-kernels-XXXXXX", temporary);
    if (mkdtemp(path) == NULL)
        return fail(error, error_size, "cannot make a scratch directory in %s", temporary);
    return 0;
}

static void remove_directory(const char *directory)
{
    char *argv[] = {"rm", "-rf", (char *)directory, NULL};
    process_result result;
    process_run(argv, NULL, NULL, NULL, 60, &result);
}

int ml_kernels_compile(const ml_kernel_image *image, const char *source_path,
                       const char *architectures, const char *fatbin_path, char *error,
                       size_t error_size)
{
    char gencode[16][64];
    int gencode_count = gencode_options(architectures, gencode, 16, error, error_size);
    if (gencode_count < 0)
        return -1;
    /* The file is compiled alone in a directory of its own: a quoted #include finds the lab's
     * header through -I, never a file that happens to lie beside the submission. */
    char work[PATH_SIZE], copy[PATH_SIZE + 16], include[PATH_SIZE + 2];
    char output[2 * PATH_SIZE], here[PATH_SIZE], log_path[2 * PATH_SIZE + 16];
    /* nvcc runs in the scratch directory: a relative output path must not land there. */
    if (fatbin_path[0] == '/')
        snprintf(output, sizeof output, "%s", fatbin_path);
    else if (getcwd(here, sizeof here) != NULL)
        snprintf(output, sizeof output, "%s/%s", here, fatbin_path);
    else
        return fail(error, error_size, "cannot tell the current directory");
    fatbin_path = output;
    if (make_scratch(work, sizeof work, error, error_size) != 0)
        return -1;
    snprintf(copy, sizeof copy, "%s/kernels.cu", work);
    snprintf(log_path, sizeof log_path, "%s.ptxas", fatbin_path);
    snprintf(include, sizeof include, "-I%s", image->lab_directory);
    size_t bytes = 0;
    char *text = read_file(source_path, &bytes);
    FILE *file = text != NULL ? fopen(copy, "wb") : NULL;
    int copied = file != NULL && fwrite(text, 1, bytes, file) == bytes;
    if (file != NULL && fclose(file) != 0)
        copied = 0;
    free(text);
    if (!copied) {
        remove_directory(work);
        return fail(error, error_size, "cannot copy %s to %s", source_path, work);
    }

    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)nvcc_path(image);
    argv[argc++] = "-fatbin";
    argv[argc++] = "-lineinfo";
    argv[argc++] = "-Xptxas";
    argv[argc++] = "-v";
    argv[argc++] = include;
    for (int i = 0; i < gencode_count; i++)
        argv[argc++] = gencode[i];
    argv[argc++] = "-o";
    argv[argc++] = (char *)fatbin_path;
    argv[argc++] = copy;
    argv[argc] = NULL;

    /* What the compiler prints is capped: a file of #pragma messages cannot fill the disk. */
    process_result result;
    int status = process_run_capped(argv, work, log_path, log_path, ML_KERNELS_COMPILE_TIME_LIMIT_S,
                                    COMPILER_OUTPUT_CAP_BYTES, 0, &result);
    remove_directory(work);
    if (status == 0)
        return 0;
    if (!result.started)
        return fail(error, error_size, "%s could not be run: install the CUDA toolkit", argv[0]);
    if (result.timed_out)
        return fail(error, error_size, "compiling %s took more than %d s", base_name(source_path),
                    ML_KERNELS_COMPILE_TIME_LIMIT_S);
    /* The compiler's messages name the copy; students know their file by its own name. */
    char *log = read_file(log_path, NULL);
    if (log != NULL) {
        for (char *line = log; *line != '\0';) {
            char *end = strchr(line, '\n');
            size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
            if (strncmp(line, "ptxas info", 10) != 0 && strncmp(line, "    ", 4) != 0) {
                const char *found = strstr(line, copy);
                if (found != NULL && found < line + length)
                    fprintf(stderr, "%.*s%s%.*s\n", (int)(found - line), line, base_name(source_path),
                            (int)(line + length - found - strlen(copy)), found + strlen(copy));
                else
                    fprintf(stderr, "%.*s\n", (int)length, line);
            }
            line += length + (end != NULL);
        }
        free(log);
    }
    return fail(error, error_size, "%s does not compile (the compiler's messages are above)",
                base_name(source_path));
}

/* ---- loading -------------------------------------------------------------------------------- */

/* The spills of every kernel in a ptxas log:
 *   ptxas info    : Compiling entry function 'copy_strided' for 'sm_90'
 *   ptxas info    : Function properties for copy_strided
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads */
static void read_spills(const char *log)
{
    loaded.spill_count = 0;
    char entry[128] = "", properties[128] = "";
    int arch = 0;
    for (const char *line = log; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        char text[512];
        snprintf(text, sizeof text, "%.*s", (int)(length < sizeof text ? length : sizeof text - 1),
                 line);
        const char *compiling = strstr(text, "Compiling entry function '");
        const char *function = strstr(text, "Function properties for ");
        int stack = 0, stores = 0, loads = 0;
        if (compiling != NULL) {
            if (sscanf(compiling, "Compiling entry function '%127[^']' for 'sm_%d", entry, &arch) != 2)
                entry[0] = '\0';
        } else if (function != NULL) {
            sscanf(function, "Function properties for %127s", properties);
        } else if (sscanf(text, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
                          &stack, &stores, &loads) == 3 &&
                   entry[0] != '\0' && strcmp(entry, properties) == 0 &&
                   loaded.spill_count < MAX_SPILL_ROWS) {
            spill_row *row = &loaded.spills[loaded.spill_count++];
            snprintf(row->kernel, sizeof row->kernel, "%s", entry);
            row->arch = arch;
            row->store_bytes = stores;
            row->load_bytes = loads;
            entry[0] = '\0';
        }
        line = end != NULL ? end + 1 : NULL;
    }
}

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

static int load_library(const void *data, const char *path, char *error, size_t error_size)
{
    cudaError_t status = data != NULL
                             ? cudaLibraryLoadData(&loaded.library, data, NULL, NULL, 0, NULL, NULL, 0)
                             : cudaLibraryLoadFromFile(&loaded.library, path, NULL, NULL, 0, NULL, NULL, 0);
    if (status != cudaSuccess)
        return fail(error, error_size, "cannot load the kernels of %s: %s (%s)", loaded.origin,
                    cudaGetErrorString(status), cudaGetErrorName(status));
    return 0;
}

int ml_kernels_load(const ml_kernel_image *image, const char *path, char *error, size_t error_size)
{
    if (path == NULL) {
        snprintf(loaded.origin, sizeof loaded.origin, "%s", image->source);
        read_spills(image->ptxas_log);
        return load_library(image->fatbin, NULL, error, error_size);
    }
    snprintf(loaded.origin, sizeof loaded.origin, "%s", path);
    if (!ends_with(path, ".cu")) {
        char log_path[PATH_SIZE];
        snprintf(log_path, sizeof log_path, "%s.ptxas", path);
        char *log = read_file(log_path, NULL);
        read_spills(log);
        free(log);
        return load_library(NULL, path, error, error_size);
    }
    char architecture[16], work[PATH_SIZE], fatbin[PATH_SIZE + 16], log_path[PATH_SIZE + 32];
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        device_architecture(device, architecture, sizeof architecture) != 0)
        return fail(error, error_size, "cannot read the device's compute capability");
    if (make_scratch(work, sizeof work, error, error_size) != 0)
        return -1;
    snprintf(fatbin, sizeof fatbin, "%s/kernels.fatbin", work);
    snprintf(log_path, sizeof log_path, "%s.ptxas", fatbin);
    int status = ml_kernels_compile(image, path, architecture, fatbin, error, error_size);
    if (status == 0) {
        size_t bytes = 0;
        char *data = read_file(fatbin, &bytes), *log = read_file(log_path, NULL);
        read_spills(log);
        status = data != NULL ? load_library(data, NULL, error, error_size)
                              : fail(error, error_size, "cannot read %s", fatbin);
        free(data);
        free(log);
    }
    remove_directory(work);
    return status;
}

cudaKernel_t ml_kernels_find(const char *name)
{
    cudaKernel_t kernel = NULL;
    if (loaded.library == NULL || cudaLibraryGetKernel(&kernel, loaded.library, name) != cudaSuccess) {
        cudaGetLastError(); /* a missing name is an answer, not an error to carry on */
        return NULL;
    }
    return kernel;
}

const char *ml_kernels_origin(void)
{
    return base_name(loaded.origin);
}

void ml_kernels_spills(const char *name, int arch, int *store_bytes, int *load_bytes)
{
    *store_bytes = *load_bytes = -1;
    for (int i = 0; i < loaded.spill_count; i++) {
        if (loaded.spills[i].arch == arch && strcmp(loaded.spills[i].kernel, name) == 0) {
            *store_bytes = loaded.spills[i].store_bytes;
            *load_bytes = loaded.spills[i].load_bytes;
            return;
        }
    }
}

/* ---- what labs call (memlab.h) ---------------------------------------------------------- */

void ml_launch(const ml_problem *problem, dim3 grid, size_t shared_bytes, void **arguments)
{
    const ml_block *shape = &problem->variant->block;
    dim3 block = {shape->x, shape->y > 0 ? shape->y : 1, 1};
    cudaError_t status = cudaLaunchKernel((const void *)problem->kernel, grid, block, arguments,
                                          shared_bytes, 0);
    if (status != cudaSuccess) {
        fprintf(stderr, "memlab: launching %s (%s) failed: %s (%s)\n", problem->variant->kernel,
                loaded.origin, cudaGetErrorString(status), cudaGetErrorName(status));
        exit(ML_EXIT_CUDA_ERROR);
    }
}

void ml_copy_to_symbol(const char *name, const void *data, size_t bytes)
{
    void *address = NULL;
    size_t size = 0;
    if (cudaLibraryGetGlobal(&address, &size, loaded.library, name) != cudaSuccess) {
        cudaGetLastError();
        fprintf(stderr, "memlab: %s defines no __constant__ or __device__ variable '%s' (at file scope, not static)\n",
                ml_kernels_origin(), name);
        exit(ML_EXIT_INCORRECT);
    }
    if (bytes > size) {
        fprintf(stderr, "memlab: %s: '%s' holds %zu bytes, %zu are needed\n", ml_kernels_origin(),
                name, size, bytes);
        exit(ML_EXIT_INCORRECT);
    }
    ML_CUDA_CHECK(cudaMemcpy(address, data, bytes, cudaMemcpyHostToDevice));
}
