/* memlab_report: CSV, Markdown and gnuplot columns from the JSON reports of lab programs.
 * ./memlab demo and ./memlab plot call it; it needs no GPU and reads nothing but the JSON.
 *
 *   memlab_report csv REPORT.json
 *       the CSV the lab program writes with --format csv, on stdout
 *   memlab_report markdown REPORT.json
 *       the run's facts and tables in Markdown, for the demo's report.md (report_markdown.h)
 *   memlab_report title REPORT.json
 *       the lab's title ("Lab 04: coalesced vs strided ...")
 *   memlab_report notes REPORT.json...
 *       why counters were not read, each reason once; --model runs are left out
 *   memlab_report device [--lab LAB] REPORT.json...
 *       the GPU's name; exit status 1 when every report is a --model run
 *   memlab_report caches [--lab LAB] REPORT.json...
 *       the L1 and L2 sizes the predictions were made for (a GPU run: the device's), as gnuplot
 *       settings "l1_bytes=N; l2_bytes=N;"; exit status 1 when no report has them
 *   memlab_report labs REPORT.json...
 *       the labs the reports are of, each once
 *   memlab_report seconds REPORT.json
 *       where the run's time went: wall, kernels, counters and host seconds, separated by tabs,
 *       then host / (kernels + counters); exit status 1 for a --model run (nothing was timed)
 *   memlab_report census [--list] REPORT.json...
 *       how the access model did: of the pairs with a prediction and a measurement, how many
 *       lie within 5% of a point prediction, how many inside a predicted range (its ends
 *       stretched by 5%, as the lab's tables judge it), how many outside; --list names each
 *       pair outside. Exit status 1 when no pair was measured
 *   memlab_report series --variant V --x PARAM --columns C,... [SELECTION] REPORT.json...
 *       a line plot's columns: PARAM, then each C, one row per value of PARAM
 *   memlab_report bars [--variants V,...] --columns C,... [SELECTION] REPORT.json...
 *       a bar chart's columns: a label ("aos fields=1"), then each C, one row per record
 *   SELECTION: --lab LAB (reports of other labs are ignored), --where PARAM=VALUE or
 *       --where PARAM=max (repeatable), --out FILE (write the columns there and print the
 *       names of the columns that got at least one value on stdout)
 *
 * Column names (report_data.h): gbps, gflops, median_ms, bytes, registers_per_thread, ...,
 * METRIC.predicted, METRIC.measured, or a size parameter. A missing value is written NaN.
 * Exit status: 0; 1 when series or bars find no value to plot, or series fewer than two
 * points (a note, not an error: the plot is skipped); 2 for bad usage, or a report that cannot
 * be read (labs, notes, series and bars skip such a report with a warning instead).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_data.h"
#include "report_markdown.h"

#define EXIT_NO_DATA 1
#define EXIT_USAGE 2
#define ERROR_SIZE 512

static int usage_error(const char *message, const char *detail)
{
    fprintf(stderr, "memlab_report: %s%s (usage: memlab_report csv|markdown|title|notes|device|caches|labs|seconds|census|series|bars ...; see "
                    "the comment at the top of tools/report/memlab_report.c)\n", message, detail);
    return EXIT_USAGE;
}

/* Splits a comma-separated list in place into names (empty names are dropped); returns how
 * many, or -1 if more than max. */
static int split_list(char *list, const char **names, int max)
{
    int count = 0;
    for (char *name = strtok(list, ","); name != NULL; name = strtok(NULL, ",")) {
        if (count == max)
            return -1;
        names[count++] = name;
    }
    return count;
}

/* The one report a command takes (csv, markdown, title, seconds). Returns 0 with *report set, or an exit status. */
static int load_one_report(const char *command, int argc, char **argv, cJSON **report)
{
    if (argc != 1)
        return usage_error(command, " takes one report");
    char error[ERROR_SIZE];
    *report = rd_load(argv[0], error, sizeof error);
    if (*report == NULL) {
        fprintf(stderr, "memlab_report: %s\n", error);
        return EXIT_USAGE;
    }
    return EXIT_SUCCESS;
}

