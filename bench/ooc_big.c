/*
 * ooc_big: a periodic 2D grid too large for the device, run out of core, checked cell by cell.
 *
 *   ooc_big -n 110000 -P 1000 -i 100 [-S 2d4] [-t float|double] [-b backend]
 *
 * The data repeat with period P in both dimensions (P divides n), and the boundary is periodic,
 * so after any number of steps the big grid is the P x P grid's result tiled: every cell does
 * the same operations on the same values. The P x P grid runs first, in core on the host backend;
 * the big run's output callback then compares all n^2 cells with it bitwise. Rank 0 prints one
 * JSON line: the big run's rate, its out-of-core figures, set-up and check times, and the count
 * of cells that differ (0 when correct). One rank (the big part is this rank's whole grid).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"
#include "stencil_set.h"

typedef struct big {
    long n, period, iters;
    const char *stencil, *backend;
    stencil_type type;
    void *start, *ref;      /* the P x P initial data and result, row-major */
    long long differ, seen; /* the big run's check */
} big;

static double value(long i, long j)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)j * 2246822519u;
    x ^= x >> 15;
    x *= 2654435761u;
    x ^= x >> 13;
    return (double)(x >> 8) / 16777216.0;
}

/*
 * Row i of a tile from period-long rows of src (P x P, row-major): the segments of a row that
 * repeat with the period, as memcpy into the tile (put) or memcmp against it (counting the cells
 * of segments that differ).
 */
static long long rows_of(const big *b, const stencil_tile *t, const char *src, int put)
{
    size_t es = t->type == STENCIL_DOUBLE ? sizeof(double) : sizeof(float);
    long long differ = 0;
    for (long i = 0; i < t->size[0]; i++) {
        char *row = (char *)t->data + (size_t)(i * t->stride[0]) * es;
        const char *ref = src + (size_t)((t->offset[0] + i) % b->period * b->period) * es;
        for (long j = 0; j < t->size[1];) {
            long j0 = (t->offset[1] + j) % b->period, len = b->period - j0;
            if (len > t->size[1] - j) len = t->size[1] - j;
            char *dst = row + (size_t)j * es;
            if (put)
                memcpy(dst, ref + (size_t)j0 * es, (size_t)len * es);
            else if (memcmp(dst, ref + (size_t)j0 * es, (size_t)len * es))
                for (long k = 0; k < len; k++)
                    differ += memcmp(dst + k * es, ref + (size_t)(j0 + k) * es, es) != 0;
            j += len;
        }
    }
    return differ;
}

static int init(stencil_tile *t, void *user)
{
    const big *b = user;
    if (t->ndims != 2 || t->stride[1] != 1) return 1;
    rows_of(b, t, b->start, 1);
    return 0;
}

/* The P x P run's result. */
static int keep(const stencil_tile *t, void *user)
{
    big *b = user;
    size_t es = t->type == STENCIL_DOUBLE ? sizeof(double) : sizeof(float);
    for (long i = 0; i < t->size[0]; i++)
        memcpy((char *)b->ref + (size_t)((t->offset[0] + i) * b->period + t->offset[1]) * es,
               (const char *)t->data + (size_t)(i * t->stride[0]) * es, (size_t)t->size[1] * es);
    return 0;
}

static int check(const stencil_tile *t, void *user)
{
    big *b = user;
    if (t->ndims != 2 || t->stride[1] != 1) return 1;
    b->differ += rows_of(b, t, b->ref, 0);
    b->seen += (long long)t->size[0] * t->size[1];
    return 0;
}

