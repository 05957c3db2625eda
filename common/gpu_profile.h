/* gpu_profile.h: a GPU's facts as `./memlab calibrate` measured them, in a JSON file (a
 * "profile"), so that the model predicts right on a GPU that memlab's table does not know.
 *
 * Where each fact of a run on a GPU comes from (ml_gpu_facts_of_device, gpu_facts.h), first
 * found first:
 *   1. a profile of the device, by its name: the build folder's profiles/ (where ./memlab
 *      calibrate writes; CMake names it, a Makefile.labs build has none), then
 *      $XDG_CONFIG_HOME/memlab/ (~/.config/memlab/ without it), in the file that
 *      ml_gpu_profile_file_name names; MEMLAB_GPU_PROFILES=off looks for none;
 *   2. memlab's table (gpu_facts.c), unless MEMLAB_GPU_TABLE=off;
 *   3. the defaults: a 32-byte fill, 128 KiB of L1, 2048 threads per SM, the DRAM floor and the
 *      dirty L2 not measured.
 * `--model --gpu-profile FILE` predicts for the GPU a profile describes.
 *
 * A profile (format 1), each figure with how it was measured:
 *   {"memlab_gpu_profile": 1, "name": "h200", "device_name": "NVIDIA H200",
 *    "compute_capability": "9.0", "driver_version": "580.95", "cuda_version": "13.0",
 *    "written_by": "./memlab calibrate", "date": "2026-11-28T14:00:00Z", "seconds": 41.2,
 *    "sm_count": {"value": 132, "how": "..."}, "threads_per_sm": {...}, "l1_bytes": {...},
 *    "l2_bytes": {...}, "dram_fill_bytes": {...},
 *    optional: "dram_fill_high_bytes": {...}, "l2_near_bytes": {...},
 *    "l2_fetch_granularity": {...}, "host_link_gbps": {...}, "managed_migration_bytes": {...},
 *    "dram_floor_bytes": {"low": L, "high": H, "page": P, "how": "..."},
 *    "l2_dirty_bytes": {"low": L, "high": H, "how": "..."},
 *    "l2_traffic_share": {"low": L, "high": H, "how": "..."}}
 * "name" is optional (the file name's stem otherwise); "date", "seconds" and "written_by" are
 * read by people only.
 */
#ifndef MEMLAB_GPU_PROFILE_H
#define MEMLAB_GPU_PROFILE_H

#include <stddef.h>

#include "gpu_facts.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ML_GPU_PROFILE_FORMAT 1

/* A profile read: its facts, whose strings point into the arrays beside them (so a profile is
 * read in place, never copied). */
typedef struct {
    ml_gpu_facts facts;
    int launch_figures_measured;    /* 1: it holds dram_floor_bytes or l2_dirty_bytes */
    char name[64];
    char device_name[256];
    char source[1024];
} ml_gpu_profile;

/* Reads and checks the profile at path. device_name, when not NULL, is the name the profile must
 * carry (the device that runs). Returns 0, or -1 with one line in error (no newline): the file
 * cannot be read, is not JSON, lacks a field, holds a figure out of range, or names another GPU. */
int ml_gpu_profile_read(const char *path, const char *device_name, ml_gpu_profile *profile,
                        char *error, size_t error_size);

/* Reads the profile of --gpu-profile FILE into storage of this file's own (one a process) and
 * returns its facts, or NULL with one line in error. */
const ml_gpu_facts *ml_gpu_profile_load(const char *path, char *error, size_t error_size);

/* The file name of a device's profile: its name in lower case, each run of other characters
 * than letters and digits one '-', and ".json" ("NVIDIA H200" -> "nvidia-h200.json"). */
void ml_gpu_profile_file_name(const char *device_name, char *name, size_t size);

/* The folders searched for a device's profile, in order (see above): returns how many were put
 * in folders[], each of folder_size bytes. */
int ml_gpu_profile_folders(char folders[][1024], int capacity);

/* Finds and reads the profile of device_name in the folders above. Returns 1 with the profile
 * read, 0 when none is there (or MEMLAB_GPU_PROFILES=off: calibrate's own runs, which must not
 * lean on an earlier profile), -1 when one is there but cannot be used (one line in error). */
int ml_gpu_profile_find(const char *device_name, ml_gpu_profile *profile, char *error,
                        size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
