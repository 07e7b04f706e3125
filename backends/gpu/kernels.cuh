/*
 * Device kernels of the GPU backend, shared by CUDA and HIP.
 *
 * Each kernel is a thin __global__ wrapper around a __host__ __device__ body that takes its block
 * and thread indices as arguments, so the bodies can be run (and tested) on the host as well.
 *
 * Generic stencil kernel: the fastest dimension of the box maps to threadIdx.x (coalesced rows),
 * the middle one (3D) to threadIdx.y, and every thread walks `chunk` cells along the slowest
 * dimension, U cells at a time. The U cells of a group are independent, so each point issues U
 * loads before any of them is consumed: that keeps enough bytes in flight to saturate HBM.
 * Neighbouring values are re-read through the read-only cache instead of being kept in registers,
 * which works for any point list given at run time.
 *
 * Arithmetic follows backends/backend.h exactly: acc = w0*v0, then acc = acc + wp*vp in the
 * points' order, then acc / divisor (or * its exact reciprocal when the divisor is a power of
 * two); the build disables FMA contraction (-fmad=false, -ffp-contract=off).
 */
#ifndef SB_GPU_KERNELS_CUH
#define SB_GPU_KERNELS_CUH

#include "vendor.h"

#ifndef SB_GPU_NS
#error "include vendor.h first"
#endif

