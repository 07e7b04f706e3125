// Probe: Gray-Scott one-step kernels on 8192^2 fp32 arrays with a halo of 1, rows of 8194,
// 8224 and 8196 elements: the run-time one-cell-column kernel (probe_prog_vec_rt.cuh, written by
// kgt_prog_emit_gpu_rtc at commit 91f8d5a for bench/progs/grayscott.stencil in the shapes
// 64x4x8, 64x4x4 and 32x8x8) against a hand-written vector-row kernel of several block shapes,
// each checked bitwise against the first. nvcc -O3 -arch=sm_90 probe_prog_vec.cu; argument: launches.
// Also (rows of 8224 and 8196): the vector-row kernel kgt_prog_emit_gpu_vec wrote for it at
// 2749977 (lib_vf.cuh: lib_vf, with hand variants one_vf of one box for both fields, lb_vf and
// onelb_vf without the second launch bound) and at 7320f45 (new_vf.cuh: new_vf and its one-box
// variant new_v1f), launched as the GPU backend launches them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "probe_prog_vec_rt.cuh"
#include "lib_vf.cuh" // 2749977 generated vf kernel (lib_vf) and hand variants
#include "new_vf.cuh" // 7320f45 generated vf and v1f kernels

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

// Vector-row walk: each thread owns 4 consecutive x cells (one float4) of each field in rows
// zs .. zs+ZC-1 and rolls rows -1, 0, +1 through registers, prefetching the next one.
template <int BX, int ZC>
__global__ void __launch_bounds__(BX) gs_vec(const float *__restrict__ fu, const float *__restrict__ fv,
    float *__restrict__ ou, float *__restrict__ ov, int x0, int x1, int y0, int y1, int s0,
    float Du, float Dv, float F, float kk, float dt)
{
    const int x = ((int)blockIdx.x * BX + (int)threadIdx.x) * 4;
    const int zs = y0 + (int)blockIdx.y * ZC, h0 = zs + ZC < y1 ? zs + ZC : y1;
    const int lane = threadIdx.x & 31;
    if (x - lane * 4 >= x1 + 1) return;
    const int ok = x >= x0 && x + 4 <= x1;
    const int xc = x < x1 + 1 ? x : (x1 + 1) / 4 * 4; // clamp the vector into the readable row
    const float *pu = fu + (long)zs * s0 + xc, *pv = fv + (long)zs * s0 + xc;
    float *qu = ou + (long)zs * s0 + x, *qv = ov + (long)zs * s0 + x;
    float4 U0 = *(const float4 *)(pu - s0), U1 = *(const float4 *)pu, U2 = *(const float4 *)(pu + s0);
    float4 V0 = *(const float4 *)(pv - s0), V1 = *(const float4 *)pv, V2 = *(const float4 *)(pv + s0);
    float uL1 = __shfl_sync(~0u, U1.w, lane - 1), uR1 = __shfl_sync(~0u, U1.x, lane + 1);
    float uL2 = __shfl_sync(~0u, U2.w, lane - 1), uR2 = __shfl_sync(~0u, U2.x, lane + 1);
    float vL1 = __shfl_sync(~0u, V1.w, lane - 1), vR1 = __shfl_sync(~0u, V1.x, lane + 1);
    float vL2 = __shfl_sync(~0u, V2.w, lane - 1), vR2 = __shfl_sync(~0u, V2.x, lane + 1);
    if (lane == 0) uL1 = pu[-1], uL2 = pu[s0 - 1], vL1 = pv[-1], vL2 = pv[s0 - 1];
    if (lane == 31) uR1 = pu[4], uR2 = pu[s0 + 4], vR1 = pv[4], vR2 = pv[s0 + 4];
    const float f4 = 0x1p+2f, one = 1.0f, Fk = __fadd_rn(F, kk);
#pragma unroll 1
    for (int i = zs; i < h0; i++, pu += s0, pv += s0, qu += s0, qv += s0) {
        float4 PU = make_float4(0, 0, 0, 0), PV = PU;
        float pul = 0, pur = 0, pvl = 0, pvr = 0;
        if (i + 1 < h0) {
            PU = *(const float4 *)(pu + 2 * s0), PV = *(const float4 *)(pv + 2 * s0);
            if (lane == 0) pul = pu[2 * s0 - 1], pvl = pv[2 * s0 - 1];
            if (lane == 31) pur = pu[2 * s0 + 4], pvr = pv[2 * s0 + 4];
        }
        float cu[4] = {U1.x, U1.y, U1.z, U1.w}, cv[4] = {V1.x, V1.y, V1.z, V1.w};
        float au[4] = {U0.x, U0.y, U0.z, U0.w}, av[4] = {V0.x, V0.y, V0.z, V0.w};
        float bu[4] = {U2.x, U2.y, U2.z, U2.w}, bv[4] = {V2.x, V2.y, V2.z, V2.w};
        float ru[4], rv[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float lu_ = j ? cu[j - 1] : uL1, ru_ = j < 3 ? cu[j + 1] : uR1;
            float lv_ = j ? cv[j - 1] : vL1, rv_ = j < 3 ? cv[j + 1] : vR1;
            float uvv = __fmul_rn(__fmul_rn(cu[j], cv[j]), cv[j]);
            float lu = __fsub_rn(__fadd_rn(__fadd_rn(__fadd_rn(au[j], bu[j]), lu_), ru_), __fmul_rn(f4, cu[j]));
            float lv = __fsub_rn(__fadd_rn(__fadd_rn(__fadd_rn(av[j], bv[j]), lv_), rv_), __fmul_rn(f4, cv[j]));
            ru[j] = __fadd_rn(cu[j], __fmul_rn(dt, __fadd_rn(__fsub_rn(__fmul_rn(Du, lu), uvv), __fmul_rn(F, __fsub_rn(one, cu[j])))));
            rv[j] = __fadd_rn(cv[j], __fmul_rn(dt, __fsub_rn(__fadd_rn(__fmul_rn(Dv, lv), uvv), __fmul_rn(Fk, cv[j]))));
        }
        if (ok) {
            *(float4 *)qu = make_float4(ru[0], ru[1], ru[2], ru[3]);
            *(float4 *)qv = make_float4(rv[0], rv[1], rv[2], rv[3]);
        } else {
            for (int j = 0; j < 4; j++)
                if (x + j >= x0 && x + j < x1) qu[j] = ru[j], qv[j] = rv[j];
        }
        U0 = U1, U1 = U2, V0 = V1, V1 = V2;
        uL1 = uL2, uR1 = uR2, vL1 = vL2, vR1 = vR2;
        if (i + 1 < h0) {
            U2 = PU, V2 = PV;
            uL2 = __shfl_sync(~0u, PU.w, lane - 1), uR2 = __shfl_sync(~0u, PU.x, lane + 1);
            vL2 = __shfl_sync(~0u, PV.w, lane - 1), vR2 = __shfl_sync(~0u, PV.x, lane + 1);
            if (lane == 0) uL2 = pul, vL2 = pvl;
            if (lane == 31) uR2 = pur, vR2 = pvr;
        }
    }
}

