/*
 * Linear stencils with a boundary per face (options.face), under mpiexec -n 1..4, bands and
 * blocks, float and double, against a serial loop written here: the arithmetic contract of
 * backends/backend.h in the element type (acc = w0 * v0, acc = acc + w * v, ..., acc / divisor)
 * with the faces' reads resolved cell by cell (periodic wraps, mirror reflects, a constant face
 * reads its value, a later dimension's constant winning; a fixed face's frame keeps its values).
 * Forced T = 3 and out of core, at T = 1 and 3, give the same bits. All faces periodic gives
 * bitwise the run of options.boundary = periodic. A registered kernel named with faces gives the
 * same bits. Misuse is refused.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "prog_ref.h"

static int rank, nranks;

typedef struct fcase {
    int ndims;
    long n[3];
    int rlo[3], rhi[3];
    double divisor;
    stencil_boundary face[3][2];
    double value[3][2];
} fcase;

static const fcase fcases[] = {
    {2,
     {21, 16, 1},
     {1, 1, 0},
     {1, 1, 0},
     4,
     {{STENCIL_BOUNDARY_MIRROR, STENCIL_BOUNDARY_MIRROR},
      {STENCIL_BOUNDARY_PERIODIC, STENCIL_BOUNDARY_PERIODIC}},
     {{0}}},
    {2,
     {18, 23, 1},
     {1, 2, 0},
     {2, 1, 0},
     3,
     {{STENCIL_BOUNDARY_CONSTANT, STENCIL_BOUNDARY_FIXED},
      {STENCIL_BOUNDARY_MIRROR, STENCIL_BOUNDARY_CONSTANT}},
     {{0.75, 0}, {0, -2.5}}},
    {3,
     {10, 9, 11},
     {1, 1, 1},
     {1, 1, 1},
     7,
     {{STENCIL_BOUNDARY_PERIODIC, STENCIL_BOUNDARY_PERIODIC},
      {STENCIL_BOUNDARY_MIRROR, STENCIL_BOUNDARY_FIXED},
      {STENCIL_BOUNDARY_CONSTANT, STENCIL_BOUNDARY_MIRROR}},
     {{0}, {0}, {1.25, 0}}},
};
#define NF (int)(sizeof fcases / sizeof fcases[0])

/* Dense weights of case c: random, some zero (dropped points). */
static int dense(const fcase *c, double *w)
{
    int n = 1;
    for (int d = 0; d < c->ndims; d++) n *= c->rlo[d] + c->rhi[d] + 1;
    for (int i = 0; i < n; i++) {
        long g[3] = {i, 7, 3};
        double v = value(5, 0, g, 0);
        w[i] = v < 0.2 ? 0 : floor(v * 64) / 32 - 1;
    }
    return n;
}

static stencil_desc desc_of(const fcase *c, const double *w, int dbl)
{
    stencil_desc s;
    memset(&s, 0, sizeof s);
    s.ndims = c->ndims;
    for (int d = 0; d < 3; d++) s.radius_lo[d] = c->rlo[d], s.radius_hi[d] = c->rhi[d];
    s.weights = w;
    s.divisor = c->divisor;
    s.type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    return s;
}

/* Rounded to the element type: float operations computed in double and rounded each time are
   float's own (double holds more than 2p + 2 bits of float's p). */
static double rnd(int dbl, double x)
{
    return dbl ? x : (double)(float)x;
}

/* The non-zero points of case c in row-major order: offsets and weights. */
static int points(const fcase *c, const double *w, int (*off)[3], double *pw)
{
    int ext[3] = {1, 1, 1}, n = 0;
    for (int d = 0; d < c->ndims; d++) ext[d] = c->rlo[d] + c->rhi[d] + 1;
    for (int p = 0; p < ext[0] * ext[1] * ext[2]; p++) {
        if (w[p] == 0) continue;
        int q[3] = {p / (ext[1] * ext[2]), p / ext[2] % ext[1], p % ext[2]};
        for (int d = 0; d < 3; d++) off[n][d] = d < c->ndims ? q[d] - c->rlo[d] : 0;
        pw[n++] = w[p];
    }
    return n;
}