/* csv, markdown and title: one report in, one text out. */
static int one_report_command(const char *command, int argc, char **argv)
{
    cJSON *report;
    int status = load_one_report(command, argc, argv, &report);
    if (status != EXIT_SUCCESS)
        return status;
    if (strcmp(command, "csv") == 0)
        rd_write_csv(report, stdout);
    else if (strcmp(command, "markdown") == 0)
        rd_write_markdown(report, stdout);
    else
        printf("%s\n", rd_title(report));
    cJSON_Delete(report);
    return EXIT_SUCCESS;
}

typedef struct {
    rd_query query;
    const char *out_path;
    cJSON **reports;
    int report_count;
} report_request;

/* Parses the options of device, series and bars and loads the reports. Returns 0 or an exit
 * status. */
static int parse_request(int argc, char **argv, report_request *request, bool tolerate_bad_reports)
{
    memset(request, 0, sizeof *request);
    rd_query *query = &request->query;
    int first_file = argc;
    for (int i = 0; i < argc; i++) {
        const char *option = argv[i];
        if (option[0] != '-') {
            first_file = i;
            break;
        }
        if (i + 1 == argc)
            return usage_error(option, " needs a value");
        char *value = argv[++i];
        if (strcmp(option, "--lab") == 0) {
            query->lab = value;
        } else if (strcmp(option, "--x") == 0) {
            query->x = value;
        } else if (strcmp(option, "--out") == 0) {
            request->out_path = value;
        } else if (strcmp(option, "--variant") == 0 || strcmp(option, "--variants") == 0) {
            query->variant_count = split_list(value, query->variant, RD_MAX_VARIANTS);
            if (query->variant_count <= 0)
                return usage_error(option, ": a list of at most 16 variant names");
        } else if (strcmp(option, "--columns") == 0) {
            query->column_count = split_list(value, query->column, RD_MAX_COLUMNS);
            if (query->column_count <= 0)
                return usage_error("--columns: a list of at most 16 names", "");
        } else if (strcmp(option, "--where") == 0) {
            char *equals = strchr(value, '=');
            if (equals == NULL || equals == value || equals[1] == '\0')
                return usage_error("--where takes PARAM=VALUE or PARAM=max, not ", value);
            if (query->where_count == RD_MAX_WHERE)
                return usage_error("too many --where", "");
            *equals = '\0';
            query->where_param[query->where_count] = value;
            query->where_value[query->where_count] = equals + 1;
            query->where_count++;
        } else {
            return usage_error("unknown option ", option);
        }
    }
    if (first_file == argc)
        return usage_error("no report given", "");

    request->reports = calloc((size_t)(argc - first_file), sizeof *request->reports);
    if (request->reports == NULL)
        return usage_error("out of memory", "");
    for (int i = first_file; i < argc; i++) {
        char error[ERROR_SIZE];
        cJSON *report = rd_load(argv[i], error, sizeof error);
        if (report == NULL) {
            fprintf(stderr, "memlab_report: %s%s\n", error, tolerate_bad_reports ? ": skipped" : "");
            if (!tolerate_bad_reports)
                return EXIT_USAGE;
            continue;
        }
        request->reports[request->report_count++] = report;
    }
    return EXIT_SUCCESS;
}

static void free_request(report_request *request)
{
    for (int i = 0; i < request->report_count; i++)
        cJSON_Delete(request->reports[i]);
    free(request->reports);
}

static const char *lab_of(const cJSON *report)
{
    return cJSON_GetObjectItemCaseSensitive(report, "lab")->valuestring;
}

/* device and caches: what `print` prints of the first report (of --lab's lab, if given) that
 * has it; exit status 1 when none has. */
static int first_report_command(int argc, char **argv, bool (*print)(const cJSON *report))
{
    report_request request;
    int status = parse_request(argc, argv, &request, false);
    if (status == EXIT_SUCCESS) {
        status = EXIT_NO_DATA;
        for (int i = 0; i < request.report_count && status != EXIT_SUCCESS; i++) {
            const cJSON *report = request.reports[i];
            if ((request.query.lab == NULL || strcmp(lab_of(report), request.query.lab) == 0) &&
                print(report))
                status = EXIT_SUCCESS;
        }
    }
    free_request(&request);
    return status;
}

static bool print_device(const cJSON *report)
{
    const char *device = rd_device_name(report);
    if (device != NULL)
        printf("%s\n", device);
    return device != NULL;
}

