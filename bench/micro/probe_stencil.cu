/*
 * probe_stencil: stand-alone one-step kernels for the 7-point 3D and 4-point 2D stencils on the
 * library's array layout (a halo of one cell, no row padding), to measure which kernel designs
 * reach the copy roofline on one GPU. Not part of the library; see bench/RESULTS.md.
 *
 *   nvcc -O3 -arch=sm_90 -o probe bench/micro/probe_stencil.cu && ./probe [N3] [N2]
 *
 * Arithmetic: the contract's order (row-major points, no contraction, division by 6 or 4 where
 * named "div", multiplication by the reciprocal otherwise) so that the instruction mix is honest.
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "probe_ck.h"

template <typename T, bool DIV> __device__ __forceinline__ T fin(T s, T d)
{
    return DIV ? s / d : s * (T(1) / d);
}

/* 3D copy of the interior, z walk (the access pattern alone). */
template <typename T>
__global__ void copy3(const T *__restrict__ in, T *__restrict__ out, int n, long ps, int rs, int zc)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1,
        y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    int z0 = blockIdx.z * zc + 1, z1 = min(z0 + zc, n + 1);
    if (x > n || y > n) return;
    long c = (long)z0 * ps + (long)y * rs + x;
    for (int z = z0; z < z1; z++, c += ps) out[c] = in[c];
}

/* One thread per cell, 7 loads through L1. */
template <typename T, bool DIV>
__global__ void naive3(const T *__restrict__ in, T *__restrict__ out, int n, long ps, int rs)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1,
        y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    int z = blockIdx.z + 1;
    if (x > n || y > n) return;
    long c = (long)z * ps + (long)y * rs + x;
    T s = __ldg(in + c - ps);
    s = s + __ldg(in + c - rs);
    s = s + __ldg(in + c - 1);
    s = s + __ldg(in + c + 1);
    s = s + __ldg(in + c + rs);
    s = s + __ldg(in + c + ps);
    out[c] = fin<T, DIV>(s, T(6));
}

/* z walk: z neighbours in registers, x-y neighbours through L1 (__ldg). NY rows per thread. */
template <typename T, bool DIV, int NY>
__global__ void zwalk3(const T *__restrict__ in, T *__restrict__ out, int n, long ps, int rs,
                       int zc)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * NY + 1;
    int z0 = blockIdx.z * zc + 1, z1 = min(z0 + zc, n + 1);
    if (x > n || y0 > n) return;
    long c = (long)z0 * ps + (long)y0 * rs + x;
    T lo[NY], mid[NY], hi[NY];
#pragma unroll
    for (int j = 0; j < NY; j++)
        lo[j] = __ldg(in + c - ps + j * rs), mid[j] = __ldg(in + c + j * rs);
    for (int z = z0; z < z1; z++, c += ps) {
#pragma unroll
        for (int j = 0; j < NY; j++) hi[j] = __ldg(in + c + ps + j * rs);
        T up = __ldg(in + c - rs), dn = __ldg(in + c + NY * rs);
#pragma unroll
        for (int j = 0; j < NY; j++) {
            if (y0 + j > n) break;
            T s = lo[j];
            s = s + (j ? mid[j - 1] : up);
            s = s + __ldg(in + c + j * rs - 1);
            s = s + __ldg(in + c + j * rs + 1);
            s = s + (j + 1 < NY ? mid[j + 1] : dn);
            s = s + hi[j];
            out[c + j * rs] = fin<T, DIV>(s, T(6));
        }
#pragma unroll
        for (int j = 0; j < NY; j++) lo[j] = mid[j], mid[j] = hi[j];
    }
}

/* 2D: one thread per cell. */
template <typename T, bool DIV>
__global__ void naive2(const T *__restrict__ in, T *__restrict__ out, int n, int rs)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1,
        y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (x > n || y > n) return;
    long c = (long)y * rs + x;
    T s = __ldg(in + c - rs);
    s = s + __ldg(in + c - 1);
    s = s + __ldg(in + c + 1);
    s = s + __ldg(in + c + rs);
    out[c] = fin<T, DIV>(s, T(4));
}

/* 2D y walk: y neighbours in registers, x neighbours through L1. */
template <typename T, bool DIV>
__global__ void ywalk2(const T *__restrict__ in, T *__restrict__ out, int n, int rs, int yc)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * yc + 1, y1 = min(y0 + yc, n + 1);
    if (x > n || y0 > n) return;
    long c = (long)y0 * rs + x;
    T a = __ldg(in + c - rs), b = __ldg(in + c);
    for (int y = y0; y < y1; y++, c += rs) {
        T d = __ldg(in + c + rs);
        T s = a;
        s = s + __ldg(in + c - 1);
        s = s + __ldg(in + c + 1);
        s = s + d;
        out[c] = fin<T, DIV>(s, T(4));
        a = b, b = d;
    }
}

