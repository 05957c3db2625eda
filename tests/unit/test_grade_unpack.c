/* test_grade_unpack: a class archive unpacked by tools/grade/unpack.c, archives written here
 * with libarchive itself (no other tool needed).
 *
 *   limits, each refused with one line before anything is written: a zip bomb (a few
 *   kilobytes declaring megabytes, and over the default gigabyte), a zip whose header lies
 *   about a size (caught by counting the bytes read), one file over its limit, too many
 *   entries (over a small limit and over the default 10,000);
 *   names: "../x", "/abs/x" and "a/../../x" unpacked inside, renamed and reported; ".." alone
 *   skipped; a 250-byte name unpacked, a 300-byte part skipped; two names that differ only in
 *   a byte that is not UTF-8 stay two files; a UTF-8 name and a dot-folder unpacked as they
 *   are; a name with a line break unpacked, and escaped in a note;
 *   kinds: a symbolic link (and a file "under" it), a hard link and a pipe skipped and
 *   reported; two entries of one name, and a file in the way of a folder; a .tar.gz;
 *   refusals: not a zip, a damaged zip; an empty zip is no error (0 entries).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <ftw.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unpack.h"

typedef struct {
    const char *name;
    int type;                   /* AE_IFREG, AE_IFDIR, AE_IFLNK, AE_IFIFO; 0: a hard link */
    const char *data;           /* a file's bytes, or a link's target */
    long long zeros;            /* a file of this many zero bytes instead */
} test_entry;

typedef struct {
    char folder[256];           /* the test's scratch folder */
    char archive[320];
    char into[320];             /* the folder unpacked into, inside folder */
    unpack_report report;
    char error[1024];
} scratch;

/* The batch grader's: a file's limit is GRADING_FILE_LIMIT_BYTES, a gigabyte too. */
static const unpack_limits default_limits = {UNPACK_MAX_TOTAL_BYTES, 1024LL * 1024 * 1024,
                                             UNPACK_MAX_ENTRIES};

static int set_up(void **context)
{
    scratch *one = calloc(1, sizeof *one);
    assert_non_null(one);
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(one->folder, sizeof one->folder, "%s/test-unpack-XXXXXX", temporary);
    assert_non_null(mkdtemp(one->folder));
    snprintf(one->into, sizeof one->into, "%s/into", one->folder);
    assert_int_equal(mkdir(one->into, 0700), 0);
    *context = one;
    return 0;
}

static int remove_one(const char *path, const struct stat *status, int kind, struct FTW *where)
{
    (void)status;
    (void)where;
    return kind == FTW_DP ? rmdir(path) : unlink(path);
}

static int tear_down(void **context)
{
    scratch *one = *context;
    unpack_report_free(&one->report);
    assert_int_equal(nftw(one->folder, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
    free(one);
    return 0;
}

/* Writes the entries as a zip (or a GNU tar, gzipped or not) named archive_name in the scratch
 * folder. */
static void write_archive(scratch *one, const char *archive_name, const test_entry *entries,
                          int count)
{
    snprintf(one->archive, sizeof one->archive, "%s/%s", one->folder, archive_name);
    size_t length = strlen(archive_name);
    int zip = length > 4 && strcmp(archive_name + length - 4, ".zip") == 0;
    int gzip = length > 3 && strcmp(archive_name + length - 3, ".gz") == 0;
    struct archive *writer = archive_write_new();
    assert_non_null(writer);
    assert_int_equal(archive_write_set_format(writer, zip ? ARCHIVE_FORMAT_ZIP
                                                          : ARCHIVE_FORMAT_TAR_GNUTAR),
                     ARCHIVE_OK);
    if (gzip)
        assert_int_equal(archive_write_add_filter_gzip(writer), ARCHIVE_OK);
    assert_int_equal(archive_write_open_filename(writer, one->archive), ARCHIVE_OK);
    static char zeros[65536];
    for (int i = 0; i < count; i++) {
        const test_entry *e = &entries[i];
        struct archive_entry *entry = archive_entry_new();
        assert_non_null(entry);
        archive_entry_set_pathname(entry, e->name);
        archive_entry_set_perm(entry, 0644);
        if (e->type == 0) {
            archive_entry_set_filetype(entry, AE_IFREG);
            archive_entry_set_hardlink(entry, e->data);
        } else {
            archive_entry_set_filetype(entry, (unsigned int)e->type);
        }
        if (e->type == AE_IFLNK)
            archive_entry_set_symlink(entry, e->data);
        long long size = e->type != AE_IFREG ? 0 : e->data != NULL ? (long long)strlen(e->data)
                                                                   : e->zeros;
        archive_entry_set_size(entry, size);
        assert_int_equal(archive_write_header(writer, entry), ARCHIVE_OK);
        if (e->type == AE_IFREG && e->data != NULL)
            assert_int_equal(archive_write_data(writer, e->data, (size_t)size), size);
        for (long long left = e->type == AE_IFREG && e->data == NULL ? size : 0; left > 0;) {
            size_t piece = left < (long long)sizeof zeros ? (size_t)left : sizeof zeros;
            assert_int_equal(archive_write_data(writer, zeros, piece), (la_ssize_t)piece);
            left -= (long long)piece;
        }
        archive_entry_free(entry);
    }
    assert_int_equal(archive_write_close(writer), ARCHIVE_OK);
    assert_int_equal(archive_write_free(writer), ARCHIVE_OK);
}

static unsigned char *read_whole(const char *path, long *size)
{
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    assert_int_equal(fseek(file, 0, SEEK_END), 0);
    *size = ftell(file);
    rewind(file);
    unsigned char *data = malloc((size_t)*size + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)*size, file), (size_t)*size);
    fclose(file);
    return data;
}

