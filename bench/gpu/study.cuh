/* What the standalone GPU studies (fused.cu, stream.cu) share: not library code. */
#ifndef BENCH_GPU_STUDY_CUH
#define BENCH_GPU_STUDY_CUH

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

/* A study stops at the first failing CUDA call, naming it. */
#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A neighbour at (dy, dx) of a cell in a row-major array of leading dimension ld. */
struct Acc {
    const float *p;
    int ld;
    __device__ float operator()(int dy, int dx) const
    {
        return p[dy * ld + dx];
    }
};

#endif
