/*
 * The vector form of a 2D CUDA/HIP kernel: each thread owns 16 bytes of a row (4 floats or
 * 2 doubles) and walks them along dimension 0. Every input row it reads comes in as aligned
 * 16-byte loads (its own vector and, for x offsets, the neighbouring ones), so the
 * x-neighbours cost no extra load instructions; results leave as one 16-byte store per row.
 * The launcher uses it when every row starts 16-byte aligned (row strides a multiple of the
 * vector), else the scalar kernel of emit_dev.c. Threads whose vector touches the edge of the
 * box, and the last rows of a box, take a plain loop instead. The vector-row body of the run-time
 * step kernel (2D and 3D) is emit_vec_rows.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "kgt.h"

enum {
    V_ROWS = KGT_WALK_MAX + 2 * KGT_MAX_RADIUS,
    V_X = 2 * KGT_MAX_RADIUS + 4, /* x of a cell relative to the vector: -8 .. 3 + 8 */
    V_K = 16                      /* vector index: -8 .. 7 (doubles: two a vector) */
};

/* Non-zero weights reach lo cells below and hi above along dimension 1 (x). */
static void x_reach(const kgt_stencil *s, int *lo, int *hi)
{
    *lo = *hi = 0;
    for (int p = 0; p < s->npts; p++) {
        int dx = s->pts[p].off[1];
        if (s->pts[p].w == 0.0) continue;
        if (-dx > *lo) *lo = -dx;
        if (dx > *hi) *hi = dx;
    }
}

/* The neighbour k vectors away, in a name: M1 for -1, P2 for +2. */
static void kname(kgt_buf *b, int k)
{
    kgt_printf(b, "%c%d", k < 0 ? 'M' : 'P', abs(k));
}

/* Declares the thread's own vector of one row once: V<row>. */
static void emit_center(kgt_buf *b, int dbl, int row, unsigned char *seen)
{
    size_t key = (size_t)row * V_K + V_K / 2;
    if (seen[key]) return;
    seen[key] = 1;
    kgt_printf(b, "        const %s V%d = *(const %s *)(in + base + %d * s0);\n",
               kgt_types[dbl].vec, row, kgt_types[dbl].vec, row - KGT_MAX_RADIUS);
}

/* Declares the edge lanes' load of the vector k away once: E<row>_<k>. */
static void emit_edge(kgt_buf *b, int dbl, int row, int k, unsigned char *seen)
{
    size_t key = (size_t)row * V_K + (size_t)(k + V_K / 2);
    if (seen[key]) return;
    seen[key] = 1;
    kgt_printf(b, "        const %s E%d_", kgt_types[dbl].vec, row);
    kname(b, k);
    kgt_printf(b, " = *(const %s *)(in + base + %d * s0 + eo", kgt_types[dbl].vec,
               row - KGT_MAX_RADIUS);
    kname(b, k);
    kgt_printf(b, ");\n");
}

/*
 * Names input cell (row u + o0, x = xpos from the thread's vector): a component of its own
 * vector, or of the vector k lanes away by a shuffle; the lanes at the warp's edge take that one
 * from their edge load instead. Each name is declared once per walk.
 */
static void emit_vload(kgt_buf *b, int dbl, int u, int o0, int xpos, unsigned char *seen)
{
    int vw = kgt_types[dbl].vw, k = kgt_floordiv(xpos, vw), c = xpos - k * vw;
    int row = u + o0 + KGT_MAX_RADIUS, o[3] = {o0, xpos, 0};
    size_t ckey = (size_t)V_ROWS * V_K + (size_t)row * V_X + (size_t)(xpos + KGT_MAX_RADIUS);
    if (seen[ckey]) return;
    seen[ckey] = 1;
    emit_center(b, dbl, row, seen);
    if (!k) {
        kgt_printf(b, "        const %s ", kgt_types[dbl].name);
        kgt_temp(b, u, o);
        kgt_printf(b, " = V%d.%c;\n", row, "xyzw"[c]);
        return;
    }
    emit_edge(b, dbl, row, k, seen);
    kgt_printf(b, "        const %s s", kgt_types[dbl].name);
    kgt_temp(b, u, o);
    kgt_printf(b, " = KGT_SHFL(V%d.%c, lane %c %d);\n", row, "xyzw"[c], k < 0 ? '-' : '+', abs(k));
    kgt_printf(b, "        const %s ", kgt_types[dbl].name);
    kgt_temp(b, u, o);
    if (k < 0)
        kgt_printf(b, " = lane < %d ? E%d_", -k, row);
    else
        kgt_printf(b, " = lane >= KGT_WARP - %d ? E%d_", k, row);
    kname(b, k);
    kgt_printf(b, ".%c : s", "xyzw"[c]);
    kgt_temp(b, u, o);
    kgt_printf(b, ";\n");
}

