/*
 * Reference points for the GPU benchmark, measured in the same process as the library:
 *  - the device-to-device copy bandwidth (the ceiling: bytes read + bytes written per second);
 *  - a hand-written naive kernel, one thread per cell in 32x8 (2D) or 32x4x2 (3D) blocks, the
 *    baseline the library's generic kernel has to beat;
 *  - a device-side random fill, so large benchmarks do not wait for the host.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

template <typename T> __global__ void k_fill(T *p, size_t n, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ULL ^ seed;
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        p[i] = (T)((double)(x >> 11) / 9007199254740992.0);
    }
}

extern "C" int bench_fill(void *p, size_t n, int dbl, unsigned long long seed)
{
    if (dbl)
        k_fill<double><<<4096, 256>>>((double *)p, n, seed);
    else
        k_fill<float><<<4096, 256>>>((float *)p, n, seed);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return 0;
}

/* Median-free but long: one large copy, repeated, timed with events. Returns GB/s (r + w). */
extern "C" double bench_copy_bw(size_t bytes, int reps)
{
    void *a, *b;
    cudaEvent_t e0, e1;
    float ms = 0;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    bench_fill(a, bytes / 4, 0, 1);
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
    CK(cudaEventRecord(e0));
    for (int r = 0; r < reps; r++)
        CK(cudaMemcpyAsync(r & 1 ? a : b, r & 1 ? b : a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    cudaFree(a);
    cudaFree(b);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * (double)bytes * reps / (ms * 1e-3) / 1e9;
}

template <typename T> __global__ void naive_2d4(const T *in, T *out, long n0, long n1)
{
    long j = blockIdx.x * (long)blockDim.x + threadIdx.x,
         i = blockIdx.y * (long)blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= n0 - 1 || j >= n1 - 1) return;
    long c = i * n1 + j;
    out[c] = (in[c - n1] + in[c - 1] + in[c + 1] + in[c + n1]) / T(4);
}

__global__ void naive_3d7(const float *in, float *out, long n0, long n1, long n2)
{
    long k = blockIdx.x * (long)blockDim.x + threadIdx.x,
         j = blockIdx.y * (long)blockDim.y + threadIdx.y,
         i = blockIdx.z * (long)blockDim.z + threadIdx.z;
    if (i < 1 || j < 1 || k < 1 || i >= n0 - 1 || j >= n1 - 1 || k >= n2 - 1) return;
    long s0 = n1 * n2, c = i * s0 + j * n2 + k;
    out[c] = (in[c - s0] + in[c - n2] + in[c - 1] + in[c + 1] + in[c + n2] + in[c + s0]) / 6.0f;
}

/*
 * `iters` Jacobi steps of the naive kernel on an n0 x n1 (x n2) grid, interior cells only.
 * which: 0 = 2d4 float, 1 = 2d4 double, 2 = 3d7 float. Returns Gcells/s, or < 0 on error.
 */
extern "C" double bench_naive(int which, long n0, long n1, long n2, int iters)
{
    size_t es = which == 1 ? 8 : 4, n = (size_t)n0 * n1 * (which == 2 ? n2 : 1);
    void *a, *b;
    cudaEvent_t e0, e1;
    float ms = 0;
    CK(cudaMalloc(&a, n * es));
    CK(cudaMalloc(&b, n * es));
    bench_fill(a, n, which == 1, 2);
    bench_fill(b, n, which == 1, 2);
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    dim3 b2(32, 8), g2((unsigned)((n1 + 31) / 32), (unsigned)((n0 + 7) / 8));
    dim3 b3(32, 4, 2),
        g3((unsigned)((n2 + 31) / 32), (unsigned)((n1 + 3) / 4), (unsigned)((n0 + 1) / 2));
    for (int t = -2; t < iters; t++) { /* two warm-up steps */
        if (t == 0) CK(cudaEventRecord(e0));
        void *i = t & 1 ? b : a, *o = t & 1 ? a : b;
        if (which == 0)
            naive_2d4<float><<<g2, b2>>>((const float *)i, (float *)o, n0, n1);
        else if (which == 1)
            naive_2d4<double><<<g2, b2>>>((const double *)i, (double *)o, n0, n1);
        else
            naive_3d7<<<g3, b3>>>((const float *)i, (float *)o, n0, n1, n2);
    }
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    cudaFree(a);
    cudaFree(b);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    double cells = (double)(n0 - 2) * (n1 - 2) * (which == 2 ? (double)(n2 - 2) : 1.0);
    return cells * iters / (ms * 1e-3) / 1e9;
}
