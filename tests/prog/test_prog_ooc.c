/*
 * Programs out of core (options.out_of_core = 1 and a device memory limit that leaves room for
 * a few rows per chunk buffer), under mpiexec -n 1..4 on $STENCIL_BACKEND: every field and level
 * streamed through the device in chunks, bitwise equal to the serial reference of prog_ref.c
 * (which the in-core runs of test_prog_run.c and test_prog_steps.c match too), at T = 1 and a
 * forced T = 3, bands and blocks, float and double, with several chunks per step
 * (stats.ooc_chunks). Also: a limit over the levels' bytes sends a run out of core by itself,
 * out_of_core = -1 then fails with STENCIL_EDEVMEM, a limit too small for one chunk fails with
 * STENCIL_EDEVMEM, every rank the same. Programs that read the index i (wave, d1) see the index
 * of the cell in core, chunk by chunk.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cksuite.h"
#include "prog_ref.h"

static int rank, nranks;

/* About the bytes of nbufs buffers of rows rows of the local array of a case (its extent across
   dimension 0, with some halo). */
static long long limit_for(const prog_case *pc, int rows, int nbufs, int dbl)
{
    long row = 1;
    for (int d = 1; d < 3; d++) row *= pc->n[d] > 1 ? pc->n[d] + 6 : 1;
    /* 2D rows of 1024 cells and more: the layout's line of left halo and padding to 32 */
    if (pc->n[2] <= 1 && row >= 1024) row = (row + 32 + 31) / 32 * 32;
    return (long long)rows * nbufs * row * (long long)(dbl ? sizeof(double) : sizeof(float));
}

static int buffers(const kgt_prog *p)
{
    int n = 0;
    for (int f = 0; f < p->nf; f++) n += 1 + !p->f[f].coef + (p->f[f].keeps != 0);
    return n;
}

/* i: case, T (1 or 3), type, partition. */
START_TEST(ooc_bitwise)
{
    int ncase = _i / 8, T = _i / 4 % 2 ? 3 : 1, dbl = _i % 2, blocks = _i / 2 % 2;
    prog_case pc = tp_cases[ncase];
    for (int d = 0; d < 3; d++)
        if (pc.n[d] > 1) pc.n[d] *= 2;
    const long iters = 7;
    tp_env e;
    tp_begin(&e, &pc, dbl, blocks);
    stencil_stats st;
    e.o.steps = T;
    e.o.out_of_core = 1;
    /* blocks: room for three sets of chunk buffers (a pipeline), bands for one */
    int rows = (e.R.p->ndims == 3 ? 12 : 8) * (blocks ? 3 : 1);
    e.o.device_memory = limit_for(&pc, rows, buffers(e.R.p), dbl);
    tp_skeleton(&e, &pc, iters, &st, T == 1 ? "T=1 out of core" : "T=3 out of core");
    ck_assert_int_eq(st.ooc, 1);
    /* several chunks per step (3D parts of few rows may fit one) */
    /* several chunks per step (3D parts of few rows may fit one, and so may a pass of T = 3
       steps, whose chunks carry three steps' halo rows) */
    ck_assert_msg(st.ooc_chunks > 1 || ((e.R.p->ndims == 3 || T > 1) && st.ooc_chunks == 1),
                  "%s: %d chunks", e.R.p->name, st.ooc_chunks);
    ck_assert(st.ooc_up > 0 && st.ooc_down > 0);
    ck_assert_msg(st.steps == T || strstr(st.steps_why, "too thin"), "steps %d (%s)", st.steps,
                  st.steps_why);
    ck_assert_str_eq(st.backend, test_backend());
    tp_end(&e);
}
END_TEST

/*
 * Passes of T steps as one sweep of the chunks, on programs without mirror or constant faces
 * (the cases above have them): a field with a previous level, a coefficient and fixed frames; a 3D
 * one; Gray-Scott on a torus, whose sweeps fuse their steps where the device does (the host
 * backend); a previous level on a torus (the rank's own halos, corners included, made on the
 * device); the index i in chunks, in single steps (h3f) and fused ones (isrc); previous levels
 * read no farther than the current ones, whose sweeps fuse too, with fixed frames (wavef) and
 * on a torus (wavep). i: case, T (1, 3 or 5), type, partition.
 */
