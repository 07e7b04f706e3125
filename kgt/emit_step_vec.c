/*
 * The one-step streaming kernel's vector rows on copied tiles (shape vec, 3D; emit_step.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step.h"

/*
 * Shape vec (3D): a thread owns V = 16 / sizeof(T) consecutive x cells in each of its nc rows
 * (by apart). A plane's tile row is tx + 2V wide (rims of whole vectors), so that the block's
 * copies (NAME: one 16-byte copy per vector, clamped to the vectors holding the grown box; NAME_u:
 * one copy per element, as the scalar kernel), a thread's loads (a vector per row offset, plus
 * the elements of the neighbouring vectors its x reach needs) and its stores (a vector where all
 * V cells are in the box) take a quarter of the instructions of a cell each. The terms still
 * come per cell and plane in the contract's order.
 */

/* NAME's copies: vector i of the tile, clamped to the vectors that hold the grown box. */
static void emit_vec_loader(kgt_buf *b, const step *st)
{
    const kgt_step_info *in = st->in;
    const int v = st->v, cw = st->w / v, nv = st->tot / v;
    kgt_printf(
        b,
        "    const int vx0 = xa + (x0 - %d - xa + %d) / %d * %d - %d;\n"
        "    const int vx1 = xa + (x1 - 1 + %d - xa) / %d * %d;\n"
        "    const long long tb = (long long)KGT_CLAMP(ty0 - %d, y0 - %d, y1 - 1 + %d) * s1 +\n"
        "                         KGT_CLAMP(tx0 - %d, vx0, vx1);\n"
        "    const %s *ib = in + tb;\n",
        in->elo[2], v, v, v, v, in->ehi[2], v, v, in->elo[1], in->elo[1], in->ehi[1], v,
        kgt_types[st->dbl].name);
    for (int k = 0; k < st->k; k++) {
        kgt_printf(b, "    int g%d;\n    {\n", k);
        if ((k + 1) * st->nt > nv)
            kgt_printf(b, "        const int i = tid + %d < %d ? tid + %d : %d;\n", k * st->nt, nv,
                       k * st->nt, nv - 1);
        else
            kgt_printf(b, "        const int i = tid + %d;\n", k * st->nt);
        kgt_printf(b,
                   "        const int r = i / %d, c = i - r * %d;\n"
                   "        const int gy = KGT_CLAMP(ty0 + r - %d, y0 - %d, y1 - 1 + %d);\n"
                   "        const int gx = KGT_CLAMP(tx0 - %d + c * %d, vx0, vx1);\n"
                   "        g%d = (int)((long long)gy * s1 + gx - tb);\n    }\n",
                   cw, cw, in->elo[1], in->elo[1], in->ehi[1], v, v, k);
    }
}

static void emit_vec_cells(kgt_buf *b, const step *st)
{
    const kgt_step_info *in = st->in;
    const int v = st->v, lo = in->elo[0] + in->ehi[0];
    kgt_printf(b,
               "    const int cy = ty0 + threadIdx.y, cx = tx0 + threadIdx.x * %d;\n"
               "    const int q = (threadIdx.y + %d) * %d + %d + threadIdx.x * %d;\n",
               v, in->elo[1], st->w, v, v);
    if (st->al) kgt_printf(b, "    const bool okv = cx >= x0 && cx + %d < x1;\n", v - 1);
    for (int k = 0; k < v; k++)
        kgt_printf(b, "    const bool okx%d = cx + %d >= x0 && cx + %d < x1;\n", k, k, k);
    for (int j = 0; j < in->sh.nc; j++) {
        kgt_printf(b, "    const bool oky%d = cy + %d < y1;\n", j, j * in->sh.by);
        for (int k = 0; k < v; k++)
            kgt_printf(b, "    const bool ok%d = okx%d && oky%d;\n", j * v + k, k, j);
    }
    kgt_printf(b,
               "    const int ys = %d * (int)s1;\n"
               "    long long ko = (long long)(zs - %d) * s0 + (long long)cy * s1 + cx;\n"
               "    const %s *nx = ib + (long long)(zs - %d + %d) * s0;\n"
               "    int sr = 0, sw = %d;\n",
               in->sh.by, lo, kgt_types[st->dbl].name, in->elo[0], in->sh.pipe - 1,
               in->sh.pipe - 1);
}

