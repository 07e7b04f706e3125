/*
 * Regions around a box described per direction (layout.h, sl_dirs_shift): the exact halos of
 * programs over several steps (skel/prog_steps.c). Direction e's part of a region, as offsets
 * from the nearest cell of the box, is a box of offsets itself: q_d in [1, w] where e_d = 1,
 * [-w, -1] where e_d = -1, 0 where e_d = 0; the centre is offset 0 (the box, always in).
 */
#include "layout.h"

/* Direction di's offsets as a box [lo, hi] per dimension; 0 when it holds none. */
static int dir_box(int w[SL_NDIRS][SL_D], int nd, int di, int lo[SL_D], int hi[SL_D])
{
    int e[SL_D] = {di / 9 - 1, di / 3 % 3 - 1, di % 3 - 1};
    for (int d = 0; d < SL_D; d++) {
        if (e[d] && (d >= nd || w[di][d] < 1)) return 0;
        lo[d] = e[d] > 0 ? 1 : e[d] < 0 ? -w[di][d] : 0;
        hi[d] = e[d] > 0 ? w[di][d] : e[d] < 0 ? -1 : 0;
    }
    return 1;
}

/* out gains what a box [lo, hi] of offsets reaches, per direction (the rule of sl_dirs_shift). */
static void add_box(int out[SL_NDIRS][SL_D], int nd, const int lo[SL_D], const int hi[SL_D])
{
    for (int di = 0; di < SL_NDIRS; di++) {
        int e[SL_D] = {di / 9 - 1, di / 3 % 3 - 1, di % 3 - 1}, ok = di != SL_NDIRS / 2;
        for (int d = 0; d < SL_D && ok; d++)
            if (e[d] && (d >= nd || (e[d] > 0 ? hi[d] < 1 : lo[d] > -1))) ok = 0;
        for (int d = 0; d < SL_D && ok; d++) {
            int w = e[d] > 0 ? hi[d] : e[d] < 0 ? -lo[d] : 0;
            if (w > out[di][d]) out[di][d] = w;
        }
    }
}

void sl_dirs_shift(int out[SL_NDIRS][SL_D], int in[SL_NDIRS][SL_D], int nd, const int off[SL_D])
{
    for (int di = 0; di < SL_NDIRS; di++) {
        int lo[SL_D], hi[SL_D];
        if (di != SL_NDIRS / 2 && !dir_box(in, nd, di, lo, hi)) continue;
        if (di == SL_NDIRS / 2)
            for (int d = 0; d < SL_D; d++) lo[d] = hi[d] = 0;
        for (int d = 0; d < SL_D; d++) {
            lo[d] += d < nd ? off[d] : 0;
            hi[d] += d < nd ? off[d] : 0;
        }
        add_box(out, nd, lo, hi);
    }
}

void sl_dirs_bound(int w[SL_NDIRS][SL_D], int nd, int b[SL_D][2])
{
    for (int d = 0; d < SL_D; d++) b[d][0] = b[d][1] = 0;
    for (int di = 0; di < SL_NDIRS; di++) {
        int e[SL_D] = {di / 9 - 1, di / 3 % 3 - 1, di % 3 - 1};
        for (int d = 0; d < nd; d++) {
            int s = e[d] > 0;
            if (e[d] && w[di][d] > b[d][s]) b[d][s] = w[di][d];
        }
    }
}

void sl_dirs_max(int out[SL_NDIRS][SL_D], int in[SL_NDIRS][SL_D])
{
    for (int di = 0; di < SL_NDIRS; di++)
        for (int d = 0; d < SL_D; d++)
            if (in[di][d] > out[di][d]) out[di][d] = in[di][d];
}