static void write_whole(const char *path, const unsigned char *data, long size)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(data, 1, (size_t)size, file), (size_t)size);
    assert_int_equal(fclose(file), 0);
}

/* Replaces every copy of `from` in the file by `to` (as long): a zip's names are not in its
 * checksums, so bytes no writer would put there can be planted. */
static void replace_bytes(const char *path, const char *from, const char *to)
{
    long size;
    unsigned char *data = read_whole(path, &size);
    size_t length = strlen(from);
    assert_int_equal(strlen(to), length);
    int replaced = 0;
    for (long i = 0; i + (long)length <= size; i++)
        if (memcmp(data + i, from, length) == 0) {
            memcpy(data + i, to, length);
            replaced++;
        }
    assert_true(replaced > 0);
    write_whole(path, data, size);
    free(data);
}

static uint32_t little32(const unsigned char *at)
{
    return at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}

static uint16_t little16(const unsigned char *at)
{
    return (uint16_t)(at[0] | at[1] << 8);
}

static void put32(unsigned char *at, uint32_t value)
{
    for (int i = 0; i < 4; i++)
        at[i] = (unsigned char)(value >> (8 * i));
}

/* Sets the uncompressed size that the zip's headers declare for the entry named name (its
 * local header and its central directory record), as a forger would. */
static void declare_zip_size(const char *path, const char *name, uint32_t size)
{
    long length;
    unsigned char *data = read_whole(path, &length);
    size_t name_length = strlen(name);
    int patched = 0;
    for (long i = 0; i + 46 <= length; i++) {
        uint32_t signature = little32(data + i);
        if (signature == 0x04034b50 && little16(data + i + 26) == name_length &&
            i + 30 + (long)name_length <= length && memcmp(data + i + 30, name, name_length) == 0) {
            put32(data + i + 22, size);
            patched++;
        }
        if (signature == 0x02014b50 && little16(data + i + 28) == name_length &&
            i + 46 + (long)name_length <= length && memcmp(data + i + 46, name, name_length) == 0) {
            put32(data + i + 24, size);
            patched++;
        }
    }
    assert_int_equal(patched, 2);
    write_whole(path, data, length);
    free(data);
}

static int unpack(scratch *one, const unpack_limits *limits)
{
    unpack_report_free(&one->report);
    one->error[0] = '\0';
    return unpack_archive(one->archive, one->into, limits, &one->report, one->error,
                          sizeof one->error);
}

static void expect_error(scratch *one, const char *says)
{
    if (strstr(one->error, says) == NULL)
        fail_msg("the error is '%s', expected it to say '%s'", one->error, says);
    assert_null(strchr(one->error, '\n'));
    assert_int_equal(strncmp(one->error, one->archive, strlen(one->archive)), 0);
}

static int files_found;

static int count_one(const char *path, const struct stat *status, int kind, struct FTW *where)
{
    (void)path;
    (void)status;
    (void)kind;
    files_found += where->level > 0;
    return 0;
}

