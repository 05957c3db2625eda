/* Lab 06: array of structures (AoS) vs structure of arrays (SoA). The host program (the
 * instructor's): sizes, variants, launches, the access model's predictions, the CPU reference.
 * The kernels are in kernels.cu, loaded by name (--kernels FILE runs another kernels file); the
 * layouts and the update they share with this program are in aos_soa.h.
 *
 * A charged particle is 8 floats: position x, y, z, velocity vx, vy, vz, inverse mass and
 * charge, 32 bytes. The same update runs over three layouts of n particles.
 *
 * Variants (each writes the next state of --n particles):
 *   aos          struct particle {x, y, z, vx, vy, vz, inverse_mass, charge} particles[n]
 *   aos_aligned  the same fields grouped into two float4s (struct particle_aligned)
 *   soa          one array per field: x[n], y[n], ..., charge[n]
 * --fields picks the update: 8 (all fields) pushes each particle through a uniform electric
 * field; 1 moves x alone (the frame drifts along x).
 *
 * Build:  ./memlab run aos_soa --help     (or: make -f Makefile.labs aos_soa)
 * Try:    aos_soa --fields 1                (one field: compare DRAM bytes and GB/s)
 *         aos_soa --sweep fields=1:8:7      (both updates, every layout)
 *         aos_soa --model                   (predictions only, no GPU)
 */
#include <math.h>
#include <string.h>

#include "memlab.h"

#include "aos_soa.h"

#define THREADS_PER_BLOCK 256

/* The fields of a particle, in the order struct particle holds them. */
enum { FIELD_X, FIELD_Y, FIELD_Z, FIELD_VX, FIELD_VY, FIELD_VZ, FIELD_INVERSE_MASS, FIELD_CHARGE,
       FIELD_COUNT };

/* Fields the SoA update writes: all but inverse mass and charge, which never change. */
#define CHANGING_FIELDS 6

static const ml_param params[] = {
    {"n", 1 << 26, 1, 1ll << 31, "particles (one per thread; four per thread in soa)"},
    {"fields", FIELD_COUNT, 1, FIELD_COUNT,
     "fields each particle's update uses: 1 (x alone) or 8 (all)"},
};

/* Floating-point operations per particle: push() (aos_soa.h) does 2 multiplications for the
 * impulse, then a multiply and an add for each of the 6 changing fields; drift() one add. */
#define PUSH_FLOPS 14
#define DRIFT_FLOPS 1

/* ---- the variant table ----------------------------------------------------------------------- */

/* Where a layout keeps each field: field f is slot[f] of its particle (its float in a struct, its
 * array in the SoA), slot s holds field field[s]; and the bytes one load or store moves. */
typedef struct {
    int slot[FIELD_COUNT];
    int field[FIELD_COUNT];
    unsigned width;
} particle_layout;

/* struct particle and the SoA keep the fields in FIELD_ order, a float at a time. */
static const particle_layout in_field_order = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}, sizeof(float)};
/* particle_aligned: position.xyz, position.w = inverse mass, velocity.xyz, velocity.w = charge,
 * moved as two float4s. */
static const particle_layout float4_pairs = {
    {0, 1, 2, 4, 5, 6, 3, 7},
    {FIELD_X, FIELD_Y, FIELD_Z, FIELD_INVERSE_MASS, FIELD_VX, FIELD_VY, FIELD_VZ, FIELD_CHARGE},
    sizeof(float4)};

/* A struct per particle (one per thread) or an array per field (PARTICLES_PER_THREAD per
 * thread): the buffers, the launch and the model differ; the update and its reference do not. */
extern const ml_family array_of_structs, struct_of_arrays;

#define LAYOUT_METRICS \
    "gld_efficiency,gld_transactions_per_request,gst_efficiency,gst_transactions_per_request," \
    "dram_read_bytes,dram_write_bytes"

