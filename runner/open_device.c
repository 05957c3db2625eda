/* open_device.c: the run's device and its kernels (open_device.h): there is a usable device (or why
 * not, in words a user can act on), its kernels load, every variant's kernel is there and every
 * size fits; without a device, a --kernels .cu is still compiled and looked through. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "open_device.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "kernel_loader.h"

/* Sizes must leave room for the copy-ceiling buffers and the L2 flush buffer. */
#define USABLE_MEMORY_FRACTION 0.9

/* Why no CUDA device can be used, in words a user can act on. cudart answers
 * cudaErrorInsufficientDriver both where the NVIDIA driver is older than cudart and where there
 * is no driver at all: the driver's library, libcuda.so.1, loads in the first case only. */
static void no_device_reason(cudaError_t status, char *reason, size_t size)
{
    if (status == cudaSuccess) {
        snprintf(reason, size, "none found");
        return;
    }
    if (status != cudaErrorInsufficientDriver) {
        snprintf(reason, size, "%s", cudaGetErrorString(status));
        return;
    }
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver == NULL) {
        snprintf(reason, size, "no NVIDIA driver is installed here: libcuda.so.1 cannot be loaded");
        return;
    }
    dlclose(driver);
    int driver_version = 0, runtime_version = 0;
    if (cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version > 0 &&
        cudaRuntimeGetVersion(&runtime_version) == cudaSuccess)
        snprintf(reason, size, "the NVIDIA driver supports CUDA %d.%d, older than this program's "
                 "CUDA %d.%d: update the driver", driver_version / 1000,
                 driver_version % 1000 / 10, runtime_version / 1000, runtime_version % 1000 / 10);
    else
        snprintf(reason, size, "the NVIDIA driver is older than this program's CUDA: update it");
}

int ml_save_kernels(const ml_lab *lab, const ml_options *options)
{
    char architectures[256], error[512];
    ml_kernels_default_architectures(lab->kernels, options->device, architectures,
                                     sizeof architectures);
    if (ml_kernels_compile(lab->kernels, options->kernels_path, architectures,
                           options->save_kernels_path, error, sizeof error) != 0) {
        fprintf(stderr, "%s: %s\n", lab->program, error);
        return ML_EXIT_INCORRECT;
    }
    fprintf(stderr, "%s: %s compiled for sm_%s into %s\n", lab->program, options->kernels_path,
            architectures, options->save_kernels_path);
    return ML_EXIT_OK;
}

/* A kernels file without a kernel a selected variant launches: said by name (`where`: "" or
 * " for sm_75"), and the exit status of a wrong submission. */
static int missing_kernel(const ml_lab *lab, const char *origin, const ml_variant *variant,
                          const char *where)
{
    const char *slash = strrchr(origin, '/');
    fprintf(stderr, "%s: your %s defines no kernel '%s'%s (variant %s launches it): declare it "
                    "extern \"C\" __global__\n",
            lab->program, slash != NULL ? slash + 1 : origin, variant->kernel, where,
            variant->name);
    return ML_EXIT_INCORRECT;
}

/* Loads the kernels and finds every selected variant's: a kernels file that lacks one fails
 * here, by name, before anything runs. */
static int load_kernels(const ml_lab *lab, const ml_options *options, cudaKernel_t *kernels)
{
    char error[512];
    /* Under --cases the kernels of the case before go first, with every __device__ and
     * __constant__ variable of theirs: no state lives from one case into the next. */
    ml_kernels_unload();
    if (ml_kernels_load(lab->kernels, options->kernels_path, error, sizeof error) != 0) {
        fprintf(stderr, "%s: %s\n", lab->program, error);
        return options->kernels_path != NULL ? ML_EXIT_INCORRECT : ML_EXIT_CUDA_ERROR;
    }
    for (int v = 0; v < lab->num_variants; v++) {
        const ml_variant *variant = &lab->variants[v];
        kernels[v] = NULL;
        if (!options->variant_selected[v] || variant->kernel == NULL)
            continue;
        kernels[v] = ml_kernels_find(variant->kernel);
        if (kernels[v] == NULL)
            return missing_kernel(lab, ml_kernels_origin(), variant, "");
    }
    return ML_EXIT_OK;
}

/* Whether the fatbin a compile wrote holds every kernel the selected variants launch, in the
 * cubin of every architecture it was compiled for (one may sit behind #if __CUDA_ARCH__): read
 * from its ELF sections, which needs no GPU. Says which is missing and returns
 * ML_EXIT_INCORRECT, as a load on a GPU would; else ML_EXIT_OK with the kernels counted. */
