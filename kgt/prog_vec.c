/*
 * Programs, the run-time CUDA/HIP vector-row kernel of 2D programs (kgt_prog_emit_gpu_vec), the
 * traversal of the linear vector rows (emit_vec_rows.c) with a program's expressions: each
 * thread owns one 16-byte vector (4 floats, 2 doubles) of a row and walks the block's zc rows;
 * each field and level it reads keeps a window of rows in registers, positions dylo .. dyhi
 * around the current row, and a row enters the window once: its vector in one 16-byte load, the
 * cells of the neighbouring vectors from the neighbouring lanes by shuffles (the lanes at the
 * warp's edges load those cells themselves), the next row's loads issued before the current
 * row's cells are computed. Every lane takes the same path; a lane whose vector lies past the
 * row reads a clamped one and stores nothing; a field stores only its cells inside its own box.
 * The one-cell-column kernel of prog_gpu.c reads the x neighbours through L1 and every row of a
 * thread's column up front; it stays for what this one does not take (1D and 3D programs,
 * windows too large for the registers, rows that are not 16-byte aligned).
 * The arithmetic is the printers' (kgt_add & co.), so bitwise that of every target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog_emit.h"

enum {
    VR = KGT_MAX_RADIUS,
    VY = 2 * VR + 1,             /* window positions dy + VR */
    VP = 2 * VR + 4,             /* x positions p + VR relative to the vector: -8 .. 3 + 8 */
    VS = 2 * KGT_PROG_MAX_FIELDS /* streams: field f, level (0 current, 1 previous) */
};

/* What each stream's window keeps: keep[s][dy][p], a cell the updates read at window position
   dy or at a lower one the row rolls down to; the rows' range per stream (lo > hi: unread). */
typedef struct vwin {
    unsigned char keep[VS][VY][VP];
    int lo[VS], hi[VS];
    int v; /* cells a vector */
} vwin;

static void mark(const kgt_prog *p, const kgt_pnode *n, vwin *w, char *seen)
{
    if (n->kind == KP_READ) {
        int s = 2 * n->ref + n->prev, dy = n->off[0], dx = n->off[1];
        for (int j = 0; j < w->v; j++) w->keep[s][dy + VR][j + dx + VR] = 1;
        if (dy < w->lo[s]) w->lo[s] = dy;
        if (dy > w->hi[s]) w->hi[s] = dy;
    }
    if (n->kind == KP_LET && !seen[n->ref]) {
        seen[n->ref] = 1;
        mark(p, p->let[n->ref].e, w, seen);
    }
    for (int i = 0; i < 3; i++)
        if (n->a[i]) mark(p, n->a[i], w, seen);
}

static void window(const kgt_prog *p, int dbl, vwin *w)
{
    char seen[KGT_PROG_MAX_LETS] = {0};
    memset(w, 0, sizeof *w);
    w->v = dbl ? 2 : 4;
    for (int s = 0; s < VS; s++) w->lo[s] = VR + 1, w->hi[s] = -VR - 1;
    for (int f = 0; f < p->nf; f++)
        if (!p->f[f].coef) mark(p, p->f[f].update, w, seen);
    for (int s = 0; s < VS; s++)
        for (int dy = w->lo[s] + 1; dy <= w->hi[s]; dy++)
            for (int x = 0; x < VP; x++) w->keep[s][dy + VR][x] |= w->keep[s][dy - 1 + VR][x];
}

/* x position x (VR: the vector's first cell) lies in the vector k = lanes(w, x) lanes away. */
static int lanes(const vwin *w, int x)
{
    int q = x - VR;
    return q >= 0 ? q / w->v : -((-q + w->v - 1) / w->v);
}

/* Whether stream s's top row keeps x from another lane's vector: a cell its edge lanes load. */
static int top_edge(const vwin *w, int s, int x)
{
    return (x < VR || x >= VR + w->v) && w->keep[s][w->hi[s] + VR][x];
}

/* The x positions m cells before and after the vector (m = 1 .. VR): the edge lanes of both
   sides load them through one offset, oe<m>, and one register per stream. */
static int left_x(int m)
{
    return VR - m;
}

static int right_x(const vwin *w, int m)
{
    return VR + w->v - 1 + m;
}

