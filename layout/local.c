/* One rank's local layout: boxes, the exact halo pattern, and the border/inner split. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

/*
 * Elements a row of a 2D or 3D local array takes for n cells: rows of SL_ROW_PAD_MIN cells or more
 * are padded to a multiple of SL_ROW_ALIGN, so that every row starts at the same place in a
 * 128-byte line (at most 3% more memory): unpadded rows of some widths cost the one-step kernels
 * dearly (docs/performance-notes.md, row alignment). 3D rows
 * go to a multiple of SL_ROW_VEC elements (at most three cells more a row), so that every row
 * starts on a 16-byte vector, which the 3D vector-row kernels need for their 16-byte loads and
 * stores (padding 3D rows to a multiple of 32 made the older 3D step kernel slower). A partition's
 * row_align = a (1 to 1024) pads every row of 2D and 3D arrays to a multiple of a instead (1:
 * none), for tests and experiments.
 */
size_t sl_row_elems(size_t n, int ndims, int align)
{
    long a = align;
    if (a < 1 || a > 1024) {
        if (ndims == 3)
            a = SL_ROW_VEC;
        else if (ndims != 2 || n < SL_ROW_PAD_MIN)
            return n;
        else
            a = SL_ROW_ALIGN;
    }
    return (n + (size_t)a - 1) / (size_t)a * (size_t)a;
}

static void slot_dir(int slot, int d[SL_D])
{
    d[0] = slot / 9 - 1;
    d[1] = slot / 3 % 3 - 1;
    d[2] = slot % 3 - 1;
}

/* A real neighbour direction: not the centre, and flat along the unused dimensions. */
static int dir_valid(int ndims, const int d[SL_D])
{
    int k, any = 0;

    for (k = 0; k < SL_D; k++) {
        if (d[k] != 0 && k >= ndims) return 0;
        if (d[k] != 0) any = 1;
    }
    return any;
}

static sl_box empty_at(const sl_box *b)
{
    sl_box e = *b;

    e.hi[0] = e.lo[0];
    return e;
}

/* Cells that upd reads through point o, clipped to own's halo region in direction dir. */
static int point_region(const sl_box *own, const sl_box *upd, const int o[SL_D],
                        const int dir[SL_D], sl_box *r)
{
    int k;

    for (k = 0; k < SL_D; k++) {
        long lo = dir[k] < 0 ? LONG_MIN : dir[k] == 0 ? own->lo[k] : own->hi[k];
        long hi = dir[k] < 0 ? own->lo[k] : dir[k] == 0 ? own->hi[k] : LONG_MAX;
        r->lo[k] = upd->lo[k] + o[k] > lo ? upd->lo[k] + o[k] : lo;
        r->hi[k] = upd->hi[k] + o[k] < hi ? upd->hi[k] + o[k] : hi;
        if (r->hi[k] <= r->lo[k]) return 0;
    }
    return 1;
}

/*
 * Bounding box of the halo cells in direction dir that some cell of upd reads through a non-zero
 * point. Each point contributes a box, so this is exact whenever their union is a box.
 */
static sl_box recv_box(const sl_stencil *s, const sl_box *own, const sl_box *upd,
                       const int dir[SL_D])
{
    sl_box bb = empty_at(own), r;
    int p, k, have = 0;

    if (sl_box_empty(upd)) return bb;
    for (p = 0; p < s->npts; p++) {
        if (!point_region(own, upd, s->off[p], dir, &r)) continue;
        for (k = 0; k < SL_D; k++) {
            if (!have || r.lo[k] < bb.lo[k]) bb.lo[k] = r.lo[k];
            if (!have || r.hi[k] > bb.hi[k]) bb.hi[k] = r.hi[k];
        }
        have = 1;
    }
    return bb;
}

