/* report_html.c: the demo's report.html (report_html.h). */
#include "report_html.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_text.h"
#include "memory_chart.h"
#include "report_data.h"
#include "svg_plot.h"

#define PATH_SIZE 4096
#define MAX_REPORTS 1024

static const char *lab_of(const cJSON *report)
{
    return cJSON_GetObjectItemCaseSensitive(report, "lab")->valuestring;
}

/* The lab's title from its first report, or its program's name. */
static const char *lab_title(const html_run *runs, int run_count, const char *program)
{
    for (int r = 0; r < run_count; r++)
        if (strcmp(lab_of(runs[r].report), program) == 0)
            return rd_title(runs[r].report);
    return program;
}

/* demo.md as HTML: its paragraphs (blank lines between them) and `code` spans, the only
 * Markdown the labs' demo.md files use; the rest escaped as text. */
static void write_demo_text(const char *directory, FILE *stream)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/demo.md", directory);
    char *text = rd_read_text(path);
    if (text == NULL)
        return; /* a student pack has none */
    bool in_paragraph = false, in_code = false;
    char piece[2] = "";
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '\n' && (c[1] == '\n' || c[1] == '\0')) {
            if (in_paragraph)
                fprintf(stream, "%s</p>\n", in_code ? "</code>" : "");
            in_paragraph = in_code = false;
            continue;
        }
        if (!in_paragraph && (*c == '\n' || *c == ' '))
            continue;
        if (!in_paragraph)
            fprintf(stream, "<p>");
        in_paragraph = true;
        if (*c == '`') {
            fprintf(stream, in_code ? "</code>" : "<code>");
            in_code = !in_code;
            continue;
        }
        piece[0] = *c;
        rd_html_escape(piece, stream);
    }
    if (in_paragraph)
        fprintf(stream, "%s</p>\n", in_code ? "</code>" : "");
    free(text);
}

/* A run's heading: the program and its arguments where known, else the report's name. */
static void write_run_heading(const html_run *run, FILE *stream)
{
    fprintf(stream, "<h3><code>");
    if (run->arguments != NULL) {
        rd_html_escape(lab_of(run->report), stream);
        if (run->arguments[0] != '\0')
            fputc(' ', stream);
        rd_html_escape(run->arguments, stream);
        if (rd_device_name(run->report) == NULL)
            fprintf(stream, " --model");
    } else {
        rd_html_escape(run->id, stream);
    }
    fprintf(stream, "</code>%s</h3>\n",
            rd_device_name(run->report) == NULL ? " (predictions)" : "");
}

static int charts_of(const cJSON *report)
{
    int charts = 0;
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, rd_records(report))
    {
        charts += rd_record_has_chart(record);
    }
    return charts;
}

/* The lines of a failed run's log the page shows: as many as report.md's. */
#define FAILED_LOG_LINES 20

/* A run that failed: what ran, its exit status and the end of its log. */
static void write_failure(const html_failure *failure, int index, FILE *stream)
{
    fprintf(stream, "<h3 id=\"failed-%d\"><code>", index);
    rd_html_escape(failure->program, stream);
    if (failure->arguments[0] != '\0')
        fputc(' ', stream);
    rd_html_escape(failure->arguments, stream);
    fprintf(stream, "</code>: failed (exit status %d)</h3>\n", failure->status);
    char *log = rd_read_text(failure->log_path);
    if (log == NULL) {
        fprintf(stream, "<p>Its log could not be read.</p>\n");
        return;
    }
    fprintf(stream, "<p>The end of its stderr:</p>\n<pre>");
    rd_html_escape(rd_text_tail(log, FAILED_LOG_LINES), stream);
    fprintf(stream, "</pre>\n");
    free(log);
}

/* A lab's section: its title and demo.md, each run's charts (the headline run's shown, the
 * others' folded), tables and time, the runs that failed, then the plots of every run of the
 * lab. */
