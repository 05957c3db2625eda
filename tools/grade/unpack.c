/* unpack.c: a class archive unpacked with libarchive, totals counted first (see unpack.h). */
#define _POSIX_C_SOURCE 200809L /* newlocale, uselocale, O_NOFOLLOW, O_CLOEXEC */
#include "unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

#define CHUNK_BYTES 65536
#define NAME_PART_MAX 255       /* NAME_MAX of Linux's file systems */
#define NAME_MAX_BYTES 1024     /* of a whole name in the archive, once cleaned */
#define UNPACK_PATH_SIZE 4096   /* the scratch folder's path and such a name */

typedef enum { KIND_ZIP, KIND_TAR } archive_kind;

/* The passes over an archive: only the first two run before anything is written. */
typedef enum {
    PASS_HEADERS,               /* entries and declared sizes, no data read */
    PASS_COUNT,                 /* the bytes the data holds, read and thrown away */
    PASS_WRITE,                 /* written, counted again */
} pass;

typedef struct {
    const char *archive;
    const char *into;
    pass now;
    const unpack_limits *limits;
    unpack_report *report;
    char *error;
    size_t error_size;
    long long declared;         /* bytes the headers declare so far */
    long long counted;          /* bytes read so far */
    char chunk[CHUNK_BYTES];
} walk;

static void out_of_memory(void)
{
    fprintf(stderr, "memlab grade: out of host memory\n");
    exit(2);
}

static int ends_with(const char *text, const char *end)
{
    size_t length = strlen(text), end_length = strlen(end);
    return length > end_length && strcmp(text + length - end_length, end) == 0;
}

/* The archive's kind by its name, or -1. */
static int kind_of(const char *path)
{
    if (ends_with(path, ".zip"))
        return KIND_ZIP;
    if (ends_with(path, ".tar") || ends_with(path, ".tar.gz") || ends_with(path, ".tgz"))
        return KIND_TAR;
    return -1;
}

int unpack_is_archive(const char *path)
{
    return kind_of(path) >= 0;
}

static int fail(walk *state, const char *format, ...) __attribute__((format(printf, 2, 3)));

static int fail(walk *state, const char *format, ...)
{
    int used = snprintf(state->error, state->error_size, "%s", state->archive);
    va_list arguments;
    va_start(arguments, format);
    if (used >= 0 && (size_t)used < state->error_size)
        vsnprintf(state->error + used, state->error_size - (size_t)used, format, arguments);
    va_end(arguments);
    return -1;
}

/* "1 GiB", "64 KiB", "1000 bytes": a limit as people read it. */
static void bytes_text(long long bytes, char *text, size_t size)
{
    if (bytes >= 1024LL * 1024 * 1024 && bytes % (1024LL * 1024 * 1024) == 0)
        snprintf(text, size, "%lld GiB", bytes / (1024LL * 1024 * 1024));
    else if (bytes >= 1024LL * 1024 && bytes % (1024LL * 1024) == 0)
        snprintf(text, size, "%lld MiB", bytes / (1024LL * 1024));
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(text, size, "%lld KiB", bytes / 1024);
    else
        snprintf(text, size, "%lld bytes", bytes);
}

static char *escaped(const char *name)
{
    text_buffer buffer = {0};
    text_append_escaped(&buffer, name);
    return text_take(&buffer);
}

