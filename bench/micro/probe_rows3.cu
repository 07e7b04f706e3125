/*
 * probe_rows3: one-step 3D kernels (3d7 and 3d27, fp32) where each thread owns R rows of one
 * 16-byte x vector and walks W planes along z, against the library's 3D vector rows (one row a
 * thread, y neighbours through L1: kgt/emit_vec.c, bench/micro/probe_vec3.cu).
 *   - Each plane is loaded once: the thread's R rows and the rows above and below them (R + 2
 *     16-byte loads); the y neighbours of the thread's rows come from these registers, the x
 *     neighbours by warp shuffles (the warp's edge lanes load them).
 *   - The sums run in the arithmetic contract's order, which is plane-major (points in row-major
 *     order, the plane offset slowest): a loaded plane adds its terms to the sums of the outputs
 *     it is the plane below, the middle plane and the plane above of. Two sums a cell stay live
 *     instead of three planes of inputs.
 *   - PF = 1 loads the next plane one iteration ahead.
 * Not part of the library: it measures how far this design gets.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -o probe_rows3 bench/micro/probe_rows3.cu && ./probe_rows3
 *
 * Arithmetic: the contract's order, no contraction, split division with the `/` fallback as
 * kgt/split.c emits it; checked bitwise against the CPU on small grids. Layout: interior from
 * column 4 (16-byte aligned), rows padded to 32 floats, one halo plane and row, and spare rows
 * below the last so that the rows past the grid's end are readable (their outputs are not
 * stored).
 */
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "probe_ck.h"

enum { X0 = 4, SPARE = 64 };

struct G {
    int nx, ny, nz;
    long rs, ps; /* row and plane strides in floats */
};

#define SPLIT_LO   0x20000000u /* 2^-63 */
#define SPLIT_HI   0x5f000000u /* 2^63 */
#define SPLIT_SPAN (2u * (SPLIT_HI - SPLIT_LO))

template <int S> struct Div;
template <> struct Div<7> {
    static constexpr float d = 6.0f;
};
template <> struct Div<27> {
    static constexpr float d = 27.0f;
};

__device__ __forceinline__ float add(float a, float b)
{
    return __fadd_rn(a, b);
}

__device__ __forceinline__ float comp(const float4 &v, int j)
{
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}

__device__ __forceinline__ float &compr(float4 &v, int j)
{
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}

template <int S> __device__ __forceinline__ float4 divide(float4 s)
{
    constexpr float d = Div<S>::d, rd = 1.0f / Div<S>::d;
    unsigned m = 0;
    float4 q;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const float v = comp(s, j), q0 = __fmul_rn(v, rd);
        const unsigned o = __float_as_uint(v) * 2u - 2u * SPLIT_LO;
        m = o > m ? o : m;
        compr(q, j) = __fmaf_rn(__fmaf_rn(-d, q0, v), rd, q0);
    }
    if (m > SPLIT_SPAN)
#pragma unroll
        for (int j = 0; j < 4; j++) compr(q, j) = comp(s, j) / d;
    return q;
}

/* One loaded plane: rows y - 1 .. y + R of the thread's vector, and the cells left and right of
   it (x - 1 and x + 4) where the stencil reads them. */
template <int R> struct Plane {
    float4 v[R + 2];
    float l[R + 2], r[R + 2];
};

/* Rows whose x neighbours the stencil reads: 3d7 its own rows of the middle plane only (but a
   loaded plane is every plane in turn: its own rows), 3d27 all. */
template <int S, int R> __device__ __forceinline__ bool xrow(int k)
{
    return S == 27 || (k >= 1 && k <= R);
}

template <int S, int R>
__device__ __forceinline__ void load(Plane<R> &p, const float *c, long rs, int eL, int eR)
{
#pragma unroll
    for (int k = 0; k < R + 2; k++) p.v[k] = __ldg((const float4 *)(c + (k - 1) * rs));
#pragma unroll
    for (int k = 0; k < R + 2; k++)
        if (xrow<S, R>(k)) {
            p.l[k] = eL ? __ldg(c + (k - 1) * rs - 1) : 0.f;
            p.r[k] = eR ? __ldg(c + (k - 1) * rs + 4) : 0.f;
        }
}

