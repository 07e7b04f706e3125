/*
 * L time steps per launch (2 <= L <= KGT_STREAM_MAX) for 3D star stencils reaching at most 2
 * cells (radius R) and, by partial sums per plane (emit_stream3_box.c), for the other 3D
 * stencils reaching one cell; one step for any 3D stencil reaching one cell (box mode, below): the
 * 3D analogue of the 2D streaming kernel (emit_stream.c), taken by the library's run-time L-step
 * path (kgt_rt.h: kgt_rt_gpu_stream, kgt_stream3_plan) and, at L = 1, by its one-step path when
 * asked
 * ($STENCIL_RTC_STREAM1=1; slower than the step kernel on an H200).
 *
 * A block of BX x BY threads (BX = 32, one warp per thread row) covers an x-y tile of TX = BX*V
 * columns by TY = BY*NY rows (each thread V adjacent columns of NY adjacent rows) and walks
 * along dimension 0 (z). For its cells each thread keeps, per level below L (0: the input, k:
 * step k), a window of the 2R+1 planes around the plane it updates next in registers: the
 * neighbours along z and those inside the thread's own V x NY patch are registers; x neighbours
 * of the patch's edge columns come from the neighbouring lanes by warp shuffles (from lanes up
 * to ceil(R / V) away where R > V); y neighbours of its first and last R rows through a
 * two-plane ring of shared memory per level holding only those rows of every thread (one
 * barrier per plane). Per input plane z entering the window,
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

#include "stream3.h"

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
shape3 kgt_s3_shape(const kgt_stencil *s, int dbl, int levels, const kgt_stream_tune *tune)
{
    shape3 t;
    memset(&t, 0, sizeof t);
    t.lv = levels;
    t.box = levels == 1;
    t.part = levels >= 2 && !kgt_stream3(s);
    kgt_extents(s, t.elo, t.ehi);
    t.r = 1;
    for (int d = 0; d < 3; d++) { /* stars reach up to 2 cells (kgt_stream3); others 1 */
        if (t.elo[d] > t.r) t.r = t.elo[d];
        if (t.ehi[d] > t.r) t.r = t.ehi[d];
    }
    t.v = dbl ? 1 : 2;
    t.ny = dbl ? 4 : 3;
    t.by = 8;
    tuned_shape(tune, &t.ny, &t.by);
    t.split = !dbl && kgt_split_divisor(s->divisor, &t.rd);
    t.hp = t.box ? 0 : (levels * t.r + t.v - 1) / t.v * t.v;
    t.hy = t.box ? 0 : levels * t.r;
    /* partial sums: each level's output enters the next a plane later (one barrier per plane) */
    t.lg = levels * t.r + (t.part ? levels - 1 : 0);
    t.fill = levels * t.r + t.lg;
    t.u = t.part ? 2 : 2 * (2 * t.r + 1);
    if (kgt_s3_ring_bytes(&t, dbl) > RING_MAX) /* a tuned shape too large: the default's */
        t.ny = dbl ? 4 : 3, t.by = 8;
    for (t.hdef = HDEF3; (t.hdef + t.fill) % t.u; t.hdef--) {
    }
    for (t.hmin = 32; (t.hmin + t.fill) % t.u; t.hmin++) {
    }
    return t;
}

long kgt_s3_ring_bytes(const shape3 *t, int dbl)
{
    const long pc = t->box || t->part ? t->v : 0, nb = t->box ? t->u : 2;
    return nb * t->lv * (t->by + 2) * 2 * t->r * (BX * t->v + 2 * pc) * (dbl ? 8 : 4);
}

void kgt_s3_enum(kgt_buf *b, const shape3 *t)
{
    kgt_printf(b,
               "    enum { R = %d, V = %d, NY = %d, BX = %d, BY = %d, K = 2 * R + 1, L = %d,\n"
               "           HP = %d, HY = %d, TX = BX * V, TY = BY * NY, W = TX - 2 * HP,\n"
               "           WY = TY - 2 * HY, P = %d, U = %s, RB = BY + 2, ER = 2 * R,\n"
               "           EX = %d /* columns and rows loaded beyond the tile */,\n"
               "           PC = %d, RX = TX + 2 * PC /* ring rows: PC columns each side */,\n"
               "           SL = RB * ER * RX /* one level's ring plane */, NB = %s };\n",
               t->r, t->v, t->ny, BX, t->by, t->lv, t->hp, t->hy, P, t->part ? "2" : "2 * K",
               t->box ? t->r : 0, t->box || t->part ? t->v : 0,
               t->box ? "U /* ring planes: the window's, written u - K + 1..u */" : "2");
    if (t->part)
        kgt_printf(b,
                   "    enum { LG = %d /* level L's lag behind the plane entering */,\n"
                   "           FILL = L * R + LG /* planes walked besides the block's own */ };\n",
                   t->lg);
}

void kgt_s3_macros(kgt_buf *b)
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
void kgt_s3_load(kgt_buf *b, const char *fn, int dbl, const shape3 *t, int n)
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
void kgt_s3_load_plane(kgt_buf *b, const char *fn, const char *ld, int dbl, const shape3 *t)
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

/* Partial sums (emit_stream3_box.c): the entering plane e's value at in-plane offset (dy, dx) from
 * cell (i, j). */
