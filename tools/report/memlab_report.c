/* memlab_report: CSV, Markdown and gnuplot columns from the JSON reports of lab programs.
 * ./memlab demo and ./memlab plot call it; it needs no GPU and reads nothing but the JSON.
 *
 *   memlab_report csv REPORT.json
 *       the CSV the lab program writes with --format csv, on stdout
 *   memlab_report markdown REPORT.json
 *       the run's facts and tables in Markdown, for the demo's report.md (render.h)
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
 *   memlab_report checks REPORT.json
 *       each record's check against the CPU reference, a line each: the variant, a tab, then
 *       "ok" or how many checked values differed (a pack's ./memlab test reads it); exit status
 *       1 when no record was checked (a --model run)
 *   memlab_report census [--list] REPORT.json...
 *       how the access model did: of the pairs with a prediction and a measurement, how many
 *       lie within 5% of a point prediction, how many inside a narrow predicted range and how
 *       many inside a wide one (its ends stretched by 5%, as the lab's tables judge it), how
 *       many outside, and the share that met the model (within 5% or inside a narrow range). A
 *       range is narrow when its high end is at most 1.25 times its low end, or, for a range
 *       from zero, at most 5% of the count it is stated against (range_against); a wide range
 *       says "we do not know" and counts as a miss. --list names each pair outside or inside a
 *       wide range. Exit status 1 when no pair was measured
 *   memlab_report arguments REPORT.json
 *       each record's run as a lab's command line, a line each: the lab, --seed, --variant and
 *       each parameter as its option ("coalescing --seed 7 --variant strided --n 1000 --stride
 *       4 --offset 0 --l2_fetch 0")
 *   memlab_report repredict RECORDED.json MODEL.json...
 *       RECORDED, a run's report, with the predictions of the MODELs, --model reports of the
 *       same lab, in place of its own, on stdout: each record takes the predictions (predicted,
 *       predicted_low, range_reason, range_against) of a MODEL's record of the same variant and
 *       parameters (a parameter the lab has gained since: at its default), a metric the MODEL
 *       does not predict loses its prediction, and model_gpu is
 *       the first MODEL's; every measurement stays as it was. The census of today's model, or of other
 *       facts (--gpu, --gpu-profile), on measurements taken before (tests/model_census.sh
 *       --from). Exit status 2 when a record of RECORDED has none in MODEL
 *   memlab_report series --variant V --x PARAM --columns C,... [SELECTION] REPORT.json...
 *       a line plot's columns: PARAM, then each C, one row per value of PARAM
 *   memlab_report bars [--variants V,...] --columns C,... [SELECTION] REPORT.json...
 *       a bar chart's columns: a label ("aos fields=1"), then each C, one row per record
 *   memlab_report demo DIR --root ROOT --seconds S --version TEXT [--quick]
 *                     [--predictions asked|no-gpu] [--gnuplot yes|no]
 *       DIR/report.md, the demo's report, from DIR/data/: runs.tsv (a run a line: program, run
 *       number, exit status, gpu or model, arguments), seconds.tsv (where each GPU run's time
 *       went) and each run's PROGRAM-N.json, .csv, .txt and .log; the labs' titles and
 *       demo.md from ROOT/labs/. S is the demo's wall time, TEXT memlab's version (git
 *       describe); --quick: the runs were quick.args'; --predictions: every run was --model,
 *       asked for or for want of a GPU; --gnuplot: whether gnuplot is here to draw the plots.
 *       The census's line also goes to stderr
 *   memlab_report html DIR [--root ROOT] [--out FILE]
 *       DIR/report.html (or FILE): the page an instructor projects (report_html.h), from the
 *       reports in DIR/data (or DIR itself where it has no data folder) and, where there is one,
 *       its runs.tsv; the labs' titles, demo.md and plot files from ROOT/labs/ (ROOT: ".")
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
#define _DEFAULT_SOURCE /* gethostname, open_memstream */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "census.h"
#include "query.h"
#include "render.h"
#include "report_data.h"
#include "report_html.h"

#define EXIT_NO_DATA 1
#define EXIT_USAGE 2
#define ERROR_SIZE 512