/* The shuffles: l and r become the x - 1 and x + 4 cells of every row that needs them. */
template <int S, int R> __device__ __forceinline__ void neighbours(Plane<R> &p, int eL, int eR)
{
#pragma unroll
    for (int k = 0; k < R + 2; k++)
        if (xrow<S, R>(k)) {
            const float a = __shfl_up_sync(0xffffffffu, p.v[k].w, 1),
                        b = __shfl_down_sync(0xffffffffu, p.v[k].x, 1);
            if (!eL) p.l[k] = a;
            if (!eR) p.r[k] = b;
        }
}

/* Cell x + c (c in -1 .. 4) of row k. */
template <int R> __device__ __forceinline__ float cell(const Plane<R> &p, int k, int c)
{
    return c < 0 ? p.l[k] : c > 3 ? p.r[k] : comp(p.v[k], c);
}

/* Adds plane p's terms at plane offset dz to the sums a of the thread's rows (dz = -1: the first
   terms, which start the sums). */
template <int S, int R, int DZ> __device__ __forceinline__ void terms(float4 *a, const Plane<R> &p)
{
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float s = DZ == -1 ? 0.f : comp(a[r], j);
            bool first = DZ == -1;
            if (S == 7) {
                if (DZ != 0) {
                    s = first ? cell(p, r + 1, j) : add(s, cell(p, r + 1, j));
                } else {
                    s = add(s, cell(p, r, j));
                    s = add(s, cell(p, r + 1, j - 1));
                    s = add(s, cell(p, r + 1, j + 1));
                    s = add(s, cell(p, r + 2, j));
                }
            } else {
#pragma unroll
                for (int dy = -1; dy <= 1; dy++)
#pragma unroll
                    for (int dx = -1; dx <= 1; dx++) {
                        const float t = cell(p, r + 1 + dy, j + dx);
                        s = first ? t : add(s, t);
                        first = false;
                    }
            }
            compr(a[r], j) = s;
        }
}

template <int S, int R, int PF, int U>
__global__ void __launch_bounds__(256)
    kr(const float *__restrict__ in, float *__restrict__ out, G g, int W)
{
    const int nv = g.nx / 4, lane = (int)(threadIdx.x % 32);
    int xv = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int yb = 1 + (int)(blockIdx.y * blockDim.y + threadIdx.y) * R;
    if (yb > g.ny) return; /* whole warps: blockDim.x is a multiple of 32 */
    const int xact = xv < nv;
    if (xv > nv - 1) xv = nv - 1;
    const int eL = lane == 0, eR = lane == 31 || xv == nv - 1;
    const int z0 = 1 + (int)blockIdx.z * W, z1 = min(z0 + W, g.nz + 1);
    const long off = (long)yb * g.rs + X0 + 4 * xv;
    const float *c = in + off + (long)(z0 - 1) * g.ps;
    float *o = out + off + (long)z0 * g.ps;
    Plane<R> p, n;
    float4 a0[R], a1[R];
    load<S, R>(p, c, g.rs, eL, eR);
    neighbours<S, R>(p, eL, eR);
    terms<S, R, -1>(a0, p);
    c += g.ps;
    load<S, R>(p, c, g.rs, eL, eR);
    neighbours<S, R>(p, eL, eR);
    terms<S, R, 0>(a0, p);
    terms<S, R, -1>(a1, p);
    c += g.ps;
    if (PF) load<S, R>(n, c, g.rs, eL, eR);
#pragma unroll U
    for (int z = z0; z < z1; z++, o += g.ps) {
        if (PF) {
            p = n;
            if (z + 2 <= g.nz + 1) load<S, R>(n, c + g.ps, g.rs, eL, eR);
        } else
            load<S, R>(p, c, g.rs, eL, eR);
        c += g.ps;
        neighbours<S, R>(p, eL, eR);
        terms<S, R, 1>(a0, p);
#pragma unroll
        for (int r = 0; r < R; r++) {
            const float4 q = divide<S>(a0[r]);
            if (xact && yb + r <= g.ny) *(float4 *)(o + r * g.rs) = q;
        }
        terms<S, R, 0>(a1, p);
#pragma unroll
        for (int r = 0; r < R; r++) a0[r] = a1[r];
        terms<S, R, -1>(a1, p);
    }
}

