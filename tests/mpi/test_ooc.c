/*
 * Out-of-core runs (options.out_of_core), under mpiexec -n 1..4, host or OpenCL
 * (STENCIL_BACKEND), against the independent serial reference on random data, bitwise:
 *   - forced by a device memory limit that gives each rank at least 8 chunks, 2D and 3D, fixed
 *     and periodic, bands and blocks, one step per sweep and the automatic choice (two);
 *   - a persistent run on a weighted partition: advances, a norm, a checkpoint and its load;
 *   - the automatic mode from the environment, and its choice of two steps per sweep;
 *   - the host copies in a memory-mapped file;
 *   - a part too large for the device and the host, a limit with out-of-core runs off, and
 *     calibrated weights out of core fail with the same code on every rank.
 * Every assertion is on an allreduced value.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil_set.h"
#include "testutil.h"

static char dir[256];

static const char *backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

static const char *const names[] = {"2d9nc", "2d5asym", "3d27", "3d-oct", "1d-wide"};
static const long sizes1[3] = {301, 1, 1}, sizes2[3] = {101, 26, 1}, sizes3[3] = {64, 10, 8};

/*
 * A limit for three chunk buffers of 1 + T * (rlo0 + rhi0) rows of the widest row a rank can have
 * (no dimension but 0 cut; halos only when periodic): a few rows per chunk on any partition.
 */
static long long limit_for(const stencil_desc *st, const long *sizes, int T, int periodic)
{
    size_t es = st->type == STENCIL_DOUBLE ? 8 : 4, row = es;
    const char *e = getenv("STENCIL_ROW_ALIGN"); /* rows padded to a multiple of it (these are
                                                    too short for the 2D padding; 3D rows go
                                                    to a multiple of 4) */
    long a = e ? atol(e) : st->ndims == 3 ? 4 : 1;
    for (int d = 1; d < st->ndims; d++) {
        long n = sizes[d] + periodic * (long)T * (st->radius_lo[d] + st->radius_hi[d]);
        if (d == st->ndims - 1 && a > 1) n = (n + a - 1) / a * a;
        row *= (size_t)n;
    }
    return 3LL * (long long)(row * (size_t)(1 + T * (st->radius_lo[0] + st->radius_hi[0])));
}

static void options(stencil_options *o, tu_check_ctx *c, stencil_stats *s)
{
    stencil_options_init(o);
    o->backend = backend();
    o->out_of_core = 1;
    o->stats = s;
    o->user = c;
}

/* T was chosen for out-of-core sweeps (stats.steps_why), within 1..128. */
static int out_of_core_steps(const stencil_stats *s)
{
    return s->steps >= 1 && s->steps <= 128 && !strncmp(s->steps_why, "out of core", 11);
}

/*
 * One forced out-of-core run against the reference; returns the wrong cells over all ranks. room:
 * the device memory limit times this, beyond the tight one (0: the tight one).
 */
static long run_case(int si, int bnd, int part, int fuse, int room, stencil_stats *s, int *rc)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find(names[si]), si & 1 ? STENCIL_DOUBLE : STENCIL_FLOAT, &st);
    const long *sizes = st.ndims == 1 ? sizes1 : st.ndims == 2 ? sizes2 : sizes3;
    tu_check_ctx c = {.seed = 77u + (unsigned long)si, .bad = -1};
    double *g = tu_random_grid(st.ndims, sizes, c.seed);
    tu_reference(&st, sizes, bnd, 7, g);
    c.ref = g;
    stencil_options o;
    options(&o, &c, s);
    o.boundary = bnd ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED;
    o.partition = part ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
    o.fuse = fuse;
    o.device_memory = limit_for(&st, sizes, fuse ? fuse : 2, bnd) * (room ? room : 1);
    if (getenv("STENCIL_OOC")) o.out_of_core = o.device_memory = 0; /* the environment's */
    *rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 7, NULL, tu_init_cb, tu_check_cb, &o);
    free(g);
    return tu_allsum(MPI_COMM_WORLD, c.bad < 0 ? 1 : c.bad);
}