/* The halo of rank in direction dir, as the receiving rank sees it (unwrapped coordinates). */
static sl_box rank_recv(const sl_partition *p, const sl_stencil *s, int rank, const int dir[SL_D])
{
    sl_box own = sl_partition_owned(p, rank), upd = sl_update_box(p, s, rank);

    return recv_box(s, &own, &upd, dir);
}

/* Cells that peer receives from this rank (its halo towards -d), moved back onto this rank. */
static sl_box send_box(const sl_partition *p, const sl_stencil *s, int peer, const int d[SL_D])
{
    int back[SL_D], k;
    sl_box b;

    for (k = 0; k < SL_D; k++) back[k] = -d[k];
    b = rank_recv(p, s, peer, back);
    if (sl_box_empty(&b)) return b;
    for (k = 0; k < SL_D; k++) {
        long shift = b.lo[k] >= p->gsize[k] ? -p->gsize[k] : b.hi[k] <= 0 ? p->gsize[k] : 0;
        b.lo[k] += shift;
        b.hi[k] += shift;
    }
    return b;
}

static void make_dir(sl_local *l, const sl_partition *p, const sl_stencil *s, int slot)
{
    sl_dir *x = &l->dir[slot];
    int c[SL_D], back[SL_D], k;

    memset(x, 0, sizeof(*x));
    slot_dir(slot, x->d);
    x->peer = -1;
    x->recv = empty_at(&l->owned);
    x->send = x->recv;
    if (!dir_valid(l->ndims, x->d)) return;
    for (k = 0; k < SL_D; k++) {
        c[k] = l->coords[k] + x->d[k];
        back[k] = -x->d[k];
    }
    /* Tags name the sender's direction, so a rank that meets the same peer (or itself) in
     * several directions still pairs every message with the right halo. */
    x->send_tag = sl_dir_index(x->d);
    x->recv_tag = sl_dir_index(back);
    x->peer = sl_partition_rank(p, c);
    if (x->peer < 0) return;
    x->recv = recv_box(s, &l->owned, &l->update, x->d);
    x->send = send_box(p, s, x->peer, x->d);
    x->has_recv = !sl_box_empty(&x->recv);
    x->has_send = !sl_box_empty(&x->send);
    x->active = x->has_recv || x->has_send;
}

/* How deep the cells sent across each face reach into the owned box. */
static void send_depth(const sl_local *l, long tlo[SL_D], long thi[SL_D])
{
    int i, k;

    for (k = 0; k < SL_D; k++) tlo[k] = thi[k] = 0;
    for (i = 0; i < SL_NDIRS; i++) {
        const sl_dir *x = &l->dir[i];
        if (!x->has_send) continue;
        for (k = 0; k < SL_D; k++) {
            if (x->d[k] < 0 && x->send.hi[k] - l->owned.lo[k] > tlo[k])
                tlo[k] = x->send.hi[k] - l->owned.lo[k];
            if (x->d[k] > 0 && l->owned.hi[k] - x->send.lo[k] > thi[k])
                thi[k] = l->owned.hi[k] - x->send.lo[k];
        }
    }
}

static void add_border(sl_local *l, const sl_box *b)
{
    if (!sl_box_empty(b)) l->border[l->nborder++] = *b;
}

void sl_local_whole(sl_local *l)
{
    l->nborder = 0;
    l->inner = empty_at(&l->update);
    add_border(l, &l->update);
}

/* Inner avoids every cell that is sent, so the border finishes before the exchange starts. */
static void split_border(sl_local *l)
{
    long tlo[SL_D], thi[SL_D];
    sl_box core = l->update, slab;
    int k;

    send_depth(l, tlo, thi);
    l->nborder = 0;
    l->inner = l->update;
    for (k = 0; k < SL_D; k++) {
        if (l->owned.lo[k] + tlo[k] > l->inner.lo[k]) l->inner.lo[k] = l->owned.lo[k] + tlo[k];
        if (l->owned.hi[k] - thi[k] < l->inner.hi[k]) l->inner.hi[k] = l->owned.hi[k] - thi[k];
    }
    if (sl_box_empty(&l->inner)) {
        sl_local_whole(l);
        return;
    }
    for (k = 0; k < l->ndims; k++) {
        slab = core;
        slab.hi[k] = l->inner.lo[k];
        add_border(l, &slab);
        slab = core;
        slab.lo[k] = l->inner.hi[k];
        add_border(l, &slab);
        core.lo[k] = l->inner.lo[k];
        core.hi[k] = l->inner.hi[k];
    }
}

