/*
 * Programs, the fused k-step 2D kernel by vector rows (kgt_prog_fuse with v > 0): the traversal
 * of the one-step vector rows (prog_vec.c) carried through k levels in registers, with no shared
 * memory and no barrier. Each warp owns a strip of 32 lanes of v cells of a row and walks the
 * block's h rows (and k times the reach above and below them); each field keeps, per level below
 * k, a window of rows in registers. After input row i enters the windows of level 0, level j
 * computes its row i - j * RUP from the windows of levels j - 1 and j - 2 (the previous level)
 * and enters it into its own window, so each level lags the one below by the reach upwards
 * (RUP); level k's row is stored. The x neighbours of a row come from the neighbouring lanes by
 * shuffles, at the window position that first reads them; the lanes at the strip's edges get the
 * other edge's cells, so the values of level j are right only j * R1 cells (R1: the reach along
 * x) inside the strip: its margins of HP >= k * R1 cells each side are computed and not stored,
 * and neighbouring strips overlap by 2 * HP cells. A coefficient field has one window, deep
 * enough for every level's row.
 *
 * The semantics are the tile kernel's (prog_fuse.c): step s (level s + 1) computes each evolving
 * field f over a.box[s][f], a cell outside it carries the level before; loads are clamped into
 * the array, so a cell that reads a clamped value lies outside every box. Strips whose rows and
 * columns lie inside every box of every step take a copy of the walk without tests. Bitwise the
 * tile kernel, and k one-step launches, under the same contract.
 */
#include <stdio.h>
#include <string.h>

#include "prog_emit.h"

enum {
    XR = KGT_MAX_RADIUS,
    XP = 2 * XR + 4,           /* x positions x - XR from the lane's first cell: -8 .. 3 + 8 */
    QN = 48,                   /* window positions: row `latest - q` */
    LN = KGT_PROG_FUSE_MAX + 1 /* levels -1 (the previous level loaded) .. k - 1 */
};

typedef struct vfwin {
    int k, v, rup, rdn, r1; /* steps, cells a lane, reach up and down dimension 0, along x */
    int hp, ml, w;          /* margin cells and lanes each side, stored cells a strip */
    /* keep[f][l + 1][q][x]: field f's level l keeps cell x of row latest - q */
    unsigned char keep[KGT_PROG_MAX_FIELDS][LN][QN][XP];
    int qmax[KGT_PROG_MAX_FIELDS][LN]; /* its deepest position, -1: no window */
    int over;                          /* a read beyond QN or XP */
} vfwin;

/* The geometry of fz's strips: the reaches of every read of any update (kgt_prog_analyse's
   reach and preach), the margins they take over k steps and the cells a strip stores. */
static void geometry(const kgt_prog *p, const kgt_prog_fuse *fz, vfwin *w)
{
    w->k = fz->k, w->v = fz->v, w->rup = w->rdn = w->r1 = 0;
    for (int f = 0; f < p->nf; f++)
        for (int s = 0; s < 2; s++) {
            int r0 = p->f[f].reach[0][s] > p->f[f].preach[0][s] ? p->f[f].reach[0][s]
                                                                : p->f[f].preach[0][s];
            int *to = s ? &w->rup : &w->rdn;
            if (r0 > *to) *to = r0;
            if (p->f[f].reach[1][s] > w->r1) w->r1 = p->f[f].reach[1][s];
            if (p->f[f].preach[1][s] > w->r1) w->r1 = p->f[f].preach[1][s];
        }
    w->hp = (w->k * w->r1 + w->v - 1) / w->v * w->v;
    w->ml = w->hp / w->v;
    w->w = (32 - 2 * w->ml) * w->v;
}

/* Where level j (1..k) finds a read of field f (prev: its previous level) dy rows off: level
   *l's window, position *q (the row latest - q). Level l's latest row is i - l * RUP for l >= 0,
   and i for the loaded previous level (l = -1) and coefficient fields. */
