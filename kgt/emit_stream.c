/*
 * L time steps per launch (L levels, 2 <= L <= KGT_STREAM_MAX) by register streaming, for 2D
 * stencils reaching at most 2 cells: for star stencils (no non-zero weight off the axes) the
 * kernel the fused launcher (emit_fused.c) takes for boxes tall and wide enough (L = 2), and for
 * every such stencil the library's run-time L-step kernels (kgt_rt.h). The scheme is a standalone
 * study's (docs/performance-notes.md, "Two time steps per launch"): fp32 2d9nc and 2d4 ran faster
 * this way than through the tile kernel and one step per launch.
 *
 * A block of B threads covers a strip of B*V columns (V adjacent columns per thread, one vector
 * access when the rows allow) and walks down a block of rows. For its columns each thread keeps,
 * per level below L (0: the input, k: step k), a window of the 2R+1 rows around the row it
 * updates next in registers: vertical neighbours are registers; only the R horizontal neighbours
 * each side come from the neighbouring threads, through a two-row ring of shared memory per level
 * (one barrier per row). Per input row y entering the window, level k advances one row (row
 * y - kR); level L's row (y - LR) is stored. The strip's outer HP >= LR columns each side are
 * computed but not stored; a block's first 2LR rows only fill the windows. Input rows are loaded
 * 2R+1 ahead. The row loop is unrolled by 2(2R+1) so that the windows' shifts are register
 * renames.
 *
 * Box stencils (weights off the axes) need the horizontal neighbours of every row of the window,
 * not only of its centre: each level below L keeps an edge ring in shared memory, S = 2(2R+1)
 * slots of one row each, a row laid out per element (element j of thread t at [j][PT + t], so
 * that neighbouring threads read consecutive words, without bank conflicts) and holding only the
 * R first and R last columns of each thread, the ones its neighbours read. Per row, before the
 * barrier, every level stores the newest row of its window into slot u; after it, the levels are
 * updated from the top down, level k from the window of level k - 1 as it was before this row
 * (level 1: after the input row entered it) and the ring rows of that window (slots u - 2R ..
 * u). The levels of one row are thus independent, and each lags the one below by R + 1 rows:
 * step k is row y - kR - (k - 1), and a block walks 2LR + L - 1 rows besides its own. S slots
 * leave a row written while the previous row's readers may still read K others; S = U makes the
 * slot of each unrolled row a constant.
 *
 * Semantics as the tile kernel's: at each level a cell outside [live_lo, live_hi) takes the value
 * of the level below (its input value); loads are clamped into the rectangle the launcher can
 * read (the box grown by the non-zero extents, and by them again around its live cells), so
 * cells that need a clamped value are never stored. Blocks whose used cells are all live and
 * whose rows and columns need no clamp take a path without per-cell tests (FAST). The
 * expressions are kgt_emit_expr's, on a small register array per cell: results equal two host
 * steps bitwise.
 *
 * Division: a float divisor that kgt_split_divisor accepts (split.c: in [1, 2^24], not a power of
 * two, checked) is not the compiler's `/` (a slow-path test and branch per quotient) but split
 * division, RN(s rd) corrected by two fmas, with one range test per row of V numerators; a row
 * whose numerators leave [2^-63, 2^63] is divided again by `/`, so the quotients are `/`'s bit
 * for bit. The study measured 2d9nc faster with it. Double
 * divides by `/`; power-of-two divisors are multiplications as everywhere.
 *
 * Registers and instructions of the hot loop: the FAST path clamps no rows (the kernel checks
 * that every row it loads lies in the readable rectangle instead) and tests no stored columns,
 * and the ring takes one vector store per level. With nvcc 13 (sm_90, -fmad=false) 2d9nc float
 * then holds 64 registers (8 blocks of 128 threads per SM) and 2d4 float 40.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream2.h"

/* float: 2 columns per thread (the study's best at radius 2); double: 1 (the same registers). */
shape kgt_s2_shape(const kgt_stencil *s, int dbl, int levels)
{
    shape t;
    t.lv = levels;
    kgt_extents(s, t.elo, t.ehi);
    t.r = 1;
    for (int d = 0; d < 2; d++) {
        if (t.elo[d] > t.r) t.r = t.elo[d];
        if (t.ehi[d] > t.r) t.r = t.ehi[d];
    }
    t.v = dbl ? 1 : 2;
    t.rd = 0.0f;
    t.split = !dbl && kgt_split_divisor(s->divisor, &t.rd);
    t.hp = (levels * t.r + t.v - 1) / t.v * t.v;
    t.pad = (t.r + t.v - 1) / t.v * t.v;
    t.u = 2 * (2 * t.r + 1);
    t.box = kgt_off_axis(s);
    t.fill = 2 * levels * t.r + (t.box ? levels - 1 : 0);
    t.pt = (t.r + t.v - 1) / t.v;
    for (t.hdef = 256; (t.hdef + t.fill) % t.u; t.hdef--) {
    }
    for (t.hmin = 60; (t.hmin + t.fill) % t.u; t.hmin++) {
    }
    return t;
}

