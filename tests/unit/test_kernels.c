/* test_kernels.c: what a --kernels file may be, before any compiler or GPU sees it. A kernels.cu
 * may include only CUDA headers and the lab's own header: an #include of anything else could
 * print a hidden file (the rubric) inside a compiler error. And the sizes of a kernel's machine
 * code and constant bank, read out of a fatbin or cubin for the access model's DRAM floor, from
 * the cubin the driver would run, without reading outside the bytes however they are cut. */
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

#include "fake_cubin.h"
#include "kernel_loader.h"

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

/* A fatbin of PTX for sm_90, a compressed cubin for sm_90 (skipped: its bytes are no ELF), and
 * cubins for sm_80 (ABI 7) and sm_90 (ABI 8) of kernel "copy", 512 and 768 bytes of code. */
static size_t fake_fatbin(unsigned char *out)
{
    unsigned char cubin[2048];
    size_t size = fake_fatbin_start(out);
    const unsigned char ptx[] = ".version 9.0\n.target sm_90\n";
    fake_entry(out, &size, 1, 90, 0, ptx, sizeof ptx);
    fake_entry(out, &size, 2, 90, 0x2000, (const unsigned char *)"\x28\xb5\x2f\xfd", 4);
    size_t bytes = fake_cubin(cubin, 80, 7, "copy", 512, 552);
    fake_entry(out, &size, 2, 80, 0x11, cubin, bytes);
    bytes = fake_cubin(cubin, 90, 8, "copy", 768, 560);
    fake_entry(out, &size, 2, 90, 0x11, cubin, bytes);
    fake_fatbin_end(out, size);
    return size;
}

static void test_code_bytes_come_from_the_cubin_the_driver_runs(void **state)
{
    (void)state;
    unsigned char fatbin[8192];
    size_t size = fake_fatbin(fatbin);
    double code = -1, constants = -1;
    assert_int_equal(ml_kernels_code_bytes_in(fatbin, size, "copy", 90, &code, &constants), 0);
    assert_true(code == 768 && constants == 560);
    /* sm_86 and sm_89 run the sm_80 cubin; sm_75 and sm_100 none. */
    assert_int_equal(ml_kernels_code_bytes_in(fatbin, size, "copy", 86, &code, &constants), 0);
    assert_true(code == 512 && constants == 552);
    assert_int_equal(ml_kernels_code_bytes_in(fatbin, size, "copy", 89, &code, &constants), 0);
    assert_true(code == 512);
    assert_int_equal(ml_kernels_code_bytes_in(fatbin, size, "copy", 75, &code, &constants), -1);
    assert_true(code == 0 && constants == 0);
    assert_int_equal(ml_kernels_code_bytes_in(fatbin, size, "copy", 100, &code, &constants), -1);
    /* A kernel by its whole name: not "cop", not "copy2". */
    assert_int_equal(ml_kernels_code_bytes_in(fatbin, size, "cop", 90, &code, &constants), -1);
    assert_int_equal(ml_kernels_code_bytes_in(fatbin, size, "copy2", 90, &code, &constants), -1);
    assert_int_equal(ml_kernels_code_bytes_in(NULL, 0, "copy", 90, &code, &constants), -1);

    /* A bare cubin: its SM from e_flags, either ABI; no constant bank counts 0. */
    unsigned char cubin[2048];
    size = fake_cubin(cubin, 90, 8, "copy", 1024, 0);
    assert_int_equal(ml_kernels_code_bytes_in(cubin, size, "copy", 90, &code, &constants), 0);
    assert_true(code == 1024 && constants == 0);
    size = fake_cubin(cubin, 75, 7, "copy", 384, 376);
    assert_int_equal(ml_kernels_code_bytes_in(cubin, size, "copy", 75, &code, &constants), 0);
    assert_true(code == 384 && constants == 376);
    assert_int_equal(ml_kernels_code_bytes_in(cubin, size, "copy", 90, &code, &constants), -1);
}

/* A student's --kernels file may be anything: cut anywhere, or with any byte changed, the parser
 * answers without reading outside the buffer (each cut is its own allocation, so that a tool
 * such as valgrind or ASan sees a read past it). */
static void test_code_bytes_of_damaged_files(void **state)
{
    (void)state;
    unsigned char fatbin[8192];
    size_t size = fake_fatbin(fatbin);
    double code, constants;
    for (size_t cut = 0; cut < size; cut++) {
        unsigned char *copy = malloc(cut > 0 ? cut : 1);
        assert_non_null(copy);
        memcpy(copy, fatbin, cut);
        int status = ml_kernels_code_bytes_in(copy, cut, "copy", 90, &code, &constants);
        assert_true(status == -1 || status == 0);
        free(copy);
    }
    for (size_t at = 0; at < size; at++) {
        unsigned char damaged[8192];
        memcpy(damaged, fatbin, size);
        damaged[at] ^= 0xff;
        int status = ml_kernels_code_bytes_in(damaged, size, "copy", 90, &code, &constants);
        assert_true(status == -1 || status == 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_headers_and_the_lab_header_pass),
        cmocka_unit_test(test_other_includes_are_refused),
        cmocka_unit_test(test_a_lab_without_a_header_takes_cuda_headers_only),
        cmocka_unit_test(test_disguised_includes_are_refused),
        cmocka_unit_test(test_files_are_checked_before_compiling),
        cmocka_unit_test(test_code_bytes_come_from_the_cubin_the_driver_runs),
        cmocka_unit_test(test_code_bytes_of_damaged_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