static const ml_variant variants[] = {
    {.name = "aos", .summary = "array of 32-byte structs: thread i reads and writes particle i",
     .family = &array_of_structs, .kernel = "update_aos", .block = {THREADS_PER_BLOCK},
     .constants = &in_field_order, .metrics = LAYOUT_METRICS},
    {.name = "aos_aligned",
     .summary = "the struct as two float4s: thread i reads and writes particle i as two float4s",
     .family = &array_of_structs, .kernel = "update_aos_aligned", .block = {THREADS_PER_BLOCK},
     .constants = &float4_pairs, .metrics = LAYOUT_METRICS},
    {.name = "soa",
     .summary = "one array per field: lane i of a warp takes element i of each array it needs",
     .family = &struct_of_arrays, .kernel = "update_soa", .block = {THREADS_PER_BLOCK},
     .constants = &in_field_order, .metrics = LAYOUT_METRICS},
};

/* Floats from the start of one SoA array to the next: n rounded up to 32 floats, so that every
 * array starts on a 128-byte line, as it would with a cudaMalloc of its own. */
static size_t soa_pitch(size_t n)
{
    return (size_t)ml_ceil_div((long long)n, ML_WARP_SIZE) * ML_WARP_SIZE;
}

/* Fields the SoA writes: x alone, or all that change. */
static size_t soa_written_fields(long long fields)
{
    return fields == 1 ? 1 : CHANGING_FIELDS;
}

typedef struct {
    size_t n;
    int fields;                 /* 1 (x alone) or FIELD_COUNT */
    /* Field f of particle i is float i * particle_step + slot[f] * field_step of its buffer:
     * steps of FIELD_COUNT and 1 in a struct layout, of 1 and the pitch in the SoA. The input
     * and output buffers of a variant share the layout. */
    size_t particle_step, field_step;
    float *in;                  /* the particles in the variant's layout */
    size_t in_count;
    particle_arrays in_arrays;  /* soa: where each field's array starts, in and out */
    particle_arrays out_arrays;
} particles_state;

/* ---- launches -------------------------------------------------------------------------------- */

/* Each launch is what kernel<<<blocks, THREADS_PER_BLOCK>>>(arguments) would be if the program
 * linked kernels.cu; ML_LAUNCH runs the kernel found by name in the loaded kernels file, with
 * the block of its table entry. */

/* Both AoS layouts, one particle per thread:
 *   update_aos((const particle *)in, (particle *)out, n, fields)
 *   update_aos_aligned((const particle_aligned *)in, (particle_aligned *)out, n, fields) */
static void launch_aos(const ml_problem *problem)
{
    const particles_state *state = (const particles_state *)problem->state;
    ml_argument arguments[] = {ML_ARG(state->in), ML_ARG(problem->output), ML_ARG(state->n),
                               ML_ARG(state->fields)};
    ML_LAUNCH(problem, ml_blocks_of(problem, state->n), 0, arguments);
}

/* update_soa(in_arrays, out_arrays, n, fields), each thread taking PARTICLES_PER_THREAD
 * particles */
static void launch_soa(const ml_problem *problem)
{
    const particles_state *state = (const particles_state *)problem->state;
    size_t threads = (size_t)ml_ceil_div((long long)state->n, PARTICLES_PER_THREAD);
    ml_argument arguments[] = {ML_ARG(state->in_arrays), ML_ARG(state->out_arrays),
                               ML_ARG(state->n), ML_ARG(state->fields)};
    ML_LAUNCH(problem, ml_blocks_of(problem, threads), 0, arguments);
}

/* ---- predictions: what each variant should cost -------------------------------------------------
 *
 * Every kernel gives each group of 32 consecutive particles (0-31, 32-63, ...) to one warp's
 * instructions, and each instruction touches one field of those particles. An instruction is
 * described by where lane 0's field is and how far apart the lanes' fields are. */