/* Box: the ring index of element j of a thread's V columns (-1: not kept, no neighbour reads
   it): the R first and R last ones. */
static int edge_index(const shape *t, int j)
{
    if (2 * t->r >= t->v) return j;
    return j < t->r ? j : j >= t->v - t->r ? j - (t->v - 2 * t->r) : -1;
}

static int edge_count(const shape *t)
{
    return 2 * t->r >= t->v ? t->v : 2 * t->r;
}

/* Box: S slots of the edge ring (U, so that slots are known at compile time), NE elements of
   a thread in it, PT threads of padding each side; FILL rows walked besides the block's own. */
void kgt_s2_enum(kgt_buf *b, const shape *t)
{
    if (t->box) {
        kgt_printf(
            b,
            "    enum { R = %d, V = %d, B = %d, K = 2 * R + 1, HP = %d, W = B * V - 2 * HP,\n"
            "           PT = %d, BP = B + 2 * PT, NE = %d, U = 2 * K, S = U, QW = V + 2 * R,"
            "\n           L = %d, FILL = 2 * L * R + L - 1 };\n",
            t->r, t->v, SB, t->hp, t->pt, edge_count(t), t->lv);
        return;
    }
    kgt_printf(b,
               "    enum { R = %d, V = %d, B = %d, K = 2 * R + 1, HP = %d, W = B * V - 2 * HP,\n"
               "           PAD = %d, SW = B * V + 2 * PAD, U = 2 * K, QW = V + 2 * R, L = %d };\n",
               t->r, t->v, SB, t->hp, t->pad, t->lv);
}

/* V elements of a row: one vector access at column x (vin), or V scalar ones at columns xc. */
void kgt_s2_load(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "static __device__ __forceinline__ void %s_%s_ld%c(%s (&d)[%d], const %s *row, "
               "KGT_IX x,\n    const KGT_IX (&xc)[%d], int vin)\n{\n",
               g->prefix, s->stem, kgt_types[dbl].suf, ty, t->v, ty, t->v);
    if (t->v > 1)
        kgt_printf(b,
                   "    if (vin) {\n"
                   "        const %s%d q = *(const %s%d *)(row + x);\n"
                   "        d[0] = q.x, d[1] = q.y;\n"
                   "        return;\n"
                   "    }\n",
                   ty, t->v, ty, t->v);
    else
        kgt_printf(b, "    (void)vin, (void)x;\n");
    kgt_printf(b,
               "#pragma unroll\n"
               "    for (int j = 0; j < %d; j++) d[j] = row[xc[j]];\n"
               "}\n\n",
               t->v);
}

/* The window w and ring row sr of one level as the cell array q of emit_level. */
static void emit_gather(kgt_buf *b, const char *w, const char *sr)
{
    kgt_printf(b,
               "#pragma unroll\n"
               "                for (int k = 0; k < R; k++) {\n"
               "                    q[R * QW + k] = %s[PAD + tid * V - R + k];\n"
               "                    q[R * QW + R + V + k] = %s[PAD + tid * V + V + k];\n"
               "                }\n"
               "#pragma unroll\n"
               "                for (int k = 0; k < K; k++)\n"
               "#pragma unroll\n"
               "                    for (int j = 0; j < V; j++) q[k * QW + R + j] = %s[k][j];\n"
               "#pragma unroll\n"
               "                for (int j = 0; j < V; j++) {\n"
               "                    const int c = R * QW + R + j;\n",
               sr, sr, w);
}

/*
 * nv[j] = the sum / D by split division, the row's numerators kept in sn: when one of them is
 * outside the split range, the row is divided again by `/` (the same sums, so the same bits).
 */
