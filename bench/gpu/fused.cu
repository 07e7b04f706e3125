/*
 * Feasibility study for issue 5 (not library code): can two time steps fused into one kernel
 * beat the one-sweep roofline that caps every single-step kernel (8 bytes per cell and step in
 * fp32)? The library's generic kernel already runs 2d9nc at ~356 Gcells/s on an H200, so the
 * issue's "2x the generic kernel" means ~711, above the 535.6 a single sweep can reach.
 *
 * A block owns a TX x TY output tile of a 2D fp32 grid with a fixed frame of R cells. It loads
 * the tile plus 2R cells around it into shared memory once, computes step 1 on the tile plus R
 * (cells of the frame keep their values, as in the library), then step 2 on the tile, and
 * writes it: per two steps each cell is read about once (the overlap of neighbouring tiles
 * mostly from L2) and written once.
 *
 *   bench_fused STENCIL N ITERS      STENCIL: 2d4 | 2d9nc; N: the grid is N x N; ITERS even
 *
 * For each of a few tile shapes it checks the fused result against two steps of a plain
 * one-cell-per-thread kernel on random data (the same arithmetic in the same order: mismatches
 * counts bitwise differences, maxdiff the largest; it fails above 1e-5), then times ITERS steps.
 * Prints one JSON line per shape.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.cuh"

/* EPSILOD's 2d4 and the non-compact second-order star 2d9nc of shared/STENCILS.md. */
struct S2d4 {
    enum { R = 1 };
    __device__ static float f(const Acc &v)
    {
        return (v(-1, 0) + v(0, -1) + v(0, 1) + v(1, 0)) * 0.25f;
    }
};

struct S2d9nc {
    enum { R = 2 };
    __device__ static float f(const Acc &v)
    {
        return (v(-2, 0) + 4.0f * v(-1, 0) + v(0, -2) + 4.0f * v(0, -1) + 4.0f * v(0, 0) +
                4.0f * v(0, 1) + v(0, 2) + 4.0f * v(1, 0) + v(2, 0)) /
               24.0f;
    }
};

template <class S> __global__ void k_step(const float *in, float *out, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < S::R || y < S::R || x >= n - S::R || y >= n - S::R) return;
    out[(size_t)y * n + x] = S::f(Acc{in + (size_t)y * n + x, n});
}

/* Step 2 of the tile from step 1 in shared memory (the tile plus R around it, row-major). */
template <class S, int TX, int TY, int BY>
__device__ void step2(const float *s1, float *out, int n, int x0, int y0)
{
    enum { R = S::R, MX = TX + 2 * R };
    for (int i = threadIdx.y; i < TY; i += BY) {
        int y = y0 + i, x = x0 + threadIdx.x;
        if (y < n - R && x < n - R)
            out[(size_t)y * n + x] = S::f(Acc{&s1[(i + R) * MX + threadIdx.x + R], MX});
    }
}

/* Two steps per launch; TX x TY output cells per block of TX x BY threads. */
template <class S, int TX, int TY, int BY>
__global__ void __launch_bounds__(TX *BY) k_fused(const float *in, float *out, int n)
{
    enum { R = S::R, IX = TX + 4 * R, IY = TY + 4 * R, MX = TX + 2 * R, MY = TY + 2 * R };
    __shared__ float s0[IY][IX];
    __shared__ float s1[MY][MX];
    const int x0 = R + blockIdx.x * TX, y0 = R + blockIdx.y * TY, tx = threadIdx.x;
    for (int i = threadIdx.y; i < IY; i += BY)
        for (int j = tx; j < IX; j += TX) {
            int y = min(max(y0 - 2 * R + i, 0), n - 1), x = min(max(x0 - 2 * R + j, 0), n - 1);
            s0[i][j] = in[(size_t)y * n + x];
        }
    __syncthreads();
    for (int i = threadIdx.y; i < MY; i += BY)
        for (int j = tx; j < MX; j += TX) {
            int y = y0 - R + i, x = x0 - R + j; /* the frame keeps its values */
            bool upd = y >= R && x >= R && y < n - R && x < n - R;
            s1[i][j] = upd ? S::f(Acc{&s0[i + R][j + R], IX}) : s0[i + R][j + R];
        }
    __syncthreads();
    step2<S, TX, TY, BY>(&s1[0][0], out, n, x0, y0);
}

