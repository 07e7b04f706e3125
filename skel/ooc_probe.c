/*
 * The out-of-core probe: the link's bandwidth and the kernel's rate on the first chunk, and the
 * model of a run's time that turns them into the T the sweeps want.
 */
#include <stdlib.h>

#include "ooc.h"

/*
 * The probe for T, before the host copies exist: chunk 0's rows from a buffer of their own up
 * while as many come down into another (bytes/s each way with both directions busy, as in the
 * sweeps' stages: on one H200, 55.2 GB/s up alone and less with a download beside it) and its
 * first group of steps (o->depth per update call) on the device (cells/s per step), each the
 * fastest of three runs after updates for OOC_WARM seconds and a
 * first run that pays for first touches and kernel loads (a single second run measured 786
 * Gcells/s for 2d4 where the sweeps' launches ran at 1345 on one H200; three runs without the
 * warm-up 805).
 */
/* Seconds of updates before the probe times one: the clocks of an idle GPU rise under load. */
#define OOC_WARM 0.03

/* One group of the probe's steps (o->depth per update call), waited for. */
static void probe_update(sk_run *r, const sl_box *box, const sl_box *live)
{
    sk_ooc *o = r->ooc;
    const sb_ops *ops = o->dev.ops;
    ODEV(r, ops->update(&o->dev, SB_QINNER, o->depth, o->cb[0], o->cb[1], box, live));
    ODEV(r, ops->wait(&o->dev, SB_QINNER));
}

void sk_ooc_probe(sk_run *r)
{
    sk_ooc *o = r->ooc;
    const sb_ops *ops = o->dev.ops;
    long base = sk_ooc_base(r, 0, r->steps), lo, hi, dup;
    sk_ooc_upload_rows(r, 0, r->steps, &lo, &hi, &dup);
    sl_box box = sk_ooc_box(r, 0, r->steps, r->steps, base), rows;
    sl_box live = sl_local_box(&r->loc, &r->loc.live);
    live.lo[0] -= base, live.hi[0] -= base;
    if (!sk_ooc_chunk_rows(r, base, &lo, &hi, &rows)) return;
    /* Ones, not zeros or garbage, which could take slower paths than real data (a division's
       fallback for numerators out of its range); pinned like the host copies where it can be. */
    size_t n = (size_t)(hi - lo) * (size_t)r->loc.stride[0], bytes = n * sb_elem_size(r->st.type);
    void *h, *hd;
    int pinned = sk_ooc_host_get(o, bytes, &h), dpinned = sk_ooc_host_get(o, bytes, &hd);
    if (!h || !hd) {
        if (h) sk_ooc_host_put(o, h, pinned);
        if (hd) sk_ooc_host_put(o, hd, dpinned);
        return;
    }
    for (size_t k = 0; k < n; k++)
        if (r->st.type == STENCIL_DOUBLE)
            ((double *)h)[k] = 1;
        else
            ((float *)h)[k] = 1;
    double best[2] = {0, 0}, tw = MPI_Wtime();
    ODEV(r, ops->copy_in(&o->dev, SB_QBORDER, o->cb[0], &rows, h));
    ODEV(r, ops->wait(&o->dev, SB_QBORDER));
    for (int k = 0; k < 64 && !r->rc && MPI_Wtime() - tw < OOC_WARM; k++)
        probe_update(r, &box, &live);
    for (int k = 0; k < 4 && !r->rc; k++) {
        double t0 = MPI_Wtime(), t1, t2;
        ODEV(r, ops->copy_in(&o->dev, SB_QBORDER, o->cb[0], &rows, h));
        ODEV(r, ops->copy_out(&o->dev, SB_QXFER, o->cb[2], &rows, hd));
        ODEV(r, ops->wait(&o->dev, SB_QBORDER));
        ODEV(r, ops->wait(&o->dev, SB_QXFER));
        t1 = MPI_Wtime();
        probe_update(r, &box, &live);
        t2 = MPI_Wtime();
        if (k > 0 && (best[0] <= 0 || t1 - t0 < best[0])) best[0] = t1 - t0;
        if (k > 0 && (best[1] <= 0 || t2 - t1 < best[1])) best[1] = t2 - t1;
    }
    sk_ooc_host_put(o, h, pinned);
    sk_ooc_host_put(o, hd, dpinned);
    double cells = (double)sl_box_volume(&box) * o->depth;
    if (r->rc || best[0] <= 0 || best[1] <= 0) return;
    r->ooc_bw = (double)bytes / best[0];
    r->ooc_rate = cells / best[1];
}

