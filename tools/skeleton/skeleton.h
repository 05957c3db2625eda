/* skeleton.h: a lab source turned into its student version.
 *
 * Solution code sits between two marker lines, each alone on its line:
 *
 *     // BEGIN SOLUTION
 *     // TODO: what the student writes here        <- optional hint: the region's first lines
 *     //       (more // lines continue the hint)
 *     // STUB: return 0.0f;                        <- optional: code the student version needs
 *     ...the solution...                              to compile, anywhere in the region
 *     // END SOLUTION
 *
 * In the student version a region becomes its hint (or a generic TODO when it has none), then
 * its STUB lines with the "// STUB: " prefix taken off, then blank lines, so that the region
 * keeps its length and every line outside it keeps its line number. Lines outside the regions
 * are copied as they are. Regions do not nest; a marker that is not alone on its line, an END
 * without a BEGIN, a BEGIN never closed, a STUB outside a region and a TODO hint after the
 * start of a region are errors, reported as "FILE:LINE: what is wrong".
 *
 * An optional region names itself on its first line, before its hint:
 *
 *     // BEGIN SOLUTION
 *     // OPTIONAL: coarsened                        <- one word: the name a pack keeps it by
 *     // TODO: ...
 *
 * By default it becomes its hint and stubs like any other. A version made keeping that name
 * (skeleton_convert_keeping's `keep`, memlab_skeleton --keep, MEMLAB_PACK_KEEP) gives it whole:
 * a comment saying so where the BEGIN marker was, then its code at the lines it has in the
 * source (its name, hint and stub lines blank), so that an instructor can hand out an extension
 * as given code without editing the markers. Its lines are then no solution lines of that
 * version (SKELETON_SOLUTION_LINES leaves them out).
 */
#ifndef MEMLAB_SKELETON_H
#define MEMLAB_SKELETON_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    SKELETON_STUDENT,           /* the student version */
    SKELETON_SOLUTION_LINES,    /* every solution line (not a marker, hint or stub), as it is */
    SKELETON_REGIONS,           /* one line per region: "FILE:BEGIN-END: hint" */
} skeleton_output;

/* Reads a lab source from `in` (called `name` in messages) and writes what `output` asks for
 * to `out`. Returns the number of regions, or -1 with one line in `error` (nothing is written
 * after the error; the caller discards what was). */
int skeleton_convert(FILE *in, FILE *out, const char *name, skeleton_output output, char *error,
                     size_t error_size);

/* The same, giving whole every optional region whose name `keep` lists (names separated by
 * commas or spaces; NULL or "" keeps none). */
int skeleton_convert_keeping(FILE *in, FILE *out, const char *name, skeleton_output output,
                             const char *keep, char *error, size_t error_size);

#endif
