/* Out-of-core sweeps (ooc.c says how a run streams through its device). */
#include <stdlib.h>
#include <string.h>

#include "ooc.h"

/*
 * Level S of chunk i (sk_ooc_level in dimension 0, the owned part widened by T - S steps of the
 * reach in the others), inside the live box, as a box of the chunk's buffer (row 0: local row
 * base).
 */
sl_box sk_ooc_box(const sk_run *r, int i, int T, int S, long base)
{
    sl_box b = sl_local_box(&r->loc, &r->loc.owned), live = sl_local_box(&r->loc, &r->loc.live),
           all = sl_local_box(&r->loc, &r->loc.ext);
    b = sk_widen(r, &b, T - S, &all);
    sk_ooc_level(r, i, T, S, &b.lo[0], &b.hi[0]);
    b = sl_box_intersect(&b, &live);
    b.lo[0] -= base;
    b.hi[0] -= base;
    return b;
}

/*
 * Rows [*lo, *hi) of the local array, clipped to it, as box b of a chunk buffer whose row 0 is
 * local row `base`, whole rows with their padding (layout.h), so that the box is one contiguous
 * range of host memory; 0 when no row is left.
 */
int sk_ooc_chunk_rows(const sk_run *r, long base, long *lo, long *hi, sl_box *b)
{
    long ext0 = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    *lo = *lo < 0 ? 0 : *lo;
    *hi = *hi > ext0 ? ext0 : *hi;
    int x = r->loc.ndims - 1;
    *b = sl_local_box(&r->loc, &r->loc.ext);
    b->lo[0] = *lo - base;
    b->hi[0] = *hi - base;
    if (x > 0) b->hi[x] = b->lo[x] + r->loc.stride[x - 1]; /* the padding too: rows contiguous */
    return *hi > *lo;
}

/* Rows [lo, hi) of the local array: host rows to chunk rows from `base` on. */
static void ooc_move(sk_run *r, int q, sb_mem m, long base, long lo, long hi, void *arr, int out)
{
    sk_ooc *o = r->ooc;
    sl_box b;
    if (!sk_ooc_chunk_rows(r, base, &lo, &hi, &b)) return;
    char *h = (char *)arr + (size_t)lo * o->row_bytes;
    size_t n = (size_t)(hi - lo) * o->row_bytes;
    if (out) {
        ODEV(r, o->dev.ops->copy_out(&o->dev, q, m, &b, h));
        o->down += (long long)n;
    } else {
        ODEV(r, o->dev.ops->copy_in(&o->dev, q, m, &b, h));
        o->up += (long long)n;
    }
}

/*
 * Rows [lo, hi) of chunk buffer x into buffer y on the inner queue, on the device where the
 * backend copies between its own buffers (copy_peer), else again from the host (o->dcopy = 0
 * after the first refusal).
 */
static void ooc_dup(sk_run *r, sb_mem x, sb_mem y, long base, long lo, long hi, void *arr)
{
    sk_ooc *o = r->ooc;
    sl_box b;
    if (!sk_ooc_chunk_rows(r, base, &lo, &hi, &b)) return;
    if (o->dcopy) {
        int rc =
            o->dev.ops->copy_peer(&o->dev, SB_QINNER, y, &b, r->loc.stride, x, &b, r->loc.stride);
        if (rc == 0) return;
        if (rc != STENCIL_ENOSYS) {
            ODEV(r, rc);
            return;
        }
        o->dcopy = 0;
    }
    ooc_move(r, SB_QINNER, y, base, lo, hi, arr, 0);
}

/* Chunk i's input rows (sk_ooc_upload_rows) into buffer x, on the border queue. */
static void ooc_upload(sk_run *r, int i, int src, int T, sb_mem x)
{
    long lo, hi, dup;
    sk_ooc_upload_rows(r, i, T, &lo, &hi, &dup);
    ooc_move(r, SB_QBORDER, x, sk_ooc_base(r, i, T), lo, hi, r->buf[src], 0);
    ODEV(r, r->ooc->dev.ops->flush(&r->ooc->dev, SB_QBORDER));
}

/*
 * The carry between chunk i - 1 and chunk i (ooc_chunk.c), on the inner queue: out of chunk
 * i - 1's buffers cb (out = 1, row 0 of its buffers is local row base) or into chunk i's (out = 0).
 */
