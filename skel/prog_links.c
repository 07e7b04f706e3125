/*
 * The halo links of a program run (skprog.h): per field and level that some step reads across
 * cells, one link per direction with a neighbour for that field, exactly as deep as the reads
 * of a pass reach (sp->hw, prog_steps.c), with host staging, or copied on the device where the
 * rank is its own neighbour.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skprog.h"

/* The widths of the halo of field f's level (0 current, 1 previous) in direction slot di, and
   whether it has any. */
static int dir_need(const sk_prog *sp, int f, int lv, int di, long *w)
{
    int any = 0;
    for (int d = 0; d < SL_D; d++) {
        w[d] = sp->hw[f][lv][di][d];
        any |= w[d] > 0;
    }
    return any;
}

/* The links of one level of a field, exactly what its reads need (dir_need), in every direction
   that has a neighbour for the field (wrapping where it is periodic). */
static void slot_links(sk_run *r, sk_pslot *s, size_t es)
{
    sk_prog *sp = r->prog;
    const sl_local *l = &r->loc;
    const sl_partition *pt = &r->part;
    int nd = sp->p->ndims, lv = s->level ? 1 : 0;
    int tb = (s->field * 2 + lv) * SL_NDIRS;
    s->n = 0;
    for (int di = 0; di < SL_NDIRS; di++) {
        int e[SL_D] = {di / 9 - 1, di / 3 % 3 - 1, di % 3 - 1}, ne[SL_D], c[SL_D] = {0, 0, 0};
        int ok = di != SL_NDIRS / 2;
        long wr[SL_D], ws[SL_D];
        for (int d = 0; d < SL_D; d++) {
            ne[d] = -e[d];
            if (d >= nd && e[d]) ok = 0;
        }
        for (int d = 0; d < nd && ok; d++) {
            c[d] = l->coords[d] + e[d];
            if ((c[d] < 0 || c[d] >= pt->pgrid[d]) && !sp->periodic[s->field][d]) ok = 0;
            c[d] = (c[d] + pt->pgrid[d]) % pt->pgrid[d];
        }
        if (!ok) continue;
        int need_r = dir_need(sp, s->field, lv, di, wr);
        int need_s = dir_need(sp, s->field, lv, sl_dir_index(ne), ws);
        if (!need_r && !need_s) continue;
        sl_box sb = l->owned, rb = l->owned;
        for (int d = 0; d < nd; d++) {
            if (e[d] < 0) {
                sb.hi[d] = sb.lo[d] + ws[d];
                rb.hi[d] = rb.lo[d];
                rb.lo[d] -= wr[d];
            } else if (e[d] > 0) {
                sb.lo[d] = sb.hi[d] - ws[d];
                rb.lo[d] = rb.hi[d];
                rb.hi[d] += wr[d];
            }
        }
        if (!need_s) sb.hi[0] = sb.lo[0];
        if (!need_r) rb.hi[0] = rb.lo[0];
        sk_plink *k = &s->link[s->n++];
        memset(k, 0, sizeof *k);
        k->peer = (c[0] * pt->pgrid[1] + c[1]) * pt->pgrid[2] + c[2];
        k->stag = tb + di;
        k->rtag = tb + sl_dir_index(ne);
        k->send = sl_local_box(l, &sb);
        k->recv = sl_local_box(l, &rb);
        k->sbytes = (size_t)sl_box_volume(&sb) * es;
        k->rbytes = (size_t)sl_box_volume(&rb) * es;
    }
}

/*
 * A rank that is its own neighbour (a periodic dimension it spans) copies those halos on the
 * device from its own send box of the opposite direction, without messages or host staging,
 * where the backend copies box to box (sk_prog.dcopy). options.peer 0: through MPI as any
 * link, and mirror ghosts through the host.
 */
static void self_links(sk_run *r, sk_pslot *s)
{
    if (!r->prog->dcopy) return;
    for (int i = 0; i < s->n; i++) {
        sk_plink *k = &s->link[i];
        for (int j = 0; j < s->n && k->peer == r->rank && !k->self; j++)
            if (s->link[j].peer == r->rank && s->link[j].stag == k->rtag) {
                k->self = 1;
                k->ssrc = s->link[j].send;
            }
    }
}

int sk_prog_links(sk_run *r)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    size_t es = sb_elem_size(r->st.type);
    sl_box none = {{0, 0, 0}, {0, 0, 0}};
    sb_dev *dev = &r->dev;
    sp->dcopy = r->opt.peer != 0 && dev->ops->copy_peer &&
                dev->ops->copy_peer(dev, SB_QBORDER, sp->cur[0], &none, r->loc.stride, sp->cur[0],
                                    &none, r->loc.stride) == 0;
    sp->nslot = 0;
    for (int f = 0; f < p->nf; f++)
        for (int lv = 0; lv >= -1; lv--) {
            long w[SL_D];
            int any = 0;
            for (int di = 0; di < SL_NDIRS; di++) any |= dir_need(sp, f, lv ? 1 : 0, di, w);
            if (!any || (lv && !p->f[f].keeps)) continue;
            sk_pslot *s = &sp->slot[sp->nslot++];
            s->field = f;
            s->level = lv;
            sl_dirs_bound(sp->hw[f][lv ? 1 : 0], p->ndims, s->gw);
            slot_links(r, s, es);
            self_links(r, s);
            for (int i = 0; i < s->n; i++) {
                sk_plink *k = &s->link[i];
                if (k->self) continue;
                sp->staged[SK_SEL_ALL]++;
                if (sk_slot_in(sp, s, SK_SEL_STEP)) sp->staged[SK_SEL_STEP]++;
                int rc = k->sbytes ? r->dev.ops->host_alloc(&r->dev, k->sbytes, &k->sbuf) : 0;
                if (!rc && k->rbytes) rc = r->dev.ops->host_alloc(&r->dev, k->rbytes, &k->rbuf);
                if (rc) return SK_FAIL(r, rc, "%s", r->dev.err);
            }
        }
    size_t slab = 0; /* the largest ghost slab (prog_bound.c) */
    for (int d = 0; d < p->ndims; d++) {
        size_t v = (size_t)(sp->R[d][0] > sp->R[d][1] ? sp->R[d][0] : sp->R[d][1]);
        for (int k = 0; k < SL_D; k++)
            if (k != d) v *= (size_t)(r->loc.ext.hi[k] - r->loc.ext.lo[k]);
        slab = v > slab ? v : slab;
    }
    sp->gbuf = malloc((slab ? slab : 1) * es);
    sp->req = calloc((size_t)(2 * SL_NDIRS * sp->nslot + 1), sizeof *sp->req);
    sp->st = calloc((size_t)(2 * SL_NDIRS * sp->nslot + 1), sizeof *sp->st);
    return sp->req && sp->st && sp->gbuf ? 0
                                         : SK_FAIL(r, STENCIL_ENOMEM, "out of memory (requests)");
}
