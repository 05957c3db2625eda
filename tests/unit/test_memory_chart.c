/* test_memory_chart: the table that puts each metric alias on an arrow of the memory chart, and
 * the HTML writer's escaping of text that comes from a report.
 */
#define _DEFAULT_SOURCE /* open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_text.h"
#include "memory_chart.h"
#include "profiler.h"
#include "report_data.h"

/* What a writer wrote, as a string (free it). */
typedef struct {
    char *text;
    size_t size;
    FILE *stream;
} captured;

static void capture(captured *out)
{
    out->text = NULL;
    out->size = 0;
    out->stream = open_memstream(&out->text, &out->size);
    assert_non_null(out->stream);
}

static char *captured_text(captured *out)
{
    fclose(out->stream);
    return out->text;
}

/* Every alias a lab may predict is in the profiler's table (a prediction naming another is an
 * error): each lands on exactly one arrow. */
static void every_profiler_alias_has_an_arrow(void **state)
{
    (void)state;
    assert_true(prof_metric_count() > 0);
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const char *alias = prof_metric_at(i)->alias;
        int entries = 0;
        rd_arrow arrow;
        for (int k = 0; rd_arrow_table_alias(k, &arrow) != NULL; k++)
            entries += strcmp(rd_arrow_table_alias(k, &arrow), alias) == 0;
        if (entries != 1)
            fail_msg("%s is on %d arrows of memory_chart.c's table, not 1", alias, entries);
        assert_true(rd_arrow_of(alias) > RD_ARROW_NONE && rd_arrow_of(alias) < RD_ARROW_COUNT);
    }
}

/* The table names no alias the profiler lacks (a misspelt one would never match). */
static void every_table_alias_is_a_profiler_alias(void **state)
{
    (void)state;
    rd_arrow arrow;
    for (int k = 0; rd_arrow_table_alias(k, &arrow) != NULL; k++) {
        const char *alias = rd_arrow_table_alias(k, &arrow);
        const prof_metric *metric = prof_metric_find(alias);
        if (metric == NULL || strcmp(metric->alias, alias) != 0)
            fail_msg("memory_chart.c's table has %s, which profiling/metrics.c lacks", alias);
    }
}

/* The lessons' arrows: coalescing on the way to L1, conflicts in shared memory, spills in local
 * memory, the host link's migrations; an unknown alias on none. */
static void aliases_land_where_the_lessons_say(void **state)
{
    (void)state;
    assert_int_equal(rd_arrow_of("gld_efficiency"), RD_ARROW_GLOBAL);
    assert_int_equal(rd_arrow_of("global_hit_rate"), RD_ARROW_GLOBAL);
    assert_int_equal(rd_arrow_of("shared_ld_bank_conflict"), RD_ARROW_SHARED);
    assert_int_equal(rd_arrow_of("local_load_transactions"), RD_ARROW_REGISTERS);
    assert_int_equal(rd_arrow_of("constant_hit_rate"), RD_ARROW_CONSTANT);
    assert_int_equal(rd_arrow_of("l2_hit_rate"), RD_ARROW_L2);
    assert_int_equal(rd_arrow_of("dram_read_bytes"), RD_ARROW_DRAM);
    assert_int_equal(rd_arrow_of("um_htod_bytes"), RD_ARROW_HOST);
    assert_int_equal(rd_arrow_of("no_such_alias"), RD_ARROW_NONE);
    assert_int_equal(rd_arrow_of(NULL), RD_ARROW_NONE);
    assert_int_equal(rd_arrow_from(RD_ARROW_DRAM), RD_LEVEL_L2);
    assert_int_equal(rd_arrow_to(RD_ARROW_DRAM), RD_LEVEL_DRAM);
}

static void escape_writes_entities(void **state)
{
    (void)state;
    captured out;
    capture(&out);
    rd_html_escape("a<b&c\"d>e'f", out.stream);
    char *text = captured_text(&out);
    assert_string_equal(text, "a&lt;b&amp;c&quot;d&gt;e&#39;f");
    free(text);
}

/* A report whose variant, parameter, alias and unit carry <&">, as a submission or a lab author
 * could name them: the page holds them escaped, never as markup. */
static const char fixture[] =
    "{\"lab\": \"coalescing\", \"title\": \"Lab 04: <script>&\\\"\", \"records\": [{"
    "\"variant\": \"evil<&\\\">\", \"params\": {\"n<&\\\">\": 4},"
    "\"metrics\": {\"dram__bytes_read.sum\": {\"alias\": \"dram_read_bytes\", \"unit\": \"b<&\\\">\","
    "\"predicted\": 100, \"predicted_low\": 100, \"range_reason\": null, \"range_against\": null,"
    "\"measured\": 101},"
    "\"x.sum\": {\"alias\": \"odd<&\\\">\", \"unit\": \"u\", \"predicted\": 5, \"predicted_low\": 5,"
    "\"range_reason\": null, \"range_against\": null, \"measured\": 50}}}]}";

static void chart_escapes_report_text(void **state)
{
    (void)state;
    char error[256];
    cJSON *report = rd_parse(fixture, "fixture", error, sizeof error);
    if (report == NULL)
        fail_msg("%s", error);
    captured out;
    capture(&out);
    rd_write_html(report, NULL, out.stream);
    char *page = captured_text(&out);
    assert_non_null(strstr(page, "evil&lt;&amp;&quot;&gt;"));
    assert_non_null(strstr(page, "n&lt;&amp;&quot;&gt;=4"));
    assert_non_null(strstr(page, "b&lt;&amp;&quot;&gt;"));
    /* The alias the table lacks is listed under the chart, escaped, in text and attribute. */
    assert_non_null(strstr(page, "data-alias=\"odd&lt;&amp;&quot;&gt;\""));
    assert_non_null(strstr(page, "Lab 04: &lt;script&gt;&amp;&quot;"));
    assert_null(strstr(page, "<&\""));
    assert_null(strstr(page, "<script"));
    /* Within 5% and outside, in words beside their colours. */
    assert_non_null(strstr(page, ">within 5%<"));
    assert_non_null(strstr(page, ">outside<"));
    free(page);
    cJSON_Delete(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_profiler_alias_has_an_arrow),
        cmocka_unit_test(every_table_alias_is_a_profiler_alias),
        cmocka_unit_test(aliases_land_where_the_lessons_say),
        cmocka_unit_test(escape_writes_entities),
        cmocka_unit_test(chart_escapes_report_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