/* The lanes at each end of the warp whose neighbours' vectors lack the cells m away. */
static int edge_k(const vwin *w, int m)
{
    return (m + w->v - 1) / w->v;
}

/* Whether stream s's top row keeps one of them: the next row's load E_<s>_<m>. */
static int top_edges(const vwin *w, int s, int m)
{
    return top_edge(w, s, left_x(m)) || top_edge(w, s, right_x(w, m));
}

/* Registers (4-byte words) of the window and the next rows' loads. */
static int window_words(const vwin *w, int dbl)
{
    int n = 0;
    for (int s = 0; s < VS; s++) {
        if (w->lo[s] > w->hi[s]) continue;
        for (int dy = w->lo[s]; dy <= w->hi[s]; dy++)
            for (int x = 0; x < VP; x++) n += w->keep[s][dy + VR][x];
        n += w->v; /* the next row's vector */
        for (int m = 1; m <= VR; m++) n += top_edges(w, s, m);
    }
    return n * (dbl ? 2 : 1);
}

/* 2D programs whose window fits a quarter of a thread's registers at full occupancy (as the
   one-cell-column kernel's plan): 256 threads walking 4 rows, the fast copy's shape. */
int kgt_prog_vec_plan(const kgt_prog *p, int dbl, kgt_prog_vec *v)
{
    vwin w;
    if (p->ndims != 2) return -1;
    window(p, dbl, &w);
    if (window_words(&w, dbl) > 64) return -1;
    v->bx = 256, v->zc = 4, v->v = w.v, v->one = 0;
    return 0;
}

void kgt_prog_vec_grid(const kgt_prog_vec *v, const long *n, unsigned *grid)
{
    long cells = (long)v->bx * v->v;
    grid[0] = (unsigned)((n[1] + cells - 1) / cells);
    grid[1] = (unsigned)((n[0] + v->zc - 1) / v->zc);
    grid[2] = 1;
}

static const char comp[4] = {'x', 'y', 'z', 'w'};

/* `if (lane ...) `: the lanes whose vector k lanes away lies outside the warp. */
static void edge_lanes(kgt_buf *b, int k)
{
    kgt_printf(b, "if (lane %s%d) ", k < 0 ? "< " : ">= KGT_WARP - ", k < 0 ? -k : k);
}

static void reg(kgt_buf *b, const kgt_prog *p, int s, int dy, int x)
{
    int off[KGT_MAX_DIMS] = {dy, x - VR};
    kgt_prog_reg_name(b, p, s / 2, s % 2, off);
}

/* The stream's array: f_NAME or pf_NAME. */
static void arr(kgt_buf *b, const kgt_prog *p, int s)
{
    kgt_printf(b, "%sf_%s", s % 2 ? "p" : "", p->f[s / 2].name);
}

/* Row `row` (an expression) of stream s into window position dy: the vector, the x neighbours
   by shuffles, the edge lanes' own loads. pre: from the next row's loads (N_s, E_s_x) instead. */
static void fill(kgt_buf *b, const kgt_prog *p, const vwin *w, int s, int dy, const char *row,
                 int pre, const char *ind)
{
    const char *vt = w->v == 4 ? "float4" : "double2";
    if (pre)
        kgt_printf(b, "%s{\n%s    const %s V = N_%d;\n", ind, ind, vt, s);
    else {
        kgt_printf(b, "%s{\n%s    const int rr = (%s) * s0;\n", ind, ind, row);
        kgt_printf(b, "%s    const %s V = *(const %s *)(", ind, vt, vt);
        arr(b, p, s);
        kgt_printf(b, " + rr + xc);\n");
    }
    for (int x = 0; x < VP; x++) {
        int k = lanes(w, x), c = x - VR - k * w->v;
        if (!w->keep[s][dy + VR][x]) continue;
        kgt_printf(b, "%s    ", ind);
        reg(b, p, s, dy, x);
        if (!k) {
            kgt_printf(b, " = V.%c;\n", comp[c]);
            continue;
        }
        kgt_printf(b, " = KGT_SHFL(V.%c, lane %c %d);\n", comp[c], k < 0 ? '-' : '+',
                   k < 0 ? -k : k);
        int m = k < 0 ? VR - x : x - VR - w->v + 1;
        kgt_printf(b, "%s    ", ind);
        edge_lanes(b, k);
        reg(b, p, s, dy, x);
        if (pre)
            kgt_printf(b, " = E_%d_%d;\n", s, m);
        else {
            kgt_printf(b, " = ");
            arr(b, p, s);
            kgt_printf(b, "[rr + oe%d];\n", m);
        }
    }
    kgt_printf(b, "%s}\n", ind);
}

