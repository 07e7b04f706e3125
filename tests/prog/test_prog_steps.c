/*
 * Programs with T time steps per halo exchange (options.steps forced to 2, 3, 4), under
 * mpiexec -n 1..4 on $STENCIL_BACKEND, bands and blocks, float and double: bitwise equal to the
 * serial reference of prog_ref.c (kgt's interpreter over the whole grid, which knows nothing of
 * T; T = 1 is checked against the same reference in test_prog_run.c), and stats.steps is T. The
 * cases are prog_cases.c's programs on grids thick enough for four steps (every boundary kind,
 * a previous level, coefficients, 1D to 3D) and two more with reads at offset 2 of another
 * field and of a previous level, with mirror, constant, periodic and fixed faces. Also: passes
 * shorter than T at the end of an advance, norms of the last step, and the cases where T is
 * lowered, with the reason (stats.steps_why): parts too thin, and an index read along a periodic
 * dimension; a checkpoint taken at one T and loaded at another, in core and out of core. The
 * exact halos of T composed steps: test_prog_run.c's exact_halos. Programs without mirror or
 * constant faces take the fused path (a pass's substeps through prog_update_k, skel/prog_loop.c)
 * where the backend has it: the host's and the GPU's (2D) do.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "prog_ref.h"
#include "testutil.h"

static int rank, nranks;

static const prog_case extra[] = {
    {"program off2\n"
     "  dims 2\n"
     "  field a prev\n"
     "  field b\n"
     "  coef c\n"
     "  update a = 2 * a - a@prev + 0.1 * (b[2,0] - b[0,-2]) + c * a@prev[0,2] * 0.25\n"
     "  update b = 0.5 * b + 0.25 * a[-2,1] + 0.125 * a@prev[2,-1] - 0.0625 * b[-1,-1]\n"
     "  boundary a i mirror\n"
     "  boundary b i- constant 0.5\n"
     "  boundary b i+ mirror\n"
     "  boundary * j periodic\n"
     "end\n",
     {31, 26, 1},
     0},
    {"program off2f\n"
     "  dims 2\n"
     "  field a prev\n"
     "  field b\n"
     "  update a = a@prev[0,2] * 0.5 + b[2,0] * 0.25 + a[-1,-1] * 0.25\n"
     "  update b = b[-2,0] * 0.5 + a * 0.5 + j / 32\n"
     "end\n",
     {44, 27, 1},
     0},
    /* the substeps a device fuses (prog_update_k; the host backend has it): a previous level
       and a coefficient, a fixed frame along j; then everything periodic; then 1D, framed */
    {"program wavef\n"
     "  dims 2\n"
     "  field u prev\n"
     "  field w\n"
     "  coef c\n"
     "  update u = 2 * u - u@prev + c * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u) + 0.01 * t + "
     "0.125 * w[1,-1]\n"
     "  update w = 0.5 * w[0,1] + 0.25 * u@prev + 0.25 * u[-1,0]\n"
     "  boundary * i periodic\n"
     "end\n",
     {40, 26, 1},
     0},
    {"program wavep\n"
     "  dims 2\n"
     "  field u prev\n"
     "  field w prev\n"
     "  update u = 2 * u - u@prev[0,1] + 0.2 * (u[-1,0] + u[1,1] - 2 * u) + 0.1 * w@prev\n"
     "  update w = 0.5 * w[-1,0] + 0.125 * w[1,0] + 0.25 * w@prev[1,0] + 0.125 * u[0,-1]\n"
     "  boundary * all periodic\n"
     "end\n",
     {38, 29, 1},
     0},
    {"program d1f\n"
     "  dims 1\n"
     "  field u prev\n"
     "  update u = u[-1] * 0.5 + u[1] * 0.25 + u@prev[1] * 0.25 + i / 64\n"
     "end\n",
     {57, 1, 1},
     0},
};
enum { NEXTRA = sizeof extra / sizeof extra[0] };

/* Case i: prog_cases.c's programs on grids three times larger (thick enough for T = 4 on four
   ranks), then the extra ones. */
static prog_case case_of(int i)
{
    if (i >= tp_ncases) return extra[i - tp_ncases];
    prog_case pc = tp_cases[i];
    for (int d = 0; d < 3; d++)
        if (pc.n[d] > 1) pc.n[d] *= d == 0 ? 3 : 2;
    return pc;
}

/* i: case, T (2..4), type, partition. The whole run through stencil_program_skeleton. */
START_TEST(forced_bitwise)
{
    int ncase = _i / 12, T = 2 + _i / 4 % 3, dbl = _i % 2, blocks = _i / 2 % 2;
    prog_case pc = case_of(ncase);
    const long iters = 7; /* two passes of T = 3, one left over */
    tp_env e;
    tp_begin(&e, &pc, dbl, blocks);
    stencil_stats st;
    char what[16];
    snprintf(what, sizeof what, "T=%d", T);
    e.o.steps = T;
    tp_skeleton(&e, &pc, iters, &st, what);
    ck_assert_msg(st.steps == T && !strcmp(st.steps_why, "forced"), "%s T=%d: steps %d (%s)",
                  e.R.p->name, T, st.steps, st.steps_why);
    tp_end(&e);
}
END_TEST

/* Advances of 5, 1 and 4 at T = 3 (passes shorter than T), a parameter changed, the norms of
   the last step, and the view: all the reference's. */
