/* test_grade_roster: the batch grader's readers (tools/grade/roster.c, sha256.c).
 *
 *   roster: Gradescope's submission_metadata.yml as its export writes it (folders, :submitters
 *   with :name, :sid, :email, a group, plain, 'single' and "double" quoted values with their
 *   escapes, a list at the key's indentation or deeper, an empty list); everything else under a
 *   folder is skipped, a block of an autograder's output that looks like a roster included; what
 *   it cannot read is one line "FILE:LINE: what".
 *   roster_parse_csv (--roster): a header naming submission, sid, email, name in any order and
 *   case, other columns ignored; RFC 4180 quoting (commas, line breaks and doubled quotes in a
 *   quoted field), CRLF, a byte-order mark, empty lines; what it refuses (a missing or doubled
 *   column, a row of the wrong width, a submission listed twice, a quote astray, an unclosed
 *   quote, a NUL, no header) is one line "FILE:LINE: what", the line the record starts on.
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

static roster parsed_csv(const char *text, size_t length)
{
    roster students = {0};
    char error[512];
    if (roster_parse_csv(&students, text, length, "roster.csv", error, sizeof error) != 0)
        fail_msg("%s", error);
    return students;
}

static void refused_csv(const char *text, size_t length, const char *message)
{
    roster students = {0};
    char error[512] = "";
    assert_int_equal(roster_parse_csv(&students, text, length, "roster.csv", error, sizeof error), -1);
    if (strstr(error, message) == NULL)
        fail_msg("the error is '%s', expected it to say '%s'", error, message);
    assert_null(strchr(error, '\n'));
    roster_free(&students);
}

#define CSV(text) text, sizeof text - 1

static void reads_a_roster_csv(void **state)
{
    (void)state;
    roster students = parsed_csv(CSV(
        "\xef\xbb\xbf Email ,Name,Section,SID,submission\r\n"
        "ada@example.edu,Ada Lovelace,A,1815,ada\r\n"
        "\r\n"
        "\"grace@example.edu\",\"Hopper, Grace \"\"Amazing\"\"\",\"B\nC\",1906,grace-repo\n"
        ",\"=HYPERLINK(\"\"x\"\")\",,,\"=cmd\"\n"
        "kay@example.edu,,,,\"k,ay\""));
    assert_int_equal(students.count, 4);
    const roster_submission *ada = roster_find(&students, "ada");
    assert_non_null(ada);
    assert_int_equal(ada->count, 1);
    assert_int_equal(ada->line, 2);
    assert_string_equal(ada->students[0].name, "Ada Lovelace");
    assert_string_equal(ada->students[0].sid, "1815");
    assert_string_equal(ada->students[0].email, "ada@example.edu");
    const roster_submission *grace = roster_find(&students, "grace-repo");
    assert_non_null(grace);
    assert_int_equal(grace->line, 4);
    assert_string_equal(grace->students[0].name, "Hopper, Grace \"Amazing\"");
    /* Names are data here: the tables neutralise them (text_append_csv_cell). */
    const roster_submission *formula = roster_find(&students, "=cmd");
    assert_non_null(formula);
    assert_int_equal(formula->line, 6);
    assert_string_equal(formula->students[0].name, "=HYPERLINK(\"x\")");
    assert_string_equal(formula->students[0].email, "");
    assert_string_equal(roster_find(&students, "k,ay")->students[0].email, "kay@example.edu");
    roster_free(&students);

    /* LF alone, no line break at the end, a header and nothing else. */
    students = parsed_csv(CSV("submission,sid,email,name\nben,2,b@x,Ben"));
    assert_int_equal(students.count, 1);
    assert_string_equal(roster_find(&students, "ben")->students[0].name, "Ben");
    roster_free(&students);
    students = parsed_csv(CSV("submission,sid,email,name\n"));
    assert_int_equal(students.count, 0);
    roster_free(&students);
}

static void says_what_it_cannot_read_in_a_roster_csv(void **state)
{
    (void)state;
    refused_csv(CSV("submission,sid,name\nada,1,Ada\n"), "roster.csv:1: the header has no 'email' column");
    refused_csv(CSV("\n\nsubmission,sid,email,name,SID\n"), "roster.csv:3: the header names the column 'sid' twice");
    refused_csv(CSV("submission,sid,email,name\nada,1,a@x\n"),
                "roster.csv:2: a row of 3 fields, but the header has 4");
    refused_csv(CSV("submission,sid,email,name\nada,1,a@x,Ada,more\n"),
                "roster.csv:2: a row of 5 fields, but the header has 4");
    refused_csv(CSV("submission,sid,email,name\r\nada,1,a@x,Ada\r\n\"x\ny\",2,b@x,B\r\nada,3,c@x,C\r\n"),
                "roster.csv:5: the submission of this row is listed on line 2 too");
    refused_csv(CSV("submission,sid,email,name\n,1,a@x,Ada\n"), "roster.csv:2: a row without its submission's name");
    refused_csv(CSV("submission,sid,email,name\nada,1,a@x,Ada \"The\" Countess\n"),
                "roster.csv:2: a quote inside a field that does not begin with one");
    refused_csv(CSV("submission,sid,email,name\nada,1,a@x,\"Ada\" Lovelace\n"),
                "roster.csv:2: text after a field's closing quote");
    refused_csv(CSV("submission,sid,email,name\nada,1,a@x,\"Ada\n\nLovelace\n"),
                "roster.csv:2: a quoted field that does not end");
    refused_csv(CSV("submission,sid,email,name\nada,1,a\0@x,Ada\n"), "roster.csv:2: a NUL byte");
    refused_csv(CSV(""), "roster.csv:1: no header");
    refused_csv(CSV("\xef\xbb\xbf\r\n"), "no header");
    char long_name[600] = "submission,sid,email,name\nada,1,a@x,";
    memset(long_name + strlen(long_name), 'n', 300);
    refused_csv(long_name, strlen(long_name), "roster.csv:2: a field longer than 255 bytes");
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
        cmocka_unit_test(reads_a_roster_csv),
        cmocka_unit_test(says_what_it_cannot_read_in_a_roster_csv),
        cmocka_unit_test(sha256_matches_the_standards_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