static int usage_error(const char *message, const char *detail)
{
    fprintf(stderr, "memlab_report: %s%s (usage: memlab_report csv|markdown|title|notes|device|caches|labs|seconds|checks|census|arguments|repredict|series|bars|demo|html ...; see "
                    "the comment at the top of tools/report/memlab_report.c)\n", message, detail);
    return EXIT_USAGE;
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

/* rd_parse_query, its reason on stderr as memlab_report's one line (exit status 2). */
static int parse_query(int argc, char **argv, rd_query *query, const char **out_path)
{
    char error[ERROR_SIZE];
    int first = rd_parse_query(argc, argv, query, out_path, error, sizeof error);
    if (first < 0)
        usage_error(error, "");
    return first;
}

/* Parses the options of device, series and bars and loads the reports. Returns 0 or an exit
 * status. */
static int parse_request(int argc, char **argv, report_request *request, bool tolerate_bad_reports)
{
    memset(request, 0, sizeof *request);
    int first_file = parse_query(argc, argv, &request->query, &request->out_path);
    if (first_file < 0)
        return EXIT_USAGE;
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

static int checks_command(int argc, char **argv)
{
    cJSON *report;
    int status = load_one_report("checks", argc, argv, &report);
    if (status != EXIT_SUCCESS)
        return status;
    int checked = 0;
    const cJSON *record = NULL;
    cJSON_ArrayForEach(record, rd_records(report))
    {
        double correct = rd_value(record, "correct");
        if (isnan(correct))
            continue;
        checked++;
        if (correct != 0)
            printf("%s\tok\n", rd_variant(record));
        else
            printf("%s\t%.0f\n", rd_variant(record), rd_value(record, "mismatches"));
    }
    cJSON_Delete(report);
    return checked > 0 ? EXIT_SUCCESS : EXIT_NO_DATA;
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

/* census --list's line for a pair outside or inside a wide range. */
static void list_miss(const rd_pair *pair, void *stream)
{
    if (pair->verdict == RD_WITHIN || pair->verdict == RD_NARROW)
        return;
    const cJSON *lab = cJSON_GetObjectItemCaseSensitive(pair->report, "lab");
    const cJSON *variant = cJSON_GetObjectItemCaseSensitive(pair->record, "variant");
    char *params = cJSON_PrintUnformatted(rd_params(pair->record));
    fprintf(stream, "%s: %s %s %s %s: predicted ", pair->verdict == RD_OUTSIDE ? "outside" : "wide",
            cJSON_IsString(lab) ? lab->valuestring : "?",
            cJSON_IsString(variant) ? variant->valuestring : "?", params != NULL ? params : "",
            rd_metric_text(pair->metric, "alias"));
    if (pair->verdict == RD_WIDE)
        fprintf(stream, "%.6g..", rd_metric_number(pair->metric, "predicted_low"));
    fprintf(stream, "%.6g, measured %.6g\n", pair->predicted, pair->measured);
    free(params);
}

/* How the access model did over the reports' pairs: the census's line ("census: N pairs: ...")
 * in line, and with list each pair outside or inside a wide range on stream. Returns the number
 * of pairs. */
static long census_of(cJSON *const *reports, int report_count, FILE *list, char *line,
                      size_t size)
{
    long count[RD_VERDICTS];
    rd_census((const cJSON *const *)reports, report_count, count, list != NULL ? list_miss : NULL,
              list);
    return rd_census_line(count, line, size);
}

static int census_command(int argc, char **argv)
{
    bool list = argc > 0 && strcmp(argv[0], "--list") == 0;
    report_request request;
    int status = parse_request(argc - list, argv + list, &request, true);
    if (status == EXIT_SUCCESS) {
        char line[256];
        if (census_of(request.reports, request.report_count, list ? stdout : NULL, line,
                      sizeof line) == 0) {
            fprintf(stderr, "memlab_report: census: no pair of a prediction and a measurement\n");
            status = EXIT_NO_DATA;
        } else {
            printf("%s\n", line);
        }
    }
    free_request(&request);
    return status;
}

static int arguments_command(int argc, char **argv)
{
    cJSON *report;
    int status = load_one_report("arguments", argc, argv, &report);
    if (status != EXIT_SUCCESS)
        return status;
    const char *lab = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "lab"));
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(report, "seed");
    const cJSON *record;
    cJSON_ArrayForEach(record, rd_records(report)) {
        const char *variant =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(record, "variant"));
        /* The seed is a string: a 64-bit number does not fit a JSON number exactly. */
        if (lab == NULL || variant == NULL || !cJSON_IsString(seed)) {
            fprintf(stderr, "memlab_report: arguments: %s has no lab, seed or variant\n", argv[0]);
            status = EXIT_USAGE;
            break;
        }
        printf("%s --seed %s --variant %s", lab, seed->valuestring, variant);
        const cJSON *param;
        cJSON_ArrayForEach(param, rd_params(record)) {
            if (cJSON_IsNumber(param))
                printf(" --%s %.17g", param->string, param->valuedouble);
            else if (cJSON_IsString(param))
                printf(" --%s %s", param->string, param->valuestring);
        }
        printf("\n");
    }
    cJSON_Delete(report);
    return status;
}

