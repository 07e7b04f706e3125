/*
 * The 3D streaming walk (emit_stream3.c) at L >= 2 levels for stencils reaching one cell that are
 * not stars (diagonal points: 3d27, 3d19, an octant): partial-sum mode.
 *
 * A star needs, of the planes around a cell, only the centre column of the neighbours; a box
 * needs each plane's whole 3 x 3 patch, which the star walk's per-level windows of 2R + 1 planes
 * would have to keep in registers and in a ring of shared memory per plane of the window. Instead
 * each plane of level k - 1 is used once, as it enters level k: the points of a stencil in
 * row-major order come plane by plane (dz = -1, then 0, then +1), so the entering plane p starts
 * the sums of the cells of plane p + 1 (its dz = -1 points), continues those of plane p (dz = 0)
 * and completes those of plane p - 1 (dz = +1), in the order and operations of the one-step
 * kernel (kgt_emit_sum_part), bitwise equal. Per level a thread keeps two planes of partial sums
 * (ps%d[2][NY][V]) and the plane before the entering one (c%d, the value a cell outside the live
 * box keeps); the in-plane neighbours come from the entering plane's registers, shuffles for the
 * columns of the neighbouring lanes, and the ring for the rows of the neighbouring thread rows
 * (their first and last R rows, PC columns each side, corners included): two ring planes per level
 * (NB = 2), written at the start of each plane's iteration, one barrier per plane.
 *
 * Levels run from L down to 1, each reading the plane that the level below completed one plane
 * earlier (e%d, already in the ring), so that one barrier serves every level: level k completes
 * plane z - (kR + k - 1) as input plane z enters (LG = LR + L - 1 for level L), and a block walks
 * FILL = LR + LG planes besides its own. The tile's outer HP >= LR columns and HY = LR rows are
 * computed but not stored, as in the star walk (the tile's edge lanes shuffle their own values,
 * the ring's rows beyond the tile and its edge columns hold zeros).
 */
#include <stdio.h>
#include <string.h>

#include "kgt.h"
#include "stream3.h"

/* Arrays pre%d (k0 <= k <= k1) of NY x V elements (two such planes: two), zeroed. */
static void zero_arrays(kgt_buf *b, const char *ty, const char *pre, int k0, int k1, int two)
{
    if (k0 > k1) return;
    kgt_printf(b, "    %s ", ty);
    for (int k = k0; k <= k1; k++)
        kgt_printf(b, "%s%s%d%s[NY][V]", k > k0 ? ", " : "", pre, k, two ? "[2]" : "");
    kgt_printf(b, ";\n"
                  "    KGT_UNROLL\n"
                  "    for (int i = 0; i < NY; i++)\n"
                  "        KGT_UNROLL\n"
                  "        for (int j = 0; j < V; j++) {\n");
    for (int k = k0; k <= k1; k++)
        if (two)
            kgt_printf(b, "            %s%d[0][i][j] = %s%d[1][i][j] = 0;\n", pre, k, pre, k);
        else
            kgt_printf(b, "            %s%d[i][j] = 0;\n", pre, k);
    kgt_printf(b, "        }\n");
}

void kgt_s3b_regs(kgt_buf *b, int dbl, const shape3 *t)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b, "    /* e%%d: level k's last plane, entering level k + 1; c%%d: level k's plane "
                  "before\n       the entering one; ps%%d: level k's partial sums */\n");
    zero_arrays(b, ty, "e", 1, t->lv - 1, 0);
    zero_arrays(b, ty, "c", 0, t->lv - 1, 0);
    zero_arrays(b, ty, "ps", 1, t->lv, 1);
}

void kgt_s3b_zero(kgt_buf *b)
{
    kgt_printf(
        b, "    const int tid = threadIdx.y * BX + threadIdx.x;\n"
           "    /* the ring's rows above and below the tile and its PC columns each side: never\n"
           "       written, read only for cells that are not stored */\n"
           "    for (int p = tid; p < NB * L * SL; p += BX * BY) {\n"
           "        const int c = p %% RX, e = p / RX %% (RB * ER);\n"
           "        if (e < ER || e >= (RB - 1) * ER || c < PC || c >= PC + TX) sh[p] = 0;\n"
           "    }\n");
}

