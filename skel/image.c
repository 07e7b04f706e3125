/* The host image of the local array: the tile the callbacks see, and its transfers. */
#include <string.h>

#include "skel.h"

void sk_tile(sk_run *r, stencil_tile *t)
{
    size_t es = sb_elem_size(r->st.type);
    memset(t, 0, sizeof *t);
    t->type = r->st.type;
    t->ndims = r->st.ndims;
    t->rank = r->rank;
    for (int d = 0; d < SL_D; d++) {
        t->global_size[d] = r->part.gsize[d];
        t->offset[d] = r->loc.owned.lo[d];
        t->size[d] = r->loc.owned.hi[d] - r->loc.owned.lo[d];
        t->stride[d] = r->loc.stride[d];
        t->boundary_lo[d] = r->loc.bnd_lo[d];
        t->boundary_hi[d] = r->loc.bnd_hi[d];
    }
    t->data = (char *)r->host + sl_local_index(&r->loc, r->loc.owned.lo) * es;
}

/* Both buffers and the scratch arrays: the fixed frame is never written, so they all need it. */
int sk_upload(sk_run *r)
{
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    for (int i = 0; i < 2 + r->nscr; i++) {
        int rc = r->dev.ops->write(&r->dev, i < 2 ? r->buf[i] : r->scr[i - 2], r->host, bytes);
        if (rc) return SK_FAIL(r, rc, "%s", r->dev.err);
    }
    r->scr_stale = r->nscr > 0 && r->opt.boundary == STENCIL_BOUNDARY_FIXED;
    return 0;
}

int sk_init_data(sk_run *r, stencil_init_fn init)
{
    stencil_tile t;
    sk_tile(r, &t);
    if (init(&t, r->opt.user)) return SK_FAIL(r, STENCIL_ECALLBACK, "init callback failed");
    return sk_upload(r);
}

int sk_current(sk_run *r, stencil_tile *t, int fetch)
{
    sk_tile(r, t);
    t->iteration = r->done;
    if (!fetch) {
        t->data = NULL;
        return 0;
    }
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    int rc = r->dev.ops->read(&r->dev, r->buf[r->cur], r->host, bytes);
    return rc ? SK_FAIL(r, rc, "%s", r->dev.err) : 0;
}