static int find_kernels_in(const ml_lab *lab, const ml_options *options, const char *fatbin,
                           const char *architectures, int *kernel_count)
{
    size_t bytes = 0;
    char *data = ml_kernels_read_file(fatbin, &bytes);
    if (data == NULL) {
        fprintf(stderr, "%s: cannot read %s, just compiled: %s\n", lab->program, fatbin,
                strerror(errno));
        return ML_EXIT_INCORRECT;
    }
    int several = strpbrk(architectures, "; ,") != NULL;
    *kernel_count = 0;
    for (int v = 0; v < lab->num_variants; v++) {
        const ml_variant *variant = &lab->variants[v];
        if (!options->variant_selected[v] || variant->kernel == NULL)
            continue;
        int counted = 0; /* variants may share a kernel: each name counts once */
        for (int w = 0; w < v && !counted; w++)
            counted = options->variant_selected[w] && lab->variants[w].kernel != NULL &&
                      strcmp(lab->variants[w].kernel, variant->kernel) == 0;
        *kernel_count += !counted;
        /* "75;80;90", "90a": the number of each, as the fatbin's entries name them. */
        for (const char *at = architectures; *at != '\0';) {
            char *end = NULL;
            long arch = strtol(at, &end, 10);
            if (end == at) {
                at++;
                continue;
            }
            at = end;
            double code_bytes = 0, constant_bytes = 0;
            if (ml_kernels_code_bytes_in(data, bytes, variant->kernel, (int)arch, &code_bytes,
                                         &constant_bytes) != 0) {
                char where[32] = "";
                if (several)
                    snprintf(where, sizeof where, " for sm_%ld", arch);
                free(data);
                return missing_kernel(lab, options->kernels_path, variant, where);
            }
            while (*at != '\0' && *at != ';' && *at != ' ' && *at != ',')
                at++;
        }
    }
    free(data);
    return ML_EXIT_OK;
}

/* --kernels FILE.cu and no device to run it: what can be told without one is told first. The
 * file is compiled as a run on a GPU would (ml_kernels_compile: the judge, then nvcc, device
 * code only; its errors on stderr, a refused file's never), for the architectures --save-kernels
 * would use, and the kernels the run launches are looked up in it; only then one line says that
 * running them needs a GPU (exit 3). A file that does not compile or lacks a kernel exits 1, as
 * with a GPU. */
static int check_kernels_without_device(const ml_lab *lab, const ml_options *options,
                                        const char *reason)
{
    const char *temporary = getenv("TMPDIR");
    if (temporary == NULL || temporary[0] == '\0')
        temporary = "/tmp";
    char scratch[4096], fatbin[4200], log_path[4300], refused_path[4300], architectures[256],
        error[512];
    snprintf(scratch, sizeof scratch, "%s/memlab-check-XXXXXX", temporary);
    if (mkdtemp(scratch) == NULL) {
        fprintf(stderr, "%s: cannot make a scratch directory in %s to compile %s: %s\n",
                lab->program, temporary, options->kernels_path, strerror(errno));
        return ML_EXIT_INCORRECT;
    }
    snprintf(fatbin, sizeof fatbin, "%s/kernels.fatbin", scratch);
    snprintf(log_path, sizeof log_path, "%s.ptxas", fatbin);
    snprintf(refused_path, sizeof refused_path, "%s%s", fatbin, ML_KERNELS_REFUSED_SUFFIX);
    ml_kernels_default_architectures(lab->kernels, options->device, architectures,
                                     sizeof architectures);
    int status = ML_EXIT_OK, kernel_count = 0;
    if (ml_kernels_compile(lab->kernels, options->kernels_path, architectures, fatbin, error,
                           sizeof error) != 0) {
        fprintf(stderr, "%s: %s\n", lab->program, error);
        status = ML_EXIT_INCORRECT;
    } else {
        status = find_kernels_in(lab, options, fatbin, architectures, &kernel_count);
    }
    /* What the compile left: the fatbin and ptxas's log, or the refusal's note. */
    const char *left[] = {fatbin, log_path, refused_path};
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++)
        if (unlink(left[i]) != 0 && errno != ENOENT)
            fprintf(stderr, "%s: warning: cannot remove %s: %s\n", lab->program, left[i],
                    strerror(errno));
    if (rmdir(scratch) != 0)
        fprintf(stderr, "%s: warning: cannot remove %s: %s\n", lab->program, scratch,
                strerror(errno));
    if (status != ML_EXIT_OK)
        return status;
    fprintf(stderr, "%s: %s compiles (sm_%s) and defines the %d kernel%s this run launches; "
                    "running %s needs a GPU: no usable CUDA device (%s)\n",
            lab->program, options->kernels_path, architectures, kernel_count,
            kernel_count == 1 ? "" : "s", kernel_count == 1 ? "it" : "them", reason);
    return ML_EXIT_NO_DEVICE;
}

/* The device limits that change what a kernel measures and that a lab's host code may set
 * (coalescing's --l2_fetch sets the fetch granularity). Under --cases the context outlives a
 * case, so every run opens the device with the values this process found at its first open, as
 * a process of its own would find them. A limit the GPU lacks (persisting L2 before sm_80) or
 * the driver does not report is left alone. */
static const enum cudaLimit measured_limits[] = {cudaLimitMaxL2FetchGranularity,
                                                 cudaLimitPersistingL2CacheSize};
