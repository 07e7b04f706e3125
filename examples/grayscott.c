/*
 * grayscott: Gray-Scott reaction-diffusion, two chemicals u and v on a periodic square, that
 * grows spots from a small seeded square (u = 0.5, v = 0.25 in it, u = 1 and v = 0 around,
 * and noise of up to 0.01 on v):
 *
 *   u+ = u + dt (Du lap(u) - u v v + F (1 - u))
 *   v+ = v + dt (Dv lap(v) + u v v - (F + k) v)
 *
 * written as a stencil program (two fields, a shared `let`, parameters) and run by
 * stencil_program_skeleton() on every rank; the output callback writes a PNG of v (when
 * libstencil has libpng) and, with -o, both fields for tests/progex.
 *
 *   mpiexec -n 4 ./grayscott [-n SIZE] [-i ITERATIONS] [-s SEED] [-g V.png] [-o PREFIX]
 *                            [-f float|double] [-p bands|blocks] [-b BACKEND] [-t STEPS]
 */
#include "prog_example.h"

static const char *text = "program grayscott\n"
                          "  dims 2\n"
                          "  field u\n"
                          "  field v\n"
                          "  param Du = 0.16\n"
                          "  param Dv = 0.08\n"
                          "  param F = 0.035\n"
                          "  param kk = 0.065\n"
                          "  param dt = 1\n"
                          "  let uvv = u * v * v\n"
                          "  let lu = u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u\n"
                          "  let lv = v[-1,0] + v[1,0] + v[0,-1] + v[0,1] - 4 * v\n"
                          "  update u = u + dt * (Du * lu - uvv + F * (1 - u))\n"
                          "  update v = v + dt * (Dv * lv + uvv - (F + kk) * v)\n"
                          "  boundary * all periodic\n"
                          "end\n";

static int inside(const prog_example *ex, const long *g)
{
    long c = ex->n / 2, r = ex->n / 8 + 1;
    return labs(g[0] - c) < r && labs(g[1] - c) < r;
}

static double u0(const prog_example *ex, const long *g)
{
    return inside(ex, g) ? 0.5 : 1.0;
}

static double v0(const prog_example *ex, const long *g)
{
    double noise = 0.01 * prog_example_random(ex->seed, g[0] * ex->n + g[1]);
    return (inside(ex, g) ? 0.25 : 0.0) + noise;
}

static int init(stencil_tile *t, void *user)
{
    prog_example_fill(t, strcmp(t->field, "u") ? v0 : u0, user);
    return 0;
}

static int output(const stencil_tile *t, void *user)
{
    const prog_example *ex = user;
    if (ex->png && !strcmp(t->field, "v")) {
        int rc = stencil_write_png(MPI_COMM_WORLD, ex->png, t, -1, 0, 0.0, 0.0);
        if (rc == STENCIL_ENOSYS && t->rank == 0)
            fprintf(stderr, "grayscott: no PNG (libstencil was built without libpng)\n");
        else if (rc)
            return 1;
    }
    return prog_example_output(t, user);
}

int main(int argc, char **argv)
{
    return prog_example_main(argc, argv, "grayscott", text, 256, 5000, NULL, NULL, init, output);
}