/* The copies of the plane at pointer ip into slot sa. */
static void emit_vec_copy(kgt_buf *b, const step *st, int ind, const char *ip, const char *sa)
{
    int nv = st->al ? st->tot / st->v : st->tot;
    for (int k = 0; k < st->k; k++) {
        kgt_printf(b, "%*s", ind, "");
        if ((k + 1) * st->nt > nv) kgt_printf(b, "if (tid + %d < %d) ", k * st->nt, nv);
        if (st->al)
            kgt_printf(b, "KGT_CP_ASYNC16(%s + (tid + %d) * %d, %s + g%d);\n", sa, k * st->nt,
                       st->v, ip, k);
        else
            kgt_printf(b, "KGT_CP_ASYNC(%s + tid + %d, %s + g%d);\n", sa, k * st->nt, ip, k);
    }
}

/* Row offset oy of plane offset o0: the points' x reach there, or 0 when it has none. */
static int row_reach(const kgt_stencil *s, int o0, int oy, int *mn, int *mx)
{
    int any = 0;
    *mn = 0, *mx = 0;
    for (int i = 0; i < s->npts; i++) {
        int o[3];
        kgt_wyx(s, s->pts[i].off, o);
        if (s->pts[i].w == 0.0 || o[0] != o0 || o[1] != oy) continue;
        if (!any || o[2] < *mn) *mn = o[2];
        if (!any || o[2] > *mx) *mx = o[2];
        any = 1;
    }
    if (*mn > 0) *mn = 0;
    if (*mx < 0) *mx = 0;
    return any;
}

static const char *const lane[4] = {"x", "y", "z", "w"};

/* The value of element e (relative to the vector's first cell) of the row just loaded. */
static void vec_value(char *v, size_t len, const step *st, int e)
{
    if (e < 0)
        snprintf(v, len, "vl%d", -e);
    else if (e >= st->v)
        snprintf(v, len, "vr%d", e - st->v);
    else
        snprintf(v, len, "vm.%s", lane[e]);
}

/* Plane offset o0's terms: row by row, the row's values loaded once for the thread's V cells. */
static void emit_vec_plane_terms(kgt_buf *b, const step *st, int u, int o0, int first_o0)
{
    const kgt_stencil *s = st->s;
    const kgt_step_info *in = st->in;
    const int v = st->v, slot = kgt_step_mod(u - o0, st->p);
    int first = o0 == first_o0;
    for (int oy = -in->elo[1]; oy <= in->ehi[1]; oy++) {
        int mn, mx;
        if (!row_reach(s, o0, oy, &mn, &mx)) continue;
        for (int j = 0; j < in->sh.nc; j++) {
            int at = (j * in->sh.by + oy) * st->w;
            kgt_printf(b, "            {\n                const %s vm = KGT_LD%s(cur + q + %d);\n",
                       st->dbl ? "double2" : "float4", st->dbl ? "2D" : "4F", at);
            for (int e = mn; e < 0; e++)
                kgt_printf(b, "                const %s vl%d = cur[q + %d];\n",
                           kgt_types[st->dbl].name, -e, at + e);
            for (int e = 0; e < mx; e++)
                kgt_printf(b, "                const %s vr%d = cur[q + %d];\n",
                           kgt_types[st->dbl].name, e, at + v + e);
            for (int k = 0; k < v; k++) {
                int f = first;
                for (int i = 0; i < s->npts; i++) {
                    int o[3];
                    char acc[24], val[16];
                    kgt_wyx(s, s->pts[i].off, o);
                    if (s->pts[i].w == 0.0 || o[0] != o0 || o[1] != oy) continue;
                    snprintf(acc, sizeof acc, "a%d_%d", slot, j * v + k);
                    vec_value(val, sizeof val, st, k + o[2]);
                    kgt_printf(b, "                ");
                    kgt_emit_acc_term(b, st->dbl, f, acc, s->pts[i].w, val);
                    f = 0;
                }
            }
            kgt_printf(b, "            }\n");
        }
        first = 0;
    }
}

