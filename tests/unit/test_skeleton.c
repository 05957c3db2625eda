/* test_skeleton: the student-version generator (tools/skeleton/skeleton.c).
 *
 *   lines outside the regions are copied as they are, at the same line numbers;
 *   a region becomes its TODO hint (or a generic one) and its STUB lines, padded with blanks;
 *   nesting, an END without a BEGIN, a BEGIN never closed, a marker with text around it, a STUB
 *   outside a region, a hint after the start of a region are errors naming the line;
 *   --solution-lines gives exactly the lines that must never reach students;
 *   an optional region (// OPTIONAL: NAME) is stripped by default and given whole, at its own
 *   line numbers, when its name is kept, and its lines are then no solution lines. */
#define _POSIX_C_SOURCE 200809L /* fmemopen, open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skeleton.h"

/* Runs the generator over `source`; returns its output (caller frees) or NULL with `error`. */
static char *convert(const char *source, skeleton_output output, char *error, size_t error_size,
                     int *regions)
{
    FILE *in = fmemopen((void *)source, strlen(source), "r");
    assert_non_null(in);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    error[0] = '\0';
    int count = skeleton_convert(in, out, "lab.cu", output, error, error_size);
    fclose(in);
    fclose(out);
    if (regions != NULL)
        *regions = count;
    if (count < 0) {
        free(text);
        return NULL;
    }
    return text;
}

static char *student(const char *source)
{
    char error[512];
    int regions = 0;
    char *text = convert(source, SKELETON_STUDENT, error, sizeof error, &regions);
    if (text == NULL)
        fail_msg("unexpected error: %s", error);
    return text;
}

/* The error the generator gives for `source` (it must give one). */
static void expect_error(const char *source, const char *expected_part)
{
    char error[512];
    int regions = 0;
    char *text = convert(source, SKELETON_STUDENT, error, sizeof error, &regions);
    assert_null(text);
    assert_int_equal(regions, -1);
    if (strstr(error, expected_part) == NULL)
        fail_msg("error '%s' does not contain '%s'", error, expected_part);
    assert_null(strchr(error, '\n'));   /* one line */
}

/* Line `number` (from 1) of text, without its newline. */
static void line_of(const char *text, int number, char *line, size_t size)
{
    for (int n = 1; n < number && text != NULL; n++) {
        text = strchr(text, '\n');
        if (text != NULL)
            text++;
    }
    assert_non_null(text);
    size_t length = strcspn(text, "\n");
    assert_true(length < size);
    memcpy(line, text, length);
    line[length] = '\0';
}

static int line_count(const char *text)
{
    int count = 0;
    for (const char *c = text; *c != '\0'; c++)
        count += *c == '\n';
    return count;
}

static const char *const kernel_source =
    "/* header */\n"                                   /* 1 */
    "static __global__ void copy(float *out, int n)\n" /* 2 */
    "{\n"                                              /* 3 */
    "    int i = threadIdx.x;\n"                       /* 4 */
    "    // BEGIN SOLUTION\n"                          /* 5 */
    "    if (i < n)\n"                                 /* 6 */
    "        out[i] = 1.0f;\n"                         /* 7 */
    "    // END SOLUTION\n"                            /* 8 */
    "}\n"                                              /* 9 */
    "int after = 1;\n";                                /* 10 */

static void lines_outside_regions_keep_their_text_and_number(void **state)
{
    (void)state;
    char *text = student(kernel_source);
    assert_int_equal(line_count(text), line_count(kernel_source));
    const int outside[] = {1, 2, 3, 4, 9, 10};
    for (size_t k = 0; k < sizeof outside / sizeof outside[0]; k++) {
        char expected[256], got[256];
        line_of(kernel_source, outside[k], expected, sizeof expected);
        line_of(text, outside[k], got, sizeof got);
        assert_string_equal(got, expected);
    }
    free(text);
}