namespace SB_GPU_NS
{

/* Points passed by value as a kernel parameter (constant bank) up to this many. */
#define SB_GPU_MAXP 128

/* Block and thread indices, as the body sees them. */
struct thr {
    unsigned bx, by, bz, tx, ty, bdx, bdy, gdx;
};

/* The box being updated, normalized to (walk, y, x) with x contiguous. */
struct geom {
    long long base;   /* linear index of the box's first cell */
    long long sw, sy; /* element strides of the walk and y dimensions */
    long long nw, nx; /* extents */
    int ny;
    int chunk; /* cells along walk per thread */
    int rhi;   /* the stencil's reach along walk (high side), for prefetching */
};

template <typename T> struct pts_param {
    int n;
    int recip; /* 1: div holds the exact reciprocal of the divisor */
    T div;
    int off[SB_GPU_MAXP]; /* linear offsets, in elements */
    T w[SB_GPU_MAXP];
    __host__ __device__ int o(int p) const
    {
        return off[p];
    }
    __host__ __device__ T wt(int p) const
    {
        return w[p];
    }
};

/* More points than fit in a parameter block: read them from device memory. */
template <typename T> struct pts_global {
    int n;
    int recip;
    T div;
    const int *off;
    const T *w;
    __host__ __device__ int o(int p) const
    {
        return off[p];
    }
    __host__ __device__ T wt(int p) const
    {
        return w[p];
    }
};

/* Loop unrolling is a device matter; host compilers would warn about the pragma. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SB_UNROLL _Pragma("unroll")
#else
#define SB_UNROLL
#endif

template <typename T> __host__ __device__ __forceinline__ T ld(const T *p)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return __ldg(p);
#else
    return *p;
#endif
}

/* acc[u] = acc[u] + wp * in[u * sw + o] for the first rem (FULL: all U) cells of a group. */
template <typename T, int U, bool FULL>
__host__ __device__ __forceinline__ void add_point(T *acc, const T *ip, long long sw, T wp, int o,
                                                   int rem)
{
    SB_UNROLL
    for (int u = 0; u < U; u++)
        if (FULL || u < rem) acc[u] = acc[u] + wp * ld(ip + u * sw + o);
}

/* One group of U cells along walk, sw apart. FULL: all U cells exist, else only the first rem. */
template <typename T, int U, int NP, bool FULL, class P>
__host__ __device__ __forceinline__ void group(const T *ip, T *op, long long sw, const P &pt,
                                               int rem)
{
    T acc[U];
    {
        const T w0 = pt.wt(0);
        const int o = pt.o(0);
        SB_UNROLL
        for (int u = 0; u < U; u++) acc[u] = (FULL || u < rem) ? w0 * ld(ip + u * sw + o) : T(0);
    }
    if (NP > 0) { /* compile-time count: every load of the group can be issued up front */
        SB_UNROLL
        for (int p = 1; p < NP; p++) add_point<T, U, FULL>(acc, ip, sw, pt.wt(p), pt.o(p), rem);
    } else {
        for (int p = 1; p < pt.n; p++) add_point<T, U, FULL>(acc, ip, sw, pt.wt(p), pt.o(p), rem);
    }
    SB_UNROLL
    for (int u = 0; u < U; u++)
        if (FULL || u < rem) op[u * sw] = pt.recip ? acc[u] * pt.div : acc[u] / pt.div;
}

/* Asks L2 for a line ahead of its use; no register, no fault. */
__host__ __device__ __forceinline__ void prefetch_l2(const void *p)
{
#if defined(__CUDA_ARCH__)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}

template <typename T, int U, int NP, bool PF, class P>
__host__ __device__ __forceinline__ void stencil_body(const T *__restrict__ in, T *__restrict__ out,
                                                      const geom &g, const P &pt, const thr &t)
{
    const long long x = (long long)t.bx * t.bdx + t.tx;
    const int y = (int)(t.by * t.bdy + t.ty);
    if (x >= g.nx || y >= g.ny) return;
    long long w = (long long)t.bz * g.chunk;
    const long long wend = w + g.chunk < g.nw ? w + g.chunk : g.nw;
    const long long c = g.base + w * g.sw + (long long)y * g.sy + x;
    const T *ip = in + c;
    T *op = out + c;
    for (; w + U <= wend; w += U, ip += U * g.sw, op += U * g.sw) {
        if (PF) { /* the rows the next group reads first, while this one computes */
            SB_UNROLL
            for (int u = 0; u < U; u++)
                if (w + U + u < wend) prefetch_l2(ip + (U + u + g.rhi) * g.sw);
        }
        group<T, U, NP, true>(ip, op, g.sw, pt, U);
    }
    if (w < wend) group<T, U, NP, false>(ip, op, g.sw, pt, (int)(wend - w));
}

#if defined(__CUDACC__) || defined(__HIPCC__)
__device__ __forceinline__ thr thr_here()
{
    thr t = {blockIdx.x,  blockIdx.y, blockIdx.z, threadIdx.x,
             threadIdx.y, blockDim.x, blockDim.y, gridDim.x};
    return t;
}

template <typename T, int U, int NP, bool PF, class P>
__global__ void __launch_bounds__(256)
    k_stencil(const T *__restrict__ in, T *__restrict__ out, const geom g, const P pt)
{
    stencil_body<T, U, NP, PF>(in, out, g, pt, thr_here());
}
#endif

/*
 * Window kernel (2D and 3D): a block owns a tile of BX x BY cells of the (y, x) plane and walks
 * `chunk` planes along walk. Each input plane of the tile plus its halo is read from global
 * memory once, into a ring of shared-memory slots; the points are then read from shared memory,
 * so neighbours cost no further global (L1/L2) traffic. Loads run D planes ahead in registers
 * to keep HBM busy. One barrier per plane suffices because the ring has at least
 * rlo + rhi + 2 slots: the slot a fast thread refills is never one a slow thread still reads.
 */
#define SB_GPU_WMAXP 64 /* points in the parameter block */
#define SB_GPU_WK    2  /* tile elements loaded per thread and plane (tile <= 2 x threads) */

struct wgeom {
    long long base;   /* linear index of the box's first cell */
    long long sw, sy; /* strides of walk and y */
    long long nw;
    int nx, ny;
    int chunk;
    int hxl, hxh, hyl, hyh, r0l, r0h; /* the stencil's reach in x, y and walk */
    int tw, th;                       /* tile with halo: (bx + hxl + hxh) x (by + hyl + hyh) */
    int mask;                         /* ring slots - 1 (a power of two) */
};

template <typename T> struct wpts {
    int n, recip;
    T div;
    int pw[SB_GPU_WMAXP]; /* walk offset */
    int ps[SB_GPU_WMAXP]; /* offset inside a tile plane: oy * tw + ox */
    T w[SB_GPU_WMAXP];
};

/* Per-thread state between the two phases of a plane. */
template <typename T, int D> struct wthr {
    T pre[D][SB_GPU_WK]; /* planes in flight */
    long long goff[SB_GPU_WK];
    int soff[SB_GPU_WK];
    bool ok[SB_GPU_WK];
    long long gout; /* this thread's cell, relative to its plane */
    int sout;
    bool active;
    long long p0; /* first plane the block loads */
    int nt;       /* planes to load */
};

template <typename T, int D>
__host__ __device__ __forceinline__ void win_init(wthr<T, D> &s, const wgeom &g, const thr &t,
                                                  unsigned bz)
{
    const int nthr = (int)(t.bdx * t.bdy), tid = (int)(t.ty * t.bdx + t.tx);
    const int x0 = (int)(t.bx * t.bdx), y0 = (int)(t.by * t.bdy);
    SB_UNROLL
    for (int j = 0; j < SB_GPU_WK; j++) {
        int e = tid + j * nthr, ey = e / g.tw, ex = e - ey * g.tw;
        int x = x0 + ex - g.hxl, y = y0 + ey - g.hyl; /* box coordinates, may be negative */
        s.ok[j] = e < g.tw * g.th && x < g.nx + g.hxh && y < g.ny + g.hyh;
        s.goff[j] = (long long)y * g.sy + x;
        s.soff[j] = e;
    }
    const int x = x0 + (int)t.tx, y = y0 + (int)t.ty;
    s.active = x < g.nx && y < g.ny;
    s.gout = (long long)y * g.sy + x;
    s.sout = ((int)t.ty + g.hyl) * g.tw + (int)t.tx + g.hxl;
    const long long w0 = (long long)bz * g.chunk;
    const long long w1 = w0 + g.chunk < g.nw ? w0 + g.chunk : g.nw;
    s.p0 = w0 - g.r0l;
    s.nt = (int)(w1 - w0) + g.r0l + g.r0h;
}

/* Loads plane i (counted from p0) into pre[k], if the block needs it. */
template <typename T, int D>
__host__ __device__ __forceinline__ void win_load(wthr<T, D> &s, const T *__restrict__ in,
                                                  const wgeom &g, int i, int k)
{
    if (i >= s.nt) return;
    const T *pl = in + g.base + (s.p0 + i) * g.sw;
    SB_UNROLL
    for (int j = 0; j < SB_GPU_WK; j++)
        if (s.ok[j]) s.pre[k][j] = ld(pl + s.goff[j]);
}

/* Phase 1 of plane i: pre[k] into its slot, then the load of plane i + D into pre[k]. */
template <typename T, int D>
__host__ __device__ __forceinline__ void win_store(wthr<T, D> &s, T *sm, const T *__restrict__ in,
                                                   const wgeom &g, int i, int k)
{
    T *slot = sm + (int)((s.p0 + i) & g.mask) * (g.tw * g.th);
    SB_UNROLL
    for (int j = 0; j < SB_GPU_WK; j++)
        if (s.ok[j]) slot[s.soff[j]] = s.pre[k][j];
    win_load(s, in, g, i + D, k);
}

/* Phase 2 of plane i (after the barrier): the cell rlo planes behind it, once loaded. */
template <typename T, int NP, int D>
__host__ __device__ __forceinline__ void win_compute(const wthr<T, D> &s, const T *sm,
                                                     T *__restrict__ out, const wgeom &g,
                                                     const wpts<T> &pt, int i)
{
    if (i < g.r0l + g.r0h || !s.active) return;
    const long long w = s.p0 + i - g.r0h; /* the cell's plane */
    const int pl = g.tw * g.th;
    T acc = pt.w[0] * sm[(int)((w + pt.pw[0]) & g.mask) * pl + s.sout + pt.ps[0]];
    if (NP > 0) {
        SB_UNROLL
        for (int p = 1; p < NP; p++)
            acc = acc + pt.w[p] * sm[(int)((w + pt.pw[p]) & g.mask) * pl + s.sout + pt.ps[p]];
    } else {
        for (int p = 1; p < pt.n; p++)
            acc = acc + pt.w[p] * sm[(int)((w + pt.pw[p]) & g.mask) * pl + s.sout + pt.ps[p]];
    }
    out[g.base + w * g.sw + s.gout] = pt.recip ? acc * pt.div : acc / pt.div;
}

#if defined(__CUDACC__) || defined(__HIPCC__)
template <typename T, int NP, int D>
__global__ void __launch_bounds__(256)
    k_window(const T *__restrict__ in, T *__restrict__ out, const wgeom g, const wpts<T> pt)
{
    extern __shared__ __align__(16) unsigned char sb_smem[];
    T *sm = (T *)sb_smem;
    wthr<T, D> s;
    win_init(s, g, thr_here(), blockIdx.z);
    SB_UNROLL
    for (int k = 0; k < D; k++) win_load(s, in, g, k, k);
    /* The trip count is the same for the whole block, so the barriers are reached by all. */
    for (int i = 0; i < s.nt; i += D) {
        SB_UNROLL
        for (int k = 0; k < D; k++) {
            if (i + k < s.nt) {
                win_store(s, sm, in, g, i + k, k);
                __syncthreads();
                win_compute<T, NP>(s, sm, out, g, pt, i + k);
            }
        }
    }
}
#endif

/*
 * Box-to-box copy (pack, unpack, device-to-device), one element per thread of a 1D grid. Both
 * boxes have the same extents and are normalized like geom; a contiguous buffer is a box with
 * sw = ny * nx, sy = nx. E is an unsigned integer of the element's size: values are moved, never
 * computed on.
 */
struct cbox {
    long long base, sw, sy;
    unsigned nw, ny, nx; /* n = nw * ny * nx < 2^31 */
};

template <typename E>
__host__ __device__ __forceinline__ void copy_body(const E *src, E *dst, const cbox &sb,
                                                   const cbox &db, unsigned i)
{
    const unsigned r = i / db.nx, x = i - r * db.nx;
    const unsigned w = r / db.ny, y = r - w * db.ny;
    dst[db.base + w * db.sw + y * db.sy + x] = src[sb.base + w * sb.sw + y * sb.sy + x];
}

#if defined(__CUDACC__) || defined(__HIPCC__)
template <typename E>
__global__ void __launch_bounds__(256)
    k_copy(const E *src, E *dst, const cbox sb, const cbox db, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) copy_body<E>(src, dst, sb, db, i);
}
#endif

} /* namespace SB_GPU_NS */

#endif /* SB_GPU_KERNELS_CUH */
