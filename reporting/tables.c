/* tables.c: one table, printed as aligned text, Markdown or CSV (see tables.h). */
#include "tables.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COLUMN_GAP "  "

static void out_of_memory(void)
{
    fprintf(stderr, "memlab: out of host memory\n");
    exit(EXIT_FAILURE);
}

static void *checked_realloc(void *memory, size_t count, size_t size)
{
    if (count > SIZE_MAX / size)
        out_of_memory();
    void *grown = realloc(memory, count * size);
    if (grown == NULL)
        out_of_memory();
    return grown;
}

void rt_init(rt_table *table)
{
    memset(table, 0, sizeof *table);
}

void rt_free(rt_table *table)
{
    for (int i = 0; i < table->cell_count; i++)
        free(table->cells[i].text);
    free(table->cells);
    free(table->alignment);
    rt_init(table);
}

/* Appends a cell that takes over text (NULL: no value). */
static void add_cell(rt_table *table, char *text, bool quoted)
{
    if (table->cell_count == table->cell_capacity) {
        table->cell_capacity = (table->cell_capacity == 0) ? 64 : 2 * table->cell_capacity;
        table->cells = checked_realloc(table->cells, (size_t)table->cell_capacity,
                                       sizeof *table->cells);
    }
    table->cells[table->cell_count++] = (rt_cell){text, quoted};
}

static char *copy_text(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = checked_realloc(NULL, size, 1);
    memcpy(copy, text, size);
    return copy;
}

void rt_column(rt_table *table, const char *header, rt_alignment alignment)
{
    table->alignment = checked_realloc(table->alignment, (size_t)table->column_count + 1,
                                       sizeof *table->alignment);
    table->alignment[table->column_count++] = alignment;
    add_cell(table, copy_text(header), false);
}

int rt_row_count(const rt_table *table)
{
    return (table->column_count == 0) ? 0 : table->cell_count / table->column_count - 1;
}

void rt_text(rt_table *table, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    va_list measuring;
    va_copy(measuring, arguments);
    int length = vsnprintf(NULL, 0, format, measuring);
    va_end(measuring);
    char *text = checked_realloc(NULL, (size_t)(length > 0 ? length : 0) + 1, 1);
    vsnprintf(text, (size_t)(length > 0 ? length : 0) + 1, format, arguments);
    va_end(arguments);
    add_cell(table, text, false);
}

void rt_quoted(rt_table *table, const char *text)
{
    add_cell(table, copy_text(text), true);
}

void rt_missing(rt_table *table)
{
    add_cell(table, NULL, false);
}

void rt_number(rt_table *table, const char *format, double value)
{
    if (isnan(value))
        rt_missing(table);
    else
        rt_text(table, format, value);
}

static const char *metric_format(double value)
{
    return (value == floor(value) || fabs(value) >= 1000) ? "%.0f" : "%.4g";
}

void rt_metric_value(rt_table *table, double value)
{
    rt_number(table, metric_format(value), value);
}

void rt_metric_text(char *text, size_t size, double value)
{
    if (isnan(value))
        snprintf(text, size, "-");
    else
        snprintf(text, size, metric_format(value), value);
}

/* ---- printing -------------------------------------------------------------------------------- */

/* What a cell shows: a missing value is "-" to people and an empty field to programs. */
static const char *shown(const rt_cell *cell, rt_style style)
{
    if (cell->text != NULL)
        return cell->text;
    return (style == RT_CSV) ? "" : "-";
}

/* The dashed rule under the header: one run of dashes as wide as each column. */
static void print_rule(FILE *stream, const int *width, int columns)
{
    for (int column = 0; column < columns; column++) {
        if (column > 0)
            fputs(COLUMN_GAP, stream);
        for (int i = 0; i < width[column]; i++)
            fputc('-', stream);
    }
    fputc('\n', stream);
}

/* Each column as wide as its widest cell, COLUMN_GAP between columns, and no trailing spaces:
 * the last column is not padded unless it aligns right. */
static void print_text(const rt_table *table, FILE *stream)
{
    int columns = table->column_count;
    int rows = table->cell_count / columns;
    int *width = checked_realloc(NULL, (size_t)columns, sizeof *width);
    for (int column = 0; column < columns; column++)
        width[column] = 0;
    for (int cell = 0; cell < rows * columns; cell++) {
        int length = (int)strlen(shown(&table->cells[cell], RT_TEXT));
        if (length > width[cell % columns])
            width[cell % columns] = length;
    }

    for (int row = 0; row < rows; row++) {
        for (int column = 0; column < columns; column++) {
            const char *text = shown(&table->cells[row * columns + column], RT_TEXT);
            if (column > 0)
                fputs(COLUMN_GAP, stream);
            if (table->alignment[column] == RT_RIGHT)
                fprintf(stream, "%*s", width[column], text);
            else if (column == columns - 1)
                fputs(text, stream);
            else
                fprintf(stream, "%-*s", width[column], text);
        }
        fputc('\n', stream);
        if (row == 0)
            print_rule(stream, width, columns);
    }
    free(width);
}

/* "| a | b |": a '|' in a cell would end it, so it is escaped. */
static void print_markdown_row(const rt_table *table, int row, FILE *stream)
{
    fputc('|', stream);
    for (int column = 0; column < table->column_count; column++) {
        fputc(' ', stream);
        for (const char *c = shown(&table->cells[row * table->column_count + column], RT_MARKDOWN);
             *c != '\0'; c++) {
            if (*c == '|')
                fputc('\\', stream);
            fputc(*c, stream);
        }
        fputs(" |", stream);
    }
    fputc('\n', stream);
}

static void print_markdown(const rt_table *table, FILE *stream)
{
    int rows = table->cell_count / table->column_count;
    print_markdown_row(table, 0, stream);
    fputc('|', stream);
    for (int column = 0; column < table->column_count; column++)
        fputs(table->alignment[column] == RT_RIGHT ? " ---: |" : " --- |", stream);
    fputc('\n', stream);
    for (int row = 1; row < rows; row++)
        print_markdown_row(table, row, stream);
}

/* Quoted cells get their quotes doubled (RFC 4180); the others are written as they are. */
static void print_csv(const rt_table *table, FILE *stream)
{
    int rows = table->cell_count / table->column_count;
    for (int row = 0; row < rows; row++) {
        for (int column = 0; column < table->column_count; column++) {
            const rt_cell *cell = &table->cells[row * table->column_count + column];
            if (column > 0)
                fputc(',', stream);
            if (!cell->quoted) {
                fputs(shown(cell, RT_CSV), stream);
                continue;
            }
            fputc('"', stream);
            for (const char *c = cell->text; *c != '\0'; c++) {
                if (*c == '"')
                    fputc('"', stream);
                fputc(*c, stream);
            }
            fputc('"', stream);
        }
        fputc('\n', stream);
    }
}

void rt_print(const rt_table *table, rt_style style, FILE *stream)
{
    if (table->column_count == 0)
        return;
    if (style == RT_TEXT)
        print_text(table, stream);
    else if (style == RT_MARKDOWN)
        print_markdown(table, stream);
    else
        print_csv(table, stream);
}
