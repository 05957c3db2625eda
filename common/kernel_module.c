/* kernel_module.c: the one module of kernels a lab program runs (kernel_module.h): what the
 * runner's loader put in it, the kernels found by name, their spills and machine code, and what a
 * lab calls on it (ml_launch, ml_copy_to_symbol). */
#include "kernel_module.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memlab.h"

#define MAX_SPILL_ROWS 256
#define PATH_SIZE 4096

typedef struct {
    char kernel[128];
    int arch;
    int store_bytes;
    int load_bytes;
} spill_row;

/* The one module a lab program runs: loaded once, used by every launch. */
static struct {
    cudaLibrary_t library;
    char origin[PATH_SIZE];
    spill_row spills[MAX_SPILL_ROWS];
    int spill_count;
    /* Its bytes (a fatbin or a cubin), for the sizes of its kernels' machine code: the
     * embedded image's, or a copy of what was loaded from a file or compiled (binary_copy). */
    const unsigned char *binary;
    size_t binary_bytes;
    unsigned char *binary_copy;
} loaded;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* The spills of every kernel in a ptxas log:
 *   ptxas info    : Compiling entry function 'copy_strided' for 'sm_90'
 *   ptxas info    : Function properties for copy_strided
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads */
static void read_spills(const char *log)
{
    loaded.spill_count = 0;
    char entry[128] = "", properties[128] = "";
    int arch = 0;
    for (const char *line = log; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        char text[512];
        snprintf(text, sizeof text, "%.*s", (int)(length < sizeof text ? length : sizeof text - 1),
                 line);
        const char *compiling = strstr(text, "Compiling entry function '");
        const char *function = strstr(text, "Function properties for ");
        int stack = 0, stores = 0, loads = 0;
        if (compiling != NULL) {
            if (sscanf(compiling, "Compiling entry function '%127[^']' for 'sm_%d", entry, &arch) != 2)
                entry[0] = '\0';
        } else if (function != NULL) {
            sscanf(function, "Function properties for %127s", properties);
        } else if (sscanf(text, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
                          &stack, &stores, &loads) == 3 &&
                   entry[0] != '\0' && strcmp(entry, properties) == 0 &&
                   loaded.spill_count < MAX_SPILL_ROWS) {
            spill_row *row = &loaded.spills[loaded.spill_count++];
            snprintf(row->kernel, sizeof row->kernel, "%s", entry);
            row->arch = arch;
            row->store_bytes = stores;
            row->load_bytes = loads;
            entry[0] = '\0';
        }
        line = end != NULL ? end + 1 : NULL;
    }
}

/* Keeps the loaded module's bytes for ml_kernels_code_bytes: data (size bytes), which the caller
 * hands over when owned (a file read or a compile's output), else borrows (the embedded image). */
static void keep_binary(const void *data, size_t bytes, int owned)
{
    free(loaded.binary_copy);
    loaded.binary_copy = owned ? (unsigned char *)data : NULL;
    loaded.binary = (const unsigned char *)data;
    loaded.binary_bytes = data != NULL ? bytes : 0;
}

static int load_library(const void *data, const char *path, char *error, size_t error_size)
{
    cudaError_t status = data != NULL
                             ? cudaLibraryLoadData(&loaded.library, data, NULL, NULL, 0, NULL, NULL, 0)
                             : cudaLibraryLoadFromFile(&loaded.library, path, NULL, NULL, 0, NULL, NULL, 0);
    if (status != cudaSuccess) {
        snprintf(error, error_size, "cannot load the kernels of %s: %s (%s)", loaded.origin,
                 cudaGetErrorString(status), cudaGetErrorName(status));
        return -1;
    }
    return 0;
}

int ml_kernels_use(const char *origin, const char *ptxas_log, const void *binary, size_t bytes,
                   int owned, const char *library_path, char *error, size_t error_size)
{
    snprintf(loaded.origin, sizeof loaded.origin, "%s", origin);
    read_spills(ptxas_log);
    keep_binary(binary, bytes, owned);
    return load_library(library_path == NULL ? binary : NULL, library_path, error, error_size);
}

cudaKernel_t ml_kernels_find(const char *name)
{
    cudaKernel_t kernel = NULL;
    if (loaded.library == NULL || cudaLibraryGetKernel(&kernel, loaded.library, name) != cudaSuccess) {
        cudaGetLastError(); /* a missing name is an answer, not an error to carry on */
        return NULL;
    }
    return kernel;
}

