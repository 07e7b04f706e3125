/*
 * The run-time CUDA/HIP program kernels (kgt/prog_gpu.c) of every program of the files given
 * (tests/kgt/prog/examples.stencil, tests/rtc/prog_extra.stencil: 1D, 2D and 3D, previous levels,
 * coefficients, reads two cells away and across diagonals), both element types, in kgt's planned
 * shape and every test shape that fits (tests/progdev/prog_tests.h), and the vector-row kernels
 * of the 2D programs (kgt/prog_vec.c) in two shapes, also in their variant of one box for every
 * evolving field (whose entries give every field the first one's box), run on the CPU under an
 * emulation of the CUDA execution model (prog_emu.cc) and compared bitwise, over every element
 * of every output array, with kgt's interpreter of the same step (kgt_prog_eval_tile) on random
 * data. Each entry runs the boxes of several cases: boxes per field that differ and whose edges
 * no tile divides, whole boxes, boxes one cell wide, a field's box empty, a single cell; and the
 * launch starts before the boxes along the last dimension, as the backend's does when it moves
 * to the start of a 128-byte line.
 *
 *   test_prog_emul FILE.stencil...
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul_common.h"
#include "prog_emu.h"
#include "prog_tests.h"

enum { H = 3, NCASES = 5 }; /* halo on every side: the programs reach at most 2 */

/* Field f's box in case bc over the cells [H, H + n) of each dimension. */
static void box_of(const kgt_prog *p, int f, int bc, const long *n, long *lo, long *hi)
{
    int nd = p->ndims, last = -1, nev = 0;
    for (int g = 0; g < p->nf; g++)
        if (!p->f[g].coef) last = g, nev++;
    for (int d = 0; d < nd; d++) {
        lo[d] = H, hi[d] = H + n[d];
        if (bc == 0) { /* odd fields a cell in at dimension 0, even ones two off the last's end */
            if ((f & 1) && d == 0) lo[d]++, hi[d]--;
            if (!(f & 1) && d == nd - 1) hi[d] -= 2;
        } else if (bc == 2) { /* one cell wide: dimension 0 for even fields, the last for odd */
            int thin = (f & 1) ? nd - 1 : 0;
            if (d == thin) lo[d] = H + 4, hi[d] = H + 5;
        } else if (bc == 3 && f == last && nev > 1) { /* the last evolving field: empty */
            hi[d] = lo[d];
        } else if (bc == 4) { /* a single cell */
            lo[d] = H + 1, hi[d] = H + 2;
        }
    }
}

static char *alloc64(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) ? NULL : p;
}

