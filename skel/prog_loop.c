/*
 * The passes of a program run (skprog.h), T steps each (prog_steps.c): the halos of the levels
 * read across cells (MPI through host staging, or device copies for a rank's own periodic
 * halos), the ghosts of mirror and constant faces on the ranks that touch them, the frames of
 * fixed faces, the updates, and the time levels rotating after each step. Steps 1 .. T - 1 of a
 * pass compute each field over what the later steps read of it, on the border queue, refilling
 * the ghosts in between; the last step is split into border and inner boxes, the inner one
 * computed while the halos travel; where no message would travel meanwhile, a device that
 * fuses steps computes the whole pass in one launch. t, the step number, is the run's iteration
 * count. The border and inner queues order each other on the device (after) wherever the host
 * touches nothing, so a rank without messages whose faces are periodic or mirror queues its
 * steps without waiting for them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skprog.h"

#define DEV(r, call) SK_DEV(r, call)

static sb_mem level_mem(const sk_prog *sp, int f, int level)
{
    return level ? sp->prv[f] : sp->cur[f];
}

/* A device call's failure into r->rc (SK_DEV), MPI calls likewise: every rank keeps going. */
static void net(sk_run *r, int rc, const char *what)
{
    if (rc != MPI_SUCCESS && !r->rc) r->rc = err_mpi(r->msg, sizeof r->msg, STENCIL_EMPI, rc, what);
}

enum { X_RECV, X_PACK, X_SEND, X_UNPACK };

/* One phase of the exchange over the links of the slots sel takes (sk_slot_in). */
static void phase(sk_run *r, int sel, int what, int *nreq)
{
    sk_prog *sp = r->prog;
    const sb_ops *o = r->dev.ops;
    sk_copies held; /* the rank's own halos: one launch for many boxes */
    held.n = 0;
    for (int i = 0; i < sp->nslot; i++) {
        sk_pslot *s = &sp->slot[i];
        if (!sk_slot_in(sp, s, sel)) continue;
        sb_mem m = level_mem(sp, s->field, s->level);
        for (int j = 0; j < s->n; j++) {
            sk_plink *k = &s->link[j];
            if (k->self) {
                sb_copy c = {m, m, &k->recv, &k->ssrc, r->loc.stride, r->loc.stride};
                if (sel == SK_SEL_STEP && sk_prog_ooc_local(r, k)) continue; /* the sweeps' */
                if (what == X_UNPACK && k->rbytes)
                    DEV(r, sk_copies_add(&r->dev, SB_QBORDER, &held, &c));
                continue;
            }
            if (what == X_RECV && k->rbytes)
                net(r,
                    MPI_Irecv(k->rbuf, (int)k->rbytes, MPI_BYTE, k->peer, k->rtag, r->comm,
                              &sp->req[(*nreq)++]),
                    "MPI_Irecv");
            if (what == X_PACK && k->sbytes)
                DEV(r, o->copy_out(&r->dev, SB_QBORDER, m, &k->send, k->sbuf));
            if (what == X_SEND && k->sbytes) {
                net(r,
                    MPI_Isend(k->sbuf, (int)k->sbytes, MPI_BYTE, k->peer, k->stag, r->comm,
                              &sp->req[(*nreq)++]),
                    "MPI_Isend");
                r->x.bytes_sent += (long long)k->sbytes;
                r->x.messages++;
            }
            if (what == X_UNPACK && k->rbytes) {
                if (sk_copies_touch(&held, m, &k->recv, r->loc.stride))
                    DEV(r, sk_copies_flush(&r->dev, SB_QBORDER, &held));
                DEV(r, o->copy_in(&r->dev, SB_QBORDER, m, &k->recv, k->rbuf));
            }
        }
    }
    if (held.n) DEV(r, sk_copies_flush(&r->dev, SB_QBORDER, &held));
}

/* Box b (local indices) of src into dst, on the border queue: on the device, or through the
   host where the backend copies no boxes. */
static void box_copy(sk_run *r, sb_mem dst, sb_mem src, const sl_box *b)
{
    const sb_ops *o = r->dev.ops;
    if (r->prog->dcopy) {
        DEV(r, o->copy_peer(&r->dev, SB_QBORDER, dst, b, r->loc.stride, src, b, r->loc.stride));
        return;
    }
    DEV(r, o->copy_out(&r->dev, SB_QBORDER, src, b, r->host));
    DEV(r, o->wait(&r->dev, SB_QBORDER));
    DEV(r, o->copy_in(&r->dev, SB_QBORDER, dst, b, r->host));
    DEV(r, o->wait(&r->dev, SB_QBORDER));
}

