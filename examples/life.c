/*
 * life: Conway's Game of Life on a torus. A cell is alive (1) or dead (0); it lives on with 2
 * or 3 living neighbours of its 8 and is born with exactly 3. The rule is one update of a
 * stencil program, a comparison and a select; the start is a random soup (30% alive, from -s
 * SEED). Rank 0 prints how many cells live at the end.
 *
 *   mpiexec -n 4 ./life [-n SIZE] [-i GENERATIONS] [-s SEED] [-o PREFIX] [-f float|double]
 *                       [-p bands|blocks] [-b BACKEND] [-t STEPS]
 */
#include "prog_example.h"

static const char *text =
    "# Conway's Game of Life on a torus\n"
    "program life\n"
    "  dims 2\n"
    "  field c\n"
    "  let n = c[-1,-1] + c[-1,0] + c[-1,1] + c[0,-1] + c[0,1] + c[1,-1] + c[1,0] + c[1,1]\n"
    "  update c = n == 3 || (c == 1 && n == 2) ? 1 : 0\n"
    "  boundary c all periodic\n"
    "end\n";

static double soup(const prog_example *ex, const long *g)
{
    return prog_example_random(ex->seed, g[0] * ex->n + g[1]) < 0.3 ? 1.0 : 0.0;
}

static int init(stencil_tile *t, void *user)
{
    prog_example_fill(t, soup, user);
    return 0;
}

static int output(const stencil_tile *t, void *user)
{
    double alive = prog_example_total(t);
    if (t->rank == 0) printf("life: %.0f cells alive after %ld generations\n", alive, t->iteration);
    return prog_example_output(t, user);
}

int main(int argc, char **argv)
{
    return prog_example_main(argc, argv, "life", text, 128, 200, NULL, NULL, init, output);
}
