/* profiler.c: hardware counters through CUPTI's Profiler Host API and Range Profiler API.
 *
 * Host half: a "host object" made for a chip name turns metric names into a config image (which
 * counters to program, and in how many passes) and later turns raw counter data into metric
 * values. It needs no GPU.
 *
 * Target half: the range profiler, enabled on the device's context, applies a config image
 * around each kernel launch (auto range) and writes the counters into a counter data image,
 * which the host object then evaluates. When the metrics need several passes, the caller
 * launches the kernel once per pass (user replay, prof_next_pass). CUPTI's kernel replay would
 * launch it for us, but it restores device memory before every pass after the first, and the
 * restore's writes, still in the L2, then inflate that pass's DRAM counters (an H200 read
 * 268 MB for a 256 MiB copy that way); and with user replay the whole collection costs one
 * Enable, the expensive step below.
 *
 * CUPTI has traps that report success; this file checks each one itself:
 *   - enabling the range profiler twice on a context succeeds and crashes later: one session
 *     per process (session_open), and prof_begin refuses to begin twice;
 *   - a range profiler takes one config: a later SetConfig/Start/Stop cycle with another config
 *     and counter data image crashed (H200, CUDA 13.0). So each prof_begin enables it and each
 *     prof_end disables it again, although the first Start after an Enable costs about 150 ms.
 *     Keeping it enabled for a next collection with the same config (and a fresh counter data
 *     image) read correctly and halved a lab's collection time, but small kernels then read
 *     less DRAM than Nsight Compute shows for the same launch (a 97 x 131 x 89 tiled matrix
 *     multiply: 97,792 bytes against 102,400; the coarsened one 98,048 against 117,504), which
 *     ./memlab check rejects;
 *   - ranges that do not fit in the counter data image are dropped without saying so (measured on
 *     an H100: 6 kernels into room for 4 gave 4 ranges and a dropped count of 0): the image has
 *     room for MAX_RANGES, and prof_end checks that exactly one range (one kernel) came back;
 *   - evaluating a metric that was not configured succeeds with NaN: prof_end checks every value;
 *   - cuptiRangeProfilerStart leaves dirty lines in the L2 (about 7 MB on an H200) that the
 *     profiled kernel then writes back to DRAM: a read-only kernel that swept 268 MB showed 7 MB
 *     of DRAM writes. A prelude (prof_set_prelude), launched after Start, can flush the L2; its
 *     kernel is a range of its own, and prof_end reads the range after it.
 */
#include "profiler.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
/* cupti_profiler_host.h has `#include <string>` (a C++ header) although the rest of it is C. We
 * compile with -Iprofiling/compat, where an empty file named "string" satisfies that include. */
#include <cupti_profiler_host.h>

enum {
    /* Room for a few ranges, so that a second kernel in the profiled region is seen and
     * reported instead of being dropped silently. */
    MAX_RANGES = 4,
    CHIP_NAME_SIZE = 64,
    ERROR_SIZE = 512,
};

struct prof_session {
    int device;
    CUcontext context;
    char chip_name[CHIP_NAME_SIZE];
    int profiler_initialized;                 /* cuptiProfilerInitialize succeeded */
    uint8_t *counter_availability;            /* which counters this device can read now */
    prof_prelude prelude;                     /* launched after Start, before the kernel */
    void *prelude_argument;

    /* Set by prof_begin, released by prof_end. */
    int collecting;
    int pass_running;                         /* Started, not yet Stopped */
    int all_passes_submitted;                 /* the last Stop said so */
    size_t passes;                            /* what the config image needs */
    size_t passes_run;
    CUpti_RangeProfiler_Object *range_profiler;
    CUpti_Profiler_Host_Object *host;
    const char **metric_names;
    size_t metric_count;
    uint8_t *config_image;
    size_t config_image_size;
    uint8_t *counter_data;
    size_t counter_data_size;
};

static char last_error[ERROR_SIZE];

/* Set while a session is open. A second session could enable the range profiler a second time
 * on the same context, which succeeds and crashes later, so prof_open refuses instead. */
static int session_open;

/* ---- status and errors ------------------------------------------------------------------- */

const char *prof_status_name(prof_status status)
{
    switch (status) {
    case PROF_OK: return "PROF_OK";
    case PROF_ERR_NO_DEVICE: return "PROF_ERR_NO_DEVICE";
    case PROF_ERR_UNSUPPORTED_DEVICE: return "PROF_ERR_UNSUPPORTED_DEVICE";
    case PROF_ERR_PRIVILEGES: return "PROF_ERR_PRIVILEGES";
    case PROF_ERR_OTHER_SUBSCRIBER: return "PROF_ERR_OTHER_SUBSCRIBER";
    case PROF_ERR_UNKNOWN_METRIC: return "PROF_ERR_UNKNOWN_METRIC";
    case PROF_ERR_BAD_STATE: return "PROF_ERR_BAD_STATE";
    case PROF_ERR_DROPPED_RANGES: return "PROF_ERR_DROPPED_RANGES";
    case PROF_ERR_NAN: return "PROF_ERR_NAN";
    case PROF_ERR_CUPTI: return "PROF_ERR_CUPTI";
    }
    return "unknown prof_status";
}