/* Everything under the folder (files and folders), the folder itself not counted. */
static int entries_under(const char *folder)
{
    files_found = 0;
    assert_int_equal(nftw(folder, count_one, 16, FTW_PHYS), 0);
    return files_found;
}

static void expect_file(const scratch *one, const char *name, const char *content)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", one->into, name);
    struct stat status;
    if (lstat(path, &status) != 0 || !S_ISREG(status.st_mode))
        fail_msg("%s was not unpacked as a file", name);
    long size;
    unsigned char *data = read_whole(path, &size);
    assert_int_equal(size, (long)strlen(content));
    assert_memory_equal(data, content, (size_t)size);
    free(data);
}

static void expect_folder(const scratch *one, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", one->into, name);
    struct stat status;
    if (lstat(path, &status) != 0 || !S_ISDIR(status.st_mode))
        fail_msg("%s was not unpacked as a folder", name);
}

/* The note of the entry named (escaped) name says `says`: "skipped: WHY" or "unpacked as ...". */
static void expect_note(const scratch *one, const char *name, const char *says)
{
    int skipped = strncmp(says, "skipped: ", 9) == 0;
    if (skipped)
        says += 9;
    for (int i = 0; i < one->report.note_count; i++)
        if (strcmp(one->report.notes[i].name, name) == 0) {
            assert_int_equal(one->report.notes[i].skipped, skipped);
            if (strstr(one->report.notes[i].what, says) == NULL)
                fail_msg("the note of %s is '%s', expected '%s'", name,
                         one->report.notes[i].what, says);
            return;
        }
    fail_msg("no note for the entry %s", name);
}

/* ---- the success path ------------------------------------------------------------------------- */

static void a_class_unpacks(void **context)
{
    scratch *one = *context;
    const test_entry class[] = {
        {"ada.cu", AE_IFREG, "// ada\n", 0},
        {"ben/", AE_IFDIR, NULL, 0},
        {"ben/kernels.cu", AE_IFREG, "// ben\n", 0},
        {"cy/notes/", AE_IFDIR, NULL, 0},
    };
    write_archive(one, "class.zip", class, 4);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, "ada.cu", "// ada\n");
    expect_file(one, "ben/kernels.cu", "// ben\n");
    expect_folder(one, "cy/notes");
    assert_int_equal(one->report.entries, 4);
    assert_int_equal(one->report.note_count, 0);
    assert_int_equal(entries_under(one->into), 5);
}

static void a_tar_gz_unpacks(void **context)
{
    scratch *one = *context;
    const test_entry class[] = {
        {"ada.cu", AE_IFREG, "// ada\n", 0},
        {"../up.cu", AE_IFREG, "// up\n", 0},
    };
    write_archive(one, "class.tar.gz", class, 2);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, "ada.cu", "// ada\n");
    expect_file(one, "up.cu", "// up\n");
    expect_note(one, "../up.cu", "unpacked as up.cu");
}

static void an_empty_zip_has_no_entries(void **context)
{
    scratch *one = *context;
    write_archive(one, "empty.zip", NULL, 0);
    assert_int_equal(unpack(one, &default_limits), 0);
    assert_int_equal(one->report.entries, 0);
    assert_int_equal(entries_under(one->into), 0);
}

/* ---- limits: refused before anything is written ----------------------------------------------- */

static void a_zip_bomb_is_refused_by_its_headers(void **context)
{
    scratch *one = *context;
    const test_entry bomb[] = {
        {"ada.cu", AE_IFREG, "// ada\n", 0},
        {"bomb1.bin", AE_IFREG, NULL, 3LL << 20},
        {"bomb2.bin", AE_IFREG, NULL, 3LL << 20},
    };
    write_archive(one, "bomb.zip", bomb, 3);
    struct stat status;
    assert_int_equal(stat(one->archive, &status), 0);
    assert_true(status.st_size < 64 * 1024); /* kilobytes declaring megabytes */
    const unpack_limits limits = {4LL << 20, 4LL << 20, 100};
    assert_int_equal(unpack(one, &limits), -1);
    expect_error(one, " declares more than 4 MiB of files, the limit for an archive");
    assert_int_equal(entries_under(one->into), 0);
}

