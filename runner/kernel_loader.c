/* kernels.c: loading the lab's kernels as a module, and compiling a --kernels .cu (kernels.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup, getline, realpath (XSI) */
#define _XOPEN_SOURCE 700
#include "kernels.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
    /* Its bytes (a fatbin or a cubin), for the sizes of its kernels' machine code: the
     * embedded image's, or a copy of what was loaded from a file or compiled (binary_copy). */
    const unsigned char *binary;
    size_t binary_bytes;
    unsigned char *binary_copy;
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

/* ---- the #include rule -------------------------------------------------------------------- */

/* The headers of the CUDA toolkit a kernel may use. */
static const char *const cuda_headers[] = {
    "cuda.h",          "cuda_runtime.h",          "cuda_runtime_api.h", "cuda_fp16.h",
    "cuda_bf16.h",     "device_launch_parameters.h", "vector_types.h",  "math_constants.h",
    "cooperative_groups.h", "cooperative_groups/reduce.h", "mma.h",
};

static int allowed_header(const char *name, char delimiter, const char *lab_header)
{
    if (delimiter == '"')
        return lab_header != NULL && lab_header[0] != '\0' && strcmp(name, lab_header) == 0;
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

int ml_kernels_check_source(const char *text, const char *lab_header, char *error,
                            size_t error_size)
{
    /* What a refusal adds to "only CUDA headers": the lab's header, or that it has none. */
    char and_header[160] = "; this lab has no header";
    if (lab_header != NULL && lab_header[0] != '\0')
        snprintf(and_header, sizeof and_header, " and \"%.100s\"", lab_header);
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
            if (isdigit((unsigned char)word[0])) {
                status = fail(error, error_size,
                              "line %d: line markers (# 1 \"file\") are not allowed in a kernels "
                              "file", line);
            } else if (strcmp(word, "line") == 0) {
                status = fail(error, error_size, "line %d: #line is not allowed in a kernels file",
                              line);
            } else if (strcmp(word, "include_next") == 0 || strcmp(word, "import") == 0 ||
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
                if (name[0] == '\0' || !allowed_header(name, open, lab_header))
                    status = fail(error, error_size,
                                  "line %d: #include %.80s is not allowed: a kernels file includes "
                                  "only CUDA headers (<cuda_runtime.h>, ...)%s",
                                  line, p, and_header);
            }
        }
        if (end == NULL)
            break;
        cursor = end + 1;
    }
    free(code);
    return status;
}

int ml_kernels_check_file(const char *path, const char *lab_header, char *error,
                          size_t error_size)
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
    char *text = ml_kernels_read_file(path, NULL);
    if (text == NULL)
        return fail(error, error_size, "--kernels %s: cannot read it", path);
    if (strlen(text) != (size_t)status.st_size) {
        free(text);
        return fail(error, error_size, "--kernels %s: a source file holds no NUL bytes", path);
    }
    char rule[512];
    int checked = ml_kernels_check_source(text, lab_header, rule, sizeof rule);
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

static double now_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec * 1e-9;
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

/* The name the lab's header has if it has one, "coalescing.h" for labs/04_coalescing: the lab's
 * folder is NN_PROGRAM. */
static void lab_header_name(const ml_kernel_image *image, char *name, size_t size)
{
    const char *folder = base_name(image->lab_directory);
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

static int open_folder(compile_folder *folder, const ml_kernel_image *image,
                       const char *source_path, char *error, size_t error_size)
{
    if (make_scratch(folder->root, sizeof folder->root, error, error_size) != 0)
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
        remove_directory(folder->root);
        return fail(error, error_size, "cannot copy %s to %s", source_path, folder->root);
    }
    if (realpath(folder->header, folder->real_header) == NULL)
        folder->real_header[0] = '\0';
    return 0;
}

/* Runs nvcc in the folder within what is left of the compile's time, under the compile's
 * memory, file-size and CPU limits, with TMPDIR in the folder. The judge reads whole what the
 * preprocessor wrote (output_cap_bytes 0: no cap but the file-size limit); what a compile
 * prints for people is capped. */
