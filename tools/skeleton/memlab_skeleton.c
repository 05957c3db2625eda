/* memlab_skeleton: writes the student version of a lab source (see skeleton.h).
 *
 *   memlab_skeleton SOURCE [-o OUTPUT]            the student version (stdout without -o)
 *   memlab_skeleton --solution-lines SOURCE       every solution line, for the leak test
 *   memlab_skeleton --regions SOURCE              one line per region: where, and its hint
 *   memlab_skeleton --check SOURCE...             only check the markers
 *   --keep NAME[,NAME]                            give whole the optional regions so named
 *                                                 (default: MEMLAB_PACK_KEEP's list, else none)
 *
 * Exit status 0, or 2 with one line on stderr ("FILE:LINE: what is wrong"); no OUTPUT file is
 * written when the source has an error.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skeleton.h"

#define EXIT_USAGE 2

static int usage_error(const char *message)
{
    fprintf(stderr, "memlab_skeleton: %s (usage: memlab_skeleton [--solution-lines | --regions | "
                    "--check] [--keep NAME,...] SOURCE... [-o OUTPUT])\n", message);
    return EXIT_USAGE;
}

/* Converts one source into memory first, so an error leaves no half-written output. */
static int convert(const char *path, skeleton_output output, const char *keep,
                   const char *output_path, int quiet)
{
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        fprintf(stderr, "memlab_skeleton: cannot read %s\n", path);
        return EXIT_USAGE;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL) {
        fclose(in);
        fprintf(stderr, "memlab_skeleton: out of memory\n");
        return EXIT_USAGE;
    }
    char error[512];
    int regions = skeleton_convert_keeping(in, memory, path, output, keep, error, sizeof error);
    fclose(in);
    fclose(memory);
    if (regions < 0) {
        fprintf(stderr, "%s\n", error);
        free(text);
        return EXIT_USAGE;
    }
    int status = 0;
    if (!quiet) {
        FILE *out = output_path != NULL ? fopen(output_path, "w") : stdout;
        if (out == NULL || fwrite(text, 1, size, out) != size ||
            (output_path != NULL && fclose(out) != 0)) {
            fprintf(stderr, "memlab_skeleton: cannot write %s\n",
                    output_path != NULL ? output_path : "to stdout");
            status = EXIT_USAGE;
        }
    }
    free(text);
    return status;
}

int main(int argc, char **argv)
{
    skeleton_output output = SKELETON_STUDENT;
    int check_only = 0;
    const char *output_path = NULL;
    /* The optional regions to give whole: --keep, else the environment's (so that
     * `MEMLAB_PACK_KEEP=coarsened ./memlab student-pack ...` and the student builds keep them). */
    const char *keep = getenv("MEMLAB_PACK_KEEP");
    const char *sources[256];
    int source_count = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--solution-lines") == 0)
            output = SKELETON_SOLUTION_LINES;
        else if (strcmp(argv[i], "--regions") == 0)
            output = SKELETON_REGIONS;
        else if (strcmp(argv[i], "--check") == 0)
            check_only = 1;
        else if (strcmp(argv[i], "--keep") == 0) {
            if (i + 1 == argc || argv[i + 1][0] == '-')
                return usage_error("--keep needs the names of optional regions (--keep coarsened)");
            keep = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 == argc || argv[i + 1][0] == '\0')
                return usage_error("-o needs a file name");
            output_path = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: memlab_skeleton [--solution-lines | --regions | --check] "
                   "[--keep NAME,...] SOURCE... [-o OUTPUT]\n"
                   "--keep (default: $MEMLAB_PACK_KEEP) gives whole the optional regions so named\n"
                   "(tools/skeleton/README.md says what a solution region may hold)\n");
            return 0;
        } else if (argv[i][0] == '-' || argv[i][0] == '\0') {
            char message[256];
            snprintf(message, sizeof message, "unknown option '%s'", argv[i]);
            return usage_error(message);
        } else if (source_count < (int)(sizeof sources / sizeof sources[0])) {
            sources[source_count++] = argv[i];
        } else {
            return usage_error("too many sources");
        }
    }
    if (source_count == 0)
        return usage_error("no source given");
    if (output_path != NULL && source_count > 1)
        return usage_error("-o takes one source");

    for (int i = 0; i < source_count; i++) {
        int status = convert(sources[i], output, keep, output_path, check_only);
        if (status != 0)
            return status;
    }
    return 0;
}
