/* report_markdown.h: a lab's JSON report as Markdown, for the demo's report.md
 * (memlab_report markdown).
 */
#ifndef MEMLAB_REPORT_MARKDOWN_H
#define MEMLAB_REPORT_MARKDOWN_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* The run's facts as a list (device, ceiling, seed, repetitions, why counters were not read),
 * then its tables as the lab program's text table has them (reporting/report.c), same columns,
 * same rounding: the results, the kernels' resources, the metrics predicted and measured; then
 * where the time went. The report must have passed rd_load. A failed check shows its mismatch
 * count without the number of elements compared or the first mismatches, which the JSON does
 * not keep (the run's text table has them). */
void rd_write_markdown(const cJSON *report, FILE *stream);

#endif
