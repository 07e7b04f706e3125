/*
 * kgt's host kernels, called directly on a padded local array of random data, compared BITWISE
 * with a serial reference written here from the dense weights in the arithmetic contract's order
 * (every product computed, even by 1; a true division). Also: registration, and that the
 * generated descriptions equal the stencil set of docs/STENCILS.md (tests/common/stencil_set.c).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "kgt_set.h"
#include "stencil_set.h"
#include "testutil.h"

static const char *const golden_names[] = {"heat2d", "wave-1d", "inexact", "negated",
                                           "tiny",   "box3d",   "star6"};
#define NGOLDEN ((int)(sizeof golden_names / sizeof golden_names[0]))

/* A local array: the box [lo, hi) with a margin of radius + 1 around it and padded strides. */
typedef struct grid {
    long lo[3], hi[3], stride[3], n;
} grid;

static grid make_grid(const stencil_desc *st)
{
    static const long size[3][3] = {{37, 1, 1}, {13, 11, 1}, {7, 6, 5}};
    grid g;
    long ext[3];
    for (int d = 0; d < 3; d++) {
        int used = d < st->ndims;
        g.lo[d] = used ? st->radius_lo[d] + 1 : 0;
        g.hi[d] = g.lo[d] + size[st->ndims - 1][d];
        ext[d] = used ? g.hi[d] + st->radius_hi[d] + 1 : 1;
    }
    /* Strides with padding, so that a kernel confusing extents and strides fails. */
    g.stride[2] = 1;
    g.stride[1] = ext[2] + (st->ndims == 3 ? 3 : 0);
    g.stride[0] = g.stride[1] * ext[1] + (st->ndims >= 2 ? 2 : 0);
    if (st->ndims == 1) g.stride[0] = 1;
    g.n = g.stride[0] * ext[0] + 8;
    return g;
}

#define REF_UPDATE(T)                                                                              \
    static void ref_##T(const stencil_desc *st, const grid *g, const T *in, T *out)                \
    {                                                                                              \
        long e[3] = {1, 1, 1}, c[3];                                                               \
        for (int d = 0; d < st->ndims; d++) e[d] = st->radius_lo[d] + 1 + st->radius_hi[d];        \
        for (c[0] = g->lo[0]; c[0] < g->hi[0]; c[0]++)                                             \
            for (c[1] = g->lo[1]; c[1] < g->hi[1]; c[1]++)                                         \
                for (c[2] = g->lo[2]; c[2] < g->hi[2]; c[2]++) {                                   \
                    T acc = 0;                                                                     \
                    int first = 1;                                                                 \
                    for (long a = 0; a < e[0] * e[1] * e[2]; a++) {                                \
                        long o[3] = {a / (e[1] * e[2]), a / e[2] % e[1], a % e[2]}, at = 0;        \
                        if (st->weights[a] == 0) continue;                                         \
                        for (int d = 0; d < 3; d++)                                                \
                            at += (c[d] + o[d] - (d < st->ndims ? st->radius_lo[d] : 0)) *         \
                                  g->stride[d];                                                    \
                        T term = (T)st->weights[a] * in[at];                                       \
                        acc = first ? term : acc + term;                                           \
                        first = 0;                                                                 \
                    }                                                                              \
                    out[c[0] * g->stride[0] + c[1] * g->stride[1] + c[2] * g->stride[2]] =         \
                        acc / (T)st->divisor;                                                      \
                }                                                                                  \
    }
REF_UPDATE(float)
REF_UPDATE(double)

/* Random values over several binades, so that rounding differences would show. */
static double value(unsigned long seed, long i)
{
    return tu_random(seed, i) * (double)(1L << (i % 7));
}

static void fill(void *a, int dbl, long n, unsigned long seed)
{
    for (long i = 0; i < n; i++) {
        if (dbl)
            ((double *)a)[i] = value(seed, i);
        else
            ((float *)a)[i] = (float)value(seed, i);
    }
}

