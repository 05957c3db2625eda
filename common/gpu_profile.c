/* gpu_profile.c: reading a GPU profile (see gpu_profile.h). */
#include "gpu_profile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define MAX_PROFILE_BYTES (64 * 1024)   /* a profile is a few KB: anything larger is not one */

static int fail(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
    return -1;
}

/* The whole file, NUL-terminated, in a buffer the caller frees; NULL with a reason in error. */
static char *read_text(const char *path, char *error, size_t error_size)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        fail(error, error_size, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = malloc(MAX_PROFILE_BYTES + 1);
    size_t length = text != NULL ? fread(text, 1, MAX_PROFILE_BYTES + 1, file) : 0;
    int read_failed = ferror(file);
    fclose(file);
    if (text == NULL || read_failed || length > MAX_PROFILE_BYTES) {
        fail(error, error_size, "%s: %s", path,
             text == NULL ? "out of memory" : read_failed ? "cannot be read"
                                                          : "larger than a profile (64 KiB)");
        free(text);
        return NULL;
    }
    text[length] = '\0';
    return text;
}

/* A string member, or NULL with the reason in error. */
static const char *string_member(const cJSON *root, const char *key, const char *path, char *error,
                                 size_t error_size)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsString(item) || item->valuestring[0] == '\0') {
        fail(error, error_size, "%s: \"%s\" %s", path, key,
             item == NULL ? "is missing" : "must be a string that is not empty");
        return NULL;
    }
    return item->valuestring;
}

/* A figure: {"value": V, "how": "..."} with V a finite number in [low, high] (and whole when
 * whole is 1). Returns 0, 1 when it is optional and absent (value untouched), or -1. */
static int figure(const cJSON *root, const char *key, int optional, double low, double high,
                  int whole, double *value, const char *path, char *error, size_t error_size)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (item == NULL && optional)
        return 1;
    if (item == NULL)
        return fail(error, error_size, "%s: \"%s\" is missing", path, key);
    const cJSON *number = cJSON_GetObjectItemCaseSensitive(item, "value");
    const cJSON *how = cJSON_GetObjectItemCaseSensitive(item, "how");
    if (!cJSON_IsObject(item) || !cJSON_IsNumber(number) || !cJSON_IsString(how) ||
        how->valuestring[0] == '\0')
        return fail(error, error_size, "%s: \"%s\" must be {\"value\": NUMBER, \"how\": \"how it "
                                       "was measured\"}", path, key);
    double v = number->valuedouble;
    if (!isfinite(v) || v < low || v > high || (whole && v != floor(v)))
        return fail(error, error_size, "%s: \"%s\" is %.10g: it must be a %s in [%.10g, %.10g]",
                    path, key, v, whole ? "whole number" : "number", low, high);
    *value = v;
    return 0;
}

/* A range: {"low": L, "high": H, ...more numbers..., "how": "..."}, 0 <= L <= H <= high; the
 * optional third number `extra` (NULL: none) in [0, high]. Returns 0, 1 when absent, or -1. */
static int range(const cJSON *root, const char *key, double high, double *low_value,
                 double *high_value, const char *extra, double *extra_value, const char *path,
                 char *error, size_t error_size)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (item == NULL)
        return 1;
    const cJSON *low_item = cJSON_GetObjectItemCaseSensitive(item, "low");
    const cJSON *high_item = cJSON_GetObjectItemCaseSensitive(item, "high");
    const cJSON *extra_item = extra != NULL ? cJSON_GetObjectItemCaseSensitive(item, extra) : NULL;
    const cJSON *how = cJSON_GetObjectItemCaseSensitive(item, "how");
    if (!cJSON_IsObject(item) || !cJSON_IsNumber(low_item) || !cJSON_IsNumber(high_item) ||
        (extra != NULL && !cJSON_IsNumber(extra_item)) || !cJSON_IsString(how) ||
        how->valuestring[0] == '\0')
        return fail(error, error_size, "%s: \"%s\" must be {\"low\": NUMBER, \"high\": NUMBER,%s "
                                       "\"how\": \"how it was measured\"}", path, key,
                    extra != NULL ? " \"page\": NUMBER," : "");
    double l = low_item->valuedouble, h = high_item->valuedouble;
    if (!isfinite(l) || !isfinite(h) || l < 0 || l > h || h > high)
        return fail(error, error_size, "%s: \"%s\" is %g to %g: it must hold 0 <= low <= high <= "
                                       "%g", path, key, l, h, high);
    if (extra != NULL) {
        double e = extra_item->valuedouble;
        if (!isfinite(e) || e < 0 || e > high)
            return fail(error, error_size, "%s: \"%s\" has %s %g: it must be in [0, %g]", path,
                        key, extra, e, high);
        *extra_value = e;
    }
    *low_value = l;
    *high_value = h;
    return 0;
}

