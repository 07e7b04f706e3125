/*
 * Issue 5 study (not library code): T time steps per launch by register streaming.
 *
 * bench/gpu/fused.cu's tile kernel computes step 1 on a 2D tile grown by the radius and reads
 * every neighbour of step 2 from shared memory; at radius 2 (2d9nc) it is slower than one step
 * per launch (bench/RESULTS.md, "kgt, third/fourth session"). Here a block of B threads covers a
 * strip of B*V columns (each thread V adjacent columns, one V-wide vector) and walks down the rows
 * of a block of rows. For its own columns each thread keeps, per level l = 0..T-1 (0 = the input,
 * l = the result of step l), a sliding window of the 2R+1 rows around the row it updates next, in
 * registers: vertical neighbours are registers, only the R horizontal neighbours on each side
 * come from the neighbouring threads, through a two-row ring of shared memory (one barrier per
 * row, all levels at once). Per input row entering the window, each level advances one row:
 * level l+1 gets row y - (l+1) R; level T is stored. Intermediate levels never leave the chip.
 * The strip's outer HP >= T*R columns on each side are computed but not stored (their neighbours
 * are missing); a block's first 2*T*R rows only fill the windows.
 *
 * Frame: cells outside [R, N-R)^2 keep their values at every step, so at every level a frame
 * cell's value is its value at the level below (the centre of the window) and, by induction, its
 * input value. Rows and columns past the grid are loaded clamped into it: they feed only frame
 * cells or cells that are not stored. Blocks whose used cells are all inside the frame take a
 * path without the per-cell frame test.
 *
 * Division (2d9nc): "ieee" is the expression's `/ 24.0f` as the compiler emits it (a slow-path
 * test and branch per cell); "split" computes the same correctly rounded quotient with two fmas
 * and one range test per row of V cells, falling back to `/` (div_split; checked against `/` on
 * all 2^32 floats at start, and the split variants are skipped if any differs).
 *
 *   bench_stream STENCIL N ITERS      STENCIL: 2d4 | 2d9nc; the grid is N x N fp32
 *   STREAM_SET=quick|best|ncu         fewer variants (default: the whole sweep)
 *
 * Every variant is first checked against T steps of a plain one-cell-per-thread kernel on random
 * data (same arithmetic in the same order, so the result must be bitwise equal; -fmad=false as
 * the project builds its kernels): mismatches counts differing cells, and any mismatch fails.
 * Then ITERS steps (ITERS / T launches) are timed three times after a warm-up; Gcells/s =
 * (N-2R)^2 * steps / s / 1e9, gcells the median of the three. One JSON line per variant (field
 * commit from $BENCH_COMMIT).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.cuh"

/*
 * A neighbour in the streaming kernel, for column j of a thread's V: vertical ones from the
 * window w (2R+1 rows), horizontal ones from hz (the centre row plus R columns on each side).
 * Star stencils only: no point has dy and dx both non-zero.
 */
template <int R, int V> struct RAcc {
    const float (*w)[V];
    const float *hz;
    int j;
    __device__ float operator()(int dy, int dx) const
    {
        return dx == 0 ? w[R + dy][j] : hz[R + j + dx];
    }
};

/*
 * The same two stencils and the same expressions as bench/gpu/fused.cu: f = num, then the
 * division by D (D = 0: none).
 */
struct S2d4 {
    enum { R = 1 };
    static constexpr float D = 0.0f;
    template <class A> __device__ static float num(const A &v)
    {
        return v(-1, 0) + v(0, -1) + v(0, 1) + v(1, 0);
    }
    template <class A> __device__ static float f(const A &v)
    {
        return num(v) * 0.25f;
    }
};

struct S2d9nc {
    enum { R = 2 };
    static constexpr float D = 24.0f;
    template <class A> __device__ static float num(const A &v)
    {
        return v(-2, 0) + 4.0f * v(-1, 0) + v(0, -2) + 4.0f * v(0, -1) + 4.0f * v(0, 0) +
               4.0f * v(0, 1) + v(0, 2) + 4.0f * v(1, 0) + v(2, 0);
    }
    template <class A> __device__ static float f(const A &v)
    {
        return num(v) / 24.0f;
    }
};