static void locate(const kgt_prog *p, const vfwin *w, int j, int f, int prev, int dy, int *l,
                   int *q)
{
    if (p->f[f].coef)
        *l = 0, *q = j * w->rup - dy;
    else if (!prev)
        *l = j - 1, *q = w->rup - dy;
    else if (j == 1)
        *l = -1, *q = w->rup - dy;
    else
        *l = j - 2, *q = 2 * w->rup - dy;
}

static void set(vfwin *w, int f, int l, int q, int x)
{
    if (q < 0 || q >= QN || x < 0 || x >= XP) {
        w->over = 1;
        return;
    }
    w->keep[f][l + 1][q][x] = 1;
}

static void mark(const kgt_prog *p, const kgt_pnode *n, vfwin *w, int j)
{
    if (n->kind == KP_READ) {
        int l, q;
        locate(p, w, j, n->ref, n->prev, n->off[0], &l, &q);
        for (int c = 0; c < w->v; c++) set(w, n->ref, l, q, XR + c + n->off[1]);
    }
    if (n->kind == KP_LET) mark(p, p->let[n->ref].e, w, j);
    for (int i = 0; i < 3; i++)
        if (n->a[i]) mark(p, n->a[i], w, j);
}

static void window(const kgt_prog *p, const kgt_prog_fuse *fz, vfwin *w)
{
    memset(w, 0, sizeof *w);
    geometry(p, fz, w);
    for (int j = 1; j <= w->k; j++)
        for (int f = 0; f < p->nf; f++) {
            if (p->f[f].coef) continue;
            mark(p, p->f[f].update, w, j);
            /* a cell outside the step's box carries the level below; level k - 1 is also the
               stored previous level of a field that keeps one */
            for (int c = 0; c < w->v; c++) set(w, f, j - 1, w->rup, XR + c);
        }
    for (int f = 0; f < p->nf; f++)
        for (int l = 0; l < LN; l++) {
            w->qmax[f][l] = -1;
            for (int q = 0; q < QN; q++)
                for (int x = 0; x < XP; x++)
                    if (w->keep[f][l][q][x]) w->qmax[f][l] = q;
            /* a row keeps its own cells from where it enters to its deepest read */
            for (int q = 0; q <= w->qmax[f][l]; q++)
                for (int c = 0; c < w->v; c++) w->keep[f][l][q][XR + c] = 1;
        }
}

/* Registers (4-byte words) of the windows and the next row's loads. */
static int window_words(const kgt_prog *p, const vfwin *w, int dbl)
{
    int n = 0;
    for (int f = 0; f < p->nf; f++)
        for (int l = 0; l < LN; l++) {
            if (w->qmax[f][l] < 0) continue;
            for (int q = 0; q <= w->qmax[f][l]; q++)
                for (int x = 0; x < XP; x++) n += w->keep[f][l][q][x];
            if (l <= 1) n += w->v; /* loaded: level -1, level 0, coefficients */
        }
    return n * (dbl ? 2 : 1);
}

int kgt_prog_vfuse_check(const kgt_prog *p, int dbl, const kgt_prog_fuse *fz)
{
    vfwin w;
    if (p->ndims != 2 || fz->k < 1 || fz->k > KGT_PROG_FUSE_MAX) return -1;
    if (!(fz->v == 1 || fz->v == 2 || (fz->v == 4 && !dbl))) return -1;
    if (fz->nt < 32 || fz->nt > 1024 || fz->nt % 32 || fz->h < 1) return -1;
    window(p, fz, &w);
    return w.over || 2 * w.ml >= 32 ? -1 : 0;
}

/* The widest vector whose windows fit 96 words and whose margins leave three quarters of the
   strip stored; 128 threads walking 64 rows. */
int kgt_prog_vfuse_plan(const kgt_prog *p, int dbl, int k, kgt_prog_fuse *fz)
{
    for (int v = dbl ? 2 : 4; v >= 1; v /= 2) {
        vfwin w;
        *fz = (kgt_prog_fuse){k, 0, 0, 128, v, 64};
        if (kgt_prog_vfuse_check(p, dbl, fz)) continue;
        window(p, fz, &w);
        if (window_words(p, &w, dbl) <= 96 && 8 * w.ml <= 32) return 0;
    }
    return -1;
}