typedef struct {
    uint64_t base;              /* byte offset, in its buffer, of the field of particle 0 */
    uint64_t stride;            /* bytes from one particle's field to the next particle's */
    unsigned width;             /* bytes per lane */
} field_access;

static field_access field_at(uint64_t base, uint64_t stride, unsigned width)
{
    field_access field = {base, stride, width};
    return field;
}

/* The instruction over every group of particles. A group's fields are 32 strides after the
 * previous group's, a multiple of 128 bytes for every layout here (buffers are 256-byte
 * aligned), so all full groups cost what the first does; the last, partial group is modelled on
 * its own. */
static void add_instruction(ml_global_totals *totals, const field_access *field, uint64_t n)
{
    uint64_t full_groups = n / ML_WARP_SIZE, rest = n % ML_WARP_SIZE;
    ml_warp_access access;
    if (full_groups > 0) {
        ml_warp_access_strided(&access, field->base, (int64_t)field->stride, field->width,
                               ML_ALL_LANES);
        ml_global_totals_add(totals, &access, (double)full_groups);
    }
    if (rest > 0) {
        uint64_t first = full_groups * ML_WARP_SIZE;
        ml_warp_access_strided(&access, field->base + first * field->stride,
                               (int64_t)field->stride, field->width, ml_first_lanes(rest));
        ml_global_totals_add(totals, &access, 1.0);
    }
}

/* DRAM bytes. The loads of a variant cover each array they read (the whole particle array, or
 * some of the SoA's arrays) from its start without gaps, and so do the stores. The L2 is flushed
 * before every run, so each stretch read is read from DRAM once, in the L2's fills: its fetch
 * granularity, a driver setting read at run time (64 bytes by default on the GPUs whose fills
 * memlab has measured: common/gpu_facts.c).
 * A stretch starts on a 128-byte line (buffers are 256-byte aligned, the SoA's arrays are
 * pitched to lines), so it reads its bytes rounded up to whole fills (ml_predict_dram_reads adds
 * the launch's floor to them). The stores are written back in whole sectors, as the L2 evicts
 * them (ml_predict_dram_writes_after: the L2 may still hold some of them when the kernel
 * ends). */
static double sector_bytes_covering(double bytes)
{
    return ceil(bytes / ML_SECTOR_BYTES) * ML_SECTOR_BYTES;
}

static double fill_bytes_covering(double bytes)
{
    double fill = ml_model_gpu()->dram_fill_bytes;
    return ceil(bytes / fill) * fill;
}

static void predict_from_accesses(const ml_problem *problem, uint64_t n,
                                  const field_access *loads, int load_count,
                                  const field_access *stores, int store_count,
                                  double dram_read_bytes, double dram_write_bytes,
                                  ml_prediction *prediction)
{
    ml_global_totals load_totals = {0, 0, 0}, store_totals = {0, 0, 0};
    for (int i = 0; i < load_count; i++)
        add_instruction(&load_totals, &loads[i], n);
    for (int i = 0; i < store_count; i++)
        add_instruction(&store_totals, &stores[i], n);
    ml_predict(prediction, "gld_efficiency", ml_efficiency_pct(&load_totals));
    ml_predict(prediction, "gld_transactions_per_request", ml_sectors_per_request(&load_totals));
    ml_predict(prediction, "gst_efficiency", ml_efficiency_pct(&store_totals));
    ml_predict(prediction, "gst_transactions_per_request", ml_sectors_per_request(&store_totals));
    ml_predict(prediction, "gld_transactions", load_totals.sectors);
    ml_predict(prediction, "gld_requests", load_totals.requests);
    ml_predict(prediction, "gst_transactions", store_totals.sectors);
    ml_predict(prediction, "gst_requests", store_totals.requests);
    /* The buffers: what is read and what is written (the SoA's arrays are pitched to lines). */
    ml_predict_dram_reads(prediction, problem, dram_read_bytes, dram_read_bytes,
                          dram_read_bytes + dram_write_bytes, NULL);
    ml_predict_dram_writes_after(prediction, dram_write_bytes, dram_read_bytes, dram_read_bytes);
}

