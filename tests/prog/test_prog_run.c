/*
 * Programs run through the library (stencil_program_*), under mpiexec -n 1..4 on the backend
 * of $STENCIL_BACKEND (host in CI), bands and blocks, float and double, against a serial reference
 * on random data: the whole grid stepped by kgt's reference interpreter (kgt_prog_eval_step), which
 * applies the boundaries itself and knows nothing of partitions, halos or ghosts. The programs
 * cover coefficient fields, a previous level, parameters, the index and the time, comparisons and
 * selects, diagonal reads, and every boundary kind (fixed, periodic, mirror, constant, and
 * mixed per dimension). Bitwise. Also: a persistent run split into advances with a parameter
 * changed between them, per-field norms, automatic weights, and misuse. Every assertion is on
 * allreduced values.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "prog_ref.h"

static int rank, nranks;

/* i: case, type, partition. The whole run through stencil_program_skeleton. */
START_TEST(skeleton_bitwise)
{
    const prog_case *pc = &tp_cases[_i / 4];
    int dbl = _i % 2, blocks = _i / 2 % 2;
    const long iters = 6;
    stencil_program *p = parse(pc->text);
    ref R;
    ref_init(&R, pc, dbl);
    for (long t = 0; t < iters; t++) ref_step(&R, t);
    ctx c = {.prog = p, .binary = pc->binary, .dbl = dbl};
    memcpy(c.ref, R.cur, sizeof c.ref);
    stencil_options o;
    opts(&o, blocks);
    o.user = &c;
    int rc = stencil_program_skeleton(
        MPI_COMM_WORLD, pc->n, p, dbl ? STENCIL_DOUBLE : STENCIL_FLOAT, iters, init, check_out, &o);
    ck_assert_int_eq(rc, 0);
    long bad = sum_long(c.bad), seen = sum_long(c.seen);
    ck_assert_msg(bad == 0, "%s %s %s: %ld of %ld cells differ", R.p->name,
                  dbl ? "double" : "float", blocks ? "blocks" : "bands", bad, seen);
    ck_assert_int_eq(seen, R.total * stencil_program_nfields(p));
    ref_free(&R);
    stencil_program_free(p);
}
END_TEST

/* A persistent run: advances of 2, 1, then a parameter changed, then norms of the last step. */
START_TEST(persistent_params)
{
    const prog_case *pc = &tp_cases[_i / 2];
    int dbl = 1, blocks = _i % 2;
    stencil_program *p = parse(pc->text);
    ref R;
    ref_init(&R, pc, dbl);
    stencil_options o;
    opts(&o, blocks);
    o.steps = blocks ? 3 : 0; /* forced T > 1 (test_prog_steps.c): bitwise the same */
    double w[8] = {1, 2, 1.5, 3, 1, 1, 1, 1};
    if (!blocks && nranks <= 8) o.rank_weights = w;
    o.peer = blocks ? 0 : -1; /* self halos through MPI, or copied on the device */
    ctx c = {.prog = p, .binary = pc->binary, .dbl = dbl};
    o.user = &c;
    stencil_run *run = NULL;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, pc->n, p, STENCIL_DOUBLE, init, &o, &run), 0);
    stencil_program_free(p); /* the run keeps its own copy */
    p = parse(pc->text);
    c.prog = p;
    ck_assert_int_eq(stencil_advance(run, 2), 0);
    ck_assert_int_eq(stencil_advance(run, 1), 0);
    for (long t = 0; t < 3; t++) ref_step(&R, t);
    if (R.p->npar > 0) {
        ck_assert_int_eq(stencil_run_set_param(run, R.p->par[0].name, 0.125), 0);
        R.par[0] = 0.125;
    }
    stencil_norm nr[KGT_PROG_MAX_FIELDS];
    ck_assert_int_eq(stencil_advance_norms(run, 3, nr, KGT_PROG_MAX_FIELDS), 0);
    for (long t = 3; t < 6; t++) ref_step(&R, t);
    for (int f = 0; f < R.p->nf; f++) {
        if (R.p->f[f].coef) {
            ck_assert(nr[f].l2 == 0 && nr[f].max == 0);
            continue;
        }
        ck_assert_msg(nr[f].max == R.max[f], "field %d max %g, expected %g", f, nr[f].max,
                      R.max[f]);
        ck_assert(fabs(nr[f].l2 - R.l2[f]) <= 1e-12 * (R.l2[f] + 1e-300));
        ck_assert_int_eq(nr[f].iteration, 6);
    }
    memcpy(c.ref, R.cur, sizeof c.ref);
    ck_assert_int_eq(stencil_view(run, check_out), 0);
    ck_assert_int_eq(sum_long(c.bad), 0);
    stencil_stats st;
    ck_assert_int_eq(stencil_run_stats(run, &st), 0);
    ck_assert(st.cells > 0 && st.nranks == nranks);
    ck_assert_msg(st.steps == (blocks ? 3 : 1) || (blocks && strstr(st.steps_why, "too thin")),
                  "%s: steps %d (%s)", R.p->name, st.steps, st.steps_why);
    long iter = 0;
    ck_assert_int_eq(stencil_iteration(run, &iter), 0);
    ck_assert_int_eq(iter, 6);
    ck_assert_int_eq(stencil_destroy(&run), 0);
    ref_free(&R);
    stencil_program_free(p);
}
END_TEST

