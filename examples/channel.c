/*
 * channel: a tracer carried along a channel and diffusing in it, as one linear stencil (no
 * program text): the flow goes along dimension 1, which is periodic (what leaves at the right
 * comes back at the left), and the channel's walls across dimension 0 are mirrors (no flux
 * through them), set per face with options.face. The 5-point stencil weighs the upstream
 * neighbour 2, the centre 3 and the other three 1, over a divisor of 8: the weights sum to the
 * divisor, so the tracer's total is kept (up to rounding), which rank 0 prints at the end. The
 * start is random (from -s SEED).
 *
 *   mpiexec -n 4 ./channel [-n SIZE] [-i ITERATIONS] [-s SEED] [-o PREFIX] [-f float|double]
 *                          [-p bands|blocks] [-b BACKEND] [-t STEPS]
 *
 * The grid is SIZE across by 2 SIZE along the channel; -o writes it to PREFIX.u.sten.
 */
#include "prog_example.h"

static double tracer(const prog_example *ex, const long *g)
{
    return prog_example_random(ex->seed, g[0] * 2 * ex->n + g[1]);
}

static int init(stencil_tile *t, void *user)
{
    prog_example_fill(t, tracer, user);
    return 0;
}

static int output(const stencil_tile *t, void *user)
{
    double total = prog_example_total(t);
    if (t->rank == 0)
        printf("channel: tracer total %.9g after %ld iterations\n", total, t->iteration);
    return prog_example_output(t, user);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    prog_example ex;
    prog_example_args(&ex, argc, argv, 64, 500);
    static const double w[9] = {0, 1, 0,  /* row i - 1 */
                                2, 3, 1,  /* row i: upstream j - 1 weighs 2 */
                                0, 1, 0}; /* row i + 1 */
    stencil_desc st = {.ndims = 2,
                       .radius_lo = {1, 1},
                       .radius_hi = {1, 1},
                       .weights = w,
                       .divisor = 8,
                       .type = ex.type};
    ex.opt.face[0][0] = ex.opt.face[0][1] = STENCIL_BOUNDARY_MIRROR;   /* the walls */
    ex.opt.face[1][0] = ex.opt.face[1][1] = STENCIL_BOUNDARY_PERIODIC; /* along the flow */
    long sizes[2] = {ex.n, 2 * ex.n};
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, ex.iters, NULL, init, output, &ex.opt);
    prog_example_steps("channel", &ex.stats, rc);
    if (rc && rank == 0) fprintf(stderr, "channel: %s\n", stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0;
}