/* The cache sizes of the report's model GPU, as gnuplot settings. */
static bool print_caches(const cJSON *report)
{
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(report, "model_gpu");
    const cJSON *l1_kib = cJSON_GetObjectItemCaseSensitive(gpu, "l1_kib");
    const cJSON *l2_mib = cJSON_GetObjectItemCaseSensitive(gpu, "l2_mib");
    if (!cJSON_IsNumber(l1_kib) || !cJSON_IsNumber(l2_mib))
        return false;
    printf("l1_bytes=%.0f; l2_bytes=%.0f;\n", l1_kib->valuedouble * 1024.0,
           l2_mib->valuedouble * 1048576.0);
    return true;
}

/* Why counters were not read in a GPU run (a --model run reads none, by design), or NULL. */
static const char *gpu_run_note(const cJSON *report)
{
    return (rd_device_name(report) != NULL) ? rd_profiler_note(report) : NULL;
}

/* labs and notes: one text of each report (NULL: none), each text once, in the reports' order. */
static int distinct_command(int argc, char **argv, const char *(*text_of)(const cJSON *report))
{
    report_request request;
    int status = parse_request(argc, argv, &request, true);
    for (int i = 0; i < request.report_count && status == EXIT_SUCCESS; i++) {
        const char *text = text_of(request.reports[i]);
        bool seen = (text == NULL);
        for (int k = 0; k < i && !seen; k++) {
            const char *earlier = text_of(request.reports[k]);
            seen = earlier != NULL && strcmp(text, earlier) == 0;
        }
        if (!seen)
            printf("%s\n", text);
    }
    free_request(&request);
    return status;
}

static int seconds_command(int argc, char **argv)
{
    cJSON *report;
    int status = load_one_report("seconds", argc, argv, &report);
    if (status != EXIT_SUCCESS)
        return status;
    const cJSON *seconds = cJSON_GetObjectItemCaseSensitive(report, "seconds");
    const char *names[] = {"wall", "kernels", "counters", "host"};
    double value[4];
    status = cJSON_IsObject(seconds) ? EXIT_SUCCESS : EXIT_NO_DATA;
    for (int i = 0; i < 4 && status == EXIT_SUCCESS; i++) {
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(seconds, names[i]);
        /* counters is null when the run asked for none. */
        value[i] = cJSON_IsNumber(item) ? item->valuedouble : 0.0;
        if (!cJSON_IsNumber(item) && i != 2)
            status = EXIT_NO_DATA;
    }
    if (status == EXIT_SUCCESS) {
        double gpu = value[1] + value[2];
        printf("%.2f\t%.2f\t%.2f\t%.2f\t", value[0], value[1], value[2], value[3]);
        if (gpu > 0)
            printf("%.2f\n", value[3] / gpu);
        else
            printf("-\n");
    }
    cJSON_Delete(report);
    return status;
}

/* The census's verdict on one metric of a record: 0 within 5% of a point prediction (or both 0),
 * 1 inside a predicted range, 2 outside, -1 no pair (nothing predicted or measured). */
static int census_verdict(const cJSON *metric, double *predicted, double *measured)
{
    const cJSON *point = cJSON_GetObjectItemCaseSensitive(metric, "predicted");
    const cJSON *low = cJSON_GetObjectItemCaseSensitive(metric, "predicted_low");
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(metric, "range_reason");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(metric, "measured");
    if (!cJSON_IsNumber(point) || !cJSON_IsNumber(value))
        return -1;
    *predicted = point->valuedouble;
    *measured = value->valuedouble;
    if (cJSON_IsString(reason) && cJSON_IsNumber(low))
        return rd_in_range(*measured, low->valuedouble, *predicted) ? 1 : 2;
    return rd_agrees(*measured, *predicted) ? 0 : 2;
    return fabs(*measured - *predicted) <= 0.05 * fabs(*predicted) ? 0 : 2;
}

