/*
 * The 3D streaming kernels (emit_stream3.c) walking along z: the set-up of a block's windows and
 * ring, the plane loop, the kernels and the run-time launcher's source (kgt_rt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream3.h"

/* The load of input plane pl into pf[q] (q: an expression) and, in box mode, the edges. */
static void emit_load_call(kgt_buf *b, const char *ld, const shape3 *t, const char *q,
                           const char *pl)
{
    if (t->box)
        kgt_printf(
            b, "%sp(pf[%s], pe[%s], ph[%s], phe[%s], %s, ro, rh, x, xc, xe, vin, edge, halo);\n",
            ld, q, q, q, q, pl);
    else
        kgt_printf(b, "%s(pf[%s], %s, ro, x, xc, vin);\n", ld, q, pl);
}

/* Box mode: which threads load beyond the tile, where, and into what. */
static void emit_setup_box(kgt_buf *b, int dbl)
{
    kgt_printf(
        b,
        "    const int edge = tx == 0 || tx == BX - 1, halo = ty == 0 || ty == BY - 1;\n"
        "    KGT_IX xe[R]; /* the edge lanes' columns beyond the tile */\n"
        "    long rh[R];   /* the rows beyond the tile, of the first and last thread rows */\n"
        "    KGT_UNROLL\n"
        "    for (int m = 0; m < R; m++) {\n"
        "        const KGT_IX c = tx == 0 ? x - R + m : x + V + m;\n"
        "        const KGT_IX yh = ty == 0 ? y0 - R + m : y0 + TY + m;\n"
        "        xe[m] = fast ? c : KGT_CLAMP(c, a2, b2 - 1);\n"
        "        rh[m] = (long)(fast ? yh : KGT_CLAMP(yh, a1, b1 - 1)) * s1;\n"
        "    }\n"
        "    %s pe[P][NY][R], ph[P][R][V], phe[P][R][R];\n"
        "    KGT_UNROLL\n"
        "    for (int q = 0; q < P; q++)\n"
        "        KGT_UNROLL\n"
        "        for (int a = 0; a < R; a++) {\n"
        "            KGT_UNROLL\n"
        "            for (int i = 0; i < NY; i++) pe[q][i][a] = 0;\n"
        "            KGT_UNROLL\n"
        "            for (int j = 0; j < V; j++) ph[q][a][j] = 0;\n"
        "            KGT_UNROLL\n"
        "            for (int m = 0; m < R; m++) phe[q][a][m] = 0;\n"
        "        }\n",
        kgt_types[dbl].name);
}

/* The walk's per-thread tests and row offsets, the windows and the first input planes. */
static void emit_setup(kgt_buf *b, const char *ld, int dbl, const shape3 *t)
{
    kgt_printf(b,
               "    const int tx = threadIdx.x, ty = threadIdx.y;\n"
               "    const KGT_IX x = x0 + tx * V, yb = y0 + ty * NY;\n"
               "    int cl[V], st[V], rl[NY], rs[NY], stall = 1; /* live, stored columns, rows */\n"
               "    KGT_IX xc[V]; /* columns of scalar loads */\n"
               "    long ro[NY];  /* offsets of the rows in a plane */\n"
               "    KGT_UNROLL\n"
               "    for (int j = 0; j < V; j++) {\n"
               "        cl[j] = fast || (x + j >= ll2 && x + j < lh2);\n"
               "        st[j] = tx * V >= HP && tx * V < HP + W && (fast || (x + j >= lo2 && x + "
               "j < hi2));\n"
               "        stall = stall && st[j];\n"
               "        xc[j] = fast ? x + j : KGT_CLAMP(x + j, a2, b2 - 1);\n"
               "    }\n"
               "    KGT_UNROLL\n"
               "    for (int i = 0; i < NY; i++) {\n"
               "        const KGT_IX y = yb + i;\n"
               "        rl[i] = fast || (y >= ll1 && y < lh1);\n"
               "        rs[i] = ty * NY + i >= HY && ty * NY + i < HY + WY && (fast || (y >= lo1 "
               "&& y < hi1));\n"
               "        ro[i] = (long)(fast ? y : KGT_CLAMP(y, a1, b1 - 1)) * s1;\n"
               "    }\n"
               "    const int vin = vec && (fast || (x >= a2 && x + V <= b2));\n"
               "    %s ",
               kgt_types[dbl].name);
    if (t->part) {
        kgt_printf(b, "pf[P][NY][V];\n");
        kgt_s3b_regs(b, dbl, t);
    }
    for (int k = 0; k < t->lv && !t->part; k++) kgt_printf(b, "w%d[K][NY][V], ", k);
    if (t->box) kgt_printf(b, "wl0[K][NY][R], wr0[K][NY][R], ");
    if (!t->part) {
        kgt_printf(b, "pf[P][NY][V];\n"
                      "    KGT_UNROLL\n"
                      "    for (int q = 0; q < K; q++)\n"
                      "        KGT_UNROLL\n"
                      "        for (int i = 0; i < NY; i++)\n"
                      "            KGT_UNROLL\n"
                      "            for (int j = 0; j < V; j++) ");
        for (int k = 0; k < t->lv; k++) kgt_printf(b, "w%d[q][i][j] = ", k);
        kgt_printf(b, "0;\n");
    }
    if (t->box) {
        kgt_printf(b, "    KGT_UNROLL\n"
                      "    for (int q = 0; q < K; q++)\n"
                      "        KGT_UNROLL\n"
                      "        for (int i = 0; i < NY; i++)\n"
                      "            KGT_UNROLL\n"
                      "            for (int m = 0; m < R; m++) wl0[q][i][m] = wr0[q][i][m] = 0;\n");
        emit_setup_box(b, dbl);
    }
    kgt_printf(b, "    KGT_IX z = zs - L * R; /* the input plane entering the window */\n"
                  "    KGT_UNROLL\n"
                  "    for (int q = 0; q < P; q++)\n"
                  "        ");
    emit_load_call(b, ld, t, "q", "in + (long)KGT_CLAMP(z + q, a0, b0 - 1) * s0");
}

