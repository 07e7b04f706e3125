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
 * which works for any point list given at run time; the price is L2 traffic: on an H200 the
 * kernel is L2-bound (docs/performance-notes.md), not HBM-bound. Rows can start on 128-byte
 * boundaries (idle lanes before the box) so that every warp access covers whole lines.
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
    int xs;    /* x below this is not in the box: rows start 128-byte aligned (tune al) */
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

template <typename T, int U, int NP, class P>
__host__ __device__ __forceinline__ void stencil_body(const T *__restrict__ in, T *__restrict__ out,
                                                      const geom &g, const P &pt, const thr &t)
{
    const long long x = (long long)t.bx * t.bdx + t.tx;
    const int y = (int)(t.by * t.bdy + t.ty);
    if (x < g.xs || x >= g.nx || y >= g.ny) return;
    long long w = (long long)t.bz * g.chunk;
    const long long wend = w + g.chunk < g.nw ? w + g.chunk : g.nw;
    const long long c = g.base + w * g.sw + (long long)y * g.sy + x;
    const T *ip = in + c;
    T *op = out + c;
    for (; w + U <= wend; w += U, ip += U * g.sw, op += U * g.sw)
        group<T, U, NP, true>(ip, op, g.sw, pt, U);
    if (w < wend) group<T, U, NP, false>(ip, op, g.sw, pt, (int)(wend - w));
}

#if defined(__CUDACC__) || defined(__HIPCC__)
__device__ __forceinline__ thr thr_here()
{
    thr t = {blockIdx.x,  blockIdx.y, blockIdx.z, threadIdx.x,
             threadIdx.y, blockDim.x, blockDim.y, gridDim.x};
    return t;
}

template <typename T, int U, int NP, class P>
__global__ void __launch_bounds__(256)
    k_stencil(const T *__restrict__ in, T *__restrict__ out, const geom g, const P pt)
{
    stencil_body<T, U, NP>(in, out, g, pt, thr_here());
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

/* Up to SB_COPY_MANY box copies in one launch (sb_ops.copy_many): copy j takes the blocks from
   first[j] on, 256 elements each. */
struct cmany_one {
    const void *src;
    void *dst;
    cbox sb, db;
    unsigned first, n;
};
struct cmany {
    cmany_one c[SB_COPY_MANY];
    int n;
};

#if defined(__CUDACC__) || defined(__HIPCC__)
template <typename E> __global__ void __launch_bounds__(256) k_copy_many(const cmany m)
{
    int j = 0;
    while (j + 1 < m.n && blockIdx.x >= m.c[j + 1].first) j++;
    const unsigned i = (blockIdx.x - m.c[j].first) * 256u + threadIdx.x;
    if (i < m.c[j].n)
        copy_body<E>((const E *)m.c[j].src, (E *)m.c[j].dst, m.c[j].sb, m.c[j].db, i);
}

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