static void emit_split(kgt_buf *b, const kgt_stencil *s, const shape *t, const kgt_index *ix)
{
    kgt_printf(b, "                    sn[j] = ");
    kgt_emit_sum(b, s, 0, ix);
    kgt_printf(b, ";\n                    nv[j] = kgt_div_split(sn[j], ");
    kgt_emit_literal(b, s->divisor, 0);
    kgt_printf(b, ", ");
    kgt_emit_literal(b, t->rd, 0);
    kgt_printf(b, ", lo, hi);\n"
                  "                }\n"
                  "                /* a numerator zero, tiny, huge, infinite or NaN: `/` */\n"
                  "                if (lo < KGT_SPLIT_LO || hi > KGT_SPLIT_HI)\n"
                  "#pragma unroll\n"
                  "                    for (int j = 0; j < V; j++) nv[j] = sn[j] / ");
    kgt_emit_literal(b, s->divisor, 0);
    kgt_printf(b, ";\n");
}

/*
 * Box: the window w of level lvl as the cell array q; the R columns each side of every window
 * row come from the edge ring, the row of window index k from the slot written K - 1 - k
 * iterations ago. Offset o from the thread's first column is element o mod V of the thread
 * floor(o / V) away.
 */
static void emit_gather_box(kgt_buf *b, int dbl, const shape *t, const char *w, int lvl)
{
    kgt_printf(b,
               "#pragma unroll\n"
               "                for (int k = 0; k < K; k++) {\n"
               "                    const %s(*e)[BP] = sh[(u + S + 1 - K + k) %% S][%d];\n",
               kgt_types[dbl].name, lvl);
    for (int o = -t->r; o < t->v + t->r; o++) {
        if (o == 0) o = t->v;
        const int dt = o < 0 ? -((-o + t->v - 1) / t->v) : o / t->v, j = o - dt * t->v;
        kgt_printf(b, "                    q[k * QW + %d] = e[%d][PT + tid %c %d];\n", t->r + o,
                   edge_index(t, j), dt < 0 ? '-' : '+', dt < 0 ? -dt : dt);
    }
    kgt_printf(b,
               "#pragma unroll\n"
               "                    for (int j = 0; j < V; j++) q[k * QW + R + j] = %s[k][j];\n"
               "                }\n"
               "#pragma unroll\n"
               "                for (int j = 0; j < V; j++) {\n"
               "                    const int c = R * QW + R + j;\n",
               w);
}

/* One level's update of the thread's V cells of row r from the window w of level lvl (and the
   ring row s[lvl] or, box, the edge ring of level lvl); result nv. */
static void emit_level(kgt_buf *b, const kgt_stencil *s, int dbl, const shape *t, const char *w,
                       int lvl)
{
    char wrap[40], sr[16];
    /* rn 2: infix products, which nvcc shares between the rows of the window (emit_expr.c) */
    const kgt_index ix = {"q", "c", {"QW", NULL, NULL}, kgt_wrap(wrap, 24), 0, 0, 0, 2};
    kgt_printf(b, "                %s q[K * QW], nv[V]%s;\n", kgt_types[dbl].name,
               t->split ? ", sn[V]" : "");
    if (t->split) kgt_printf(b, "                unsigned lo = 0xffffffffu, hi = 0;\n");
    snprintf(sr, sizeof sr, "s[%d]", lvl);
    if (t->box)
        emit_gather_box(b, dbl, t, w, lvl);
    else
        emit_gather(b, w, sr);
    if (t->split) {
        emit_split(b, s, t, &ix);
    } else {
        kgt_printf(b, "                    nv[j] = ");
        kgt_emit_expr(b, s, dbl, &ix);
        kgt_printf(b, ";\n                }\n");
    }
    kgt_printf(b,
               "                if (!FAST) {\n"
               "                    const int rl = r >= ll0 && r < lh0;\n"
               "#pragma unroll\n"
               "                    for (int j = 0; j < V; j++) nv[j] = rl && cl[j] ? nv[j] : "
               "%s[R][j];\n"
               "                }\n",
               w);
}

static void emit_push(kgt_buf *b, const char *w, const char *row, int ind)
{
    kgt_printf(b,
               "#pragma unroll\n"
               "%*sfor (int k = 0; k + 1 < K; k++)\n"
               "#pragma unroll\n"
               "%*s    for (int j = 0; j < V; j++) %s[k][j] = %s[k + 1][j];\n"
               "#pragma unroll\n"
               "%*sfor (int j = 0; j < V; j++) %s[K - 1][j] = %s[j];\n",
               ind, "", ind, "", w, w, ind, "", w, row);
}

/* row[0], row[1] stored at `to` as one vector access (V = 2: the only vector width here). */
static void emit_vec_store(kgt_buf *b, const char *ty, const shape *t, const char *to,
                           const char *row, int ind)
{
    kgt_printf(b, "%*s*(%s%d *)(%s) = make_%s%d(%s[0], %s[1]);\n", ind, "", ty, t->v, to, ty, t->v,
               row, row);
}

