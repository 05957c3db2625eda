/* batch.c: grading a whole class (see batch.h).
 *
 *   1. refuse bad input before anything is written: SUBMISSIONS missing, empty or holding no
 *      submission, an archive that is not one or is over a limit (unpack.h), a
 *      submission_metadata.yml that does not read, an output folder that cannot be written;
 *   2. find the submissions: each NAME.cu, and in each NAME/ folder its kernels.cu, else (a clone
 *      of the student pack or the Classroom repository) its labs/NN_LAB/kernels.cu, else its
 *      only .cu; no symbolic link is followed. In Gradescope's export, each folder's students
 *      come from submission_metadata.yml.
 *      Names are data: a submission's files are named by its file key (a hash of its name),
 *      its name is escaped wherever a line shows it, and every entry left out is reported;
 *   3. for each, the key: SHA-256 of the batch's settings, the rubric, the --cases files and the
 *      submission. One whose record holds that key and a grade is kept as it is;
 *   4. grade the others, up to --jobs at a time, each in a process of its own running the
 *      single-submission path (grading.c): its compile runs at once, its cases take turns on
 *      the GPU (the GPU lock). The process writes results/ID.json (Gradescope), results/ID.txt,
 *      feedback/ID.txt, and last results/ID.record: a crash leaves no record, and no grade;
 *   5. write scores.csv and canvas.csv, and say what became of each submission.
 */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp, scandir, strdup */
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "results.h"
#include "roster.h"
#include "sha256.h"
#include "text.h"
#include "unpack.h"

enum { EXIT_PASSED = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NOT_GRADABLE = 3 };

#define METADATA_NAME "submission_metadata.yml"
#define PLAN_NAME "submissions.txt"     /* what a run sets out to grade (write_plan) */
#define SHARDS_FOLDER "shards"          /* --status: OUT/shards/K, one folder a shard */
#define ID_SIZE 256             /* a name in a folder: NAME_MAX bytes and the NUL */
#define SHOWN_SIZE (4 * ID_SIZE + 16) /* escaped, each byte at most 4 ("\xff"), and "-N" */
#define NAMES_LISTED 8          /* the summary names this many submissions of each kind */
/* What a class folder holds, for a refusal; %s is the lab's folder, 04_coalescing. */
#define WHAT_TO_GIVE "give one NAME.cu, NAME/kernels.cu or NAME/labs/%s/kernels.cu (a clone) " \
                     "per student, or Gradescope's export"

/* What became of one case of a submission. */
typedef struct {
    double points;
    char status[16];            /* "PASS", "FAIL", "NOT GRADED" */
} case_mark;

typedef enum {
    DONE_PASSED,
    DONE_FAILED,
    DONE_NOT_COMPILED,
    DONE_REFUSED,
    DONE_NOT_GRADED,
    DONE_NO_SUBMISSION,
    DONE_KINDS
} done_kind;

static const char *const done_words[DONE_KINDS] = {
    "passed", "failed", "did not compile", "refused", "not graded", "no submission",
};

typedef struct {
    char id[ID_SIZE];           /* "alice", "submission_409194023": the name, as bytes */
    char shown[SHOWN_SIZE];     /* the id as lines show it (text_escape) */
    char file_key[SHA256_HEX_SIZE]; /* SHA-256 of its name in the folder: names its files */
    char path[GRADING_PATH_SIZE]; /* the kernels .cu to grade; "" when there is none */
    char problem[512];          /* why there is none */
    const roster_submission *students; /* from Gradescope's export, else NULL */
    char key[SHA256_HEX_SIZE];
    pid_t pid;                  /* its grading process while it runs */
    const gpu_device *gpu;      /* --gpus: the GPU it is graded on (NULL: the caller's device) */
    int kept;                   /* graded before with the same key */
    done_kind done;
    char detail[512];           /* why it is not graded, what refused it */
    int scored;                 /* it has a score (a compile error and a refusal score 0) */
    double score, max_score;
    case_mark *marks;           /* one per case graded */
} entry;

typedef struct {
    const grading_setup *setup;
    const batch_options *options;
    const grading_case **cases; /* the cases graded (--case picks one) */
    int case_count;
    entry *entries;
    int count, capacity;
    roster students;
    char base[GRADING_PATH_SIZE];   /* where the submissions are (an unpacked .zip's folder) */
    char unpacked[GRADING_PATH_SIZE]; /* the scratch folder of an unpacked .zip, else "" */
    char out_resolved[PATH_MAX];    /* the output folder, absolute */
    char ignored[512];          /* files that are no submission, named */
    int ignored_count;
    text_buffer skipped;        /* the summary's lines of entries left out or renamed */
    int write_failed;           /* a file of the output could not be written */
    struct timespec start;
} batch;

static int refuse(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int write_table(const batch *state, const char *name, text_buffer *table);

static int refuse(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "memlab grade: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, "\n");
    va_end(arguments);
    return EXIT_USAGE;
}

static void out_of_memory(void)
{
    fprintf(stderr, "memlab grade: out of host memory\n");
    exit(EXIT_USAGE);
}

static int ends_with(const char *text, const char *end)
{
    size_t length = strlen(text), end_length = strlen(end);
    return length > end_length && strcmp(text + length - end_length, end) == 0;
}

static int is_directory(const char *path)
{
    struct stat status;
    return lstat(path, &status) == 0 && S_ISDIR(status.st_mode);
}

static int is_regular(const char *path)
{
    struct stat status;
    return lstat(path, &status) == 0 && S_ISREG(status.st_mode);
}

int batch_is_batch(const char *path)
{
    struct stat status;
    if (stat(path, &status) != 0)
        return 0;
    return S_ISDIR(status.st_mode) || (S_ISREG(status.st_mode) && unpack_is_archive(path));
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) * 1e-9;
}

/* "1:05" or "2:03:04" */
static void clock_text(double seconds, char *text, size_t size)
{
    long whole = (long)(seconds + 0.5);
    if (whole >= 3600)
        snprintf(text, size, "%ld:%02ld:%02ld", whole / 3600, whole / 60 % 60, whole % 60);
    else
        snprintf(text, size, "%ld:%02ld", whole / 60, whole % 60);
}

/* ---- finding the submissions ------------------------------------------------------------------ */

/* A line of the summary: an entry left out, or renamed, and why. */
static void note_skipped(batch *state, const char *kind, const char *name, const char *why)
{
    text_append(&state->skipped, "  %-16s ", kind);
    text_append_escaped(&state->skipped, name);
    text_append(&state->skipped, ": %s\n", why);
}

static int real_entry(const struct dirent *listed)
{
    return strcmp(listed->d_name, ".") != 0 && strcmp(listed->d_name, "..") != 0;
}

/* Why an entry of a class folder is no submission (a hidden name: .git, .DS_Store; the
 * Finder's __MACOSX folder of a zip), or NULL. */
static const char *hidden_reason(const char *name)
{
    if (strcmp(name, "__MACOSX") == 0)
        return "the Finder's metadata folder of a zip, no submission";
    if (name[0] == '.')
        return "a hidden name (it starts with a dot), no submission: rename it to grade it";
    return NULL;
}

/* The visible entries of a folder, in name order; -1 when it cannot be read. With report,
 * each hidden one is reported as skipped, with its reason. */
static int list_folder(batch *state, int report, const char *path, struct dirent ***names)
{
    int count = scandir(path, names, real_entry, alphasort);
    int kept = 0;
    for (int i = 0; i < count; i++) {
        const char *reason = hidden_reason((*names)[i]->d_name);
        if (reason == NULL) {
            (*names)[kept++] = (*names)[i];
            continue;
        }
        if (report)
            note_skipped(state, "skipped", (*names)[i]->d_name, reason);
        free((*names)[i]);
    }
    return count < 0 ? count : kept;
}