#define MEASURED_LIMIT_COUNT (sizeof measured_limits / sizeof measured_limits[0])

static void reset_measured_limits(void)
{
    static size_t found[MEASURED_LIMIT_COUNT];
    static int supported[MEASURED_LIMIT_COUNT];
    static int read_once;
    for (size_t i = 0; i < MEASURED_LIMIT_COUNT; i++) {
        if (!read_once) {
            /* A limit the driver does not report is one no run can have changed. */
            if (cudaDeviceGetLimit(&found[i], measured_limits[i]) != cudaSuccess) {
                cudaGetLastError();
                continue;
            }
            supported[i] = 1;
        } else if (supported[i]) {
            size_t now = 0;
            ML_CUDA_CHECK(cudaDeviceGetLimit(&now, measured_limits[i]));
            if (now != found[i])
                ML_CUDA_CHECK(cudaDeviceSetLimit(measured_limits[i], found[i]));
        }
    }
    read_once = 1;
}

int ml_open_device(lab_run *run)
{
    const ml_lab *lab = run->lab;
    const ml_options *options = &run->options;
    int device_count = 0;
    cudaError_t device_status = cudaGetDeviceCount(&device_count);
    if (device_status != cudaSuccess || device_count == 0) {
        char reason[256];
        no_device_reason(device_status, reason, sizeof reason);
        size_t path_length = options->kernels_path != NULL ? strlen(options->kernels_path) : 0;
        if (path_length > 3 && strcmp(options->kernels_path + path_length - 3, ".cu") == 0)
            return check_kernels_without_device(lab, options, reason);
        fprintf(stderr, "%s: no usable CUDA device (%s); ./memlab run %s --model gives the "
                        "predictions without one\n", lab->program, reason, lab->program);
        return ML_EXIT_NO_DEVICE;
    }
    char error[512];
    if (options->device >= device_count) {
        snprintf(error, sizeof error, "--device %d: this machine has %d CUDA device(s)",
                 options->device, device_count);
        return ml_usage_error(lab, error);
    }
    ML_CUDA_CHECK(cudaSetDevice(options->device));
    reset_measured_limits();
    int kernels_status = load_kernels(lab, options, run->kernels);
    if (kernels_status != ML_EXIT_OK)
        return kernels_status;
    struct cudaDeviceProp *properties = &run->properties;
    ML_CUDA_CHECK(cudaGetDeviceProperties(properties, options->device));
    size_t total_bytes = 0;
    ML_CUDA_CHECK(cudaMemGetInfo(&run->free_bytes, &total_bytes));
    for (int v = 0; v < lab->num_variants; v++) {
        if (!options->variant_selected[v])
            continue;
        for (long long point = 0; point < ml_sweep_count(options); point++) {
            long long param[ML_MAX_PARAMS];
            ml_sweep_point(options, point, param);
            ml_problem sizes = {.lab = lab, .variant = &lab->variants[v], .param = param};
            double needed = lab->variants[v].family->device_bytes(&sizes);
            if (needed > USABLE_MEMORY_FRACTION * (double)run->free_bytes) {
                snprintf(error, sizeof error,
                         "variant %s needs %.2f GiB of device memory at these sizes; %s has "
                         "%.2f GiB free: choose smaller sizes",
                         lab->variants[v].name, needed / 1073741824.0, properties->name,
                         run->free_bytes / 1073741824.0);
                return ml_usage_error(lab, error);
            }
        }
    }

    ml_report *report = &run->report;
    snprintf(report->device_name, sizeof report->device_name, "%s", properties->name);
    report->compute_major = properties->major;
    report->compute_minor = properties->minor;
    report->sm_count = properties->multiProcessorCount;
    report->l2_mib = properties->l2CacheSize / 1048576.0;
    int sm_clock_khz = 0;
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, options->device));
    report->sm_clock_mhz = sm_clock_khz / 1e3;
    int memory_clock_khz = 0, bus_bits = 0;
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate,
                                         options->device));
    ML_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth,
                                         options->device));
    /* Double data rate: two transfers a memory clock, bus_bits / 8 bytes each. */
    if (memory_clock_khz > 0 && bus_bits > 0)
        report->published_dram_gbps = 2.0 * memory_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    run->device_facts = ml_gpu_facts_of_device(properties->name, properties->major,
                                               properties->minor,
                                               properties->multiProcessorCount,
                                               (double)properties->l2CacheSize);
    /* An L2 miss reads the L2's fetch granularity from DRAM: a driver setting (64 bytes by
     * default on the H100 and H200), read here, not taken from the table. A driver that does
     * not report it leaves the table's fill. */
    size_t fetch_granularity = 0;
    if (cudaDeviceGetLimit(&fetch_granularity, cudaLimitMaxL2FetchGranularity) == cudaSuccess)
        ml_gpu_facts_set_fetch_granularity(&run->device_facts, fetch_granularity);
    else
        cudaGetLastError();
    ml_model_gpu_set(&run->device_facts);
    report->model_gpu = ml_model_gpu();
    return RUN_GOES_ON;
}