template <class S> __global__ void k_step(const float *in, float *out, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < S::R || y < S::R || x >= n - S::R || y >= n - S::R) return;
    out[(size_t)y * n + x] = S::f(Acc{in + (size_t)y * n + x, n});
}

__host__ __device__ constexpr int gcd(int a, int b)
{
    return b == 0 ? a : gcd(b, a % b);
}
__host__ __device__ constexpr int lcm(int a, int b)
{
    return a / gcd(a, b) * b;
}

/* V floats from p: one 16-, 8- or 4-byte access (VEC) or V clamped scalar ones. */
template <int V, bool VEC>
__device__ __forceinline__ void load(float (&d)[V], const float *__restrict__ row, int x, int n)
{
    if constexpr (VEC && V == 4) {
        float4 t = *(const float4 *)(row + x);
        d[0] = t.x, d[1] = t.y, d[2] = t.z, d[3] = t.w;
    } else if constexpr (VEC && V == 2) {
        float2 t = *(const float2 *)(row + x);
        d[0] = t.x, d[1] = t.y;
    } else {
#pragma unroll
        for (int j = 0; j < V; j++) d[j] = row[min(max(x + j, 0), n - 1)];
    }
}

template <int V> __device__ __forceinline__ void store_sh(float *p, const float (&s)[V])
{
    if constexpr (V == 4)
        *(float4 *)p = make_float4(s[0], s[1], s[2], s[3]);
    else if constexpr (V == 2)
        *(float2 *)p = make_float2(s[0], s[1]);
    else
        p[0] = s[0];
}

/*
 * v, computed where it stands: without this the compiler moves each cell's update into a branch
 * of its own (the frame test), one cell after another, and the cells' updates no longer overlap.
 */
__device__ __forceinline__ float opaque(float v)
{
    asm volatile("" : "+f"(v));
    return v;
}

/* Shifts a window of K rows up by one and appends a row. */
template <int K, int V> __device__ __forceinline__ void push(float (&w)[K][V], const float (&r)[V])
{
#pragma unroll
    for (int k = 0; k + 1 < K; k++)
#pragma unroll
        for (int j = 0; j < V; j++) w[k][j] = w[k + 1][j];
#pragma unroll
    for (int j = 0; j < V; j++) w[K - 1][j] = r[j];
}

/*
 * The quotient of a division by d (d > 0, rd = RN(1/d)) without the compiler's per-division
 * slow-path branch: q0 = RN(s rd) is within one ulp of s/d, the residual s - d q0 is exact (fma),
 * and RN(q0 + rd (s - d q0)) is RN(s/d) (Markstein) as long as nothing under- or overflows. The
 * caller folds |s| into [lo, hi] (bit patterns) and takes the true division where it leaves
 * DIV_LO..DIV_HI; check_split() verifies all 2^32 inputs against `/`.
 */
#define DIV_LO 0x20000000u /* 2^-63 */
#define DIV_HI 0x5f000000u /* 2^63 */
__device__ __forceinline__ float div_split(float s, float d, float rd, unsigned &lo, unsigned &hi)
{
    const float q0 = __fmul_rn(s, rd);
    const unsigned a = __float_as_uint(s) & 0x7fffffffu;
    lo = min(lo, a), hi = max(hi, a);
    return fmaf(fmaf(-d, q0, s), rd, q0);
}

__global__ void k_check_split(float d, unsigned long long *bad)
{
    const float rd = __frcp_rn(d);
    unsigned long long nb = 0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         i < (1ull << 32); i += (unsigned long long)gridDim.x * blockDim.x) {
        const float s = __uint_as_float((unsigned)i);
        unsigned lo = ~0u, hi = 0;
        const float q = div_split(s, d, rd, lo, hi);
        nb += lo >= DIV_LO && hi <= DIV_HI && __float_as_uint(q) != __float_as_uint(s / d);
    }
    atomicAdd(bad, nb);
}