/* The ring rows of the levels below L (each thread's first and last R rows of the plane that
   becomes the window's centre; box mode: of the plane entering the window), then the barrier. */
static void emit_ring(kgt_buf *b, int dbl, const shape3 *t)
{
    const char *ty = kgt_types[dbl].name;
    for (int k = 0; k < t->lv; k++) {
        char src[24];
        snprintf(src, sizeof src, t->box ? "pf[0]" : "w%d[R + 1]", k);
        kgt_printf(
            b,
            "            KGT_UNROLL\n"
            "            for (int e = 0; e < ER; e++) {\n"
            "                const int i = e < R ? e : NY - ER + e;\n"
            "                %s *q = s + %d * SL + ((ty + 1) * ER + e) * RX + PC + tx * V;\n",
            ty, k);
        if (t->v > 1)
            kgt_printf(b, "                *(%s%d *)q = make_%s%d(%s[i][0], %s[i][1]);\n", ty, t->v,
                       ty, t->v, src, src);
        else
            kgt_printf(b, "                q[0] = %s[i][0];\n", src);
        if (t->box) /* the edge lanes' columns beyond the tile; the rows beyond it */
            kgt_printf(
                b,
                "                KGT_UNROLL\n"
                "                for (int m = 0; m < R; m++)\n"
                "                    if (edge) q[tx == 0 ? m - R : V + m] = pe[0][i][m];\n"
                "            }\n"
                "            if (halo)\n"
                "                KGT_UNROLL\n"
                "                for (int a = 0; a < R; a++) {\n"
                "                    %s *q = s + (ty == 0 ? R + a : (BY + 1) * ER + a) * RX + "
                "PC + tx * V;\n"
                "                    KGT_UNROLL\n"
                "                    for (int j = 0; j < V; j++) q[j] = ph[0][a][j];\n"
                "                    KGT_UNROLL\n"
                "                    for (int m = 0; m < R; m++)\n"
                "                        if (edge) q[tx == 0 ? m - R : V + m] = phe[0][a][m];\n",
                ty);
        kgt_printf(b, "            }\n");
    }
    kgt_printf(b, "            __syncthreads();\n");
}

