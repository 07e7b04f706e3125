/*
 * Per-iteration phase timestamps (stencil_options.trace): device stamps of each phase go into
 * numbered slots (sb_ops.stamp); every SK_TRACE_CHUNK iterations the border and inner queues,
 * the two that carry stamps, are drained and the slots read back (stamp_read), relative to slot
 * 0, the chunk's clock reference. The copy queue is used only out of core, which traces nothing.
 *
 * The reference is stamped on the idle border queue and waited for, between two readings hb, ha
 * of the host clock: the device passed it at some moment of [hb, ha], so its midpoint puts
 * device times on the host clock within (ha - hb) / 2, a few microseconds (one submission and one
 * synchronisation of an idle queue; each line of the trace says how much as clock_err). A new
 * reference per chunk keeps the drift between the two clocks (parts per million) to that
 * fraction of one chunk's length. Stamps on one queue follow its order on one clock, so their
 * order in the trace is exact whatever the offset.
 *
 * What is traced is a pass of the loop (r->npass of them): T time steps (options.steps), whose
 * single exchange is what the overlap is about. A user counts iterations, though (progress,
 * monitor, checkpoints and stencil.h's STENCIL_TRACE_MAX all do), so a line names its pass by
 * the first iteration it covers and how many it covers, and stats.traced counts iterations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "skel.h"

#define SK_TRACE_CHUNK 1024L

/* Times of one pass in seconds since tr->base; NAN where nothing was recorded. */
typedef struct sk_trace_rec {
    double v[SK_NDEV + SK_NHOST]; /* device stamps, then host times */
    double err;                   /* uncertainty of the device times on the host clock */
} sk_trace_rec;

struct sk_trace {
    FILE *f;
    long cap;        /* passes traced */
    long t;          /* the pass being traced, -1 when none */
    long chunk0;     /* first pass whose stamps are still on the device */
    int next;        /* next free slot */
    int nslots;      /* slots the device has */
    int *slot;       /* [pass - chunk0][SK_NDEV]: slot of each stamp, 0 when none */
    double *sec;     /* stamp_read output */
    double base;     /* host time of the first reference */
    double ref, err; /* the current reference on the host clock (since base), its uncertainty */
    sk_trace_rec *rec;
};

static long chunk_len(const sk_run *r)
{
    return r->npass < SK_TRACE_CHUNK ? r->npass : SK_TRACE_CHUNK;
}

int sk_trace_slots(const sk_run *r)
{
    if (!r->opt.trace || !r->opt.trace[0]) return 0;
    return 1 + SK_NDEV * (int)chunk_len(r);
}

/* The passes that start within the first STENCIL_TRACE_MAX iterations. */
static long passes_traced(const sk_run *r)
{
    long n = (STENCIL_TRACE_MAX + r->steps - 1) / r->steps;
    return r->npass < n ? r->npass : n;
}

int sk_trace_open(sk_run *r)
{
    int n = sk_trace_slots(r);
    if (!n) return 0;
    struct sk_trace *tr = calloc(1, sizeof *tr);
    r->tr = tr;
    if (tr) {
        tr->nslots = n;
        tr->t = -1;
        tr->cap = passes_traced(r);
        tr->slot = calloc((size_t)(SK_NDEV * chunk_len(r) + 1), sizeof *tr->slot);
        tr->sec = malloc(sizeof *tr->sec * (size_t)n);
        tr->rec = malloc(sizeof *tr->rec * (size_t)(tr->cap + 1));
    }
    if (!tr || !tr->slot || !tr->sec || !tr->rec)
        return err_set(r->msg, sizeof r->msg, STENCIL_ENOMEM, "no memory for the trace");
    char path[4096];
    if (snprintf(path, sizeof path, "%s.%d.jsonl", r->opt.trace, r->rank) >= (int)sizeof path)
        return err_set(r->msg, sizeof r->msg, STENCIL_EINVAL, "trace path too long");
    tr->f = fopen(path, "w");
    if (!tr->f)
        return err_set(r->msg, sizeof r->msg, STENCIL_EIO, "cannot create trace file %s", path);
    return 0;
}

void sk_trace_free(sk_run *r)
{
    struct sk_trace *tr = r->tr;
    if (!tr) return;
    if (tr->f) fclose(tr->f);
    free(tr->slot);
    free(tr->sec);
    free(tr->rec);
    free(tr);
    r->tr = NULL;
}

/* Queues idle: a new reference in slot 0. */
static void anchor(sk_run *r)
{
    struct sk_trace *tr = r->tr;
    double hb = MPI_Wtime();
    SK_DEV(r, r->dev.ops->stamp(&r->dev, SB_QBORDER, 0));
    SK_DEV(r, r->dev.ops->wait(&r->dev, SB_QBORDER));
    double ha = MPI_Wtime();
    tr->ref = 0.5 * (hb + ha) - tr->base;
    tr->err = 0.5 * (ha - hb);
    tr->next = 1;
}

static void drain(sk_run *r)
{
    SK_DEV(r, r->dev.ops->wait(&r->dev, SB_QBORDER));
    SK_DEV(r, r->dev.ops->wait(&r->dev, SB_QINNER));
}

void sk_trace_start(sk_run *r)
{
    if (!r->tr) return;
    drain(r);
    r->tr->base = MPI_Wtime();
    anchor(r);
}