/* The quotients d<c> of accumulator slot a (split division: emit_split), then stores. */
static void emit_vec_store(kgt_buf *b, const step *st, int a)
{
    const kgt_step_info *in = st->in;
    const int v = st->v, nc = in->sh.nc * v;
    const char *t = kgt_types[st->dbl].name;
    if (in->split)
        kgt_step_split(b, st, 'd', a, nc);
    else
        for (int c = 0; c < nc; c++) {
            char acc[24];
            snprintf(acc, sizeof acc, "a%d_%d", a, c);
            kgt_printf(b, "                const %s d%d = ", t, c);
            kgt_emit_quotient(b, st->s, st->dbl, acc);
            kgt_printf(b, ";\n");
        }
    for (int j = 0; j < in->sh.nc; j++) {
        if (st->al) {
            kgt_printf(b, "                if (okv && oky%d) KGT_ST%s(ob + %d * ys", j,
                       st->dbl ? "2D" : "4F", j);
            for (int k = 0; k < v; k++) kgt_printf(b, ", d%d", j * v + k);
            kgt_printf(b, ");\n                else {\n");
        }
        for (int k = 0; k < v; k++)
            kgt_printf(b, "                    if (ok%d) ob[%d * ys + %d] = d%d;\n", j * v + k, j,
                       k, j * v + k);
        if (st->al) kgt_printf(b, "                }\n");
    }
}

static void emit_vec_plane(kgt_buf *b, const step *st, int u)
{
    const kgt_step_info *in = st->in;
    const int d = in->sh.pipe, lo = in->elo[0], hi = in->ehi[0];
    kgt_printf(b,
               "        {\n            const int r = r0 + %d;\n            if (r >= n) break;\n"
               "            KGT_CP_WAIT(%d);\n            __syncthreads();\n"
               "            if (r + %d < n) {\n"
               "                %s *sa = sm + sw * %d;\n",
               u, d - 2, d - 1, kgt_types[st->dbl].name, st->tot);
    emit_vec_copy(b, st, 16, "nx", "sa");
    kgt_printf(b,
               "            }\n            KGT_CP_COMMIT();\n            nx += s0;\n"
               "            const %s *cur = sm + sr * %d;\n"
               "            sr = sr + 1 == %d ? 0 : sr + 1;\n"
               "            sw = sw + 1 == %d ? 0 : sw + 1;\n",
               kgt_types[st->dbl].name, st->tot, d, d);
    for (int o0 = -lo; o0 <= hi; o0++)
        if (kgt_has_plane(st->s, o0)) emit_vec_plane_terms(b, st, u, o0, -lo);
    kgt_printf(b, "            if (r >= %d) {\n                %s *const ob = out + ko;\n", lo + hi,
               kgt_types[st->dbl].name);
    emit_vec_store(b, st, kgt_step_mod(u - hi, st->p));
    kgt_printf(b, "            }\n            ko += s0;\n        }\n");
}

void kgt_step_vec(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_step_info *in, int al)
{
    step st = {s, in, dbl, in->sh.bx * in->sh.by, 0, 0, 0, in->elo[0] + in->ehi[0] + 1, 2, 0, 0, 0};
    st.v = kgt_types[dbl].vw, st.rim = st.v, st.al = al, st.slots = in->sh.pipe;
    st.w = in->tx + 2 * st.v;
    st.tot = st.w * (in->ty + in->elo[1] + in->ehi[1]);
    st.k = ((al ? st.tot / st.v : st.tot) + st.nt - 1) / st.nt;
    kgt_step_head(b, &st, al ? "" : "_u", 1);
    if (al)
        emit_vec_loader(b, &st);
    else
        kgt_step_loader(b, &st);
    emit_vec_cells(b, &st);
    for (int p = 0; p < in->sh.pipe - 1; p++) {
        char ip[64], sa[24];
        snprintf(ip, sizeof ip, "ib + (long long)(zs - %d + %d) * s0", in->elo[0], p);
        snprintf(sa, sizeof sa, "sm + %d", p * st.tot);
        kgt_printf(b, "    if (%d < n) {\n", p);
        emit_vec_copy(b, &st, 8, ip, sa);
        kgt_printf(b, "    }\n    KGT_CP_COMMIT();\n");
    }
    for (int a = 0; a < st.p; a++)
        for (int c = 0; c < in->sh.nc * st.v; c++)
            kgt_printf(b, "    %s a%d_%d = 0;\n", kgt_types[dbl].name, a, c);
    kgt_printf(b, "    for (int r0 = 0; r0 < n; r0 += %d) {\n", st.p);
    for (int u = 0; u < st.p; u++) emit_vec_plane(b, &st, u);
    kgt_printf(b, "    }\n}\n");
}
