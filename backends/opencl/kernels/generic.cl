/*
 * Generic stencil update. The backend prepends a prologue that defines, for the stencil at hand:
 *   idx_t                index type (int when the local array fits, else long)
 *   STENCIL_SUM(in, c)   acc = w0 * in[c + o0]; acc = acc + w1 * in[c + o1]; ... with the non-zero
 *                        points in row-major order, weights as exact hex literals of type real_t
 *                        and o_p = off0 * S0 + off1 * S1 + off2 for the strides S0, S1
 *   STENCIL_FINISH(acc)  acc / divisor (or an exact equivalent, see backends/backend.h)
 * and builds with -Dreal_t=float|double, FP_CONTRACT OFF and correctly rounded division.
 * Unlike the minimal named-kernel contract, this kernel checks all three global ids, so the
 * backend may round any dimension of the launch up to its work-group shape.
 *
 * Each work-item computes STENCIL_WALK consecutive cells of dimension 0 (global id 2 counts
 * walks, not cells): with the offsets compile-time constants and the walk unrolled, the compiler
 * keeps the inputs that neighbouring cells of the walk share in registers. The backend passes
 * -DSTENCIL_WALK per device (ocl_build.c: 8 on GPUs, 4 on CPU devices, where PoCL vectorises the
 * work-item loop instead); 1 is the plain one-cell-per-work-item kernel.
 */
#ifndef STENCIL_WALK
#define STENCIL_WALK 8
#endif

__kernel void stencil_update(__global const real_t *restrict in, __global real_t *restrict out,
                             long lo0, long lo1, long lo2, long n0, long n1, long n2, long s0,
                             long s1)
{
    const idx_t k = (idx_t)get_global_id(0);
    const idx_t j = (idx_t)get_global_id(1);
    const idx_t i0 = (idx_t)get_global_id(2) * STENCIL_WALK;
    if (k >= (idx_t)n2 || j >= (idx_t)n1 || i0 >= (idx_t)n0)
        return;
    const idx_t S0 = (idx_t)s0, S1 = (idx_t)s1;
    const idx_t c0 = ((idx_t)lo0 + i0) * S0 + ((idx_t)lo1 + j) * S1 + (idx_t)lo2 + k;
    real_t acc;
    if (i0 + STENCIL_WALK <= (idx_t)n0) {
#pragma unroll
        for (int u = 0; u < STENCIL_WALK; u++) {
            const idx_t c = c0 + u * S0;
            STENCIL_SUM(in, c)
            out[c] = STENCIL_FINISH(acc);
        }
    } else {
        for (idx_t c = c0; c < c0 + ((idx_t)n0 - i0) * S0; c += S0) {
            STENCIL_SUM(in, c)
            out[c] = STENCIL_FINISH(acc);
        }
    }
}
