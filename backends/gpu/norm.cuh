/*
 * The norm of the change between two iterates (sb_ops.norm) on CUDA/HIP: one launch of at most
 * SB_NORM_GRID blocks, each taking whole rows of the box (dimension 2 fastest, so reads coalesce)
 * and reducing its sums in shared memory, then the per-block partials copied back and reduced on
 * the host. Everything in double; blocking, on the given stream. The partials live in a small
 * device allocation made per call (16 KiB), so the backend keeps no extra state.
 */
#ifndef SB_GPU_NORM_CUH
#define SB_GPU_NORM_CUH

#define SB_NORM_BLOCK 256
#define SB_NORM_GRID  1024

namespace SB_GPU_NS
{

/* Rows of the box are (i, j) pairs, j fastest; n1, n2 extents of dimensions 1 and 2. */
template <typename T>
__global__ void __launch_bounds__(SB_NORM_BLOCK)
    norm_kernel(const T *a, const T *b, long lo0, long lo1, long lo2, long rows, long n1, long n2,
                long s0, long s1, double *part)
{
    __shared__ double ss[SB_NORM_BLOCK], sm[SB_NORM_BLOCK];
    double s = 0, m = 0;
    for (long r = blockIdx.x; r < rows; r += gridDim.x) {
        long base = (lo0 + r / n1) * s0 + (lo1 + r % n1) * s1 + lo2;
        for (long k = threadIdx.x; k < n2; k += blockDim.x) {
            double d = (double)a[base + k] - (double)b[base + k];
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
    long n1 = hi[1] - lo[1], n2 = hi[2] - lo[2], rows = (hi[0] - lo[0]) * n1;
    int grid = rows < SB_NORM_GRID ? (int)rows : SB_NORM_GRID;
    double *part = NULL;
    out[0] = out[1] = 0;
    if (rows <= 0 || n2 <= 0) return gpuSuccess;
    gpuError_t e = gpuMalloc((void **)&part, sizeof host);
    if (e != gpuSuccess) return e;
    norm_kernel<T><<<grid, SB_NORM_BLOCK, 0, st>>>(a, b, lo[0], lo[1], lo[2], rows, n1, n2,
                                                   stride[0], stride[1], part);
    e = gpuGetLastError();
    if (e == gpuSuccess) e = gpuStreamSynchronize(st);
    if (e == gpuSuccess)
        e = gpuMemcpy(host, part, 2 * (size_t)grid * sizeof *host, gpuMemcpyDeviceToHost);
    gpuError_t f = gpuFree(part);
    if (e == gpuSuccess) e = f;
    for (int g = 0; e == gpuSuccess && g < grid; g++) {
        out[0] = out[0] + host[2 * g];
        out[1] = fmax(out[1], host[2 * g + 1]);
    }
    return e;
}

} /* namespace SB_GPU_NS */

#endif /* SB_GPU_NORM_CUH */
