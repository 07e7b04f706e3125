/*
 * L time steps per launch (1 <= L <= KGT_STREAM_MAX) for 3D star stencils reaching one cell, and
 * one step for any 3D stencil reaching one cell (box mode, below): the 3D analogue of the 2D
 * streaming kernel (emit_stream.c), taken by the library's run-time L-step path (kgt_rt.h:
 * kgt_rt_gpu_stream, kgt_stream3_plan) and, at L = 1, by its one-step path when asked
 * ($STENCIL_RTC_STREAM1=1; slower than the step kernel on an H200).
 *
 * A block of BX x BY threads (BX = 32, one warp per thread row) covers an x-y tile of TX = BX*V
 * columns by TY = BY*NY rows (each thread V adjacent columns of NY adjacent rows) and walks
 * along dimension 0 (z). For its cells each thread keeps, per level below L (0: the input, k:
 * step k), a window of the 2R+1 planes around the plane it updates next in registers: the
 * neighbours along z and those inside the thread's own V x NY patch are registers; x neighbours
 * of the patch's edge columns come from the neighbouring lanes by warp shuffles; y neighbours of
 * its first and last R rows through a two-plane ring of shared memory per level holding only
 * those rows of every thread (one barrier per plane). Per input plane z entering the window,
 * level k advances one plane (z - kR); level L's plane (z - LR) is stored. The tile's outer
 * HP >= LR columns and HY = LR rows each side are computed but not stored (the shuffles of the
 * tile's edge lanes return the lane's own value there: wrong, but only HP cells deep after L
 * levels); a block's first 2LR planes only fill the windows. The plane loop is unrolled by
 * 2(2R+1) so that the windows' shifts are register renames.
 *
 * At L = 1 (box mode, any stencil reaching one cell, diagonal points too) the tile stores all its
 * TX x TY cells and starts on a 128-byte line: the edge lanes also load the R columns beyond it
 * and the first and last thread rows the R rows beyond it, each plane as it is loaded. The ring
 * holds the rows of every plane of the window (written as the plane enters, 2(2R+1) ring planes,
 * one barrier per plane) with PC columns each side for the edge lanes' columns, and the shuffled
 * x neighbours of every plane stay in registers beside the window (wl0, wr0), so that diagonal
 * points find theirs.
 *
 * Semantics as the 2D kernel's: at each level a cell outside [live_lo, live_hi) takes the value
 * of the level below; loads are clamped into the box the launcher can read (kgt_stream3_plan),
 * so cells that need a clamped value are never stored; blocks whose cells are all live and need
 * no clamp take a path without per-cell tests (FAST). The expressions are kgt_emit_expr's on
 * named registers per cell; float divisors that kgt_split_divisor accepts are divided by split
 * division (a level's NY*V quotients again by `/` when one numerator leaves the split range), so
 * results equal L host steps bitwise.
 *
 * The text is C as well as CUDA/HIP (no templates or references), so that the tests can run it
 * under an emulation of the execution model on the CPU (tests/rtc/test_stream3_emul.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgt_rt.h"

/*
 * HDEF3: planes a block walks at most. For 3d7 float at L = 3 (bench/RESULTS.md, plan section),
 * 96 planes ran fastest on 512 x 1024^2 (a rank's part on two GPUs; 252 and 128 were slower),
 * and as fast as 252 on 1024^3 and on a 96 x 768^2 box (an out-of-core chunk).
 */
enum { BX = 32, P = 2 /* input planes loaded ahead */, HDEF3 = 96 };

typedef struct shape3 {
    int lv, r, v, ny, by; /* levels; radius; columns and rows per thread; thread rows */
    int hp, hy;           /* columns and rows not stored each side */
    int hdef, hmin;       /* planes per block: at most, at least */
    int elo[3], ehi[3];
    int split;
    float rd;
    int box; /* one level (any stencil reaching one cell): tiles without unstored columns and
                rows, their edge columns and the rows beyond them loaded too (emit_load_plane) */
} shape3;

