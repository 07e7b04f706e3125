/*
 * The run-time L-step streaming kernels (kgt/emit_stream.c: star stencils through the row ring,
 * box stencils through the edge ring) of every 2D stencil of the docs/STENCILS.md set and of
 * tests/kgt/fused.stencil that has them, and of every 1D one in its 2D form on the rows of a view
 * of its array (kgt_stream_1d: the middle on rows, the ends as one-row boxes), both element types,
 * L = 2..KGT_STREAM_MAX, scalar and vector rows, run on the CPU under an emulation of the CUDA
 * execution model (stream_emu.cc), against L steps of the serial reference: bitwise inside the box,
 * untouched outside it. Boxes with and without non-live cells (the frame of fixed boundaries), tiny
 * ones, and the input NaN outside the rectangle kgt_stream_plan says the kernels read.
 *
 *   test_stream_emul FILE.stencil...   (the files stream_gen read)
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emul_common.h"

int emu_stream_count(void);
void emu_stream_entry(int i, const char **name, int *dbl, int *levels);
int emu_stream_block(int i, int vec, int nt, const void *in, void *out, const long long *args,
                     unsigned bx, unsigned by);

typedef emul_case box_case;

/* Cells that differ from the reference (bitwise) after one launch of entry i. */
static long run_case(int i, int vec, const kgt_stencil *ks, const kgt_stream_info *info,
                     const box_case *c0, unsigned long seed)
{
    /* Reaches past 2 read beyond the smaller cases' arrays: those grow by a margin each side. */
    box_case grown = *c0;
    const box_case *c = c0;
    const long m = (long)(info->levels + 1) * KGT_STREAM_REACH;
    if (info->r > 2) {
        for (int d = 0; d < 2; d++) {
            grown.n[d] += 2 * m;
            grown.lo[d] += m, grown.hi[d] += m, grown.llo[d] += m, grown.lhi[d] += m;
        }
        c = &grown;
    }
    const char *name;
    int dbl, levels;
    emu_stream_entry(i, &name, &dbl, &levels);
    stencil_desc st;
    emul_desc(ks, dbl, &st);
    long long args[KGT_STREAM_NARGS];
    long grid[2];
    ck_assert_int_eq(kgt_stream_plan(info, c->lo, c->hi, c->llo, c->lhi, c->n[1], args, grid), 0);
    /* the rectangle the kernels may read: [a0, b0) x [a1, b1) */
    const long a[2] = {(long)args[8], (long)args[10]}, b[2] = {(long)args[9], (long)args[11]};
    void *in, *out, *ref;
    size_t bytes;
    emul_arrays(&st, c, a, b, levels, seed, &in, &out, &ref, &bytes);
    for (long by = 0; by < grid[1]; by++)
        for (long bx = 0; bx < grid[0]; bx++)
            ck_assert_int_eq(
                emu_stream_block(i, vec, info->b, in, out, args, (unsigned)bx, (unsigned)by), 0);
    long bad = emul_compare(&st, in, out, ref, bytes);
    free((void *)st.weights);
    return bad;
}

/*
 * A 1D stencil: k steps over box [lo, hi) of an array of n cells, live [llo, lhi), launched as
 * kgt_stream_1d lays them out (view rows of ROW1 cells), against the serial reference.
 */