static void write_lab(const html_lab *lab, const html_run *runs, int run_count,
                      const html_failure *failures, int failure_count, FILE *stream)
{
    fprintf(stream, "<h2 id=\"");
    rd_html_escape(lab->program, stream);
    fprintf(stream, "\">");
    rd_html_escape(lab_title(runs, run_count, lab->program), stream);
    fprintf(stream, "</h2>\n");
    write_demo_text(lab->directory, stream);

    const cJSON *lab_reports[MAX_REPORTS];
    int lab_report_count = 0;
    for (int r = 0; r < run_count; r++) {
        const html_run *run = &runs[r];
        if (strcmp(lab_of(run->report), lab->program) != 0)
            continue;
        bool headline = lab_report_count == 0;
        if (lab_report_count < MAX_REPORTS)
            lab_reports[lab_report_count++] = run->report;
        write_run_heading(run, stream);
        int charts = charts_of(run->report);
        if (charts > 0 && !headline)
            fprintf(stream, "<details><summary>The memory charts (%d)</summary>\n", charts);
        rd_html_charts(run->report, run->id, stream);
        if (charts > 0 && !headline)
            fprintf(stream, "</details>\n");
        rd_html_tables(run->report, stream);
        rd_html_seconds(run->report, stream);
    }
    for (int f = 0; f < failure_count; f++)
        if (strcmp(failures[f].program, lab->program) == 0)
            write_failure(&failures[f], f, stream);
    char plots[PATH_SIZE];
    snprintf(plots, sizeof plots, "%s/plots", lab->directory);
    if (lab_report_count > 0)
        write_lab_plots(plots, lab->program, lab_reports, lab_report_count, stream);
}

void write_report_html(const html_lab *labs, int lab_count, const html_run *runs, int run_count,
                       const html_failure *failures, int failure_count, FILE *stream)
{
    rd_html_begin("memlab report", stream);
    fprintf(stream, "<h1>memlab report</h1>\n");
    const char *gpu = NULL;
    for (int r = 0; r < run_count && gpu == NULL; r++)
        gpu = rd_device_name(runs[r].report);
    if (run_count == 0) {
        fprintf(stream, "<p><b>No run wrote a report.</b></p>\n");
    } else if (gpu != NULL) {
        fprintf(stream, "<p>Measured on <b>");
        rd_html_escape(gpu, stream);
        fprintf(stream, "</b>. Each chart puts the hardware counters (CUPTI) beside the access "
                        "model's predictions, on the arrow between the levels they count.</p>\n");
    } else {
        fprintf(stream, "<p><b>Predictions only</b>: every run was <code>--model</code>, so the "
                        "charts show the access model's predictions and nothing measured.</p>\n");
    }

    const cJSON *reports[MAX_REPORTS];
    const char *ids[MAX_REPORTS];
    int count = run_count < MAX_REPORTS ? run_count : MAX_REPORTS;
    for (int r = 0; r < count; r++) {
        reports[r] = runs[r].report;
        ids[r] = runs[r].id;
    }
    if (failure_count > 0) {
        fprintf(stream, "<p><b>%d run%s failed:</b>", failure_count, failure_count == 1 ? "" : "s");
        for (int f = 0; f < failure_count; f++) {
            fprintf(stream, "%s <a href=\"#failed-%d\"><code>", f == 0 ? "" : ",", f);
            rd_html_escape(failures[f].program, stream);
            fprintf(stream, "</code></a>");
        }
        fprintf(stream, " (each lab's section shows the end of its log).</p>\n");
    }
    rd_html_census(reports, ids, count, stream);
    rd_html_verdict_key(stream);

    fprintf(stream, "<nav><h2>Contents</h2>\n<ul>\n");
    for (int l = 0; l < lab_count; l++) {
        fprintf(stream, "<li><a href=\"#");
        rd_html_escape(labs[l].program, stream);
        fprintf(stream, "\">");
        rd_html_escape(lab_title(runs, run_count, labs[l].program), stream);
        fprintf(stream, "</a></li>\n");
    }
    fprintf(stream, "</ul>\n</nav>\n");
    for (int l = 0; l < lab_count; l++)
        write_lab(&labs[l], runs, run_count, failures, failure_count, stream);
    rd_html_end(stream);
}
