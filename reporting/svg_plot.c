/* svg_plot.c: a lab's plots as inline SVG, read from its gnuplot files (svg_plot.h). */
#define _DEFAULT_SOURCE /* open_memstream, scandir */
#include "svg_plot.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "html_text.h"
#include "query.h"
#include "report_data.h"

#define MAX_SETS 8
#define MAX_PIECES 16
#define MAX_ROWS 512
#define NAME_SIZE 128
#define PATH_SIZE 4096

/* The columns one "# data" line selects, as memlab_report series or bars writes them. */
typedef struct {
    char name[NAME_SIZE];
    char column[RD_MAX_COLUMNS + 1][NAME_SIZE]; /* [0]: the x parameter, or "label" */
    int column_count;
    double value[MAX_ROWS][RD_MAX_COLUMNS + 1];
    char label[MAX_ROWS][NAME_SIZE];            /* bars: each row's label */
    int row_count;
} data_set;

/* One line(...), line_taking_turns(...) or bar(...) of the plot file. */
typedef struct {
    char set[NAME_SIZE], column[NAME_SIZE], title[NAME_SIZE];
    char colour[8];     /* #rrggbb, darker for a prediction */
    bool predicted, y2;
} plot_piece;

typedef struct {
    char title[256], xlabel[256], ylabel[256], y2label[256];
    bool bars, y_from_zero;
    double log_x, log_y;    /* the base of a log axis, 0 for a linear one */
    double y_scale;
    data_set *sets;
    int set_count;
    plot_piece pieces[MAX_PIECES];
    int piece_count;
} plot_file;

/* common.gp's colours, and "black" for a ceiling. */
static const struct {
    const char *name, *rgb;
} colours[] = {{"BLUE", "#1f77b4"},  {"ORANGE", "#ff7f0e"}, {"GREEN", "#2ca02c"},
               {"RED", "#d62728"},   {"PURPLE", "#9467bd"}, {"black", "#000000"}};

/* common.gp's dark(): a prediction is drawn in its colour at 45% of its brightness. */
static void darken(char rgb[8])
{
    unsigned red, green, blue;
    if (sscanf(rgb, "#%2x%2x%2x", &red, &green, &blue) == 3)
        snprintf(rgb, 8, "#%02x%02x%02x", (unsigned)(0.45 * red), (unsigned)(0.45 * green),
                 (unsigned)(0.45 * blue));
}

/* ---- reading the plot file -------------------------------------------------------------------- */

/* The text of a quoted string that starts at text (after its opening quote) into out; returns
 * the character after its closing quote. */
static const char *read_quoted(const char *text, char *out, size_t size)
{
    size_t used = 0;
    while (*text != '\0' && *text != '"') {
        if (used + 1 < size)
            out[used++] = *text;
        text++;
    }
    out[used] = '\0';
    return *text == '"' ? text + 1 : text;
}

/* The value of `set KEY "TEXT"` on a line into out; false when the line is not that. */
static bool read_setting(const char *line, const char *key, char *out, size_t size)
{
    size_t length = strlen(key);
    if (strncmp(line, key, length) != 0 || line[length] != ' ')
        return false;
    const char *quote = strchr(line + length, '"');
    if (quote == NULL)
        return false;
    read_quoted(quote + 1, out, size);
    return true;
}