const char *ml_kernels_origin(void)
{
    return base_name(loaded.origin);
}

void ml_kernels_spills(const char *name, int arch, int *store_bytes, int *load_bytes)
{
    *store_bytes = *load_bytes = -1;
    for (int i = 0; i < loaded.spill_count; i++) {
        if (loaded.spills[i].arch == arch && strcmp(loaded.spills[i].kernel, name) == 0) {
            *store_bytes = loaded.spills[i].store_bytes;
            *load_bytes = loaded.spills[i].load_bytes;
            return;
        }
    }
}

/* ---- the kernels' machine code ------------------------------------------------------------
 *
 * A fatbin is a header (magic 0xBA55ED50, a 16-bit version, a 16-bit header size, a 64-bit size
 * of what follows) and entries, each a header (16-bit kind: 1 PTX, 2 ELF; 32-bit header size at
 * 4; 64-bit payload size at 8; the SM it is for, 32-bit, at 28; 64-bit flags at 40, 0x2000 for a
 * compressed payload) and its payload; a fatbin file may hold several such headers one after
 * another. An ELF entry is a cubin: a 64-bit little-endian ELF whose section .text.NAME holds
 * kernel NAME's machine code and .nv.constant0.NAME its constant bank 0 (the driver's constants
 * and the launch's parameters). Every offset and size is checked against the buffer: the bytes
 * may be a student's --kernels file. */

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_COMPRESSED 0x2000u
#define FATBIN_ENTRY_MIN_HEADER 48

static uint64_t read_le(const unsigned char *at, int bytes)
{
    uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; i--)
        value = value << 8 | at[i];
    return value;
}

/* 1 if [offset, offset + size) lies inside a buffer of `bytes`. */
static int inside(uint64_t offset, uint64_t size, size_t bytes)
{
    return offset <= bytes && size <= bytes - offset;
}

static int is_elf64(const unsigned char *elf, size_t bytes)
{
    return bytes >= 64 && memcmp(elf, "\177ELF", 4) == 0 && elf[4] == 2 /* 64-bit */ &&
           elf[5] == 1 /* little-endian */;
}

/* The SM a cubin is for: ELF ABI version 8 and later (CUDA 12.8 on) keep it in bits 8-15 of
 * e_flags, earlier ones in bits 0-7. -1 if not a cubin. */
static int cubin_architecture(const unsigned char *elf, size_t bytes)
{
    if (!is_elf64(elf, bytes))
        return -1;
    uint32_t flags = (uint32_t)read_le(elf + 0x30, 4);
    return elf[8] >= 8 ? (int)(flags >> 8 & 0xff) : (int)(flags & 0xff);
}

/* The sizes of sections .text.NAME and .nv.constant0.NAME of a cubin: 0 when the first is found,
 * -1 otherwise (a constant bank not found counts 0). */
static int cubin_kernel(const unsigned char *elf, size_t bytes, const char *name, double *code,
                        double *constants)
{
    if (!is_elf64(elf, bytes))
        return -1;
    uint64_t section_table = read_le(elf + 0x28, 8);
    unsigned entry_size = (unsigned)read_le(elf + 0x3a, 2);
    unsigned count = (unsigned)read_le(elf + 0x3c, 2);
    unsigned names_index = (unsigned)read_le(elf + 0x3e, 2);
    if (entry_size < 64 || names_index >= count ||
        !inside(section_table, (uint64_t)entry_size * count, bytes))
        return -1;
    const unsigned char *names_header = elf + section_table + (uint64_t)entry_size * names_index;
    uint64_t names = read_le(names_header + 0x18, 8), names_size = read_le(names_header + 0x20, 8);
    if (!inside(names, names_size, bytes))
        return -1;
    int found = -1;
    double constant_bytes = 0;
    size_t name_length = strlen(name);
    for (unsigned i = 0; i < count; i++) {
        const unsigned char *header = elf + section_table + (uint64_t)entry_size * i;
        uint64_t name_offset = read_le(header, 4), size = read_le(header + 0x20, 8);
        if (name_offset >= names_size)
            continue;
        const char *section = (const char *)elf + names + name_offset;
        size_t room = (size_t)(names_size - name_offset);
        const char *prefix = NULL;
        if (room > 6 + name_length && strncmp(section, ".text.", 6) == 0)
            prefix = ".text.";
        else if (room > 14 + name_length && strncmp(section, ".nv.constant0.", 14) == 0)
            prefix = ".nv.constant0.";
        if (prefix == NULL)
            continue;
        const char *kernel = section + strlen(prefix);
        if (strncmp(kernel, name, name_length) != 0 || kernel[name_length] != '\0')
            continue;
        if (prefix[1] == 't') {
            *code = (double)size;
            found = 0;
        } else {
            constant_bytes = (double)size;
        }
    }
    if (found == 0)
        *constants = constant_bytes;
    return found;
}