static int run_nvcc(const compile_folder *folder, char *const argv[], const char *stdout_path,
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

/* nvcc's command line for the folder's copy: `mode` ("-E" or "-fatbin"), the -gencode options
 * with architecture `first` first (nvcc -E preprocesses for the first one, with the whole list
 * in __CUDA_ARCH_LIST__, exactly as the compile does for that architecture), `extra` (NULL
 * ended), the copy. Returns the number of words. */
static int nvcc_command(const compile_folder *folder, const char *mode, char gencode[][64],
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

/* ---- the judge: what the preprocessor itself read ------------------------------------------ */

/* Where the compiler finds <...> headers, as it says itself (gcc -v, on an empty file of ours):
 * the toolkit's include directories that nvcc passes and the host compiler's own system
 * directories, which the toolkit's headers include (<stdlib.h>, <cmath>, ...). Each resolved
 * with realpath, so that a file is judged by where it is, not by how its name is spelt. */
#define MAX_HEADER_ROOTS 32
typedef struct {
    char *path[MAX_HEADER_ROOTS];
    int count;
} header_roots;

static void free_roots(header_roots *roots)
{
    for (int i = 0; i < roots->count; i++)
        free(roots->path[i]);
    roots->count = 0;
}

static int read_header_roots(const compile_folder *folder, char gencode[][64], header_roots *roots,
                             char *error, size_t error_size)
{
    char empty[PATH_SIZE + 16];
    snprintf(empty, sizeof empty, "%s/empty.cu", folder->root);
    FILE *file = fopen(empty, "w");
    if (file == NULL || fclose(file) != 0)
        return fail(error, error_size, "cannot write %s", empty);
    char *argv[] = {(char *)folder->nvcc, "-E", gencode[0], "-Xcompiler", "-v", empty, NULL};
    process_result result;
    int status = run_nvcc(folder, argv, NULL, folder->messages, 0, &result);
    if (!result.started)
        return fail(error, error_size, "%s could not be run: install the CUDA toolkit", argv[0]);
    char *said = ml_kernels_read_file(folder->messages, NULL);
    const char *list = said != NULL ? strstr(said, "#include <...> search starts here:\n") : NULL;
    roots->count = 0;
    /* One directory a line, after a space, up to "End of search list." */
    const char *line = list != NULL ? strchr(list, '\n') + 1 : NULL;
    while (line != NULL && *line == ' ' && roots->count < MAX_HEADER_ROOTS) {
        char directory[PATH_SIZE];
        size_t length = strcspn(line + 1, "\n");
        snprintf(directory, sizeof directory, "%.*s", (int)length, line + 1);
        char *resolved = realpath(directory, NULL);
        if (resolved != NULL)
            roots->path[roots->count++] = resolved;
        line = line[1 + length] == '\n' ? line + 2 + length : NULL;
    }
    free(said);
    if (status != 0 || roots->count == 0) {
        free_roots(roots);
        return fail(error, error_size, "%s -E could not preprocess an empty file (exit status %d)",
                    argv[0], result.exit_status);
    }
    return 0;
}

typedef enum {
    FILE_BUILT_IN,      /* <built-in>, <command-line>: the preprocessor's own */
    FILE_SUBMISSION,    /* the copy being compiled */
    FILE_LAB_HEADER,    /* the copy of PROGRAM.h */
    FILE_SYSTEM,        /* a CUDA toolkit or system header */
    FILE_MISSING,       /* no such file (a missing #include; a marker naming nothing) */
    FILE_FORBIDDEN,     /* any other file */
} file_kind;

static int under(const char *path, const char *root)
{
    size_t length = strlen(root);
    return strncmp(path, root, length) == 0 && (path[length] == '/' || root[length - 1] == '/');
}

/* Whether a path names /proc or /dev: /proc/self is the preprocessor there and this process
 * here (and /dev/fd, /dev/stdin lead to it), so such a name is judged by no realpath here. */
static int process_relative(const char *path)
{
    return strstr(path, "/proc/") != NULL || strstr(path, "/dev/") != NULL;
}

/* What a file name the preprocessor gave stands for. Names of files it found are absolute
 * (the copy is named by its absolute path, the include directories are absolute), so a
 * relative name is one it did not find. A found file is judged by where realpath puts it, so
 * /usr/include/../../x is x. */
static file_kind classify(const char *name, const compile_folder *folder, const header_roots *roots)
{
    if (strcmp(name, "<built-in>") == 0 || strcmp(name, "<command-line>") == 0)
        return FILE_BUILT_IN;
    if (name[0] != '/')
        return FILE_MISSING;
    if (process_relative(name))
        return FILE_FORBIDDEN;
    char *resolved = realpath(name, NULL);
    if (resolved == NULL)
        return FILE_MISSING;
    file_kind kind = FILE_FORBIDDEN;
    if (strcmp(resolved, folder->real_source) == 0)
        kind = FILE_SUBMISSION;
    else if (folder->real_header[0] != '\0' && strcmp(resolved, folder->real_header) == 0)
        kind = FILE_LAB_HEADER;
    for (int i = 0; i < roots->count && kind == FILE_FORBIDDEN && !process_relative(resolved); i++)
        if (under(resolved, roots->path[i]))
            kind = FILE_SYSTEM;
    free(resolved);
    return kind;
}

/* A name for a message: printable ASCII, not too long. */
static void printable(const char *name, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = name; *p != '\0' && o + 4 < size && p - name < 160; p++)
        out[o++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
    if (strlen(name) > 160 && o + 4 < size)
        o += (size_t)snprintf(out + o, size - o, "...");
    out[o] = '\0';
}

/* What a kernels file may include, for a refusal: "CUDA headers and \"bank_conflicts.h\"", or
 * for a lab with no header (lab 04) "CUDA headers; this lab has no header". */
static void what_may_be_included(const compile_folder *folder, char *text, size_t size)
{
    if (access(folder->header, F_OK) == 0)
        snprintf(text, size, "CUDA headers and \"%.200s\"", base_name(folder->header));
    else
        snprintf(text, size, "CUDA headers; this lab has no header");
}

/* The refusal of a file the preprocessor opened (or looked for) that is no header of CUDA's,
 * the system's or the lab's. */
static int refuse_include(const char *source_path, const char *name, const compile_folder *folder,
                          char *error, size_t error_size)
{
    char shown[200], allowed[300];
    printable(name, shown, sizeof shown);
    what_may_be_included(folder, allowed, sizeof allowed);
    return fail(error, error_size, "%s: includes %s: a kernels file includes only %s",
                base_name(source_path), shown, allowed);
}

static int refuse_marker(const char *source_path, char *error, size_t error_size)
{
    return fail(error, error_size,
                "%s: #line and line markers (# 1 \"file\") are not allowed in a kernels file",
                base_name(source_path));
}

enum { JUDGE_PASSED = 0, JUDGE_REFUSED = 1, JUDGE_STOPPED = 2 };

/* The file names of the make rule "deps: NAME ..." that -M -MG writes, with make's escapes undone
 * ("\\ " is a space, "$$" a dollar sign, a backslash before a newline joins lines). Returns 0
 * when every one is allowed, 1 (with the refusal in error) at the first that is not, -1 when
 * the text is no such rule. */
static int judge_dependencies(const char *rule, const char *source_path,
                              const compile_folder *folder, const header_roots *roots,
                              char *error, size_t error_size)
{
    if (strncmp(rule, "deps:", 5) != 0)
        return -1;
    char name[PATH_SIZE];
    for (const char *p = rule + 5; *p != '\0';) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || (p[0] == '\\' && p[1] == '\n'))
            p += p[0] == '\\' ? 2 : 1;
        if (*p == '\0')
            break;
        size_t n = 0;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && n + 1 < sizeof name) {
            if ((p[0] == '\\' && (p[1] == ' ' || p[1] == '#' || p[1] == '\\')) ||
                (p[0] == '$' && p[1] == '$'))
                p++;
            name[n++] = *p++;
        }
        name[n] = '\0';
        file_kind kind = classify(name, folder, roots);
        if (kind == FILE_MISSING || kind == FILE_FORBIDDEN) {
            refuse_include(source_path, name, folder, error, error_size);
            return 1;
        }
    }
    return 0;
}

