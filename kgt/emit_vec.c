/*
 * The vector form of a CUDA/HIP kernel (2D/3D): each thread owns 16 bytes of a row (4 floats or
 * 2 doubles) and walks them along dimension 0. Every input row it reads comes in as aligned
 * 16-byte loads (its own vector and, for x offsets, the neighbouring ones), so the
 * x-neighbours cost no extra load instructions; results leave as one 16-byte store per row.
 * The launcher uses it when every row starts 16-byte aligned (row strides a multiple of the
 * vector), else the scalar kernel of emit_dev.c. Threads whose vector touches the edge of the
 * box, and the last rows of a box, take a plain loop instead.
 */
#include <stdlib.h>
#include <string.h>

#include "kgt.h"

enum {
    V_ROWS = KGT_WALK_MAX + 2 * KGT_MAX_RADIUS,
    V_SIDE = 2 * KGT_MAX_RADIUS + 1,
    V_X = 2 * KGT_MAX_RADIUS + 4, /* x of a cell relative to the vector: -8 .. 3 + 8 */
    V_K = 16                      /* vector index: -8 .. 7 (doubles: two a vector) */
};

static const char *const tname[2] = {"float", "double"};
static const char *const vname[2] = {"float4", "double2"};
static const char tsuf[2] = {'f', 'd'};

