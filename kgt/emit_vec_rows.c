/*
 * The vector-row body of the run-time step kernel (2D and 3D), which kgt's step launchers share;
 * the 2D named vector kernel it grew from is emit_vec.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "kgt.h"

enum { V_X = 2 * KGT_MAX_RADIUS + 4 /* x of a cell relative to the vector: -8 .. 3 + 8 */ };

/*
 * The body of the 2D and 3D step kernels of shape vec with walk (kgt_rt.h, emit_step.c, after
 * its signature). Each thread owns one vector of every row of the block's zc rows (2D) or of its
 * row y through the block's zc planes (3D: the block is bx vectors by `by` rows); the rows (3D:
 * the rows of the planes, at every y offset the stencil reads) roll through a window of
 * registers, positions -elo .. ehi around the output plane, each loaded once: its vector, and the
 * cells of the x neighbours it needs from the neighbouring lanes by shuffles (the lanes at the
 * warp's edges load those cells themselves). In 3D the y neighbours are loads of the rows y - 1,
 * y + 1, ... which the block's other rows bring into L1. Every lane takes the same path; lanes
 * whose vector is not inside the box read clamped cells (below) and store only their cells in
 * the box. al: 16-byte loads and stores (NAME), else element by element (NAME_u). Blocks of many
 * threads walking a few rows or planes, issued along the rows, move memory as a plain copy does
 * (the micro probes probe_vec.cu and probe_vec3.cu; docs/performance-notes.md says where git
 * history keeps them).
 */
enum { R_ROWS = 2 * KGT_MAX_RADIUS + 1 };
typedef unsigned char window[R_ROWS][R_ROWS][V_X]; /* [plane position][y + 8][x] */

/* have[r][y][x]: the window keeps cell (y, x) (y + 8, V_X index) at plane position r (0 = the
   lowest): some point reads it there, or at a lower position it rolls down to. */
static void window_cells(const kgt_stencil *s, int vw, int elo, window have)
{
    memset(have, 0, sizeof(window));
    for (int p = 0; p < s->npts; p++) {
        int o[3];
        kgt_wyx(s, s->pts[p].off, o);
        for (int j = 0; j < vw && s->pts[p].w != 0.0; j++)
            have[o[0] + elo][o[1] + KGT_MAX_RADIUS][j + o[2] + KGT_MAX_RADIUS] = 1;
    }
    for (int r = 1; r < R_ROWS; r++)
        for (int y = 0; y < R_ROWS; y++)
            for (int x = 0; x < V_X; x++) have[r][y][x] |= have[r - 1][y][x];
}

/* Cell x (V_X index) in offsets' names: o0 .. o19 for x - 8 .. x + 11 from the vector. */
static void emit_off(kgt_buf *b, int x)
{
    kgt_printf(b, "o%d", x);
}

/* The register of cell (y, x) at window position r: the name kgt_emit_expr gives it (kgt_temp,
   offsets in the array's own dimensions: 2D (plane, x), 3D (plane, y, x)). */
static void emit_reg(kgt_buf *b, int nd, int r, int y, int x)
{
    const int o[3] = {0, nd == 3 ? y - KGT_MAX_RADIUS : x - KGT_MAX_RADIUS,
                      nd == 3 ? x - KGT_MAX_RADIUS : 0};
    kgt_temp(b, r - KGT_MAX_RADIUS, o);
}

/* At indent ind: rp, the row of plane `row` at y offset y (KGT_MAX_RADIUS: the thread's own),
   and `dst = ` its vector (16 bytes at rp + vo with al, else the vector's cells one by one). */
static void emit_row_vector(kgt_buf *b, int dbl, int al, int row, int y, const char *ind,
                            const char *dst)
{
    kgt_printf(b, "%sconst %s *rp = ip + %d * s0", ind, kgt_types[dbl].name, row);
    if (y != KGT_MAX_RADIUS) kgt_printf(b, " + %d * s1", y - KGT_MAX_RADIUS);
    kgt_printf(b, ";\n%s%s = ", ind, dst);
    if (al) {
        kgt_printf(b, "*(const %s *)(rp + vo);\n", kgt_types[dbl].vec);
        return;
    }
    kgt_printf(b, "make_%s(", kgt_types[dbl].vec);
    for (int j = 0; j < kgt_types[dbl].vw; j++) {
        kgt_printf(b, "%srp[", j ? ", " : "");
        emit_off(b, j + KGT_MAX_RADIUS);
        kgt_printf(b, "]");
    }
    kgt_printf(b, ");\n");
}

