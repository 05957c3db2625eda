/* lab_table.h: the check of a lab's table (ml_lab, memlab.h) before a run, and the run's
 * buffers. */
#ifndef MEMLAB_LAB_TABLE_H
#define MEMLAB_LAB_TABLE_H

#include "memlab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The table's own mistakes, caught before anything runs: ML_EXIT_OK, or ML_EXIT_LAB_ERROR with
 * one line on stderr that names the lab and what is wrong. */
int ml_check_lab_table(const ml_lab *lab);

/* Frees what ml_device_buffer and ml_host_buffer gave the run (the harness, after each run). */
void ml_free_run_buffers(ml_problem *problem);

#ifdef __cplusplus
}
#endif

#endif
