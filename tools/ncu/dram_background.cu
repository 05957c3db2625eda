// What DRAM traffic a launch sees that it does not cause (tools/ncu/dram_background.sh runs it).
//
// dram__bytes_read.sum and dram__bytes_write.sum count every byte the GPU's memory controllers
// move while a kernel runs, whoever asks for it. spin_without_memory asks for none: one thread
// counts clock cycles and never loads or stores (the store below runs only for a negative
// count, which main never passes). Whatever the counters show for it is the launch's own floor
// (its code and constant bank, fetched after the L2 flush) plus what other agents of the GPU
// read and write in the same window. Running it for 0 to 20 million cycles shows how that
// second part grows with the kernel's time.
//
// Build: nvcc -O2 -arch=sm_90 -o dram_background dram_background.cu (CUDA 13.0)
#include <stdio.h>
#include <stdlib.h>

__global__ void spin_without_memory(long long cycles, int *never_written)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (cycles < 0)
        *never_written = 1;
}

static int check(cudaError_t status, const char *call)
{
    if (status != cudaSuccess) {
        fprintf(stderr, "dram_background: %s failed: %s\n", call, cudaGetErrorString(status));
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    static const long long cycles[] = {0, 20000, 200000, 2000000, 20000000};
    int rounds = argc == 2 ? atoi(argv[1]) : 0;
    if (argc != 2 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: dram_background ROUNDS (1 to 1000): each round launches the "
                        "spin kernel for 0, 2e4, 2e5, 2e6 and 2e7 cycles\n");
        return 2;
    }
    int *never_written = NULL;
    if (!check(cudaMalloc(&never_written, sizeof(int)), "cudaMalloc"))
        return 1;
    for (int round = 0; round < rounds; round++) {
        for (size_t c = 0; c < sizeof cycles / sizeof cycles[0]; c++) {
            spin_without_memory<<<1, 1>>>(cycles[c], never_written);
            if (!check(cudaGetLastError(), "the spin launch") ||
                !check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"))
                return 1;
        }
    }
    return check(cudaFree(never_written), "cudaFree") ? 0 : 1;
}
