#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

double tu_random(unsigned long seed, long index)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + (uint64_t)index;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (double)(x >> 11) / 4503599627370496.0 - 1.0; /* 53 bits -> [-1, 1) */
}

static long global_linear(const stencil_tile *t, long i, long j, long k)
{
    return ((t->offset[0] + i) * t->global_size[1] + t->offset[1] + j) * t->global_size[2] +
           t->offset[2] + k;
}

void tu_fill_tile(stencil_tile *t, unsigned long seed)
{
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long at = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                double v = tu_random(seed, global_linear(t, i, j, k));
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[at] = v;
                else
                    ((float *)t->data)[at] = (float)v;
            }
}

static void sizes3(int ndims, const long *sizes, long n[3])
{
    for (int d = 0; d < 3; d++) n[d] = d < ndims ? sizes[d] : 1;
}

double *tu_random_grid(int ndims, const long *sizes, unsigned long seed)
{
    long n[3];
    sizes3(ndims, sizes, n);
    double *g = malloc(sizeof *g * (size_t)(n[0] * n[1] * n[2]));
    for (long i = 0; i < n[0] * n[1] * n[2]; i++) g[i] = tu_random(seed, i);
    return g;
}

static long wrap(long x, long n)
{
    return ((x % n) + n) % n;
}

/* The dense pattern's extent and low radius per dimension, 1 and 0 past ndims. */
static void pattern_extent(const stencil_desc *st, long ext[3], long lo[3])
{
    for (int d = 0; d < 3; d++) {
        ext[d] = d < st->ndims ? st->radius_lo[d] + 1 + st->radius_hi[d] : 1;
        lo[d] = d < st->ndims ? st->radius_lo[d] : 0;
    }
}

/* The nonzero terms of the dense pattern in row-major pattern order: their weights, their
   offsets per dimension and as an index into an array of strides s. */
typedef struct ref_taps {
    long n, *off, (*o)[3];
    double *w;
} ref_taps;

static void taps_make(const stencil_desc *st, const long s[3], ref_taps *t)
{
    long ext[3], lo[3];
    pattern_extent(st, ext, lo);
    long all = ext[0] * ext[1] * ext[2];
    t->n = 0;
    t->off = malloc(sizeof *t->off * (size_t)all);
    t->o = malloc(sizeof *t->o * (size_t)all);
    t->w = malloc(sizeof *t->w * (size_t)all);
    for (long a = 0; a < all; a++) {
        if (st->weights[a] == 0) continue;
        long *o = t->o[t->n];
        o[0] = a / (ext[1] * ext[2]) - lo[0];
        o[1] = a / ext[2] % ext[1] - lo[1];
        o[2] = a % ext[2] - lo[2];
        t->off[t->n] = o[0] * s[0] + o[1] * s[1] + o[2] * s[2];
        t->w[t->n++] = st->weights[a];
    }
}

static void taps_free(ref_taps *t)
{
    free(t->off);
    free(t->o);
    free(t->w);
}

/* Cell at of a grid n, in element type T, terms in row-major pattern order, the first term
   starting the sum, then divided: the contract's order. c: the cell's coordinates where its
   neighbours wrap around (periodic, near the edges), else NULL. */
#define REF_CELL(T)                                                                                \
    static T ref_cell_##T(const ref_taps *t, const T *g, long at, const long n[3], const long *c,  \
                          T divisor)                                                               \
    {                                                                                              \
        T acc = 0;                                                                                 \
        for (long k = 0; k < t->n; k++) {                                                          \
            long p[3], from = at + t->off[k];                                                      \
            if (c) {                                                                               \
                for (int d = 0; d < 3; d++) p[d] = wrap(c[d] + t->o[k][d], n[d]);                  \
                from = (p[0] * n[1] + p[1]) * n[2] + p[2];                                         \
            }                                                                                      \
            T term = (T)t->w[k] * g[from];                                                         \
            acc = k == 0 ? term : acc + term;                                                      \
        }                                                                                          \
        return acc / divisor;                                                                      \
    }
REF_CELL(float)
REF_CELL(double)

/* Whether every neighbour of cell c lies inside the grid n (no wrap needed). */
static int ref_inside(const long rl[3], const long rh[3], const long n[3], const long c[3])
{
    for (int d = 0; d < 3; d++)
        if (c[d] - rl[d] < 0 || c[d] + rh[d] >= n[d]) return 0;
    return 1;
}

/* Fixed boundaries: the cells a radius away from the edges; periodic ones: every cell, those
   whose neighbours wrap around one by one. */