/* Queues idle: the device stamps of passes chunk0..end-1 onto the host clock. */
static void collect(sk_run *r, long end)
{
    struct sk_trace *tr = r->tr;
    SK_DEV(r, r->dev.ops->stamp_read(&r->dev, tr->next, tr->sec));
    if (r->rc) return;
    for (long t = tr->chunk0; t < end; t++) {
        const int *sl = tr->slot + (t - tr->chunk0) * SK_NDEV;
        for (int k = 0; k < SK_NDEV; k++)
            tr->rec[t].v[k] = sl[k] > 0 ? tr->ref + tr->sec[sl[k]] : NAN;
        tr->rec[t].err = tr->err;
    }
    tr->chunk0 = end;
}

void sk_trace_begin(sk_run *r, long t)
{
    struct sk_trace *tr = r->tr;
    tr->t = t < tr->cap ? t : -1;
    if (tr->t < 0) return;
    if (t - tr->chunk0 == chunk_len(r)) { /* every slot used: read them back, start again */
        drain(r);
        collect(r, t);
        anchor(r);
    }
    for (int k = 0; k < SK_NDEV; k++) tr->slot[(t - tr->chunk0) * SK_NDEV + k] = 0;
    for (int k = 0; k < SK_NDEV + SK_NHOST; k++) tr->rec[t].v[k] = NAN;
}

void sk_trace_stamp(sk_run *r, int q, int what)
{
    struct sk_trace *tr = r->tr;
    if (tr->t < 0 || r->rc || tr->next >= tr->nslots) return;
    int s = tr->next++;
    tr->slot[(tr->t - tr->chunk0) * SK_NDEV + what] = s;
    SK_DEV(r, r->dev.ops->stamp(&r->dev, q, s));
}

void sk_trace_host(sk_run *r, int what, double when)
{
    struct sk_trace *tr = r->tr;
    if (tr->t >= 0) tr->rec[tr->t].v[SK_NDEV + what] = when - tr->base;
}

/* Length of [border end, unpack end] and [inner start, inner end] in common (stencil.h). */
static double overlap(const double *v)
{
    double lo = v[SK_B1] > v[SK_I0] ? v[SK_B1] : v[SK_I0];
    double hi = v[SK_U1] < v[SK_I1] ? v[SK_U1] : v[SK_I1];
    return hi > lo ? hi - lo : 0;
}

/* Per-phase sums into the stats; the exchange sums replace the polled estimate. */
static void totals(sk_run *r)
{
    struct sk_trace *tr = r->tr;
    stencil_stats *s = &r->stats;
    r->hidden = r->xtime = 0;
    for (long t = 0; t < tr->cap; t++) {
        const double *v = tr->rec[t].v;
        s->t_dev_border += v[SK_B1] - v[SK_B0];
        s->t_dev_inner += v[SK_I1] - v[SK_I0];
        if (isnan(v[SK_U1])) continue; /* the last pass: no exchange */
        s->t_dev_pack += v[SK_P1] - v[SK_B1];
        s->t_dev_unpack += v[SK_U1] - v[SK_U0];
        r->hidden += overlap(v);
        r->xtime += v[SK_U1] - v[SK_B1];
    }
    s->traced = tr->cap == r->npass ? r->iters : tr->cap * r->steps;
}

/*
 * One JSON line of the pass that covers iterations [it, it + steps) of the loop: times in
 * microseconds since off (the loop start), in timeline order.
 */
static void write_line(FILE *f, long it, int steps, const sk_trace_rec *e, double off)
{
    static const struct {
        const char *key;
        int i;
    } col[] = {
        {"border_start", SK_B0},     {"border_end", SK_B1},           {"pack_end", SK_P1},
        {"send", SK_NDEV + SK_SEND}, {"wait_end", SK_NDEV + SK_WAIT}, {"unpack_start", SK_U0},
        {"unpack_end", SK_U1},       {"inner_start", SK_I0},          {"inner_end", SK_I1}};
    fprintf(f, "{\"it\":%ld,\"steps\":%d", it, steps);
    for (size_t k = 0; k < sizeof col / sizeof col[0]; k++)
        if (!isnan(e->v[col[k].i]))
            fprintf(f, ",\"%s\":%.3f", col[k].key, (e->v[col[k].i] - off) * 1e6);
    if (!isnan(e->v[SK_U1])) {
        double len = e->v[SK_U1] - e->v[SK_B1];
        fprintf(f, ",\"hidden\":%.4f", len > 0 ? overlap(e->v) / len : 0);
    }
    fprintf(f, ",\"clock_err\":%.3f}\n", e->err * 1e6);
}

void sk_trace_finish(sk_run *r, double t0)
{
    struct sk_trace *tr = r->tr;
    if (!tr) return;
    tr->t = -1;
    collect(r, tr->cap);
    if (r->rc) return;
    totals(r);
    for (long t = 0; t < tr->cap; t++) {
        long it = t * r->steps, left = r->iters - it;
        write_line(tr->f, it, left < r->steps ? (int)left : r->steps, &tr->rec[t], t0 - tr->base);
    }
    int bad = ferror(tr->f) != 0;
    bad |= fclose(tr->f) != 0;
    tr->f = NULL;
    if (bad) r->rc = err_set(r->msg, sizeof r->msg, STENCIL_EIO, "writing the trace failed");
}
