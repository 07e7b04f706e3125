/*
 * The body of the 3D step kernel of shape vec with walk and nc > 1 rows a thread (kgt_rt.h,
 * emit_step.c, after its signature): vector rows with running sums.
 *
 * A block is bx vectors by `by` threads; each thread owns one vector (16 bytes of x cells) of
 * nc consecutive rows and walks the block's zc planes. Each iteration loads one plane once: the
 * thread's rows and the rows above and below them that the stencil reads, a 16-byte load each;
 * the cells of the neighbouring vectors come from the neighbouring lanes by shuffles (the lanes
 * at the warp's edges load them). The arithmetic contract orders a cell's terms by point in
 * row-major order, plane offset first, so a loaded plane adds its terms to the sums of every
 * output plane it is a plane of: the sums roll down one slot a plane, the bottom one complete
 * (divided and stored), instead of planes of inputs rolling through registers. The y neighbours
 * of the thread's own rows are registers, not loads through L1 (emit_vec.c's single rows).
 *
 * The thread's rows start at ys; a thread whose rows would pass the box's last row takes the last
 * nc rows of the box instead (the rows it shares with the thread before it get the same values
 * twice), so that no row clamps. Boxes thinner than nc rows (thin border strips) take a second
 * walk of one row at a time, row after row; whether a box is thin is the same for the whole
 * launch. Lanes whose vector lies past the rows' readable part load the nearest readable vector,
 * the warp's edge lanes load a neighbouring cell only where it is readable (a cell outside that
 * part feeds no output in the box), and lanes store only their cells in the box.
 *
 * One step a launch, these rows beat the kernels before them on 3d7 (64 x 2 threads of 2 rows
 * walking 4 planes) and 3d27 (128 threads of 4 rows walking 32; bench/RESULTS.md). Registers
 * decide it: every offset a load adds at run time (clamped rows, clamped edge cells) nvcc hoists
 * as a 64-bit invariant per row (3d27 took 168 registers and ran far slower), so rows go linearly
 * from one pointer and edge cells load at immediate offsets (96 registers).
 */
#include <stdlib.h>
#include <string.h>

#include "kgt.h"

enum {
    RX = 2 * KGT_MAX_RADIUS + 4,           /* x of a cell relative to the vector: -8 .. 3 + 8 */
    RT = 2 * KGT_MAX_RADIUS + KGT_WALK_MAX /* rows t - ylo of a plane: -8 .. nc - 1 + 8 */
};

static const char comp[4] = {'x', 'y', 'z', 'w'};

typedef struct rows3 {
    const kgt_stencil *s;
    int dbl, vw, nc, al;
    int elo, ehi, ylo, yhi, rlo, rhi; /* reach: planes, rows, x */
    int nrow;                         /* loaded rows: t = -ylo .. nc - 1 + yhi */
    unsigned char need[RT][RX];       /* [t + ylo][x + 8]: the plane's cell (t, x) is read */
} rows3;

/* The (walk, y, x) offsets of point p. */
static void pt(const rows3 *k, int p, int *o)
{
    kgt_wyx(k->s, k->s->pts[p].off, o);
}

/* need[t + ylo][x + 8]: the cells (t, x) of a loaded plane that the terms of its plane offsets
   dz in [dlo, dhi] read. */
static void cells_read(const rows3 *k, int dlo, int dhi, unsigned char need[RT][RX])
{
    memset(need, 0, sizeof(unsigned char[RT][RX]));
    for (int p = 0; p < k->s->npts; p++) {
        int o[3];
        pt(k, p, o);
        if (k->s->pts[p].w == 0.0 || o[0] < dlo || o[0] > dhi) continue;
        for (int r = 0; r < k->nc; r++)
            for (int j = 0; j < k->vw; j++) need[r + o[1] + k->ylo][j + o[2] + KGT_MAX_RADIUS] = 1;
    }
}

static void plan(rows3 *k)
{
    int lo[KGT_MAX_DIMS], hi[KGT_MAX_DIMS];
    kgt_extents(k->s, lo, hi);
    k->elo = lo[0], k->ehi = hi[0], k->ylo = lo[1], k->yhi = hi[1], k->rlo = lo[2], k->rhi = hi[2];
    k->nrow = k->ylo + k->nc + k->yhi;
    cells_read(k, -k->elo, k->ehi, k->need);
}