int prof_status_is_environmental(prof_status status)
{
    return status == PROF_ERR_NO_DEVICE || status == PROF_ERR_UNSUPPORTED_DEVICE ||
           status == PROF_ERR_PRIVILEGES || status == PROF_ERR_OTHER_SUBSCRIBER;
}

const char *prof_last_error(void)
{
    return last_error;
}

static void set_error(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(last_error, sizeof last_error, format, arguments);
    va_end(arguments);
}

static const char *cupti_result_string(CUptiResult result)
{
    const char *text = NULL;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == NULL)
        return "unknown CUPTI result";
    return text;
}

/* Records why a CUPTI call failed and classifies the failure. The environment cases may surface
 * at several calls (privileges at GetCounterAvailability or at Start, another subscriber at
 * Initialize or Enable), so every call's failure goes through here. */
static prof_status cupti_failure(const char *call, CUptiResult result)
{
    switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        set_error("GPU performance counters need permission (ERR_NVGPUCTRPERM): run as root, "
                  "or set the nvidia module option NVreg_RestrictProfilingToAdminUsers=0; "
                  "see https://developer.nvidia.com/ERR_NVGPUCTRPERM");
        return PROF_ERR_PRIVILEGES;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        set_error("another CUPTI client (Nsight Compute, Nsight Systems or cuda-gdb) is "
                  "attached: run without it to read counters");
        return PROF_ERR_OTHER_SUBSCRIBER;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED:
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE:
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES:
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS:
        set_error("CUPTI cannot profile this device: %s failed: %s", call,
                  cupti_result_string(result));
        return PROF_ERR_UNSUPPORTED_DEVICE;
    case CUPTI_ERROR_NOT_INITIALIZED:
        /* The usual cause: libcupti loads libnvperf_host.so by bare name and did not find it. */
        set_error("%s failed: %s (libcupti may have failed to load libnvperf_host.so: link with "
                  "-Wl,--disable-new-dtags, or put the CUDA lib directory in the loader path)",
                  call, cupti_result_string(result));
        return PROF_ERR_CUPTI;
    default:
        set_error("%s failed: %s", call, cupti_result_string(result));
        return PROF_ERR_CUPTI;
    }
}

/* For cleanup after a failure: the first failure is the one reported, so a cleanup call records
 * its own failure only when nothing failed before it. */
static prof_status cleanup_failure(const char *call, CUptiResult result, prof_status status)
{
    if (result != CUPTI_SUCCESS && status == PROF_OK)
        return cupti_failure(call, result);
    return status;
}

/* ---- host half --------------------------------------------------------------------------- */

/* Writes "GV100, TU102, ..." into buffer: the chips this CUPTI's host library knows. */
static void describe_supported_chips(char *buffer, size_t size)
{
    CUpti_Profiler_Host_GetSupportedChips_Params params = {
        .structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE,
    };
    buffer[0] = '\0';
    if (cuptiProfilerHostGetSupportedChips(&params) != CUPTI_SUCCESS) {
        snprintf(buffer, size, "cuptiProfilerHostGetSupportedChips failed");
        return;
    }
    size_t used = 0;
    for (size_t i = 0; i < params.numChips && used < size; i++) {
        int written = snprintf(buffer + used, size - used, "%s%s", i > 0 ? ", " : "",
                               params.ppChipNames[i]);
        if (written < 0)
            break;
        used += (size_t)written;
    }
}

/* Makes a host object for a chip. counter_availability is NULL for validation without a GPU; a
 * device's image makes the host object reject counters that this device cannot read now. */
static prof_status create_host_object(const char *chip_name, const uint8_t *counter_availability,
                                      CUpti_Profiler_Host_Object **host)
{
    CUpti_Profiler_Host_Initialize_Params params = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
        .pChipName = chip_name,
        .pCounterAvailabilityImage = counter_availability,
    };
    CUptiResult result = cuptiProfilerHostInitialize(&params);
    if (result == CUPTI_ERROR_INVALID_CHIP_NAME) {
        char known_chips[ERROR_SIZE / 2];
        describe_supported_chips(known_chips, sizeof known_chips);
        set_error("chip \"%s\" is not known to this CUPTI, which knows %s", chip_name, known_chips);
        return PROF_ERR_UNSUPPORTED_DEVICE;
    }
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerHostInitialize", result);
    *host = params.pHostObject;
    return PROF_OK;
}

static prof_status destroy_host_object(CUpti_Profiler_Host_Object *host, prof_status status)
{
    CUpti_Profiler_Host_Deinitialize_Params params = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    return cleanup_failure("cuptiProfilerHostDeinitialize", cuptiProfilerHostDeinitialize(&params),
                           status);
}

static int appears_before(const char *const *names, size_t index)
{
    for (size_t i = 0; i < index; i++) {
        if (strcmp(names[i], names[index]) == 0)
            return 1;
    }
    return 0;
}

static CUptiResult config_add_metrics(CUpti_Profiler_Host_Object *host, const char *const *names,
                                      size_t count)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params params = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = host,
        .ppMetricNames = (const char **)names,
        .numMetrics = count,
    };
    return cuptiProfilerHostConfigAddMetrics(&params);
}

