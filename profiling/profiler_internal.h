/* profiler_internal.h: what the profiling layer's files share and its users do not see: the
 * last error and the reading of a CUPTI failure (profiler_status.c), and the host object
 * (profiler_host.c) that both prof_validate_metrics and a session's collection build their
 * config images with. */
#ifndef MEMLAB_PROFILER_INTERNAL_H
#define MEMLAB_PROFILER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_result.h>
/* cupti_profiler_host.h has `#include <string>` (a C++ header) although the rest of it is C. We
 * compile with -Iprofiling/compat, where an empty file named "string" satisfies that include. */
#include <cupti_profiler_host.h>

#include "profiler.h"

enum { ERROR_SIZE = 512 };

/* ---- status and errors (profiler_status.c) ------------------------------------------------ */

/* Sets the line prof_last_error returns. */
void prof_set_error(const char *format, ...);
const char *prof_cupti_result_string(CUptiResult result);
/* Records why a CUPTI call failed and classifies the failure. */
prof_status prof_cupti_failure(const char *call, CUptiResult result);
/* For cleanup after a failure: records the call's failure only when status is PROF_OK. */
prof_status prof_cleanup_failure(const char *call, CUptiResult result, prof_status status);
/* A test hook (PROF_TEST_FAULT): the CUPTI failure to pretend, or CUPTI_SUCCESS. */
CUptiResult prof_injected_fault(void);

/* ---- the host object (profiler_host.c) ----------------------------------------------------- */

/* counter_availability NULL: validation without a GPU. */
prof_status prof_host_create(const char *chip_name, const uint8_t *counter_availability,
                             CUpti_Profiler_Host_Object **host);
prof_status prof_host_destroy(CUpti_Profiler_Host_Object *host, prof_status status);
/* On PROF_ERR_UNKNOWN_METRIC, *bad_index (if not NULL) is the first rejected name. */
prof_status prof_host_add_metrics(CUpti_Profiler_Host_Object *host, const char *chip_name,
                                  const char *const *names, size_t count, size_t *bad_index);
/* The config image: allocated here, freed by the caller. */
prof_status prof_host_config_image(CUpti_Profiler_Host_Object *host, uint8_t **image,
                                   size_t *image_size);
prof_status prof_host_count_passes(uint8_t *image, size_t image_size, size_t *num_passes);
/* 1 if names holds count names (at least one), none of them NULL. */
int prof_names_are_present(const char *const *names, size_t count);

#endif
