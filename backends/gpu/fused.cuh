/*
 * Two time steps per launch for the generic kernel (update2), 2D boxes: the tile scheme of kgt's
 * fused launchers (kgt/emit_fused.c says why; docs/performance-notes.md has the figures), with the
 * points given at run time. A block of 256 x 2 threads owns 256 x TY output cells. Step 1 runs on
 * the tile grown by the stencil's extents (reading the input through the read-only cache) into
 * shared memory, cells outside the live box keeping their input values; after one barrier step 2
 * computes the output cells from shared memory.
 *
 * Blocks whose whole step-1 tile is live and whose output tile lies inside the box take loops of
 * a trip count known at compile time (R bounds the extents), unrolled, with no per-cell tests:
 * it made kgt's 2D 4-point two-step kernel markedly faster. The arithmetic is the
 * generic kernel's (backends/backend.h), so results equal two update() calls bitwise.
 *
 * With the points given at run time this kernel is slower than one step per launch (its offsets
 * in memory cost registers that kgt's fused kernel, with offsets compiled in, does not spend), so
 * it runs only when asked for (options.steps = 2); docs/performance-notes.md has the figures.
 */
#ifndef SB_GPU_FUSED_CUH
#define SB_GPU_FUSED_CUH

#include "kernels.cuh"

