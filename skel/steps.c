/*
 * T, the time steps per halo exchange, the same on every rank, and the partition and local layout
 * that follow from it (the halos of T steps: r->lst, sl_stencil_compose).
 *
 * options.steps (or $STENCIL_STEPS) = T >= 1 forces T. Automatic (0): T = D where every rank has a
 * fast fused kernel of D >= 2 steps (fuse_depth; D the least over the ranks); otherwise this
 * model. A pass of T steps sends one
 * set of messages instead of T, but sweeps the part T times and recomputes margins: step s of a
 * box covers it widened by T - s reaches, and the inner box and the border boxes widen into each
 * other, so the margins count about twice. Per rank, the time of one step at T is
 *
 *   work(T) / T / rate + (messages * SK_LATENCY + T * halo_bytes(1) / SK_BANDWIDTH) / T
 *
 * work(T): the cells of the T updates of the part with twice the widened margins; rate: cells per
 * second, measured by the calibration (weights auto) or a constant per backend kind; messages and
 * halo_bytes(1): this rank's sends and receives per exchange at T = 1. Halo bytes per step barely
 * change with T, so what T buys is latency against margin work. The ranks take the maximum of
 * each T's time (the slowest rank sets the pace), and the T in 1..SK_AUTO_MAX with the least,
 * the smallest on a tie; then no more than the parts fit (never a failure), the iterations, and
 * an out-of-core rank's chunk buffers (r->ooc_Tmax, after a set-up whose chunks did not fit).
 * One rank without periodic boundaries sends nothing: T = 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skel.h"

#define SK_AUTO_MAX  8     /* automatic T stays in 1..8 */
#define SK_LATENCY   10e-6 /* seconds per message: MPI, the waits and copies around it */
#define SK_BANDWIDTH 5e9   /* bytes per second of halo through MPI and the staging copies */
#define SK_RATE_CPU  1e9   /* cells per second of a host or OpenCL rank, uncalibrated */
#define SK_RATE_GPU  5e10  /* of a CUDA or HIP rank */

static int sk_partition(sk_run *r, const long g[SL_D], const int pgrid[SL_D], int steps)
{
    int minpart[SL_D], periodic = r->opt.boundary == STENCIL_BOUNDARY_PERIODIC;
    sl_stencil_free(&r->lst);
    sl_partition_free(&r->part);
    memset(&r->part, 0, sizeof r->part);
    int rc = sl_stencil_compose(&r->lst, &r->st, steps, periodic);
    if (rc) return SK_FAIL(r, rc, "no memory for the halo pattern of %d steps", steps);
    sl_min_part(&r->lst, minpart);
    rc = sk_partition_weighted(r, r->st.ndims, g, pgrid, minpart, periodic);
    r->part.row_align = r->env.row_align;
    return rc;
}

/* The thinnest part along d and the stencil's reach there (0: no limit from d). */
static long thinnest(const sk_run *r, int d, int *reach)
{
    long least = r->part.gsize[d];
    *reach = r->st.rlo[d] > r->st.rhi[d] ? r->st.rlo[d] : r->st.rhi[d];
    for (int i = 0; i < r->part.pgrid[d]; i++) {
        long w = r->part.cuts[d][i + 1] - r->part.cuts[d][i];
        if (w < least) least = w;
    }
    return least;
}

/* The largest T (up to limit) the parts allow: every part at least T reaches wide; *dim limits it.
 */
static int steps_fit(const sk_run *r, int limit, int *dim)
{
    int fit = limit, reach;
    *dim = -1;
    for (int d = 0; d < r->st.ndims; d++) {
        long least = thinnest(r, d, &reach);
        if (reach > 0 && least / reach < fit) {
            fit = (int)(least / reach);
            *dim = d;
        }
    }
    return fit;
}

/* options.steps on every rank (the largest, as before) and the fused depth every rank has (the
   least fuse_depth; 1: none). */
