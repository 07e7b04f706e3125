/*
 * probe_tma: stand-alone one-step stencil kernels that load their tiles through the Hopper
 * tensor copy engine (cp.async.bulk.tensor, completing on an mbarrier), a ring of S stages deep,
 * on the library's layout (halo of one cell, rows padded to 32 elements). Not part of the
 * library; it measures whether the design reaches the copy roofline (bench/RESULTS.md). Each
 * block owns a tile of a plane (3D) or a strip of columns (2D) and walks the slowest dimension;
 * one thread issues a box copy per stage, every thread waits on the stage's mbarrier, computes
 * its cells from shared memory and stores them, and a block-wide barrier frees the oldest stage.
 *
 *   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -o probe_tma \
 *       bench/micro/probe_tma.cu && ./probe_tma [all|3d7|3d27|2d]     (PROMO=0..3: L2 promotion)
 *
 * Arithmetic: the contract's order (row-major points, no contraction, correctly rounded division
 * unless the divisor is a power of two); a small grid is checked bitwise against the CPU.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <vector>

#include "probe_ck.h"

/* Stencils: points (dx, dy, dz, w) in row-major order; for 2D dy = 0. */
struct S3d7 {
    static constexpr int nd = 3, np = 6, div = 6;
    __host__ __device__ static constexpr int P(int q, int k)
    {
        const int p[6][4] = {{-1, 0, 0, 1}, {0, -1, 0, 1}, {0, 0, -1, 1},
                             {0, 0, 1, 1},  {0, 1, 0, 1},  {1, 0, 0, 1}};
        return p[q][k];
    }
};
struct S3d27 {
    static constexpr int nd = 3, np = 27, div = 27;
    __host__ __device__ static constexpr int P(int q, int k)
    {
        const int p[27][4] = {{-1, -1, -1, 1}, {-1, -1, 0, 1}, {-1, -1, 1, 1}, {-1, 0, -1, 1},
                              {-1, 0, 0, 1},   {-1, 0, 1, 1},  {-1, 1, -1, 1}, {-1, 1, 0, 1},
                              {-1, 1, 1, 1},   {0, -1, -1, 1}, {0, -1, 0, 1},  {0, -1, 1, 1},
                              {0, 0, -1, 1},   {0, 0, 0, 1},   {0, 0, 1, 1},   {0, 1, -1, 1},
                              {0, 1, 0, 1},    {0, 1, 1, 1},   {1, -1, -1, 1}, {1, -1, 0, 1},
                              {1, -1, 1, 1},   {1, 0, -1, 1},  {1, 0, 0, 1},   {1, 0, 1, 1},
                              {1, 1, -1, 1},   {1, 1, 0, 1},   {1, 1, 1, 1}};
        return p[q][k];
    }
};
struct S2d4 {
    static constexpr int nd = 2, np = 4, div = 4;
    __host__ __device__ static constexpr int P(int q, int k)
    {
        const int p[4][4] = {{-1, 0, 0, 1}, {0, 0, -1, 1}, {0, 0, 1, 1}, {1, 0, 0, 1}};
        return p[q][k];
    }
};
struct S2d9 {
    static constexpr int nd = 2, np = 8, div = 20;
    __host__ __device__ static constexpr int P(int q, int k)
    {
        const int p[8][4] = {{-1, 0, -1, 1}, {-1, 0, 0, 4}, {-1, 0, 1, 1}, {0, 0, -1, 4},
                             {0, 0, 1, 4},   {1, 0, -1, 1}, {1, 0, 0, 4},  {1, 0, 1, 1}};
        return p[q][k];
    }
};

