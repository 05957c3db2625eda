/* roster.c: the students of a Gradescope export, from its submission_metadata.yml, or of a
 * folder of submissions, from a --roster CSV file (see roster.h).
 *
 * A reader of the YAML that Gradescope writes, not of YAML at large: a mapping of folder names
 * (at the start of a line), each holding a mapping indented under it, whose :submitters key
 * holds a list ("- " items, at the key's indentation or deeper) of :name, :sid and :email.
 * Values are plain, 'single-quoted' or "double-quoted" (with \" \\ \n \t \xXX \uXXXX escapes)
 * on one line. Anything else under a folder (its :results, block scalars and all) is skipped.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "roster.h"

#include <strings.h> /* strncasecmp */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;           /* the file, for messages */
    int line;
    char *error;
    size_t error_size;
} parse_place;

static int parse_error(const parse_place *place, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static int parse_error(const parse_place *place, const char *format, ...)
{
    int used = snprintf(place->error, place->error_size, "%s:%d: ", place->name, place->line);
    if (used < 0 || (size_t)used >= place->error_size)
        return -1;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(place->error + used, place->error_size - (size_t)used, format, arguments);
    va_end(arguments);
    return -1;
}

/* Appends one character to out (size bytes); -1 when it does not fit. */
static int put(char *out, size_t size, size_t *used, char c)
{
    if (*used + 1 >= size)
        return -1;
    out[(*used)++] = c;
    out[*used] = '\0';
    return 0;
}

/* Appends the UTF-8 encoding of a code point. */
static int put_code_point(char *out, size_t size, size_t *used, unsigned long code)
{
    if (code < 0x80)
        return put(out, size, used, (char)code);
    if (code < 0x800)
        return put(out, size, used, (char)(0xc0 | (code >> 6))) ||
               put(out, size, used, (char)(0x80 | (code & 0x3f)));
    if (code < 0x10000)
        return put(out, size, used, (char)(0xe0 | (code >> 12))) ||
               put(out, size, used, (char)(0x80 | ((code >> 6) & 0x3f))) ||
               put(out, size, used, (char)(0x80 | (code & 0x3f)));
    return put(out, size, used, (char)(0xf0 | (code >> 18))) ||
           put(out, size, used, (char)(0x80 | ((code >> 12) & 0x3f))) ||
           put(out, size, used, (char)(0x80 | ((code >> 6) & 0x3f))) ||
           put(out, size, used, (char)(0x80 | (code & 0x3f)));
}

static int hex_digits(const char *text, int count, unsigned long *value)
{
    *value = 0;
    for (int i = 0; i < count; i++) {
        char c = text[i];
        int digit = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
        if (digit < 0)
            return -1;
        *value = *value * 16 + (unsigned long)digit;
    }
    return 0;
}

/* Nothing but spaces or a comment left on the line. */
static int blank_rest(const char *text)
{
    while (*text == ' ')
        text++;
    return *text == '\0' || *text == '#';
}

/* One scalar at text: plain, single- or double-quoted. Its value goes to out; *end points
 * past it. Returns 0 or -1 with the message in place. */
static int parse_scalar(const parse_place *place, const char *text, char *out, size_t size,
                        int stop_at_colon, const char **end)
{
    size_t used = 0;
    out[0] = '\0';
    if (*text == '\'') {
        const char *p = text + 1;
        for (;;) {
            if (*p == '\0')
                return parse_error(place, "a quoted value that does not end on its line");
            if (*p == '\'' && p[1] == '\'') {
                if (put(out, size, &used, '\''))
                    return parse_error(place, "a value longer than %zu bytes", size - 1);
                p += 2;
                continue;
            }
            if (*p == '\'')
                break;
            if (put(out, size, &used, *p++))
                return parse_error(place, "a value longer than %zu bytes", size - 1);
        }
        *end = p + 1;
        return 0;
    }
    if (*text == '"') {
        const char *p = text + 1;
        for (;;) {
            if (*p == '\0')
                return parse_error(place, "a quoted value that does not end on its line");
            if (*p == '"')
                break;
            int status = 0;
            if (*p != '\\') {
                status = put(out, size, &used, *p++);
            } else {
                unsigned long code;
                char escape = p[1];
                int digits = escape == 'x' ? 2 : escape == 'u' ? 4 : escape == 'U' ? 8 : 0;
                if (digits > 0) {
                    if (hex_digits(p + 2, digits, &code) != 0)
                        return parse_error(place, "a \\%c escape without its %d hex digits",
                                           escape, digits);
                    status = put_code_point(out, size, &used, code);
                    p += 2 + digits;
                } else {
                    const char *from = "\\\"/nt", *to = "\\\"/\n\t";
                    const char *found = escape != '\0' ? strchr(from, escape) : NULL;
                    if (found == NULL)
                        return parse_error(place, "an escape \\%c that this reader does not know",
                                           escape != '\0' ? escape : ' ');
                    status = put(out, size, &used, to[found - from]);
                    p += 2;
                }
            }
            if (status != 0)
                return parse_error(place, "a value longer than %zu bytes", size - 1);
        }
        *end = p + 1;
        return 0;
    }
    /* Plain: to the end of the line, a comment, or (for a key) its ':' separator. */
    const char *p = text;
    while (*p != '\0' && !(*p == '#' && p > text && p[-1] == ' ') &&
           !(stop_at_colon && *p == ':' && p > text && (p[1] == ' ' || p[1] == '\0')))
        p++;
    const char *last = p;
    while (last > text && last[-1] == ' ')
        last--;
    if ((size_t)(last - text) >= size)
        return parse_error(place, "a value longer than %zu bytes", size - 1);
    memcpy(out, text, (size_t)(last - text));
    out[last - text] = '\0';
    if (!stop_at_colon && (strcmp(out, "~") == 0 || strcmp(out, "null") == 0))
        out[0] = '\0';
    *end = p;
    return 0;
}

/* "KEY: VALUE": the key (a Ruby symbol's leading ':' dropped) and where its value starts. */
static int split_key(const parse_place *place, const char *content, char *key, size_t size,
                     const char **value)
{
    const char *p = content;
    int symbol = *p == ':' && p[1] != ' ' && p[1] != '\0';
    if (parse_scalar(place, p + symbol, key, size, 1, &p) != 0)
        return -1;
    if (*p != ':' || (p[1] != ' ' && p[1] != '\0'))
        return parse_error(place, "expected 'KEY:' here, got '%.80s'", content);
    p++;
    while (*p == ' ')
        p++;
    *value = p;
    return 0;
}

/* A value on its own, nothing after it but a comment. */
static int whole_value(const parse_place *place, const char *text, char *out, size_t size)
{
    const char *end;
    if (parse_scalar(place, text, out, size, 0, &end) != 0)
        return -1;
    if (!blank_rest(end))
        return parse_error(place, "text after a quoted value: '%.80s'", end);
    return 0;
}

static roster_submission *add_submission(roster *students)
{
    if (students->count == students->capacity) {
        int capacity = students->capacity == 0 ? 64 : 2 * students->capacity;
        roster_submission *grown = realloc(students->submissions,
                                           (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            return NULL;
        students->submissions = grown;
        students->capacity = capacity;
    }
    roster_submission *added = &students->submissions[students->count++];
    memset(added, 0, sizeof *added);
    return added;
}

/* One "KEY: VALUE" of a submitter. */
static int submitter_field(const parse_place *place, const char *content, roster_student *student)
{
    char key[ROSTER_FIELD_SIZE];
    const char *value;
    if (split_key(place, content, key, sizeof key, &value) != 0)
        return -1;
    char *field = strcmp(key, "name") == 0    ? student->name
                  : strcmp(key, "sid") == 0   ? student->sid
                  : strcmp(key, "email") == 0 ? student->email
                                              : NULL;
    if (field == NULL)
        return 0;
    return whole_value(place, value, field, ROSTER_FIELD_SIZE);
}

int roster_parse(roster *students, const char *text, const char *name, char *error,
                 size_t error_size)
{
    parse_place place = {name, 0, error, error_size};
    char *copy = strdup(text);
    if (copy == NULL)
        return parse_error(&place, "out of host memory");
    roster_submission *current = NULL;
    int child_indent = -1;      /* the indentation of the current folder's keys */
    int in_submitters = 0;
    int item_indent = -1;       /* a submitter's keys after its "- " line */
    roster_student *student = NULL;
    int status = 0;
    char *saved = NULL;
    for (char *line = copy; line != NULL && status == 0; line = saved) {
        char *newline = strchr(line, '\n');
        saved = newline != NULL ? newline + 1 : NULL;
        if (newline != NULL)
            *newline = '\0';
        place.line++;
        size_t length = strlen(line);
        if (length > 0 && line[length - 1] == '\r')
            line[length - 1] = '\0';
        int indent = 0;
        while (line[indent] == ' ')
            indent++;
        const char *content = line + indent;
        if (*content == '\t') {
            status = parse_error(&place, "a tab in the indentation (YAML indents with spaces)");
            break;
        }
        if (*content == '\0' || *content == '#' || strcmp(line, "---") == 0 ||
            strcmp(line, "...") == 0)
            continue;

        if (indent == 0) {
            /* A submission folder: "submission_409194023:". */
            char key[ROSTER_FIELD_SIZE];
            const char *value;
            status = split_key(&place, content, key, sizeof key, &value);
            if (status == 0 && !blank_rest(value))
                status = parse_error(&place, "a submission folder's name should end its line: "
                                             "'%.80s'", content);
            if (status == 0 && (key[0] == '\0' || strchr(key, '/') != NULL ||
                                strcmp(key, ".") == 0 || strcmp(key, "..") == 0))
                status = parse_error(&place, "'%.80s' is no submission folder's name", key);
            if (status == 0 && roster_find(students, key) != NULL)
                status = parse_error(&place, "the folder '%.80s' is listed twice", key);
            if (status == 0 && (current = add_submission(students)) == NULL)
                status = parse_error(&place, "out of host memory");
            if (status == 0)
                snprintf(current->folder, sizeof current->folder, "%s", key);
            child_indent = -1;
            in_submitters = 0;
            student = NULL;
            continue;
        }
        if (current == NULL) {
            status = parse_error(&place, "an indented line before the first submission folder");
            break;
        }
        if (child_indent < 0)
            child_indent = indent;
        int item = content[0] == '-' && (content[1] == ' ' || content[1] == '\0');
        if (indent < child_indent) {
            status = parse_error(&place, "a line indented less than the keys of its folder");
        } else if (indent == child_indent && !item) {
            /* A key of the folder: only :submitters matters. */
            char key[ROSTER_FIELD_SIZE];
            const char *value;
            status = split_key(&place, content, key, sizeof key, &value);
            in_submitters = status == 0 && strcmp(key, "submitters") == 0;
            student = NULL;
            if (in_submitters && !blank_rest(value) && strncmp(value, "[]", 2) != 0)
                status = parse_error(&place, ":submitters should be a list of '- ' items");
        } else if (in_submitters && item) {
            if (current->count == ROSTER_MAX_STUDENTS) {
                status = parse_error(&place, "more than %d students in one submission",
                                     ROSTER_MAX_STUDENTS);
                break;
            }
            student = &current->students[current->count++];
            item_indent = indent + 2;
            const char *field = content + 1;
            while (*field == ' ')
                field++;
            if (*field != '\0')
                status = submitter_field(&place, field, student);
        } else if (in_submitters && student != NULL && indent == item_indent) {
            status = submitter_field(&place, content, student);
        }
        /* Anything else (deeper, or under another key) is not the roster's. */
    }
    free(copy);
    return status;
}

/* A whole file: its bytes (NUL-terminated, the caller frees them) and their number, or NULL
 * with "cannot read PATH" in error. */
static char *read_whole(const char *path, size_t *length, char *error, size_t error_size)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        snprintf(error, error_size, "cannot read %s", path);
        return NULL;
    }
    size_t size = 0, capacity = 65536;
    char *text = malloc(capacity);
    size_t got;
    while (text != NULL && (got = fread(text + size, 1, capacity - size - 1, file)) > 0) {
        size += got;
        if (capacity - size - 1 == 0) {
            char *grown = realloc(text, 2 * capacity);
            if (grown == NULL)
                free(text);
            text = grown;
            capacity *= 2;
        }
    }
    int failed = text == NULL || ferror(file);
    fclose(file);
    if (failed) {
        free(text);
        snprintf(error, error_size, "cannot read %s", path);
        return NULL;
    }
    text[size] = '\0';
    *length = size;
    return text;
}

int roster_read(roster *students, const char *path, char *error, size_t error_size)
{
    size_t size;
    char *text = read_whole(path, &size, error, error_size);
    if (text == NULL)
        return -1;
    if (strlen(text) != size) {
        free(text);
        snprintf(error, error_size, "%s holds a NUL byte: not a submission_metadata.yml", path);
        return -1;
    }
    int status = roster_parse(students, text, path, error, error_size);
    free(text);
    return status;
}

/* ---- --roster: a CSV file ---------------------------------------------------------------- */

enum { CSV_SUBMISSION, CSV_SID, CSV_EMAIL, CSV_NAME, CSV_COLUMNS };
static const char *const csv_headers[CSV_COLUMNS] = {"submission", "sid", "email", "name"};
#define CSV_MAX_COLUMNS 256

typedef struct {
    const char *at, *end;
} csv_reader;

/* Past a record's end (CRLF, LF, or a CR alone) at reader->at, counting the line. */
static void csv_end_record(parse_place *place, csv_reader *reader)
{
    if (reader->at < reader->end && *reader->at == '\r')
        reader->at++;
    if (reader->at < reader->end && *reader->at == '\n')
        reader->at++;
    place->line++;
}

/* One field into out (size bytes; NULL: read and dropped). *ended: 1 when it ended its record.
 * Returns 0, or -1 with the message in place. */
static int csv_field(parse_place *place, csv_reader *reader, char *out, size_t size, int *ended)
{
    char dropped[2];
    if (out == NULL) {
        out = dropped;
        size = 0;
    }
    size_t used = 0;
    out[0] = '\0';
    const char *p = reader->at, *end = reader->end;
    int too_long = 0;
    if (p < end && *p == '"') {
        int first_line = place->line;
        for (p++;; p++) {
            if (p == end) {
                place->line = first_line;
                return parse_error(place, "a quoted field that does not end (its closing quote "
                                          "is missing)");
            }
            if (*p == '"' && p + 1 < end && p[1] == '"')
                p++;
            else if (*p == '"')
                break;
            else if (*p == '\n')
                place->line++;
            too_long |= size > 0 && put(out, size, &used, *p) != 0;
        }
        p++;
        if (p < end && *p != ',' && *p != '\n' && *p != '\r')
            return parse_error(place, "text after a field's closing quote (a quote inside a "
                                      "quoted field is doubled: \"\")");
    } else {
        for (; p < end && *p != ',' && *p != '\n' && *p != '\r'; p++) {
            if (*p == '"')
                return parse_error(place, "a quote inside a field that does not begin with one "
                                          "(quote the whole field, and double the quote: \"\")");
            too_long |= size > 0 && put(out, size, &used, *p) != 0;
        }
    }
    if (too_long)
        return parse_error(place, "a field longer than %zu bytes", size - 1);
    reader->at = p;
    *ended = p == end || *p != ',';
    if (*ended)
        csv_end_record(place, reader);
    else
        reader->at++;
    return 0;
}

/* The column a header field names, or -1: spaces around it and case aside. */
static int csv_column(const char *header)
{
    while (*header == ' ')
        header++;
    size_t length = strlen(header);
    while (length > 0 && header[length - 1] == ' ')
        length--;
    for (int c = 0; c < CSV_COLUMNS; c++)
        if (length == strlen(csv_headers[c]) && strncasecmp(header, csv_headers[c], length) == 0)
            return c;
    return -1;
}

int roster_parse_csv(roster *students, const char *text, size_t length, const char *name,
                     char *error, size_t error_size)
{
    parse_place place = {name, 1, error, error_size};
    const char *nul = memchr(text, '\0', length);
    if (nul != NULL) {
        for (const char *p = text; p < nul; p++)
            place.line += *p == '\n';
        return parse_error(&place, "a NUL byte: not a CSV file");
    }
    csv_reader reader = {text, text + length};
    if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        reader.at += 3; /* a byte-order mark, as spreadsheets write UTF-8 CSV */
    int column_of[CSV_COLUMNS] = {-1, -1, -1, -1};
    int width = 0;
    char field[ROSTER_FIELD_SIZE];
    while (reader.at < reader.end) {
        if (*reader.at == '\n' || *reader.at == '\r') {
            csv_end_record(&place, &reader); /* an empty line */
            continue;
        }
        int record_line = place.line, ended = 0;
        if (width == 0) {
            /* The header. */
            while (!ended) {
                if (width == CSV_MAX_COLUMNS)
                    return parse_error(&place, "more than %d columns in the header",
                                       CSV_MAX_COLUMNS);
                if (csv_field(&place, &reader, field, sizeof field, &ended) != 0)
                    return -1;
                int column = csv_column(field);
                if (column >= 0 && column_of[column] >= 0) {
                    place.line = record_line;
                    return parse_error(&place, "the header names the column '%s' twice",
                                       csv_headers[column]);
                }
                if (column >= 0)
                    column_of[column] = width;
                width++;
            }
            for (int c = 0; c < CSV_COLUMNS; c++)
                if (column_of[c] < 0) {
                    place.line = record_line;
                    return parse_error(&place, "the header has no '%s' column (it names the "
                                               "columns submission, sid, email and name; other "
                                               "columns are ignored)", csv_headers[c]);
                }
            continue;
        }
        roster_submission row;
        memset(&row, 0, sizeof row);
        row.count = 1;
        row.line = record_line;
        char *targets[CSV_COLUMNS] = {row.folder, row.students[0].sid, row.students[0].email,
                                      row.students[0].name};
        int fields = 0;
        for (; !ended; fields++) {
            char *target = NULL;
            for (int c = 0; c < CSV_COLUMNS; c++)
                if (column_of[c] == fields)
                    target = targets[c];
            if (csv_field(&place, &reader, target, ROSTER_FIELD_SIZE, &ended) != 0)
                return -1;
        }
        int next_line = place.line;
        place.line = record_line;
        if (fields != width)
            return parse_error(&place, "a row of %d field%s, but the header has %d (an empty "
                                       "value is an empty field, between two commas)",
                               fields, fields == 1 ? "" : "s", width);
        if (row.folder[0] == '\0')
            return parse_error(&place, "a row without its submission's name");
        const roster_submission *before = roster_find(students, row.folder);
        if (before != NULL)
            return parse_error(&place, "the submission of this row is listed on line %d too: "
                                       "one row a submission", before->line);
        roster_submission *added = add_submission(students);
        if (added == NULL)
            return parse_error(&place, "out of host memory");
        *added = row;
        place.line = next_line;
    }
    if (width == 0)
        return parse_error(&place, "no header: a roster's first line names its columns, "
                                   "submission,sid,email,name");
    return 0;
}

int roster_read_csv(roster *students, const char *path, char *error, size_t error_size)
{
    size_t size;
    char *text = read_whole(path, &size, error, error_size);
    if (text == NULL)
        return -1;
    int status = roster_parse_csv(students, text, size, path, error, error_size);
    free(text);
    return status;
}

const roster_submission *roster_find(const roster *students, const char *folder)
{
    for (int i = 0; i < students->count; i++)
        if (strcmp(students->submissions[i].folder, folder) == 0)
            return &students->submissions[i];
    return NULL;
}

void roster_free(roster *students)
{
    free(students->submissions);
    students->submissions = NULL;
    students->count = students->capacity = 0;
}
