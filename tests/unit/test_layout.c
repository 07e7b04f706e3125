/*
 * Unit tests of layout/ on hand-computed cases: boxes, stencil validation and reduction, process
 * grids, cuts (equal and weighted), partition errors and a few local layouts worked out on paper.
 * The exhaustive pattern proof is in test_pattern.c.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "stencil_set.h"

static sl_box box3(long a0, long b0, long a1, long b1, long a2, long b2)
{
    sl_box b = {{a0, a1, a2}, {b0, b1, b2}};
    return b;
}

static int box_eq(const sl_box *a, const sl_box *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;
}

#define ck_box_eq(a, b)                                                                            \
    ck_assert_msg(box_eq(&(a), &(b)),                                                              \
                  "box [%ld,%ld)x[%ld,%ld)x[%ld,%ld) != [%ld,%ld)x[%ld,%ld)x[%ld,%ld)", (a).lo[0], \
                  (a).hi[0], (a).lo[1], (a).hi[1], (a).lo[2], (a).hi[2], (b).lo[0], (b).hi[0],     \
                  (b).lo[1], (b).hi[1], (b).lo[2], (b).hi[2])

/* ---- boxes ---- */

START_TEST(box_helpers)
{
    sl_box a = box3(0, 4, 2, 5, 0, 1), b = box3(3, 8, 0, 3, 0, 1), c = box3(5, 6, 0, 9, 0, 1);
    sl_box i = sl_box_intersect(&a, &b), e = sl_box_intersect(&a, &c),
           want = box3(3, 4, 2, 3, 0, 1);
    long in[3] = {3, 2, 0}, out[3] = {4, 2, 0};
    int d0[3] = {-1, -1, -1}, d1[3] = {0, 0, 0}, d2[3] = {1, 1, 1}, d3[3] = {1, -1, 0};

    ck_assert_int_eq(sl_box_volume(&a), 12);
    ck_box_eq(i, want);
    ck_assert_int_eq(sl_box_volume(&i), 1);
    ck_assert(sl_box_empty(&e));
    ck_assert_int_eq(sl_box_volume(&e), 0);
    ck_assert(e.hi[0] >= e.lo[0]); /* well formed even when empty */
    ck_assert(sl_box_contains(&i, in));
    ck_assert(!sl_box_contains(&i, out));
    ck_assert_int_eq(sl_dir_index(d0), 0);
    ck_assert_int_eq(sl_dir_index(d1), 13);
    ck_assert_int_eq(sl_dir_index(d2), 26);
    ck_assert_int_eq(sl_dir_index(d3), 2 * 9 + 0 * 3 + 1);
}
END_TEST

/* ---- stencils ---- */

/* The pairs of docs/STENCILS.md, listed in row-major order of the offsets. */
typedef struct sparse {
    const char *name;
    int npts;
    int off[27][3];
    double w[27];
    int rlo[3], rhi[3];
    double divisor;
} sparse;

static const sparse expect[] = {
    {"1d3", 3, {{-1}, {0}, {1}}, {1, 1, 1}, {1}, {1}, 3},
    {"1d-wide", 5, {{-3}, {-2}, {-1}, {0}, {1}}, {1, 1, 2, 4, 2}, {3}, {1}, 10},
    {"2d4", 4, {{-1, 0}, {0, -1}, {0, 1}, {1, 0}}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 4},
    {"2d9",
     8,
     {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}},
     {1, 4, 1, 4, 4, 1, 4, 1},
     {1, 1},
     {1, 1},
     20},
    {"2d9nc",
     9,
     {{-2, 0}, {-1, 0}, {0, -2}, {0, -1}, {0, 0}, {0, 1}, {0, 2}, {1, 0}, {2, 0}},
     {1, 4, 1, 4, 4, 4, 1, 4, 1},
     {2, 2},
     {2, 2},
     24},
    {"2d5asym",
     5,
     {{-2, 0}, {-1, 0}, {0, -2}, {0, -1}, {0, 0}},
     {1, 2, 1, 2, 4},
     {2, 2},
     {0, 0},
     10},
    {"2d-diag",
     5,
     {{-1, -1}, {-1, 1}, {0, 0}, {1, -1}, {1, 1}},
     {1, 1, 4, 1, 1},
     {1, 1},
     {1, 1},
     8},
    {"3d7",
     6,
     {{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}},
     {1, 1, 1, 1, 1, 1},
     {1, 1, 1},
     {1, 1, 1},
     6},
    {"3d27", 27, {{0}}, {0}, {1, 1, 1}, {1, 1, 1}, 27}, /* points checked by count and weight */
    {"3d-oct",
     5,
     {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {1, 1, 1}},
     {2, 1, 1, 1, 1},
     {0, 0, 0},
     {1, 1, 1},
     6},
    {"3d13",
     13,
     {{-2, 0, 0},
      {-1, 0, 0},
      {0, -2, 0},
      {0, -1, 0},
      {0, 0, -2},
      {0, 0, -1},
      {0, 0, 0},
      {0, 0, 1},
      {0, 0, 2},
      {0, 1, 0},
      {0, 2, 0},
      {1, 0, 0},
      {2, 0, 0}},
     {1, 4, 1, 4, 1, 4, 6, 4, 1, 4, 1, 4, 1},
     {2, 2, 2},
     {2, 2, 2},
     36},
    {"3d19",
     19,
     {{-1, -1, 0},
      {-1, 0, -1},
      {-1, 0, 0},
      {-1, 0, 1},
      {-1, 1, 0},
      {0, -1, -1},
      {0, -1, 0},
      {0, -1, 1},
      {0, 0, -1},
      {0, 0, 0},
      {0, 0, 1},
      {0, 1, -1},
      {0, 1, 0},
      {0, 1, 1},
      {1, -1, 0},
      {1, 0, -1},
      {1, 0, 0},
      {1, 0, 1},
      {1, 1, 0}},
     {1, 1, 2, 1, 1, 1, 2, 1, 2, 6, 2, 1, 2, 1, 1, 1, 2, 1, 1},
     {1, 1, 1},
     {1, 1, 1},
     30},
    {"2d17",
     17,
     {{-4, 0},
      {-3, 0},
      {-2, 0},
      {-1, 0},
      {0, -4},
      {0, -3},
      {0, -2},
      {0, -1},
      {0, 0},
      {0, 1},
      {0, 2},
      {0, 3},
      {0, 4},
      {1, 0},
      {2, 0},
      {3, 0},
      {4, 0}},
     {1, 2, 3, 6, 1, 2, 3, 6, 12, 6, 3, 2, 1, 6, 3, 2, 1},
     {4, 4},
     {4, 4},
     60},
    {"2d-asym",
     9,
     {{-3, 0}, {-2, 0}, {-1, 0}, {0, -3}, {0, -2}, {0, -1}, {0, 0}, {0, 1}, {1, 0}},
     {1, 2, 4, 1, 2, 4, 5, 3, 3},
     {3, 3},
     {1, 1},
     25},
    {"2d25",
     25,
     {{-2, -2}, {-2, -1}, {-2, 0}, {-2, 1}, {-2, 2}, {-1, -2}, {-1, -1}, {-1, 0}, {-1, 1},
      {-1, 2},  {0, -2},  {0, -1}, {0, 0},  {0, 1},  {0, 2},   {1, -2},  {1, -1}, {1, 0},
      {1, 1},   {1, 2},   {2, -2}, {2, -1}, {2, 0},  {2, 1},   {2, 2}},
     {1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 3, 6, 9, 6, 3, 2, 4, 6, 4, 2, 1, 2, 3, 2, 1},
     {2, 2},
     {2, 2},
     81},
};