template <typename T> __host__ __device__ __forceinline__ T add_rn(T a, T b);
template <> __host__ __device__ __forceinline__ float add_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
template <> __host__ __device__ __forceinline__ double add_rn(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
template <typename T> __host__ __device__ __forceinline__ T mul_rn(T a, T b);
template <> __host__ __device__ __forceinline__ float mul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
template <> __host__ __device__ __forceinline__ double mul_rn(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

template <typename T, class ST> __host__ __device__ __forceinline__ T finish(T acc)
{
    constexpr int d = ST::div;
    if (d == 1) return acc;
    if ((d & (d - 1)) == 0) return mul_rn(acc, T(1) / T(d));
    return acc / T(d);
}

__device__ __forceinline__ unsigned sptr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(uint64_t *b, unsigned n)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sptr(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mbar_expect(uint64_t *b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sptr(b)), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *b, unsigned parity)
{
    unsigned ok = 0;
    while (!ok)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok)
                     : "r"(sptr(b)), "r"(parity)
                     : "memory");
}
/* One box: 3D coordinates (z, y, x) or 2D (z, x). */
template <int ND>
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *tm, int cz, int cy, int cx,
                                         uint64_t *bar)
{
    if (ND == 3)
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(sptr(dst)),
                     "l"((uint64_t)tm), "r"(cz), "r"(cy), "r"(cx), "r"(sptr(bar))
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(sptr(dst)),
                     "l"((uint64_t)tm), "r"(cz), "r"(cx), "r"(sptr(bar))
                     : "memory");
}

/*
 * Output plane xo of CY cells down column col from rows row0.. of a ring stage layout (stage g
 * holds planes pbase + g*R .. in R planes of BY x BZ), stored at out (interior coordinates).
 */
template <typename T, class ST, int CY, int R, int S, int BZ, int PLANE, int STAGE>
__device__ __forceinline__ void plane_cells(const T *buf, T *__restrict__ out, int xo, int pbase,
                                            int row0, int col, int yo0, int ny, int zo, long ps,
                                            long rs)
{
    constexpr int ND = ST::nd;
    T acc[CY];
#pragma unroll
    for (int j = 0; j < CY; j++) {
#pragma unroll
        for (int q = 0; q < ST::np; q++) {
            const int pp = xo + ST::P(q, 0) - pbase;
            const T *pl = buf + ((pp / R) % S) * STAGE + (pp % R) * PLANE;
            const int yy = ND == 3 ? row0 + j + ST::P(q, 1) + 1 : 0;
            T v = pl[yy * BZ + col + ST::P(q, 2) + 1];
            if (ST::P(q, 3) != 1) v = mul_rn(v, T(ST::P(q, 3)));
            acc[j] = q == 0 ? v : add_rn(acc[j], v);
        }
    }
#pragma unroll
    for (int j = 0; j < CY; j++) {
        const int yo = ND == 3 ? yo0 + j : 0;
        if (ND == 2 || yo < ny)
            out[(long)(xo + 1) * ps + (long)(yo + 1) * rs * (ND == 3) + zo + 1] =
                finish<T, ST>(acc[j]);
    }
}

/*
 * A block owns a tile of TY = NTY*CY rows (3D; 1 in 2D) by TZ columns and walks planes (rows in
 * 2D) [xa, xb). Stage g of the ring holds R consecutive planes of the tile with its halo, box
 * BZ x BY x R. Thread (tz, ty) computes column tz, rows ty*CY .. ty*CY+CY-1.
 * Array coordinates: interior cell (x, y, z) sits at (x+1, y+1, z+1) of the tensor (halo 1).
 */