/* Fails on the last rank only: every rank gets the error. */
static int fail_init(stencil_tile *t, void *user)
{
    (void)user;
    return t->rank == nranks - 1;
}

START_TEST(misuse)
{
    char msg[256];
    stencil_program *p = NULL;
    ck_assert_int_eq(stencil_program_parse("program x\n  dims 2\n  field u\n  update u = u + "
                                           "q\nend\n",
                                           &p, msg, sizeof msg),
                     STENCIL_EFORMAT);
    ck_assert_ptr_null(p);
    ck_assert_msg(strncmp(msg, "4:", 2) == 0 && strstr(msg, "q"), "message: %s", msg);
    p = parse(tp_cases[0].text);
    ck_assert_int_eq(stencil_program_ndims(p), 2);
    ck_assert_str_eq(stencil_program_name(p), "heat");
    ck_assert_int_eq(stencil_program_nfields(p), 2);
    ck_assert_str_eq(stencil_program_field(p, 1), "k");
    ck_assert_ptr_null(stencil_program_field(p, 2));
    ck_assert_int_eq(stencil_program_is_coef(p, 1), 1);
    ck_assert_int_eq(stencil_program_find_field(p, "nope"), -1);
    double v = 0;
    ck_assert_int_eq(stencil_program_get_param(p, "dt", &v), 0);
    ck_assert(v == 0.1);
    ck_assert_int_eq(stencil_program_set_param(p, "dt", NAN), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_program_set_param(p, "nope", 1), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_program_set_param(p, "dt", 0.2), 0);
    stencil_options o;
    opts(&o, 0);
    stencil_run *run = NULL;
    long n[2] = {12, 10};
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, n, p, STENCIL_FLOAT, tp_noop_init, &o, &run), 0);
    ck_assert_int_eq(stencil_run_set_param(run, "nope", 1), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_run_set_param(run, "dt", rank == 0 ? 1.0 : 2.0),
                     nranks > 1 ? STENCIL_EINVAL : 0);
    stencil_norm one;
    ck_assert_int_eq(stencil_advance_norms(run, 1, &one, 1), STENCIL_EINVAL);
    if (!stencil_have_hdf5()) ck_assert_int_eq(stencil_checkpoint(run, "x.h5"), STENCIL_ENOSYS);
    ck_assert_int_eq(stencil_advance_norm(run, 2, &one), 0);
    ck_assert_int_eq(one.iteration, 2);
    stencil_destroy(&run);
    if (strcmp(test_backend(), "host") == 0) { /* a device failure on one rank, mid-run */
        if (rank == nranks - 1) setenv("STENCIL_HOST_FAIL", "3", 1);
        ck_assert_int_eq(
            stencil_program_create(MPI_COMM_WORLD, n, p, STENCIL_FLOAT, tp_noop_init, &o, &run), 0);
        unsetenv("STENCIL_HOST_FAIL");
        ck_assert_int_eq(stencil_advance(run, 5), STENCIL_EDEVICE);
        ck_assert_int_eq(stencil_advance(run, 1), STENCIL_EINVAL); /* the run failed */
        ck_assert_int_eq(stencil_destroy(&run), 0);
    }
    o.steps = -1;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, n, p, STENCIL_FLOAT, tp_noop_init, &o, &run),
        STENCIL_EINVAL);
    ck_assert_ptr_null(run);
    o.steps = 0;
    /* bands (or, on one rank, a periodic grid) thinner than gs's reach (2) along i: refused */
    long thin[2] = {nranks * 2 - 1, 18};
    stencil_program *gs = parse(tp_cases[2].text);
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, thin, gs, STENCIL_FLOAT, tp_noop_init, &o, &run),
        STENCIL_EPARTITION);
    ck_assert_ptr_null(run);
    stencil_program_free(gs);
    stencil_destroy(&run);
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, n, p, STENCIL_FLOAT, fail_init, &o, &run),
        STENCIL_ECALLBACK);
    ck_assert_ptr_null(run);
    o.backend = "nope";
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, n, p, STENCIL_FLOAT, tp_noop_init, &o, &run),
        STENCIL_ENOBACKEND);
    o.backend = test_backend();
    long other[2] = {12, rank == 0 ? 10 : 11};
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, other, p, STENCIL_FLOAT, tp_noop_init, &o, &run),
        nranks > 1 ? STENCIL_EINVAL : 0);
    stencil_destroy(&run);
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, n, NULL, STENCIL_FLOAT, tp_noop_init, &o, &run),
        STENCIL_EINVAL);
    stencil_program_free(p);
}
END_TEST