static float timeit(void (*launch)(void *, void *, void *), void *ctx, void *a, void *b, int it)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    launch(ctx, a, b);
    launch(ctx, b, a);
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    for (int i = 0; i < it; i++) launch(ctx, i & 1 ? b : a, i & 1 ? a : b);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaGetLastError());
    return ms;
}

struct ctx3 {
    int kind, bx, by, ny, zc, n;
    long ps;
    int rs;
    bool dbl, div;
};

template <typename T, bool DIV> static void go3(ctx3 *c, const T *a, T *b)
{
    dim3 blk(c->bx, c->by);
    int n = c->n;
    if (c->kind == 0) {
        dim3 g((n + c->bx - 1) / c->bx, (n + c->by - 1) / c->by, (n + c->zc - 1) / c->zc);
        copy3<T><<<g, blk>>>(a, b, n, c->ps, c->rs, c->zc);
    } else if (c->kind == 1) {
        dim3 g((n + c->bx - 1) / c->bx, (n + c->by - 1) / c->by, n);
        naive3<T, DIV><<<g, blk>>>(a, b, n, c->ps, c->rs);
    } else {
        int rows = c->by * c->ny;
        dim3 g((n + c->bx - 1) / c->bx, (n + rows - 1) / rows, (n + c->zc - 1) / c->zc);
        switch (c->ny) {
        case 1:
            zwalk3<T, DIV, 1><<<g, blk>>>(a, b, n, c->ps, c->rs, c->zc);
            break;
        case 2:
            zwalk3<T, DIV, 2><<<g, blk>>>(a, b, n, c->ps, c->rs, c->zc);
            break;
        case 4:
            zwalk3<T, DIV, 4><<<g, blk>>>(a, b, n, c->ps, c->rs, c->zc);
            break;
        default:
            zwalk3<T, DIV, 8><<<g, blk>>>(a, b, n, c->ps, c->rs, c->zc);
            break;
        }
    }
}

static void launch3(void *vc, void *a, void *b)
{
    ctx3 *c = (ctx3 *)vc;
    if (c->dbl)
        c->div ? go3<double, true>(c, (double *)a, (double *)b)
               : go3<double, false>(c, (double *)a, (double *)b);
    else
        c->div ? go3<float, true>(c, (float *)a, (float *)b)
               : go3<float, false>(c, (float *)a, (float *)b);
}

template <typename T, bool DIV> static void go2(ctx3 *c, const T *a, T *b)
{
    dim3 blk(c->bx, c->by);
    int n = c->n;
    if (c->kind == 1) {
        dim3 g((n + c->bx - 1) / c->bx, (n + c->by - 1) / c->by);
        naive2<T, DIV><<<g, blk>>>(a, b, n, c->rs);
    } else {
        int rows = c->by * c->zc;
        dim3 g((n + c->bx - 1) / c->bx, (n + rows - 1) / rows);
        ywalk2<T, DIV><<<g, blk>>>(a, b, n, c->rs, c->zc);
    }
}

static void launch2(void *vc, void *a, void *b)
{
    ctx3 *c = (ctx3 *)vc;
    if (c->dbl)
        c->div ? go2<double, true>(c, (double *)a, (double *)b)
               : go2<double, false>(c, (double *)a, (double *)b);
    else
        c->div ? go2<float, true>(c, (float *)a, (float *)b)
               : go2<float, false>(c, (float *)a, (float *)b);
}

