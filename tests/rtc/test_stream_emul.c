/*
 * The run-time L-step streaming kernels (kgt/emit_stream.c: star stencils through the row ring,
 * box stencils through the edge ring) of every 2D stencil of the STENCILS.md set and of
 * tests/kgt/fused.stencil that has them, both element types, L = 2..KGT_STREAM_MAX, scalar and
 * vector rows, run on the CPU under an emulation of the CUDA execution model (stream_emu.cc),
 * against L steps of the serial reference: bitwise inside the box, untouched outside it. Boxes
 * with and without non-live cells (the frame of fixed boundaries), tiny ones, and the input NaN
 * outside the rectangle kgt_stream_plan says the kernels read.
 *
 *   test_stream_emul FILE.stencil...   (the files stream_gen read)
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kgt_rt.h"
#include "testutil.h"

int emu_stream_count(void);
void emu_stream_entry(int i, const char **name, int *dbl, int *levels);
int emu_stream_block(int i, int vec, int nt, const void *in, void *out, const long long *args,
                     unsigned bx, unsigned by);

static int nfiles;
static kgt_file files[4];

static const kgt_stencil *find(const char *name)
{
    for (int f = 0; f < nfiles; f++)
        for (int i = 0; i < files[f].nst; i++)
            if (!strcmp(files[f].st[i].name, name)) return &files[f].st[i];
    return NULL;
}

/* One case: array n, box [lo, hi), live [llo, lhi). */
typedef struct {
    long n[2], lo[2], hi[2], llo[2], lhi[2];
} box_case;

static void set(void *p, long i, int dbl, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

/* L reference steps over the whole array, live cells only, a cell's reach inside the array. */
static void reference(const stencil_desc *st, const box_case *c, int levels, const void *in,
                      void *ref, size_t bytes)
{
    const long stride[3] = {c->n[1], 1, 1};
    long lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    void *prev = malloc(bytes), *cur = malloc(bytes);
    ck_assert(prev && cur);
    memcpy(prev, in, bytes);
    for (int d = 0; d < 2; d++) {
        lo[d] = c->llo[d] > st->radius_lo[d] ? c->llo[d] : st->radius_lo[d];
        hi[d] = c->lhi[d] < c->n[d] - st->radius_hi[d] ? c->lhi[d] : c->n[d] - st->radius_hi[d];
    }
    for (int k = 0; k < levels; k++) {
        memcpy(cur, prev, bytes);
        if (lo[0] < hi[0] && lo[1] < hi[1]) tu_reference_box(st, stride, lo, hi, prev, cur);
        void *t = prev;
        prev = cur, cur = t;
    }
    size_t esz = st->type == STENCIL_DOUBLE ? 8 : 4;
    for (long y = c->lo[0]; y < c->hi[0]; y++)
        memcpy((char *)ref + (size_t)(y * c->n[1] + c->lo[1]) * esz,
               (char *)prev + (size_t)(y * c->n[1] + c->lo[1]) * esz,
               (size_t)(c->hi[1] - c->lo[1]) * esz);
    free(prev);
    free(cur);
}

/* Cells that differ from the reference (bitwise) after one launch of entry i. */
static long run_case(int i, int vec, const kgt_stencil *ks, const kgt_stream_info *info,
                     const box_case *c, unsigned long seed)
{
    const char *name;
    int dbl, levels;
    emu_stream_entry(i, &name, &dbl, &levels);
    double *dense = kgt_dense(ks);
    stencil_desc st;
    memset(&st, 0, sizeof st);
    st.ndims = 2;
    for (int d = 0; d < 2; d++) st.radius_lo[d] = ks->rlo[d], st.radius_hi[d] = ks->rhi[d];
    st.weights = dense;
    st.divisor = ks->divisor;
    st.type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    long long args[KGT_STREAM_NARGS];
    long grid[2];
    ck_assert_int_eq(kgt_stream_plan(info, c->lo, c->hi, c->llo, c->lhi, c->n[1], args, grid), 0);
    /* the rectangle the kernels may read: [a0, b0) x [a1, b1), inside the array */
    const long a0 = (long)args[8], b0 = (long)args[9], a1 = (long)args[10], b1 = (long)args[11];
    ck_assert(a0 >= 0 && a1 >= 0 && b0 <= c->n[0] && b1 <= c->n[1]);
    size_t cells = (size_t)(c->n[0] * c->n[1]), esz = dbl ? 8 : 4, bytes = cells * esz;
    void *in = NULL, *out = NULL, *ref = malloc(bytes);
    ck_assert(!posix_memalign(&in, 64, bytes) && !posix_memalign(&out, 64, bytes) && ref);
    for (long y = 0; y < c->n[0]; y++)
        for (long x = 0; x < c->n[1]; x++) {
            long at = y * c->n[1] + x;
            int readable = y >= a0 && y < b0 && x >= a1 && x < b1;
            set(in, at, dbl, readable ? tu_random(seed, at) : NAN);
            set(out, at, dbl, -7.25); /* untouched outside the box */
        }
    memcpy(ref, out, bytes);
    reference(&st, c, levels, in, ref, bytes);
    for (long by = 0; by < grid[1]; by++)
        for (long bx = 0; bx < grid[0]; bx++)
            ck_assert_int_eq(
                emu_stream_block(i, vec, info->b, in, out, args, (unsigned)bx, (unsigned)by), 0);
    long bad = 0;
    for (size_t k = 0; k < cells; k++)
        bad += memcmp((char *)out + k * esz, (char *)ref + k * esz, esz) != 0;
    free(in);
    free(out);
    free(ref);
    free(dense);
    return bad;
}

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
    const kgt_stencil *ks = find(name);
    ck_assert_ptr_nonnull(ks);
    kgt_stream_info info;
    char *src = kgt_rt_gpu_stream(ks, dbl, levels, &info);
    ck_assert_ptr_nonnull(src);
    free(src);
    for (int c = 0; c < NCASES; c++)
        for (int vec = 0; vec <= (info.v > 1); vec++) {
            long bad = run_case(_i, vec, ks, &info, &cases[c], 4242u + (unsigned long)(_i * 8 + c));
            ck_assert_msg(bad == 0, "%s %s, %d steps, case %d, %s rows: %ld cells differ", name,
                          dbl ? "double" : "float", levels, c, vec ? "vector" : "scalar", bad);
        }
}
END_TEST

int main(int argc, char **argv)
{
    for (int a = 1; a < argc && nfiles < 4; a++)
        if (kgt_parse(argv[a], &files[nfiles++])) return EXIT_FAILURE;
    Suite *s = suite_create("stream_emul");
    TCase *tc = tcase_create("emul");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, stream_kernel, 0, emu_stream_count());
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    for (int f = 0; f < nfiles; f++) kgt_file_free(&files[f]);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