/*
 * The segments of s's points by plane: [seg[d], seg[d + 1]) the points of dz = d - 1, n[d] of
 * them with weights; -1 when the weighted points are not ordered by plane.
 */
static int segments(const kgt_stencil *s, int seg[4], int n[3])
{
    int last = -1;
    seg[0] = 0, seg[3] = s->npts, seg[1] = seg[2] = -1;
    n[0] = n[1] = n[2] = 0;
    for (int p = 0; p < s->npts; p++) {
        const int d = s->pts[p].off[0];
        if (s->pts[p].w == 0.0) continue;
        if (d < last || d < -1 || d > 1) return -1;
        for (int e = last + 1; e <= d; e++) /* first weighted point of dz >= e - 1 */
            if (e >= 0 && seg[e + 1] < 0) seg[e + 1] = p;
        last = d;
        n[d + 1]++;
    }
    for (int e = 1; e <= 2; e++)
        if (seg[e] < 0) seg[e] = s->npts;
    return 0;
}

/* a = segment d's terms, started, or added to acc (NULL: started). */
static void emit_part(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix,
                      const int *seg, int d, const char *lhs, const char *acc)
{
    kgt_printf(b, "                    %s = ", lhs);
    kgt_emit_sum_part(b, s, dbl, ix, seg[d], seg[d + 1], acc);
    kgt_printf(b, ";\n");
}

/* Cell (i, j) of level k: the entering plane's values, then the three partial sums. */
static void emit_cell(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, int k,
                      const char *e, int i, int j, const int *seg, const int *n)
{
    char wrap[40], acc[32], lhs[40];
    const kgt_index ix = {"", "", {NULL, NULL, NULL}, kgt_wrap(wrap, 28), 1, 0, 0, 2};
    const char *ty = kgt_types[dbl].name;
    const int first = n[0] ? 0 : n[1] ? 1 : 2;
    kgt_printf(b, "                {\n");
    kgt_s3_temps(b, s, dbl, t, e, i, j);
    /* plane r (dz = +1 points): complete */
    snprintf(acc, sizeof acc, "ps%d[0][%d][%d]", k, i, j);
    snprintf(lhs, sizeof lhs, "const %s kgt_tot", ty);
    if (n[2])
        emit_part(b, s, dbl, &ix, seg, 2, lhs, first == 2 ? NULL : acc);
    else
        kgt_printf(b, "                    %s = %s;\n", lhs, acc);
    if (t->split) {
        kgt_printf(b, "                    sn[%d][%d] = kgt_tot;\n", i, j);
        kgt_s3_div_split(b, s, t, "kgt_tot", i, j);
    } else {
        kgt_printf(b, "                    nv[%d][%d] = ", i, j);
        kgt_emit_expr_of(b, s, dbl, &ix, "kgt_tot");
        kgt_printf(b, ";\n");
    }
    /* plane r + 1 (dz = 0), then r + 2 (dz = -1) */
    snprintf(lhs, sizeof lhs, "ps%d[0][%d][%d]", k, i, j);
    snprintf(acc, sizeof acc, "ps%d[1][%d][%d]", k, i, j);
    if (n[1])
        emit_part(b, s, dbl, &ix, seg, 1, lhs, first == 1 ? NULL : acc);
    else if (n[0])
        kgt_printf(b, "                    %s = %s;\n", lhs, acc);
    if (n[0]) emit_part(b, s, dbl, &ix, seg, 0, acc, NULL);
    kgt_printf(b, "                }\n");
}