/* Whether some stream keeps x (outside the vector) at its top row. */
static int edge_used(const vwin *w, int x)
{
    for (int s = 0; s < VS; s++)
        if (w->lo[s] <= w->hi[s] && top_edge(w, s, x)) return 1;
    return 0;
}

/* Whether stream s loads the cells m before and after the vector at its top row. */
static int both_sides(const vwin *w, int s, int m)
{
    return top_edge(w, s, left_x(m)) && top_edge(w, s, right_x(w, m));
}

/* The lanes that load the cells m away for stream s: `lane < K`, `lane >= KGT_WARP - K`, or
   both, as eb<m> (set once: a predicate, where the condition in the loop would be a branch). */
static void edge_sides(kgt_buf *b, const vwin *w, int s, int m)
{
    int k = edge_k(w, m);
    if (both_sides(w, s, m))
        kgt_printf(b, "eb%d", m);
    else if (top_edge(w, s, left_x(m)))
        kgt_printf(b, "lane < %d", k);
    else
        kgt_printf(b, "lane >= KGT_WARP - %d", k);
}

/* The first evolving field: with v->one, its box is every evolving field's. */
static int first_evolving(const kgt_prog *p)
{
    for (int f = 0; f < p->nf; f++)
        if (!p->f[f].coef) return f;
    return 0;
}

/* Field f's stores of the current row, under its own box's tests, or with one under those of
   the first evolving field's box (f0) along x for every field at once: the launch's rows are
   then that box's rows, and it is not empty. */
static void emit_stores(kgt_buf *b, const kgt_prog *p, int dbl, const vwin *w, int one)
{
    const char *t = kgt_pe_tnames[dbl], *vt = w->v == 4 ? "float4" : "double2";
    int f0 = first_evolving(p);
    for (int g = 0; g < p->nf; g++) {
        int f = one ? f0 : g;
        if (p->f[g].coef || (one && g != f0)) continue;
        if (one)
            kgt_printf(b, "        {\n");
        else
            kgt_printf(b, "        if (!e_%d && i >= (int)a.lo[%d][0] && i < (int)a.hi[%d][0]) {\n",
                       f, f, f);
        for (int h = 0; h < p->nf; h++)
            if (!p->f[h].coef && (one || h == g))
                kgt_printf(b, "            %s *const op%d = o_%s + i * s0 + x;\n", t, h,
                           p->f[h].name);
        kgt_printf(b, "            if (ok_%d) {\n", f);
        for (int h = 0; h < p->nf; h++) {
            if (p->f[h].coef || !(one || h == g)) continue;
            kgt_printf(b, "                *(%s *)op%d = make_%s(", vt, h, vt);
            for (int j = 0; j < w->v; j++) kgt_printf(b, "%so%d_%d", j ? ", " : "", h, j);
            kgt_printf(b, ");\n");
        }
        kgt_printf(b, "            } else {\n");
        for (int j = 0; j < w->v; j++) {
            kgt_printf(
                b,
                "                if (x + %d >= (int)a.lo[%d][1] && x + %d < (int)a.hi[%d][1]) "
                "{\n",
                j, f, j, f);
            for (int h = 0; h < p->nf; h++)
                if (!p->f[h].coef && (one || h == g))
                    kgt_printf(b, "                    op%d[%d] = o%d_%d;\n", h, j, h, j);
            kgt_printf(b, "                }\n");
        }
        kgt_printf(b, "            }\n        }\n");
    }
}

