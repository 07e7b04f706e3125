/*
 * The skeleton's periodic work for programs, under mpiexec -n 1..4 on $STENCIL_BACKEND (host
 * in CI), against the serial reference of prog_ref.c, bitwise: checkpoints written on n - 1
 * ranks and loaded on n in another partition, 3 ranks in bands resumed on 4 in blocks against an
 * uninterrupted run, stencil_program_skeleton's periodic checkpoints and restart, and its
 * monitor (per field, with each field's change, and a stop).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "prog_ref.h"
#include "testutil.h"

static int rank, nranks;

/* A fresh directory dir and the checkpoint path dir/base in it. */
static void scratch(char *dir, size_t dlen, char *ck, size_t clen, const char *stem,
                    const char *base)
{
    tu_scratch_make(MPI_COMM_WORLD, stem, dir, dlen);
    ck_assert(dir[0]);
    snprintf(ck, clen, "%s/%s", dir, base);
}

/* Removes the files of the checkpoint dir/base of program p (NULL: the HDF5 checkpoint, whose
   name scratch() gave it, and its sidecar), and dir. */
static void remove_checkpoint(const char *dir, const char *base, const kgt_prog *p)
{
    if (!base) {
        const char *names[] = {"run.h5", "run.xmf", "sk.h5", "sk.xmf"};
        tu_scratch_remove(MPI_COMM_WORLD, dir, names, 4);
        return;
    }
    const char *names[2 * KGT_PROG_MAX_FIELDS];
    char nb[2 * KGT_PROG_MAX_FIELDS][128];
    int nn = 0;
    for (int f = 0; f < p->nf; f++)
        for (int lv = 0; lv >= (p->f[f].keeps ? -1 : 0); lv--) {
            if (f == 0 && lv == 0)
                snprintf(nb[nn], sizeof nb[nn], "%s", base);
            else
                snprintf(nb[nn], sizeof nb[nn], "%s.%s%s", base, p->f[f].name, lv ? ".prev" : "");
            names[nn] = nb[nn];
            nn++;
        }
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, (size_t)nn);
}

/*
 * A checkpoint at 3 written by the first n - 1 ranks (bands), loaded by all n (blocks) into a
 * run whose init gave zeros, then 3 more steps: the reference's 6 steps, bitwise. The native
 * set without its last file is refused and leaves the run as it was; a run of another program
 * refuses the files (the program's hash). _i / 2: native files, or one HDF5 file (where built
 * with HDF5).
 */
START_TEST(checkpoint_resume)
{
    const prog_case *pc = &tp_cases[_i % 2 == 0 ? 1 : 5]; /* wave (prev, coef), mixed */
    int h5 = _i / 2;
    if (h5 && !stencil_have_hdf5()) return;
    char dir[256], ck[320];
    scratch(dir, sizeof dir, ck, sizeof ck, "prog-ck", h5 ? "run.h5" : "run.ck");
    int writers = nranks > 1 ? nranks - 1 : 1;
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank < writers, rank, &sub);
    tp_env e;
    tp_begin(&e, pc, 1, 0);
    stencil_run *run = NULL;
    if (rank < writers) {
        ck_assert_int_eq(stencil_program_create(sub, pc->n, e.p, STENCIL_DOUBLE, init, &e.o, &run),
                         0);
        ck_assert_int_eq(stencil_advance(run, 3), 0);
        ck_assert_int_eq(stencil_checkpoint(run, ck), 0);
        stencil_destroy(&run);
    }
    MPI_Comm_free(&sub);
    MPI_Barrier(MPI_COMM_WORLD);
    e.o.partition = STENCIL_PART_BLOCKS;
    ck_assert_int_eq(stencil_program_create(MPI_COMM_WORLD, pc->n, e.p, STENCIL_DOUBLE,
                                            tp_noop_init, &e.o, &run),
                     0);
    ck_assert_int_eq(stencil_load(run, ck), 0);
    long it = 0;
    ck_assert_int_eq(stencil_iteration(run, &it), 0);
    ck_assert_int_eq(it, 3);
    ck_assert_int_eq(stencil_advance(run, 3), 0);
    for (long t = 0; t < 6; t++) ref_step(&e.R, t);
    memcpy(e.c.ref, e.R.cur, sizeof e.c.ref);
    ck_assert_int_eq(stencil_view(run, check_out), 0);
    ck_assert_int_eq(sum_long(e.c.bad), 0);
    /* The native set without its last file: refused once the first files were read, and the
       run's levels are still its own (the reference's 6 steps), the iteration count too. */
    const kgt_prog *kp = e.R.p;
    int lf = kp->nf - 1;
    char last[400];
    snprintf(last, sizeof last, "%s.%s%s", ck, kp->f[lf].name, kp->f[lf].keeps ? ".prev" : "");
    if (rank == 0 && !h5) ck_assert_int_eq(remove(last), 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!h5) ck_assert_int_eq(stencil_load(run, ck), STENCIL_EIO);
    ck_assert_int_eq(stencil_iteration(run, &it), 0);
    ck_assert_int_eq(it, 6);
    e.c.bad = 0;
    ck_assert_int_eq(stencil_view(run, check_out), 0);
    ck_assert_int_eq(sum_long(e.c.bad), 0);
    stencil_destroy(&run);
    stencil_program *other = parse(tp_cases[0].text);
    ck_assert_int_eq(stencil_program_create(MPI_COMM_WORLD, tp_cases[0].n, other, STENCIL_DOUBLE,
                                            tp_noop_init, &e.o, &run),
                     0);
    ck_assert_int_eq(stencil_load(run, ck), STENCIL_EFORMAT);
    ck_assert_int_eq(stencil_advance(run, 1), 0); /* unchanged and usable */
    stencil_destroy(&run);
    stencil_program_free(other);
    remove_checkpoint(dir, h5 ? NULL : "run.ck", e.R.p);
    tp_end(&e);
}
END_TEST

