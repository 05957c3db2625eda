/* memlab_counters: reads a lab's JSON report for ./memlab check and ./memlab bench.
 *
 *   memlab_counters variants REPORT.json
 *       one line per record that has a kernel of its own: VARIANT KERNEL NAMES, where NAMES are
 *       the Perfworks names its metrics need, comma-separated (what to ask Nsight Compute for);
 *       the driver's unified-memory counters are left out (Nsight Compute does not read them)
 *   memlab_counters compare REPORT.json VARIANT NCU.csv WRITE_FLOOR READ_FLOOR
 *       every metric of the variant's record beside Nsight Compute's value for the same launch
 *       (ncu --csv --print-units base); exit 1 if any pair disagrees: ratios by more than 1%
 *       and more than RESIDUE_RATIO; counts by more than 1% and, for a count that is the
 *       numerator of one of the record's ratios, by more than RESIDUE_RATIO per event of that
 *       ratio's denominator (the bank-conflict counter carries a residue of a few thousandths
 *       of a conflict per load that varies from run to run: count and ratio are one
 *       measurement, judged by one rule); percentages by more than 0.5 points; DRAM bytes
 *       written by more than 1% plus WRITE_FLOOR: the bytes Nsight Compute shows written by a
 *       kernel that writes nothing (dirty lines left in the L2 before it, written back during
 *       it), measured in the same check (tools/ncu/ncu_floor.sh); DRAM bytes read by more than
 *       1% plus READ_FLOOR: the bytes Nsight Compute shows read by a launch of the same run
 *       that reads no data (its instructions, parameters and page-table walks, a few KB that
 *       vary from launch to launch: on an H200, 101,888 to 108,544 bytes read for a ~97 KB
 *       working set, in memlab and in ncu alike).
 *   memlab_counters counter-seconds REPORT.json
 *       the wall time the lab spent reading counters (its counter_seconds); exit 1 if the
 *       report read none (a profiler note, or no counters asked for)
 *   memlab_counters ncu-value NCU.csv NAME
 *       one metric's value from Nsight Compute's CSV, the largest where it profiled several
 *       launches
 *   memlab_counters ncu-values NCU.csv NAME
 *       one metric's value of every launch Nsight Compute profiled, in launch order, one a line
 *   memlab_counters best [--peak] REPORT.json...
 *       the record closest to its ceiling over the reports: VARIANT PERCENT CEILING (copy
 *       bandwidth, or the lab's FLOP/s ceiling variant); with --peak, closest to its own peak
 *       (pct_of_peak: lab 09's host link, where the device copy says nothing), CEILING "peak"
 *   memlab_counters bench-json ROWS.tsv
 *       ./memlab bench's rows (lab, best variant, % of ceiling, ceiling, memlab seconds, ncu
 *       seconds or "-" where ncu reads none of the lab's counters; tab-separated) as JSON on
 *       standard output
 *
 * Exit status 2 for bad input (missing file, not a report, unknown variant).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report_data.h"

#define COUNT_TOLERANCE 0.01        /* relative */
#define PERCENT_TOLERANCE 0.5       /* points */
#define RESIDUE_RATIO 0.01          /* per event of the denominator */
#define DRAM_WRITE "dram__bytes_write.sum"
#define DRAM_READ "dram__bytes_read.sum"
#define MAX_NCU_METRICS 1024
#define LINE_SIZE 8192

static void die(const char *message, const char *detail)
{
    fprintf(stderr, "memlab_counters: %s%s\n", message, detail);
    exit(2);
}


/* Reports are read with the one reader of the format, reporting/report_data.h. */
static cJSON *read_report(const char *path)
{
    char error[512];
    cJSON *report = rd_load(path, error, sizeof error);
    if (report == NULL)
        die("not a memlab JSON report: ", error);
    return report;
}

/* Prints the Perfworks names a record's metrics need; keys are a name or "a / b". */
/* A counter Nsight Compute reads: not the driver's unified-memory records ("unified_memory:",
 * CUPTI's activity API), which Nsight Systems reports and Nsight Compute does not. */
static int is_ncu_metric(const cJSON *metric)
{
    return strncmp(metric->string, "unified_memory:", strlen("unified_memory:")) != 0;
}

static int ncu_metric_count(const cJSON *record)
{
    int count = 0;
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, rd_metrics(record))
    {
        count += is_ncu_metric(metric);
    }
    return count;
}