/* One step of the serial loop, a into b (whole grids, row-major, as doubles of T's values). */
static void serial_step(const fcase *c, const double *w, int dbl, const double *a, double *b)
{
    int off[400][3], fr[3][2] = {{0}}, nd = c->ndims;
    double pw[400];
    long n[3] = {1, 1, 1}, x[3], y[3];
    int np = points(c, w, off, pw);
    for (int d = 0; d < nd; d++) n[d] = c->n[d];
    for (int p = 0; p < np; p++)
        for (int d = 0; d < nd; d++) {
            if (-off[p][d] > fr[d][0]) fr[d][0] = -off[p][d];
            if (off[p][d] > fr[d][1]) fr[d][1] = off[p][d];
        }
    for (x[0] = 0; x[0] < n[0]; x[0]++)
        for (x[1] = 0; x[1] < n[1]; x[1]++)
            for (x[2] = 0; x[2] < n[2]; x[2]++) {
                long i = (x[0] * n[1] + x[1]) * n[2] + x[2];
                int keep = 0;
                for (int d = 0; d < nd; d++)
                    keep |= (c->face[d][0] == STENCIL_BOUNDARY_FIXED && x[d] < fr[d][0]) ||
                            (c->face[d][1] == STENCIL_BOUNDARY_FIXED && x[d] >= n[d] - fr[d][1]);
                if (keep) {
                    b[i] = a[i];
                    continue;
                }
                double acc = 0;
                for (int p = 0; p < np; p++) {
                    int isc = 0;
                    double cv = 0;
                    for (int d = 0; d < 3; d++) {
                        y[d] = x[d] + off[p][d];
                        if (y[d] >= 0 && y[d] < n[d]) continue;
                        int side = y[d] >= n[d], k = (int)c->face[d][side];
                        if (k == STENCIL_BOUNDARY_PERIODIC) y[d] = (y[d] + n[d]) % n[d];
                        if (k == STENCIL_BOUNDARY_MIRROR)
                            y[d] = side ? 2 * n[d] - 1 - y[d] : -1 - y[d];
                        if (k == STENCIL_BOUNDARY_CONSTANT)
                            isc = 1, cv = rnd(dbl, c->value[d][side]), y[d] = 0;
                    }
                    double v = isc ? cv : a[(y[0] * n[1] + y[1]) * n[2] + y[2]];
                    double t = rnd(dbl, rnd(dbl, pw[p]) * v);
                    acc = p == 0 ? t : rnd(dbl, acc + t);
                }
                b[i] = rnd(dbl, acc / rnd(dbl, c->divisor));
            }
}

typedef struct fctx {
    const fcase *c;
    const double *want; /* whole grid, as doubles */
    long bad;
} fctx;

static int finit(stencil_tile *t, void *user)
{
    fctx *f = user;
    if (t->field != NULL) return 1; /* a stencil run shows no field */
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long g[3] = {t->offset[0] + i, t->offset[1] + j, t->offset[2] + k};
                double v = value(0, 0, g, 0);
                long e = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[e] = v;
                else
                    ((float *)t->data)[e] = (float)v;
            }
    (void)f;
    return 0;
}

static int fcheck(const stencil_tile *t, void *user)
{
    fctx *f = user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long gi = ((t->offset[0] + i) * t->global_size[1] + t->offset[1] + j) *
                              t->global_size[2] +
                          t->offset[2] + k;
                long e = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                double v =
                    t->type == STENCIL_DOUBLE ? ((double *)t->data)[e] : ((float *)t->data)[e];
                f->bad += memcmp(&v, &f->want[gi], sizeof v) != 0;
            }
    return 0;
}

/* The whole grid after iters serial steps. */
static double *serial(const fcase *c, const double *w, int dbl, long iters)
{
    long total = c->n[0] * c->n[1] * c->n[2];
    double *a = malloc((size_t)total * sizeof *a), *b = malloc((size_t)total * sizeof *b);
    for (long i = 0; i < total; i++) {
        long g[3] = {i / (c->n[1] * c->n[2]), i / c->n[2] % c->n[1], i % c->n[2]};
        a[i] = rnd(dbl, value(0, 0, g, 0));
    }
    for (long t = 0; t < iters; t++) {
        serial_step(c, w, dbl, a, b);
        double *s = a;
        a = b, b = s;
    }
    free(b);
    return a;
}

static void face_opts(stencil_options *o, const fcase *c, int blocks)
{
    opts(o, blocks);
    memcpy(o->face, c->face, sizeof o->face);
    memcpy(o->face_value, c->value, sizeof o->face_value);
}

/* i: case, type, partition. */
START_TEST(faces_serial)
{
    const fcase *c = &fcases[_i / 4];
    int dbl = _i % 2, blocks = _i / 2 % 2;
    double w[400];
    dense(c, w);
    stencil_desc st = desc_of(c, w, dbl);
    const long iters = 5;
    fctx f = {.c = c, .want = serial(c, w, dbl, iters)};
    stencil_options o;
    face_opts(&o, c, blocks);
    o.user = &f;
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c->n, &st, iters, NULL, finit, fcheck, &o),
                     0);
    long bad = sum_long(f.bad);
    ck_assert_msg(bad == 0, "case %d %s %s: %ld cells differ", _i / 4, dbl ? "double" : "float",
                  blocks ? "blocks" : "bands", bad);
    free((void *)f.want);
}
END_TEST

