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

enum { PARAM_N, PARAM_FIELDS, PARAM_COUNT };

static const ml_param params[PARAM_COUNT] = {
    {"n", 1 << 26, 1, 1ll << 31, "particles (one per thread; four per thread in soa)"},
    {"fields", FIELD_COUNT, 1, FIELD_COUNT,
     "fields each particle's update uses: 1 (x alone) or 8 (all)"},
};

/* Floating-point operations per particle: push() (aos_soa.h) does 2 multiplications for the
 * impulse, then a multiply and an add for each of the 6 changing fields; drift() one add. */
#define PUSH_FLOPS 14
#define DRIFT_FLOPS 1

/* ---- the variant table ----------------------------------------------------------------------- */

/* The particles' layout: each variant's table argument, read by its prediction, its buffers and
 * the CPU reference. */
enum { LAYOUT_AOS, LAYOUT_AOS_ALIGNED, LAYOUT_SOA };

static void launch_aos(const ml_problem *problem);
static void launch_soa(const ml_problem *problem);
static void predict_aos(long long layout, const long long *param, ml_prediction *prediction);
static void predict_soa(long long layout, const long long *param, ml_prediction *prediction);

#define LAYOUT_METRICS \
    "gld_efficiency,gld_transactions_per_request,gst_efficiency,gst_transactions_per_request," \
    "dram_read_bytes,dram_write_bytes"

static const ml_variant variants[] = {
    {.name = "aos", .summary = "array of 32-byte structs: thread i reads and writes particle i",
     .kernel = "update_aos", .block = {THREADS_PER_BLOCK}, .launch = launch_aos,
     .argument = LAYOUT_AOS, .metrics = LAYOUT_METRICS, .predict = predict_aos},
    {.name = "aos_aligned",
     .summary = "the struct as two float4s: thread i reads and writes particle i as two float4s",
     .kernel = "update_aos_aligned", .block = {THREADS_PER_BLOCK}, .launch = launch_aos,
     .argument = LAYOUT_AOS_ALIGNED, .metrics = LAYOUT_METRICS, .predict = predict_aos},
    {.name = "soa",
     .summary = "one array per field: lane i of a warp takes element i of each array it needs",
     .kernel = "update_soa", .block = {THREADS_PER_BLOCK}, .launch = launch_soa,
     .argument = LAYOUT_SOA, .metrics = LAYOUT_METRICS, .predict = predict_soa},
};
#define VARIANT_COUNT (int)(sizeof variants / sizeof variants[0])

/* Floats from the start of one SoA array to the next: n rounded up to 32 floats, so that every
 * array starts on a 128-byte line, as it would with a cudaMalloc of its own. */
static size_t soa_pitch(size_t n)
{
    return (size_t)ml_ceil_div((long long)n, ML_WARP_SIZE) * ML_WARP_SIZE;
}

/* Fields the SoA writes: x alone, or all that change. */
static size_t soa_written_fields(const long long *param)
{
    return param[PARAM_FIELDS] == 1 ? 1 : CHANGING_FIELDS;
}

/* Where field f of particle i is, as a float index into its buffer, in each layout. The input
 * and output buffers of a variant share the layout. */
static size_t field_index(long long layout, size_t n, size_t i, int f)
{
    /* Each field's float in particle_aligned: position.xyz, position.w = inverse mass,
     * velocity.xyz, velocity.w = charge. */
    static const int aligned_slot[FIELD_COUNT] = {0, 1, 2, 4, 5, 6, 3, 7};
    switch (layout) {
    case LAYOUT_AOS: /* struct particle holds the fields in FIELD_ order */
        return i * FIELD_COUNT + (size_t)f;
    case LAYOUT_AOS_ALIGNED:
        return i * FIELD_COUNT + (size_t)aligned_slot[f];
    default: /* LAYOUT_SOA */
        return (size_t)f * soa_pitch(n) + i;
    }
}

/* ---- launches -------------------------------------------------------------------------------- */

typedef struct {
    float *in;                  /* the particles in the variant's layout */
    particle_arrays in_arrays;  /* soa: where each field's array starts, in and out */
    particle_arrays out_arrays;
} lab_state;

/* Each launch is what kernel<<<blocks, THREADS_PER_BLOCK>>>(arguments) would be if the program
 * linked kernels.cu; ml_launch runs the kernel found by name in the loaded kernels file, with
 * the block of its table entry. */

