/* html.c: a lab's JSON report as HTML (html.h). */
#define _DEFAULT_SOURCE /* open_memstream */
#include "html.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "html_text.h"
#include "memory_chart.h"
#include "render.h"
#include "report_data.h"
#include "svg_plot.h"

/* Sized for a projector at 1280x720: one column, large type, charts as wide as the page. */
static const char style_sheet[] =
    "body{font-family:Helvetica,Arial,sans-serif;margin:0 auto;max-width:1240px;padding:0 20px;"
    "color:#1d2630;background:#fff;line-height:1.4}\n"
    "h1{font-size:28px}h2{font-size:24px;border-bottom:2px solid #34495e;margin-top:40px}"
    "h3{font-size:18px}\n"
    "code,pre{font-family:'DejaVu Sans Mono',Menlo,monospace;font-size:13px}\n"
    "pre{background:#f6f8fa;padding:8px;overflow-x:auto}\n"
    "figure.chart{margin:16px 0;border:1px solid #d0d7de;border-radius:6px;padding:8px}\n"
    "figure.chart figcaption{font-weight:bold;margin-bottom:4px}\n"
    "svg{max-width:100%;height:auto}\n"
    "svg text{font-family:Helvetica,Arial,sans-serif;font-size:12px;fill:#1d2630}\n"
    "svg text.alias{font-weight:bold}svg text.arrow-name{font-size:13px;font-style:italic}\n"
    "svg text.level-name{font-size:13px;font-weight:bold}\n"
    "svg text.verdict{font-size:11px;fill:#fff}\n"
    ".verdict-key span{display:inline-block;color:#fff;border-radius:8px;padding:0 8px;"
    "margin-right:6px}\n"
    "details{margin:8px 0}summary{cursor:pointer;font-weight:bold}\n"
    "table.seconds td{padding:0 10px 0 0}\n";

void rd_html_begin(const char *title, FILE *stream)
{
    fprintf(stream, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<title>");
    rd_html_escape(title, stream);
    fprintf(stream, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style_sheet);
}

void rd_html_end(FILE *stream)
{
    fprintf(stream, "</body>\n</html>\n");
}

void rd_html_verdict_key(FILE *stream)
{
    fprintf(stream, "<p class=\"verdict-key\">The charts' verdicts, as <code>memlab_report "
                    "census</code> counts them: ");
    for (int v = RD_WITHIN; v < RD_VERDICTS; v++)
        fprintf(stream, "<span style=\"background:%s\">%s</span>", rd_verdict_colour(v),
                rd_verdict_name((rd_verdict)v));
    fprintf(stream, "<span style=\"background:%s\">measured or predicted only</span></p>\n",
            rd_verdict_colour(RD_NO_PAIR));
}

void rd_html_chart(const cJSON *record, const char *id, int index, FILE *stream)
{
    if (!rd_record_has_chart(record))
        return;
    fprintf(stream, "<figure class=\"chart\" id=\"");
    rd_html_escape(id, stream);
    fprintf(stream, "-%d\" data-report=\"", index);
    rd_html_escape(id, stream);
    fprintf(stream, "\" data-record=\"%d\">\n<figcaption>", index);
    rd_html_escape(rd_variant(record), stream);
    const cJSON *param = NULL;
    cJSON_ArrayForEach(param, rd_params(record))
    {
        fputc(' ', stream);
        rd_html_escape(param->string, stream);
        fprintf(stream, "=%.17g", param->valuedouble);
    }
    const char *kernel = rd_kernel(record);
    if (kernel != NULL) {
        fprintf(stream, " <small>(kernel <code>");
        rd_html_escape(kernel, stream);
        fprintf(stream, "</code>)</small>");
    }
    fprintf(stream, "</figcaption>\n");
    rd_write_memory_chart(record, stream);
    fprintf(stream, "</figure>\n");
}

int rd_html_charts(const cJSON *report, const char *id, FILE *stream)
{
    int index = 0, drawn = 0;
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, rd_records(report))
    {
        if (rd_record_has_chart(record)) {
            rd_html_chart(record, id, index, stream);
            drawn++;
        }
        index++;
    }
    return drawn;
}

/* What a function writes, as a string (free it), or NULL. */
static char *text_of(const cJSON *report, void (*write)(const cJSON *, rt_style, FILE *))
{
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL)
        return NULL;
    write(report, RT_TEXT, memory);
    fclose(memory);
    return text;
}

void rd_html_tables(const cJSON *report, FILE *stream)
{
    char *tables = text_of(report, rd_write_tables);
    if (tables == NULL)
        return;
    fprintf(stream, "<details><summary>The tables</summary>\n<pre>");
    rd_html_escape(tables, stream);
    fprintf(stream, "</pre>\n</details>\n");
    free(tables);
}