/* The data of a "# data NAME: series|bars OPTIONS" line, for the lab's reports. */
static bool read_data_line(char *line, const char *program, const cJSON *const *reports,
                           int report_count, data_set *set)
{
    char *colon = strchr(line, ':');
    if (colon == NULL)
        return false;
    *colon = '\0';
    snprintf(set->name, sizeof set->name, "%s", line);
    char *argv[64];
    int argc = 0;
    for (char *word = strtok(colon + 1, " \t"); word != NULL && argc < 64; word = strtok(NULL, " \t"))
        argv[argc++] = word;
    if (argc < 2)
        return false;
    bool bars = strcmp(argv[0], "bars") == 0;
    rd_query query;
    const char *out_path;
    char error[256];
    if (rd_parse_query(argc - 1, argv + 1, &query, &out_path, error, sizeof error) != argc - 1)
        return false;
    query.lab = program;

    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL)
        return false;
    bool has_data[RD_MAX_COLUMNS];
    if (bars)
        rd_write_bars(reports, report_count, &query, memory, has_data);
    else
        rd_write_series(reports, report_count, &query, memory, has_data);
    fclose(memory);

    /* A header of names, then rows: numbers (NaN for none), a bar's row led by its label. */
    set->column_count = 0;
    set->row_count = 0;
    char *save = NULL;
    char *header = strtok_r(text, "\n", &save);
    for (char *cursor = header; cursor != NULL && *cursor != '\0';) {
        size_t length = strcspn(cursor, " ");
        if (set->column_count <= RD_MAX_COLUMNS)
            snprintf(set->column[set->column_count++], NAME_SIZE, "%.*s", (int)length, cursor);
        cursor += length;
        cursor += *cursor == ' ';
    }
    for (char *row = strtok_r(NULL, "\n", &save); row != NULL && set->row_count < MAX_ROWS;
         row = strtok_r(NULL, "\n", &save)) {
        int r = set->row_count++, c = 0;
        char *cursor = row;
        if (bars && *cursor == '"') {
            cursor = (char *)read_quoted(cursor + 1, set->label[r], NAME_SIZE);
            set->value[r][c++] = r;
        }
        while (c < set->column_count) {
            char *end;
            set->value[r][c++] = strtod(cursor, &end);
            cursor = end;
        }
    }
    free(text);
    return true;
}

/* The pieces of the plot command: every line(, line_taking_turns( and bar( outside comments. */
static void read_pieces(const char *text, plot_file *plot)
{
    const char *calls[] = {"line_taking_turns(", "line(", "bar("};
    bool in_comment = false;
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '#')
            in_comment = true;
        if (*c == '\n')
            in_comment = false;
        if (in_comment || (c > text && (isalnum((unsigned char)c[-1]) || c[-1] == '_')))
            continue;
        int call = -1;
        for (int k = 0; k < 3 && call < 0; k++)
            if (strncmp(c, calls[k], strlen(calls[k])) == 0)
                call = k;
        if (call < 0 || plot->piece_count == MAX_PIECES)
            continue;
        /* Its arguments, to the parenthesis that closes it. */
        const char *start = c + strlen(calls[call]), *end = start;
        int depth = 1;
        for (; *end != '\0' && depth > 0; end++) {
            if (*end == '"')
                while (end[1] != '\0' && *++end != '"')
                    ;
            depth += (*end == '(') - (*end == ')');
        }
        char arguments[1024];
        snprintf(arguments, sizeof arguments, "%.*s", (int)(end - start), start);
        plot_piece *piece = &plot->pieces[plot->piece_count];
        memset(piece, 0, sizeof *piece);
        char strings[5][NAME_SIZE];
        int string_count = 0;
        for (const char *a = arguments; *a != '\0' && string_count < 5; a++)
            if (*a == '"')
                a = read_quoted(a + 1, strings[string_count++], NAME_SIZE) - 1;
        if (string_count < 3)
            continue;
        snprintf(piece->set, sizeof piece->set, "%s", strings[0]);
        snprintf(piece->column, sizeof piece->column, "%s", strings[1]);
        snprintf(piece->title, sizeof piece->title, "%s", strings[2]);
        const char *style = arguments;
        piece->predicted = call == 0 ? (string_count > 3 && strcmp(strings[3], "predicted") == 0)
                                     : strstr(style, "predicted") != NULL;
        piece->y2 = strstr(style, "x1y2") != NULL;
        snprintf(piece->colour, sizeof piece->colour, "#333333");
        for (size_t k = 0; k < sizeof colours / sizeof colours[0]; k++) {
            char quoted[16];
            snprintf(quoted, sizeof quoted, "\"%s\"", colours[k].name);
            const char *found = strstr(style, colours[k].name);
            bool word = found != NULL && !isalnum((unsigned char)found[strlen(colours[k].name)]);
            if ((word && k < 5) || strstr(style, quoted) != NULL) {
                snprintf(piece->colour, sizeof piece->colour, "%s", colours[k].rgb);
                break;
            }
        }
        if (piece->predicted)
            darken(piece->colour);
        plot->bars = call == 2;
        plot->piece_count++;
        c = end - 1;
    }
}