/*
 * The modelled time of a run of `iters` steps in sweeps of T (the last of the remainder), for
 * buffers of sk_ooc_cap rows: sk_ooc_shape gives the chunk count and sk_ooc_split their rows, as
 * sk_ooc_layout will lay them out; a sweep takes one stage per chunk of the longest of its upload,
 * a download (both directions at once, bw bytes/s each) and its updates (the probe's cells/s
 * per step, each step over the chunk's rows, and with trapezoids over the margins that the steps
 * still to come need). The first chunk's upload and the last one's download (the pipeline filling
 * and draining) come once per run where sweeps follow each other without halos between them
 * (ooc_defer_ok), else once per sweep. -1: no chunks for T.
 */
static double ooc_model(const sk_run *r, int T, long iters)
{
    const sk_ooc *o = r->ooc;
    long rr = r->st.rlo[0] + r->st.rhi[0], owned = r->loc.owned.hi[0] - r->loc.owned.lo[0];
    double rb = (double)o->row_bytes, cpr = (double)r->loc.stride[0], bw = r->ooc_bw;
    long first, rows, ccap, cap = sk_ooc_cap(r, T, &ccap);
    int n, skew = sk_ooc_shape(r, cap, T, &first, &rows, &n);
    if (rows < 1 || first < 1) return -1;
    skew = skew && n > 1;
    sk_ooc_split(owned, n, skew, &first, &rows);
    double fill = (double)cap * rb / bw + (double)rows * rb / bw, t = 0;
    long sweeps = (iters + T - 1) / T;
    for (int last = 0; last < 2; last++) { /* the full sweeps, then the remainder's */
        long k = last ? iters % T : T, times = last ? k > 0 : iters / T, left = owned;
        for (int i = 0; i < n && times > 0; i++) {
            long c_rows = i == 0 ? first : rows < left ? rows : left;
            double up = (double)(c_rows + (skew ? (long)o->depth : (long)T) * rr) * rb / bw;
            double c =
                ((double)k * c_rows + (skew ? 0 : 0.5 * k * (k - 1) * rr)) * cpr / r->ooc_rate;
            t += (double)times * (up > c ? up : c);
            left -= c_rows;
        }
    }
    return t + (r->x.n == 0 && n >= 3 ? 1.0 : (double)sweeps) * fill;
}

/* The modelled time a later probe's T must save, as a fraction of the T set up. */
#define OOC_GAIN 0.95

/*
 * The T a run of r->iters steps wants: the one of least modelled time (ooc_model). At most what
 * the halo pattern's composition allows (SK_OOC_MAX steps of reach 1, SK_OOC_MAX3D in 3D); at
 * least 2.
 */
int sk_ooc_want(const sk_run *r)
{
    int reach = 1, best = 2, most = r->st.ndims == 3 ? SK_OOC_MAX3D : SK_OOC_MAX;
    double t_best = -1;
    for (int d = 0; d < r->st.ndims; d++) {
        reach = r->st.rlo[d] > reach ? r->st.rlo[d] : reach;
        reach = r->st.rhi[d] > reach ? r->st.rhi[d] : reach;
    }
    if (!(r->ooc_bw > 0 && r->ooc_rate > 0)) return 2;
    for (int T = 2; T <= most / reach; T++) {
        double t = ooc_model(r, T, r->iters);
        if (t < 0) break;
        if (t_best < 0 || t < t_best) t_best = t, best = T;
    }
    /* A later probe moves T only for a clear gain: it timed one chunk of the T set up, and the
       rate of chunks of other sizes differs (3d7 on one H200: 48 planes 427, 77 planes 458). */
    double now = r->ooc_round > 0 ? ooc_model(r, r->steps, r->iters) : -1;
    return now > 0 && t_best > OOC_GAIN * now ? r->steps : best;
}
