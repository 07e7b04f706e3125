/*
 * What the program kernels' tests share (tests/progdev/test_progdev.c, tests/rtc/prog_gen.c,
 * tests/rtc/test_prog_emul.c): random field values, and the shapes of the run-time CUDA/HIP
 * program kernel (kgt_prog_shape: bx, by, cy) the tests run
 * besides kgt's plan: blocks of whole and partial 128-byte lines, walks of 1 to 16 cells, and
 * odd shapes whose tiles never divide a box. A shape that does not fit a program
 * (kgt_prog_shape_check: 1D takes by = cy = 1) is skipped for it.
 */
#ifndef PROG_TESTS_H
#define PROG_TESTS_H

#include <stdint.h>
#include <string.h>

#include "prog.h"

static uint64_t prog_rng;
static inline double prog_urand(void)
{
    prog_rng = prog_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(prog_rng >> 11) / 9007199254740992.0;
}

/* n random values in [-1, 1) of type dbl; the Game of Life gets 0 and 1 so that its rule
   fires. */
static inline void prog_fill(const kgt_prog *p, char *buf, size_t n, int dbl)
{
    int life = strcmp(p->name, "life") == 0;
    for (size_t i = 0; i < n; i++) {
        double v = 2 * prog_urand() - 1;
        if (life) v = v > 0.2;
        if (dbl)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
    }
}

static const int prog_test_shapes[][3] = {
    {64, 4, 8}, {32, 8, 4}, {128, 2, 8}, {32, 4, 16}, {64, 4, 1},
    {16, 2, 3}, {7, 3, 5},  {256, 1, 1}, {5, 1, 1},
};
enum { PROG_TEST_NSHAPES = sizeof prog_test_shapes / sizeof *prog_test_shapes };

#endif