static void emit_cells(kgt_buf *b, const kgt_prog *p, int dbl, const vwin *w, int one)
{
    const char *t = kgt_pe_tnames[dbl];
    char used[KGT_PROG_MAX_LETS];
    kgt_pe_lets_all(p, used);
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        for (int j = 0; j < w->v; j++) kgt_printf(b, "        %s o%d_%d;\n", t, f, j);
    }
    for (int j = 0; j < w->v; j++) {
        kgt_pregs rg = {-1, 0, 0, j, NULL, NULL};
        kgt_printf(b,
                   "        { /* cell %d */\n            const int x0 = i;\n            (void)x0;\n"
                   "            const int x1 = x + %d;\n            (void)x1;\n",
                   j, j);
        kgt_pe_index(b, p, "a.", "            ");
        kgt_pe_reg_lets(b, p, dbl, used, &rg);
        for (int f = 0; f < p->nf; f++) {
            if (p->f[f].coef) continue;
            kgt_printf(b, "            o%d_%d = ", f, j);
            kgt_prog_print_regs(b, p, p->f[f].update, KGT_PT_CUDA, dbl, &rg);
            kgt_printf(b, ";\n");
        }
        kgt_printf(b, "        }\n");
    }
    emit_stores(b, p, dbl, w, one);
}

