/* census.h: how the access model did, pair by pair. A pair is a metric with both a prediction
 * and a measurement; its verdict is one of four, and the census counts them. memlab_report's
 * census and the HTML report's charts both judge by these, so a chart's colour and the census's
 * count can never disagree.
 */
#ifndef MEMLAB_CENSUS_H
#define MEMLAB_CENSUS_H

#include <stddef.h>

#include <cjson/cJSON.h>

typedef enum {
    RD_NO_PAIR = -1,    /* nothing predicted or nothing measured */
    RD_WITHIN,          /* within 5% of a point prediction (or both 0) */
    RD_NARROW,          /* inside a range at most 1.25x wide (or, from zero, small) */
    RD_WIDE,            /* inside a wider range: no prediction, a miss */
    RD_OUTSIDE,
    RD_VERDICTS
} rd_verdict;

/* The verdict on one metric of a record (an object of report_data.h's metrics), with its
 * prediction (the high end of a range) and measurement. A range is narrow when its high end is
 * at most 1.25 times its low end, or, for a range from zero, at most 5% of the count it is
 * stated against (range_against); the range's ends are stretched by 5% (rd_in_range). */
rd_verdict rd_census_verdict(const cJSON *metric, double *predicted, double *measured);

/* The verdict in words: "within 5%", "narrow range", "wide range", "outside", and for
 * RD_NO_PAIR "no pair". */
const char *rd_verdict_name(rd_verdict verdict);

/* One pair the census counted: which report (its index among the reports) and record (its index
 * among the report's records), the metric, its verdict, prediction and measurement. */
typedef struct {
    int report_index, record_index;
    const cJSON *report, *record, *metric;
    rd_verdict verdict;
    double predicted, measured;
} rd_pair;

/* Counts the verdicts of every pair of the reports into count (zeroed first), calling visit, when
 * not NULL, on each pair in the reports' order. Returns the number of pairs. */
long rd_census(const cJSON *const *reports, int report_count, long count[RD_VERDICTS],
               void (*visit)(const rd_pair *pair, void *context), void *context);

/* The census's line for these counts: "census: N pairs: ... % met". Returns the number of
 * pairs. */
long rd_census_line(const long count[RD_VERDICTS], char *line, size_t size);

#endif