/* The tuned shape (rows per thread, thread rows) for shape experiments, where it fits. */
static void tuned_shape(const kgt_stream_tune *tune, int *ny, int *by)
{
    int a = tune ? tune->ny : 0, b = tune ? tune->by : 0;
    if (a >= 1 && a <= 8 && b >= 1 && a * b <= 64 && BX * b <= 1024) *ny = a, *by = b;
}

/*
 * float: 2 columns and 3 rows per thread, 8 thread rows (a 64 x 24 tile); double: 1 column and 4
 * rows (32 x 32). 3d7 float at L = 3 ran best with 3 rows per thread, about as fast with 2, and
 * far slower with 4 (159 registers, 1 block per SM); bench/RESULTS.md.
 */
static shape3 make_shape3(const kgt_stencil *s, int dbl, int levels, const kgt_stream_tune *tune)
{
    shape3 t;
    memset(&t, 0, sizeof t);
    t.lv = levels;
    t.box = levels == 1;
    kgt_extents(s, t.elo, t.ehi);
    t.r = 1;
    t.v = dbl ? 1 : 2;
    t.ny = dbl ? 4 : 3;
    t.by = 8;
    tuned_shape(tune, &t.ny, &t.by);
    t.split = !dbl && kgt_split_divisor(s->divisor, &t.rd);
    t.hp = t.box ? 0 : (levels * t.r + t.v - 1) / t.v * t.v;
    t.hy = t.box ? 0 : levels * t.r;
    const int u = 2 * (2 * t.r + 1);
    for (t.hdef = HDEF3; (t.hdef + 2 * levels * t.r) % u; t.hdef--) {
    }
    for (t.hmin = 32; (t.hmin + 2 * levels * t.r) % u; t.hmin++) {
    }
    return t;
}

static void emit_enum(kgt_buf *b, const shape3 *t)
{
    kgt_printf(b,
               "    enum { R = %d, V = %d, NY = %d, BX = %d, BY = %d, K = 2 * R + 1, L = %d,\n"
               "           HP = %d, HY = %d, TX = BX * V, TY = BY * NY, W = TX - 2 * HP,\n"
               "           WY = TY - 2 * HY, P = %d, U = 2 * K, RB = BY + 2, ER = 2 * R,\n"
               "           EX = %d /* columns and rows loaded beyond the tile */,\n"
               "           PC = %d, RX = TX + 2 * PC /* ring rows: PC columns each side */,\n"
               "           SL = RB * ER * RX /* one level's ring plane */, NB = %s };\n",
               t->r, t->v, t->ny, BX, t->by, t->lv, t->hp, t->hy, P, t->box ? t->r : 0,
               t->box ? t->v : 0,
               t->box ? "U /* ring planes: the window's, written u - K + 1..u */" : "2");
}

static void emit_macros(kgt_buf *b)
{
    kgt_printf(b, "#ifndef KGT_UNROLL\n"
                  "#define KGT_UNROLL _Pragma(\"unroll\")\n"
                  "#endif\n"
                  "#ifndef KGT_SHFL_UP\n"
                  "#if defined(__HIPCC__)\n"
                  "#define KGT_SHFL_UP(v, d)   __shfl_up((v), (d), 32)\n"
                  "#define KGT_SHFL_DOWN(v, d) __shfl_down((v), (d), 32)\n"
                  "#else\n"
                  "#define KGT_SHFL_UP(v, d)   __shfl_up_sync(0xffffffffu, (v), (d), 32)\n"
                  "#define KGT_SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, (v), (d), 32)\n"
                  "#endif\n"
                  "#endif\n");
}

/* n rows of V elements of one plane: one vector access per row at column x (vin), else V
   scalar ones at columns xc. ro: the rows' offsets in the plane. */
