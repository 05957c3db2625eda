/* profiler.h: hardware counters through the CUPTI Range Profiler (CUDA 13).
 *
 * A standalone layer: it knows nothing of memlab's harness and has its own status type, so it
 * can be reused elsewhere. Two halves:
 *
 *   host half (no GPU needed): metric names, nvprof-style aliases, validation of names against
 *   a chip name such as "GH100", pass counts. Unit-tested on machines without a GPU.
 *
 *   target half: a session on one device. The shape a lab sees is
 *
 *       prof_begin(session, names, count);       configure, start the first pass
 *       int another_pass = 1;
 *       while (another_pass) {
 *           my_kernel<<<...>>>(...);              exactly one kernel launch per pass
 *           prof_next_pass(session, &another_pass);
 *       }
 *       prof_end(session, values);               decode, evaluate one value per name
 *
 *   Auto range + user replay: the metrics may need several passes (counters that cannot be
 *   read together, instrumented SASS metrics), and the caller launches the kernel once in each,
 *   so the kernel must give the same work every time it is launched (no in-place updates).
 *   When prof_validate_metrics says one pass, prof_begin, one launch, prof_end is enough. An
 *   optional prelude (prof_set_prelude) runs one kernel of its own at the start of every pass.
 *
 * Every function returns a prof_status; prof_last_error() gives a one-line explanation of the
 * most recent failure (which call, what CUPTI said, and for the environment cases, the fix).
 */
#ifndef MEMLAB_PROFILER_H
#define MEMLAB_PROFILER_H

#include <stddef.h>

typedef enum {
    PROF_OK = 0,
    PROF_ERR_NO_DEVICE,             /* no CUDA device or driver */
    PROF_ERR_UNSUPPORTED_DEVICE,    /* CUPTI's range profiler does not support this device/setup */
    PROF_ERR_PRIVILEGES,            /* CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (ERR_NVGPUCTRPERM) */
    PROF_ERR_OTHER_SUBSCRIBER,      /* another CUPTI client (ncu, nsys, cuda-gdb) holds the device */
    PROF_ERR_UNKNOWN_METRIC,        /* a name that is neither an alias nor a metric of the chip */
    PROF_ERR_BAD_STATE,             /* API misuse: begin twice, end without begin, open twice */
    PROF_ERR_DROPPED_RANGES,        /* CUPTI dropped ranges, or the launch made != 1 range */
    PROF_ERR_NAN,                   /* a value evaluated to NaN (metric not configured) */
    PROF_ERR_CUPTI,                 /* any other CUPTI or CUDA driver failure */
} prof_status;

/* Which failures mean "this environment cannot collect counters": callers degrade to timing. */
int prof_status_is_environmental(prof_status status);
const char *prof_status_name(prof_status status);
const char *prof_last_error(void);

/* ---- metric aliases (host half) ------------------------------------------------------------ */

/* A metric as the course material names it. A plain metric maps to one Perfworks name; a derived
 * one is numerator / denominator (both Perfworks names) times scale. */
typedef struct {
    const char *alias;          /* memlab's name, e.g. "gld_efficiency" */
    const char *legacy_names;   /* other nvprof names accepted, comma-separated, or "" */
    const char *perfworks;      /* Perfworks name, or NULL for a derived metric */
    const char *numerator;      /* derived only */
    const char *denominator;    /* derived only */
    double scale;               /* derived only (1.0 usually) */
    const char *unit;           /* "%", "sectors", "bytes", "wavefronts", ... */
    const char *group;          /* metric set it belongs to: "global", "shared", "local", "dram", "occupancy",
                                   ... "unified" (read through the activity API, not Perfworks) */
    const char *meaning;        /* one line: what it counts, and how it differs from nvprof's */
    /* A unified-memory counter (prof_unified_counter) for the "unified" group, whose perfworks,
     * numerator and denominator are NULL; PROF_UM_NONE for a Perfworks metric. */
    int unified;
} prof_metric;

size_t prof_metric_count(void);
const prof_metric *prof_metric_at(size_t index);

/* Looks up an alias, a legacy nvprof name, or a Perfworks name in the table (NULL if absent).
 * A Perfworks name that is not in the table is still valid if the chip knows it: see
 * prof_validate_metrics. */
const prof_metric *prof_metric_find(const char *name);

/* The Perfworks names a metric needs collected (1 for plain, 2 for derived, 0 for a
 * unified-memory counter). Returns the count. */
size_t prof_metric_inputs(const prof_metric *metric, const char *inputs[2]);