/* The same walk as a copy (S = 1): each thread copies its R rows of each of its W planes, the
   ceiling of this traversal. */
template <int R>
__global__ void __launch_bounds__(256)
    kcopy(const float *__restrict__ in, float *__restrict__ out, G g, int W)
{
    const int nv = g.nx / 4;
    int xv = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int yb = 1 + (int)(blockIdx.y * blockDim.y + threadIdx.y) * R;
    if (yb > g.ny || xv >= nv) return;
    const int z0 = 1 + (int)blockIdx.z * W, z1 = min(z0 + W, g.nz + 1);
    const long off = (long)yb * g.rs + X0 + 4 * xv + (long)z0 * g.ps;
    const float *c = in + off;
    float *o = out + off;
    for (int z = z0; z < z1; z++, c += g.ps, o += g.ps) {
        float4 v[R];
#pragma unroll
        for (int r = 0; r < R; r++) v[r] = __ldg((const float4 *)(c + r * g.rs));
#pragma unroll
        for (int r = 0; r < R; r++)
            if (yb + r <= g.ny) *(float4 *)(o + r * g.rs) = v[r];
    }
}

/* The 3D 7-point walk of ky (S 107): rows y - 1, y, y + 1 of the thread's planes rolling. */
template <int R>
__device__ __forceinline__ void walk_y(const float *c, float *o, const G &g, int xact, int zb,
                                       int eL, int eR, int y0, int y1)
{
    float4 A[R + 2], B[R + 2], C[R + 2];
    float bl[R + 2], br[R + 2], cl[R + 2], cr[R + 2];
#pragma unroll
    for (int k = 0; k < R + 2; k++) A[k] = __ldg((const float4 *)(c + (k - 1) * g.ps));
    c += g.rs;
#pragma unroll
    for (int k = 0; k < R + 2; k++) {
        B[k] = __ldg((const float4 *)(c + (k - 1) * g.ps));
        bl[k] = eL ? __ldg(c + (k - 1) * g.ps - 1) : 0.f;
        br[k] = eR ? __ldg(c + (k - 1) * g.ps + 4) : 0.f;
    }
    for (int y = y0; y < y1; y++, o += g.rs) {
        c += g.rs;
#pragma unroll
        for (int k = 0; k < R + 2; k++) {
            C[k] = __ldg((const float4 *)(c + (k - 1) * g.ps));
            if (k >= 1 && k <= R) {
                cl[k] = eL ? __ldg(c + (k - 1) * g.ps - 1) : 0.f;
                cr[k] = eR ? __ldg(c + (k - 1) * g.ps + 4) : 0.f;
            }
        }
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int k = r + 1;
            float l = __shfl_up_sync(0xffffffffu, B[k].w, 1),
                  rr = __shfl_down_sync(0xffffffffu, B[k].x, 1);
            if (eL) l = bl[k];
            if (eR) rr = br[k];
            float4 sum;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                float t = comp(B[k - 1], j);
                t = add(t, comp(A[k], j));
                t = add(t, j == 0 ? l : comp(B[k], j - 1));
                t = add(t, j == 3 ? rr : comp(B[k], j + 1));
                t = add(t, comp(C[k], j));
                t = add(t, comp(B[k + 1], j));
                compr(sum, j) = t;
            }
            const float4 q = divide<7>(sum);
            if (xact && zb + r <= g.nz) *(float4 *)(o + r * g.ps) = q;
        }
#pragma unroll
        for (int k = 0; k < R + 2; k++) {
            A[k] = B[k], B[k] = C[k];
            if (k >= 1 && k <= R) bl[k] = cl[k], br[k] = cr[k];
        }
    }
}

