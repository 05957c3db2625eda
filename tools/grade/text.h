/* text.h: a growable string for the grader's messages, reading a file into one, and the ways a
 * name or a program's output is made safe to show: in a line, in a CSV cell. */
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

/* Appends a name (a file's, a folder's: any bytes) as a line may show it: printable UTF-8 as it
 * is; a control character (C0, DEL, C1, the line and paragraph separators, the bidirectional
 * marks and overrides) as \u{HHHH}, a byte that is not part of valid UTF-8 as \xHH, and the
 * backslash as \\. Names that differ are shown differently, and none can break a line. */
void text_append_escaped(text_buffer *buffer, const char *name);

/* The same into shown (size bytes, NUL-terminated; cut short where it does not fit). */
void text_escape(const char *name, char *shown, size_t size);

/* Appends value as one CSV cell (RFC 4180): sanitized (text_sanitize), quoted where it holds a
 * comma, a quote, a line break or edge spaces. A text that begins with '=', '+', '-', '@', a tab
 * or a carriage return is written as text, not a formula (OWASP's CSV injection rule): a single
 * quote before it, and the cell quoted. For text cells only: a number is written as a number. */
void text_append_csv_cell(text_buffer *line, const char *value);

/* The last non-empty line of text into line (size bytes, NUL-terminated): where the lab programs
 * say what went wrong. */
void text_last_line(const char *text, char *line, size_t size);

#endif
