/* open_device.h: the run's device and its kernels, before anything is measured. */
#ifndef MEMLAB_OPEN_DEVICE_H
#define MEMLAB_OPEN_DEVICE_H

#include "cli.h"
#include "lab_run.h"
#include "memlab.h"

/* --save-kernels: compile --kernels FILE.cu for MEMLAB_CUDA_ARCH, else this machine's GPU, else
 * the architectures the program was built for. */
int ml_save_kernels(const ml_lab *lab, const ml_options *options);
/* The device: there is one, --device names one of them, its kernels load, and every variant
 * fits in its free memory at every sweep point. Then its facts go into the report and the
 * model. RUN_GOES_ON, or the exit status. */
int ml_open_device(lab_run *run);

#endif