static void emit_load(kgt_buf *b, const char *fn, int dbl, const shape3 *t, int n)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "static __device__ __forceinline__ void %s(%s (*d)[%d], const %s *pl,\n"
               "    const long *ro, KGT_IX x, const KGT_IX *xc, int vin)\n{\n"
               "    KGT_UNROLL\n"
               "    for (int i = 0; i < %d; i++) {\n"
               "        const %s *row = pl + ro[i];\n",
               fn, ty, t->v, ty, n, ty);
    if (t->v > 1)
        kgt_printf(b,
                   "        if (vin) {\n"
                   "            const %s%d q = *(const %s%d *)(row + x);\n"
                   "            d[i][0] = q.x, d[i][1] = q.y;\n"
                   "            continue;\n"
                   "        }\n",
                   ty, t->v, ty, t->v);
    else
        kgt_printf(b, "        (void)vin, (void)x;\n");
    kgt_printf(b,
               "        KGT_UNROLL\n"
               "        for (int j = 0; j < %d; j++) d[i][j] = row[xc[j]];\n"
               "    }\n"
               "}\n\n",
               t->v);
}

/* Box mode: the source of point o for cell (i, j): the window's registers and shuffled edges
   (wl0, wr0) of plane R + o[0], or that plane's ring (spQ) for rows of the thread rows above and
   below, the rows beyond the tile and the edge columns among them. */
static void emit_source_box(kgt_buf *b, const shape3 *t, const int *o, int i, int j)
{
    const int ii = i + o[1], jj = j + o[2], R = t->r, q = R + o[0];
    if (ii >= 0 && ii < t->ny) {
        if (jj >= 0 && jj < t->v)
            kgt_printf(b, "w0[%d][%d][%d]", q, ii, jj);
        else
            kgt_printf(b, "w%c0[%d][%d][%d]", jj < 0 ? 'l' : 'r', q, ii,
                       jj < 0 ? jj + R : jj - t->v);
        return;
    }
    if (ii < 0)
        kgt_printf(b, "sp%d[(ty * ER + %d) * RX + PC + tx * V + %d]", q, 2 * R + ii, jj);
    else
        kgt_printf(b, "sp%d[((ty + 2) * ER + %d) * RX + PC + tx * V + %d]", q, ii - t->ny, jj);
}

/*
 * Box mode: one plane's loads, the thread's rows (d) and, for the tile's edge lanes (edge), their
 * R columns beyond the tile (de: lane 0 left, lane BX - 1 right, at columns xe); for the first
 * and last thread rows (halo), the R rows beyond the tile (h, offsets rh) and their edge cells.
 */
static void emit_load_plane(kgt_buf *b, const char *fn, const char *ld, int dbl, const shape3 *t)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(
        b,
        "static __device__ __forceinline__ void %sp(%s (*d)[%d], %s (*de)[%d], %s (*h)[%d],\n"
        "    %s (*he)[%d], const %s *pl, const long *ro, const long *rh, KGT_IX x,\n"
        "    const KGT_IX *xc, const KGT_IX *xe, int vin, int edge, int halo)\n{\n"
        "    %s(d, pl, ro, x, xc, vin);\n"
        "    if (edge)\n"
        "        KGT_UNROLL\n"
        "        for (int i = 0; i < %d; i++)\n"
        "            KGT_UNROLL\n"
        "            for (int m = 0; m < %d; m++) de[i][m] = pl[ro[i] + xe[m]];\n"
        "    if (!halo) return;\n"
        "    %sh(h, pl, rh, x, xc, vin);\n"
        "    if (edge)\n"
        "        KGT_UNROLL\n"
        "        for (int i = 0; i < %d; i++)\n"
        "            KGT_UNROLL\n"
        "            for (int m = 0; m < %d; m++) he[i][m] = pl[rh[i] + xe[m]];\n"
        "}\n\n",
        fn, ty, t->v, ty, t->r, ty, t->v, ty, t->r, ty, ld, t->ny, t->r, ld, t->r, t->r);
}