/* Whether candidate has every parameter of record, with its value (a lab that has gained a
 * parameter since record was measured runs it at its default). */
static bool has_params_of(const cJSON *candidate, const cJSON *record)
{
    const cJSON *param;
    cJSON_ArrayForEach(param, rd_params(record)) {
        const cJSON *other = cJSON_GetObjectItemCaseSensitive(rd_params(candidate), param->string);
        if (!cJSON_Compare(param, other, true))
            return false;
    }
    return true;
}

/* The first record of the models with record's variant and parameters, or NULL. */
static const cJSON *same_run(cJSON *const *models, int model_count, const cJSON *record)
{
    const cJSON *wanted = cJSON_GetObjectItemCaseSensitive(record, "variant");
    for (int m = 0; m < model_count; m++) {
        const cJSON *candidate;
        cJSON_ArrayForEach(candidate, rd_records(models[m])) {
            const cJSON *variant = cJSON_GetObjectItemCaseSensitive(candidate, "variant");
            if (cJSON_Compare(variant, wanted, true) && has_params_of(candidate, record))
                return candidate;
        }
    }
    return NULL;
}

static int repredict_command(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("repredict takes a run's report and --model reports", "");
    char error[ERROR_SIZE];
    cJSON *recorded = rd_load(argv[0], error, sizeof error);
    int model_count = argc - 1;
    cJSON **models = calloc((size_t)model_count, sizeof *models);
    bool loaded = recorded != NULL && models != NULL;
    for (int m = 0; loaded && m < model_count; m++)
        loaded = (models[m] = rd_load(argv[1 + m], error, sizeof error)) != NULL;
    if (!loaded) {
        fprintf(stderr, "memlab_report: %s\n", models == NULL ? "out of memory" : error);
        cJSON_Delete(recorded);
        for (int m = 0; models != NULL && m < model_count; m++)
            cJSON_Delete(models[m]);
        free(models);
        return EXIT_USAGE;
    }
    static const char *const prediction_fields[] = {"predicted", "predicted_low", "range_reason",
                                                    "range_against"};
    int status = EXIT_SUCCESS;
    cJSON *record;
    cJSON_ArrayForEach(record, cJSON_GetObjectItemCaseSensitive(recorded, "records")) {
        const cJSON *predicted = same_run(models, model_count, record);
        if (predicted == NULL) {
            char *params = cJSON_PrintUnformatted(rd_params(record));
            const char *variant =
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(record, "variant"));
            fprintf(stderr, "memlab_report: repredict: no --model report has a record of %s %s\n",
                    variant != NULL ? variant : "?", params != NULL ? params : "");
            free(params);
            status = EXIT_USAGE;
            break;
        }
        cJSON *metric;
        cJSON_ArrayForEach(metric, cJSON_GetObjectItemCaseSensitive(record, "metrics")) {
            const cJSON *source = cJSON_GetObjectItemCaseSensitive(rd_metrics(predicted),
                                                                   metric->string);
            for (size_t f = 0; f < sizeof prediction_fields / sizeof prediction_fields[0]; f++) {
                const cJSON *value = cJSON_GetObjectItemCaseSensitive(source, prediction_fields[f]);
                cJSON *copy = value != NULL ? cJSON_Duplicate(value, true) : cJSON_CreateNull();
                bool placed = copy != NULL &&
                              (cJSON_HasObjectItem(metric, prediction_fields[f])
                                   ? cJSON_ReplaceItemInObjectCaseSensitive(
                                         metric, prediction_fields[f], copy)
                                   : cJSON_AddItemToObject(metric, prediction_fields[f], copy));
                if (!placed)
                    cJSON_Delete(copy);
            }
        }
    }
    const cJSON *facts = cJSON_GetObjectItemCaseSensitive(models[0], "model_gpu");
    if (status == EXIT_SUCCESS && facts != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(recorded, "model_gpu", cJSON_Duplicate(facts, true));
    if (status == EXIT_SUCCESS) {
        char *text = cJSON_Print(recorded);
        if (text == NULL || printf("%s\n", text) < 0)
            status = EXIT_USAGE;
        free(text);
    }
    cJSON_Delete(recorded);
    for (int m = 0; m < model_count; m++)
        cJSON_Delete(models[m]);
    free(models);
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

/* ---- demo: the demo's report.md ------------------------------------------------------------- */

/* The driver's markers (./memlab reads them: a folder it may write to holds this report; the
 * plots go between the two others). */
#define DEMO_MARKER "<!-- memlab demo report -->"
#define PLOTS_BEGIN "<!-- memlab plots"
#define PLOTS_END "<!-- end of memlab plots -->"
#define GNUPLOT_MISSING \
    "gnuplot not found: install the Debian package gnuplot-nox to draw the plots"
/* A run's tables longer than this many lines are folded away. */
#define FOLDED_LINES 40
#define MAX_LABS 32
#define MAX_RUNS 1024
#define PATH_SIZE 4096

typedef struct {
    const char *out, *root, *seconds, *version, *predictions;
    bool quick, gnuplot;
} demo_options;

typedef struct {
    char program[64], arguments[1024], mode[16];
    int run, status;
} demo_run;

typedef struct {
    demo_run runs[MAX_RUNS];
    int run_count, failed;
    char programs[MAX_LABS][64], directories[MAX_LABS][128]; /* labs/NN_PROGRAM, in order */
    int lab_count;
    cJSON *reports[MAX_RUNS];   /* the reports of DIR/data that read, in name order */
    char report_ids[MAX_RUNS][128]; /* their files' names without .json */
    int report_count;
} demo_data;

/* Folder entries in name order, byte by byte (the same in every locale). */
static int by_entry_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* The lab programs, from ROOT/labs/NN_PROGRAM/PROGRAM.cu, in the folders' order. */
static int read_labs(const char *root, demo_data *data)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/labs", root);
    struct dirent **names;
    int count = scandir(path, &names, NULL, by_entry_name);
    if (count < 0)
        return usage_error("cannot read the labs' folder ", path);
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        bool numbered = strlen(name) > 3 && name[0] >= '0' && name[0] <= '9' && name[1] >= '0' &&
                        name[1] <= '9' && name[2] == '_';
        char program_source[2 * PATH_SIZE];
        int length = snprintf(program_source, sizeof program_source, "%s/%s/%s.cu", path, name,
                              numbered ? name + 3 : "");
        if (numbered && length < (int)sizeof program_source && access(program_source, F_OK) == 0 &&
            strlen(name) < sizeof data->programs[0] && data->lab_count < MAX_LABS) {
            snprintf(data->programs[data->lab_count], sizeof data->programs[0], "%s", name + 3);
            snprintf(data->directories[data->lab_count], sizeof data->directories[0], "%s", name);
            data->lab_count++;
        }
        free(names[i]);
    }
    free(names);
    return EXIT_SUCCESS;
}