template <typename T, class ST, int TZ, int NTY, int CY, int R, int S>
__global__ void __launch_bounds__(TZ *NTY)
    tma_step(const __grid_constant__ CUtensorMap tm, T *__restrict__ out, int nx, int ny, int nz,
             long ps, long rs, int xc, int lead)
{
    constexpr int ND = ST::nd, TY = ND == 3 ? NTY * CY : 1, BY = ND == 3 ? TY + 2 : 1;
    constexpr int VA = 16 / sizeof(T), BZ = (TZ + 2 + VA - 1) / VA * VA;
    constexpr int PLANE = BY * BZ, AL = 128 / sizeof(T), STAGE = (R * PLANE + AL - 1) / AL * AL;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    T *buf = (T *)smem_raw;
    uint64_t *bar = (uint64_t *)(buf + S * STAGE);

    const int tz = threadIdx.x, ty = threadIdx.y;
    const int z0 = blockIdx.x * TZ, y0 = blockIdx.y * TY;
    const int xa = blockIdx.z * xc, xb = min(xa + xc, nx);
    const int pbase = xa - 1; /* first plane loaded (interior index) */
    const int G = (xb + 1 - pbase + R - 1) / R;
    if (tz == 0 && ty == 0) {
        for (int i = 0; i < S; i++) mbar_init(&bar[i], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (tz == 0 && ty == 0)
        for (int g = 0; g < S && g < G; g++) {
            mbar_expect(&bar[g], R * PLANE * sizeof(T));
            tma_load<ND>(buf + g * STAGE, &tm, z0 + lead, y0, pbase + g * R + 1, &bar[g]);
        }
    int waited = 0, freed = 0;
    const bool zin = z0 + tz < nz;
    for (int x = xa; x < xb; x += R) {
        const int gh = (min(x + R, xb) - pbase) / R; /* group of plane x+R (the last needed) */
        for (; waited <= gh && waited < G; waited++) mbar_wait(&bar[waited % S], (waited / S) & 1);
#pragma unroll
        for (int k0 = 0; k0 < R; k0 += ND == 2 ? NTY : 1) {
            const int k = ND == 2 ? k0 + ty : k0;
            const int xo = x + k;
            if (xo < xb && zin) /* 2D: ty picks rows of the stage, not rows of a plane */
                plane_cells<T, ST, CY, R, S, BZ, PLANE, STAGE>(buf, out, xo, pbase, ty * CY, tz,
                                                               y0 + ty * CY, ny, z0 + tz, ps, rs);
        }
        __syncthreads();
        /* groups wholly below plane x+R-1 (the lowest the next step reads) are free */
        const int gl = (x + R - 1 - pbase) / R;
        if (tz == 0 && ty == 0)
            for (; freed < gl; freed++) {
                const int g = freed + S;
                if (g < G) {
                    mbar_expect(&bar[g % S], R * PLANE * sizeof(T));
                    tma_load<ND>(buf + (g % S) * STAGE, &tm, z0 + lead, y0, pbase + g * R + 1,
                                 &bar[g % S]);
                }
            }
        if (!(tz == 0 && ty == 0)) freed = gl;
    }
}

/*
 * Per-warp rings: warp w of a block owns its own sub-tile (3D: 32 columns by CY rows, the warps
 * stacked along y; 2D: a strip of 32 columns, the warps side by side along z) and its own ring
 * of S stages and mbarriers. Lane 0 issues the warp's copies; nothing but __syncwarp orders a
 * stage's reuse, so warps never wait for each other.
 */
template <typename T, class ST, int NW, int CY, int R, int S>
__global__ void __launch_bounds__(32 * NW)
    tma_warp(const __grid_constant__ CUtensorMap tm, T *__restrict__ out, int nx, int ny, int nz,
             long ps, long rs, int xc, int lead)
{
    constexpr int ND = ST::nd, BY = ND == 3 ? CY + 2 : 1;
    constexpr int VA = 16 / sizeof(T), BZ = (32 + 2 + VA - 1) / VA * VA;
    constexpr int PLANE = BY * BZ, AL = 128 / sizeof(T), STAGE = (R * PLANE + AL - 1) / AL * AL;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    T *buf = (T *)smem_raw + w * S * STAGE;
    uint64_t *bar = (uint64_t *)((T *)smem_raw + NW * S * STAGE) + w * S;

    const int z0 = ND == 3 ? blockIdx.x * 32 : (blockIdx.x * NW + w) * 32;
    const int y0 = ND == 3 ? (blockIdx.y * NW + w) * CY : 0;
    const int xa = blockIdx.z * xc, xb = min(xa + xc, nx);
    const int pbase = xa - 1;
    const int G = (xb + 1 - pbase + R - 1) / R;
    if (lane == 0) {
        for (int i = 0; i < S; i++) mbar_init(&bar[i], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncwarp();
    const bool live = z0 < nz && y0 < ny; /* a warp past the edge still takes no copies */
    if (lane == 0 && live)
        for (int g = 0; g < S && g < G; g++) {
            mbar_expect(&bar[g], R * PLANE * sizeof(T));
            tma_load<ND>(buf + g * STAGE, &tm, z0 + lead, y0, pbase + g * R + 1, &bar[g]);
        }
    if (!live) return;
    int waited = 0, freed = 0;
    const bool zin = z0 + lane < nz;
    for (int x = xa; x < xb; x += R) {
        const int gh = (min(x + R, xb) - pbase) / R;
        for (; waited <= gh && waited < G; waited++) mbar_wait(&bar[waited % S], (waited / S) & 1);
#pragma unroll
        for (int k = 0; k < R; k++) {
            const int xo = x + k;
            if (xo < xb && zin)
                plane_cells<T, ST, CY, R, S, BZ, PLANE, STAGE>(buf, out, xo, pbase, 0, lane, y0, ny,
                                                               z0 + lane, ps, rs);
        }
        __syncwarp();
        const int gl = (x + R - 1 - pbase) / R;
        if (lane == 0)
            for (; freed < gl; freed++) {
                const int g = freed + S;
                if (g < G) {
                    mbar_expect(&bar[g % S], R * PLANE * sizeof(T));
                    tma_load<ND>(buf + (g % S) * STAGE, &tm, z0 + lead, y0, pbase + g * R + 1,
                                 &bar[g % S]);
                }
            }
        __syncwarp();
    }
}

template <typename T> __global__ void copy4(const T *__restrict__ a, T *__restrict__ b, long n4)
{
    const float4 *s = (const float4 *)a;
    float4 *d = (float4 *)b;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4;
         i += (long)gridDim.x * blockDim.x)
        d[i] = s[i];
}

static PFN_cuTensorMapEncodeTiled_v12000 encode;
static CUtensorMapL2promotion promo = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;

struct Grid {
    int nd, nx, ny, nz; /* interior sizes; 2D: ny = 1 */
    long rs, ps, lead, total;
};

/* lead: cells before the first row's halo cell. A lead that leaves the boxes' first column off a
   16-byte boundary (31, to start the interior on a 128-byte line) stopped the kernel with an
   illegal instruction on an H200; the runs use 0. */
static Grid make_grid(int nd, int nx, int ny, int nz, int lead)
{
    Grid g{nd, nx, nd == 3 ? ny : 1, nz, 0, 0, lead, 0};
    g.rs = (nz + 2 + 31) / 32 * 32;
    g.ps = nd == 3 ? g.rs * (ny + 2) : g.rs;
    g.total = g.lead + g.ps * (nx + 2) + 64;
    return g;
}

template <typename T>
static void make_map(CUtensorMap *m, const Grid &g, T *base, int bz, int by, int r)
{
    cuuint64_t dim[3], str[2];
    cuuint32_t box[3], es[3] = {1, 1, 1};
    int rank = g.nd;
    dim[0] = g.lead + g.nz + 2; /* the lead is addressed as columns before the halo */
    if (g.nd == 3) {
        dim[1] = g.ny + 2, dim[2] = g.nx + 2;
        str[0] = g.rs * sizeof(T), str[1] = g.ps * sizeof(T);
        box[0] = bz, box[1] = by, box[2] = r;
    } else {
        dim[1] = g.nx + 2;
        str[0] = g.rs * sizeof(T);
        box[0] = bz, box[1] = r;
    }
    CUresult e = encode(
        m, sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64, rank,
        base, dim, str, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (e != CUDA_SUCCESS) {
        printf("cuTensorMapEncodeTiled failed %d (bz %d by %d r %d)\n", (int)e, bz, by, r);
        exit(1);
    }
}

template <typename T, class ST> static void cpu_step(const Grid &g, const T *in, T *out)
{
    for (int x = 0; x < g.nx; x++)
        for (int y = 0; y < g.ny; y++)
            for (int z = 0; z < g.nz; z++) {
                T acc = 0;
                for (int q = 0; q < ST::np; q++) {
                    long c = g.lead + (long)(x + 1 + ST::P(q, 0)) * g.ps +
                             (g.nd == 3 ? (long)(y + 1 + ST::P(q, 1)) * g.rs : 0) + z + 1 +
                             ST::P(q, 2);
                    T v = in[c];
                    if (ST::P(q, 3) != 1) v = mul_rn(v, T(ST::P(q, 3)));
                    acc = q == 0 ? v : add_rn(acc, v);
                }
                out[g.lead + (long)(x + 1) * g.ps + (g.nd == 3 ? (long)(y + 1) * g.rs : 0) + z +
                    1] = finish<T, ST>(acc);
            }
}

/* WARP: tma_warp with NTY warps (TZ must be 32); else tma_step. */
template <typename T, class ST, int TZ, int NTY, int CY, int R, int S, bool WARP = false>
static double run(const Grid &g, int iters, int xc, bool check, const char *name)
{
    constexpr int ND = ST::nd;
    constexpr int TY = ND == 3 ? NTY * CY : 1, BY = ND == 3 ? (WARP ? CY : TY) + 2 : 1;
    constexpr int VA = 16 / sizeof(T), BZ = ((WARP ? 32 : TZ) + 2 + VA - 1) / VA * VA;
    constexpr int AL = 128 / sizeof(T), STAGE = (R * BY * BZ + AL - 1) / AL * AL;
    constexpr int RINGS = WARP ? NTY : 1;
    size_t smem = (size_t)RINGS * S * (STAGE * sizeof(T) + 8);
    auto k = WARP ? tma_warp<T, ST, NTY, CY, R, S> : tma_step<T, ST, TZ, NTY, CY, R, S>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    T *a, *b;
    CK(cudaMalloc(&a, g.total * sizeof(T)));
    CK(cudaMalloc(&b, g.total * sizeof(T)));
    std::vector<T> h(check ? g.total : 0), r1(check ? g.total : 0), r2(check ? g.total : 0);
    if (check) {
        srand(7);
        for (long i = 0; i < g.total; i++) h[i] = T(rand()) / T(RAND_MAX) - T(0.3);
        CK(cudaMemcpy(a, h.data(), g.total * sizeof(T), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(b, h.data(), g.total * sizeof(T), cudaMemcpyHostToDevice));
    } else {
        CK(cudaMemset(a, 0x3c, g.total * sizeof(T))); /* not zeros: 0x3c3c3c3c */
        CK(cudaMemset(b, 0x3c, g.total * sizeof(T)));
    }
    CUtensorMap ma, mb;
    make_map<T>(&ma, g, a, BZ, BY, R);
    make_map<T>(&mb, g, b, BZ, BY, R);
    dim3 blk = WARP ? dim3(32 * NTY) : dim3(TZ, NTY);
    const int zt = WARP && ND == 2 ? 32 * NTY : TZ;
    dim3 grd((g.nz + zt - 1) / zt, (g.ny + TY - 1) / TY, (g.nx + xc - 1) / xc);
    auto launch = [&](int i) {
        if (i % 2 == 0)
            k<<<grd, blk, smem>>>(ma, b + g.lead, g.nx, g.ny, g.nz, g.ps, g.rs, xc, (int)g.lead);
        else
            k<<<grd, blk, smem>>>(mb, a + g.lead, g.nx, g.ny, g.nz, g.ps, g.rs, xc, (int)g.lead);
    };
    double rate = 0;
    if (check) {
        launch(0), launch(1);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<T> got(g.total);
        CK(cudaMemcpy(got.data(), a, g.total * sizeof(T), cudaMemcpyDeviceToHost));
        r1 = h, r2 = h;
        cpu_step<T, ST>(g, h.data(), r1.data());
        cpu_step<T, ST>(g, r1.data(), r2.data());
        long bad = 0;
        for (long i = 0; i < g.total - 64; i++) bad += memcmp(&got[i], &r2[i], sizeof(T)) != 0;
        printf("{\"check\":\"%s\",\"type\":\"%s\",\"n\":[%d,%d,%d],\"lead\":%ld,\"bad\":%ld}\n",
               name, sizeof(T) == 4 ? "float" : "double", g.nx, g.ny, g.nz, g.lead, bad);
    } else {
        launch(0), launch(1);
        CK(cudaDeviceSynchronize());
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaEventRecord(e0));
        for (int i = 0; i < iters; i++) launch(i);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        rate = (double)g.nx * g.ny * g.nz * iters / (ms * 1e-3) / 1e9;
        printf("{\"probe\":\"%s\",\"type\":\"%s\",\"n\":[%d,%d,%d],\"lead\":%ld,\"tz\":%d,"
               "\"nty\":%d,\"cy\":%d,\"r\":%d,\"s\":%d,\"xc\":%d,\"smem\":%zu,\"Gcells\":%.1f}\n",
               name, sizeof(T) == 4 ? "float" : "double", g.nx, g.ny, g.nz, g.lead, TZ, NTY, CY, R,
               S, xc, smem, rate);
    }
    fflush(stdout);
    CK(cudaFree(a));
    CK(cudaFree(b));
    return rate;
}

template <typename T, class ST, int TZ, int NTY, int CY, int R, int S, bool WARP = false>
static void both(const Grid &big, const Grid &small, int iters, int xc, const char *name)
{
    run<T, ST, TZ, NTY, CY, R, S, WARP>(small, 2, xc > 40 ? 40 : xc, true, name);
    run<T, ST, TZ, NTY, CY, R, S, WARP>(big, iters, xc, false, name);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "all";
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                        cudaEnableDefault, &q));
    if (!encode) return printf("no cuTensorMapEncodeTiled\n"), 1;
    if (getenv("PROMO")) /* 0 none, 1 64B, 2 128B, 3 256B */
        promo = (CUtensorMapL2promotion)atoi(getenv("PROMO"));
    printf("{\"promo\":%d}\n", (int)promo);
    const int it = 20;
    { /* copy roofline over a 1026^3-sized fp32 buffer */
        long n = 1026L * 1026 * 1056;
        float *a, *b;
        CK(cudaMalloc(&a, n * 4));
        CK(cudaMalloc(&b, n * 4));
        CK(cudaMemset(a, 1, n * 4));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        copy4<float><<<132 * 16, 256>>>(a, b, n / 4);
        CK(cudaEventRecord(e0));
        for (int i = 0; i < it; i++) copy4<float><<<132 * 16, 256>>>(a, b, n / 4);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        double k1 = ms;
        CK(cudaEventRecord(e0));
        for (int i = 0; i < it; i++) CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        printf("{\"probe\":\"copy\",\"kernel_GBs\":%.1f,\"memcpy_GBs\":%.1f}\n",
               8.0 * n * it / k1 / 1e6, 8.0 * n * it / ms / 1e6);
        CK(cudaFree(a));
        CK(cudaFree(b));
    }
    Grid s3 = make_grid(3, 45, 37, 70, 0);
    Grid b3 = make_grid(3, 1024, 1024, 1024, 0);
    Grid b27 = make_grid(3, 512, 512, 512, 0);
    Grid s2 = make_grid(2, 300, 1, 1000, 0), b2 = make_grid(2, 20480, 1, 20480, 0);
    bool all = !strcmp(only, "all");
    if (all || !strcmp(only, "3d7")) {
        both<float, S3d7, 32, 4, 8, 1, 6, true>(b3, s3, it, 256, "3d7");
        both<float, S3d7, 32, 4, 4, 1, 6, true>(b3, s3, it, 256, "3d7");
        both<float, S3d7, 32, 8, 4, 1, 4, true>(b3, s3, it, 256, "3d7");
        both<float, S3d7, 32, 4, 8, 1, 4, true>(b3, s3, it, 256, "3d7");
        both<float, S3d7, 32, 2, 16, 1, 4, true>(b3, s3, it, 256, "3d7");
        both<float, S3d7, 32, 4, 8, 1, 6, true>(b3, s3, it, 128, "3d7");
    }
    if (all || !strcmp(only, "2d")) {
        both<float, S2d4, 32, 4, 1, 8, 6, true>(b2, s2, it, 2048, "2d4");
        both<float, S2d4, 32, 4, 1, 16, 4, true>(b2, s2, it, 2048, "2d4");
        both<float, S2d4, 32, 8, 1, 8, 4, true>(b2, s2, it, 2048, "2d4");
        both<float, S2d9, 32, 4, 1, 8, 6, true>(b2, s2, it, 2048, "2d9");
        both<double, S2d4, 32, 4, 1, 8, 6, true>(b2, s2, it / 2, 2048, "2d4");
    }
    if (all || !strcmp(only, "3d27")) {
        both<float, S3d27, 32, 4, 8, 1, 6, true>(b27, s3, it, 256, "3d27");
        both<float, S3d27, 32, 4, 4, 1, 6, true>(b27, s3, it, 256, "3d27");
    }
    return 0;
}
