/*
 * stats.t_checkpoint and stats.t_output, and the progress line's time left, under mpiexec -n 1..4
 * (host or OpenCL, STENCIL_BACKEND):
 *   - a skeleton run with checkpoints and an output callback: both times are at least what the
 *     test itself measured around its callback, and with t_setup and t_loop within t_total;
 *     the run ends bitwise at the serial reference; without them both are 0;
 *   - a persistent run: stencil_checkpoint and stencil_view are timed the same way;
 *   - sk_time_left counts the checkpoints still to come (a restart's included) at the mean time
 *     of those written, and the outputs still to come (monitor calls, the output callback) at
 *     the mean time of those timed, and nothing but the iterations in a persistent run;
 *   - a skeleton's progress lines on rank 0: once a monitor (an output) has been timed, the
 *     time left holds the monitor calls and the output still to come, and stats.t_output
 *     holds the monitor calls' time.
 * Every assertion is on an allreduced value. No timing thresholds: only lower bounds that the
 * test's own clock readings imply.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cksuite.h"
#include "skel.h"
#include "stencil_set.h"
#include "testutil.h"

static char dir[256];
static const long sizes[2] = {40, 28};

typedef struct out_ctx {
    tu_check_ctx c;
    double spent; /* seconds inside the output callback, measured here */
    int calls;
    double nap; /* the monitor's sleep (monitor_cb) */
} out_ctx;

/* The reference check, then a short sleep, so that the output has a time of its own. */
static int output_cb(const stencil_tile *t, void *user)
{
    out_ctx *o = user;
    double t0 = MPI_Wtime();
    int rc = tu_check_cb(t, &o->c);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    o->spent += MPI_Wtime() - t0;
    o->calls++;
    return rc;
}

/*
 * The monitor: a nap of its own, timed into mon_ctx (opt.user is the output's context), so
 * that the outputs to come weigh in the time left.
 */
static out_ctx *mon_ctx;
static int monitor_cb(const stencil_tile *t, const stencil_norm *change, void *user)
{
    out_ctx *m = mon_ctx;
    double t0 = MPI_Wtime();
    struct timespec nap = {0, (long)(m->nap * 1e9)};
    nanosleep(&nap, NULL);
    m->spent += MPI_Wtime() - t0;
    m->calls++;
    (void)t, (void)change, (void)user;
    return 0;
}

static int init_cb(stencil_tile *t, void *user)
{
    return tu_init_cb(t, &((out_ctx *)user)->c);
}

static long bad_times(const stencil_stats *s, const out_ctx *o, int ckpt, int out)
{
    long bad = 0;
    if (ckpt)
        bad += !(s->t_checkpoint > 0);
    else
        bad += s->t_checkpoint != 0;
    if (out)
        bad += !(s->t_output >= o->spent) + (o->calls < 1);
    else
        bad += s->t_output != 0;
    bad += !(s->t_setup + s->t_checkpoint + s->t_output <= s->t_total);
    return bad;
}

/*
 * Stencil name of the set in type t, its reference grid after iters steps (returned: the caller
 * frees it), a context checking against it, options with that context and the boundary, and
 * the path of file in the scratch folder.
 */
static double *fixture(const char *name, stencil_type t, int periodic, long iters, const char *file,
                       stencil_desc *st, out_ctx *o, stencil_options *opt, char path[300])
{
    unsigned long seed = 7 + (unsigned long)iters;
    stencil_set_get(stencil_set_find(name), t, st);
    double *ref = tu_random_grid(2, sizes, seed);
    tu_reference(st, sizes, periodic, iters, ref);
    memset(o, 0, sizeof *o);
    o->c.seed = seed;
    o->c.ref = ref;
    o->c.bad = -1;
    snprintf(path, 300, "%s/%s", dir, file);
    stencil_options_init(opt);
    opt->user = o;
    opt->boundary = periodic ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED;
    return ref;
}

/* A skeleton of 12 iterations: with a checkpoint every 5 (3 files: 5, 10, 12) and an output. */
static long skeleton(int ckpt, int out)
{
    stencil_desc st;
    out_ctx o;
    stencil_options opt;
    char path[300];
    double *ref = fixture("2d4", STENCIL_DOUBLE, 0, 12, "ck.sten", &st, &o, &opt, path);
    stencil_stats s;
    opt.stats = &s;
    if (ckpt) {
        opt.checkpoint = path;
        opt.checkpoint_every = 5;
    }
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 12, NULL, init_cb, out ? output_cb : NULL,
                              &opt);
    free(ref);
    if (rc) return 1000;
    return bad_times(&s, &o, ckpt, out) + (out && o.c.bad != 0);
}

