/* unpack.h: a class archive (.zip, .tar, .tar.gz or .tgz) unpacked into a scratch folder with
 * libarchive, its totals counted before anything is written.
 *
 * Three passes. The first reads the headers only: the entries and the bytes each declares.
 * The second reads the data and throws it away, counting the bytes it holds once uncompressed
 * (headers can lie). An archive over a limit (the entries, the bytes of one file, the bytes of
 * all) is refused there with one line, before anything is written and with at most a limit's
 * worth of bytes inflated. The third writes, counting again (an archive that grew in between
 * is refused there).
 *
 * What is written: files and folders only, under the given folder only. A symbolic link, a
 * hard link, a device, a pipe or a socket is skipped, never followed or made. Names are taken
 * as bytes (no conversion that could make two names one): empty, "." and ".." parts are taken
 * out ("/abs/x" is unpacked as "abs/x", "../../x" as "x"). Every entry skipped or renamed is
 * a note of the report with its reason.
 */
#ifndef MEMLAB_UNPACK_H
#define MEMLAB_UNPACK_H

#include <stddef.h>

/* A class's kernels are kilobytes each: a gigabyte is far more than any class, far less than a
 * disk. */
#define UNPACK_MAX_TOTAL_BYTES (1024LL * 1024 * 1024)
/* Entries of any kind: a few per student, for classes of hundreds. */
#define UNPACK_MAX_ENTRIES 10000L

typedef struct {
    long long max_total_bytes;  /* uncompressed bytes of every entry together */
    long long max_file_bytes;   /* of one entry */
    long max_entries;           /* entries of any kind, skipped ones included */
} unpack_limits;

typedef struct {
    char *name;                 /* the entry's name in the archive, escaped (text_escape) */
    int skipped;                /* 1: not unpacked; 0: unpacked under another name */
    char *what;                 /* why: "a symbolic link ...", "unpacked as x (...)" */
} unpack_note;

typedef struct {
    long entries;               /* entries read, of any kind */
    unpack_note *notes;         /* every entry skipped or renamed, in the archive's order */
    int note_count, note_capacity;
} unpack_report;

/* 1 if the name ends in .zip, .tar, .tar.gz or .tgz (what unpack_archive reads). */
int unpack_is_archive(const char *path);

/* Unpacks archive into the folder into (an empty folder of the caller's). Returns 0 with the
 * report filled in; or -1 with one line in error, the archive's name first: not an archive of
 * its kind, damaged, over a limit, or a file that cannot be written. After a refusal by a
 * limit nothing was written; after another failure the caller removes into. */
int unpack_archive(const char *archive, const char *into, const unpack_limits *limits,
                   unpack_report *report, char *error, size_t error_size);

void unpack_report_free(unpack_report *report);

#endif