/* Splits a line at its first max - 1 tabs, in place: fields[i] is the i-th field, the last
 * holding the rest of the line, "" past the line's end. Returns how many the line has. */
static int split_tabs(char *line, char **fields, int max)
{
    line[strcspn(line, "\n")] = '\0';
    int count = 0;
    for (char *cursor = line; cursor != NULL && count < max; count++) {
        fields[count] = cursor;
        char *tab = count + 1 < max ? strchr(cursor, '\t') : NULL;
        if (tab != NULL)
            *tab = '\0';
        cursor = tab != NULL ? tab + 1 : NULL;
    }
    for (int f = count; f < max; f++)
        fields[f] = "";
    return count;
}

/* DIR/data/runs.tsv: program, run, exit status, mode, arguments (the rest of the line). */
static int read_runs(const char *out, demo_data *data)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/data/runs.tsv", out);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return usage_error("demo: cannot read ", path);
    char line[2048];
    while (fgets(line, sizeof line, file) != NULL && data->run_count < MAX_RUNS) {
        demo_run *run = &data->runs[data->run_count];
        char *fields[5];
        if (split_tabs(line, fields, 5) < 4 || strlen(fields[0]) >= sizeof run->program ||
            strlen(fields[3]) >= sizeof run->mode)
            continue;
        strcpy(run->program, fields[0]);
        run->run = atoi(fields[1]);
        run->status = atoi(fields[2]);
        strcpy(run->mode, fields[3]);
        snprintf(run->arguments, sizeof run->arguments, "%s", fields[4] != NULL ? fields[4] : "");
        data->failed += run->status != 0;
        data->run_count++;
    }
    fclose(file);
    return EXIT_SUCCESS;
}