void kgt_prog_vfuse_grid(const kgt_prog *p, const kgt_prog_fuse *fz, const long *n, unsigned *grid)
{
    vfwin w; /* its geometry only: a launch needs no window tables */
    geometry(p, fz, &w);
    long strips = (n[1] + fz->v - 1 + w.w - 1) / w.w, per = fz->nt / 32;
    grid[0] = (unsigned)((strips + per - 1) / per);
    grid[1] = (unsigned)((n[0] + fz->h - 1) / fz->h);
    grid[2] = 1;
}

/* --- the text --- */

static const char comp[4] = {'x', 'y', 'z', 'w'};

static void offname(kgt_buf *b, int o)
{
    kgt_printf(b, o < 0 ? "m%d" : "%d", o < 0 ? -o : o);
}

/* The register of field f's level l, position q, x position x: w_NAME_<l + 1>_<q>_<x - XR>. */
static void rname(kgt_buf *b, const kgt_prog *p, int f, int l, int q, int x)
{
    kgt_printf(b, "w_%s_%d_%d_", p->f[f].name, l + 1, q);
    offname(b, x - XR);
}

typedef struct rdctx {
    const vfwin *w;
    int j, c;
} rdctx;

static void print_read(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, const void *ctx)
{
    const rdctx *r = ctx;
    int l, q;
    locate(p, r->w, r->j, n->ref, n->prev, n->off[0], &l, &q);
    rname(b, p, n->ref, l, q, XR + r->c + n->off[1]);
}

static const char *vtype(int v, int dbl)
{
    static const char *const ts[2][5] = {{"", "float", "float2", "", "float4"},
                                         {"", "double", "double2", "", ""}};
    return ts[dbl][v];
}

/* Component c of a vector value `e` (itself for one cell). */
static void part(kgt_buf *b, const char *e, int v, int c)
{
    if (v == 1)
        kgt_printf(b, "%s", e);
    else
        kgt_printf(b, "%s.%c", e, comp[c]);
}

/* The neighbour x position x is the lane k = lanes(w, x) lanes away's cell c = x - XR - k v. */
static int lanes(const vfwin *w, int x)
{
    int q = x - XR;
    return q >= 0 ? q / w->v : -((-q + w->v - 1) / w->v);
}

/* One x position outside the lane's own cells, of the row at position q, by a shuffle of that
   row's own cell in the lane it lies in. */
static void shuffle(kgt_buf *b, const kgt_prog *p, const vfwin *w, int f, int l, int q, int x,
                    const char *ind)
{
    int k = lanes(w, x), c = x - XR - k * w->v;
    kgt_printf(b, "%s", ind);
    rname(b, p, f, l, q, x);
    kgt_printf(b, " = KGT_SHFL32(");
    rname(b, p, f, l, q, XR + c);
    kgt_printf(b, ", lane %c %d);\n", k < 0 ? '-' : '+', k < 0 ? -k : k);
}

/* Position q of field f's level l, cell x, takes position q - 1's. */
static void step_down(kgt_buf *b, const kgt_prog *p, int f, int l, int q, int x, const char *ind)
{
    kgt_printf(b, "%s", ind);
    rname(b, p, f, l, q, x);
    kgt_printf(b, " = ");
    rname(b, p, f, l, q - 1, x);
    kgt_printf(b, ";\n");
}

/* Field f's level l window one row down, and the new row in at position 0: its own cells from
   `src` (the c-th cell: src is printed with %d for c, or is a vector variable when vec), then
   the neighbour cells where they are first read. */