/* Both AoS kernels copy the whole particle (32 bytes in either struct), whichever update they
 * do: update_aos as 8 scalar loads and stores (struct particle is only 4-byte aligned, so the
 * compiler cannot widen them), update_aos_aligned as two 16-byte loads and stores. */
static void predict_aos(const ml_problem *problem, ml_prediction *prediction)
{
    long long n = ml_size(problem, "n");
    unsigned width = ML_CONSTANTS(particle_layout, problem)->width;
    /* The particle in pieces of width bytes: 8 floats or 2 float4s. */
    int count = (int)(sizeof(particle) / width);
    field_access pieces[FIELD_COUNT];
    for (int k = 0; k < count; k++)
        pieces[k] = field_at(k * width, sizeof(particle), width);
    double particles_bytes = (double)n * sizeof(particle);
    predict_from_accesses(problem, (uint64_t)n, pieces, count, pieces, count,
                          fill_bytes_covering(particles_bytes),
                          sector_bytes_covering(particles_bytes), prediction);
}

/* One load per field read and one store per field written; array f starts f * pitch floats
 * into its buffer, on a line. */
static void predict_soa(const ml_problem *problem, ml_prediction *prediction)
{
    uint64_t n = (uint64_t)ml_size(problem, "n");
    long long fields = ml_size(problem, "fields");
    size_t read_fields = fields == 1 ? 1 : FIELD_COUNT;
    size_t written_fields = soa_written_fields(fields);
    field_access arrays[FIELD_COUNT];
    for (size_t f = 0; f < FIELD_COUNT; f++)
        arrays[f] = field_at(f * soa_pitch(n) * sizeof(float), sizeof(float), sizeof(float));
    double array_bytes = (double)n * sizeof(float);
    predict_from_accesses(problem, n, arrays, (int)read_fields, arrays, (int)written_fields,
                          (double)read_fields * fill_bytes_covering(array_bytes),
                          (double)written_fields * sector_bytes_covering(array_bytes), prediction);
}

/* ---- CPU reference, buffers ------------------------------------------------------------------ */

static const char *check_params(const ml_problem *problem)
{
    static char message[160];
    long long fields = ml_size(problem, "fields");
    if (fields == 1 || fields == FIELD_COUNT)
        return NULL;
    snprintf(message, sizeof message,
             "--fields %lld: the update uses 1 field (x) or all %d; use --fields 1 or --fields %d",
             fields, FIELD_COUNT, FIELD_COUNT);
    return message;
}

/* The input and the output: every field of every particle for the AoS layouts; for the SoA,
 * every array of the input and the written arrays of the output, padded to the pitch. */
static double struct_device_bytes(const ml_problem *problem)
{
    size_t n = (size_t)ml_size(problem, "n");
    return (double)(2 * FIELD_COUNT * n) * sizeof(float);
}

static double array_device_bytes(const ml_problem *problem)
{
    size_t pitch = soa_pitch((size_t)ml_size(problem, "n"));
    size_t written_fields = soa_written_fields(ml_size(problem, "fields"));
    return (double)((FIELD_COUNT + written_fields) * pitch) * sizeof(float);
}

/* Bytes the update must move, whatever the layout: the fields it reads and those it writes. */
static double bytes_read(const ml_problem *problem)
{
    size_t fields_read = ml_size(problem, "fields") == 1 ? 1 : FIELD_COUNT;
    return (double)ml_size(problem, "n") * (double)fields_read * sizeof(float);
}

static double bytes_written(const ml_problem *problem)
{
    size_t fields_written = ml_size(problem, "fields") == 1 ? 1 : CHANGING_FIELDS;
    return (double)ml_size(problem, "n") * (double)fields_written * sizeof(float);
}