/* At indent ind, the guard of the lanes at the warp's edge that load a cell k vectors away
   themselves (no neighbouring lane holds it). */
static void emit_edge_guard(kgt_buf *b, const char *ind, int k)
{
    if (k < 0)
        kgt_printf(b, "%sif (lane < %d) ", ind, -k);
    else
        kgt_printf(b, "%sif (lane >= KGT_WARP - %d) ", ind, k);
}

/*
 * The prefetched form of 2D float rows: each iteration loads the rows of the next one into
 * staging registers (stage 1: p<y> the vector, e<y>_<x> the cells the warp's edge lanes load)
 * before its arithmetic, and moves them into the window's top position after it (stage 2: the
 * shuffles), so that two rows' loads are in flight instead of one: 2d4 and 2d-diag gained. With
 * split division it holds more registers, and pays only where the stencil reaches one cell, in
 * blocks of 128 threads (2d9); reaching two cells it lost (2d9nc, 2d5asym; bench/RESULTS.md).
 * The plan's prefetch (KGT_TUNE_OFF or
 * KGT_TUNE_ON) forces it off or on, for experiments.
 */
static int vec_prefetch(const kgt_stencil *s, int dbl, int split, int force)
{
    if (s->ndims != 2) return 0;
    if (force == KGT_TUNE_OFF || force == KGT_TUNE_ON) return force == KGT_TUNE_ON;
    return !dbl && (!split || kgt_reach_within(s, 2, 1));
}

static void emit_row_stage(kgt_buf *b, int nd, int dbl, int al, int r, int row, window have,
                           int stage)
{
    int vw = kgt_types[dbl].vw;
    for (int y = 0; y < R_ROWS; y++) {
        int any = 0;
        for (int x = 0; x < V_X; x++) any |= have[r][y][x];
        if (!any) continue;
        if (stage == 0) {
            kgt_printf(b, "    %s p%d = make_%s(0%s);\n", kgt_types[dbl].vec, y, kgt_types[dbl].vec,
                       dbl ? ", 0" : ", 0, 0, 0");
            for (int x = 0; x < V_X; x++)
                if (have[r][y][x] && kgt_floordiv(x - KGT_MAX_RADIUS, vw))
                    kgt_printf(b, "    %s e%d_%d = 0;\n", kgt_types[dbl].name, y, x);
            continue;
        }
        kgt_printf(b, "            {\n");
        if (stage == 1) {
            char p[16];
            snprintf(p, sizeof p, "p%d", y);
            emit_row_vector(b, dbl, al, row, y, "                ", p);
        }
        for (int x = 0; x < V_X; x++) {
            if (!have[r][y][x]) continue;
            int xpos = x - KGT_MAX_RADIUS, k = kgt_floordiv(xpos, vw), c = xpos - k * vw;
            if (stage == 1) {
                if (!k) continue;
                emit_edge_guard(b, "                ", k);
                kgt_printf(b, "e%d_%d = rp[", y, x);
                emit_off(b, x);
                kgt_printf(b, "];\n");
                continue;
            }
            kgt_printf(b, "                ");
            emit_reg(b, nd, r, y, x);
            if (!k) {
                kgt_printf(b, " = p%d.%c;\n", y, "xyzw"[c]);
                continue;
            }
            kgt_printf(b, " = KGT_SHFL(p%d.%c, lane %c %d);\n", y, "xyzw"[c], k < 0 ? '-' : '+',
                       abs(k));
            emit_edge_guard(b, "                ", k);
            emit_reg(b, nd, r, y, x);
            kgt_printf(b, " = e%d_%d;\n", y, x);
        }
        kgt_printf(b, "            }\n");
    }
}

/* Loads the rows of plane `row` from the pointer ip into window position r: one vector per y
   offset the window keeps there. */
