/* text.c: a growable string for the grader's messages, reading a file into one, and names and
 * output made safe to show (see text.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(void)
{
    fprintf(stderr, "memlab_grade: out of host memory\n");
    exit(2);
}

void text_append(text_buffer *buffer, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    int needed = vsnprintf(NULL, 0, format, arguments);
    va_end(arguments);
    if (needed < 0)
        return;
    size_t required = buffer->length + (size_t)needed + 1;
    if (required > buffer->capacity) {
        size_t capacity = buffer->capacity == 0 ? 256 : buffer->capacity;
        while (capacity < required)
            capacity *= 2;
        char *data = realloc(buffer->data, capacity);
        if (data == NULL)
            out_of_memory();
        buffer->data = data;
        buffer->capacity = capacity;
    }
    va_start(arguments, format);
    vsnprintf(buffer->data + buffer->length, buffer->capacity - buffer->length, format, arguments);
    va_end(arguments);
    buffer->length += (size_t)needed;
}

char *text_take(text_buffer *buffer)
{
    char *taken = buffer->data != NULL ? buffer->data : strdup("");
    if (taken == NULL)
        out_of_memory();
    buffer->data = NULL;
    buffer->length = buffer->capacity = 0;
    return taken;
}

void text_free(text_buffer *buffer)
{
    free(buffer->data);
    buffer->data = NULL;
    buffer->length = buffer->capacity = 0;
}

char *text_read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    text_buffer buffer = {0};
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
        text_append(&buffer, "%.*s", (int)got, chunk);
    int failed = ferror(file);
    fclose(file);
    if (failed) {
        text_free(&buffer);
        return NULL;
    }
    return text_take(&buffer);
}

/* The length of the valid UTF-8 sequence at text, or 0; *code gets its code point. */
static size_t utf8_length(const unsigned char *text, unsigned int *code)
{
    size_t length;
    unsigned int lowest;
    if (text[0] >= 0xc2 && text[0] <= 0xdf) {
        length = 2;
        lowest = 0x80;
    } else if (text[0] >= 0xe0 && text[0] <= 0xef) {
        length = 3;
        lowest = 0x800;
    } else if (text[0] >= 0xf0 && text[0] <= 0xf4) {
        length = 4;
        lowest = 0x10000;
    } else {
        return 0;
    }
    *code = text[0] & (0x7f >> length);
    for (size_t i = 1; i < length; i++) {
        if ((text[i] & 0xc0) != 0x80)
            return 0;
        *code = (*code << 6) | (text[i] & 0x3f);
    }
    if (*code < lowest || *code > 0x10ffff || (*code >= 0xd800 && *code <= 0xdfff))
        return 0;
    return length;
}

void text_sanitize(char *text)
{
    unsigned char *p = (unsigned char *)text;
    while (*p != '\0') {
        if (*p >= 0x80) {
            unsigned int code;
            size_t length = utf8_length(p, &code);
            if (length == 0)
                *p++ = '?';
            else
                p += length;
            continue;
        }
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
            *p = '?';
        p++;
    }
}

/* Code points that move a terminal's cursor, end a line or reorder the text around them. */
static int is_control(unsigned int code)
{
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code == 0x2028 || code == 0x2029 ||
           code == 0x200e || code == 0x200f || (code >= 0x202a && code <= 0x202e) ||
           (code >= 0x2066 && code <= 0x2069);
}

void text_append_escaped(text_buffer *buffer, const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    while (*p != '\0') {
        unsigned int code = *p;
        size_t length = *p < 0x80 ? 1 : utf8_length(p, &code);
        if (length == 0)
            text_append(buffer, "\\x%02x", *p++);
        else if (is_control(code))
            text_append(buffer, "\\u{%04x}", code);
        else if (code == '\\')
            text_append(buffer, "\\\\");
        else
            text_append(buffer, "%.*s", (int)length, (const char *)p);
        p += length;
    }
    /* An empty name still makes the buffer a string. */
    text_append(buffer, "%s", "");
}

void text_escape(const char *name, char *shown, size_t size)
{
    text_buffer buffer = {0};
    text_append_escaped(&buffer, name);
    snprintf(shown, size, "%s", buffer.data);
    text_free(&buffer);
}

void text_append_csv_cell(text_buffer *line, const char *value)
{
    char *shown = strdup(value);
    if (shown == NULL)
        out_of_memory();
    /* Checked before text_sanitize turns a carriage return into '?'. */
    int formula = value[0] != '\0' && strchr("=+-@\t\r", value[0]) != NULL;
    text_sanitize(shown);
    size_t length = strlen(shown);
    int quote = formula || strpbrk(shown, ",\"\n\r") != NULL ||
                (length > 0 && (shown[0] == ' ' || shown[length - 1] == ' '));
    text_append(line, "%s%s", quote ? "\"" : "", formula ? "'" : "");
    for (const char *p = shown; *p != '\0'; p++) {
        if (*p == '"')
            text_append(line, "\"\"");
        else
            text_append(line, "%c", *p);
    }
    text_append(line, "%s", quote ? "\"" : "");
    free(shown);
}

void text_last_line(const char *text, char *line, size_t size)
{
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    snprintf(line, size, "%.*s", (int)(end - start), start);
}
