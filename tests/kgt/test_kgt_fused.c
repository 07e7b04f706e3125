/*
 * kgt's fused CUDA launchers (two steps per launch; tests/kgt/fused.stencil generated with
 * --fused all), called directly on a padded local array of random data and compared BITWISE,
 * over the whole array, with two steps of the serial reference of tests/common: step 1 over the
 * box grown by the non-zero extents and cut to the live box (the rest keeps its values), then
 * step 2 over the box cut to the live box (box cells outside it keep their input values). Cells
 * outside the box must keep what was there. Suite 'gpu'.
 *
 * Stencils reaching at most 2 cells (the stars compact5, star2 and nc9, the boxes padded and
 * lowside) also have the register-streaming kernel, which the launchers take for boxes of at
 * least 64 rows and 64 columns
 * (kgt/emit_stream.c): cases 5-11 run on a larger array so that it meets interior blocks (no
 * per-cell tests), partial vectors, rows that allow no vector access, a live box smaller than the
 * box, and boxes that stay on the tile kernel (too few rows or columns). Case 12 is case 5 on input
 * with bands of -0, subnormal, tiny and huge rows and scattered negatives: nc9 (docs/STENCILS.md's
 * 2d9nc, / 24), compact5 and star2 divide floats by split division there, which must send the
 * rows whose numerators are -0, subnormal, tiny or huge to `/` to stay bitwise equal. dense65 has
 * 65 non-zero weights: its CUDA sums are lambdas (kgt/emit_expr.c) rather than nested calls.
 * Built twice: with the project's nvcc flags (kgt-fused-cuda) and plain nvcc -O3, where nvcc may
 * contract infix arithmetic (kgt-fused-cuda-plain).
 */
#include <check.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "kgt_fused.h"
#include "testutil.h"

static const stencil_kernel *const kernels[] = {
    &kgt_fused_compact5_kernel, &kgt_fused_padded_kernel, &kgt_fused_lowside_kernel,
    &kgt_fused_wide_kernel,     &kgt_fused_star2_kernel,  &kgt_fused_nc9_kernel,
    &kgt_fused_dense65_kernel};
#define NKERNELS ((int)(sizeof kernels / sizeof kernels[0]))

/* Rows and columns of the local array, and the padding of its rows: several partial tiles. Cases
   from SMALL on use the larger array (B0 x B1, padding 8: rows of 16-byte multiples, or 1). */
enum { N0 = 75, N1 = 530, PAD = 7, B0 = 700, B1 = 600, SMALL = 5, NCASES = 13 };

/* A call: the array, the box, the live box, the extents of the non-zero weights (2D), and
   whether the input has the special values of fill_special. */
typedef struct call {
    long n[2], pad;
    long lo[3], hi[3], live_lo[3], live_hi[3], elo[2], ehi[2];
    int special;
} call;

static void extents(const stencil_desc *st, call *c)
{
    int e1 = st->radius_lo[1] + 1 + st->radius_hi[1];
    for (int d = 0; d < 2; d++) c->elo[d] = c->ehi[d] = 0;
    for (int a = 0; a < (st->radius_lo[0] + 1 + st->radius_hi[0]) * e1; a++) {
        long o[2] = {a / e1 - st->radius_lo[0], a % e1 - st->radius_lo[1]};
        for (int d = 0; d < 2 && st->weights[a] != 0; d++) {
            if (-o[d] > c->elo[d]) c->elo[d] = -o[d];
            if (o[d] > c->ehi[d]) c->ehi[d] = o[d];
        }
    }
}

/* Case k < SMALL: a whole one-rank array, an inner box, one cell, one band of tile rows, and a
   live box narrower than the frame (step-1 cells outside it keep their values inside the array). */
static call make_small(const stencil_desc *st, int k)
{
    static const long in_lo[SMALL][2] = {{0, 0}, {3, 37}, {10, 300}, {0, 0}, {1, 1}};
    call c;
    c.n[0] = N0, c.n[1] = N1, c.pad = PAD;
    extents(st, &c);
    for (int d = 0; d < 2; d++) {
        c.live_lo[d] = st->radius_lo[d] + (k == 4 ? 4 + 5 * d : 0);
        c.live_hi[d] = c.n[d] - st->radius_hi[d] - (k == 4 ? 2 + d : 0);
        c.lo[d] = c.live_lo[d] + in_lo[k][d];
        c.hi[d] = k == 1 ? c.live_hi[d] - 5 - 15 * d : k == 4 ? c.live_hi[d] - 1 : c.live_hi[d];
    }
    if (k == 2) c.hi[0] = c.lo[0] + 1, c.hi[1] = c.lo[1] + 1;
    if (k == 3) c.hi[0] = c.lo[0] + 33;
    c.lo[2] = c.live_lo[2] = 0;
    c.hi[2] = c.live_hi[2] = 1;
    c.special = 0;
    return c;
}

