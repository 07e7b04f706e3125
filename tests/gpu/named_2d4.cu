/*
 * A hand-written CUDA launcher for the 2d4 stencil in float, registered by the test as a named
 * kernel: checks that the backend hands it the right boxes, strides and stream. Terms in the
 * stencil's row-major order, no contraction (-fmad=false), divisor 4 as an exact multiplication.
 */
#include <cuda_runtime.h>

__global__ void test_2d4_f(const float *in, float *out, long lo0, long lo1, long n0, long n1,
                           long s0)
{
    long j = lo1 + blockIdx.x * (long)blockDim.x + threadIdx.x;
    long i = lo0 + blockIdx.y;
    if (j >= lo1 + n1 || i >= lo0 + n0) return;
    long c = i * s0 + j;
    float acc = 1.0f * in[c - s0];
    acc = acc + 1.0f * in[c - 1];
    acc = acc + 1.0f * in[c + 1];
    acc = acc + 1.0f * in[c + s0];
    out[c] = acc * 0.25f;
}

extern "C" int test_2d4_launch_f(const void *in, void *out, const long *lo, const long *hi,
                                 const long *stride, void *queue)
{
    long n0 = hi[0] - lo[0], n1 = hi[1] - lo[1];
    if (n0 <= 0 || n1 <= 0) return 0;
    dim3 grid((unsigned)((n1 + 127) / 128), (unsigned)n0);
    test_2d4_f<<<grid, 128, 0, (cudaStream_t)queue>>>((const float *)in, (float *)out, lo[0], lo[1],
                                                      n0, n1, stride[0]);
    return cudaGetLastError() != cudaSuccess;
}
