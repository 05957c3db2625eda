/* skeleton.c: a lab source turned into its student version (see skeleton.h). */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "skeleton.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BEGIN_MARKER "// BEGIN SOLUTION"
#define END_MARKER "// END SOLUTION"
#define TODO_PREFIX "// TODO:"
#define STUB_PREFIX "// STUB:"
#define OPTIONAL_PREFIX "// OPTIONAL:"
#define GENERIC_TODO "// TODO: write this part (the comments above and the handout say what it does)."

/* The lines of the region being read, kept until its END marker. */
typedef struct {
    char **line;
    int count;
    int capacity;
    int begin_line;             /* line number of the BEGIN marker */
    char indentation[128];      /* the BEGIN marker's, for a generic TODO */
} region;

static int fail(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
    return -1;
}

static const char *skip_space(const char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    return text;
}

/* Length of text without its trailing spaces, tabs and line ending. */
static size_t trimmed_length(const char *text)
{
    size_t length = strlen(text);
    while (length > 0 && strchr(" \t\r\n", text[length - 1]) != NULL)
        length--;
    return length;
}

static int starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* 1 if the line, without its indentation and trailing space, is exactly `marker`. */
static int is_exactly(const char *line, const char *marker)
{
    const char *text = skip_space(line);
    return trimmed_length(text) == strlen(marker) && starts_with(text, marker);
}

/* 1 if the line looks like an attempt at a marker ("//BEGIN SOLUTION", "// END SOLUTION here"). */
static int mentions_marker(const char *line)
{
    const char *text = skip_space(line);
    if (!starts_with(text, "//"))
        return 0;
    text = skip_space(text + 2);
    return starts_with(text, "BEGIN SOLUTION") || starts_with(text, "END SOLUTION");
}

/* A hint goes on over "//" lines with at least two spaces after the slashes (an aligned
 * continuation); a plain "// comment" right after a hint is solution code, not hint. */
static int continues_hint(const char *line)
{
    const char *text = skip_space(line);
    return starts_with(text, "//  ") && !starts_with(skip_space(text + 2), "STUB:");
}

static int region_add(region *current, const char *line)
{
    if (current->count == current->capacity) {
        int capacity = current->capacity == 0 ? 32 : 2 * current->capacity;
        char **lines = realloc(current->line, (size_t)capacity * sizeof *lines);
        if (lines == NULL)
            return -1;
        current->line = lines;
        current->capacity = capacity;
    }
    current->line[current->count] = strdup(line);
    if (current->line[current->count] == NULL)
        return -1;
    current->count++;
    return 0;
}

static void region_clear(region *current)
{
    for (int i = 0; i < current->count; i++)
        free(current->line[i]);
    current->count = 0;
}

/* Writes a line without its line ending, then "\n". */
static void put_line(FILE *out, const char *line)
{
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
        length--;
    fwrite(line, 1, length, out);
    fputc('\n', out);
}

/* Writes what the region becomes. Line k of the region is line begin_line + 1 + k. */
/* 1 if `keep` (a list of names separated by commas or spaces) holds the `length` bytes of
 * `optional`. */
static int kept(const char *keep, const char *optional, size_t length)
{
    if (keep == NULL || length == 0)
        return 0;
    while (*keep != '\0') {
        size_t word = strcspn(keep, ", \t");
        if (word == length && strncmp(keep, optional, length) == 0)
            return 1;
        keep += word;
        keep += strspn(keep, ", \t");
    }
    return 0;
}