static void emit_source_part(kgt_buf *b, const shape3 *t, const char *e, int dy, int dx, int i,
                             int j)
{
    const int ii = i + dy, jj = j + dx, R = t->r;
    if (ii >= 0 && ii < t->ny) {
        if (jj >= 0 && jj < t->v)
            kgt_printf(b, "%s[%d][%d]", e, ii, jj);
        else
            kgt_printf(b, "e%c[%d][%d]", jj < 0 ? 'l' : 'r', ii, jj < 0 ? jj + R : jj - t->v);
    } else if (ii < 0) { /* the last rows of the thread row above */
        kgt_printf(b, "sp[(ty * ER + %d) * RX + PC + tx * V + %d]", 2 * R + ii, jj);
    } else { /* the first rows of the thread row below */
        kgt_printf(b, "sp[((ty + 2) * ER + %d) * RX + PC + tx * V + %d]", ii - t->ny, jj);
    }
}

/* The source of point o's value for cell (i, j) at level window w (ring sp, shuffles sl/sr). */
static void emit_source(kgt_buf *b, const shape3 *t, const char *w, const int *o, int i, int j)
{
    const int ii = i + o[1], jj = j + o[2], R = t->r;
    if (t->box) {
        emit_source_box(b, t, o, i, j);
        return;
    }
    if (t->part) {
        emit_source_part(b, t, w, o[1], o[2], i, j);
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

void kgt_s3_temps(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, const char *w, int i,
                  int j)
{
    for (int p = 0; p < s->npts; p++) {
        if (s->pts[p].w == 0.0) continue;
        kgt_printf(b, "                    const %s ", kgt_types[dbl].name);
        kgt_temp(b, 0, s->pts[p].off);
        kgt_printf(b, " = ");
        emit_source(b, t, w, s->pts[p].off, i, j);
        kgt_printf(b, ";\n");
    }
}

/* One level's update of the thread's NY x V cells from window w (ring sp): nv[i][j]. */
static void emit_cells(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, const char *w)
{
    char wrap[40];
    const kgt_index ix = {"", "", {NULL, NULL, NULL}, kgt_wrap(wrap, 28), 1, 0, 0, 2};
    if (t->split) kgt_printf(b, "                unsigned lo = 0xffffffffu, hi = 0;\n");
    for (int i = 0; i < t->ny; i++)
        for (int j = 0; j < t->v; j++) {
            kgt_printf(b, "                {\n");
            kgt_s3_temps(b, s, dbl, t, w, i, j);
            if (t->split) {
                kgt_printf(b, "                    sn[%d][%d] = ", i, j);
                kgt_emit_sum(b, s, dbl, &ix);
                kgt_printf(b, ";\n");
                kgt_s3_div_split(b, s, t, "sn", i, j);
            } else {
                kgt_printf(b, "                    nv[%d][%d] = ", i, j);
                kgt_emit_expr(b, s, dbl, &ix);
                kgt_printf(b, ";\n");
            }
            kgt_printf(b, "                }\n");
        }
    kgt_s3_split_tail(b, s, t);
}

void kgt_s3_div_split(kgt_buf *b, const kgt_stencil *s, const shape3 *t, const char *num, int i,
                      int j)
{
    kgt_printf(b, "                    nv[%d][%d] = kgt_div_split(", i, j);
    if (strcmp(num, "sn"))
        kgt_printf(b, "%s, ", num);
    else
        kgt_printf(b, "sn[%d][%d], ", i, j);
    kgt_emit_literal(b, s->divisor, 0);
    kgt_printf(b, ", ");
    kgt_emit_literal(b, t->rd, 0);
    kgt_printf(b, ", lo, hi);\n");
}

void kgt_s3_split_tail(kgt_buf *b, const kgt_stencil *s, const shape3 *t)
{
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

/* R > V: column m - R of the thread is element e of the lane dl to the left, column V + m
   element m % V of the lane 1 + m / V to the right. */
static void emit_far_shuffles(kgt_buf *b, const shape3 *t, const char *w)
{
    kgt_printf(b, "                {\n");
    for (int m = 0; m < t->r; m++) {
        const int dl = (t->r - m + t->v - 1) / t->v, e = m - t->r + dl * t->v;
        kgt_printf(b,
                   "                    sl[i][%d] = KGT_SHFL_UP(%s[R][i][%d], %d);\n"
                   "                    sr[i][%d] = KGT_SHFL_DOWN(%s[R][i][%d], %d);\n",
                   m, w, e, dl, m, w, m % t->v, 1 + m / t->v);
    }
    kgt_printf(b, "                }\n");
}

/* Level k (1..L) at plane r = z - kR from window w(k-1): the shuffles, the cells, the live
   test, then the push into window k or (k = L) the store. */
void kgt_s3_level(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, int k)
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
    } else {
        kgt_printf(b,
                   "            {\n"
                   "                const KGT_IX r = z - %d * R; /* step %d%s */\n"
                   "                const %s *sp = s + %d * SL;\n"
                   "                %s nv[NY][V], sl[NY][R], sr[NY][R]%s;\n"
                   "                KGT_UNROLL\n"
                   "                for (int i = 0; i < NY; i++)\n",
                   k, k, k == t->lv ? ", stored" : "", ty, k - 1, ty,
                   t->split ? ", sn[NY][V]" : "");
        if (t->r <= t->v)
            kgt_printf(b,
                       "                    KGT_UNROLL\n"
                       "                    for (int m = 0; m < R; m++) {\n"
                       "                        sl[i][m] = KGT_SHFL_UP(%s[R][i][V - R + m], 1);\n"
                       "                        sr[i][m] = KGT_SHFL_DOWN(%s[R][i][m], 1);\n"
                       "                    }\n",
                       w, w);
        else
            emit_far_shuffles(b, t, w);
    }
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
    kgt_s3_store(b, dbl, t);
}

void kgt_s3_store(kgt_buf *b, int dbl, const shape3 *t)
{
    const char *ty = kgt_types[dbl].name;
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