static void print_names(const cJSON *record)
{
    const cJSON *metric = NULL;
    int first = 1;
    cJSON_ArrayForEach(metric, rd_metrics(record))
    {
        if (!is_ncu_metric(metric))
            continue;
        char key[512];
        snprintf(key, sizeof key, "%s", metric->string);
        char *slash = strstr(key, " / ");
        if (slash != NULL) {
            *slash = '\0';
            printf("%s%s,%s", first ? "" : ",", key, slash + 3);
        } else {
            printf("%s%s", first ? "" : ",", key);
        }
        first = 0;
    }
}

static int list_variants(const char *path)
{
    cJSON *report = read_report(path);
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, rd_records(report))
    {
        const char *kernel = rd_kernel(record);
        if (kernel == NULL || ncu_metric_count(record) == 0)
            continue;
        printf("%s %s ", rd_variant(record), kernel);
        print_names(record);
        putchar('\n');
    }
    cJSON_Delete(report);
    return 0;
}

/* ---- Nsight Compute's CSV -------------------------------------------------------------------- */

typedef struct {
    char name[256];
    double value;
} ncu_value;

/* Splits one CSV line of double-quoted fields in place; returns the field count. */
static int split_quoted(char *line, char **fields, int max_fields)
{
    int count = 0;
    char *c = line;
    while (*c == '"' && count < max_fields) {
        fields[count++] = ++c;
        while (*c != '\0' && *c != '"')
            c++;
        if (*c == '\0')
            break;
        *c++ = '\0';
        if (*c == ',')
            c++;
    }
    return count;
}

static double parse_ncu_number(const char *text)
{
    char digits[128];
    size_t used = 0;
    for (const char *c = text; *c != '\0' && used + 1 < sizeof digits; c++)
        if (*c != ',')
            digits[used++] = *c;
    digits[used] = '\0';
    char *end = NULL;
    double value = strtod(digits, &end);
    return (used > 0 && *end == '\0') ? value : NAN;
}

static int read_ncu_csv(const char *path, ncu_value *values)
{
    FILE *file = fopen(path, "r");
    if (file == NULL)
        die("cannot read ", path);
    char line[LINE_SIZE];
    char *fields[32];
    int name_column = -1, value_column = -1, count = 0;
    while (fgets(line, sizeof line, file) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        int field_count = split_quoted(line, fields, 32);
        if (field_count == 0)
            continue;       /* ncu's own "==PROF==" lines and the program's output */
        if (name_column < 0) {
            for (int i = 0; i < field_count; i++) {
                if (strcmp(fields[i], "Metric Name") == 0)
                    name_column = i;
                if (strcmp(fields[i], "Metric Value") == 0)
                    value_column = i;
            }
            continue;
        }
        if (field_count <= value_column)
            continue;
        if (count == MAX_NCU_METRICS)
            die("more metric values than memlab_counters reads (1024) in ", path);
        snprintf(values[count].name, sizeof values[count].name, "%s", fields[name_column]);
        values[count].value = parse_ncu_number(fields[value_column]);
        count++;
    }
    fclose(file);
    if (name_column < 0 || value_column < 0 || count == 0)
        die("no metric values in Nsight Compute's CSV ", path);
    return count;
}

static double ncu_lookup(const ncu_value *values, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(values[i].name, name) == 0)
            return values[i].value;
    return NAN;
}

static int ncu_value_of(const char *path, const char *name)
{
    ncu_value values[MAX_NCU_METRICS];
    int count = read_ncu_csv(path, values);
    double value = NAN;
    for (int i = 0; i < count; i++)
        if (strcmp(values[i].name, name) == 0 && !(values[i].value <= value))
            value = values[i].value;
    if (isnan(value))
        die("no value in Nsight Compute's CSV for ", name);
    printf("%.0f\n", value);
    return 0;
}

/* ncu-values: one metric's value of every launch ncu profiled, in launch order, one a line. */
static int ncu_values_of(const char *path, const char *name)
{
    ncu_value values[MAX_NCU_METRICS];
    int count = read_ncu_csv(path, values), found = 0;
    for (int i = 0; i < count; i++) {
        if (strcmp(values[i].name, name) == 0) {
            printf("%.0f\n", values[i].value);
            found++;
        }
    }
    if (found == 0)
        die("no value in Nsight Compute's CSV for ", name);
    return 0;
}

static double parse_bytes(const char *text)
{
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || !(value >= 0))
        die("not a byte count: ", text);
    return value;
}

/* How far a count may differ beyond 1%: RESIDUE_RATIO per event of the denominator of a ratio
 * of the record that has the count as its numerator (Nsight Compute's value of it); 0 when no
 * ratio has it. */
