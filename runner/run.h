/* run.h: one run of a lab program, phase by phase (run.c). */
#ifndef MEMLAB_RUN_H
#define MEMLAB_RUN_H

#include "lab_run.h"

/* The command line, and what it asks that needs no run (help, the lists, saving kernels):
 * RUN_GOES_ON, or the exit status. */
int ml_run_parse(lab_run *run, int argc, char **argv);
/* One run, from its parsed command line to its report. Returns the exit status. */
int ml_run_parsed(lab_run *run);

#endif