/* The source of point o's value for cell (i, j) at level window w (ring sp, shuffles sl/sr). */
static void emit_source(kgt_buf *b, const shape3 *t, const char *w, const int *o, int i, int j)
{
    const int ii = i + o[1], jj = j + o[2], R = t->r;
    if (t->box) {
        emit_source_box(b, t, o, i, j);
        return;
    }
    if (o[1] == 0 && o[2] == 0)
        kgt_printf(b, "%s[%d][%d][%d]", w, R + o[0], i, j);
    else if (o[2] == 0 && ii >= 0 && ii < t->ny)
        kgt_printf(b, "%s[%d][%d][%d]", w, R, ii, j);
    else if (o[2] == 0 && ii < 0) /* the last rows of the thread row above */
        kgt_printf(b, "sp[(ty * ER + %d) * TX + tx * V + %d]", 2 * R + ii, j);
    else if (o[2] == 0) /* the first rows of the thread row below */
        kgt_printf(b, "sp[((ty + 2) * ER + %d) * TX + tx * V + %d]", ii - t->ny, j);
    else if (jj >= 0 && jj < t->v)
        kgt_printf(b, "%s[%d][%d][%d]", w, R, i, jj);
    else if (jj < 0)
        kgt_printf(b, "sl[%d][%d]", i, jj + R);
    else
        kgt_printf(b, "sr[%d][%d]", i, jj - t->v);
}

/* One level's update of the thread's NY x V cells from window w (ring sp): nv[i][j]. */
static void emit_cells(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, const char *w)
{
    char wrap[40];
    const kgt_index ix = {"", "", {NULL, NULL, NULL}, kgt_wrap(wrap, 28), 1, 0, 0, 2};
    const char *ty = kgt_types[dbl].name;
    if (t->split) kgt_printf(b, "                unsigned lo = 0xffffffffu, hi = 0;\n");
    for (int i = 0; i < t->ny; i++)
        for (int j = 0; j < t->v; j++) {
            kgt_printf(b, "                {\n");
            for (int p = 0; p < s->npts; p++) {
                if (s->pts[p].w == 0.0) continue;
                kgt_printf(b, "                    const %s ", ty);
                kgt_temp(b, 0, s->pts[p].off);
                kgt_printf(b, " = ");
                emit_source(b, t, w, s->pts[p].off, i, j);
                kgt_printf(b, ";\n");
            }
            if (t->split) {
                kgt_printf(b, "                    sn[%d][%d] = ", i, j);
                kgt_emit_sum(b, s, dbl, &ix);
                kgt_printf(b, ";\n                    nv[%d][%d] = kgt_div_split(sn[%d][%d], ", i,
                           j, i, j);
                kgt_emit_literal(b, s->divisor, 0);
                kgt_printf(b, ", ");
                kgt_emit_literal(b, t->rd, 0);
                kgt_printf(b, ", lo, hi);\n");
            } else {
                kgt_printf(b, "                    nv[%d][%d] = ", i, j);
                kgt_emit_expr(b, s, dbl, &ix);
                kgt_printf(b, ";\n");
            }
            kgt_printf(b, "                }\n");
        }
    if (t->split) {
        kgt_printf(b, "                /* a numerator zero, tiny, huge, infinite or NaN: `/` */\n"
                      "                if (lo < KGT_SPLIT_LO || hi > KGT_SPLIT_HI)\n"
                      "                    KGT_UNROLL\n"
                      "                    for (int i = 0; i < NY; i++)\n"
                      "                        KGT_UNROLL\n"
                      "                        for (int j = 0; j < V; j++) nv[i][j] = sn[i][j] / ");
        kgt_emit_literal(b, s->divisor, 0);
        kgt_printf(b, ";\n");
    }
}

/* Level k (1..L) at plane r = z - kR from window w(k-1): the shuffles, the cells, the live
   test, then the push into window k or (k = L) the store. */