/* Every .json file of the folder that reads, in name order; the others are skipped (each run's
 * log says why its report does not read). */
static void read_reports(const char *folder, demo_data *data)
{
    struct dirent **names;
    int count = scandir(folder, &names, NULL, by_entry_name);
    if (count < 0)
        return;
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        size_t length = strlen(name);
        if (length > 5 && strcmp(name + length - 5, ".json") == 0 &&
            length - 5 < sizeof data->report_ids[0] && data->report_count < MAX_RUNS) {
            char file[2 * PATH_SIZE], error[ERROR_SIZE];
            snprintf(file, sizeof file, "%s/%s", folder, name);
            cJSON *report = rd_load(file, error, sizeof error);
            if (report != NULL) {
                snprintf(data->report_ids[data->report_count], sizeof data->report_ids[0],
                         "%.*s", (int)(length - 5), name);
                data->reports[data->report_count++] = report;
            }
        }
        free(names[i]);
    }
    free(names);
}

/* The lab's title from its first report that reads, or the program's name. */
static const char *lab_title(const demo_data *data, const char *program)
{
    for (int i = 0; i < data->report_count; i++)
        if (strcmp(lab_of(data->reports[i]), program) == 0)
            return rd_title(data->reports[i]);
    return program;
}

/* A text file to stream, whole or its last `lines` lines (0: whole), as tail -n counts them (a
 * last line without its newline counts too); nothing when it cannot be read. */
static void copy_text(const char *path, FILE *stream, int lines)
{
    char *text = rd_read_text(path);
    if (text == NULL)
        return;
    fputs(rd_text_tail(text, lines), stream);
    free(text);
}

static bool is_file_with_data(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return false;
    bool has_data = fgetc(file) != EOF;
    fclose(file);
    return has_data;
}

/* The run's files in DIR/data, as links: "Files: [json](data/coalescing-1.json) ...". */
static void write_run_files(FILE *stream, const char *out, const char *base)
{
    const char *kinds[] = {"json", "csv", "txt", "log"};
    fprintf(stream, "Files:");
    int shown = 0;
    for (int k = 0; k < 4; k++) {
        char path[PATH_SIZE];
        snprintf(path, sizeof path, "%s/data/%s.%s", out, base, kinds[k]);
        if (is_file_with_data(path)) {
            fprintf(stream, " [%s](data/%s.%s)", kinds[k], base, kinds[k]);
            shown++;
        }
    }
    fprintf(stream, "%s\n", shown == 0 ? " none" : "");
}

/* A run's facts and tables in Markdown, from its JSON report; a long one (a sweep) folded. */
static void write_run_tables(FILE *stream, const char *path)
{
    char error[ERROR_SIZE];
    cJSON *report = rd_load(path, error, sizeof error);
    if (report == NULL)
        return;
    char *tables = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&tables, &size);
    if (memory == NULL) {
        cJSON_Delete(report);
        return;
    }
    rd_write_markdown(report, memory);
    fclose(memory);
    cJSON_Delete(report);
    while (size > 0 && tables[size - 1] == '\n')
        tables[--size] = '\0';
    int lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += tables[i] == '\n';
    fprintf(stream, "\n");
    if (lines > FOLDED_LINES)
        fprintf(stream, "<details><summary>The tables (%d lines)</summary>\n\n", lines);
    fprintf(stream, "%s\n", tables);
    if (lines > FOLDED_LINES)
        fprintf(stream, "\n</details>\n");
    free(tables);
}

/* Where the time went, per GPU run, from DIR/data/seconds.tsv (program, run, the process's wall
 * time, then memlab_report seconds' five columns); nothing when there is none. */
