/* text.c: a growable string for the grader's messages. */
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