/*
 * Walking y instead (S = 101: a copy, 107: 3d7): each thread owns R planes of one 16-byte x
 * vector of a row and walks W rows; the rows y - 1, y, y + 1 of the planes zb - 1 .. zb + R roll
 * through registers (R + 2 loads a row), as the 2D vector rows roll rows. Planes past the grid's
 * end are spare planes of the allocation (outputs not stored).
 */
template <int S, int R>
__global__ void __launch_bounds__(256)
    ky(const float *__restrict__ in, float *__restrict__ out, G g, int W)
{
    const int nv = g.nx / 4, lane = (int)(threadIdx.x % 32);
    int xv = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int zb = 1 + (int)(blockIdx.z * blockDim.y + threadIdx.y) * R;
    if (zb > g.nz) return;
    const int xact = xv < nv;
    if (xv > nv - 1) xv = nv - 1;
    const int eL = lane == 0, eR = lane == 31 || xv == nv - 1;
    const int y0 = 1 + (int)blockIdx.y * W, y1 = min(y0 + W, g.ny + 1);
    const long off = (long)zb * g.ps + X0 + 4 * xv;
    const float *c = in + off + (long)(y0 - 1) * g.rs;
    float *o = out + off + (long)y0 * g.rs;
    if constexpr (S == 1) {
        c += g.rs;
        for (int y = y0; y < y1; y++, c += g.rs, o += g.rs) {
            float4 v[R];
#pragma unroll
            for (int r = 0; r < R; r++) v[r] = __ldg((const float4 *)(c + r * g.ps));
#pragma unroll
            for (int r = 0; r < R; r++)
                if (xact && zb + r <= g.nz) *(float4 *)(o + r * g.ps) = v[r];
        }
    } else
        walk_y<R>(c, o, g, xact, zb, eL, eR, y0, y1);
}

static G mk(int nx, int ny, int nz)
{
    G g = {nx, ny, nz, 0, 0};
    g.rs = ((X0 + nx + 1) + 31) / 32 * 32;
    g.ps = g.rs * (ny + 2 + SPARE);
    return g;
}

typedef void (*kfn)(const float *, float *, G, int);

template <int S, int R> static kfn pick(int pf, int u)
{
    if (pf) return u == 2 ? kr<S, R, 1, 2> : kr<S, R, 1, 1>;
    return u == 2 ? kr<S, R, 0, 2> : kr<S, R, 0, 1>;
}

static kfn kernel(int s, int r, int pf, int u)
{
    if (s == 1) return r == 2 ? kcopy<2> : r == 4 ? kcopy<4> : kcopy<8>;
    if (s == 101) return r == 2 ? ky<1, 2> : r == 4 ? ky<1, 4> : ky<1, 8>;
    if (s == 107) return r == 2 ? ky<7, 2> : r == 4 ? ky<7, 4> : ky<7, 8>;
    if (s == 7) return r == 2 ? pick<7, 2>(pf, u) : r == 4 ? pick<7, 4>(pf, u) : pick<7, 8>(pf, u);
    return r == 2 ? pick<27, 2>(pf, u) : r == 4 ? pick<27, 4>(pf, u) : pick<27, 8>(pf, u);
}

struct Cfg {
    int s, r, pf, u, bx, by, w;
};

static void launch(const Cfg &k, const float *a, float *b, const G &g)
{
    dim3 grid((unsigned)((g.nx / 4 + k.bx - 1) / k.bx),
              (unsigned)((g.ny + k.r * k.by - 1) / (k.r * k.by)),
              (unsigned)((g.nz + k.w - 1) / k.w));
    if (k.s > 100)
        grid = dim3((unsigned)((g.nx / 4 + k.bx - 1) / k.bx), (unsigned)((g.ny + k.w - 1) / k.w),
                    (unsigned)((g.nz + k.r * k.by - 1) / (k.r * k.by)));
    kernel(k.s, k.r, k.pf, k.u)<<<grid, dim3(k.bx, k.by)>>>(a, b, g, k.w);
}