/*
 * The same runs with a forced T = 3 (the faces' ghosts made again between the steps of a pass),
 * out of core at T = 1 and at T = 3 (the rows through the device in chunks, several of them),
 * bitwise the serial loop. Grids four times longer along dimension 0, so that parts hold a few
 * chunks. i: case, mode, type; blocks for odd modes.
 */
START_TEST(faces_steps_ooc)
{
    fcase c = fcases[_i / 6];
    int mode = _i / 2 % 3, dbl = _i % 2, T = mode == 1 ? 1 : 3, ooc = mode > 0;
    c.n[0] *= 4;
    double w[400];
    dense(&c, w);
    stencil_desc st = desc_of(&c, w, dbl);
    const long iters = 7;
    fctx f = {.c = &c, .want = serial(&c, w, dbl, iters)};
    stencil_options o;
    stencil_stats stats;
    face_opts(&o, &c, mode % 2);
    o.user = &f;
    o.stats = &stats;
    o.steps = T;
    if (ooc) {
        long row = (c.n[1] + 6) * (c.ndims > 2 ? c.n[2] + 6 : 1);
        o.out_of_core = 1;
        o.device_memory = 3 * 2 * (6 * T + 10) * row * (long long)(dbl ? 8 : 4);
    }
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c.n, &st, iters, NULL, finit, fcheck, &o), 0);
    ck_assert_msg(sum_long(f.bad) == 0, "case %d, T %d%s %s: %ld cells differ", _i / 6, T,
                  ooc ? " out of core" : "", dbl ? "double" : "float", sum_long(f.bad));
    ck_assert_int_eq(stats.ooc, ooc);
    ck_assert_msg(stats.steps == T || strstr(stats.steps_why, "too thin"), "steps %d (%s)",
                  stats.steps, stats.steps_why);
    if (ooc && nranks == 1) ck_assert_msg(stats.ooc_chunks > 1, "%d chunks", stats.ooc_chunks);
    free((void *)f.want);
}
END_TEST

/* Every face periodic: the run of options.boundary = periodic, bitwise. */
START_TEST(faces_periodic_same)
{
    fcase c = fcases[2];
    for (int d = 0; d < 3; d++) c.face[d][0] = c.face[d][1] = STENCIL_BOUNDARY_PERIODIC;
    double w[400];
    dense(&c, w);
    stencil_desc st = desc_of(&c, w, 1);
    fctx f = {.c = &c, .want = serial(&c, w, 1, 4)};
    stencil_options o;
    opts(&o, 1);
    o.boundary = STENCIL_BOUNDARY_PERIODIC;
    o.user = &f;
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c.n, &st, 4, NULL, finit, fcheck, &o), 0);
    ck_assert_int_eq(sum_long(f.bad), 0);
    face_opts(&o, &c, 1);
    o.user = &f;
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c.n, &st, 4, NULL, finit, fcheck, &o), 0);
    ck_assert_int_eq(sum_long(f.bad), 0);
    free((void *)f.want);
}
END_TEST

static char g_msg[512];

static void on_error(int code, const char *message, void *user)
{
    (void)code;
    (void)user;
    snprintf(g_msg, sizeof g_msg, "%s", message ? message : "");
}

/*
 * A registered kernel named with faces (issue 43): checked as a stencil run checks it, on every
 * rank with the same message (an unknown name: ENOKERNEL; a kernel of another stencil: EINVAL),
 * then the run gives the serial loop's bits. _i: case 1 (constant, mirror, fixed) in float, case
 * 2 (3D, periodic, mirror, constant) in double. The kernels have no code: with faces the run is
 * the stencil's program, which the registered code, under the same contract, would match.
 */