void kgt_prog_emit_gpu_vec(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                           const kgt_prog_vec *v)
{
    const char *t = kgt_pe_tnames[dbl], *vt = dbl ? "double2" : "float4";
    char c = dbl ? 'd' : 'f';
    vwin w;
    window(p, dbl, &w);
    kgt_printf(b, "#ifndef KGT_SHFL\n#if defined(__HIPCC__)\n#define KGT_WARP warpSize\n"
                  "#define KGT_SHFL(v, src) __shfl((v), (src))\n#else\n#define KGT_WARP 32\n"
                  "#define KGT_SHFL(v, src) __shfl_sync(0xffffffffu, (v), (src))\n#endif\n"
                  "#endif\n");
    /* Four blocks a SM (CUDA): the window's registers then stay at 64, which is what the
       whole-row copy needs to keep enough loads in flight; hip-clang reads the second
       argument differently, so HIP gets none. */
    kgt_printf(
        b,
        "#ifndef KGT_VBOUNDS\n#if defined(__HIPCC__)\n#define KGT_VBOUNDS(n) __launch_bounds__(n)\n"
        "#else\n#define KGT_VBOUNDS(n) __launch_bounds__(n, 4)\n#endif\n#endif\n");
    kgt_printf(b,
               "/* vector rows: %d threads of one %s each, walking %d rows */\n"
               "extern \"C\" __global__ void KGT_VBOUNDS(%d) %s_%s_cuda_v%s%c(const "
               "kgt_prog_args_%c a, long u0, long u1, long u2)\n{\n"
               "    const long t = a.t;\n    (void)t;\n",
               v->bx, vt, v->zc, v->bx, prefix, p->name, v->one ? "1" : "", c, c);
    kgt_printf(b,
               "    const int lane = (int)(threadIdx.x %% KGT_WARP);\n"
               "    const int x = (int)u1 + ((int)blockIdx.x * %d + (int)threadIdx.x) * %d;\n"
               "    const int zs = (int)u0 + (int)blockIdx.y * %d;\n"
               "    const int zl = zs + %d < (int)u2 ? zs + %d : (int)u2;\n"
               "    const int s0 = (int)a.stride[0][0];\n",
               v->bx, w.v, v->zc, v->zc, v->zc);
    kgt_pe_decls(b, p, dbl, "a.", kgt_pe_int);
    kgt_printf(b, "    int xe = 0;\n");
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        kgt_printf(b, "    %s *__restrict__ const o_%s = a.out[%d];\n", t, p->f[f].name, f);
        if (v->one && f != first_evolving(p)) continue;
        if (v->one) {
            kgt_printf(b, "    xe = (int)a.hi[%d][1];\n", f);
        } else {
            kgt_printf(b,
                       "    const bool e_%d = a.lo[%d][0] >= a.hi[%d][0] || a.lo[%d][1] >= "
                       "a.hi[%d][1];\n",
                       f, f, f, f, f);
            kgt_printf(b, "    if (!e_%d && (int)a.hi[%d][1] > xe) xe = (int)a.hi[%d][1];\n", f, f,
                       f);
        }
        kgt_printf(b,
                   "    const bool ok_%d = x >= (int)a.lo[%d][1] && x + %d <= (int)a.hi[%d][1];\n",
                   f, f, w.v, f);
    }
    /* Whole warps past the boxes leave; the others' lanes past the row read its last vector. */
    kgt_printf(b, "    if (zs >= zl || x - lane * %d >= xe) return;\n", w.v);
    kgt_printf(b, "    const int xc = x < s0 - %d ? x : s0 - %d;\n", w.v, w.v);
    /* The edge lanes' cells m before (lanes at the warp's start) or after the vector (at its
       end), clamped into the row (a lane past the boxes stores nothing). */
    for (int m = 1; m <= VR; m++) {
        int l = edge_used(&w, left_x(m)), r = edge_used(&w, right_x(&w, m));
        if (!l && !r) continue;
        kgt_printf(b, "    const int oe%d = ", m);
        if (l && r) kgt_printf(b, "lane < %d ? ", edge_k(&w, m));
        if (l) kgt_printf(b, "(xc - %d < 0 ? 0 : xc - %d)", m, m);
        if (l && r) kgt_printf(b, " : ");
        if (r) kgt_printf(b, "(xc + %d > s0 - 1 ? s0 - 1 : xc + %d)", w.v - 1 + m, w.v - 1 + m);
        kgt_printf(b, ";\n");
        int both = 0;
        for (int s = 0; s < VS; s++) both |= w.lo[s] <= w.hi[s] && both_sides(&w, s, m);
        if (both)
            kgt_printf(b, "    const bool eb%d = lane < %d || lane >= KGT_WARP - %d;\n", m,
                       edge_k(&w, m), edge_k(&w, m));
    }
    /* The window's registers, filled for the first row. */
    for (int s = 0; s < VS; s++)
        for (int dy = w.lo[s]; dy <= w.hi[s]; dy++)
            for (int x = 0; x < VP; x++) {
                if (!w.keep[s][dy + VR][x]) continue;
                kgt_printf(b, "    %s ", t);
                reg(b, p, s, dy, x);
                kgt_printf(b, ";\n");
            }
    for (int s = 0; s < VS; s++)
        for (int dy = w.lo[s]; dy <= w.hi[s]; dy++) {
            char row[32];
            snprintf(row, sizeof row, "zs + %d", dy);
            fill(b, p, &w, s, dy, row, 0, "    ");
        }
    kgt_printf(b, "#pragma unroll 1\n    for (int i = zs; i < zl; i++) {\n");
    /* The next row of every stream: loads only, before the current row's arithmetic. */
    for (int s = 0; s < VS; s++) {
        if (w.lo[s] > w.hi[s]) continue;
        kgt_printf(b, "        %s N_%d = {};\n", vt, s);
        for (int m = 1; m <= VR; m++)
            if (top_edges(&w, s, m)) kgt_printf(b, "        %s E_%d_%d = 0;\n", t, s, m);
    }
    kgt_printf(b, "        if (i + 1 < zl) {\n");
    for (int s = 0; s < VS; s++) {
        if (w.lo[s] > w.hi[s]) continue;
        kgt_printf(b, "            {\n                const int rr = (i + 1 + %d) * s0;\n",
                   w.hi[s]);
        kgt_printf(b, "                N_%d = *(const %s *)(", s, vt);
        arr(b, p, s);
        kgt_printf(b, " + rr + xc);\n");
        for (int m = 1; m <= VR; m++) {
            if (!top_edges(&w, s, m)) continue;
            kgt_printf(b, "                if (");
            edge_sides(b, &w, s, m);
            kgt_printf(b, ") E_%d_%d = ", s, m);
            arr(b, p, s);
            kgt_printf(b, "[rr + oe%d];\n", m);
        }
        kgt_printf(b, "            }\n");
    }
    kgt_printf(b, "        }\n");
    emit_cells(b, p, dbl, &w, v->one);
    /* Roll the windows down a row; the next row enters at the top. */
    for (int s = 0; s < VS; s++)
        for (int dy = w.lo[s]; dy < w.hi[s]; dy++)
            for (int x = 0; x < VP; x++) {
                if (!w.keep[s][dy + VR][x]) continue;
                kgt_printf(b, "        ");
                reg(b, p, s, dy, x);
                kgt_printf(b, " = ");
                reg(b, p, s, dy + 1, x);
                kgt_printf(b, ";\n");
            }
    kgt_printf(b, "        if (i + 1 < zl) {\n");
    for (int s = 0; s < VS; s++)
        if (w.lo[s] <= w.hi[s]) fill(b, p, &w, s, w.hi[s], NULL, 1, "            ");
    kgt_printf(b, "        }\n    }\n}\n\n");
}