int main(int argc, char **argv)
{
    int n3 = argc > 1 ? atoi(argv[1]) : 1024, n2 = argc > 2 ? atoi(argv[2]) : 20480;
    size_t b3 = (size_t)(n3 + 2) * (n3 + 2) * (n3 + 2) * 8, b2 = (size_t)(n2 + 2) * (n2 + 2) * 8;
    size_t bytes = b3 > b2 ? b3 : b2;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 0, bytes));
    CK(cudaMemset(b, 0, bytes));
    const int it = 20;
    { /* the copy roofline of one fp32 3D array */
        size_t cb = (size_t)(n3 + 2) * (n3 + 2) * (n3 + 2) * 4;
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaMemcpy(b, a, cb, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e0));
        for (int i = 0; i < it; i++) CK(cudaMemcpyAsync(b, a, cb, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        printf("{\"probe\":\"memcpy3\",\"GBs\":%.1f,\"Gcells\":%.1f}\n", 2.0 * cb * it / ms / 1e6,
               (double)(n3 + 2) * (n3 + 2) * (n3 + 2) * it / ms / 1e6);
    }
    /* kind bx by ny zc dbl div */
    static const int v3[][7] = {
        {0, 32, 8, 1, 64, 0, 0},  {0, 128, 2, 1, 64, 0, 0}, {0, 256, 1, 1, 64, 0, 0},
        {1, 32, 8, 1, 0, 0, 0},   {1, 64, 4, 1, 0, 0, 0},   {1, 128, 2, 1, 0, 0, 0},
        {1, 256, 1, 1, 0, 0, 0},  {1, 32, 8, 1, 0, 0, 1},   {2, 32, 8, 1, 64, 0, 0},
        {2, 32, 8, 1, 128, 0, 0}, {2, 64, 4, 1, 64, 0, 0},  {2, 128, 2, 1, 64, 0, 0},
        {2, 256, 1, 1, 64, 0, 0}, {2, 128, 1, 1, 64, 0, 0}, {2, 32, 4, 2, 64, 0, 0},
        {2, 32, 8, 2, 64, 0, 0},  {2, 64, 4, 2, 64, 0, 0},  {2, 128, 2, 2, 64, 0, 0},
        {2, 32, 8, 4, 64, 0, 0},  {2, 64, 2, 4, 64, 0, 0},  {2, 128, 1, 4, 64, 0, 0},
        {2, 128, 2, 4, 64, 0, 0}, {2, 32, 4, 8, 64, 0, 0},  {2, 128, 1, 8, 64, 0, 0},
        {2, 32, 8, 4, 64, 0, 1},  {2, 64, 4, 2, 64, 0, 1},  {2, 128, 2, 2, 64, 0, 1},
        {2, 64, 4, 2, 32, 0, 0},  {2, 64, 4, 2, 256, 0, 0}, {2, 128, 1, 4, 32, 0, 0},
        {1, 32, 8, 1, 0, 1, 1},   {2, 32, 8, 2, 64, 1, 1},  {2, 64, 4, 2, 64, 1, 1},
        {2, 128, 2, 2, 64, 1, 1}, {2, 32, 8, 4, 64, 1, 1},
    };
    for (auto &v : v3) {
        int n = v[5] ? (n3 * 3) / 4 : n3;
        ctx3 c = {v[0],  v[1],      v[2],     v[3], v[4], n, (long)(n + 2) * (n + 2),
                  n + 2, v[5] != 0, v[6] != 0};
        float ms = timeit(launch3, &c, a, b, it);
        printf("{\"probe\":\"3d7\",\"kind\":\"%s\",\"n\":%d,\"type\":\"%s\",\"div\":%d,\"bx\":%d,"
               "\"by\":%d,\"ny\":%d,\"zc\":%d,\"Gcells\":%.1f}\n",
               v[0] == 0   ? "copy"
               : v[0] == 1 ? "naive"
                           : "zwalk",
               n, v[5] ? "double" : "float", v[6], v[1], v[2], v[3], v[4],
               (double)n * n * n * it / ms / 1e6);
    }
    static const int v2[][6] = {
        {1, 32, 8, 0, 0, 0},   {1, 128, 2, 0, 0, 0}, {1, 256, 1, 0, 0, 0},  {1, 32, 8, 0, 0, 1},
        {2, 32, 8, 16, 0, 0},  {2, 32, 8, 64, 0, 0}, {2, 128, 2, 32, 0, 0}, {2, 256, 1, 32, 0, 0},
        {2, 128, 1, 64, 0, 0}, {2, 64, 4, 32, 0, 1}, {2, 128, 2, 32, 0, 1}, {2, 256, 1, 64, 0, 1},
        {1, 32, 8, 0, 1, 1},   {1, 128, 2, 0, 1, 1}, {2, 128, 2, 32, 1, 1}, {2, 256, 1, 64, 1, 1},
        {2, 64, 4, 16, 1, 1},
    };
    for (auto &v : v2) {
        int n = v[4] ? n2 / 1 : n2;
        ctx3 c = {v[0], v[1], v[2], 1, v[3], n, 0, n + 2, v[4] != 0, v[5] != 0};
        float ms = timeit(launch2, &c, a, b, it);
        printf("{\"probe\":\"2d4\",\"kind\":\"%s\",\"n\":%d,\"type\":\"%s\",\"div\":%d,\"bx\":%d,"
               "\"by\":%d,\"yc\":%d,\"Gcells\":%.1f}\n",
               v[0] == 1 ? "naive" : "ywalk", n, v[4] ? "double" : "float", v[5], v[1], v[2], v[3],
               (double)n * n * it / ms / 1e6);
    }
    return 0;
}