/* One line of the preprocessor's output that starts a directive: 0 for none (code), 1 for a
 * #pragma, 2 for a line marker `# N "name" FLAGS` (name and flags filled: bit f for flag f),
 * -1 for any other (#line, or a directive a macro wrote). */
static int parse_directive(const char *line, char *name, size_t size, int *flags)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (p[0] == '%' && p[1] == ':')
        return -1;
    if (*p != '#')
        return 0;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "pragma", 6) == 0 && (p[6] == ' ' || p[6] == '\t' || p[6] == '\0'))
        return 1;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)*p))
        p++;
    if (p[0] != ' ' || p[1] != '"')
        return -1;
    p += 2;
    size_t n = 0;
    for (; *p != '"'; p++) {
        if (*p == '\0' || n + 1 >= size)
            return -1;
        if (*p == '\\' && (p[1] == '\\' || p[1] == '"')) {
            name[n++] = *++p;
        } else if (*p == '\\' && p[1] >= '0' && p[1] <= '7') {
            int value = 0, digits = 0;
            for (; digits < 3 && p[1] >= '0' && p[1] <= '7'; digits++)
                value = value * 8 + (*++p - '0');
            name[n++] = (char)value;
        } else if (*p == '\\') {
            return -1;
        } else {
            name[n++] = *p;
        }
    }
    name[n] = '\0';
    p++;
    *flags = 0;
    while (*p == ' ') {
        p++;
        if (*p < '1' || *p > '4' || (p[1] != ' ' && p[1] != '\0'))
            return -1;
        *flags |= 1 << (*p - '0');
        p++;
    }
    return *p == '\0' ? 2 : -1;
}

