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