#define REF_RUN(T)                                                                                 \
    static void ref_run_##T(const stencil_desc *st, const long n[3], int periodic, long iters,     \
                            double *g)                                                             \
    {                                                                                              \
        long total = n[0] * n[1] * n[2], lo[3], hi[3], rl[3], rh[3];                               \
        const long s[3] = {n[1] * n[2], n[2], 1};                                                  \
        ref_taps taps;                                                                             \
        taps_make(st, s, &taps);                                                                   \
        T *a = malloc(sizeof *a * (size_t)total), *b = malloc(sizeof *b * (size_t)total);          \
        for (long i = 0; i < total; i++) a[i] = b[i] = (T)g[i];                                    \
        for (int d = 0; d < 3; d++) {                                                              \
            rl[d] = d < st->ndims ? st->radius_lo[d] : 0;                                          \
            rh[d] = d < st->ndims ? st->radius_hi[d] : 0;                                          \
            lo[d] = periodic ? 0 : rl[d];                                                          \
            hi[d] = periodic ? n[d] : n[d] - rh[d];                                                \
        }                                                                                          \
        for (long t = 0; t < iters; t++) {                                                         \
            long c[3];                                                                             \
            for (c[0] = lo[0]; c[0] < hi[0]; c[0]++)                                               \
                for (c[1] = lo[1]; c[1] < hi[1]; c[1]++)                                           \
                    for (c[2] = lo[2]; c[2] < hi[2]; c[2]++) {                                     \
                        long at = c[0] * s[0] + c[1] * s[1] + c[2];                                \
                        const long *wc = periodic && !ref_inside(rl, rh, n, c) ? c : NULL;         \
                        b[at] = ref_cell_##T(&taps, a, at, n, wc, (T)st->divisor);                 \
                    }                                                                              \
            T *sw = a;                                                                             \
            a = b;                                                                                 \
            b = sw;                                                                                \
        }                                                                                          \
        for (long i = 0; i < total; i++) g[i] = (double)a[i];                                      \
        taps_free(&taps);                                                                          \
        free(a);                                                                                   \
        free(b);                                                                                   \
    }
REF_RUN(float)
REF_RUN(double)

void tu_reference(const stencil_desc *st, const long *sizes, int periodic, long iters, double *g)
{
    long n[3];
    sizes3(st->ndims, sizes, n);
    if (st->type == STENCIL_DOUBLE)
        ref_run_double(st, n, periodic, iters, g);
    else
        ref_run_float(st, n, periodic, iters, g);
}

#define REF_BOX(T)                                                                                 \
    static void ref_box_##T(const stencil_desc *st, const long *s, const long *lo, const long *hi, \
                            const T *in, T *out)                                                   \
    {                                                                                              \
        ref_taps taps;                                                                             \
        taps_make(st, s, &taps);                                                                   \
        for (long i = lo[0]; i < hi[0]; i++)                                                       \
            for (long j = lo[1]; j < hi[1]; j++)                                                   \
                for (long k = lo[2]; k < hi[2]; k++) {                                             \
                    long at = i * s[0] + j * s[1] + k * s[2];                                      \
                    out[at] = ref_cell_##T(&taps, in, at, NULL, NULL, (T)st->divisor);             \
                }                                                                                  \
        taps_free(&taps);                                                                          \
    }
REF_BOX(float)
REF_BOX(double)

void tu_reference_box(const stencil_desc *st, const long *stride, const long *lo, const long *hi,
                      const void *in, void *out)
{
    if (st->type == STENCIL_DOUBLE)
        ref_box_double(st, stride, lo, hi, in, out);
    else
        ref_box_float(st, stride, lo, hi, in, out);
}

long tu_compare_tile(const stencil_tile *t, const double *g, double *maxdiff)
{
    long bad = 0;
    *maxdiff = 0;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long at = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                double want = g[global_linear(t, i, j, k)], got;
                int same;
                if (t->type == STENCIL_DOUBLE) {
                    got = ((const double *)t->data)[at];
                    same = memcmp(&got, &want, sizeof got) == 0;
                } else {
                    float gf = ((const float *)t->data)[at], wf = (float)want;
                    got = gf;
                    same = memcmp(&gf, &wf, sizeof gf) == 0;
                }
                if (!same) {
                    bad++;
                    if (fabs(got - want) > *maxdiff || isnan(got))
                        *maxdiff = isnan(got) ? INFINITY : fabs(got - want);
                }
            }
    return bad;
}

long tu_allsum(MPI_Comm comm, long v)
{
    long s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, comm);
    return s;
}

void tu_scratch_make(MPI_Comm comm, const char *stem, char *dir, size_t len)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, len, "%s/%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", stem);
        if (!mkdtemp(dir)) dir[0] = '\0';
    }
    MPI_Bcast(dir, (int)len, MPI_CHAR, 0, comm);
}

void tu_scratch_remove(MPI_Comm comm, const char *dir, const char *const *names, size_t n)
{
    int rank;
    MPI_Barrier(comm);
    MPI_Comm_rank(comm, &rank);
    if (rank != 0) return;
    for (size_t i = 0; i < n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

int tu_init_cb(stencil_tile *t, void *user)
{
    tu_fill_tile(t, ((tu_check_ctx *)user)->seed);
    return 0;
}

int tu_check_cb(const stencil_tile *t, void *user)
{
    tu_check_ctx *c = user;
    c->bad = tu_compare_tile(t, c->ref, &c->maxdiff);
    return 0;
}
