/*
 * wave2d: the 2D acoustic wave equation u+ = 2u - u- + c2 lap(u) + source, second order in
 * time (the field keeps its previous level, u@prev), in two layers of rock: c2 = (c dt / h)^2
 * is a coefficient field, 0.1 above the middle row and 0.3 below it (with 10% of noise). A
 * point source at (n/3, n1/2) comes from the cell's index and the step number (a pulse over the
 * first 20 steps); the walls are mirrors, and a sponge layer of width w damps the waves within
 * w cells of them, so that few come back.
 *
 *   mpiexec -n 4 ./wave2d [-n SIZE] [-i STEPS] [-s SEED] [-o PREFIX] [-f float|double]
 *                         [-p bands|blocks] [-b BACKEND] [-t STEPS]
 *
 * The grid is SIZE x (SIZE + SIZE/2); the sizes, the source and the sponge width are the
 * program's parameters, set with stencil_program_set_param() before the run.
 */
#include "prog_example.h"

static const char *text =
    "program wave\n"
    "  dims 2\n"
    "  field u prev\n"
    "  coef c2\n"
    "  param amp = 1\n"
    "  param si = 0\n"
    "  param sj = 0\n"
    "  param ni = 64\n"
    "  param nj = 64\n"
    "  param w = 8\n"
    "  let lap = u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u\n"
    "  let src = i == si && j == sj && t < 20 ? amp * t * (20 - t) / 100 : 0\n"
    "  let edge = min(min(i, j), min(ni - 1 - i, nj - 1 - j))\n"
    "  let damp = edge < w ? 1 - 0.1 * (w - edge) / w : 1\n"
    "  update u = damp * (2 * u - u@prev + c2 * lap) + src\n"
    "  boundary u all mirror\n"
    "end\n";

static double quiet(const prog_example *ex, const long *g)
{
    (void)ex;
    (void)g;
    return 0.0;
}

static double layers(const prog_example *ex, const long *g)
{
    double r = prog_example_random(ex->seed, g[0] * (ex->n + ex->n / 2) + g[1]);
    return (g[0] < ex->n / 2 ? 0.1 : 0.3) * (1.0 + 0.1 * r);
}

static int init(stencil_tile *t, void *user)
{
    prog_example_fill(t, strcmp(t->field, "c2") ? quiet : layers, user);
    return 0;
}

/* SIZE x (SIZE + SIZE/2). */
static void sizes_of(const prog_example *ex, long *sizes)
{
    sizes[1] = ex->n + ex->n / 2;
}

/* The parameters that follow from the sizes: the walls, the source, the sponge's width. */
static int setup(stencil_program *prog, const long *sizes)
{
    int rc = stencil_program_set_param(prog, "ni", (double)sizes[0]);
    if (!rc) rc = stencil_program_set_param(prog, "nj", (double)sizes[1]);
    if (!rc) rc = stencil_program_set_param(prog, "si", (double)(sizes[0] / 3));
    if (!rc) rc = stencil_program_set_param(prog, "sj", (double)(sizes[1] / 2));
    if (!rc) rc = stencil_program_set_param(prog, "w", (double)(sizes[0] / 8 + 1));
    return rc;
}

int main(int argc, char **argv)
{
    return prog_example_main(argc, argv, "wave2d", text, 256, 1000, sizes_of, setup, init,
                             prog_example_output);
}