static double flops(const ml_problem *problem)
{
    int one_field = ml_size(problem, "fields") == 1;
    return (double)ml_size(problem, "n") * (one_field ? DRIFT_FLOPS : PUSH_FLOPS);
}

/* Every field of every particle, new from problem->seed, on the GPU. The kernels read only
 * this buffer and write only the output (a simulation step that swaps two buffers), and the
 * SoA's next state shares the input's inverse_mass and charge arrays: refilling the input
 * renews everything any launch reads. */
static void fill_inputs(ml_problem *problem)
{
    particles_state *state = (particles_state *)problem->state;
    ml_fill_random(state->in, state->in_count, problem->seed);
}

/* Where field f of particle i is, as a float index into its buffer (particles_state). */
static size_t field_index(const ml_problem *problem, size_t i, int f)
{
    const particles_state *state = (const particles_state *)problem->state;
    size_t slot = (size_t)ML_CONSTANTS(particle_layout, problem)->slot[f];
    return i * state->particle_step + slot * state->field_step;
}

/* The particle at i after the update, every field, for the input fill_inputs made from
 * problem->seed: the reference recomputes each input value from the seed and its place in the
 * layout. struct particle holds its fields in FIELD_ order, 8 floats with no padding. */
static void next_particle(const ml_problem *problem, size_t i, float *value)
{
    for (int f = 0; f < FIELD_COUNT; f++)
        value[f] = ml_random_value(problem->seed, field_index(problem, i, f));
    particle p;
    memcpy(&p, value, sizeof p);
    if (((const particles_state *)problem->state)->fields == 1)
        p.x = drift(p.x);
    else
        p = push(p);
    memcpy(value, &p, sizeof p);
}

/* Output position p holds float p % 8 of particle p / 8: its field is the layout's field[]. */
static void struct_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                                void *values)
{
    const particle_layout *layout = ML_CONSTANTS(particle_layout, problem);
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++) {
        float value[FIELD_COUNT];
        next_particle(problem, position[k] / FIELD_COUNT, value);
        reference[k] = value[layout->field[position[k] % FIELD_COUNT]];
    }
}

/* Output position p holds field p / pitch of particle p % pitch. A position past the n
 * particles of its array (the padding up to the next array's 128-byte line) is never written:
 * it keeps the harness's poison, all bits set. */
static void array_reference_at(const ml_problem *problem, const size_t *position, size_t count,
                               void *values)
{
    const particles_state *state = (const particles_state *)problem->state;
    size_t pitch = state->field_step;
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++) {
        size_t i = position[k] % pitch;
        if (i >= state->n) {
            uint32_t poison = ML_POISON_BITS;
            memcpy(&reference[k], &poison, sizeof poison);
            continue;
        }
        float value[FIELD_COUNT];
        next_particle(problem, i, value);
        reference[k] = value[position[k] / pitch];
    }
}

/* The layout's steps into the state, and the input of in_count floats. */
static void make_input(ml_problem *problem, size_t particle_step, size_t field_step,
                       size_t in_count)
{
    particles_state *state = (particles_state *)problem->state;
    state->particle_step = particle_step;
    state->field_step = field_step;
    state->in_count = in_count;
    state->in = (float *)ml_device_buffer(problem, in_count * sizeof(float));
    fill_inputs(problem);
}

/* The output, count floats, and its reference: the first written_fields fields of every
 * particle. Where the output has padding the kernel never writes (between the SoA's arrays),
 * only the particles' elements are compared (check_index), field by field. */
