/* metrics.c: the metrics the course material names, mapped to Perfworks names.
 *
 * nvprof's metrics (gld_efficiency, shared_load_transactions_per_request, ...) no longer exist on
 * CUDA 13: counters are read through Perfworks, whose names say what unit counts what
 * ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": sectors at L1, from the load/store pipe, for
 * global loads, summed over all units). Each entry below is either plain (one Perfworks name) or
 * derived (numerator / denominator * scale). Every Perfworks name here is checked against GH100
 * and other chips by tests/unit/test_metrics.c through the Profiler Host API.
 */
#include "profiler.h"

#include <stdio.h>
#include <string.h>

static const prof_metric metric_table[] = {
    /* ---- global memory ---- */
    {
        .alias = "gld_efficiency",
        .legacy_names = "global_load_efficiency",
        .perfworks = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
        .unit = "%",
        .group = "global",
        .meaning = "bytes global loads used per 32-byte sector moved, as % of 32 (100 = fully "
                   "coalesced; a byte read by many lanes counts once, so a broadcast is 12.5, "
                   "where nvprof could exceed 100); instrumented, it needs its own pass",
    },
    {
        .alias = "gst_efficiency",
        .legacy_names = "global_store_efficiency",
        .perfworks = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
        .unit = "%",
        .group = "global",
        .meaning = "bytes global stores wrote per 32-byte sector moved, as % of 32 "
                   "(100 = fully coalesced); instrumented, it needs its own pass",
    },
    {
        .alias = "gld_transactions",
        .legacy_names = "",
        .perfworks = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        .unit = "sectors",
        .group = "global",
        .meaning = "32-byte sectors L1 looked up for global loads; nvprof counted 128-byte or "
                   "32-byte transactions depending on the cache level, so older numbers can differ",
    },
    {
        .alias = "gst_transactions",
        .legacy_names = "",
        .perfworks = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        .unit = "sectors",
        .group = "global",
        .meaning = "32-byte sectors L1 passed on for global stores",
    },
    {
        .alias = "gld_requests",
        .legacy_names = "",
        .perfworks = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        .unit = "requests",
        .group = "global",
        .meaning = "global load requests at L1: one per load instruction a warp executes",
    },
    {
        .alias = "gld_bytes",
        .legacy_names = "",
        .perfworks = "smsp__sass_data_bytes_mem_global_op_ld.sum",
        .unit = "bytes",
        .group = "global",
        .meaning = "bytes global load instructions asked for: each active lane's, a byte several "
                   "lanes of one instruction read counted once; instrumented, like gld_efficiency",
    },
    {
        .alias = "gst_requests",
        .legacy_names = "",
        .perfworks = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        .unit = "requests",
        .group = "global",
        .meaning = "global store requests at L1: one per store instruction a warp executes",
    },
    {
        .alias = "gld_transactions_per_request",
        .legacy_names = "",
        .numerator = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        .denominator = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        .scale = 1.0,
        .unit = "sectors/request",
        .group = "global",
        .meaning = "32-byte sectors per warp-wide global load: 4 when 32 threads read "
                   "consecutive floats, 32 when every thread touches a sector of its own",
    },
    {
        .alias = "gst_transactions_per_request",
        .legacy_names = "",
        .numerator = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        .denominator = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        .scale = 1.0,
        .unit = "sectors/request",
        .group = "global",
        .meaning = "32-byte sectors per warp-wide global store: 4 when 32 threads write "
                   "consecutive floats, 32 when every thread touches a sector of its own",
    },

    /* ---- shared memory ---- */
    {
        .alias = "shared_load_transactions",
        .legacy_names = "",
        .perfworks = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        .unit = "wavefronts",
        .group = "shared",
        .meaning = "shared-memory load wavefronts: nvprof's shared transactions are wavefronts "
                   "now, one per pass through the 32 banks that a load needs",
    },
    {
        .alias = "shared_store_transactions",
        .legacy_names = "",
        .perfworks = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        .unit = "wavefronts",
        .group = "shared",
        .meaning = "shared-memory store wavefronts: nvprof's shared transactions are wavefronts "
                   "now, one per pass through the 32 banks that a store needs",
    },
    {
        .alias = "shared_load_instructions",
        .legacy_names = "inst_executed_shared_loads",
        .perfworks = "smsp__inst_executed_op_shared_ld.sum",
        .unit = "instructions",
        .group = "shared",
        .meaning = "warp-level shared-memory load instructions executed (nvprof's requests)",
    },
    {
        .alias = "shared_store_instructions",
        .legacy_names = "inst_executed_shared_stores",
        .perfworks = "smsp__inst_executed_op_shared_st.sum",
        .unit = "instructions",
        .group = "shared",
        .meaning = "warp-level shared-memory store instructions executed (nvprof's requests)",
    },
    {
        .alias = "shared_load_transactions_per_request",
        .legacy_names = "",
        .numerator = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        .denominator = "smsp__inst_executed_op_shared_ld.sum",
        .scale = 1.0,
        .unit = "wavefronts/instruction",
        .group = "shared",
        .meaning = "wavefronts per shared load instruction: 1 without bank conflicts, "
                   "up to 32 when all lanes hit different addresses in one bank",
    },
    {
        .alias = "shared_store_transactions_per_request",
        .legacy_names = "",
        .numerator = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        .denominator = "smsp__inst_executed_op_shared_st.sum",
        .scale = 1.0,
        .unit = "wavefronts/instruction",
        .group = "shared",
        .meaning = "wavefronts per shared store instruction: 1 without bank conflicts, "
                   "up to 32 when all lanes hit different addresses in one bank",
    },
    {
        .alias = "shared_ld_bank_conflict",
        .legacy_names = "",
        .perfworks = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        .unit = "conflicts",
        .group = "shared",
        .meaning = "bank conflicts of shared loads; it also counts a few that padding does not "
                   "remove, so compare conflicts per instruction, not the raw total",
    },
    {
        .alias = "shared_st_bank_conflict",
        .legacy_names = "",
        .perfworks = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        .unit = "conflicts",
        .group = "shared",
        .meaning = "bank conflicts of shared stores; it also counts a few that padding does not "
                   "remove, so compare conflicts per instruction, not the raw total",
    },
    {
        .alias = "shared_ld_conflicts_per_request",
        .legacy_names = "",
        .numerator = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        .denominator = "smsp__inst_executed_op_shared_ld.sum",
        .scale = 1.0,
        .unit = "conflicts/instruction",
        .group = "shared",
        .meaning = "bank conflicts per shared load instruction: about 0 when conflict-free, "
                   "31 when all 32 lanes hit different addresses in one bank",
    },
    {
        .alias = "shared_st_conflicts_per_request",
        .legacy_names = "",
        .numerator = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        .denominator = "smsp__inst_executed_op_shared_st.sum",
        .scale = 1.0,
        .unit = "conflicts/instruction",
        .group = "shared",
        .meaning = "bank conflicts per shared store instruction: about 0 when conflict-free, "
                   "31 when all 32 lanes hit different addresses in one bank",
    },

    /* ---- local memory ---- */
    {
        .alias = "local_load_transactions",
        .legacy_names = "",
        .perfworks = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
        .unit = "sectors",
        .group = "local",
        .meaning = "32-byte sectors L1 looked up for local-memory loads (register spills, "
                   "runtime-indexed arrays); nvprof counted transactions, not sectors",
    },
    {
        .alias = "local_store_transactions",
        .legacy_names = "",
        .perfworks = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        .unit = "sectors",
        .group = "local",
        .meaning = "32-byte sectors L1 passed on for local-memory stores (register spills, "
                   "runtime-indexed arrays); nvprof counted transactions, not sectors",
    },
    {
        .alias = "local_load_requests",
        .legacy_names = "",
        .perfworks = "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
        .unit = "requests",
        .group = "local",
        .meaning = "local-memory load requests at L1: one per load instruction (LDL) a warp "
                   "executes",
    },
    {
        .alias = "local_store_requests",
        .legacy_names = "",
        .perfworks = "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
        .unit = "requests",
        .group = "local",
        .meaning = "local-memory store requests at L1: one per store instruction (STL) a warp "
                   "executes",
    },
    {
        .alias = "local_load_transactions_per_request",
        .legacy_names = "",
        .numerator = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
        .denominator = "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
        .scale = 1.0,
        .unit = "sectors/request",
        .group = "local",
        .meaning = "32-byte sectors per warp-wide local load: 4 when all lanes read the same "
                   "4-byte word of their own (local memory is interleaved by lane), up to 32 "
                   "when they read different words",
    },
    {
        .alias = "local_store_transactions_per_request",
        .legacy_names = "",
        .numerator = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        .denominator = "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
        .scale = 1.0,
        .unit = "sectors/request",
        .group = "local",
        .meaning = "32-byte sectors per warp-wide local store: 4 per 4 bytes each lane stores "
                   "when all lanes store the same word (16 for a 16-byte STL.128)",
    },
    {
        .alias = "local_load_efficiency",
        .legacy_names = "",
        .perfworks = "smsp__sass_average_data_bytes_per_sector_mem_local_op_ld.pct",
        .unit = "%",
        .group = "local",
        .meaning = "bytes local loads used per 32-byte sector moved, as % of 32, the bytes "
                   "counted by the address each thread sees, not by where the interleaved copies "
                   "lie: all lanes reading their own copy of one word give 3.125, though no byte "
                   "is wasted; instrumented, it needs its own pass",
    },
    {
        .alias = "local_store_efficiency",
        .legacy_names = "",
        .perfworks = "smsp__sass_average_data_bytes_per_sector_mem_local_op_st.pct",
        .unit = "%",
        .group = "local",
        .meaning = "bytes local stores wrote per 32-byte sector moved, as % of 32, the bytes "
                   "counted by the address each thread sees, not by where the interleaved copies "
                   "lie (see local_load_efficiency); instrumented, it needs its own pass",
    },

    /* ---- device memory ---- */
    {
        .alias = "dram_read_bytes",
        .legacy_names = "",
        .perfworks = "dram__bytes_read.sum",
        .unit = "bytes",
        .group = "dram",
        .meaning = "bytes read from device memory (DRAM or HBM) into L2; same meaning as nvprof's",
    },
    {
        .alias = "dram_write_bytes",
        .legacy_names = "",
        .perfworks = "dram__bytes_write.sum",
        .unit = "bytes",
        .group = "dram",
        .meaning = "bytes written from L2 to device memory (DRAM or HBM); lines still dirty in L2 "
                   "when the kernel ends may fall outside the range (Nsight Compute's figure "
                   "for a 256 MiB copy on an H200 was 9% under the output size)",
    },

    /* ---- occupancy ---- */
    {
        .alias = "achieved_occupancy",
        .legacy_names = "",
        .perfworks = "sm__warps_active.avg.pct_of_peak_sustained_active",
        .unit = "%",
        .group = "occupancy",
        .meaning = "average active warps per SM as % of the most it can hold, while it was "
                   "active; a percentage 0..100 where nvprof gave a fraction 0..1",
    },

    /* ---- constant memory and read-only loads ----
     * __constant__ data indexed by a register is loaded with LDC through the SM's indexed
     * constant cache (IDC; published microbenchmarks find 2 KB of 64-byte lines on an H100),
     * backed by the GPC's constant cache (GCC, gcc__cache_requests_type_constant*). Constants
     * the compiler addresses directly (c[bank][offset] operands) go through the immediate
     * constant cache (IMC, smsp__imc_requests*) instead. Names found with the Profiler Host API
     * for GH100; nvprof had no constant-cache counters. */
    {
        .alias = "constant_requests",
        .legacy_names = "",
        .perfworks = "idc__requests.sum",
        .unit = "requests",
        .group = "constant",
        .meaning = "requests to the indexed constant cache (IDC) from LDC instructions: one per "
                   "different address (line) a warp reads, so 1 for a broadcast",
    },
    {
        .alias = "constant_hits",
        .legacy_names = "",
        .perfworks = "idc__requests_lookup_hit.sum",
        .unit = "requests",
        .group = "constant",
        .meaning = "IDC requests that found their line in the cache",
    },
    {
        .alias = "constant_hit_rate",
        .legacy_names = "",
        .perfworks = "idc__request_hit_rate.pct",
        .unit = "%",
        .group = "constant",
        .meaning = "IDC requests that hit, as % of all IDC requests",
    },
    {
        .alias = "constant_instructions",
        .legacy_names = "",
        .perfworks = "smsp__inst_executed_op_ldc.sum",
        .unit = "instructions",
        .group = "constant",
        .meaning = "warp-level LDC instructions executed; the compiler also loads kernel "
                   "parameters and launch sizes with LDC, a few per warp",
    },
    {
        .alias = "constant_requests_per_instruction",
        .legacy_names = "",
        .numerator = "idc__requests.sum",
        .denominator = "smsp__inst_executed_op_ldc.sum",
        .scale = 1.0,
        .unit = "requests/instruction",
        .group = "constant",
        .meaning = "IDC requests per LDC: 1 when all lanes of a warp read one word (broadcast), "
                   "N when they read N words in different lines (served one after another)",
    },
    {
        .alias = "constant_replays",
        .legacy_names = "",
        .perfworks = "sm__idc_divergent_instruction_replays.sum",
        .unit = "replays",
        .group = "constant",
        .meaning = "extra IDC passes of LDC instructions whose lanes read different lines "
                   "(misses can add some)",
    },
    {
        .alias = "constant_replays_per_instruction",
        .legacy_names = "",
        .numerator = "sm__idc_divergent_instruction_replays.sum",
        .denominator = "smsp__inst_executed_op_ldc.sum",
        .scale = 1.0,
        .unit = "replays/instruction",
        .group = "constant",
        .meaning = "extra IDC passes per LDC: 0 for a broadcast, N - 1 for N lines",
    },
    {
        .alias = "global_hit_rate",
        .legacy_names = "",
        .perfworks = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
        .unit = "%",
        .group = "global",
        .meaning = "global-load sectors found in L1, as % of those looked up; __ldg loads count "
                   "too: since Volta the read-only path is the same L1",
    },
    {
        .alias = "l2_hit_rate",
        .legacy_names = "l2_tex_read_hit_rate",
        .perfworks = "lts__t_sector_op_read_hit_rate.pct",
        .unit = "%",
        .group = "global",
        .meaning = "sector reads the L2 found it held, as % of its read lookups; it counts more "
                   "lookups than requests (a dependent chase that misses everywhere reads about "
                   "50 on an H200), so compare sectors and DRAM bytes to tell L2 from DRAM",
    },
    {
        .alias = "l2_read_sectors",
        .legacy_names = "",
        .perfworks = "lts__t_sectors_srcunit_tex_op_read.sum",
        .unit = "sectors",
        .group = "global",
        .meaning = "32-byte sectors the SMs' L1s asked the L2 to read: their misses, and loads "
                   "that bypass the L1 (__ldcg)",
    },
    /* ---- atomics ---- */
    {
        .alias = "global_red_instructions",
        .legacy_names = "",
        .perfworks = "smsp__inst_executed_op_global_red.sum",
        .unit = "instructions",
        .group = "atomic",
        .meaning = "global reduction instructions (RED: an atomicAdd whose old value is unused) a "
                   "warp executed, one however many of its lanes take part",
    },
    {
        .alias = "l2_red_requests",
        .legacy_names = "",
        .perfworks = "lts__t_requests_srcunit_tex_op_red.sum",
        .unit = "requests",
        .group = "atomic",
        .meaning = "reduction requests the L2 received from the SMs: where global atomics wait "
                   "for each other",
    },
    {
        .alias = "l2_red_bytes",
        .legacy_names = "",
        .perfworks = "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_red.sum",
        .unit = "bytes",
        .group = "atomic",
        .meaning = "bytes of global reductions L1 sent towards the L2: the operands of the "
                   "lanes that took part",
    },
    {
        .alias = "shuffle_thread_instructions",
        .legacy_names = "",
        .perfworks = "smsp__sass_thread_inst_executed_op_inter_thread_communication_pred_on.sum",
        .unit = "lanes",
        .group = "atomic",
        .meaning = "lanes that executed an instruction exchanging values between the lanes of a "
                   "warp (SHFL, VOTE, MATCH); instrumented, it needs its own pass",
    },
    {
        .alias = "shared_atom_instructions",
        .legacy_names = "",
        .perfworks = "smsp__inst_executed_op_shared_atom.sum",
        .unit = "instructions",
        .group = "atomic",
        .meaning = "shared-memory atomic instructions (ATOMS) a warp executed",
    },
    {
        .alias = "shared_ld_instructions",
        .legacy_names = "",
        .perfworks = "smsp__inst_executed_op_shared_ld.sum",
        .unit = "instructions",
        .group = "shared",
        .meaning = "shared-memory load instructions (LDS) a warp executed",
    },
    {
        .alias = "shared_st_instructions",
        .legacy_names = "",
        .perfworks = "smsp__inst_executed_op_shared_st.sum",
        .unit = "instructions",
        .group = "shared",
        .meaning = "shared-memory store instructions (STS) a warp executed",
    },
    /* ---- unified memory: CUPTI's activity records, not Perfworks counters ---- */
    {
        .alias = "um_htod_bytes",
        .legacy_names = "unified_memory_bytes_htod",
        .unit = "bytes",
        .group = "unified",
        .meaning = "bytes of managed memory the driver migrated host to device during the launch "
                   "(pages a GPU access faulted in, or a prefetch moved); copies and zero-copy "
                   "reads are not migrations",
        .unified = PROF_UM_HTOD_BYTES,
    },
    {
        .alias = "um_dtoh_bytes",
        .legacy_names = "unified_memory_bytes_dtoh",
        .unit = "bytes",
        .group = "unified",
        .meaning = "bytes of managed memory the driver migrated device to host during the launch "
                   "(pages a CPU access faulted back)",
        .unified = PROF_UM_DTOH_BYTES,
    },
    {
        .alias = "um_htod_migrations",
        .legacy_names = "",
        .unit = "migrations",
        .group = "unified",
        .meaning = "host-to-device migrations (one record each, a range of pages): um_htod_bytes "
                   "over this is the size the driver moves at a time",
        .unified = PROF_UM_HTOD_MIGRATIONS,
    },
    {
        .alias = "um_dtoh_migrations",
        .legacy_names = "",
        .unit = "migrations",
        .group = "unified",
        .meaning = "device-to-host migrations (one record each, a range of pages)",
        .unified = PROF_UM_DTOH_MIGRATIONS,
    },
    {
        .alias = "um_cpu_faults",
        .legacy_names = "cpu_page_fault_count",
        .unit = "faults",
        .group = "unified",
        .meaning = "CPU page faults on managed memory the driver reported (one record each)",
        .unified = PROF_UM_CPU_FAULTS,
    },
    {
        .alias = "um_gpu_fault_groups",
        .legacy_names = "gpu_page_fault_groups",
        .unit = "groups",
        .group = "unified",
        .meaning = "GPU page fault groups the driver reported: faults the GPU raised together "
                   "for one page are one group",
        .unified = PROF_UM_GPU_FAULT_GROUPS,
    },
};