/* Adds names to a host object, all in one call: on an H200, adding the two instrumented
 * efficiency metrics (op_ld.pct, op_st.pct) in separate calls evaluated both to the load value.
 * A name given twice is added once: CUPTI would schedule it twice, costing a replay pass.
 * CUPTI answers an unknown name with CUPTI_ERROR_INVALID_PARAMETER and leaves the host object
 * unusable, so the rejected name is then found by trying each in a host object of its own. */
static prof_status add_metrics(CUpti_Profiler_Host_Object *host, const char *chip_name,
                               const char *const *names, size_t count, size_t *bad_index)
{
    const char **unique_names = malloc(count * sizeof *unique_names);
    if (unique_names == NULL) {
        set_error("out of memory for %zu metric names", count);
        return PROF_ERR_CUPTI;
    }
    size_t unique_count = 0;
    for (size_t i = 0; i < count; i++)
        if (!appears_before(names, i))
            unique_names[unique_count++] = names[i];
    CUptiResult result = config_add_metrics(host, unique_names, unique_count);
    free(unique_names);
    if (result == CUPTI_SUCCESS)
        return PROF_OK;

    for (size_t i = 0; i < count; i++) {
        CUpti_Profiler_Host_Object *probe = NULL;
        prof_status status = create_host_object(chip_name, NULL, &probe);
        if (status != PROF_OK)
            return status;
        CUptiResult probe_result = config_add_metrics(probe, &names[i], 1);
        destroy_host_object(probe, PROF_OK);
        if (probe_result != CUPTI_SUCCESS) {
            if (bad_index != NULL)
                *bad_index = i;
            set_error("\"%s\" is not a metric that chip %s can collect "
                      "(cuptiProfilerHostConfigAddMetrics: %s)",
                      names[i], chip_name, cupti_result_string(probe_result));
            return PROF_ERR_UNKNOWN_METRIC;
        }
    }
    return cupti_failure("cuptiProfilerHostConfigAddMetrics", result);
}

/* The config image for the metrics added to host: allocated here, freed by the caller. */
static prof_status build_config_image(CUpti_Profiler_Host_Object *host, uint8_t **image,
                                      size_t *image_size)
{
    CUpti_Profiler_Host_GetConfigImageSize_Params size_params = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    CUptiResult result = cuptiProfilerHostGetConfigImageSize(&size_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerHostGetConfigImageSize", result);

    uint8_t *buffer = malloc(size_params.configImageSize);
    if (buffer == NULL) {
        set_error("out of memory for a config image of %zu bytes", size_params.configImageSize);
        return PROF_ERR_CUPTI;
    }
    CUpti_Profiler_Host_GetConfigImage_Params image_params = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
        .pHostObject = host,
        .configImageSize = size_params.configImageSize,
        .pConfigImage = buffer,
    };
    result = cuptiProfilerHostGetConfigImage(&image_params);
    if (result != CUPTI_SUCCESS) {
        free(buffer);
        return cupti_failure("cuptiProfilerHostGetConfigImage", result);
    }
    *image = buffer;
    *image_size = size_params.configImageSize;
    return PROF_OK;
}

static prof_status count_passes(uint8_t *image, size_t image_size, size_t *num_passes)
{
    CUpti_Profiler_Host_GetNumOfPasses_Params params = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = image_size,
        .pConfigImage = image,
    };
    CUptiResult result = cuptiProfilerHostGetNumOfPasses(&params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerHostGetNumOfPasses", result);
    *num_passes = params.numOfPasses;
    return PROF_OK;
}

static int names_are_present(const char *const *names, size_t count)
{
    if (names == NULL || count == 0)
        return 0;
    for (size_t i = 0; i < count; i++) {
        if (names[i] == NULL)
            return 0;
    }
    return 1;
}

prof_status prof_validate_metrics(const char *chip_name, const char *const *perfworks_names,
                                  size_t count, size_t *bad_index, size_t *num_passes)
{
    if (chip_name == NULL || !names_are_present(perfworks_names, count)) {
        set_error("prof_validate_metrics needs a chip name and at least one metric name, "
                  "none of them NULL");
        return PROF_ERR_BAD_STATE;
    }
    CUpti_Profiler_Host_Object *host = NULL;
    prof_status status = create_host_object(chip_name, NULL, &host);
    if (status != PROF_OK)
        return status;

    status = add_metrics(host, chip_name, perfworks_names, count, bad_index);
    if (status == PROF_OK) {
        uint8_t *image = NULL;
        size_t image_size = 0;
        status = build_config_image(host, &image, &image_size);
        if (status == PROF_OK) {
            size_t passes = 0;
            status = count_passes(image, image_size, &passes);
            if (status == PROF_OK && num_passes != NULL)
                *num_passes = passes;
            free(image);
        }
    }
    return destroy_host_object(host, status);
}

/* ---- target half: opening a session ------------------------------------------------------ */

/* Looks up a driver API function through the CUDA runtime. This file does not link libcuda:
 * a program that links it does not even start on a machine without the NVIDIA driver, where
 * the host half must still work and prof_open must say "no CUDA device". */