/*
 * The walk of one block (see k_stream). FAST: every cell whose value is used is updated at every
 * level (no frame test, no clamped columns); else the frame test per cell, as a select.
 * SPLIT: S::D's division by div_split, a row of V cells at a time, with `/` for a row whose
 * numerators leave the range.
 */
template <class S, int T, int V, int B, int P, bool VEC, bool FAST, bool SPLIT>
__device__ __forceinline__ void walk(const float *__restrict__ in, float *__restrict__ out, int n,
                                     int x, int ybeg, int yend,
                                     float (*sh)[T][B * V + 2 * ((S::R + V - 1) / V * V)])
{
    enum {
        R = S::R,
        WL = 2 * R + 1,               /* window rows */
        HP = (T * R + V - 1) / V * V, /* columns loaded but not stored, each side */
        W = B * V - 2 * HP,           /* output columns per block */
        PAD = (R + V - 1) / V * V,    /* shared row padding, each side */
        SW = B * V + 2 * PAD,         /* shared row length */
        U = lcm(lcm(WL, P), 2)        /* unrolled rows: windows, prefetch ring, parity */
    };
    const int tid = threadIdx.x;
    bool cu[V], st[V], stall = true; /* updated columns; stored columns */
#pragma unroll
    for (int j = 0; j < V; j++) {
        cu[j] = x + j >= R && x + j < n - R;
        st[j] = cu[j] && tid * V >= HP && tid * V < HP + W;
        stall = stall && st[j];
    }
    const int xl = VEC && !FAST ? min(max(x, 0), n - V) : x; /* clamped into the grid */
    const float rd = SPLIT ? __frcp_rn(S::D) : 0.0f;
    float w[T][WL][V], pf[P][V];
#pragma unroll
    for (int l = 0; l < T; l++)
#pragma unroll
        for (int k = 0; k < WL; k++)
#pragma unroll
            for (int j = 0; j < V; j++) w[l][k][j] = 0.0f;
    int y = ybeg - T * R; /* the input row entering the windows */
#pragma unroll
    for (int k = 0; k < P; k++)
        load<V, VEC>(pf[k], in + (size_t)min(max(y + k, 0), n - 1) * n, xl, n);
    const int niter = yend - ybeg + 2 * T * R;
    for (int i0 = 0; i0 < niter; i0 += U) {
#pragma unroll
        for (int u = 0; u < U; u++, y++) {
            float(*s)[SW] = sh[u & 1];
            /* the centre rows of this row's updates, level by level (pushed rows come later) */
#pragma unroll
            for (int l = 0; l < T; l++) store_sh<V>(&s[l][PAD + tid * V], w[l][R + 1]);
            __syncthreads();
            push(w[0], pf[0]);
#pragma unroll
            for (int k = 0; k + 1 < P; k++)
#pragma unroll
                for (int j = 0; j < V; j++) pf[k][j] = pf[k + 1][j];
            load<V, VEC>(pf[P - 1], in + (size_t)min(max(y + P, 0), n - 1) * n, xl, n);
#pragma unroll
            for (int l = 0; l < T; l++) {
                const int r = y - (l + 1) * R; /* the row of level l+1 computed now */
                float hz[V + 2 * R], nv[V];
#pragma unroll
                for (int k = 0; k < R; k++) {
                    hz[k] = s[l][PAD + tid * V - R + k];
                    hz[R + V + k] = s[l][PAD + tid * V + V + k];
                }
#pragma unroll
                for (int j = 0; j < V; j++) hz[R + j] = w[l][R][j];
                if constexpr (SPLIT) {
                    unsigned lo = ~0u, hi = 0;
#pragma unroll
                    for (int j = 0; j < V; j++)
                        nv[j] = div_split(S::num(RAcc<R, V>{w[l], hz, j}), S::D, rd, lo, hi);
                    if (lo < DIV_LO || hi > DIV_HI)
#pragma unroll
                        for (int j = 0; j < V; j++) nv[j] = S::f(RAcc<R, V>{w[l], hz, j});
                } else {
#pragma unroll
                    for (int j = 0; j < V; j++) nv[j] = S::f(RAcc<R, V>{w[l], hz, j});
                }
                if constexpr (!FAST) {
                    const bool ru = r >= R && r < n - R;
#pragma unroll
                    for (int j = 0; j < V; j++) nv[j] = ru && cu[j] ? opaque(nv[j]) : w[l][R][j];
                }
                if (l + 1 < T)
                    push(w[l + 1 < T ? l + 1 : l], nv);
                else if (r >= ybeg && r < yend) {
                    float *o = out + (size_t)r * n + x;
                    if (VEC && stall)
                        store_sh<V>(o, nv);
                    else
#pragma unroll
                        for (int j = 0; j < V; j++)
                            if (st[j]) o[j] = nv[j];
                }
            }
        }
    }
}

