/* test_kernels.c: what a --kernels file may be, before any compiler or GPU sees it. A kernels.cu
 * may include only CUDA headers and the lab's own header: an #include of anything else could
 * print a hidden file (the rubric) inside a compiler error. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"

static int check(const char *text)
{
    char error[512];
    return ml_kernels_check_source(text, "bank_conflicts.h", error, sizeof error);
}

static void test_cuda_headers_and_the_lab_header_pass(void **state)
{
    (void)state;
    assert_int_equal(check("#include <cuda_runtime.h>\n#include \"bank_conflicts.h\"\n"
                           "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n"), 0);
    assert_int_equal(check("  #  include <cuda_fp16.h>\n"), 0);
    assert_int_equal(check("/* #include \"rubric\" in a comment is no directive */\n"), 0);
    assert_int_equal(check("// #include \"rubric\"\n"), 0);
    assert_int_equal(check("const char *text = \"#include <stdio.h>\";\n"), 0);
}

static void test_other_includes_are_refused(void **state)
{
    (void)state;
    char error[512];
    assert_int_equal(ml_kernels_check_source("\n#include \"../../labs/04_coalescing/rubric\"\n",
                                             "bank_conflicts.h", error, sizeof error), -1);
    assert_non_null(strstr(error, "line 2"));
    assert_int_equal(check("#include <stdio.h>\n"), -1);
    assert_int_equal(check("#include \"rubric\"\n"), -1);
    assert_int_equal(check("#include <rubric>\n"), -1);
    assert_int_equal(check("#include \"shared_tiling.h\"\n"), -1); /* another lab's header */
    assert_int_equal(check("#include </etc/passwd>\n"), -1);
    assert_int_equal(check("#include <cuda/../../../../etc/passwd>\n"), -1);
}

/* A lab without a header of its own (lab 04): only CUDA headers, and the refusal says so. */
static void test_a_lab_without_a_header_takes_cuda_headers_only(void **state)
{
    (void)state;
    char error[512];
    assert_int_equal(ml_kernels_check_source("#include <cuda_runtime.h>\n", NULL, error,
                                             sizeof error), 0);
    assert_int_equal(ml_kernels_check_source("#include \"coalescing.h\"\n", NULL, error,
                                             sizeof error), -1);
    assert_non_null(strstr(error, "this lab has no header"));
    assert_int_equal(ml_kernels_check_source("#include \"coalescing.h\"\n", "", error,
                                             sizeof error), -1);
}

/* The ways to write an #include that a line-by-line look would miss. */
static void test_disguised_includes_are_refused(void **state)
{
    (void)state;
    assert_int_equal(check("#define HIDDEN \"rubric\"\n#include HIDDEN\n"), -1);
    assert_int_equal(check("#inc\\\nlude \"rubric\"\n"), -1);          /* line splice */
    assert_int_equal(check("/* a */ # /* b */ include \"rubric\"\n"), -1);
    assert_int_equal(check("/*\n*/#include \"rubric\"\n"), -1);        /* after a comment */
    assert_int_equal(check("%:include \"rubric\"\n"), -1);             /* digraph */
    assert_int_equal(check("#include_next <cuda_runtime.h>\n"), -1);
    assert_int_equal(check("#import \"rubric\"\n"), -1);
    assert_int_equal(check("#embed \"rubric\"\n"), -1);
    assert_int_equal(check("#if __has_include(\"rubric\")\n#endif\n"), -1);
    /* A raw string could hide the start of a comment from a simple scan. */
    assert_int_equal(check("const char *s = R\"x( \" /* )x\";\n#include \"rubric\"\n*/\n"), -1);
}

static void write_file(const char *path, const char *text, size_t repeat)
{
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    for (size_t i = 0; i < repeat; i++)
        fputs(text, file);
    fclose(file);
}

static void test_files_are_checked_before_compiling(void **state)
{
    (void)state;
    char directory[] = "/tmp/test_kernels_XXXXXX", path[256], error[512];
    assert_non_null(mkdtemp(directory));

    snprintf(path, sizeof path, "%s/kernels.cu", directory);
    write_file(path, "#include <cuda_runtime.h>\n", 1);
    assert_int_equal(ml_kernels_check_file(path, "bank_conflicts.h", error, sizeof error), 0);

    write_file(path, "#include \"rubric\"\n", 1);
    assert_int_equal(ml_kernels_check_file(path, "bank_conflicts.h", error, sizeof error), -1);
    assert_non_null(strstr(error, "kernels.cu: line 1"));

    /* Over the size limit: refused before it is read. */
    write_file(path, "// a comment line of sixty-four bytes, repeated past the limit.\n",
               ML_KERNELS_SOURCE_MAX_BYTES / 64 + 1);
    assert_int_equal(ml_kernels_check_file(path, "bank_conflicts.h", error, sizeof error), -1);
    assert_non_null(strstr(error, "more than the limit"));
    unlink(path);

    assert_int_equal(ml_kernels_check_file(path, "bank_conflicts.h", error, sizeof error), -1);
    assert_non_null(strstr(error, "no such readable file"));

    snprintf(path, sizeof path, "%s/kernels.c", directory);
    write_file(path, "int x;\n", 1);
    assert_int_equal(ml_kernels_check_file(path, "bank_conflicts.h", error, sizeof error), -1);
    assert_non_null(strstr(error, "expected a .cu, .fatbin or .cubin"));
    unlink(path);
    rmdir(directory);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_headers_and_the_lab_header_pass),
        cmocka_unit_test(test_other_includes_are_refused),
        cmocka_unit_test(test_a_lab_without_a_header_takes_cuda_headers_only),
        cmocka_unit_test(test_disguised_includes_are_refused),
        cmocka_unit_test(test_files_are_checked_before_compiling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