static void write_seconds_table(FILE *stream, const demo_options *options, const demo_data *data)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/data/seconds.tsv", options->out);
    if (!is_file_with_data(path))
        return;
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return;
    fprintf(stream,
            "Where the time went, per run: the program's wall time (the process's in brackets), "
            "the\nGPU's part (the variants' kernels, and reading the counters, which replays "
            "them), and the\nhost's (inputs, CPU references, comparisons, allocations, CUDA and "
            "profiler start-up).\n"
            "\n"
            "| run | wall s | kernels s | counters s | host s | host / GPU |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: |\n");
    char line[1024];
    while (fgets(line, sizeof line, file) != NULL) {
        char *field[8];
        split_tabs(line, field, 8);
        const char *arguments = "";
        for (int r = 0; r < data->run_count; r++)
            if (strcmp(data->runs[r].program, field[0]) == 0 && data->runs[r].run == atoi(field[1]))
                arguments = data->runs[r].arguments;
        fprintf(stream, "| `%s%s%s` | %s (%s) | %s | %s | %s | %s |\n", field[0],
                arguments[0] != '\0' ? " " : "", arguments, field[3], field[2], field[4], field[5],
                field[6], field[7]);
    }
    fclose(file);
    fprintf(stream, "\n");
}

/* The report's head: what was measured (or predicted) and where, the census, the runs. */
static void write_demo_head(FILE *stream, const demo_options *options, const demo_data *data,
                            const char *census)
{
    fprintf(stream, DEMO_MARKER "\n# memlab demo report\n\n");
    if (options->predictions != NULL) {
        if (strcmp(options->predictions, "asked") == 0)
            fprintf(stream, "**Predictions only.** The demo was asked for predictions "
                            "(`./memlab demo --model`), so\n");
        else
            fprintf(stream, "**Predictions only.** No usable CUDA GPU was found on this machine, "
                            "so\n");
        fprintf(stream,
                "every lab ran with `--model`: the numbers below are the access model's "
                "predictions.\nTimings, GB/s and measured counters are shown as `-`; run "
                "`./memlab demo` on a GPU host\nto measure them.\n");
    } else {
        const char *gpu = NULL;
        for (int i = 0; i < data->report_count && gpu == NULL; i++)
            gpu = rd_device_name(data->reports[i]);
        fprintf(stream, "Measured on: **%s**. Each table puts the hardware counters (CUPTI) "
                        "beside\nthe access model's predictions.\n",
                gpu != NULL ? gpu : "unknown GPU");
        if (census[0] != '\0')
            fprintf(stream, "\nThe access model, over every measured counter (`memlab_report "
                            "census --list data/*.json`\nnames the pairs outside and in wide ranges): %s.\n",
                    census + strlen("census: "));
    }
    bool noted = false;
    for (int i = 0; i < data->report_count; i++) {
        const char *note = gpu_run_note(data->reports[i]);
        bool seen = note == NULL;
        for (int k = 0; k < i && !seen; k++) {
            const char *earlier = gpu_run_note(data->reports[k]);
            seen = earlier != NULL && strcmp(note, earlier) == 0;
        }
        if (seen)
            continue;
        if (!noted)
            fprintf(stream, "\nCounters were not read in some runs:\n\n");
        noted = true;
        fprintf(stream, "- %s\n", note);
    }
    fprintf(stream, "\n");
    if (options->quick)
        fprintf(stream, "\n**The quick version** (`./memlab demo --quick`, each lab's "
                        "`quick.args`): every lab's\nstory at smaller sizes and fewer sweep "
                        "points, for a lecture. `./memlab demo` runs the\nfull one "
                        "(`demo.args`).\n");
    char date[64], host[256] = "";
    time_t now = time(NULL);
    struct tm utc;
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &utc));
    gethostname(host, sizeof host - 1);
    fprintf(stream, "\n- Date: %s, host: %s\n- memlab: %s\n- Runs: %d, failed: %d, in %s s. Each "
                    "run's JSON, CSV, table and stderr are in `data/`.\n\n",
            date, host, options->version, data->run_count, data->failed, options->seconds);
    write_seconds_table(stream, options, data);
    for (int l = 0; l < data->lab_count; l++)
        fprintf(stream, "- [%s](#%s)\n", lab_title(data, data->programs[l]), data->programs[l]);
}