/* Entry i in case bc: differing elements (0: bitwise equal everywhere). */
static long run_case(int i, int bc)
{
    const char *name;
    int dbl, shape[3], plan, vec;
    emu_prog_entry(i, &name, &dbl, shape, &plan, &vec);
    const kgt_prog *p = emul_find_prog(name);
    ck_assert_ptr_nonnull(p);
    static const long sizes[4][3] = {{0}, {203}, {41, 133}, {9, 19, 37}};
    const int nd = p->ndims;
    const size_t es = dbl ? 8 : 4;
    long stride[3] = {1, 1, 1}, ext[3] = {1, 1, 1};
    for (int d = 0; d < nd; d++) ext[d] = sizes[nd][d] + 2 * H;
    if (nd > 1) stride[nd - 2] = (ext[nd - 1] + 5 + 3) / 4 * 4; /* padded rows of whole vectors */
    if (nd > 2) stride[0] = ext[1] * stride[1];
    size_t nel = (size_t)(ext[0] * (nd > 1 ? stride[0] : 1)), bytes = nel * es;
    emu_prog_args ea;
    kgt_prog_tile tl;
    char *mem[3][KGT_PROG_MAX_FIELDS], *got[KGT_PROG_MAX_FIELDS];
    memset(&ea, 0, sizeof ea);
    memset(&tl, 0, sizeof tl);
    memset(mem, 0, sizeof mem);
    memset(got, 0, sizeof got);
    prog_rng = 1234567 + 7919 * (uint64_t)i + 104729 * (uint64_t)bc;
    long u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    int any = 0, f0 = 0; /* vec 2: every evolving field has the first one's box */
    while (p->f[f0].coef) f0++;
    for (int f = 0; f < p->nf; f++) {
        for (int k = 0; k < 3; k++) {
            if ((k == 1 && !p->f[f].keeps) || (k == 2 && p->f[f].coef)) continue;
            mem[k][f] = alloc64(bytes); /* rows of 16-byte vectors */
            ck_assert_ptr_nonnull(mem[k][f]);
            prog_fill(p, mem[k][f], nel, dbl);
        }
        if (!p->f[f].coef) {
            got[f] = alloc64(bytes);
            ck_assert_ptr_nonnull(got[f]);
            memcpy(got[f], mem[2][f], bytes);
        }
        tl.in[f] = ea.in[f] = mem[0][f];
        tl.prev[f] = ea.prev[f] = mem[1][f];
        tl.out[f] = mem[2][f];
        ea.out[f] = got[f];
        long lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        if (!p->f[f].coef) box_of(p, vec == 2 ? f0 : f, bc, sizes[nd], lo, hi);
        int empty = 0;
        for (int d = 0; d < nd; d++) empty |= hi[d] <= lo[d];
        for (int d = 0; d < 3; d++) {
            tl.stride[f][d] = ea.stride[f][d] = stride[d];
            tl.lo[f][d] = ea.lo[f][d] = lo[d];
            tl.hi[f][d] = ea.hi[f][d] = empty ? lo[d] : hi[d];
        }
        if (p->f[f].coef || empty) continue;
        for (int d = 0; d < nd; d++) {
            if (!any || lo[d] < u[d]) u[d] = lo[d];
            if (!any || hi[d] > v[d]) v[d] = hi[d];
        }
        any = 1;
    }
    ck_assert(any);
    for (int d = 0; d < nd; d++) tl.origin[d] = ea.origin[d] = 10 * d - 1;
    tl.t = ea.t = 4;
    for (int k = 0; k < p->npar; k++) tl.par[k] = ea.par[k] = p->par[k].value * (1 + 0.1 * k);
    /* The backend starts x at a line of field 0: here a few cells before the box. */
    u[nd - 1] -= (i + bc) % 4;
    unsigned grid[3];
    if (vec) { /* from a whole vector; u[2] the end row */
        kgt_prog_vec vv = {shape[0], shape[2], shape[1], vec == 2};
        u[1] -= u[1] % vv.v;
        long n[3] = {v[0] - u[0], v[1] - u[1], 1};
        kgt_prog_vec_grid(&vv, n, grid);
        u[2] = v[0];
    } else {
        long n[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
        kgt_prog_shape sh = {shape[0], shape[1], shape[2]};
        kgt_prog_gpu_grid(nd, &sh, n, grid);
    }
    emu_prog_launch(i, &ea, u, grid);
    kgt_prog_eval_tile(p, dbl, &tl);
    long bad = 0;
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        for (size_t e = 0; e < nel; e++)
            if (memcmp(got[f] + e * es, mem[2][f] + e * es, es)) {
                if (!bad)
                    fprintf(stderr, "%s %s %dx%dx%d case %d field %s: element %zu differs\n", name,
                            dbl ? "double" : "float", shape[0], shape[1], shape[2], bc,
                            p->f[f].name, e);
                bad++;
            }
    }
    for (int f = 0; f < p->nf; f++) {
        for (int k = 0; k < 3; k++) free(mem[k][f]);
        free(got[f]);
    }
    return bad;
}

/* Each case; entry 0 also checks that every program has its plan's kernel. */
START_TEST(entry)
{
    for (int bc = 0; bc < NCASES; bc++) ck_assert_int_eq(run_case(_i, bc), 0);
    if (_i) return;
    int planned = 0;
    for (int i = 0; i < emu_prog_count(); i++) {
        const char *name;
        int dbl, shape[3], plan, vec;
        emu_prog_entry(i, &name, &dbl, shape, &plan, &vec);
        planned += plan;
    }
    ck_assert_int_eq(planned, 2 * emul_nprogs());
}
END_TEST

int main(int argc, char **argv)
{
    return emul_main(argc, argv, "prog-emul", entry, emu_prog_count());
}
