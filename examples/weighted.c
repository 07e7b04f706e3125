/*
 * weighted: a run whose ranks differ: each takes its backend, device and share weight from a
 * configuration file (examples/mixed.conf: GPUs of two vendors and CPUs on one node, GPU nodes,
 * plain CPU nodes), so one command line serves a whole cluster of mixed nodes. The grid is cut
 * in proportion to the weights (given, or measured by a short timed run: weight=auto); rank 0
 * prints what every rank got and the throughput. 2D 9-point stencil, fp32.
 *
 *   mpiexec -n 4 ./weighted [-c CONFIG] [-n SIZE] [-i ITERATIONS] [-p blocks]
 *
 * Without -c, $STENCIL_CONFIG names the file; environment variables (STENCIL_BACKEND,
 * STENCIL_WEIGHT, ...) override it per rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

static int init(stencil_tile *t, void *user)
{
    (void)user;
    float *u = t->data;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            u[i * t->stride[0] + j] = (float)((t->offset[0] + i + 3 * (t->offset[1] + j)) % 17);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = 512, iters = 100;
    const char *config = NULL;
    int blocks = 0, rank, size;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-c")) config = argv[i + 1];
        if (!strcmp(argv[i], "-n")) n = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-i")) iters = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-p")) blocks = !strcmp(argv[i + 1], "blocks");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const double w[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    stencil_desc st = {.ndims = 2,
                       .radius_lo = {1, 1},
                       .radius_hi = {1, 1},
                       .weights = w,
                       .divisor = 16,
                       .type = STENCIL_FLOAT};
    long sizes[2] = {n, n};
    stencil_stats s;
    stencil_options opt;
    stencil_options_init(&opt);
    opt.config = config;
    opt.partition = blocks ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
    opt.stats = &s;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, iters, NULL, init, NULL, &opt);
    if (rc) {
        if (rank == 0) fprintf(stderr, "weighted: %s\n", stencil_strerror(rc));
        MPI_Finalize();
        return 1;
    }
    char line[256], *all = rank == 0 ? malloc(sizeof line * (size_t)size) : NULL;
    long cells = (s.owned_hi[0] - s.owned_lo[0]) * (s.owned_hi[1] - s.owned_lo[1]);
    snprintf(line, sizeof line, "rank %d: %-6s %-24.24s weight %-8.3g cells %ld (%.1f%%)", rank,
             s.backend, s.device, s.weight, cells, 100.0 * (double)cells / (double)(n * n));
    MPI_Gather(line, sizeof line, MPI_CHAR, all, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) printf("weighted: %s\n", all + r * sizeof line);
        printf("weighted: %ld iterations of %ld x %ld, %.3f Gcells/s\n", iters, n, n, s.gcells);
    }
    free(all);
    MPI_Finalize();
    return 0;
}