enum { ROW1 = 256 };
static long run_case_1d(int i, int vec, const kgt_stencil *ks, const kgt_stream_info *info,
                        const box_case *c, unsigned long seed)
{
    const char *name;
    int dbl, levels;
    emu_stream_entry(i, &name, &dbl, &levels);
    stencil_desc st;
    emul_desc(ks, dbl, &st);
    const long k = levels, a = c->lo[0] - k * ks->rlo[0], b = c->hi[0] + k * ks->rhi[0];
    const long ra[1] = {a > 0 ? a : 0}, rb[1] = {b < c->n[0] ? b : c->n[0]};
    void *in, *out, *ref;
    size_t bytes, esz = dbl ? 8 : 4;
    emul_arrays(&st, c, ra, rb, levels, seed, &in, &out, &ref, &bytes);
    kgt_rows1d p[3];
    int n = kgt_stream_1d(levels, ks->rlo[0], ks->rhi[0], (long)esz, ROW1, c->lo[0], c->hi[0],
                          c->llo[0], c->lhi[0], p);
    for (int j = 0; j < n; j++) {
        const long lo[2] = {0, p[j].lo}, hi[2] = {p[j].rows, p[j].hi};
        const long llo[2] = {0, p[j].llo}, lhi[2] = {p[j].rows, p[j].lhi};
        long long args[KGT_STREAM_NARGS];
        long grid[2];
        ck_assert_int_eq(kgt_stream_plan(info, lo, hi, llo, lhi, p[j].s0, args, grid), 0);
        const char *pi = (const char *)in + (size_t)p[j].base * esz;
        char *po = (char *)out + (size_t)p[j].base * esz;
        for (long by = 0; by < grid[1]; by++)
            for (long bx = 0; bx < grid[0]; bx++)
                ck_assert_int_eq(
                    emu_stream_block(i, vec, info->b, pi, po, args, (unsigned)bx, (unsigned)by), 0);
    }
    long bad = emul_compare(&st, in, out, ref, bytes);
    free((void *)st.weights);
    return bad;
}

/* 1D: the middle on view rows and both ends, the frame inside the box, live cells ending inside
   it, boxes of fewer cells than a row, a tiny one. */
static const box_case cases_1d[] = {
    {{3000}, {40}, {2960}, {1}, {2999}},    {{3000}, {0}, {3000}, {3}, {2997}},
    {{3000}, {100}, {2900}, {500}, {2000}}, {{3000}, {1200}, {1400}, {0}, {3000}},
    {{3000}, {40}, {45}, {0}, {3000}},
};

/* Whole live boxes wide enough for blocks without tests, boxes over the frame, the live cells
   ending inside the box, and a tiny box. */
static const box_case cases[] = {
    {{150, 620}, {12, 12}, {138, 608}, {3, 3}, {147, 617}},
    {{140, 300}, {2, 2}, {138, 298}, {4, 5}, {135, 293}},
    {{131, 277}, {9, 7}, {120, 270}, {30, 100}, {100, 180}},
    {{40, 45}, {14, 15}, {27, 37}, {0, 0}, {40, 45}},
};
enum { NCASES = sizeof cases / sizeof *cases };

START_TEST(stream_kernel)
{
    const char *name;
    int dbl, levels;
    emu_stream_entry(_i, &name, &dbl, &levels);
    const kgt_stencil *ks = emul_find(name);
    ck_assert_ptr_nonnull(ks);
    kgt_stream_info info;
    kgt_stencil form;
    ck_assert_int_eq(kgt_stream_form(ks, ks->name, &form), 0);
    char *src = kgt_rt_gpu_stream(&form, dbl, levels, NULL, &info);
    kgt_stencil_clear(&form);
    ck_assert_ptr_nonnull(src);
    free(src);
    for (int c = 0; ks->ndims == 1 && c < (int)(sizeof cases_1d / sizeof *cases_1d); c++)
        for (int vec = 0; vec <= (info.v > 1); vec++) {
            long bad = run_case_1d(_i, vec, ks, &info, &cases_1d[c], 77u + (unsigned long)c);
            ck_assert_msg(bad == 0, "%s %s, %d steps, 1D case %d, %s rows: %ld cells differ", name,
                          dbl ? "double" : "float", levels, c, vec ? "vector" : "scalar", bad);
        }
    for (int c = 0; ks->ndims == 2 && c < NCASES; c++)
        for (int vec = 0; vec <= (info.v > 1); vec++) {
            long bad = run_case(_i, vec, ks, &info, &cases[c], 4242u + (unsigned long)(_i * 8 + c));
            ck_assert_msg(bad == 0, "%s %s, %d steps, case %d, %s rows: %ld cells differ", name,
                          dbl ? "double" : "float", levels, c, vec ? "vector" : "scalar", bad);
        }
}
END_TEST

int main(int argc, char **argv)
{
    return emul_main(argc, argv, "stream_emul", stream_kernel, emu_stream_count());
}
