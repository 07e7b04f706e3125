/*
 * probe_vec: one-step kernels shaped like the fastest copy of bench/micro/probe_copy.cu (one
 * 16-byte vector per thread and row, blocks that live briefly and are issued in memory order),
 * for 2d4, 2d9 and 3d7 fp32, walking W rows (2D) or planes (3D) with the walk-direction
 * neighbours in registers, the x neighbours by warp shuffles (edge lanes load them), the other
 * neighbours through L1/L2. Not part of the library: it measures how much of the copy rate such
 * kernels keep (bench/RESULTS.md).
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -o probe_vec bench/micro/probe_vec.cu && ./probe_vec
 *
 * Arithmetic: the contract's order (row-major points, no contraction, a correctly rounded
 * division by the divisor; 2d4 multiplies by 0.25, which is exact), checked bitwise against the
 * CPU on small grids. Layout: interior from column 4 (16-byte aligned), rows padded to 32.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "probe_ck.h"

enum { X0 = 4 }; /* first interior column */

struct G {
    int nx, ny, nz; /* interior; 2D: nz = 1, the walk runs along y */
    long rs, ps;    /* row and plane strides in floats */
};

__device__ __forceinline__ float add(float a, float b)
{
    return __fadd_rn(a, b);
}

/* The x neighbours of a row's vector v: l = cell x0 - 1, r = cell x0 + 4. */
__device__ __forceinline__ void xnb(const float *row, float4 v, int x0, int lane, int last,
                                    float &l, float &r)
{
    l = __shfl_up_sync(0xffffffffu, v.w, 1);
    r = __shfl_down_sync(0xffffffffu, v.x, 1);
    if (lane == 0) l = row[x0 - 1];
    if (lane == 31 || last) r = row[x0 + 4];
}

/* 2D, P = 4 or 9 points. Block: BS threads across x (BS vectors), W rows. */
template <int P>
__global__ void vec2(const float *__restrict__ in, float *__restrict__ out, G g, int W)
{
    int xv = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int nv = g.nx / 4, act = xv < nv, last = xv == nv - 1;
    int x0 = X0 + 4 * (act ? xv : nv - 1);
    int y0 = 1 + blockIdx.y * W, y1 = min(y0 + W, g.ny + 1);
    const float *p = in + (long)(y0 - 1) * g.rs + x0;
    float4 a = *(const float4 *)p, b = *(const float4 *)(p + g.rs);
    float al = 0, ar = 0, bl = 0, br = 0;
    if (P == 9) xnb(p - x0, a, x0, lane, last, al, ar);
    if (P == 9) xnb(p + g.rs - x0, b, x0, lane, last, bl, br);
    for (int y = y0; y < y1; y++) {
        const float *q = in + (long)(y + 1) * g.rs;
        float4 c = *(const float4 *)(q + x0);
        float cl = 0, cr = 0;
        if (P == 9) xnb(q, c, x0, lane, last, cl, cr);
        if (P == 4) xnb(q - g.rs, b, x0, lane, last, bl, br); /* only the middle row's */
        float A[6] = {al, a.x, a.y, a.z, a.w, ar}, B[6] = {bl, b.x, b.y, b.z, b.w, br},
              C[6] = {cl, c.x, c.y, c.z, c.w, cr}, o[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            float s;
            if (P == 4) {
                s = add(add(add(A[k + 1], B[k]), B[k + 2]), C[k + 1]);
                o[k] = s * 0.25f;
            } else {
                s = A[k];
                s = add(s, A[k + 1]);
                s = add(s, A[k + 2]);
                s = add(s, B[k]);
                s = add(s, B[k + 1]);
                s = add(s, B[k + 2]);
                s = add(s, C[k]);
                s = add(s, C[k + 1]);
                s = add(s, C[k + 2]);
                o[k] = __fdiv_rn(s, 9.0f);
            }
        }
        if (act) *(float4 *)(out + (long)y * g.rs + x0) = make_float4(o[0], o[1], o[2], o[3]);
        a = b, al = bl, ar = br;
        b = c, bl = cl, br = cr;
    }
}

/* 3D 7-point: block BS vectors of one row (y), walking W planes (z). */
__global__ void vec3(const float *__restrict__ in, float *__restrict__ out, G g, int W)
{
    int xv = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int nv = g.nx / 4, act = xv < nv, last = xv == nv - 1;
    int x0 = X0 + 4 * (act ? xv : nv - 1), y = 1 + blockIdx.y;
    int z0 = 1 + blockIdx.z * W, z1 = min(z0 + W, g.nz + 1);
    const float *p = in + (long)(z0 - 1) * g.ps + (long)y * g.rs + x0;
    float4 a = *(const float4 *)p, b = *(const float4 *)(p + g.ps);
    for (int z = z0; z < z1; z++) {
        const float *q = in + (long)z * g.ps + (long)y * g.rs;
        float4 c = *(const float4 *)(q + g.ps + x0);
        float4 u = *(const float4 *)(q - g.rs + x0), d = *(const float4 *)(q + g.rs + x0);
        float bl, br;
        xnb(q, b, x0, lane, last, bl, br);
        float A[4] = {a.x, a.y, a.z, a.w}, U[4] = {u.x, u.y, u.z, u.w},
              B[6] = {bl, b.x, b.y, b.z, b.w, br}, D[4] = {d.x, d.y, d.z, d.w},
              C[4] = {c.x, c.y, c.z, c.w}, o[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            float s = A[k];
            s = add(s, U[k]);
            s = add(s, B[k]);
            s = add(s, B[k + 2]);
            s = add(s, D[k]);
            s = add(s, C[k]);
            o[k] = __fdiv_rn(s, 6.0f);
        }
        if (act)
            *(float4 *)(out + (long)z * g.ps + (long)y * g.rs + x0) =
                make_float4(o[0], o[1], o[2], o[3]);
        a = b, b = c;
    }
}