/* The stem of path's file name ("profiles/nvidia-h200.json" -> "nvidia-h200"). */
static void file_stem(const char *path, char *stem, size_t size)
{
    const char *slash = strrchr(path, '/');
    snprintf(stem, size, "%s", slash != NULL ? slash + 1 : path);
    char *dot = strrchr(stem, '.');
    if (dot != NULL && dot != stem)
        *dot = '\0';
}

/* Checks root's figures and puts them in profile. */
static int read_figures(const cJSON *root, const char *path, ml_gpu_profile *profile, char *error,
                        size_t error_size)
{
    ml_gpu_facts *facts = &profile->facts;
    double sm_count = 0, threads = 0, fill = 0, fill_high = 0, unused = 0;
    if (figure(root, "sm_count", 0, 1, 1024, 1, &sm_count, path, error, error_size) < 0 ||
        figure(root, "threads_per_sm", 0, 32, 4096, 1, &threads, path, error, error_size) < 0 ||
        figure(root, "l1_bytes", 0, 1 * KIB, 4 * MIB, 1, &facts->l1_bytes, path, error,
               error_size) < 0 ||
        figure(root, "l2_bytes", 0, 64 * KIB, 4096 * MIB, 1, &facts->l2_bytes, path, error,
               error_size) < 0 ||
        figure(root, "dram_fill_bytes", 0, 32, 128, 1, &fill, path, error, error_size) < 0)
        return -1;
    fill_high = fill;
    if (figure(root, "dram_fill_high_bytes", 1, fill, 128, 1, &fill_high, path, error,
               error_size) < 0)
        return -1;
    if ((int)threads % 32 != 0)
        return fail(error, error_size, "%s: \"threads_per_sm\" is %g: it must be whole warps (a "
                                       "multiple of 32)", path, threads);
    if ((int)fill % 32 != 0 || (int)fill_high % 32 != 0)
        return fail(error, error_size, "%s: a DRAM fill is whole 32-byte sectors (32, 64, 96 or "
                                       "128 bytes), got %g", path,
                    (int)fill % 32 != 0 ? fill : fill_high);
    if (facts->l1_bytes >= facts->l2_bytes)
        return fail(error, error_size, "%s: \"l1_bytes\" (%.10g) must be less than "
                                       "\"l2_bytes\" (%.10g)", path, facts->l1_bytes,
                    facts->l2_bytes);
    /* Read by people (and checked here, so that a broken one is said): not used by the model. */
    if (figure(root, "l2_near_bytes", 1, 0, facts->l2_bytes, 1, &unused, path, error,
               error_size) < 0 ||
        figure(root, "l2_fetch_granularity", 1, 0, 128, 1, &unused, path, error, error_size) < 0 ||
        figure(root, "host_link_gbps", 1, 0, 1e5, 0, &unused, path, error, error_size) < 0 ||
        figure(root, "managed_migration_bytes", 1, 0, 1024 * MIB, 1, &unused, path, error,
               error_size) < 0)
        return -1;
    facts->sm_count = (int)sm_count;
    facts->threads_per_sm = (int)threads;
    facts->dram_fill_bytes = (unsigned)fill;
    facts->dram_fill_high_bytes = (unsigned)fill_high;

    /* Not measured by calibrate: a profile without them states them as a GPU the table does not
     * know (gpu_facts.c: a floor of 0 to 4 KiB, the dirty L2 not measured). */
    facts->dram_floor_low_bytes = 0;
    facts->dram_floor_high_bytes = 4 * KIB;
    facts->dram_floor_page_bytes = 128;
    int floor = range(root, "dram_floor_bytes", 1 * MIB, &facts->dram_floor_low_bytes,
                      &facts->dram_floor_high_bytes, "page", &facts->dram_floor_page_bytes, path,
                      error, error_size);
    int dirty = floor < 0 ? -1 : range(root, "l2_dirty_bytes", facts->l2_bytes,
                                       &facts->l2_dirty_low_bytes, &facts->l2_dirty_high_bytes,
                                       NULL, NULL, path, error, error_size);
    int traffic = dirty < 0 ? -1 : range(root, "l2_traffic_share", 2,
                                         &facts->l2_traffic_low_share,
                                         &facts->l2_traffic_high_share, NULL, NULL, path, error,
                                         error_size);
    if (traffic < 0)
        return -1;
    profile->launch_figures_measured = floor == 0 || dirty == 0;
    return 0;
}