/* A lab's section: its title, its demo.md, each run's files and tables, the plots' place. */
static void write_demo_lab(FILE *stream, const demo_options *options, const demo_data *data,
                           int lab)
{
    const char *program = data->programs[lab];
    fprintf(stream, "\n<a id=\"%s\"></a>\n\n## %s\n\n", program, lab_title(data, program));
    char path[PATH_SIZE];
    /* A student pack has no demo.md: the lecture's text explains what the lab measures. */
    snprintf(path, sizeof path, "%s/labs/%s/demo.md", options->root, data->directories[lab]);
    copy_text(path, stream, 0);
    for (int r = 0; r < data->run_count; r++) {
        const demo_run *run = &data->runs[r];
        if (strcmp(run->program, program) != 0)
            continue;
        const char *space = run->arguments[0] != '\0' ? " " : "";
        if (strcmp(run->mode, "model") == 0)
            fprintf(stream, "\n### `%s%s%s --model` (predictions)\n\n", program, space,
                    run->arguments);
        else
            fprintf(stream, "\n### `%s%s%s`\n\n", program, space, run->arguments);
        char base[256];
        snprintf(base, sizeof base, "%s-%d", program, run->run);
        write_run_files(stream, options->out, base);
        if (run->status != 0) {
            fprintf(stream, "\n**This run failed (exit status %d).** The end of its stderr:\n\n"
                            "```text\n", run->status);
            snprintf(path, sizeof path, "%s/data/%s.log", options->out, base);
            copy_text(path, stream, 20);
            fprintf(stream, "```\n");
        }
        snprintf(path, sizeof path, "%s/data/%s.json", options->out, base);
        if (is_file_with_data(path))
            write_run_tables(stream, path);
    }
    fprintf(stream, "\n" PLOTS_BEGIN " %s -->\n", program);
    if (options->gnuplot)
        fprintf(stream, "Plots: `./memlab plot %s` draws them.\n", options->out);
    else
        fprintf(stream, "Plots: none here (" GNUPLOT_MISSING ", then run `./memlab plot %s`).\n",
                options->out);
    fprintf(stream, PLOTS_END "\n");
}

static int demo_command(int argc, char **argv)
{
    demo_options options = {.gnuplot = true};
    if (argc < 1 || argv[0][0] == '-')
        return usage_error("demo needs the demo's folder", "");
    options.out = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        if (strcmp(option, "--quick") == 0) {
            options.quick = true;
            continue;
        }
        if (i + 1 == argc)
            return usage_error(option, " needs a value (or is unknown)");
        const char *value = argv[++i];
        if (strcmp(option, "--root") == 0)
            options.root = value;
        else if (strcmp(option, "--seconds") == 0)
            options.seconds = value;
        else if (strcmp(option, "--version") == 0)
            options.version = value;
        else if (strcmp(option, "--predictions") == 0 &&
                 (strcmp(value, "asked") == 0 || strcmp(value, "no-gpu") == 0))
            options.predictions = value;
        else if (strcmp(option, "--gnuplot") == 0 &&
                 (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0))
            options.gnuplot = strcmp(value, "yes") == 0;
        else
            return usage_error("demo: unknown option or value ", option);
    }
    if (options.root == NULL || options.seconds == NULL || options.version == NULL)
        return usage_error("demo needs --root, --seconds and --version", "");

    static demo_data data;
    int status = read_labs(options.root, &data);
    if (status == EXIT_SUCCESS)
        status = read_runs(options.out, &data);
    if (status != EXIT_SUCCESS)
        return status;
    char folder[PATH_SIZE];
    snprintf(folder, sizeof folder, "%s/data", options.out);
    read_reports(folder, &data);
    char census[256] = "";
    if (census_of(data.reports, data.report_count, NULL, census, sizeof census) > 0)
        fprintf(stderr, "memlab: %s\n", census);
    else
        census[0] = '\0';

    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/report.md", options.out);
    FILE *stream = fopen(path, "w");
    if (stream == NULL)
        return usage_error("demo: cannot write ", path);
    write_demo_head(stream, &options, &data, census);
    for (int l = 0; l < data.lab_count; l++)
        write_demo_lab(stream, &options, &data, l);
    for (int i = 0; i < data.report_count; i++)
        cJSON_Delete(data.reports[i]);
    if (fclose(stream) != 0)
        return usage_error("demo: writing failed: ", path);
    return EXIT_SUCCESS;
}

/* ---- html: report.html ------------------------------------------------------------------------ */

/* memlab_report html DIR [--root ROOT] [--out FILE]: the page of DIR/data's reports (or DIR's,
 * where it has no data folder), with the runs' arguments from runs.tsv where there is one. */
