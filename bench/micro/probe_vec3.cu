/*
 * probe_vec3: one-step 3D 7-point kernels of the vector-row shape that made 2D one-step kernels
 * pass the grid-stride copy (bench/micro/probe_vec.cu, kgt/emit_vec.c): each thread owns one
 * 16-byte vector of a row and walks W planes along z with every load of the walk issued before
 * the arithmetic (the walk is unrolled); the z neighbours stay in registers, the x neighbours come
 * by warp shuffles (edge lanes load them). The y neighbours come either
 *   mode 0: as loads of the rows y-1 and y+1 (the block's other rows bring them into L1),
 *   mode 1: the same with the blocks issued z-walk first (consecutive blocks share halo planes),
 *   mode 2: by shuffles from the warp's other rows (a warp is BX vectors by 32/BX rows), the rows
 *           at a warp's edge loading them.
 * Not part of the library: it measures how far this design gets against the library's step kernel
 * (bench/RESULTS.md).
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -o probe_vec3 bench/micro/probe_vec3.cu && ./probe_vec3 1024
 *
 * Arithmetic: the contract's order (row-major points, no contraction, a correctly rounded
 * division by 6), checked bitwise against the CPU on small grids. Layout: interior from column 4
 * (16-byte aligned), rows padded to 32 floats, one halo plane and row.
 */
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "probe_ck.h"

enum { X0 = 4 };

struct G {
    int nx, ny, nz;
    long rs, ps; /* row and plane strides in floats */
};

__device__ __forceinline__ float add(float a, float b)
{
    return __fadd_rn(a, b);
}

/* Split division by 6 as kgt/split.c emits it (checked there for d = 6; checked bitwise here):
   q0 = RN(s rd), q = fma(fma(-6, q0, s), rd, q0) while |s| lies in [2^-63, 2^63]. */
#define SPLIT_LO 0x20000000u
#define SPLIT_HI 0x5f000000u
__device__ __forceinline__ float div_split(float s, unsigned &lo, unsigned &hi)
{
    const float rd = 1.0f / 6.0f;
    const unsigned a = __float_as_uint(s) & 0x7fffffffu;
    const float q0 = __fmul_rn(s, rd);
    lo = a < lo ? a : lo;
    hi = a > hi ? a : hi;
    return __fmaf_rn(__fmaf_rn(-6.0f, q0, s), rd, q0);
}

/* The four cells of a vector: planes a (below) and c (above), rows u and d (y -+ 1), the row b
   with its x neighbours l and r; the contract's order, then split division by 6. */
__device__ __forceinline__ void cells(float4 a, float4 u, float l, float4 b, float r, float4 d,
                                      float4 c, float o[4])
{
    const float A[4] = {a.x, a.y, a.z, a.w}, Uu[4] = {u.x, u.y, u.z, u.w},
                B[6] = {l, b.x, b.y, b.z, b.w, r}, Dd[4] = {d.x, d.y, d.z, d.w},
                C[4] = {c.x, c.y, c.z, c.w};
    float t[4];
    unsigned lo = 0xffffffffu, hi = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        float s = A[j];
        s = add(s, Uu[j]);
        s = add(s, B[j]);
        s = add(s, B[j + 2]);
        s = add(s, Dd[j]);
        s = add(s, C[j]);
        t[j] = s;
        o[j] = div_split(s, lo, hi);
    }
    if (lo < SPLIT_LO || hi > SPLIT_HI)
#pragma unroll
        for (int j = 0; j < 4; j++) o[j] = t[j] / 6.0f;
}