/* Over the default gigabyte: a forged header declares 2 GiB - 1 for a few bytes of data. */
static void a_zip_over_a_gigabyte_is_refused(void **context)
{
    scratch *one = *context;
    const test_entry bomb[] = {
        {"ada.cu", AE_IFREG, "// ada\n", 0},
        {"huge.bin", AE_IFREG, NULL, 1024},
    };
    write_archive(one, "huge.zip", bomb, 2);
    declare_zip_size(one->archive, "huge.bin", 0x7fffffffu);
    assert_int_equal(unpack(one, &default_limits), -1);
    expect_error(one, ": the entry huge.bin declares 2147483647 bytes, more than 1 GiB, the "
                      "limit for one file");
    assert_int_equal(entries_under(one->into), 0);
}

/* The headers say 10 bytes; the data inflates to 3 MiB. Counting what is read catches it. */
static void a_zip_whose_header_lies_is_refused_by_counting(void **context)
{
    scratch *one = *context;
    const test_entry liar[] = {
        {"ada.cu", AE_IFREG, "// ada\n", 0},
        {"liar.bin", AE_IFREG, NULL, 3LL << 20},
    };
    write_archive(one, "liar.zip", liar, 2);
    declare_zip_size(one->archive, "liar.bin", 10);
    const unpack_limits limits = {1LL << 20, 1LL << 30, 100};
    assert_int_equal(unpack(one, &limits), -1);
    expect_error(one, " unpacks to more than 1 MiB, the limit for an archive");
    assert_int_equal(entries_under(one->into), 0);
}

static void one_file_over_its_limit_is_refused(void **context)
{
    scratch *one = *context;
    const test_entry big[] = {{"big.bin", AE_IFREG, NULL, 2LL << 20}};
    write_archive(one, "big.tar", big, 1);
    const unpack_limits limits = {1LL << 30, 1LL << 20, 100};
    assert_int_equal(unpack(one, &limits), -1);
    expect_error(one, ": the entry big.bin declares 2097152 bytes, more than 1 MiB, the limit "
                      "for one file");
    assert_int_equal(entries_under(one->into), 0);
}

static void too_many_entries_are_refused(void **context)
{
    scratch *one = *context;
    enum { COUNT = UNPACK_MAX_ENTRIES + 1 };
    test_entry *many = calloc(COUNT, sizeof *many);
    char (*names)[32] = calloc(COUNT, sizeof *names);
    assert_non_null(many);
    assert_non_null(names);
    for (int i = 0; i < COUNT; i++) {
        snprintf(names[i], sizeof names[i], "f%05d.cu", i);
        many[i] = (test_entry){names[i], AE_IFREG, "", 0};
    }
    write_archive(one, "many.zip", many, COUNT);
    assert_int_equal(unpack(one, &default_limits), -1);
    expect_error(one, " holds more than 10000 entries, the limit for an archive");
    assert_int_equal(entries_under(one->into), 0);
    /* Skipped entries count: eleven symbolic links against a limit of ten. */
    for (int i = 0; i < 11; i++)
        many[i] = (test_entry){names[i], AE_IFLNK, "/etc/passwd", 0};
    write_archive(one, "links.zip", many, 11);
    const unpack_limits ten = {1LL << 20, 1LL << 20, 10};
    assert_int_equal(unpack(one, &ten), -1);
    expect_error(one, " holds more than 10 entries");
    assert_int_equal(entries_under(one->into), 0);
    free(names);
    free(many);
}

/* ---- names ------------------------------------------------------------------------------------ */

static void names_that_climb_out_stay_inside(void **context)
{
    scratch *one = *context;
    const test_entry climbers[] = {
        {"../x.cu", AE_IFREG, "// x\n", 0},
        {"/abs/y.cu", AE_IFREG, "// y\n", 0},
        {"a/../../z.cu", AE_IFREG, "// z\n", 0},
        {"./plain/./w.cu", AE_IFREG, "// w\n", 0},
        {"..", AE_IFREG, "// nothing\n", 0},
    };
    write_archive(one, "climb.tar", climbers, 5);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, "x.cu", "// x\n");
    expect_file(one, "abs/y.cu", "// y\n");
    expect_file(one, "a/z.cu", "// z\n");
    expect_file(one, "plain/w.cu", "// w\n");
    expect_note(one, "../x.cu", "unpacked as x.cu (a name may not begin at '/' or climb out with '..')");
    expect_note(one, "/abs/y.cu", "unpacked as abs/y.cu");
    expect_note(one, "a/../../z.cu", "unpacked as a/z.cu");
    expect_note(one, "..", "skipped: nothing is left of its name without '/', '.' and '..'");
    assert_int_equal(one->report.note_count, 4); /* "./plain/./w.cu" needs no word */
    /* Nothing beside the folder unpacked into. */
    assert_int_equal(entries_under(one->folder), 1 + 1 + entries_under(one->into));
}

