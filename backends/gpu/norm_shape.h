/*
 * How the CUDA/HIP norm kernel (norm.cuh) walks a box: rows of len cells, cs apart, row r
 * starting at off + (r / m) * sa + (r % m) * sb. Rows run along the box's innermost dimension of
 * more than one cell: dimension 2 in 3D, 1 in 2D (dimension 2 is then one cell thick), 0 in 1D,
 * so a 2D box is n0 rows of n1 cells and consecutive threads read consecutive cells. Plain C, so
 * that tests/unit/test_norm_shape.c checks it on the CPU (every cell of the box exactly once).
 */
#ifndef SB_GPU_NORM_SHAPE_H
#define SB_GPU_NORM_SHAPE_H

typedef struct sb_norm_rows {
    long off, rows, m, sa, sb, len, cs;
} sb_norm_rows;

/* Box [lo, hi) in local indices of arrays with element strides stride (3 entries each). */
static inline sb_norm_rows sb_norm_shape(const long *lo, const long *hi, const long *stride)
{
    long n[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    sb_norm_rows g = {
        lo[0] * stride[0] + lo[1] * stride[1] + lo[2] * stride[2], 1, 1, 0, 0, n[0], stride[0]};
    if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0) {
        g.rows = 0;
    } else if (n[2] > 1) {
        g.rows = n[0] * n[1], g.m = n[1], g.sa = stride[0], g.sb = stride[1];
        g.len = n[2], g.cs = stride[2];
    } else if (n[1] > 1) {
        g.rows = n[0] * n[2], g.m = n[2], g.sa = stride[0], g.sb = stride[2];
        g.len = n[1], g.cs = stride[1];
    }
    return g;
}

#endif /* SB_GPU_NORM_SHAPE_H */