static void roll(kgt_buf *b, const kgt_prog *p, const vfwin *w, int f, int l, const char *src,
                 int vec, const char *ind)
{
    const unsigned char(*kp)[XP] = w->keep[f][l + 1];
    for (int q = w->qmax[f][l + 1]; q >= 1; q--) /* the own cells first: shuffles read them */
        for (int x = XR; x < XR + w->v; x++)
            if (kp[q][x]) step_down(b, p, f, l, q, x, ind);
    for (int q = w->qmax[f][l + 1]; q >= 1; q--)
        for (int x = 0; x < XP; x++) {
            if (!kp[q][x] || (x >= XR && x < XR + w->v)) continue;
            if (kp[q - 1][x])
                step_down(b, p, f, l, q, x, ind);
            else
                shuffle(b, p, w, f, l, q, x, ind);
        }
    for (int c = 0; c < w->v; c++) {
        kgt_printf(b, "%s", ind);
        rname(b, p, f, l, 0, XR + c);
        kgt_printf(b, " = ");
        if (vec) {
            part(b, src, w->v, c);
        } else {
            kgt_printf(b, src, c);
        }
        kgt_printf(b, ";\n");
    }
    for (int x = 0; x < XP; x++)
        if (kp[0][x] && (x < XR || x >= XR + w->v)) shuffle(b, p, w, f, l, 0, x, ind);
}

/* The streams loaded from memory: (field, level, array) for level 0 of evolving fields, the
   previous level (-1) where read, coefficient fields where read. */
typedef struct loaded {
    int n, f[2 * KGT_PROG_MAX_FIELDS], l[2 * KGT_PROG_MAX_FIELDS];
} loaded;

static void loaded_of(const kgt_prog *p, const vfwin *w, loaded *ld)
{
    ld->n = 0;
    for (int f = 0; f < p->nf; f++)
        for (int l = -1; l <= 0; l++) {
            if (w->qmax[f][l + 1] < 0 || (l < 0 && (p->f[f].coef || !p->f[f].keeps))) continue;
            ld->f[ld->n] = f, ld->l[ld->n] = l, ld->n++;
        }
}

static void arr(kgt_buf *b, const kgt_prog *p, int f, int l)
{
    kgt_printf(b, "%sf_%s", l < 0 ? "p" : "", p->f[f].name);
}

/* The loads of row `row` into N<s>. */
static void loads(kgt_buf *b, const kgt_prog *p, const vfwin *w, const loaded *ld, int dbl,
                  const char *row, const char *ind)
{
    const char *vt = vtype(w->v, dbl);
    kgt_printf(b, "%s{\n%s    const int rr = (%s < 0 ? 0 : %s >= a.n[0] ? a.n[0] - 1 : %s) * s0;\n",
               ind, ind, row, row, row);
    for (int s = 0; s < ld->n; s++) {
        kgt_printf(b, "%s    N%d = *(const %s *)(", ind, s, vt);
        arr(b, p, ld->f[s], ld->l[s]);
        kgt_printf(b, " + rr + xc);\n");
    }
    kgt_printf(b, "%s}\n", ind);
}

/* Level j's row r = i - j * RUP, its cells, into its window (j < k) or memory (j = k); cond:
   only from the first row the level computes on (the walk's first rows). */