static void a_region_becomes_a_generic_todo_and_blank_lines(void **state)
{
    (void)state;
    char *text = student(kernel_source);
    char line[256];
    line_of(text, 5, line, sizeof line);
    assert_true(strncmp(line, "    // TODO: ", 13) == 0);  /* the marker's indentation */
    for (int n = 6; n <= 8; n++) {
        line_of(text, n, line, sizeof line);
        assert_string_equal(line, "");
    }
    assert_null(strstr(text, "out[i] = 1.0f"));
    assert_null(strstr(text, "SOLUTION"));
    free(text);
}

static void the_hint_and_the_stub_are_kept(void **state)
{
    (void)state;
    const char *source = "float f(float x)\n"
                         "{\n"
                         "    // BEGIN SOLUTION\n"
                         "    // TODO: return the square of x,\n"
                         "    //       computed in one multiply.\n"
                         "    // a comment of the solution\n"
                         "    // STUB: return 0.0f;\n"
                         "    return x * x;\n"
                         "    // END SOLUTION\n"
                         "}\n";
    char *text = student(source);
    const char *expected = "float f(float x)\n"
                           "{\n"
                           "    // TODO: return the square of x,\n"
                           "    //       computed in one multiply.\n"
                           "    return 0.0f;\n"
                           "\n"
                           "\n"
                           "\n"
                           "\n"
                           "}\n";
    assert_string_equal(text, expected);
    free(text);
}

static void a_declaration_region_can_stub_a_declaration(void **state)
{
    (void)state;
    const char *source = "// BEGIN SOLUTION\n"
                         "// STUB: static __constant__ float mask[9];\n"
                         "static __constant__ float mask[81];\n"
                         "// END SOLUTION\n";
    char *text = student(source);
    char line[256];
    line_of(text, 1, line, sizeof line);
    assert_true(strncmp(line, "// TODO: ", 9) == 0);
    line_of(text, 2, line, sizeof line);
    assert_string_equal(line, "static __constant__ float mask[9];");
    assert_int_equal(line_count(text), 4);
    free(text);
}

static void solution_lines_are_the_region_code_only(void **state)
{
    (void)state;
    const char *source = "int a;\n"
                         "// BEGIN SOLUTION\n"
                         "// TODO: set b\n"
                         "// STUB: int b = 0;\n"
                         "int b = 42;\n"
                         "// why 42\n"
                         "// END SOLUTION\n"
                         "int c;\n";
    char error[512];
    char *text = convert(source, SKELETON_SOLUTION_LINES, error, sizeof error, NULL);
    assert_non_null(text);
    assert_string_equal(text, "int b = 42;\n// why 42\n");
    free(text);

    int regions = 0;
    text = convert(source, SKELETON_REGIONS, error, sizeof error, &regions);
    assert_non_null(text);
    assert_int_equal(regions, 1);
    assert_string_equal(text, "lab.cu:2-7: set b\n");
    free(text);
}

static void several_regions_and_no_final_newline(void **state)
{
    (void)state;
    const char *source = "a\n// BEGIN SOLUTION\nx\n// END SOLUTION\nb\n"
                         "// BEGIN SOLUTION\ny\n// END SOLUTION\nlast";
    char error[512];
    int regions = 0;
    char *text = convert(source, SKELETON_STUDENT, error, sizeof error, &regions);
    assert_non_null(text);
    assert_int_equal(regions, 2);
    char line[256];
    line_of(text, 5, line, sizeof line);
    assert_string_equal(line, "b");
    line_of(text, 9, line, sizeof line);
    assert_string_equal(line, "last");
    assert_null(strstr(text, "x\n"));
    free(text);
}

static void nesting_is_an_error_naming_both_lines(void **state)
{
    (void)state;
    expect_error("int a;\n// BEGIN SOLUTION\nint b;\n  // BEGIN SOLUTION\n// END SOLUTION\n"
                 "// END SOLUTION\n",
                 "lab.cu:4: // BEGIN SOLUTION inside the region opened at line 2");
}

