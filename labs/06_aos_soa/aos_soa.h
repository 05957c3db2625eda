/* Lab 06: array of structures vs structure of arrays. What the kernels (kernels.cu) and the host
 * program (aos_soa.cu) share: the particle's three layouts, the update, and how many particles
 * one SoA thread takes. The instructor's file: kernels.cu includes it, a submission does not
 * change it.
 */
#ifndef AOS_SOA_H
#define AOS_SOA_H

#include <cuda_runtime.h>

/* update_soa gives each thread this many particles, loaded before any is stored. The host
 * program's launch covers n particles with it. */
#define PARTICLES_PER_THREAD 4

#define TIME_STEP 0.01f
#define DRIFT_SPEED 0.5f        /* the one-field update: x moves by DRIFT_SPEED * TIME_STEP */
#define ELECTRIC_FIELD_X 0.6f   /* the full update: a uniform field E pushes every particle */
#define ELECTRIC_FIELD_Y -0.3f
#define ELECTRIC_FIELD_Z 0.9f

/* ---- the three layouts --------------------------------------------------------------------- */

/* Array of structures: particle i is 8 floats, 32 bytes, in this order. The mass is stored as
 * its inverse, as physics engines do: the update multiplies by it. */
typedef struct {
    float x, y, z;
    float vx, vy, vz;
    float inverse_mass, charge;
} particle;

/* The AoS with its fields grouped for 16-byte loads: float4 is 16-byte aligned (__align__(16)),
 * so each half of a particle can be one 128-bit load or store. */
typedef struct {
    float4 position;            /* x, y, z and, in w, the inverse mass */
    float4 velocity;            /* vx, vy, vz and, in w, the charge */
} particle_aligned;

/* Structure of arrays: field f of particle i is f[i]. Each array starts on a 128-byte line. In
 * the next state (update_soa's out), inverse_mass and charge point at the input's arrays, and
 * with --fields 1 so do all the fields but x. */
typedef struct {
    float *x, *y, *z;
    float *vx, *vy, *vz;
    float *inverse_mass, *charge;
} particle_arrays;

/* ---- the update, shared by the kernels and the CPU reference -------------------------------- */

/* One time step in a uniform electric field E: the force qE changes the velocity by
 * (q / m) E dt, then the particle moves with its new velocity (semi-implicit Euler). */
static inline __host__ __device__ particle push(particle p)
{
    float impulse = p.charge * p.inverse_mass * TIME_STEP;
    p.vx += impulse * ELECTRIC_FIELD_X;
    p.vy += impulse * ELECTRIC_FIELD_Y;
    p.vz += impulse * ELECTRIC_FIELD_Z;
    p.x += p.vx * TIME_STEP;
    p.y += p.vy * TIME_STEP;
    p.z += p.vz * TIME_STEP;
    return p;
}

/* The one-field update: the frame of reference drifts along x. */
static inline __host__ __device__ float drift(float x)
{
    return x + DRIFT_SPEED * TIME_STEP;
}

#endif