static void emit_level(kgt_buf *b, const kgt_prog *p, int dbl, const vfwin *w, int j, int fast,
                       int cond)
{
    const char *t = kgt_pe_tnames[dbl], *vt = vtype(w->v, dbl);
    const char *ind = "                ";
    char used[KGT_PROG_MAX_LETS];
    int k = w->k;
    kgt_pe_lets_all(p, used);
    if (cond)
        kgt_printf(b, "            if (i >= ys - %d + %d) { /* level %d */\n", (k - j) * w->rdn,
                   j * w->rup, j);
    else
        kgt_printf(b, "            { /* level %d */\n", j);
    kgt_printf(b,
               "%sconst int r = i - %d;\n%sconst long t = a.t + %d;\n"
               "%s(void)t;\n",
               ind, j * w->rup, ind, j - 1, ind);
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        if (!fast)
            kgt_printf(b,
                       "%sconst bool ry%d = r >= a.box[%d][%d][0][0] && r < a.box[%d][%d][0][1];\n",
                       ind, f, j - 1, f, j - 1, f);
        for (int c = 0; c < w->v; c++) kgt_printf(b, "%s%s o%d_%d;\n", ind, t, f, c);
    }
    for (int c = 0; c < w->v; c++) {
        rdctx rc = {w, j, c};
        kgt_pregs rg = {-1, 0, 0, 0, print_read, &rc};
        kgt_printf(b,
                   "%s{ /* cell %d */\n%s    const int x0 = r;\n%s    (void)x0;\n"
                   "%s    const int x1 = x + %d;\n%s    (void)x1;\n",
                   ind, c, ind, ind, ind, c, ind);
        kgt_pe_index(b, p, "a.", "                    ");
        for (int i = 0; i < p->nlet; i++) {
            if (!used[i]) continue;
            kgt_printf(b, "%s    const %s l_%s = ", ind, p->let[i].e->type == KP_T_BOOL ? "int" : t,
                       p->let[i].name);
            kgt_prog_print_regs(b, p, p->let[i].e, KGT_PT_CUDA, dbl, &rg);
            kgt_printf(b, ";\n%s    (void)l_%s;\n", ind, p->let[i].name);
        }
        for (int f = 0; f < p->nf; f++) {
            if (p->f[f].coef) continue;
            if (fast) {
                kgt_printf(b, "%s    o%d_%d = ", ind, f, c);
                kgt_prog_print_regs(b, p, p->f[f].update, KGT_PT_CUDA, dbl, &rg);
                kgt_printf(b, ";\n");
                continue;
            }
            kgt_printf(b,
                       "%s    if (ry%d && x1 >= a.box[%d][%d][1][0] && x1 < a.box[%d][%d][1][1])\n"
                       "%s        o%d_%d = ",
                       ind, f, j - 1, f, j - 1, f, ind, f, c);
            kgt_prog_print_regs(b, p, p->f[f].update, KGT_PT_CUDA, dbl, &rg);
            kgt_printf(b, ";\n%s    else\n%s        o%d_%d = ", ind, ind, f, c);
            rname(b, p, f, j - 1, w->rup, XR + c);
            kgt_printf(b, ";\n");
        }
        kgt_printf(b, "%s}\n", ind);
    }
    for (int f = 0; f < p->nf; f++) {
        char src[24];
        if (p->f[f].coef) continue;
        if (j < k) {
            snprintf(src, sizeof src, "o%d_%%d", f);
            roll(b, p, w, f, j, src, 0, ind);
            continue;
        }
        if (fast) {
            kgt_printf(b, "%sif (st) {\n%s    *(%s *)(o_%s + r * s0 + x) = ", ind, ind, vt,
                       p->f[f].name);
            if (w->v > 1) kgt_printf(b, "make_%s(", vt);
            for (int c = 0; c < w->v; c++) kgt_printf(b, "%so%d_%d", c ? ", " : "", f, c);
            kgt_printf(b, "%s;\n", w->v > 1 ? ")" : "");
            if (p->f[f].keeps) {
                kgt_printf(b, "%s    *(%s *)(po_%s + r * s0 + x) = ", ind, vt, p->f[f].name);
                if (w->v > 1) kgt_printf(b, "make_%s(", vt);
                for (int c = 0; c < w->v; c++) {
                    if (c) kgt_printf(b, ", ");
                    rname(b, p, f, k - 1, w->rup, XR + c);
                }
                kgt_printf(b, "%s;\n", w->v > 1 ? ")" : "");
            }
            kgt_printf(b, "%s}\n", ind);
            continue;
        }
        kgt_printf(b, "%sif (st && ry%d) {\n", ind, f);
        for (int c = 0; c < w->v; c++) {
            kgt_printf(b,
                       "%s    if (x + %d >= a.box[%d][%d][1][0] && x + %d < a.box[%d][%d][1][1]) "
                       "{\n%s        o_%s[r * s0 + x + %d] = o%d_%d;\n",
                       ind, c, k - 1, f, c, k - 1, f, ind, p->f[f].name, c, f, c);
            if (p->f[f].keeps) {
                kgt_printf(b, "%s        po_%s[r * s0 + x + %d] = ", ind, p->f[f].name, c);
                rname(b, p, f, k - 1, w->rup, XR + c);
                kgt_printf(b, ";\n");
            }
            kgt_printf(b, "%s    }\n", ind);
        }
        kgt_printf(b, "%s}\n", ind);
    }
    kgt_printf(b, "            }\n");
}

