/* report_html.h: the demo's report.html (memlab_report html DIR): every lab's section with its
 * demo.md text, the memory charts of its runs, its plots drawn as SVG (svg_plot.h), its tables
 * folded and where the time went; a contents list and the census on top. One file, inline CSS
 * and SVG, no script, nothing fetched: it opens from a laptop's disk and projects at 1280x720.
 */
#ifndef MEMLAB_REPORT_HTML_H
#define MEMLAB_REPORT_HTML_H

#include <stdio.h>

#include <cjson/cJSON.h>

typedef struct {
    const char *program;        /* coalescing */
    const char *directory;      /* ROOT/labs/04_coalescing */
} html_lab;

typedef struct {
    const cJSON *report;
    const char *id;             /* its file's name without .json (coalescing-1): charts' ids */
    const char *arguments;      /* the run's arguments (runs.tsv), or NULL where unknown */
} html_run;

/* A run of the demo that failed (runs.tsv: a non-zero exit status): its lab's section says so,
 * with the end of its log. */
typedef struct {
    const char *program;
    const char *arguments;
    int status;
    const char *log_path;       /* DIR/data/PROGRAM-N.log */
} html_failure;

/* The page: the labs in order, the runs in name order (a lab's first run is its headline:
 * its charts are shown, the other runs' folded), and the runs that failed. */
void write_report_html(const html_lab *labs, int lab_count, const html_run *runs, int run_count,
                       const html_failure *failures, int failure_count, FILE *stream);

#endif
