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

#include "kgt_rt.h"

enum {
    SB = 128,       /* threads per block (the study's best) */
    STREAM_MIN = 64 /* rows and columns a box needs for the streaming kernel (emit_fused.c) */
};

/* The shape of one streaming kernel. */
typedef struct shape {
    int lv;         /* levels: time steps per launch */
    int r, v;       /* window radius; columns per thread */
    int hp, pad, u; /* columns not stored each side; ring padding; unrolled rows */
    int hdef, hmin; /* rows per block: at most, at least (h + 2LR a multiple of u) */
    int elo[KGT_MAX_DIMS], ehi[KGT_MAX_DIMS]; /* extents of the non-zero weights */
    int split;                                /* float split division by rd (split.c) */
    float rd;
    int box;  /* off-axis weights: the edge ring of every window row (emit_walk_box) */
    int fill; /* rows a block walks besides its own: 2LR, box 2LR + L - 1 */
    int pt;   /* box: ring threads of padding each side */
} shape;

/* float: 2 columns per thread (the study's best at radius 2); double: 1 (the same registers). */
static shape make_shape(const kgt_stencil *s, int dbl, int levels)
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
static void emit_enum(kgt_buf *b, const shape *t)
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
static void emit_load(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
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
    emit_enum(b, t);
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
static void emit_walk(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
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

/*
 * Block (bx, by): loaded columns [x0, x0 + B*V), x0 = xs + bx*W - HP (xs: lo1 rounded down to a
 * vector); stored columns [x0 + HP, x0 + HP + W) within [lo1, hi1); output rows
 * [lo0 + by*h, +h) within [lo0, hi0). VEC: rows and arrays allow vector accesses.
 */
/* The ring and its zeros (star: the padding; box: every slot, a thread its own elements, so
   no barrier is needed before the walk writes them); the rows the walk loads up to. */
static void emit_ring_decl(kgt_buf *b, int dbl, const shape *t)
{
    const char *ty = kgt_types[dbl].name;
    if (!t->box) {
        kgt_printf(
            b,
            "    __shared__ __align__(16) %s sh[2][L][SW];\n"
            "    const int tid = threadIdx.x;\n"
            "    const KGT_IX x0 = xs + (KGT_IX)blockIdx.x * W - HP;\n"
            "    const KGT_IX ys = lo0 + (KGT_IX)blockIdx.y * h, ye = ys + h < hi0 ? ys + h "
            ": hi0;\n"
            "    if (tid < PAD) /* read only by columns that are not stored */\n"
            "        for (int p = 0; p < 2 * L; p++) sh[p / L][p %% L][tid] = "
            "sh[p / L][p %% L][SW - 1 - tid] = 0;\n"
            "    /* step k < L is used on rows [ys - (L - k)R, ye + (L - k)R) and all loaded "
            "columns;\n"
            "       rows are loaded from ys - LR up to the end of the last unrolled "
            "iteration */\n"
            "    const KGT_IX yend = ys - L * R + (ye - ys + 2 * L * R + U - 1) / U * U + "
            "K;\n",
            ty);
        return;
    }
    kgt_printf(b,
               "    __shared__ __align__(16) %s sh[S][L][NE][BP];\n"
               "    const int tid = threadIdx.x;\n"
               "    const KGT_IX x0 = xs + (KGT_IX)blockIdx.x * W - HP;\n"
               "    const KGT_IX ys = lo0 + (KGT_IX)blockIdx.y * h, ye = ys + h < hi0 ? ys + h : "
               "hi0;\n"
               "    /* slots read before the walk writes them, and the padding: rows and columns "
               "no\n       stored cell needs */\n"
               "    for (int p = 0; p < S * L * NE; p++) {\n"
               "        %s *e = &sh[0][0][0][0] + p * BP;\n"
               "        e[PT + tid] = 0;\n"
               "        if (tid < PT) e[tid] = e[BP - 1 - tid] = 0;\n"
               "    }\n"
               "    /* step k < L is used on rows [ys - (L - k)R, ye + (L - k)R) and all loaded "
               "columns;\n"
               "       rows are loaded from ys - LR up to the end of the last unrolled "
               "iteration */\n"
               "    const KGT_IX yend = ys - L * R + (ye - ys + FILL + U - 1) / U * U + K;\n",
               ty, ty);
}

/* The kernel's body after its head; vec: the template parameter VEC, or "0"/"1". */
static void emit_kernel_body(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                             const shape *t, const char *vec)
{
    emit_enum(b, t);
    emit_ring_decl(b, dbl, t);
    kgt_printf(
        b,
        "    const int fast = x0 >= a1 && x0 + B * V <= b1 && x0 >= ll1 && x0 + B * V <= "
        "lh1 &&\n"
        "                     x0 + HP >= lo1 && x0 + HP + W <= hi1 && ys - (L - 1) * R >= ll0 "
        "&&\n"
        "                     ye + (L - 1) * R <= lh0 && ys - L * R >= a0 && yend <= b0;\n"
        "    if (fast)\n"
        "        %s_%s_walk%c<%s, 1>(in, out, x0, ys, ye, lo1, hi1, ll0, ll1, lh0, lh1, "
        "a0, b0, a1, b1,\n"
        "                            s0, sh);\n"
        "    else\n"
        "        %s_%s_walk%c<%s, 0>(in, out, x0, ys, ye, lo1, hi1, ll0, ll1, lh0, lh1, "
        "a0, b0, a1, b1,\n"
        "                            s0, sh);\n"
        "}\n\n",
        g->prefix, s->stem, kgt_types[dbl].suf, vec, g->prefix, s->stem, kgt_types[dbl].suf, vec);
}

/* The kernel's parameters, after its name. */
static void emit_kernel_params(kgt_buf *b, int dbl)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "(const %s *__restrict__ in, %s *__restrict__ out, KGT_IX lo0,\n"
               "    KGT_IX lo1, KGT_IX hi0, KGT_IX hi1, KGT_IX ll0, KGT_IX ll1, KGT_IX lh0, "
               "KGT_IX lh1,\n"
               "    KGT_IX a0, KGT_IX b0, KGT_IX a1, KGT_IX b1, KGT_IX s0, KGT_IX xs, KGT_IX h)"
               "\n{\n",
               ty, ty);
}

