/* main.c: ml_main, what every lab program's main calls (memlab.h): one run (run.c), or the runs
 * of --cases in one process (cases.c). */
#define _POSIX_C_SOURCE 200809L /* alarm */
#include <unistd.h>

#include "cases.h"
#include "memlab.h"
#include "run.h"
#include "timing.h"

int ml_main_with(const ml_lab *lab, const ml_kernel_image *kernels, int argc, char **argv)
{
    /* Static: the selections and the model's device facts are large and outlive the phases. */
    static lab_run run;
    static ml_lab lab_with_kernels;
    lab_with_kernels = *lab;
    lab_with_kernels.kernels = kernels;
    run.lab = &lab_with_kernels;
    run.start = ml_monotonic_seconds();
    int status = ml_run_parse(&run, argc, argv);
    if (status != RUN_GOES_ON)
        return status;
    if (run.options.action == ML_ACTION_CASES)
        return ml_run_cases(&run);
    /* The default action on SIGALRM ends the process: a run past its limit stops there. */
    alarm((unsigned)run.options.time_limit_s);
    return ml_run_parsed(&run);
}