/*
 * The same with step 1 read straight from global memory (through L1, like the library's
 * single-step kernels) instead of a shared-memory copy of the input: one barrier, half the
 * shared memory, and the loads of step 1 interleave with its arithmetic.
 */
template <class S, int TX, int TY, int BY>
__global__ void __launch_bounds__(TX *BY)
    k_fused_l1(const float *__restrict__ in, float *__restrict__ out, int n)
{
    enum { R = S::R, MX = TX + 2 * R, MY = TY + 2 * R };
    extern __shared__ float s1[]; /* MY x MX, dynamic: large tiles need more than 48 KiB */
    const int x0 = R + blockIdx.x * TX, y0 = R + blockIdx.y * TY, tx = threadIdx.x;
    for (int i = threadIdx.y; i < MY; i += BY)
        for (int j = tx; j < MX; j += TX) {
            int y = y0 - R + i, x = x0 - R + j;
            bool upd = y >= R && x >= R && y < n - R && x < n - R;
            int yc = min(y, n - 1), xc = min(x, n - 1); /* cells past the grid are never stored */
            const float *c = in + (size_t)yc * n + xc;
            s1[i * MX + j] = upd ? S::f(Acc{c, n}) : *c;
        }
    __syncthreads();
    step2<S, TX, TY, BY>(s1, out, n, x0, y0);
}

template <class S> static void step(const float *a, float *b, int n)
{
    k_step<S><<<dim3((n + 31) / 32, (n + 7) / 8), dim3(32, 8)>>>(a, b, n);
}

