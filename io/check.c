/* Shared by the file and picture writers: collective error agreement and tile checks. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sio.h"

int si_begin(si_ctx *c, MPI_Comm comm, const char *fn)
{
    memset(c, 0, sizeof *c);
    c->fn = fn;
    c->comm = MPI_COMM_NULL;
    if (comm == MPI_COMM_NULL) return c->rc = STENCIL_EINVAL;
    /* A private communicator: errors come back as codes whatever the caller's handler is. */
    if (MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN) != MPI_SUCCESS)
        return c->rc = STENCIL_EMPI;
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    return 0;
}

void si_phase(si_ctx *c, int code)
{
    if (!c->rc) c->rc = err_agree(c->comm, code, c->msg, sizeof c->msg);
}

int si_end(si_ctx *c)
{
    /* The public functions have no message argument, and inside a skeleton callback the code
     * becomes STENCIL_ECALLBACK: print the reason once so that it is not lost. */
    if (c->rc && c->why)
        snprintf(c->why, c->whylen, "%s", c->msg);
    else if (c->rc && c->rank == 0)
        fprintf(stderr, "libstencil: %s: %s\n", c->fn, c->msg);
    if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
    return c->rc;
}

int si_writable(si_ctx *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0; /* absent (or unreachable: the open says why) */
    if (!S_ISREG(st.st_mode))
        return si_fail(c, STENCIL_EIO, "%s exists and is not a regular file; it is left alone",
                       path);
    return 0;
}

void si_remove_regular(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) remove(path);
}

int si_readable(si_ctx *c, const char *path)
{
    struct stat st;
    /* O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return si_fail(c, STENCIL_EIO, "%s: cannot open: %s", path, strerror(errno));
    int bad = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode);
    close(fd);
    return bad ? si_fail(c, STENCIL_EIO, "%s is not a regular file", path) : 0;
}

MPI_Datatype si_mpi_type(stencil_type type)
{
    return type == STENCIL_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
}

long long si_tile_cells(const stencil_tile *t)
{
    long long n = 1;
    for (int d = 0; d < t->ndims; d++) n *= t->size[d];
    return n;
}

/* MPI datatypes describe the memory as nested C arrays: each stride a multiple of the next. */
static int si_check_strides(si_ctx *c, const stencil_tile *t)
{
    int last = t->ndims - 1;
    if (t->stride[last] != 1)
        return si_fail(c, STENCIL_EINVAL, "tile stride of the last dimension is %ld, not 1",
                       t->stride[last]);
    for (int d = 0; d < last; d++)
        if (t->stride[d + 1] <= 0 || t->stride[d] % t->stride[d + 1] != 0 ||
            t->stride[d] / t->stride[d + 1] < t->size[d + 1] ||
            t->stride[d] / t->stride[d + 1] > INT_MAX)
            return si_fail(c, STENCIL_EINVAL, "tile strides %ld, %ld are not nested row-major",
                           t->stride[d], t->stride[d + 1]);
    return 0;
}

int si_check_tile(si_ctx *c, const stencil_tile *t)
{
    if (!t) return si_fail(c, STENCIL_EINVAL, "tile is NULL");
    if (t->ndims < 1 || t->ndims > STENCIL_MAX_DIMS)
        return si_fail(c, STENCIL_EINVAL, "tile has %d dimensions", t->ndims);
    if (t->type != STENCIL_FLOAT && t->type != STENCIL_DOUBLE)
        return si_fail(c, STENCIL_EINVAL, "unknown element type %d", (int)t->type);
    for (int d = 0; d < t->ndims; d++) {
        const long g = t->global_size[d], o = t->offset[d], s = t->size[d];
        if (g <= 0 || g > INT_MAX || o < 0 || s < 0 || o > g - s)
            return si_fail(c, STENCIL_EINVAL,
                           "dimension %d: tile [%ld, %ld) does not fit the global size %ld", d, o,
                           o + s, g);
    }
    if (si_tile_cells(t) == 0) return 0;
    if (!t->data) return si_fail(c, STENCIL_EINVAL, "tile data is NULL");
    return si_check_strides(c, t);
}

/* The tiles' boxes are pairwise disjoint: with the cell counts adding up, they cover the array
 * exactly once. Each rank compares its own box with every other (gathered), O(ranks). */
static int si_check_disjoint(si_ctx *c, const stencil_tile *t)
{
    long mine[6] = {0, 0, 0, 1, 1, 1};
    for (int d = 0; d < t->ndims; d++) {
        mine[d] = t->offset[d];
        mine[3 + d] = t->size[d];
    }
    long *all = malloc(sizeof *all * 6 * (size_t)c->size);
    if (!all) return si_fail(c, STENCIL_ENOMEM, "no memory to compare the tiles");
    int rc = MPI_Allgather(mine, 6, MPI_LONG, all, 6, MPI_LONG, c->comm);
    int other = -1;
    for (int q = 0; rc == MPI_SUCCESS && si_tile_cells(t) > 0 && q < c->size && other < 0; q++) {
        const long *b = all + 6 * q;
        int meet = q != c->rank;
        for (int d = 0; meet && d < 3; d++)
            meet = b[3 + d] > 0 && b[d] < mine[d] + mine[3 + d] && mine[d] < b[d] + b[3 + d];
        if (meet) other = q;
    }
    free(all);
    if (rc != MPI_SUCCESS) return si_fail(c, STENCIL_EMPI, "MPI_Allgather of the tiles failed");
    if (other >= 0)
        return si_fail(c, STENCIL_EINVAL, "the tiles of ranks %d and %d overlap", c->rank, other);
    return 0;
}

int si_check_same(si_ctx *c, const stencil_tile *t, const long *extra, int nextra)
{
    long v[5 + 8], lo[5 + 8], hi[5 + 8];
    long long cells = si_tile_cells(t), sum = 0, total = 1;
    int n = 5 + nextra;
    v[0] = t->ndims;
    v[1] = (long)t->type;
    for (int d = 0; d < 3; d++) v[2 + d] = d < t->ndims ? t->global_size[d] : 1;
    for (int i = 0; i < nextra; i++) v[5 + i] = extra[i];
    if (MPI_Allreduce(v, lo, n, MPI_LONG, MPI_MIN, c->comm) != MPI_SUCCESS ||
        MPI_Allreduce(v, hi, n, MPI_LONG, MPI_MAX, c->comm) != MPI_SUCCESS ||
        MPI_Allreduce(&cells, &sum, 1, MPI_LONG_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
        return si_fail(c, STENCIL_EMPI, "MPI_Allreduce failed while comparing the tiles");
    if (memcmp(lo, hi, sizeof *lo * (size_t)n) != 0)
        return si_fail(c, STENCIL_EINVAL,
                       "ranks passed different dimensions, types, global sizes or arguments");
    for (int d = 0; d < t->ndims; d++) total *= t->global_size[d];
    /* Cheap guard, not a proof: the tiles must partition the array between them. */
    if (sum != total)
        return si_fail(c, STENCIL_EINVAL, "the tiles hold %lld cells, the global array %lld", sum,
                       total);
    return si_check_disjoint(c, t);
}
