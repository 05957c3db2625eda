/* text.c: a growable string for the grader's messages, and reading a file into one. */
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

/* The length of the valid UTF-8 sequence at text, or 0. */
static size_t utf8_length(const unsigned char *text)
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
    unsigned int code = text[0] & (0x7f >> length);
    for (size_t i = 1; i < length; i++) {
        if ((text[i] & 0xc0) != 0x80)
            return 0;
        code = (code << 6) | (text[i] & 0x3f);
    }
    if (code < lowest || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        return 0;
    return length;
}

void text_sanitize(char *text)
{
    unsigned char *p = (unsigned char *)text;
    while (*p != '\0') {
        if (*p >= 0x80) {
            size_t length = utf8_length(p);
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