/*
 * Cases on the B0 x B1 array (streaming for star stencils unless said): 5 the whole interior
 * (interior blocks, vector rows); 6 an inner box of odd width on rows of odd length (scalar
 * accesses); 7 the box as large as the array allows and a live box inside it (the box's cells
 * outside it keep their values); 8 20 rows (tile kernel); 9 64 x 65 cells off the origin (the
 * smallest streamed box, partial vectors); 10 600 x 40 (too narrow: tile kernel); 11 the interior
 * of odd rows with a live box cutting into it; 12 case 5 on the input of fill_special.
 */
static call make_call(const stencil_desc *st, int k)
{
    call c;
    if (k < SMALL) return make_small(st, k);
    c.n[0] = B0, c.n[1] = B1, c.pad = k == 6 || k == 11 ? 1 : 8;
    c.special = k == 12;
    extents(st, &c);
    for (int d = 0; d < 2; d++) {
        c.live_lo[d] = st->radius_lo[d];
        c.live_hi[d] = c.n[d] - st->radius_hi[d];
        c.lo[d] = c.live_lo[d];
        c.hi[d] = c.live_hi[d];
    }
    if (k == 6) c.lo[0] += 5, c.lo[1] += 3, c.hi[0] -= 7, c.hi[1] -= 2;
    for (int d = 0; d < 2 && k == 7; d++) {
        c.lo[d] = c.elo[d], c.hi[d] = c.n[d] - c.ehi[d];
        c.live_lo[d] = c.lo[d] + 9 - 4 * d, c.live_hi[d] = c.hi[d] - 6 - 5 * d;
    }
    if (k == 8) c.lo[0] = 300, c.hi[0] = 320;
    if (k == 9) c.lo[0] = 101, c.hi[0] = 165, c.lo[1] = 37, c.hi[1] = 102;
    if (k == 10) c.lo[0] = 50, c.hi[0] = 650, c.lo[1] = 301, c.hi[1] = 341;
    if (k == 11) c.live_lo[0] += 3, c.live_hi[1] -= 11;
    c.lo[2] = c.live_lo[2] = 0;
    c.hi[2] = c.live_hi[2] = 1;
    return c;
}

static void fill(void *a, int dbl, long n, unsigned long seed)
{
    for (long i = 0; i < n; i++) {
        double v = tu_random(seed, i) * (double)(1L << (i % 7)); /* several binades */
        if (dbl)
            ((double *)a)[i] = v;
        else
            ((float *)a)[i] = (float)v;
    }
}

/*
 * Bands of 10 rows every 50, wide enough that some step-2 numerators are made of band values
 * alone (2 times a stencil reach of 2 each side of a row): -0 (numerators -0, where split
 * division would give +0), values times 1e-40 (subnormal floats, where it can round wrongly),
 * times 1e-30 and times 1e30 (numerators below 2^-63, above 2^63). The range test must send all
 * of them to `/`. In the other 10 rows of every 50, the cells with (i + j) % 7 == 0 are
 * negated. No infinities or NaN: the NaN an invalid operation gives differs between host and
 * device.
 */
static void fill_special(void *a, int dbl, const call *c)
{
    static const double scale[4] = {-0.0, 1e-40, 1e-30, 1e30};
    const long s0 = c->n[1] + c->pad;
    for (long i = 0; i < c->n[0]; i++)
        for (long j = 0; j < s0; j++) {
            const long at = i * s0 + j, band = i % 50 / 10;
            double v = dbl ? ((double *)a)[at] : ((float *)a)[at];
            if (band < 4)
                v *= scale[band];
            else if ((i + j) % 7 == 0)
                v = -v;
            if (dbl)
                ((double *)a)[at] = v;
            else
                ((float *)a)[at] = (float)v;
        }
}