static int html_command(int argc, char **argv)
{
    if (argc < 1 || argv[0][0] == '-')
        return usage_error("html needs a folder of reports", "");
    const char *out = argv[0], *root = ".", *out_path = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 == argc)
            return usage_error(argv[i], " needs a value (or is unknown)");
        if (strcmp(argv[i], "--root") == 0)
            root = argv[i + 1];
        else if (strcmp(argv[i], "--out") == 0)
            out_path = argv[i + 1];
        else
            return usage_error("html: unknown option ", argv[i]);
    }
    static demo_data data;
    int status = read_labs(root, &data);
    if (status != EXIT_SUCCESS)
        return status;
    char folder[PATH_SIZE], path[PATH_SIZE + 16];
    snprintf(folder, sizeof folder, "%s/data", out);
    DIR *data_folder = opendir(folder);
    if (data_folder != NULL)
        closedir(data_folder);
    else
        snprintf(folder, sizeof folder, "%s", out);
    snprintf(path, sizeof path, "%s/runs.tsv", folder);
    if (data_folder != NULL && access(path, F_OK) == 0 &&
        (status = read_runs(out, &data)) != EXIT_SUCCESS)
        return status;
    read_reports(folder, &data);
    static html_failure failures[MAX_RUNS];
    static char log_paths[MAX_RUNS][PATH_SIZE + 128];
    int failure_count = 0;
    for (int k = 0; k < data.run_count; k++) {
        const demo_run *run = &data.runs[k];
        if (run->status == 0)
            continue;
        snprintf(log_paths[failure_count], sizeof log_paths[0], "%s/%s-%d.log", folder,
                 run->program, run->run);
        failures[failure_count] = (html_failure){.program = run->program,
                                                 .arguments = run->arguments,
                                                 .status = run->status,
                                                 .log_path = log_paths[failure_count]};
        failure_count++;
    }
    if (data.report_count == 0 && failure_count == 0)
        return usage_error("html: no report in ", folder);

    static html_lab labs[MAX_LABS];
    static html_run runs[MAX_RUNS];
    static char directories[MAX_LABS][PATH_SIZE];
    for (int l = 0; l < data.lab_count; l++) {
        snprintf(directories[l], PATH_SIZE, "%s/labs/%s", root, data.directories[l]);
        labs[l] = (html_lab){.program = data.programs[l], .directory = directories[l]};
    }
    for (int r = 0; r < data.report_count; r++) {
        runs[r] = (html_run){.report = data.reports[r], .id = data.report_ids[r]};
        /* runs.tsv names a run PROGRAM and N; its report is PROGRAM-N.json. */
        for (int k = 0; k < data.run_count; k++) {
            char id[128];
            snprintf(id, sizeof id, "%s-%d", data.runs[k].program, data.runs[k].run);
            if (strcmp(id, data.report_ids[r]) == 0)
                runs[r].arguments = data.runs[k].arguments;
        }
    }
    if (out_path == NULL) {
        snprintf(path, sizeof path, "%s/report.html", out);
        out_path = path;
    }
    FILE *stream = fopen(out_path, "w");
    if (stream == NULL)
        return usage_error("html: cannot write ", out_path);
    write_report_html(labs, data.lab_count, runs, data.report_count, failures, failure_count,
                      stream);
    for (int i = 0; i < data.report_count; i++)
        cJSON_Delete(data.reports[i]);
    if (fclose(stream) != 0)
        return usage_error("html: writing failed: ", out_path);
    return EXIT_SUCCESS;
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
    if (strcmp(command, "checks") == 0)
        return checks_command(argc - 2, argv + 2);
    if (strcmp(command, "census") == 0)
        return census_command(argc - 2, argv + 2);
    if (strcmp(command, "arguments") == 0)
        return arguments_command(argc - 2, argv + 2);
    if (strcmp(command, "repredict") == 0)
        return repredict_command(argc - 2, argv + 2);
    if (strcmp(command, "series") == 0)
        return columns_command(argc - 2, argv + 2, true);
    if (strcmp(command, "bars") == 0)
        return columns_command(argc - 2, argv + 2, false);
    if (strcmp(command, "demo") == 0)
        return demo_command(argc - 2, argv + 2);
    if (strcmp(command, "html") == 0)
        return html_command(argc - 2, argv + 2);
    return usage_error("unknown command ", command);
}
