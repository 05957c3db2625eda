/* metric_selection.h: what --metrics means for one variant: "none", "default" (the variant's own
 * metrics), a group of the alias table or "all", or a comma-separated list of aliases and
 * Perfworks names; then each Perfworks name checked against the device's chip. */
#ifndef MEMLAB_METRIC_SELECTION_H
#define MEMLAB_METRIC_SELECTION_H

#include <stddef.h>

#include "profiler.h"

/* The most metrics one variant collects: memlab.h's ML_MAX_METRICS. */
#define PROF_MAX_SELECTED 16

/* A metric the run collects: a table entry, or a Perfworks name given on the command line. */
typedef struct {
    prof_metric metric;
    char name[128];
    int supported;              /* 0 when the device's chip does not know one of its inputs */
} prof_selected_metric;

typedef struct {
    prof_selected_metric metric[PROF_MAX_SELECTED];
    int count;
} prof_selection;

/* The selection --metrics `request` makes for a variant whose own metrics are variant_metrics
 * (comma-separated; NULL or "": none). Returns 0, or -1 with one line in error (an unknown
 * name, an empty one, too many). */
int prof_select_metrics(const char *request, const char *variant_metrics,
                        prof_selection *selection, char *error, size_t error_size);

/* Checks every Perfworks name of the selection against the chip. Names typed by the user must be
 * right (-1 with one line in error); a table metric the chip lacks is dropped with a warning
 * (supported 0). Returns 0 otherwise. */
int prof_check_selection(const char *chip, prof_selection *selection, char *error,
                         size_t error_size);

/* 1 if the selection has a unified-memory counter (unified 1) or a Perfworks metric (0). */
int prof_selection_has(const prof_selection *selection, int unified);

#endif