namespace SB_GPU_NS
{

#define SB_GPU_MAXF 25 /* points of a stencil update2 takes: 2D, radius 2, dense */
enum { SB_FX = 256, SB_FBY = 2 };

template <typename T> struct fused_param {
    int n, recip;
    T div;
    int goff[SB_GPU_MAXF]; /* point offsets in the array: dy * s0 + dx */
    int soff[SB_GPU_MAXF]; /* the same in the step-1 tile: dy * (SB_FX + 2R) + dx */
    T w[SB_GPU_MAXF];
    int ly, hy, lx, hx; /* extents of the points: rows before / after, columns before / after */
    long long lo0, lo1, hi0, hi1; /* the box */
    long long ll0, ll1, lh0, lh1; /* the live box */
    long long s0, n0;             /* row stride (the array's row length) and rows of the array */
};

/*
 * One cell by the arithmetic contract, the points read at p + (GLOBAL ? goff : soff)[k]. The
 * offsets are indexed in the parameter block itself: a pointer to them would copy the whole
 * block to local memory in every thread.
 */
template <typename T, int NP, bool GLOBAL>
__device__ __forceinline__ T fused_cell(const T *p, const fused_param<T> &f)
{
    T acc = f.w[0] * (GLOBAL ? ld(p + f.goff[0]) : p[f.soff[0]]);
    if (NP > 0) {
        SB_UNROLL
        for (int k = 1; k < NP; k++)
            acc = acc + f.w[k] * (GLOBAL ? ld(p + f.goff[k]) : p[f.soff[k]]);
    } else {
        for (int k = 1; k < f.n; k++)
            acc = acc + f.w[k] * (GLOBAL ? ld(p + f.goff[k]) : p[f.soff[k]]);
    }
    return f.recip ? acc * f.div : acc / f.div;
}

/*
 * The step-1 tile is always laid out for reach R: (TY + 2R) x (SB_FX + 2R), cell (i, j) holding
 * array cell (y0 - R + i, x0 - R + j), so its shape is known at compile time.
 */
template <int R> struct ftile {
    enum { KX = SB_FX + 2 * R };
};

/* Step 1 of a block at an edge: only cells step 2 reads, computed where live, else copied. */
template <typename T, int NP, int TY, int R>
__device__ __forceinline__ void fused_step1_edge(const T *in, T *sm, const fused_param<T> &f,
                                                 long long y0, long long x0)
{
    enum { KX = ftile<R>::KX };
    for (int i = threadIdx.y; i < TY + 2 * R; i += SB_FBY) {
        const long long y = y0 - R + i;
        if (y < f.lo0 - f.ly || y >= f.hi0 + f.hy) continue;
        const bool rlive = y >= f.ll0 && y < f.lh0;
        for (int j = threadIdx.x; j < KX; j += SB_FX) {
            const long long x = x0 - R + j;
            if (x < f.lo1 - f.lx || x >= f.hi1 + f.hx) continue;
            const T *c = in + y * f.s0 + x;
            sm[i * KX + j] = rlive && x >= f.ll1 && x < f.lh1 ? fused_cell<T, NP, true>(c, f) : *c;
        }
    }
}

template <typename T, int NP, int TY, int R>
__device__ __forceinline__ void fused_step2_edge(T *out, const T *sm, const fused_param<T> &f,
                                                 long long y0, long long x0)
{
    enum { KX = ftile<R>::KX };
    const long long x = x0 + threadIdx.x;
    if (x >= f.hi1) return;
    const bool clive = x >= f.ll1 && x < f.lh1;
    for (int i = threadIdx.y; i < TY && y0 + i < f.hi0; i += SB_FBY) {
        const long long y = y0 + i;
        const T *m = sm + (i + R) * KX + R + threadIdx.x;
        out[y * f.s0 + x] = clive && y >= f.ll0 && y < f.lh0 ? fused_cell<T, NP, false>(m, f) : *m;
    }
}

/*
 * A block takes the fast path when its whole R-padded step-1 tile is live and the cells that tile
 * reads lie in the array (step 1 then runs on every tile cell, those step 2 does not need
 * included, so the loops have no tests), and its output tile lies inside the box.
 */
template <typename T, int TY, int R>
__device__ __forceinline__ bool fused_fast(const fused_param<T> &f, long long y0, long long x0)
{
    return y0 - R >= f.ll0 && y0 + TY + R <= f.lh0 && y0 + TY <= f.hi0 && y0 - 2 * R >= 0 &&
           y0 + TY + 2 * R <= f.n0 && x0 - R >= f.ll1 && x0 + SB_FX + R <= f.lh1 &&
           x0 + SB_FX <= f.hi1 && x0 - 2 * R >= 0 && x0 + SB_FX + 2 * R <= f.s0;
}

#if defined(__CUDACC__) || defined(__HIPCC__)
/* TY output rows per block; R >= every extent of the points (1 or 2). */
template <typename T, int NP, int TY, int R>
__global__ void __launch_bounds__(SB_FX *SB_FBY, 3)
    k_fused(const T *__restrict__ in, T *__restrict__ out, const fused_param<T> f)
{
    enum { KX = ftile<R>::KX, KY = TY + 2 * R };
    extern __shared__ unsigned char sb_fused_smem[];
    T *sm = reinterpret_cast<T *>(sb_fused_smem);
    const long long y0 = f.lo0 + (long long)blockIdx.y * TY;
    const long long x0 = f.lo1 + (long long)blockIdx.x * SB_FX;
    if (fused_fast<T, TY, R>(f, y0, x0)) {
        SB_UNROLL
        for (int i0 = 0; i0 < KY; i0 += SB_FBY) {
            const int i = i0 + threadIdx.y;
            const T *row = in + (y0 - R + i) * f.s0 + x0 - R;
            SB_UNROLL
            for (int j0 = 0; j0 < KX; j0 += SB_FX) {
                const int j = j0 + threadIdx.x;
                if ((KY % SB_FBY == 0 || i < KY) && j < KX)
                    sm[i * KX + j] = fused_cell<T, NP, true>(row + j, f);
            }
        }
        __syncthreads();
        SB_UNROLL
        for (int i0 = 0; i0 < TY; i0 += SB_FBY) {
            const int i = i0 + threadIdx.y;
            const T *m = sm + (i + R) * KX + R + threadIdx.x;
            out[(y0 + i) * f.s0 + x0 + threadIdx.x] = fused_cell<T, NP, false>(m, f);
        }
        return;
    }
    fused_step1_edge<T, NP, TY, R>(in, sm, f, y0, x0);
    __syncthreads();
    fused_step2_edge<T, NP, TY, R>(out, sm, f, y0, x0);
}
#endif

} /* namespace SB_GPU_NS */

#endif /* SB_GPU_FUSED_CUH */