static int check_fit(const sl_partition *p, const sl_stencil *s, int rank)
{
    int k, i, minpart[SL_D];

    if (!p || !s || s->ndims != p->ndims || rank < 0 || rank >= p->nranks) return STENCIL_EINVAL;
    sl_min_part(s, minpart);
    for (k = 0; k < p->ndims; k++) {
        if (!p->periodic && p->gsize[k] <= (long)s->flo[k] + s->fhi[k]) return STENCIL_EINVAL;
        /* Halos must come from the next rank only: every part at least as wide as the radius. */
        for (i = 0; i < p->pgrid[k]; i++)
            if (p->cuts[k][i + 1] - p->cuts[k][i] < minpart[k]) return STENCIL_EPARTITION;
    }
    return 0;
}

static void make_boxes(sl_local *l, const sl_partition *p, const sl_stencil *s)
{
    int k;

    l->owned = sl_partition_owned(p, l->rank);
    l->update = sl_update_box(p, s, l->rank);
    l->ext = l->owned;
    l->nelems = 1;
    for (k = 0; k < SL_D; k++) {
        l->bnd_lo[k] = l->owned.lo[k] == 0;
        l->bnd_hi[k] = l->owned.hi[k] == p->gsize[k];
        /* A fixed edge has nothing beyond it: its frame is owned, not a halo. */
        if (p->periodic || !l->bnd_lo[k]) l->ext.lo[k] -= s->rlo[k];
        if (p->periodic || !l->bnd_hi[k]) l->ext.hi[k] += s->rhi[k];
    }
    l->live = l->ext;
    for (k = 0; k < p->ndims && !p->periodic; k++) {
        if (l->live.lo[k] < s->flo[k]) l->live.lo[k] = s->flo[k];
        if (l->live.hi[k] > p->gsize[k] - s->fhi[k]) l->live.hi[k] = p->gsize[k] - s->fhi[k];
    }
    for (k = SL_D - 1; k >= 0; k--) {
        l->stride[k] = (long)l->nelems;
        l->nelems *= (size_t)(l->ext.hi[k] - l->ext.lo[k]);
        if (k == p->ndims - 1 && k > 0) l->nelems = sl_row_elems(l->nelems, p->ndims, p->row_align);
    }
}

int sl_local_make(sl_local *l, const sl_partition *p, const sl_stencil *s, int rank)
{
    int rc = check_fit(p, s, rank), i;

    if (rc) return rc;
    memset(l, 0, sizeof(*l));
    l->rank = rank;
    l->ndims = p->ndims;
    sl_partition_coords(p, rank, l->coords);
    make_boxes(l, p, s);
    for (i = 0; i < SL_NDIRS; i++) make_dir(l, p, s, i);
    split_border(l);
    return 0;
}

size_t sl_local_index(const sl_local *l, const long g[SL_D])
{
    size_t i = 0;
    int k;

    for (k = 0; k < l->ndims; k++) i += (size_t)((g[k] - l->ext.lo[k]) * l->stride[k]);
    return i;
}

sl_box sl_local_box(const sl_local *l, const sl_box *b)
{
    sl_box r;
    int k;

    for (k = 0; k < SL_D; k++) {
        r.lo[k] = b->lo[k] - l->ext.lo[k];
        r.hi[k] = b->hi[k] - l->ext.lo[k];
    }
    return r;
}