/* Both AoS layouts, one particle per thread:
 *   update_aos((const particle *)in, (particle *)out, n, fields)
 *   update_aos_aligned((const particle_aligned *)in, (particle_aligned *)out, n, fields) */
static void launch_aos(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    int fields = (int)problem->param[PARAM_FIELDS];
    void *arguments[] = {(void *)&state->in, (void *)&problem->output, &n, &fields};
    ml_launch(problem, ml_blocks_of(problem, n), 0, arguments);
}

/* update_soa(in_arrays, out_arrays, n, fields), each thread taking PARTICLES_PER_THREAD
 * particles */
static void launch_soa(const ml_problem *problem)
{
    const lab_state *state = (const lab_state *)problem->state;
    size_t n = (size_t)problem->param[PARAM_N];
    int fields = (int)problem->param[PARAM_FIELDS];
    size_t threads = (size_t)ml_ceil_div((long long)n, PARTICLES_PER_THREAD);
    void *arguments[] = {(void *)&state->in_arrays, (void *)&state->out_arrays, &n, &fields};
    ml_launch(problem, ml_blocks_of(problem, threads), 0, arguments);
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

/* DRAM moves whole sectors. The loads of a variant cover each array they read (the whole
 * particle array, or some of the SoA's arrays) from its start without gaps, and so do the stores,
 * so the distinct sectors touched are those of these stretches. Each is read once, since the L2
 * is flushed before every run, and each written one is written back once. */
static double sector_bytes_covering(double bytes)
{
    return ceil(bytes / ML_SECTOR_BYTES) * ML_SECTOR_BYTES;
}

static void predict_from_accesses(const long long *param, const field_access *loads,
                                  int load_count, const field_access *stores, int store_count,
                                  double dram_read_bytes, double dram_write_bytes,
                                  ml_prediction *prediction)
{
    uint64_t n = (uint64_t)param[PARAM_N];
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
    ml_predict(prediction, "dram_read_bytes", dram_read_bytes);
    ml_predict_dram_writes(prediction, dram_write_bytes);
}

/* Both AoS kernels copy the whole particle (32 bytes in either struct), whichever update they
 * do: update_aos as 8 scalar loads and stores (struct particle is only 4-byte aligned, so the
 * compiler cannot widen them), update_aos_aligned as two 16-byte loads and stores. */
static void predict_aos(long long layout, const long long *param, ml_prediction *prediction)
{
    double n = (double)param[PARAM_N];
    unsigned width = layout == LAYOUT_AOS_ALIGNED ? sizeof(float4) : sizeof(float);
    /* The particle in pieces of width bytes: 8 floats or 2 float4s. */
    int count = (int)(sizeof(particle) / width);
    field_access pieces[FIELD_COUNT];
    for (int k = 0; k < count; k++)
        pieces[k] = field_at(k * width, sizeof(particle), width);
    double particles_bytes = sector_bytes_covering(n * sizeof(particle));
    predict_from_accesses(param, pieces, count, pieces, count, particles_bytes, particles_bytes,
                          prediction);
}

/* One load per field read and one store per field written; array f starts f * pitch floats
 * into its buffer, on a line. */
static void predict_soa(long long layout, const long long *param, ml_prediction *prediction)
{
    (void)layout;
    uint64_t n = (uint64_t)param[PARAM_N];
    size_t read_fields = param[PARAM_FIELDS] == 1 ? 1 : FIELD_COUNT;
    size_t written_fields = soa_written_fields(param);
    field_access arrays[FIELD_COUNT];
    for (size_t f = 0; f < FIELD_COUNT; f++)
        arrays[f] = field_at(f * soa_pitch(n) * sizeof(float), sizeof(float), sizeof(float));
    double array_bytes = sector_bytes_covering((double)n * sizeof(float));
    predict_from_accesses(param, arrays, (int)read_fields, arrays, (int)written_fields,
                          (double)read_fields * array_bytes, (double)written_fields * array_bytes,
                          prediction);
}

/* ---- CPU reference, buffers ------------------------------------------------------------------ */

/* Field f's array of a SoA whose arrays start at base. */
static float *soa_array(float *base, size_t n, int f)
{
    return base + field_index(LAYOUT_SOA, n, 0, f);
}

/* The 8 arrays of a SoA from base, one every soa_pitch(n) floats. */
static particle_arrays soa_arrays(float *base, size_t n)
{
    particle_arrays arrays = {
        soa_array(base, n, FIELD_X),  soa_array(base, n, FIELD_Y),  soa_array(base, n, FIELD_Z),
        soa_array(base, n, FIELD_VX), soa_array(base, n, FIELD_VY), soa_array(base, n, FIELD_VZ),
        soa_array(base, n, FIELD_INVERSE_MASS), soa_array(base, n, FIELD_CHARGE)};
    return arrays;
}

static const char *check_params(const long long *param)
{
    static char message[160];
    if (param[PARAM_FIELDS] == 1 || param[PARAM_FIELDS] == FIELD_COUNT)
        return NULL;
    snprintf(message, sizeof message,
             "--fields %lld: the update uses 1 field (x) or all %d; use --fields 1 or --fields %d",
             param[PARAM_FIELDS], FIELD_COUNT, FIELD_COUNT);
    return message;
}

/* Floats in the input: every field of every particle, the SoA's arrays padded to the pitch. */
static size_t input_count(long long layout, const long long *param)
{
    size_t n = (size_t)param[PARAM_N];
    return FIELD_COUNT * (layout == LAYOUT_SOA ? soa_pitch(n) : n);
}

/* Floats in the output: every field of every particle for the AoS layouts, the written arrays
 * for the SoA. */
static size_t output_count(long long layout, const long long *param)
{
    size_t n = (size_t)param[PARAM_N];
    if (layout == LAYOUT_SOA)
        return soa_written_fields(param) * soa_pitch(n);
    return FIELD_COUNT * n;
}

static double device_bytes(const ml_variant *variant, const long long *param)
{
    long long layout = variant->argument;
    return (double)(input_count(layout, param) + output_count(layout, param)) * sizeof(float);
}

/* The particle at i after the update, every field, for the input fill_inputs made from seed:
 * the reference recomputes each input value from the seed and its place in the layout.
 * struct particle holds its fields in FIELD_ order, 8 floats with no padding. */
static void next_particle(long long layout, const long long *param, uint64_t seed, size_t i,
                          float *value)
{
    size_t n = (size_t)param[PARAM_N];
    for (int f = 0; f < FIELD_COUNT; f++)
        value[f] = ml_random_value(seed, field_index(layout, n, i, f));
    particle p;
    memcpy(&p, value, sizeof p);
    if (param[PARAM_FIELDS] == 1)
        p.x = drift(p.x);
    else
        p = push(p);
    memcpy(value, &p, sizeof p);
}

/* Every field of every particle, new from problem->seed, on the GPU. The kernels read only
 * this buffer and write only the output (a simulation step that swaps two buffers), and the
 * SoA's next state shares the input's inverse_mass and charge arrays: refilling the input
 * renews everything any launch reads. */
static void fill_inputs(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_fill_random(state->in, input_count(problem->argument, problem->param), problem->seed);
}

/* Output position p holds field f of particle i: in the AoS layouts particle p / 8, its float
 * p % 8; in the SoA field p / pitch of particle p % pitch. A SoA position past the n particles
 * of its array (the padding up to the next array's 128-byte line) is never written: it keeps
 * the harness's poison, all bits set. */
static void reference_at(const ml_problem *problem, const size_t *position, size_t count,
                         void *values)
{
    static const int aligned_field[FIELD_COUNT] = {
        FIELD_X,  FIELD_Y,  FIELD_Z,  FIELD_INVERSE_MASS,
        FIELD_VX, FIELD_VY, FIELD_VZ, FIELD_CHARGE}; /* particle_aligned's floats, in order */
    long long layout = problem->argument;
    size_t n = (size_t)problem->param[PARAM_N];
    float *reference = (float *)values;
    for (size_t k = 0; k < count; k++) {
        size_t i;
        int f;
        if (layout == LAYOUT_SOA) {
            i = position[k] % soa_pitch(n);
            f = (int)(position[k] / soa_pitch(n));
        } else {
            i = position[k] / FIELD_COUNT;
            f = (int)(position[k] % FIELD_COUNT);
            if (layout == LAYOUT_AOS_ALIGNED)
                f = aligned_field[f];
        }
        if (i >= n) { /* padding between the arrays: the kernel leaves it alone */
            uint32_t poison = ML_POISON_BITS;
            memcpy(&reference[k], &poison, sizeof poison);
            continue;
        }
        float value[FIELD_COUNT];
        next_particle(layout, problem->param, problem->seed, i, value);
        reference[k] = value[f];
    }
}

static void setup(ml_problem *problem)
{
    const long long *param = problem->param;
    size_t n = (size_t)param[PARAM_N];
    long long layout = problem->argument;

    lab_state *state = (lab_state *)ml_host_alloc(sizeof *state);
    memset(state, 0, sizeof *state);
    problem->state = state;
    state->in = (float *)ml_device_alloc(input_count(layout, param) * sizeof(float));
    fill_inputs(problem);
    float *out = (float *)ml_device_alloc(output_count(layout, param) * sizeof(float));
    /* The output the harness poisons and checks ends at the last particle of the last array
     * written: the padding after it is only the allocation's. */
    size_t count = output_count(layout, param) - (layout == LAYOUT_SOA ? soa_pitch(n) - n : 0);

    /* The SoA's arrays. The next state has new arrays only for the fields the update changes
     * and shares the others with the input. */
    if (layout == LAYOUT_SOA) {
        state->in_arrays = soa_arrays(state->in, n);
        state->out_arrays = state->in_arrays;
        state->out_arrays.x = soa_array(out, n, FIELD_X);
        if (param[PARAM_FIELDS] != 1) {
            state->out_arrays.y = soa_array(out, n, FIELD_Y);
            state->out_arrays.z = soa_array(out, n, FIELD_Z);
            state->out_arrays.vx = soa_array(out, n, FIELD_VX);
            state->out_arrays.vy = soa_array(out, n, FIELD_VY);
            state->out_arrays.vz = soa_array(out, n, FIELD_VZ);
        }
    }

    /* The padding between the SoA's arrays is never written: where there is some, only the
     * particles' elements are compared (check_index), field by field. */
    size_t written_fields = layout == LAYOUT_SOA ? soa_written_fields(param) : (size_t)FIELD_COUNT;
    size_t compared = written_fields * n;
    float *reference = (float *)ml_host_alloc(compared * sizeof(float));
    size_t *check_index = compared < count ? (size_t *)ml_host_alloc(compared * sizeof(size_t))
                                           : NULL;
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        float value[FIELD_COUNT];
        next_particle(layout, param, problem->seed, i, value);
        for (size_t f = 0; f < written_fields; f++) {
            size_t position = field_index(layout, n, i, (int)f);
            if (check_index == NULL) {
                reference[position] = value[f];
            } else {
                reference[f * n + i] = value[f];
                check_index[f * n + i] = position;
            }
        }
    }

    problem->output = out;
    problem->output_count = count;
    problem->reference = reference;
    problem->check_index = check_index;
    problem->check_count = check_index != NULL ? compared : 0;
    /* Values stay below 2 in magnitude and the GPU may fuse a multiply and an add where the CPU
     * rounds twice: a few roundings of 1.2e-7 each. A wrong formula misses by far more on most
     * particles (the velocity change alone is up to 1e-2). */
    problem->tolerance = 1e-6;
    int one_field = param[PARAM_FIELDS] == 1;
    size_t fields_read = one_field ? 1 : FIELD_COUNT;
    size_t fields_written = one_field ? 1 : CHANGING_FIELDS;
    problem->bytes = (double)n * (double)(fields_read + fields_written) * sizeof(float);
    problem->flops = (double)n * (one_field ? DRIFT_FLOPS : PUSH_FLOPS);
}

static void teardown(ml_problem *problem)
{
    lab_state *state = (lab_state *)problem->state;
    ml_device_free(state->in);
    ml_device_free(problem->output);
    free(state);
}

static const ml_lab lab = {
    .program = "aos_soa",
    .title = "Lab 06: array of structures vs structure of arrays",
    .params = params,
    .num_params = PARAM_COUNT,
    .variants = variants,
    .num_variants = VARIANT_COUNT,
    .device_bytes = device_bytes,
    .setup = setup,
    .teardown = teardown,
    .check_params = check_params,
    .kernels = &ml_lab_kernels,
    .fill_inputs = fill_inputs,
    .reference_at = reference_at,
};

int main(int argc, char **argv)
{
    return ml_main(&lab, argc, argv);
}
