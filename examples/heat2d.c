/*
 * heat2d: 2D 4-point Jacobi heat diffusion with a hot top edge, on every rank of MPI_COMM_WORLD.
 * Checks the distributed result against a serial run on rank 0 and prints the throughput.
 *
 *   mpiexec -n 4 ./heat2d [-n SIZE] [-i ITERATIONS] [-b BACKEND] [-k KERNEL] [-p blocks] [-d]
 *                         [-o FILE.png]
 *
 * -o writes a picture of the final field (colour map over [0, 1], the initial temperature range).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

typedef struct heat {
    long n;
    double *ref; /* serial result, on every rank after the broadcast */
    double maxdiff;
    long bad;
    int dbl;
    const char *png; /* -o: picture of the final field */
} heat;

/* Top edge hot, the rest cold with a little noise, so the spread is visible and non-trivial. */
static double initial(long i, long j, long n)
{
    if (i == 0) return 1.0;
    if (i == n - 1 || j == 0 || j == n - 1) return 0.0;
    unsigned long h = (unsigned long)(i * 2654435761UL) ^ (unsigned long)(j * 40503UL);
    return (double)(h % 1000u) / 10000.0;
}

#define STORE(T, t, at, v) (((T *)(t)->data)[at] = (T)(v))
#define LOAD(T, t, at)     ((double)((const T *)(t)->data)[at])

static int init_tile(stencil_tile *t, void *user)
{
    heat *h = user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            double v = initial(t->offset[0] + i, t->offset[1] + j, h->n);
            long at = i * t->stride[0] + j * t->stride[1];
            if (h->dbl)
                STORE(double, t, at, v);
            else
                STORE(float, t, at, v);
        }
    return 0;
}

static int check_tile(const stencil_tile *t, void *user)
{
    heat *h = user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            long at = i * t->stride[0] + j * t->stride[1];
            double got = h->dbl ? LOAD(double, t, at) : LOAD(float, t, at);
            double want = h->ref[(t->offset[0] + i) * h->n + t->offset[1] + j];
            double d = fabs(got - want);
            h->bad += got != want;
            h->maxdiff = d > h->maxdiff || d != d ? d : h->maxdiff;
        }
    /* Every rank is in the output callback together, as the collective writer needs. */
    if (h->png) return stencil_write_png(MPI_COMM_WORLD, h->png, t, -1, 0, 0.0, 1.0) != 0;
    return 0;
}

/* The serial reference, written independently of the library (same operation order). */
#define SERIAL(T)                                                                                  \
    static void serial_##T(double *g, long n, long iters)                                          \
    {                                                                                              \
        T *a = malloc(sizeof *a * (size_t)(n * n)), *b = malloc(sizeof *b * (size_t)(n * n));      \
        for (long i = 0; i < n * n; i++) a[i] = b[i] = (T)g[i];                                    \
        for (long t = 0; t < iters; t++) {                                                         \
            for (long i = 1; i < n - 1; i++)                                                       \
                for (long j = 1; j < n - 1; j++) {                                                 \
                    T s = a[(i - 1) * n + j];                                                      \
                    s = s + a[i * n + j - 1];                                                      \
                    s = s + a[i * n + j + 1];                                                      \
                    s = s + a[(i + 1) * n + j];                                                    \
                    b[i * n + j] = s / (T)4;                                                       \
                }                                                                                  \
            T *x = a;                                                                              \
            a = b;                                                                                 \
            b = x;                                                                                 \
        }                                                                                          \
        for (long i = 0; i < n * n; i++) g[i] = a[i];                                              \
        free(a);                                                                                   \
        free(b);                                                                                   \
    }
SERIAL(float)
SERIAL(double)

static void make_reference(heat *h, long iters, int rank)
{
    h->ref = malloc(sizeof *h->ref * (size_t)(h->n * h->n));
    if (rank == 0) {
        for (long i = 0; i < h->n; i++)
            for (long j = 0; j < h->n; j++) h->ref[i * h->n + j] = initial(i, j, h->n);
        if (h->dbl)
            serial_double(h->ref, h->n, iters);
        else
            serial_float(h->ref, h->n, iters);
    }
    MPI_Bcast(h->ref, (int)(h->n * h->n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static int run(heat *h, long iters, const char *backend, const char *kernel, int blocks)
{
    static const double w[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    stencil_desc st = {.ndims = 2,
                       .radius_lo = {1, 1},
                       .radius_hi = {1, 1},
                       .weights = w,
                       .divisor = 4,
                       .type = h->dbl ? STENCIL_DOUBLE : STENCIL_FLOAT};
    long sizes[2] = {h->n, h->n};
    stencil_options opt;
    stencil_stats stats;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    stencil_options_init(&opt);
    opt.backend = backend;
    opt.partition = blocks ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
    opt.stats = &stats;
    opt.user = h;
    make_reference(h, iters, rank);
    int rc =
        stencil_skeleton(MPI_COMM_WORLD, sizes, &st, iters, kernel, init_tile, check_tile, &opt);
    if (rc) {
        if (rank == 0) fprintf(stderr, "heat2d: %s\n", stencil_strerror(rc));
        return 1;
    }
    long bad = 0;
    double maxdiff = 0;
    MPI_Reduce(&h->bad, &bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&h->maxdiff, &maxdiff, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("heat2d: %ld x %ld %s, %ld iterations, %d ranks (%s %dx%d), backend %s (%s)\n", h->n,
               h->n, h->dbl ? "double" : "float", iters, size, blocks ? "blocks" : "bands",
               stats.proc_grid[0], stats.proc_grid[1], stats.backend, stats.device);
        printf("verification against the serial reference: %s (%ld cells differ, max |diff| %g)\n",
               bad == 0 ? "PASSED, bitwise equal" : "FAILED", bad, maxdiff);
        printf("throughput: %.3f Gcells/s (%.3f s for the iterations; %.0f%% of the exchange "
               "hidden behind the inner update)\n",
               stats.gcells, stats.t_loop, 100 * stats.exchange_hidden);
        if (h->png) printf("picture of the final field: %s\n", h->png);
    }
    return bad != 0;
}

int main(int argc, char **argv)
{
    heat h = {.n = 1024};
    long iters = 200;
    const char *backend = NULL, *kernel = NULL;
    int blocks = 0;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            h.n = atol(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc)
            iters = atol(argv[++i]);
        else if (!strcmp(argv[i], "-b") && i + 1 < argc)
            backend = argv[++i];
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            kernel = argv[++i];
        else if (!strcmp(argv[i], "-p") && i + 1 < argc)
            blocks = !strcmp(argv[++i], "blocks");
        else if (!strcmp(argv[i], "-d"))
            h.dbl = 1;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            h.png = argv[++i];
    }
    int rc = run(&h, iters, backend, kernel, blocks);
    free(h.ref);
    MPI_Finalize();
    return rc;
}
