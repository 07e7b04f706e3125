/*
 * The norm of the change between two iterates (sb_ops.norm) on CUDA/HIP: one launch of at most
 * SB_NORM_GRID blocks, each taking whole rows of the box (along its innermost dimension of more
 * than one cell, so reads coalesce) and reducing its sums in shared memory, then the per-block
 * partials copied back and reduced on the host. Everything in double; blocking, on the given
 * stream. The partials live in a small device allocation made per call (16 KiB), so the backend
 * keeps no extra state.
 */
#ifndef SB_GPU_NORM_CUH
#define SB_GPU_NORM_CUH

#include "norm_shape.h"

#define SB_NORM_BLOCK 256
#define SB_NORM_GRID  1024

namespace SB_GPU_NS
{

template <typename T>
__global__ void __launch_bounds__(SB_NORM_BLOCK)
    norm_kernel(const T *a, const T *b, sb_norm_rows g, double *part)
{
    __shared__ double ss[SB_NORM_BLOCK], sm[SB_NORM_BLOCK];
    double s = 0, m = 0;
    for (long r = blockIdx.x; r < g.rows; r += gridDim.x) {
        long base = g.off + (r / g.m) * g.sa + (r % g.m) * g.sb;
        for (long k = threadIdx.x; k < g.len; k += blockDim.x) {
            double d = (double)a[base + k * g.cs] - (double)b[base + k * g.cs];
            s = s + d * d;
            m = fmax(m, fabs(d));
        }
    }
    ss[threadIdx.x] = s;
    sm[threadIdx.x] = m;
    __syncthreads();
    for (int h = SB_NORM_BLOCK / 2; h > 0; h /= 2) {
        if ((int)threadIdx.x < h) {
            ss[threadIdx.x] = ss[threadIdx.x] + ss[threadIdx.x + h];
            sm[threadIdx.x] = fmax(sm[threadIdx.x], sm[threadIdx.x + h]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        part[2 * blockIdx.x] = ss[0];
        part[2 * blockIdx.x + 1] = sm[0];
    }
}

/* Box lo/hi in local indices, stride of the local arrays; out[0] sum of squares, out[1] max. */
template <typename T>
static gpuError_t norm_run(const T *a, const T *b, const long *lo, const long *hi,
                           const long *stride, gpuStream_t st, double out[2])
{
    double host[2 * SB_NORM_GRID];
    sb_norm_rows g = sb_norm_shape(lo, hi, stride);
    int grid = g.rows < SB_NORM_GRID ? (int)g.rows : SB_NORM_GRID;
    double *part = NULL;
    out[0] = out[1] = 0;
    if (g.rows <= 0) return gpuSuccess;
    gpuError_t e = gpuMalloc((void **)&part, sizeof host);
    if (e != gpuSuccess) return e;
    norm_kernel<T><<<grid, SB_NORM_BLOCK, 0, st>>>(a, b, g, part);
    e = gpuGetLastError();
    if (e == gpuSuccess) e = gpuStreamSynchronize(st);
    if (e == gpuSuccess)
        e = gpuMemcpy(host, part, 2 * (size_t)grid * sizeof *host, gpuMemcpyDeviceToHost);
    gpuError_t f = gpuFree(part);
    if (e == gpuSuccess) e = f;
    for (int k = 0; e == gpuSuccess && k < grid; k++) {
        out[0] = out[0] + host[2 * k];
        out[1] = fmax(out[1], host[2 * k + 1]);
    }
    return e;
}

} /* namespace SB_GPU_NS */

#endif /* SB_GPU_NORM_CUH */