static double count_residue(const cJSON *record, const char *count_name, const ncu_value *values,
                            int value_count)
{
    size_t length = strlen(count_name);
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, rd_metrics(record))
    {
        const char *key = metric->string;
        if (strncmp(key, count_name, length) == 0 && strncmp(key + length, " / ", 3) == 0) {
            double denominator = ncu_lookup(values, value_count, key + length + 3);
            if (!isnan(denominator))
                return RESIDUE_RATIO * denominator;
        }
    }
    return 0.0;
}

static int compare(const char *report_path, const char *variant, const char *ncu_path,
                   double write_floor, double read_floor)
{
    cJSON *report = read_report(report_path);
    const cJSON *record = rd_record(report, variant);
    if (record == NULL)
        die("no record of variant ", variant);
    ncu_value values[MAX_NCU_METRICS];
    int value_count = read_ncu_csv(ncu_path, values);

    int disagreements = 0;
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, rd_metrics(record))
    {
        if (!is_ncu_metric(metric))
            continue;
        char key[512];
        snprintf(key, sizeof key, "%s", metric->string);
        char *slash = strstr(key, " / ");
        double theirs;
        if (slash != NULL) {
            *slash = '\0';
            theirs = ncu_lookup(values, value_count, key) /
                     ncu_lookup(values, value_count, slash + 3);
        } else {
            theirs = ncu_lookup(values, value_count, key);
        }
        const char *unit = rd_metric_text(metric, "unit");
        const char *alias = rd_metric_text(metric, "alias");
        if (unit == NULL || alias == NULL)
            die("a metric without its unit or alias in ", report_path);
        double ours = rd_metric_number(metric, "measured");
        int is_percent = strcmp(unit, "%") == 0;
        double absolute = fabs(ours - theirs);
        double difference = is_percent ? absolute : absolute / fmax(fabs(theirs), 1e-30);
        /* Both zero is agreement; a missing value on either side is not. */
        if (ours == 0 && theirs == 0)
            difference = 0;
        int is_dram_write = strcmp(key, DRAM_WRITE) == 0;
        int is_dram_read = strcmp(key, DRAM_READ) == 0;
        int agrees;
        if (is_percent)
            agrees = difference <= PERCENT_TOLERANCE;
        else if (is_dram_write)
            agrees = absolute <= COUNT_TOLERANCE * fabs(theirs) + write_floor;
        else if (is_dram_read)
            agrees = absolute <= COUNT_TOLERANCE * fabs(theirs) + read_floor;
        else if (slash != NULL)
            agrees = difference <= COUNT_TOLERANCE || absolute <= RESIDUE_RATIO;
        else
            agrees = difference <= COUNT_TOLERANCE ||
                     absolute <= count_residue(record, key, values, value_count);
        const char *verdict = "ok";
        if (!agrees)
            verdict = "DISAGREE";
        else if (!is_percent && difference > COUNT_TOLERANCE)
            verdict = is_dram_write  ? "ok (within ncu's write floor)"
                      : is_dram_read ? "ok (within a launch's own reads)"
                                     : "ok (within the residue)";
        char shown[32];
        if (!is_percent && theirs == 0 && ours != 0)
            snprintf(shown, sizeof shown, "%11s", "(ncu 0)");
        else
            snprintf(shown, sizeof shown, "%8.3f%s", is_percent ? difference : 100.0 * difference,
                     is_percent ? " pt" : " % ");
        printf("  %-38s memlab %14.6g  ncu %14.6g  diff %s  %s\n", alias, ours, theirs, shown,
               verdict);
        disagreements += !agrees;
    }
    cJSON_Delete(report);
    return disagreements > 0;
}

/* ---- bench ----------------------------------------------------------------------------------- */

static int counter_seconds(const char *path)
{
    cJSON *report = read_report(path);
    const char *note = rd_profiler_note(report);
    double seconds = rd_report_number(report, "counter_seconds");
    int status = 0;
    if (note != NULL) {
        fprintf(stderr, "memlab_counters: %s read no counters: %s\n", path, note);
        status = 1;
    } else if (isnan(seconds)) {
        fprintf(stderr, "memlab_counters: %s asked for no counters\n", path);
        status = 1;
    } else {
        printf("%.3f\n", seconds);
    }
    cJSON_Delete(report);
    return status;
}

/* The record closest to its ceiling over several reports of one lab (by_peak: to its own
 * peak). */