/* Calls visit(cubin, bytes, its SM, context) for each uncompressed cubin of a fatbin, or for
 * the buffer itself when it is a cubin. */
static void each_cubin(const unsigned char *binary, size_t bytes,
                       void (*visit)(const unsigned char *, size_t, int, void *), void *context)
{
    if (is_elf64(binary, bytes)) {
        visit(binary, bytes, cubin_architecture(binary, bytes), context);
        return;
    }
    for (uint64_t at = 0; inside(at, 16, bytes) && read_le(binary + at, 4) == FATBIN_MAGIC;) {
        uint64_t header_size = read_le(binary + at + 6, 2), size = read_le(binary + at + 8, 8);
        if (header_size < 16 || size > bytes || !inside(at, header_size + size, bytes))
            return;     /* (size checked first: header_size + size must not wrap around) */
        uint64_t end = at + header_size + size;
        for (uint64_t entry = at + header_size; inside(entry, FATBIN_ENTRY_MIN_HEADER, end);) {
            const unsigned char *header = binary + entry;
            uint64_t kind = read_le(header, 2), entry_header = read_le(header + 4, 4);
            uint64_t payload = read_le(header + 8, 8);
            if (entry_header < FATBIN_ENTRY_MIN_HEADER ||
                !inside(entry + entry_header, payload, end))
                return;
            const unsigned char *cubin = header + entry_header;
            if (kind == FATBIN_KIND_ELF && !(read_le(header + 40, 8) & FATBIN_FLAG_COMPRESSED) &&
                is_elf64(cubin, (size_t)payload))
                visit(cubin, (size_t)payload, (int)read_le(header + 28, 4), context);
            entry += entry_header + payload;
        }
        at = end;
    }
}

/* The cubin the driver runs on an sm_`arch` device: its own, else the newest of the same major
 * version and no newer minor one. */
typedef struct {
    int arch, best_arch;
    const unsigned char *best;
    size_t best_bytes;
} cubin_choice;

static void choose_cubin(const unsigned char *cubin, size_t bytes, int arch, void *context)
{
    cubin_choice *choice = (cubin_choice *)context;
    if (arch <= 0 || arch / 10 != choice->arch / 10 || arch > choice->arch ||
        arch <= choice->best_arch)
        return;
    choice->best = cubin;
    choice->best_bytes = bytes;
    choice->best_arch = arch;
}

int ml_kernels_code_bytes_in(const void *binary, size_t bytes, const char *name, int arch,
                             double *code_bytes, double *constant_bytes)
{
    *code_bytes = *constant_bytes = 0;
    if (binary == NULL || name == NULL)
        return -1;
    cubin_choice choice = {arch, 0, NULL, 0};
    each_cubin((const unsigned char *)binary, bytes, choose_cubin, &choice);
    if (choice.best == NULL)
        return -1;
    double code = 0, constants = 0;
    if (cubin_kernel(choice.best, choice.best_bytes, name, &code, &constants) != 0)
        return -1;
    *code_bytes = code;
    *constant_bytes = constants;
    return 0;
}

int ml_kernels_code_bytes(const ml_kernel_image *image, const char *name, int arch,
                          double *code_bytes, double *constant_bytes)
{
    if (loaded.binary != NULL)
        return ml_kernels_code_bytes_in(loaded.binary, loaded.binary_bytes, name, arch, code_bytes,
                                         constant_bytes);
    return ml_kernels_code_bytes_in(image != NULL ? image->fatbin : NULL,
                                    image != NULL ? image->fatbin_bytes : 0, name, arch,
                                    code_bytes, constant_bytes);
}

/* ---- what labs call (memlab.h) ---------------------------------------------------------- */