static void ooc_carry(sk_run *r, int i, int T, sb_mem *cb, long base, int out)
{
    sk_ooc *o = r->ooc;
    for (int p = 0; p < 2; p++) {
        long lo, hi;
        if (!sk_ooc_carry_rows(r, i, T, p, &lo, &hi)) continue;
        sl_box b, c;
        sk_ooc_chunk_rows(r, base, &lo, &hi, &b);
        c = b;
        c.lo[0] = (long)p * o->ccap;
        c.hi[0] = c.lo[0] + (hi - lo);
        if (hi - lo > o->ccap) {
            if (!r->rc)
                r->rc = SK_FAIL(r, STENCIL_EDEVMEM, "out-of-core carry: %ld rows, room for %ld",
                                hi - lo, o->ccap);
            return;
        }
        if (out)
            ODEV(r, o->dev.ops->copy_peer(&o->dev, SB_QINNER, o->carry, &c, r->loc.stride, cb[p],
                                          &b, r->loc.stride));
        else
            ODEV(r, o->dev.ops->copy_peer(&o->dev, SB_QINNER, cb[p], &b, r->loc.stride, o->carry,
                                          &c, r->loc.stride));
    }
}

/*
 * The T steps of chunk i, uploaded into x, on the inner queue: first x into y where the steps
 * read it (the fixed frame is read from both), the carry from chunk i - 1 into both, then groups
 * of steps (sk_ooc_groups: o->depth at a time, else one) ping-pong between them,
 * each over its level's rows (sk_ooc_level); then what chunk i + 1 needs into the carry. Returns
 * the cells times steps; *out: 0 when the last step wrote x, 1 when y.
 */
static double ooc_compute(sk_run *r, int i, int src, int T, sb_mem x, sb_mem y, int *out)
{
    sk_ooc *o = r->ooc;
    long base = sk_ooc_base(r, i, T), lo, hi, dup;
    double cells = 0;
    int w = 0, S = 0, k[SK_OOC_MAX], m = sk_ooc_groups(r, T, k);
    sb_mem cb[2] = {x, y};
    sk_ooc_upload_rows(r, i, T, &lo, &hi, &dup);
    ooc_dup(r, x, y, base, dup, hi, r->buf[src]);
    if (i > 0) ooc_carry(r, i, T, cb, base, 0);
    sl_box live = sl_local_box(&r->loc, &r->loc.live);
    live.lo[0] -= base;
    live.hi[0] -= base;
    for (int j = 0; j < m; j++) {
        S += k[j];
        sl_box box = sk_ooc_box(r, i, T, S, base);
        if (!sl_box_empty(&box)) {
            cells += (double)sl_box_volume(&box) * k[j];
            ODEV(r, o->dev.ops->update(&o->dev, SB_QINNER, k[j], cb[w], cb[w ^ 1], &box, &live));
        }
        w ^= 1;
    }
    if (i + 1 < o->nchunks) ooc_carry(r, i + 1, T, cb, base, 1);
    *out = w;
    return cells;
}

/* Owned rows of chunk i from buffer m, on the transfer queue. */
static void ooc_download(sk_run *r, int i, int dst, int T, sb_mem m)
{
    long a, b;
    sk_ooc_rows(r, i, &a, &b);
    ooc_move(r, SB_QXFER, m, sk_ooc_base(r, i, T), a, b, r->buf[dst], 1);
    ODEV(r, r->ooc->dev.ops->flush(&r->ooc->dev, SB_QXFER));
}

/* Buffer rows [lo, hi) of chunk buffer m (row 0: local row base) to or from level arr, flushed. */
static void ooc_part(sk_run *r, int q, sb_mem m, long base, long lo, long hi, void *arr, int out)
{
    if (hi <= lo) return;
    ooc_move(r, q, m, base, base + lo, base + hi, arr, out);
    ODEV(r, r->ooc->dev.ops->flush(&r->ooc->dev, q));
}

/*
 * The download of chunk di (to level dst, a sweep of dT steps) out of buffer m, and the upload of
 * chunk ui (from level src, a sweep of uT steps) into m behind it, where no buffer is free for the
 * upload. In buffer rows, the upload's rows that the download does not read go up at once, the
 * download begins with the rows both touch, in OOC_PIECES ranges, each range going up once the
 * border queue has waited for its download (the transfer queue's past), and ends with the rest.
 */