START_TEST(faces_named)
{
    static double w[2][400], other[2][400];
    static stencil_kernel k[2], ko[2];
    static char name[2][32], oname[2][32];
    const fcase *c = &fcases[1 + _i];
    int dbl = _i, n = dense(c, w[_i]);
    memcpy(other[_i], w[_i], sizeof other[_i]);
    other[_i][n / 2] += 0.5;
    stencil_desc st = desc_of(c, w[_i], dbl);
    snprintf(name[_i], sizeof name[_i], "face_named_%d", _i);
    snprintf(oname[_i], sizeof oname[_i], "face_other_%d", _i);
    k[_i].name = name[_i], k[_i].stencil = st;
    ko[_i].name = oname[_i], ko[_i].stencil = desc_of(c, other[_i], dbl);
    if (!stencil_find_kernel(name[_i])) {
        ck_assert_int_eq(stencil_register_kernel(&k[_i]), 0);
        ck_assert_int_eq(stencil_register_kernel(&ko[_i]), 0);
    }
    const long iters = 4;
    fctx f = {.c = c, .want = serial(c, w[_i], dbl, iters)};
    stencil_options o;
    face_opts(&o, c, 1);
    o.user = &f;
    o.on_error = on_error;
    stencil_stats stats;
    o.stats = &stats;
    ck_assert_int_eq(
        stencil_skeleton(MPI_COMM_WORLD, c->n, &st, iters, name[_i], finit, fcheck, &o), 0);
    ck_assert_int_eq(sum_long(f.bad), 0);
    ck_assert_str_ne(stats.kernel, "named"); /* the program's kernel ran */
    char want[256];
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c->n, &st, 1, oname[_i], finit, NULL, &o),
                     STENCIL_EINVAL);
    snprintf(want, sizeof want,
             "rank 0: kernel '%s' computes a different stencil than the one passed", oname[_i]);
    ck_assert_str_eq(g_msg, want);
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c->n, &st, 1, "nope", finit, NULL, &o),
                     STENCIL_ENOKERNEL);
    ck_assert_msg(!strncmp(g_msg, "rank 0: unknown kernel 'nope' (known: ", 38), "%s", g_msg);
    stencil_run *run = NULL;
    ck_assert_int_eq(
        stencil_create(MPI_COMM_WORLD, c->n, &st, rank ? name[_i] : NULL, finit, &o, &run),
        nranks > 1 ? STENCIL_EINVAL : 0);
    if (nranks > 1) ck_assert_str_eq(g_msg, "rank 0: ranks passed different kernel names");
    stencil_destroy(&run);
    free((void *)f.want);
}
END_TEST

START_TEST(faces_misuse)
{
    const fcase *c = &fcases[0];
    double w[400];
    dense(c, w);
    stencil_desc st = desc_of(c, w, 1);
    fctx f = {.c = c};
    stencil_options o;
    face_opts(&o, c, 0);
    o.user = &f;
    o.face[1][1] = STENCIL_BOUNDARY_MIRROR; /* periodic on one side only */
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c->n, &st, 1, NULL, finit, NULL, &o),
                     STENCIL_EINVAL);
    face_opts(&o, c, 0);
    o.face[2][0] = STENCIL_BOUNDARY_MIRROR; /* a dimension the stencil has not */
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c->n, &st, 1, NULL, finit, NULL, &o),
                     STENCIL_EINVAL);
    face_opts(&o, c, 0);
    o.face[0][0] = (stencil_boundary)7;
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c->n, &st, 1, NULL, finit, NULL, &o),
                     STENCIL_EINVAL);
    face_opts(&o, c, 0);
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_WORLD, c->n, &st, 1, "nope", finit, NULL, &o),
                     STENCIL_ENOKERNEL);
    stencil_run *run = NULL;
    ck_assert_int_eq(stencil_create(MPI_COMM_WORLD, c->n, &st, NULL, finit, &o, &run), 0);
    stencil_norm nr;
    ck_assert_int_eq(stencil_advance_norm(run, 2, &nr), 0);
    ck_assert(nr.max > 0 && nr.iteration == 2);
    ck_assert_int_eq(stencil_destroy(&run), 0);
    opts(&o, 0); /* a plain stencil run: one entry */
    o.user = &f;
    ck_assert_int_eq(stencil_create(MPI_COMM_WORLD, c->n, &st, NULL, finit, &o, &run), 0);
    ck_assert_int_eq(stencil_advance_norms(run, 2, &nr, 0), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_advance_norms(run, 2, &nr, 1), 0);
    ck_assert(nr.max > 0 && nr.iteration == 2);
    ck_assert_int_eq(stencil_run_set_param(run, "x", 1), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_destroy(&run), 0);
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_loop_test(tc, faces_serial, 0, 4 * NF);
    tcase_add_loop_test(tc, faces_steps_ooc, 0, 6 * NF);
    tcase_add_test(tc, faces_periodic_same);
    tcase_add_loop_test(tc, faces_named, 0, 2);
    tcase_add_test(tc, faces_misuse);
}

int main(int argc, char **argv)
{
    return tp_main(argc, argv, "stencil faces", add_tests, &rank, &nranks);
}
