/* tables.h: the one table type of memlab's reports, printed in three styles from the same
 * cells: aligned text (the lab program's own output), Markdown (the demo's report.md) and CSV.
 * Cells are filled in reading order: first the header row (one rt_column call per column, which
 * also sets the column's alignment), then each row left to right.
 */
#ifndef MEMLAB_TABLES_H
#define MEMLAB_TABLES_H

#include <stdbool.h>
#include <stdio.h>

typedef enum {
    RT_TEXT,        /* columns padded to their widest cell, a dashed rule under the header */
    RT_MARKDOWN,    /* "| a | b |", an alignment row under the header, '|' escaped in cells */
    RT_CSV          /* cells separated by commas, the marked ones quoted */
} rt_style;

typedef enum { RT_LEFT, RT_RIGHT } rt_alignment;

typedef struct {
    char *text;     /* NULL: no value ("-" in text and Markdown, an empty CSV field) */
    bool quoted;    /* CSV quotes it (free text, such as a device's name) */
} rt_cell;

typedef struct {
    int column_count;
    rt_alignment *alignment;
    int cell_count;
    int cell_capacity;
    rt_cell *cells;
} rt_table;

void rt_init(rt_table *table);
void rt_free(rt_table *table);

/* A column: its header cell and how its cells align (text and Markdown). */
void rt_column(rt_table *table, const char *header, rt_alignment alignment);
/* The rows after the header. */
int rt_row_count(const rt_table *table);

/* A cell of printf-formatted text. */
void rt_text(rt_table *table, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* A cell of text that CSV quotes. */
void rt_quoted(rt_table *table, const char *text);
/* A cell with no value. */
void rt_missing(rt_table *table);
/* A number with the given printf format, or no value for NAN. */
void rt_number(rt_table *table, const char *format, double value);
/* A counter's value: counts print whole, fractions (efficiencies, per-request ratios) with four
 * significant digits; rt_metric_text writes the same into text ("-" for NAN). */
void rt_metric_value(rt_table *table, double value);
void rt_metric_text(char *text, size_t size, double value);

void rt_print(const rt_table *table, rt_style style, FILE *stream);

#endif