static void ref(int s, const std::vector<float> &a, std::vector<float> &b, const G &g)
{
    for (int z = 1; z <= g.nz; z++)
        for (int y = 1; y <= g.ny; y++)
            for (int x = X0; x < X0 + g.nx; x++) {
                long c = z * g.ps + y * g.rs + x;
                volatile float t;
                if (s % 100 == 7) {
                    t = a[c - g.ps];
                    t = t + a[c - g.rs];
                    t = t + a[c - 1];
                    t = t + a[c + 1];
                    t = t + a[c + g.rs];
                    t = t + a[c + g.ps];
                    b[c] = t / 6.0f;
                    continue;
                }
                bool first = true;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            float v = a[c + dz * g.ps + dy * g.rs + dx];
                            if (first)
                                t = v;
                            else
                                t = t + v;
                            first = false;
                        }
                b[c] = t / 27.0f;
            }
}

static int check(const Cfg &k, int nx, int ny, int nz)
{
    G g = mk(nx, ny, nz);
    long n = g.ps * (nz + 2 + 16);
    std::vector<float> h(n), r(n, 0.f), d(n);
    srand(11);
    for (long i = 0; i < n; i++) h[i] = (float)rand() / RAND_MAX - 0.3f;
    for (long i = 0; i < n; i += 97) h[i] = 1e-40f; /* subnormals: the `/` fallback */
    float *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(b, 0, n * 4));
    launch(k, a, b, g);
    CK(cudaGetLastError());
    CK(cudaMemcpy(d.data(), b, n * 4, cudaMemcpyDeviceToHost));
    ref(k.s, h, r, g);
    long bad = 0;
    for (long i = 0; i < n; i++) bad += memcmp(&d[i], &r[i], 4) != 0;
    CK(cudaFree(a));
    CK(cudaFree(b));
    if (bad)
        printf("{\"probe\": \"rows3-check\", \"stencil\": \"3d%d\", \"R\": %d, \"pf\": %d, "
               "\"u\": %d, \"block\": [%d, %d], \"W\": %d, \"grid\": [%d, %d, %d], "
               "\"cells_differing\": %ld}\n",
               k.s, k.r, k.pf, k.u, k.bx, k.by, k.w, nx, ny, nz, bad);
    return bad != 0;
}

static double time_cfg(const Cfg &k, float *a, float *b, const G &g, int reps)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 2; i++) launch(k, a, b, g);
    CK(cudaEventRecord(e0));
    for (int i = 0; i < reps; i++) launch(k, i & 1 ? b : a, i & 1 ? a : b, g);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return (double)g.nx * g.ny * g.nz * reps / (ms * 1e-3) / 1e9;
}

/* ./probe_rows3 [3d7 size] [3d27 size]; ./probe_rows3 one S R PF U BX BY W N (S = 1: the copy);
   ./probe_rows3 copy N: the copy's sweep. */
