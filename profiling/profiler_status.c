/* profiler_status.c: the profiling layer's status names, its last error, and the one place that
 * turns a failed CUPTI call into a status and a line that names the cause (and, for the
 * environment cases, the fix). */
#include "profiler.h"
#include "profiler_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_error[ERROR_SIZE];

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

void prof_set_error(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(last_error, sizeof last_error, format, arguments);
    va_end(arguments);
}

const char *prof_cupti_result_string(CUptiResult result)
{
    const char *text = NULL;
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == NULL)
        return "unknown CUPTI result";
    return text;
}

/* Records why a CUPTI call failed and classifies the failure. The environment cases may surface
 * at several calls (privileges at GetCounterAvailability or at Start, another subscriber at
 * Initialize or Enable), so every call's failure goes through here. */
prof_status prof_cupti_failure(const char *call, CUptiResult result)
{
    switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        prof_set_error("GPU performance counters need permission (ERR_NVGPUCTRPERM): run as root, "
                       "or set the nvidia module option NVreg_RestrictProfilingToAdminUsers=0; "
                       "see https://developer.nvidia.com/ERR_NVGPUCTRPERM");
        return PROF_ERR_PRIVILEGES;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        prof_set_error("another CUPTI client (Nsight Compute, Nsight Systems or cuda-gdb) is "
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
        prof_set_error("CUPTI cannot profile this device: %s failed: %s", call,
                       prof_cupti_result_string(result));
        return PROF_ERR_UNSUPPORTED_DEVICE;
    case CUPTI_ERROR_NOT_INITIALIZED:
        /* The usual cause: libcupti loads libnvperf_host.so by bare name and did not find it. */
        prof_set_error("%s failed: %s (libcupti may have failed to load libnvperf_host.so: link "
                       "with -Wl,--disable-new-dtags, or put the CUDA lib directory in the loader "
                       "path)", call, prof_cupti_result_string(result));
        return PROF_ERR_CUPTI;
    default:
        prof_set_error("%s failed: %s", call, prof_cupti_result_string(result));
        return PROF_ERR_CUPTI;
    }
}

/* For cleanup after a failure: the first failure is the one reported, so a cleanup call records
 * its own failure only when nothing failed before it. */
prof_status prof_cleanup_failure(const char *call, CUptiResult result, prof_status status)
{
    if (result != CUPTI_SUCCESS && status == PROF_OK)
        return prof_cupti_failure(call, result);
    return status;
}

/* A test hook: PROF_TEST_FAULT=privileges makes the session fail as on a machine where
 * counters are restricted to administrators (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), so the
 * degraded path can be tested on a GPU where counters are readable. */
CUptiResult prof_injected_fault(void)
{
    const char *fault = getenv("PROF_TEST_FAULT");
    if (fault != NULL && strcmp(fault, "privileges") == 0)
        return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    return CUPTI_SUCCESS;
}