/*
 * T steps of S per launch. Block (bx, by): columns [bx*W - HP, bx*W - HP + B*V) loaded, output
 * columns [bx*W, bx*W + W) (within [R, n-R)), output rows [R + by*h, R + by*h + h). VEC: vector
 * accesses (n a multiple of V). P: input rows loaded ahead, in registers. A block whose used
 * cells are all inside the frame takes the FAST walk.
 */
template <class S, int T, int V, int B, int P, bool VEC, bool SPLIT>
__global__ void __launch_bounds__(B)
    k_stream(const float *__restrict__ in, float *__restrict__ out, int n, int h)
{
    enum {
        R = S::R,
        HP = (T * R + V - 1) / V * V,
        W = B * V - 2 * HP,
        PAD = (R + V - 1) / V * V,
        SW = B * V + 2 * PAD
    };
    static_assert(W > 0, "strip too narrow");
    __shared__ __align__(16) float sh[2][T][SW];
    const int tid = threadIdx.x, x0 = (int)blockIdx.x * W - HP, x = x0 + tid * V;
    const int ybeg = R + (int)blockIdx.y * h, yend = min(ybeg + h, n - R);
    if (ybeg >= yend) return; /* the whole block */
    if (tid < PAD)
#pragma unroll
        for (int p = 0; p < 2 * T; p++) sh[p / T][p % T][tid] = sh[p / T][p % T][SW - 1 - tid] = 0;
    /* levels 1..T-1 are used on rows [ybeg - (T-1)R, yend + (T-1)R) and on the loaded columns */
    const bool fast = VEC && x0 >= R && x0 + B * V <= n - R && ybeg - (T - 1) * R >= R &&
                      yend + (T - 1) * R <= n - R;
    if (fast)
        walk<S, T, V, B, P, VEC, true, SPLIT>(in, out, n, x, ybeg, yend, sh);
    else
        walk<S, T, V, B, P, VEC, false, SPLIT>(in, out, n, x, ybeg, yend, sh);
}

template <class S> static void step(const float *a, float *b, int n)
{
    k_step<S><<<dim3((n + 31) / 32, (n + 7) / 8), dim3(32, 8)>>>(a, b, n);
}

/*
 * One variant: its launch shape and kernel (vector or scalar accesses, by n). rows > 0: about
 * that many output rows per block; rows = -k: as many as make the grid k waves of resident blocks
 * at most (each wave one block per slot: blocks per SM times SMs).
 */
template <class S, int T, int V, int B, int P, bool SPLIT> struct Stream {
    enum { R = S::R, HP = (T * R + V - 1) / V * V, W = B * V - 2 * HP };
    int n, h;
    dim3 grid;
    void (*kern)(const float *, float *, int, int);
    Stream(int n_, int rows) : n(n_)
    {
        if (n % V == 0)
            kern = k_stream<S, T, V, B, P, true, SPLIT>;
        else
            kern = k_stream<S, T, V, B, P, false, SPLIT>;
        /* h plus the 2TR warm-up rows a multiple of the unroll: no idle iterations */
        const int u = lcm(lcm(2 * R + 1, P), 2), m = n - 2 * R, strips = (n - R + W - 1) / W;
        h = (rows + 2 * T * R + u - 1) / u * u - 2 * T * R;
        if (rows < 0) {
            int per_sm = 0, sms = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)kern, B, 0));
            CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
            const long ymax = ((long)-rows * per_sm * sms) / strips;
            for (h = u - 2 * T * R; h <= 0 || (m + h - 1) / h > ymax; h += u) {
            }
        }
        grid = dim3(strips, (m + h - 1) / h);
    }
    void operator()(const float *a, float *b) const
    {
        kern<<<grid, B>>>(a, b, n, h);
    }
};