typedef void (*rtk)(const kgt_prog_args_f, long, long, long);

static const int N = 8192;
static float *du, *dv, *eu, *ev;
static std::vector<float> hu, hv;

static double run_rt(rtk k, int bx, int by, int cy, int S, int iters, int check)
{
    kgt_prog_args_f a;
    memset(&a, 0, sizeof a);
    float par[5] = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};
    for (int i = 0; i < 5; i++) a.par[i] = par[i];
    for (int f = 0; f < 2; f++) {
        a.stride[f][0] = S;
        a.lo[f][0] = 1, a.hi[f][0] = N + 1, a.lo[f][1] = 1, a.hi[f][1] = N + 1;
    }
    long u0 = 1, u1 = 0; // line start of row 0 (the base is 128-byte aligned)
    dim3 block(bx, by), grid((N + 1 - u1 + bx - 1) / bx, (N + by * cy - 1) / (by * cy));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    float *A[2] = {du, eu}, *B[2] = {dv, ev};
    for (int it = -3; it < iters; it++) {
        if (it == 0) CK(cudaEventRecord(e0));
        int s = (it + 3) & 1;
        a.in[0] = A[s], a.in[1] = B[s], a.out[0] = A[!s], a.out[1] = B[!s];
        if (check) { a.in[0] = du, a.in[1] = dv, a.out[0] = eu, a.out[1] = ev; }
        k<<<grid, block>>>(a, u0, u1, 0);
        if (check) break;
    }
    if (check) { CK(cudaDeviceSynchronize()); CK(cudaGetLastError()); return 0; }
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    return check ? 0 : ms * 1e3 / iters;
}

static double run_lib(rtk k, int S, int iters, int check)
{
    kgt_prog_args_f a;
    memset(&a, 0, sizeof a);
    float par[5] = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};
    for (int i = 0; i < 5; i++) a.par[i] = par[i];
    for (int f = 0; f < 2; f++) {
        a.stride[f][0] = S;
        a.lo[f][0] = 1, a.hi[f][0] = N + 1, a.lo[f][1] = 1, a.hi[f][1] = N + 1;
    }
    long u0 = 1, u1 = 0, u2 = N + 1;
    dim3 block(256), grid((N + 1 - u1 + 1023) / 1024, (N + 3) / 4);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    float *A[2] = {du, eu}, *B[2] = {dv, ev};
    for (int it = -3; it < iters; it++) {
        if (it == 0) CK(cudaEventRecord(e0));
        int s = (it + 3) & 1;
        a.in[0] = A[s], a.in[1] = B[s], a.out[0] = A[!s], a.out[1] = B[!s];
        if (check) { a.in[0] = du, a.in[1] = dv, a.out[0] = eu, a.out[1] = ev; }
        k<<<grid, block>>>(a, u0, u1, u2);
        if (check) break;
    }
    if (check) { CK(cudaDeviceSynchronize()); CK(cudaGetLastError()); return 0; }
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e3 / iters;
}