/* The walk's per-thread column tests, windows (w0: the input, wk: step k) and first input rows. */
static void emit_walk_setup(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                            const shape *t)
{
    kgt_printf(b,
               "    const int tid = threadIdx.x;\n"
               "    const KGT_IX x = x0 + tid * V;\n"
               "    int cl[V], st[V], stall = 1; /* live columns; stored columns */\n"
               "    KGT_IX xc[V];                /* columns of scalar loads */\n"
               "#pragma unroll\n"
               "    for (int j = 0; j < V; j++) {\n"
               "        cl[j] = FAST || (x + j >= ll1 && x + j < lh1);\n"
               "        /* FAST blocks store only columns inside [lo1, hi1) */\n"
               "        st[j] = tid * V >= HP && tid * V < HP + W &&\n"
               "                (FAST || (x + j >= lo1 && x + j < hi1));\n"
               "        stall = stall && st[j];\n"
               "        xc[j] = FAST ? x + j : KGT_CLAMP(x + j, a1, b1 - 1);\n"
               "    }\n"
               "    const int vin = VEC && (FAST || (x >= a1 && x + V <= b1));\n"
               "    %s ",
               kgt_types[dbl].name);
    for (int k = 0; k < t->lv; k++) kgt_printf(b, "w%d[K][V], ", k);
    kgt_printf(b, "pf[K][V];\n"
                  "#pragma unroll\n"
                  "    for (int k = 0; k < K; k++)\n"
                  "#pragma unroll\n"
                  "        for (int j = 0; j < V; j++) ");
    for (int k = 0; k < t->lv; k++) kgt_printf(b, "w%d[k][j] = ", k);
    kgt_printf(b,
               "0;\n"
               "    KGT_IX y = ys - L * R; /* the input row entering the window */\n"
               "#pragma unroll\n"
               "    for (int k = 0; k < K; k++)\n"
               "        %s_%s_ld%c(pf[k], in + (long)KGT_CLAMP(y + k, a0, b0 - 1) * s0, x, xc, "
               "vin);\n",
               g->prefix, s->stem, kgt_types[dbl].suf);
}

/* The centre rows of the levels below L into the ring, after this row's shifts; the barrier. */
static void emit_ring(kgt_buf *b, int dbl, const shape *t)
{
    for (int k = 0; k < t->lv; k++) {
        char to[48], row[32];
        snprintf(to, sizeof to, "&s[%d][PAD + tid * V]", k);
        snprintf(row, sizeof row, "w%d[R + 1]", k);
        if (t->v > 1)
            emit_vec_store(b, kgt_types[dbl].name, t, to, row, 12);
        else
            kgt_printf(b, "            s[%d][PAD + tid] = %s[0];\n", k, row);
    }
    kgt_printf(b, "            __syncthreads();\n");
}

/* Level L's row r of the thread's columns into out, if r is one of the block's rows. */
static void emit_store(kgt_buf *b, int dbl, const shape *t)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "                if (r >= ys && r < ye) {\n"
               "                    %s *o = out + (long)r * s0 + x;\n",
               ty);
    if (t->v > 1) {
        kgt_printf(b, "                    if (VEC && stall)\n");
        emit_vec_store(b, ty, t, "o", "nv", 24);
        kgt_printf(b, "                    else\n");
    } else {
        kgt_printf(b, "                    (void)stall;\n");
    }
    kgt_printf(b, "#pragma unroll\n"
                  "                        for (int j = 0; j < V; j++)\n"
                  "                            if (st[j]) o[j] = nv[j];\n"
                  "                }\n");
}

/* The input row pf[0] into the input window, and the load of the row K ahead. */
static void emit_next_row(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    emit_push(b, "w0", "pf[0]", 12);
    kgt_printf(
        b,
        "#pragma unroll\n"
        "            for (int k = 0; k + 1 < K; k++)\n"
        "#pragma unroll\n"
        "                for (int j = 0; j < V; j++) pf[k][j] = pf[k + 1][j];\n"
        "            /* FAST: every row loaded lies in [a0, b0); the clamp costs registers */\n"
        "            const KGT_IX yk = FAST ? y + K : KGT_CLAMP(y + K, a0, b0 - 1);\n"
        "            %s_%s_ld%c(pf[K - 1], in + (long)yk * s0, x, xc, vin);\n",
        g->prefix, s->stem, kgt_types[dbl].suf);
}

/* Step k of the walk's row: its row r, the level's update, then the push into the window of
   level k, or (k = L) the store. */
