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

#define SB_NORM_BLOCK 256
#define SB_NORM_GRID  1024

namespace SB_GPU_NS
{

/*
 * The box as rows of len cells, cs apart: row r starts at off + (r / m) * sa + (r % m) * sb.
 * Consecutive threads take consecutive cells of a row, so the reads coalesce.
 */
struct norm_rows {
    long off, rows, m, sa, sb, len, cs;
};

template <typename T>
__global__ void __launch_bounds__(SB_NORM_BLOCK)
    norm_kernel(const T *a, const T *b, norm_rows g, double *part)
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

/*
 * Rows along the innermost dimension that has more than one cell: dimension 2 in 3D, 1 in 2D
 * (dimension 2 is then one cell thick), 0 in 1D, so that a 2D box is n0 rows of n1 cells.
 */
static norm_rows norm_shape(const long *lo, const long *hi, const long *stride)
{
    long n[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    norm_rows g = {
        lo[0] * stride[0] + lo[1] * stride[1] + lo[2] * stride[2], 1, 1, 0, 0, n[0], stride[0]};
    if (n[2] > 1) {
        g.rows = n[0] * n[1], g.m = n[1], g.sa = stride[0], g.sb = stride[1];
        g.len = n[2], g.cs = stride[2];
    } else if (n[1] > 1) {
        g.rows = n[0] * n[2], g.m = n[2], g.sa = stride[0], g.sb = stride[2];
        g.len = n[1], g.cs = stride[1];
    }
    return g;
}

/* Box lo/hi in local indices, stride of the local arrays; out[0] sum of squares, out[1] max. */
template <typename T>
static gpuError_t norm_run(const T *a, const T *b, const long *lo, const long *hi,
                           const long *stride, gpuStream_t st, double out[2])
{
    double host[2 * SB_NORM_GRID];
    norm_rows g = norm_shape(lo, hi, stride);
    int grid = g.rows < SB_NORM_GRID ? (int)g.rows : SB_NORM_GRID;
    double *part = NULL;
    out[0] = out[1] = 0;
    if (g.rows <= 0 || g.len <= 0 || hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2])
        return gpuSuccess;
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
