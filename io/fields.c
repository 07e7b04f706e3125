/*
 * A program's arrays in one HDF5 file (checkpoints): the collective calls around h5.c's sets,
 * with the checks every file call makes (the tile, the same grid on every rank, a path that is
 * a regular file or absent).
 */
#include "sio.h"

int si_write_set(MPI_Comm comm, const char *path, const stencil_tile *geom, int n, si_fill_fn fill,
                 void *user, const si_meta *meta)
{
    si_ctx c;
    if (si_begin(&c, comm, "stencil_checkpoint")) return si_end(&c);
    si_write_start(&c, path, geom, meta);
    if (!c.rc) si_phase(&c, c.rank == 0 ? si_writable(&c, path) : 0);
    if (!c.rc) si_h5_write_set(&c, path, n, fill, user, meta);
    return si_end(&c);
}

int si_read_set(MPI_Comm comm, const char *path, stencil_tile *t, int n, long *iteration,
                unsigned long long want, int *touched, char *why, size_t whylen)
{
    si_ctx c;
    int moved = 0;
    long it = 0;
    if (si_begin(&c, comm, "stencil_load")) return si_end(&c);
    c.why = why;
    c.whylen = whylen;
    si_phase(&c, path ? si_check_tile(&c, &t[0]) : si_fail(&c, STENCIL_EINVAL, "path is NULL"));
    if (!c.rc) si_phase(&c, si_check_same(&c, &t[0], NULL, 0));
    if (!c.rc) si_phase(&c, c.rank == 0 ? si_readable(&c, path) : 0);
    if (!c.rc) si_h5_read_set(&c, path, t, n, &it, want, &moved);
    if (!c.rc && iteration) *iteration = it;
    if (touched) *touched = moved;
    return si_end(&c);
}
