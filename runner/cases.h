/* cases.h: --cases FILE, one process and many runs. */
#ifndef MEMLAB_CASES_H
#define MEMLAB_CASES_H

#include "lab_run.h"

/* Each case of the file as a run of its own would go, in this process; its output and exit
 * status in files of its own. Returns ML_EXIT_OK, or ML_EXIT_USAGE when the file or a case's
 * files cannot be read or written. */
int ml_run_cases(lab_run *run);

#endif