static int agree_options(sk_run *r, const stencil_kernel *named, int *want, int *all_fused)
{
    const sb_ops *ops = sk_planned_backend(r);
    /* A backend that is not built in fails to open later, with the error that says so. */
    /* Clamped first: -INT_MIN would overflow ($STENCIL_STEPS may hold any int). */
    int f = r->opt.steps < -1                  ? -1
            : r->opt.steps > STENCIL_MAX_STEPS ? STENCIL_MAX_STEPS + 1
                                               : r->opt.steps;
    int mine[3] = {ops ? -ops->fuse_depth(&r->st, named) : 0, f, -f}, all[3];
    if (MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (steps per exchange)");
    *want = all[1];
    *all_fused = -all[0] >= 2 ? -all[0] : 0;
    if (-all[2] < 0 || all[1] > STENCIL_MAX_STEPS)
        return SK_FAIL(r, STENCIL_EINVAL,
                       "options.steps (or fuse, $STENCIL_STEPS) is %s, not in 0..%d",
                       -all[2] < 0 ? "negative" : "too large", STENCIL_MAX_STEPS);
    return 0;
}

static int forced(sk_run *r, int want, int fit, int dim)
{
    r->steps = want;
    snprintf(r->why, sizeof r->why, "forced");
    if (want > 1 && want > r->iters) {
        r->steps = r->iters > 1 ? (int)r->iters : 1;
        snprintf(r->why, sizeof r->why, "forced, capped by the iterations");
    }
    if (r->steps <= fit) return 0;
    int reach;
    long least = thinnest(r, dim, &reach);
    return SK_FAIL(r, STENCIL_EPARTITION,
                   "%d time steps per exchange need parts of at least %d cells along dimension %d "
                   "(%d x radius %d); the thinnest part has %ld",
                   r->steps, r->steps * reach, dim, r->steps, reach, least);
}

/* The local part at T widened by k reaches on each side that has a halo. */
static double widened(const sl_local *l, const sl_stencil *s, int k)
{
    sl_box w = l->update;
    for (int d = 0; d < s->ndims; d++) {
        if (l->ext.lo[d] < l->owned.lo[d]) w.lo[d] -= (long)k * s->rlo[d];
        if (l->ext.hi[d] > l->owned.hi[d]) w.hi[d] += (long)k * s->rhi[d];
    }
    return (double)sl_box_volume(&w);
}

static double rank_rate(const sk_run *r)
{
    const sb_ops *ops = sk_planned_backend(r);
    if (r->rate > 0) return r->rate;
    return ops && (!strcmp(ops->name, "cuda") || !strcmp(ops->name, "hip")) ? SK_RATE_GPU
                                                                            : SK_RATE_CPU;
}

/* This rank's modelled seconds per step for T = 1..SK_AUTO_MAX, from its T = 1 layout. */
static int model(sk_run *r, double cost[SK_AUTO_MAX])
{
    sl_local l;
    int rc = sl_local_make(&l, &r->part, &r->st, r->rank);
    if (rc) return rc;
    double msgs = 0, bytes = 0, u = (double)sl_box_volume(&l.update), rate = rank_rate(r);
    for (int i = 0; i < SL_NDIRS; i++) {
        const sl_dir *dr = &l.dir[i];
        msgs += dr->has_send + dr->has_recv;
        bytes += (dr->has_send ? (double)sl_box_volume(&dr->send) : 0) +
                 (dr->has_recv ? (double)sl_box_volume(&dr->recv) : 0);
    }
    bytes *= (double)sb_elem_size(r->st.type);
    for (int t = 1; t <= SK_AUTO_MAX; t++) {
        double work = 0;
        for (int s = 1; s <= t; s++) work += u + 2 * (widened(&l, &r->st, t - s) - u);
        cost[t - 1] = work / t / rate + (msgs * SK_LATENCY + t * bytes / SK_BANDWIDTH) / t;
    }
    return 0;
}

/* The model's T, agreed: every rank's cost of each T, the slowest rank's decides. */
static int modelled(sk_run *r, int *best)
{
    double mine[SK_AUTO_MAX] = {0}, all[SK_AUTO_MAX];
    int rc = model(r, mine); /* a failure still joins the collective, then the phase agrees */
    if (MPI_Allreduce(mine, all, SK_AUTO_MAX, MPI_DOUBLE, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (steps per exchange)");
    if (rc) return SK_FAIL(r, rc, "the layout of one step failed");
    *best = 1;
    for (int t = 2; t <= SK_AUTO_MAX; t++)
        if (all[t - 1] < all[*best - 1]) *best = t;
    return 0;
}

/* all_fused: the fused depth of every rank (0: none). */
static int automatic(sk_run *r, int all_fused, int fit)
{
    int best = all_fused, rc = 0;
    char how[48];
    snprintf(how, sizeof how, "automatic: fused kernels of %d steps", all_fused);
    if (!all_fused) {
        rc = modelled(r, &best);
        snprintf(how, sizeof how, "automatic: cost model");
    }
    if (rc) return rc;
    if (r->iters >= 1 && best > r->iters) best = (int)r->iters;
    if (r->iters < 1) best = 1;
    if (r->ooc_Tmax > 0 && best > r->ooc_Tmax) best = r->ooc_Tmax; /* larger chunks did not fit */
    r->steps = best <= fit ? best : fit;
    if (best <= fit)
        snprintf(r->why, sizeof r->why, "%s", how);
    else
        snprintf(r->why, sizeof r->why, "parts too thin for T=%d: T=%d", best, fit);
    return 0;
}

int sk_setup_steps(sk_run *r, const long g[SL_D], const int pgrid[SL_D],
                   const stencil_kernel *named)
{
    int want = 0, all_fused = 0, all_ooc = 0, dim = 0;
    int rc = agree_options(r, named, &want, &all_fused);
    if (!rc) rc = sk_partition(r, g, pgrid, 1);
    /* Agreed here: the model below is collective. */
    rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
    if (rc) return rc;
    rc = sk_ooc_all_expected(r, &all_ooc); /* every rank out of core: the sweeps' T */
    if (rc) return rc;
    int ooc = all_ooc && want == 0;
    int fit = steps_fit(r, ooc ? SL_MAX_STEPS : STENCIL_MAX_STEPS, &dim);
    rc = want > 0 ? forced(r, want, fit, dim)
         : ooc    ? sk_ooc_steps(r, fit)
                  : automatic(r, all_fused, fit);
    if (!rc && r->steps > 1) rc = sk_partition(r, g, pgrid, r->steps);
    if (rc) return rc;
    r->npass = sk_passes(r, r->iters);
    return sl_local_make(&r->loc, &r->part, &r->lst, r->rank);
}