typedef char name[24]; /* the indices below fit in 3 digits each */

/* The register of cell (t, x) of the loaded plane (x relative to the vector). */
static const char *cell(name n, const rows3 *k, int t, int x)
{
    snprintf(n, sizeof(name), "c%u_%u", (unsigned char)(t + k->ylo),
             (unsigned char)(x + KGT_MAX_RADIUS));
    return n;
}

/* Running sum of slot m (the output m planes above the current one), row r, cell j. */
static const char *acc(name n, int m, int r, int j)
{
    snprintf(n, sizeof(name), "a%u_%u_%u", (unsigned char)m, (unsigned char)r, (unsigned char)j);
    return n;
}

/* At indent ind, loads the rows of the plane `plane` planes above lp into cell registers: the
   cells that the terms of its plane offsets dlo .. dhi read. al: a 16-byte load a row (lp is
   the lane's vector, clamped to a readable one), and the cells of the neighbouring vectors that
   no neighbouring lane holds by the lane's own loads at immediate offsets where they are
   readable (e<x>: a cell outside that part is read by no output in the box); else every cell
   at a clamped offset o<x>. */
static void emit_plane(kgt_buf *b, const rows3 *k, int plane, int dlo, int dhi, const char *ind)
{
    const char *t = kgt_types[k->dbl].name;
    unsigned char need[RT][RX];
    name n;
    cells_read(k, dlo, dhi, need);
    for (int r = 0; r < k->nrow; r++) {
        int any = 0, row = r - k->ylo;
        for (int x = 0; x < RX; x++) any |= need[r][x];
        if (!any) continue;
        kgt_printf(b, "%sconst %s *const rp%d = lp + %d * s0 + %d * s1;\n", ind, t, r, plane, row);
        if (k->al) {
            kgt_printf(b, "%sconst %s V%d = *(const %s *)rp%d;\n", ind, kgt_types[k->dbl].vec, r,
                       kgt_types[k->dbl].vec, r);
        } else {
            kgt_printf(b, "%sconst %s V%d = make_%s(", ind, kgt_types[k->dbl].vec, r,
                       kgt_types[k->dbl].vec);
            for (int j = 0; j < k->vw; j++)
                kgt_printf(b, "%srp%d[o%d]", j ? ", " : "", r, j + KGT_MAX_RADIUS);
            kgt_printf(b, ");\n");
        }
        for (int x = 0; x < RX; x++) {
            int xpos = x - KGT_MAX_RADIUS, kk = kgt_floordiv(xpos, k->vw), c = xpos - kk * k->vw;
            if (!need[r][x]) continue;
            kgt_printf(b, "%s%s%s %s", ind, kk ? "" : "const ", t, cell(n, k, row, xpos));
            if (!kk) {
                kgt_printf(b, " = V%d.%c;\n", r, comp[c]);
                continue;
            }
            kgt_printf(b, " = KGT_SHFL(V%d.%c, lane %c %d);\n%s", r, comp[c], kk < 0 ? '-' : '+',
                       abs(kk), ind);
            if (k->al)
                kgt_printf(b, "if (e%d) ", x);
            else if (kk < 0)
                kgt_printf(b, "if (lane < %d) ", -kk);
            else
                kgt_printf(b, "if (lane >= KGT_WARP - %d) ", kk);
            kgt_printf(b, "%s", n);
            if (k->al)
                kgt_printf(b, " = rp%d[%d];\n", r, xpos);
            else
                kgt_printf(b, " = rp%d[o%d];\n", r, x);
        }
    }
}

/* Adds the terms of plane offset dz to slot m's sums (dz == -elo: the first terms). */
static void emit_terms(kgt_buf *b, const rows3 *k, int dz, int m, const char *ind)
{
    for (int r = 0; r < k->nc; r++)
        for (int j = 0; j < k->vw; j++) {
            int first = dz == -k->elo;
            for (int p = 0; p < k->s->npts; p++) {
                int o[3];
                name a, v;
                pt(k, p, o);
                if (k->s->pts[p].w == 0.0 || o[0] != dz) continue;
                kgt_printf(b, "%s", ind);
                kgt_emit_acc_term(b, k->dbl, first, acc(a, m, r, j), k->s->pts[p].w,
                                  cell(v, k, r + o[1], j + o[2]));
                first = 0;
            }
        }
}