static const prog_case sweep_cases[] = {
    {"program keep2\n"
     "  dims 2\n"
     "  field a prev\n"
     "  field b\n"
     "  coef m\n"
     "  param w = 0.25\n"
     "  update a = a@prev[1,0] * w + b[0,-1] - m * a[-1,1]\n"
     "  update b = b[2,0] < a ? b + w : b - w * j / 16\n"
     "  boundary * i periodic\n"
     "end\n",
     {100, 15, 1},
     0},
    {"program h3f\n"
     "  dims 3\n"
     "  field u\n"
     "  update u = (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0] + u[0,0,-1] + u[0,0,1] + "
     "u[1,1,1]) / 7 + i / 128\n"
     "  boundary u k periodic\n"
     "end\n",
     {64, 8, 7},
     0},
    {NULL, {0, 0, 0}, 0}, /* tp_cases[2], Gray-Scott */
    {"program keepp\n"
     "  dims 2\n"
     "  field a prev\n"
     "  field b\n"
     "  coef m\n"
     "  param w = 0.25\n"
     "  update a = a@prev[1,-1] * w + b[0,-1] - m * a[-1,1]\n"
     "  update b = b[2,1] < a ? b + w : b - w * m\n"
     "  boundary * all periodic\n"
     "end\n",
     {90, 17, 1},
     0},
    {"program isrc\n"
     "  dims 2\n"
     "  field u\n"
     "  update u = (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]) * 0.25 + (i == 61 ? 0.5 : i / 256)\n"
     "  boundary * j periodic\n"
     "end\n",
     {96, 13, 1},
     0},
    {"program wavef\n"
     "  dims 2\n"
     "  field u prev\n"
     "  field b\n"
     "  coef c\n"
     "  param w = 0.25\n"
     "  let lap = u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u\n"
     "  update u = 2 * u - u@prev + c * lap + w * b[1,0]\n"
     "  update b = b[0,1] < u ? b * w : b - w * c\n"
     "end\n",
     {92, 14, 1},
     0},
    {"program wavep\n"
     "  dims 2\n"
     "  field u prev\n"
     "  coef c\n"
     "  update u = u - u@prev[1,-1] * 0.5 + c * (u[1,-1] - u[-1,0] + u[0,1])\n"
     "  boundary * all periodic\n"
     "end\n",
     {88, 15, 1},
     0},
};

static prog_case sweep_case(int i)
{
    prog_case pc = i == 2 ? tp_cases[2] : sweep_cases[i];
    if (i == 2) pc.n[0] = 100;
    return pc;
}

START_TEST(ooc_sweeps)
{
    int ncase = _i / 12, T = (int[]){1, 3, 5}[_i / 4 % 3], dbl = _i % 2, blocks = _i / 2 % 2;
    prog_case pc = sweep_case(ncase);
    pc.n[0] *= nranks > 2 && !blocks ? 2 : 1;
    tp_env e;
    tp_begin(&e, &pc, dbl, blocks);
    stencil_stats st;
    e.o.steps = T;
    e.o.out_of_core = 1;
    /* chunks of about twice their halo rows (the 2D programs read up to 3 rows a step) */
    e.o.device_memory = limit_for(&pc, 3 * ((pc.n[2] > 1 ? 6 : 12) * T + 8), buffers(e.R.p), dbl);
    tp_skeleton(&e, &pc, 12, &st, "sweeps out of core");
    ck_assert_int_eq(st.ooc, 1);
    ck_assert_msg(st.steps == T || strstr(st.steps_why, "too thin"), "steps %d (%s)", st.steps,
                  st.steps_why);
    if (nranks == 1) ck_assert_msg(st.ooc_chunks > 1, "%s: %d chunks", e.R.p->name, st.ooc_chunks);
    tp_end(&e);
}
END_TEST

/*
 * Sweeps whose chunks are parallelograms (skel/prog_ooc.c, sweep_plan): many chunks, passes of
 * runs of fused steps (T = 5, 7: runs of 1 and 4, 3 and 4 on the host) and of single steps
 * where mirror or constant faces are refilled between steps, the carry between chunks, bitwise.
 * Programs without coefficients and previous levels: on one rank the rows that go up beyond those
 * that come down are fewer than the halo rows trapezoids would upload again at each chunk's
 * boundaries (T steps of the reach on each side). Tight: buffers of a chunk under twice a
 * trapezoid's halo rows but twice a parallelogram's (T steps of the larger reach above, one fused
 * run of four below), which pipeline as parallelograms. i: case, T (5, 7, 7 tight), type.
 */