/*
 * Halos exactly as the reads need: a field read towards i- only sends one row towards i+, a
 * field read at offset 0 only sends nothing, and the result is still the reference's. With
 * T = 2 steps per exchange (_i 1), exactly what two composed steps read: u two rows, and v one
 * (through u's update of the first step), three rows per exchange, one per pass.
 */
START_TEST(exact_halos)
{
    int T = 1 + _i;
    const prog_case pc = {"program one\n"
                          "  dims 2\n"
                          "  field u\n"
                          "  field v\n"
                          "  update u = 0.5 * u[-1,0] + 0.25 * u + v\n"
                          "  update v = v * 0.5 + u\n"
                          "end\n",
                          {4 * nranks + 3, 11, 1},
                          0};
    const long iters = 6;
    stencil_program *p = parse(pc.text);
    ref R;
    ref_init(&R, &pc, 1);
    for (long t = 0; t < iters; t++) ref_step(&R, t);
    ctx c = {.prog = p, .dbl = 1};
    memcpy(c.ref, R.cur, sizeof c.ref);
    stencil_options o;
    opts(&o, 0);
    o.progress = 3; /* a line on stderr at iteration 3 */
    o.steps = T;
    o.user = &c;
    stencil_run *run = NULL;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, pc.n, p, STENCIL_DOUBLE, init, &o, &run), 0);
    ck_assert_int_eq(stencil_advance(run, iters), 0);
    ck_assert_int_eq(stencil_view(run, check_out), 0);
    ck_assert_int_eq(sum_long(c.bad), 0);
    stencil_stats st;
    ck_assert_int_eq(stencil_run_stats(run, &st), 0);
    ck_assert_int_eq(st.steps, T);
    long bytes = sum_long((long)st.bytes_sent), rows = T == 1 ? 1 : 3;
    /* one exchange at set-up, one per pass */
    ck_assert_int_eq(bytes, (iters / T + 1) * (nranks - 1) * rows * pc.n[1] * (long)sizeof(double));
    stencil_destroy(&run);
    ref_free(&R);
    stencil_program_free(p);
}
END_TEST

/*
 * options.weights_auto (issue 43): the calibration times the program's own steps, and the run on
 * the measured weights is bitwise the run on equal weights and the reference. On the host,
 * rank 0 repeats each update 4 times (STENCIL_HOST_REPEAT) and must get a smaller share. _i:
 * mixed in double (two fields, a previous level, a coefficient), chan3 (3D) in float, bands
 * and blocks. Out of core it is refused, as for a stencil.
 */
START_TEST(weights_auto)
{
    prog_case big = tp_cases[_i % 2 ? 7 : 5], *pc = &big;
    big.n[0] = 96; /* room for a slow or starved rank's thin part on up to 4 ranks */
    big.n[1] = _i % 2 ? 12 : 30;
    int dbl = _i % 2 == 0;
    stencil_type type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    tp_env e;
    tp_begin(&e, pc, dbl, _i / 2);
    tp_grid equal, measured;
    tp_grid_pair(&equal, &measured, &e);
    stencil_stats st;
    e.o.stats = &st;
    e.o.user = &equal;
    ck_assert_int_eq(
        stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, type, 5, init, tp_grid_out, &e.o), 0);
    ck_assert_int_eq(st.calib_rounds, 0);
    e.o.weights_auto = 1;
    e.o.user = &measured;
    int host = !strcmp(test_backend(), "host"), slow = nranks > 1 && rank == 0 && host;
    if (slow) setenv("STENCIL_HOST_REPEAT", "4", 1);
    ck_assert_int_eq(
        stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, type, 5, init, tp_grid_out, &e.o), 0);
    if (slow) unsetenv("STENCIL_HOST_REPEAT");
    ck_assert_int_ge(st.calib_rounds, 1);
    ck_assert(st.weight > 0);
    double w0 = st.weight, wmax = st.weight;
    MPI_Bcast(&w0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &wmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (nranks > 1 && host)
        ck_assert_msg(w0 * 1.5 < wmax, "slow rank weight %g, fastest %g", w0, wmax);
    tp_grid_sync(&equal, MPI_COMM_WORLD);
    tp_grid_sync(&measured, MPI_COMM_WORLD);
    ck_assert_int_eq(tp_grid_diff(&equal, &measured), 0);
    for (long t = 0; t < 5; t++) ref_step(&e.R, t);
    tp_grid_check(&measured, &e.R, &e.c);
    ck_assert_int_eq(e.c.bad, 0);
    ck_assert_int_eq(e.c.seen, e.R.total * stencil_program_nfields(e.p));
    e.o.out_of_core = 1; /* as for a stencil: give the weights out of core */
    e.o.user = &e.c;
    ck_assert_int_eq(
        stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, type, 1, init, NULL, &e.o),
        STENCIL_EINVAL);
    tp_grid_free(&equal);
    tp_grid_free(&measured);
    tp_end(&e);
}
END_TEST

