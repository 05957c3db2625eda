/* host_link.c: the link between a device and the host's memory, from NVML (ml_host_link in
 * memlab.h). NVML is loaded at run time, so the programs start on machines without the driver. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "memlab.h"

/* GB/s one lane carries each way, after the line encoding, by PCIe generation: 2.5 and 5 GT/s
 * with 8b/10b; 8, 16 and 32 GT/s with 128b/130b; 64 GT/s in 256-byte flits of 242 data bytes. */
static double pcie_lane_gbps(unsigned generation)
{
    switch (generation) {
    case 1: return 2.5 * 8.0 / 10.0 / 8.0;
    case 2: return 5.0 * 8.0 / 10.0 / 8.0;
    case 3: return 8.0 * 128.0 / 130.0 / 8.0;
    case 4: return 16.0 * 128.0 / 130.0 / 8.0;
    case 5: return 32.0 * 128.0 / 130.0 / 8.0;
    case 6: return 64.0 * 242.0 / 256.0 / 8.0;
    default: return 0;
    }
}

/* NVLink-C2C, Grace Hopper's chip-to-chip link: 900 GB/s both ways together, as published. */
#define NVLINK_C2C_GBPS_EACH_WAY 450.0

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(const char *bus_id, void **device);
typedef int (*nvml_unsigned_fn)(void *device, unsigned *value);
typedef int (*nvml_shutdown_fn)(void);

/* The current device's link, looked up once: into gbps (0 when unknown) and name ("" then). */
static void look_up_link(double *gbps, char *name, size_t size)
{
    *gbps = 0;
    name[0] = '\0';
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        return;
    int native_atomics = 0, host_page_tables = 0;
    if (cudaDeviceGetAttribute(&native_atomics, cudaDevAttrHostNativeAtomicSupported, device) ==
            cudaSuccess &&
        cudaDeviceGetAttribute(&host_page_tables,
                               cudaDevAttrPageableMemoryAccessUsesHostPageTables, device) ==
            cudaSuccess &&
        native_atomics && host_page_tables) {
        *gbps = NVLINK_C2C_GBPS_EACH_WAY;
        snprintf(name, size, "NVLink-C2C");
        return;
    }
    char bus_id[32];
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess)
        return;
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml == NULL)
        return;
    nvml_init_fn init = (nvml_init_fn)dlsym(nvml, "nvmlInit_v2");
    nvml_handle_fn handle_of = (nvml_handle_fn)dlsym(nvml, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_unsigned_fn generation_of =
        (nvml_unsigned_fn)dlsym(nvml, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvml_unsigned_fn width_of = (nvml_unsigned_fn)dlsym(nvml, "nvmlDeviceGetMaxPcieLinkWidth");
    nvml_shutdown_fn shutdown = (nvml_shutdown_fn)dlsym(nvml, "nvmlShutdown");
    void *handle = NULL;
    unsigned generation = 0, width = 0;
    if (init != NULL && handle_of != NULL && generation_of != NULL && width_of != NULL &&
        shutdown != NULL && init() == 0) {
        /* NVML's return value 0 is NVML_SUCCESS. */
        if (handle_of(bus_id, &handle) == 0 && generation_of(handle, &generation) == 0 &&
            width_of(handle, &width) == 0 && pcie_lane_gbps(generation) > 0) {
            *gbps = pcie_lane_gbps(generation) * width;
            snprintf(name, size, "PCIe %u.0 x%u", generation, width);
        }
        shutdown();
    }
    dlclose(nvml);
}

double ml_host_link(char *name, size_t size)
{
    /* NVML's start costs every run that would ask: only a lab that asks pays, and once. */
    static int looked_up = 0;
    static double link_gbps;
    static char link_name[64];
    if (!looked_up) {
        look_up_link(&link_gbps, link_name, sizeof link_name);
        looked_up = 1;
    }
    snprintf(name, size, "%s", link_name);
    return link_gbps;
}