static void emit_level(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, int k)
{
    const char *ty = kgt_types[dbl].name;
    char w[16];
    snprintf(w, sizeof w, "w%d", k - 1);
    if (t->box) {
        kgt_printf(b,
                   "            {\n"
                   "                const KGT_IX r = z - R; /* the step, stored */\n"
                   "                %s nv[NY][V]%s;\n",
                   ty, t->split ? ", sn[NY][V]" : "");
        for (int q = 0; q < 2 * t->r + 1; q++)
            kgt_printf(
                b,
                "                const %s *const sp%d = sh + ((u + NB - K + 1 + %d) %% NB) * "
                "SL;\n"
                "                (void)sp%d;\n",
                ty, q, q, q);
    } else
        kgt_printf(b,
                   "            {\n"
                   "                const KGT_IX r = z - %d * R; /* step %d%s */\n"
                   "                const %s *sp = s + %d * SL;\n"
                   "                %s nv[NY][V], sl[NY][R], sr[NY][R]%s;\n"
                   "                KGT_UNROLL\n"
                   "                for (int i = 0; i < NY; i++)\n"
                   "                    KGT_UNROLL\n"
                   "                    for (int m = 0; m < R; m++) {\n"
                   "                        sl[i][m] = KGT_SHFL_UP(%s[R][i][V - R + m], 1);\n"
                   "                        sr[i][m] = KGT_SHFL_DOWN(%s[R][i][m], 1);\n"
                   "                    }\n",
                   k, k, k == t->lv ? ", stored" : "", ty, k - 1, ty, t->split ? ", sn[NY][V]" : "",
                   w, w);
    emit_cells(b, s, dbl, t, w);
    kgt_printf(b,
               "                if (!fast) {\n"
               "                    const int pl = r >= ll0 && r < lh0;\n"
               "                    KGT_UNROLL\n"
               "                    for (int i = 0; i < NY; i++)\n"
               "                        KGT_UNROLL\n"
               "                        for (int j = 0; j < V; j++)\n"
               "                            nv[i][j] = pl && rl[i] && cl[j] ? nv[i][j] : "
               "%s[R][i][j];\n"
               "                }\n",
               w);
    if (k < t->lv) {
        kgt_printf(b,
                   "                KGT_UNROLL\n"
                   "                for (int i = 0; i < NY; i++)\n"
                   "                    KGT_UNROLL\n"
                   "                    for (int j = 0; j < V; j++) {\n"
                   "                        KGT_UNROLL\n"
                   "                        for (int q = 0; q + 1 < K; q++) w%d[q][i][j] = "
                   "w%d[q + 1][i][j];\n"
                   "                        w%d[K - 1][i][j] = nv[i][j];\n"
                   "                    }\n"
                   "            }\n",
                   k, k, k);
        return;
    }
    kgt_printf(b,
               "                if (r >= zs && r < ze)\n"
               "                    KGT_UNROLL\n"
               "                    for (int i = 0; i < NY; i++) {\n"
               "                        if (!rs[i]) continue;\n"
               "                        %s *o = out + (long)r * s0 + ro[i] + x;\n",
               ty);
    if (t->v > 1)
        kgt_printf(b,
                   "                        if (vec && stall) {\n"
                   "                            *(%s%d *)o = make_%s%d(nv[i][0], nv[i][1]);\n"
                   "                            continue;\n"
                   "                        }\n",
                   ty, t->v, ty, t->v);
    else
        kgt_printf(b, "                        (void)stall;\n");
    kgt_printf(b, "                        KGT_UNROLL\n"
                  "                        for (int j = 0; j < V; j++)\n"
                  "                            if (st[j]) o[j] = nv[i][j];\n"
                  "                    }\n"
                  "            }\n");
}

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
    for (int k = 0; k < t->lv; k++) kgt_printf(b, "w%d[K][NY][V], ", k);
    if (t->box) kgt_printf(b, "wl0[K][NY][R], wr0[K][NY][R], ");
    kgt_printf(b, "pf[P][NY][V];\n"
                  "    KGT_UNROLL\n"
                  "    for (int q = 0; q < K; q++)\n"
                  "        KGT_UNROLL\n"
                  "        for (int i = 0; i < NY; i++)\n"
                  "            KGT_UNROLL\n"
                  "            for (int j = 0; j < V; j++) ");
    for (int k = 0; k < t->lv; k++) kgt_printf(b, "w%d[q][i][j] = ", k);
    kgt_printf(b, "0;\n");
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

