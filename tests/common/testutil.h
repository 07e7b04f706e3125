/*
 * Test helpers: reproducible random data and an independent serial reference.
 * The reference works on the whole global grid with plain loops over the dense weight pattern,
 * sharing no code with layout/ or the backends.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stddef.h>

#include "stencil.h"

/* Value in [-1, 1) from a hash of (seed, global linear index): same on every rank. */
double tu_random(unsigned long seed, long index);

/* Fills a tile with tu_random of each cell's global linear index. */
void tu_fill_tile(stencil_tile *t, unsigned long seed);

/* Global grid (row-major, dim 0 slowest) of tu_random values, as doubles. */
double *tu_random_grid(int ndims, const long *sizes, unsigned long seed);

/*
 * `iters` steps of the stencil on the whole global grid (in place in g, values as doubles but
 * computed in the stencil's element type, with the contract's operation order).
 */
void tu_reference(const stencil_desc *st, const long *sizes, int periodic, long iters, double *g);

/*
 * One step of the stencil over the box [lo, hi) of a strided local array (the backend tests'
 * reference): out = stencil(in) in the element type st->type, the contract's operation order.
 */
void tu_reference_box(const stencil_desc *st, const long *stride, const long *lo, const long *hi,
                      const void *in, void *out);

/* Compares a tile with the global grid: number of cells that differ bitwise (in element type). */
long tu_compare_tile(const stencil_tile *t, const double *g, double *maxdiff);

/* init / output callbacks of a run checked against a reference grid (user: a tu_check_ctx). */
typedef struct tu_check_ctx {
    unsigned long seed; /* tu_fill_tile's */
    const double *ref;  /* tu_reference's grid */
    long bad;           /* cells that differ, -1 before the output callback ran */
    double maxdiff;
} tu_check_ctx;
int tu_init_cb(stencil_tile *t, void *user);
int tu_check_cb(const stencil_tile *t, void *user);

/* Sum over ranks, so every rank asserts on the same number. */
long tu_allsum(MPI_Comm comm, long v);

/*
 * A fresh scratch directory, the same path on every rank of comm (made by rank 0 under TMPDIR,
 * else /tmp, named stem-XXXXXX); dir is "" when it cannot be made. Collective.
 */
void tu_scratch_make(MPI_Comm comm, const char *stem, char *dir, size_t len);
/* Removes the named files of dir and dir itself, after every rank got there. Collective. */
void tu_scratch_remove(MPI_Comm comm, const char *dir, const char *const *names, size_t n);

#endif
