/* check_report_dom: the browser test's judge (test_report_html.sh). It reads the DOM that
 * headless Chromium serialized after loading report.html (--dump-dom) and the JSON reports the
 * page was made from, and checks:
 *   - the page's height, which the test's script wrote into <pre id="memlab-test">, is finite;
 *   - the page made no request (the script lists the Resource Timing entries there too);
 *   - there is one chart (<figure class="chart" id="REPORT-INDEX">) for every record with
 *     counters, and no other;
 *   - every number on a chart equals the JSON's value as the page prints it (rt_metric_text):
 *     measured and predicted for every metric, the low end of a ranged prediction, and nothing
 *     else.
 * Prints one line per failure and "N charts, M numbers checked"; exits 1 on a failure, 2 on
 * bad usage.
 *
 *   check_report_dom DOM.html REPORT.json...
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory_chart.h"
#include "report_data.h"
#include "tables.h"

#define MAX_NUMBERS 256

static int failures;

static void fail(const char *what, const char *where)
{
    printf("FAIL: %s: %s\n", where, what);
    failures++;
}

typedef struct {
    char alias[128], kind[32], text[64];
    bool matched;
} number;

/* The <tspan class="number"> elements between start and end. */
static int read_numbers(const char *start, const char *end, number *numbers)
{
    int count = 0;
    const char *tag = "<tspan class=\"number\" data-alias=\"";
    for (const char *at = strstr(start, tag); at != NULL && at < end && count < MAX_NUMBERS;
         at = strstr(at + 1, tag)) {
        number *n = &numbers[count];
        if (sscanf(at + strlen(tag), "%127[^\"]\" data-kind=\"%31[^\"]\">%63[^<]", n->alias,
                   n->kind, n->text) != 3)
            continue;
        n->matched = false;
        count++;
    }
    return count;
}

/* Marks the number (alias, kind) with the value's text as found. */
static void expect_number(number *numbers, int count, const char *alias, const char *kind,
                          double value, const char *where)
{
    char text[64];
    rt_metric_text(text, sizeof text, value);
    for (int i = 0; i < count; i++) {
        if (!numbers[i].matched && strcmp(numbers[i].alias, alias) == 0 &&
            strcmp(numbers[i].kind, kind) == 0) {
            numbers[i].matched = true;
            if (strcmp(numbers[i].text, text) != 0) {
                char what[320];
                snprintf(what, sizeof what, "%.127s %s shows %s, the JSON has %s", alias, kind,
                         numbers[i].text, text);
                fail(what, where);
            }
            return;
        }
    }
    char what[320];
    snprintf(what, sizeof what, "%.127s %s (%s) is not on the chart", alias, kind, text);
    fail(what, where);
}

/* One record's chart against its JSON. Returns the numbers checked. */
static int check_chart(const char *dom, const cJSON *record, const char *id)
{
    char tag[320];
    snprintf(tag, sizeof tag, "<figure class=\"chart\" id=\"%s\"", id);
    const char *start = strstr(dom, tag);
    if (start == NULL) {
        fail("no chart", id);
        return 0;
    }
    const char *end = strstr(start, "</figure>");
    if (end == NULL)
        end = start + strlen(start);
    static number numbers[MAX_NUMBERS];
    int count = read_numbers(start, end, numbers);
    const cJSON *metric = NULL;
    cJSON_ArrayForEach(metric, rd_metrics(record))
    {
        const char *alias = rd_metric_text(metric, "alias");
        double measured = rd_metric_number(metric, "measured");
        double predicted = rd_metric_number(metric, "predicted");
        if (isnan(measured) && isnan(predicted))
            continue;
        expect_number(numbers, count, alias, "measured", measured, id);
        expect_number(numbers, count, alias, "predicted", predicted, id);
        if (rd_metric_text(metric, "range_reason") != NULL &&
            !isnan(rd_metric_number(metric, "predicted_low")))
            expect_number(numbers, count, alias, "predicted_low",
                          rd_metric_number(metric, "predicted_low"), id);
    }
    for (int i = 0; i < count; i++) {
        if (!numbers[i].matched) {
            char what[320];
            snprintf(what, sizeof what, "%.127s %.31s %.63s is on the chart but not in the JSON",
                     numbers[i].alias, numbers[i].kind, numbers[i].text);
            fail(what, id);
        }
    }
    return count;
}

/* The test script's lines: "height H", then "request URL" for each request the page made. */
static void check_page(const char *dom)
{
    const char *test = strstr(dom, "<pre id=\"memlab-test\">");
    if (test == NULL) {
        fail("no <pre id=\"memlab-test\">: the test's script did not run", "page");
        return;
    }
    double height = strtod(test + strlen("<pre id=\"memlab-test\">height "), NULL);
    if (!isfinite(height) || height < 720 || height > 1e7) {
        char what[128];
        snprintf(what, sizeof what, "height %g px is not a page's", height);
        fail(what, "page");
    }
    const char *end = strstr(test, "</pre>");
    for (const char *request = strstr(test, "request "); request != NULL && request < end;
         request = strstr(request + 1, "request ")) {
        char what[512];
        snprintf(what, sizeof what, "made a request: %.*s", (int)strcspn(request + 8, "\n<"),
                 request + 8);
        fail(what, "page");
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: check_report_dom DOM.html REPORT.json...\n");
        return 2;
    }
    char *dom = rd_read_text(argv[1]);
    if (dom == NULL) {
        fprintf(stderr, "check_report_dom: cannot read %s\n", argv[1]);
        return 2;
    }
    check_page(dom);
    int charts = 0, numbers = 0;
    for (int i = 2; i < argc; i++) {
        char error[512];
        cJSON *report = rd_load(argv[i], error, sizeof error);
        if (report == NULL) {
            fprintf(stderr, "check_report_dom: %s\n", error);
            return 2;
        }
        /* The page's ids: the report's file name without .json, then the record's index. */
        const char *name = strrchr(argv[i], '/') != NULL ? strrchr(argv[i], '/') + 1 : argv[i];
        int index = 0;
        const cJSON *record = NULL;
        cJSON_ArrayForEach(record, rd_records(report))
        {
            if (rd_record_has_chart(record)) {
                char id[256];
                snprintf(id, sizeof id, "%.*s-%d", (int)(strlen(name) - 5), name, index);
                numbers += check_chart(dom, record, id);
                charts++;
            }
            index++;
        }
        cJSON_Delete(report);
    }
    int on_page = 0;
    for (const char *at = strstr(dom, "<figure class=\"chart\""); at != NULL;
         at = strstr(at + 1, "<figure class=\"chart\""))
        on_page++;
    if (on_page != charts) {
        char what[128];
        snprintf(what, sizeof what, "%d charts on the page, %d records with counters", on_page,
                 charts);
        fail(what, "page");
    }
    if (charts == 0)
        fail("no record with counters: nothing was checked", "page");
    printf("%d charts, %d numbers checked, %d failures\n", charts, numbers, failures);
    free(dom);
    return failures > 0 ? 1 : 0;
}
