/* test_grade_text: names and text made safe to show (tools/grade/text.c).
 *
 *   text_escape: printable UTF-8 kept; a line break, a carriage return, an escape, DEL, a C1
 *   control, a line separator and a right-to-left override escaped; a byte that is not UTF-8
 *   as \xHH, so two names that differ only there are shown differently; the backslash doubled,
 *   so no name is shown as another's escape.
 *   text_append_csv_cell: quoting (comma, quote, line break, edge spaces); a text beginning
 *   with '=', '+', '-', '@', a tab or a carriage return written as text (OWASP's CSV injection
 *   rule), one that only holds them further in left alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "text.h"

static void expect_escaped(const char *name, const char *shown)
{
    char got[256];
    text_escape(name, got, sizeof got);
    assert_string_equal(got, shown);
}

static void names_are_escaped(void **state)
{
    (void)state;
    expect_escaped("alice", "alice");
    expect_escaped("caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5");
    expect_escaped("new\nline", "new\\u{000a}line");
    expect_escaped("cr\rtab\t", "cr\\u{000d}tab\\u{0009}");
    expect_escaped("\x1b[31mred", "\\u{001b}[31mred");
    expect_escaped("del\x7f", "del\\u{007f}");
    expect_escaped("c1\xc2\x85", "c1\\u{0085}");
    expect_escaped("line\xe2\x80\xa8sep", "line\\u{2028}sep");
    expect_escaped("rlo\xe2\x80\xaetxt.cu", "rlo\\u{202e}txt.cu");
    expect_escaped("a\xff", "a\\xff");
    expect_escaped("a\xfe", "a\\xfe");
    expect_escaped("\xc3(", "\\xc3(");
    expect_escaped("back\\slash", "back\\\\slash");
    expect_escaped("a\\xff", "a\\\\xff"); /* not the name "a\xff" */
    expect_escaped("", "");
}

static void escaping_is_cut_at_the_size(void **state)
{
    (void)state;
    char got[8];
    text_escape("abcdefghij", got, sizeof got);
    assert_string_equal(got, "abcdefg");
}

static void expect_cell(const char *value, const char *cell)
{
    text_buffer line = {0};
    text_append_csv_cell(&line, value);
    char *got = text_take(&line);
    assert_string_equal(got, cell);
    free(got);
}

static void cells_are_quoted(void **state)
{
    (void)state;
    expect_cell("Ada Lovelace", "Ada Lovelace");
    expect_cell("Hopper, Grace \"Amazing\"", "\"Hopper, Grace \"\"Amazing\"\"\"");
    expect_cell("two\nlines", "\"two\nlines\"");
    expect_cell(" edge", "\" edge\"");
    expect_cell("", "");
}

static void formulas_are_text(void **state)
{
    (void)state;
    expect_cell("=HYPERLINK(\"http://x\",\"x\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"x\"\")\"");
    expect_cell("+3003", "\"'+3003\"");
    expect_cell("-1", "\"'-1\"");
    expect_cell("@x", "\"'@x\"");
    expect_cell("\t=1", "\"'\t=1\"");
    expect_cell("\r=1", "\"'?=1\""); /* the carriage return itself sanitized */
    expect_cell("a=1+2", "a=1+2");
    expect_cell("x@example.edu", "x@example.edu");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_escaped),
        cmocka_unit_test(escaping_is_cut_at_the_size),
        cmocka_unit_test(cells_are_quoted),
        cmocka_unit_test(formulas_are_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