static int emit_walk(kgt_buf *b, const char *fn, const char *ld, const kgt_stencil *s, int dbl,
                     const shape3 *t)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "static __device__ __forceinline__ void %s(const int vec, const int fast,\n"
               "    const %s *__restrict__ in, %s *__restrict__ out, KGT_IX x0, KGT_IX y0, "
               "KGT_IX zs,\n"
               "    KGT_IX ze, KGT_IX lo1, KGT_IX lo2, KGT_IX hi1, KGT_IX hi2, KGT_IX ll0, KGT_IX "
               "ll1,\n"
               "    KGT_IX ll2, KGT_IX lh0, KGT_IX lh1, KGT_IX lh2, KGT_IX a0, KGT_IX b0, KGT_IX "
               "a1,\n"
               "    KGT_IX b1, KGT_IX a2, KGT_IX b2, KGT_IX s0, KGT_IX s1, %s *sh)\n{\n",
               fn, ty, ty, ty);
    kgt_s3_enum(b, t);
    emit_setup(b, ld, dbl, t);
    kgt_printf(b,
               "    while (z < ze + %s) { /* up to the last plane that a stored plane needs */\n"
               "        KGT_UNROLL\n"
               "        for (int u = 0; u < U; u++, z++) {\n"
               "            %s *s = sh + (u %% NB) * L * SL;\n",
               t->part ? "LG" : "L * R", ty);
    if (t->part) {
        const int rc = kgt_s3b_iter(b, ld, s, dbl, t);
        kgt_printf(b, "        }\n"
                      "    }\n"
                      "}\n\n");
        return rc;
    }
    emit_ring(b, dbl, t);
    if (t->box) /* the entering plane's x neighbours beyond the thread's columns */
        kgt_printf(b,
                   "            KGT_UNROLL\n"
                   "            for (int i = 0; i < NY; i++)\n"
                   "                KGT_UNROLL\n"
                   "                for (int m = 0; m < R; m++) {\n"
                   "                    %s el = KGT_SHFL_UP(pf[0][i][V - R + m], 1);\n"
                   "                    %s er = KGT_SHFL_DOWN(pf[0][i][m], 1);\n"
                   "                    if (tx == 0) el = pe[0][i][m];\n"
                   "                    if (tx == BX - 1) er = pe[0][i][m];\n"
                   "                    KGT_UNROLL\n"
                   "                    for (int q = 0; q + 1 < K; q++)\n"
                   "                        wl0[q][i][m] = wl0[q + 1][i][m], wr0[q][i][m] = "
                   "wr0[q + 1][i][m];\n"
                   "                    wl0[K - 1][i][m] = el, wr0[K - 1][i][m] = er;\n"
                   "                }\n",
                   ty, ty);
    kgt_printf(
        b, "            KGT_UNROLL\n"
           "            for (int i = 0; i < NY; i++)\n"
           "                KGT_UNROLL\n"
           "                for (int j = 0; j < V; j++) {\n"
           "                    KGT_UNROLL\n"
           "                    for (int q = 0; q + 1 < K; q++) w0[q][i][j] = w0[q + 1][i][j];\n"
           "                    w0[K - 1][i][j] = pf[0][i][j];\n"
           "                    KGT_UNROLL\n"
           "                    for (int q = 0; q + 1 < P; q++) pf[q][i][j] = pf[q + 1][i][j];\n"
           "                }\n");
    if (t->box)
        kgt_printf(
            b, "            KGT_UNROLL\n"
               "            for (int q = 0; q + 1 < P; q++)\n"
               "                KGT_UNROLL\n"
               "                for (int a = 0; a < R; a++) {\n"
               "                    KGT_UNROLL\n"
               "                    for (int i = 0; i < NY; i++) pe[q][i][a] = pe[q + 1][i][a];\n"
               "                    KGT_UNROLL\n"
               "                    for (int j = 0; j < V; j++) ph[q][a][j] = ph[q + 1][a][j];\n"
               "                    KGT_UNROLL\n"
               "                    for (int m = 0; m < R; m++) phe[q][a][m] = phe[q + 1][a][m];\n"
               "                }\n");
    kgt_printf(b, "            {\n"
                  "                /* FAST: every plane loaded lies in [a0, b0) */\n"
                  "                const KGT_IX zk = fast ? z + P : KGT_CLAMP(z + P, a0, b0 - 1);\n"
                  "                ");
    emit_load_call(b, ld, t, "P - 1", "in + (long)zk * s0");
    kgt_printf(b, "            }\n");
    for (int k = 1; k <= t->lv; k++) kgt_s3_level(b, s, dbl, t, k);
    kgt_printf(b, "        }\n"
                  "    }\n"
                  "}\n\n");
    return 0;
}