static prof_status find_driver_function(const char *symbol, unsigned int version, void **function)
{
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    cudaError_t error =
        cudaGetDriverEntryPointByVersion(symbol, function, version, cudaEnableDefault, &found);
    if (error != cudaSuccess) {
        set_error("cudaGetDriverEntryPointByVersion(%s) failed: %s", symbol,
                  cudaGetErrorString(error));
        return PROF_ERR_CUPTI;
    }
    if (found != cudaDriverEntryPointSuccess) {
        set_error("the CUDA driver has no %s (version %u)", symbol, version);
        return PROF_ERR_CUPTI;
    }
    return PROF_OK;
}

/* Makes the device current and returns its primary context (the one the runtime launches
 * kernels in) and the driver's handle for the device. */
static prof_status get_device_context(int device, CUcontext *context, CUdevice *cu_device)
{
    /* Since CUDA 12, cudaSetDevice also creates the device's primary context. */
    cudaError_t error = cudaSetDevice(device);
    if (error != cudaSuccess) {
        set_error("cudaSetDevice(%d) failed: %s", device, cudaGetErrorString(error));
        return PROF_ERR_CUPTI;
    }

    void *function = NULL;
    prof_status status = find_driver_function("cuCtxGetCurrent", 4000, &function);
    if (status != PROF_OK)
        return status;
    PFN_cuCtxGetCurrent_v4000 get_current_context = (PFN_cuCtxGetCurrent_v4000)function;

    status = find_driver_function("cuDeviceGet", 2000, &function);
    if (status != PROF_OK)
        return status;
    PFN_cuDeviceGet_v2000 get_device = (PFN_cuDeviceGet_v2000)function;

    CUresult result = get_current_context(context);
    if (result != CUDA_SUCCESS || *context == NULL) {
        set_error("cuCtxGetCurrent failed (CUresult %d) after cudaSetDevice(%d)", (int)result,
                  device);
        return PROF_ERR_CUPTI;
    }
    result = get_device(cu_device, device);
    if (result != CUDA_SUCCESS) {
        set_error("cuDeviceGet(%d) failed (CUresult %d)", device, (int)result);
        return PROF_ERR_CUPTI;
    }
    return PROF_OK;
}

