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
 * A crash, a hang, a compile error or a refusal of one submission never stops the batch.
 */
#ifndef MEMLAB_BATCH_H
#define MEMLAB_BATCH_H

#include "grading.h"

#define BATCH_MAX_CASE_FILES 16

typedef struct {
    const char *submissions;    /* the folder or archive */
    const char *out;            /* the output folder */
    int jobs;                   /* submissions compiled at once (their cases take turns) */
    const char *rubric;         /* labs/NN_LAB/rubric */
    const char *case_files[BATCH_MAX_CASE_FILES];
    int case_file_count;
} batch_options;

/* 1 if path names a batch: a directory, or a regular file named as an archive (unpack.h). */
int batch_is_batch(const char *path);

/* Refuses bad input with one line on stderr and exit status 2 before it writes anything; then
 * grades every submission. Returns the exit status: 0 every submission passed every case, 1 a
 * submission failed (a case, its compile, or it was refused, or is missing), 3 a submission
 * could not be graded on this host. */
int batch_grade(grading_setup *setup, const batch_options *options);

#endif
