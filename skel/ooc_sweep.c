/* Out-of-core sweeps (ooc.c says how a run streams through its device), their statistics, and
 * the probe that chooses their T. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ooc.h"

#define SK_FAIL(r, code, ...) sk_fail((r)->msg, sizeof(r)->msg, code, __VA_ARGS__)

/* Owned rows [a, b) (local indices) widened by w steps of the reach, inside the live box. */
static sl_box ooc_step_box(const sk_run *r, long a, long b, int w)
{
    sl_box owned = sl_local_box(&r->loc, &r->loc.owned), live = sl_local_box(&r->loc, &r->loc.live);
    owned.lo[0] = a;
    owned.hi[0] = b;
    return sk_widen(r, &owned, w, &live);
}

/*
 * Rows [*lo, *hi) of the local array, clipped to it, as box b of a chunk buffer whose row 0 is
 * local row `base`; 0 when no row is left.
 */
static int ooc_chunk_rows(const sk_run *r, long base, long *lo, long *hi, sl_box *b)
{
    long ext0 = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    *lo = *lo < 0 ? 0 : *lo;
    *hi = *hi > ext0 ? ext0 : *hi;
    *b = sl_local_box(&r->loc, &r->loc.ext);
    b->lo[0] = *lo - base;
    b->hi[0] = *hi - base;
    return *hi > *lo;
}

