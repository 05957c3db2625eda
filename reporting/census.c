/* census.c: the census's verdicts (census.h). */
#include "census.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "report_data.h"

/* Widest a range may be and still be a prediction: high / low, and for a range from zero,
 * high as a share of the count it is stated against. */
#define NARROW_RANGE_RATIO 1.25
#define NARROW_RESIDUE_SHARE 0.05

static bool range_is_narrow(double low, double high, double against)
{
    if (low > 0)
        return high <= NARROW_RANGE_RATIO * low;
    return !isnan(against) && high <= NARROW_RESIDUE_SHARE * against;
}

rd_verdict rd_census_verdict(const cJSON *metric, double *predicted, double *measured)
{
    const cJSON *point = cJSON_GetObjectItemCaseSensitive(metric, "predicted");
    const cJSON *low = cJSON_GetObjectItemCaseSensitive(metric, "predicted_low");
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(metric, "range_reason");
    const cJSON *against = cJSON_GetObjectItemCaseSensitive(metric, "range_against");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(metric, "measured");
    if (!cJSON_IsNumber(point) || !cJSON_IsNumber(value))
        return RD_NO_PAIR;
    *predicted = point->valuedouble;
    *measured = value->valuedouble;
    if (cJSON_IsString(reason) && cJSON_IsNumber(low)) {
        if (!rd_in_range(*measured, low->valuedouble, *predicted))
            return RD_OUTSIDE;
        double share_of = cJSON_IsNumber(against) ? against->valuedouble : NAN;
        return range_is_narrow(low->valuedouble, *predicted, share_of) ? RD_NARROW : RD_WIDE;
    }
    return rd_agrees(*measured, *predicted) ? RD_WITHIN : RD_OUTSIDE;
}

const char *rd_verdict_name(rd_verdict verdict)
{
    switch (verdict) {
    case RD_WITHIN:
        return "within 5%";
    case RD_NARROW:
        return "narrow range";
    case RD_WIDE:
        return "wide range";
    case RD_OUTSIDE:
        return "outside";
    default:
        return "no pair";
    }
}

long rd_census(const cJSON *const *reports, int report_count, long count[RD_VERDICTS],
               void (*visit)(const rd_pair *pair, void *context), void *context)
{
    long pairs = 0;
    for (int v = 0; v < RD_VERDICTS; v++)
        count[v] = 0;
    for (int i = 0; i < report_count; i++) {
        rd_pair pair = {.report_index = i, .report = reports[i], .record_index = 0};
        cJSON_ArrayForEach(pair.record, rd_records(reports[i]))
        {
            cJSON_ArrayForEach(pair.metric, rd_metrics(pair.record))
            {
                pair.verdict = rd_census_verdict(pair.metric, &pair.predicted, &pair.measured);
                if (pair.verdict == RD_NO_PAIR)
                    continue;
                count[pair.verdict]++;
                pairs++;
                if (visit != NULL)
                    visit(&pair, context);
            }
            pair.record_index++;
        }
    }
    return pairs;
}

long rd_census_line(const long count[RD_VERDICTS], char *line, size_t size)
{
    long pairs = 0;
    for (int v = 0; v < RD_VERDICTS; v++)
        pairs += count[v];
    long met = count[RD_WITHIN] + count[RD_NARROW];
    snprintf(line, size,
             "census: %ld pairs: %ld within 5%%, %ld inside a narrow range, %ld inside a wide "
             "range (a miss), %ld outside: %.1f%% met",
             pairs, count[RD_WITHIN], count[RD_NARROW], count[RD_WIDE], count[RD_OUTSIDE],
             pairs > 0 ? 100.0 * (double)met / (double)pairs : 0.0);
    return pairs;
}