static void emit_row_load(kgt_buf *b, int nd, int dbl, int al, int r, int row, window have)
{
    int vw = kgt_types[dbl].vw;
    for (int y = 0; y < R_ROWS; y++) {
        int any = 0;
        for (int x = 0; x < V_X; x++) any |= have[r][y][x];
        if (!any) continue;
        char v[32];
        snprintf(v, sizeof v, "const %s V", kgt_types[dbl].vec);
        kgt_printf(b, "        {\n");
        emit_row_vector(b, dbl, al, row, y, "            ", v);
        for (int x = 0; x < V_X; x++) {
            if (!have[r][y][x]) continue;
            int xpos = x - KGT_MAX_RADIUS, k = kgt_floordiv(xpos, vw), c = xpos - k * vw;
            kgt_printf(b, "            ");
            emit_reg(b, nd, r, y, x);
            if (!k) {
                kgt_printf(b, " = V.%c;\n", "xyzw"[c]);
                continue;
            }
            kgt_printf(b, " = KGT_SHFL(V.%c, lane %c %d);\n", "xyzw"[c], k < 0 ? '-' : '+', abs(k));
            emit_edge_guard(b, "            ", k);
            emit_reg(b, nd, r, y, x);
            kgt_printf(b, " = rp[");
            emit_off(b, x);
            kgt_printf(b, "];\n");
        }
        kgt_printf(b, "        }\n");
    }
}

