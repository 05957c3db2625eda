/* gpu_facts.c: the table of known GPUs (see gpu_facts.h). */
#include "gpu_facts.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* SM counts, threads per SM, L2 sizes and the unified L1 / shared memory per SM are NVIDIA's
 * published figures (whitepapers, datasheets and the CUDA programming guide's table of compute
 * capabilities), and what cudaDeviceProp reports on the parts we ran. The H100's and H200's
 * 64-byte DRAM fill was measured with memlab: the runs are in lab 04's instructor notes, not
 * here, since students measure it themselves. */
static const ml_gpu_facts known_gpus[] = {
    {"h100", "H100", 9, 0, 132, 2048, 50 * MIB, 256 * KIB, 64,
     "H100 SXM5 80GB: 132 SMs and 50 MiB of L2 as cudaDeviceProp reports them; 64-byte DRAM "
     "fills measured with memlab on an H100 (CUDA 13.0)"},
    {"h200", "H200", 9, 0, 132, 2048, 60 * MIB, 256 * KIB, 64,
     "H200 SXM 141GB: 132 SMs and 60 MiB of L2 as cudaDeviceProp reports them; 64-byte DRAM "
     "fills measured with memlab on an H200 (CUDA 13.0)"},
    {"a100", "A100", 8, 0, 108, 2048, 40 * MIB, 192 * KIB, 32,
     "A100 SXM4: 108 SMs and 40 MiB of L2 (NVIDIA A100 whitepaper); DRAM fill not measured: the "
     "32-byte sector assumed"},
    {"l4", "L4", 8, 9, 58, 1536, 48 * MIB, 128 * KIB, 32,
     "L4: 58 SMs and 48 MiB of L2 (NVIDIA L4 datasheet); DRAM fill not measured: the 32-byte "
     "sector assumed"},
    {"t4", "T4", 7, 5, 40, 1024, 4 * MIB, 96 * KIB, 32,
     "T4: 40 SMs and 4 MiB of L2 (NVIDIA Turing whitepaper); DRAM fill not measured: the 32-byte "
     "sector assumed"},
    {"rtx4090", "RTX 4090", 8, 9, 128, 1536, 72 * MIB, 128 * KIB, 32,
     "GeForce RTX 4090: 128 SMs and 72 MiB of L2 (NVIDIA Ada whitepaper); DRAM fill not "
     "measured: the 32-byte sector assumed"},
};
#define KNOWN_GPU_COUNT (int)(sizeof known_gpus / sizeof known_gpus[0])

static const ml_gpu_facts *model_gpu = &known_gpus[0];

/* 1 if word stands in text between spaces (or its ends): "L4" names "NVIDIA L4", not "L40S". */
static int contains_word(const char *text, const char *word)
{
    size_t length = strlen(word);
    for (const char *at = strstr(text, word); at != NULL; at = strstr(at + 1, word)) {
        int starts = at == text || at[-1] == ' ';
        int ends = at[length] == '\0' || at[length] == ' ';
        if (starts && ends)
            return 1;
    }
    return 0;
}

/* 1 if a and b are the same name, upper or lower case alike ("H100" is "h100"). */
static int same_name(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

const ml_gpu_facts *ml_gpu_facts_named(const char *name)
{
    for (int i = 0; i < KNOWN_GPU_COUNT; i++)
        if (same_name(known_gpus[i].name, name))
            return &known_gpus[i];
    return NULL;
}

const ml_gpu_facts *ml_gpu_facts_at(int i)
{
    return i >= 0 && i < KNOWN_GPU_COUNT ? &known_gpus[i] : NULL;
}

ml_gpu_facts ml_gpu_facts_of_device(const char *device_name, int compute_major,
                                    int compute_minor, int sm_count, double l2_bytes)
{
    ml_gpu_facts facts = {"device", device_name, compute_major, compute_minor, sm_count, 2048,
                          l2_bytes, 128 * KIB, 32,
                          "this device: SMs and L2 from the runtime; not in memlab's table: "
                          "2048 threads per SM, 128 KiB of L1 and the 32-byte sector as DRAM "
                          "fill assumed"};
    for (int i = 0; i < KNOWN_GPU_COUNT; i++) {
        if (contains_word(device_name, known_gpus[i].device_name)) {
            facts.threads_per_sm = known_gpus[i].threads_per_sm;
            facts.l1_bytes = known_gpus[i].l1_bytes;
            facts.dram_fill_bytes = known_gpus[i].dram_fill_bytes;
            facts.source = known_gpus[i].source;
            break;
        }
    }
    return facts;
}

void ml_model_gpu_set(const ml_gpu_facts *gpu)
{
    model_gpu = gpu;
}

const ml_gpu_facts *ml_model_gpu(void)
{
    return model_gpu;
}
