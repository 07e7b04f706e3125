/*
 * One job, two backends, one program (issue 43), under mpiexec -n 2: the configuration file
 * named by $STENCIL_CONFIG puts rank 0 on the host and the other ranks on OpenCL (PoCL in CI),
 * with twice rank 0's share; the run of a two-field program is bitwise the single-rank host run
 * (rank 0 alone, MPI_COMM_SELF) and the serial reference. Gray-Scott in float and double, and a
 * program with a previous level and a coefficient, in blocks.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cksuite.h"
#include "prog_ref.h"

static int rank, nranks;

/* The per-rank settings belong to the file here: the environment's would take precedence. */
static const char *const rank_vars[] = {"STENCIL_BACKEND", "STENCIL_DEVICE", "STENCIL_WEIGHT"};

static void config_file(char *path, size_t len)
{
    if (rank == 0) {
        static const char text[] = "# issue 43: a program on two backends\n"
                                   "rank=0 backend=host   weight=1\n"
                                   "       backend=opencl weight=2\n";
        snprintf(path, len, "/tmp/stencil-prog-cfg-XXXXXX");
        int fd = mkstemp(path);
        ck_assert(fd >= 0);
        ck_assert(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
        close(fd);
    }
    MPI_Bcast(path, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* _i: Gray-Scott in float, in double, mixed (prev level, coefficient) in double. */
START_TEST(host_and_opencl)
{
    const prog_case *pc = &tp_cases[_i == 2 ? 5 : 2];
    int dbl = _i > 0;
    stencil_type type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    char path[64];
    config_file(path, sizeof path);
    tp_env e;
    tp_begin(&e, pc, dbl, 1);
    tp_grid single, both;
    tp_grid_pair(&single, &both, &e);
    stencil_stats st;
    e.o.stats = &st;
    if (rank == 0) { /* the single-rank host run */
        e.o.user = &single;
        int rc =
            stencil_program_skeleton(MPI_COMM_SELF, pc->n, e.p, type, 5, init, tp_grid_out, &e.o);
        ck_assert_int_eq(rc, 0);
    }
    char *saved[3];
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(rank_vars[i]);
        saved[i] = v ? strdup(v) : NULL;
        unsetenv(rank_vars[i]);
    }
    setenv("STENCIL_CONFIG", path, 1);
    e.o.backend = NULL; /* the file decides */
    e.o.user = &both;
    int rc = stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p, type, 5, init, tp_grid_out, &e.o);
    unsetenv("STENCIL_CONFIG");
    for (int i = 0; i < 3; i++) {
        if (saved[i]) setenv(rank_vars[i], saved[i], 1);
        free(saved[i]);
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(st.backend, rank == 0 ? "host" : "opencl");
    ck_assert(st.weight == (rank == 0 ? 1.0 : 2.0));
    tp_grid_sync(&both, MPI_COMM_WORLD);
    tp_grid_sync(&single, MPI_COMM_WORLD); /* rank 0's, to every rank */
    ck_assert_int_eq(tp_grid_diff(&single, &both), 0);
    for (long t = 0; t < 5; t++) ref_step(&e.R, t);
    tp_grid_check(&both, &e.R, &e.c);
    ck_assert_int_eq(e.c.bad, 0);
    ck_assert_int_eq(e.c.seen, e.R.total * e.R.p->nf);
    tp_grid_free(&single);
    tp_grid_free(&both);
    tp_end(&e);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_loop_test(tc, host_and_opencl, 0, 3);
}

int main(int argc, char **argv)
{
    return tp_main(argc, argv, "a program on two backends", add_tests, &rank, &nranks);
}