static void emit_params(kgt_buf *b, int dbl)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(
        b,
        "(const %s *__restrict__ in, %s *__restrict__ out, KGT_IX lo0,\n"
        "    KGT_IX lo1, KGT_IX lo2, KGT_IX hi0, KGT_IX hi1, KGT_IX hi2, KGT_IX ll0, KGT_IX "
        "ll1,\n"
        "    KGT_IX ll2, KGT_IX lh0, KGT_IX lh1, KGT_IX lh2, KGT_IX a0, KGT_IX b0, KGT_IX "
        "a1,\n"
        "    KGT_IX b1, KGT_IX a2, KGT_IX b2, KGT_IX s0, KGT_IX s1, KGT_IX xs, KGT_IX h)\n{\n",
        ty, ty);
}

/*
 * Block (bx, by, bz): loaded columns [x0, x0 + TX), x0 = xs + bx*W - HP (xs: lo2 rounded down to
 * a vector), stored [x0 + HP, x0 + HP + W) within [lo2, hi2); rows likewise from lo1 with WY and
 * HY; output planes [lo0 + bz*h, +h) within [lo0, hi0).
 */
static void emit_body(kgt_buf *b, const char *walk, int dbl, const shape3 *t, int vec)
{
    kgt_s3_enum(b, t);
    kgt_printf(b, "    __shared__ __align__(16) %s sh[NB * L * SL];\n", kgt_types[dbl].name);
    if (t->part)
        kgt_s3b_zero(b);
    else if (!t->box) /* box mode: the first and last thread rows write them */
        kgt_printf(
            b,
            "    const int tid = threadIdx.y * BX + threadIdx.x;\n"
            "    /* the rows above and below the tile: read only by rows that are not stored */\n"
            "    for (int p = tid; p < 2 * NB * L * ER * TX; p += BX * BY) {\n"
            "        const int c = p %% (ER * TX), e = p / (ER * TX) %% 2, q = p / (2 * ER * "
            "TX);\n"
            "        sh[q * SL + (e ? RB - 1 : 0) * ER * TX + c] = 0;\n"
            "    }\n");
    kgt_printf(
        b,
        "    const KGT_IX x0 = xs + (KGT_IX)blockIdx.x * W - HP;\n"
        "    const KGT_IX y0 = lo1 + (KGT_IX)blockIdx.y * WY - HY;\n"
        "    const KGT_IX zs = lo0 + (KGT_IX)blockIdx.z * h, ze = zs + h < hi0 ? zs + h : hi0;\n"
        "    const KGT_IX zend = zs - L * R + (ze - zs + %s + U - 1) / U * U + P;\n"
        "    const int fast = x0 - EX >= a2 && x0 + TX + EX <= b2 && x0 >= ll2 && x0 + TX <= lh2 "
        "&&\n"
        "                     x0 + HP >= lo2 && x0 + HP + W <= hi2 && y0 - EX >= a1 && y0 + TY + "
        "EX <= "
        "b1 &&\n"
        "                     y0 >= ll1 && y0 + TY <= lh1 && y0 + HY >= lo1 && y0 + HY + WY <= "
        "hi1 &&\n"
        "                     zs - (L - 1) * R >= ll0 && ze + (L - 1) * R <= lh0 && zs - L * R "
        ">= a0 &&\n"
        "                     zend <= b0;\n"
        "    if (fast)\n"
        "        %s(%d, 1, in, out, x0, y0, zs, ze, lo1, lo2, hi1, hi2, ll0, ll1, ll2, lh0, lh1, "
        "lh2,\n"
        "            a0, b0, a1, b1, a2, b2, s0, s1, sh);\n"
        "    else\n"
        "        %s(%d, 0, in, out, x0, y0, zs, ze, lo1, lo2, hi1, hi2, ll0, ll1, ll2, lh0, lh1, "
        "lh2,\n"
        "            a0, b0, a1, b1, a2, b2, s0, s1, sh);\n"
        "}\n\n",
        t->part ? "FILL" : "2 * L * R", walk, vec, walk, vec);
}