static double ms_between(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* Random values in [0, 1) from the cell index (not zeros). */
__global__ void k_init(float *a, size_t cells)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < cells;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long r = (i + 1) * 0x9E3779B97F4A7C15ULL;
        r ^= r >> 31, r *= 0xBF58476D1CE4E5B9ULL, r ^= r >> 27, r *= 0x94D049BB133111EBULL;
        r ^= r >> 33;
        a[i] = (float)(r >> 40) / 16777216.0f;
    }
}

/* Counts bitwise differences; the largest |a - b| as float bits (non-negative: ordered). */
__global__ void k_cmp(const float *a, const float *b, size_t cells, unsigned long long *bad,
                      unsigned *maxd)
{
    unsigned long long nb = 0;
    float md = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < cells;
         i += (size_t)gridDim.x * blockDim.x) {
        nb += __float_as_uint(a[i]) != __float_as_uint(b[i]);
        float d = fabsf(a[i] - b[i]);
        md = d > md ? d : md;
    }
    atomicAdd(bad, nb);
    atomicMax(maxd, __float_as_uint(md));
}

/* The grid, T-step references, scratch; shared by the variants of one stencil. */
struct Ctx {
    const char *name, *commit;
    int n, iters;
    size_t cells;
    float *a, *b, *c, *ref[5]; /* a: the initial data; ref[t]: t plain steps (t = 2..4) */
    unsigned long long *bad;
    unsigned *maxd;
    double plain; /* Gcells/s of the plain kernel */
};

template <class S> static void setup(Ctx *x)
{
    size_t bytes = x->cells * sizeof(float);
    CK(cudaMalloc(&x->a, bytes));
    CK(cudaMalloc(&x->b, bytes));
    CK(cudaMalloc(&x->c, bytes));
    CK(cudaMalloc(&x->bad, sizeof *x->bad));
    CK(cudaMalloc(&x->maxd, sizeof *x->maxd));
    k_init<<<1024, 256>>>(x->a, x->cells);
    CK(cudaGetLastError());
    for (int t = 0; t < 5; t++) x->ref[t] = NULL;
    const float *prev = x->a;
    for (int t = 1; t <= 4; t++) { /* every reference keeps the frame: a copy of a first */
        CK(cudaMalloc(&x->ref[t], bytes));
        CK(cudaMemcpy(x->ref[t], x->a, bytes, cudaMemcpyDeviceToDevice));
        step<S>(prev, x->ref[t], x->n);
        prev = x->ref[t];
    }
    CK(cudaMemcpy(x->b, x->a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(x->c, x->a, bytes, cudaMemcpyDeviceToDevice));
    cudaEvent_t e[2];
    for (int i = 0; i < 2; i++) CK(cudaEventCreate(&e[i]));
    step<S>(x->b, x->c, x->n); /* warm-up */
    CK(cudaEventRecord(e[0]));
    for (int t = 0; t < x->iters; t++) step<S>(t & 1 ? x->c : x->b, t & 1 ? x->b : x->c, x->n);
    CK(cudaEventRecord(e[1]));
    CK(cudaEventSynchronize(e[1]));
    CK(cudaGetLastError());
    double inner = (double)(x->n - 2 * S::R) * (x->n - 2 * S::R);
    x->plain = inner * x->iters / ms_between(e[0], e[1]) / 1e6;
    for (int i = 0; i < 2; i++) CK(cudaEventDestroy(e[i]));
}

static int cmp_desc(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a < b) - (a > b);
}