static void unbalanced_markers_are_errors(void **state)
{
    (void)state;
    expect_error("int a;\n\n    // END SOLUTION\n", "lab.cu:3: // END SOLUTION without");
    expect_error("int a;\n// BEGIN SOLUTION\nint b;\n", "lab.cu:2: // BEGIN SOLUTION is never closed");
    expect_error("// BEGIN SOLUTION\n// END SOLUTION\n// END SOLUTION\n", "lab.cu:3:");
}

static void markers_must_stand_alone(void **state)
{
    (void)state;
    expect_error("// BEGIN SOLUTION: the tile\n// END SOLUTION\n", "lab.cu:1: a solution marker");
    expect_error("//BEGIN SOLUTION\n//END SOLUTION\n", "lab.cu:1: a solution marker");
    expect_error("// BEGIN SOLUTION\nx;\n// END SOLUTION here\n", "lab.cu:3: a solution marker");
    /* Prose that mentions the markers inside another comment is not a marker. */
    char *text = student("/* code between // BEGIN SOLUTION and // END SOLUTION is hidden */\n");
    assert_string_equal(text, "/* code between // BEGIN SOLUTION and // END SOLUTION is hidden */\n");
    free(text);
}

static void hints_and_stubs_have_their_places(void **state)
{
    (void)state;
    expect_error("int a;\n// STUB: int b;\n", "lab.cu:2: // STUB: outside a solution region");
    expect_error("// BEGIN SOLUTION\nint b;\n// TODO: late\n// END SOLUTION\n",
                 "lab.cu:3: a // TODO: hint must be the first line of its region");
    expect_error("// BEGIN SOLUTION\n// STUB:   \n// END SOLUTION\n", "lab.cu:2: // STUB: without code");
}


/* Runs skeleton_convert_keeping; returns the output (caller frees); fails the test on an error. */
static char *keeping(const char *source, skeleton_output output, const char *keep)
{
    FILE *in = fmemopen((void *)source, strlen(source), "r");
    assert_non_null(in);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    char error[512] = "";
    int count = skeleton_convert_keeping(in, out, "lab.cu", output, keep, error, sizeof error);
    fclose(in);
    fclose(out);
    if (count < 0)
        fail_msg("unexpected error: %s", error);
    return text;
}

static const char optional_source[] =
    "__global__ void k(float *p)\n"       /* 1 */
    "{\n"                                 /* 2 */
    "    // BEGIN SOLUTION\n"             /* 3 */
    "    // OPTIONAL: coarsened\n"        /* 4 */
    "    // TODO: the extension.\n"       /* 5 */
    "    //       (more of the hint)\n"   /* 6 */
    "    // STUB: (void)p;\n"             /* 7 */
    "    p[0] = 1.0f;\n"                  /* 8 */
    "    // END SOLUTION\n"               /* 9 */
    "    // BEGIN SOLUTION\n"             /* 10 */
    "    // TODO: the core.\n"            /* 11 */
    "    p[1] = 2.0f;\n"                  /* 12 */
    "    // END SOLUTION\n"               /* 13 */
    "}\n";                                /* 14 */

static void an_optional_region_is_stripped_by_default(void **state)
{
    (void)state;
    const char *keeps[] = {NULL, "", "other", "coarse", "coarsened2"};
    for (size_t i = 0; i < sizeof keeps / sizeof keeps[0]; i++) {
        char *text = keeping(optional_source, SKELETON_STUDENT, keeps[i]);
        char line[128];
        assert_null(strstr(text, "p[0] = 1.0f;"));
        assert_null(strstr(text, "OPTIONAL"));
        line_of(text, 3, line, sizeof line);
        assert_string_equal(line, "    // TODO: the extension.");
        line_of(text, 4, line, sizeof line);
        assert_string_equal(line, "    //       (more of the hint)");
        line_of(text, 5, line, sizeof line);
        assert_string_equal(line, "    (void)p;");
        line_of(text, 14, line, sizeof line);
        assert_string_equal(line, "}");
        free(text);
        /* The default version's solution lines hold the optional region's code. */
        text = keeping(optional_source, SKELETON_SOLUTION_LINES, keeps[i]);
        assert_string_equal(text, "    p[0] = 1.0f;\n    p[1] = 2.0f;\n");
        free(text);
    }
    /* skeleton_convert is the default. */
    char *text = student(optional_source);
    char *expected = keeping(optional_source, SKELETON_STUDENT, NULL);
    assert_string_equal(text, expected);
    free(text);
    free(expected);
}