/* Two steps of the reference: step 1 where the launcher computes it, into a copy of in. */
static void reference(const stencil_desc *st, const call *c, const long *stride, const char *in,
                      char *tmp, char *want, size_t bytes)
{
    long lo1[3] = {0, 0, 0}, hi1[3] = {1, 1, 1};
    for (int d = 0; d < 2; d++) {
        lo1[d] = c->lo[d] - c->elo[d] > c->live_lo[d] ? c->lo[d] - c->elo[d] : c->live_lo[d];
        hi1[d] = c->hi[d] + c->ehi[d] < c->live_hi[d] ? c->hi[d] + c->ehi[d] : c->live_hi[d];
    }
    long lo2[3] = {0, 0, 0}, hi2[3] = {1, 1, 1};
    for (int d = 0; d < 2; d++) {
        lo2[d] = c->lo[d] > c->live_lo[d] ? c->lo[d] : c->live_lo[d];
        hi2[d] = c->hi[d] < c->live_hi[d] ? c->hi[d] : c->live_hi[d];
    }
    memcpy(tmp, in, bytes);
    tu_reference_box(st, stride, lo1, hi1, in, tmp);
    /* the box's cells outside the live box keep their (input) values */
    size_t es = st->type == STENCIL_DOUBLE ? sizeof(double) : sizeof(float);
    for (long i = c->lo[0]; i < c->hi[0]; i++)
        for (long j = c->lo[1]; j < c->hi[1]; j++)
            if (i < lo2[0] || i >= hi2[0] || j < lo2[1] || j >= hi2[1])
                memcpy(want + es * (size_t)(i * stride[0] + j),
                       in + es * (size_t)(i * stride[0] + j), es);
    if (lo2[0] < hi2[0] && lo2[1] < hi2[1]) tu_reference_box(st, stride, lo2, hi2, tmp, want);
}

/* The launcher's result of one call, bitwise equal to the reference over the whole array. */
static int fused_matches(const stencil_kernel *k, int dbl, const call *c)
{
    stencil_desc st = k->stencil;
    long stride[3] = {c->n[1] + c->pad, 1, 0}, n = (c->n[1] + c->pad) * c->n[0];
    size_t bytes = (dbl ? sizeof(double) : sizeof(float)) * (size_t)n;
    char *in = malloc(bytes), *tmp = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
    void *din = NULL, *dout = NULL;
    int same;
    ck_assert(in && tmp && got && want);
    st.type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    fill(in, dbl, n, 21u);
    if (c->special) fill_special(in, dbl, c);
    fill(want, dbl, n, 22u);
    /* Exactly the array: memcheck flags any read past it. */
    ck_assert_int_eq(cudaMalloc(&din, bytes), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&dout, bytes), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(dout, want, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(
        k->cuda_fused[dbl](din, dout, c->lo, c->hi, c->live_lo, c->live_hi, stride, NULL), 0);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(got, dout, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    reference(&st, c, stride, in, tmp, want, bytes);
    same = memcmp(got, want, bytes) == 0;
    cudaFree(din);
    cudaFree(dout);
    free(in);
    free(tmp);
    free(got);
    free(want);
    return same;
}

START_TEST(test_fused)
{
    const stencil_kernel *k = kernels[_i / 2];
    int dbl = _i % 2;
    ck_assert_ptr_nonnull(k->cuda_fused[dbl]);
    for (int c = 0; c < NCASES; c++) {
        call cl = make_call(&k->stencil, c);
        ck_assert_msg(fused_matches(k, dbl, &cl),
                      "%s (%s), case %d differs from two reference steps", k->name,
                      dbl ? "double" : "float", c);
    }
}
END_TEST

/* An empty box launches nothing and succeeds; a non-unit last stride is refused. */
START_TEST(test_refusals)
{
    const stencil_kernel *k = kernels[0];
    call c = make_call(&k->stencil, 0);
    long stride[3] = {N1 + PAD, 2, 0}, unit[3] = {N1 + PAD, 1, 0};
    void *d = NULL;
    ck_assert_int_eq(cudaMalloc(&d, sizeof(double) * (size_t)((N1 + PAD) * N0)), cudaSuccess);
    ck_assert_int_ne(k->cuda_fused[0](d, d, c.lo, c.hi, c.live_lo, c.live_hi, stride, NULL), 0);
    c.hi[0] = c.lo[0];
    ck_assert_int_eq(k->cuda_fused[1](d, d, c.lo, c.hi, c.live_lo, c.live_hi, unit, NULL), 0);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kgt-fused");
    TCase *tc = tcase_create("cuda");
    SRunner *sr;
    int failed;
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_fused, 0, 2 * NKERNELS);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
