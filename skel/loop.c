/*
 * The iteration loop. Per pass (T time steps, options.steps: each box through T update() calls,
 * widened for the later steps, or one T-step update where the backend has kernels of T steps):
 * border cells first, their device->host copies and the MPI exchange, host->device halo copies, all
 * while the inner update runs; the last pass (the remaining iterations, maybe fewer than T) skips
 * the exchange; the two buffers swap roles by parity, never copied. Serialized (options.serialize),
 * the inner update waits until the halos are in, so nothing overlaps.
 *
 * A device error stops device work on that rank but not its messages, so no peer waits forever;
 * the error is agreed on after the loop.
 */
#include <stdio.h>
#include <stdlib.h>

#include "skel.h"

#define DEV(r, call) SK_DEV(r, call)

/* An MPI call of the exchange; left out in a calibration pass (r->local). */
#define NET(r, call)                                                                               \
    do {                                                                                           \
        int e_ = (r)->local ? MPI_SUCCESS : (call);                                                \
        if (e_ != MPI_SUCCESS && !(r)->rc)                                                         \
            (r)->rc = err_mpi((r)->msg, sizeof(r)->msg, STENCIL_EMPI, e_, #call);                  \
    } while (0)

/* Tracing hooks: one test of a NULL pointer when tracing is off. */
#define STAMP(r, q, what)                                                                          \
    do {                                                                                           \
        if ((r)->tr) sk_trace_stamp((r), (q), (what));                                             \
    } while (0)
#define HOST_TIME(r, what, when)                                                                   \
    do {                                                                                           \
        if ((r)->tr) sk_trace_host((r), (what), (when));                                           \
    } while (0)

/*
 * Scratch array of intermediate step s (1 .. T - 1) on queue q, the border or the inner queue
 * (the copy queue runs no updates). Both of those write the cells where their widened boxes
 * overlap. With one array per step in flight that is safe: step s of every box is computed from
 * the same inputs in the same order (the arithmetic contract), so both queues store the same
 * bits, and each queue reads only cells it wrote itself before, in queue order. Two arrays
 * alternating (T >= 3) would let one queue's step s + 2 overwrite what the other queue's step
 * s + 1 still reads: on an asynchronous backend each of the two has its own pair.
 */
static sb_mem scratch(const sk_run *r, int q, int s)
{
    int set = r->nscr == 4 && q == SB_QINNER ? 2 : 0;
    return r->scr[set + (r->nscr > 1 ? (s - 1) & 1 : 0)];
}

/*
 * r->pass_steps steps over global box b: step s updates b widened by (T - s) reaches (what the
 * later steps read), step 1 from in, step T into out, the steps between through scratch.
 */
static void update_box(sk_run *r, int q, sb_mem in, sb_mem out, const sl_box *b)
{
    const sb_ops *o = r->dev.ops;
    int t = r->pass_steps;
    if (sl_box_empty(b)) return; /* widened, it would compute cells nobody needs */
    if (t >= 2 && r->fused) {    /* t <= T <= fuse_depth */
        sl_box live = sl_local_box(&r->loc, &r->loc.live), lb = sl_local_box(&r->loc, b);
        DEV(r, o->update(&r->dev, q, t, in, out, &lb, &live));
        return;
    }
    for (int s = 1; s <= t; s++) {
        sl_box w = s == t ? *b : sk_widen(r, b, t - s, &r->loc.live);
        if (sl_box_empty(&w)) continue;
        sl_box lw = sl_local_box(&r->loc, &w);
        sb_mem src = s == 1 ? in : scratch(r, q, s - 1), dst = s == t ? out : scratch(r, q, s);
        DEV(r, o->update(&r->dev, q, 1, src, dst, &lw, NULL));
    }
}

void sk_update_boxes(sk_run *r, int q, sb_mem in, sb_mem out, const sl_box *b, int n)
{
    for (int i = 0; i < n; i++) update_box(r, q, in, out, &b[i]);
    DEV(r, r->dev.ops->flush(&r->dev, q));
}

/* Border ready on the host -> messages -> halos back on the device (queued). */
static void exchange(sk_run *r, int out, int sent)
{
    const sb_ops *o = r->dev.ops;
    double t = MPI_Wtime();
    DEV(r, o->wait(&r->dev, SB_QBORDER));
    double t1 = MPI_Wtime();
    if (!sent) {
        HOST_TIME(r, SK_SEND, t1);
        NET(r, sk_exchange_send(&r->x, r->comm));
    }
    NET(r, sk_exchange_wait(&r->x));
    double t2 = MPI_Wtime();
    HOST_TIME(r, SK_WAIT, t2);
    STAMP(r, SB_QBORDER, SK_U0);
    DEV(r, sk_exchange_unpack(&r->x, &r->dev, r->buf, out, r->loc.stride));
    STAMP(r, SB_QBORDER, SK_U1);
    double t3 = MPI_Wtime();
    int inner_running = !r->rc && o->busy(&r->dev, SB_QINNER) == 1;
    r->stats.t_border += t1 - t;
    r->stats.t_mpi += t2 - t1;
    r->stats.t_halo_in += t3 - t2;
    r->hidden += inner_running ? t3 - t1 : 0;
    r->xtime += t3 - t1;
}

static void border(sk_run *r, int q, sb_mem in, sb_mem out)
{
    STAMP(r, q, SK_B0);
    sk_update_boxes(r, q, in, out, r->loc.border, r->loc.nborder);
    STAMP(r, q, SK_B1);
}

static void inner(sk_run *r, sb_mem in, sb_mem out)
{
    STAMP(r, SB_QINNER, SK_I0);
    sk_update_boxes(r, SB_QINNER, in, out, &r->loc.inner, 1);
    STAMP(r, SB_QINNER, SK_I1);
}

/*
 * Out of core: a sweep through the device, then the halos between the host copies. Where the rank
 * has no halos to swap, the next pass's sweep follows at once, and this one may send its first
 * chunk up while its own last chunk comes down.
 */
static void ooc_pass(sk_run *r, int b, int exch, long left)
{
    int next = exch && r->x.n == 0 ? (int)(left < r->steps ? left : r->steps) : 0;
    sk_ooc_sweep(r, b, r->pass_steps, next);
    if (!exch) return;
    NET(r, sk_exchange_post(&r->x, r->comm));
    DEV(r, sk_exchange_pack(&r->x, &r->dev, r->buf, b ^ 1));
    exchange(r, b ^ 1, 0);
}

/*
 * Passes that update the whole box first and copy the halos after it, with no inner update beside
 * the exchange (sl_local_whole): in 3D, where every halo is the rank's own (periodic dimensions of
 * one rank) and copied on the device (the peer path both ways), the copies take microseconds, while
 * border boxes thin along x keep most lanes of a kernel's rows idle (periodic 3D runs lost much of
 * the fixed run's rate that way; in 2D those boxes are rows and cost less than the copies left
 * unhidden; docs/performance-notes.md). $STENCIL_SPLIT=1 keeps the border/inner split, 0 drops it
 * wherever there are halos (measurements).
 */
static int whole_pass(const sk_run *r)
{
    const char *e = r->env.split;
    if (e && (*e == '0' || *e == '1')) return *e == '0';
    if (r->x.n == 0 || r->st.ndims < 3) return 0;
    for (int i = 0; i < r->x.n; i++) {
        const sk_link *k = &r->x.link[i];
        if (k->peer != r->rank || (k->rbytes && !k->pull) || (k->sbytes && !k->peer_pulls))
            return 0;
    }
    return 1;
}

/* Pass t: `steps` time steps (the rest of the iterations in the last), then their halos. */
static void iteration(sk_run *r, long t)
{
    const sb_ops *o = r->dev.ops;
    int b = (int)((r->cur + t) & 1); /* the buffer this pass reads */
    sb_mem in = r->buf[b], out = r->buf[b ^ 1];
    int exch = t + 1 < r->npass, ser = r->opt.serialize;
    long left = r->iters - t * r->steps;
    r->pass_steps = left < r->steps ? (int)left : r->steps;
    if (r->ooc) {
        ooc_pass(r, b, exch, left - r->pass_steps);
        return;
    }
    if (!exch) { /* nothing to send: border and inner in one go */
        border(r, SB_QINNER, in, out);
        inner(r, in, out);
        return;
    }
    NET(r, sk_exchange_post(&r->x, r->comm));
    border(r, SB_QBORDER, in, out);
    DEV(r, sk_exchange_pack(&r->x, &r->dev, r->buf, b ^ 1));
    STAMP(r, SB_QBORDER, SK_P1);
    if (o->async && !ser) inner(r, in, out);
    int sync = !o->async && !ser;
    if (sync) { /* a synchronous device computes the inner cells while the messages travel */
        DEV(r, o->wait(&r->dev, SB_QBORDER));
        HOST_TIME(r, SK_SEND, MPI_Wtime());
        NET(r, sk_exchange_send(&r->x, r->comm));
        inner(r, in, out);
    }
    exchange(r, b ^ 1, sync);
    if (ser) { /* one phase after another: the inner update once the halos are in */
        DEV(r, o->wait(&r->dev, SB_QBORDER));
        inner(r, in, out);
        DEV(r, o->wait(&r->dev, SB_QINNER));
    }
    DEV(r, o->join(&r->dev));
}

/*
 * Pass k of a calibration (weights.c): the loop's own phases in their order, every pass with its
 * exchange, but no message sent or waited for (NET skips them), so that a rank is timed alone on
 * what it pays per pass besides cells: launches of several small boxes, host-staged halo copies
 * (the halos come from its own staging buffers). Leaves the run's counters as they were.
 */
void sk_local_pass(sk_run *r, long k)
{
    stencil_stats keep = r->stats;
    long npass = r->npass, iters = r->iters;
    double hidden = r->hidden, xtime = r->xtime;
    struct sk_trace *tr = r->tr; /* untraced */
    r->tr = NULL;
    r->local = 1;
    r->npass = k + 2; /* not the last pass: it exchanges */
    r->iters = r->npass * r->steps;
    iteration(r, k);
    r->local = 0;
    r->tr = tr;
    r->npass = npass;
    r->iters = iters;
    r->stats = keep;
    r->hidden = hidden;
    r->xtime = xtime;
}

/* Counted from the run's start (r->done before this advance) towards r->goal when set. */
static void progress(sk_run *r, long t, double t0)
{
    long every = r->opt.progress,
         here = (t + 1) * r->steps < r->iters ? (t + 1) * r->steps : r->iters,
         done = r->done + here, goal = r->goal > 0 ? r->goal : r->done + r->iters;
    if (every <= 0 || r->rank != 0 || done / every == (done - r->steps) / every) return;
    double dt = MPI_Wtime() - t0;
    double rate = (double)r->stats.cells * (double)here / dt;
    /* The unit that keeps three significant figures on small grids too. */
    const char *unit = rate >= 1e9 ? "G" : rate >= 1e6 ? "M" : "k";
    double scale = rate >= 1e9 ? 1e9 : rate >= 1e6 ? 1e6 : 1e3;
    fprintf(stderr, "stencil: iteration %ld/%ld  %.3g %scells/s  %.1f s left\n", done, goal,
            rate / scale, unit, sk_time_left(r, dt / (double)here, done, goal));
}

/* Seconds for the events still to come: total in the run, had of them taking spent. */
static double to_come(long total, long had, double spent)
{
    return had > 0 && total > had ? (double)(total - had) * spent / (double)had : 0;
}

/*
 * Seconds left at iteration done of goal: the iterations at per_iter each, and the skeleton's
 * checkpoints (one every checkpoint_every, and one at the end unless the last is there) and
 * outputs (a monitor call every monitor_every, and the output callback at the end) still to
 * come, each at the mean time of those already timed. A persistent run knows nothing of what
 * follows the advance.
 */
double sk_time_left(const sk_run *r, double per_iter, long done, long goal)
{
    double left = per_iter * (double)(goal - done);
    if (r->goal <= 0) return left;
    long start = r->done - r->ran; /* a restart's first iteration */
    long ce = r->opt.checkpoint ? r->opt.checkpoint_every : 0;
    long me = r->opt.monitor ? r->opt.monitor_every : 0;
    if (ce > 0)
        left += to_come(goal / ce - start / ce + (goal % ce != 0), r->nckpt, r->stats.t_checkpoint);
    long outs = (me > 0 ? goal / me - start / me : 0) + (r->out_end != 0);
    return left + to_come(outs, r->nout, r->stats.t_output);
}

/*
 * The halos of the current iterate, before the first pass reads them (every advance: the last
 * pass of the previous one sent nothing). Not counted in the statistics.
 */
static void first_exchange(sk_run *r)
{
    stencil_stats keep = r->stats;
    double hidden = r->hidden, xtime = r->xtime;
    NET(r, sk_exchange_post(&r->x, r->comm));
    DEV(r, sk_exchange_pack(&r->x, &r->dev, r->buf, r->cur));
    exchange(r, r->cur, 0);
    DEV(r, r->dev.ops->wait(&r->dev, SB_QBORDER));
    r->stats.t_border = keep.t_border;
    r->stats.t_mpi = keep.t_mpi;
    r->stats.t_halo_in = keep.t_halo_in;
    r->hidden = hidden;
    r->xtime = xtime;
}

/*
 * The frame cells of the neighbours that intermediate steps read sit in the halos: the host image
 * uploaded into the scratch arrays had none there. Frame cells never change, so once after an
 * upload, the array with its first halos goes into the scratch arrays.
 */
static void fill_scratch_frame(sk_run *r)
{
    const sb_ops *o = r->dev.ops;
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    if (!r->scr_stale) return;
    DEV(r, o->wait(&r->dev, SB_QBORDER));
    DEV(r, o->wait(&r->dev, SB_QINNER));
    DEV(r, o->read(&r->dev, r->buf[r->cur], r->host, bytes));
    for (int i = 0; i < r->nscr; i++) DEV(r, o->write(&r->dev, r->scr[i], r->host, bytes));
    r->scr_stale = r->rc != 0;
}

static long long sk_global_cells(const sk_run *r)
{
    long long n = 1;
    for (int d = 0; d < r->st.ndims; d++) {
        long frame = r->part.periodic ? 0 : r->st.rlo[d] + r->st.rhi[d];
        n *= r->part.gsize[d] - frame;
    }
    return n;
}

long sk_passes(const sk_run *r, long n)
{
    return (n + r->steps - 1) / r->steps;
}

int sk_loop(sk_run *r, long n)
{
    r->iters = n;
    r->npass = sk_passes(r, n);
    r->rc = 0;
    r->stats.cells = sk_global_cells(r);
    if (n == 0) return 0;
    if (whole_pass(r)) sl_local_whole(&r->loc);
    first_exchange(r);
    fill_scratch_frame(r);
    sk_trace_start(r);
    MPI_Barrier(r->comm);
    double t0 = MPI_Wtime();
    for (long t = 0; t < r->npass; t++) {
        if (r->tr) sk_trace_begin(r, t);
        iteration(r, t);
        progress(r, t, t0);
    }
    DEV(r, r->dev.ops->wait(&r->dev, SB_QBORDER));
    DEV(r, r->dev.ops->wait(&r->dev, SB_QINNER));
    r->stats.t_loop += MPI_Wtime() - t0;
    sk_trace_finish(r, t0);
    r->cur = (int)((r->cur + r->npass) & 1);
    if (r->ooc) r->host = r->buf[r->cur]; /* out of core, the host image is the current level */
    r->done += n;
    r->ran += n;
    return r->rc;
}

void sk_stats(sk_run *r, double t0, double t_setup)
{
    stencil_stats *s = &r->stats;
    double tl = s->t_loop;
    MPI_Allreduce(&tl, &s->t_loop, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    s->t_setup = t_setup;
    s->t_total = MPI_Wtime() - t0;
    s->gcells = s->t_loop > 0 ? (double)s->cells * (double)r->ran / s->t_loop / 1e9 : 0;
    s->exchange_hidden = r->xtime > 0 ? r->hidden / r->xtime : 0;
    s->bytes_sent = r->x.bytes_sent;
    s->messages = r->x.messages;
    s->peer_links = r->x.npull;
    s->steps = r->steps;
    snprintf(s->steps_why, sizeof s->steps_why, "%s", r->why);
    s->links = 0;
    for (int i = 0; i < r->x.n; i++) s->links += r->x.link[i].rbytes > 0;
    s->device_bytes = r->dev.device_bytes;
    s->local_bytes = (size_t)sl_box_volume(&r->loc.owned) * sb_elem_size(r->st.type);
    s->nranks = r->size;
    s->weight = r->weights ? r->weights[r->rank] : 1.0;
    for (int d = 0; d < SL_D; d++) {
        s->proc_grid[d] = r->part.pgrid[d];
        s->owned_lo[d] = r->loc.owned.lo[d];
        s->owned_hi[d] = r->loc.owned.hi[d];
    }
    snprintf(s->backend, sizeof s->backend, "%s", r->dev.ops->name);
    snprintf(s->device, sizeof s->device, "%s", r->dev.name);
    snprintf(s->kernel, sizeof s->kernel, "%s", r->dev.kernel[0] ? r->dev.kernel : "generic");
    if (r->ooc) sk_ooc_stats(r, s);
    if (r->prog) sk_prog_stats(r, s);
}