static void ooc_swap(sk_run *r, int di, int dst, int dT, int ui, int src, int uT, sb_mem m)
{
    sk_ooc *o = r->ooc;
    long a, b, lo, hi, dup, db = sk_ooc_base(r, di, dT), ub = sk_ooc_base(r, ui, uT);
    sk_ooc_rows(r, di, &a, &b);
    sk_ooc_upload_rows(r, ui, uT, &lo, &hi, &dup);
    long d0 = a - db, d1 = b - db, u0 = lo - ub, u1 = hi - ub;
    long i0 = d0 > u0 ? d0 : u0, i1 = d1 < u1 ? d1 : u1; /* both touch [i0, i1) */
    if (i1 <= i0) i0 = i1 = u0;
    void *down = r->buf[dst], *up = r->buf[src];
    ooc_part(r, SB_QBORDER, m, ub, u0, i0 < u1 ? i0 : u1, up, 0);
    ooc_part(r, SB_QBORDER, m, ub, i1 > u0 ? i1 : u0, u1, up, 0);
    long step = (i1 - i0 + OOC_PIECES - 1) / OOC_PIECES;
    for (long c = i0; c < i1; c += step) {
        long e = c + step < i1 ? c + step : i1;
        ooc_part(r, SB_QXFER, m, db, c, e, down, 1);
        ODEV(r, o->dev.ops->after(&o->dev, SB_QBORDER, SB_QXFER));
        ooc_part(r, SB_QBORDER, m, ub, c, e, up, 0);
    }
    ooc_part(r, SB_QXFER, m, db, d0, i0 < d1 ? i0 : d1, down, 1);
    ooc_part(r, SB_QXFER, m, db, i1 > d0 ? i1 : d0, d1, down, 1);
}

/* Serialized (ser): the host waits for queue q, so that stages run one after another. */
static void ooc_stage_end(sk_run *r, int ser, int q)
{
    if (ser) ODEV(r, r->ooc->dev.ops->wait(&r->ooc->dev, q));
}

/* The host waits for all of the device's queues. */
static void ooc_wait_all(sk_run *r)
{
    for (int q = 0; q < SB_NQUEUES; q++) ODEV(r, r->ooc->dev.ops->wait(&r->ooc->dev, q));
}

/*
 * What stage i waits for on the device, before it submits anything: chunk i's updates for its
 * upload (the border queue's past: the upload of stage i - 1), chunk i - 1's download for its
 * updates (the inner queue's past), chunk i + 1's upload for the download of the buffer it
 * reuses (the transfer queue's past: stage i - 1's download). Only that, so that a queue whose
 * work of the last stage ended early starts its next one without waiting for the other two.
 * Stage 0, and a serialized sweep, join every queue: stage 0's spare buffer may be one that the
 * previous sweep's last stage downloaded.
 */
static void ooc_stage_start(sk_run *r, int i, int ser)
{
    sb_dev *d = &r->ooc->dev;
    const sb_ops *ops = d->ops;
    if (i == 0 || ser) {
        ODEV(r, ops->join(d));
        return;
    }
    ODEV(r, ops->after(d, SB_QXFER, SB_QINNER));
    ODEV(r, ops->after(d, SB_QINNER, SB_QBORDER));
    ODEV(r, ops->after(d, SB_QBORDER, SB_QXFER));
}

/* The chunk buffer not among a, b, c (-1: none), the lowest; o->nbufs when all are taken. */
static int ooc_other(int a, int b, int c)
{
    int k = 0;
    while (k == a || k == b || k == c) k++;
    return k;
}

/*
 * Whether chunk 0 of a sweep of T steps from level src ^ 1 can go up while the last chunk of this
 * sweep comes down: its rows must all be down already (none of the last chunk's), and what
 * follows this sweep must be that sweep (next_T > 0: no halos change the level in between).
 */
static int ooc_ahead_ok(const sk_run *r, int next_T)
{
    long lo, hi, dup;
    if (next_T <= 0 || r->ooc->nchunks < 2) return 0;
    sk_ooc_upload_rows(r, 0, next_T, &lo, &hi, &dup);
    return hi <= r->ooc->a[r->ooc->nchunks - 1];
}

/*
 * Whether this sweep may end with its last chunk's download still to submit (the next sweep's
 * first stage submits it beside its first update): the next sweep takes T steps too, its chunk 0
 * can go up in this sweep's last stage beside the download of chunk n - 2 (its rows below
 * a[n - 2]), and its chunk 1, which goes up in its first stage, reads no row of chunk n - 1.
 */
static int ooc_defer_ok(const sk_run *r, int T, int next_T)
{
    const sk_ooc *o = r->ooc;
    long lo, hi, dup;
    int n = o->nchunks;
    if (next_T != T || n < 3) return 0;
    sk_ooc_upload_rows(r, 0, T, &lo, &hi, &dup);
    if (hi > o->a[n - 2]) return 0;
    sk_ooc_upload_rows(r, 1, T, &lo, &hi, &dup);
    return hi <= o->a[n - 1];
}