int kgt_emit_gpu_stream3_rt(kgt_buf *b, const kgt_stencil *s, int dbl, int levels,
                            const kgt_stream_tune *tune, kgt_stream_info *info)
{
    char pre[16], ld[64], walk[64];
    memset(info, 0, sizeof *info);
    if (!(levels >= 2 ? kgt_stream3_any(s) : kgt_stream3_box(s)) || levels < 1 ||
        levels > KGT_STREAM_MAX)
        return -1;
    snprintf(pre, sizeof pre, "rt3l%d", levels);
    snprintf(ld, sizeof ld, "%s_%s_ld%c", pre, s->stem, kgt_types[dbl].suf);
    snprintf(walk, sizeof walk, "%s_%s_walk%c", pre, s->stem, kgt_types[dbl].suf);
    shape3 t = kgt_s3_shape(s, dbl, levels, tune);
    info->levels = levels, info->ndims = 3;
    info->r = t.r, info->v = t.v, info->b = BX, info->by = t.by, info->ny = t.ny;
    info->w = BX * t.v - 2 * t.hp, info->wy = t.by * t.ny - 2 * t.hy, info->u = t.u;
    info->fill = t.fill;
    info->hdef = t.hdef, info->hmin = t.hmin, info->min_box = 1, info->ix_int = 1;
    info->hset = kgt_stream_rows(tune);
    /* tiles on 128-byte lines where they store every column (box mode) */
    info->xal = t.box ? 128 / (dbl ? 8 : 4) : t.v;
    if (info->w < 1 || info->wy < 1 || (t.box && t.by < 2))
        return -1; /* a tile that stores nothing; box mode: two halo thread rows */
    if (kgt_s3_ring_bytes(&t, dbl) > RING_MAX) return -1; /* 3d13 at L >= 3 */
    for (int d = 0; d < 3; d++) info->elo[d] = t.elo[d], info->ehi[d] = t.ehi[d];
    kgt_printf(b,
               "/* %d steps per launch by register streaming along z: %d x %d threads of %d "
               "columns x %d rows */\n#define KGT_IX int\n",
               levels, BX, t.by, t.v, t.ny);
    kgt_s3_macros(b);
    if (t.split) kgt_emit_div_split(b);
    kgt_s3_load(b, ld, dbl, &t, t.ny);
    if (t.box) {
        char ldh[72];
        snprintf(ldh, sizeof ldh, "%sh", ld);
        kgt_s3_load(b, ldh, dbl, &t, t.r);
        kgt_s3_load_plane(b, ld, ld, dbl, &t);
    }
    if (emit_walk(b, walk, ld, s, dbl, &t)) return -1;
    for (int v = 0; v <= (t.v > 1); v++) {
        snprintf(info->name[v], sizeof info->name[v], "%s_%s_stream_k%c%d", pre, s->stem,
                 kgt_types[dbl].suf, v);
        kgt_printf(b, "KGT_EXTERN_C __global__ void __launch_bounds__(%d)\n    %s", BX * t.by,
                   info->name[v]);
        emit_params(b, dbl);
        emit_body(b, walk, dbl, &t, v);
    }
    kgt_printf(b, "#undef KGT_IX\n");
    return 0;
}

/* The most levels whose ring fits shared memory in both types, from 1 (0: s does not stream). */
int kgt_stream3_levels(const kgt_stencil *s)
{
    int most = 0;
    for (int l = 1; l <= KGT_STREAM_MAX; l++) {
        if (!(l >= 2 ? kgt_stream3_any(s) : kgt_stream3_box(s))) continue;
        shape3 f = kgt_s3_shape(s, 0, l, NULL), d = kgt_s3_shape(s, 1, l, NULL);
        if (kgt_s3_ring_bytes(&f, 0) > RING_MAX || kgt_s3_ring_bytes(&d, 1) > RING_MAX) break;
        most = l;
    }
    return most;
}

/*
 * Levels worth running for s (0: none). 3d7 float ran fastest with 3 levels (2 and 4 slower,
 * all faster than one step per launch); double with 2 (3 slower than one step per launch). A
 * star reaching 2 cells keeps 2R + 1 = 5 planes per level in registers, as many as two levels
 * of 3d7 hold: with 2 levels in float, 3d13 ran slower than one step per launch (bench/RESULTS.md;
 * and its ring of 3 levels exceeds static shared memory), so one step per launch, float and
 * double, until a shape wins. Other stencils reaching one cell (partial sums,
 * emit_stream3_box.c): each level adds a plane of partial sums per point, so the dense boxes
 * (3d19, 3d27) ran slower at 2 levels than one step per launch, while the one-sided octant
 * (5 points) gained; 2 levels only for boxes of at most 8 points.
 */
int kgt_stream3_depth(const kgt_stencil *s, int dbl)
{
    if (!kgt_stream3(s)) {
        if (!kgt_stream3_box(s)) return 0;
        return kgt_nonzero_points(s) <= 8 ? 2 : 1;
    }
    if (!kgt_reach_within(s, 3, 1)) return 1;
    return dbl ? 2 : 3;
}