START_TEST(skeleton_times)
{
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, skeleton(1, 1)), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, skeleton(0, 1)), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, skeleton(1, 0)), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, skeleton(0, 0)), 0);
}
END_TEST

/* stencil_checkpoint and two stencil_view calls of a persistent run, in stencil_run_stats. */
START_TEST(persistent_times)
{
    stencil_desc st;
    out_ctx o;
    stencil_options opt;
    char path[300];
    double *ref = fixture("2d9", STENCIL_FLOAT, 1, 6, "run.sten", &st, &o, &opt, path);
    stencil_run *run = NULL;
    stencil_stats s;
    long bad = 0;
    int rc = stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, init_cb, &opt, &run);
    if (!rc) rc = stencil_run_stats(run, &s);
    if (!rc) bad += bad_times(&s, &o, 0, 0); /* nothing written or viewed yet */
    if (!rc) rc = stencil_advance(run, 6);
    if (!rc) rc = stencil_checkpoint(run, path);
    if (!rc) rc = stencil_view(run, output_cb);
    if (!rc) rc = stencil_view(run, output_cb);
    if (!rc) rc = stencil_run_stats(run, &s);
    if (!rc) bad += bad_times(&s, &o, 1, 1) + (o.calls != 2) + (o.c.bad != 0);
    stencil_destroy(&run);
    free(ref);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, rc ? 1000 : bad), 0);
}
END_TEST

/* A skeleton run at `done` (restarted at done - ran), checkpoints every 10 of goal. */
static double left_at(long goal, long done, long ran, long written, double t_written)
{
    static sk_run r;
    memset(&r, 0, sizeof r);
    r.goal = goal;
    r.opt.checkpoint = "ck";
    r.opt.checkpoint_every = 10;
    r.done = done;
    r.ran = ran;
    r.nckpt = written;
    r.stats.t_checkpoint = t_written;
    return sk_time_left(&r, 0.5, done + 5, goal); /* 5 iterations into the current advance */
}

START_TEST(time_left_counts_checkpoints)
{
    /* At 25 of 100: 75 iterations, 8 checkpoints to come (30..100) at 2 s each. */
    ck_assert_double_eq_tol(left_at(100, 20, 20, 2, 4.0), 37.5 + 16, 1e-9);
    /* Of 95, the last one at the end: 30..90 and 95, the same 8. */
    ck_assert_double_eq_tol(left_at(95, 20, 20, 2, 4.0), 35 + 16, 1e-9);
    /* Restarted at 30, written at 40 and 50: at 55 of 100, 60..100 to come. */
    ck_assert_double_eq_tol(left_at(100, 50, 20, 2, 3.0), 22.5 + 5 * 1.5, 1e-9);
    /* None written yet: no measure of one, the iterations alone. */
    ck_assert_double_eq_tol(left_at(100, 5, 5, 0, 0.0), 45, 1e-9);
    /* A persistent run (goal 0 in the run): each advance's own iterations only. */
    static sk_run r;
    memset(&r, 0, sizeof r);
    r.opt.checkpoint = "ck";
    r.opt.checkpoint_every = 10;
    r.nckpt = 3;
    r.stats.t_checkpoint = 30;
    ck_assert_double_eq_tol(sk_time_left(&r, 0.5, 4, 10), 3, 1e-9);
}
END_TEST

/* A skeleton at `done` of goal 100 with a monitor every 10 (and an output when end). */
static double outputs_left(long done, long timed, double t_timed, int end)
{
    static sk_run r;
    memset(&r, 0, sizeof r);
    r.goal = 100;
    r.opt.monitor = monitor_cb;
    r.opt.monitor_every = 10;
    r.done = r.ran = done;
    r.nout = timed;
    r.stats.t_output = t_timed;
    r.out_end = end;
    return sk_time_left(&r, 0.5, done + 5, 100);
}

