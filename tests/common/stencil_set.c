/* The stencil set of docs/STENCILS.md. Dense weights are row-major, dimension 0 (x) slowest. */
#include <string.h>

#include "stencil_set.h"

static const double w_1d3[] = {1, 1, 1};
static const double w_1d_wide[] = {1, 1, 2, 4, 2}; /* offsets -3..+1 */
static const double w_2d4[] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
static const double w_2d9[] = {1, 4, 1, 4, 0, 4, 1, 4, 1};
static const double w_2d9nc[] = {0, 0, 1, 0, 0, 0, 0, 4, 0, 0, 1, 4, 4,
                                 4, 1, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0};
static const double w_2d5asym[] = {0, 0, 1, 0, 0, 2, 1, 2, 4}; /* offsets -2..0 per dim */
static const double w_2d_diag[] = {1, 0, 1, 0, 4, 0, 1, 0, 1};
/* 3x3x3, one 3x3 plane of y,z per x. */
static const double w_3d7[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, /* x = -1 */
                               0, 1, 0, 1, 0, 1, 0, 1, 0, /* x = 0 */
                               0, 0, 0, 0, 1, 0, 0, 0, 0 /* x = +1 */};
static const double w_3d27[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
/* Offsets 0..1 per dim: index x*4 + y*2 + z. */
static const double w_3d_oct[] = {2, 1, 1, 0, 1, 0, 0, 1};
/* 5x5x5, offsets -2..2 per dim; index (x+2)*25 + (y+2)*5 + (z+2): a radius-2 star. */
static const double w_3d13[] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* x = -2 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* x = -1 */
    0, 0, 1, 0, 0, 0, 0, 4, 0, 0, 1, 4, 6, 4, 1, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0, /* x = 0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* x = +1 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 /* x = +2 */};
/* The 3x3x3 box without its 8 corners: faces 2, edges 1, centre 6. */
static const double w_3d19[] = {0, 1, 0, 1, 2, 1, 0, 1, 0, /* x = -1 */
                                1, 2, 1, 2, 6, 2, 1, 2, 1, /* x = 0 */
                                0, 1, 0, 1, 2, 1, 0, 1, 0 /* x = +1 */};
/* 9x9, offsets -4..4 per dim: a radius-4 star, weights 6, 3, 2, 1 by distance, centre 12. */
static const double w_2d17[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0,  0,
                                0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 1, 2, 3, 6, 12, 6,
                                3, 2, 1, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,  0,
                                0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
/* 5x5, offsets -3..+1 per dim: reach 3 on the low side, 1 on the high side, along both axes. */
static const double w_2d_asym[] = {0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0,
                                   4, 0, 1, 2, 4, 5, 3, 0, 0, 0, 3, 0};
/* The full 5x5 box, offsets -2..2: weight (3 - |x|) * (3 - |y|). */
static const double w_2d25[] = {1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 3, 6, 9,
                                6, 3, 2, 4, 6, 4, 2, 1, 2, 3, 2, 1};

struct entry {
    const char *name;
    int ndims;
    int rlo[3], rhi[3];
    const double *w;
    double divisor;
};

static const struct entry set[] = {
    {"1d3", 1, {1, 0, 0}, {1, 0, 0}, w_1d3, 3},
    {"1d-wide", 1, {3, 0, 0}, {1, 0, 0}, w_1d_wide, 10},
    {"2d4", 2, {1, 1, 0}, {1, 1, 0}, w_2d4, 4},
    {"2d9", 2, {1, 1, 0}, {1, 1, 0}, w_2d9, 20},
    {"2d9nc", 2, {2, 2, 0}, {2, 2, 0}, w_2d9nc, 24},
    {"2d5asym", 2, {2, 2, 0}, {0, 0, 0}, w_2d5asym, 10},
    {"2d-diag", 2, {1, 1, 0}, {1, 1, 0}, w_2d_diag, 8},
    {"3d7", 3, {1, 1, 1}, {1, 1, 1}, w_3d7, 6},
    {"3d27", 3, {1, 1, 1}, {1, 1, 1}, w_3d27, 27},
    {"3d-oct", 3, {0, 0, 0}, {1, 1, 1}, w_3d_oct, 6},
    {"3d13", 3, {2, 2, 2}, {2, 2, 2}, w_3d13, 36},
    {"3d19", 3, {1, 1, 1}, {1, 1, 1}, w_3d19, 30},
    {"2d17", 2, {4, 4, 0}, {4, 4, 0}, w_2d17, 60},
    {"2d-asym", 2, {3, 3, 0}, {1, 1, 0}, w_2d_asym, 25},
    {"2d25", 2, {2, 2, 0}, {2, 2, 0}, w_2d25, 81},
};

#define NSET ((int)(sizeof(set) / sizeof(set[0])))

int stencil_set_count(void)
{
    return NSET;
}

const char *stencil_set_name(int i)
{
    return i >= 0 && i < NSET ? set[i].name : NULL;
}

int stencil_set_find(const char *name)
{
    int i;

    for (i = 0; name && i < NSET; i++)
        if (strcmp(set[i].name, name) == 0) return i;
    return -1;
}

int stencil_set_get(int i, stencil_type t, stencil_desc *out)
{
    int d;

    if (i < 0 || i >= NSET) return -1;
    memset(out, 0, sizeof(*out));
    out->ndims = set[i].ndims;
    for (d = 0; d < STENCIL_MAX_DIMS; d++) {
        out->radius_lo[d] = set[i].rlo[d];
        out->radius_hi[d] = set[i].rhi[d];
    }
    out->weights = set[i].w;
    out->divisor = set[i].divisor;
    out->type = t;
    return 0;
}
