/*
 * Checkpoints of a persistent run: the current array, its iteration and a hash of the stencil,
 * written complete or not at all (a temporary name, then a rename by rank 0 once every rank's
 * data is in; an HDF5 file's XDMF sidecar is written to its own temporary name before that
 * rename), and loaded back on any rank count and partition. A load checks the stencil hash
 * (files of stencil_write carry none and are accepted), sizes, type and iteration before any
 * cell is read (si_read_file): out of core the host image is the run's array itself. The file
 * goes to the host image first and to the devices only when it all read.
 */
#include <stdio.h>
#include <string.h>

#include "sio.h"
#include "skprog.h"

unsigned long long sk_stencil_hash(const sl_stencil *s)
{
    unsigned long long h = 14695981039346656037ULL;
    const unsigned char *p[3] = {(const void *)s->off, (const void *)s->w,
                                 (const void *)&s->divisor};
    size_t n[3] = {sizeof *s->off * (size_t)s->npts, sizeof *s->w * (size_t)s->npts,
                   sizeof s->divisor};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < n[k]; i++) h = (h ^ p[k][i]) * 1099511628211ULL;
    return h ? h : 1; /* 0 means "no stencil recorded" */
}

static int checkpoint(sk_run *r, const char *path)
{
    char tmp[4200];
    stencil_tile t;
    int rc = 0;
    char io[300] = "";
    si_meta m = {.why = io,
                 .whylen = sizeof io,
                 .hash = sk_stencil_hash(&r->st),
                 .npts = r->st.npts,
                 .off = (const int(*)[3])r->st.off,
                 .w = r->st.w,
                 .divisor = r->st.divisor,
                 .format = si_h5_name(path),
                 .no_xdmf = 1};
    SK_PHASE(r, rc, r->failed ? SK_FAIL(r, STENCIL_EINVAL, "the run failed earlier") : 0);
    SK_PHASE(r, rc, sk_path_ok(r, path, tmp, sizeof tmp));
    SK_PHASE(r, rc, sk_same_text(r, path, "checkpoint paths"));
    SK_PHASE(r, rc, sk_current(r, &t, 1));
    if (rc) return rc;
    /* The sidecar first: when it cannot be written, the old checkpoint stays as it was. */
    /* The io calls' codes and messages are agreed already: the same on every rank. */
    si_names u = {.n = 1, .name = {"u"}};
    if (m.format) rc = si_xdmf_prepare(r->comm, path, &t, &u, io, sizeof io);
    if (!rc) rc = si_write_file(r->comm, tmp, &t, &m);
    if (rc) {
        if (r->rank == 0) {
            si_remove_regular(tmp);
            if (m.format) si_xdmf_discard(path);
        }
        return sk_io_fail(r, rc, "checkpoint", path, io);
    }
    SK_PHASE(r, rc, sk_commit(r, tmp, path));
    if (!rc && m.format && (rc = si_xdmf_commit(r->comm, path, io, sizeof io)))
        sk_io_fail(r, rc, "checkpoint (its sidecar)", path, io);
    if (rc && m.format && r->rank == 0) si_xdmf_discard(path);
    return rc;
}

/* Timed (stats.t_checkpoint), and counted for the progress line's estimate of those to come. A
   program run has a file per field and level (prog_image.c). */
int sk_checkpoint(sk_run *r, const char *path)
{
    double t = MPI_Wtime();
    int rc = r->prog ? sk_prog_checkpoint(r, path) : checkpoint(r, path);
    r->stats.t_checkpoint += MPI_Wtime() - t;
    if (!rc) r->nckpt++;
    return rc;
}

static int load_array(sk_run *r, const char *path)
{
    stencil_tile t;
    long it = 0;
    int rc = 0, touched = 0;
    char io[300] = "";
    SK_PHASE(r, rc, r->failed ? SK_FAIL(r, STENCIL_EINVAL, "the run failed earlier") : 0);
    SK_PHASE(r, rc, path ? 0 : SK_FAIL(r, STENCIL_EINVAL, "checkpoint path is NULL"));
    SK_PHASE(r, rc, sk_same_text(r, path, "checkpoint paths"));
    if (rc) return rc;
    sk_current(r, &t, 0);
    t.data = (char *)r->host + sl_local_index(&r->loc, r->loc.owned.lo) * sb_elem_size(r->st.type);
    rc = si_read_file(r->comm, path, &t, &it, sk_stencil_hash(&r->st), &touched, io, sizeof io);
    if (rc) {
        /* Every check passed and the data read itself failed: out of core the array is then
         * partly the file's, so the run refuses further work rather than go on from it. */
        if (touched && r->ooc) r->failed = rc;
        return sk_io_fail(r, rc, "cannot load checkpoint", path, io); /* agreed (io) */
    }
    SK_PHASE(r, rc, sk_upload(r));
    if (!rc) r->done = it;
    return rc;
}

int sk_load(sk_run *r, const char *path)
{
    return r->prog ? sk_prog_load(r, path) : load_array(r, path);
}