template <int BX, int ZC>
static double run_vec(int S, int iters, int check)
{
    dim3 block(BX), grid((N + 2 + 4 * BX - 1) / (4 * BX), (N + ZC - 1) / ZC);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    float *A[2] = {du, eu}, *B[2] = {dv, ev};
    for (int it = -3; it < iters; it++) {
        if (it == 0) CK(cudaEventRecord(e0));
        int s = (it + 3) & 1;
        const float *iu = A[s], *iv = B[s]; float *wu = A[!s], *wv = B[!s];
        if (check) iu = du, iv = dv, wu = eu, wv = ev;
        gs_vec<BX, ZC><<<grid, block>>>(iu, iv, wu, wv, 1, N + 1, 1, N + 1, S, 0.16f, 0.08f, 0.035f, 0.065f, 1.0f);
        if (check) break;
    }
    if (check) { CK(cudaDeviceSynchronize()); CK(cudaGetLastError()); return 0; }
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    return check ? 0 : ms * 1e3 / iters;
}

static void fill(int S)
{
    size_t n = (size_t)S * (N + 4);
    hu.assign(n, 0), hv.assign(n, 0);
    srand(7);
    for (size_t i = 0; i < n; i++) hu[i] = (float)rand() / RAND_MAX, hv[i] = (float)rand() / RAND_MAX * 0.5f;
    CK(cudaMemcpy(du, hu.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dv, hv.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(eu, 0, n * 4)); CK(cudaMemset(ev, 0, n * 4));
}

static long cmp(int S, const std::vector<float> &ru, const std::vector<float> &rv)
{
    size_t n = (size_t)S * (N + 4);
    std::vector<float> gu(n), gv(n);
    CK(cudaMemcpy(gu.data(), eu, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gv.data(), ev, n * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int y = 1; y <= N; y++)
        for (int x = 1; x <= N; x++) {
            size_t i = (size_t)y * S + x;
            bad += memcmp(&gu[i], &ru[i], 4) != 0 || memcmp(&gv[i], &rv[i], 4) != 0;
        }
    return bad;
}

static void report(const char *name, int S, double us)
{
    double cells = (double)N * N;
    printf("{\"case\":\"%s\",\"stride\":%d,\"us\":%.1f,\"gcells\":%.1f,\"gbs\":%.0f,\"of_roof\":%.3f}\n",
           name, S, us, cells / us * 1e-3, cells * 16 / us * 1e-3, cells * 16 / us * 1e-3 / 4275);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    size_t maxn = (size_t)8256 * (N + 4);
    CK(cudaMalloc(&du, maxn * 4)); CK(cudaMalloc(&dv, maxn * 4));
    CK(cudaMalloc(&eu, maxn * 4)); CK(cudaMalloc(&ev, maxn * 4));
    int strides[3] = {N + 2, N + 32, N + 4};
    for (int si = 0; si < 3; si++) {
        int S = strides[si];
        fill(S);
        run_rt(rt_grayscott_cuda_kf, 64, 4, 8, S, 0, 1);
        std::vector<float> ru((size_t)S * (N + 4)), rv(ru.size());
        CK(cudaMemcpy(ru.data(), eu, ru.size() * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(rv.data(), ev, rv.size() * 4, cudaMemcpyDeviceToHost));
        report("rt 64x4x8", S, run_rt(rt_grayscott_cuda_kf, 64, 4, 8, S, iters, 0));
        fill(S); run_rt(rt4_grayscott_cuda_kf, 64, 4, 4, S, 0, 1);
        printf("  rt4 differs: %ld\n", cmp(S, ru, rv));
        report("rt 64x4x4", S, run_rt(rt4_grayscott_cuda_kf, 64, 4, 4, S, iters, 0));
        fill(S); run_rt(rt32_grayscott_cuda_kf, 32, 8, 8, S, 0, 1);
        printf("  rt32 differs: %ld\n", cmp(S, ru, rv));
        report("rt 32x8x8", S, run_rt(rt32_grayscott_cuda_kf, 32, 8, 8, S, iters, 0));
        if (S % 4) continue;
#define VEC(BX, ZC) \
        fill(S); run_vec<BX, ZC>(S, 0, 1); printf("  vec %d %d differs: %ld\n", BX, ZC, cmp(S, ru, rv)); \
        report("vec " #BX "x" #ZC, S, run_vec<BX, ZC>(S, iters, 0));
#define LIB(K) \
        fill(S); run_lib(K, S, 0, 1); printf("  " #K " differs: %ld\n", cmp(S, ru, rv)); \
        report(#K, S, run_lib(K, S, iters, 0));
        for (int rep = 0; rep < 2; rep++) {
            LIB(lib_vf) LIB(onelb_vf) LIB(new_vf) LIB(new_v1f)
            VEC(256, 4)
        }
    }
    return 0;
}