static void emit_walk(kgt_buf *b, const char *fn, const char *ld, const kgt_stencil *s, int dbl,
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
    emit_enum(b, t);
    emit_setup(b, ld, dbl, t);
    kgt_printf(b,
               "    while (z < ze + L * R) { /* up to the last plane that a stored plane needs */\n"
               "        KGT_UNROLL\n"
               "        for (int u = 0; u < U; u++, z++) {\n"
               "            %s *s = sh + (u %% NB) * L * SL;\n",
               ty);
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
    for (int k = 1; k <= t->lv; k++) emit_level(b, s, dbl, t, k);
    kgt_printf(b, "        }\n"
                  "    }\n"
                  "}\n\n");
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
    emit_enum(b, t);
    kgt_printf(b, "    __shared__ __align__(16) %s sh[NB * L * SL];\n", kgt_types[dbl].name);
    if (!t->box) /* box mode: the first and last thread rows write them */
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
        "    const KGT_IX zend = zs - L * R + (ze - zs + 2 * L * R + U - 1) / U * U + P;\n"
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
        walk, vec, walk, vec);
}

int kgt_emit_gpu_stream3_rt(kgt_buf *b, const kgt_stencil *s, int dbl, int levels,
                            const kgt_stream_tune *tune, kgt_stream_info *info)
{
    char pre[16], ld[64], walk[64];
    memset(info, 0, sizeof *info);
    if (!(kgt_stream3(s) || (levels == 1 && kgt_stream3_box(s))) || levels < 1 ||
        levels > KGT_STREAM_MAX)
        return -1;
    snprintf(pre, sizeof pre, "rt3l%d", levels);
    snprintf(ld, sizeof ld, "%s_%s_ld%c", pre, s->stem, kgt_types[dbl].suf);
    snprintf(walk, sizeof walk, "%s_%s_walk%c", pre, s->stem, kgt_types[dbl].suf);
    shape3 t = make_shape3(s, dbl, levels, tune);
    info->levels = levels, info->ndims = 3;
    info->r = t.r, info->v = t.v, info->b = BX, info->by = t.by, info->ny = t.ny;
    info->w = BX * t.v - 2 * t.hp, info->wy = t.by * t.ny - 2 * t.hy, info->u = 2 * (2 * t.r + 1);
    info->hdef = t.hdef, info->hmin = t.hmin, info->min_box = 1, info->ix_int = 1;
    info->hset = kgt_stream_rows(tune);
    /* tiles on 128-byte lines where they store every column (box mode) */
    info->xal = t.box ? 128 / (dbl ? 8 : 4) : t.v;
    if (info->w < 1 || info->wy < 1 || (t.box && t.by < 2))
        return -1; /* a tile that stores nothing; box mode: two halo thread rows */
    for (int d = 0; d < 3; d++) info->elo[d] = t.elo[d], info->ehi[d] = t.ehi[d];
    kgt_printf(b,
               "/* %d steps per launch by register streaming along z: %d x %d threads of %d "
               "columns x %d rows */\n#define KGT_IX int\n",
               levels, BX, t.by, t.v, t.ny);
    emit_macros(b);
    if (t.split) kgt_emit_div_split(b);
    emit_load(b, ld, dbl, &t, t.ny);
    if (t.box) {
        char ldh[72];
        snprintf(ldh, sizeof ldh, "%sh", ld);
        emit_load(b, ldh, dbl, &t, t.r);
        emit_load_plane(b, ld, ld, dbl, &t);
    }
    emit_walk(b, walk, ld, s, dbl, &t);
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

/*
 * Levels worth running for s (0: none). 3d7 float ran fastest with 3 levels (2 and 4 slower,
 * all faster than one step per launch); double with 2 (3 slower than one step per launch).
 */
int kgt_stream3_depth(const kgt_stencil *s, int dbl)
{
    if (!kgt_stream3(s)) return 0;
    return dbl ? 2 : 3;
}