/* Non-zero when kernel k, element type dbl, equals the reference bitwise (outside the box too). */
static int host_matches(const stencil_kernel *k, int dbl)
{
    const stencil_desc *st = &k->stencil;
    grid g = make_grid(st);
    size_t es = dbl ? sizeof(double) : sizeof(float), bytes = es * (size_t)g.n;
    char *in = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
    int same;
    ck_assert(in && got && want);
    fill(in, dbl, g.n, 11u);
    fill(got, dbl, g.n, 12u);
    memcpy(want, got, bytes);
    ck_assert_msg(k->host[dbl] != NULL, "%s has no host kernel", k->name);
    k->host[dbl](in, got, g.lo, g.hi, g.stride);
    if (dbl)
        ref_double(st, &g, (const double *)in, (double *)want);
    else
        ref_float(st, &g, (const float *)in, (float *)want);
    same = memcmp(got, want, bytes) == 0;
    free(in);
    free(got);
    free(want);
    return same;
}

static void register_all(void)
{
    ck_assert_int_eq(kgt_set_register(), 0);
    ck_assert_int_eq(golden_register(), 0);
}

START_TEST(test_register)
{
    char names[1024];
    register_all();
    register_all(); /* registering twice is harmless */
    ck_assert_ptr_eq(stencil_find_kernel("2d9nc"), &kgt_set_2d9nc_kernel);
    ck_assert_ptr_eq(stencil_find_kernel("3d-oct"), &kgt_set_3d_oct_kernel);
    ck_assert_ptr_eq(stencil_find_kernel("wave-1d"), &golden_wave_1d_kernel);
    ck_assert_ptr_null(stencil_find_kernel("no-such-kernel"));
    stencil_kernel_names(names, sizeof names);
    ck_assert_ptr_nonnull(strstr(names, "2d5asym"));
    ck_assert_ptr_nonnull(kgt_set_2d4_kernel.opencl_source);
    ck_assert_ptr_null(kgt_set_2d4_kernel.cuda[0]); /* built without KGT_WITH_CUDA */
}
END_TEST

/* The generated descriptions are docs/STENCILS.md's, as tests/common writes them independently. */
START_TEST(test_desc_is_the_set)
{
    stencil_desc want;
    const stencil_kernel *k;
    long n = 1;
    register_all();
    stencil_set_get(_i, STENCIL_FLOAT, &want);
    k = stencil_find_kernel(stencil_set_name(_i));
    ck_assert_msg(k != NULL, "no kernel %s", stencil_set_name(_i));
    ck_assert_int_eq(k->stencil.ndims, want.ndims);
    for (int d = 0; d < 3; d++) {
        ck_assert_int_eq(k->stencil.radius_lo[d], want.radius_lo[d]);
        ck_assert_int_eq(k->stencil.radius_hi[d], want.radius_hi[d]);
        if (d < want.ndims) n *= want.radius_lo[d] + 1 + want.radius_hi[d];
    }
    ck_assert(memcmp(k->stencil.weights, want.weights, sizeof(double) * (size_t)n) == 0);
    ck_assert(k->stencil.divisor == want.divisor);
}
END_TEST

START_TEST(test_set_host)
{
    const stencil_kernel *k;
    register_all();
    k = stencil_find_kernel(stencil_set_name(_i / 2));
    ck_assert_msg(host_matches(k, _i % 2), "%s (%s) differs from the reference", k->name,
                  _i % 2 ? "double" : "float");
}
END_TEST

START_TEST(test_golden_host)
{
    const stencil_kernel *k;
    register_all();
    k = stencil_find_kernel(golden_names[_i / 2]);
    ck_assert_ptr_nonnull(k);
    ck_assert_msg(host_matches(k, _i % 2), "%s (%s) differs from the reference", k->name,
                  _i % 2 ? "double" : "float");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kgt-host");
    TCase *tc = tcase_create("host");
    SRunner *sr;
    int failed;
    tcase_add_test(tc, test_register);
    tcase_add_loop_test(tc, test_desc_is_the_set, 0, stencil_set_count());
    tcase_add_loop_test(tc, test_set_host, 0, 2 * stencil_set_count());
    tcase_add_loop_test(tc, test_golden_host, 0, 2 * NGOLDEN);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