/* _i: stencil (5) x boundary x partition x steps per sweep (1, automatic). */
START_TEST(bitwise)
{
    int si = _i / 8, bnd = (_i / 4) & 1, part = (_i / 2) & 1, fuse = _i & 1 ? 0 : 1;
    stencil_stats s;
    int rc;
    long bad = run_case(si, bnd, part, fuse, 0, &s, &rc);
    ck_assert_msg(rc == 0, "%s: stencil_skeleton returned %s", names[si], stencil_strerror(rc));
    long few = tu_allsum(MPI_COMM_WORLD,
                         s.ooc != 1 || s.ooc_chunks < 8 || strcmp(s.backend, backend()) != 0);
    /* automatic: the T the sweeps' probe wants, or two before it (the reason says which) */
    long t = tu_allsum(MPI_COMM_WORLD, fuse ? s.steps != 1 : !out_of_core_steps(&s));
    ck_assert_msg(bad == 0, "%s bnd %d part %d fuse %d: %ld cells differ", names[si], bnd, part,
                  fuse, bad);
    ck_assert_msg(few == 0,
                  "%s: %ld ranks not out of core on their backend, or with fewer than 8 chunks",
                  names[si], few);
    ck_assert_msg(t == 0, "%s: %ld ranks ran another T", names[si], t);
    long moved = tu_allsum(MPI_COMM_WORLD, s.ooc_up > 0 && s.ooc_down > 0 ? 0 : 1);
    ck_assert_msg(moved == 0, "%ld ranks report no transfers", moved);
}
END_TEST

/*
 * _i: stencil (5) x boundary x partition, T = 3 with room for parallelogram chunks (ooc_chunk.c:
 * levels handed between chunks on the device), at least 2 chunks on some rank.
 */
START_TEST(parallelograms)
{
    int si = _i / 4, bnd = (_i / 2) & 1, part = _i & 1;
    stencil_stats s;
    int rc;
    long bad = run_case(si, bnd, part, 3, 3, &s, &rc);
    ck_assert_msg(rc == 0, "%s: stencil_skeleton returned %s", names[si], stencil_strerror(rc));
    long few = tu_allsum(MPI_COMM_WORLD, s.ooc != 1 || s.steps != 3);
    long carried = tu_allsum(MPI_COMM_WORLD, s.ooc_chunks >= 2);
    ck_assert_msg(bad == 0, "%s bnd %d part %d: %ld cells differ", names[si], bnd, part, bad);
    ck_assert_msg(few == 0, "%s: %ld ranks not out of core or with T != 3", names[si], few);
    ck_assert_msg(carried > 0, "%s: no rank with two chunks or more", names[si]);
}
END_TEST

/* Persistent, weighted: 3 + (2 with a norm) iterations, checkpoint at 3, load, 2 again: bitwise. */
START_TEST(persistent)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9nc"), STENCIL_DOUBLE, &st);
    tu_check_ctx c = {.seed = 5, .bad = -1};
    double *g = tu_random_grid(2, sizes2, c.seed);
    tu_reference(&st, sizes2, 1, 5, g);
    c.ref = g;
    stencil_stats s;
    stencil_options o;
    options(&o, &c, &s);
    o.boundary = STENCIL_BOUNDARY_PERIODIC;
    o.device_memory = limit_for(&st, sizes2, 2, 1);
    double w[4] = {1, 2, 3, 1.5}; /* a weighted partition (up to 4 ranks) */
    o.rank_weights = w;
    stencil_run *run = NULL;
    stencil_norm n;
    char ck[300];
    snprintf(ck, sizeof ck, "%s/ooc.ck", dir);
    int rc = stencil_create(MPI_COMM_WORLD, sizes2, &st, NULL, tu_init_cb, &o, &run);
    if (!rc) rc = stencil_advance(run, 3);
    if (!rc) rc = stencil_checkpoint(run, ck);
    if (!rc) rc = stencil_advance_norm(run, 2, &n);
    if (!rc) rc = stencil_view(run, tu_check_cb);
    long bad1 = tu_allsum(MPI_COMM_WORLD, c.bad < 0 ? 1 : c.bad);
    c.bad = -1;
    if (!rc) rc = stencil_load(run, ck);
    if (!rc) rc = stencil_advance(run, 2);
    if (!rc) rc = stencil_view(run, tu_check_cb);
    long bad2 = tu_allsum(MPI_COMM_WORLD, c.bad < 0 ? 1 : c.bad);
    stencil_destroy(&run);
    free(g);
    ck_assert_msg(rc == 0, "persistent out-of-core run: %s", stencil_strerror(rc));
    ck_assert_msg(bad1 == 0 && bad2 == 0, "%ld / %ld cells differ", bad1, bad2);
    ck_assert_msg(n.iteration == 5 && n.max > 0 && n.l2 > 0, "norm at %ld: %g %g", n.iteration,
                  n.l2, n.max);
}
END_TEST

/* Automatic: a limit from the environment smaller than the part starts it (with T = 2 when the
   steps are left free); a larger one does not. */
