/*
 * The persistent run: stencil_create() does what stencil_skeleton() does before its loop, each
 * stencil_advance() runs the loop from the current iterate (buf[cur]) with its own first halo
 * exchange, and the array after any split of the iterations is bitwise that of one loop: a pass
 * of T steps is bitwise T single steps (backend.h), so where the passes fall does not matter. A
 * failed advance marks the run: later calls refuse it, stencil_destroy still frees it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skprog.h"

/* The same n on every rank, else every rank fails (a mismatch would deadlock the exchange). */
static int sk_same_count(sk_run *r, long n, long least)
{
    long v[2] = {n, -n}, m[2];
    if (MPI_Allreduce(v, m, 2, MPI_LONG, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (iteration count)");
    if (m[0] != -m[1]) return SK_FAIL(r, STENCIL_EINVAL, "ranks passed different iteration counts");
    if (n < least) return SK_FAIL(r, STENCIL_EINVAL, "iteration count %ld, at least %ld", n, least);
    return 0;
}

static int sk_usable(sk_run *r)
{
    if (!r->failed) return 0;
    return SK_FAIL(r, STENCIL_EINVAL, "the run failed earlier (%s): destroy it",
                   stencil_strerror(r->failed));
}

/* The first advance is traced (options.trace); the device's stamp slots cover its passes. */
static int sk_trace_first(sk_run *r, long n)
{
    if (r->traced || n == 0 || !sk_trace_slots(r)) return 0;
    r->npass = sk_passes(r, n);
    return sk_trace_open(r);
}

/* The change of the last step: buf[cur] against buf[cur ^ 1], the iterate before it. */
static int sk_norm(sk_run *r, stencil_norm *out)
{
    double v[2] = {0, 0}, g[2] = {0, 0};
    sl_box b = sl_local_box(&r->loc, &r->loc.update);
    int rc = r->dev.ops->norm(&r->dev, r->buf[r->cur], r->buf[r->cur ^ 1], &b, v);
    rc = err_agree(r->comm, rc ? SK_FAIL(r, rc, "norm: %s", r->dev.err) : 0, r->msg, sizeof r->msg);
    if (rc) return rc;
    if (MPI_Allreduce(&v[0], &g[0], 1, MPI_DOUBLE, MPI_SUM, r->comm) != MPI_SUCCESS ||
        MPI_Allreduce(&v[1], &g[1], 1, MPI_DOUBLE, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (norm)");
    out->l2 = sqrt(g[0]);
    out->max = isnan(g[0]) ? NAN : g[1];
    out->cells = r->stats.cells;
    out->iteration = r->done;
    return 0;
}

int sk_advance_prog(sk_run *r, long n, stencil_norm *changes, int nchanges)
{
    int rc = 0;
    SK_PHASE(r, rc, sk_usable(r));
    SK_PHASE(r, rc, sk_same_count(r, n, changes ? 1 : 0));
    if (rc) return rc;
    rc = sk_prog_advance(r, n, changes, nchanges);
    if (rc) r->failed = rc;
    return rc;
}

int sk_advance(sk_run *r, long n, stencil_norm *change)
{
    int rc = 0;
    if (r->prog) return sk_advance_prog(r, n, change, -1);
    SK_PHASE(r, rc, sk_usable(r));
    SK_PHASE(r, rc, sk_same_count(r, n, change ? 1 : 0));
    if (rc) return rc; /* the run is as it was */
    long first = change ? n - 1 : n;
    SK_PHASE(r, rc, sk_trace_first(r, first));
    SK_PHASE(r, rc, sk_loop(r, first));
    if (r->tr || first > 0) r->traced = 1;
    sk_trace_free(r);
    if (change) { /* the last step alone, so that the two buffers hold consecutive iterates */
        SK_PHASE(r, rc, sk_loop(r, 1));
        if (!rc) rc = sk_norm(r, change);
    }
    if (rc) r->failed = rc;
    return rc;
}

/* Timed (stats.t_output): the read-back from the device and the callback; counted (r->nout). */
int sk_view(sk_run *r, stencil_output_fn fn)
{
    stencil_tile t;
    int rc = 0;
    double t0 = MPI_Wtime();
    SK_PHASE(r, rc, sk_usable(r));
    SK_PHASE(r, rc, fn ? 0 : SK_FAIL(r, STENCIL_EINVAL, "the view callback is NULL"));
    if (r->prog) {
        SK_PHASE(r, rc, sk_prog_view(r, fn));
    } else {
        SK_PHASE(r, rc, sk_current(r, &t, 1));
        SK_PHASE(r, rc,
                 fn(&t, r->opt.user) ? SK_FAIL(r, STENCIL_ECALLBACK, "output callback failed") : 0);
    }
    r->stats.t_output += MPI_Wtime() - t0;
    r->nout++;
    return rc;
}

/*
 * Public calls: the agreed code, and on_error with the agreed message; without an on_error, rank
 * 0 prints it once on stderr (options.quiet: not at all), so the numbers behind a code are seen.
 */
int sk_report(sk_run *r, int rc)
{
    if (rc && r->opt.on_error)
        r->opt.on_error(rc, r->msg, r->opt.user);
    else if (rc && !r->opt.quiet && r->rank == 0)
        fprintf(stderr, "libstencil: %s: %s\n", stencil_strerror(rc),
                r->msg[0] ? r->msg : "(no details)");
    return rc;
}

static int sk_done(sk_run *r, int rc)
{
    return sk_report(r, rc);
}

#define SK_RUN_OF(run)                                                                             \
    do {                                                                                           \
        if (!(run) || !(run)->r) return STENCIL_EINVAL;                                            \
    } while (0)

int stencil_create(MPI_Comm comm, const long *sizes, const stencil_desc *st, const char *kernel,
                   stencil_init_fn init, const stencil_options *opt, stencil_run **run)
{
    sk_run *r;
    if (!run) return STENCIL_EINVAL;
    *run = NULL;
    int rc = sk_new(comm, opt, &r);
    if (rc) return rc;
    r->iters = 1L << 40; /* planned iterations, unknown: any fusion, the most trace slots */
    rc = sk_setup(r, sizes, st, kernel, init);
    stencil_run *h = rc ? NULL : malloc(sizeof *h);
    if (!rc && !h) rc = STENCIL_ENOMEM; /* a local failure here cannot be agreed: see below */
    rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
    if (rc) {
        sk_done(r, rc);
        free(h);
        sk_free(r);
        return rc;
    }
    h->r = r;
    *run = h;
    return 0;
}

int stencil_advance(stencil_run *run, long n)
{
    SK_RUN_OF(run);
    return sk_done(run->r, sk_advance(run->r, n, NULL));
}

int stencil_advance_norm(stencil_run *run, long n, stencil_norm *change)
{
    SK_RUN_OF(run);
    stencil_norm dummy;
    return sk_done(run->r, sk_advance(run->r, n, change ? change : &dummy));
}

int stencil_view(stencil_run *run, stencil_output_fn fn)
{
    SK_RUN_OF(run);
    return sk_done(run->r, sk_view(run->r, fn));
}

int stencil_iteration(const stencil_run *run, long *iteration)
{
    SK_RUN_OF(run);
    if (!iteration) return STENCIL_EINVAL;
    *iteration = run->r->done;
    return 0;
}

/* Zeroed first, so that a caller printing them after any error sees zeros. */
int stencil_run_stats(stencil_run *run, stencil_stats *stats)
{
    if (!stats) return STENCIL_EINVAL;
    memset(stats, 0, sizeof *stats);
    SK_RUN_OF(run);
    sk_run *r = run->r;
    int rc = 0;
    SK_PHASE(r, rc, sk_usable(r));
    if (rc) return sk_done(r, rc);
    stencil_stats keep = r->stats; /* sk_stats reduces in place: keep the per-rank sums */
    sk_stats(r, r->t0, r->t_up);
    *stats = r->stats;
    r->stats = keep;
    return 0;
}

int stencil_checkpoint(stencil_run *run, const char *path)
{
    SK_RUN_OF(run);
    return sk_done(run->r, sk_checkpoint(run->r, path));
}

int stencil_load(stencil_run *run, const char *path)
{
    SK_RUN_OF(run);
    return sk_done(run->r, sk_load(run->r, path));
}

int stencil_destroy(stencil_run **run)
{
    if (!run) return STENCIL_EINVAL;
    if (*run) {
        sk_free((*run)->r);
        free(*run);
    }
    *run = NULL;
    return 0;
}