static void emit_kernel(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
{
    kgt_printf(b,
               "template <int VEC>\n"
               "static __global__ void __launch_bounds__(%d)\n"
               "    %s_%s_stream_k%c",
               SB, g->prefix, s->stem, kgt_types[dbl].suf);
    emit_kernel_params(b, dbl);
    emit_kernel_body(b, g, s, dbl, t, "VEC");
}

/*
 * The launch: loads clamped to the rectangle [a, b) the caller made valid (the box grown by the
 * extents, and by them again around the live cells of that); rows per block h from hdef down to
 * hmin until the grid has about 2048 blocks: a box of a few strips, or an out-of-core chunk of a
 * few thousand rows, still fills the device with more than one wave of blocks (with 256, a chunk
 * of 2900 rows of 2d4 ran its four-step kernel far slower than in core).
 */
static void emit_launch(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
{
    const char *p = g->prefix, *n = s->stem, *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "static int %s_%s_stream%c(const void *in, void *out, const long *lo, const long "
               "*hi,\n    const long *live_lo, const long *live_hi, long s0, void *queue)\n{\n",
               p, n, kgt_types[dbl].suf);
    emit_enum(b, t);
    kgt_printf(b,
               "    const long elo[2] = {%d, %d}, ehi[2] = {%d, %d};\n"
               "    long a[2], e[2], vl[2], vh[2];\n"
               "    for (int d = 0; d < 2; d++) {\n"
               "        const long l1 = lo[d] - elo[d], h1 = hi[d] + ehi[d];\n"
               "        const long ll = l1 > live_lo[d] ? l1 : live_lo[d];\n"
               "        const long lh = h1 < live_hi[d] ? h1 : live_hi[d];\n"
               "        a[d] = ll < lh && ll - elo[d] < l1 ? ll - elo[d] : l1;\n"
               "        e[d] = ll < lh && lh + ehi[d] > h1 ? lh + ehi[d] : h1;\n"
               "        /* the same live test on every index the kernel compares, [a, e) */\n"
               "        vl[d] = KGT_CLAMP(live_lo[d], a[d], e[d]);\n"
               "        vh[d] = KGT_CLAMP(live_hi[d], a[d], e[d]);\n"
               "        /* KGT_IX int: 32-bit indices in the kernel, 64-bit row products */\n"
               "        if (a[d] < -(1L << 30) || e[d] > (1L << 30)) return 1;\n"
               "    }\n"
               "    if (s0 > (1L << 30)) return 1;\n",
               t->elo[0], t->elo[1], t->ehi[0], t->ehi[1]);
    kgt_printf(b,
               "    const long xs = lo[1] - ((lo[1] %% V) + V) %% V, rows = hi[0] - lo[0];\n"
               "    const long gx = (hi[1] - xs + W - 1) / W, want = (2048 + gx - 1) / gx;\n"
               "    long h = (rows + want - 1) / want;\n"
               "    h = h < %d ? %d : h > %d ? %d : h;\n"
               "    h += (U - (h + %s) %% U) %% U;\n"
               "    const long gy = (rows + h - 1) / h;\n"
               "    if (gx > 2147483647L || gy > 65535) return 1;\n",
               t->hmin, t->hmin, t->hdef, t->hdef, t->box ? "FILL" : "2 * L * R");
    if (t->v > 1)
        kgt_printf(b,
                   "    const int vec = s0 %% V == 0 && (uintptr_t)in %% (V * sizeof(%s)) == 0 &&\n"
                   "                    (uintptr_t)out %% (V * sizeof(%s)) == 0;\n",
                   ty, ty);
    for (int v = t->v > 1; v >= 0; v--)
        kgt_printf(
            b,
            "    %s%s_%s_stream_k%c<%d><<<dim3((unsigned)gx, (unsigned)gy), B, 0,\n"
            "        (kgt_stream)queue>>>((const %s *)in, (%s *)out, (KGT_IX)lo[0], "
            "(KGT_IX)lo[1],\n"
            "        (KGT_IX)hi[0], (KGT_IX)hi[1], (KGT_IX)vl[0], (KGT_IX)vl[1], (KGT_IX)vh[0],\n"
            "        (KGT_IX)vh[1], (KGT_IX)a[0], (KGT_IX)e[0], (KGT_IX)a[1], (KGT_IX)e[1], "
            "(KGT_IX)s0,\n"
            "        (KGT_IX)xs, (KGT_IX)h);\n",
            t->v == 1 ? ""
            : v       ? "if (vec)\n    "
                      : "else\n    ",
            p, n, kgt_types[dbl].suf, v, ty, ty);
    kgt_printf(b, "    return KGT_LAUNCH_FAILED();\n}\n\n");
}

/* Index type of the kernel's rows and columns: int at radius 2, where 64-bit indices cost
   registers and instructions per row (2d9nc gained with int), long at radius 1, where int
   measured slower (2d4); bench/RESULTS.md. */
static const char *index_type(const shape *t)
{
    return t->r >= 2 ? "int" : "long";
}

void kgt_emit_gpu_stream(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    shape t = make_shape(s, dbl, 2); /* the kgt command's launchers take two steps */
    kgt_printf(b,
               "/* Two steps per launch by register streaming (boxes of at least %d rows and "
               "columns):\n   %d threads of %d columns per block, window radius %d. */\n",
               STREAM_MIN, SB, t.v, t.r);
    kgt_printf(b, "#define KGT_IX %s\n", index_type(&t));
    if (t.split) kgt_emit_div_split(b);
    emit_load(b, g, s, dbl, &t);
    emit_walk(b, g, s, dbl, &t);
    emit_kernel(b, g, s, dbl, &t);
    emit_launch(b, g, s, dbl, &t);
    kgt_printf(b, "#undef KGT_IX\n\n");
}

/*
 * The run-time variant (kgt_rt.h): the same walk, and one extern "C" kernel per vector mode,
 * since NVRTC and hiprtc find kernels by name and a template's instances have mangled ones.
 * Symbols of L > 2 levels start with rt<L> (rt for two, as before), so sources of several depths
 * can share a module.
 */
int kgt_emit_gpu_stream_rt(kgt_buf *b, const kgt_stencil *s, int dbl, int levels,
                           const kgt_stream_tune *tune, kgt_stream_info *info)
{
    kgt_gen g;
    char prefix[8];
    memset(&g, 0, sizeof g);
    memset(info, 0, sizeof *info);
    if (!kgt_stream_any(s) || levels < 2 || levels > KGT_STREAM_MAX) return -1;
    snprintf(prefix, sizeof prefix, levels == 2 ? "rt" : "rt%d", levels);
    g.prefix = prefix;
    shape t = make_shape(s, dbl, levels);
    info->levels = levels;
    info->r = t.r, info->v = t.v, info->b = SB, info->w = SB * t.v - 2 * t.hp, info->u = t.u;
    info->hdef = t.hdef, info->hmin = t.hmin, info->min_box = STREAM_MIN, info->fill = t.fill;
    info->hset = kgt_stream_rows(tune);
    info->ix_int = !strcmp(index_type(&t), "int");
    for (int d = 0; d < 2; d++) info->elo[d] = t.elo[d], info->ehi[d] = t.ehi[d];
    kgt_printf(b, "#define KGT_IX %s\n", index_type(&t));
    if (t.split) kgt_emit_div_split(b);
    emit_load(b, &g, s, dbl, &t);
    emit_walk(b, &g, s, dbl, &t);
    for (int v = 0; v <= (t.v > 1); v++) {
        snprintf(info->name[v], sizeof info->name[v], "%s_%s_stream_k%c%d", prefix, s->stem,
                 kgt_types[dbl].suf, v);
        kgt_printf(b, "KGT_EXTERN_C __global__ void __launch_bounds__(%d)\n    %s", SB,
                   info->name[v]);
        emit_kernel_params(b, dbl);
        emit_kernel_body(b, &g, s, dbl, &t, v ? "1" : "0");
    }
    kgt_printf(b, "#undef KGT_IX\n");
    return 0;
}

/*
 * Levels worth running for s: 4 at radius 1, 3 at radius 2, and 3 for float box stencils of more
 * than 6 non-zero weights. Every depth up to KGT_STREAM_MAX compiles without spilling more than
 * 16 bytes (nvcc 13, sm_90), but 2d9nc float ran slower with 4 levels than with 3 (96 registers
 * per thread, 5 blocks per SM); 2d4 gained up to 4, float and double. Box stencils
 * (bench/RESULTS.md): 2d9 float (8 weights) ran faster with 3 levels than with 4 (64 against 77
 * registers: 8 blocks per SM against 6), but 2d-diag float (5 weights) and 2d9 double faster
 * with 4.
 */
int kgt_stream_depth(const kgt_stencil *s, int dbl)
{
    int n = 0;
    if (!kgt_stream_any(s)) return 0;
    for (int p = 0; p < s->npts; p++) n += s->pts[p].w != 0.0;
    if (!dbl && kgt_off_axis(s) && n > 6) return 3;
    return make_shape(s, dbl, 2).r >= 2 ? 3 : 4;
}

int kgt_stream_min(void)
{
    return STREAM_MIN;
}
