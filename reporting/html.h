/* html.h: a lab's JSON report drawn as HTML for a browser: one self-contained page (inline CSS
 * and SVG, no script, nothing fetched), for a lab program's --format html, and its parts, which
 * memlab_report html puts together into the demo's report.html.
 */
#ifndef MEMLAB_HTML_H
#define MEMLAB_HTML_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* The page's head (its title escaped, the style sheet) and its end. */
void rd_html_begin(const char *title, FILE *stream);
void rd_html_end(FILE *stream);

/* A record's memory chart in a <figure class="chart" id="ID-INDEX"> with its variant and sizes
 * as the caption (INDEX: the record's place in the report); nothing for a record without one
 * (rd_record_has_chart). data-report and data-record on the figure say whose chart it is. */
void rd_html_chart(const cJSON *record, const char *id, int index, FILE *stream);
/* The charts of every record of the report that has one, id as above; returns how many. */
int rd_html_charts(const cJSON *report, const char *id, FILE *stream);

/* The report's tables, as the lab program prints them, folded in a <details>. */
void rd_html_tables(const cJSON *report, FILE *stream);
/* Where the run's time went, as a bar and its numbers: a GPU run only. */
void rd_html_seconds(const cJSON *report, FILE *stream);
/* The census's line over the reports, as memlab_report census counts it, and the pairs outside
 * and in wide ranges, each linked to its chart (ids[i]: the id report i's charts were drawn
 * with); nothing without a pair. */
void rd_html_census(const cJSON *const *reports, const char *const *ids, int report_count,
                    FILE *stream);
/* The key to the charts' colours: each verdict in its colour and in words. */
void rd_html_verdict_key(FILE *stream);

/* The whole page for one run (a lab program's --format html): the facts, the census, the
 * charts, the plots of plots_directory's files (none where it is NULL), the tables and the
 * time. */
void rd_write_html(const cJSON *report, const char *plots_directory, FILE *stream);

#endif