static int write_region(const region *current, FILE *out, const char *name, skeleton_output output,
                        const char *keep, char *error, size_t error_size)
{
    /* An optional region names itself on its first line, before its hint. */
    int first = 0;
    const char *optional = NULL;
    size_t optional_length = 0;
    if (current->count > 0 && starts_with(skip_space(current->line[0]), OPTIONAL_PREFIX)) {
        optional = skip_space(skip_space(current->line[0]) + strlen(OPTIONAL_PREFIX));
        optional_length = trimmed_length(optional);
        if (optional_length == 0 || strcspn(optional, " \t\r\n") != optional_length)
            return fail(error, error_size, "%s:%d: // OPTIONAL: takes one name (a word), the one "
                        "a pack keeps the region by", name, current->begin_line + 1);
        first = 1;
    }
    int hint_lines = first;
    if (current->count > first && starts_with(skip_space(current->line[first]), TODO_PREFIX)) {
        hint_lines = first + 1;
        while (hint_lines < current->count && continues_hint(current->line[hint_lines]))
            hint_lines++;
    }
    /* Check the whole region before writing any of it. */
    for (int k = hint_lines; k < current->count; k++) {
        const char *text = skip_space(current->line[k]);
        int line_number = current->begin_line + 1 + k;
        if (starts_with(text, OPTIONAL_PREFIX))
            return fail(error, error_size,
                        "%s:%d: a // OPTIONAL: name must be the first line of its region (the "
                        "region opens at line %d)", name, line_number, current->begin_line);
        if (starts_with(text, TODO_PREFIX))
            return fail(error, error_size,
                        "%s:%d: a // TODO: hint must be the first line of its region (the region "
                        "opens at line %d)", name, line_number, current->begin_line);
        if (starts_with(text, STUB_PREFIX) &&
            trimmed_length(skip_space(text + strlen(STUB_PREFIX))) == 0)
            return fail(error, error_size, "%s:%d: // STUB: without code after it", name,
                        line_number);
    }

    int end_line = current->begin_line + current->count + 1;
    int keeping = optional != NULL && kept(keep, optional, optional_length);
    if (output == SKELETON_REGIONS) {
        fprintf(out, "%s:%d-%d: ", name, current->begin_line, end_line);
        if (optional != NULL)
            fprintf(out, "(optional %.*s%s) ", (int)optional_length, optional,
                    keeping ? ", kept whole" : "");
        if (hint_lines > first) {
            const char *hint =
                skip_space(skip_space(current->line[first]) + strlen(TODO_PREFIX));
            fprintf(out, "%.*s\n", (int)trimmed_length(hint), hint);
        } else {
            fprintf(out, "(no // TODO: hint)\n");
        }
        return 0;
    }
    if (output == SKELETON_SOLUTION_LINES) {
        if (keeping)
            return 0; /* given whole: none of its lines is a secret of this version */
        for (int k = hint_lines; k < current->count; k++)
            if (!starts_with(skip_space(current->line[k]), STUB_PREFIX))
                put_line(out, current->line[k]);
        return 0;
    }

    if (keeping) {
        /* Given whole: its code at the lines it has in the source, the markers, name, hint and
         * stubs made blank but the first, which says what happened. */
        fprintf(out, "%s// (given whole in this version: its optional region '%.*s' was kept)\n",
                current->indentation, (int)optional_length, optional);
        for (int k = 0; k < current->count; k++) {
            if (k < hint_lines || starts_with(skip_space(current->line[k]), STUB_PREFIX))
                fputc('\n', out);
            else
                put_line(out, current->line[k]);
        }
        fputc('\n', out);
        return 0;
    }
    int written = 0;
    if (hint_lines == first) {
        fprintf(out, "%s%s\n", current->indentation, GENERIC_TODO);
        written++;
    }
    for (int k = first; k < hint_lines; k++, written++)
        put_line(out, current->line[k]);
    for (int k = hint_lines; k < current->count; k++) {
        const char *line = current->line[k];
        const char *text = skip_space(line);
        if (!starts_with(text, STUB_PREFIX))
            continue;
        const char *code = skip_space(text + strlen(STUB_PREFIX));
        fprintf(out, "%.*s%.*s\n", (int)(text - line), line, (int)trimmed_length(code), code);
        written++;
    }
    /* Blank lines keep the region's length, so every later line keeps its number. */
    for (; written < current->count + 2; written++)
        fputc('\n', out);
    return 0;
}

int skeleton_convert(FILE *in, FILE *out, const char *name, skeleton_output output, char *error,
                     size_t error_size)
{
    return skeleton_convert_keeping(in, out, name, output, NULL, error, error_size);
}

int skeleton_convert_keeping(FILE *in, FILE *out, const char *name, skeleton_output output,
                             const char *keep, char *error, size_t error_size)
{
    region current = {0};
    int inside = 0, regions = 0, line_number = 0, status = 0;
    char *line = NULL;
    size_t line_capacity = 0;

    while (status == 0 && getline(&line, &line_capacity, in) != -1) {
        line_number++;
        if (is_exactly(line, BEGIN_MARKER)) {
            if (inside) {
                status = fail(error, error_size,
                              "%s:%d: // BEGIN SOLUTION inside the region opened at line %d "
                              "(regions do not nest)", name, line_number, current.begin_line);
                break;
            }
            inside = 1;
            current.begin_line = line_number;
            size_t indentation = (size_t)(skip_space(line) - line);
            if (indentation >= sizeof current.indentation)
                indentation = sizeof current.indentation - 1;
            memcpy(current.indentation, line, indentation);
            current.indentation[indentation] = '\0';
        } else if (is_exactly(line, END_MARKER)) {
            if (!inside) {
                status = fail(error, error_size,
                              "%s:%d: // END SOLUTION without a // BEGIN SOLUTION before it", name,
                              line_number);
                break;
            }
            status = write_region(&current, out, name, output, keep, error, error_size);
            region_clear(&current);
            inside = 0;
            regions++;
        } else if (mentions_marker(line)) {
            status = fail(error, error_size,
                          "%s:%d: a solution marker must be exactly \"%s\" or \"%s\", alone on "
                          "its line", name, line_number, BEGIN_MARKER, END_MARKER);
        } else if (inside) {
            if (region_add(&current, line) != 0)
                status = fail(error, error_size, "%s: out of memory", name);
        } else if (starts_with(skip_space(line), STUB_PREFIX)) {
            status = fail(error, error_size,
                          "%s:%d: // STUB: outside a solution region (it belongs between the "
                          "markers)", name, line_number);
        } else if (starts_with(skip_space(line), OPTIONAL_PREFIX)) {
            status = fail(error, error_size,
                          "%s:%d: // OPTIONAL: outside a solution region (it is the first line "
                          "of the region it names)", name, line_number);
        } else if (output == SKELETON_STUDENT) {
            fputs(line, out);
        }
    }
    if (status == 0 && ferror(in))
        status = fail(error, error_size, "%s: read error", name);
    if (status == 0 && inside)
        status = fail(error, error_size,
                      "%s:%d: // BEGIN SOLUTION is never closed by // END SOLUTION", name,
                      current.begin_line);

    region_clear(&current);
    free(current.line);
    free(line);
    return status == 0 ? regions : -1;
}