/* The kernels whose parameters the arguments were compared with: at the first launch of each. */
#define MAX_CHECKED_KERNELS 64
static cudaKernel_t checked_kernels[MAX_CHECKED_KERNELS];
static int checked_kernel_count;

void ml_kernels_unload(void)
{
    if (loaded.library != NULL)
        ML_CUDA_CHECK(cudaLibraryUnload(loaded.library));
    loaded.library = NULL;
    checked_kernel_count = 0; /* a reloaded kernel may get an unloaded one's handle */
}

/* The arguments against the loaded kernel's parameters, as the runtime reports them (count and
 * sizes): a launch that passes an int where the kernel takes a size_t, or one argument too few,
 * would otherwise run on garbage. Where the runtime reports nothing (not this kernel's kind),
 * nothing is compared. */
static void check_arguments(const ml_problem *problem, const ml_argument *arguments,
                            int argument_count)
{
    for (int i = 0; i < checked_kernel_count; i++)
        if (checked_kernels[i] == problem->kernel)
            return;
    const char *kernel = problem->variant->kernel;
    size_t offset = 0, bytes = 0;
    int parameters = 0;
    while (cudaFuncGetParamInfo((const void *)problem->kernel, (size_t)parameters, &offset,
                                &bytes) == cudaSuccess) {
        if (parameters < argument_count && bytes != arguments[parameters].bytes) {
            fprintf(stderr, "memlab: %s's parameter %d (%s) is %zu bytes; the lab passes %zu: "
                            "the kernel's parameter types must stay as they are\n",
                    kernel, parameters + 1, loaded.origin, bytes, arguments[parameters].bytes);
            exit(ML_EXIT_INCORRECT);
        }
        parameters++;
    }
    cudaGetLastError(); /* the index past the last parameter is an error by design: the one way
                         * to count them (compute-sanitizer runs pass --report-api-errors no) */
    if (parameters > 0 && parameters != argument_count) {
        fprintf(stderr, "memlab: %s (%s) takes %d parameters; the lab passes %d: the kernel's "
                        "parameters must stay as they are\n",
                kernel, loaded.origin, parameters, argument_count);
        exit(ML_EXIT_INCORRECT);
    }
    if (checked_kernel_count < MAX_CHECKED_KERNELS)
        checked_kernels[checked_kernel_count++] = problem->kernel;
}

void ml_launch(const ml_problem *problem, dim3 grid, size_t shared_bytes,
               const ml_argument *arguments, int argument_count)
{
    check_arguments(problem, arguments, argument_count);
    void *values[32];
    if (argument_count > 32) {
        fprintf(stderr, "memlab: a launch of %s passes %d arguments; at most 32\n",
                problem->variant->kernel, argument_count);
        exit(ML_EXIT_LAB_ERROR);
    }
    for (int i = 0; i < argument_count; i++)
        values[i] = arguments[i].value;
    const ml_block *shape = &problem->variant->block;
    dim3 block = {shape->x, shape->y > 0 ? shape->y : 1, 1};
    cudaError_t status = cudaLaunchKernel((const void *)problem->kernel, grid, block, values,
                                          shared_bytes, 0);
    if (status != cudaSuccess) {
        fprintf(stderr, "memlab: launching %s (%s) failed: %s (%s)\n", problem->variant->kernel,
                loaded.origin, cudaGetErrorString(status), cudaGetErrorName(status));
        exit(ML_EXIT_CUDA_ERROR);
    }
}

void ml_copy_to_symbol(const char *name, const void *data, size_t bytes)
{
    void *address = NULL;
    size_t size = 0;
    if (cudaLibraryGetGlobal(&address, &size, loaded.library, name) != cudaSuccess) {
        cudaGetLastError();
        fprintf(stderr, "memlab: %s defines no __constant__ or __device__ variable '%s' (at file scope, not static)\n",
                ml_kernels_origin(), name);
        exit(ML_EXIT_INCORRECT);
    }
    if (bytes > size) {
        fprintf(stderr, "memlab: %s: '%s' holds %zu bytes, %zu are needed\n", ml_kernels_origin(),
                name, size, bytes);
        exit(ML_EXIT_INCORRECT);
    }
    ML_CUDA_CHECK(cudaMemcpy(address, data, bytes, cudaMemcpyHostToDevice));
}