/*
 * One sweep: buf[src] advanced T steps into buf[src ^ 1]; errors go to r->rc.
 *
 * Stage i updates chunk i (inner queue) while chunk i - 1 comes down (transfer queue) and chunk
 * i + 1 goes up (border queue); each stage starts with the waits ooc_stage_start lists, so
 * chunk i's updates follow its upload and its download follows its updates. Three buffers rotate:
 * chunk i updates in its upload buffer x and a spare y; the one of them its last step wrote (res)
 * comes down in stage i + 1, the other is the next chunk's spare; chunk i + 1 goes up into the
 * buffer that is none of x and y: the previous chunk's res, behind its download (ooc_swap), or in
 * stage 0 the one left free.
 *
 * Between sweeps of one pass after another (next_T > 0), the next sweep's chunk 0 goes up early.
 * Where ooc_defer_ok allows, it goes up in stage n - 1, when no other upload runs, and the last
 * chunk's download moves into the next sweep's stage 0, beside the update of that chunk 0: the
 * sweeps then run as one pipeline. Else it goes up beside the last chunk's download in a stage n
 * of its own, where it can (ooc_ahead_ok), and the next sweep starts with its first update.
 */
void sk_ooc_sweep(sk_run *r, int src, int T, int next_T)
{
    sk_ooc *o = r->ooc;
    const sb_ops *ops = o->dev.ops;
    int ser = r->opt.serialize || !ops->async;
    int defer = !ser && ooc_defer_ok(r, T, next_T), n = o->nchunks, last = defer ? n - 1 : n;
    long long moved = o->up + o->down;
    double t0 = MPI_Wtime(), cells = 0;
    int x = 0, y = 1, prev = -1; /* this chunk's buffers, the last chunk's result */
    int ahead = o->ahead && o->ahead_T == T, pend = o->pend - 1;
    if (pend >= 0 && !ahead) { /* nothing to overlap it with: down, and wait */
        ooc_download(r, o->pend_i, src, o->pend_T, o->cb[pend]);
        ooc_wait_all(r);
        pend = -1;
    }
    if (ahead) { /* chunk 0 is up; a pending download comes down in stage 0 from buffer prev */
        x = o->ahead - 1;
        prev = pend;
        y = ooc_other(x, prev, -1);
    } else if (n > 0)
        ooc_upload(r, 0, src, T, o->cb[x]);
    o->ahead = o->pend = 0;
    ooc_stage_end(r, ser, SB_QBORDER);
    for (int i = 0; i <= last; i++) {
        int res = -1, next = ooc_other(x, y, prev);
        int di = -1, dst = 0, dT = 0, dm = prev, ui = -1, usrc = src;
        if (next >= o->nbufs) next = prev; /* it goes up behind the download (ooc_swap) */
        ooc_stage_start(r, i, ser);
        if (i < n) {
            int w = 0;
            cells += ooc_compute(r, i, src, T, o->cb[x], o->cb[y], &w);
            res = w ? y : x;
            ODEV(r, ops->flush(&o->dev, SB_QINNER));
            ooc_stage_end(r, ser, SB_QINNER);
        }
        if (i > 0)
            di = i - 1, dst = src ^ 1, dT = T;
        else if (pend >= 0) /* the previous sweep's last chunk, into the level this one reads */
            di = o->pend_i, dst = src, dT = o->pend_T, dm = pend;
        if (i + 1 < n)
            ui = i + 1;
        else if (defer && i + 1 == n) {
            ui = 0, usrc = src ^ 1; /* the next sweep's chunk 0, beside chunk n - 2's download */
            o->ahead = 1 + next;
            o->ahead_T = T;
        }
        if (di >= 0 && ui >= 0 && next == dm) {
            ooc_swap(r, di, dst, dT, ui, usrc, T, o->cb[dm]);
            ooc_stage_end(r, ser, SB_QXFER);
        } else {
            if (di >= 0) ooc_download(r, di, dst, dT, o->cb[dm]);
            ooc_stage_end(r, ser, SB_QXFER);
            if (ui >= 0) ooc_upload(r, ui, usrc, T, o->cb[next]);
        }
        if (i == n && ooc_ahead_ok(r, next_T)) {
            ooc_upload(r, 0, src ^ 1, next_T, o->cb[x]);
            o->ahead = 1 + x;
            o->ahead_T = next_T;
        }
        ooc_stage_end(r, ser, SB_QBORDER);
        y = res == x ? y : x; /* the buffer of this chunk that holds no result */
        x = next;
        prev = res;
    }
    if (defer) {
        o->pend = 1 + prev, o->pend_i = n - 1, o->pend_T = T;
        ODEV(r, ops->flush(&o->dev, SB_QBORDER));
    } else
        ooc_wait_all(r);
    o->sweeps++;
    o->t_sweeps += MPI_Wtime() - t0;
    o->cells_all += cells;
    o->bytes_all += o->up + o->down - moved;
    o->serialized |= ser;
}