template <class S, int TX, int TY, int BY, int L1>
static void fused(const float *a, float *b, int n)
{
    int m = n - 2 * S::R;
    dim3 grid((m + TX - 1) / TX, (m + TY - 1) / TY), block(TX, BY);
    if constexpr (L1 != 0) {
        size_t smem = sizeof(float) * (TX + 2 * S::R) * (TY + 2 * S::R);
        CK(cudaFuncSetAttribute(k_fused_l1<S, TX, TY, BY>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        k_fused_l1<S, TX, TY, BY><<<grid, block, smem>>>(a, b, n);
    } else
        k_fused<S, TX, TY, BY><<<grid, block>>>(a, b, n);
}

static double ms_between(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* The grid, a reference of two plain steps, and scratch, shared by the tile variants. */
struct Ctx {
    const char *name;
    int n, iters;
    size_t cells;
    float *h, *ref, *a, *b, *c;
    double plain; /* Gcells/s of the plain kernel */
};

template <class S> static void setup(Ctx *x)
{
    size_t bytes = x->cells * sizeof(float);
    x->h = (float *)malloc(bytes), x->ref = (float *)malloc(bytes);
    unsigned long long r = 88172645463325252ULL;
    for (size_t i = 0; i < x->cells; i++) { /* xorshift: random, not zeros */
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        x->h[i] = (float)(r >> 40) / 16777216.0f;
    }
    CK(cudaMalloc(&x->a, bytes));
    CK(cudaMalloc(&x->b, bytes));
    CK(cudaMalloc(&x->c, bytes));
    CK(cudaMemcpy(x->a, x->h, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x->b, x->h, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x->c, x->h, bytes, cudaMemcpyHostToDevice));
    step<S>(x->a, x->b, x->n); /* reference: two plain steps, a -> b -> c */
    step<S>(x->b, x->c, x->n);
    CK(cudaMemcpy(x->ref, x->c, bytes, cudaMemcpyDeviceToHost));
    cudaEvent_t e[2];
    for (int i = 0; i < 2; i++) CK(cudaEventCreate(&e[i]));
    CK(cudaEventRecord(e[0])); /* a and b only: a keeps the initial data for the variants */
    for (int t = 0; t < x->iters; t++) step<S>(t & 1 ? x->c : x->b, t & 1 ? x->b : x->c, x->n);
    CK(cudaEventRecord(e[1]));
    CK(cudaEventSynchronize(e[1]));
    double inner = (double)(x->n - 2 * S::R) * (x->n - 2 * S::R);
    x->plain = inner * x->iters / ms_between(e[0], e[1]) / 1e6;
}

/* Checks one tile shape against the reference, times it, prints a line; 1 if it differs. */
template <class S, int TX, int TY, int BY, int L1> static int variant(Ctx *x)
{
    size_t bytes = x->cells * sizeof(float), bad = 0;
    double maxdiff = 0;
    CK(cudaMemcpy(x->c, x->h, bytes, cudaMemcpyHostToDevice));
    fused<S, TX, TY, BY, L1>(x->a, x->c, x->n);
    CK(cudaGetLastError());
    float *got = (float *)malloc(bytes);
    CK(cudaMemcpy(got, x->c, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < x->cells; i++) {
        double d = got[i] > x->ref[i] ? got[i] - x->ref[i] : x->ref[i] - got[i];
        bad += memcmp(&got[i], &x->ref[i], sizeof(float)) != 0;
        maxdiff = d > maxdiff ? d : maxdiff;
    }
    free(got);
    CK(cudaMemcpy(x->b, x->h, bytes, cudaMemcpyHostToDevice));
    cudaEvent_t e[2];
    for (int i = 0; i < 2; i++) CK(cudaEventCreate(&e[i]));
    fused<S, TX, TY, BY, L1>(x->b, x->c, x->n); /* warm-up */
    CK(cudaEventRecord(e[0]));
    for (int t = 0; t < x->iters / 2; t++)
        fused<S, TX, TY, BY, L1>(t & 1 ? x->c : x->b, t & 1 ? x->b : x->c, x->n);
    CK(cudaEventRecord(e[1]));
    CK(cudaEventSynchronize(e[1]));
    CK(cudaGetLastError());
    double inner = (double)(x->n - 2 * S::R) * (x->n - 2 * S::R);
    double g = inner * (x->iters / 2 * 2) / ms_between(e[0], e[1]) / 1e6;
    printf("{\"bench\":\"fused\",\"stencil\":\"%s\",\"n\":%d,\"iters\":%d,\"tile\":[%d,%d,%d],"
           "\"l1\":%d,"
           "\"mismatches\":%zu,\"maxdiff\":%.3g,\"gcells_plain\":%.1f,\"gcells_fused2\":%.1f}\n",
           x->name, x->n, x->iters, TX, TY, BY, L1, bad, maxdiff, x->plain, g);
    fflush(stdout);
    return maxdiff > 1e-5;
}

template <class S> static int run(const char *name, int n, int iters)
{
    Ctx x = {name, n, iters, (size_t)n * n, 0, 0, 0, 0, 0, 0};
    setup<S>(&x);
    int bad = variant<S, 128, 32, 4, 0>(&x);
    bad |= variant<S, 128, 64, 4, 1>(&x);
    bad |= variant<S, 256, 32, 2, 1>(&x);
    bad |= variant<S, 256, 32, 4, 1>(&x);
    bad |= variant<S, 256, 64, 2, 1>(&x);
    bad |= variant<S, 256, 64, 4, 1>(&x);
    bad |= variant<S, 128, 128, 4, 1>(&x);
    bad |= variant<S, 512, 32, 2, 1>(&x);
    cudaFree(x.a), cudaFree(x.b), cudaFree(x.c), free(x.h), free(x.ref);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_fused 2d4|2d9nc N ITERS\n");
        return 2;
    }
    int n = atoi(argv[2]), iters = atoi(argv[3]);
    if (!strcmp(argv[1], "2d4")) return run<S2d4>(argv[1], n, iters);
    if (!strcmp(argv[1], "2d9nc")) return run<S2d9nc>(argv[1], n, iters);
    fprintf(stderr, "bench_fused: unknown stencil %s\n", argv[1]);
    return 2;
}