START_TEST(stencil_set_points)
{
    const sparse *x = &expect[_i];
    stencil_desc desc;
    sl_stencil s;
    char msg[200];
    int p, d;

    ck_assert_int_eq(stencil_set_count(), (int)(sizeof(expect) / sizeof(expect[0])));
    ck_assert_str_eq(stencil_set_name(_i), x->name);
    ck_assert_int_eq(stencil_set_find(x->name), _i);
    ck_assert_int_eq(stencil_set_get(_i, STENCIL_FLOAT, &desc), 0);
    ck_assert_int_eq(sl_stencil_make(&s, &desc, msg, sizeof(msg)), 0);
    ck_assert_int_eq(s.npts, x->npts);
    ck_assert(s.divisor == x->divisor && s.type == STENCIL_FLOAT && s.ndims == desc.ndims);
    for (d = 0; d < 3; d++) {
        ck_assert_int_eq(s.rlo[d], x->rlo[d]);
        ck_assert_int_eq(s.rhi[d], x->rhi[d]);
    }
    for (p = 0; p < s.npts; p++) {
        if (!strcmp(x->name, "3d27")) {
            ck_assert(s.w[p] == 1.0);
            ck_assert_int_eq(s.off[p][0] * 9 + s.off[p][1] * 3 + s.off[p][2], p - 13);
            continue;
        }
        for (d = 0; d < 3; d++) ck_assert_int_eq(s.off[p][d], x->off[p][d]);
        ck_assert(s.w[p] == x->w[p]);
    }
    sl_stencil_free(&s);
    ck_assert_int_eq(stencil_set_get(-1, STENCIL_FLOAT, &desc), -1);
    ck_assert_ptr_null(stencil_set_name(stencil_set_count()));
    ck_assert_int_eq(stencil_set_find("nope"), -1);
}
END_TEST

/* The halo follows the non-zero weights, not the declared box. */
START_TEST(stencil_zero_padding)
{
    double w[7 * 7] = {0}, w1[5] = {0, 0, 0, 0, 3};
    stencil_desc desc = {2, {3, 3, 5}, {3, 3, 5}, w, 4, STENCIL_DOUBLE};
    sl_stencil s;
    int mp[3];

    /* 2d4 in a 7x7 box: rows/cols 2 and 4 around the centre (3,3). */
    w[2 * 7 + 3] = w[3 * 7 + 2] = w[3 * 7 + 4] = w[4 * 7 + 3] = 1;
    ck_assert_int_eq(sl_stencil_make(&s, &desc, NULL, 0), 0);
    ck_assert_int_eq(s.npts, 4);
    ck_assert(s.rlo[0] == 1 && s.rhi[0] == 1 && s.rlo[1] == 1 && s.rhi[1] == 1);
    ck_assert(s.rlo[2] == 0 && s.rhi[2] == 0); /* unused dim: its declared radius is ignored */
    sl_stencil_free(&s);

    /* 1D box [-4, 0] whose only weight is the centre: no halo at all. */
    desc.ndims = 1;
    desc.radius_lo[0] = 4;
    desc.radius_hi[0] = 0;
    desc.weights = w1;
    ck_assert_int_eq(sl_stencil_make(&s, &desc, NULL, 0), 0);
    ck_assert(s.npts == 1 && s.rlo[0] == 0 && s.rhi[0] == 0 && s.off[0][0] == 0);
    sl_min_part(&s, mp);
    ck_assert(mp[0] == 1 && mp[1] == 1 && mp[2] == 1);
    sl_stencil_free(&s);
}
END_TEST

static int has_point(const sl_stencil *s, int a, int b)
{
    for (int p = 0; p < s->npts; p++)
        if (s->off[p][0] == a && s->off[p][1] == b && s->off[p][2] == 0) return 1;
    return 0;
}