/*
 * T > 1: the fixed frames of every evolving field, over the whole local array, from the
 * current level into the one to be written. Steps before the last read levels beyond the owned
 * box, whose frame cells no exchange filled in every buffer (and, for a field that keeps its
 * previous level, the buffer to be written held that level's frame).
 */
static void frames_into(sk_run *r, int f, sb_mem dst)
{
    sl_box slab[2 * SL_D];
    int n = sk_prog_frames(r, f, slab);
    for (int i = 0; i < n; i++) {
        sl_box lb = sl_local_box(&r->loc, &slab[i]);
        box_copy(r, dst, r->prog->cur[f], &lb);
    }
}

static void copy_frames(sk_run *r)
{
    for (int f = 0; f < r->prog->p->nf; f++) frames_into(r, f, r->prog->nxt[f]);
}

/* Set-up: the halos and ghosts of every level, before the first step; agreed. */
int sk_prog_halos_all(sk_run *r)
{
    const sb_ops *o = r->dev.ops;
    int nreq = 0;
    r->rc = 0;
    phase(r, SK_SEL_ALL, X_RECV, &nreq);
    phase(r, SK_SEL_ALL, X_PACK, &nreq);
    DEV(r, o->wait(&r->dev, SB_QBORDER));
    phase(r, SK_SEL_ALL, X_SEND, &nreq);
    net(r, MPI_Waitall(nreq, r->prog->req, r->prog->st), "MPI_Waitall");
    phase(r, SK_SEL_ALL, X_UNPACK, &nreq);
    sk_prog_ghosts(r, SK_SEL_ALL);
    DEV(r, o->wait(&r->dev, SB_QBORDER));
    return err_agree(r->comm, r->rc, r->msg, sizeof r->msg);
}

/*
 * The level to be written (nxt) of a field that keeps its previous level was, two steps ago, a
 * previous level, whose frame is the init callback's level -1: the fixed frame of the current
 * one goes there first (it never changes afterwards, so this matters once per buffer, but costs
 * only the frame's cells). T > 1: copy_frames.
 */
static void copy_frame(sk_run *r, int f)
{
    sk_prog *sp = r->prog;
    const sl_local *l = &r->loc;
    const sb_ops *o = r->dev.ops;
    for (int d = 0; d < sp->p->ndims; d++)
        for (int s = 0; s < 2; s++) {
            sl_box b = l->owned;
            if (s == 0) {
                if (b.lo[d] == sp->box[f].lo[d]) continue;
                b.hi[d] = sp->box[f].lo[d];
            } else {
                if (b.hi[d] == sp->box[f].hi[d]) continue;
                b.lo[d] = sp->box[f].hi[d];
            }
            sl_box lb = sl_local_box(l, &b);
            /* On the device, queued: the host neither waits nor stages. */
            DEV(r, o->copy_peer(&r->dev, SB_QBORDER, sp->nxt[f], &lb, l->stride, sp->cur[f], &lb,
                                l->stride));
        }
}

/* The levels rotate: the one just written becomes the current one. */
static void rotate(sk_prog *sp)
{
    const kgt_prog *p = sp->p;
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        sb_mem c = sp->cur[f];
        sp->cur[f] = sp->nxt[f];
        if (p->f[f].keeps) {
            sp->nxt[f] = sp->prv[f];
            sp->prv[f] = c;
        } else {
            sp->nxt[f] = c;
        }
    }
}

/*
 * One step, its halos filled: the border boxes of every field on the border queue, the levels
 * rotate, the new level's border goes out while the inner boxes are computed, then its halos
 * and ghosts come in, ready for the next step. The border of a field is as wide as any read of
 * it reaches (sent and mirrored cells are border cells), so the inner update, on the other
 * queue, touches no cell the border queue reads or writes meanwhile.
 */
static void finish(sk_run *r, sb_prog_step *s, int staged);

