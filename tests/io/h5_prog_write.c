/*
 * A two-field program (Gray-Scott with a previous level of u and a feed-rate coefficient f) in
 * HDF5, for h5_prog_check.py (h5py and numpy): run on every rank of MPI_COMM_WORLD, checkpointed
 * at iteration K as one file (DIR/ck.h5: u, u.prev, v, f), run on to N and written through the
 * output callback (stencil_write of each field's tile into DIR/out.h5), then the checkpoint
 * loaded in blocks of columns (the first run had rows), run to N and written to DIR/resumed.h5.
 * Each file has its XDMF sidecar.
 *
 *   mpiexec -n 2 h5_prog_write f|d N0 N1 K N DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

static const char *text =
    "program gsp\n"
    "  dims 2\n"
    "  field u prev\n"
    "  field v\n"
    "  coef f\n"
    "  param k = 0.06\n"
    "  let uvv = u * v * v\n"
    "  update u = u + 0.16 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u) - uvv + f * (1 - u) "
    "+ 0.25 * (u - u@prev)\n"
    "  update v = v + 0.08 * (v[-1,0] + v[1,0] + v[0,-1] + v[0,1] - 4 * v) + uvv - (f + k) * v\n"
    "  boundary * all periodic\n"
    "end\n";

/* Initial values, exact in double and written the same way in h5_prog_check.py. */
static double start(const char *field, int level, long i, long j)
{
    if (!strcmp(field, "u"))
        return level ? (double)((i * 11 + j * 7) % 16) / 64.0
                     : (double)((i * 37 + j * 101) % 64) / 64.0;
    if (!strcmp(field, "v")) return (double)((i * 53 + j * 29) % 32) / 128.0;
    return 0.02 + (double)((i + 2 * j) % 8) / 256.0;
}

static int init(stencil_tile *t, void *user)
{
    (void)user;
    for (long a = 0; a < t->size[0]; a++)
        for (long b = 0; b < t->size[1]; b++) {
            double v = start(t->field, t->level, t->offset[0] + a, t->offset[1] + b);
            long e = a * t->stride[0] + b * t->stride[1];
            if (t->type == STENCIL_DOUBLE)
                ((double *)t->data)[e] = v;
            else
                ((float *)t->data)[e] = (float)v;
        }
    return 0;
}

static int no_init(stencil_tile *t, void *user)
{
    (void)t;
    (void)user;
    return 0;
}

static const char *out_path;

static int write_field(const stencil_tile *t, void *user)
{
    (void)user;
    return stencil_write(MPI_COMM_WORLD, out_path, t) != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 7) {
        if (rank == 0) fprintf(stderr, "usage: h5_prog_write f|d N0 N1 K N DIR\n");
        MPI_Finalize();
        return 2;
    }
    stencil_type type = argv[1][0] == 'd' ? STENCIL_DOUBLE : STENCIL_FLOAT;
    long sizes[2] = {atol(argv[2]), atol(argv[3])}, k = atol(argv[4]), n = atol(argv[5]);
    char ck[4096], out[4096], resumed[4096], msg[256];
    snprintf(ck, sizeof ck, "%s/ck.h5", argv[6]);
    snprintf(out, sizeof out, "%s/out.h5", argv[6]);
    snprintf(resumed, sizeof resumed, "%s/resumed.h5", argv[6]);
    stencil_program *prog = NULL;
    if (stencil_program_parse(text, &prog, msg, sizeof msg)) {
        fprintf(stderr, "h5_prog_write: %s\n", msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    stencil_options o;
    stencil_options_init(&o);
    stencil_run *run = NULL;
    rc = stencil_program_create(MPI_COMM_WORLD, sizes, prog, type, init, &o, &run);
    if (!rc) rc = stencil_advance(run, k);
    if (!rc) rc = stencil_checkpoint(run, ck);
    if (!rc) rc = stencil_advance(run, n - k);
    out_path = out;
    if (!rc) rc = stencil_view(run, write_field);
    stencil_destroy(&run);
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    o.partition = STENCIL_PART_BLOCKS; /* columns, where the first run had rows */
    o.proc_grid[0] = 1;
    o.proc_grid[1] = nranks;
    if (!rc) rc = stencil_program_create(MPI_COMM_WORLD, sizes, prog, type, no_init, &o, &run);
    if (!rc) rc = stencil_load(run, ck);
    if (!rc) rc = stencil_advance(run, n - k);
    out_path = resumed;
    if (!rc) rc = stencil_view(run, write_field);
    stencil_destroy(&run);
    stencil_program_free(prog);
    if (rc) fprintf(stderr, "h5_prog_write: rank %d: %s\n", rank, stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0;
}
