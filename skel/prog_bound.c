/*
 * The ghosts of mirror and constant faces (kgt/README.md, "Programs"), on the ranks that touch
 * the face, after the exchange filled the halos inside the grid and across periodic faces.
 *
 * Per dimension in order, per side, a slab as wide as the level's reach there, over the whole
 * local array in the other dimensions: a mirror face's slab is its source slab reversed along
 * the dimension (ghost -1 is cell 0), a constant face's the value. Done dimension after
 * dimension, a corner beyond two faces takes the second dimension's rule applied to the first's
 * ghosts, which is kgt_prog_ghost's per-cell rule: mirror about every face it lies beyond, a
 * later constant face overriding an earlier one. Cells beyond a fixed face are never read.
 * Where the backend copies box to box (copy_peer), a mirror slab is copied layer by layer on
 * the device (ghost layer -1 - i from layer i), with no trip through the host.
 */
#include <string.h>

#include "skprog.h"

#define DEV(r, call) SK_DEV(r, call)

/* The slab of width w beyond side s of dimension d (ghost), and its mirror image (src). */
static void slabs(const sk_run *r, int d, int s, int w, sl_box *ghost, sl_box *src)
{
    const sl_local *l = &r->loc;
    long n = r->prog->n[d];
    *ghost = *src = l->ext;
    if (s == 0) {
        ghost->lo[d] = -w, ghost->hi[d] = 0;
        src->lo[d] = 0, src->hi[d] = w;
    } else {
        ghost->lo[d] = n, ghost->hi[d] = n + w;
        src->lo[d] = n - w, src->hi[d] = n;
    }
}

/* b (size e per dimension, row-major) = a reversed along dimension d. */
static void reverse(void *b, const void *a, const long *e, int d, size_t es)
{
    long outer = 1, inner = 1;
    for (int k = 0; k < d; k++) outer *= e[k];
    for (int k = d + 1; k < SL_D; k++) inner *= e[k];
    size_t row = (size_t)inner * es;
    for (long o = 0; o < outer; o++)
        for (long i = 0; i < e[d]; i++)
            memcpy((char *)b + ((size_t)(o * e[d] + i)) * row,
                   (const char *)a + ((size_t)(o * e[d] + e[d] - 1 - i)) * row, row);
}

static void fill(void *b, size_t count, double v, int dbl)
{
    for (size_t i = 0; i < count; i++) {
        if (dbl)
            ((double *)b)[i] = v;
        else
            ((float *)b)[i] = (float)v;
    }
}

static void face(sk_run *r, sb_mem m, int d, int s, int w, const kgt_bface *bf, sk_copies *held)
{
    const sb_ops *o = r->dev.ops;
    size_t es = sb_elem_size(r->st.type);
    sl_box g, src;
    long e[SL_D];
    slabs(r, d, s, w, &g, &src);
    for (int k = 0; k < SL_D; k++) e[k] = g.hi[k] - g.lo[k];
    sl_box lg = sl_local_box(&r->loc, &g), ls = sl_local_box(&r->loc, &src);
    if (bf->kind == KGT_B_MIRROR && r->prog->dcopy) { /* layer -1 - i is layer i, on the device */
        for (int i = 0; i < w; i++) {
            sl_box a = g, b = src;
            a.lo[d] = s ? g.lo[d] + i : g.hi[d] - 1 - i;
            b.lo[d] = s ? src.hi[d] - 1 - i : src.lo[d] + i;
            a.hi[d] = a.lo[d] + 1, b.hi[d] = b.lo[d] + 1;
            sl_box la = sl_local_box(&r->loc, &a), lb = sl_local_box(&r->loc, &b);
            sb_copy c = {m, m, &la, &lb, r->loc.stride, r->loc.stride};
            DEV(r, sk_copies_add(&r->dev, SB_QBORDER, held, &c));
        }
        return;
    }
    if (held->n) DEV(r, sk_copies_flush(&r->dev, SB_QBORDER, held));
    if (bf->kind == KGT_B_CONST) {
        fill(r->prog->gbuf, (size_t)sl_box_volume(&g), bf->value, r->st.type == STENCIL_DOUBLE);
    } else {
        DEV(r, o->copy_out(&r->dev, SB_QBORDER, m, &ls, r->host));
        DEV(r, o->wait(&r->dev, SB_QBORDER));
        if (!r->rc) reverse(r->prog->gbuf, r->host, e, d, es);
    }
    DEV(r, o->copy_in(&r->dev, SB_QBORDER, m, &lg, r->prog->gbuf));
    DEV(r, o->wait(&r->dev, SB_QBORDER));
}

