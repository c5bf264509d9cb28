// The fp32 FMA peak of an NVIDIA GPU, for scripts/gpu/run.sh (vector.fp32 of the profile).
// Every thread runs CHAINS independent fmaf chains in registers (enough independent work to
// hide the FMA latency at full occupancy), ITERS times; the grid fills every SM with 2048
// threads. An FMA is two FLOPs. Prints shell assignments fp32_min, fp32_median, fp32_max
// (FLOP/s) and fp32_n, like scripts/gpu/calibrate.py.
//
//   nvcc -O3 -arch=native -o fma fma.cu && ./fma
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHAINS 8
#define ITERS 16384

__global__ void fmaLoop(float *out, float a, float b) {
    float x[CHAINS];
#pragma unroll
    for (int k = 0; k < CHAINS; k++) x[k] = threadIdx.x + k;
    for (int i = 0; i < ITERS; i++) {
#pragma unroll
        for (int k = 0; k < CHAINS; k++) x[k] = fmaf(x[k], a, b);
    }
    float s = 0;
#pragma unroll
    for (int k = 0; k < CHAINS; k++) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the chains live
}

static void check(cudaError_t err, const char *what) {
    if (err != cudaSuccess) {
        fprintf(stderr, "fma: %s: %s\n", what, cudaGetErrorString(err));
        exit(1);
    }
}

int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    const int threads = 256;
    const int blocks = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / threads) * 4;
    float *out;
    check(cudaMalloc(&out, sizeof(float) * blocks * threads), "cudaMalloc");
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    // a and b keep x bounded (|a| < 1) so no chain overflows to inf and stops being work.
    const float a = 0.999f, b = 0.001f;
    for (int w = 0; w < 3; w++) fmaLoop<<<blocks, threads>>>(out, a, b);
    check(cudaDeviceSynchronize(), "warm-up");
    const double flop = 2.0 * CHAINS * ITERS * (double)blocks * threads;
    std::vector<double> rates;
    for (int r = 0; r < 10; r++) {
        cudaEventRecord(start);
        fmaLoop<<<blocks, threads>>>(out, a, b);
        cudaEventRecord(stop);
        check(cudaEventSynchronize(stop), "kernel");
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        rates.push_back(flop / (ms / 1e3));
    }
    std::sort(rates.begin(), rates.end());
    printf("fp32_min=%.6g\nfp32_median=%.6g\nfp32_max=%.6g\nfp32_n=%zu\n", rates.front(),
           rates[rates.size() / 2], rates.back(), rates.size());
    cudaFree(out);
    return 0;
}