static G mk(int nx, int ny, int nz)
{
    G g = {nx, ny, nz, 0, 0};
    g.rs = ((X0 + nx + 1) + 31) / 32 * 32;
    g.ps = g.rs * (ny + 2);
    return g;
}

static long total(const G &g, int nd)
{
    return nd == 3 ? g.ps * (g.nz + 2) : g.rs * (g.ny + 2);
}

static void launch(int kind, const float *a, float *b, const G &g, int bs, int W)
{
    int gx = (g.nx / 4 + bs - 1) / bs;
    if (kind == 4) vec2<4><<<dim3(gx, (g.ny + W - 1) / W), bs>>>(a, b, g, W);
    if (kind == 9) vec2<9><<<dim3(gx, (g.ny + W - 1) / W), bs>>>(a, b, g, W);
    if (kind == 7) vec3<<<dim3(gx, g.ny, (g.nz + W - 1) / W), bs>>>(a, b, g, W);
}

/* The CPU's step in the contract's order. */
static void ref(int kind, const std::vector<float> &a, std::vector<float> &b, const G &g)
{
    for (int z = 1; z <= (kind == 7 ? g.nz : 1); z++)
        for (int y = 1; y <= g.ny; y++)
            for (int x = X0; x < X0 + g.nx; x++) {
                long c = (kind == 7 ? z * g.ps : 0) + y * g.rs + x;
                volatile float s;
                if (kind == 4) {
                    s = a[c - g.rs];
                    s = s + a[c - 1];
                    s = s + a[c + 1];
                    s = s + a[c + g.rs];
                    b[c] = s * 0.25f;
                } else if (kind == 9) {
                    s = a[c - g.rs - 1];
                    for (int k = 1; k < 9; k++) s = s + a[c + (k / 3 - 1) * g.rs + k % 3 - 1];
                    b[c] = s / 9.0f;
                } else {
                    s = a[c - g.ps];
                    s = s + a[c - g.rs];
                    s = s + a[c - 1];
                    s = s + a[c + 1];
                    s = s + a[c + g.rs];
                    s = s + a[c + g.ps];
                    b[c] = s / 6.0f;
                }
            }
}

static int check(int kind, int nx, int ny, int nz, int bs, int W)
{
    int nd = kind == 7 ? 3 : 2;
    G g = mk(nx, ny, nd == 3 ? nz : 1);
    long n = total(g, nd);
    std::vector<float> h(n), r(n, 0.f), d(n);
    srand(7);
    for (long i = 0; i < n; i++) h[i] = (float)rand() / RAND_MAX - 0.3f;
    float *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(b, 0, n * 4));
    launch(kind, a, b, g, bs, W);
    CK(cudaMemcpy(d.data(), b, n * 4, cudaMemcpyDeviceToHost));
    ref(kind, h, r, g);
    long bad = 0;
    for (long i = 0; i < n; i++) bad += memcmp(&d[i], &r[i], 4) != 0;
    CK(cudaFree(a));
    CK(cudaFree(b));
    printf("{\"probe\": \"vec-check\", \"kind\": %d, \"grid\": [%d, %d, %d], \"block\": %d, "
           "\"W\": %d, \"cells_differing\": %ld}\n",
           kind, nx, ny, nz, bs, W, bad);
    return bad != 0;
}

static void bench(int kind, int N, int reps)
{
    int nd = kind == 7 ? 3 : 2;
    G g = mk(N, N, nd == 3 ? N : 1);
    long n = total(g, nd);
    double cells = (double)N * N * (nd == 3 ? N : 1);
    float *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMemset(a, 0, n * 4));
    CK(cudaMemset(b, 0, n * 4));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int bs : {128, 256, 512, 1024})
        for (int W : {1, 2, 3, 4, 5, 6, 8, 16, 64}) {
            for (int k = 0; k < 2; k++) launch(kind, a, b, g, bs, W);
            CK(cudaEventRecord(e0));
            for (int k = 0; k < reps; k++) launch(kind, k & 1 ? b : a, k & 1 ? a : b, g, bs, W);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            printf("{\"probe\": \"vec\", \"stencil\": \"%s\", \"n\": %d, \"block\": %d, \"W\": %d, "
                   "\"gcells\": %.1f}\n",
                   kind == 4   ? "2d4"
                   : kind == 9 ? "2d9"
                               : "3d7",
                   N, bs, W, cells * reps / (ms * 1e-3) / 1e9);
            fflush(stdout);
        }
    CK(cudaFree(a));
    CK(cudaFree(b));
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    int bad = 0;
    for (int kind : {4, 9, 7})
        for (int bs : {64, 256})
            for (int W : {1, 3, 16})
                bad += check(kind, kind == 7 ? 1020 : 4092, kind == 7 ? 37 : 301, 45, bs, W);
    bad += check(4, 200, 301, 1, 64, 5);
    bad += check(7, 44, 37, 45, 64, 4);
    printf("# checks: %d differing\n", bad);
    if (!strcmp(which, "all") || !strcmp(which, "2d4")) bench(4, 20480, 20);
    if (!strcmp(which, "all") || !strcmp(which, "2d9")) bench(9, 20480, 20);
    if (!strcmp(which, "all") || !strcmp(which, "3d7")) bench(7, 1024, 10);
    return bad != 0;
}