/* Reads a plot file and its data. Returns false when it cannot be read. */
static bool read_plot(const char *path, const char *program, const cJSON *const *reports,
                      int report_count, plot_file *plot)
{
    char *text = rd_read_text(path);
    if (text == NULL)
        return false;
    plot->y_scale = 1;
    read_pieces(text, plot);
    char *save = NULL;
    bool first = true;
    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save), first = false) {
        if (first && strncmp(line, "# ", 2) == 0)
            snprintf(plot->title, sizeof plot->title, "%s", line + 2);
        else if (strncmp(line, "# data ", 7) == 0 && plot->set_count < MAX_SETS) {
            if (read_data_line(line + 7, program, reports, report_count,
                               &plot->sets[plot->set_count]))
                plot->set_count++;
        } else if (strncmp(line, "set logscale x ", 15) == 0)
            plot->log_x = strtod(line + 15, NULL);
        else if (strncmp(line, "set logscale y ", 15) == 0)
            plot->log_y = strtod(line + 15, NULL);
        else if (strncmp(line, "set yrange [0:", 14) == 0)
            plot->y_from_zero = true;
        else if (strncmp(line, "y_scale = ", 10) == 0)
            plot->y_scale = strtod(line + 10, NULL);
        else if (!read_setting(line, "set xlabel", plot->xlabel, sizeof plot->xlabel) &&
                 !read_setting(line, "set ylabel", plot->ylabel, sizeof plot->ylabel))
            read_setting(line, "set y2label", plot->y2label, sizeof plot->y2label);
    }
    free(text);
    return true;
}

/* ---- drawing -------------------------------------------------------------------------------- */

#define WIDTH 980
#define HEIGHT 470
#define LEFT 80
#define RIGHT 250           /* the key */
#define TOP 50

typedef struct {
    double low, high, log_base;     /* log_base 0: linear */
    int from, to;                   /* pixels */
} plot_axis;

static double axis_position(const plot_axis *axis, double value)
{
    double low = axis->low, high = axis->high;
    if (axis->log_base > 0) {
        value = log(value);
        low = log(low);
        high = log(high);
    }
    return axis->from + (value - low) / (high - low) * (axis->to - axis->from);
}

/* Fits the axis to [low, high]: a log axis to whole powers of its base, a linear one with a
 * margin (none below a y axis that starts at 0). */
static void fit_axis(plot_axis *axis, double low, double high, bool from_zero, double margin)
{
    if (axis->log_base > 0) {
        double base = axis->log_base;
        axis->low = pow(base, floor(log(low) / log(base) + 1e-9));
        axis->high = pow(base, ceil(log(high) / log(base) - 1e-9));
        if (axis->high <= axis->low)
            axis->high = axis->low * base;
        return;
    }
    if (from_zero && low >= 0)
        low = 0;
    double span = high > low ? high - low : (high != 0 ? fabs(high) : 1);
    axis->low = (from_zero && low == 0) ? 0 : low - margin * span;
    axis->high = high + margin * span;
}

/* The axis's ticks: powers of the base, or 1, 2 or 5 times a power of ten, about six. */
static int axis_ticks(const plot_axis *axis, double *ticks, int max)
{
    int count = 0;
    if (axis->log_base > 0) {
        int step = 1;
        double decades = log(axis->high / axis->low) / log(axis->log_base);
        while (decades / step > 12)
            step++;
        for (double t = axis->low; t <= axis->high * 1.0001 && count < max;
             t *= pow(axis->log_base, step))
            ticks[count++] = t;
        return count;
    }
    double raw = (axis->high - axis->low) / 6, power = pow(10, floor(log10(raw)));
    double step = raw / power < 1.5 ? power : raw / power < 3.5 ? 2 * power : raw / power < 7.5 ? 5 * power : 10 * power;
    for (double t = ceil(axis->low / step) * step; t <= axis->high + 1e-9 * step && count < max; t += step)
        ticks[count++] = fabs(t) < 1e-12 * step ? 0 : t;
    return count;
}

static void write_text(FILE *stream, double x, double y, const char *anchor, const char *extra,
                       const char *text)
{
    fprintf(stream, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor, extra);
    rd_html_escape(text, stream);
    fprintf(stream, "</text>\n");
}

/* A tick's label, short enough to sit under its tick: a power of two from 1024 up in binary
 * units (4Ki, 64Mi), other numbers from 10000 up with k, M or G, the rest as %g. */
