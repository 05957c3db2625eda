/* unified_counters.c: the driver's unified-memory counters, through CUPTI's activity API
 * (prof_unified_*). No Perfworks session: these records need no permission beyond the GPU's.
 */
#include "profiler.h"
#include "profiler_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cupti_activity.h>

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
        prof_set_error("prof_unified_open: the unified-memory counters are already open");
        return PROF_ERR_BAD_STATE;
    }
    if (prof_injected_fault() != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiActivityConfigureUnifiedMemoryCounter (PROF_TEST_FAULT)",
                                  prof_injected_fault());
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
        return prof_cupti_failure("cuptiActivityConfigureUnifiedMemoryCounter", result);
    result = cuptiActivityRegisterCallbacks(unified_buffer_requested, unified_buffer_completed);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiActivityRegisterCallbacks", result);
    unified.open = 1;
    return PROF_OK;
}

/* Every record of work before this point is delivered and forgotten, so the sums hold only what
 * the caller launches next. Collection is on only between begin and end: outside, the driver
 * handles faults without reporting them (the timed launches run as they would untraced). */
prof_status prof_unified_begin(void)
{
    if (!unified.open) {
        prof_set_error("prof_unified_begin: call prof_unified_open first");
        return PROF_ERR_BAD_STATE;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        prof_set_error("cudaDeviceSynchronize before the unified-memory counters failed");
        return PROF_ERR_CUPTI;
    }
    CUptiResult result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)", result);
    result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiActivityFlushAll", result);
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
        prof_set_error("prof_unified_end: call prof_unified_open first");
        return PROF_ERR_BAD_STATE;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        prof_set_error("cudaDeviceSynchronize after the unified-memory counters' launch failed");
        return PROF_ERR_CUPTI;
    }
    CUptiResult result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    CUptiResult disabled = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (result != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiActivityFlushAll", result);
    if (disabled != CUPTI_SUCCESS)
        return prof_cupti_failure("cuptiActivityDisable(UNIFIED_MEMORY_COUNTER)", disabled);
    pthread_mutex_lock(&unified.lock);
    uint64_t dropped = unified.dropped;
    for (int c = 1; c < PROF_UM_COUNTERS; c++)
        values[c] = (double)unified.sum[c];
    pthread_mutex_unlock(&unified.lock);
    values[PROF_UM_NONE] = 0;
    if (dropped > 0) {
        for (int c = 0; c < PROF_UM_COUNTERS; c++)
            values[c] = NAN;
        prof_set_error("CUPTI dropped %llu unified-memory records (its buffers were full)",
                       (unsigned long long)dropped);
        return PROF_ERR_DROPPED_RANGES;
    }
    return PROF_OK;
}