/* Level k (L down to 1): level k - 1's plane r + R enters (e), level k's plane r completes. */
static void emit_level(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, int k,
                       const int *seg, const int *n)
{
    const char *ty = kgt_types[dbl].name;
    char e[16];
    snprintf(e, sizeof e, "e%d", k - 1);
    int left = 0, right = 0; /* points reaching the columns of the lanes to the left, right */
    for (int p = 0; p < s->npts; p++) {
        left = left || (s->pts[p].w != 0.0 && s->pts[p].off[2] < 0);
        right = right || (s->pts[p].w != 0.0 && s->pts[p].off[2] > 0);
    }
    kgt_printf(b,
               "            { /* level %d */\n"
               "                const KGT_IX r = z - %d; /* %s */\n"
               "                const %s *sp = s + %d * SL;\n"
               "                %s nv[NY][V]%s%s%s;\n"
               "                (void)sp;\n",
               k, k * t->r + k - 1, k == t->lv ? "stored" : "entering the next level", ty, k - 1,
               ty, left ? ", el[NY][R]" : "", right ? ", er[NY][R]" : "",
               t->split ? ", sn[NY][V]" : "");
    if (left || right) {
        kgt_printf(b, "                KGT_UNROLL\n"
                      "                for (int i = 0; i < NY; i++)\n"
                      "                    KGT_UNROLL\n"
                      "                    for (int m = 0; m < R; m++) {\n");
        if (left)
            kgt_printf(b, "                        el[i][m] = KGT_SHFL_UP(%s[i][V - R + m], 1);\n",
                       e);
        if (right)
            kgt_printf(b, "                        er[i][m] = KGT_SHFL_DOWN(%s[i][m], 1);\n", e);
        kgt_printf(b, "                    }\n");
    }
    if (t->split) kgt_printf(b, "                unsigned lo = 0xffffffffu, hi = 0;\n");
    for (int i = 0; i < t->ny; i++)
        for (int j = 0; j < t->v; j++) emit_cell(b, s, dbl, t, k, e, i, j, seg, n);
    kgt_s3_split_tail(b, s, t);
    kgt_printf(b,
               "                KGT_UNROLL\n"
               "                for (int i = 0; i < NY; i++)\n"
               "                    KGT_UNROLL\n"
               "                    for (int j = 0; j < V; j++) {\n"
               "                        if (!fast)\n"
               "                            nv[i][j] = r >= ll0 && r < lh0 && rl[i] && cl[j] ? "
               "nv[i][j] : c%d[i][j];\n"
               "                        c%d[i][j] = %s[i][j];\n",
               k - 1, k - 1, e);
    if (k < t->lv) {
        kgt_printf(b,
                   "                        e%d[i][j] = nv[i][j];\n"
                   "                    }\n"
                   "            }\n",
                   k);
        return;
    }
    kgt_printf(b, "                    }\n");
    kgt_s3_store(b, dbl, t);
}

int kgt_s3b_iter(kgt_buf *b, const char *ld, const kgt_stencil *s, int dbl, const shape3 *t)
{
    const char *ty = kgt_types[dbl].name;
    int seg[4], n[3];
    if (segments(s, seg, n)) return -1;
    kgt_printf(
        b,
        "            %s e0[NY][V]; /* the input plane z */\n"
        "            KGT_UNROLL\n"
        "            for (int i = 0; i < NY; i++)\n"
        "                KGT_UNROLL\n"
        "                for (int j = 0; j < V; j++) {\n"
        "                    e0[i][j] = pf[0][i][j];\n"
        "                    KGT_UNROLL\n"
        "                    for (int q = 0; q + 1 < P; q++) pf[q][i][j] = pf[q + 1][i][j];\n"
        "                }\n"
        "            {\n"
        "                /* FAST: every plane loaded lies in [a0, b0) */\n"
        "                const KGT_IX zk = fast ? z + P : KGT_CLAMP(z + P, a0, b0 - 1);\n"
        "                %s(pf[P - 1], in + (long)zk * s0, ro, x, xc, vin);\n"
        "            }\n",
        ty, ld);
    for (int k = 0; k < t->lv; k++) {
        kgt_printf(
            b,
            "            KGT_UNROLL\n"
            "            for (int e = 0; e < ER; e++) { /* level %d's entering plane */\n"
            "                const int i = e < R ? e : NY - ER + e;\n"
            "                %s *q = s + %d * SL + ((ty + 1) * ER + e) * RX + PC + tx * V;\n",
            k, ty, k);
        if (t->v > 1)
            kgt_printf(b, "                *(%s%d *)q = make_%s%d(e%d[i][0], e%d[i][1]);\n", ty,
                       t->v, ty, t->v, k, k);
        else
            kgt_printf(b, "                q[0] = e%d[i][0];\n", k);
        kgt_printf(b, "            }\n");
    }
    kgt_printf(b, "            __syncthreads();\n");
    for (int k = t->lv; k >= 1; k--) emit_level(b, s, dbl, t, k, seg, n);
    return 0;
}