void kgt_emit_vec_step_body(kgt_buf *b, const kgt_stencil *s, int dbl, int bx, int by, int unroll,
                            int al, int prefetch, int split, float rd)
{
    int lo[KGT_MAX_DIMS], hi[KGT_MAX_DIMS];
    kgt_extents(s, lo, hi); /* planes: elo below, ehi above; x: rlo, rhi */
    const int nd = s->ndims, vw = kgt_types[dbl].vw, elo = lo[0], ehi = hi[0], rlo = lo[nd - 1],
              rhi = hi[nd - 1];
    window have;
    char wrap[40];
    window_cells(s, vw, elo, have);
    /* ok: the vector is inside the box. Every cell a lane reads lies in the rows' readable part
       [x0 - rlo, x1 - 1 + rhi] or is clamped into it (offsets o<x> from the vector); with 16-byte
       accesses, the rows start on whole vectors, so a vector touching that part is readable
       whole and a lane whose vector lies beyond it reads the nearest such one (vo). Lanes store
       only their cells in the box; warps wholly outside the box leave (a warp is one row: bx is
       a multiple of the warp). */
    kgt_printf(b,
               "    const int x = xa + ((int)blockIdx.x * %d + (int)threadIdx.x) * %d;\n"
               "    const int zs = z0 + (int)blockIdx.z * zc, h0 = zs + zc < z1 ? zs + zc : z1;\n"
               "    const int lane = (int)(threadIdx.x %% KGT_WARP), xw = x - lane * %d;\n",
               bx, vw, vw);
    if (nd == 3)
        kgt_printf(b,
                   "    const int y = y0 + (int)blockIdx.y * %d + (int)threadIdx.y;\n"
                   "    if (y >= y1) return;\n",
                   by);
    else
        kgt_printf(b, "    (void)y0; (void)y1; (void)s1;\n");
    kgt_printf(b,
               "    if (zs >= h0 || xw >= x1 + %d || xw + KGT_WARP * %d <= x0 - %d) return;\n"
               "    const int ok = x >= x0 && x + %d <= x1;\n"
               "    const %s *ip = in + zs * s0%s + x;\n"
               "    %s *op = out + zs * s0%s + x;\n",
               rhi, vw, rlo, vw, kgt_types[dbl].name, nd == 3 ? " + y * s1" : "",
               kgt_types[dbl].name, nd == 3 ? " + y * s1" : "");
    for (int x = 0; x < V_X; x++) {
        int in_v = x >= KGT_MAX_RADIUS && x < KGT_MAX_RADIUS + vw, used = !al && in_v;
        for (int r = 0; r < R_ROWS; r++)
            for (int y = 0; y < R_ROWS; y++) used |= have[r][y][x] && !in_v;
        if (!used) continue;
        kgt_printf(b, "    const int ");
        emit_off(b, x);
        kgt_printf(b, " = KGT_CLAMP(x + %d, x0 - %d, x1 - 1 + %d) - x;\n", x - KGT_MAX_RADIUS, rlo,
                   rhi);
    }
    if (al)
        kgt_printf(
            b,
            "    const int vo = KGT_CLAMP(x, (x0 - %d) / %d * %d, (x1 - 1 + %d) / %d * %d) - x;\n",
            rlo, vw, vw, rhi, vw, vw);
    for (int r = 0; r <= elo + ehi; r++)
        for (int y = 0; y < R_ROWS; y++)
            for (int x = 0; x < V_X; x++)
                if (have[r][y][x]) {
                    kgt_printf(b, "    %s ", kgt_types[dbl].name);
                    emit_reg(b, nd, r, y, x);
                    kgt_printf(b, ";\n");
                }
    const int pf = vec_prefetch(s, dbl, split, prefetch), top = elo + ehi;
    /* the planes below the first output plane's top one (prefetched: that one too) */
    for (int r = 0; r < top + pf; r++) emit_row_load(b, nd, dbl, al, r, r - elo, have);
    if (pf) emit_row_stage(b, nd, dbl, al, top, ehi + 1, have, 0);
    kgt_printf(b, "    KGT_UNROLL(%d)\n    for (int i = zs; i < h0; i++, ip += s0, op += s0) {\n",
               unroll);
    if (pf) {
        kgt_printf(b, "        if (i + 1 < h0) {\n");
        emit_row_stage(b, nd, dbl, al, top, ehi + 1, have, 1);
        kgt_printf(b, "        }\n");
    } else
        emit_row_load(b, nd, dbl, al, top, ehi, have);
    kgt_printf(b, "        {\n            %s r;\n", kgt_types[dbl].vec);
    kgt_stencil sum = *s;
    if (split) sum.divisor = 1.0; /* the sums; split division below */
    for (int j = 0; j < vw; j++) {
        /* the window's position 0 is the output plane's -elo: walk elo - 8 names
           v<elo + o0>_<x>_8 (2D), v<elo + o0>_<y>_<x> (3D) */
        kgt_index ix = {"in", "c", {NULL, NULL, NULL}, kgt_wrap(wrap, 16), 1, elo - KGT_MAX_RADIUS,
                        j,    1};
        kgt_printf(b, "            r.%c = ", "xyzw"[j]);
        kgt_emit_expr(b, &sum, dbl, &ix);
        kgt_printf(b, ";\n");
    }
    if (split) { /* kgt_emit_split_quotients. Prefetched rows (2d9) take its second range test
                    (retest: no compare or select a quotient), faster than the first in blocks of
                    256. Else, in 2D, cells outside the box divide 1; in 3D they divide their sums
                    (of clamped cells) too, and a lane whose sum leaves the split range divides by
                    `/`: only lanes at the box's edges. Without the guard's compares and select 3d7
                    gained and 2d9 lost; the second test lost 2d9nc and did not help 3d7
                    (bench/RESULTS.md). */
        kgt_split_cell c[4];
        for (int j = 0; j < vw; j++) {
            snprintf(c[j].dst, sizeof c[j].dst, "q.%c", "xyzw"[j]);
            if (nd == 3)
                c[j].in[0] = 0;
            else
                snprintf(c[j].in, sizeof c[j].in, "x + %d >= x0 && x + %d < x1", j, j);
            snprintf(c[j].num, sizeof c[j].num, "r.%c", "xyzw"[j]);
        }
        kgt_printf(b, "            {\n                float4 q;\n");
        kgt_emit_split_quotients(b, vw, c, s->divisor, rd, pf);
        kgt_printf(b, "                r = q;\n            }\n");
    }
    kgt_printf(b, "            if (ok)\n");
    if (al)
        kgt_printf(b, "                *(%s *)op = r;\n", kgt_types[dbl].vec);
    else
        kgt_printf(b, "                %s(op, r);\n", dbl ? "KGT_VST2D" : "KGT_VST4F");
    kgt_printf(b, "            else {\n");
    for (int j = 0; j < vw; j++)
        kgt_printf(b, "                if (x + %d >= x0 && x + %d < x1) op[%d] = r.%c;\n", j, j, j,
                   "xyzw"[j]);
    kgt_printf(b, "            }\n        }\n");
    for (int r = 0; r < elo + ehi; r++) /* roll the window down one plane */
        for (int y = 0; y < R_ROWS; y++)
            for (int x = 0; x < V_X; x++)
                if (have[r][y][x]) {
                    kgt_printf(b, "        ");
                    emit_reg(b, nd, r, y, x);
                    kgt_printf(b, " = ");
                    emit_reg(b, nd, r + 1, y, x);
                    kgt_printf(b, ";\n");
                }
    if (pf) {
        kgt_printf(b, "        if (i + 1 < h0) {\n");
        emit_row_stage(b, nd, dbl, al, top, ehi + 1, have, 2);
        kgt_printf(b, "        }\n");
    }
    kgt_printf(b, "    }\n}\n");
}
