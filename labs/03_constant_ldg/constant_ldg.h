/* constant_ldg.h: what lab 03's kernels (kernels.cu) and its host program (constant_ldg.cu) both
 * need: the size of the constant mask and the layout of the pattern table. Instructor-owned;
 * kernels.cu includes it. */
#ifndef CONSTANT_LDG_H
#define CONSTANT_LDG_H

#define WARP_LANES 32               /* threads in a warp */

#define MAX_MASK 15                 /* widest convolution mask (--mask 3 .. 15, odd) */
#define MAX_MASK_TAPS (MAX_MASK * MAX_MASK)

/* The pattern table: one slot per lane of a warp, each slot 16 floats (64 bytes, one line of
 * the constant cache). */
#define SLOT_FLOATS 16
#define TABLE_SLOTS WARP_LANES
#define TABLE_FLOATS (TABLE_SLOTS * SLOT_FLOATS)

#endif