/* Checks a variant against T plain steps, times it, prints a line; 1 if any cell differs. */
template <class S, int T, int V, int B, int P, bool SPLIT = false>
static int variant(Ctx *x, int rows)
{
    static_assert(T >= 1 && T <= 4, "references exist for 1..4 steps");
    static_assert(!SPLIT || S::D > 0.0f, "div_split needs a division");
    Stream<S, T, V, B, P, SPLIT> k(x->n, rows);
    size_t bytes = x->cells * sizeof(float);
    unsigned long long bad = 0;
    unsigned md = 0;
    /* out holds the frame (as in the library); an interior cell not written keeps its input */
    CK(cudaMemcpy(x->c, x->a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(x->b, x->a, bytes, cudaMemcpyDeviceToDevice));
    k(x->a, x->c);
    CK(cudaGetLastError());
    CK(cudaMemset(x->bad, 0, sizeof *x->bad));
    CK(cudaMemset(x->maxd, 0, sizeof *x->maxd));
    k_cmp<<<1024, 256>>>(x->c, x->ref[T], x->cells, x->bad, x->maxd);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&bad, x->bad, sizeof bad, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&md, x->maxd, sizeof md, cudaMemcpyDeviceToHost));
    float maxdiff;
    memcpy(&maxdiff, &md, sizeof maxdiff);
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, (const void *)k.kern));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)k.kern, B, 0));
    cudaEvent_t e[2];
    for (int i = 0; i < 2; i++) CK(cudaEventCreate(&e[i]));
    const int launches = x->iters / T;
    double g[3];
    k(x->b, x->c); /* warm-up */
    for (int rep = 0; rep < 3; rep++) {
        CK(cudaEventRecord(e[0]));
        for (int t = 0; t < launches; t++) k(t & 1 ? x->c : x->b, t & 1 ? x->b : x->c);
        CK(cudaEventRecord(e[1]));
        CK(cudaEventSynchronize(e[1]));
        CK(cudaGetLastError());
        double inner = (double)(x->n - 2 * S::R) * (x->n - 2 * S::R);
        g[rep] = inner * launches * T / ms_between(e[0], e[1]) / 1e6;
    }
    for (int i = 0; i < 2; i++) CK(cudaEventDestroy(e[i]));
    double sorted[3] = {g[0], g[1], g[2]};
    qsort(sorted, 3, sizeof sorted[0], cmp_desc);
    printf(
        "{\"bench\":\"stream\",\"stencil\":\"%s\",\"n\":%d,\"steps\":%d,\"T\":%d,\"V\":%d,"
        "\"threads\":%d,\"prefetch\":%d,\"div\":\"%s\",\"rows\":%d,\"strip\":%d,\"blocks\":[%u,%u],"
        "\"regs\":%d,\"local_bytes\":%zu,\"blocks_per_sm\":%d,\"mismatches\":%llu,"
        "\"maxdiff\":%.3g,\"gcells_plain\":%.1f,\"gcells_runs\":[%.1f,%.1f,%.1f],"
        "\"gcells\":%.1f,\"commit\":\"%s\"}\n",
        x->name, x->n, launches * T, T, V, B, P,
        S::D == 0.0f ? "none"
        : SPLIT      ? "split"
                     : "ieee",
        k.h, (int)k.W, k.grid.x, k.grid.y, fa.numRegs, fa.localSizeBytes, per_sm, bad, maxdiff,
        x->plain, g[0], g[1], g[2], sorted[1], x->commit);
    fflush(stdout);
    return bad != 0;
}

/* The variant with the compiler's division and, where S divides, with div_split. */
template <class S, int T, int V, int B, int P> static int both(Ctx *x, int rows, bool split)
{
    int bad = variant<S, T, V, B, P>(x, rows);
    if constexpr (S::D > 0.0f)
        if (split) bad |= variant<S, T, V, B, P, true>(x, rows);
    return bad;
}

/* div_split against `/` on every float; prints a line, returns the mismatches. */
static unsigned long long check_split(Ctx *x, float d)
{
    unsigned long long bad = 0;
    CK(cudaMemset(x->bad, 0, sizeof *x->bad));
    k_check_split<<<4096, 256>>>(d, x->bad);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&bad, x->bad, sizeof bad, cudaMemcpyDeviceToHost));
    printf("{\"bench\":\"stream\",\"check\":\"div_split\",\"divisor\":%g,\"inputs\":"
           "4294967296,\"mismatches\":%llu,\"commit\":\"%s\"}\n",
           d, bad, x->commit);
    fflush(stdout);
    return bad;
}