/* The full name used to key a metric in reports, comparable with Nsight Compute: the Perfworks
 * name, or "numerator / denominator" for a derived metric; for a unified-memory counter,
 * "unified_memory:" and what it sums of CUPTI's records (comparable with Nsight Systems' unified
 * memory rows). Written into buffer. */
void prof_metric_full_name(const prof_metric *metric, char *buffer, size_t size);

/* Validates Perfworks names against a chip ("GH100", "AD102", ...) with the Profiler Host API,
 * no GPU needed. On PROF_ERR_UNKNOWN_METRIC, *bad_index is the first rejected name. On success,
 * *num_passes (if not NULL) is the number of replay passes the set needs. */
prof_status prof_validate_metrics(const char *chip_name, const char *const *perfworks_names,
                                  size_t count, size_t *bad_index, size_t *num_passes);

/* ---- target half --------------------------------------------------------------------------- */

typedef struct prof_session prof_session;

/* Opens a session on a CUDA device (runtime device index; its primary context is used, and the
 * device becomes the calling thread's current device). Checks support, privileges and other
 * subscribers up front. Only one session may be open per process: a second open returns
 * PROF_ERR_BAD_STATE (enabling the range profiler twice on a context succeeds and crashes
 * later). */
prof_status prof_open(int device, prof_session **session);

/* A prelude launches exactly one kernel of its own, after collection has started and before the
 * profiled kernel: its range is collected and discarded. Starting a collection dirties the L2
 * (cuptiRangeProfilerStart does), so a prelude that sweeps the L2 with reads is how DRAM counters
 * see only the profiled kernel's own traffic. NULL removes it. */
typedef void (*prof_prelude)(void *argument);
prof_status prof_set_prelude(prof_session *session, prof_prelude prelude, void *argument);

/* The chip name of the open session's device, e.g. "GH100". */
const char *prof_chip_name(const prof_session *session);

/* Configures the Perfworks names to collect and starts the first pass. Exactly one kernel must
 * be launched in each pass. */
prof_status prof_begin(prof_session *session, const char *const *perfworks_names, size_t count);

/* Ends the pass just launched. *another_pass = 1: the next pass has started, launch the kernel
 * again; 0: every pass has run, call prof_end. On failure the collection is over (no prof_end). */
prof_status prof_next_pass(prof_session *session, int *another_pass);

/* Ends the last pass if it is still running, decodes and evaluates: values[i] for
 * perfworks_names[i] of prof_begin. Fails when passes are missing, on dropped ranges, a range
 * count other than one kernel per pass, and NaN values; a value that could not be read is NaN. */
prof_status prof_end(prof_session *session, double *values);

void prof_close(prof_session *session);

/* ---- unified-memory counters (activity API) ------------------------------------------------ */

/* What the driver reports of managed memory while collection is on: CUPTI's unified-memory
 * counter records (CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER), summed. A record of a transfer
 * is one migration of a range of pages; its value is the range's bytes. A CPU fault is one
 * record (its value is the faulting instruction's address); a GPU fault record's value is the
 * number of fault groups for its page. These need no Perfworks session and no permission beyond
 * the GPU's, but the driver must report them (not under WSL or in some containers). */
typedef enum {
    PROF_UM_NONE = 0,
    PROF_UM_HTOD_BYTES,         /* bytes migrated host to device */
    PROF_UM_DTOH_BYTES,         /* bytes migrated device to host */
    PROF_UM_HTOD_MIGRATIONS,    /* migrations host to device (records) */
    PROF_UM_DTOH_MIGRATIONS,    /* migrations device to host (records) */
    PROF_UM_CPU_FAULTS,         /* CPU page faults on managed memory (records) */
    PROF_UM_GPU_FAULT_GROUPS,   /* GPU page fault groups (the records' values) */
    PROF_UM_COUNTERS            /* how many; values[] of prof_unified_end is this long */
} prof_unified_counter;

/* Configures and registers the counters for the device (runtime index). Once per process; the
 * environment cases (not supported here) are environmental statuses. */
prof_status prof_unified_open(int device);
/* Starts collecting from zero. The caller then launches the work, and calls prof_unified_end,
 * which waits for the device, flushes the records and stops: values[c] for each counter c
 * (values[PROF_UM_NONE] is 0). Records CUPTI dropped (its buffers full) fail the collection. */
prof_status prof_unified_begin(void);
prof_status prof_unified_end(double values[PROF_UM_COUNTERS]);

#endif