static int census_command(int argc, char **argv)
{
    bool list = argc > 0 && strcmp(argv[0], "--list") == 0;
    report_request request;
    int status = parse_request(argc - list, argv + list, &request, true);
    long count[3] = {0, 0, 0};
    for (int i = 0; i < request.report_count && status == EXIT_SUCCESS; i++) {
        const cJSON *report = request.reports[i];
        const cJSON *lab = cJSON_GetObjectItemCaseSensitive(report, "lab");
        const cJSON *record = NULL;
        cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(report, "records"))
        {
            const cJSON *variant = cJSON_GetObjectItemCaseSensitive(record, "variant");
            const cJSON *metric = NULL;
            cJSON_ArrayForEach(metric, cJSON_GetObjectItemCaseSensitive(record, "metrics"))
            {
                double predicted, measured;
                int verdict = census_verdict(metric, &predicted, &measured);
                if (verdict < 0)
                    continue;
                count[verdict]++;
                if (verdict == 2 && list) {
                    char *params = cJSON_PrintUnformatted(
                        cJSON_GetObjectItemCaseSensitive(record, "params"));
                    printf("outside: %s %s %s %s: predicted %.6g, measured %.6g\n",
                           cJSON_IsString(lab) ? lab->valuestring : "?",
                           cJSON_IsString(variant) ? variant->valuestring : "?",
                           params != NULL ? params : "",
                           cJSON_GetObjectItemCaseSensitive(metric, "alias")->valuestring,
                           predicted, measured);
                    free(params);
                }
            }
        }
    }
    long pairs = count[0] + count[1] + count[2];
    if (status == EXIT_SUCCESS && pairs == 0) {
        fprintf(stderr, "memlab_report: census: no pair of a prediction and a measurement\n");
        status = EXIT_NO_DATA;
    }
    if (status == EXIT_SUCCESS)
        printf("census: %ld pairs: %ld within 5%% (%.1f%%), %ld inside their range, %ld outside\n",
               pairs, count[0], 100.0 * count[0] / pairs, count[1], count[2]);
    free_request(&request);
    return status;
}

static int columns_command(int argc, char **argv, bool series)
{
    report_request request;
    int status = parse_request(argc, argv, &request, true);
    const rd_query *query = &request.query;
    if (status == EXIT_SUCCESS && query->column_count == 0)
        status = usage_error("--columns is required", "");
    if (status == EXIT_SUCCESS && series && (query->variant_count != 1 || query->x == NULL))
        status = usage_error("series needs one --variant and --x", "");
    if (status != EXIT_SUCCESS) {
        free_request(&request);
        return status;
    }

    FILE *stream = stdout;
    if (request.out_path != NULL && (stream = fopen(request.out_path, "w")) == NULL) {
        free_request(&request);
        return usage_error("cannot write ", request.out_path);
    }
    bool has_data[RD_MAX_COLUMNS];
    const cJSON *const *reports = (const cJSON *const *)request.reports;
    if (series) {
        /* A line needs two points: one is no plot. */
        if (rd_write_series(reports, request.report_count, query, stream, has_data) < 2)
            memset(has_data, 0, sizeof has_data);
    } else {
        rd_write_bars(reports, request.report_count, query, stream, has_data);
    }
    if (stream != stdout && fclose(stream) != 0) {
        free_request(&request);
        return usage_error("writing failed: ", request.out_path);
    }

    status = EXIT_NO_DATA;
    const char *separator = "";
    for (int c = 0; c < query->column_count; c++) {
        if (!has_data[c])
            continue;
        status = EXIT_SUCCESS;
        if (request.out_path != NULL)
            printf("%s%s", separator, query->column[c]);
        separator = " ";
    }
    if (request.out_path != NULL && status == EXIT_SUCCESS)
        putchar('\n');
    free_request(&request);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("no command given", "");
    const char *command = argv[1];
    if (strcmp(command, "csv") == 0 || strcmp(command, "markdown") == 0 ||
        strcmp(command, "title") == 0)
        return one_report_command(command, argc - 2, argv + 2);
    if (strcmp(command, "notes") == 0)
        return distinct_command(argc - 2, argv + 2, gpu_run_note);
    if (strcmp(command, "device") == 0)
        return first_report_command(argc - 2, argv + 2, print_device);
    if (strcmp(command, "caches") == 0)
        return first_report_command(argc - 2, argv + 2, print_caches);
    if (strcmp(command, "labs") == 0)
        return distinct_command(argc - 2, argv + 2, lab_of);
    if (strcmp(command, "seconds") == 0)
        return seconds_command(argc - 2, argv + 2);
    if (strcmp(command, "census") == 0)
        return census_command(argc - 2, argv + 2);
    if (strcmp(command, "series") == 0)
        return columns_command(argc - 2, argv + 2, true);
    if (strcmp(command, "bars") == 0)
        return columns_command(argc - 2, argv + 2, false);
    return usage_error("unknown command ", command);
}
