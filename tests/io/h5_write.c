/*
 * Writes an HDF5 snapshot from every rank of MPI_COMM_WORLD (blocks) after a few iterations, and
 * on rank 0 the serial reference of the same run as raw little-endian doubles, for h5_check.py
 * (h5py, an independent reader) to compare bitwise.
 *
 *   mpiexec -n 4 h5_write STENCIL TYPE(f|d) ITERATIONS OUT.h5 REF.raw N0 [N1 [N2]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil_set.h"
#include "testutil.h"

static int init_cb(stencil_tile *t, void *user)
{
    (void)user;
    tu_fill_tile(t, 11);
    return 0;
}

static const char *out_path;

static int write_cb(const stencil_tile *t, void *user)
{
    (void)user;
    return stencil_write(MPI_COMM_WORLD, out_path, t) != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, rc = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 7) {
        if (rank == 0) fprintf(stderr, "usage: h5_write STENCIL f|d ITERS OUT.h5 REF.raw N...\n");
        MPI_Finalize();
        return 2;
    }
    stencil_desc st;
    long sizes[3] = {1, 1, 1}, iters = atol(argv[3]), cells = 1;
    stencil_set_get(stencil_set_find(argv[1]), argv[2][0] == 'd' ? STENCIL_DOUBLE : STENCIL_FLOAT,
                    &st);
    for (int d = 0; d < st.ndims && 6 + d < argc; d++) cells *= sizes[d] = atol(argv[6 + d]);
    out_path = argv[4];
    stencil_options o;
    stencil_options_init(&o);
    o.partition = STENCIL_PART_BLOCKS;
    stencil_run *run;
    rc = stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, init_cb, &o, &run);
    if (!rc) rc = stencil_advance(run, iters);
    if (!rc) rc = stencil_view(run, write_cb);
    stencil_destroy(&run);
    if (!rc && rank == 0) {
        double *g = tu_random_grid(st.ndims, sizes, 11);
        tu_reference(&st, sizes, 0, iters, g);
        FILE *f = fopen(argv[5], "wb");
        rc = !f || fwrite(g, sizeof *g, (size_t)cells, f) != (size_t)cells;
        if (f) fclose(f);
        free(g);
    }
    if (rc) fprintf(stderr, "h5_write: rank %d: %s\n", rank, stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0;
}