static int floordiv(int a, int b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Cells per vector. */
static int vw_of(int dbl)
{
    return dbl ? 2 : 4;
}

/* Non-zero weights reach lo cells below and hi above along the last dimension. */
static void x_reach(const kgt_stencil *s, int *lo, int *hi)
{
    *lo = *hi = 0;
    for (int p = 0; p < s->npts; p++) {
        int dx = s->pts[p].off[s->ndims - 1];
        if (s->pts[p].w == 0.0) continue;
        if (-dx > *lo) *lo = -dx;
        if (dx > *hi) *hi = dx;
    }
}

/*
 * Names input cell (row u + off[0], y off[1], x = xpos from the vector's start): a component of
 * one aligned vector load, each vector and each name declared once per walk.
 */
static void emit_vload(kgt_buf *b, const kgt_stencil *s, int dbl, int u, const int *off, int xpos,
                       unsigned char *seen)
{
    int last = s->ndims - 1, vw = vw_of(dbl), k = floordiv(xpos, vw);
    int row = u + off[0] + KGT_MAX_RADIUS, y = (s->ndims == 3 ? off[1] : 0) + KGT_MAX_RADIUS;
    size_t vkey = (size_t)(row * V_SIDE + y) * V_K + (size_t)(k + V_K / 2);
    size_t ckey = (size_t)V_ROWS * V_SIDE * V_K + (size_t)(row * V_SIDE + y) * V_X +
                  (size_t)(xpos + KGT_MAX_RADIUS);
    if (seen[ckey]) return;
    seen[ckey] = 1;
    if (!seen[vkey]) {
        seen[vkey] = 1;
        kgt_printf(b, "        const %s V%d_%d_%d = *(const %s *)(in + base + %d * s0", vname[dbl],
                   row, y, k + V_K / 2, vname[dbl], u + off[0]);
        if (s->ndims == 3 && off[1]) kgt_printf(b, " + %d * s1", off[1]);
        if (k) kgt_printf(b, " + %d", k * vw);
        kgt_printf(b, ");\n");
    }
    int o[3] = {off[0], off[1], off[2]};
    o[last] = xpos;
    kgt_printf(b, "        const %s ", tname[dbl]);
    kgt_temp(b, u, o);
    kgt_printf(b, " = V%d_%d_%d.%c;\n", row, y, k + V_K / 2, "xyzw"[xpos - k * vw]);
}

/* The unrolled walk: per row, the loads its cells need, then one vector of results. */
static void emit_vwalk(kgt_buf *b, const kgt_stencil *s, int dbl, int walk)
{
    static unsigned char seen[V_ROWS * V_SIDE * V_K + V_ROWS * V_SIDE * V_X];
    int vw = vw_of(dbl);
    char wrap[40];
    memset(seen, 0, sizeof seen);
    for (int u = 0; u < walk; u++) {
        for (int j = 0; j < vw; j++)
            for (int p = 0; p < s->npts; p++)
                if (s->pts[p].w != 0.0)
                    emit_vload(b, s, dbl, u, s->pts[p].off, j + s->pts[p].off[s->ndims - 1], seen);
        kgt_printf(b, "        {\n            %s r;\n", vname[dbl]);
        for (int j = 0; j < vw; j++) {
            kgt_index ix = {"in", "c", {NULL, NULL, NULL}, kgt_wrap(wrap, 16), 1, u, j};
            kgt_printf(b, "            r.%c = ", "xyzw"[j]);
            kgt_emit_expr(b, s, dbl, &ix);
            kgt_printf(b, ";\n");
        }
        kgt_printf(b, "            *(%s *)(out + base + %d * s0) = r;\n        }\n", vname[dbl], u);
    }
}

/* Rows the walk does not cover, and vectors at the box's edges: cell by cell. */
static void emit_vrest(kgt_buf *b, const kgt_stencil *s, int dbl, const char *lx, const char *hx,
                       int walk)
{
    char wrap[40];
    kgt_index ix = {"in", "c", {"s0", NULL, NULL}, kgt_wrap(wrap, 20), 0, 0, 0};
    if (s->ndims > 2) ix.stride[1] = "s1";
    kgt_printf(b,
               "        const long iend = i0 + %d < h0 ? i0 + %d : h0;\n"
               "        for (long i = i0; i < iend; i++)\n"
               "            for (int j = 0; j < %d; j++)\n"
               "                if (x + j >= %s && x + j < %s) {\n"
               "                    const long c = i * s0 + y * s1 + x + j;\n"
               "                    out[c] = ",
               walk, walk, vw_of(dbl), lx, hx);
    kgt_emit_expr(b, s, dbl, &ix);
    kgt_printf(b, ";\n                }\n");
}

void kgt_emit_gpu_vec(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    int nd = s->ndims, walk = kgt_walk(g, s), vw = vw_of(dbl), rlo, rhi;
    const char *lx = nd == 2 ? "l1" : "l2", *hx = nd == 2 ? "h1" : "h2";
    x_reach(s, &rlo, &rhi);
    int kmin = floordiv(-rlo, vw), kmax = floordiv(vw - 1 + rhi, vw);
    kgt_printf(b,
               "static __global__ void __launch_bounds__(256)\n"
               "    %s_%s_v%c(const %s *__restrict__ in, %s *__restrict__ out, long l0, long l1,\n"
               "    long l2, long h0, long h1, long h2, long s0, long s1, long xa)\n{\n"
               "    const long x = xa + ((long)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n",
               g->prefix, s->stem, tsuf[dbl], tname[dbl], tname[dbl], vw);
    if (nd == 2)
        kgt_printf(b,
                   "    const long y = 0, i0 = l0 + (long)blockIdx.y * %d;\n"
                   "    (void)l2; (void)h2;\n",
                   walk);
    else
        kgt_printf(b,
                   "    const long y = l1 + (long)blockIdx.y * blockDim.y + threadIdx.y;\n"
                   "    const long i0 = l0 + (long)blockIdx.z * %d;\n"
                   "    if (y >= h1) return;\n",
                   walk);
    /* The whole vector in the box, and every vector it loads inside the rows' readable part. */
    kgt_printf(b,
               "    if (i0 >= h0) return;\n"
               "    const long base = i0 * s0 + y * s1 + x;\n"
               "    if (i0 + %d <= h0 && x >= %s && x + %d <= %s && x - %d >= %s - %d &&\n"
               "        x + %d <= %s - 1 + %d) {\n",
               walk, lx, vw, hx, -kmin * vw, lx, rlo, kmax * vw + vw - 1, hx, rhi);
    emit_vwalk(b, s, dbl, walk);
    kgt_printf(b, "    } else {\n");
    emit_vrest(b, s, dbl, lx, hx, walk);
    kgt_printf(b, "    }\n}\n\n");
}