static const int carry_cases[] = {2, 0, 3, 4, 5, 6, 7, -4, -1, -5};

START_TEST(ooc_carry)
{
    int ci = carry_cases[_i / 6], T = _i % 6 >= 2 ? 7 : 5, dbl = _i % 2, tight = _i % 6 >= 4;
    prog_case pc = ci >= 0 ? tp_cases[ci] : sweep_cases[-ci];
    pc.n[0] = (pc.n[2] > 1 ? 300 : 200) * nranks;
    tp_env e;
    tp_begin(&e, &pc, dbl, 0);
    const kgt_prog *p = e.R.p;
    int rlo = 0, rhi = 0, plain = 1;
    for (int f = 0; f < p->nf; f++) {
        rlo = p->f[f].reach[0][0] > rlo ? p->f[f].reach[0][0] : rlo;
        rhi = p->f[f].reach[0][1] > rhi ? p->f[f].reach[0][1] : rhi;
        plain &= !p->f[f].coef && !p->f[f].keeps;
        tight &= !p->f[f].keeps; /* trapezoids: the halo rows of both sides */
    }
    int R = rlo > rhi ? rlo : rhi;
    /* three sets of buffers of chunks twice their halo rows; rows with T steps' halo columns */
    long row = dbl ? sizeof(double) : sizeof(float);
    for (int d = 1; d < p->ndims; d++) {
        int w[2] = {0, 0};
        for (int f = 0; f < p->nf; f++)
            for (int s = 0; s < 2; s++)
                w[s] = p->f[f].reach[d][s] > w[s] ? p->f[f].reach[d][s] : w[s];
        row *= pc.n[d] + T * (w[0] + w[1]) + 4;
    }
    stencil_stats st;
    e.o.steps = T;
    e.o.out_of_core = 1;
    long rows = tight ? 2 * (T * R + 4 * rlo) + 4 : 2 * T * (rlo + rhi) + 4 * R + 8;
    e.o.device_memory = 3LL * rows * buffers(p) * row;
    long iters = 2 * T;
    tp_skeleton(&e, &pc, iters, &st, "parallelogram sweeps out of core");
    ck_assert_int_eq(st.ooc, 1);
    ck_assert_msg(st.steps == T, "steps %d (%s)", st.steps, st.steps_why);
    ck_assert_msg(st.ooc_chunks > 4, "%s: %d chunks", p->name, st.ooc_chunks);
    if (nranks == 1 && plain) {
        double bytes = (double)st.ooc_down / (2.0 * p->nf * (double)pc.n[0]); /* of a row */
        double extra = (double)(st.ooc_up - st.ooc_down) / (2.0 * p->nf * bytes);
        double trap = (double)(st.ooc_chunks - 1) * T * (rlo + rhi);
        ck_assert_msg(extra < trap, "%s: %.0f rows up beyond those down a pass, trapezoids %.0f",
                      p->name, extra, trap);
    }
    tp_end(&e);
}
END_TEST

/* The sweeps in a persistent run: advances, a parameter changed, the norms of the last step
   (the level before it comes down too), the view; a previous level in single steps (keep2)
   and in fused ones (wavef), Gray-Scott. */
START_TEST(ooc_sweeps_persistent)
{
    prog_case pc = sweep_case((int[]){0, 2, 5}[_i / 2]);
    tp_env e;
    tp_begin(&e, &pc, 1, _i % 2);
    e.o.steps = 3;
    e.o.out_of_core = 1;
    e.o.device_memory = limit_for(&pc, 3 * 44, buffers(e.R.p), 1);
    const long adv[3] = {4, 3, 5};
    stencil_stats st;
    tp_persistent(&e, pc.n, adv, 3, &st);
    ck_assert_int_eq(st.ooc, 1);
    ck_assert(st.steps == 3 || strstr(st.steps_why, "too thin"));
    tp_end(&e);
}
END_TEST

/* Out of core by itself, T automatic: passes as long as the chunks' halos allow, one sweep
   each, bitwise. */
START_TEST(ooc_auto_steps)
{
    prog_case pc = tp_cases[2];
    pc.n[0] = 300 * nranks;
    pc.n[1] = 80;
    tp_env e;
    tp_begin(&e, &pc, 0, 0);
    stencil_stats st;
    e.o.out_of_core = 1;
    e.o.device_memory = limit_for(&pc, 3 * 100, buffers(e.R.p), 0);
    tp_skeleton(&e, &pc, 13, &st, "automatic T out of core");
    ck_assert_int_eq(st.ooc, 1);
    ck_assert_msg(st.steps > 1 && strstr(st.steps_why, "out of core"), "steps %d (%s)", st.steps,
                  st.steps_why);
    ck_assert_msg(st.ooc_chunks > 1, "%d chunks", st.ooc_chunks);
    tp_end(&e);
}
END_TEST