static void a_kept_optional_region_is_given_whole_in_place(void **state)
{
    (void)state;
    const char *keeps[] = {"coarsened", "other,coarsened", "coarsened other", " coarsened "};
    for (size_t i = 0; i < sizeof keeps / sizeof keeps[0]; i++) {
        char *text = keeping(optional_source, SKELETON_STUDENT, keeps[i]);
        char line[128];
        line_of(text, 3, line, sizeof line);
        assert_non_null(strstr(line, "'coarsened' was kept"));
        for (int n = 4; n <= 7; n++) { /* name, hint and stub: blank */
            line_of(text, n, line, sizeof line);
            assert_string_equal(line, "");
        }
        line_of(text, 8, line, sizeof line);
        assert_string_equal(line, "    p[0] = 1.0f;"); /* the code at its own line */
        line_of(text, 9, line, sizeof line);
        assert_string_equal(line, "");
        /* The other region is stripped as ever. */
        assert_null(strstr(text, "p[1] = 2.0f;"));
        line_of(text, 10, line, sizeof line);
        assert_string_equal(line, "    // TODO: the core.");
        line_of(text, 14, line, sizeof line);
        assert_string_equal(line, "}");
        assert_null(strstr(text, "BEGIN SOLUTION"));
        assert_null(strstr(text, "STUB"));
        free(text);
        /* What it gives is no secret of this version: only the other region's line is. */
        text = keeping(optional_source, SKELETON_SOLUTION_LINES, keeps[i]);
        assert_string_equal(text, "    p[1] = 2.0f;\n");
        free(text);
        text = keeping(optional_source, SKELETON_REGIONS, keeps[i]);
        assert_non_null(strstr(text, "lab.cu:3-9: (optional coarsened, kept whole) the extension."));
        free(text);
    }
}

static void optional_names_have_their_place(void **state)
{
    (void)state;
    /* A name after the hint, a name outside a region, no name, two words. */
    expect_error("// BEGIN SOLUTION\n// TODO: x\n// OPTIONAL: a\nx = 1;\n// END SOLUTION\n",
                 "lab.cu:3: a // OPTIONAL: name must be the first line");
    expect_error("// OPTIONAL: a\n", "lab.cu:1: // OPTIONAL: outside a solution region");
    expect_error("// BEGIN SOLUTION\n// OPTIONAL:\nx = 1;\n// END SOLUTION\n",
                 "lab.cu:2: // OPTIONAL: takes one name");
    expect_error("// BEGIN SOLUTION\n// OPTIONAL: two words\nx = 1;\n// END SOLUTION\n",
                 "lab.cu:2: // OPTIONAL: takes one name");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_outside_regions_keep_their_text_and_number),
        cmocka_unit_test(a_region_becomes_a_generic_todo_and_blank_lines),
        cmocka_unit_test(the_hint_and_the_stub_are_kept),
        cmocka_unit_test(a_declaration_region_can_stub_a_declaration),
        cmocka_unit_test(solution_lines_are_the_region_code_only),
        cmocka_unit_test(several_regions_and_no_final_newline),
        cmocka_unit_test(nesting_is_an_error_naming_both_lines),
        cmocka_unit_test(unbalanced_markers_are_errors),
        cmocka_unit_test(markers_must_stand_alone),
        cmocka_unit_test(hints_and_stubs_have_their_places),
        cmocka_unit_test(an_optional_region_is_stripped_by_default),
        cmocka_unit_test(a_kept_optional_region_is_given_whole_in_place),
        cmocka_unit_test(optional_names_have_their_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