/* Two steps of 2d5asym (centre, up 1 and 2, left 1, right 1) read their sums; fixed adds S. */
START_TEST(stencil_compose)
{
    double w[5 * 3] = {0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0};
    stencil_desc desc = {2, {2, 1, 0}, {2, 1, 0}, w, 5, STENCIL_FLOAT};
    sl_stencil s, c1, c2p, c2f;
    ck_assert_int_eq(sl_stencil_make(&s, &desc, NULL, 0), 0);
    ck_assert_int_eq(s.npts, 5);
    ck_assert(s.rlo[0] == 2 && s.rhi[0] == 0 && s.flo[0] == 2 && s.fhi[0] == 0);
    ck_assert_int_eq(sl_stencil_compose(&c1, &s, 1, 0), 0);
    ck_assert_int_eq(c1.npts, 5);
    for (int p = 0; p < 5; p++)
        ck_assert(c1.w[p] == s.w[p] && has_point(&c1, s.off[p][0], s.off[p][1]));
    sl_stencil_free(&c1);
    ck_assert_int_eq(sl_stencil_compose(&c2p, &s, 2, 1), 0);
    /* distinct sums: row 0 five, rows -1 and -2 three each, rows -3 and -4 one each */
    ck_assert_int_eq(c2p.npts, 13);
    ck_assert(has_point(&c2p, -4, 0) && has_point(&c2p, -2, 1) && has_point(&c2p, 0, -2) &&
              !has_point(&c2p, -3, 2) && !has_point(&c2p, 1, 0));
    ck_assert(c2p.rlo[0] == 4 && c2p.rhi[0] == 0 && c2p.rlo[1] == 2 && c2p.rhi[1] == 2);
    ck_assert(c2p.flo[0] == 2 && c2p.fhi[0] == 0 && c2p.flo[1] == 1 && c2p.fhi[1] == 1);
    ck_assert_int_eq(sl_stencil_compose(&c2f, &s, 2, 0), 0);
    ck_assert_int_eq(c2f.npts, 13); /* the centre is in S, so S is already among the sums */
    ck_assert_int_eq(sl_stencil_compose(&c1, &s, 0, 0), STENCIL_EINVAL);
    ck_assert_int_eq(sl_stencil_compose(&c1, &s, SL_MAX_STEPS + 1, 0), STENCIL_EINVAL);
    sl_stencil_free(&s);
    sl_stencil_free(&c2p);
    sl_stencil_free(&c2f);
    /* Without a centre (2d4) two steps never read the points themselves: fixed adds them. */
    double w4[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    stencil_desc d4 = {2, {1, 1, 0}, {1, 1, 0}, w4, 4, STENCIL_FLOAT};
    ck_assert_int_eq(sl_stencil_make(&s, &d4, NULL, 0), 0);
    ck_assert_int_eq(sl_stencil_compose(&c2p, &s, 2, 1), 0);
    ck_assert_int_eq(sl_stencil_compose(&c2f, &s, 2, 0), 0);
    ck_assert_int_eq(c2p.npts, 9); /* 0, (+-2,0), (0,+-2), (+-1,+-1) */
    ck_assert(!has_point(&c2p, 1, 0) && has_point(&c2p, 1, 1) && has_point(&c2p, 0, 0));
    ck_assert_int_eq(c2f.npts, 13);
    ck_assert(has_point(&c2f, 1, 0) && has_point(&c2f, 0, -1));
    sl_stencil_free(&s);
    sl_stencil_free(&c2p);
    sl_stencil_free(&c2f);
}
END_TEST

/* The largest stencil there is (dense 3D, radius 8): every offset within 16, 33^3 of them. Its
   1.3e9 sums of two points took over Check's default 4 s under ASan on a busy 2-core machine. */
START_TEST(stencil_compose_largest)
{
    sl_stencil s, c2f;
    enum { SIDE = 2 * STENCIL_MAX_RADIUS + 1 };
    static double wd[SIDE * SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE * SIDE; i++) wd[i] = 1 + i % 3;
    stencil_desc dd = {3, {8, 8, 8}, {8, 8, 8}, wd, 1, STENCIL_DOUBLE};
    ck_assert_int_eq(sl_stencil_make(&s, &dd, NULL, 0), 0);
    ck_assert_int_eq(sl_stencil_compose(&c2f, &s, 2, 0), 0);
    ck_assert_int_eq(c2f.npts, 33 * 33 * 33);
    ck_assert(c2f.rlo[0] == 16 && c2f.rhi[2] == 16 && c2f.flo[1] == 8);
    sl_stencil_free(&s);
    sl_stencil_free(&c2f);
}
END_TEST

/* The dense 3D radius-8 stencil composed over 8 steps: every offset within 64, 129^3 of them. */
START_TEST(stencil_compose_deep)
{
    sl_stencil s, c;
    enum { SIDE = 2 * STENCIL_MAX_RADIUS + 1, FAR = 8 * STENCIL_MAX_RADIUS };
    static double wd[SIDE * SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE * SIDE; i++) wd[i] = 1 + i % 3;
    stencil_desc dd = {3, {8, 8, 8}, {8, 8, 8}, wd, 1, STENCIL_DOUBLE};
    ck_assert_int_eq(sl_stencil_make(&s, &dd, NULL, 0), 0);
    ck_assert_int_eq(sl_stencil_compose(&c, &s, 8, 1), 0);
    ck_assert_int_eq(c.npts, (2 * FAR + 1) * (2 * FAR + 1) * (2 * FAR + 1));
    ck_assert(c.rlo[0] == FAR && c.rhi[2] == FAR && c.flo[1] == 8);
    ck_assert(c.off[0][0] == -FAR && c.off[c.npts - 1][2] == FAR);
    sl_stencil_free(&s);
    sl_stencil_free(&c);
}
END_TEST

/* Brute force: every sequence of k points, k = T (periodic) or 1..T (fixed), into a dense box. */
enum { BR = 2, BT = 4, BSIDE = 2 * BR * BT + 1 };

static void brute_sums(const sl_stencil *s, int left, const int at[3], unsigned char *box)
{
    if (left == 0) {
        box[((at[0] + BR * BT) * BSIDE + at[1] + BR * BT) * BSIDE + at[2] + BR * BT] = 1;
        return;
    }
    for (int p = 0; p < s->npts; p++) {
        int nx[3] = {at[0] + s->off[p][0], at[1] + s->off[p][1], at[2] + s->off[p][2]};
        brute_sums(s, left - 1, nx, box);
    }
}

static void random_desc(stencil_desc *d, double *w, unsigned *seed)
{
    d->ndims = 1 + (int)(rand_r(seed) % 3);
    long n = 1;
    for (int k = 0; k < 3; k++) {
        d->radius_lo[k] = k < d->ndims ? (int)(rand_r(seed) % (BR + 1)) : 0;
        d->radius_hi[k] = k < d->ndims ? (int)(rand_r(seed) % (BR + 1)) : 0;
        n *= d->radius_lo[k] + 1 + d->radius_hi[k];
    }
    for (long i = 0; i < n; i++) w[i] = rand_r(seed) % 4 == 0 ? 1.5 : 0.0;
    w[rand_r(seed) % n] = 2.0; /* never empty */
    d->divisor = 3;
    d->weights = w;
    d->type = STENCIL_FLOAT;
}

START_TEST(stencil_compose_brute)
{
    unsigned seed = 1234u + (unsigned)_i;
    static unsigned char box[BSIDE * BSIDE * BSIDE];
    double w[125];
    stencil_desc d;
    sl_stencil s, c;
    random_desc(&d, w, &seed);
    ck_assert_int_eq(sl_stencil_make(&s, &d, NULL, 0), 0);
    for (int t = 2; t <= BT; t++)
        for (int periodic = 0; periodic < 2; periodic++) {
            static const int origin[3] = {0, 0, 0};
            memset(box, 0, sizeof box);
            /* fixed: a chain may stop after any number of points, so count every prefix */
            if (periodic) brute_sums(&s, t, origin, box);
            for (int k = 1; !periodic && k <= t; k++) brute_sums(&s, k, origin, box);
            ck_assert_int_eq(sl_stencil_compose(&c, &s, t, periodic), 0);
            int p = 0, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
            for (int i = 0; i < BSIDE * BSIDE * BSIDE; i++) {
                if (!box[i]) continue;
                int o[3] = {i / (BSIDE * BSIDE) - BR * BT, i / BSIDE % BSIDE - BR * BT,
                            i % BSIDE - BR * BT};
                ck_assert_int_lt(p, c.npts);
                for (int k = 0; k < 3; k++) {
                    ck_assert_int_eq(c.off[p][k], o[k]);
                    lo[k] = o[k] < -lo[k] ? -o[k] : lo[k];
                    hi[k] = o[k] > hi[k] ? o[k] : hi[k];
                }
                ck_assert(c.w[p++] == 1.0);
            }
            ck_assert_int_eq(p, c.npts);
            for (int k = 0; k < 3; k++)
                ck_assert(c.rlo[k] == lo[k] && c.rhi[k] == hi[k] && c.flo[k] == s.rlo[k]);
            sl_stencil_free(&c);
        }
    sl_stencil_free(&s);
}
END_TEST

static void expect_invalid(const stencil_desc *desc, const char *word)
{
    sl_stencil s;
    char msg[200] = "";

    ck_assert_int_eq(sl_stencil_make(&s, desc, msg, sizeof(msg)), STENCIL_EINVAL);
    ck_assert_msg(strstr(msg, word) != NULL, "message '%s' lacks '%s'", msg, word);
    ck_assert_ptr_null(s.off);
}

START_TEST(stencil_invalid)
{
    double w[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0}, z[9] = {0}, bad[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    stencil_desc ok = {2, {1, 1, 0}, {1, 1, 0}, w, 4, STENCIL_FLOAT}, d;
    sl_stencil s;

    ck_assert_int_eq(sl_stencil_make(&s, &ok, NULL, 0), 0);
    sl_stencil_free(&s);
    sl_stencil_free(&s); /* idempotent */
    expect_invalid(NULL, "NULL");
    d = ok, d.weights = NULL, expect_invalid(&d, "weights");
    d = ok, d.ndims = 0, expect_invalid(&d, "ndims");
    d = ok, d.ndims = 4, expect_invalid(&d, "ndims");
    d = ok, d.divisor = 0, expect_invalid(&d, "divisor");
    d = ok, d.divisor = NAN, expect_invalid(&d, "divisor");
    d = ok, d.divisor = INFINITY, expect_invalid(&d, "divisor");
    d = ok, d.weights = z, expect_invalid(&d, "no non-zero");
    d = ok, d.radius_hi[1] = STENCIL_MAX_RADIUS + 1, expect_invalid(&d, "radius");
    d = ok, d.radius_lo[0] = -1, expect_invalid(&d, "radius");
    d = ok, d.type = (stencil_type)7, expect_invalid(&d, "type");
    bad[4] = NAN;
    d = ok, d.weights = bad, expect_invalid(&d, "weight 4");
    bad[4] = -INFINITY;
    expect_invalid(&d, "not finite");
}
END_TEST

/* ---- process grids ---- */

static void grid(int ndims, long n0, long n1, long n2, int nranks, stencil_partition k, int h0,
                 int h1, int h2, int rc_want, int g0, int g1, int g2)
{
    long gs[3] = {n0, n1, n2};
    int hint[3] = {h0, h1, h2}, pg[3];
    char msg[200];

    ck_assert_int_eq(sl_grid_choose(ndims, gs, nranks, k, hint, pg, msg, sizeof(msg)), rc_want);
    if (rc_want) return;
    ck_assert_msg(pg[0] == g0 && pg[1] == g1 && pg[2] == g2, "%d ranks on %ldx%ldx%ld: %dx%dx%d",
                  nranks, n0, n1, n2, pg[0], pg[1], pg[2]);
}

START_TEST(grid_choose)
{
    const stencil_partition B = STENCIL_PART_BANDS, K = STENCIL_PART_BLOCKS;
    long gs[3] = {10, 10, 10};
    int pg[3];

    grid(2, 100, 100, 1, 6, B, 0, 0, 0, 0, 6, 1, 1);
    grid(3, 100, 100, 100, 5, B, 2, 2, 2, 0, 5, 1, 1); /* bands ignore the hint */
    grid(1, 100, 1, 1, 4, K, 0, 0, 0, 0, 4, 1, 1);
    grid(2, 100, 100, 1, 8, K, 0, 0, 0, 0, 4, 2, 1);
    grid(2, 100, 100, 1, 4, K, 0, 0, 0, 0, 2, 2, 1);
    grid(2, 100, 100, 1, 1, K, 0, 0, 0, 0, 1, 1, 1);
    grid(2, 100, 100, 1, 7, K, 0, 0, 0, 0, 7, 1, 1);
    grid(2, 10, 1000, 1, 4, K, 0, 0, 0, 0, 1, 4, 1); /* the long dimension is cut */
    grid(2, 30, 100, 1, 6, K, 0, 0, 0, 0, 1, 6, 1);  /* 30x16 parts beat 15x33 */
    grid(3, 64, 64, 64, 8, K, 0, 0, 0, 0, 2, 2, 2);
    grid(3, 64, 64, 64, 12, K, 0, 0, 0, 0, 3, 2, 2);
    grid(3, 64, 64, 256, 4, K, 0, 0, 0, 0, 1, 1, 4);
    grid(2, 100, 100, 1, 6, K, 3, 2, 0, 0, 3, 2, 1);
    grid(2, 100, 100, 1, 6, K, 3, 0, 0, 0, 3, 2, 1);
    grid(2, 100, 100, 1, 6, K, 0, 6, 0, 0, 1, 6, 1);
    grid(3, 64, 64, 64, 8, K, 0, 0, 1, 0, 4, 2, 1); /* 2D blocks of a 3D grid */
    grid(3, 64, 64, 64, 8, K, 2, 2, 2, 0, 2, 2, 2);
    grid(2, 100, 100, 1, 6, K, 4, 0, 0, STENCIL_EINVAL, 0, 0, 0);
    grid(2, 100, 100, 1, 6, K, 2, 2, 0, STENCIL_EINVAL, 0, 0, 0);
    grid(2, 100, 100, 1, 6, K, 3, 2, 2, STENCIL_EINVAL, 0, 0, 0); /* past ndims */
    grid(2, 100, 100, 1, 6, K, -1, 0, 0, STENCIL_EINVAL, 0, 0, 0);
    grid(2, 100, 100, 1, 0, K, 0, 0, 0, STENCIL_EINVAL, 0, 0, 0);
    grid(0, 100, 100, 1, 2, K, 0, 0, 0, STENCIL_EINVAL, 0, 0, 0);
    grid(2, 100, 100, 1, 2, (stencil_partition)5, 0, 0, 0, STENCIL_EINVAL, 0, 0, 0);
    ck_assert_int_eq(sl_grid_choose(3, gs, 12, K, NULL, pg, NULL, 0), 0);
    ck_assert_int_eq(pg[0] * pg[1] * pg[2], 12);
}
END_TEST

/* ---- partitions ---- */

static void check_cuts(const sl_partition *p)
{
    int d, i;

    for (d = 0; d < 3; d++) {
        ck_assert_int_eq(p->cuts[d][0], 0);
        ck_assert_int_eq(p->cuts[d][p->pgrid[d]], p->gsize[d]);
        for (i = 0; i < p->pgrid[d]; i++) ck_assert(p->cuts[d][i + 1] > p->cuts[d][i]);
    }
}

static long part(const sl_partition *p, int d, int i)
{
    return p->cuts[d][i + 1] - p->cuts[d][i];
}

START_TEST(cuts_equal)
{
    long gs[3] = {10, 7, 99};
    int pg[3] = {3, 2, 1}, i;
    sl_partition p;

    ck_assert_int_eq(sl_partition_make(&p, 2, gs, pg, NULL, NULL, 0, NULL, 0), 0);
    check_cuts(&p);
    ck_assert(part(&p, 0, 0) == 4 && part(&p, 0, 1) == 3 && part(&p, 0, 2) == 3);
    ck_assert(part(&p, 1, 0) == 4 && part(&p, 1, 1) == 3);
    ck_assert_int_eq(p.gsize[2], 1); /* unused dimension */
    ck_assert_int_eq(p.nranks, 6);
    for (i = 0; i < 6; i++) {
        int c[3];
        sl_partition_coords(&p, i, c);
        ck_assert(c[0] == i / 2 && c[1] == i % 2 && c[2] == 0);
        ck_assert_int_eq(sl_partition_rank(&p, c), i);
    }
    sl_partition_free(&p);
    sl_partition_free(&p); /* idempotent */
}
END_TEST

START_TEST(cuts_weighted)
{
    long gs[3] = {100, 80, 1}, g2[3] = {80, 80, 1}, g3[3] = {10, 1, 1};
    int pg1[3] = {2, 1, 1}, pg2[3] = {2, 2, 1}, pg3[3] = {3, 1, 1};
    double w1[2] = {1, 3}, w2[4] = {1, 1, 3, 3}, w3[3] = {1, 1, 1};
    sl_partition p;

    ck_assert_int_eq(sl_partition_make(&p, 2, gs, pg1, w1, NULL, 0, NULL, 0), 0);
    ck_assert(part(&p, 0, 0) == 25 && part(&p, 0, 1) == 75 && part(&p, 1, 0) == 80);
    sl_partition_free(&p);
    /* Block grid: a slab weighs the sum of its ranks, (1+1):(3+3) along 0, (1+3):(1+3) along 1. */
    ck_assert_int_eq(sl_partition_make(&p, 2, g2, pg2, w2, NULL, 1, NULL, 0), 0);
    ck_assert(part(&p, 0, 0) == 20 && part(&p, 0, 1) == 60);
    ck_assert(part(&p, 1, 0) == 40 && part(&p, 1, 1) == 40);
    sl_partition_free(&p);
    /* 10/3 rounds: cuts at 3 and 7. */
    ck_assert_int_eq(sl_partition_make(&p, 1, g3, pg3, w3, NULL, 0, NULL, 0), 0);
    ck_assert(p.cuts[0][1] == 3 && p.cuts[0][2] == 7 && p.cuts[0][3] == 10);
    sl_partition_free(&p);
}
END_TEST

/* Share changes as calibration judges them: scale-free, relative to the old share. */
START_TEST(share_change)
{
    double a[3] = {1, 1, 2}, same[3] = {10, 10, 20}, b[3] = {1, 1.5, 1.5}, c[2] = {1, 3};

    ck_assert(sl_share_change(a, same, 3) < 1e-15);
    ck_assert(sl_share_change(NULL, same + 0, 2) < 1e-15); /* 10:10 is equal shares */
    /* Shares 1/4 1/4 1/2 -> 1/4 3/8 3/8: rank 1 grows by half, rank 2 shrinks by a quarter. */
    ck_assert(fabs(sl_share_change(a, b, 3) - 0.5) < 1e-15);
    /* Equal 1/2 1/2 -> 1/4 3/4: both move by half. */
    ck_assert(fabs(sl_share_change(NULL, c, 2) - 0.5) < 1e-15);
    ck_assert(sl_share_change(NULL, c, 0) == 0.0);
}
END_TEST

/* Random weights: parts sum to N, are monotone and within one cell of their exact share. */
START_TEST(cuts_weighted_random)
{
    double w[8], tot, cum;
    long gs[3] = {1, 1, 1};
    int pg[3] = {1, 1, 1}, i, t;
    sl_partition p;

    srand(7);
    for (t = 0; t < 500; t++) {
        int n = 1 + rand() % 8;
        gs[0] = 100 * n + rand() % 1000;
        pg[0] = n;
        for (i = 0, tot = 0; i < n; i++) tot += w[i] = 1 + (rand() % 900) / 100.0;
        ck_assert_int_eq(sl_partition_make(&p, 1, gs, pg, w, NULL, 0, NULL, 0), 0);
        check_cuts(&p);
        for (i = 0, cum = 0; i < n; i++) {
            cum += w[i];
            ck_assert(fabs(p.cuts[0][i + 1] - gs[0] * cum / tot) <= 0.5 + 1e-9);
        }
        sl_partition_free(&p);
    }
}
END_TEST

START_TEST(partition_errors)
{
    long gs[3] = {10, 10, 1};
    int pg[3] = {6, 1, 1}, pg11[3] = {11, 1, 1}, bad[3] = {2, 1, 2}, mp[3] = {2, 2, 1};
    double w[6] = {1, 1, 1, 1, 1, 0}, w2[2] = {1, NAN}, wsk[2] = {1, 50};
    char msg[300];
    sl_partition p;

    /* 10 cells over 6 ranks: parts 2,2,1,... below the radius 2 of 2d9nc. */
    ck_assert_int_eq(sl_partition_make(&p, 2, gs, pg, NULL, mp, 0, msg, sizeof(msg)),
                     STENCIL_EPARTITION);
    ck_assert_msg(strstr(msg, "dimension 0") && strstr(msg, "1 cells") && strstr(msg, "radius 2"),
                  "%s", msg);
    ck_assert_ptr_null(p.cuts[0]);
    ck_assert_int_eq(sl_partition_make(&p, 1, gs, pg11, NULL, NULL, 1, msg, sizeof(msg)),
                     STENCIL_EPARTITION); /* 11 ranks, 10 cells: an empty part */
    pg[0] = 2;
    ck_assert_int_eq(sl_partition_make(&p, 1, gs, pg, wsk, mp, 0, msg, sizeof(msg)),
                     STENCIL_EPARTITION); /* weights 1:50 leave rank 0 too thin */
    ck_assert_int_eq(sl_partition_make(&p, 1, gs, pg, w2, mp, 0, msg, sizeof(msg)), STENCIL_EINVAL);
    pg[0] = 6;
    ck_assert_int_eq(sl_partition_make(&p, 1, gs, pg, w, NULL, 0, msg, sizeof(msg)),
                     STENCIL_EINVAL);
    ck_assert_int_eq(sl_partition_make(&p, 2, gs, bad, NULL, NULL, 0, msg, sizeof(msg)),
                     STENCIL_EINVAL);
    gs[1] = 0;
    pg[0] = 1;
    ck_assert_int_eq(sl_partition_make(&p, 2, gs, pg, NULL, NULL, 0, msg, sizeof(msg)),
                     STENCIL_EINVAL);
}
END_TEST

START_TEST(partition_ranks_owners)
{
    long gs[3] = {9, 7, 5}, g[3] = {8, 0, 4};
    int pg[3] = {3, 2, 2}, c[3] = {-1, 2, 1}, mp[3] = {1, 1, 1};
    sl_partition p;
    sl_box o, want = box3(6, 9, 0, 4, 3, 5);

    ck_assert_int_eq(sl_partition_make(&p, 3, gs, pg, NULL, mp, 1, NULL, 0), 0);
    ck_assert_int_eq(sl_partition_rank(&p, c), (2 * 2 + 0) * 2 + 1); /* wrapped */
    ck_assert_int_eq(sl_partition_owner(&p, g), (2 * 2 + 0) * 2 + 1);
    o = sl_partition_owned(&p, 9);
    ck_box_eq(o, want);
    p.periodic = 0;
    ck_assert_int_eq(sl_partition_rank(&p, c), -1);
    g[1] = 7;
    ck_assert_int_eq(sl_partition_owner(&p, g), -1);
    sl_partition_free(&p);
}
END_TEST

/* ---- local layouts worked out by hand ---- */

static void make(const char *st, int ndims, long n0, long n1, long n2, int g0, int g1, int g2,
                 int periodic, sl_stencil *s, sl_partition *p)
{
    stencil_desc desc;
    long gs[3] = {n0, n1, n2};
    int pg[3] = {g0, g1, g2}, mp[3];
    char msg[300];

    stencil_set_get(stencil_set_find(st), STENCIL_FLOAT, &desc);
    ck_assert_int_eq(desc.ndims, ndims);
    ck_assert_int_eq(sl_stencil_make(s, &desc, msg, sizeof(msg)), 0);
    sl_min_part(s, mp);
    ck_assert_int_eq(sl_partition_make(p, ndims, gs, pg, NULL, mp, periodic, msg, sizeof(msg)), 0);
}

static const sl_dir *dir_of(const sl_local *l, int a, int b, int c)
{
    int d[3] = {a, b, c};
    return &l->dir[sl_dir_index(d)];
}

/* One rank, periodic: it is its own neighbour both ways, with distinct tags. */
START_TEST(local_self_neighbour)
{
    sl_stencil s;
    sl_partition p;
    sl_local l;
    sl_box r0 = box3(-1, 0, 0, 1, 0, 1), s0 = box3(0, 1, 0, 1, 0, 1), r1 = box3(5, 6, 0, 1, 0, 1),
           s1 = box3(4, 5, 0, 1, 0, 1), in = box3(1, 4, 0, 1, 0, 1), ext = box3(-1, 6, 0, 1, 0, 1);
    const sl_dir *lo, *hi;
    long g[3] = {-1, 0, 0};

    make("1d3", 1, 5, 1, 1, 1, 1, 1, 1, &s, &p);
    ck_assert_int_eq(sl_local_make(&l, &p, &s, 0), 0);
    lo = dir_of(&l, -1, 0, 0);
    hi = dir_of(&l, 1, 0, 0);
    ck_assert(lo->active && hi->active && lo->peer == 0 && hi->peer == 0);
    ck_box_eq(lo->recv, r0);
    ck_box_eq(lo->send, s0);
    ck_box_eq(hi->recv, r1);
    ck_box_eq(hi->send, s1);
    ck_assert(lo->send_tag == hi->recv_tag && hi->send_tag == lo->recv_tag);
    ck_assert(lo->send_tag != hi->send_tag);
    ck_box_eq(l.inner, in);
    ck_assert_int_eq(l.nborder, 2);
    ck_box_eq(l.ext, ext);
    ck_assert_int_eq(l.nelems, 7);
    ck_assert_int_eq(sl_local_index(&l, g), 0);
    g[0] = 5;
    ck_assert_int_eq(sl_local_index(&l, g), 6);
    ck_assert_int_eq(sl_local_box(&l, &r1).lo[0], 6);
    sl_stencil_free(&s);
    sl_partition_free(&p);
}
END_TEST

/* 2d5asym, fixed, two bands of 10x10: halos flow downwards only. */
START_TEST(local_asym_bands)
{
    sl_stencil s;
    sl_partition p;
    sl_local a, b;
    sl_box rb = box3(3, 5, 2, 10, 0, 1), ua = box3(2, 5, 2, 10, 0, 1), ia = box3(2, 3, 2, 10, 0, 1);
    sl_box exta = box3(0, 5, 0, 10, 0, 1), extb = box3(3, 10, 0, 10, 0, 1);

    make("2d5asym", 2, 10, 10, 1, 2, 1, 1, 0, &s, &p);
    ck_assert_int_eq(sl_local_make(&a, &p, &s, 0), 0);
    ck_assert_int_eq(sl_local_make(&b, &p, &s, 1), 0);
    ck_box_eq(dir_of(&b, -1, 0, 0)->recv, rb);
    ck_box_eq(dir_of(&a, 1, 0, 0)->send, rb);
    ck_assert(!dir_of(&a, 1, 0, 0)->has_recv && !dir_of(&b, -1, 0, 0)->has_send);
    ck_assert(dir_of(&a, -1, 0, 0)->peer == -1 && !dir_of(&a, -1, 0, 0)->active);
    ck_assert(dir_of(&b, 1, 0, 0)->peer == -1);
    ck_box_eq(a.update, ua);
    ck_box_eq(a.inner, ia);
    ck_assert_int_eq(a.nborder, 1);
    ck_box_eq(a.ext, exta); /* rhi = 0: no halo above */
    ck_box_eq(b.ext, extb);
    ck_box_eq(b.inner, b.update); /* b sends nothing */
    ck_assert_int_eq(b.nborder, 0);
    ck_assert(a.bnd_lo[0] && !a.bnd_hi[0] && a.bnd_lo[1] && a.bnd_hi[1]);
    sl_stencil_free(&s);
    sl_partition_free(&p);
}
END_TEST

/* 2d9 on 2x2 periodic 8x8: corners carry one cell; all 8 directions active. */
START_TEST(local_corners)
{
    sl_stencil s;
    sl_partition p;
    sl_local l;
    sl_box rc = box3(-1, 0, -1, 0, 0, 1), sc = box3(3, 4, 3, 4, 0, 1), rf = box3(-1, 0, 0, 4, 0, 1);
    int i, n = 0;

    make("2d9", 2, 8, 8, 1, 2, 2, 1, 1, &s, &p);
    ck_assert_int_eq(sl_local_make(&l, &p, &s, 0), 0);
    for (i = 0; i < SL_NDIRS; i++) n += l.dir[i].active;
    ck_assert_int_eq(n, 8);
    ck_box_eq(dir_of(&l, -1, -1, 0)->recv, rc);
    ck_assert_int_eq(dir_of(&l, -1, -1, 0)->peer, 3);
    ck_box_eq(dir_of(&l, 1, 1, 0)->send, sc);
    ck_box_eq(dir_of(&l, -1, 0, 0)->recv, rf);
    ck_assert_int_eq(dir_of(&l, -1, 0, 0)->peer, 2);
    ck_assert_int_eq(dir_of(&l, 1, 0, 0)->peer, 2);
    sl_stencil_free(&s);
    sl_partition_free(&p);
}
END_TEST

/* 1d3 fixed over 3 cells and 3 ranks: the edge ranks hold only frame cells. */
START_TEST(local_frame_only)
{
    sl_stencil s;
    sl_partition p;
    sl_local l;
    sl_box c0 = box3(0, 1, 0, 1, 0, 1);

    make("1d3", 1, 3, 1, 1, 3, 1, 1, 0, &s, &p);
    ck_assert_int_eq(sl_local_make(&l, &p, &s, 0), 0);
    ck_assert(sl_box_empty(&l.update) && sl_box_empty(&l.inner) && l.nborder == 0);
    ck_assert(dir_of(&l, 1, 0, 0)->has_send && !dir_of(&l, 1, 0, 0)->has_recv);
    ck_box_eq(dir_of(&l, 1, 0, 0)->send, c0);
    ck_assert_int_eq(sl_local_make(&l, &p, &s, 1), 0);
    /* The middle rank reads both edges but sends nothing: all of its update is inner. */
    ck_assert(dir_of(&l, -1, 0, 0)->has_recv && !dir_of(&l, -1, 0, 0)->has_send);
    ck_assert(l.nborder == 0 && sl_box_volume(&l.inner) == 1);
    /* No split: the update box is the one border box, the inner box empty. */
    sl_box u = l.update;
    sl_local_whole(&l);
    ck_assert(l.nborder == 1 && sl_box_empty(&l.inner));
    ck_box_eq(l.border[0], u);
    sl_stencil_free(&s);
    sl_partition_free(&p);
    /* Fixed frame wider than the grid. */
    make("1d3", 1, 2, 1, 1, 1, 1, 1, 0, &s, &p);
    ck_assert_int_eq(sl_local_make(&l, &p, &s, 0), STENCIL_EINVAL);
    ck_assert_int_eq(sl_local_make(&l, &p, &s, 1), STENCIL_EINVAL); /* no such rank */
    sl_stencil_free(&s);
    sl_partition_free(&p);
}
END_TEST

/* 3d-oct, one rank, periodic: faces, edges (through (1,1,1)) and one corner cell; nothing below. */
START_TEST(local_octant)
{
    sl_stencil s;
    sl_partition p;
    sl_local l;
    sl_box c = box3(4, 5, 5, 6, 6, 7), e = box3(4, 5, 5, 6, 1, 6), ext = box3(0, 5, 0, 6, 0, 7);
    int i, n = 0;

    make("3d-oct", 3, 4, 5, 6, 1, 1, 1, 1, &s, &p);
    ck_assert_int_eq(sl_local_make(&l, &p, &s, 0), 0);
    ck_box_eq(dir_of(&l, 1, 1, 1)->recv, c);
    ck_box_eq(l.ext, ext);
    for (i = 0; i < SL_NDIRS; i++) n += l.dir[i].has_recv;
    ck_assert_int_eq(n, 7);
    ck_box_eq(dir_of(&l, 1, 1, 0)->recv, e);
    ck_assert(!dir_of(&l, -1, 0, 0)->has_recv && !dir_of(&l, 1, -1, 0)->active);
    /* rows of 7 cells, padded to 8 (3D rows: a multiple of 4 elements) */
    ck_assert_int_eq(l.stride[0], 48);
    ck_assert_int_eq(l.stride[1], 8);
    ck_assert_int_eq(l.stride[2], 1);
    sl_stencil_free(&s);
    sl_partition_free(&p);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("layout");
    TCase *tb = tcase_create("boxes_stencils"), *tp = tcase_create("partition"),
          *tl = tcase_create("local"), *tc = tcase_create("compose_largest");
    SRunner *sr;
    int nfailed;

    tcase_add_test(tb, box_helpers);
    tcase_add_loop_test(tb, stencil_set_points, 0, (int)(sizeof(expect) / sizeof(expect[0])));
    tcase_add_test(tb, stencil_zero_padding);
    tcase_add_test(tb, stencil_invalid);
    tcase_add_test(tb, stencil_compose);
    tcase_add_test(tc, stencil_compose_largest);
    tcase_add_test(tc, stencil_compose_deep);
    tcase_add_loop_test(tb, stencil_compose_brute, 0, 40);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tp, grid_choose);
    tcase_add_test(tp, cuts_equal);
    tcase_add_test(tp, cuts_weighted);
    tcase_add_test(tp, cuts_weighted_random);
    tcase_add_test(tp, share_change);
    tcase_add_test(tp, partition_errors);
    tcase_add_test(tp, partition_ranks_owners);
    tcase_add_test(tl, local_self_neighbour);
    tcase_add_test(tl, local_asym_bands);
    tcase_add_test(tl, local_corners);
    tcase_add_test(tl, local_frame_only);
    tcase_add_test(tl, local_octant);
    suite_add_tcase(su, tb);
    suite_add_tcase(su, tp);
    suite_add_tcase(su, tl);
    suite_add_tcase(su, tc);
    sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    nfailed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