static int parse(big *b, int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "-n"))
            b->n = atol(v);
        else if (!strcmp(a, "-P"))
            b->period = atol(v);
        else if (!strcmp(a, "-i"))
            b->iters = atol(v);
        else if (!strcmp(a, "-S"))
            b->stencil = v;
        else if (!strcmp(a, "-b"))
            b->backend = v;
        else if (!strcmp(a, "-t"))
            b->type = !strcmp(v, "double") ? STENCIL_DOUBLE : STENCIL_FLOAT;
        else
            return -1;
    }
    return b->n > 0 && b->period > 0 && b->n % b->period == 0 && b->iters >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    big b = {.n = 110000, .period = 1000, .iters = 100, .stencil = "2d4", .type = STENCIL_FLOAT};
    stencil_desc st;
    stencil_stats s0, s;
    stencil_options o;
    int rank = 0, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if ((argc - 1) % 2 || parse(&b, argc, argv) ||
        stencil_set_get(stencil_set_find(b.stencil), b.type, &st)) {
        if (!rank) fprintf(stderr, "usage: ooc_big -n N -P P -i ITERS [-S 2d4] [-t T] [-b B]\n");
        MPI_Finalize();
        return 2;
    }
    size_t es = b.type == STENCIL_DOUBLE ? sizeof(double) : sizeof(float);
    b.ref = calloc((size_t)(b.period * b.period), es);
    b.start = malloc((size_t)(b.period * b.period) * es);
    for (long i = 0; i < b.period * b.period && b.start; i++) {
        if (b.type == STENCIL_DOUBLE)
            ((double *)b.start)[i] = value(i / b.period, i % b.period);
        else
            ((float *)b.start)[i] = (float)value(i / b.period, i % b.period);
    }
    stencil_options_init(&o);
    o.boundary = STENCIL_BOUNDARY_PERIODIC;
    o.user = &b;
    o.backend = "host";
    o.stats = &s0;
    long small[2] = {b.period, b.period}, whole[2] = {b.n, b.n};
    rc = stencil_skeleton(MPI_COMM_WORLD, small, &st, b.iters, NULL, init, keep, &o);
    if (!rc) {
        o.backend = b.backend;
        o.stats = &s;
        double t0 = MPI_Wtime();
        rc = stencil_skeleton(MPI_COMM_WORLD, whole, &st, b.iters, NULL, init, check, &o);
        double t_all = MPI_Wtime() - t0;
        if (!rc && !rank)
            printf("{\"case\": \"ooc_big\", \"stencil\": \"%s\", \"type\": \"%s\", \"n\": %ld, "
                   "\"period\": %ld, \"iters\": %ld, \"backend\": \"%s\", \"device\": \"%s\", "
                   "\"kernel\": \"%s\", \"gcells\": %.2f, \"t_loop\": %.3f, \"t_setup\": %.3f, "
                   "\"t_total\": %.3f, \"t_call\": %.3f, \"steps\": %d, \"steps_why\": \"%s\", "
                   "\"ooc\": %d, \"ooc_chunks\": %d, \"ooc_up\": %lld, \"ooc_down\": %lld, "
                   "\"ooc_hidden\": %.3f, \"ooc_bandwidth\": %.4g, \"ooc_rate\": %.4g, "
                   "\"device_bytes\": %zu, \"array_bytes\": %.4g, \"checked\": %lld, "
                   "\"differ\": %lld}\n",
                   b.stencil, b.type == STENCIL_DOUBLE ? "double" : "float", b.n, b.period, b.iters,
                   s.backend, s.device, s.kernel, s.gcells, s.t_loop, s.t_setup, s.t_total, t_all,
                   s.steps, s.steps_why, s.ooc, s.ooc_chunks, s.ooc_up, s.ooc_down, s.ooc_hidden,
                   s.ooc_bandwidth, s.ooc_rate, s.device_bytes,
                   (double)b.n * (double)b.n * (double)es, b.seen, b.differ);
    }
    if (rc && !rank) fprintf(stderr, "ooc_big: %s\n", stencil_strerror(rc));
    free(b.ref);
    free(b.start);
    MPI_Finalize();
    return rc ? 1 : b.differ != 0 || b.seen != b.n * b.n ? 3 : 0;
}