/* Rows [lo, hi) of the local array: host rows to chunk rows from `base` on. */
static void ooc_move(sk_run *r, int q, sb_mem m, long base, long lo, long hi, void *arr, int out)
{
    sk_ooc *o = r->ooc;
    sl_box b;
    if (!ooc_chunk_rows(r, base, &lo, &hi, &b)) return;
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

/* Owned rows [a, b) of chunk i, in local indices. */
static void ooc_rows(const sk_run *r, int i, long *a, long *b)
{
    long o0 = r->loc.owned.lo[0] - r->loc.ext.lo[0], o1 = r->loc.owned.hi[0] - r->loc.ext.lo[0];
    *a = o0 + (long)i * r->ooc->rows;
    *b = *a + r->ooc->rows < o1 ? *a + r->ooc->rows : o1;
}

static long ooc_base(const sk_run *r, long a, int T)
{
    long base = a - (long)T * r->st.rlo[0];
    return base < 0 ? 0 : base;
}

/*
 * Rows [lo, hi) of chunk buffer 0 into buffer 1, on the device where the backend copies between
 * its own buffers (copy_peer), else again from the host (o->dcopy = 0 after the first refusal).
 */
static void ooc_dup(sk_run *r, sb_mem *cb, long base, long lo, long hi, void *arr)
{
    sk_ooc *o = r->ooc;
    sl_box b;
    if (!ooc_chunk_rows(r, base, &lo, &hi, &b)) return;
    if (o->dcopy) {
        int rc = o->dev.ops->copy_peer(&o->dev, SB_QBORDER, cb[1], &b, r->loc.stride, cb[0], &b,
                                       r->loc.stride);
        if (rc == 0) return;
        if (rc != STENCIL_ENOSYS) {
            ODEV(r, rc);
            return;
        }
        o->dcopy = 0;
    }
    ooc_move(r, SB_QBORDER, cb[1], base, lo, hi, arr, 0);
}

/* Chunk i's rows with their margins into both buffers of its set (the frame is read from both). */
static void ooc_upload(sk_run *r, int i, int src, int T)
{
    long a, b, base;
    ooc_rows(r, i, &a, &b);
    base = ooc_base(r, a, T);
    sb_mem *cb = r->ooc->cb[i & 1];
    ooc_move(r, SB_QBORDER, cb[0], base, base, b + (long)T * r->st.rhi[0], r->buf[src], 0);
    ooc_dup(r, cb, base, a - (long)(T - 1) * r->st.rlo[0], b + (long)(T - 1) * r->st.rhi[0],
            r->buf[src]);
    ODEV(r, r->ooc->dev.ops->flush(&r->ooc->dev, SB_QBORDER));
}

/*
 * The T steps of chunk i, ping-pong between its two buffers: step s over the chunk widened by
 * T - s; where the device has a fast two-step kernel (o->two), steps s and s + 1 in one update2
 * (which computes step s where step s + 1 reads it). Returns the cells times steps; *out: the
 * buffer the last step wrote.
 */
static double ooc_compute(sk_run *r, int i, int T, int *out)
{
    sk_ooc *o = r->ooc;
    long a, b, base;
    double cells = 0;
    int w = 0; /* the buffer read next */
    ooc_rows(r, i, &a, &b);
    base = ooc_base(r, a, T);
    sb_mem *cb = o->cb[i & 1];
    sl_box live = sl_local_box(&r->loc, &r->loc.live);
    live.lo[0] -= base;
    live.hi[0] -= base;
    for (int s = 1; s <= T; s++) {
        int two = o->two && s < T;
        sl_box box = ooc_step_box(r, a, b, T - s - two);
        box.lo[0] -= base;
        box.hi[0] -= base;
        if (!sl_box_empty(&box)) {
            cells += (double)sl_box_volume(&box) * (two ? 2 : 1);
            if (two)
                ODEV(r, o->dev.ops->update2(&o->dev, SB_QINNER, cb[w], cb[w ^ 1], &box, &live));
            else
                ODEV(r, o->dev.ops->update(&o->dev, SB_QINNER, cb[w], cb[w ^ 1], &box));
        }
        w ^= 1;
        s += two;
    }
    *out = w;
    return cells;
}

/* Owned rows of chunk i from buffer w of its set (on the transfer queue, after a join). */
static void ooc_download(sk_run *r, int i, int dst, int T, int w)
{
    long a, b;
    ooc_rows(r, i, &a, &b);
    ooc_move(r, SB_QBORDER, r->ooc->cb[i & 1][w], ooc_base(r, a, T), a, b, r->buf[dst], 1);
    ODEV(r, r->ooc->dev.ops->flush(&r->ooc->dev, SB_QBORDER));
}

/* Serialized: waits for queue q and adds the time since *t to *sum. */
static void ooc_stage_end(sk_run *r, int ser, int q, double *t, double *sum)
{
    if (!ser) return;
    ODEV(r, r->ooc->dev.ops->wait(&r->ooc->dev, q));
    double now = MPI_Wtime();
    *sum += now - *t;
    *t = now;
}

/* One sweep: buf[src] advanced T steps into buf[src ^ 1]; errors go to r->rc. */
void sk_ooc_sweep(sk_run *r, int src, int T)
{
    sk_ooc *o = r->ooc;
    const sb_ops *ops = o->dev.ops;
    int ser = r->opt.serialize || !ops->async;
    long long moved = o->up + o->down;
    double t0 = MPI_Wtime(), t = t0, cells = 0, tx = 0, tc = 0;
    /*
     * Transfers on the border queue, updates on the inner queue: while chunk i is updated, chunk
     * i - 1 comes down and chunk i + 1 goes up, so the updates never wait for a download. The join
     * before chunk i makes its updates wait for its upload, and the transfers after it wait for
     * the updates of chunk i - 1; the upload of chunk i + 1 follows the download of chunk i - 1,
     * which used the same set of buffers, on the same queue.
     */
    int w = 0; /* the buffer the last step of a chunk wrote: the same for every chunk */
    if (o->nchunks > 0) ooc_upload(r, 0, src, T);
    ooc_stage_end(r, ser, SB_QBORDER, &t, &tx);
    for (int i = 0; i <= o->nchunks; i++) {
        ODEV(r, ops->join(&o->dev));
        if (i < o->nchunks) {
            cells += ooc_compute(r, i, T, &w);
            ODEV(r, ops->flush(&o->dev, SB_QINNER));
            ooc_stage_end(r, ser, SB_QINNER, &t, &tc);
        }
        if (i > 0) ooc_download(r, i - 1, src ^ 1, T, w);
        if (i + 1 < o->nchunks) ooc_upload(r, i + 1, src, T);
        ooc_stage_end(r, ser, SB_QBORDER, &t, &tx);
    }
    ODEV(r, ops->wait(&o->dev, SB_QBORDER));
    ODEV(r, ops->wait(&o->dev, SB_QINNER));
    o->sweeps++;
    o->t_sweeps += MPI_Wtime() - t0;
    o->cells_all += cells;
    o->bytes_all += o->up + o->down - moved;
    o->serialized |= ser;
}

/*
 * The device's figures replace the host copies' in the statistics. The hidden fraction: the
 * transfers and updates of all sweeps at the probe's rates, one after the other, against the
 * time the sweeps took; the share of the transfer time that this saved.
 */
void sk_ooc_stats(sk_run *r, stencil_stats *s)
{
    sk_ooc *o = r->ooc;
    double x = r->ooc_bw > 0 ? (double)o->bytes_all / r->ooc_bw : 0;
    double c = r->ooc_rate > 0 ? o->cells_all / r->ooc_rate : 0;
    s->ooc = 1;
    s->ooc_chunks = o->nchunks;
    s->ooc_up = o->up;
    s->ooc_down = o->down;
    s->ooc_bandwidth = r->ooc_bw;
    s->ooc_rate = r->ooc_rate;
    s->ooc_hidden = 0;
    if (!o->serialized && x > 0 && o->t_sweeps > 0) {
        double hid = (x + c - o->t_sweeps) / x;
        s->ooc_hidden = hid < 0 ? 0 : hid > 1 ? 1 : hid;
    }
    s->device_bytes = o->dev.device_bytes;
    snprintf(s->backend, sizeof s->backend, "%s", o->dev.ops->name);
    snprintf(s->device, sizeof s->device, "%s", o->dev.name);
    snprintf(s->kernel, sizeof s->kernel, "%s", o->dev.kernel[0] ? o->dev.kernel : "generic");
}

/*
 * The probe for T: chunk 0 up (host->device bytes/s) and its first step (or two, with update2)
 * on the device (cells/s per step), each timed on its second run, the first paying for first
 * touches and kernel loads.
 */
/* Ones in rows [lo, hi) of host level 0 before init fills it: zeros or garbage could take slower
   paths than real data (a division's fallback for numerators out of its range). */
static void ooc_ones(sk_run *r, long lo, long hi)
{
    long ext0 = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    size_t n = (size_t)((hi < ext0 ? hi : ext0) - lo) * (size_t)r->loc.stride[0];
    if (r->st.type == STENCIL_DOUBLE)
        for (size_t k = 0; k < n; k++) ((double *)r->buf[0])[(size_t)lo * r->loc.stride[0] + k] = 1;
    else
        for (size_t k = 0; k < n; k++) ((float *)r->buf[0])[(size_t)lo * r->loc.stride[0] + k] = 1;
}

void sk_ooc_probe(sk_run *r)
{
    sk_ooc *o = r->ooc;
    const sb_ops *ops = o->dev.ops;
    long a, b;
    ooc_rows(r, 0, &a, &b);
    long base = ooc_base(r, a, r->steps);
    sl_box box = ooc_step_box(r, a, b, 0), live = sl_local_box(&r->loc, &r->loc.live);
    box.lo[0] -= base, box.hi[0] -= base, live.lo[0] -= base, live.hi[0] -= base;
    double t[3] = {0, 0, 0};
    long long up = o->up;
    ooc_ones(r, base, b + (long)r->steps * r->st.rhi[0]);
    for (int k = 0; k < 2 && !r->rc; k++) {
        t[0] = MPI_Wtime();
        ooc_move(r, SB_QBORDER, o->cb[0][0], base, base, b + (long)r->steps * r->st.rhi[0],
                 r->buf[0], 0);
        ODEV(r, ops->wait(&o->dev, SB_QBORDER));
        t[1] = MPI_Wtime();
        if (o->two)
            ODEV(r, ops->update2(&o->dev, SB_QINNER, o->cb[0][0], o->cb[0][1], &box, &live));
        else
            ODEV(r, ops->update(&o->dev, SB_QINNER, o->cb[0][0], o->cb[0][1], &box));
        ODEV(r, ops->wait(&o->dev, SB_QINNER));
        t[2] = MPI_Wtime();
    }
    double bytes = (double)(o->up - up) / 2, cells = (double)sl_box_volume(&box) * (o->two + 1);
    o->up = up;
    if (r->rc || t[1] <= t[0] || t[2] <= t[1]) return;
    r->ooc_bw = bytes / (t[1] - t[0]);
    r->ooc_rate = cells / (t[2] - t[1]);
}

/*
 * The T a sweep wants: its updates (rate cells/s per step) as long as its transfers (each cell
 * once up and once down, one after the other on one queue, at bw bytes/s), with a quarter to spare;
 * beyond two (which halve the transfers at little cost), at most what keeps a chunk's halo rows
 * under a quarter of its rows, and what the halo pattern's composition allows (SK_OOC_MAX steps of
 * reach 1).
 */
static int ooc_want(const sk_run *r)
{
    const sk_ooc *o = r->ooc;
    double es = (double)sb_elem_size(r->st.type);
    int reach = 1, T = 1;
    for (int d = 0; d < r->st.ndims; d++) {
        reach = r->st.rlo[d] > reach ? r->st.rlo[d] : reach;
        reach = r->st.rhi[d] > reach ? r->st.rhi[d] : reach;
    }
    if (r->ooc_bw > 0 && r->ooc_rate > 0) T = (int)ceil(1.25 * r->ooc_rate * 2 * es / r->ooc_bw);
    long cap = o->rows / (4L * (r->st.rlo[0] + r->st.rhi[0] > 0 ? r->st.rlo[0] + r->st.rhi[0] : 1));
    if (T > cap) T = (int)cap;
    if (T > SK_OOC_MAX / reach) T = SK_OOC_MAX / reach;
    return T < 2 ? 2 : T;
}

/*
 * The steps per exchange were chosen before anyone knew the parts would not fit. When every rank
 * is out of core and T was not forced, the probe says what T the sweeps want (ooc_want: the
 * smallest over the ranks), and set-up runs again with it when it differs.
 */
int sk_ooc_again(sk_run *r)
{
    int mine[2] = {r->ooc != NULL, SK_OOC_MAX}, all[2] = {0, 0};
    if (r->ooc_force || r->opt.fuse != 0 || r->iters < 2) mine[0] = 0;
    if (mine[0]) mine[1] = ooc_want(r);
    if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, r->comm) != MPI_SUCCESS) return 0;
    int T = all[1] < r->iters ? all[1] : (int)r->iters;
    if (!all[0] || T == r->steps) return 0;
    r->ooc_force = 1;
    r->ooc_T = T;
    return 1;
}
