/* What the stand-alone probes of bench/micro share: CK(call) stops at a failed CUDA call;
   probe_fill writes their bench data. */
#ifndef PROBE_CK_H
#define PROBE_CK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__);                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Bench data: no zero sums, so that every quotient takes the split path as in a real run. */
__global__ void probe_fill(float *a, long n)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x)
        a[i] = 1.0f + (float)(i % 1021) * 0x1p-12f;
}

#endif