static void long_names(void **context)
{
    scratch *one = *context;
    char name250[251], folder250[300], part300[320];
    memset(name250, 'n', 250);
    name250[250] = '\0';
    snprintf(folder250, sizeof folder250, "%s/kernels.cu", name250);
    memset(part300, 'p', 300);
    part300[300] = '\0';
    const test_entry entries[] = {
        {folder250, AE_IFREG, "// long\n", 0},
        {part300, AE_IFREG, "// too long\n", 0},
    };
    write_archive(one, "long.zip", entries, 2);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, folder250, "// long\n");
    expect_note(one, part300, "skipped: a part of its name is longer than 255 bytes");
}

/* Bytes that are not UTF-8 are kept as they are: two names that differ only there stay two. */
static void names_that_are_not_utf8_stay_distinct(void **context)
{
    scratch *one = *context;
    const test_entry entries[] = {
        {"aX.cu", AE_IFREG, "// one\n", 0},
        {"aY.cu", AE_IFREG, "// two\n", 0},
    };
    write_archive(one, "bytes.zip", entries, 2);
    replace_bytes(one->archive, "aX.cu", "a\xff.cu");
    replace_bytes(one->archive, "aY.cu", "a\xfe.cu");
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, "a\xff.cu", "// one\n");
    expect_file(one, "a\xfe.cu", "// two\n");
    assert_int_equal(one->report.note_count, 0);
}

/* A name marked UTF-8 (as every zip tool marks one beyond ASCII) unpacks as it is; one marked
 * UTF-8 that is not is skipped and said. */
static void utf8_names(void **context)
{
    scratch *one = *context;
    /* The writer marks a name UTF-8 when it converts it from a UTF-8 locale. */
    locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    assert_true(utf8 != (locale_t)0);
    locale_t previous = uselocale(utf8);
    const test_entry entries[] = {
        {"caf\xc3\xa9/kernels.cu", AE_IFREG, "// cafe\n", 0},
        {"b\xc3\xa9Q.cu", AE_IFREG, "// broken\n", 0},
    };
    write_archive(one, "utf8.zip", entries, 2);
    uselocale(previous);
    freelocale(utf8);
    replace_bytes(one->archive, "\xc3\xa9Q.cu", "\xc3\xa9\xff.cu");
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, "caf\xc3\xa9/kernels.cu", "// cafe\n");
    expect_note(one, "entry 2", "skipped: its name cannot be read");
}

static void dot_folders_and_line_breaks_are_names(void **context)
{
    scratch *one = *context;
    const test_entry entries[] = {
        {".alice/kernels.cu", AE_IFREG, "// alice\n", 0},
        {"new\nline.cu", AE_IFREG, "// newline\n", 0},
        {"evil\nlink", AE_IFLNK, "/etc/passwd", 0},
    };
    write_archive(one, "dots.zip", entries, 3);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, ".alice/kernels.cu", "// alice\n");
    expect_file(one, "new\nline.cu", "// newline\n");
    expect_note(one, "evil\\u{000a}link", "skipped: a symbolic link");
}

/* ---- kinds ------------------------------------------------------------------------------------ */

static void links_are_never_followed_or_made(void **context)
{
    scratch *one = *context;
    const test_entry entries[] = {
        {"passwd", AE_IFLNK, "/etc/passwd", 0},
        {"out", AE_IFLNK, "/tmp", 0},
        {"out/evil.cu", AE_IFREG, "// evil\n", 0},
    };
    write_archive(one, "links.zip", entries, 3);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_note(one, "passwd", "skipped: a symbolic link (links are never followed or made)");
    expect_note(one, "out", "skipped: a symbolic link");
    /* The file "under" the skipped link lands in a folder of its own, inside. */
    expect_folder(one, "out");
    expect_file(one, "out/evil.cu", "// evil\n");
    assert_int_equal(entries_under(one->into), 2);
}

