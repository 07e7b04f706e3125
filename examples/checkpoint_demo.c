/*
 * checkpoint_demo: a long run that survives being killed. 2D heat diffusion (4-point Jacobi)
 * that writes a checkpoint every N iterations and, started again with the same command line
 * after a crash, a batch-system kill or a time limit, resumes from the last complete checkpoint
 * (options.restart) on whatever ranks and partition the new job has, and ends with bitwise the
 * array an uninterrupted run ends with.
 *
 *   mpiexec -n 4 ./checkpoint_demo [-n SIZE] [-i ITERATIONS] [-c CHECKPOINT_EVERY]
 *                                  [-f CHECKPOINT] [-o FINAL] [-b BACKEND] [-p blocks]
 *
 * A checkpoint is complete or absent: it is written to CHECKPOINT.tmp and renamed over
 * CHECKPOINT only once every rank's part is in, so a kill during the write leaves the previous
 * one. CHECKPOINT ending in .h5 is HDF5 (with an XDMF sidecar), else the native format. FINAL
 * (optional) receives the final array. Try: start it, kill -9 the job after a checkpoint, start
 * it again (tests/examples/kill_resume.sh does exactly that and compares the final arrays).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

typedef struct job {
    long n, inits;
    const char *final;
} job;

static int init(stencil_tile *t, void *user)
{
    job *jb = user;
    float *u = t->data;
    jb->inits++;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            long gi = t->offset[0] + i, gj = t->offset[1] + j;
            unsigned long h = (unsigned long)(gi * 2654435761UL) ^ (unsigned long)(gj * 40503UL);
            u[i * t->stride[0] + j] = gi == 0 ? 1.0f : (float)(h % 1000u) / 1000.0f;
        }
    return 0;
}

static int final_out(const stencil_tile *t, void *user)
{
    job *jb = user;
    if (t->rank == 0) printf("checkpoint_demo: done, iteration %ld\n", t->iteration);
    return jb->final ? stencil_write(MPI_COMM_WORLD, jb->final, t) != 0 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    job jb = {.n = 256};
    long iters = 10000, every = 500;
    const char *ck = "checkpoint_demo.ck", *backend = NULL;
    int blocks = 0, rank;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) jb.n = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-i")) iters = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-c")) every = atol(argv[i + 1]);
        if (!strcmp(argv[i], "-f")) ck = argv[i + 1];
        if (!strcmp(argv[i], "-o")) jb.final = argv[i + 1];
        if (!strcmp(argv[i], "-b")) backend = argv[i + 1];
        if (!strcmp(argv[i], "-p")) blocks = !strcmp(argv[i + 1], "blocks");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const double w[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    stencil_desc st = {.ndims = 2,
                       .radius_lo = {1, 1},
                       .radius_hi = {1, 1},
                       .weights = w,
                       .divisor = 4,
                       .type = STENCIL_FLOAT};
    long sizes[2] = {jb.n, jb.n};
    stencil_options opt;
    stencil_options_init(&opt);
    opt.backend = backend;
    opt.partition = blocks ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
    opt.checkpoint = ck;
    opt.checkpoint_every = every;
    opt.restart = 1; /* resume from `ck` when it exists */
    opt.user = &jb;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, iters, NULL, init, final_out, &opt);
    if (rank == 0 && !rc)
        printf("checkpoint_demo: %s\n",
               jb.inits ? "started from the initial state" : "resumed from the checkpoint");
    if (rank == 0 && rc) fprintf(stderr, "checkpoint_demo: %s\n", stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0;
}
