/* profiler_host.c: the host half of the CUPTI layer, through the Profiler Host API.
 *
 * A "host object" made for a chip name turns metric names into a config image (which counters
 * to program, and in how many passes) and later turns raw counter data into metric values. It
 * needs no GPU: prof_validate_metrics checks names against a chip such as "GH100" on any
 * machine, and the range-profiler session (profiler.c) builds its config image here.
 */
#include "profiler.h"
#include "profiler_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
prof_status prof_host_create(const char *chip_name, const uint8_t *counter_availability,
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
        prof_set_error("chip \"%s\" is not known to this CUPTI, which knows %s", chip_name,
                       known_chips);
        return PROF_ERR_UNSUPPORTED_DEVICE;
    }
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiProfilerHostInitialize", result);
    *host = params.pHostObject;
    return PROF_OK;
}

prof_status prof_host_destroy(CUpti_Profiler_Host_Object *host, prof_status status)
{
    CUpti_Profiler_Host_Deinitialize_Params params = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    return prof_cleanup_failure("cuptiProfilerHostDeinitialize",
                                cuptiProfilerHostDeinitialize(&params), status);
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
prof_status prof_host_add_metrics(CUpti_Profiler_Host_Object *host, const char *chip_name,
                                         const char *const *names, size_t count, size_t *bad_index)
{
    const char **unique_names = malloc(count * sizeof *unique_names);
    if (unique_names == NULL) {
        prof_set_error("out of memory for %zu metric names", count);
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
        prof_status status = prof_host_create(chip_name, NULL, &probe);
        if (status != PROF_OK)
            return status;
        CUptiResult probe_result = config_add_metrics(probe, &names[i], 1);
        prof_host_destroy(probe, PROF_OK);
        if (probe_result != CUPTI_SUCCESS) {
            if (bad_index != NULL)
                *bad_index = i;
            prof_set_error("\"%s\" is not a metric that chip %s can collect "
                           "(cuptiProfilerHostConfigAddMetrics: %s)",
                           names[i], chip_name, prof_cupti_result_string(probe_result));
            return PROF_ERR_UNKNOWN_METRIC;
        }
    }
    return prof_cupti_failure("cuptiProfilerHostConfigAddMetrics", result);
}

/* The config image for the metrics added to host: allocated here, freed by the caller. */
prof_status prof_host_config_image(CUpti_Profiler_Host_Object *host, uint8_t **image,
                                          size_t *image_size)
{
    CUpti_Profiler_Host_GetConfigImageSize_Params size_params = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = host,
    };
    CUptiResult result = cuptiProfilerHostGetConfigImageSize(&size_params);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiProfilerHostGetConfigImageSize", result);

    uint8_t *buffer = malloc(size_params.configImageSize);
    if (buffer == NULL) {
        prof_set_error("out of memory for a config image of %zu bytes",
                       size_params.configImageSize);
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
        return prof_cupti_failure("cuptiProfilerHostGetConfigImage", result);
    }
    *image = buffer;
    *image_size = size_params.configImageSize;
    return PROF_OK;
}

prof_status prof_host_count_passes(uint8_t *image, size_t image_size, size_t *num_passes)
{
    CUpti_Profiler_Host_GetNumOfPasses_Params params = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = image_size,
        .pConfigImage = image,
    };
    CUptiResult result = cuptiProfilerHostGetNumOfPasses(&params);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiProfilerHostGetNumOfPasses", result);
    *num_passes = params.numOfPasses;
    return PROF_OK;
}

int prof_names_are_present(const char *const *names, size_t count)
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
    if (chip_name == NULL || !prof_names_are_present(perfworks_names, count)) {
        prof_set_error("prof_validate_metrics needs a chip name and at least one metric name, "
                       "none of them NULL");
        return PROF_ERR_BAD_STATE;
    }
    CUpti_Profiler_Host_Object *host = NULL;
    prof_status status = prof_host_create(chip_name, NULL, &host);
    if (status != PROF_OK)
        return status;

    status = prof_host_add_metrics(host, chip_name, perfworks_names, count, bad_index);
    if (status == PROF_OK) {
        uint8_t *image = NULL;
        size_t image_size = 0;
        status = prof_host_config_image(host, &image, &image_size);
        if (status == PROF_OK) {
            size_t passes = 0;
            status = prof_host_count_passes(image, image_size, &passes);
            if (status == PROF_OK && num_passes != NULL)
                *num_passes = passes;
            free(image);
        }
    }
    return prof_host_destroy(host, status);
}