/*
 * Which variants run: STREAM_SET=quick (fewer: checks on small grids), best (the best of the
 * sweep), ncu (two, for the profiler) or unset (the sweep).
 */
template <class S> static int run(const char *name, int n, int iters)
{
    const char *commit = getenv("BENCH_COMMIT"), *env = getenv("STREAM_SET");
    const char *set = env ? env : "sweep";
    Ctx x = {};
    x.name = name, x.commit = commit ? commit : "uncommitted";
    x.n = n, x.iters = iters, x.cells = (size_t)n * n;
    setup<S>(&x);
    const bool split = S::D > 0.0f && check_split(&x, S::D) == 0;
    int bad = S::D > 0.0f && !split;
    constexpr int PW = 2 * S::R + 1; /* prefetch as deep as the window: no moves when unrolled */
    if (!strcmp(set, "ncu")) {
        bad |= both<S, 2, 2, 128, PW>(&x, 252, split);
        bad |= both<S, 2, 4, 128, PW>(&x, 122, split);
    } else if (!strcmp(set, "best")) {
        const int rows[] = {122, 252, -4};
        for (int r : rows) bad |= both<S, 2, 2, 128, PW>(&x, r, split);
        bad |= both<S, 2, 4, 128, PW>(&x, 122, split);
        bad |= both<S, 3, 2, 128, PW>(&x, 252, split);
        bad |= both<S, 4, 2, 128, PW>(&x, 252, split);
    } else {
        const bool quick = !strcmp(set, "quick");
        const int rows[] = {120, 250, 500};
        for (int i = quick ? 1 : 0; i < (quick ? 2 : 3); i++) {
            bad |= both<S, 2, 4, 128, PW>(&x, rows[i], split);
            bad |= both<S, 2, 4, 128, 2>(&x, rows[i], split);
            bad |= both<S, 2, 2, 128, PW>(&x, rows[i], split);
        }
        bad |= both<S, 2, 4, 64, PW>(&x, 250, split);
        bad |= both<S, 2, 4, 256, PW>(&x, 250, split);
        bad |= both<S, 2, 1, 256, PW>(&x, 250, split);
        bad |= both<S, 1, 4, 128, PW>(&x, 250, split);
        bad |= both<S, 3, 4, 128, PW>(&x, 250, split);
        bad |= both<S, 3, 2, 128, PW>(&x, 250, split);
        bad |= both<S, 4, 2, 128, PW>(&x, 250, split);
        if (!quick) {
            const int more[] = {60, -2, -4, -8};
            for (int r : more) bad |= both<S, 2, 2, 128, PW>(&x, r, split);
            bad |= both<S, 2, 4, 128, PW>(&x, 60, split);
            bad |= both<S, 2, 4, 128, PW>(&x, -4, split);
            bad |= both<S, 3, 2, 128, PW>(&x, 120, split);
            bad |= both<S, 4, 2, 128, PW>(&x, 120, split);
        }
    }
    cudaFree(x.a), cudaFree(x.b), cudaFree(x.c), cudaFree(x.bad), cudaFree(x.maxd);
    for (int t = 1; t <= 4; t++) cudaFree(x.ref[t]);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_stream 2d4|2d9nc N ITERS\n");
        return 2;
    }
    int n = atoi(argv[2]), iters = atoi(argv[3]);
    if (n < 8 || iters < 4) {
        fprintf(stderr, "bench_stream: N >= 8 and ITERS >= 4\n");
        return 2;
    }
    if (!strcmp(argv[1], "2d4")) return run<S2d4>(argv[1], n, iters);
    if (!strcmp(argv[1], "2d9nc")) return run<S2d9nc>(argv[1], n, iters);
    fprintf(stderr, "bench_stream: unknown stencil %s\n", argv[1]);
    return 2;
}