/* Reads the preprocessor's output (`path`) as the compiler will: every line marker must be one
 * the preprocessor wrote for a file it entered (flag 1: a header of CUDA's, the system's or the
 * lab's, or the copy), left (flag 2: back to the file below on the stack), or went on in (no
 * flag: the name of the file it is in; at the bottom of the stack also the copy and the
 * built-in names). A #line in the file, a GNU marker written in it, or one a macro wrote, names
 * some other file there (or is no marker at all): refused. */
#define MAX_INCLUDE_DEPTH 256 /* gcc's own limit is 200 */
static int judge_markers(const char *path, const char *source_path, const compile_folder *folder,
                         const header_roots *roots, char *error, size_t error_size)
{
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return fail(error, error_size, "cannot read the preprocessor's output %s", path);
    char *stack[MAX_INCLUDE_DEPTH + 1], *line = NULL, name[PATH_SIZE];
    size_t capacity = 0;
    int depth = 0, flags = 0, status = 0;
    stack[0] = strdup(folder->source); /* stack[depth] is the file being read */
    while (status == 0 && stack[depth] != NULL && getline(&line, &capacity, file) >= 0) {
        line[strcspn(line, "\n")] = '\0';
        int kind = parse_directive(line, name, sizeof name, &flags);
        if (kind == 0 || kind == 1)
            continue;
        file_kind named = kind == 2 ? classify(name, folder, roots) : FILE_MISSING;
        if (kind != 2) {
            status = -1;
        } else if (flags & (1 << 1)) {
            int known =
                named == FILE_SUBMISSION || named == FILE_LAB_HEADER || named == FILE_SYSTEM;
            if (!known || depth == MAX_INCLUDE_DEPTH || (stack[depth + 1] = strdup(name)) == NULL)
                status = -1;
            else
                depth++;
        } else if (flags & (1 << 2)) {
            if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
                status = -1;
            else
                free(stack[depth--]);
        } else if (strcmp(stack[depth], name) != 0) {
            int bottom = depth == 0 && (named == FILE_BUILT_IN || named == FILE_SUBMISSION);
            char *renamed = bottom ? strdup(name) : NULL;
            if (renamed == NULL) {
                status = -1;
            } else {
                free(stack[0]);
                stack[0] = renamed;
            }
        }
    }
    if (stack[depth] == NULL)
        status = fail(error, error_size, "out of host memory");
    else if (status != 0)
        status = refuse_marker(source_path, error, error_size);
    for (int i = 0; i <= depth; i++)
        free(stack[i]);
    free(line);
    fclose(file);
    return status;
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
                fprintf(stderr, "%.*s%s%.*s\n", (int)(found - line), line, base_name(source_path),
                        (int)(line + length - found - strlen(copy)), found + strlen(copy));
            else
                fprintf(stderr, "%.*s\n", (int)length, line);
        }
        line += length + (end != NULL);
    }
    free(log);
}

/* Why a run of nvcc over the copy failed, in one line: its time limit, a host without nvcc, or
 * the compiler's messages (`log_path`, shown on stderr with the copy called by the file's own
 * name). */
static void run_failed(const process_result *result, const char *log_path,
                       const compile_folder *folder, const char *source_path, char *error,
                       size_t error_size)
{
    if (result->timed_out) {
        fail(error, error_size, "compiling %s took more than %d s", base_name(source_path),
             ML_KERNELS_COMPILE_TIME_LIMIT_S);
    } else if (!result->started) {
        fail(error, error_size, "%s could not be run: install the CUDA toolkit", folder->nvcc);
    } else {
        show_messages(log_path, folder->source, source_path);
        fail(error, error_size, "%s does not compile (the compiler's messages are above)",
             base_name(source_path));
    }
}

