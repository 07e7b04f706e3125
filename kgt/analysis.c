/*
 * kgt's bottom layer: what the emitters ask of a stencil (its non-zero points, how far they
 * reach, which planes and rows they fill, which kernel families take it) and the element types.
 * Nothing here writes code; every emitter reads the stencil through these queries.
 */
#include "kgt.h"

const kgt_type kgt_types[2] = {{"float", 'f', "float4", 4, 4}, {"double", 'd', "double2", 2, 8}};

void kgt_extents(const kgt_stencil *s, int *lo, int *hi)
{
    for (int d = 0; d < KGT_MAX_DIMS; d++) lo[d] = hi[d] = 0;
    for (int p = 0; p < s->npts; p++) {
        if (s->pts[p].w == 0.0) continue;
        for (int d = 0; d < s->ndims; d++) {
            int o = s->pts[p].off[d];
            if (-o > lo[d]) lo[d] = -o;
            if (o > hi[d]) hi[d] = o;
        }
    }
}

int kgt_reach_within(const kgt_stencil *s, int ndims, int r)
{
    int lo[KGT_MAX_DIMS], hi[KGT_MAX_DIMS];
    if (s->ndims != ndims) return 0;
    kgt_extents(s, lo, hi);
    for (int d = 0; d < ndims; d++)
        if (lo[d] > r || hi[d] > r) return 0;
    return 1;
}

int kgt_fused(const kgt_gen *g, const kgt_stencil *s)
{
    if (s->ndims != 2 || g->fused == KGT_FUSED_NONE) return 0;
    return g->fused == KGT_FUSED_ALL || kgt_stream(s) || kgt_reach_within(s, 2, 1);
}

void kgt_wyx(const kgt_stencil *s, const int *off, int *o)
{
    o[0] = s->ndims > 1 ? off[0] : 0;
    o[1] = s->ndims > 2 ? off[1] : 0;
    o[2] = off[s->ndims - 1];
}

/* The most non-zero points of s in one row other than the centre one (2D): the loads per cell of
   a register walk that no earlier cell of the walk made. */
int kgt_row_points(const kgt_stencil *s)
{
    int most = 0;
    for (int i = 0; i < s->npts; i++) {
        int n = 0;
        for (int j = 0; j < s->npts; j++)
            n += s->pts[j].w != 0.0 && s->pts[j].off[0] == s->pts[i].off[0];
        if (s->pts[i].w != 0.0 && s->pts[i].off[0] != 0 && n > most) most = n;
    }
    return most;
}

/* The points of s with a non-zero weight. */
int kgt_nonzero_points(const kgt_stencil *s)
{
    int n = 0;
    for (int i = 0; i < s->npts; i++) n += s->pts[i].w != 0.0;
    return n;
}

int kgt_has_plane(const kgt_stencil *s, int o0)
{
    for (int i = 0; i < s->npts; i++) {
        int o[3];
        kgt_wyx(s, s->pts[i].off, o);
        if (s->pts[i].w != 0.0 && o[0] == o0) return 1;
    }
    return 0;
}

/* Whether s has a non-zero weight off the axes. */
int kgt_off_axis(const kgt_stencil *s)
{
    for (int p = 0; p < s->npts; p++)
        if (s->pts[p].w != 0.0 && s->pts[p].off[0] != 0 && s->pts[p].off[1] != 0) return 1;
    return 0;
}

int kgt_stream_any(const kgt_stencil *s)
{
    return kgt_reach_within(s, 2, 2);
}

int kgt_stream_rt(const kgt_stencil *s)
{
    return kgt_reach_within(s, 2, KGT_STREAM_REACH);
}

int kgt_stream(const kgt_stencil *s)
{
    return kgt_stream_any(s) && !kgt_off_axis(s);
}

int kgt_stream3(const kgt_stencil *s)
{
    if (!kgt_reach_within(s, 3, 2)) return 0;
    for (int p = 0; p < s->npts; p++) {
        const int *o = s->pts[p].off;
        if (s->pts[p].w != 0.0 && (o[0] != 0) + (o[1] != 0) + (o[2] != 0) > 1) return 0;
    }
    return 1;
}

/* Any 3D stencil reaching one cell (diagonal points too): box mode at one level, partial sums at
   more (emit_stream3_box.c). */
int kgt_stream3_box(const kgt_stencil *s)
{
    return kgt_reach_within(s, 3, 1);
}

int kgt_stream3_any(const kgt_stencil *s)
{
    return kgt_stream3(s) || kgt_stream3_box(s);
}

int kgt_floordiv(int a, int b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/*
 * Chosen by measurement on an H200 (bench/RESULTS.md, kgt), which is why emit_vec.c's named
 * vector kernel handles 2D only: the vector kernels won clearly in 2D
 * where every cell ends in a true division (2d9, 2d9nc, 2d5asym, against the generic kernel),
 * where the four divisions of a thread are independent work; with a multiplication instead
 * (2d4, 2d-diag) and in 3D they were slower than the scalar kernels, L2-bound at half the DRAM
 * bandwidth.
 */
int kgt_gpu_vector(const kgt_stencil *s, int dbl)
{
    double r;
    return s->ndims == 2 && !kgt_exact_reciprocal(s->divisor, dbl, &r);
}

int kgt_walk(const kgt_gen *g)
{
    return g->walk ? g->walk : 8;
}
