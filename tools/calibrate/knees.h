/* knees.h: where a pointer chase's latency steps from one level of the memory hierarchy to the
 * next, and so how large each cache is (./memlab calibrate; the method is mt4g's).
 *
 * A chase over a working set, one 128-byte line a link, visited in a random order, sits on a
 * plateau of latency while a cache holds it and climbs to the next level's beyond. A cache's
 * size is where the latency is halfway between the two plateaus (the working set half of whose
 * loads hit), found between the two points around it (linear). The plateaus: the L1's at 64 KiB
 * or less; the L2's from 1 MiB to a quarter of it (its near half, where it has two); the L2's
 * last before its knee (the largest working set from half to 0.8 of it: the far half); DRAM's
 * at the largest working set, twice the L2 or more.
 */
#ifndef MEMLAB_KNEES_H
#define MEMLAB_KNEES_H

#include <stddef.h>

/* One point of the chase: its working set and the cycles a load took. */
typedef struct {
    double bytes, cycles;
} chase_point;

typedef struct {
    double l1_bytes, l2_bytes;
    double l2_near_bytes;       /* NaN: one L2 plateau */
    double l1_cycles, l2_cycles, l2_far_cycles, dram_cycles;
} chase_knees;

/* Finds the knees of points (working sets rising) of a GPU whose runtime reports an L2 of
 * runtime_l2 bytes. Returns 0, or -1 with one line in error: a plateau without a point, no L1
 * step, no step past the L2. */
int find_knees(const chase_point *points, int count, double runtime_l2, chase_knees *found,
               char *error, size_t error_size);

#endif
