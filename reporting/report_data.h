/* report_data.h: reading the JSON reports that lab programs write (report.c), and the
 * one CSV writer: a lab's --format csv (ml_report_csv), ./memlab demo (the CSV beside each JSON)
 * and ./memlab plot (columns for gnuplot) all go through it. C and cJSON only, no CUDA, so
 * memlab_report links it on any machine. A demo keeps only the JSON of each run; everything
 * here is derived from it, without a GPU.
 */
#ifndef MEMLAB_REPORT_DATA_H
#define MEMLAB_REPORT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define RD_MAX_COLUMNS 16
#define RD_MAX_VARIANTS 16
#define RD_MAX_WHERE 8

/* The whole file as a string (free it), or NULL when it cannot be read. */
char *rd_read_text(const char *path);
/* Where text's last `lines` lines start (all of it for lines <= 0): a log's end. */
const char *rd_text_tail(const char *text, int lines);

/* Reads and checks one report: an object with a "lab" string and a "records" array whose
 * records have a "variant" string and a "params" object. Returns NULL, with a one-line reason
 * in error, when the file cannot be read or is not such a report. */
cJSON *rd_load(const char *path, char *error, size_t error_size);

/* The same for a report already in memory; name says which in error. */
cJSON *rd_parse(const char *text, const char *name, char *error, size_t error_size);

/* The CSV the lab program writes with --format csv (ml_report_csv), byte for byte. */
void rd_write_csv(const cJSON *report, FILE *stream);

/* The GPU's name, or NULL for a --model run. */
const char *rd_device_name(const cJSON *report);

/* The lab's title ("Lab 04: ..."), or its program name in a report without one. */
const char *rd_title(const cJSON *report);

/* Why counters were not read, or NULL when they were. */
const char *rd_profiler_note(const cJSON *report);

/* The records of a report, and the metrics of a record (keyed by Perfworks name), to walk with
 * cJSON_ArrayForEach. */
const cJSON *rd_records(const cJSON *report);
const cJSON *rd_metrics(const cJSON *record);
/* A record's size parameters, an object of numbers, in the lab's order. */
const cJSON *rd_params(const cJSON *record);
/* A metric's number ("predicted", "predicted_low", "measured"; NAN for null) or text ("alias",
 * "unit", "range_reason"; NULL when absent). */
double rd_metric_number(const cJSON *metric, const char *field);
const char *rd_metric_text(const cJSON *metric, const char *field);
/* A number of the report itself ("counter_seconds", "ceiling_gbps"), NAN for null, and a text
 * ("flops_ceiling_variant"), NULL when null. */
double rd_report_number(const cJSON *report, const char *field);
const char *rd_report_text(const cJSON *report, const char *field);

/* The agreement asked of the access model: a measurement within 5% of a point prediction (both
 * zero agrees), or inside a predicted range whose ends are stretched by the same 5%. The tables,
 * the demo's Markdown and the census all judge by these. */
bool rd_agrees(double measured, double predicted);
bool rd_in_range(double measured, double low, double high);

/* The first record of a variant, or NULL. */
const cJSON *rd_record(const cJSON *report, const char *variant);
/* A record's variant name, and its kernel as the driver names it (NULL for a library call or a
 * --model run). */
const char *rd_variant(const cJSON *record);
const char *rd_kernel(const cJSON *record);
/* A record's metric object by alias (gld_efficiency) or Perfworks name, or NULL. */
const cJSON *rd_metric(const cJSON *record, const char *name);

/* One value of a record by column name, NAN when the record has none:
 *   a top-level number: bytes, gbps, pct_of_ceiling, flops, gflops, pct_of_flops_ceiling,
 *     max_rel_error, mismatches; correct (1 or 0);
 *   timing: median_ms, min_ms, max_ms, cv, reps;
 *   flops_per_gld_byte_predicted, flops_per_gld_byte_measured;
 *   resources: registers_per_thread, local_bytes_per_thread, shared_bytes_per_block,
 *     threads_per_block, blocks_per_sm, occupancy_pct;
 *   latency: cycles_per_op, min_cycles_per_op, max_cycles_per_op, ns_per_op;
 *   METRIC.predicted, METRIC.measured: METRIC is an alias (gld_efficiency) or a Perfworks name;
 *   anything else: the size parameter of that name. */
double rd_value(const cJSON *record, const char *column);
/* true if column names a value of the record itself (above) or a column every CSV row starts
 * with (lab, variant, device): a size parameter of that name could not be told from it, so a lab
 * may not name one so. */
bool rd_is_record_column(const char *column);

/* Which records a plot takes, and which of their values. A where clause keeps the records whose
 * parameter equals a number, or, with "max", the largest value of that parameter among the
 * records the other clauses keep. */
typedef struct {
    const char *lab;                /* NULL: any lab */
    const char *variant[RD_MAX_VARIANTS];
    int variant_count;              /* series: exactly 1; bars: 0 means every variant */
    const char *x;                  /* series: the parameter along the x axis */
    const char *column[RD_MAX_COLUMNS];
    int column_count;
    const char *where_param[RD_MAX_WHERE];
    const char *where_value[RD_MAX_WHERE];
    int where_count;
} rd_query;

/* Columns for a line plot of one variant, separated by spaces: a header line (the x parameter,
 * then the columns), then one row per x value in increasing order, NaN for a missing value.
 * Records come from every report; where two reports have a record at the same x, the report
 * with more records of the variant wins (a sweep over a single point). has_data[c] tells whether
 * column c got any value. Returns the number of rows. */
int rd_write_series(const cJSON *const *reports, int report_count, const rd_query *query,
                    FILE *stream, bool has_data[RD_MAX_COLUMNS]);

/* Columns for a bar chart: a header line ("label", then the columns), then one row per record,
 * labelled in double quotes with its variant and the parameters that differ between rows
 * ("aos fields=1"), ordered by those parameters and then by variant. A variant's records come
 * from the reports holding the fewest of them (single runs rather than a sweep, which is a line
 * plot's business); a record with the same variant and sizes as an earlier one is left out.
 * has_data as for rd_write_series. Returns the number of rows. */
int rd_write_bars(const cJSON *const *reports, int report_count, const rd_query *query,
                  FILE *stream, bool has_data[RD_MAX_COLUMNS]);

#endif
