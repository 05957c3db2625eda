/* test_tables.c: one table printed in the three styles (reporting/tables.h): the same cells as
 * aligned text, as Markdown and as CSV. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

/* Two rows: a name with a '|' and a quote, a missing value, a metric value of each kind. */
static void make_table(rt_table *table)
{
    rt_init(table);
    rt_column(table, "variant", RT_LEFT);
    rt_column(table, "GB/s", RT_RIGHT);
    rt_column(table, "predicted", RT_RIGHT);
    rt_column(table, "device", RT_LEFT);
    rt_text(table, "%s", "a|b");
    rt_number(table, "%.1f", 1234.56);
    rt_metric_value(table, 0.123456);
    rt_quoted(table, "GPU \"x\", rev 2");
    rt_text(table, "%s", "long variant");
    rt_number(table, "%.1f", NAN);
    rt_metric_value(table, 128);
    rt_missing(table);
}

static char *printed(const rt_table *table, rt_style style)
{
    FILE *stream = tmpfile();
    assert_non_null(stream);
    rt_print(table, style, stream);
    long length = ftell(stream);
    rewind(stream);
    char *text = calloc((size_t)length + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)length, stream), (size_t)length);
    fclose(stream);
    return text;
}

static void test_text_is_aligned_with_a_rule_and_no_trailing_spaces(void **state)
{
    (void)state;
    rt_table table;
    make_table(&table);
    assert_int_equal(rt_row_count(&table), 2);
    char *text = printed(&table, RT_TEXT);
    assert_string_equal(text,
                        "variant         GB/s  predicted  device\n"
                        "------------  ------  ---------  --------------\n"
                        "a|b           1234.6     0.1235  GPU \"x\", rev 2\n"
                        "long variant       -        128  -\n");
    free(text);
    rt_free(&table);
}

static void test_markdown_escapes_bars_and_aligns_numbers_right(void **state)
{
    (void)state;
    rt_table table;
    make_table(&table);
    char *text = printed(&table, RT_MARKDOWN);
    assert_string_equal(text,
                        "| variant | GB/s | predicted | device |\n"
                        "| --- | ---: | ---: | --- |\n"
                        "| a\\|b | 1234.6 | 0.1235 | GPU \"x\", rev 2 |\n"
                        "| long variant | - | 128 | - |\n");
    free(text);
    rt_free(&table);
}

static void test_csv_quotes_the_marked_cells_and_leaves_missing_ones_empty(void **state)
{
    (void)state;
    rt_table table;
    make_table(&table);
    char *text = printed(&table, RT_CSV);
    assert_string_equal(text,
                        "variant,GB/s,predicted,device\n"
                        "a|b,1234.6,0.1235,\"GPU \"\"x\"\", rev 2\"\n"
                        "long variant,,128,\n");
    free(text);
    rt_free(&table);
}

static void test_metric_values_print_counts_whole(void **state)
{
    (void)state;
    char text[32];
    rt_metric_text(text, sizeof text, 2062500000.0);
    assert_string_equal(text, "2062500000");
    rt_metric_text(text, sizeof text, 1234.25);
    assert_string_equal(text, "1234");     /* 1000 and above: whole */
    rt_metric_text(text, sizeof text, 99.987654321);
    assert_string_equal(text, "99.99");
    rt_metric_text(text, sizeof text, NAN);
    assert_string_equal(text, "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_is_aligned_with_a_rule_and_no_trailing_spaces),
        cmocka_unit_test(test_markdown_escapes_bars_and_aligns_numbers_right),
        cmocka_unit_test(test_csv_quotes_the_marked_cells_and_leaves_missing_ones_empty),
        cmocka_unit_test(test_metric_values_print_counts_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