void rd_html_seconds(const cJSON *report, FILE *stream)
{
    const cJSON *seconds = cJSON_GetObjectItemCaseSensitive(report, "seconds");
    if (!cJSON_IsObject(seconds))
        return;
    /* The three parts of the wall time, as a bar of its width, and every part in numbers. */
    const char *parts[] = {"kernels", "counters", "host"};
    const char *colours[] = {"#1f77b4", "#ff7f0e", "#9aa5b1"};
    double value[3], total = 0;
    for (int p = 0; p < 3; p++) {
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(seconds, parts[p]);
        value[p] = cJSON_IsNumber(item) ? item->valuedouble : 0.0; /* counters: null, none */
        total += value[p];
    }
    fprintf(stream, "<details><summary>Where the time went</summary>\n");
    if (total > 0) {
        fprintf(stream, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1000 30\" "
                        "width=\"1000\" height=\"30\" role=\"img\">\n");
        double x = 0;
        for (int p = 0; p < 3; p++) {
            double width = 1000.0 * value[p] / total;
            fprintf(stream, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"30\" fill=\"%s\"/>",
                    x, width, colours[p]);
            if (width > 120)
                fprintf(stream, "<text x=\"%.1f\" y=\"20\" fill=\"#fff\">%s %.2f s</text>",
                        x + 6, parts[p], value[p]);
            fputc('\n', stream);
            x += width;
        }
        fprintf(stream, "</svg>\n");
    }
    char *line = text_of(report, rd_write_seconds);
    if (line != NULL) {
        fprintf(stream, "<p>");
        rd_html_escape(line, stream);
        fprintf(stream, "</p>\n");
        free(line);
    }
    fprintf(stream, "</details>\n");
}

/* Where the census's links go: the reports' ids, and the list being written. */
typedef struct {
    const char *const *ids;
    FILE *stream;
} link_list;

/* A link to a pair's chart, for a pair outside or inside a wide range. */
static void link_miss(const rd_pair *pair, void *context)
{
    if (pair->verdict != RD_WIDE && pair->verdict != RD_OUTSIDE)
        return;
    const link_list *links = context;
    FILE *list = links->stream;
    fprintf(list, "<li><a href=\"#");
    rd_html_escape(links->ids[pair->report_index], list);
    fprintf(list, "-%d\"><span style=\"color:%s\">%s</span>: ", pair->record_index,
            rd_verdict_colour(pair->verdict), rd_verdict_name(pair->verdict));
    rd_html_escape(cJSON_GetObjectItemCaseSensitive(pair->report, "lab")->valuestring, list);
    fputc(' ', list);
    rd_html_escape(rd_variant(pair->record), list);
    const cJSON *param = NULL;
    cJSON_ArrayForEach(param, rd_params(pair->record))
    {
        fputc(' ', list);
        rd_html_escape(param->string, list);
        fprintf(list, "=%.17g", param->valuedouble);
    }
    fprintf(list, " <code>");
    rd_html_escape(rd_metric_text(pair->metric, "alias"), list);
    fprintf(list, "</code></a></li>\n");
}

void rd_html_census(const cJSON *const *reports, const char *const *ids, int report_count,
                    FILE *stream)
{
    char *text = NULL;
    size_t size = 0;
    link_list links = {.ids = ids, .stream = open_memstream(&text, &size)};
    if (links.stream == NULL)
        return;
    long count[RD_VERDICTS];
    rd_census(reports, report_count, count, link_miss, &links);
    fclose(links.stream);
    char line[256];
    if (rd_census_line(count, line, sizeof line) > 0) {
        fprintf(stream, "<p class=\"census\">The access model, over every measured counter: ");
        rd_html_escape(line + strlen("census: "), stream);
        fprintf(stream, ".</p>\n");
        if (size > 0)
            fprintf(stream, "<details><summary>The pairs outside and in wide ranges, each linked "
                            "to its chart</summary>\n<ul>\n%s</ul>\n</details>\n", text);
    }
    free(text);
}

void rd_write_html(const cJSON *report, const char *plots_directory, FILE *stream)
{
    const char *title = rd_title(report);
    rd_html_begin(title, stream);
    fprintf(stream, "<h1>");
    rd_html_escape(title, stream);
    fprintf(stream, "</h1>\n");
    char *facts = text_of(report, rd_write_facts);
    if (facts != NULL) {
        fprintf(stream, "<pre>");
        rd_html_escape(facts, stream);
        fprintf(stream, "</pre>\n");
        free(facts);
    }
    const char *id = cJSON_GetObjectItemCaseSensitive(report, "lab")->valuestring;
    rd_html_census(&report, &id, 1, stream);
    rd_html_verdict_key(stream);
    rd_html_charts(report, id, stream);
    if (plots_directory != NULL)
        write_lab_plots(plots_directory, id, &report, 1, stream);
    rd_html_tables(report, stream);
    rd_html_seconds(report, stream);
    rd_html_end(stream);
}