START_TEST(automatic)
{
    stencil_stats s;
    int rc;
    int padded = getenv("STENCIL_ROW_ALIGN") != NULL; /* longer rows: twice the limits */
    setenv("STENCIL_DEVICE_MEMORY", padded ? "6k" : "3k", 1);
    setenv("STENCIL_OOC", "auto", 1);
    long bad = run_case(0, 0, 0, 1, 0, &s, &rc);
    long ooc = tu_allsum(MPI_COMM_WORLD, s.ooc);
    /* T automatic, for the sweeps: all ranks are out */
    setenv("STENCIL_DEVICE_MEMORY", padded ? "8k" : "4k", 1);
    long bad3 = run_case(0, 0, 0, 0, 0, &s, &rc);
    long t2 = tu_allsum(MPI_COMM_WORLD, s.ooc == 1 && out_of_core_steps(&s) ? 0 : 1);
    ck_assert_msg(rc == 0 && bad3 == 0 && t2 == 0,
                  "%s, %ld cells differ, %ld ranks without the out-of-core T", stencil_strerror(rc),
                  bad3, t2);
    setenv("STENCIL_DEVICE_MEMORY", "1G", 1);
    long bad2 = run_case(0, 0, 0, 1, 0, &s, &rc);
    long ooc2 = tu_allsum(MPI_COMM_WORLD, s.ooc);
    unsetenv("STENCIL_DEVICE_MEMORY");
    unsetenv("STENCIL_OOC");
    ck_assert_msg(rc == 0 && bad == 0 && bad2 == 0, "%s, %ld / %ld cells differ",
                  stencil_strerror(rc), bad, bad2);
    ck_assert_msg(ooc == tu_allsum(MPI_COMM_WORLD, 1) && ooc2 == 0, "%ld / %ld ranks out of core",
                  ooc, ooc2);
}
END_TEST

START_TEST(file_backed)
{
    stencil_stats s;
    int rc;
    char base[300];
    snprintf(base, sizeof base, "%s/ooc-map", dir);
    setenv("STENCIL_OOC_FILE", base, 1);
    long bad = run_case(2, 1, 1, 0, 0, &s, &rc);
    unsetenv("STENCIL_OOC_FILE");
    ck_assert_msg(rc == 0, "file-backed run: %s", stencil_strerror(rc));
    ck_assert_msg(bad == 0, "file-backed run: %ld cells differ", bad);
}
END_TEST

static char errmsg[256];
static void on_error(int code, const char *msg, void *user)
{
    (void)code;
    (void)user;
    snprintf(errmsg, sizeof errmsg, "%s", msg);
}

/* 2^22 x 2^22 floats (64 TiB per time level): neither a 1 GiB device nor the host holds it. */
START_TEST(too_large)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &st);
    long sizes[2] = {1L << 22, 1L << 22};
    tu_check_ctx c = {.seed = 1, .bad = -1};
    stencil_options o;
    options(&o, &c, NULL);
    o.out_of_core = 0;
    o.device_memory = 1LL << 30;
    o.on_error = on_error;
    errmsg[0] = 0;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 1, NULL, tu_init_cb, NULL, &o);
    long wrong = tu_allsum(MPI_COMM_WORLD, rc != STENCIL_ENOMEM || !strstr(errmsg, "bytes"));
    ck_assert_msg(wrong == 0, "returned %d (%s), message '%s'", rc, stencil_strerror(rc), errmsg);
    o.out_of_core = -1; /* off: the limit is an error of its own */
    o.device_memory = 1000;
    rc = stencil_skeleton(MPI_COMM_WORLD, sizes2, &st, 1, NULL, tu_init_cb, NULL, &o);
    wrong = tu_allsum(MPI_COMM_WORLD, rc != STENCIL_EDEVMEM);
    ck_assert_msg(wrong == 0, "out_of_core off over the limit returned %d", rc);
    o.out_of_core = 1; /* calibrated weights time a whole part on the device: refused */
    o.weights_auto = 1;
    rc = stencil_skeleton(MPI_COMM_WORLD, sizes2, &st, 1, NULL, tu_init_cb, NULL, &o);
    wrong = tu_allsum(MPI_COMM_WORLD, rc != STENCIL_EINVAL || !strstr(errmsg, "weights"));
    ck_assert_msg(wrong == 0, "weights_auto out of core returned %d (%s)", rc, errmsg);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tu_scratch_make(MPI_COMM_WORLD, "stencil-ooc", dir, sizeof dir);
    Suite *s = suite_create("ooc");
    TCase *tc = tcase_create("out-of-core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, bitwise, 0, 40);
    tcase_add_loop_test(tc, parallelograms, 0, 20);
    tcase_add_test(tc, automatic);
    tcase_add_test(tc, persistent);
    tcase_add_test(tc, file_backed);
    tcase_add_test(tc, too_large);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK); /* MPI processes must not fork */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    const char *const files[] = {"ooc.ck"};
    tu_scratch_remove(MPI_COMM_WORLD, dir, files, 1);
    MPI_Finalize();
    return failed ? 1 : 0;
}