int main(int argc, char **argv)
{
    if (argc > 2 && (!strcmp(argv[1], "one") || !strcmp(argv[1], "copy"))) {
        const int one = !strcmp(argv[1], "one"), N = atoi(argv[one ? 9 : 2]);
        G g = mk(N, N, N);
        long n = g.ps * (N + 2 + 16);
        float *a, *b;
        CK(cudaMalloc(&a, n * 4));
        CK(cudaMalloc(&b, n * 4));
        probe_fill<<<4096, 256>>>(a, n);
        probe_fill<<<4096, 256>>>(b, n);
        CK(cudaDeviceSynchronize());
        std::vector<Cfg> ks;
        if (one)
            ks.push_back({atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]),
                          atoi(argv[7]), atoi(argv[8])});
        else {
            int bad = 0;
            for (int s : {107})
                for (int r : {2, 4, 8})
                    for (int w : {1, 3, 8}) {
                        bad += check({s, r, 0, 1, 32, 2, w}, 1020, 37, 45);
                        bad += check({s, r, 0, 1, 64, 1, w}, 44, 29, 23);
                    }
            printf("{\"probe\": \"rows3-checks\", \"ywalk_differing\": %d}\n", bad);
            const std::vector<std::array<int, 2>> bls = {
                {128, 2}, {256, 1}, {64, 4}, {128, 1}, {32, 8}};
            for (int s : {101, 107})
                for (int r : {2, 4, 8})
                    for (auto bl : bls)
                        for (int w : {4, 8, 16, 32, 64})
                            ks.push_back({s, r, 0, 1, bl[0], bl[1], w});
            for (int r : {2, 4})
                for (auto bl : bls)
                    for (int w : {1, 2, 3, 4, 6}) ks.push_back({7, r, 0, 1, bl[0], bl[1], w});
        }
        for (auto &k : ks)
            printf("{\"probe\": \"rows3\", \"stencil\": \"%s\", \"n\": %d, \"R\": %d, \"pf\": %d, "
                   "\"u\": %d, \"block\": [%d, %d], \"W\": %d, \"gcells\": %.1f}\n",
                   k.s == 1     ? "copy"
                   : k.s == 101 ? "copy-y"
                   : k.s == 107 ? "3d7-y"
                   : k.s == 7   ? "3d7"
                                : "3d27",
                   N, k.r, k.pf, k.u, k.bx, k.by, k.w, time_cfg(k, a, b, g, one ? 3 : 10));
        return 0;
    }
    const int n7 = argc > 1 ? atoi(argv[1]) : 1024, n27 = argc > 2 ? atoi(argv[2]) : 512;
    const int reps = 10;
    int bad = 0, nchk = 0;
    const std::vector<std::array<int, 2>> blocks = {{32, 1}, {32, 2}, {32, 4},  {32, 8},  {64, 1},
                                                    {64, 2}, {64, 4}, {128, 1}, {128, 2}, {256, 1}};
    for (int s : {7, 27})
        for (int r : {2, 4, 8})
            for (int pf : {0, 1})
                for (int u : {1, 2})
                    for (auto &bl : {std::array<int, 2>{32, 2}, std::array<int, 2>{64, 1}})
                        for (int w : {1, 3, 8}) {
                            Cfg k = {s, r, pf, u, bl[0], bl[1], w};
                            bad += check(k, 1020, 37, 45);
                            bad += check(k, 44, 29, 23);
                            nchk += 2;
                        }
    printf("{\"probe\": \"rows3-checks\", \"runs\": %d, \"differing\": %d}\n", nchk, bad);
    fflush(stdout);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int s : {7, 27}) {
        const int N = s == 7 ? n7 : n27;
        G g = mk(N, N, N);
        long n = g.ps * (N + 2 + 16);
        double cells = (double)N * N * N;
        float *a, *b;
        CK(cudaMalloc(&a, n * 4));
        CK(cudaMalloc(&b, n * 4));
        probe_fill<<<4096, 256>>>(a, n);
        probe_fill<<<4096, 256>>>(b, n);
        CK(cudaDeviceSynchronize());
        for (int r : {2, 4, 8})
            for (int pf : {0, 1})
                for (int u : {1, 2}) {
                    cudaFuncAttributes at;
                    CK(cudaFuncGetAttributes(&at, kernel(s, r, pf, u)));
                    for (auto &bl : blocks)
                        for (int w : {8, 16, 32, 64}) {
                            Cfg k = {s, r, pf, u, bl[0], bl[1], w};
                            for (int i = 0; i < 2; i++) launch(k, a, b, g);
                            CK(cudaEventRecord(e0));
                            for (int i = 0; i < reps; i++)
                                launch(k, i & 1 ? b : a, i & 1 ? a : b, g);
                            CK(cudaEventRecord(e1));
                            CK(cudaEventSynchronize(e1));
                            CK(cudaGetLastError());
                            float ms;
                            CK(cudaEventElapsedTime(&ms, e0, e1));
                            printf("{\"probe\": \"rows3\", \"stencil\": \"3d%d\", \"n\": %d, "
                                   "\"R\": %d, \"pf\": %d, \"u\": %d, \"regs\": %d, \"block\": "
                                   "[%d, %d], \"W\": %d, \"gcells\": %.1f}\n",
                                   s, N, r, pf, u, at.numRegs, bl[0], bl[1], w,
                                   cells * reps / (ms * 1e-3) / 1e9);
                            fflush(stdout);
                        }
                }
        CK(cudaFree(a));
        CK(cudaFree(b));
    }
    return bad != 0;
}
