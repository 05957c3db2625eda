/* test_grade_roster: the batch grader's readers (tools/grade/roster.c, sha256.c).
 *
 *   roster: Gradescope's submission_metadata.yml as its export writes it (folders, :submitters
 *   with :name, :sid, :email, a group, plain, 'single' and "double" quoted values with their
 *   escapes, a list at the key's indentation or deeper, an empty list); everything else under a
 *   folder is skipped, a block of an autograder's output that looks like a roster included; what
 *   it cannot read is one line "FILE:LINE: what".
 *   sha256: FIPS 180-2's test vectors, in one piece and in many.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "roster.h"
#include "sha256.h"

static roster parsed(const char *text)
{
    roster students = {0};
    char error[512];
    if (roster_parse(&students, text, "submission_metadata.yml", error, sizeof error) != 0)
        fail_msg("%s", error);
    return students;
}

static void refused(const char *text, const char *message)
{
    roster students = {0};
    char error[512] = "";
    assert_int_equal(roster_parse(&students, text, "submission_metadata.yml", error, sizeof error), -1);
    if (strstr(error, message) == NULL)
        fail_msg("the error is '%s', expected it to say '%s'", error, message);
    roster_free(&students);
}

static void reads_gradescopes_layout(void **state)
{
    (void)state;
    roster students = parsed(
        "submission_409194023:\n"
        "  :submitters:\n"
        "  - :name: First Last\n"
        "    :sid: '123456789'\n"
        "    :email: first@berkeley.edu\n"
        "  :created_at: 2026-04-26 17:34:00.861687000 Z\n"
        "  :score: 2.0\n"
        "  :results:\n"
        "    score: 2.0\n"
        "    output: |-\n"
        "      =====================================\n"
        "      :submitters:\n"
        "      - :name: Not A Student\n"
        "submission_500000001:\n"
        "  :submitters:\n"
        "  - :name: \"Hopper, Grace \\\"Amazing\\\" \\u00c9\"\n"
        "    :sid: '111'\n"
        "    :email: alice@berkeley.edu\n"
        "  - :name: 'Kay O''Neil'   # a comment\n"
        "    :sid: 222\n"
        "  :score: 10.0\n"
        "submission_600000002:\n"
        "  :submitters:\n"
        "    -\n"
        "      :sid: 333\n"
        "  :score: 0.0\n"
        "submission_700000003:\n"
        "  :submitters: []\n");
    assert_int_equal(students.count, 4);
    const roster_submission *single = roster_find(&students, "submission_409194023");
    assert_non_null(single);
    assert_int_equal(single->count, 1);
    assert_string_equal(single->students[0].name, "First Last");
    assert_string_equal(single->students[0].sid, "123456789");
    assert_string_equal(single->students[0].email, "first@berkeley.edu");
    const roster_submission *group = roster_find(&students, "submission_500000001");
    assert_int_equal(group->count, 2);
    assert_string_equal(group->students[0].name, "Hopper, Grace \"Amazing\" \xc3\x89");
    assert_string_equal(group->students[1].name, "Kay O'Neil");
    assert_string_equal(group->students[1].sid, "222");
    assert_string_equal(group->students[1].email, "");
    const roster_submission *sid_only = roster_find(&students, "submission_600000002");
    assert_int_equal(sid_only->count, 1);
    assert_string_equal(sid_only->students[0].sid, "333");
    assert_string_equal(sid_only->students[0].name, "");
    assert_int_equal(roster_find(&students, "submission_700000003")->count, 0);
    assert_null(roster_find(&students, "submission_1"));
    roster_free(&students);
}

static void says_what_it_cannot_read(void **state)
{
    (void)state;
    refused("submission_1:\n\t:submitters: []\n", "submission_metadata.yml:2: a tab in the indentation");
    refused("submission_1:\n  :submitters:\n  - :name: 'Ada\n", ":3: a quoted value that does not end on its line");
    refused("submission_1:\n  :submitters:\n  - :name: 'Ada' Lovelace\n", ":3: text after a quoted value");
    refused("submission_1:\n  :submitters: []\nsubmission_1:\n  :submitters: []\n",
            ":3: the folder 'submission_1' is listed twice");
    refused("  :submitters: []\n", ":1: an indented line before the first submission folder");
    refused("submission_1: {}\n", ":1: a submission folder's name should end its line");
    refused("../../etc:\n  :submitters: []\n", ":1: '../../etc' is no submission folder's name");
    refused("'':\n  :submitters: []\n", ":1: '' is no submission folder's name");
    refused("submission_1:\n  :submitters: Ada\n", ":2: :submitters should be a list");
    refused("submission_1:\n  :submitters:\n  - :name: \"\\q\"\n", ":3: an escape \\q that this reader does not know");
    char many[4096] = "submission_1:\n  :submitters:\n";
    for (int i = 0; i <= ROSTER_MAX_STUDENTS; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "  - :name: Student %d\n", i);
    refused(many, "more than 16 students in one submission");
}

static void sha256_hex(const void *data, size_t size, char hex[SHA256_HEX_SIZE])
{
    sha256_context context;
    sha256_start(&context);
    sha256_add(&context, data, size);
    sha256_finish(&context, hex);
}

static void sha256_matches_the_standards_vectors(void **state)
{
    (void)state;
    char hex[SHA256_HEX_SIZE];
    sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two_blocks, strlen(two_blocks), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* A million 'a', added in pieces of odd sizes. */
    static char a[1000];
    memset(a, 'a', sizeof a);
    sha256_context context;
    sha256_start(&context);
    size_t added = 0;
    for (size_t piece = 1; added < 1000000; piece = piece % 997 + 1) {
        size_t take = 1000000 - added < piece ? 1000000 - added : piece;
        sha256_add(&context, a, take);
        added += take;
    }
    sha256_finish(&context, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_gradescopes_layout),
        cmocka_unit_test(says_what_it_cannot_read),
        cmocka_unit_test(sha256_matches_the_standards_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