static void hard_links_and_pipes_are_skipped(void **context)
{
    scratch *one = *context;
    const test_entry entries[] = {
        {"ada.cu", AE_IFREG, "// ada\n", 0},
        {"hard.cu", 0, "ada.cu", 0},
        {"pipe", AE_IFIFO, NULL, 0},
    };
    write_archive(one, "kinds.tar", entries, 3);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, "ada.cu", "// ada\n");
    expect_note(one, "hard.cu", "skipped: a hard link");
    expect_note(one, "pipe", "skipped: a device, pipe or socket (only files and folders are unpacked)");
    assert_int_equal(entries_under(one->into), 1);
}

static void names_that_collide(void **context)
{
    scratch *one = *context;
    const test_entry entries[] = {
        {"ada.cu", AE_IFREG, "// first\n", 0},
        {"./ada.cu", AE_IFREG, "// second\n", 0},
        {"ben", AE_IFREG, "// a file\n", 0},
        {"ben/kernels.cu", AE_IFREG, "// under a file\n", 0},
    };
    write_archive(one, "twice.tar", entries, 4);
    assert_int_equal(unpack(one, &default_limits), 0);
    expect_file(one, "ada.cu", "// first\n");
    expect_note(one, "./ada.cu", "skipped: an entry of the same name came before it");
    expect_file(one, "ben", "// a file\n");
    expect_note(one, "ben/kernels.cu", "skipped: a file named like its folder came before it");
}

/* ---- refusals --------------------------------------------------------------------------------- */

static void not_an_archive(void **context)
{
    scratch *one = *context;
    snprintf(one->archive, sizeof one->archive, "%s/notes.zip", one->folder);
    write_whole(one->archive, (const unsigned char *)"not a zip\n", 10);
    assert_int_equal(unpack(one, &default_limits), -1);
    expect_error(one, "/notes.zip is not a zip archive (");
    assert_int_equal(entries_under(one->into), 0);
}

static void a_damaged_zip(void **context)
{
    scratch *one = *context;
    const test_entry entries[] = {{"data.bin", AE_IFREG, NULL, 256 * 1024}};
    write_archive(one, "damaged.zip", entries, 1);
    long size;
    unsigned char *data = read_whole(one->archive, &size);
    /* Scramble the compressed data, past the local header and the name. */
    for (long i = 60; i < 90 && i < size; i++)
        data[i] ^= 0x5a;
    write_whole(one->archive, data, size);
    free(data);
    assert_int_equal(unpack(one, &default_limits), -1);
    expect_error(one, " is damaged");
    assert_int_equal(entries_under(one->into), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_class_unpacks, set_up, tear_down),
        cmocka_unit_test_setup_teardown(a_tar_gz_unpacks, set_up, tear_down),
        cmocka_unit_test_setup_teardown(an_empty_zip_has_no_entries, set_up, tear_down),
        cmocka_unit_test_setup_teardown(a_zip_bomb_is_refused_by_its_headers, set_up, tear_down),
        cmocka_unit_test_setup_teardown(a_zip_over_a_gigabyte_is_refused, set_up, tear_down),
        cmocka_unit_test_setup_teardown(a_zip_whose_header_lies_is_refused_by_counting, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(one_file_over_its_limit_is_refused, set_up, tear_down),
        cmocka_unit_test_setup_teardown(too_many_entries_are_refused, set_up, tear_down),
        cmocka_unit_test_setup_teardown(names_that_climb_out_stay_inside, set_up, tear_down),
        cmocka_unit_test_setup_teardown(long_names, set_up, tear_down),
        cmocka_unit_test_setup_teardown(names_that_are_not_utf8_stay_distinct, set_up, tear_down),
        cmocka_unit_test_setup_teardown(utf8_names, set_up, tear_down),
        cmocka_unit_test_setup_teardown(dot_folders_and_line_breaks_are_names, set_up, tear_down),
        cmocka_unit_test_setup_teardown(links_are_never_followed_or_made, set_up, tear_down),
        cmocka_unit_test_setup_teardown(hard_links_and_pipes_are_skipped, set_up, tear_down),
        cmocka_unit_test_setup_teardown(names_that_collide, set_up, tear_down),
        cmocka_unit_test_setup_teardown(not_an_archive, set_up, tear_down),
        cmocka_unit_test_setup_teardown(a_damaged_zip, set_up, tear_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