/* A program's run on comm (create, n steps, view into g, assembled); its stats into st. */
static void run_grid(MPI_Comm comm, tp_env *e, const prog_case *pc, stencil_type type, long n,
                     tp_grid *g, stencil_stats *st)
{
    stencil_run *run = NULL;
    e->o.user = g;
    ck_assert_int_eq(stencil_program_create(comm, pc->n, e->p, type, init, &e->o, &run), 0);
    ck_assert_int_eq(stencil_advance(run, n), 0);
    ck_assert_int_eq(stencil_view(run, tp_grid_out), 0);
    ck_assert_int_eq(stencil_run_stats(run, st), 0);
    stencil_destroy(&run);
    tp_grid_sync(g, comm);
    e->o.user = &e->c;
}

/*
 * Issue 43's restart across rank counts: a checkpoint at k = 4 written by 3 ranks in bands and
 * resumed by 4 ranks in blocks (2 x 2, or 2 x 1 x 2 in 3D: not bands) for 3 more steps is bitwise
 * the uninterrupted 4-rank run of 7 steps and the serial reference. Needs 4 ranks
 * (prog-periodic-n4); _i: mixed in double (prev level, coefficient, two fields), gs in float, chan3
 * (3D) in double.
 */
START_TEST(resume_3_to_4_blocks)
{
    if (nranks < 4) return;
    static const int cases[] = {5, 2, 7};
    const prog_case *pc = &tp_cases[cases[_i]];
    int dbl = _i != 1;
    stencil_type type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    char dir[256], ck[320];
    scratch(dir, sizeof dir, ck, sizeof ck, "prog-34", "r.ck");
    MPI_Comm three, four;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 3, rank, &three);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 4, rank, &four);
    tp_env e;
    tp_begin(&e, pc, dbl, 0);
    tp_grid whole, resumed;
    tp_grid_pair(&whole, &resumed, &e);
    stencil_stats st;
    stencil_run *run = NULL;
    if (rank < 3) {
        ck_assert_int_eq(stencil_program_create(three, pc->n, e.p, type, init, &e.o, &run), 0);
        ck_assert_int_eq(stencil_advance(run, 4), 0);
        ck_assert_int_eq(stencil_checkpoint(run, ck), 0);
        stencil_destroy(&run);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    e.o.partition = STENCIL_PART_BLOCKS;
    if (rank < 4) {
        run_grid(four, &e, pc, type, 7, &whole, &st);
        e.o.user = &resumed;
        ck_assert_int_eq(stencil_program_create(four, pc->n, e.p, type, tp_noop_init, &e.o, &run),
                         0);
        ck_assert_int_eq(stencil_load(run, ck), 0);
        ck_assert_int_eq(stencil_advance(run, 3), 0);
        ck_assert_int_eq(stencil_view(run, tp_grid_out), 0);
        ck_assert_int_eq(stencil_run_stats(run, &st), 0);
        ck_assert_int_eq(st.nranks, 4);
        ck_assert_msg(st.proc_grid[0] == 2 && st.proc_grid[1] * st.proc_grid[2] == 2,
                      "grid %d x %d x %d", st.proc_grid[0], st.proc_grid[1], st.proc_grid[2]);
        stencil_destroy(&run);
        tp_grid_sync(&resumed, four);
        e.o.user = &e.c;
        ck_assert_int_eq(tp_grid_diff(&whole, &resumed), 0);
        for (long t = 0; t < 7; t++) ref_step(&e.R, t);
        memcpy(e.c.ref, e.R.cur, sizeof e.c.ref);
        e.c.bad = e.c.seen = 0;
        ck_assert_int_eq(stencil_program_create(four, pc->n, e.p, type, tp_noop_init, &e.o, &run),
                         0);
        ck_assert_int_eq(stencil_load(run, ck), 0);
        ck_assert_int_eq(stencil_advance(run, 3), 0);
        ck_assert_int_eq(stencil_view(run, check_out), 0);
        stencil_destroy(&run);
        ck_assert_int_eq(e.c.bad, 0);
    }
    MPI_Comm_free(&three);
    MPI_Comm_free(&four);
    tp_grid_free(&whole);
    tp_grid_free(&resumed);
    remove_checkpoint(dir, "r.ck", e.R.p);
    tp_end(&e);
}
END_TEST

