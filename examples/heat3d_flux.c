/*
 * heat3d_flux: 3D heat conduction through two materials, a good conductor (kap = 1) in the
 * lower half along i and a poor one (kap = 0.1) above, in flux form so that heat is conserved
 * across the interface: the flux between two cells is (kap_a + kap_b) / 2 times their
 * difference. The walls are mirrors (no flux through them), so the total heat stays constant.
 * The start is random (from -s SEED).
 *
 *   mpiexec -n 8 ./heat3d_flux [-n SIZE] [-i ITERATIONS] [-s SEED] [-o PREFIX]
 *                              [-f float|double] [-p bands|blocks] [-b BACKEND] [-t STEPS]
 *
 * The grid is SIZE x (SIZE + 1) x (SIZE + 2). It shows a persistent run: stencil_program_create,
 * stencil_advance_norms for the first half of the iterations with dt = 0.1, then
 * stencil_run_set_param(dt = 0.05) and the second half, stencil_view for the output (each field
 * to PREFIX.FIELD.sten with -o), stencil_destroy.
 */
#include "prog_example.h"

static const char *text = "program heat3\n"
                          "  dims 3\n"
                          "  field T\n"
                          "  coef kap\n"
                          "  param dt = 0.1\n"
                          "  let fim = (kap[-1,0,0] + kap) * (T[-1,0,0] - T)\n"
                          "  let fip = (kap[1,0,0] + kap) * (T[1,0,0] - T)\n"
                          "  let fjm = (kap[0,-1,0] + kap) * (T[0,-1,0] - T)\n"
                          "  let fjp = (kap[0,1,0] + kap) * (T[0,1,0] - T)\n"
                          "  let fkm = (kap[0,0,-1] + kap) * (T[0,0,-1] - T)\n"
                          "  let fkp = (kap[0,0,1] + kap) * (T[0,0,1] - T)\n"
                          "  update T = T + dt * 0.5 * (fim + fip + fjm + fjp + fkm + fkp)\n"
                          "  boundary * all mirror\n"
                          "end\n";

static double start(const prog_example *ex, const long *g)
{
    return prog_example_random(ex->seed, (g[0] * (ex->n + 1) + g[1]) * (ex->n + 2) + g[2]);
}

static double materials(const prog_example *ex, const long *g)
{
    return g[0] < ex->n / 2 ? 1.0 : 0.1;
}

static int init(stencil_tile *t, void *user)
{
    prog_example_fill(t, strcmp(t->field, "kap") ? start : materials, user);
    return 0;
}

static int advance(stencil_run *run, long n, int rank)
{
    stencil_norm change[2];
    if (n < 1) return 0;
    int rc = stencil_advance_norms(run, n, change, 2);
    if (!rc && rank == 0)
        printf("heat3d_flux: iteration %ld  change of T: max %.3e  l2 %.3e\n", change[0].iteration,
               change[0].max, change[0].l2);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    prog_example ex;
    prog_example_args(&ex, argc, argv, 64, 200);
    long sizes[3] = {ex.n, ex.n + 1, ex.n + 2};
    stencil_program *prog = NULL;
    stencil_run *run = NULL;
    char msg[256];
    int rc = stencil_program_parse(text, &prog, msg, sizeof msg);
    if (rc && rank == 0) fprintf(stderr, "heat3d_flux: %s\n", msg);
    if (!rc) rc = stencil_program_create(MPI_COMM_WORLD, sizes, prog, ex.type, init, &ex.opt, &run);
    if (!rc) rc = advance(run, ex.iters / 2, rank);
    if (!rc) rc = stencil_run_set_param(run, "dt", 0.05);
    if (!rc) rc = advance(run, ex.iters - ex.iters / 2, rank);
    if (!rc) rc = stencil_view(run, prog_example_output);
    if (!rc) rc = stencil_run_stats(run, &ex.stats);
    prog_example_steps("heat3d_flux", &ex.stats, rc);
    stencil_destroy(&run);
    stencil_program_free(prog);
    if (rc && rank == 0) fprintf(stderr, "heat3d_flux: %s\n", stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0;
}
