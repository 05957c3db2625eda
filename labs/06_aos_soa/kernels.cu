/* Lab 06: array of structures (AoS) vs structure of arrays (SoA). The kernels: the file you write
 * and submit.
 *
 * A charged particle is 8 floats, 32 bytes (aos_soa.h): position x, y, z, velocity vx, vy, vz,
 * inverse mass and charge. Each kernel below computes the next state of n particles, one layout
 * each: an array of structs (update_aos), the same struct as two float4s (update_aos_aligned), and
 * one array per field (update_soa). The arithmetic is the same in all three; only where a
 * thread finds its particle's fields differs. With fields == 8 the update uses every field (a
 * push through a uniform electric field, push()); with fields == 1 it uses x alone (a drift,
 * drift()). For each kernel and each update, predict which addresses the 32 lanes of a warp
 * touch with one load or store, how many sectors that is and how many of their bytes are used,
 * and how many bytes the whole launch moves from and to DRAM; then measure it
 * (handouts/06_aos_soa.md).
 *
 * The natural code updates particles in place: particles[i] = push(particles[i]). Every kernel
 * here reads one buffer and writes the next state to another instead, as a simulation that swaps
 * two buffers each step does: a launch never changes what it reads, so its output depends only
 * on the input the lab program gave it (new particles before every timed launch), and the
 * program can launch it again and again to time it. In a SoA only the arrays that change need a
 * second copy; inverse_mass and charge are shared by both states. In an AoS the next state is a
 * whole second array of particles, so the AoS kernels copy all 8 fields even when only x
 * changes: in place, they would load and store x alone, but through the same sectors.
 *
 * This file is device code only: the lab program (aos_soa.cu, the instructor's) finds each
 * kernel by its name, launches it, checks every particle against its CPU reference and reads
 * the hardware counters. Keep the names and the parameters as they are. aos_soa.h (the
 * layouts, push(), drift(), PARTICLES_PER_THREAD) is the lab's: your file is built and graded
 * with the lab's own copy of it.
 *
 * Build and run:  ./memlab run aos_soa --sweep fields=1:8:7
 * Your own file:  ./memlab run aos_soa --kernels path/to/kernels.cu
 * Versions:       CUDA 13.0, compute capability 7.5 or newer
 */
#include <cuda_runtime.h>

#include "aos_soa.h"

/* Array of structures: thread i reads particle in[i] and writes its next state to out[i]. */
extern "C" __global__ void update_aos(const particle *in, particle *out, size_t n, int fields)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    particle p = in[i];
    if (fields == 1)
        p.x = drift(p.x);
    else
        p = push(p);
    out[i] = p;
}

/* The AoS with its fields grouped into two float4s (particle_aligned): thread i reads particle
 * in[i] and writes its next state to out[i]. */
extern "C" __global__ void update_aos_aligned(const particle_aligned *in, particle_aligned *out,
                                              size_t n, int fields)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // BEGIN SOLUTION
    // TODO: read particle i as its two float4s, update it (drift() of x when fields == 1,
    //       push() otherwise) and write both float4s to out[i].
    float4 position = in[i].position;
    float4 velocity = in[i].velocity;
    particle p = {position.x, position.y, position.z, velocity.x,
                  velocity.y, velocity.z, position.w, velocity.w};
    if (fields == 1)
        p.x = drift(p.x);
    else
        p = push(p);
    out[i].position = make_float4(p.x, p.y, p.z, p.inverse_mass);
    out[i].velocity = make_float4(p.vx, p.vy, p.vz, p.charge);
    // END SOLUTION
}

/* Structure of arrays (particle_arrays): field f of particle i is in.f[i], and its next state
 * goes to out.f[i]. Block b takes PARTICLES_PER_THREAD * blockDim.x particles from b * that; its
 * thread t takes the block's particles t, t + blockDim.x, t + 2 * blockDim.x, ... so that every
 * load and store instruction of a warp touches 32 consecutive floats of one array. */
extern "C" __global__ void update_soa(particle_arrays in, particle_arrays out, size_t n,
                                      int fields)
{
    // BEGIN SOLUTION
    // TODO: for each of the thread's particles i < n (see above): with fields == 1,
    //       out.x[i] = drift(in.x[i]); otherwise read all 8 arrays, push(), and write the 6
    //       arrays that change. Issue all of a thread's loads before its first store.
    size_t first = (size_t)blockIdx.x * blockDim.x * PARTICLES_PER_THREAD + threadIdx.x;
    if (fields == 1) {
        float x[PARTICLES_PER_THREAD];
#pragma unroll
        for (int k = 0; k < PARTICLES_PER_THREAD; k++) {
            size_t i = first + (size_t)k * blockDim.x;
            if (i < n)
                x[k] = in.x[i];
        }
#pragma unroll
        for (int k = 0; k < PARTICLES_PER_THREAD; k++) {
            size_t i = first + (size_t)k * blockDim.x;
            if (i < n)
                out.x[i] = drift(x[k]);
        }
        return;
    }
    /* Every load first, so all of them are in flight together. */
    particle p[PARTICLES_PER_THREAD];
#pragma unroll
    for (int k = 0; k < PARTICLES_PER_THREAD; k++) {
        size_t i = first + (size_t)k * blockDim.x;
        if (i < n) {
            p[k].x = in.x[i];
            p[k].y = in.y[i];
            p[k].z = in.z[i];
            p[k].vx = in.vx[i];
            p[k].vy = in.vy[i];
            p[k].vz = in.vz[i];
            p[k].inverse_mass = in.inverse_mass[i];
            p[k].charge = in.charge[i];
        }
    }
#pragma unroll
    for (int k = 0; k < PARTICLES_PER_THREAD; k++) {
        size_t i = first + (size_t)k * blockDim.x;
        if (i < n) {
            particle next = push(p[k]);
            out.x[i] = next.x;
            out.y[i] = next.y;
            out.z[i] = next.z;
            out.vx[i] = next.vx;
            out.vy[i] = next.vy;
            out.vz[i] = next.vz;
        }
    }
    // END SOLUTION
}
