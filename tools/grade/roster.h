/* roster.h: who handed in what, from the submission_metadata.yml of Gradescope's "Export
 * Submissions" download.
 *
 * The export is a folder (or a .zip of one) holding one folder per submission and
 * submission_metadata.yml, a YAML mapping keyed by those folder names, in Ruby's notation:
 *
 *   submission_409194023:
 *     :submitters:
 *     - :name: Ada Lovelace
 *       :sid: '1815'
 *       :email: ada@example.edu
 *     :created_at: 2026-04-26 17:34:00.861687000 Z
 *     :score: 2.0
 *     :results: ...
 *
 * A group submission lists every student of the group. Only :submitters is read (its :name,
 * :sid and :email); every other key, and whatever is nested under it, is skipped.
 */
#ifndef MEMLAB_ROSTER_H
#define MEMLAB_ROSTER_H

#include <stddef.h>

#define ROSTER_MAX_STUDENTS 16
#define ROSTER_FIELD_SIZE 256

typedef struct {
    char name[ROSTER_FIELD_SIZE];
    char sid[ROSTER_FIELD_SIZE];
    char email[ROSTER_FIELD_SIZE];
} roster_student;

typedef struct {
    char folder[ROSTER_FIELD_SIZE];     /* "submission_409194023" */
    int line;                           /* --roster: the CSV line its row starts on */
    roster_student students[ROSTER_MAX_STUDENTS];
    int count;
} roster_submission;

typedef struct {
    roster_submission *submissions;
    int count;
    int capacity;
} roster;

/* Reads a submission_metadata.yml. Returns 0, or -1 with "FILE:LINE: what is wrong" in error. */
int roster_read(roster *students, const char *path, char *error, size_t error_size);

/* The same from text in memory; `name` stands for the file in messages. */
int roster_parse(roster *students, const char *text, const char *name, char *error,
                 size_t error_size);

/* --roster: a CSV file naming the student of each submission of a folder (not an export's).
 * RFC 4180: fields separated by commas, a field in double quotes may hold commas, line breaks
 * and doubled quotes (""); records end with CRLF or LF; a UTF-8 byte-order mark is skipped;
 * an empty line is skipped. The first record is the header. It names (case aside, spaces
 * around a name aside) the columns `submission` (the submission's name as the batch names it:
 * NAME for NAME.cu and NAME/, the repository's folder for a clone), `sid`, `email` and `name`,
 * each once, in any order; other columns are ignored. Every record has the header's number of
 * fields and a submission name not listed before. Each record becomes a roster_submission of
 * one student. Returns 0, or -1 with "FILE:LINE: what is wrong" in error (no cell's text: the
 * line says where). */
int roster_read_csv(roster *students, const char *path, char *error, size_t error_size);

/* The same from `length` bytes in memory; `name` stands for the file in messages. */
int roster_parse_csv(roster *students, const char *text, size_t length, const char *name,
                     char *error, size_t error_size);

/* The submission of that folder, or NULL. */
const roster_submission *roster_find(const roster *students, const char *folder);

void roster_free(roster *students);

#endif