template <int W, int MODE, int MINB>
__global__ void __launch_bounds__(MINB ? 256 : 512, MINB ? MINB : 1)
    k3(const float *__restrict__ in, float *__restrict__ out, G g)
{
    const int BX = blockDim.x, BY = blockDim.y;
    int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
    if (MODE == 1) bz = blockIdx.x, bx = blockIdx.y, by = blockIdx.z;
    const int nv = g.nx / 4, wx = BX < 32 ? BX : 32, R = 32 / wx;
    int xv = bx * BX + threadIdx.x, y = 1 + by * BY + threadIdx.y;
    const int act = xv < nv && y <= g.ny;
    if (xv > nv - 1) xv = nv - 1;
    if (y > g.ny) y = g.ny;
    const int x0 = X0 + 4 * xv, z0 = 1 + bz * W;
    const int eL = threadIdx.x % wx == 0, eR = threadIdx.x % wx == wx - 1 || xv == nv - 1;
    const int eT = threadIdx.y % R == 0, eB = threadIdx.y % R == R - 1 || y == g.ny;
    const float *col = in + (long)y * g.rs + x0;
    float4 P[W + 2], U[W], D[W];
    float L[W], Rr[W];
#pragma unroll
    for (int k = 0; k < W + 2; k++) {
        int z = min(z0 - 1 + k, g.nz + 1);
        P[k] = __ldg((const float4 *)(col + (long)z * g.ps));
    }
#pragma unroll
    for (int k = 0; k < W; k++) {
        int z = min(z0 + k, g.nz + 1);
        const float *c = col + (long)z * g.ps;
        if (MODE == 2) {
            if (eT) U[k] = __ldg((const float4 *)(c - g.rs));
            if (eB) D[k] = __ldg((const float4 *)(c + g.rs));
        } else {
            U[k] = __ldg((const float4 *)(c - g.rs));
            D[k] = __ldg((const float4 *)(c + g.rs));
        }
        if (eL) L[k] = __ldg(c - 1);
        if (eR) Rr[k] = __ldg(c + 4);
    }
#pragma unroll
    for (int k = 0; k < W; k++) {
        const float4 a = P[k], b = P[k + 1], c = P[k + 2];
        float l = __shfl_up_sync(0xffffffffu, b.w, 1), r = __shfl_down_sync(0xffffffffu, b.x, 1);
        if (eL) l = L[k];
        if (eR) r = Rr[k];
        float4 u = U[k], d = D[k];
        if (MODE == 2) {
            float4 su, sd;
            su.x = __shfl_up_sync(0xffffffffu, b.x, wx);
            su.y = __shfl_up_sync(0xffffffffu, b.y, wx);
            su.z = __shfl_up_sync(0xffffffffu, b.z, wx);
            su.w = __shfl_up_sync(0xffffffffu, b.w, wx);
            sd.x = __shfl_down_sync(0xffffffffu, b.x, wx);
            sd.y = __shfl_down_sync(0xffffffffu, b.y, wx);
            sd.z = __shfl_down_sync(0xffffffffu, b.z, wx);
            sd.w = __shfl_down_sync(0xffffffffu, b.w, wx);
            if (!eT) u = su;
            if (!eB) d = sd;
        }
        float o[4];
        cells(a, u, l, b, r, d, c, o);
        if (act && z0 + k <= g.nz)
            *(float4 *)(out + (long)(z0 + k) * g.ps + (long)y * g.rs + x0) =
                make_float4(o[0], o[1], o[2], o[3]);
    }
}

/*
 * The library's form of the same kernel (kgt/emit_vec.c): a loop over W planes (W at run time,
 * not unrolled), the planes rolling through registers, each iteration loading the rows of the
 * plane above (its own row and y +- 1, kept for the next iteration). PF = 1 loads them one
 * iteration earlier (two planes above), so that a load has a whole iteration to arrive.
 */
template <int PF>
__global__ void __launch_bounds__(256)
    k3loop(const float *__restrict__ in, float *__restrict__ out, G g, int W)
{
    const int BX = blockDim.x, BY = blockDim.y;
    const int nv = g.nx / 4;
    int xv = blockIdx.x * BX + threadIdx.x, y = 1 + blockIdx.y * BY + threadIdx.y;
    const int act = xv < nv && y <= g.ny;
    if (xv > nv - 1) xv = nv - 1;
    if (y > g.ny) y = g.ny;
    const int x0 = X0 + 4 * xv, z0 = 1 + blockIdx.z * W, z1 = min(z0 + W, g.nz + 1);
    const int lane = threadIdx.x % 32, eL = lane == 0, eR = lane == 31 || xv == nv - 1;
    const float *c = in + (long)y * g.rs + x0;
    float4 a = __ldg((const float4 *)(c + (long)(z0 - 1) * g.ps));
    const float *q = c + (long)z0 * g.ps;
    float4 b = __ldg((const float4 *)q), u = __ldg((const float4 *)(q - g.rs)),
           d = __ldg((const float4 *)(q + g.rs));
    float bl = eL ? __ldg(q - 1) : 0.f, br = eR ? __ldg(q + 4) : 0.f;
    float4 n1, nu1, nd1;
    float nl1 = 0.f, nr1 = 0.f;
    if (PF) {
        q = c + (long)(z0 + 1) * g.ps;
        n1 = __ldg((const float4 *)q), nu1 = __ldg((const float4 *)(q - g.rs)),
        nd1 = __ldg((const float4 *)(q + g.rs));
        if (eL) nl1 = __ldg(q - 1);
        if (eR) nr1 = __ldg(q + 4);
    }
#pragma unroll 1
    for (int z = z0; z < z1; z++) {
        float4 cc, cu, cd;
        float cl = 0.f, cr = 0.f;
        if (PF) {
            q = c + (long)min(z + 2, g.nz + 1) * g.ps;
            cc = n1, cu = nu1, cd = nd1, cl = nl1, cr = nr1;
            n1 = __ldg((const float4 *)q), nu1 = __ldg((const float4 *)(q - g.rs)),
            nd1 = __ldg((const float4 *)(q + g.rs));
            if (eL) nl1 = __ldg(q - 1);
            if (eR) nr1 = __ldg(q + 4);
        } else {
            q = c + (long)(z + 1) * g.ps;
            cc = __ldg((const float4 *)q), cu = __ldg((const float4 *)(q - g.rs)),
            cd = __ldg((const float4 *)(q + g.rs));
            if (eL) cl = __ldg(q - 1);
            if (eR) cr = __ldg(q + 4);
        }
        float l = __shfl_up_sync(0xffffffffu, b.w, 1), r = __shfl_down_sync(0xffffffffu, b.x, 1);
        if (eL) l = bl;
        if (eR) r = br;
        float o[4];
        cells(a, u, l, b, r, d, cc, o);
        if (act)
            *(float4 *)(out + (long)z * g.ps + (long)y * g.rs + x0) =
                make_float4(o[0], o[1], o[2], o[3]);
        a = b, b = cc, bl = cl, br = cr, u = cu, d = cd;
    }
}