START_TEST(persistent_short_passes)
{
    prog_case pc = case_of(_i / 2);
    int blocks = _i % 2;
    tp_env e;
    tp_begin(&e, &pc, 1, blocks);
    e.o.steps = 3;
    e.o.peer = blocks ? 0 : -1; /* self halos through MPI, or copied on the device */
    const long adv[3] = {5, 1, 4};
    stencil_stats st;
    tp_persistent(&e, pc.n, adv, 3, &st);
    ck_assert_int_eq(st.steps, 3);
    tp_end(&e);
}
END_TEST

/*
 * A checkpoint at iteration 4 of a run at T = 3 (a pass of 3, one of 1), loaded on a run at
 * T = 2 in the other partition (_i 1: out of core), 3 more steps: the reference's 7, bitwise.
 */
START_TEST(checkpoint_T)
{
    prog_case pc = case_of(tp_ncases + 1); /* off2f: a previous level, fixed frames */
    char dir[256], ck[320], nb[2 * KGT_PROG_MAX_FIELDS][96];
    const char *names[2 * KGT_PROG_MAX_FIELDS];
    size_t nn = 0;
    tu_scratch_make(MPI_COMM_WORLD, "prog-steps-ck", dir, sizeof dir);
    ck_assert(dir[0]);
    snprintf(ck, sizeof ck, "%s/ck", dir);
    tp_env e;
    tp_begin(&e, &pc, 1, 0);
    e.o.steps = 3;
    stencil_run *run = NULL;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, pc.n, e.p, STENCIL_DOUBLE, init, &e.o, &run), 0);
    ck_assert_int_eq(stencil_advance(run, 4), 0);
    ck_assert_int_eq(stencil_checkpoint(run, ck), 0);
    stencil_destroy(&run);
    e.o.steps = 2;
    e.o.partition = STENCIL_PART_BLOCKS;
    e.o.out_of_core = _i;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, pc.n, e.p, STENCIL_DOUBLE, tp_noop_init, &e.o, &run),
        0);
    ck_assert_int_eq(stencil_load(run, ck), 0);
    ck_assert_int_eq(stencil_advance(run, 3), 0);
    for (long t = 0; t < 7; t++) ref_step(&e.R, t);
    memcpy(e.c.ref, e.R.cur, sizeof e.c.ref);
    ck_assert_int_eq(stencil_view(run, check_out), 0);
    ck_assert_int_eq(sum_long(e.c.bad), 0);
    stencil_stats st;
    ck_assert_int_eq(stencil_run_stats(run, &st), 0);
    ck_assert(st.steps == 2 && st.ooc == _i);
    stencil_destroy(&run);
    for (int f = 0; f < e.R.p->nf; f++) /* the files: ck, ck.FIELD, ck.FIELD.prev */
        for (int prev = 0; prev <= (e.R.p->f[f].keeps != 0); prev++) {
            snprintf(nb[nn], sizeof nb[nn], f || prev ? "ck.%s%s" : "ck", e.R.p->f[f].name,
                     prev ? ".prev" : "");
            names[nn] = nb[nn];
            nn++;
        }
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, nn);
    tp_end(&e);
}
END_TEST

/* T lowered, the same on every rank, with the reason; the results still the reference's. */
static void lowered(const prog_case *pc, int T, int blocks, int want_T, const char *why)
{
    const long iters = 5;
    tp_env e;
    tp_begin(&e, pc, 0, blocks);
    for (long t = 0; t < iters; t++) ref_step(&e.R, t);
    memcpy(e.c.ref, e.R.cur, sizeof e.c.ref);
    stencil_stats st;
    e.o.steps = T;
    e.o.stats = &st;
    ck_assert_int_eq(stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, STENCIL_FLOAT, iters,
                                              init, check_out, &e.o),
                     0);
    ck_assert_int_eq(sum_long(e.c.bad), 0);
    ck_assert_msg(want_T < 0 ? st.steps < T : st.steps == want_T, "steps %d (%s)", st.steps,
                  st.steps_why);
    ck_assert_msg(strstr(st.steps_why, why), "steps_why: %s", st.steps_why);
    tp_end(&e);
}

START_TEST(lowered_T)
{
    /* gs reads v two rows away: four steps read eight and more, bands of five rows are too thin
       (on one rank the periodic grid is) */
    prog_case gs = tp_cases[2];
    gs.n[0] = 5 * nranks;
    lowered(&gs, 4, 0, -1, "parts too thin");
    /* the index along i, periodic: the cells beyond that face would see it unwrapped */
    const prog_case ix = {"program ix\n"
                          "  dims 2\n"
                          "  field u\n"
                          "  update u = 0.5 * u[-1,0] + 0.25 * u[1,0] + 0.25 * u[0,1] + i / 64\n"
                          "  boundary u i periodic\n"
                          "  boundary u j mirror\n"
                          "end\n",
                          {6 * nranks + 5, 9, 1},
                          0};
    lowered(&ix, 3, 1, 1, "index");
    /* capped by the iterations */
    lowered(&tp_cases[0], 8, 0, 5, "capped");
}
END_TEST

static void add_tests(TCase *tc)
{
    tu_add_loop_shard(tc, forced_bitwise, 12 * (tp_ncases + NEXTRA));
    tcase_add_loop_test(tc, persistent_short_passes, 0, 2 * (tp_ncases + NEXTRA));
    tcase_add_loop_test(tc, checkpoint_T, 0, 2);
    tcase_add_test(tc, lowered_T);
}

int main(int argc, char **argv)
{
    return tp_main(argc, argv, "program runs, T steps per exchange", add_tests, &rank, &nranks);
}