/* A persistent run out of core: advances, a parameter changed, norms, the view. */
START_TEST(ooc_persistent)
{
    const prog_case *pc = &tp_cases[5]; /* mixed: a previous level, a coefficient, two fields */
    tp_env e;
    tp_begin(&e, pc, 1, _i);
    e.o.out_of_core = 1;
    e.o.device_memory = limit_for(pc, 7, buffers(e.R.p), 1);
    const long adv[2] = {3, 2};
    stencil_stats st;
    tp_persistent(&e, pc->n, adv, 2, &st);
    ck_assert_int_eq(st.ooc, 1);
    tp_end(&e);
}
END_TEST

/* The host levels in options.ooc_file: a sweep of Gray-Scott bitwise, the file unlinked at
   once; a path that cannot be created fails with STENCIL_EIO on every rank. */
START_TEST(ooc_file)
{
    prog_case pc = sweep_case(2);
    tp_env e;
    char base[200], mine[240];
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/test_prog_ooc.%d", tmp && tmp[0] ? tmp : "/tmp", pid);
    snprintf(mine, sizeof mine, "%s.%d", base, rank);
    tp_begin(&e, &pc, _i, _i);
    stencil_stats st;
    e.o.steps = 3;
    e.o.out_of_core = 1;
    e.o.ooc_file = base;
    e.o.device_memory = limit_for(&pc, 3 * 44, buffers(e.R.p), _i);
    tp_skeleton(&e, &pc, 9, &st, "out of core in a file");
    ck_assert_int_eq(st.ooc, 1);
    ck_assert_int_ne(access(mine, F_OK), 0);
    stencil_run *run = NULL;
    e.o.ooc_file = "/nonexistent-dir-of-test_prog_ooc/levels";
    ck_assert_int_eq(stencil_program_create(MPI_COMM_WORLD, pc.n, e.p,
                                            _i ? STENCIL_DOUBLE : STENCIL_FLOAT, init, &e.o, &run),
                     STENCIL_EIO);
    ck_assert_ptr_null(run);
    tp_end(&e);
}
END_TEST

START_TEST(ooc_decisions)
{
    prog_case gs = tp_cases[2], *pc = &gs;
    gs.n[0] = 40 * nranks;
    tp_env e;
    tp_begin(&e, pc, 0, 0);
    stencil_run *run = NULL;
    stencil_stats st;
    /* over the limit: out of core by itself (automatic), or refused (-1) */
    e.o.device_memory = limit_for(pc, 8, buffers(e.R.p), 0);
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, pc->n, e.p, STENCIL_FLOAT, init, &e.o, &run), 0);
    ck_assert_int_eq(stencil_advance(run, 2), 0);
    ck_assert_int_eq(stencil_run_stats(run, &st), 0);
    ck_assert_int_eq(st.ooc, 1);
    stencil_destroy(&run);
    e.o.out_of_core = -1;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, pc->n, e.p, STENCIL_FLOAT, init, &e.o, &run),
        STENCIL_EDEVMEM);
    /* not even one chunk of rows and its halo */
    e.o.out_of_core = 1;
    e.o.device_memory = 100;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, pc->n, e.p, STENCIL_FLOAT, init, &e.o, &run),
        STENCIL_EDEVMEM);
    tp_end(&e);
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_loop_test(tc, ooc_bitwise, 0, 8 * tp_ncases);
    tcase_add_loop_test(tc, ooc_persistent, 0, 2);
    tcase_add_loop_test(tc, ooc_sweeps, 0, 84);
    tcase_add_loop_test(tc, ooc_sweeps_persistent, 0, 6);
    tcase_add_loop_test(tc, ooc_carry, 0, 6 * (int)(sizeof carry_cases / sizeof *carry_cases));
    tcase_add_test(tc, ooc_auto_steps);
    tcase_add_loop_test(tc, ooc_file, 0, 2);
    tcase_add_test(tc, ooc_decisions);
}

int main(int argc, char **argv)
{
    return tp_main(argc, argv, "program runs out of core", add_tests, &rank, &nranks);
}