static void step(sk_run *r, long t)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    const sb_ops *o = r->dev.ops;
    int staged = sp->staged[SK_SEL_STEP];
    sb_prog_step s;
    memset(&s, 0, sizeof s);
    /* The last step's inner update read what this writes. Without staged messages the whole
       loop runs on the border queue (sk_prog_advance orders it after the inner one once): no
       event between two steps' launches. */
    if (staged) DEV(r, o->after(&r->dev, SB_QBORDER, SB_QINNER));
    for (int f = 0; f < p->nf; f++) {
        s.in[f] = sp->cur[f];
        s.prev[f] = p->f[f].keeps ? sp->prv[f] : NULL;
        s.out[f] = p->f[f].coef ? NULL : sp->nxt[f];
        if (p->f[f].keeps && sp->T == 1) copy_frame(r, f);
    }
    if (sp->T > 1) copy_frames(r);
    s.t = t;
    s.par = sp->par;
    /* Without messages nothing would overlap the inner update: the whole box in one launch.
       Not split for the rank's own halos, copied on the device: the launches of border slabs
       thin along x cost more than the copies they would hide. */
    for (int i = 0; i < (staged ? 2 * p->ndims : 1); i++) {
        for (int f = 0; f < p->nf; f++)
            s.box[f] = sl_local_box(&r->loc, staged ? &sp->border[f][i] : &sp->box[f]);
        DEV(r, sk_prog_update(r, SB_QBORDER, &s));
    }
    rotate(sp);
    finish(r, &s, staged);
}

/* The rest of a step once its border (or whole box) is queued and the levels rotated: the new
   level's border goes out while the inner boxes of s are computed (staged), then its halos and
   ghosts come in. */
static void finish(sk_run *r, sb_prog_step *s, int staged)
{
    sk_prog *sp = r->prog;
    const sb_ops *o = r->dev.ops;
    int nreq = 0;
    phase(r, SK_SEL_STEP, X_RECV, &nreq);
    phase(r, SK_SEL_STEP, X_PACK, &nreq);
    if (staged) DEV(r, o->wait(&r->dev, SB_QBORDER));
    phase(r, SK_SEL_STEP, X_SEND, &nreq);
    for (int f = 0; f < sp->p->nf && staged; f++) s->box[f] = sl_local_box(&r->loc, &sp->inner[f]);
    if (staged) DEV(r, sk_prog_update(r, SB_QINNER, s));
    DEV(r, o->flush(&r->dev, SB_QINNER));
    net(r, MPI_Waitall(nreq, sp->req, sp->st), "MPI_Waitall");
    phase(r, SK_SEL_STEP, X_UNPACK, &nreq);
    if (!sk_prog_ooc_multi(r)) sk_prog_ghosts(r, SK_SEL_STEP); /* else the sweeps' (prog_ooc.c) */
    /* The receive buffers are posted again next step; device-to-device copies need no wait. */
    if (staged) DEV(r, o->wait(&r->dev, SB_QBORDER));
    DEV(r, o->flush(&r->dev, SB_QBORDER));
    if (staged) DEV(r, o->after(&r->dev, SB_QINNER, SB_QBORDER)); /* the next inner reads them */
}

/* Step k (1 .. T - 1) of a pass, whole, on the border queue: every field over what the later
   steps read of it, then the ghosts of the new level. */
static void substep(sk_run *r, long t, int k)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    sb_prog_step s;
    memset(&s, 0, sizeof s);
    copy_frames(r);
    for (int f = 0; f < p->nf; f++) {
        s.in[f] = sp->cur[f];
        s.prev[f] = p->f[f].keeps ? sp->prv[f] : NULL;
        s.out[f] = p->f[f].coef ? NULL : sp->nxt[f];
        sl_box b = sk_prog_cbox(r, f, k);
        s.box[f] = sl_local_box(&r->loc, &b);
    }
    s.t = t;
    s.par = sp->par;
    DEV(r, sk_prog_update(r, SB_QBORDER, &s));
    rotate(sp);
    sk_prog_ghost_level(r, k);
}

/* The most steps a pass may hand to prog_update_k at once (0 or 1: none; sk_prog_fuse_reads). */
int sk_prog_fusable(const sk_run *r)
{
    const sk_prog *sp = r->prog;
    const sb_ops *o = r->dev.ops;
    if (!o->prog_update_k || !o->prog_fuse_depth || sp->T < 2 || !sk_prog_fuse_reads(sp->p))
        return 0;
    int n = o->prog_fuse_depth((sb_dev *)&r->dev);
    return n > SB_PROG_FUSE_MAX ? SB_PROG_FUSE_MAX : n;
}

/*
 * Steps k .. k + n - 1 (n >= 2) of a pass, from iteration t, as one prog_update_k: the levels
 * then lie as n substeps would leave them (cur level k + n - 1, prv the one before), in other
 * buffers. Frames first, as copy_frames: the launch writes only the last step's boxes, and a
 * frame is the same at every level.
 */
