/*
 * What the program examples (grayscott.c, life.c, wave2d.c, heat3d_flux.c, channel.c) share: their
 * command line, a seeded pseudo-random number per cell that tests/progex/progex.py computes too,
 * and the output callback that writes each field with stencil_write() for those tests.
 *
 *   -n SIZE  -i ITERATIONS  -s SEED  -f float|double  -p bands|blocks  -b BACKEND  -o PREFIX
 *   -t STEPS (time steps per halo exchange, options.steps; 0 automatic)
 *
 * -o PREFIX writes every field, at the end, to PREFIX.FIELD.sten (stencil_write's format: a
 * 128-byte header, then the elements row-major). Rank 0 says how many time steps per exchange
 * the run took and why (stats.steps, steps_why; tests/progex checks it).
 */
#ifndef PROG_EXAMPLE_H
#define PROG_EXAMPLE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

typedef struct prog_example {
    long n, iters;
    unsigned seed;
    stencil_type type;
    const char *prefix; /* -o */
    const char *png;    /* -g (grayscott only) */
    stencil_options opt;
    stencil_stats stats; /* opt.stats of the skeleton runs */
} prog_example;

static inline void prog_example_args(prog_example *ex, int argc, char **argv, long n, long iters)
{
    ex->n = n;
    ex->iters = iters;
    ex->seed = 1;
    ex->type = STENCIL_FLOAT;
    ex->prefix = NULL;
    ex->png = NULL;
    stencil_options_init(&ex->opt);
    ex->opt.user = ex;
    ex->opt.stats = &ex->stats;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "-n")) ex->n = atol(v);
        if (!strcmp(a, "-i")) ex->iters = atol(v);
        if (!strcmp(a, "-s")) ex->seed = (unsigned)atol(v);
        if (!strcmp(a, "-f")) ex->type = strcmp(v, "double") ? STENCIL_FLOAT : STENCIL_DOUBLE;
        if (!strcmp(a, "-p"))
            ex->opt.partition = strcmp(v, "blocks") ? STENCIL_PART_BANDS : STENCIL_PART_BLOCKS;
        if (!strcmp(a, "-b")) ex->opt.backend = v;
        if (!strcmp(a, "-t")) ex->opt.steps = atoi(v);
        if (!strcmp(a, "-o")) ex->prefix = v;
        if (!strcmp(a, "-g")) ex->png = v;
    }
}

/* Rank 0's line on the time steps per halo exchange of a run that succeeded. */
static inline void prog_example_steps(const char *name, const stencil_stats *st, int rc)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!rc && rank == 0)
        printf("%s: steps per exchange %d (%s)\n", name, st->steps, st->steps_why);
}

/* A number in [0, 1) with 24 bits, from the cell's global row-major index and the seed. */
static inline double prog_example_random(unsigned seed, long index)
{
    uint32_t h = (uint32_t)index * 2654435761u ^ seed * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return (double)(h >> 8) / 16777216.0;
}

/* Calls fn(value of cell, global index) over a tile and stores what it returns. */
static inline void prog_example_fill(stencil_tile *t,
                                     double (*fn)(const prog_example *, const long *),
                                     const prog_example *ex)
{
    long g[3];
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < (t->ndims > 1 ? t->size[1] : 1); j++)
            for (long k = 0; k < (t->ndims > 2 ? t->size[2] : 1); k++) {
                g[0] = t->offset[0] + i;
                g[1] = t->offset[1] + j;
                g[2] = t->offset[2] + k;
                double v = fn(ex, g);
                long at = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[at] = v;
                else
                    ((float *)t->data)[at] = (float)v;
            }
}

/* The sum of a 2D tile's values over every rank, on rank 0 (collective). */
static inline double prog_example_total(const stencil_tile *t)
{
    double mine = 0, total = 0;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            long at = i * t->stride[0] + j * t->stride[1];
            mine += t->type == STENCIL_DOUBLE ? ((const double *)t->data)[at]
                                              : ((const float *)t->data)[at];
        }
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return total;
}

/* The output callback: each field to PREFIX.FIELD.sten when -o was given (a stencil's: u). */
static inline int prog_example_output(const stencil_tile *t, void *user)
{
    const prog_example *ex = user;
    char path[512];
    if (!ex->prefix) return 0;
    snprintf(path, sizeof path, "%s.%s.sten", ex->prefix, t->field ? t->field : "u");
    return stencil_write(MPI_COMM_WORLD, path, t) != 0;
}

/*
 * What main does in the 2D examples (heat3d_flux shows a persistent run instead): MPI up, the
 * command line, the program parsed (or rank 0 says why not), setup (where given: parameters from
 * the sizes), the run through stencil_program_skeleton(), a line on rank 0, MPI down. Returns
 * main's exit status.
 */
static inline int prog_example_main(int argc, char **argv, const char *name, const char *text,
                                    long n, long iters,
                                    void (*sizes_of)(const prog_example *, long *),
                                    int (*setup)(stencil_program *, const long *),
                                    stencil_init_fn init, stencil_output_fn output)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    prog_example ex;
    prog_example_args(&ex, argc, argv, n, iters);
    long sizes[3] = {ex.n, ex.n, ex.n};
    if (sizes_of) sizes_of(&ex, sizes);
    stencil_program *prog = NULL;
    char msg[256];
    int rc = stencil_program_parse(text, &prog, msg, sizeof msg);
    if (rc && rank == 0) fprintf(stderr, "%s: %s\n", name, msg);
    if (!rc && setup) rc = setup(prog, sizes);
    if (!rc)
        rc = stencil_program_skeleton(MPI_COMM_WORLD, sizes, prog, ex.type, ex.iters, init, output,
                                      &ex.opt);
    stencil_program_free(prog);
    prog_example_steps(name, &ex.stats, rc);
    if (rank == 0)
        printf("%s: %ld x %ld, %ld iterations: %s\n", name, sizes[0], sizes[1], ex.iters,
               rc ? stencil_strerror(rc) : "done");
    MPI_Finalize();
    return rc != 0;
}

#endif