static void tick_label(double value, char *label, size_t size)
{
    const char *binary[] = {"Ki", "Mi", "Gi", "Ti"}, *decimal[] = {"k", "M", "G", "T"};
    double magnitude = fabs(value);
    int exponent = magnitude >= 1024 ? (int)lround(log2(magnitude)) : 0;
    if (exponent >= 10 && ldexp(1.0, exponent) == magnitude && exponent < 50) {
        snprintf(label, size, "%s%g%s", value < 0 ? "-" : "", ldexp(1.0, exponent % 10),
                 binary[exponent / 10 - 1]);
        return;
    }
    int thousands = 0;
    while (magnitude >= (thousands == 0 ? 10000 : 1000) && thousands < 4) {
        magnitude /= 1000;
        value /= 1000;
        thousands++;
    }
    snprintf(label, size, "%g%s", value, thousands > 0 ? decimal[thousands - 1] : "");
}

static void write_axis_ticks(FILE *stream, const plot_axis *axis, bool vertical, double at,
                             bool grid, const char *anchor)
{
    double ticks[64];
    int count = axis_ticks(axis, ticks, 64);
    for (int t = 0; t < count; t++) {
        double p = axis_position(axis, ticks[t]);
        char label[32];
        tick_label(ticks[t], label, sizeof label);
        if (vertical) {
            if (grid)
                fprintf(stream, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                        LEFT, p, WIDTH - RIGHT, p);
            write_text(stream, at, p + 4, anchor, "", label);
        } else {
            if (grid)
                fprintf(stream, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e3e3e3\"/>\n",
                        p, TOP, p, HEIGHT - 60);
            write_text(stream, p, at, "middle", "", label);
        }
    }
}

static const data_set *set_named(const plot_file *plot, const char *name)
{
    for (int s = 0; s < plot->set_count; s++)
        if (strcmp(plot->sets[s].name, name) == 0)
            return &plot->sets[s];
    return NULL;
}

/* A piece's column in its set, or -1 when the set lacks it or it holds no value. */
static int column_of(const data_set *set, const char *column)
{
    for (int c = 1; set != NULL && c < set->column_count; c++) {
        if (strcmp(set->column[c], column) != 0)
            continue;
        for (int r = 0; r < set->row_count; r++)
            if (!isnan(set->value[r][c]))
                return c;
    }
    return -1;
}

/* The key: each drawn piece's line (or bar) and title, right of the plot. */
static void write_key(FILE *stream, const plot_file *plot, const bool *drawn)
{
    int y = TOP + 10;
    for (int p = 0; p < plot->piece_count; p++) {
        if (!drawn[p])
            continue;
        const plot_piece *piece = &plot->pieces[p];
        int x = WIDTH - RIGHT + 20;
        if (plot->bars)
            fprintf(stream, "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"10\" fill=\"%s\" "
                            "fill-opacity=\"%s\" stroke=\"%s\"/>\n",
                    x, y - 9, piece->colour, piece->predicted ? "0.3" : "0.85", piece->colour);
        else
            fprintf(stream, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                            "stroke-width=\"%s\"%s/>\n",
                    x, y - 4, x + 24, y - 4, piece->colour, piece->predicted ? "1.5" : "3",
                    piece->predicted ? " stroke-dasharray=\"8,5\"" : "");
        write_text(stream, x + 30, y, "start", "class=\"key\"", piece->title);
        y += 18;
    }
}