static void fused(sk_run *r, long t, int k, int n)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    sb_prog_steps s;
    memset(&s, 0, sizeof s);
    for (int f = 0; f < p->nf; f++) {
        s.in[f] = sp->cur[f];
        s.prev[f] = p->f[f].keeps ? sp->prv[f] : NULL;
        if (p->f[f].coef) continue;
        s.out[f] = sp->nxt[f];
        s.pout[f] = p->f[f].keeps ? sp->spr[f] : NULL;
        frames_into(r, f, s.out[f]);
        if (s.pout[f]) frames_into(r, f, s.pout[f]);
        for (int j = 0; j < n; j++) {
            sl_box b = sk_prog_cbox(r, f, k + j);
            s.box[j][f] = sl_local_box(&r->loc, &b);
        }
    }
    s.k = n;
    s.t = t;
    s.par = sp->par;
    DEV(r, r->dev.ops->prog_update_k(&r->dev, SB_QBORDER, &s));
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        sp->nxt[f] = sp->cur[f];
        sp->cur[f] = s.out[f];
        if (!p->f[f].keeps) continue;
        sp->spr[f] = sp->prv[f];
        sp->prv[f] = s.pout[f];
    }
}

/* The cells a level carries unchanged, from the current one into dst: its fixed frames and the
   ghosts of its constant faces (the sweeps bring down whole rows of the computed rows only). */
static void carried_into(sk_run *r, int f, sb_mem dst)
{
    sl_box slab[2 * SL_D];
    int n = sk_prog_carried(r, f, slab);
    for (int i = 0; i < n; i++) {
        sl_box lb = sl_local_box(&r->loc, &slab[i]);
        box_copy(r, dst, r->prog->cur[f], &lb);
    }
}

/*
 * Out of core, a pass of m steps as one sweep of the chunks (sk_prog_ooc_multi): the steps'
 * boxes are those of the substeps in core, the last level comes down into nxt and, where a
 * later read or the norm wants it and m > 1, the one before into spr (a fourth host level,
 * made the first time); the host levels then rotate as they would have in core, and the
 * exchange follows (the ghosts of mirror faces are the sweeps'). Frames and constant ghosts
 * first (carried_into): the sweep writes whole rows of the boxes only.
 */
static void ooc_pass(sk_run *r, long t, int m, int norm)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    sk_psweep *w = sk_prog_ooc_sweeps(r);
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    int T = sp->T;
    w->m = m;
    w->k0 = T - m + 1;
    w->t = t;
    w->par = sp->par;
    for (int f = 0; f < p->nf; f++) {
        w->src[f] = sp->cur[f];
        w->srcp[f] = p->f[f].keeps ? sp->prv[f] : NULL;
        w->dst[f] = p->f[f].coef ? NULL : sp->nxt[f];
        w->pen[f] = NULL;
        for (int j = 0; j < m; j++) {
            int k = T - m + j + 1; /* step k of a pass of T */
            sl_box b = sk_prog_cbox(r, f, k);
            w->box[j][f] = sl_local_box(&r->loc, &b);
            for (int e = 0; e < 2; e++) w->ex[j][f][e] = k < T ? sp->bw[k + 1][f][0][e] : 0;
        }
        if (p->f[f].coef) continue;
        carried_into(r, f, sp->nxt[f]);
        if (m < 2 || (!p->f[f].keeps && !norm)) continue;
        if (!sp->spr[f] && !r->rc) r->rc = sk_prog_ooc_level(r, bytes, &sp->spr[f]);
        if (r->rc) return;
        carried_into(r, f, sp->spr[f]);
        w->pen[f] = sp->spr[f];
    }
    sk_prog_ooc_sweep(r, w);
    if (m == 1) rotate(sp);
    for (int f = 0; f < p->nf && m > 1; f++) {
        sb_mem c = sp->cur[f], v = sp->prv[f], x = sp->spr[f];
        if (p->f[f].coef) continue;
        sp->cur[f] = sp->nxt[f];
        if (p->f[f].keeps) {
            sp->prv[f] = x;
            sp->spr[f] = v;
        } else if (w->pen[f]) {
            sp->spr[f] = c;
            c = x;
        }
        sp->nxt[f] = c;
    }
    sb_prog_step s;
    memset(&s, 0, sizeof s);
    finish(r, &s, r->prog->staged[SK_SEL_STEP]);
}

/*
 * A pass of m steps (1 .. T) from iteration t: the last m of a pass of T. Where no message
 * would overlap the last step's inner update and the device fuses m steps, the whole pass is one
 * launch, unless the change of its last step is asked for (norm): a field without a previous
 * level then has no level m - 1 to compare with. Otherwise substeps in runs of up to sp->fuse
 * per launch, and the last step alone.
 */
