/* batch.h: grading a whole class, one submission after another (or a few at once), with the
 * single-submission path (grading.h) for each.
 *
 * SUBMISSIONS is a folder holding one NAME.cu or one NAME/ folder per student, Gradescope's
 * "Export Submissions" folder (submission_metadata.yml names each folder's students), or an
 * archive of either (.zip, .tar, .tar.gz, .tgz: unpack.h). A NAME/ folder's submission is, by
 * one rule: its kernels.cu; else, in a clone of the student pack or of the GitHub Classroom
 * repository (a folder holding labs/), labs/NN_LAB/kernels.cu of the lab graded; else its only
 * .cu file. No symbolic link is followed (a linked labs/, labs/NN_LAB/ or kernels.cu is that
 * student's one-line problem): a link could lead out of the student's folder. A
 * submission's files are named by its KEY, the SHA-256 of its name in the folder (ada.cu, ben):
 * names are data, and any name grades. Into the output folder go:
 *   scores.csv          one row a student: Name, SID, Email, Submission, Total Score, Max
 *                       Points, Status, then each case's points (Gradescope's grade columns)
 *   canvas.csv          Student, ID, SIS User ID, SIS Login ID, Section and the lab's column,
 *                       as Canvas's gradebook import reads them (students with a score only)
 *   files.csv           Submission ID, Feedback, Results, Report: whose files are whose
 *   feedback/KEY.txt    what the student sees on Gradescope (hidden cases left out)
 *   results/KEY.json    Gradescope's results.json of the submission; results/KEY.txt, the text
 *                       report with every case
 *   results/KEY.record  what the batch keeps of the submission, with its grading key: a hash of
 *                       the submission, the rubric, the --cases files and --case. A submission
 *                       graded before with the same key is not graded again; one that could not
 *                       be graded (no GPU) is, the next time.
 *   submissions.txt     what the folder's last run set out to grade: each submission's grading
 *                       key, file key and name (--status reads it)
 * A crash, a hang, a compile error or a refusal of one submission never stops the batch.
 *
 * --roster FILE (a folder or an archive of one, not Gradescope's export): a CSV file whose
 * header names the columns submission, sid, email and name (roster_read_csv) fills Name, SID
 * and Email of scores.csv and canvas.csv. A submission of the folder with no row in it refuses
 * the batch, naming the submission, before anything is written; a row with no submission in the
 * folder is a "no submission" row, as a student an export lists without a folder.
 *
 * Beyond one GPU (tools/grade/README.md):
 *   --gpus all|N,M,...  one grading lane per GPU (gpus.h): each grading process gets the GPU
 *                       with the fewest processes running, as CUDA_VISIBLE_DEVICES=ITS-UUID, so
 *                       its GPU lock and every run of its cases are on that device; compiles
 *                       are shared (--jobs, default one per GPU). Progress lines name the GPU;
 *                       the record keeps its model ("gpu"). GPUs of two models are refused
 *                       unless --mixed-gpus.
 *   --shard K/N         grades only the submissions of shard K: the first 8 hex digits of the
 *                       file key, mod N (a class that grows moves no submission to another
 *                       shard); the tables hold that shard's rows only.
 *   --merge FOLDER...   grades nothing: each submission's record and files are taken from the
 *                       folder that graded it with the same key (copied into --out), and the
 *                       tables are written as one run over the class would write them; one no
 *                       folder graded is "not graded: no shard graded it".
 *   --status OUT        batch_status: what each shard folder (OUT/shards/K, else OUT) has
 *                       graded and has left, read from its files.
 */
#ifndef MEMLAB_BATCH_H
#define MEMLAB_BATCH_H

#include "gpus.h"
#include "grading.h"

#define BATCH_MAX_CASE_FILES 16

typedef struct {
    const char *submissions;    /* the folder or archive */
    const char *out;            /* the output folder */
    int jobs;                   /* submissions compiled at once (their cases take turns) */
    const char *rubric;         /* labs/NN_LAB/rubric */
    const char *case_files[BATCH_MAX_CASE_FILES];
    int case_file_count;
    const gpu_set *gpus;        /* --gpus: one lane per GPU; NULL: the device the caller has */
    int shard, shard_count;     /* --shard K/N; shard_count 0: every submission */
    char *const *merge_folders; /* --merge: the shard folders; merge_count 0: grade */
    int merge_count;
    const char *roster;         /* --roster FILE: a CSV naming each submission's student
                                 * (roster.h); NULL: none (an export names its own) */
} batch_options;

/* 1 if path names a batch: a directory, or a regular file named as an archive (unpack.h). */
int batch_is_batch(const char *path);

/* Refuses bad input with one line on stderr and exit status 2 before it writes anything; then
 * grades every submission. Returns the exit status: 0 every submission passed every case, 1 a
 * submission failed (a case, its compile, or it was refused, or is missing), 3 a submission
 * could not be graded on this host. */
int batch_grade(grading_setup *setup, const batch_options *options);

/* The shard (0 to shard_count - 1) of a submission by its file key (hex). */
int batch_shard_of(const char *file_key, int shard_count);

/* --status: for each shard folder under out/shards/ (or out itself, when it has none) how many
 * submissions are graded, not graded, failed, and which are left, on stdout (out/shards/ with
 * no shard begun: a line that says so). Reads files only. Returns 0, or 2 (one line on stderr)
 * when out holds neither submissions.txt nor shards/. */
/* json: the same as one JSON document (--status OUT --format json): "shards_left" (the shard
 * numbers not done: not started, a submission left or not graded), "lab", "shard_count" (0: not
 * sharded), "shards" (each: started, done, the counts, not_graded_names, left_names, shard) and
 * "all". */
int batch_status(const char *out, int json);

#endif