/* Has the preprocessor read the folder's copy for every architecture, exactly as the compile
 * will, and decides from what it read, never from the file's text:
 *   1. nvcc -E ... -Xcompiler -M,-MG: the files it opened and the ones it looked for and did
 *      not find; any that is not a header of CUDA's, the system's, or the copy of the lab's is
 *      refused (a missing one too: the lab's folder is on no include path now);
 *   2. nvcc -E: the preprocessed text, whose line markers the compiler reads as file names;
 *      #line and markers are refused (judge_markers).
 * Returns JUDGE_PASSED, JUDGE_REFUSED (the one line in error; what the preprocessor said about
 * the file is never shown: it quotes what it read), JUDGE_STOPPED (the file does not
 * preprocess: its messages, which quote only the allowed files, on stderr; or a limit), or -1
 * (the host: no nvcc). */
static int judge(const compile_folder *folder, const char *source_path, char gencode[][64],
                 int gencode_count, char *error, size_t error_size)
{
    header_roots roots;
    if (read_header_roots(folder, gencode, &roots, error, error_size) != 0)
        return -1;
    char *list_dependencies[] = {"-Xcompiler", "-M,-MG,-MT,deps", NULL}, *nothing[] = {NULL};
    char *argv[48], allowed[300];
    what_may_be_included(folder, allowed, sizeof allowed);
    int verdict = JUDGE_PASSED;
    for (int arch = 0; arch < gencode_count && verdict == JUDGE_PASSED; arch++) {
        process_result listing, preprocessing;
        nvcc_command(folder, "-E", gencode, gencode_count, arch, list_dependencies, argv, 48);
        run_nvcc(folder, argv, folder->output, folder->messages, 0, &listing);
        char *rule = ml_kernels_read_file(folder->output, NULL);
        int listed = rule != NULL && !listing.timed_out
                         ? judge_dependencies(rule, source_path, folder, &roots, error, error_size)
                         : -1;
        free(rule);
        if (listing.timed_out) {
            run_failed(&listing, folder->messages, folder, source_path, error, error_size);
            verdict = JUDGE_STOPPED;
            break;
        }
        if (listed != 0) {
            if (listed < 0)
                fail(error, error_size, "%s: the preprocessor could not list the files it "
                                        "includes: a kernels file includes only %s",
                     base_name(source_path), allowed);
            verdict = JUDGE_REFUSED;
            break;
        }
        nvcc_command(folder, "-E", gencode, gencode_count, arch, nothing, argv, 48);
        int preprocessed = run_nvcc(folder, argv, folder->output, folder->messages, 0,
                                    &preprocessing);
        if (judge_markers(folder->output, source_path, folder, &roots, error, error_size) != 0) {
            verdict = JUDGE_REFUSED;
        } else if (preprocessed != 0) {
            /* Every file it read is allowed: its messages quote nothing else. */
            run_failed(&preprocessing, folder->messages, folder, source_path, error, error_size);
            verdict = JUDGE_STOPPED;
        }
    }
    free_roots(&roots);
    return verdict;
}