static void pass(sk_run *r, long t, int m, int norm)
{
    const sb_ops *o = r->dev.ops;
    int T = r->prog->T, fz = r->prog->fuse;
    if (sk_prog_ooc_multi(r)) {
        ooc_pass(r, t, m, norm);
        return;
    }
    int staged = r->prog->staged[SK_SEL_STEP];
    if (m > 1 && staged) DEV(r, o->after(&r->dev, SB_QBORDER, SB_QINNER));
    if (m >= 2 && m <= fz && !staged && !norm) {
        fused(r, t, T - m + 1, m);
        finish(r, NULL, 0);
        return;
    }
    for (int j = 1; j < m;) {
        int n = m - j < fz ? m - j : fz;
        if (n >= 2) {
            fused(r, t + j - 1, T - m + j, n);
            j += n;
        } else {
            substep(r, t + j - 1, T - m + j);
            j++;
        }
    }
    if (m > 1 && staged)
        DEV(r, o->after(&r->dev, SB_QINNER, SB_QBORDER)); /* the last step reads them */
    step(r, t + m - 1);
}

/* The change of the last step of field f (cur against the level before it): sums of ranks. */
static int field_norm(sk_run *r, int f, double g[2])
{
    sk_prog *sp = r->prog;
    double v[2] = {0, 0};
    int rc = 0;
    g[0] = g[1] = 0;
    if (!sp->p->f[f].coef) {
        sb_mem old = sp->p->f[f].keeps ? sp->prv[f] : sp->nxt[f];
        sl_box b = sl_local_box(&r->loc, &sp->box[f]);
        if (!sl_box_empty(&b)) rc = r->dev.ops->norm(&r->dev, sp->cur[f], old, &b, v);
        if (rc) rc = SK_FAIL(r, rc, "norm: %s", r->dev.err);
    }
    rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
    if (rc) return rc;
    if (MPI_Allreduce(&v[0], &g[0], 1, MPI_DOUBLE, MPI_SUM, r->comm) != MPI_SUCCESS ||
        MPI_Allreduce(&v[1], &g[1], 1, MPI_DOUBLE, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (norm)");
    return 0;
}

static void put_norm(stencil_norm *c, const double g[2], long long cells, long it)
{
    c->l2 = sqrt(g[0]);
    c->max = isnan(g[0]) ? NAN : g[1];
    c->cells = cells;
    c->iteration = it;
}

/*
 * n steps; changes (nchanges >= 1) the change of the last one: one entry per field, or with
 * nchanges == -1 one entry for all evolving fields together (stencil_advance_norm).
 */
int sk_prog_advance(sk_run *r, long n, stencil_norm *changes, int nchanges)
{
    sk_prog *sp = r->prog;
    r->rc = 0;
    double t0 = MPI_Wtime();
    long goal = r->goal > 0 ? r->goal : r->done + n, every = r->opt.progress;
    /* Whatever ran on the inner queue before this advance, before its first step. */
    SK_DEV(r, r->dev.ops->after(&r->dev, SB_QBORDER, SB_QINNER));
    for (long i = 0; i < n;) {
        int m = n - i < sp->T ? (int)(n - i) : sp->T;
        pass(r, r->done + i, m, changes && i + m >= n);
        long at = r->done + (i += m);
        if (every > 0 && r->rank == 0 && at / every != (at - m) / every) {
            double dt = MPI_Wtime() - t0;
            fprintf(stderr, "stencil: iteration %ld/%ld  %.3g Mcells/s  %.1f s left\n", at, goal,
                    (double)r->stats.cells * (double)i / dt / 1e6,
                    sk_time_left(r, dt / (double)i, at, goal));
        }
    }
    SK_DEV(r, r->dev.ops->wait(&r->dev, SB_QBORDER));
    SK_DEV(r, r->dev.ops->wait(&r->dev, SB_QINNER));
    r->stats.t_loop += MPI_Wtime() - t0;
    int rc = err_agree(r->comm, r->rc, r->msg, sizeof r->msg);
    if (rc) return rc;
    r->done += n;
    r->ran += n;
    if (!changes) return 0;
    double all[2] = {0, 0};
    long long cells = 0;
    for (int f = 0; f < sp->p->nf; f++) {
        double g[2];
        if ((rc = field_norm(r, f, g))) return rc;
        if (nchanges > 0) put_norm(&changes[f], g, sp->p->f[f].coef ? 0 : sp->cells[f], r->done);
        cells += sp->p->f[f].coef ? 0 : sp->cells[f];
        all[0] += g[0];
        all[1] = g[1] > all[1] || isnan(g[1]) ? g[1] : all[1];
    }
    if (nchanges < 0) put_norm(changes, all, cells, r->done);
    return 0;
}