static int gcd(int a, int b)
{
    return b ? gcd(b, a % b) : a;
}

/* The unroll of the steady walk: every window's depth divides it (its shifts are then register
   renames), where that is at most 8 rows; else none. */
static int period(const kgt_prog *p, const vfwin *w)
{
    int u = 1;
    for (int f = 0; f < p->nf; f++)
        for (int l = 0; l < LN; l++) {
            int d = w->qmax[f][l] + 1;
            if (d > 1) u = u / gcd(u, d) * d;
            if (u > 8) return 1;
        }
    return u;
}

/* The walk: its first rows (level j from row ys - (k - j) RDN + j RUP on, level k not yet),
   then the rows where every level computes. The next row's loads are clamped into the array,
   so they need no test. */
static void emit_walk(kgt_buf *b, const kgt_prog *p, int dbl, const vfwin *w, const loaded *ld,
                      int fast)
{
    int k = w->k;
    kgt_printf(b, "        int i = ys - %d;\n", k * w->rdn);
    for (int steady = 0; steady < 2; steady++) {
        if (steady)
            kgt_printf(b, "#pragma unroll %d\n        for (; i < ye + %d; i++) {\n", period(p, w),
                       k * w->rup);
        else
            kgt_printf(b, "#pragma unroll 1\n        for (; i < ys + %d; i++) {\n", k * w->rup);
        for (int s = 0; s < ld->n; s++) {
            char src[16];
            snprintf(src, sizeof src, "N%d", s);
            roll(b, p, w, ld->f[s], ld->l[s], src, 1, "            ");
        }
        loads(b, p, w, ld, dbl, "i + 1", "            ");
        for (int j = 1; j <= k - !steady; j++) emit_level(b, p, dbl, w, j, fast, !steady);
        kgt_printf(b, "        }\n");
    }
}

