/* text.h: a growable string for the grader's messages, and reading a file into one. */
#ifndef MEMLAB_TEXT_H
#define MEMLAB_TEXT_H

#include <stddef.h>

typedef struct {
    char *data;                 /* always NUL-terminated once something was appended */
    size_t length;
    size_t capacity;
} text_buffer;

/* printf onto the end; exits with a message when the host is out of memory. */
void text_append(text_buffer *buffer, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The string ("" when empty); the caller owns it and the buffer is reset. */
char *text_take(text_buffer *buffer);

void text_free(text_buffer *buffer);

/* A whole file as a string (the caller frees it), or NULL when it cannot be read. */
char *text_read_file(const char *path);

/* Makes text from a child process safe to show: every control character but newline and tab,
 * and every byte that is not part of valid UTF-8, becomes '?' (in place). A program's output
 * cannot then move a terminal's cursor or break the JSON a grading platform reads. */
void text_sanitize(char *text);

/* The last non-empty line of text into line (size bytes, NUL-terminated): where the lab programs
 * say what went wrong. */
void text_last_line(const char *text, char *line, size_t size);

#endif