static void free_listing(struct dirent **names, int count)
{
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* A submission named `name` in its folder ("ada.cu", "ben", "submission_101"): its id is the
 * name without ".cu". */
static entry *add_entry(batch *state, const char *name)
{
    if (state->count == state->capacity) {
        int capacity = state->capacity == 0 ? 64 : 2 * state->capacity;
        entry *grown = realloc(state->entries, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            out_of_memory();
        state->entries = grown;
        state->capacity = capacity;
    }
    entry *added = &state->entries[state->count++];
    memset(added, 0, sizeof *added);
    size_t length = strlen(name);
    snprintf(added->id, sizeof added->id, "%.*s",
             (int)(length - (ends_with(name, ".cu") ? 3 : 0)), name);
    text_escape(added->id, added->shown, sizeof added->shown);
    /* The name, never a conversion of it, is the identity: ada.cu and ada/ share an id, and
     * each its own files. */
    sha256_context context;
    sha256_start(&context);
    sha256_add(&context, name, length);
    sha256_finish(&context, added->file_key);
    for (int i = 0; i < state->count - 1; i++)
        if (strcmp(state->entries[i].id, added->id) == 0) {
            snprintf(added->problem, sizeof added->problem,
                     "it has the same name as another submission");
            size_t used = strlen(added->shown);
            snprintf(added->shown + used, sizeof added->shown - used, "-%d", state->count);
        }
    return added;
}

/* Why `path`, inside a student's folder, is no folder to look in, or NULL when it is one. lstat:
 * a symbolic link is never followed, since it could lead out of the student's folder (to the
 * instructor's labs/ and the reference solution). */
static const char *not_a_folder(const char *path)
{
    struct stat status;
    if (lstat(path, &status) != 0)
        return "is not there";
    if (S_ISLNK(status.st_mode))
        return "is a symbolic link; links are never followed: one could lead out of the student's "
               "folder";
    if (!S_ISDIR(status.st_mode))
        return "is not a folder";
    return NULL;
}

/* A clone of the student pack or of the Classroom repository: the folder holds labs/. */
static int is_clone(const char *folder)
{
    char labs[GRADING_PATH_SIZE];
    grading_path(labs, sizeof labs, "%s/labs", folder);
    struct stat status;
    return lstat(labs, &status) == 0;
}

/* In a clone, labs/NN_LAB/kernels.cu of the lab graded: the path, or the problem. Neither labs
 * nor labs/NN_LAB may be a symbolic link; check_file refuses a kernels.cu that is one. */
static void clone_submission(const batch *state, entry *one, const char *folder)
{
    const char *lab = state->setup->lab_directory;
    char path[GRADING_PATH_SIZE];
    grading_path(path, sizeof path, "%s/labs", folder);
    const char *problem = not_a_folder(path);
    if (problem != NULL) {
        snprintf(one->problem, sizeof one->problem, "its labs %s", problem);
        return;
    }
    grading_path(path, sizeof path, "%s/labs/%s", folder, lab);
    problem = not_a_folder(path);
    if (problem != NULL) {
        snprintf(one->problem, sizeof one->problem, "its labs/%s %s", lab, problem);
        return;
    }
    grading_path(path, sizeof path, "%s/labs/%s/kernels.cu", folder, lab);
    struct stat status;
    if (lstat(path, &status) != 0)
        snprintf(one->problem, sizeof one->problem, "its labs/%s holds no kernels.cu", lab);
    else
        snprintf(one->path, sizeof one->path, "%s", path);
}

/* The kernels .cu a student's folder holds, by one rule: its own kernels.cu; else, in a clone of
 * the student pack or of the Classroom repository (a folder holding labs/), labs/NN_LAB/kernels.cu
 * of the lab graded; else its only .cu file. */
static void folder_submission(const batch *state, entry *one, const char *folder)
{
    char path[GRADING_PATH_SIZE];
    grading_path(path, sizeof path, "%s/kernels.cu", folder);
    struct stat status;
    if (lstat(path, &status) == 0) {
        snprintf(one->path, sizeof one->path, "%s", path);
        return;
    }
    if (is_clone(folder)) {
        clone_submission(state, one, folder);
        return;
    }
    struct dirent **names;
    int count = list_folder(NULL, 0, folder, &names);
    if (count < 0) {
        snprintf(one->problem, sizeof one->problem, "its folder cannot be read");
        return;
    }
    int found = 0;
    for (int i = 0; i < count; i++) {
        grading_path(path, sizeof path, "%s/%s", folder, names[i]->d_name);
        if (ends_with(names[i]->d_name, ".cu") && is_regular(path) && found++ == 0)
            snprintf(one->path, sizeof one->path, "%s", path);
    }
    free_listing(names, count);
    if (found == 0)
        snprintf(one->problem, sizeof one->problem,
                 "its folder holds no kernels.cu and no labs/%s/", state->setup->lab_directory);
    else if (found > 1)
        snprintf(one->problem, sizeof one->problem,
                 "its folder holds %d .cu files and no kernels.cu: which is the submission?", found);
    if (found != 1)
        one->path[0] = '\0';
}

/* What the single grader would refuse of the file, as a reason. */
static void check_file(entry *one)
{
    struct stat status;
    if (lstat(one->path, &status) != 0)
        snprintf(one->problem, sizeof one->problem, "it cannot be read");
    else if (S_ISLNK(status.st_mode))
        snprintf(one->problem, sizeof one->problem, "it is a symbolic link, not the file itself");
    else if (!S_ISREG(status.st_mode))
        snprintf(one->problem, sizeof one->problem, "it is not a regular file");
    else if ((long long)status.st_size > GRADING_SUBMISSION_MAX_BYTES)
        snprintf(one->problem, sizeof one->problem,
                 "it holds %lld bytes, more than the limit of %d for a kernels .cu",
                 (long long)status.st_size, GRADING_SUBMISSION_MAX_BYTES);
    else if (access(one->path, R_OK) != 0)
        snprintf(one->problem, sizeof one->problem, "it cannot be read");
    if (one->problem[0] != '\0')
        one->path[0] = '\0';
}

/* 1 if path is the output folder (it may sit among the submissions). */
static int is_output(const batch *state, const char *path)
{
    char resolved[PATH_MAX];
    return realpath(path, resolved) != NULL && strcmp(resolved, state->out_resolved) == 0;
}

/* A folder that holds one folder and nothing else (a zip's top folder, Gradescope's
 * assignment_NNN_export/) stands for what it holds, unless it is a submission itself (it holds
 * kernels.cu, or labs/: one student's clone). */
static void find_base(batch *state)
{
    for (int depth = 0; depth < 4; depth++) {
        char path[GRADING_PATH_SIZE];
        grading_path(path, sizeof path, "%s/" METADATA_NAME, state->base);
        if (is_regular(path))
            return;
        struct dirent **names;
        int count = list_folder(state, 0, state->base, &names);
        if (count < 0)
            return;
        int descend = 0;
        if (count == 1) {
            grading_path(path, sizeof path, "%s/%s", state->base, names[0]->d_name);
            char kernels[GRADING_PATH_SIZE];
            grading_path(kernels, sizeof kernels, "%s/kernels.cu", path);
            descend = is_directory(path) && !is_regular(kernels) && !is_clone(path) &&
                      !is_output(state, path);
        }
        free_listing(names, count);
        if (!descend)
            return;
        /* What is left out here is reported once, now that the listing goes deeper. */
        count = list_folder(state, 1, state->base, &names);
        if (count >= 0)
            free_listing(names, count);
        snprintf(state->base, sizeof state->base, "%s", path);
    }
}

static void note_ignored(batch *state, const char *name)
{
    size_t used = strlen(state->ignored);
    char shown[SHOWN_SIZE];
    text_escape(name, shown, sizeof shown);
    if (state->ignored_count < NAMES_LISTED)
        snprintf(state->ignored + used, sizeof state->ignored - used, "%s%s",
                 state->ignored_count > 0 ? ", " : "", shown);
    state->ignored_count++;
}

/* --roster: every submission of the folder has its row, or the batch is refused, naming the
 * first few without one (escaped: names are data). */
static int check_roster_matched(const batch *state, const char *roster_file)
{
    text_buffer names = {0};
    int unmatched = 0;
    for (int i = 0; i < state->count; i++) {
        const entry *one = &state->entries[i];
        if (one->students != NULL)
            continue;
        if (unmatched < NAMES_LISTED)
            text_append(&names, "%s%s", unmatched > 0 ? ", " : "", one->shown);
        unmatched++;
    }
    if (unmatched == 0)
        return EXIT_PASSED;
    char more[64] = "";
    if (unmatched > NAMES_LISTED)
        snprintf(more, sizeof more, " and %d more", unmatched - NAMES_LISTED);
    int status = refuse("--roster %s has no row for %d submission%s of %s: %s%s (add a row whose "
                        "submission is its name in the folder: NAME for NAME.cu or NAME/)",
                        roster_file, unmatched, unmatched == 1 ? "" : "s",
                        state->options->submissions, names.data, more);
    text_free(&names);
    return status;
}

/* Every submission under state->base. Returns EXIT_PASSED or a refusal's status. */
static int find_submissions(batch *state)
{
    find_base(state);
    char metadata[GRADING_PATH_SIZE];
    grading_path(metadata, sizeof metadata, "%s/" METADATA_NAME, state->base);
    char error[1024];
    const char *roster_file = state->options->roster;
    if (is_regular(metadata) && roster_file != NULL)
        return refuse("--roster %s: %s is Gradescope's export, whose " METADATA_NAME " names "
                      "its students: leave --roster out", roster_file, state->options->submissions);
    if (is_regular(metadata) && roster_read(&state->students, metadata, error, sizeof error) != 0)
        return refuse("%s", error);
    if (roster_file != NULL &&
        roster_read_csv(&state->students, roster_file, error, sizeof error) != 0)
        return refuse("--roster %s", error);

    struct dirent **names;
    int count = list_folder(state, 1, state->base, &names);
    if (count < 0)
        return refuse("cannot read the folder %s", state->base);
    for (int i = 0; i < count; i++) {
        const char *name = names[i]->d_name;
        char path[GRADING_PATH_SIZE];
        grading_path(path, sizeof path, "%s/%s", state->base, name);
        struct stat status;
        if (strcmp(name, METADATA_NAME) == 0 || is_output(state, path) || lstat(path, &status) != 0)
            continue;
        if (S_ISREG(status.st_mode) && !ends_with(name, ".cu")) {
            note_ignored(state, name);
            continue;
        }
        entry *one = add_entry(state, name);
        one->students = roster_find(&state->students, name);
        if (one->students == NULL && roster_file != NULL) /* a roster names ada.cu "ada" */
            one->students = roster_find(&state->students, one->id);
        if (one->problem[0] != '\0')
            continue;
        if (S_ISDIR(status.st_mode)) {
            folder_submission(state, one, path);
        } else {
            snprintf(one->path, sizeof one->path, "%s", path);
        }
        if (one->path[0] != '\0')
            check_file(one);
    }
    free_listing(names, count);

    /* A student in the export whose folder is not there still gets a row. */
    for (int i = 0; i < state->students.count; i++) {
        const roster_submission *listed = &state->students.submissions[i];
        int found = 0;
        for (int j = 0; j < state->count && !found; j++)
            found = state->entries[j].students == listed;
        if (found)
            continue;
        entry *one = add_entry(state, listed->folder);
        one->students = listed;
        if (one->problem[0] == '\0' && roster_file != NULL)
            snprintf(one->problem, sizeof one->problem,
                     "the --roster lists it, but the folder has no such submission");
        else if (one->problem[0] == '\0')
            snprintf(one->problem, sizeof one->problem,
                     METADATA_NAME " lists it, but its folder is not there");
    }
    const char *lab = state->setup->lab_directory;
    if (count == 0 && state->students.count == 0)
        return refuse("%s is empty: " WHAT_TO_GIVE, state->options->submissions, lab);
    if (state->count == 0)
        return refuse("%s holds no submission%s%s%s: " WHAT_TO_GIVE, state->options->submissions,
                      state->ignored_count > 0 ? " (only " : "", state->ignored,
                      state->ignored_count > 0 ? ")" : "", lab);
    return roster_file != NULL ? check_roster_matched(state, roster_file) : EXIT_PASSED;
}

/* An archive is unpacked by libarchive into a scratch folder, once its entries and bytes are
 * counted against the limits (unpack.h); nothing is written elsewhere. What it skipped or
 * renamed goes into the summary. */
static int unpack(batch *state)
{
    const char *archive = state->options->submissions;
    if (access(archive, R_OK) != 0)
        return refuse("cannot read %s", archive);
    const char *temporary = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    grading_path(state->unpacked, sizeof state->unpacked, "%s/memlab-batch-XXXXXX", temporary);
    if (mkdtemp(state->unpacked) == NULL) {
        state->unpacked[0] = '\0';
        return refuse("cannot make a scratch folder in %s to unpack %s", temporary, archive);
    }
    char into[GRADING_PATH_SIZE];
    grading_path(into, sizeof into, "%s/unpacked", state->unpacked);
    if (mkdir(into, 0700) != 0)
        return refuse("cannot make %s: %s", into, strerror(errno));
    const unpack_limits limits = {UNPACK_MAX_TOTAL_BYTES, GRADING_FILE_LIMIT_BYTES,
                                  UNPACK_MAX_ENTRIES};
    unpack_report report = {0};
    char error[1024];
    if (unpack_archive(archive, into, &limits, &report, error, sizeof error) != 0) {
        unpack_report_free(&report);
        return refuse("%s", error);
    }
    for (int i = 0; i < report.note_count; i++) {
        const unpack_note *note = &report.notes[i];
        text_append(&state->skipped, "  %-16s %s (in %s): %s\n",
                    note->skipped ? "skipped" : "renamed", note->name, archive, note->what);
    }
    long entries = report.entries;
    unpack_report_free(&report);
    if (entries == 0)
        return refuse("%s is empty: " WHAT_TO_GIVE, archive, state->setup->lab_directory);
    snprintf(state->base, sizeof state->base, "%s", into);
    return EXIT_PASSED;
}

/* The output folder can be made or written: nothing is made yet. */
static int check_output(batch *state)
{
    const char *out = state->options->out;
    struct stat status;
    if (stat(out, &status) == 0) {
        if (!S_ISDIR(status.st_mode))
            return refuse("--out %s is not a folder", out);
        if (access(out, W_OK | X_OK) != 0 || realpath(out, state->out_resolved) == NULL)
            return refuse("cannot write in %s", out);
        return EXIT_PASSED;
    }
    /* A new folder: its parent must be a folder this user can write in. */
    char parent[GRADING_PATH_SIZE], name[GRADING_PATH_SIZE];
    snprintf(parent, sizeof parent, "%s", out);
    size_t length = strlen(parent);
    while (length > 1 && parent[length - 1] == '/')
        parent[--length] = '\0';
    char *slash = strrchr(parent, '/');
    snprintf(name, sizeof name, "%s", slash != NULL ? slash + 1 : parent);
    if (slash == NULL)
        snprintf(parent, sizeof parent, ".");
    else if (slash == parent)
        slash[1] = '\0';
    else
        *slash = '\0';
    char resolved[PATH_MAX];
    if (!is_directory(parent) || access(parent, W_OK | X_OK) != 0 ||
        realpath(parent, resolved) == NULL)
        return refuse("cannot make %s: %s is not a folder this user can write in", out, parent);
    if (snprintf(state->out_resolved, sizeof state->out_resolved, "%s/%s",
                 strcmp(resolved, "/") == 0 ? "" : resolved, name) >= (int)sizeof state->out_resolved)
        return refuse("--out %s: the path is too long", out);
    return EXIT_PASSED;
}

static int make_folder(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return refuse("cannot make %s: %s", path, strerror(errno));
    return EXIT_PASSED;
}

/* ---- keys and records ------------------------------------------------------------------------- */

/* What a grade depends on: the batch's settings, the rubric, the --cases files and the file. */
static void compute_key(const batch *state, entry *one)
{
    sha256_context context;
    sha256_start(&context);
    const char *only = state->setup->only_case != NULL ? state->setup->only_case : "";
    char settings[512];
    int length = snprintf(settings, sizeof settings, "memlab batch 1\nlab %s\ncase %s\n",
                          state->setup->lab, only);
    sha256_add(&context, settings, (size_t)length);
    sha256_add_file(&context, state->options->rubric);
    for (int i = 0; i < state->options->case_file_count; i++) {
        sha256_add(&context, "\ncases\n", 7);
        sha256_add_file(&context, state->options->case_files[i]);
    }
    sha256_add(&context, "\nsubmission\n", 12);
    if (sha256_add_file(&context, one->path) != 0)
        sha256_add(&context, "unreadable", 10);
    sha256_finish(&context, one->key);
}

/* A file of the entry in an output folder: ROOT/FOLDER/FILE_KEY.SUFFIX. */
static void entry_path_in(const char *root, const entry *one, const char *folder,
                          const char *suffix, char *path, size_t size)
{
    grading_path(path, size, "%s/%s/%s%s", root, folder, one->file_key, suffix);
}

static void entry_path(const batch *state, const entry *one, const char *folder,
                       const char *suffix, char *path, size_t size)
{
    entry_path_in(state->out_resolved, one, folder, suffix, path, size);
}

static done_kind done_of(grade_outcome outcome)
{
    switch (outcome) {
    case OUTCOME_PASSED:
        return DONE_PASSED;
    case OUTCOME_FAILED:
        return DONE_FAILED;
    case OUTCOME_NOT_COMPILED:
        return DONE_NOT_COMPILED;
    case OUTCOME_REFUSED:
        return DONE_REFUSED;
    case OUTCOME_NOT_GRADED:
        break;
    }
    return DONE_NOT_GRADED;
}

static cJSON *checked(cJSON *item)
{
    if (item == NULL)
        out_of_memory();
    return item;
}

/* Writes the document to path, then frees it. Returns 0 or -1. */
static int write_document(const char *path, char *document)
{
    FILE *file = fopen(path, "w");
    int status = file != NULL && fputs(document, file) != EOF && fputs("\n", file) != EOF ? 0 : -1;
    if (file != NULL && fclose(file) != 0)
        status = -1;
    free(document);
    if (status != 0)
        fprintf(stderr, "memlab grade: cannot write %s\n", path);
    return status;
}

/* What the batch keeps of a graded submission: its key, outcome and points. Written to a
 * temporary name and renamed: a record is whole or absent. */
static int write_record(const batch *state, const entry *one, const grade_result *result)
{
    cJSON *root = checked(cJSON_CreateObject());
    checked(cJSON_AddStringToObject(root, "key", one->key));
    grade_outcome outcome = grade_outcome_of(result);
    checked(cJSON_AddStringToObject(root, "outcome", done_words[done_of(outcome)]));
    char detail[512] = "";
    if (outcome == OUTCOME_REFUSED)
        snprintf(detail, sizeof detail, "%s", result->build_output != NULL ? result->build_output : "");
    else if (outcome == OUTCOME_NOT_GRADED)
        snprintf(detail, sizeof detail, "%.500s", result->host_unable ? result->brief : result->reason);
    checked(cJSON_AddStringToObject(root, "detail", detail));
    checked(cJSON_AddNumberToObject(root, "score", grade_score(result)));
    checked(cJSON_AddNumberToObject(root, "max_score", grade_max_score(result)));
    /* The model, not the index: a rerun on another host keeps the record and still says it. */
    if (one->gpu != NULL)
        checked(cJSON_AddStringToObject(root, "gpu", one->gpu->name));
    cJSON *cases = checked(cJSON_AddArrayToObject(root, "cases"));
    for (int i = 0; i < result->case_count; i++) {
        const case_result *mark = &result->cases[i];
        cJSON *item = checked(cJSON_CreateObject());
        cJSON_AddItemToArray(cases, item);
        checked(cJSON_AddStringToObject(item, "name", mark->rubric_case->name));
        checked(cJSON_AddStringToObject(item, "status", grade_case_status(result, mark)));
        checked(cJSON_AddNumberToObject(item, "score", grade_case_score(result, mark)));
    }
    char *printed = cJSON_Print(root);
    cJSON_Delete(root);
    if (printed == NULL)
        out_of_memory();
    char *document = strdup(printed);
    cJSON_free(printed);
    if (document == NULL)
        out_of_memory();
    char path[GRADING_PATH_SIZE], partial[GRADING_PATH_SIZE];
    entry_path(state, one, "results", ".record", path, sizeof path);
    entry_path(state, one, "results", ".record.partial", partial, sizeof partial);
    if (write_document(partial, document) != 0)
        return -1;
    if (rename(partial, path) != 0) {
        fprintf(stderr, "memlab grade: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

static const char *json_string(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* A record file, parsed; NULL when it cannot be read or is no JSON. */
static cJSON *load_record(const char *path)
{
    char *text = text_read_file(path);
    cJSON *root = text != NULL ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
}

/* The kind a record's outcome words name, or DONE_KINDS for none. */
static int outcome_kind(const char *outcome)
{
    for (int k = 0; outcome != NULL && k < DONE_KINDS; k++)
        if (strcmp(outcome, done_words[k]) == 0)
            return k;
    return DONE_KINDS;
}

/* Fills the entry from its record in the output folder `folder`. Returns 0, or -1 when there is
 * no record that fits the batch's cases; *key gets the record's key. */
static int read_record_in(const batch *state, const char *folder, entry *one,
                          char key[SHA256_HEX_SIZE])
{
    char path[GRADING_PATH_SIZE];
    entry_path_in(folder, one, "results", ".record", path, sizeof path);
    cJSON *root = load_record(path);
    const char *stored_key = json_string(root, "key");
    const char *outcome = json_string(root, "outcome");
    const char *detail = json_string(root, "detail");
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(root, "score");
    const cJSON *max_score = cJSON_GetObjectItemCaseSensitive(root, "max_score");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    int fits = stored_key != NULL && outcome != NULL && detail != NULL && cJSON_IsNumber(score) &&
               cJSON_IsNumber(max_score) && cJSON_GetArraySize(cases) == state->case_count;
    int kind = outcome_kind(outcome);
    fits = fits && kind < DONE_NO_SUBMISSION;
    for (int i = 0; fits && i < state->case_count; i++) {
        const cJSON *item = cJSON_GetArrayItem(cases, i);
        const char *name = json_string(item, "name"), *status = json_string(item, "status");
        const cJSON *points = cJSON_GetObjectItemCaseSensitive(item, "score");
        fits = name != NULL && status != NULL && cJSON_IsNumber(points) &&
               strcmp(name, state->cases[i]->name) == 0 &&
               strlen(status) < sizeof one->marks[i].status;
        if (fits) {
            one->marks[i].points = points->valuedouble;
            snprintf(one->marks[i].status, sizeof one->marks[i].status, "%s", status);
        }
    }
    if (fits) {
        snprintf(key, SHA256_HEX_SIZE, "%s", stored_key);
        one->done = (done_kind)kind;
        snprintf(one->detail, sizeof one->detail, "%s", detail);
        one->scored = kind != DONE_NOT_GRADED;
        one->score = score->valuedouble;
        one->max_score = max_score->valuedouble;
    }
    cJSON_Delete(root);
    return fits ? 0 : -1;
}

static int read_record(const batch *state, entry *one, char key[SHA256_HEX_SIZE])
{
    return read_record_in(state, state->out_resolved, one, key);
}

/* ---- grading ------------------------------------------------------------------------------------ */

/* In the grading process: the single-submission path, then its files. Never returns. */
static void grade_in_child(const batch *state, const entry *one)
{
    /* Its one device: the GPU lock (gpu_lock.h) and every run of its cases, the sanitizer's
     * too, see only this GPU. */
    if (one->gpu != NULL && setenv("CUDA_VISIBLE_DEVICES", one->gpu->uuid, 1) != 0)
        exit(EXIT_USAGE);
    grade_result result;
    grading_grade(state->setup, one->path, one->shown, &result);
    char json[GRADING_PATH_SIZE], text[GRADING_PATH_SIZE], feedback[GRADING_PATH_SIZE];
    entry_path(state, one, "results", ".json", json, sizeof json);
    entry_path(state, one, "results", ".txt", text, sizeof text);
    entry_path(state, one, "feedback", ".txt", feedback, sizeof feedback);
    int status = write_document(json, results_gradescope(&result));
    status |= write_document(text, results_text(&result));
    status |= write_document(feedback, results_feedback(&result));
    if (status == 0)
        status = write_record(state, one, &result);
    grading_free(&result);
    exit(status == 0 ? EXIT_PASSED : EXIT_USAGE);
}

/* Feedback for a submission that never ran: what the student is told. */
static int write_no_submission(const batch *state, const entry *one)
{
    char path[GRADING_PATH_SIZE];
    entry_path(state, one, "feedback", ".txt", path, sizeof path);
    text_buffer buffer = {0};
    text_append(&buffer, "memlab grade: lab %s, submission %s\nNo submission was graded: %s.\n",
                state->setup->lab, one->shown, one->problem);
    return write_document(path, text_take(&buffer));
}

/* Feedback for a submission whose grading left no results (its process died, no shard graded
 * it): not graded, and why; an older run's feedback is not left to say otherwise. */
static int write_not_graded(const batch *state, const entry *one)
{
    char path[GRADING_PATH_SIZE];
    entry_path(state, one, "feedback", ".txt", path, sizeof path);
    text_buffer buffer = {0};
    text_append(&buffer, "memlab grade: lab %s, submission %s\nnot graded: %s\nNo score is given "
                         "until the submission is graded (tell your instructor).\n",
                state->setup->lab, one->shown, one->detail);
    return write_document(path, text_take(&buffer));
}

static int count_status(const batch *state, const entry *one, const char *status)
{
    int count = 0;
    for (int i = 0; i < state->case_count; i++)
        count += strcmp(one->marks[i].status, status) == 0;
    return count;
}

/* "18 / 24, 2 of 8 cases failed" and the like. */
static void describe(const batch *state, const entry *one, char *text, size_t size)
{
    switch (one->done) {
    case DONE_PASSED:
        snprintf(text, size, "%g / %g, every case passed", one->score, one->max_score);
        break;
    case DONE_FAILED:
        snprintf(text, size, "%g / %g, %d of %d cases failed", one->score, one->max_score,
                 count_status(state, one, "FAIL"), state->case_count);
        break;
    case DONE_NOT_COMPILED:
        snprintf(text, size, "%g / %g, it did not compile", one->score, one->max_score);
        break;
    case DONE_REFUSED:
        snprintf(text, size, "%g / %g, refused: %.300s", one->score, one->max_score, one->detail);
        break;
    case DONE_NOT_GRADED:
        snprintf(text, size, "not graded: %.400s", one->detail);
        break;
    case DONE_NO_SUBMISSION:
    case DONE_KINDS:
        snprintf(text, size, "no submission: %.400s", one->problem);
        break;
    }
}

typedef struct {
    int finished, total;
    int graded_now, to_grade;   /* graded in this run, and how many it grades in all */
} tally;

static void progress(const batch *state, tally *count, const entry *one, const char *prefix)
{
    count->finished++;
    char what[1024], elapsed[32], left[64] = "";
    describe(state, one, what, sizeof what);
    double seconds = seconds_since(&state->start);
    clock_text(seconds, elapsed, sizeof elapsed);
    if (count->graded_now > 0 && count->graded_now < count->to_grade) {
        char remaining[32];
        clock_text(seconds / count->graded_now * (count->to_grade - count->graded_now), remaining,
                   sizeof remaining);
        snprintf(left, sizeof left, ", about %s left", remaining);
    }
    char on_gpu[32] = "";
    if (one->gpu != NULL)
        snprintf(on_gpu, sizeof on_gpu, " on GPU %d", one->gpu->index);
    fprintf(stderr, "memlab grade: %d/%d %s%s: %s%s (%s elapsed%s)\n", count->finished,
            count->total, one->shown, on_gpu, prefix, what, elapsed, left);
}

/* Reads what the grading process of `one` left: its record, or why there is none. */
static void collect(batch *state, entry *one, int wait_status)
{
    char key[SHA256_HEX_SIZE];
    if (read_record(state, one, key) == 0 && strcmp(key, one->key) == 0)
        return;
    one->done = DONE_NOT_GRADED;
    one->scored = 0;
    if (WIFSIGNALED(wait_status))
        snprintf(one->detail, sizeof one->detail, "its grading process was killed by signal %d",
                 WTERMSIG(wait_status));
    else
        snprintf(one->detail, sizeof one->detail,
                 "its grading process stopped (exit status %d) before it wrote the results",
                 WEXITSTATUS(wait_status));
    state->write_failed |= write_not_graded(state, one) != 0;
}

/* " on GPUs 0, 1 (NVIDIA H100 80GB HBM3)", or with models of two kinds " on GPUs 0 (A), 1 (B)";
 * "" without --gpus. */
static void lanes_text(const batch *state, char *text, size_t size)
{
    const gpu_set *gpus = state->options->gpus;
    text[0] = '\0';
    if (gpus == NULL)
        return;
    snprintf(text, size, " on GPU%s ", gpus->count == 1 ? "" : "s");
    for (int g = 0; g < gpus->count; g++) {
        size_t used = strlen(text);
        snprintf(text + used, size - used, "%s%d", g > 0 ? ", " : "", gpus->devices[g].index);
        used = strlen(text);
        if (gpus->mixed)
            snprintf(text + used, size - used, " (%s)", gpus->devices[g].name);
    }
    size_t used = strlen(text);
    if (!gpus->mixed)
        snprintf(text + used, size - used, " (%s)", gpus->devices[0].name);
}

/* submissions.txt: what this run sets out to grade, for --status (batch_status) to read while
 * it runs and after: the lab, the shard, then a line a submission: its grading key ("-" when
 * there is no submission), its file key, its name as lines show it (the rest of the line). */
static int write_plan(const batch *state)
{
    text_buffer plan = {0};
    text_append(&plan, "# memlab grade: the submissions this folder's last run set out to grade\n"
                       "lab %s\n", state->setup->lab);
    if (state->options->shard_count > 0)
        text_append(&plan, "shard %d/%d\n", state->options->shard, state->options->shard_count);
    else
        text_append(&plan, "shard all\n");
    for (int i = 0; i < state->count; i++) {
        const entry *one = &state->entries[i];
        text_append(&plan, "%s %s %s\n", one->path[0] != '\0' ? one->key : "-", one->file_key,
                    one->shown);
    }
    return write_table(state, PLAN_NAME, &plan);
}

/* An entry's case marks, and its key; 0 for a student with no submission (DONE_NO_SUBMISSION). */
static int start_entry(const batch *state, entry *one)
{
    one->marks = calloc((size_t)state->case_count + 1, sizeof *one->marks);
    if (one->marks == NULL)
        out_of_memory();
    if (one->path[0] == '\0') {
        one->done = DONE_NO_SUBMISSION;
        return 0;
    }
    compute_key(state, one);
    return 1;
}

static void grade_all(batch *state)
{
    tally count = {0, state->count, 0, 0};
    for (int i = 0; i < state->count; i++) {
        entry *one = &state->entries[i];
        if (!start_entry(state, one))
            continue;
        char key[SHA256_HEX_SIZE];
        one->kept = read_record(state, one, key) == 0 && strcmp(key, one->key) == 0 &&
                    one->done != DONE_NOT_GRADED;
        count.to_grade += !one->kept;
    }
    int kept = 0;
    for (int i = 0; i < state->count; i++)
        kept += state->entries[i].kept;
    state->write_failed |= write_plan(state) != 0;
    char shard[64] = "", lanes[GPUS_MAX * 160] = ""; /* an index and a model's name a GPU */
    if (state->options->shard_count > 0)
        snprintf(shard, sizeof shard, " (shard %d/%d)", state->options->shard,
                 state->options->shard_count);
    lanes_text(state, lanes, sizeof lanes);
    fprintf(stderr, "memlab grade: %s: %d submission%s in %s%s, %d to grade (%d graded before), "
                    "%d at a time%s; results in %s\n", state->setup->lab, state->count,
            state->count == 1 ? "" : "s", state->options->submissions, shard, count.to_grade, kept,
            state->options->jobs, lanes, state->options->out);

    const gpu_set *gpus = state->options->gpus;
    int running_on[GPUS_MAX] = {0}; /* grading processes on each GPU of --gpus */
    int next = 0, running = 0;
    while (next < state->count || running > 0) {
        while (running < state->options->jobs && next < state->count) {
            entry *one = &state->entries[next++];
            if (one->done == DONE_NO_SUBMISSION) {
                state->write_failed |= write_no_submission(state, one) != 0;
                progress(state, &count, one, "");
                continue;
            }
            if (one->kept) {
                progress(state, &count, one, "graded before with this file, rubric and cases, "
                                             "not graded again: ");
                continue;
            }
            if (gpus != NULL) {
                int lane = 0;
                for (int g = 1; g < gpus->count; g++)
                    if (running_on[g] < running_on[lane])
                        lane = g;
                one->gpu = &gpus->devices[lane];
                running_on[lane]++;
            }
            fflush(NULL);
            pid_t child = fork();
            if (child == 0)
                grade_in_child(state, one);
            if (child < 0) {
                if (one->gpu != NULL)
                    running_on[one->gpu - gpus->devices]--;
                one->gpu = NULL; /* it never ran there */
                one->done = DONE_NOT_GRADED;
                snprintf(one->detail, sizeof one->detail, "no process to grade it (%s)",
                         strerror(errno));
                state->write_failed |= write_not_graded(state, one) != 0;
                count.graded_now++;
                progress(state, &count, one, "");
                continue;
            }
            one->pid = child;
            running++;
        }
        if (running == 0)
            continue;
        int wait_status;
        pid_t done = waitpid(-1, &wait_status, 0);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "memlab grade: lost track of the grading processes (%s)\n",
                    strerror(errno));
            exit(EXIT_USAGE);
        }
        for (int i = 0; i < state->count; i++) {
            entry *one = &state->entries[i];
            if (one->pid != done)
                continue;
            one->pid = 0;
            running--;
            if (one->gpu != NULL)
                running_on[one->gpu - gpus->devices]--;
            collect(state, one, wait_status);
            count.graded_now++;
            progress(state, &count, one, "");
        }
    }
}

/* ---- merging shard folders ------------------------------------------------------------------- */

/* Copies a file byte for byte; 0, or -1 with a line on stderr. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    FILE *out = in != NULL ? fopen(to, "wb") : NULL;
    int status = in != NULL && out != NULL ? 0 : -1;
    char buffer[1 << 16];
    size_t got;
    while (status == 0 && (got = fread(buffer, 1, sizeof buffer, in)) > 0)
        if (fwrite(buffer, 1, got, out) != got)
            status = -1;
    if (in != NULL && ferror(in))
        status = -1;
    if (in != NULL)
        fclose(in);
    if (out != NULL && fclose(out) != 0)
        status = -1;
    if (status != 0)
        fprintf(stderr, "memlab grade: cannot copy %s to %s\n", from, to);
    return status;
}

/* The entry's files from the folder that graded it into the output folder; the record last
 * (through a temporary name), as a grading process writes them: a record is whole or absent. */
static int copy_graded(const batch *state, const entry *one, const char *folder)
{
    const char *const files[][2] = {{"results", ".json"}, {"results", ".txt"},
                                    {"feedback", ".txt"}};
    char from[GRADING_PATH_SIZE], to[GRADING_PATH_SIZE];
    int status = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        entry_path_in(folder, one, files[i][0], files[i][1], from, sizeof from);
        entry_path(state, one, files[i][0], files[i][1], to, sizeof to);
        status |= copy_file(from, to);
    }
    char record[GRADING_PATH_SIZE];
    entry_path_in(folder, one, "results", ".record", from, sizeof from);
    entry_path(state, one, "results", ".record.partial", to, sizeof to);
    entry_path(state, one, "results", ".record", record, sizeof record);
    if (status == 0 && copy_file(from, to) == 0 && rename(to, record) == 0)
        return 0;
    fprintf(stderr, "memlab grade: %s's files from %s were not all copied\n", one->shown, folder);
    return -1;
}

/* --merge: for each submission, the folder whose record has its key (one that graded it before
 * one that could not), its files copied into the output folder and its record read there. */
static void merge_all(batch *state)
{
    fprintf(stderr, "memlab grade: %s: %d submission%s in %s, merged from %d folder%s into %s\n",
            state->setup->lab, state->count, state->count == 1 ? "" : "s",
            state->options->submissions, state->options->merge_count,
            state->options->merge_count == 1 ? "" : "s", state->options->out);
    for (int i = 0; i < state->count; i++) {
        entry *one = &state->entries[i];
        if (!start_entry(state, one)) {
            state->write_failed |= write_no_submission(state, one) != 0;
            continue;
        }
        const char *graded_in = NULL;
        int graded = 0;
        for (int f = 0; f < state->options->merge_count && !graded; f++) {
            const char *folder = state->options->merge_folders[f];
            char key[SHA256_HEX_SIZE];
            if (read_record_in(state, folder, one, key) != 0 || strcmp(key, one->key) != 0)
                continue;
            graded = one->done != DONE_NOT_GRADED;
            if (graded_in == NULL || graded)
                graded_in = folder;
        }
        char key[SHA256_HEX_SIZE];
        if (graded_in != NULL && copy_graded(state, one, graded_in) == 0 &&
            read_record(state, one, key) == 0)
            continue;
        state->write_failed |= graded_in != NULL;
        one->done = DONE_NOT_GRADED;
        one->scored = 0;
        snprintf(one->detail, sizeof one->detail, "%s", graded_in != NULL
                     ? "its files could not be copied from the shard that graded it"
                     : "no shard graded it");
        state->write_failed |= write_not_graded(state, one) != 0;
    }
    state->write_failed |= write_plan(state) != 0;
}

/* ---- the tables ------------------------------------------------------------------------------- */

/* One text cell (text_append_csv_cell: quoted where needed, never a formula). */
static void csv_field(text_buffer *line, const char *value, int first)
{
    if (!first)
        text_append(line, ",");
    text_append_csv_cell(line, value);
}

static void csv_number(text_buffer *line, double value)
{
    text_append(line, ",%g", value);
}

static const char *status_words(const entry *one, char *text, size_t size)
{
    switch (one->done) {
    case DONE_REFUSED:
        snprintf(text, size, "refused: %s", one->detail);
        break;
    case DONE_NOT_GRADED:
        snprintf(text, size, "not graded: %s", one->detail);
        break;
    case DONE_NO_SUBMISSION:
    case DONE_KINDS:
        snprintf(text, size, "no submission: %s", one->problem);
        break;
    default:
        snprintf(text, size, "%s", done_words[one->done]);
        break;
    }
    return text;
}

static double max_points(const batch *state)
{
    double total = 0;
    for (int i = 0; i < state->case_count; i++)
        total += state->cases[i]->points;
    return total;
}

/* The students of an entry: its export's submitters, or one without a name. */
static int student_count(const entry *one)
{
    return one->students != NULL && one->students->count > 0 ? one->students->count : 1;
}

static const roster_student *student_of(const entry *one, int index)
{
    static const roster_student nobody;
    return one->students != NULL && one->students->count > 0 ? &one->students->students[index]
                                                             : &nobody;
}

static int write_table(const batch *state, const char *name, text_buffer *table)
{
    char path[GRADING_PATH_SIZE];
    grading_path(path, sizeof path, "%s/%s", state->out_resolved, name);
    char *document = text_take(table);
    /* write_document ends the file with a line break of its own. */
    size_t length = strlen(document);
    if (length > 0 && document[length - 1] == '\n')
        document[length - 1] = '\0';
    return write_document(path, document);
}

/* scores.csv: Gradescope's columns (Name, SID, Email, Submission ID, Total Score, Max Points,
 * Status), then each case's points. */
static int write_scores(const batch *state)
{
    text_buffer table = {0};
    const char *headers[] = {"Name", "SID", "Email", "Submission ID", "Total Score", "Max Points",
                             "Status"};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        csv_field(&table, headers[i], i == 0);
    for (int i = 0; i < state->case_count; i++) {
        char header[128];
        snprintf(header, sizeof header, "%s (%g pts)", state->cases[i]->name,
                 state->cases[i]->points);
        csv_field(&table, header, 0);
    }
    text_append(&table, "\n");
    for (int i = 0; i < state->count; i++) {
        const entry *one = &state->entries[i];
        for (int s = 0; s < student_count(one); s++) {
            const roster_student *student = student_of(one, s);
            csv_field(&table, student->name, 1);
            csv_field(&table, student->sid, 0);
            csv_field(&table, student->email, 0);
            csv_field(&table, one->shown, 0);
            if (one->scored)
                csv_number(&table, one->score);
            else
                text_append(&table, ",");
            csv_number(&table, max_points(state));
            char status[1024];
            csv_field(&table, status_words(one, status, sizeof status), 0);
            for (int c = 0; c < state->case_count; c++) {
                if (one->scored && strcmp(one->marks[c].status, "NOT GRADED") != 0)
                    csv_number(&table, one->marks[c].points);
                else
                    text_append(&table, ",");
            }
            text_append(&table, "\n");
        }
    }
    return write_table(state, "scores.csv", &table);
}

/* canvas.csv: the columns Canvas's gradebook import reads, in its order, and one assignment
 * column named for the lab, after a "Points Possible" row. A student is found by SIS User ID,
 * then SIS Login ID, then name. Only students with a score: one left out keeps the grade
 * Canvas has (an empty cell would change a grade there into none). */
static int write_canvas(const batch *state)
{
    text_buffer table = {0};
    const char *headers[] = {"Student", "ID", "SIS User ID", "SIS Login ID", "Section"};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        csv_field(&table, headers[i], i == 0);
    csv_field(&table, state->setup->lab, 0);
    text_append(&table, "\n");
    csv_field(&table, "Points Possible", 1);
    text_append(&table, ",,,,");
    csv_number(&table, max_points(state));
    text_append(&table, "\n");
    for (int i = 0; i < state->count; i++) {
        const entry *one = &state->entries[i];
        for (int s = 0; one->scored && s < student_count(one); s++) {
            const roster_student *student = student_of(one, s);
            csv_field(&table, student->name[0] != '\0' ? student->name : one->shown, 1);
            text_append(&table, ",");
            csv_field(&table, student->sid, 0);
            csv_field(&table, student->email, 0);
            text_append(&table, ",");
            csv_number(&table, one->score);
            text_append(&table, "\n");
        }
    }
    return write_table(state, "canvas.csv", &table);
}

/* files.csv: where each submission's files are (named by its file key, not its name). */
static int write_files(const batch *state)
{
    text_buffer table = {0};
    const char *headers[] = {"Submission ID", "Feedback", "Results", "Report"};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        csv_field(&table, headers[i], i == 0);
    text_append(&table, "\n");
    for (int i = 0; i < state->count; i++) {
        const entry *one = &state->entries[i];
        csv_field(&table, one->shown, 1);
        text_append(&table, ",feedback/%s.txt,results/%s.json,results/%s.txt\n", one->file_key,
                    one->file_key, one->file_key);
    }
    return write_table(state, "files.csv", &table);
}

/* What became of every submission, by kind; the exit status. */
static int summarize(const batch *state)
{
    int counts[DONE_KINDS] = {0}, kept = 0;
    for (int i = 0; i < state->count; i++) {
        counts[state->entries[i].done]++;
        kept += state->entries[i].kept;
    }
    char elapsed[32];
    clock_text(seconds_since(&state->start), elapsed, sizeof elapsed);
    printf("memlab grade: lab %s, %d submission%s in %s", state->setup->lab, state->count,
           state->count == 1 ? "" : "s", elapsed);
    if (kept > 0)
        printf(" (%d graded before with the same file, rubric and cases: kept)", kept);
    printf("\n");
    for (int kind = 0; kind < DONE_KINDS; kind++) {
        if (counts[kind] == 0)
            continue;
        printf("  %-16s %d", done_words[kind], counts[kind]);
        int listed = 0;
        for (int i = 0; i < state->count; i++) {
            const entry *one = &state->entries[i];
            if ((int)one->done != kind)
                continue;
            if (listed < NAMES_LISTED && kind >= DONE_REFUSED)
                printf("%s%s (%.200s)", listed == 0 ? ": " : "; ", one->shown,
                       kind == DONE_NO_SUBMISSION ? one->problem : one->detail);
            else if (listed < NAMES_LISTED)
                printf("%s%s", listed == 0 ? ": " : ", ", one->shown);
            listed++;
        }
        if (listed > NAMES_LISTED)
            printf(" and %d more", listed - NAMES_LISTED);
        printf("\n");
    }
    if (state->ignored_count > 0)
        printf("  ignored          %d file%s, not .cu: %s%s\n", state->ignored_count,
               state->ignored_count == 1 ? "" : "s", state->ignored,
               state->ignored_count > NAMES_LISTED ? ", ..." : "");
    if (state->skipped.length > 0)
        printf("%s", state->skipped.data);
    printf("scores: %s/scores.csv (Gradescope's columns), %s/canvas.csv (Canvas's); each "
           "student's feedback: %s/feedback/, named in %s/files.csv\n", state->options->out,
           state->options->out, state->options->out, state->options->out);
    if (counts[DONE_NOT_GRADED] > 0)
        return EXIT_NOT_GRADABLE;
    return counts[DONE_PASSED] == state->count ? EXIT_PASSED : EXIT_FAILED;
}

/* ---- the batch ---------------------------------------------------------------------------------- */

int batch_shard_of(const char *file_key, int shard_count)
{
    unsigned long first = 0; /* the first 8 hex digits: 32 bits */
    for (int i = 0; i < 8 && file_key[i] != '\0'; i++) {
        char digit = file_key[i];
        first = first * 16 + (unsigned long)(digit <= '9' ? digit - '0' : digit - 'a' + 10);
    }
    return (int)(first % (unsigned long)shard_count);
}

/* --shard K/N: the entries of shard K alone, in their order. */
static void keep_shard(batch *state)
{
    int kept = 0;
    for (int i = 0; i < state->count; i++)
        if (batch_shard_of(state->entries[i].file_key, state->options->shard_count) ==
            state->options->shard)
            state->entries[kept++] = state->entries[i];
    state->count = kept;
}

/* --merge: each folder a batch's output (it has results/), and not the output folder. */
static int check_merge_folders(const batch *state)
{
    for (int i = 0; i < state->options->merge_count; i++) {
        const char *folder = state->options->merge_folders[i];
        char results[GRADING_PATH_SIZE], resolved[PATH_MAX];
        grading_path(results, sizeof results, "%s/results", folder);
        struct stat status;
        if (stat(folder, &status) != 0 || !S_ISDIR(status.st_mode))
            return refuse("--merge %s: no such folder", folder);
        if (stat(results, &status) != 0 || !S_ISDIR(status.st_mode) ||
            realpath(folder, resolved) == NULL)
            return refuse("--merge %s: not a grading's output folder (it has no results/)",
                          folder);
        if (strcmp(resolved, state->out_resolved) == 0)
            return refuse("--merge %s is the --out folder itself: merge into another folder",
                          folder);
    }
    return EXIT_PASSED;
}

static int prepare(batch *state)
{
    const char *submissions = state->options->submissions;
    int status = check_output(state);
    if (status != EXIT_PASSED)
        return status;
    struct stat given;
    if (stat(submissions, &given) == 0 && S_ISDIR(given.st_mode)) {
        if (realpath(submissions, state->base) == NULL)
            return refuse("cannot resolve %s", submissions);
    } else {
        status = unpack(state);
        if (status != EXIT_PASSED)
            return status;
    }
    status = find_submissions(state);
    if (status != EXIT_PASSED)
        return status;
    status = check_merge_folders(state);
    if (status != EXIT_PASSED)
        return status;
    if (state->options->shard_count > 0)
        keep_shard(state);
    char path[GRADING_PATH_SIZE];
    const char *folders[] = {"", "/results", "/feedback"};
    for (size_t i = 0; i < sizeof folders / sizeof folders[0] && status == EXIT_PASSED; i++) {
        grading_path(path, sizeof path, "%s%s", state->out_resolved, folders[i]);
        status = make_folder(path);
    }
    return status;
}

int batch_grade(grading_setup *setup, const batch_options *options)
{
    batch state = {0};
    state.setup = setup;
    state.options = options;
    clock_gettime(CLOCK_MONOTONIC, &state.start);
    state.cases = calloc((size_t)setup->cases->count, sizeof *state.cases);
    if (state.cases == NULL)
        out_of_memory();
    for (int i = 0; i < setup->cases->count; i++)
        if (setup->only_case == NULL || strcmp(setup->cases->cases[i].name, setup->only_case) == 0)
            state.cases[state.case_count++] = &setup->cases->cases[i];

    int status = prepare(&state);
    if (status == EXIT_PASSED) {
        if (options->merge_count > 0)
            merge_all(&state);
        else
            grade_all(&state);
        state.write_failed |= write_scores(&state) != 0;
        state.write_failed |= write_canvas(&state) != 0;
        state.write_failed |= write_files(&state) != 0;
        status = summarize(&state);
        if (state.write_failed)
            status = refuse("some files of %s could not be written (see above)", options->out);
    }
    if (state.unpacked[0] != '\0')
        grading_remove_tree(state.unpacked);
    for (int i = 0; i < state.count; i++)
        free(state.entries[i].marks);
    free(state.entries);
    free(state.cases);
    text_free(&state.skipped);
    roster_free(&state.students);
    return status;
}

/* ---- --status -------------------------------------------------------------------------------- */

/* What one folder's submissions.txt and records say. */
typedef struct {
    int found;                  /* the folder has a submissions.txt */
    char lab[64];
    int shard, shard_count;     /* shard_count 0: the whole class */
    int total;
    int counts[DONE_KINDS];
    int left;
    text_buffer left_names, not_graded_names;
    int left_listed, not_graded_listed;
    cJSON *left_list, *not_graded_list; /* every name, for --format json */
} folder_status;

/* A name into a list of at most NAMES_LISTED, then "and N more" when it is printed; and into
 * the JSON list of them all. */
static void list_name(text_buffer *names, int *listed, cJSON **all, const char *name)
{
    if (*listed < NAMES_LISTED)
        text_append(names, "%s%s", *listed > 0 ? ", " : "", name);
    (*listed)++;
    if (*all == NULL)
        *all = cJSON_CreateArray();
    if (*all == NULL || !cJSON_AddItemToArray(*all, cJSON_CreateString(name)))
        out_of_memory();
}

/* The outcome of the record at path when it has this key, else -1 (not graded yet). */
static int record_outcome(const char *path, const char *key)
{
    cJSON *root = load_record(path);
    const char *stored_key = json_string(root, "key");
    int kind = outcome_kind(json_string(root, "outcome"));
    if (stored_key == NULL || strcmp(stored_key, key) != 0 || kind >= DONE_NO_SUBMISSION)
        kind = -1;
    cJSON_Delete(root);
    return kind;
}

static void read_folder_status(const char *folder, folder_status *status)
{
    memset(status, 0, sizeof *status);
    char path[GRADING_PATH_SIZE];
    grading_path(path, sizeof path, "%s/" PLAN_NAME, folder);
    char *plan = text_read_file(path);
    if (plan == NULL)
        return;
    status->found = 1;
    for (char *line = strtok(plan, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char key[SHA256_HEX_SIZE], file_key[SHA256_HEX_SIZE];
        int name_at = 0;
        if (line[0] == '#' || sscanf(line, "lab %63s", status->lab) == 1 ||
            sscanf(line, "shard %d/%d", &status->shard, &status->shard_count) == 2 ||
            strcmp(line, "shard all") == 0)
            continue;
        if (sscanf(line, "%64s %64s %n", key, file_key, &name_at) != 2 || name_at == 0)
            continue;
        const char *name = line + name_at;
        status->total++;
        if (strcmp(key, "-") == 0) {
            status->counts[DONE_NO_SUBMISSION]++;
            continue;
        }
        grading_path(path, sizeof path, "%s/results/%s.record", folder, file_key);
        int kind = record_outcome(path, key);
        if (kind < 0) {
            status->left++;
            list_name(&status->left_names, &status->left_listed, &status->left_list, name);
            continue;
        }
        status->counts[kind]++;
        if (kind == DONE_NOT_GRADED)
            list_name(&status->not_graded_names, &status->not_graded_listed,
                      &status->not_graded_list, name);
    }
    free(plan);
}

static void print_names(const text_buffer *names, int listed)
{
    if (listed == 0)
        return;
    printf(": %s", names->data);
    if (listed > NAMES_LISTED)
        printf(" and %d more", listed - NAMES_LISTED);
}

/* "12 submissions: 9 graded (7 passed, 2 failed); 1 not graded: eve; 2 left: fay, gus" */
static void print_counts(const folder_status *status)
{
    int graded = 0;
    for (int k = DONE_PASSED; k <= DONE_REFUSED; k++)
        graded += status->counts[k];
    printf("%d submission%s: %d graded (%d passed, %d failed", status->total,
           status->total == 1 ? "" : "s", graded, status->counts[DONE_PASSED],
           status->counts[DONE_FAILED]);
    for (int k = DONE_NOT_COMPILED; k <= DONE_REFUSED; k++)
        if (status->counts[k] > 0)
            printf(", %d %s", status->counts[k], done_words[k]);
    printf("); %d not graded", status->counts[DONE_NOT_GRADED]);
    print_names(&status->not_graded_names, status->not_graded_listed);
    if (status->counts[DONE_NO_SUBMISSION] > 0)
        printf("; %d no submission", status->counts[DONE_NO_SUBMISSION]);
    printf("; %d left", status->left);
    print_names(&status->left_names, status->left_listed);
    printf("\n");
}

static void free_folder_status(folder_status *status)
{
    text_free(&status->left_names);
    text_free(&status->not_graded_names);
    cJSON_Delete(status->left_list);
    cJSON_Delete(status->not_graded_list);
    status->left_list = status->not_graded_list = NULL;
}

/* A folder's (or a shard's, or all shards') counts as JSON: done when every submission is
 * graded (passed, failed, did not compile, refused) or has none. */
static cJSON *status_json(const folder_status *status, int started)
{
    static const char *const keys[DONE_KINDS] = {"passed", "failed", "did_not_compile",
                                                 "refused", "not_graded", "no_submission"};
    cJSON *object = cJSON_CreateObject();
    int graded = 0;
    for (int k = DONE_PASSED; k <= DONE_REFUSED; k++)
        graded += status->counts[k];
    int done = started && status->left == 0 && status->counts[DONE_NOT_GRADED] == 0;
    int ok = object != NULL && cJSON_AddBoolToObject(object, "started", started) != NULL &&
             cJSON_AddBoolToObject(object, "done", done) != NULL &&
             cJSON_AddNumberToObject(object, "submissions", status->total) != NULL &&
             cJSON_AddNumberToObject(object, "graded", graded) != NULL;
    for (int k = 0; ok && k < DONE_KINDS; k++)
        ok = cJSON_AddNumberToObject(object, keys[k], status->counts[k]) != NULL;
    ok = ok && cJSON_AddNumberToObject(object, "left", status->left) != NULL;
    const cJSON *lists[2] = {status->not_graded_list, status->left_list};
    const char *names[2] = {"not_graded_names", "left_names"};
    for (int i = 0; ok && i < 2; i++) {
        cJSON *copy = lists[i] != NULL ? cJSON_Duplicate(lists[i], 1) : cJSON_CreateArray();
        ok = copy != NULL && cJSON_AddItemToObject(object, names[i], copy);
    }
    if (!ok)
        out_of_memory();
    return object;
}

/* The JSON status: shards_left first (the shards a job must grade again, numbers only), then
 * the lab, each shard's counts and all shards' together. */
static int print_status_json(const char *lab, int shard_count, cJSON *shards, cJSON *shards_left,
                             const folder_status *all)
{
    cJSON *root = cJSON_CreateObject();
    int ok = root != NULL && cJSON_AddItemToObject(root, "shards_left", shards_left) &&
             cJSON_AddStringToObject(root, "lab", lab) != NULL &&
             cJSON_AddNumberToObject(root, "shard_count", shard_count) != NULL &&
             cJSON_AddItemToObject(root, "shards", shards) &&
             cJSON_AddItemToObject(root, "all", status_json(all, 1));
    char *text = ok ? cJSON_Print(root) : NULL;
    if (text == NULL)
        out_of_memory();
    printf("%s\n", text);
    free(text);
    cJSON_Delete(root);
    return EXIT_PASSED;
}

static int by_shard(const void *a, const void *b)
{
    const folder_status *first = a, *second = b;
    return (first->shard > second->shard) - (first->shard < second->shard);
}

int batch_status(const char *out, int json)
{
    char shards[GRADING_PATH_SIZE];
    grading_path(shards, sizeof shards, "%s/" SHARDS_FOLDER, out);
    struct dirent **names = NULL;
    int count = is_directory(shards) ? scandir(shards, &names, real_entry, alphasort) : -1;
    if (count < 0) {
        folder_status status;
        read_folder_status(out, &status);
        if (!status.found)
            return refuse("--status %s: no grading there (no %s/" PLAN_NAME ", no %s/)", out,
                          out, shards);
        if (json) {
            cJSON *shard_list = cJSON_CreateArray(), *left = cJSON_CreateArray();
            if (shard_list == NULL || left == NULL)
                out_of_memory();
            print_status_json(status.lab, 0, shard_list, left, &status);
        } else {
            printf("memlab grade: %s: lab %s, ", out, status.lab);
            print_counts(&status);
        }
        free_folder_status(&status);
        return EXIT_PASSED;
    }
    folder_status *folders = calloc((size_t)count + 1, sizeof *folders);
    if (folders == NULL)
        out_of_memory();
    folder_status all = {0};
    int found = 0, shard_count = 0;
    for (int i = 0; i < count; i++) {
        char folder[GRADING_PATH_SIZE];
        grading_path(folder, sizeof folder, "%s/%s", shards, names[i]->d_name);
        read_folder_status(folder, &folders[found]);
        if (folders[found].found && folders[found].shard_count > 0) {
            snprintf(all.lab, sizeof all.lab, "%s", folders[found].lab);
            if (folders[found].shard_count > shard_count)
                shard_count = folders[found].shard_count;
            found++;
        } else {
            free_folder_status(&folders[found]);
        }
    }
    free_listing(names, count);
    if (found == 0) { /* a job array submitted, none of its tasks begun: no refusal */
        free(folders);
        if (json) {
            /* No shard known: none can be named left (the array's size is not known here). */
            cJSON *shard_list = cJSON_CreateArray(), *left = cJSON_CreateArray();
            if (shard_list == NULL || left == NULL)
                out_of_memory();
            return print_status_json("", 0, shard_list, left, &all);
        }
        printf("memlab grade: %s: no shard has started yet (no %s/K/" PLAN_NAME ")\n", out,
               shards);
        return EXIT_PASSED;
    }
    qsort(folders, (size_t)found, sizeof *folders, by_shard);
    if (!json)
        printf("memlab grade: %s: lab %s, %d shard%s\n", out, all.lab, shard_count,
               shard_count == 1 ? "" : "s");
    cJSON *shard_list = cJSON_CreateArray(), *left = cJSON_CreateArray();
    if (shard_list == NULL || left == NULL)
        out_of_memory();
    int at = 0;
    for (int shard = 0; shard < shard_count; shard++) {
        if (!json)
            printf("  shard %d/%d: ", shard, shard_count);
        cJSON *one_json = NULL;
        if (at < found && folders[at].shard == shard) {
            folder_status *one = &folders[at++];
            if (json)
                one_json = status_json(one, 1);
            else
                print_counts(one);
            all.total += one->total;
            all.left += one->left;
            for (int k = 0; k < DONE_KINDS; k++)
                all.counts[k] += one->counts[k];
            free_folder_status(one);
            while (at < found && folders[at].shard == shard)
                free_folder_status(&folders[at++]); /* a second folder of one shard: not counted */
        } else if (json) {
            folder_status none = {0};
            one_json = status_json(&none, 0);
        } else {
            printf("not started (no %s/%d/" PLAN_NAME ")\n", shards, shard);
        }
        if (one_json == NULL)
            continue;
        if (!cJSON_AddNumberToObject(one_json, "shard", shard) ||
            !cJSON_AddItemToArray(shard_list, one_json))
            out_of_memory();
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(one_json, "done")) &&
            !cJSON_AddItemToArray(left, cJSON_CreateNumber(shard)))
            out_of_memory();
    }
    free(folders);
    if (json)
        return print_status_json(all.lab, shard_count, shard_list, left, &all);
    cJSON_Delete(shard_list);
    cJSON_Delete(left);
    printf("  all shards: ");
    print_counts(&all);
    return EXIT_PASSED;
}
