/*
 * The run-time 3D streaming kernels (kgt/emit_stream3.c) of every 3D stencil of the
 * docs/STENCILS.md set and of tests/kgt/fused.stencil that has them, both element types: star
 * stencils at L = 1..KGT_STREAM_MAX, box stencils (diagonal points) at L = 1 and, by partial
 * sums, at L = 2..KGT_STREAM_MAX, one step (and the partial sums' steps) in the default block
 * shape too, scalar and vector rows, run on the CPU under an emulation of the CUDA
 * execution model with warp shuffles (stream3_emu.cc), against L steps of the serial reference:
 * bitwise inside the box, untouched outside it. Boxes with blocks that take the path without tests,
 * boxes over the frame of fixed boundaries, live cells ending inside the box, a tiny box; the input
 * NaN outside the cells kgt_stream3_plan says the kernels read.
 *
 *   test_stream3_emul FILE.stencil...   (the files stream3_gen read)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "emul_common.h"

int emu3_count(void);
void emu3_entry_info(int i, const char **name, int *dbl, int *levels, int *ny, int *by);
int emu3_block(int i, int vec, const void *in, void *out, const long long *args, unsigned bx,
               unsigned by, unsigned bz);

typedef emul_case box3;

/* Cells that differ from the reference (bitwise) after one launch of entry i. */
static long run_case(int i, int vec, const kgt_stencil *ks, int dbl, int levels,
                     const kgt_stream_info *info, const box3 *c0, unsigned long seed)
{
    /* Reaches past 1 read beyond the smaller cases' arrays: those grow by a margin each side. */
    box3 grown = *c0;
    const box3 *c = c0;
    const long m = (long)(levels + 1) * info->r;
    if (info->r > 1) {
        for (int d = 0; d < 3; d++) {
            grown.n[d] += 2 * m;
            grown.lo[d] += m, grown.hi[d] += m, grown.llo[d] += m, grown.lhi[d] += m;
        }
        c = &grown;
    }
    stencil_desc st;
    emul_desc(ks, dbl, &st);
    long long args[KGT_STREAM3_NARGS];
    long grid[3];
    const long s1 = c->n[2], s0 = c->n[1] * s1;
    ck_assert_int_eq(kgt_stream3_plan(info, c->lo, c->hi, c->llo, c->lhi, s0, s1, args, grid), 0);
    /* the cells the kernels may read: [a0, b0) x [a1, b1) x [a2, b2) */
    long a[3], b[3];
    for (int d = 0; d < 3; d++) a[d] = (long)args[12 + 2 * d], b[d] = (long)args[13 + 2 * d];
    void *in, *out, *ref;
    size_t bytes;
    emul_arrays(&st, c, a, b, levels, seed, &in, &out, &ref, &bytes);
    for (long bz = 0; bz < grid[2]; bz++)
        for (long by = 0; by < grid[1]; by++)
            for (long bx = 0; bx < grid[0]; bx++)
                ck_assert_int_eq(
                    emu3_block(i, vec, in, out, args, (unsigned)bx, (unsigned)by, (unsigned)bz), 0);
    long bad = emul_compare(&st, in, out, ref, bytes);
    free((void *)st.weights);
    return bad;
}

/* A box of several blocks along every dimension (inner ones without tests), the box of a fixed
   frame, live cells ending inside the box, a tiny box. */
static const box3 cases[] = {
    {{80, 30, 140}, {3, 3, 3}, {77, 27, 137}, {1, 1, 1}, {79, 29, 139}},
    {{50, 20, 70}, {1, 1, 1}, {49, 19, 69}, {1, 1, 1}, {49, 19, 69}},
    {{40, 30, 80}, {2, 3, 5}, {38, 27, 75}, {10, 8, 20}, {30, 22, 60}},
    {{13, 11, 15}, {5, 5, 5}, {8, 8, 10}, {1, 1, 1}, {12, 10, 14}},
};
enum { NCASES = sizeof cases / sizeof *cases };

START_TEST(stream3_kernel)
{
    const char *name;
    int dbl, levels, ny, by;
    emu3_entry_info(_i, &name, &dbl, &levels, &ny, &by);
    const kgt_stencil *ks = emul_find(name);
    ck_assert_ptr_nonnull(ks);
    kgt_stream_tune tune = {0, ny, by};
    kgt_stream_info info;
    char *src = kgt_rt_gpu_stream(ks, dbl, levels, &tune, &info);
    ck_assert_ptr_nonnull(src);
    free(src);
    ck_assert(info.ny == ny && info.by == by);
    /* the slowest to run: the default shape on the first case alone, L >= 3 without it */
    const int c0 = by <= 4 && levels >= 3, ncases = by > 4 ? 1 : NCASES;
    for (int c = c0; c < ncases; c++)
        for (int vec = 0; vec <= (info.v > 1); vec++) {
            long bad = run_case(_i, vec, ks, dbl, levels, &info, &cases[c],
                                4242u + (unsigned long)(_i * 8 + c));
            ck_assert_msg(
                bad == 0, "%s %s, %d steps, shape %d,%d, case %d, %s rows: %ld cells differ", name,
                dbl ? "double" : "float", levels, ny, by, c, vec ? "vector" : "scalar", bad);
        }
}
END_TEST

int main(int argc, char **argv)
{
    return emul_main(argc, argv, "stream3_emul", stream3_kernel, emu3_count());
}