/* A rank that runs 400 times slower while timed (the host's STENCIL_HOST_REPEAT) measures a share
   thinner than one row of a small grid: the measured weights move towards their mean until every
   part holds, and the run is the reference's. i: case. */
START_TEST(weights_auto_starved)
{
    if (strcmp(test_backend(), "host") || nranks < 2) return;
    prog_case small = tp_cases[_i ? 7 : 5], *pc = &small;
    small.n[0] = 8 * nranks;
    small.n[1] = 12;
    tp_env e;
    tp_begin(&e, pc, 0, 0);
    tp_grid g;
    tp_grid_init(&g, &e);
    stencil_stats st;
    e.o.stats = &st;
    e.o.weights_auto = 1;
    e.o.user = &g;
    if (rank == 0) setenv("STENCIL_HOST_REPEAT", "400", 1);
    int rc = stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, STENCIL_FLOAT, 5, init,
                                      tp_grid_out, &e.o);
    if (rank == 0) unsetenv("STENCIL_HOST_REPEAT");
    ck_assert_int_eq(rc, 0);
    ck_assert_int_ge(st.calib_rounds, 1);
    tp_grid_sync(&g, MPI_COMM_WORLD);
    for (long t = 0; t < 5; t++) ref_step(&e.R, t);
    tp_grid_check(&g, &e.R, &e.c);
    ck_assert_int_eq(e.c.bad, 0);
    ck_assert_int_eq(e.c.seen, e.R.total * stencil_program_nfields(e.p));
    tp_grid_free(&g);
    tp_end(&e);
}
END_TEST

/* The callbacks' view of the fields, in the order they were called on this rank. */
typedef struct seen {
    ctx c; /* init's, first */
    char log[512];
} seen;

static void note(seen *s, const stencil_tile *t, const char *who)
{
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s %s %d %ld%s;", who, t->field ? t->field : "-",
             t->level, t->iteration, t->data ? "" : " no data");
}

static int init_seen(stencil_tile *t, void *user)
{
    note(user, t, "init");
    return init(t, user);
}

static int output_seen(const stencil_tile *t, void *user)
{
    note(user, t, "out");
    return check_out(t, user);
}

/*
 * Issue 43: each callback sees each field's tile by name, with its level, on every rank: init
 * every field in declaration order (a field that keeps its previous level once more at level
 * -1), output every field once at level 0 with the iteration, each tile its field's data.
 */
START_TEST(callbacks_by_name)
{
    const prog_case *pc = &tp_cases[5]; /* mixed: a (prev), b, coefficient m */
    tp_env e;
    tp_begin(&e, pc, 1, 1);
    seen s = {.c = e.c};
    for (long t = 0; t < 3; t++) ref_step(&e.R, t);
    memcpy(s.c.ref, e.R.cur, sizeof s.c.ref);
    e.o.user = &s;
    ck_assert_int_eq(stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, STENCIL_DOUBLE, 3,
                                              init_seen, output_seen, &e.o),
                     0);
    ck_assert_str_eq(s.log, "init a 0 0;init a -1 0;init b 0 0;init m 0 0;"
                            "out a 0 3;out b 0 3;out m 0 3;");
    ck_assert_int_eq(sum_long(s.c.bad), 0);
    ck_assert_int_eq(sum_long(s.c.seen), e.R.total * 3);
    tp_end(&e);
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_loop_test(tc, skeleton_bitwise, 0, 4 * tp_ncases);
    tcase_add_loop_test(tc, persistent_params, 0, 2 * tp_ncases);
    tcase_add_test(tc, misuse);
    tcase_add_loop_test(tc, exact_halos, 0, 2);
    tcase_add_loop_test(tc, weights_auto, 0, 4);
    tcase_add_loop_test(tc, weights_auto_starved, 0, 2);
    tcase_add_test(tc, callbacks_by_name);
}

int main(int argc, char **argv)
{
    return tp_main(argc, argv, "program runs", add_tests, &rank, &nranks);
}