size_t prof_metric_count(void)
{
    return sizeof metric_table / sizeof metric_table[0];
}

const prof_metric *prof_metric_at(size_t index)
{
    if (index >= prof_metric_count())
        return NULL;
    return &metric_table[index];
}

/* True if name is one of the comma-separated names in list (whole names only, so
 * "global_load" does not match "global_load_efficiency"). */
static int list_contains(const char *list, const char *name)
{
    size_t name_length = strlen(name);
    const char *start = list;
    while (*start != '\0') {
        const char *comma = strchr(start, ',');
        size_t length = comma != NULL ? (size_t)(comma - start) : strlen(start);
        if (length == name_length && strncmp(start, name, length) == 0)
            return 1;
        if (comma == NULL)
            break;
        start = comma + 1;
    }
    return 0;
}

const prof_metric *prof_metric_find(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return NULL;
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const prof_metric *metric = &metric_table[i];
        if (strcmp(metric->alias, name) == 0 || list_contains(metric->legacy_names, name))
            return metric;
    }
    /* A Perfworks name finds the plain entry that reads it. */
    for (size_t i = 0; i < prof_metric_count(); i++) {
        const prof_metric *metric = &metric_table[i];
        if (metric->perfworks != NULL && strcmp(metric->perfworks, name) == 0)
            return metric;
    }
    return NULL;
}

size_t prof_metric_inputs(const prof_metric *metric, const char *inputs[2])
{
    if (metric == NULL || metric->unified != PROF_UM_NONE)
        return 0;
    if (metric->perfworks != NULL) {
        inputs[0] = metric->perfworks;
        return 1;
    }
    inputs[0] = metric->numerator;
    inputs[1] = metric->denominator;
    return 2;
}

void prof_metric_full_name(const prof_metric *metric, char *buffer, size_t size)
{
    if (buffer == NULL || size == 0)
        return;
    if (metric == NULL)
        buffer[0] = '\0';
    else if (metric->unified != PROF_UM_NONE)
        snprintf(buffer, size, "unified_memory:%s", metric->alias + strlen("um_"));
    else if (metric->perfworks != NULL)
        snprintf(buffer, size, "%s", metric->perfworks);
    else
        snprintf(buffer, size, "%s / %s", metric->numerator, metric->denominator);
}