START_TEST(time_left_counts_outputs)
{
    /* At 25 of 100: monitors at 30..100 and the output to come, 9 at 0.5 s. */
    ck_assert_double_eq_tol(outputs_left(20, 2, 1.0, 1), 37.5 + 4.5, 1e-9);
    /* Without an output callback, the monitors alone. */
    ck_assert_double_eq_tol(outputs_left(20, 2, 1.0, 0), 37.5 + 4, 1e-9);
    /* Nothing timed yet: no measure of an output, the iterations alone. */
    ck_assert_double_eq_tol(outputs_left(5, 0, 0.0, 1), 45, 1e-9);
    /* Checkpoints and outputs both: every 10, 2 of each done at 2 s and 0.5 s. */
    static sk_run r;
    memset(&r, 0, sizeof r);
    r.goal = 100;
    r.opt.monitor = monitor_cb;
    r.opt.monitor_every = r.opt.checkpoint_every = 10;
    r.opt.checkpoint = "ck";
    r.done = r.ran = 20;
    r.nout = r.nckpt = 2;
    r.stats.t_output = 1.0;
    r.stats.t_checkpoint = 4.0;
    r.out_end = 1;
    ck_assert_double_eq_tol(sk_time_left(&r, 0.5, 25, 100), 37.5 + 8 * 2 + 9 * 0.5, 1e-9);
    r.goal = 0; /* a persistent run: its views are not foreseen */
    ck_assert_double_eq_tol(sk_time_left(&r, 0.5, 25, 100), 37.5, 1e-9);
}
END_TEST

/* Rank 0's progress lines of 12 iterations, monitor every 4: bad lines (1000: none read). */
static long progress_lines(const char *file, double nap)
{
    FILE *f = fopen(file, "r");
    char line[256];
    long bad = 0, lines = 0;
    if (!f) return 1000;
    while (fgets(line, sizeof line, f)) {
        long at, goal;
        double rate, left;
        if (sscanf(line, "stencil: iteration %ld/%ld %lf %*s %lf s left", &at, &goal, &rate,
                   &left) != 4)
            continue;
        lines++;
        /* Outputs to come after the monitor at 4: 8, 12 and the output; after 8: 12 and it. */
        long ahead = at > 8 ? 2 : at > 4 ? 3 : 0;
        bad += left < (double)ahead * nap - 0.05; /* printed to 0.1 s */
    }
    fclose(f);
    return bad + (lines != 12) * 1000;
}

START_TEST(progress_counts_outputs)
{
    stencil_desc st;
    out_ctx o, m;
    stencil_options opt;
    char path[300], file[300];
    double *ref = fixture("2d4", STENCIL_DOUBLE, 0, 12, "ck.sten", &st, &o, &opt, path);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(file, sizeof file, "%s/progress.txt", dir);
    stencil_stats s;
    memset(&m, 0, sizeof m);
    m.nap = 0.2;
    mon_ctx = &m;
    opt.stats = &s;
    opt.steps = 1;
    opt.progress = 1;
    opt.monitor = monitor_cb;
    opt.monitor_every = 4;
    int saved = -1;
    if (rank == 0) { /* the progress lines go to stderr: into the file for this run */
        fflush(stderr);
        saved = dup(2);
        int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) dup2(fd, 2), close(fd);
    }
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 12, NULL, init_cb, output_cb, &opt);
    if (rank == 0 && saved >= 0) {
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
    }
    mon_ctx = NULL;
    long bad = rc ? 1000 : (o.c.bad != 0) + (m.calls != 3) + !(s.t_output >= o.spent + m.spent);
    if (rank == 0) bad += progress_lines(file, m.nap);
    free(ref);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, bad), 0);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tu_scratch_make(MPI_COMM_WORLD, "stencil-stats", dir, sizeof dir);
    if (!dir[0]) {
        fprintf(stderr, "test_stats: no temporary directory\n");
        MPI_Finalize();
        return 1;
    }
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, skeleton_times);
    tcase_add_test(tc, persistent_times);
    tcase_add_test(tc, time_left_counts_checkpoints);
    tcase_add_test(tc, time_left_counts_outputs);
    tcase_add_test(tc, progress_counts_outputs);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    static const char *const names[] = {"ck.sten", "run.sten", "progress.txt"};
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, sizeof names / sizeof *names);
    MPI_Finalize();
    return failed ? 1 : 0;
}
