/*
 * heat3d: 3D heat diffusion (7-point explicit scheme, u += r * laplacian(u) with r = 1/8 written
 * as one stencil: the centre weighs 2, each neighbour 1, divisor 8) of a hot ball in a cold box
 * whose walls stay at 0, on blocks of a 3D process grid, with snapshots every N iterations that
 * ParaView, VisIt, h5py or xarray open: SNAP_000100.h5 and SNAP_000100.xmf (the native format,
 * SNAP_000100.sten, when libstencil was built without HDF5).
 *
 *   mpiexec -n 8 ./heat3d [-n SIZE] [-i ITERATIONS] [-s SNAPSHOT_EVERY] [-p SNAP_PREFIX]
 *                         [-b BACKEND] [-f float|double]
 *
 * The snapshots are written from the monitor callback of stencil_skeleton(): every rank passes
 * its block to stencil_write(), which writes the file collectively (no gather). The monitor also
 * gets the change of the last step; rank 0 prints it with the heat left in the box.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

typedef struct job {
    long n;
    const char *prefix;
    int dbl;
} job;

static double value(const stencil_tile *t, long at)
{
    return t->type == STENCIL_DOUBLE ? ((const double *)t->data)[at] : ((const float *)t->data)[at];
}

static int init(stencil_tile *t, void *user)
{
    job *jb = user;
    double c = 0.5 * (double)(jb->n - 1), r2 = 0.04 * (double)(jb->n * jb->n);
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                double x = (double)(t->offset[0] + i) - c, y = (double)(t->offset[1] + j) - c,
                       z = (double)(t->offset[2] + k) - c;
                double v = x * x + y * y + z * z < r2 ? 1.0 : 0.0;
                long at = i * t->stride[0] + j * t->stride[1] + k;
                if (jb->dbl)
                    ((double *)t->data)[at] = v;
                else
                    ((float *)t->data)[at] = (float)v;
            }
    return 0;
}

static int snapshot(const stencil_tile *t, const stencil_norm *change, void *user)
{
    job *jb = user;
    char path[512];
    double heat = 0, total = 0;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++)
                heat += value(t, i * t->stride[0] + j * t->stride[1] + k);
    MPI_Reduce(&heat, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s_%06ld.%s", jb->prefix, t->iteration,
             stencil_have_hdf5() ? "h5" : "sten");
    if (t->rank == 0)
        printf("heat3d: iteration %ld  heat %.6g  change max %.3e  -> %s\n", t->iteration, total,
               change->max, path);
    return stencil_write(MPI_COMM_WORLD, path, t) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    job jb = {.n = 64, .prefix = "heat3d"};
    long iters = 200, every = 50;
    const char *backend = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) jb.n = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-i")) iters = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-s")) every = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-p")) jb.prefix = argv[i + 1];
        if (!strcmp(argv[i], "-b")) backend = argv[i + 1];
        if (!strcmp(argv[i], "-f")) jb.dbl = !strcmp(argv[i + 1], "double");
    }
    static const double w[27] = {0, 0, 0, 0, 1, 0, 0, 0, 0,  /* plane i - 1 */
                                 0, 1, 0, 1, 2, 1, 0, 1, 0,  /* plane i */
                                 0, 0, 0, 0, 1, 0, 0, 0, 0}; /* plane i + 1 */
    stencil_desc st = {.ndims = 3,
                       .radius_lo = {1, 1, 1},
                       .radius_hi = {1, 1, 1},
                       .weights = w,
                       .divisor = 8,
                       .type = jb.dbl ? STENCIL_DOUBLE : STENCIL_FLOAT};
    long sizes[3] = {jb.n, jb.n, jb.n};
    stencil_options opt;
    stencil_options_init(&opt);
    opt.backend = backend;
    opt.partition = STENCIL_PART_BLOCKS;
    opt.monitor = snapshot;
    opt.monitor_every = every;
    opt.monitor_data = 1;
    opt.user = &jb;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, iters, NULL, init, NULL, &opt);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc && rank == 0) fprintf(stderr, "heat3d: %s\n", stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0;
}