static G mk(int nx, int ny, int nz)
{
    G g = {nx, ny, nz, 0, 0};
    g.rs = ((X0 + nx + 1) + 31) / 32 * 32;
    g.ps = g.rs * (ny + 2);
    return g;
}

template <int W, int M>
static void launch_w(int mode, const float *a, float *b, const G &g, int bx, int by)
{
    dim3 blk(bx, by);
    unsigned gx = (unsigned)((g.nx / 4 + bx - 1) / bx), gy = (unsigned)((g.ny + by - 1) / by),
             gz = (unsigned)((g.nz + W - 1) / W);
    if (mode == 0) k3<W, 0, M><<<dim3(gx, gy, gz), blk>>>(a, b, g);
    if (mode == 1) k3<W, 1, M><<<dim3(gz, gx, gy), blk>>>(a, b, g);
    if (mode == 2) k3<W, 2, M><<<dim3(gx, gy, gz), blk>>>(a, b, g);
}

/* mode + 4 * m: m = 1, 2 cap registers for 6 or 8 blocks of 256 threads per SM. */
static void launch(int mode, int W, const float *a, float *b, const G &g, int bx, int by)
{
    if (mode >= 16) { /* the library's loop form, W planes at run time */
        dim3 grid((unsigned)((g.nx / 4 + bx - 1) / bx), (unsigned)((g.ny + by - 1) / by),
                  (unsigned)((g.nz + W - 1) / W));
        if (mode == 16) k3loop<0><<<grid, dim3(bx, by)>>>(a, b, g, W);
        if (mode == 17) k3loop<1><<<grid, dim3(bx, by)>>>(a, b, g, W);
        return;
    }
    int m = mode / 4;
    mode %= 4;
    if (m == 0 && W == 1) launch_w<1, 0>(mode, a, b, g, bx, by);
    if (m == 0 && W == 2) launch_w<2, 0>(mode, a, b, g, bx, by);
    if (m == 0 && W == 3) launch_w<3, 0>(mode, a, b, g, bx, by);
    if (m == 0 && W == 4) launch_w<4, 0>(mode, a, b, g, bx, by);
    if (m == 1 && W == 1) launch_w<1, 6>(mode, a, b, g, bx, by);
    if (m == 1 && W == 2) launch_w<2, 6>(mode, a, b, g, bx, by);
    if (m == 1 && W == 3) launch_w<3, 6>(mode, a, b, g, bx, by);
    if (m == 1 && W == 4) launch_w<4, 6>(mode, a, b, g, bx, by);
    if (m == 2 && W == 1) launch_w<1, 8>(mode, a, b, g, bx, by);
    if (m == 2 && W == 2) launch_w<2, 8>(mode, a, b, g, bx, by);
    if (m == 2 && W == 3) launch_w<3, 8>(mode, a, b, g, bx, by);
    if (m == 2 && W == 4) launch_w<4, 8>(mode, a, b, g, bx, by);
}

