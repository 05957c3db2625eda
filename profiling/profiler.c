/* profiler.c: hardware counters through CUPTI's Range Profiler API: the session on a device.
 *
 * The range profiler, enabled on the device's context, applies a config image (made by the host
 * half, profiler_host.c) around each kernel launch (auto range) and writes the counters into a
 * counter data image, which the host object then evaluates. When the metrics need several
 * passes, the caller launches the kernel once per pass (user replay, prof_next_pass). CUPTI's
 * kernel replay would launch it for us, but it restores device memory before every pass after
 * the first, and the restore's writes, still in the L2, then inflate that pass's DRAM counters
 * (an H200 read 268 MB for a 256 MiB copy that way); and with user replay the whole collection
 * costs one Enable, the expensive step below.
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
 *
 * The unified-memory counters (activity API) are in unified_counters.c; the status names and
 * the reading of a CUPTI failure in profiler_status.c.
 */
#include "profiler.h"
#include "profiler_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

enum {
    /* Room for a few ranges, so that a second kernel in the profiled region is seen and
     * reported instead of being dropped silently. */
    MAX_RANGES = 4,
    CHIP_NAME_SIZE = 64,
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

/* Set while a session is open. A second session could enable the range profiler a second time
 * on the same context, which succeeds and crashes later, so prof_open refuses instead. */
static int session_open;

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
        prof_set_error("cudaGetDriverEntryPointByVersion(%s) failed: %s", symbol,
                       cudaGetErrorString(error));
        return PROF_ERR_CUPTI;
    }
    if (found != cudaDriverEntryPointSuccess) {
        prof_set_error("the CUDA driver has no %s (version %u)", symbol, version);
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
        prof_set_error("cudaSetDevice(%d) failed: %s", device, cudaGetErrorString(error));
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
        prof_set_error("cuCtxGetCurrent failed (CUresult %d) after cudaSetDevice(%d)", (int)result,
                       device);
        return PROF_ERR_CUPTI;
    }
    result = get_device(cu_device, device);
    if (result != CUDA_SUCCESS) {
        prof_set_error("cuDeviceGet(%d) failed (CUresult %d)", device, (int)result);
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
        return prof_cupti_failure("cuptiProfilerDeviceSupported", result);
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
    prof_set_error("CUPTI's range profiler does not support device %d: %s", device,
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
        return prof_cupti_failure("cuptiDeviceGetChipName", result);
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
        return prof_cupti_failure("cuptiProfilerGetCounterAvailability", result);

    session->counter_availability = malloc(size_params.counterAvailabilityImageSize);
    if (session->counter_availability == NULL) {
        prof_set_error("out of memory for a counter availability image of %zu bytes",
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
        return prof_cupti_failure("cuptiProfilerGetCounterAvailability", result);
    return PROF_OK;
}

static prof_status start_session(prof_session *session)
{
    if (prof_injected_fault() != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiProfilerInitialize (PROF_TEST_FAULT)",
                                  prof_injected_fault());
    CUdevice cu_device = 0;
    prof_status status = get_device_context(session->device, &session->context, &cu_device);
    if (status != PROF_OK)
        return status;

    CUpti_Profiler_Initialize_Params initialize_params = {
        .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE,
    };
    CUptiResult result = cuptiProfilerInitialize(&initialize_params);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiProfilerInitialize", result);
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
        status = prof_cleanup_failure("cuptiProfilerDeInitialize",
                                      cuptiProfilerDeInitialize(&params), status);
    }
    free(session->counter_availability);
    free(session);
    session_open = 0;
    return status;
}

prof_status prof_open(int device, prof_session **session)
{
    if (session == NULL) {
        prof_set_error("prof_open: the session pointer is NULL");
        return PROF_ERR_BAD_STATE;
    }
    if (session_open) {
        prof_set_error("prof_open: a profiling session is already open in this process; "
                       "prof_close it first");
        return PROF_ERR_BAD_STATE;
    }
    *session = NULL;

    int device_count = 0;
    cudaError_t error = cudaGetDeviceCount(&device_count);
    if (error == cudaErrorInsufficientDriver) {
        prof_set_error("no CUDA device: the NVIDIA driver is missing or older than this CUDA "
                       "runtime (cudaGetDeviceCount: cudaErrorInsufficientDriver)");
        return PROF_ERR_NO_DEVICE;
    }
    if (error != cudaSuccess) {
        prof_set_error("no CUDA device: cudaGetDeviceCount failed: %s (%s)",
                       cudaGetErrorName(error), cudaGetErrorString(error));
        return PROF_ERR_NO_DEVICE;
    }
    if (device < 0 || device >= device_count) {
        prof_set_error("no CUDA device: device %d was asked for and this machine has %d", device,
                       device_count);
        return PROF_ERR_NO_DEVICE;
    }

    prof_session *new_session = calloc(1, sizeof *new_session);
    if (new_session == NULL) {
        prof_set_error("prof_open: out of memory");
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
        prof_set_error("prof_set_prelude needs an open session that is not collecting");
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
        return prof_cupti_failure("cuptiRangeProfilerGetCounterDataSize", result);

    session->counter_data = malloc(size_params.counterDataSize);
    if (session->counter_data == NULL) {
        prof_set_error("out of memory for a counter data image of %zu bytes",
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
        return prof_cupti_failure("cuptiRangeProfilerCounterDataImageInitialize", result);
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
        return prof_cupti_failure("cuptiRangeProfilerStart", result);
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
        return prof_cupti_failure("cuptiRangeProfilerStop", result);
    session->passes_run++;
    session->all_passes_submitted = params.isAllPassSubmitted;
    return PROF_OK;
}

static prof_status start_collection(prof_session *session, const char *const *names, size_t count)
{
    /* The host side first, so that a bad metric name is found before the device is touched. */
    session->metric_names = copy_names(names, count);
    if (session->metric_names == NULL) {
        prof_set_error("prof_begin: out of memory");
        return PROF_ERR_CUPTI;
    }
    session->metric_count = count;

    prof_status status =
        prof_host_create(session->chip_name, session->counter_availability, &session->host);
    if (status == PROF_OK)
        status = prof_host_add_metrics(session->host, session->chip_name, names, count, NULL);
    if (status == PROF_OK)
        status = prof_host_config_image(session->host, &session->config_image,
                                        &session->config_image_size);
    if (status == PROF_OK)
        status = prof_host_count_passes(session->config_image, session->config_image_size,
                                        &session->passes);
    if (status != PROF_OK)
        return status;

    CUpti_RangeProfiler_Enable_Params enable_params = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
        .ctx = session->context,
    };
    CUptiResult result = cuptiRangeProfilerEnable(&enable_params);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiRangeProfilerEnable", result);
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
        return prof_cupti_failure("cuptiRangeProfilerSetConfig", result);
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
        status = prof_cleanup_failure("cuptiRangeProfilerDisable",
                                      cuptiRangeProfilerDisable(&params), status);
    }
    session->range_profiler = NULL;
    if (session->host != NULL)
        status = prof_host_destroy(session->host, status);
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
    if (session == NULL || !prof_names_are_present(perfworks_names, count)) {
        prof_set_error("prof_begin needs an open session and at least one metric name, "
                       "none of them NULL");
        return PROF_ERR_BAD_STATE;
    }
    if (session->collecting) {
        prof_set_error("prof_begin called twice: call prof_end first");
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
        prof_set_error("prof_next_pass needs prof_begin (or a previous prof_next_pass that asked "
                       "for another pass) and a launch since");
        return PROF_ERR_BAD_STATE;
    }
    *another_pass = 0;
    prof_status status = stop_pass(session);
    if (status == PROF_OK && !session->all_passes_submitted) {
        if (session->passes_run >= session->passes) {
            prof_set_error("CUPTI asked for pass %zu of a config image that needs %zu",
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
        return prof_cupti_failure("cuptiRangeProfilerDecodeData", result);
    if (decode_params.numOfRangeDropped > 0) {
        prof_set_error("the profiled region launched more than %d kernels (CUPTI dropped %zu); "
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
        return prof_cupti_failure("cuptiRangeProfilerGetCounterDataInfo", result);
    if (info_params.numTotalRanges >= MAX_RANGES) {
        prof_set_error("the profiled region launched %d or more kernels; exactly one is expected",
                       MAX_RANGES);
        return PROF_ERR_DROPPED_RANGES;
    }
    if (info_params.numTotalRanges != expected_ranges(session)) {
        prof_set_error("the profiled region made %zu ranges and %zu were expected: exactly one "
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
        return prof_cupti_failure("cuptiProfilerHostEvaluateToGpuValues", result);

    /* CUPTI answers a metric that was not collected with NaN and success. */
    for (size_t i = 0; i < session->metric_count; i++) {
        if (isnan(values[i])) {
            prof_set_error("%s evaluated to NaN: it was not collected", session->metric_names[i]);
            return PROF_ERR_NAN;
        }
    }
    return PROF_OK;
}

prof_status prof_end(prof_session *session, double *values)
{
    if (session == NULL || values == NULL) {
        prof_set_error("prof_end needs an open session and an array for the values");
        return PROF_ERR_BAD_STATE;
    }
    if (!session->collecting) {
        prof_set_error("prof_end called without prof_begin");
        return PROF_ERR_BAD_STATE;
    }
    /* A value that could not be read stays NaN, whatever the caller does with the status. */
    for (size_t i = 0; i < session->metric_count; i++)
        values[i] = NAN;

    prof_status status = PROF_OK;
    if (session->pass_running)
        status = stop_pass(session);
    if (status == PROF_OK && !session->all_passes_submitted) {
        prof_set_error("the metrics need %zu passes and %zu ran: launch the kernel once per pass, "
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

