/*
 * What every checkpoint writer and loader shares (checkpoint.c for stencil runs, prog_image.c
 * and prog_setup.c for programs, setup.c at a restart): names agreed across ranks, the directory
 * checked before any collective file call, the rename that makes a file complete, and io's
 * messages with what the run was doing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sio.h"
#include "skel.h"

/* Ranks writing or reading different names would mismatch their collective file calls. */
int sk_same_text(sk_run *r, const char *s, const char *what)
{
    unsigned long long h = 14695981039346656037ULL, v[2], m[2];
    for (const char *c = s; c && *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    v[0] = h;
    v[1] = ~h;
    if (MPI_Allreduce(v, m, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (%s)", what);
    return m[0] == ~m[1] ? 0 : SK_FAIL(r, STENCIL_EINVAL, "ranks passed different %s", what);
}

/* Rank 0 checks the directory first: a clear message, and no library's noise about it. */
int sk_path_ok(sk_run *r, const char *path, char *tmp, size_t len)
{
    if (!path || !path[0]) return SK_FAIL(r, STENCIL_EINVAL, "checkpoint path is NULL or empty");
    if (snprintf(tmp, len, "%s.tmp", path) >= (int)len)
        return SK_FAIL(r, STENCIL_EINVAL, "checkpoint path too long");
    /* Not built in answers first: no directory or file would make such a checkpoint work. */
    if (si_h5_name(path) && !stencil_have_hdf5())
        return SK_FAIL(r, STENCIL_ENOSYS, "checkpoint %s: this build has no HDF5", path);
    const char *slash = strrchr(path, '/');
    char d[4096];
    snprintf(d, sizeof d, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    if (r->rank == 0 && access(d, W_OK | X_OK) != 0)
        return SK_FAIL(r, STENCIL_EIO, "checkpoint %s: directory %s cannot be written: %s", path, d,
                       strerror(errno));
    /* The rename would replace a device node or a FIFO of that name: refused. */
    si_ctx c = {.rc = 0};
    if (r->rank == 0 && si_writable(&c, path))
        return SK_FAIL(r, STENCIL_EIO, "checkpoint: %s", c.msg);
    return 0;
}

/* Rank 0 renames once every rank's part is in the temporary file (its collective close). */
int sk_commit(sk_run *r, const char *tmp, const char *path)
{
    if (r->rank != 0) return 0;
    if (rename(tmp, path) != 0) {
        si_remove_regular(tmp);
        return SK_FAIL(r, STENCIL_EIO, "checkpoint: cannot rename %s to %s", tmp, path);
    }
    return 0;
}

/* An io call's agreed message ("rank K: reason") with what the run was doing, one prefix. */
int sk_io_fail(sk_run *r, int rc, const char *what, const char *path, const char *io)
{
    int k = -1, n = 0;
    if (sscanf(io, "rank %d: %n", &k, &n) >= 1 && n > 0)
        return SK_FAIL(r, rc, "rank %d: %s %s: %s", k, what, path, io + n);
    return SK_FAIL(r, rc, "%s %s: %s", what, path, io);
}