static void ref(const std::vector<float> &a, std::vector<float> &b, const G &g)
{
    for (int z = 1; z <= g.nz; z++)
        for (int y = 1; y <= g.ny; y++)
            for (int x = X0; x < X0 + g.nx; x++) {
                long c = z * g.ps + y * g.rs + x;
                volatile float s;
                s = a[c - g.ps];
                s = s + a[c - g.rs];
                s = s + a[c - 1];
                s = s + a[c + 1];
                s = s + a[c + g.rs];
                s = s + a[c + g.ps];
                b[c] = s / 6.0f;
            }
}

static int check(int mode, int W, int nx, int ny, int nz, int bx, int by)
{
    G g = mk(nx, ny, nz);
    long n = g.ps * (nz + 2);
    std::vector<float> h(n), r(n, 0.f), d(n);
    srand(11);
    for (long i = 0; i < n; i++) h[i] = (float)rand() / RAND_MAX - 0.3f;
    float *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(b, 0, n * 4));
    launch(mode, W, a, b, g, bx, by);
    CK(cudaGetLastError());
    CK(cudaMemcpy(d.data(), b, n * 4, cudaMemcpyDeviceToHost));
    ref(h, r, g);
    long bad = 0;
    for (long i = 0; i < n; i++) bad += memcmp(&d[i], &r[i], 4) != 0;
    CK(cudaFree(a));
    CK(cudaFree(b));
    printf("{\"probe\": \"vec3-check\", \"mode\": %d, \"W\": %d, \"grid\": [%d, %d, %d], "
           "\"block\": [%d, %d], \"cells_differing\": %ld}\n",
           mode, W, nx, ny, nz, bx, by, bad);
    return bad != 0;
}

/* ./probe_vec3 N: the unrolled kernels; ./probe_vec3 N loop: the loop form against them. */
int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 1024, reps = 10, bad = 0;
    const int loop = argc > 2 && !strcmp(argv[2], "loop");
    const std::vector<std::array<int, 3>> all = {
        /* mode (+4: 6 blocks of 256, +8: 8 blocks), bx, by */
        {0, 32, 4},  {0, 32, 8}, {0, 32, 16}, {0, 64, 4},  {0, 64, 8}, {0, 128, 2}, {0, 128, 4},
        {0, 16, 16}, {1, 32, 8}, {1, 64, 4},  {2, 16, 16}, {2, 32, 4}, {2, 32, 8},  {2, 16, 8},
        {4, 32, 8},  {4, 64, 4}, {6, 32, 8},  {6, 16, 16}, {8, 32, 8}, {8, 64, 4},  {10, 32, 8}};
    const std::vector<std::array<int, 3>> lf = {/* mode 16: loop, 17: loop, loads an iteration
                                                   ahead; and mode 0 for comparison */
                                                {16, 64, 4}, {16, 64, 2}, {16, 32, 8}, {17, 64, 4},
                                                {17, 64, 2}, {17, 32, 8}, {0, 64, 4},  {0, 32, 8}};
    const auto &shapes = loop ? lf : all;
    for (auto &s : shapes)
        for (int W : {1, 2, 3}) {
            bad += check(s[0], W, 1020, 37, 45, s[1], s[2]);
            bad += check(s[0], W, 44, 29, 23, s[1], s[2]);
        }
    printf("# checks: %d differing\n", bad);
    G g = mk(N, N, N);
    long n = g.ps * (N + 2);
    double cells = (double)N * N * N;
    float *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    probe_fill<<<4096, 256>>>(a, n);
    probe_fill<<<4096, 256>>>(b, n);
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (auto &s : shapes)
        for (int W : {1, 2, 3, 4, 6, 8, 16}) {
            if (W > 4 && s[0] < 16) continue;
            for (int k = 0; k < 2; k++) launch(s[0], W, a, b, g, s[1], s[2]);
            CK(cudaEventRecord(e0));
            for (int k = 0; k < reps; k++)
                launch(s[0], W, k & 1 ? b : a, k & 1 ? a : b, g, s[1], s[2]);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            printf(
                "{\"probe\": \"vec3\", \"stencil\": \"3d7\", \"n\": %d, \"mode\": %d, \"block\": "
                "[%d, %d], \"W\": %d, \"gcells\": %.1f}\n",
                N, s[0], s[1], s[2], W, cells * reps / (ms * 1e-3) / 1e9);
            fflush(stdout);
        }
    CK(cudaFree(a));
    CK(cudaFree(b));
    return bad != 0;
}