static void append_reason(char *reasons, size_t size, CUpti_Profiler_Support_Level level,
                          const char *reason)
{
    if (level != CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED &&
        level != CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return;
    size_t used = strlen(reasons);
    snprintf(reasons + used, size - used, "%s%s", used > 0 ? "; " : "", reason);
}

static prof_status check_device_supported(int device, CUdevice cu_device)
{
    CUpti_Profiler_DeviceSupported_Params params = {
        .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE,
        .cuDevice = cu_device,
        .api = CUPTI_PROFILER_RANGE_PROFILING,
    };
    CUptiResult result = cuptiProfilerDeviceSupported(&params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerDeviceSupported", result);
    if (params.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return PROF_OK;

    char reasons[ERROR_SIZE / 2] = "";
    append_reason(reasons, sizeof reasons, params.architecture,
                  "its architecture is not supported");
    append_reason(reasons, sizeof reasons, params.sli, "SLI is enabled");
    append_reason(reasons, sizeof reasons, params.vGpu,
                  "profiling is not enabled on this virtual GPU");
    append_reason(reasons, sizeof reasons, params.confidentialCompute,
                  "confidential computing is on");
    append_reason(reasons, sizeof reasons, params.cmp, "it is a crypto-mining processor (CMP)");
    append_reason(reasons, sizeof reasons, params.wsl, "profiling is not supported under WSL");
    set_error("CUPTI's range profiler does not support device %d: %s", device,
              reasons[0] != '\0' ? reasons : "cuptiProfilerDeviceSupported gave no reason");
    return PROF_ERR_UNSUPPORTED_DEVICE;
}

static prof_status read_chip_name(prof_session *session)
{
    CUpti_Device_GetChipName_Params params = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
        .deviceIndex = (size_t)session->device,
    };
    CUptiResult result = cuptiDeviceGetChipName(&params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiDeviceGetChipName", result);
    snprintf(session->chip_name, sizeof session->chip_name, "%s", params.pChipName);
    return PROF_OK;
}

/* The counter availability image says which counters the device can read right now; the host
 * object needs it to build config images for this device. */
static prof_status read_counter_availability(prof_session *session)
{
    CUpti_Profiler_GetCounterAvailability_Params size_params = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
        .ctx = session->context,
    };
    CUptiResult result = cuptiProfilerGetCounterAvailability(&size_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerGetCounterAvailability", result);

    session->counter_availability = malloc(size_params.counterAvailabilityImageSize);
    if (session->counter_availability == NULL) {
        set_error("out of memory for a counter availability image of %zu bytes",
                  size_params.counterAvailabilityImageSize);
        return PROF_ERR_CUPTI;
    }
    CUpti_Profiler_GetCounterAvailability_Params image_params = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
        .ctx = session->context,
        .counterAvailabilityImageSize = size_params.counterAvailabilityImageSize,
        .pCounterAvailabilityImage = session->counter_availability,
    };
    result = cuptiProfilerGetCounterAvailability(&image_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerGetCounterAvailability", result);
    return PROF_OK;
}

/* A test hook: PROF_TEST_FAULT=privileges makes the session fail as on a machine where
 * counters are restricted to administrators (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), so the
 * degraded path can be tested on a GPU where counters are readable. */
static CUptiResult injected_fault(void)
{
    const char *fault = getenv("PROF_TEST_FAULT");
    if (fault != NULL && strcmp(fault, "privileges") == 0)
        return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    return CUPTI_SUCCESS;
}

static prof_status start_session(prof_session *session)
{
    if (injected_fault() != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerInitialize (PROF_TEST_FAULT)", injected_fault());
    CUdevice cu_device = 0;
    prof_status status = get_device_context(session->device, &session->context, &cu_device);
    if (status != PROF_OK)
        return status;

    CUpti_Profiler_Initialize_Params initialize_params = {
        .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE,
    };
    CUptiResult result = cuptiProfilerInitialize(&initialize_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerInitialize", result);
    session->profiler_initialized = 1;

    status = check_device_supported(session->device, cu_device);
    if (status == PROF_OK)
        status = read_chip_name(session);
    if (status == PROF_OK)
        status = read_counter_availability(session);
    return status;
}

/* Undoes whatever start_session got done, and frees the session. */
static prof_status end_session(prof_session *session, prof_status status)
{
    if (session->profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params params = {
            .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,
        };
        status = cleanup_failure("cuptiProfilerDeInitialize", cuptiProfilerDeInitialize(&params),
                                 status);
    }
    free(session->counter_availability);
    free(session);
    session_open = 0;
    return status;
}

prof_status prof_open(int device, prof_session **session)
{
    if (session == NULL) {
        set_error("prof_open: the session pointer is NULL");
        return PROF_ERR_BAD_STATE;
    }
    if (session_open) {
        set_error("prof_open: a profiling session is already open in this process; "
                  "prof_close it first");
        return PROF_ERR_BAD_STATE;
    }
    *session = NULL;

    int device_count = 0;
    cudaError_t error = cudaGetDeviceCount(&device_count);
    if (error == cudaErrorInsufficientDriver) {
        set_error("no CUDA device: the NVIDIA driver is missing or older than this CUDA runtime "
                  "(cudaGetDeviceCount: cudaErrorInsufficientDriver)");
        return PROF_ERR_NO_DEVICE;
    }
    if (error != cudaSuccess) {
        set_error("no CUDA device: cudaGetDeviceCount failed: %s (%s)", cudaGetErrorName(error),
                  cudaGetErrorString(error));
        return PROF_ERR_NO_DEVICE;
    }
    if (device < 0 || device >= device_count) {
        set_error("no CUDA device: device %d was asked for and this machine has %d", device,
                  device_count);
        return PROF_ERR_NO_DEVICE;
    }

    prof_session *new_session = calloc(1, sizeof *new_session);
    if (new_session == NULL) {
        set_error("prof_open: out of memory");
        return PROF_ERR_CUPTI;
    }
    new_session->device = device;
    session_open = 1;
    prof_status status = start_session(new_session);
    if (status != PROF_OK)
        return end_session(new_session, status);
    *session = new_session;
    return PROF_OK;
}

prof_status prof_set_prelude(prof_session *session, prof_prelude prelude, void *argument)
{
    if (session == NULL || session->collecting) {
        set_error("prof_set_prelude needs an open session that is not collecting");
        return PROF_ERR_BAD_STATE;
    }
    session->prelude = prelude;
    session->prelude_argument = argument;
    return PROF_OK;
}

const char *prof_chip_name(const prof_session *session)
{
    return session != NULL ? session->chip_name : "";
}

/* ---- target half: collecting ------------------------------------------------------------- */

/* Copies the caller's names, so that prof_end does not depend on the caller keeping them.
 * One allocation: the array of pointers, followed by the strings they point to. */
static const char **copy_names(const char *const *names, size_t count)
{
    size_t bytes = count * sizeof(const char *);
    for (size_t i = 0; i < count; i++)
        bytes += strlen(names[i]) + 1;
    const char **copies = malloc(bytes);
    if (copies == NULL)
        return NULL;
    char *text = (char *)(copies + count);
    for (size_t i = 0; i < count; i++) {
        size_t length = strlen(names[i]) + 1;
        memcpy(text, names[i], length);
        copies[i] = text;
        text += length;
    }
    return copies;
}

/* The counter data image receives the counters of up to MAX_RANGES ranges (kernels). */
static prof_status create_counter_data_image(prof_session *session)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params size_params = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = session->range_profiler,
        .pMetricNames = session->metric_names,
        .numMetrics = session->metric_count,
        .maxNumOfRanges = MAX_RANGES,
        .maxNumRangeTreeNodes = MAX_RANGES,
    };
    CUptiResult result = cuptiRangeProfilerGetCounterDataSize(&size_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerGetCounterDataSize", result);

    session->counter_data = malloc(size_params.counterDataSize);
    if (session->counter_data == NULL) {
        set_error("out of memory for a counter data image of %zu bytes",
                  size_params.counterDataSize);
        return PROF_ERR_CUPTI;
    }
    session->counter_data_size = size_params.counterDataSize;

    CUpti_RangeProfiler_CounterDataImage_Initialize_Params initialize_params = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = session->range_profiler,
        .counterDataSize = session->counter_data_size,
        .pCounterData = session->counter_data,
    };
    result = cuptiRangeProfilerCounterDataImageInitialize(&initialize_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerCounterDataImageInitialize", result);
    return PROF_OK;
}

/* One pass: Start, then the prelude's kernel; the caller's kernel follows. */
static prof_status start_pass(prof_session *session)
{
    CUpti_RangeProfiler_Start_Params params = {
        .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
        .pRangeProfilerObject = session->range_profiler,
    };
    CUptiResult result = cuptiRangeProfilerStart(&params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerStart", result);
    session->pass_running = 1;
    if (session->prelude != NULL)
        session->prelude(session->prelude_argument);
    return PROF_OK;
}

static prof_status stop_pass(prof_session *session)
{
    CUpti_RangeProfiler_Stop_Params params = {
        .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
        .pRangeProfilerObject = session->range_profiler,
    };
    CUptiResult result = cuptiRangeProfilerStop(&params);
    session->pass_running = 0;
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerStop", result);
    session->passes_run++;
    session->all_passes_submitted = params.isAllPassSubmitted;
    return PROF_OK;
}

static prof_status start_collection(prof_session *session, const char *const *names, size_t count)
{
    /* The host side first, so that a bad metric name is found before the device is touched. */
    session->metric_names = copy_names(names, count);
    if (session->metric_names == NULL) {
        set_error("prof_begin: out of memory");
        return PROF_ERR_CUPTI;
    }
    session->metric_count = count;

    prof_status status =
        create_host_object(session->chip_name, session->counter_availability, &session->host);
    if (status == PROF_OK)
        status = add_metrics(session->host, session->chip_name, names, count, NULL);
    if (status == PROF_OK)
        status = build_config_image(session->host, &session->config_image,
                                    &session->config_image_size);
    if (status == PROF_OK)
        status = count_passes(session->config_image, session->config_image_size,
                              &session->passes);
    if (status != PROF_OK)
        return status;

    CUpti_RangeProfiler_Enable_Params enable_params = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
        .ctx = session->context,
    };
    CUptiResult result = cuptiRangeProfilerEnable(&enable_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerEnable", result);
    session->range_profiler = enable_params.pRangeProfilerObject;

    status = create_counter_data_image(session);
    if (status != PROF_OK)
        return status;

    CUpti_RangeProfiler_SetConfig_Params config_params = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE,
        .pRangeProfilerObject = session->range_profiler,
        .configSize = session->config_image_size,
        .pConfig = session->config_image,
        .counterDataImageSize = session->counter_data_size,
        .pCounterDataImage = session->counter_data,
        .range = CUPTI_AutoRange,        /* one range around each kernel launch */
        .replayMode = CUPTI_UserReplay,  /* the caller launches the kernel once per pass */
        .maxRangesPerPass = MAX_RANGES,
        .numNestingLevels = 1,
        .minNestingLevel = 1,
        .passIndex = 0,
        .targetNestingLevel = 1,
    };
    result = cuptiRangeProfilerSetConfig(&config_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerSetConfig", result);
    session->collecting = 1;
    return start_pass(session);
}

/* Disables the range profiler and frees what start_collection made; the session can then begin
 * again. */
static prof_status release_collection(prof_session *session, prof_status status)
{
    if (session->range_profiler != NULL) {
        CUpti_RangeProfiler_Disable_Params params = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
            .pRangeProfilerObject = session->range_profiler,
        };
        status = cleanup_failure("cuptiRangeProfilerDisable", cuptiRangeProfilerDisable(&params),
                                 status);
    }
    session->range_profiler = NULL;
    if (session->host != NULL)
        status = destroy_host_object(session->host, status);
    session->host = NULL;
    free(session->metric_names);
    session->metric_names = NULL;
    session->metric_count = 0;
    free(session->config_image);
    session->config_image = NULL;
    session->config_image_size = 0;
    free(session->counter_data);
    session->counter_data = NULL;
    session->counter_data_size = 0;
    session->collecting = 0;
    session->pass_running = 0;
    session->all_passes_submitted = 0;
    session->passes = 0;
    session->passes_run = 0;
    return status;
}

prof_status prof_begin(prof_session *session, const char *const *perfworks_names, size_t count)
{
    if (session == NULL || !names_are_present(perfworks_names, count)) {
        set_error("prof_begin needs an open session and at least one metric name, "
                  "none of them NULL");
        return PROF_ERR_BAD_STATE;
    }
    if (session->collecting) {
        set_error("prof_begin called twice: call prof_end first");
        return PROF_ERR_BAD_STATE;
    }
    prof_status status = start_collection(session, perfworks_names, count);
    if (status != PROF_OK)
        return release_collection(session, status);
    return PROF_OK;
}

prof_status prof_next_pass(prof_session *session, int *another_pass)
{
    if (session == NULL || another_pass == NULL || !session->collecting ||
        !session->pass_running) {
        set_error("prof_next_pass needs prof_begin (or a previous prof_next_pass that asked for "
                  "another pass) and a launch since");
        return PROF_ERR_BAD_STATE;
    }
    *another_pass = 0;
    prof_status status = stop_pass(session);
    if (status == PROF_OK && !session->all_passes_submitted) {
        if (session->passes_run >= session->passes) {
            set_error("CUPTI asked for pass %zu of a config image that needs %zu",
                      session->passes_run + 1, session->passes);
            status = PROF_ERR_CUPTI;
        } else {
            status = start_pass(session);
            *another_pass = status == PROF_OK;
        }
    }
    if (status != PROF_OK)
        return release_collection(session, status);
    return PROF_OK;
}

/* The ranges one collection makes: the prelude's kernel, if any, then the caller's kernel. */
static size_t expected_ranges(const prof_session *session)
{
    return session->prelude != NULL ? 2 : 1;
}

/* Decodes the counters into the counter data image and checks that it holds the expected ranges:
 * one kernel was launched after the prelude, and nothing was dropped. */
static prof_status decode_ranges(prof_session *session)
{
    CUpti_RangeProfiler_DecodeData_Params decode_params = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
        .pRangeProfilerObject = session->range_profiler,
    };
    CUptiResult result = cuptiRangeProfilerDecodeData(&decode_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerDecodeData", result);
    if (decode_params.numOfRangeDropped > 0) {
        set_error("the profiled region launched more than %d kernels (CUPTI dropped %zu); "
                  "exactly one is expected", MAX_RANGES, decode_params.numOfRangeDropped);
        return PROF_ERR_DROPPED_RANGES;
    }

    CUpti_RangeProfiler_GetCounterDataInfo_Params info_params = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
        .pCounterDataImage = session->counter_data,
        .counterDataImageSize = session->counter_data_size,
    };
    result = cuptiRangeProfilerGetCounterDataInfo(&info_params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiRangeProfilerGetCounterDataInfo", result);
    if (info_params.numTotalRanges >= MAX_RANGES) {
        set_error("the profiled region launched %d or more kernels; exactly one is expected",
                  MAX_RANGES);
        return PROF_ERR_DROPPED_RANGES;
    }
    if (info_params.numTotalRanges != expected_ranges(session)) {
        set_error("the profiled region made %zu ranges and %zu were expected: exactly one "
                  "kernel%s", info_params.numTotalRanges, expected_ranges(session),
                  session->prelude != NULL ? " after the prelude's one" : "");
        return PROF_ERR_DROPPED_RANGES;
    }
    return PROF_OK;
}

static prof_status evaluate(prof_session *session, double *values)
{
    CUpti_Profiler_Host_EvaluateToGpuValues_Params params = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
        .pHostObject = session->host,
        .pCounterDataImage = session->counter_data,
        .counterDataImageSize = session->counter_data_size,
        .rangeIndex = expected_ranges(session) - 1,
        .ppMetricNames = session->metric_names,
        .numMetrics = session->metric_count,
        .pMetricValues = values,
    };
    CUptiResult result = cuptiProfilerHostEvaluateToGpuValues(&params);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerHostEvaluateToGpuValues", result);

    /* CUPTI answers a metric that was not collected with NaN and success. */
    for (size_t i = 0; i < session->metric_count; i++) {
        if (isnan(values[i])) {
            set_error("%s evaluated to NaN: it was not collected", session->metric_names[i]);
            return PROF_ERR_NAN;
        }
    }
    return PROF_OK;
}

prof_status prof_end(prof_session *session, double *values)
{
    if (session == NULL || values == NULL) {
        set_error("prof_end needs an open session and an array for the values");
        return PROF_ERR_BAD_STATE;
    }
    if (!session->collecting) {
        set_error("prof_end called without prof_begin");
        return PROF_ERR_BAD_STATE;
    }
    /* A value that could not be read stays NaN, whatever the caller does with the status. */
    for (size_t i = 0; i < session->metric_count; i++)
        values[i] = NAN;

    prof_status status = PROF_OK;
    if (session->pass_running)
        status = stop_pass(session);
    if (status == PROF_OK && !session->all_passes_submitted) {
        set_error("the metrics need %zu passes and %zu ran: launch the kernel once per pass, "
                  "calling prof_next_pass after each launch", session->passes,
                  session->passes_run);
        status = PROF_ERR_BAD_STATE;
    }
    if (status == PROF_OK)
        status = decode_ranges(session);
    if (status == PROF_OK)
        status = evaluate(session, values);
    return release_collection(session, status);
}

void prof_close(prof_session *session)
{
    if (session == NULL)
        return;
    prof_status status = PROF_OK;
    if (session->collecting) {
        if (session->pass_running)
            status = stop_pass(session);
        status = release_collection(session, status);
    }
    end_session(session, status);
}

/* ---- unified-memory counters (activity API) ------------------------------------------------ */

/* Sums of the records delivered since prof_unified_begin. CUPTI hands buffers back on a thread
 * of its own, or on the caller's when prof_unified_end flushes: a lock keeps the sums whole. */
#define UNIFIED_BUFFER_BYTES ((size_t)8 << 20)

static struct {
    int open;
    pthread_mutex_t lock;
    uint64_t sum[PROF_UM_COUNTERS];
    uint64_t dropped;
} unified = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void CUPTIAPI unified_buffer_requested(uint8_t **buffer, size_t *size,
                                              size_t *max_records)
{
    *buffer = aligned_alloc(8, UNIFIED_BUFFER_BYTES);
    *size = *buffer != NULL ? UNIFIED_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI unified_buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                              size_t size, size_t valid_size)
{
    (void)size;
    CUpti_Activity *record = NULL;
    pthread_mutex_lock(&unified.lock);
    while (buffer != NULL &&
           cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
            continue;
        const CUpti_ActivityUnifiedMemoryCounter3 *counter =
            (const CUpti_ActivityUnifiedMemoryCounter3 *)record;
        switch (counter->counterKind) {
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
            unified.sum[PROF_UM_HTOD_BYTES] += counter->value;
            unified.sum[PROF_UM_HTOD_MIGRATIONS]++;
            break;
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
            unified.sum[PROF_UM_DTOH_BYTES] += counter->value;
            unified.sum[PROF_UM_DTOH_MIGRATIONS]++;
            break;
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
            unified.sum[PROF_UM_CPU_FAULTS]++; /* value is the faulting instruction's address */
            break;
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
            unified.sum[PROF_UM_GPU_FAULT_GROUPS] += counter->value;
            break;
        default:
            break;
        }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS)
        unified.dropped += dropped;
    pthread_mutex_unlock(&unified.lock);
    free(buffer);
}

prof_status prof_unified_open(int device)
{
    if (unified.open) {
        set_error("prof_unified_open: the unified-memory counters are already open");
        return PROF_ERR_BAD_STATE;
    }
    if (injected_fault() != CUPTI_SUCCESS)
        return cupti_failure("cuptiActivityConfigureUnifiedMemoryCounter (PROF_TEST_FAULT)",
                             injected_fault());
    static const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
    };
    CUpti_ActivityUnifiedMemoryCounterConfig config[sizeof kinds / sizeof kinds[0]];
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        config[i] = (CUpti_ActivityUnifiedMemoryCounterConfig){
            .scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE,
            .kind = kinds[i],
            .deviceId = (uint32_t)device,
            .enable = 1,
        };
    }
    CUptiResult result =
        cuptiActivityConfigureUnifiedMemoryCounter(config, sizeof kinds / sizeof kinds[0]);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiActivityConfigureUnifiedMemoryCounter", result);
    result = cuptiActivityRegisterCallbacks(unified_buffer_requested, unified_buffer_completed);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiActivityRegisterCallbacks", result);
    unified.open = 1;
    return PROF_OK;
}

/* Every record of work before this point is delivered and forgotten, so the sums hold only what
 * the caller launches next. Collection is on only between begin and end: outside, the driver
 * handles faults without reporting them (the timed launches run as they would untraced). */
prof_status prof_unified_begin(void)
{
    if (!unified.open) {
        set_error("prof_unified_begin: call prof_unified_open first");
        return PROF_ERR_BAD_STATE;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        set_error("cudaDeviceSynchronize before the unified-memory counters failed");
        return PROF_ERR_CUPTI;
    }
    CUptiResult result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)", result);
    result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiActivityFlushAll", result);
    pthread_mutex_lock(&unified.lock);
    memset(unified.sum, 0, sizeof unified.sum);
    unified.dropped = 0;
    pthread_mutex_unlock(&unified.lock);
    return PROF_OK;
}

