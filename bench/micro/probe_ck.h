/* What the stand-alone probes of bench/micro share: CK(call) stops at a failed CUDA call. */
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

#endif