/* At indent ind, the quotients of slot 0 (row r) into q, then its store. */
static void emit_store(kgt_buf *b, const rows3 *k, int r, int split, float rd, const char *ind)
{
    name n;
    kgt_printf(b, "%s{\n%s    %s q;\n", ind, ind, kgt_types[k->dbl].vec);
    if (split) {
        kgt_split_cell c[4];
        for (int j = 0; j < k->vw; j++) {
            snprintf(c[j].dst, sizeof c[j].dst, "q.%c", comp[j]);
            c[j].in[0] = 0;
            snprintf(c[j].num, sizeof c[j].num, "%s", acc(n, 0, r, j));
        }
        kgt_printf(b, "%s    {\n", ind);
        kgt_emit_split_quotients(b, k->vw, c, k->s->divisor, rd, 1);
        kgt_printf(b, "%s    }\n", ind);
    } else
        for (int j = 0; j < k->vw; j++) {
            kgt_printf(b, "%s    q.%c = ", ind, comp[j]);
            kgt_emit_quotient(b, k->s, k->dbl, acc(n, 0, r, j));
            kgt_printf(b, ";\n");
        }
    kgt_printf(b, "%s    %s *const sp = op + %d * s1;\n%s    if (ok)\n", ind,
               kgt_types[k->dbl].name, r, ind);
    if (k->al)
        kgt_printf(b, "%s        *(%s *)sp = q;\n", ind, kgt_types[k->dbl].vec);
    else
        kgt_printf(b, "%s        %s(sp, q);\n", ind, k->dbl ? "KGT_VST2D" : "KGT_VST4F");
    kgt_printf(b, "%s    else {\n", ind);
    for (int j = 0; j < k->vw; j++)
        kgt_printf(b, "%s        if (x + %d >= x0 && x + %d < x1) sp[%d] = q.%c;\n", ind, j, j, j,
                   comp[j]);
    kgt_printf(b, "%s    }\n%s}\n", ind, ind);
}

/* At indent ind, the walk of the thread's nc rows from lp (loads) and op (stores) through the
   planes zs .. h0 - 1: the sums' slots, the planes below the first output's top one, the loop. */
static void emit_walk(kgt_buf *b, const rows3 *k, int unroll, int split, float rd, const char *ind)
{
    const int E = k->elo + k->ehi;
    char in2[64];
    name n, n1;
    snprintf(in2, sizeof in2, "%s    ", ind);
    for (int m = 0; m <= E; m++)
        for (int r = 0; r < k->nc; r++)
            for (int j = 0; j < k->vw; j++) {
                kgt_printf(b, "%s%s %s;\n", ind, kgt_types[k->dbl].name, acc(n, m, r, j));
            }
    /* the planes below the first output's top one: their terms of the outputs from zs on */
    for (int pl = -k->elo; pl < k->ehi; pl++) {
        kgt_printf(b, "%s{\n", ind);
        emit_plane(b, k, pl, pl - (E - 1), pl, in2);
        for (int dz = -k->elo; dz <= k->ehi; dz++)
            if (pl - dz >= 0 && kgt_has_plane(k->s, dz)) emit_terms(b, k, dz, pl - dz, in2);
        kgt_printf(b, "%s}\n", ind);
    }
    kgt_printf(b, "%sKGT_UNROLL(%d)\n%sfor (int i = zs; i < h0; i++, lp += s0, op += s0) {\n", ind,
               unroll, ind);
    emit_plane(b, k, k->ehi, -k->elo, k->ehi, in2);
    for (int dz = -k->elo; dz <= k->ehi; dz++)
        if (kgt_has_plane(k->s, dz)) emit_terms(b, k, dz, k->ehi - dz, in2);
    for (int r = 0; r < k->nc; r++) emit_store(b, k, r, split, rd, in2);
    for (int m = 0; m < E; m++) /* roll the sums down one plane */
        for (int r = 0; r < k->nc; r++)
            for (int j = 0; j < k->vw; j++) {
                kgt_printf(b, "%s%s = %s;\n", in2, acc(n, m, r, j), acc(n1, m + 1, r, j));
            }
    kgt_printf(b, "%s}\n", ind);
}

