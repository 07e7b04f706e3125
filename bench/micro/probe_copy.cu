/*
 * probe_copy: how fast a device-to-device copy can go on one GPU, and what the load and store
 * cache hints of PTX change: the ceiling the one-step kernels are measured against. Not part of
 * the library; see bench/RESULTS.md.
 *
 *   nvcc -O3 -arch=sm_90 -o probe_copy bench/micro/probe_copy.cu && ./probe_copy [MiB]
 *
 * Variants: cudaMemcpy; a grid-stride float4 loop; one-shot grids with U float4 loads per thread
 * issued before their stores; each with plain loads, L2 prefetch hints (L2::128B, L2::256B), the
 * non-coherent path without L1 allocation, evict-first loads, and streaming (.cs) stores.
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "probe_ck.h"

enum { LD_PLAIN, LD_L2_128, LD_L2_256, LD_NC_NA, LD_NC_NA_256, LD_CS, LD_N };
enum { ST_PLAIN, ST_CS, ST_NA, ST_N };
static const char *ldname[LD_N] = {
    "plain", "L2::128B", "L2::256B", "nc.L1::no_allocate", "nc.L1::no_allocate.L2::256B", "cs"};
static const char *stname[ST_N] = {"plain", "cs", "L1::no_allocate"};

template <int L> __device__ __forceinline__ float4 ld(const float4 *p)
{
    float4 v;
    if (L == LD_PLAIN) return *p;
    if (L == LD_L2_128)
        asm volatile("ld.global.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(p));
    if (L == LD_L2_256)
        asm volatile("ld.global.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(p));
    if (L == LD_NC_NA)
        asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(p));
    if (L == LD_NC_NA_256)
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(p));
    if (L == LD_CS)
        asm volatile("ld.global.cs.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(p));
    return v;
}

template <int S> __device__ __forceinline__ void st(float4 *p, float4 v)
{
    if (S == ST_PLAIN) *p = v;
    if (S == ST_CS) __stcs(p, v);
    if (S == ST_NA)
        asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1,%2,%3,%4};" ::"l"(p), "f"(v.x),
                     "f"(v.y), "f"(v.z), "f"(v.w)
                     : "memory");
}

template <int L, int S>
__global__ void stride(const float4 *__restrict__ a, float4 *__restrict__ b, long n4)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4;
         i += (long)gridDim.x * blockDim.x)
        st<S>(b + i, ld<L>(a + i));
}

/* Block j copies U * blockDim.x vectors: U loads in flight per thread, then U stores. */
template <int L, int S, int U>
__global__ void shot(const float4 *__restrict__ a, float4 *__restrict__ b, long n4)
{
    long i0 = (long)blockIdx.x * blockDim.x * U + threadIdx.x;
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        long i = i0 + (long)u * blockDim.x;
        if (i < n4) v[u] = ld<L>(a + i);
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        long i = i0 + (long)u * blockDim.x;
        if (i < n4) st<S>(b + i, v[u]);
    }
}

static cudaEvent_t e0, e1;
static double bytes;

template <typename F> static double timeit(F f)
{
    for (int w = 0; w < 2; w++) f();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    for (int k = 0; k < 20; k++) f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return 2 * bytes * 20 / (ms * 1e-3) / 1e9;
}

static void line(const char *kind, int L, int S, int U, int bs, double gbs)
{
    printf("{\"probe\": \"copy\", \"kind\": \"%s\", \"load\": \"%s\", \"store\": \"%s\", "
           "\"U\": %d, \"block\": %d, \"GBps\": %.1f, \"Gcells8B\": %.1f}\n",
           kind, ldname[L], stname[S], U, bs, gbs, gbs / 8.0);
    fflush(stdout);
}

template <int L, int S> static void variants(const float4 *a, float4 *b, long n4, int sms)
{
    for (int bs : {256, 512}) {
        line("stride", L, S, 1, bs,
             timeit([&] { stride<L, S><<<sms * 2048 / bs, bs>>>(a, b, n4); }));
    }
    for (int bs : {256, 512, 1024}) {
        long g1 = (n4 + bs - 1) / bs, g2 = (n4 + 2L * bs - 1) / (2L * bs),
             g4 = (n4 + 4L * bs - 1) / (4L * bs);
        line("shot", L, S, 1, bs, timeit([&] { shot<L, S, 1><<<g1, bs>>>(a, b, n4); }));
        line("shot", L, S, 2, bs, timeit([&] { shot<L, S, 2><<<g2, bs>>>(a, b, n4); }));
        line("shot", L, S, 4, bs, timeit([&] { shot<L, S, 4><<<g4, bs>>>(a, b, n4); }));
    }
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 4096;
    long n4 = mib * (1L << 20) / 16;
    bytes = (double)n4 * 16;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("# %s, %d SMs, copy of %ld MiB\n", p.name, p.multiProcessorCount, mib);
    float4 *a, *b;
    CK(cudaMalloc(&a, n4 * 16));
    CK(cudaMalloc(&b, n4 * 16));
    CK(cudaMemset(a, 1, n4 * 16));
    CK(cudaMemset(b, 0, n4 * 16));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double m = timeit([&] { CK(cudaMemcpyAsync(b, a, n4 * 16, cudaMemcpyDeviceToDevice)); });
    printf("{\"probe\": \"copy\", \"kind\": \"cudaMemcpy\", \"GBps\": %.1f, \"Gcells8B\": %.1f}\n",
           m, m / 8);
    int sms = p.multiProcessorCount;
    variants<LD_PLAIN, ST_PLAIN>(a, b, n4, sms);
    variants<LD_PLAIN, ST_CS>(a, b, n4, sms);
    variants<LD_L2_128, ST_PLAIN>(a, b, n4, sms);
    variants<LD_L2_256, ST_PLAIN>(a, b, n4, sms);
    variants<LD_L2_256, ST_CS>(a, b, n4, sms);
    variants<LD_NC_NA, ST_PLAIN>(a, b, n4, sms);
    variants<LD_NC_NA_256, ST_CS>(a, b, n4, sms);
    variants<LD_CS, ST_CS>(a, b, n4, sms);
    variants<LD_PLAIN, ST_NA>(a, b, n4, sms);
    m = timeit([&] { CK(cudaMemcpyAsync(b, a, n4 * 16, cudaMemcpyDeviceToDevice)); });
    printf("{\"probe\": \"copy\", \"kind\": \"cudaMemcpy\", \"GBps\": %.1f, \"Gcells8B\": %.1f}\n",
           m, m / 8);
    return 0;
}