/* A line plot: every piece against its set's first column. */
static void write_lines(FILE *stream, const plot_file *plot, const bool *drawn)
{
    plot_axis x = {.log_base = plot->log_x, .from = LEFT, .to = WIDTH - RIGHT};
    plot_axis y[2] = {{.log_base = plot->log_y, .from = HEIGHT - 60, .to = TOP},
                 {.log_base = 0, .from = HEIGHT - 60, .to = TOP}};
    double x_low = INFINITY, x_high = -INFINITY, y_low[2] = {INFINITY, INFINITY},
           y_high[2] = {-INFINITY, -INFINITY};
    for (int p = 0; p < plot->piece_count; p++) {
        if (!drawn[p])
            continue;
        const plot_piece *piece = &plot->pieces[p];
        const data_set *set = set_named(plot, piece->set);
        int c = column_of(set, piece->column), side = piece->y2;
        for (int r = 0; r < set->row_count; r++) {
            double value = set->value[r][c] / plot->y_scale;
            if (isnan(value))
                continue;
            x_low = fmin(x_low, set->value[r][0]);
            x_high = fmax(x_high, set->value[r][0]);
            y_low[side] = fmin(y_low[side], value);
            y_high[side] = fmax(y_high[side], value);
        }
    }
    fit_axis(&x, x_low, x_high, false, 0.03);
    fit_axis(&y[0], y_low[0], y_high[0], plot->y_from_zero, 0.06);
    bool has_y2 = y_low[1] <= y_high[1];
    if (has_y2)
        fit_axis(&y[1], y_low[1], y_high[1], false, 0.06);
    write_axis_ticks(stream, &x, false, HEIGHT - 42, true, "middle");
    write_axis_ticks(stream, &y[0], true, LEFT - 6, true, "end");
    if (has_y2)
        write_axis_ticks(stream, &y[1], true, WIDTH - RIGHT + 6, false, "start");
    fprintf(stream, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                    "stroke=\"#555\"/>\n",
            LEFT, TOP, WIDTH - RIGHT - LEFT, HEIGHT - 60 - TOP);
    /* Measured pieces first, predictions over them, as the gnuplot files draw them. */
    for (int pass = 0; pass < 2; pass++) {
        for (int p = 0; p < plot->piece_count; p++) {
            const plot_piece *piece = &plot->pieces[p];
            if (!drawn[p] || piece->predicted != (pass == 1))
                continue;
            const data_set *set = set_named(plot, piece->set);
            int c = column_of(set, piece->column);
            const plot_axis *along = &y[piece->y2];
            fprintf(stream, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"",
                    piece->colour, piece->predicted ? "1.5" : "3",
                    piece->predicted ? " stroke-dasharray=\"8,5\"" : "");
            for (int r = 0; r < set->row_count; r++) {
                double value = set->value[r][c] / plot->y_scale;
                if (!isnan(value))
                    fprintf(stream, "%.1f,%.1f ", axis_position(&x, set->value[r][0]),
                            axis_position(along, value));
            }
            fprintf(stream, "\"/>\n");
            for (int r = 0; r < set->row_count; r++) {
                double value = set->value[r][c] / plot->y_scale;
                if (isnan(value))
                    continue;
                double px = axis_position(&x, set->value[r][0]), py = axis_position(along, value);
                if (piece->predicted)
                    fprintf(stream, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" "
                                    "fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                            px - 4, py - 4, piece->colour);
                else
                    fprintf(stream, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", px,
                            py, piece->colour);
            }
        }
    }
    if (has_y2 && plot->y2label[0] != '\0')
        write_text(stream, WIDTH - RIGHT + 60, TOP - 10, "middle", "", plot->y2label);
}

/* A bar chart: a group of bars per row of the set, one bar per piece. */
static void write_bars(FILE *stream, const plot_file *plot, const bool *drawn)
{
    const data_set *rows = NULL;
    int bar_count = 0;
    double high = 0;
    for (int p = 0; p < plot->piece_count; p++) {
        if (!drawn[p])
            continue;
        const data_set *set = set_named(plot, plot->pieces[p].set);
        int c = column_of(set, plot->pieces[p].column);
        rows = rows != NULL ? rows : set;
        bar_count++;
        for (int r = 0; r < set->row_count; r++)
            if (!isnan(set->value[r][c]))
                high = fmax(high, set->value[r][c] / plot->y_scale);
    }
    plot_axis y = {.log_base = 0, .from = HEIGHT - 110, .to = TOP};
    fit_axis(&y, 0, high > 0 ? high : 1, true, 0.14);
    write_axis_ticks(stream, &y, true, LEFT - 6, true, "end");
    double group = (double)(WIDTH - RIGHT - LEFT) / rows->row_count;
    double width = group / (bar_count + 1);
    for (int r = 0; r < rows->row_count; r++) {
        double left = LEFT + r * group + width / 2;
        int b = 0;
        for (int p = 0; p < plot->piece_count; p++) {
            if (!drawn[p])
                continue;
            const plot_piece *piece = &plot->pieces[p];
            const data_set *set = set_named(plot, piece->set);
            double value = r < set->row_count ? set->value[r][column_of(set, piece->column)] / plot->y_scale : NAN;
            double x = left + b++ * width;
            if (isnan(value))
                continue;
            double top = axis_position(&y, value);
            fprintf(stream, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                            "fill-opacity=\"%s\" stroke=\"%s\"/>\n",
                    x, top, width * 0.9, HEIGHT - 110 - top, piece->colour,
                    piece->predicted ? "0.3" : "0.85", piece->colour);
            char text[32]; /* common.gp's bar_text: 3 significant digits, whole from 100 */
            if (fabs(value) >= 100)
                snprintf(text, sizeof text, "%.0f", value);
            else
                snprintf(text, sizeof text, "%.3g", value);
            char rotate[96];
            snprintf(rotate, sizeof rotate, "class=\"bar-value\" transform=\"rotate(-90 %.1f %.1f)\"",
                     x + width * 0.45 + 4, top - 4);
            write_text(stream, x + width * 0.45 + 4, top - 4, "start", rotate, text);
        }
        char rotate[96];
        double label_x = left + (bar_count * width) / 2;
        snprintf(rotate, sizeof rotate, "transform=\"rotate(25 %.1f %d)\"", label_x, HEIGHT - 96);
        write_text(stream, label_x, HEIGHT - 96, "start", rotate, rows->label[r]);
    }
    fprintf(stream, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", LEFT,
            HEIGHT - 110, WIDTH - RIGHT, HEIGHT - 110);
    fprintf(stream, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", LEFT,
            TOP, LEFT, HEIGHT - 110);
}

/* One plot, or a line saying it has nothing to show. Returns whether it was drawn. */
static bool write_plot(const char *path, const char *program, const cJSON *const *reports,
                       int report_count, FILE *stream)
{
    plot_file *plot = calloc(1, sizeof *plot);
    data_set *sets = calloc(MAX_SETS, sizeof *sets);
    bool drawn[MAX_PIECES] = {false}, any = false;
    if (plot == NULL || sets == NULL) {
        free(plot);
        free(sets);
        return false;
    }
    plot->sets = sets;
    if (read_plot(path, program, reports, report_count, plot)) {
        for (int p = 0; p < plot->piece_count; p++) {
            const data_set *set = set_named(plot, plot->pieces[p].set);
            /* A line needs two points, as gnuplot's plots do. */
            drawn[p] = column_of(set, plot->pieces[p].column) >= 0 &&
                       (plot->bars || set->row_count >= 2);
            any = any || drawn[p];
        }
    }
    if (!any) {
        fprintf(stream, "<p>");
        rd_html_escape(plot->title[0] != '\0' ? plot->title : path, stream);
        fprintf(stream, ": not drawn, nothing to plot in this run's data.</p>\n");
    } else {
        fprintf(stream, "<figure class=\"plot\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                        "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n",
                WIDTH, HEIGHT, WIDTH, HEIGHT);
        write_text(stream, (WIDTH - RIGHT + LEFT) / 2.0, 24, "middle", "class=\"plot-title\"",
                   plot->title);
        write_text(stream, (WIDTH - RIGHT + LEFT) / 2.0, HEIGHT - (plot->bars ? 6 : 16),
                   "middle", "", plot->bars ? "" : plot->xlabel);
        char rotate[96];
        snprintf(rotate, sizeof rotate, "transform=\"rotate(-90 18 %d)\"", (HEIGHT - 60 + TOP) / 2);
        write_text(stream, 18, (HEIGHT - 60 + TOP) / 2.0, "middle", rotate, plot->ylabel);
        if (plot->bars)
            write_bars(stream, plot, drawn);
        else
            write_lines(stream, plot, drawn);
        write_key(stream, plot, drawn);
        fprintf(stream, "</svg>\n</figure>\n");
    }
    free(sets);
    free(plot);
    return any;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int write_lab_plots(const char *plots_directory, const char *program,
                    const cJSON *const *reports, int report_count, FILE *stream)
{
    struct dirent **names;
    int count = scandir(plots_directory, &names, NULL, by_name);
    if (count < 0)
        return 0;
    int drawn = 0;
    bool heading = false;
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        size_t length = strlen(name);
        if (length > 3 && strcmp(name + length - 3, ".gp") == 0) {
            if (!heading)
                fprintf(stream, "<h3>Plots</h3>\n");
            heading = true;
            char path[PATH_SIZE];
            snprintf(path, sizeof path, "%s/%s", plots_directory, name);
            drawn += write_plot(path, program, reports, report_count, stream);
        }
        free(names[i]);
    }
    free(names);
    return drawn;
}