/* The unrolled walk: per row, the loads its cells need, then one vector of results. */
static void emit_vwalk(kgt_buf *b, const kgt_stencil *s, int dbl, int walk)
{
    unsigned char seen[V_ROWS * V_K + V_ROWS * V_X]; /* not static: any thread may generate */
    int vw = kgt_types[dbl].vw;
    char wrap[40];
    memset(seen, 0, sizeof seen);
    for (int u = 0; u < walk; u++) {
        for (int j = 0; j < vw; j++)
            for (int p = 0; p < s->npts; p++)
                if (s->pts[p].w != 0.0)
                    emit_vload(b, dbl, u, s->pts[p].off[0], j + s->pts[p].off[1], seen);
        kgt_printf(b, "        {\n            %s r;\n", kgt_types[dbl].vec);
        for (int j = 0; j < vw; j++) {
            kgt_index ix = {"in", "c", {NULL, NULL, NULL}, kgt_wrap(wrap, 16), 1, u, j, 1};
            kgt_printf(b, "            r.%c = ", "xyzw"[j]);
            kgt_emit_expr(b, s, dbl, &ix);
            kgt_printf(b, ";\n");
        }
        kgt_printf(b, "            *(%s *)(out + base + %d * s0) = r;\n        }\n",
                   kgt_types[dbl].vec, u);
    }
}

/*
 * Warps with a lane outside the vector path (the box's edges, its last rows): cell by cell,
 * lane after lane, so these warps still move whole lines.
 */
static void emit_vrest(kgt_buf *b, const kgt_stencil *s, int dbl, int walk)
{
    char wrap[40];
    const kgt_index ix = {"in", "c", {"s0", NULL, NULL}, kgt_wrap(wrap, 24), 0, 0, 0, 1};
    kgt_printf(b,
               "        const long iend = i0 + %d < h0 ? i0 + %d : h0, x0 = x - (long)lane * %d;\n"
               "        for (long i = i0; i < iend; i++)\n"
               "            for (int j = 0; j < %d; j++) {\n"
               "                const long xc = x0 + (long)j * KGT_WARP + lane;\n"
               "                if (xc >= l1 && xc < h1) {\n"
               "                    const long c = i * s0 + xc;\n"
               "                    out[c] = ",
               walk, walk, kgt_types[dbl].vw, kgt_types[dbl].vw);
    kgt_emit_expr(b, s, dbl, &ix);
    kgt_printf(b, ";\n                }\n            }\n");
}

/* Whether some cell of the vector reads the vector k away (sparse x offsets skip some k). */
static int reads_vector(const kgt_stencil *s, int vw, int k)
{
    for (int p = 0; p < s->npts; p++)
        for (int j = 0; j < vw && s->pts[p].w != 0.0; j++)
            if (kgt_floordiv(j + s->pts[p].off[1], vw) == k) return 1;
    return 0;
}

/* Per neighbour k: where a lane's edge load reads, from its x (edge lanes: their own
   neighbour; the others: the same vector as the nearest edge lane, so the load adds nothing).
   Only for the k some cell reads: an unused offset fails -Werror builds. */
static void emit_edge_offsets(kgt_buf *b, const kgt_stencil *s, int kmin, int kmax, int vw)
{
    for (int k = kmin; k <= kmax; k++) {
        if (!k || !reads_vector(s, vw, k)) continue;
        kgt_printf(b, "    const long eo");
        kname(b, k);
        if (k < 0)
            kgt_printf(b, " = (lane < %d ? %d : %d - lane) * %d;\n", -k, k, k, vw);
        else
            kgt_printf(b, " = (lane >= KGT_WARP - %d ? %d : KGT_WARP - 1 + %d - lane) * %d;\n", k,
                       k, k, vw);
    }
}

void kgt_emit_gpu_vec(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    int walk = kgt_walk(g), vw = kgt_types[dbl].vw, rlo, rhi;
    x_reach(s, &rlo, &rhi);
    int kmin = kgt_floordiv(-rlo, vw), kmax = kgt_floordiv(vw - 1 + rhi, vw);
    kgt_printf(b,
               "static __global__ void __launch_bounds__(256)\n"
               "    %s_%s_v%c(const %s *__restrict__ in, %s *__restrict__ out, long l0, long l1,\n"
               "    long l2, long h0, long h1, long h2, long s0, long s1, long xa)\n{\n"
               "    const long x = xa + ((long)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n"
               "    const long i0 = l0 + (long)blockIdx.y * %d;\n"
               "    (void)l2; (void)h2; (void)s1;\n",
               g->prefix, s->stem, kgt_types[dbl].suf, kgt_types[dbl].name, kgt_types[dbl].name, vw,
               walk);
    /* ok: the lane's vector in the box, its neighbours' inside the rows' readable part. */
    kgt_printf(b,
               "    if (i0 >= h0) return;\n"
               "    const int lane = (int)(threadIdx.x %% KGT_WARP);\n"
               "    const long base = i0 * s0 + x;\n"
               "    const int ok = x >= l1 && x + %d <= h1 && x - %d >= l1 - %d &&\n"
               "                   x + %d <= h1 - 1 + %d;\n",
               vw, -kmin * vw, rlo, kmax * vw + vw - 1, rhi);
    emit_edge_offsets(b, s, kmin, kmax, vw);
    kgt_printf(b, "    if (i0 + %d <= h0 && KGT_ALL(ok)) {\n", walk);
    emit_vwalk(b, s, dbl, walk);
    kgt_printf(b, "    } else {\n");
    emit_vrest(b, s, dbl, walk);
    kgt_printf(b, "    }\n}\n\n");
}
