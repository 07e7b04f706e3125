/*
 * The fused k-step 2D program kernels (kgt/prog_fuse.c) of every 2D program of the files given,
 * both element types, k = 1..KGT_PROG_FUSE_MAX, in small tiles that no box divides and in the
 * plan's, run on the CPU under an emulation of the CUDA execution model (prog_emu.cc: a thread
 * per GPU thread, barriers), against k one-step calls of kgt's interpreter (kgt_prog_eval_tile)
 * over the same boxes, levels rotating through scratch copies: bitwise over every element of
 * the level-k and level-(k - 1) outputs. Random data; boxes shrinking each step, per field
 * different, and one case with a side that does not shrink, as at a fixed face.
 *
 *   test_fuse_emul FILE.stencil...
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul_common.h"
#include "prog_emu.h"
#include "prog_tests.h"

enum { NCASES = 2 };

/* Entry i in case bc: differing elements. */
static long run_case(int i, int bc)
{
    const char *name;
    int dbl, fz[4];
    emu_fuse_entry(i, &name, &dbl, fz);
    const kgt_prog *p = emul_find_prog(name);
    ck_assert_ptr_nonnull(p);
    const int k = fz[0];
    int r[2] = {0, 0};
    for (int f = 0; f < p->nf; f++)
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 2; s++) {
                if (p->f[f].reach[d][s] > r[d]) r[d] = p->f[f].reach[d][s];
                if (p->f[f].preach[d][s] > r[d]) r[d] = p->f[f].preach[d][s];
            }
    const long n[2] = {37, 71}, hh[2] = {k * (r[0] + 1) + 1, k * (r[1] + 1) + 1};
    const long ext[2] = {n[0] + 2 * hh[0], n[1] + 2 * hh[1]}, stride = ext[1] + 3;
    const size_t es = dbl ? 8 : 4, nel = (size_t)(ext[0] * stride), bytes = nel * es;
    /* lv[f][0]: level -1, [1]: level 0, [2 + j]: level j + 1 (scratch, level 0's copy) */
    char *lv[KGT_PROG_MAX_FIELDS][2 + KGT_PROG_FUSE_MAX], *out[KGT_PROG_MAX_FIELDS][2];
    char *ref[KGT_PROG_MAX_FIELDS][2];
    emu_fuse_args ea;
    long box[KGT_PROG_FUSE_MAX][KGT_PROG_MAX_FIELDS][2][2];
    memset(lv, 0, sizeof lv);
    memset(out, 0, sizeof out);
    memset(ref, 0, sizeof ref);
    memset(&ea, 0, sizeof ea);
    prog_rng = 4242 + 131 * (uint64_t)i + 17 * (uint64_t)bc;
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
                ea.box[j][f][d][0] = (int)box[j][f][d][0];
                ea.box[j][f][d][1] = (int)box[j][f][d][1];
            }
        for (int d = 0; d < 2; d++) {
            if (!u[d] || box[k - 1][f][d][0] < u[d]) u[d] = box[k - 1][f][d][0];
            if (box[k - 1][f][d][1] > v[d]) v[d] = box[k - 1][f][d][1];
        }
    }
    ea.origin[0] = -3, ea.origin[1] = 5, ea.t = 2;
    ea.stride = (int)stride, ea.n[0] = (int)ext[0], ea.n[1] = (int)ext[1];
    ea.u[0] = (int)u[0], ea.u[1] = (int)u[1];
    for (int q = 0; q < p->npar; q++) ea.par[q] = p->par[q].value * (1 + 0.05 * q);
    kgt_prog_fuse fzz = {fz[0], fz[1], fz[2], fz[3]};
    long span[2] = {v[0] - u[0], v[1] - u[1]};
    unsigned grid[3];
    kgt_prog_fuse_grid(&fzz, span, grid);
    ck_assert_int_eq(emu_fuse_launch(i, &ea, grid), 0);
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
                                "%s %s k %d tile %dx%d/%d case %d field %s level %s: element %zu "
                                "differs\n",
                                name, dbl ? "double" : "float", k, fz[1], fz[2], fz[3], bc,
                                p->f[f].name, o ? "k-1" : "k", e);
                    bad++;
                }
    }
    for (int f = 0; f < p->nf; f++) {
        for (int l = 0; l < 2 + KGT_PROG_FUSE_MAX; l++) free(lv[f][l]);
        for (int o = 0; o < 2; o++) free(out[f][o]), free(ref[f][o]);
    }
    return bad;
}

START_TEST(entry)
{
    for (int bc = 0; bc < NCASES; bc++) ck_assert_int_eq(run_case(_i, bc), 0);
}
END_TEST

int main(int argc, char **argv)
{
    return emul_main(argc, argv, "fuse-emul", entry, emu_fuse_count());
}