/* The ghosts of field f's level in m, w[d][s] deep at each face the rank touches. */
static void field_ghosts(sk_run *r, int f, sb_mem m, const int (*w)[2])
{
    const kgt_pfield *fd = &r->prog->p->f[f];
    sk_copies held; /* mirror layers: one launch for many (a later face reading them waits) */
    held.n = 0;
    for (int d = 0; d < r->prog->p->ndims; d++)
        for (int s = 0; s < 2; s++) {
            const kgt_bface *bf = &fd->bc[d][s];
            int touch = s ? r->loc.bnd_hi[d] : r->loc.bnd_lo[d];
            if (touch && w[d][s] > 0 && (bf->kind == KGT_B_MIRROR || bf->kind == KGT_B_CONST))
                face(r, m, d, s, w[d][s], bf, &held);
        }
    if (held.n) DEV(r, sk_copies_flush(&r->dev, SB_QBORDER, &held));
}

/* The current level of a field that keeps its previous one serves both at T = 1 (gw). */
void sk_prog_ghosts(sk_run *r, int sel)
{
    sk_prog *sp = r->prog;
    for (int i = 0; i < sp->nslot; i++) {
        const sk_pslot *sl = &sp->slot[i];
        if (!sk_slot_in(sp, sl, sel)) continue;
        sb_mem m = sl->level ? sp->prv[sl->field] : sp->cur[sl->field];
        field_ghosts(r, sl->field, m, (const int(*)[2])sl->gw);
    }
}

void sk_prog_ghost_level(sk_run *r, int k)
{
    sk_prog *sp = r->prog;
    for (int f = 0; f < sp->p->nf; f++)
        if (!sp->p->f[f].coef) field_ghosts(r, f, sp->cur[f], (const int(*)[2])sp->bw[k + 1][f]);
}

/*
 * Out of core (prog_ooc.c): the mirror ghosts of field f's level in chunk buffer m, which holds
 * rows [base, top) of the local array from its row 0, w[d][s] deep, on dev's queue q through
 * held, layer by layer as field_ghosts does: a layer across dimension 0 where the chunk holds
 * it and its source row, one along the rows over the chunk's rows. Constant ghosts never
 * change once made, so the sweeps only carry them (sk_prog_carried).
 */
int sk_prog_ghosts_rows(sk_run *r, sb_dev *dev, int q, sk_copies *held, int f, sb_mem m,
                        const int (*w)[2], long base, long top)
{
    const kgt_pfield *fd = &r->prog->p->f[f];
    int rc = 0;
    for (int d = 0; d < r->prog->p->ndims && !rc; d++)
        for (int s = 0; s < 2 && !rc; s++) {
            int touch = s ? r->loc.bnd_hi[d] : r->loc.bnd_lo[d];
            if (!touch || w[d][s] <= 0 || fd->bc[d][s].kind != KGT_B_MIRROR) continue;
            sl_box g, src;
            slabs(r, d, s, w[d][s], &g, &src);
            for (int i = 0; i < w[d][s] && !rc; i++) {
                sl_box a = g, b = src;
                a.lo[d] = s ? g.lo[d] + i : g.hi[d] - 1 - i;
                b.lo[d] = s ? src.hi[d] - 1 - i : src.lo[d] + i;
                a.hi[d] = a.lo[d] + 1, b.hi[d] = b.lo[d] + 1;
                sl_box la = sl_local_box(&r->loc, &a), lb = sl_local_box(&r->loc, &b);
                if (d == 0 &&
                    (la.lo[0] < base || la.hi[0] > top || lb.lo[0] < base || lb.hi[0] > top))
                    continue;
                if (d > 0) {
                    la.lo[0] = lb.lo[0] = la.lo[0] > base ? la.lo[0] : base;
                    la.hi[0] = lb.hi[0] = la.hi[0] < top ? la.hi[0] : top;
                    if (la.hi[0] <= la.lo[0]) continue;
                }
                la.lo[0] -= base, la.hi[0] -= base, lb.lo[0] -= base, lb.hi[0] -= base;
                sb_copy c = {m, m, &la, &lb, r->loc.stride, r->loc.stride};
                rc = sk_copies_add(dev, q, held, &c);
            }
        }
    return rc;
}

int sk_prog_carried(const sk_run *r, int f, sl_box *slab)
{
    const kgt_pfield *fd = &r->prog->p->f[f];
    int n = sk_prog_frames(r, f, slab); /* a face is fixed or constant, not both */
    for (int d = 0; d < r->prog->p->ndims && !fd->coef; d++)
        for (int s = 0; s < 2; s++) {
            int touch = s ? r->loc.bnd_hi[d] : r->loc.bnd_lo[d];
            int w = r->prog->R[d][s];
            if (!touch || w <= 0 || fd->bc[d][s].kind != KGT_B_CONST) continue;
            sl_box src;
            slabs(r, d, s, w, &slab[n], &src);
            n++;
        }
    return n;
}