int ml_kernels_compile(const ml_kernel_image *image, const char *source_path,
                       const char *architectures, const char *fatbin_path, char *error,
                       size_t error_size)
{
    char gencode[16][64];
    int gencode_count = gencode_options(architectures, gencode, 16, error, error_size);
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
        return fail(error, error_size, "cannot tell the current directory");
    fatbin_path = output;
    snprintf(log_path, sizeof log_path, "%s.ptxas", fatbin_path);
    snprintf(refused_path, sizeof refused_path, "%s%s", fatbin_path, ML_KERNELS_REFUSED_SUFFIX);
    if (unlink(refused_path) != 0 && errno != ENOENT)
        return fail(error, error_size, "cannot remove %s", refused_path);

    compile_folder folder;
    if (open_folder(&folder, image, source_path, error, error_size) != 0)
        return -1;
    int verdict = judge(&folder, source_path, gencode, gencode_count, error, error_size);
    if (verdict == JUDGE_REFUSED) {
        /* Told apart from a compile error by a file, not by words: the caller (the grader) sees
         * one exit status for both. */
        FILE *file = fopen(refused_path, "w");
        if (file == NULL || fprintf(file, "%s\n", error) < 0 || fclose(file) != 0)
            fprintf(stderr, "memlab: cannot write %s\n", refused_path);
    }
    if (verdict != JUDGE_PASSED) {
        remove_directory(folder.root);
        return -1;
    }

    /* -compress-mode=none: the cubins stay plain ELF, whose kernels' machine code the model
     * reads (ml_kernels_code_bytes), as the build's embed step does (embed_kernels.sh). */
    char *compile_options[] = {"-lineinfo", "-compress-mode=none", "-Xptxas", "-v", "-o",
                               (char *)fatbin_path, NULL};
    char *argv[48];
    nvcc_command(&folder, "-fatbin", gencode, gencode_count, 0, compile_options, argv, 48);
    /* What the compiler prints is capped: a file of #pragma messages cannot fill the disk. */
    process_result result;
    int status = run_nvcc(&folder, argv, log_path, log_path, COMPILER_OUTPUT_CAP_BYTES, &result);
    if (status == 0) {
        remove_directory(folder.root);
        return 0;
    }
    run_failed(&result, log_path, &folder, source_path, error, error_size);
    remove_directory(folder.root);
    return -1;
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

/* Keeps the loaded module's bytes for ml_kernels_code_bytes: data (size bytes), which the caller
 * hands over when owned (a file read or a compile's output), else borrows (the embedded image). */
static void keep_binary(const void *data, size_t bytes, int owned)
{
    free(loaded.binary_copy);
    loaded.binary_copy = owned ? (unsigned char *)data : NULL;
    loaded.binary = (const unsigned char *)data;
    loaded.binary_bytes = data != NULL ? bytes : 0;
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
        keep_binary(image->fatbin, image->fatbin_bytes, 0);
        return load_library(image->fatbin, NULL, error, error_size);
    }
    snprintf(loaded.origin, sizeof loaded.origin, "%s", path);
    if (!ends_with(path, ".cu")) {
        char log_path[PATH_SIZE];
        snprintf(log_path, sizeof log_path, "%s.ptxas", path);
        char *log = ml_kernels_read_file(log_path, NULL);
        read_spills(log);
        free(log);
        size_t bytes = 0;
        char *binary = ml_kernels_read_file(path, &bytes);
        keep_binary(binary, bytes, 1);
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
        char *data = ml_kernels_read_file(fatbin, &bytes);
        char *log = ml_kernels_read_file(log_path, NULL);
        read_spills(log);
        status = data != NULL ? load_library(data, NULL, error, error_size)
                              : fail(error, error_size, "cannot read %s", fatbin);
        keep_binary(data, bytes, 1); /* kept, and freed by the next keep_binary */
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

/* ---- the kernels' machine code ------------------------------------------------------------
 *
 * A fatbin is a header (magic 0xBA55ED50, a 16-bit version, a 16-bit header size, a 64-bit size
 * of what follows) and entries, each a header (16-bit kind: 1 PTX, 2 ELF; 32-bit header size at
 * 4; 64-bit payload size at 8; the SM it is for, 32-bit, at 28; 64-bit flags at 40, 0x2000 for a
 * compressed payload) and its payload; a fatbin file may hold several such headers one after
 * another. An ELF entry is a cubin: a 64-bit little-endian ELF whose section .text.NAME holds
 * kernel NAME's machine code and .nv.constant0.NAME its constant bank 0 (the driver's constants
 * and the launch's parameters). Every offset and size is checked against the buffer: the bytes
 * may be a student's --kernels file. */

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_COMPRESSED 0x2000u
#define FATBIN_ENTRY_MIN_HEADER 48

static uint64_t read_le(const unsigned char *at, int bytes)
{
    uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; i--)
        value = value << 8 | at[i];
    return value;
}

/* 1 if [offset, offset + size) lies inside a buffer of `bytes`. */
static int inside(uint64_t offset, uint64_t size, size_t bytes)
{
    return offset <= bytes && size <= bytes - offset;
}

static int is_elf64(const unsigned char *elf, size_t bytes)
{
    return bytes >= 64 && memcmp(elf, "\177ELF", 4) == 0 && elf[4] == 2 /* 64-bit */ &&
           elf[5] == 1 /* little-endian */;
}

/* The SM a cubin is for: ELF ABI version 8 and later (CUDA 12.8 on) keep it in bits 8-15 of
 * e_flags, earlier ones in bits 0-7. -1 if not a cubin. */
static int cubin_architecture(const unsigned char *elf, size_t bytes)
{
    if (!is_elf64(elf, bytes))
        return -1;
    uint32_t flags = (uint32_t)read_le(elf + 0x30, 4);
    return elf[8] >= 8 ? (int)(flags >> 8 & 0xff) : (int)(flags & 0xff);
}

/* The sizes of sections .text.NAME and .nv.constant0.NAME of a cubin: 0 when the first is found,
 * -1 otherwise (a constant bank not found counts 0). */
static int cubin_kernel(const unsigned char *elf, size_t bytes, const char *name, double *code,
                        double *constants)
{
    if (!is_elf64(elf, bytes))
        return -1;
    uint64_t section_table = read_le(elf + 0x28, 8);
    unsigned entry_size = (unsigned)read_le(elf + 0x3a, 2);
    unsigned count = (unsigned)read_le(elf + 0x3c, 2);
    unsigned names_index = (unsigned)read_le(elf + 0x3e, 2);
    if (entry_size < 64 || names_index >= count ||
        !inside(section_table, (uint64_t)entry_size * count, bytes))
        return -1;
    const unsigned char *names_header = elf + section_table + (uint64_t)entry_size * names_index;
    uint64_t names = read_le(names_header + 0x18, 8), names_size = read_le(names_header + 0x20, 8);
    if (!inside(names, names_size, bytes))
        return -1;
    int found = -1;
    double constant_bytes = 0;
    size_t name_length = strlen(name);
    for (unsigned i = 0; i < count; i++) {
        const unsigned char *header = elf + section_table + (uint64_t)entry_size * i;
        uint64_t name_offset = read_le(header, 4), size = read_le(header + 0x20, 8);
        if (name_offset >= names_size)
            continue;
        const char *section = (const char *)elf + names + name_offset;
        size_t room = (size_t)(names_size - name_offset);
        const char *prefix = NULL;
        if (room > 6 + name_length && strncmp(section, ".text.", 6) == 0)
            prefix = ".text.";
        else if (room > 14 + name_length && strncmp(section, ".nv.constant0.", 14) == 0)
            prefix = ".nv.constant0.";
        if (prefix == NULL)
            continue;
        const char *kernel = section + strlen(prefix);
        if (strncmp(kernel, name, name_length) != 0 || kernel[name_length] != '\0')
            continue;
        if (prefix[1] == 't') {
            *code = (double)size;
            found = 0;
        } else {
            constant_bytes = (double)size;
        }
    }
    if (found == 0)
        *constants = constant_bytes;
    return found;
}

/* Calls visit(cubin, bytes, its SM, context) for each uncompressed cubin of a fatbin, or for
 * the buffer itself when it is a cubin. */
static void each_cubin(const unsigned char *binary, size_t bytes,
                       void (*visit)(const unsigned char *, size_t, int, void *), void *context)
{
    if (is_elf64(binary, bytes)) {
        visit(binary, bytes, cubin_architecture(binary, bytes), context);
        return;
    }
    for (uint64_t at = 0; inside(at, 16, bytes) && read_le(binary + at, 4) == FATBIN_MAGIC;) {
        uint64_t header_size = read_le(binary + at + 6, 2), size = read_le(binary + at + 8, 8);
        if (header_size < 16 || size > bytes || !inside(at, header_size + size, bytes))
            return;     /* (size checked first: header_size + size must not wrap around) */
        uint64_t end = at + header_size + size;
        for (uint64_t entry = at + header_size; inside(entry, FATBIN_ENTRY_MIN_HEADER, end);) {
            const unsigned char *header = binary + entry;
            uint64_t kind = read_le(header, 2), entry_header = read_le(header + 4, 4);
            uint64_t payload = read_le(header + 8, 8);
            if (entry_header < FATBIN_ENTRY_MIN_HEADER ||
                !inside(entry + entry_header, payload, end))
                return;
            const unsigned char *cubin = header + entry_header;
            if (kind == FATBIN_KIND_ELF && !(read_le(header + 40, 8) & FATBIN_FLAG_COMPRESSED) &&
                is_elf64(cubin, (size_t)payload))
                visit(cubin, (size_t)payload, (int)read_le(header + 28, 4), context);
            entry += entry_header + payload;
        }
        at = end;
    }
}

/* The cubin the driver runs on an sm_`arch` device: its own, else the newest of the same major
 * version and no newer minor one. */
typedef struct {
    int arch, best_arch;
    const unsigned char *best;
    size_t best_bytes;
} cubin_choice;

static void choose_cubin(const unsigned char *cubin, size_t bytes, int arch, void *context)
{
    cubin_choice *choice = (cubin_choice *)context;
    if (arch <= 0 || arch / 10 != choice->arch / 10 || arch > choice->arch ||
        arch <= choice->best_arch)
        return;
    choice->best = cubin;
    choice->best_bytes = bytes;
    choice->best_arch = arch;
}

int ml_kernels_code_bytes_in(const void *binary, size_t bytes, const char *name, int arch,
                             double *code_bytes, double *constant_bytes)
{
    *code_bytes = *constant_bytes = 0;
    if (binary == NULL || name == NULL)
        return -1;
    cubin_choice choice = {arch, 0, NULL, 0};
    each_cubin((const unsigned char *)binary, bytes, choose_cubin, &choice);
    if (choice.best == NULL)
        return -1;
    double code = 0, constants = 0;
    if (cubin_kernel(choice.best, choice.best_bytes, name, &code, &constants) != 0)
        return -1;
    *code_bytes = code;
    *constant_bytes = constants;
    return 0;
}

int ml_kernels_code_bytes(const ml_kernel_image *image, const char *name, int arch,
                          double *code_bytes, double *constant_bytes)
{
    if (loaded.binary != NULL)
        return ml_kernels_code_bytes_in(loaded.binary, loaded.binary_bytes, name, arch, code_bytes,
                                         constant_bytes);
    return ml_kernels_code_bytes_in(image != NULL ? image->fatbin : NULL,
                                    image != NULL ? image->fatbin_bytes : 0, name, arch,
                                    code_bytes, constant_bytes);
}

/* ---- what labs call (memlab.h) ---------------------------------------------------------- */

/* The kernels whose parameters the arguments were compared with: at the first launch of each. */
#define MAX_CHECKED_KERNELS 64
static cudaKernel_t checked_kernels[MAX_CHECKED_KERNELS];
static int checked_kernel_count;

void ml_kernels_unload(void)
{
    if (loaded.library != NULL)
        ML_CUDA_CHECK(cudaLibraryUnload(loaded.library));
    loaded.library = NULL;
    checked_kernel_count = 0; /* a reloaded kernel may get an unloaded one's handle */
}

/* The arguments against the loaded kernel's parameters, as the runtime reports them (count and
 * sizes): a launch that passes an int where the kernel takes a size_t, or one argument too few,
 * would otherwise run on garbage. Where the runtime reports nothing (not this kernel's kind),
 * nothing is compared. */
static void check_arguments(const ml_problem *problem, const ml_argument *arguments,
                            int argument_count)
{
    for (int i = 0; i < checked_kernel_count; i++)
        if (checked_kernels[i] == problem->kernel)
            return;
    const char *kernel = problem->variant->kernel;
    size_t offset = 0, bytes = 0;
    int parameters = 0;
    while (cudaFuncGetParamInfo((const void *)problem->kernel, (size_t)parameters, &offset,
                                &bytes) == cudaSuccess) {
        if (parameters < argument_count && bytes != arguments[parameters].bytes) {
            fprintf(stderr, "memlab: %s's parameter %d (%s) is %zu bytes; the lab passes %zu: "
                            "the kernel's parameter types must stay as they are\n",
                    kernel, parameters + 1, loaded.origin, bytes, arguments[parameters].bytes);
            exit(ML_EXIT_INCORRECT);
        }
        parameters++;
    }
    cudaGetLastError(); /* the index past the last parameter is an error by design: the one way
                         * to count them (compute-sanitizer runs pass --report-api-errors no) */
    if (parameters > 0 && parameters != argument_count) {
        fprintf(stderr, "memlab: %s (%s) takes %d parameters; the lab passes %d: the kernel's "
                        "parameters must stay as they are\n",
                kernel, loaded.origin, parameters, argument_count);
        exit(ML_EXIT_INCORRECT);
    }
    if (checked_kernel_count < MAX_CHECKED_KERNELS)
        checked_kernels[checked_kernel_count++] = problem->kernel;
}

void ml_launch(const ml_problem *problem, dim3 grid, size_t shared_bytes,
               const ml_argument *arguments, int argument_count)
{
    check_arguments(problem, arguments, argument_count);
    void *values[32];
    if (argument_count > 32) {
        fprintf(stderr, "memlab: a launch of %s passes %d arguments; at most 32\n",
                problem->variant->kernel, argument_count);
        exit(ML_EXIT_LAB_ERROR);
    }
    for (int i = 0; i < argument_count; i++)
        values[i] = arguments[i].value;
    const ml_block *shape = &problem->variant->block;
    dim3 block = {shape->x, shape->y > 0 ? shape->y : 1, 1};
    cudaError_t status = cudaLaunchKernel((const void *)problem->kernel, grid, block, values,
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