/* stencil_program_skeleton with checkpoints every 2 iterations, then a restart that goes on
   from the last one (5) to 7 on another partition: the reference's 7 steps, bitwise. */
START_TEST(skeleton_restart)
{
    const prog_case *pc = &tp_cases[1];
    if (_i && !stencil_have_hdf5()) return; /* _i: the HDF5 checkpoint */
    char dir[256], ck[320];
    scratch(dir, sizeof dir, ck, sizeof ck, "prog-sk", _i ? "sk.h5" : "sk.ck");
    tp_env e;
    tp_begin(&e, pc, 0, 1);
    e.o.checkpoint = ck;
    e.o.checkpoint_every = 2;
    ck_assert_int_eq(
        stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, STENCIL_FLOAT, 5, init, NULL, &e.o),
        0);
    for (long t = 0; t < 7; t++) ref_step(&e.R, t);
    memcpy(e.c.ref, e.R.cur, sizeof e.c.ref);
    e.o.partition = STENCIL_PART_BANDS;
    e.o.restart = 1;
    ck_assert_int_eq(stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, STENCIL_FLOAT, 7,
                                              tp_noop_init, check_out, &e.o),
                     0);
    ck_assert_int_eq(sum_long(e.c.bad), 0);
    ck_assert_int_eq(sum_long(e.c.seen), e.R.total * stencil_program_nfields(e.p));
    remove_checkpoint(dir, _i ? NULL : "sk.ck", e.R.p);
    tp_end(&e);
}
END_TEST

/* What the monitor saw: calls per field, the last iteration, changes unlike the reference's.
   Its first member is the ctx init and check_out take (they get the same user pointer). */
typedef struct mon {
    ctx c;
    ref *R;
    long steps; /* of the reference */
    int calls[KGT_PROG_MAX_FIELDS];
    long last, bad, stop_at;
} mon;

static int monitor(const stencil_tile *t, const stencil_norm *change, void *user)
{
    mon *m = user;
    int f = stencil_program_find_field(m->c.prog, t->field);
    if (f < 0 || t->data == NULL) return 2;
    m->calls[f]++;
    m->last = t->iteration;
    for (; m->steps < t->iteration; m->steps++) ref_step(m->R, m->steps);
    memcpy(m->c.ref, m->R->cur, sizeof m->c.ref);
    double want = m->R->p->f[f].coef ? 0 : m->R->max[f];
    m->bad += change->max != want || change->iteration != t->iteration;
    return t->iteration >= m->stop_at;
}

/* A monitor every 2 iterations: per field, with its change (max exact); 1 at iteration 4 stops
   the run there, and the output shows iteration 4, bitwise. */
START_TEST(skeleton_monitor)
{
    const prog_case *pc = &tp_cases[5]; /* mixed: a, b evolving (a keeps prev), m coefficient */
    tp_env e;
    tp_begin(&e, pc, 1, _i);
    mon m = {.c = e.c, .R = &e.R, .stop_at = 4};
    e.o.monitor = monitor;
    e.o.monitor_every = 2;
    e.o.monitor_data = 1;
    e.o.user = &m;
    ck_assert_int_eq(stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, STENCIL_DOUBLE, 9, init,
                                              check_out, &e.o),
                     0);
    for (int f = 0; f < stencil_program_nfields(e.p); f++)
        ck_assert_int_eq(m.calls[f], 2); /* at 2 and 4 */
    ck_assert_int_eq(m.last, 4);
    ck_assert_int_eq(sum_long(m.bad), 0);
    ck_assert_int_eq(sum_long(m.c.bad), 0);
    ck_assert_int_eq(sum_long(m.c.seen), e.R.total * stencil_program_nfields(e.p));
    tp_end(&e);
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_loop_test(tc, checkpoint_resume, 0, 4);
    tcase_add_loop_test(tc, resume_3_to_4_blocks, 0, 3);
    tcase_add_loop_test(tc, skeleton_restart, 0, 2);
    tcase_add_loop_test(tc, skeleton_monitor, 0, 2);
}

int main(int argc, char **argv)
{
    return tp_main(argc, argv, "program periodic work", add_tests, &rank, &nranks);
}