static int best(int count, char **paths, int by_peak)
{
    const char *best_variant = NULL, *ceiling = "copy";
    double best_percent = -1;
    cJSON *reports[64];
    if (count > 64)
        die("too many reports", "");
    for (int i = 0; i < count; i++) {
        cJSON *report = reports[i] = read_report(paths[i]);
        const char *ceiling_variant = rd_report_text(report, "flops_ceiling_variant");
        int by_flops = !by_peak && ceiling_variant != NULL;
        const cJSON *record = NULL;
        cJSON_ArrayForEach(record, rd_records(report))
        {
            const char *variant = rd_variant(record);
            if (by_flops && strcmp(variant, ceiling_variant) == 0)
                continue;       /* the ceiling is not a contender */
            double percent = rd_value(record, by_peak    ? "pct_of_peak"
                                              : by_flops ? "pct_of_flops_ceiling"
                                                         : "pct_of_ceiling");
            if (!isnan(percent) && percent > best_percent) {
                best_percent = percent;
                best_variant = variant;
                ceiling = by_peak ? "peak" : by_flops ? ceiling_variant : "copy";
            }
        }
    }
    if (best_variant == NULL)
        die("no timed record in ", paths[0]);
    printf("%s %.1f %s\n", best_variant, best_percent, ceiling);
    for (int i = 0; i < count; i++)
        cJSON_Delete(reports[i]);
    return 0;
}

static int bench_json(const char *path)
{
    FILE *file = fopen(path, "r");
    if (file == NULL)
        die("cannot read ", path);
    cJSON *root = cJSON_CreateObject();
    cJSON *labs = cJSON_AddArrayToObject(root, "labs");
    char line[LINE_SIZE];
    while (fgets(line, sizeof line, file) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        char *field[6];
        int count = 0;
        for (char *cursor = line; count < 6; count++) {
            field[count] = cursor;
            char *tab = strchr(cursor, '\t');
            if (tab == NULL) {
                count++;
                break;
            }
            *tab = '\0';
            cursor = tab + 1;
        }
        if (count != 6)
            die("a bench row needs 6 tab-separated fields in ", path);
        /* ncu seconds "-" (read as 0, so no ratio): none of the lab's counters is one Nsight
         * Compute reads. */
        int ncu_reads_none = strcmp(field[5], "-") == 0;
        double memlab_s = strtod(field[4], NULL), ncu_s = strtod(field[5], NULL);
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "lab", field[0]);
        cJSON_AddStringToObject(row, "best_variant", field[1]);
        cJSON_AddNumberToObject(row, "pct_of_ceiling", strtod(field[2], NULL));
        cJSON_AddStringToObject(row, "ceiling", field[3]);
        cJSON_AddNumberToObject(row, "memlab_collection_s", memlab_s);
        if (ncu_reads_none)
            cJSON_AddNullToObject(row, "ncu_collection_s");
        else
            cJSON_AddNumberToObject(row, "ncu_collection_s", ncu_s);
        if (ncu_s > 0)
            cJSON_AddNumberToObject(row, "memlab_over_ncu", memlab_s / ncu_s);
        else
            cJSON_AddNullToObject(row, "memlab_over_ncu");
        cJSON_AddItemToArray(labs, row);
    }
    fclose(file);
    char *text = cJSON_Print(root);
    if (text == NULL)
        die("out of memory writing JSON", "");
    puts(text);
    cJSON_free(text);
    cJSON_Delete(root);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "variants") == 0)
        return list_variants(argv[2]);
    if (argc == 7 && strcmp(argv[1], "compare") == 0)
        return compare(argv[2], argv[3], argv[4], parse_bytes(argv[5]), parse_bytes(argv[6]));
    if (argc == 3 && strcmp(argv[1], "counter-seconds") == 0)
        return counter_seconds(argv[2]);
    if (argc == 4 && strcmp(argv[1], "ncu-value") == 0)
        return ncu_value_of(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "ncu-values") == 0)
        return ncu_values_of(argv[2], argv[3]);
    if (argc >= 4 && strcmp(argv[1], "best") == 0 && strcmp(argv[2], "--peak") == 0)
        return best(argc - 3, &argv[3], 1);
    if (argc >= 3 && strcmp(argv[1], "best") == 0)
        return best(argc - 2, &argv[2], 0);
    if (argc == 3 && strcmp(argv[1], "bench-json") == 0)
        return bench_json(argv[2]);
    die("usage: memlab_counters variants REPORT.json | best [--peak] REPORT.json... | "
        "compare REPORT.json VARIANT NCU.csv WRITE_FLOOR READ_FLOOR | counter-seconds REPORT.json | "
        "ncu-value NCU.csv NAME | ncu-values NCU.csv NAME | "
        "bench-json ROWS.tsv", "");
    return 2;
}