void kgt_prog_emit_gpu_vfused(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                              const kgt_prog_fuse *fz)
{
    const char *t = kgt_pe_tnames[dbl], *vt;
    char c = dbl ? 'd' : 'f';
    vfwin w;
    loaded ld;
    if (kgt_prog_vfuse_check(p, dbl, fz)) {
        b->oom = 1; /* the caller checks the plan; nothing sensible to write */
        return;
    }
    window(p, fz, &w);
    loaded_of(p, &w, &ld);
    vt = vtype(w.v, dbl);
    int k = w.k;
    kgt_pe_helpers(b, KGT_PT_CUDA, dbl);
    kgt_pe_fuse_args(b, dbl);
    kgt_printf(b, "#ifndef KGT_SHFL32\n#if defined(__HIPCC__)\n"
                  "#define KGT_SHFL32(v, src) __shfl((v), (src), 32)\n#else\n"
                  "#define KGT_SHFL32(v, src) __shfl_sync(0xffffffffu, (v), (src))\n#endif\n"
                  "#endif\n");
    kgt_printf(b,
               "/* %d steps by vector rows: warps of 32 lanes of %d cells, strips of %d stored "
               "cells (margins of %d), blocks of %d threads walking %d rows */\n"
               "extern \"C\" __global__ void __launch_bounds__(%d) %s_%s_vfuse_k%c(const "
               "kgt_prog_fuse_args_%c a)\n{\n",
               k, w.v, w.w, w.hp, fz->nt, fz->h, fz->nt, prefix, p->name, c, c);
    kgt_printf(b,
               "    const int lane = (int)(threadIdx.x %% 32);\n"
               "    const int ys = a.u[0] + (int)blockIdx.y * %d;\n"
               "    int ue0 = a.u[0], ue1 = a.u[1];\n",
               fz->h);
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        kgt_printf(b,
                   "    if (a.box[%d][%d][0][0] < a.box[%d][%d][0][1] && a.box[%d][%d][1][0] < "
                   "a.box[%d][%d][1][1]) {\n"
                   "        if (a.box[%d][%d][0][1] > ue0) ue0 = a.box[%d][%d][0][1];\n"
                   "        if (a.box[%d][%d][1][1] > ue1) ue1 = a.box[%d][%d][1][1];\n    }\n",
                   k - 1, f, k - 1, f, k - 1, f, k - 1, f, k - 1, f, k - 1, f, k - 1, f, k - 1, f);
    }
    kgt_printf(b,
               "    const int ye = ys + %d < ue0 ? ys + %d : ue0;\n"
               "    const int x0s = (a.u[1] - (a.u[1] & %d)) + ((int)blockIdx.x * %d + "
               "(int)(threadIdx.x / 32)) * %d - %d;\n"
               "    if (ys >= ye || x0s + %d >= ue1) return; /* whole warps */\n"
               "    const int x = x0s + lane * %d;\n"
               "    const int xc = x < 0 ? 0 : x > a.stride - %d ? a.stride - %d : x;\n"
               "    const int s0 = a.stride;\n"
               "    const bool st = lane >= %d && lane < %d;\n"
               "    (void)st;\n",
               fz->h, fz->h, w.v - 1, fz->nt / 32, w.w, w.hp, w.hp, w.v, w.v, w.v, w.ml, 32 - w.ml);
    for (int i = 0; i < p->npar; i++)
        kgt_printf(b, "    const %s p_%s = a.par[%d];\n    (void)p_%s;\n", t, p->par[i].name, i,
                   p->par[i].name);
    for (int f = 0; f < p->nf; f++) {
        const char *n = p->f[f].name;
        kgt_printf(b, "    const %s *__restrict__ const f_%s = a.in[%d];\n    (void)f_%s;\n", t, n,
                   f, n);
        if (p->f[f].keeps)
            kgt_printf(b,
                       "    const %s *__restrict__ const pf_%s = a.prev[%d];\n    (void)pf_%s;\n",
                       t, n, f, n);
        if (p->f[f].coef) continue;
        kgt_printf(b, "    %s *__restrict__ const o_%s = a.out[%d];\n", t, n, f);
        if (p->f[f].keeps)
            kgt_printf(b, "    %s *__restrict__ const po_%s = a.pout[%d];\n", t, n, f);
    }
    /* Whole strips and walks inside every box of every step: no tests. */
    kgt_printf(b, "    bool fast = true;\n");
    for (int s = 0; s < k; s++)
        for (int f = 0; f < p->nf; f++) {
            if (p->f[f].coef) continue;
            kgt_printf(b,
                       "    fast = fast && a.box[%d][%d][0][0] <= ys - %d && a.box[%d][%d][0][1] "
                       ">= ye + %d && a.box[%d][%d][1][0] <= x0s && a.box[%d][%d][1][1] >= x0s + "
                       "%d;\n",
                       s, f, (k - 1 - s) * w.rdn, s, f, (k - 1 - s) * w.rup, s, f, s, f, 32 * w.v);
        }
    for (int f = 0; f < p->nf; f++)
        for (int l = 0; l < LN; l++)
            for (int q = 0; q <= w.qmax[f][l]; q++)
                for (int x = 0; x < XP; x++) {
                    if (!w.keep[f][l][q][x]) continue;
                    kgt_printf(b, "    %s ", t);
                    rname(b, p, f, l - 1, q, x);
                    kgt_printf(b, " = 0;\n");
                }
    for (int s = 0; s < ld.n; s++) kgt_printf(b, "    %s N%d;\n", vt, s);
    char row[32];
    snprintf(row, sizeof row, "(ys - %d)", k * w.rdn);
    loads(b, p, &w, &ld, dbl, row, "    ");
    kgt_printf(b, "    if (fast) {\n");
    emit_walk(b, p, dbl, &w, &ld, 1);
    kgt_printf(b, "    } else {\n");
    emit_walk(b, p, dbl, &w, &ld, 0);
    kgt_printf(b, "    }\n}\n\n");
}