static void emit_step(kgt_buf *b, const kgt_stencil *s, int dbl, const shape *t, int k)
{
    char w[16], next[16];
    snprintf(w, sizeof w, "w%d", k - 1);
    snprintf(next, sizeof next, "w%d", k);
    kgt_printf(b, "            {\n");
    if (t->box)
        kgt_printf(b, "                const KGT_IX r = y - %d * R - %d; /* step %d%s */\n", k,
                   k - 1, k, k == t->lv ? ", stored" : "");
    else
        kgt_printf(b, "                const KGT_IX r = y - %d * R; /* step %d%s */\n", k, k,
                   k == t->lv ? ", stored" : "");
    emit_level(b, s, dbl, t, w, k - 1);
    if (k < t->lv)
        emit_push(b, next, "nv", 16);
    else
        emit_store(b, dbl, t);
    kgt_printf(b, "            }\n");
}

/* The walk's head: its signature, the shape, the windows and the first input rows. */
static void emit_walk_head(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                           const shape *t)
{
    const char *ty = kgt_types[dbl].name;
    char ring[48];
    if (t->box)
        snprintf(ring, sizeof ring, "[%d][%d][%d]", t->lv, edge_count(t), SB + 2 * t->pt);
    else
        snprintf(ring, sizeof ring, "[%d][%d]", t->lv, SB * t->v + 2 * t->pad);
    kgt_printf(
        b,
        "template <int VEC, int FAST>\n"
        "static __device__ __forceinline__ void %s_%s_walk%c(const %s *__restrict__ in,\n"
        "    %s *__restrict__ out, KGT_IX x0, KGT_IX ys, KGT_IX ye, KGT_IX lo1, KGT_IX hi1,\n"
        "    KGT_IX ll0, KGT_IX ll1, KGT_IX lh0, KGT_IX lh1, KGT_IX a0, KGT_IX b0, KGT_IX a1,\n"
        "    KGT_IX b1, KGT_IX s0, %s (*sh)%s)\n{\n",
        g->prefix, s->stem, kgt_types[dbl].suf, ty, ty, ty, ring);
    kgt_s2_enum(b, t);
    emit_walk_setup(b, g, s, dbl, t);
}

/* Box: the newest row of each level below L (level 0: the input row entering the window) into
   the edge ring's slot u; the barrier. */
static void emit_ring_box(kgt_buf *b, const shape *t)
{
    for (int k = 0; k < t->lv; k++)
        for (int j = 0; j < t->v; j++) {
            if (edge_index(t, j) < 0) continue;
            kgt_printf(b, "            sh[u][%d][%d][PT + tid] = ", k, edge_index(t, j));
            if (k == 0)
                kgt_printf(b, "pf[0][%d];\n", j);
            else
                kgt_printf(b, "w%d[K - 1][%d];\n", k, j);
        }
    kgt_printf(b, "            __syncthreads();\n");
}

/*
 * Box: the walk, levels from the top down. Level k reads the window of level k - 1 as it was
 * before this row (level 1: after the input row entered it), so the levels of one row are
 * independent and each level lags the one below by R + 1 rows: step k is row y - kR - (k - 1).
 */
static void emit_walk_box(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                          const shape *t)
{
    emit_walk_head(b, g, s, dbl, t);
    kgt_printf(b,
               "    while (y < ye + L * R + L - 1) { /* up to the last row a stored row needs */\n"
               "#pragma unroll\n"
               "        for (int u = 0; u < U; u++, y++) {\n");
    emit_ring_box(b, t);
    emit_next_row(b, g, s, dbl);
    for (int k = t->lv; k >= 1; k--) emit_step(b, s, dbl, t, k);
    kgt_printf(b, "        }\n"
                  "    }\n"
                  "}\n\n");
}

/* The walk of one block; FAST: no per-cell live test and no row or column clamp. */
void kgt_s2_walk(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
{
    const char *ty = kgt_types[dbl].name;
    if (t->box) {
        emit_walk_box(b, g, s, dbl, t);
        return;
    }
    emit_walk_head(b, g, s, dbl, t);
    kgt_printf(b,
               "    while (y < ye + L * R) { /* up to the last row that a stored row needs */\n"
               "#pragma unroll\n"
               "        for (int u = 0; u < U; u++, y++) {\n"
               "            %s(*s)[SW] = sh[u & 1];\n",
               ty);
    emit_ring(b, dbl, t);
    emit_next_row(b, g, s, dbl);
    for (int k = 1; k <= t->lv; k++) emit_step(b, s, dbl, t, k);
    kgt_printf(b, "        }\n"
                  "    }\n"
                  "}\n\n");
}