void kgt_emit_rows3_body(kgt_buf *b, const kgt_stencil *s, int dbl, int bx, int by, int nc,
                         int unroll, int al, int split, float rd)
{
    rows3 *k = calloc(2, sizeof *k); /* nc rows, and the thin boxes' one */
    if (!k) return;
    for (int i = 0; i < 2; i++) {
        k[i].s = s, k[i].dbl = dbl, k[i].vw = dbl ? 2 : 4, k[i].nc = i ? 1 : nc, k[i].al = al;
        plan(&k[i]);
    }
    const int vw = k->vw;
    const char *t = kgt_types[dbl].name;
    kgt_printf(b,
               "    const int x = xa + ((int)blockIdx.x * %d + (int)threadIdx.x) * %d;\n"
               "    const int zs = z0 + (int)blockIdx.z * zc, h0 = zs + zc < z1 ? zs + zc : z1;\n"
               "    const int lane = (int)(threadIdx.x %% KGT_WARP), xw = x - lane * %d;\n"
               "    int ys = y0 + ((int)blockIdx.y * %d + (int)threadIdx.y) * %d;\n"
               "    if (ys >= y1) return;\n"
               "    if (zs >= h0 || xw >= x1 + %d || xw + KGT_WARP * %d <= x0 - %d) return;\n"
               "    const int full = y1 - y0 >= %d;\n"
               "    if (full && ys > y1 - %d) ys = y1 - %d;\n"
               "    const int ok = x >= x0 && x + %d <= x1;\n",
               bx, vw, vw, by, nc, k->rhi, vw, k->rlo, nc, nc, nc, vw);
    if (al) /* a vector past the rows' readable part reads the nearest readable one */
        kgt_printf(
            b,
            "    const int vo = KGT_CLAMP(x, (x0 - %d) / %d * %d, (x1 - 1 + %d) / %d * %d) - x;\n",
            k->rlo, vw, vw, k->rhi, vw, vw);
    for (int x = 0; x < RX; x++) {
        int in_v = x >= KGT_MAX_RADIUS && x < KGT_MAX_RADIUS + vw, used = !al && in_v;
        int xpos = x - KGT_MAX_RADIUS, kk = kgt_floordiv(xpos, vw);
        for (int r = 0; r < k->nrow; r++) used |= k->need[r][x] && !in_v;
        if (!used) continue;
        if (!al)
            kgt_printf(b, "    const int o%d = KGT_CLAMP(x + %d, x0 - %d, x1 - 1 + %d) - x;\n", x,
                       xpos, k->rlo, k->rhi);
        else if (kk < 0)
            kgt_printf(b, "    const int e%d = lane < %d && !vo && x - %d >= x0 - %d;\n", x, -kk,
                       -xpos, k->rlo);
        else
            kgt_printf(
                b, "    const int e%d = lane >= KGT_WARP - %d && !vo && x + %d <= x1 - 1 + %d;\n",
                x, kk, xpos, k->rhi);
    }
    kgt_printf(b, "    const %s *const lb = in + zs * s0 + ys * s1 + x%s", t, al ? " + vo" : "");
    kgt_printf(b,
               ";\n    %s *const ob = out + zs * s0 + ys * s1 + x;\n"
               "    if (full) {\n        const %s *lp = lb;\n        %s *op = ob;\n",
               t, t, t);
    emit_walk(b, &k[0], unroll, split, rd, "        ");
    /* thin boxes (fewer rows than nc, one thread a column): one row at a time */
    kgt_printf(b,
               "    } else {\n"
               "        for (int r = 0; r < y1 - ys; r++) {\n"
               "            const %s *lp = lb + r * s1;\n            %s *op = ob + r * s1;\n",
               t, t);
    emit_walk(b, &k[1], 1, split, rd, "            ");
    kgt_printf(b, "        }\n    }\n}\n");
    free(k);
}
