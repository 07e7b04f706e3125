/*
 * The streaming kernels' launches (kgt_rt.h): the cells a launch may read, and the arguments and
 * grid of a box, for the 2D kernels (emit_stream.c) and the 3D ones (emit_stream3.c).
 */
#include <string.h>

#include "kgt_rt.h"

enum {
    STREAM_WAVES = 8,    /* blocks a launch aims at per resident block slot (kgt_stream_plan) */
    STREAM_BLOCKS = 8192 /* blocks it aims at when the slots are not known */
};

/*
 * The rows the kernel may read, per dimension [*a, *e): the cells whose value at level k the
 * stored ones need, from level L down to 0 (the input). Level L - 1 on the box grown by the
 * extents (as the two-level launcher); below that, a live cell needs its neighbours, a cell
 * outside live only itself.
 */
static void readable(const kgt_stream_info *t, int d, long lo, long hi, long llo, long lhi, long *a,
                     long *e)
{
    long nl = lo - t->elo[d], nh = hi + t->ehi[d];
    for (int k = t->levels - 1; k >= 1; k--) {
        const long ll = nl > llo ? nl : llo, lh = nh < lhi ? nh : lhi;
        if (ll < lh && ll - t->elo[d] < nl) nl = ll - t->elo[d];
        if (ll < lh && lh + t->ehi[d] > nh) nh = lh + t->ehi[d];
    }
    *a = nl, *e = nh;
}

static long clampl(long v, long lo, long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int kgt_stream_dim(const kgt_stream_info *t, int d, long lo, long hi, long llo, long lhi, long *a,
                   long *e, long *vl, long *vh)
{
    if (hi <= lo) return 1;
    readable(t, d, lo, hi, llo, lhi, a, e);
    /* the same live test on every index the kernel compares, [a, e) */
    *vl = clampl(llo, *a, *e);
    *vh = clampl(lhi, *a, *e);
    return *a < -(1L << 30) || *e > (1L << 30); /* int indices in the kernel */
}

int kgt_stream_rows(const kgt_stream_tune *tune)
{
    return tune && tune->h >= 1 && tune->h <= 65535 ? tune->h : 0;
}

/*
 * Rows per block h from hdef down to hmin until the grid has about STREAM_WAVES times as many
 * blocks as fit on the device at once (STREAM_BLOCKS when that is not known): short row walks
 * cost a block its 2LR rows of filling, but few blocks per resident slot leave a long last wave.
 * With four levels of 2d4 fp32 (7 blocks per SM, 924 slots, 83 strips), a box of 2900 x 20480
 * ran fastest with 45 rows of blocks (h = 65, four waves), ahead of 57, 24 and 12
 * (bench/RESULTS.md, out-of-core section).
 */
int kgt_stream_plan(const kgt_stream_info *t, const long *lo, const long *hi, const long *llo,
                    const long *lhi, long s0, long long args[KGT_STREAM_NARGS], long grid[2])
{
    long a[2], e[2], vl[2], vh[2];
    for (int d = 0; d < 2; d++)
        if (kgt_stream_dim(t, d, lo[d], hi[d], llo[d], lhi[d], &a[d], &e[d], &vl[d], &vh[d]))
            return 1;
    if (s0 > (1L << 30)) return 1;
    const long V = t->v, xs = lo[1] - ((lo[1] % V) + V) % V, rows = hi[0] - lo[0];
    const long blocks = t->slots > 0 ? STREAM_WAVES * t->slots : STREAM_BLOCKS;
    const long gx = (hi[1] - xs + t->w - 1) / t->w, want = (blocks + gx - 1) / gx;
    long h = clampl((rows + want - 1) / want, t->hmin, t->hdef);
    if (t->hset > 0) h = t->hset;
    h += (t->u - (h + t->fill) % t->u) % t->u;
    const long gy = (rows + h - 1) / h;
    if (gx > 2147483647L || gy > 65535) return 1;
    const long long v[KGT_STREAM_NARGS] = {lo[0], lo[1], hi[0], hi[1], vl[0], vl[1], vh[0], vh[1],
                                           a[0],  e[0],  a[1],  e[1],  s0,    xs,    h};
    memcpy(args, v, sizeof v);
    grid[0] = gx, grid[1] = gy;
    return 0;
}

int kgt_stream3_plan(const kgt_stream_info *t, const long *lo, const long *hi, const long *llo,
                     const long *lhi, long s0, long s1, long long args[KGT_STREAM3_NARGS],
                     long grid[3])
{
    long a[3], e[3], vl[3], vh[3];
    for (int d = 0; d < 3; d++)
        if (kgt_stream_dim(t, d, lo[d], hi[d], llo[d], lhi[d], &a[d], &e[d], &vl[d], &vh[d]))
            return 1;
    if (s0 > (1L << 30) || s1 > (1L << 30)) return 1;
    const long V = t->xal > t->v ? t->xal : t->v, xs = lo[2] - ((lo[2] % V) + V) % V;
    const long planes = hi[0] - lo[0];
    const long gx = (hi[2] - xs + t->w - 1) / t->w, gy = (hi[1] - lo[1] + t->wy - 1) / t->wy;
    const long want = (2048 + gx * gy - 1) / (gx * gy);
    long h = (planes + want - 1) / want;
    h = h < t->hmin ? t->hmin : h > t->hdef ? t->hdef : h;
    if (t->hset > 0) h = t->hset;
    h += (t->u - (h + t->fill) % t->u) % t->u;
    const long gz = (planes + h - 1) / h;
    if (gx > 2147483647L || gy > 65535 || gz > 65535) return 1;
    const long long v[KGT_STREAM3_NARGS] = {lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], vl[0], vl[1],
                                            vl[2], vh[0], vh[1], vh[2], a[0],  e[0],  a[1],  e[1],
                                            a[2],  e[2],  s0,    s1,    xs,    h};
    memcpy(args, v, sizeof v);
    grid[0] = gx, grid[1] = gy, grid[2] = gz;
    return 0;
}

int kgt_stream_1d(int k, int rlo, int rhi, long esz, long row_cells, long lo, long hi, long llo,
                  long lhi, kgt_rows1d part[3])
{
    const long line = 128 / esz, pl = (long)k * rlo, pr = (long)k * rhi;
    const long cap = (1L << 30) / (row_cells + pl + pr + line); /* the kernels' int indices */
    long a = lo > llo + pl ? lo : llo + pl, n = 0;
    const long e = hi < lhi - pr ? hi : lhi - pr;
    a = (a - pl + line - 1) / line * line + pl; /* rows on 128-byte lines */
    long rows = e > a ? (e - a) / row_cells : 0;
    rows = rows < cap ? rows : cap;
    const long ends[2][2] = {{lo, rows > 0 ? a : lo}, {rows > 0 ? a + rows * row_cells : lo, hi}};
    if (rows > 0)
        part[n++] =
            (kgt_rows1d){a - pl, rows, row_cells, pl, pl + row_cells, 0, pl + row_cells + pr};
    for (int j = 0; j < 2; j++) {
        const long x0 = ends[j][0], x1 = ends[j][1];
        if (x1 <= x0) continue;
        const long base = x0 - pl > 0 ? (x0 - pl) / line * line : 0, w = x1 + pr - base;
        part[n++] = (kgt_rows1d){
            base, 1, (w + line - 1) / line * line, x0 - base, x1 - base, llo - base, lhi - base};
    }
    return (int)n;
}