prof_status prof_unified_end(double values[PROF_UM_COUNTERS])
{
    for (int c = 0; c < PROF_UM_COUNTERS; c++)
        values[c] = NAN;
    if (!unified.open) {
        set_error("prof_unified_end: call prof_unified_open first");
        return PROF_ERR_BAD_STATE;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        set_error("cudaDeviceSynchronize after the unified-memory counters' launch failed");
        return PROF_ERR_CUPTI;
    }
    CUptiResult result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    CUptiResult disabled = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (result != CUPTI_SUCCESS)
        return cupti_failure("cuptiActivityFlushAll", result);
    if (disabled != CUPTI_SUCCESS)
        return cupti_failure("cuptiActivityDisable(UNIFIED_MEMORY_COUNTER)", disabled);
    pthread_mutex_lock(&unified.lock);
    uint64_t dropped = unified.dropped;
    for (int c = 1; c < PROF_UM_COUNTERS; c++)
        values[c] = (double)unified.sum[c];
    pthread_mutex_unlock(&unified.lock);
    values[PROF_UM_NONE] = 0;
    if (dropped > 0) {
        for (int c = 0; c < PROF_UM_COUNTERS; c++)
            values[c] = NAN;
        set_error("CUPTI dropped %llu unified-memory records (its buffers were full)",
                  (unsigned long long)dropped);
        return PROF_ERR_DROPPED_RANGES;
    }
    return PROF_OK;
}
