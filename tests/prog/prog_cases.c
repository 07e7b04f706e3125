/* The programs of the tests (prog_ref.h): each feature and boundary kind in one of them. */
#include "prog_ref.h"

const prog_case tp_cases[] = {
    {"program heat\n"
     "  dims 2\n"
     "  field u\n"
     "  coef k\n"
     "  param dt = 0.1\n"
     "  update u = u + dt * (k * (u[-1,0] + u[1,0] - 2 * u) + k[0,1] * (u[0,-1] + u[0,1] - 2 * "
     "u))\n"
     "  boundary * i mirror\n"
     "  boundary * j periodic\n"
     "end\n",
     {23, 17, 1},
     0},
    {"# the wave equation\n"
     "program wave\n"
     "  dims 2\n"
     "  field u prev\n"
     "  coef c\n"
     "  param s = 0.5\n"
     "  update u = 2 * u - u@prev + c * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u) + (i == 3 "
     "&& j == 4 ? s * t : 0)\n"
     "  boundary * i- constant 0.25\n"
     "  boundary * i+ mirror\n"
     "end\n",
     {19, 21, 1},
     0},
    {"program gs\n"
     "  dims 2\n"
     "  field u\n"
     "  field v\n"
     "  param F = 0.035\n"
     "  let uvv = u * v * v\n"
     "  update u = u + 0.2 * (u[-1,-1] + u[1,1] + u[-1,1] + u[1,-1] - 4 * u) - uvv + F * (1 - "
     "u)\n"
     "  update v = max(v + 0.1 * (v[-2,0] + v[0,2] - 2 * v) + uvv, sqrt(abs(u)) * 0.01)\n"
     "  boundary * all periodic\n"
     "end\n",
     {22, 18, 1},
     0},
    {"program h3\n"
     "  dims 3\n"
     "  field u\n"
     "  update u = (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0] + u[0,0,-1] + u[0,0,1] + "
     "u[1,1,1]) / 7\n"
     "  boundary u i mirror\n"
     "  boundary u j- constant 1.5\n"
     "  boundary u j+ mirror\n"
     "  boundary u k periodic\n"
     "end\n",
     {9, 8, 7},
     0},
    {"program life\n"
     "  dims 2\n"
     "  field c\n"
     "  let n = c[-1,-1] + c[-1,0] + c[-1,1] + c[0,-1] + c[0,1] + c[1,-1] + c[1,0] + c[1,1]\n"
     "  update c = (n == 3 || (c == 1 && n == 2)) ? 1 : 0\n"
     "end\n",
     {20, 24, 1},
     1},
    {"program mixed\n"
     "  dims 2\n"
     "  field a prev\n"
     "  field b\n"
     "  coef m\n"
     "  param w = 0.25\n"
     "  update a = a@prev[1,0] * w + b[0,-1] - m * a[-1,1]\n"
     "  update b = b[2,0] < a ? b + w : b - w * j / 16\n"
     "  boundary a i periodic\n"
     "  boundary b i periodic\n"
     "  boundary m i periodic\n"
     "  boundary * j mirror\n"
     "end\n",
     {17, 15, 1},
     0},
    {"program upwind\n"
     "  dims 2\n"
     "  field u\n"
     "  coef vel\n"
     "  update u = u - vel * (u - u[-1,0]) + 0.1 * (u[0,1] - u) + 0.05 * (u[2,0] - u)\n"
     "  boundary u i- constant -0.5\n"
     "  boundary u i+ mirror\n"
     "  boundary * j periodic\n"
     "end\n",
     {25, 13, 1},
     0},
    {"program chan3\n"
     "  dims 3\n"
     "  field p\n"
     "  field q\n"
     "  update p = p + 0.125 * (q[0,0,-1] - p[0,-1,0]) + 0.25 * p[-2,0,0] + (k == 2 ? t : 0)\n"
     "  update q = min(q, p[1,0,0]) + 0.0625 * q[-1,-1,-1]\n"
     "  boundary p i mirror\n"
     "  boundary q i mirror\n"
     "  boundary * j periodic\n"
     "  boundary * k constant 2\n"
     "end\n",
     {14, 9, 10},
     0},
    {"program d1\n"
     "  dims 1\n"
     "  field u prev\n"
     "  update u = u[-1] * 0.5 + u[1] * 0.25 + u@prev[2] * 0.25 + i / 64\n"
     "  boundary u i- mirror\n"
     "  boundary u i+ constant 3\n"
     "end\n",
     {29, 1, 1},
     0},
    {"# rows of at least 1024 cells: the left halo widened to a whole line (skel/prog_setup.c)\n"
     "program wide\n"
     "  dims 2\n"
     "  field u\n"
     "  field v\n"
     "  update u = max(u + 0.25 * (u[0,-2] - 2 * u + u[0,1]) - u * v * v + 0.125 * v[1,0], -1)\n"
     "  update v = min(v + 0.125 * (v[-1,0] + v[0,1] - 2 * v) + u * v * v, 2)\n"
     "  boundary * j periodic\n"
     "  boundary * i mirror\n"
     "end\n",
     {20, 1100, 1},
     0},
};
const int tp_ncases = (int)(sizeof tp_cases / sizeof tp_cases[0]);

int tp_noop_init(stencil_tile *t, void *user)
{
    (void)t;
    (void)user;
    return 0;
}
