/* source_judge.c: what a submitted kernels.cu may hold: only the CUDA headers and the lab's own
 * header, no #line or line marker (source_judge.h says why). A scan of the text first
 * (ml_kernels_check_source), then the judge: what the preprocessor itself read. */
#define _POSIX_C_SOURCE 200809L /* strdup, getline, realpath (XSI) */
#define _XOPEN_SOURCE 700
#include "source_judge.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        return ml_kernels_fail(error, error_size, "out of host memory");
    if (raw_string_line != 0) {
        free(code);
        return ml_kernels_fail(error, error_size,
                               "line %d: raw string literals are not allowed in a kernels file",
                               raw_string_line);
    }
    int status = 0, line = 1;
    for (char *cursor = code; *cursor != '\0' && status == 0; line++) {
        char *end = strchr(cursor, '\n');
        if (end != NULL)
            *end = '\0';
        if (strstr(cursor, "__has_include") != NULL || strstr(cursor, "__has_embed") != NULL) {
            status = ml_kernels_fail(
                error, error_size, "line %d: __has_include is not allowed in a kernels file", line);
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
                status = ml_kernels_fail(error, error_size,
                                         "line %d: line markers (# 1 \"file\") are not allowed "
                                         "in a kernels file", line);
            } else if (strcmp(word, "line") == 0) {
                status = ml_kernels_fail(error, error_size,
                                         "line %d: #line is not allowed in a kernels file", line);
            } else if (strcmp(word, "include_next") == 0 || strcmp(word, "import") == 0 ||
                       strcmp(word, "embed") == 0) {
                status = ml_kernels_fail(
                    error, error_size, "line %d: #%s is not allowed in a kernels file", line, word);
            } else if (strcmp(word, "include") == 0) {
                while (*p == ' ' || *p == '\t')
                    p++;
                char open = *p, close = open == '<' ? '>' : open == '"' ? '"' : '\0';
                char *name_end = close != '\0' ? strchr(p + 1, close) : NULL;
                char name[256] = "";
                if (name_end != NULL && (size_t)(name_end - p - 1) < sizeof name)
                    snprintf(name, sizeof name, "%.*s", (int)(name_end - p - 1), p + 1);
                if (name[0] == '\0' || !allowed_header(name, open, lab_header))
                    status = ml_kernels_fail(
                        error, error_size,
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
    int source = ml_kernels_ends_with(path, ".cu");
    if (!source && !ml_kernels_ends_with(path, ".fatbin") && !ml_kernels_ends_with(path, ".cubin"))
        return ml_kernels_fail(error, error_size,
                               "--kernels %s: expected a .cu, .fatbin or .cubin file", path);
    struct stat status;
    if (stat(path, &status) != 0 || !S_ISREG(status.st_mode) || access(path, R_OK) != 0)
        return ml_kernels_fail(error, error_size, "--kernels %s: no such readable file", path);
    long long limit = source ? ML_KERNELS_SOURCE_MAX_BYTES : ML_KERNELS_BINARY_MAX_BYTES;
    if ((long long)status.st_size > limit)
        return ml_kernels_fail(error, error_size,
                               "--kernels %s: %lld bytes, more than the limit of %lld", path,
                               (long long)status.st_size, limit);
    if (!source)
        return 0;
    char *text = ml_kernels_read_file(path, NULL);
    if (text == NULL)
        return ml_kernels_fail(error, error_size, "--kernels %s: cannot read it", path);
    if (strlen(text) != (size_t)status.st_size) {
        free(text);
        return ml_kernels_fail(error, error_size, "--kernels %s: a source file holds no NUL bytes",
                               path);
    }
    char rule[512];
    int checked = ml_kernels_check_source(text, lab_header, rule, sizeof rule);
    free(text);
    if (checked != 0)
        return ml_kernels_fail(error, error_size, "%s: %s", ml_kernels_base_name(path), rule);
    return 0;
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
        return ml_kernels_fail(error, error_size, "cannot write %s", empty);
    char *argv[] = {(char *)folder->nvcc, "-E", gencode[0], "-Xcompiler", "-v", empty, NULL};
    process_result result;
    int status = ml_nvcc_run(folder, argv, NULL, folder->messages, 0, &result);
    if (!result.started)
        return ml_kernels_fail(error, error_size, "%s could not be run: install the CUDA toolkit",
                               argv[0]);
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
        return ml_kernels_fail(error, error_size,
                               "%s -E could not preprocess an empty file (exit status %d)", argv[0],
                               result.exit_status);
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
        snprintf(text, size, "CUDA headers and \"%.200s\"", ml_kernels_base_name(folder->header));
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
    return ml_kernels_fail(error, error_size, "%s: includes %s: a kernels file includes only %s",
                           ml_kernels_base_name(source_path), shown, allowed);
}

static int refuse_marker(const char *source_path, char *error, size_t error_size)
{
    return ml_kernels_fail(
        error, error_size,
        "%s: #line and line markers (# 1 \"file\") are not allowed in a kernels file",
        ml_kernels_base_name(source_path));
}

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
        return ml_kernels_fail(error, error_size, "cannot read the preprocessor's output %s", path);
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
        status = ml_kernels_fail(error, error_size, "out of host memory");
    else if (status != 0)
        status = refuse_marker(source_path, error, error_size);
    for (int i = 0; i <= depth; i++)
        free(stack[i]);
    free(line);
    fclose(file);
    return status;
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
int ml_judge_source(const compile_folder *folder, const char *source_path, char gencode[][64],
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
        ml_nvcc_command(folder, "-E", gencode, gencode_count, arch, list_dependencies, argv, 48);
        ml_nvcc_run(folder, argv, folder->output, folder->messages, 0, &listing);
        char *rule = ml_kernels_read_file(folder->output, NULL);
        int listed = rule != NULL && !listing.timed_out
                         ? judge_dependencies(rule, source_path, folder, &roots, error, error_size)
                         : -1;
        free(rule);
        if (listing.timed_out) {
            ml_nvcc_failed(&listing, folder->messages, folder, source_path, error, error_size);
            verdict = JUDGE_STOPPED;
            break;
        }
        if (listed != 0) {
            if (listed < 0)
                ml_kernels_fail(error, error_size,
                                "%s: the preprocessor could not list the files it "
                                "includes: a kernels file includes only %s",
                                ml_kernels_base_name(source_path), allowed);
            verdict = JUDGE_REFUSED;
            break;
        }
        ml_nvcc_command(folder, "-E", gencode, gencode_count, arch, nothing, argv, 48);
        int preprocessed =
            ml_nvcc_run(folder, argv, folder->output, folder->messages, 0, &preprocessing);
        if (judge_markers(folder->output, source_path, folder, &roots, error, error_size) != 0) {
            verdict = JUDGE_REFUSED;
        } else if (preprocessed != 0) {
            /* Every file it read is allowed: its messages quote nothing else. */
            ml_nvcc_failed(&preprocessing, folder->messages, folder, source_path, error,
                           error_size);
            verdict = JUDGE_STOPPED;
        }
    }
    free_roots(&roots);
    return verdict;
}