int ml_gpu_profile_read(const char *path, const char *device_name, ml_gpu_profile *profile,
                        char *error, size_t error_size)
{
    memset(profile, 0, sizeof *profile);
    char *text = read_text(path, error, error_size);
    if (text == NULL)
        return -1;
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return fail(error, error_size, "%s is not a memlab GPU profile: not a JSON object "
                                       "(./memlab calibrate writes one)", path);
    }
    int status = -1;
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "memlab_gpu_profile");
    const char *name = NULL, *device = NULL, *capability = NULL, *driver = NULL, *cuda = NULL;
    int major = 0, minor = 0;
    char end = 0;
    if (!cJSON_IsNumber(format) || format->valuedouble != ML_GPU_PROFILE_FORMAT) {
        fail(error, error_size, "%s is not a memlab GPU profile of format %d: \"memlab_gpu_profile"
                                "\": %d is missing (./memlab calibrate writes one)", path,
             ML_GPU_PROFILE_FORMAT, ML_GPU_PROFILE_FORMAT);
    } else if ((device = string_member(root, "device_name", path, error, error_size)) == NULL ||
               (capability = string_member(root, "compute_capability", path, error,
                                           error_size)) == NULL ||
               (driver = string_member(root, "driver_version", path, error, error_size)) ==
                   NULL ||
               (cuda = string_member(root, "cuda_version", path, error, error_size)) == NULL) {
        /* string_member said which */
    } else if (sscanf(capability, "%d.%d%c", &major, &minor, &end) != 2 || major < 1 ||
               minor < 0) {
        fail(error, error_size, "%s: \"compute_capability\" is '%s': it must be MAJOR.MINOR, "
                                "e.g. 9.0", path, capability);
    } else if (device_name != NULL && strcmp(device, device_name) != 0) {
        fail(error, error_size, "%s is a profile of the %s, not of this GPU (%s): calibrate this "
                                "one (./memlab calibrate)", path, device, device_name);
    } else if (read_figures(root, path, profile, error, error_size) == 0) {
        const cJSON *name_item = cJSON_GetObjectItemCaseSensitive(root, "name");
        name = cJSON_IsString(name_item) ? name_item->valuestring : NULL;
        if (name != NULL && name[0] != '\0')
            snprintf(profile->name, sizeof profile->name, "%s", name);
        else
            file_stem(path, profile->name, sizeof profile->name);
        snprintf(profile->device_name, sizeof profile->device_name, "%s", device);
        const cJSON *date = cJSON_GetObjectItemCaseSensitive(root, "date");
        const cJSON *writer = cJSON_GetObjectItemCaseSensitive(root, "written_by");
        snprintf(profile->source, sizeof profile->source,
                 "profile %s (the %s, driver %s, CUDA %s; written by %s%s%s)", path, device,
                 driver, cuda, cJSON_IsString(writer) ? writer->valuestring : "an unnamed tool",
                 cJSON_IsString(date) ? " on " : "",
                 cJSON_IsString(date) ? date->valuestring : "");
        profile->facts.name = profile->name;
        profile->facts.device_name = profile->device_name;
        profile->facts.source = profile->source;
        profile->facts.origin = ML_FACTS_PROFILE;
        profile->facts.compute_major = major;
        profile->facts.compute_minor = minor;
        status = 0;
    }
    cJSON_Delete(root);
    return status;
}

const ml_gpu_facts *ml_gpu_profile_load(const char *path, char *error, size_t error_size)
{
    static ml_gpu_profile loaded;
    if (ml_gpu_profile_read(path, NULL, &loaded, error, error_size) != 0)
        return NULL;
    return &loaded.facts;
}

void ml_gpu_profile_file_name(const char *device_name, char *name, size_t size)
{
    size_t length = 0;
    int gap = 0;
    for (const char *c = device_name; *c != '\0' && length + 6 < size; c++) {
        if (isalnum((unsigned char)*c)) {
            if (gap && length > 0)
                name[length++] = '-';
            name[length++] = (char)tolower((unsigned char)*c);
            gap = 0;
        } else {
            gap = 1;
        }
    }
    snprintf(name + length, size - length, ".json");
}

int ml_gpu_profile_folders(char folders[][1024], int capacity)
{
    int count = 0;
#ifdef MEMLAB_PROFILE_DIR
    /* The build folder's profiles/, where ./memlab calibrate writes (CMakeLists.txt sets it). */
    if (count < capacity)
        snprintf(folders[count++], 1024, "%s", MEMLAB_PROFILE_DIR);
#endif
    const char *config = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (count < capacity && config != NULL && config[0] == '/')
        snprintf(folders[count++], 1024, "%s/memlab", config);
    else if (count < capacity && home != NULL && home[0] != '\0')
        snprintf(folders[count++], 1024, "%s/.config/memlab", home);
    return count;
}

int ml_gpu_profile_find(const char *device_name, ml_gpu_profile *profile, char *error,
                        size_t error_size)
{
    /* ./memlab calibrate's own runs, and a census without profiles, set it. */
    const char *setting = getenv("MEMLAB_GPU_PROFILES");
    if (setting != NULL && strcmp(setting, "off") == 0)
        return 0;
    char folders[2][1024], file_name[300], path[2048];
    int count = ml_gpu_profile_folders(folders, 2);
    ml_gpu_profile_file_name(device_name, file_name, sizeof file_name);
    for (int i = 0; i < count; i++) {
        if (snprintf(path, sizeof path, "%s/%s", folders[i], file_name) >= (int)sizeof path)
            continue;   /* a folder name longer than a path: no profile there */
        FILE *file = fopen(path, "rb");
        if (file == NULL)
            continue;
        fclose(file);
        return ml_gpu_profile_read(path, device_name, profile, error, error_size) == 0 ? 1 : -1;
    }
    return 0;
}