static void expect_next_state(ml_problem *problem, size_t written_fields, size_t count)
{
    const particles_state *state = (const particles_state *)problem->state;
    size_t n = state->n;
    /* Values stay below 2 in magnitude and the GPU may fuse a multiply and an add where the CPU
     * rounds twice: a few roundings of 1.2e-7 each. A wrong formula misses by far more on most
     * particles (the velocity change alone is up to 1e-2). */
    ml_expect_output(problem, ML_OUTPUT_WRITTEN, count, 1e-6);
    float *reference = problem->reference;
    size_t compared = written_fields * n;
    size_t *check_index = NULL;
    if (compared < count) {
        check_index = (size_t *)ml_host_buffer(problem, compared * sizeof(size_t));
        problem->check_index = check_index;
        problem->check_count = compared;
    }
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        float value[FIELD_COUNT];
        next_particle(problem, i, value);
        for (size_t f = 0; f < written_fields; f++) {
            size_t position = field_index(problem, i, (int)f);
            if (check_index == NULL) {
                reference[position] = value[f];
            } else {
                reference[f * n + i] = value[f];
                check_index[f * n + i] = position;
            }
        }
    }
}

/* The AoS kernels write every float of every particle. */
static void struct_setup(ml_problem *problem)
{
    particles_state *state = (particles_state *)problem->state;
    state->n = (size_t)ml_size(problem, "n");
    state->fields = (int)ml_size(problem, "fields");
    make_input(problem, FIELD_COUNT, 1, FIELD_COUNT * state->n);
    expect_next_state(problem, FIELD_COUNT, FIELD_COUNT * state->n);
}

/* The SoA's next state has new arrays only for the fields the update changes and shares the
 * others with the input. The output ends at the last particle of the last array written. */
static void array_setup(ml_problem *problem)
{
    particles_state *state = (particles_state *)problem->state;
    size_t n = (size_t)ml_size(problem, "n");
    size_t pitch = soa_pitch(n);
    state->n = n;
    state->fields = (int)ml_size(problem, "fields");
    size_t written_fields = soa_written_fields(state->fields);
    make_input(problem, 1, pitch, FIELD_COUNT * pitch);
    expect_next_state(problem, written_fields, (written_fields - 1) * pitch + n);

    float *in = state->in, *out = problem->output;
    particle_arrays in_arrays = {in, in + FIELD_Y * pitch, in + FIELD_Z * pitch,
                                 in + FIELD_VX * pitch, in + FIELD_VY * pitch,
                                 in + FIELD_VZ * pitch, in + FIELD_INVERSE_MASS * pitch,
                                 in + FIELD_CHARGE * pitch};
    state->in_arrays = in_arrays;
    state->out_arrays = in_arrays;
    state->out_arrays.x = out;
    if (state->fields != 1) {
        state->out_arrays.y = out + FIELD_Y * pitch;
        state->out_arrays.z = out + FIELD_Z * pitch;
        state->out_arrays.vx = out + FIELD_VX * pitch;
        state->out_arrays.vy = out + FIELD_VY * pitch;
        state->out_arrays.vz = out + FIELD_VZ * pitch;
    }
}

const ml_family array_of_structs = {
    .name = "array_of_structs", .state_bytes = sizeof(particles_state),
    .device_bytes = struct_device_bytes, .setup = struct_setup, .fill_inputs = fill_inputs,
    .reference_at = struct_reference_at, .launch = launch_aos, .predict = predict_aos,
    .bytes_read = bytes_read, .bytes_written = bytes_written, .flops = flops,
};
const ml_family struct_of_arrays = {
    .name = "struct_of_arrays", .state_bytes = sizeof(particles_state),
    .device_bytes = array_device_bytes, .setup = array_setup, .fill_inputs = fill_inputs,
    .reference_at = array_reference_at, .launch = launch_soa, .predict = predict_soa,
    .bytes_read = bytes_read, .bytes_written = bytes_written, .flops = flops,
};

static const ml_lab lab = {
    .program = "aos_soa",
    .title = "Lab 06: array of structures vs structure of arrays",
    .params = params,
    .num_params = ML_COUNT(params),
    .variants = variants,
    .num_variants = ML_COUNT(variants),
    .check_params = check_params,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
