/*
 * One case of the fused k-step program kernels' tests (tests/rtc/test_fuse_emul.c under the CPU
 * emulation, test_progdev.c on a GPU backend's prog_update_k): random levels on an array with
 * halos k times the reach and a cell deeper, per-field boxes shrinking each step by a cell more
 * than the reach (so that what a step reads of any field lies in that field's box of the step
 * before: the kernel's contract), case 1 keeping the low side of dimension 1 as at a fixed face;
 * run() computes the k steps into the job's out and pout; the reference is k one-step calls of
 * kgt's interpreter over the same boxes, the levels rotating through scratch copies. Returns
 * how many elements of the level-k and level-(k - 1) outputs differ bitwise.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_case.h"
#include "prog_tests.h"

long fuse_case(const kgt_prog *p, int dbl, const kgt_prog_fuse *fz, int bc, uint64_t seed,
               fuse_run run, void *ctx)
{
    const int k = fz->k;
    int r[2] = {0, 0};
    for (int f = 0; f < p->nf; f++)
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 2; s++) {
                if (p->f[f].reach[d][s] > r[d]) r[d] = p->f[f].reach[d][s];
                if (p->f[f].preach[d][s] > r[d]) r[d] = p->f[f].preach[d][s];
            }
    /* The vector rows (fz->v) take rows of whole vectors, and rows wide enough for strips of
       32 lanes that lie inside every box (their path without tests). */
    const long n[2] = {37, 71 + 48 * fz->v}, hh[2] = {k * (r[0] + 1) + 1, k * (r[1] + 1) + 1};
    const long ext[2] = {n[0] + 2 * hh[0], n[1] + 2 * hh[1]},
               stride = fz->v ? (ext[1] + 3 + 3) / 4 * 4 : ext[1] + 3;
    const size_t es = dbl ? 8 : 4, nel = (size_t)(ext[0] * stride), bytes = nel * es;
    /* lv[f][0]: level -1, [1]: level 0, [2 + j]: level j + 1 (scratch, level 0's copy) */
    char *lv[KGT_PROG_MAX_FIELDS][2 + KGT_PROG_FUSE_MAX], *out[KGT_PROG_MAX_FIELDS][2];
    char *ref[KGT_PROG_MAX_FIELDS][2];
    fuse_job ea;
    long(*box)[KGT_PROG_MAX_FIELDS][2][2] = ea.box;
    memset(lv, 0, sizeof lv);
    memset(out, 0, sizeof out);
    memset(ref, 0, sizeof ref);
    memset(&ea, 0, sizeof ea);
    prog_rng = seed;
    ea.p = p, ea.dbl = dbl, ea.k = k, ea.bytes = bytes;
    long u[2] = {0, 0}, v[2] = {0, 0};
    for (int f = 0; f < p->nf; f++) {
        for (int l = 0; l < 2 + k; l++) {
            if ((l == 0 && !p->f[f].keeps) || (l >= 2 && p->f[f].coef)) continue;
            lv[f][l] = malloc(bytes);
            ck_assert_ptr_nonnull(lv[f][l]);
            if (l < 2) prog_fill(p, lv[f][l], nel, dbl);
        }
        for (int l = 2; l < 2 + k && !p->f[f].coef; l++) memcpy(lv[f][l], lv[f][1], bytes);
        ea.in[f] = lv[f][1], ea.prev[f] = lv[f][0];
        if (p->f[f].coef) continue;
        for (int o = 0; o < 2; o++) {
            if (o == 1 && !p->f[f].keeps) continue;
            out[f][o] = malloc(bytes);
            ref[f][o] = malloc(bytes);
            ck_assert(out[f][o] && ref[f][o]);
            prog_fill(p, out[f][o], nel, dbl);
            memcpy(ref[f][o], out[f][o], bytes);
        }
        ea.out[f] = out[f][0], ea.pout[f] = out[f][1];
        /* The last step's box (odd fields a cell in along dimension 0), each step before it a
           cell more than the reach wider, so that what a step reads of any field lies in that
           field's box of the step before (the kernel's contract); case 1 keeps the low side of
           dimension 1, as at a fixed face. */
        for (int j = k - 1; j >= 0; j--)
            for (int d = 0; d < 2; d++) {
                long w = (k - 1 - j) * (r[d] + 1), lo = hh[d] + (d == 0 && (f & 1)),
                     hi = hh[d] + n[d] - (d == 0 && (f & 1));
                box[j][f][d][0] = bc == 1 && d == 1 ? lo : lo - w;
                box[j][f][d][1] = hi + w;
            }
        for (int d = 0; d < 2; d++) {
            if (!u[d] || box[k - 1][f][d][0] < u[d]) u[d] = box[k - 1][f][d][0];
            if (box[k - 1][f][d][1] > v[d]) v[d] = box[k - 1][f][d][1];
        }
    }
    ea.origin[0] = ea.origin[1] = -1, ea.t = 2; /* test_progdev opens its backend so */
    ea.stride = stride, ea.n[0] = ext[0], ea.n[1] = ext[1];
    ea.u[0] = u[0], ea.u[1] = u[1];
    for (int q = 0; q < p->npar; q++) ea.par[q] = p->par[q].value * (1 + 0.05 * q);
    long span[2] = {v[0] - u[0], v[1] - u[1]};
    kgt_prog_fuse_grid(p, fz, span, ea.grid);
    ck_assert_int_eq(run(ctx, &ea), 0);
    /* The reference: k one-step calls, level j + 1 from levels j and j - 1 over box[j]. */
    for (int j = 0; j < k; j++) {
        kgt_prog_tile tl;
        memset(&tl, 0, sizeof tl);
        for (int f = 0; f < p->nf; f++) {
            int cl = p->f[f].coef ? 1 : 1 + j;
            tl.in[f] = lv[f][cl];
            tl.prev[f] = p->f[f].keeps ? lv[f][j] : NULL;
            tl.out[f] = p->f[f].coef ? NULL : lv[f][2 + j];
            for (int d = 0; d < 3; d++) {
                tl.stride[f][d] = d == 0 ? stride : 1;
                tl.lo[f][d] = d < 2 && !p->f[f].coef ? box[j][f][d][0] : 0;
                tl.hi[f][d] = d < 2 && !p->f[f].coef ? box[j][f][d][1] : 1;
            }
        }
        tl.origin[0] = ea.origin[0], tl.origin[1] = ea.origin[1], tl.t = ea.t + j;
        for (int q = 0; q < p->npar; q++) tl.par[q] = ea.par[q];
        kgt_prog_eval_tile(p, dbl, &tl);
    }
    long bad = 0;
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        for (long x0 = box[k - 1][f][0][0]; x0 < box[k - 1][f][0][1]; x0++)
            for (long x1 = box[k - 1][f][1][0]; x1 < box[k - 1][f][1][1]; x1++) {
                size_t e = (size_t)(x0 * stride + x1) * es;
                memcpy(ref[f][0] + e, lv[f][1 + k] + e, es);
                if (p->f[f].keeps) memcpy(ref[f][1] + e, lv[f][k] + e, es);
            }
        for (int o = 0; o < 2; o++)
            for (size_t e = 0; ref[f][o] && e < nel; e++)
                if (memcmp(out[f][o] + e * es, ref[f][o] + e * es, es)) {
                    if (!bad)
                        fprintf(stderr,
                                "%s %s k %d tile %dx%d/%d v %d h %d case %d field %s level %s: "
                                "element %zu "
                                "differs\n",
                                p->name, dbl ? "double" : "float", k, fz->tx, fz->ty, fz->nt, fz->v,
                                fz->h, bc, p->f[f].name, o ? "k-1" : "k", e);
                    bad++;
                }
    }
    for (int f = 0; f < p->nf; f++) {
        for (int l = 0; l < 2 + KGT_PROG_FUSE_MAX; l++) free(lv[f][l]);
        for (int o = 0; o < 2; o++) free(out[f][o]), free(ref[f][o]);
    }
    return bad;
}
