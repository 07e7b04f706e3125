/*
 * An outside program, built by install_test.sh against the INSTALLED library with nothing but
 * `cc prog.c $(pkg-config --cflags --libs stencil)`. It runs a 1D 3-point sum (weights 1 1 1,
 * divisor 1) over 40 cells of 1..40 for 3 iterations on every rank of MPI_COMM_WORLD and checks
 * each cell against a serial computation; prints "install-test: OK" on rank 0 when all match.
 */
#include <stdio.h>
#include <string.h>

#include <stencil.h>

#define N     40
#define ITERS 3

static double want[N];

static int init(stencil_tile *t, void *user)
{
    (void)user;
    for (long i = 0; i < t->size[0]; i++) ((double *)t->data)[i] = (double)(t->offset[0] + i + 1);
    return 0;
}

static int check(const stencil_tile *t, void *user)
{
    long *bad = user;
    for (long i = 0; i < t->size[0]; i++)
        *bad += ((const double *)t->data)[i] != want[t->offset[0] + i];
    return 0;
}

/* Fixed boundary: the two end cells keep their values; sums of integers are exact. */
static void serial(void)
{
    double a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = b[i] = i + 1;
    for (int it = 0; it < ITERS; it++) {
        for (int i = 1; i < N - 1; i++) b[i] = a[i - 1] + a[i] + a[i + 1];
        memcpy(a, b, sizeof a);
    }
    memcpy(want, a, sizeof a);
}

int main(int argc, char **argv)
{
    static const double w[3] = {1, 1, 1};
    stencil_desc st = {.ndims = 1,
                       .radius_lo = {1},
                       .radius_hi = {1},
                       .weights = w,
                       .divisor = 1,
                       .type = STENCIL_DOUBLE};
    long sizes[1] = {N}, bad = 0, allbad = 0;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    serial();
    stencil_options opt;
    stencil_options_init(&opt);
    opt.backend = "host";
    opt.user = &bad;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, ITERS, NULL, init, check, &opt);
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("install-test: %s (%d ranks, %d cells, %d iterations, %ld differ, cell 20 = %g; "
               "%s)\n",
               rc == 0 && allbad == 0 ? "OK" : "FAILED", size, N, ITERS, allbad, want[20],
               stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0 || allbad != 0;
}
