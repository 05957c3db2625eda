/* render.h: a lab's JSON report (report.c writes it, report_data.h reads it) drawn for people:
 * as the lab program's text output (ml_report_table, --format table) and as Markdown for the
 * demo's report.md (memlab_report markdown). One builder per table, from the JSON, for both
 * styles (tables.h): the same columns, rows and rounding; only the prose around the tables
 * differs by style. The report must have passed rd_parse.
 */
#ifndef MEMLAB_RENDER_H
#define MEMLAB_RENDER_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "tables.h"

/* The run's facts: the device, the copy ceiling, the seed, the repetitions and why counters
 * were not read. RT_TEXT: a "PROGRAM: TITLE" line, then "key:     value" lines, the device's SM
 * clock and, under --model, the GPU the predictions are for; RT_MARKDOWN: a "- key: value"
 * list. */
void rd_write_facts(const cJSON *report, rt_style style, FILE *stream);

/* The results, the kernels' resources (records with a kernel of their own) and the metrics
 * predicted and measured, each table but the first after a blank line; then why each ranged
 * prediction is a range. A failed check reads "FAIL (M mismatches, max err E)": the JSON keeps
 * neither the number of elements compared nor the first mismatches (the text output lists them
 * under the tables, from the run itself). */
void rd_write_tables(const cJSON *report, rt_style style, FILE *stream);

/* After a blank line, where the run's time went: a GPU run only. */
void rd_write_seconds(const cJSON *report, rt_style style, FILE *stream);

/* A run's part of the demo's report.md: facts, tables, seconds, in Markdown. */
void rd_write_markdown(const cJSON *report, FILE *stream);

#endif