/* A note of the writing pass (the others skip the same entries without a word). */
static void note(walk *state, int skipped, const char *name, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static void note(walk *state, int skipped, const char *name, const char *format, ...)
{
    if (state->now != PASS_WRITE)
        return;
    unpack_report *report = state->report;
    if (report->note_count == report->note_capacity) {
        int capacity = report->note_capacity == 0 ? 16 : 2 * report->note_capacity;
        unpack_note *grown = realloc(report->notes, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            out_of_memory();
        report->notes = grown;
        report->note_capacity = capacity;
    }
    va_list arguments;
    va_start(arguments, format);
    int needed = vsnprintf(NULL, 0, format, arguments);
    va_end(arguments);
    char *what = needed >= 0 ? malloc((size_t)needed + 1) : NULL;
    if (what == NULL)
        out_of_memory();
    va_start(arguments, format);
    vsnprintf(what, (size_t)needed + 1, format, arguments);
    va_end(arguments);
    report->notes[report->note_count].name = escaped(name);
    report->notes[report->note_count].skipped = skipped;
    report->notes[report->note_count].what = what;
    report->note_count++;
}

typedef enum { NAME_KEPT, NAME_RENAMED, NAME_EMPTY, NAME_PART_TOO_LONG, NAME_TOO_LONG } name_fate;

/* The name with its empty, "." and ".." parts taken out, into clean: "/abs/x" -> "abs/x",
 * "a/../../x" -> "a/x". NAME_RENAMED when it began at '/' or climbed with "..". */
static name_fate clean_name(const char *raw, char *clean, size_t size)
{
    size_t used = 0;
    int climbs = raw[0] == '/';
    clean[0] = '\0';
    for (const char *part = raw; *part != '\0';) {
        const char *end = strchr(part, '/');
        size_t length = end != NULL ? (size_t)(end - part) : strlen(part);
        int dots = (length == 1 && part[0] == '.') ||
                   (length == 2 && part[0] == '.' && part[1] == '.');
        climbs |= length == 2 && dots;
        if (length > NAME_PART_MAX)
            return NAME_PART_TOO_LONG;
        if (length > 0 && !dots) {
            if (used + 1 + length >= size)
                return NAME_TOO_LONG;
            if (used > 0)
                clean[used++] = '/';
            memcpy(clean + used, part, length);
            used += length;
            clean[used] = '\0';
        }
        part += length + (end != NULL);
    }
    if (used == 0)
        return NAME_EMPTY;
    return climbs ? NAME_RENAMED : NAME_KEPT;
}

/* Makes each folder of into/clean (the last part too when it is a folder itself). Returns 0;
 * 1 when a file of the entry's is in the way (noted); -1 on an error of the file system. */
static int make_folders(walk *state, const char *raw, const char *clean, int whole)
{
    char path[UNPACK_PATH_SIZE];
    if (snprintf(path, sizeof path, "%s/%s", state->into, clean) >= (int)sizeof path)
        return fail(state, ": cannot unpack %s: its path is too long", clean);
    char *part = path + strlen(state->into) + 1;
    for (;;) {
        char *slash = strchr(part, '/');
        if (slash == NULL && !whole)
            return 0;
        if (slash != NULL)
            *slash = '\0';
        if (mkdir(path, 0755) != 0) {
            struct stat status;
            if (errno != EEXIST || lstat(path, &status) != 0)
                return fail(state, ": cannot make the folder %s: %s", path, strerror(errno));
            if (!S_ISDIR(status.st_mode)) {
                note(state, 1, raw, "a file named like its folder came before it");
                return 1;
            }
        }
        if (slash == NULL)
            return 0;
        *slash = '/';
        part = slash + 1;
    }
}

static int write_all(int file, const char *data, size_t size)
{
    while (size > 0) {
        ssize_t wrote = write(file, data, size);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            return -1;
        data += wrote;
        size -= (size_t)wrote;
    }
    return 0;
}

/* Reads the entry's data, counting its bytes against the limits, into file (-1: nowhere). */
static int read_data(walk *state, struct archive *reader, const char *raw, int file)
{
    long long bytes = 0;
    la_ssize_t got;
    while ((got = archive_read_data(reader, state->chunk, sizeof state->chunk)) > 0) {
        bytes += got;
        state->counted += got;
        if (bytes > state->limits->max_file_bytes || state->counted > state->limits->max_total_bytes)
            break;
        if (file >= 0 && write_all(file, state->chunk, (size_t)got) != 0)
            break;
    }
    if (got == 0)
        return 0;
    char *shown = escaped(raw), limit[32];
    if (got < 0) {
        fail(state, " is damaged: the entry %s: %s", shown, archive_error_string(reader));
    } else if (bytes > state->limits->max_file_bytes) {
        bytes_text(state->limits->max_file_bytes, limit, sizeof limit);
        fail(state, ": the entry %s unpacks to more than %s, the limit for one file", shown, limit);
    } else if (state->counted > state->limits->max_total_bytes) {
        bytes_text(state->limits->max_total_bytes, limit, sizeof limit);
        fail(state, " unpacks to more than %s, the limit for an archive", limit);
    } else {
        fail(state, ": cannot write the entry %s: %s", shown, strerror(errno));
    }
    free(shown);
    return -1;
}

/* The declared size of a file entry against the limits, before any of its data is read. */
static int check_declared(walk *state, struct archive_entry *entry, const char *raw)
{
    if (!archive_entry_size_is_set(entry))
        return 0;
    long long size = (long long)archive_entry_size(entry);
    char limit[32];
    char *shown = escaped(raw);
    int status = 0;
    if (size > state->limits->max_file_bytes) {
        bytes_text(state->limits->max_file_bytes, limit, sizeof limit);
        status = fail(state, ": the entry %s declares %lld bytes, more than %s, the limit for "
                             "one file", shown, size, limit);
    } else if ((state->declared += size) > state->limits->max_total_bytes) {
        bytes_text(state->limits->max_total_bytes, limit, sizeof limit);
        status = fail(state, " declares more than %s of files, the limit for an archive", limit);
    }
    free(shown);
    return status;
}

/* A file entry: its data counted, and in the writing pass written to into/clean. */
static int file_entry(walk *state, struct archive *reader, const char *raw, const char *clean,
                      int named)
{
    if (state->now == PASS_HEADERS)
        return 0;
    if (state->now != PASS_WRITE || !named)
        return read_data(state, reader, raw, -1);
    int status = make_folders(state, raw, clean, 0);
    if (status != 0)
        return status < 0 ? status : read_data(state, reader, raw, -1);
    char path[UNPACK_PATH_SIZE];
    snprintf(path, sizeof path, "%s/%s", state->into, clean);
    int file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (file < 0 && errno == EEXIST) {
        note(state, 1, raw, "an entry of the same name came before it");
        return read_data(state, reader, raw, -1);
    }
    if (file < 0)
        return fail(state, ": cannot write %s: %s", path, strerror(errno));
    status = read_data(state, reader, raw, file);
    if (close(file) != 0 && status == 0)
        status = fail(state, ": cannot write %s: %s", path, strerror(errno));
    return status;
}

/* One entry of either pass. */
static int entry_of(walk *state, struct archive *reader, struct archive_entry *entry,
                    const char *raw)
{
    mode_t type = archive_entry_filetype(entry);
    if (archive_entry_hardlink(entry) != NULL) {
        note(state, 1, raw, "a hard link (links are never followed or made)");
        return 0;
    }
    if (type == AE_IFLNK) {
        note(state, 1, raw, "a symbolic link (links are never followed or made)");
        return 0;
    }
    if (type != AE_IFREG && type != AE_IFDIR) {
        note(state, 1, raw, "a device, pipe or socket (only files and folders are unpacked)");
        return 0;
    }
    char clean[NAME_MAX_BYTES + 1];
    name_fate fate = clean_name(raw, clean, sizeof clean);
    if (fate == NAME_EMPTY)
        note(state, 1, raw, "nothing is left of its name without '/', '.' and '..'");
    else if (fate == NAME_PART_TOO_LONG)
        note(state, 1, raw, "a part of its name is longer than %d bytes", NAME_PART_MAX);
    else if (fate == NAME_TOO_LONG)
        note(state, 1, raw, "its name is longer than %d bytes", NAME_MAX_BYTES);
    int named = fate == NAME_KEPT || fate == NAME_RENAMED;
    if (fate == NAME_RENAMED) {
        char *shown = escaped(clean);
        note(state, 0, raw, "unpacked as %s (a name may not begin at '/' or climb out with '..')",
             shown);
        free(shown);
    }
    if (type == AE_IFDIR && state->now == PASS_WRITE && named)
        return make_folders(state, raw, clean, 1) < 0 ? -1 : 0;
    if (type == AE_IFDIR)
        return 0;
    int status = check_declared(state, entry, raw);
    return status != 0 ? status : file_entry(state, reader, raw, clean, named);
}

/* One pass over the archive (state->now). */
static int walk_archive(walk *state)
{
    int kind = kind_of(state->archive);
    struct archive *reader = archive_read_new();
    if (reader == NULL)
        out_of_memory();
    /* Only the format the name promises; a .tar may be gzipped all the same. */
    int supported = kind == KIND_ZIP ? archive_read_support_format_zip(reader)
                                     : archive_read_support_format_tar(reader);
    if (supported == ARCHIVE_OK && kind == KIND_TAR)
        supported = archive_read_support_filter_gzip(reader);
    const char *words = kind == KIND_ZIP ? "zip" : "tar";
    int status = 0;
    if (supported < ARCHIVE_WARN)
        status = fail(state, ": this libarchive cannot read a %s archive (%s)", words,
                      archive_error_string(reader));
    else if (archive_read_open_filename(reader, state->archive, CHUNK_BYTES) != ARCHIVE_OK)
        status = fail(state, " is not a %s archive (%s)", words, archive_error_string(reader));
    state->report->entries = 0;
    state->declared = state->counted = 0;
    while (status == 0) {
        struct archive_entry *entry;
        int read = archive_read_next_header(reader, &entry);
        if (read == ARCHIVE_EOF)
            break;
        if (read < ARCHIVE_WARN) {
            status = fail(state, " is damaged or not a %s archive (%s)", words,
                          archive_error_string(reader));
            break;
        }
        if (++state->report->entries > state->limits->max_entries) {
            status = fail(state, " holds more than %ld entries, the limit for an archive",
                          state->limits->max_entries);
            break;
        }
        /* A name that cannot be read (marked UTF-8 and not) comes back empty, with a warning. */
        const char *raw = archive_entry_pathname(entry);
        if (raw == NULL || raw[0] == '\0') {
            char name[64];
            snprintf(name, sizeof name, "entry %ld", state->report->entries);
            note(state, 1, name, "its name cannot be read (%s)",
                 read == ARCHIVE_WARN ? archive_error_string(reader) : "it has none");
            continue;
        }
        status = entry_of(state, reader, entry, raw);
    }
    if (archive_read_free(reader) != ARCHIVE_OK && status == 0)
        status = fail(state, " could not be read to its end");
    return status;
}

int unpack_archive(const char *archive, const char *into, const unpack_limits *limits,
                   unpack_report *report, char *error, size_t error_size)
{
    walk *state = calloc(1, sizeof *state);
    if (state == NULL)
        out_of_memory();
    *state = (walk){.archive = archive, .into = into, .limits = limits, .report = report,
                    .error = error, .error_size = error_size};
    /* libarchive converts a name marked UTF-8 into the locale's character set: in the C locale
     * every such name with a letter beyond ASCII would fail. Under C.UTF-8 these pass as they
     * are, and names not marked are taken as bytes. (Per thread: the grader's own locale stays.) */
    locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    locale_t previous = utf8 != (locale_t)0 ? uselocale(utf8) : (locale_t)0;
    int status = 0;
    for (pass now = PASS_HEADERS; now <= PASS_WRITE && status == 0; now++) {
        state->now = now;
        status = walk_archive(state);
    }
    if (utf8 != (locale_t)0) {
        uselocale(previous);
        freelocale(utf8);
    }
    free(state);
    return status;
}

void unpack_report_free(unpack_report *report)
{
    for (int i = 0; i < report->note_count; i++) {
        free(report->notes[i].name);
        free(report->notes[i].what);
    }
    free(report->notes);
    *report = (unpack_report){0};
}
