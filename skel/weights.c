/*
 * Share weights: given in the options, configured per rank, or measured by short timed runs of
 * each rank's device ("auto"). Measured weights are cells per second, so the partition gives each
 * device a share proportional to its speed.
 *
 * Calibration runs in rounds. Round 1 times every rank on an equal share. A device's rate depends
 * on the size of its share (caches, occupancy, launch overhead on small boxes: on the GPU host a
 * PoCL rank timed 2.8 Gcells/s on a third of a 20480^2 grid and ran at 0.65 on all of it), so each
 * later round cuts the grid in proportion to the rates just measured and times every rank again
 * on that share. Rounds stop once no rank's share moves by more than SK_CALIB_CHANGE from the
 * partition it was timed on, or after SK_CALIB_ROUNDS (STENCIL_CALIBRATION_ROUNDS); the last
 * round's rates are the weights. Every rank decides from the same allgathered rates, so all stop
 * together. Round 1 times the update kernel alone (time_kernel), later rounds the real loop
 * (time_loop), and later rounds move the weights only halfway toward what they measured (damp).
 * A round costs a device open and kernel build, the allocation and fill of the share, and the
 * timed batches (kernel: about 0.1 s; loop: until every rank was busy 50 ms, at most 1 s per
 * batch or 1365 iterations in all); the worst case is SK_CALIB_ROUNDS such rounds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skel.h"

#define SK_CALIB_ROUNDS 3    /* at most: the equal round and two re-cut ones */
#define SK_CALIB_MAX    10   /* most rounds STENCIL_CALIBRATION_ROUNDS may ask for */
#define SK_CALIB_CHANGE 0.05 /* a share moving less than this (relative) is settled */

/* Fills both buffers with a harmless constant so the timing sees ordinary numbers. */
static int fill(sk_run *r)
{
    size_t n = r->loc.nelems, bytes = n * sb_elem_size(r->st.type);
    for (size_t i = 0; i < n; i++) {
        if (r->st.type == STENCIL_DOUBLE)
            ((double *)r->host)[i] = 0.5;
        else
            ((float *)r->host)[i] = 0.5f;
    }
    for (int i = 0; i < 2; i++) {
        int rc = r->dev.ops->write(&r->dev, r->buf[i], r->host, bytes);
        if (rc) return sk_fail(r->msg, sizeof r->msg, rc, "%s", r->dev.err);
    }
    return 0;
}

/* Round 1, equal shares: the update kernel alone, in doubling batches until one takes 50 ms.
   (The loop would run at the pace of the slowest rank and leave the fast ones a few
   iterations' worth of busy time to measure.) */
static int time_kernel(sk_run *r, double *rate)
{
    const sb_ops *o = r->dev.ops;
    sl_box b = sl_local_box(&r->loc, &r->loc.update);
    double cells = (double)sl_box_volume(&b), dt = 0;
    long batch = 1, k = 0;
    int rc = fill(r);
    for (int warm = 1; !rc && dt < 0.05 && batch <= 4096; batch *= 2, warm = 0) {
        double t0 = MPI_Wtime();
        for (k = 0; !rc && k < batch; k++)
            rc = o->update(&r->dev, SB_QINNER, r->buf[k & 1], r->buf[(k + 1) & 1], &b);
        if (!rc) rc = o->wait(&r->dev, SB_QINNER);
        dt = warm ? 0 : MPI_Wtime() - t0;
    }
    if (rc) return sk_fail(r->msg, sizeof r->msg, rc, "calibration: %s", r->dev.err);
    *rate = dt > 0 && cells > 0 ? cells * (double)k / dt : 0;
    return 0;
}

/*
 * Later rounds, weighted shares: the real loop (border, exchange, inner) in collective batches
 * that grow until every rank has been busy 50 ms (or the slowest batch took 1 s, or 1024
 * iterations), rating each rank by the cells it updates per second of its own busy time: the
 * loop minus what it spent waiting in MPI. Halo copies and launch overheads then count against
 * the rank that pays them, which timing the kernel alone missed (bench/RESULTS.md, mixed job).
 */
static int time_loop(sk_run *r, double *rate)
{
    sl_box b = sl_local_box(&r->loc, &r->loc.update);
    double cells = (double)sl_box_volume(&b), t[2] = {0, 0}, agreed[2] = {0, 0};
    long keep_iters = r->iters, keep_progress = r->opt.progress, n = 1;
    int rc = fill(r);
    r->opt.progress = 0;
    for (int warm = 1; !rc; warm = 0, n *= 4) {
        r->iters = n;
        rc = sk_agree(r->comm, sk_loop(r), r->msg, sizeof r->msg);
        t[0] = -(r->stats.t_loop - r->stats.t_mpi); /* max of -busy: the least busy rank */
        t[1] = r->stats.t_loop;
        if (!rc && MPI_Allreduce(t, agreed, 2, MPI_DOUBLE, MPI_MAX, r->comm) != MPI_SUCCESS)
            rc = sk_fail(r->msg, sizeof r->msg, STENCIL_EMPI, "MPI_Allreduce failed (calibration)");
        if (!warm && (-agreed[0] >= 0.05 || agreed[1] >= 1.0 || n >= 1024)) break;
    }
    r->iters = keep_iters;
    r->opt.progress = keep_progress;
    r->rc = 0;
    if (rc) return rc;
    *rate = -t[0] > 0 && cells > 0 ? cells * (double)n / -t[0] : 0;
    return 0;
}

/* Times this rank on the partition of r->weights (NULL: equal shares, the kernel alone). */
static int calibrate(sk_run *r, const long *sizes, const stencil_kernel *named, double *rate)
{
    *rate = 0;
    int rc = sk_prepare(r, sizes, named);
    if (r->weights) SK_PHASE(r, rc, sk_peer_setup(r));
    if (!rc)
        rc = r->weights ? time_loop(r, rate)
                        : sk_agree(r->comm, time_kernel(r, rate), r->msg, sizeof r->msg);
    sk_release(r);
    return rc;
}

/*
 * Busy times measured on the real loop are noisy and not proportional to the share (fixed
 * per-iteration costs), and re-cutting by them alone swung the shares back and forth between
 * rounds on the GPU host (CUDA 9.8e11, 4.8e11, 1.3e12 cells/s in rounds 1-3). Each later round
 * therefore moves only halfway (geometrically) from the weights it ran on to the measured rates.
 */
static void damp(double *w, const double *prev, int n)
{
    for (int i = 0; prev && i < n; i++) w[i] = sqrt(w[i] * prev[i]);
}

/* A rank with nothing to update measured nothing: give it the smallest measured share. */
static void fix_zero_rates(double *w, int n)
{
    double lo = 0;
    for (int i = 0; i < n; i++)
        if (w[i] > 0 && (lo == 0 || w[i] < lo)) lo = w[i];
    for (int i = 0; i < n; i++)
        if (!(w[i] > 0)) w[i] = lo > 0 ? lo : 1.0;
}

static int verbose(const sk_run *r)
{
    return r->rank == 0 && (r->opt.progress > 0 || getenv("STENCIL_VERBOSE"));
}

static void print_weights(const double *w, int n)
{
    for (int i = 0; i < n; i++) fprintf(stderr, " %.4g", w[i]);
    fprintf(stderr, "\n");
}

static void report(const sk_run *r, int measured)
{
    if (!verbose(r)) return;
    if (measured)
        fprintf(stderr, "stencil: calibrated weights (%d round%s):", r->stats.calib_rounds,
                r->stats.calib_rounds == 1 ? "" : "s");
    else
        fprintf(stderr, "stencil: configured weights:");
    print_weights(r->weights, r->size);
}

/* STENCIL_CALIBRATION_ROUNDS on any rank (the largest wins, so all agree), else SK_CALIB_ROUNDS. */
static int max_rounds(sk_run *r, int *rounds)
{
    const char *env = getenv("STENCIL_CALIBRATION_ROUNDS");
    int rc = 0, mine = 0;
    if (env && *env) {
        char *end;
        errno = 0;
        long v = strtol(env, &end, 10);
        if (errno || *end || v < 1 || v > SK_CALIB_MAX)
            rc = sk_fail(r->msg, sizeof r->msg, STENCIL_EINVAL,
                         "STENCIL_CALIBRATION_ROUNDS=%s is not 1..%d", env, SK_CALIB_MAX);
        else
            mine = (int)v;
    }
    if ((rc = sk_agree(r->comm, rc, r->msg, sizeof r->msg))) return rc;
    if (MPI_Allreduce(&mine, rounds, 1, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS)
        return sk_fail(r->msg, sizeof r->msg, STENCIL_EMPI, "MPI_Allreduce failed (calibration)");
    if (*rounds == 0) *rounds = SK_CALIB_ROUNDS;
    return 0;
}

/*
 * The calibration rounds (see the top of the file): on return r->weights holds the last round's
 * rates of all ranks and r->stats.calib_rounds the number of rounds.
 */
static int calibrate_rounds(sk_run *r, const long *sizes, const stencil_kernel *named)
{
    int n = r->size, most = 0, rc = max_rounds(r, &most);
    double *prev = NULL, *w = r->weights;
    for (int k = 1; !rc && k <= most; k++) {
        double mine = 0;
        r->weights = prev; /* the partition this round is timed on */
        rc = calibrate(r, sizes, named, &mine);
        r->weights = w;
        if (!rc && MPI_Allgather(&mine, 1, MPI_DOUBLE, w, 1, MPI_DOUBLE, r->comm) != MPI_SUCCESS)
            rc = sk_fail(r->msg, sizeof r->msg, STENCIL_EMPI, "MPI_Allgather failed (calibration)");
        if ((rc = sk_agree(r->comm, rc, r->msg, sizeof r->msg))) break;
        fix_zero_rates(w, n);
        damp(w, prev, n);
        r->stats.calib_rounds = k;
        double change = sl_share_change(prev, w, n);
        if (verbose(r)) {
            fprintf(stderr, "stencil: calibration round %d on %s shares, share change %.1f%%:", k,
                    prev ? "weighted" : "equal", 100 * change);
            print_weights(w, n);
        }
        if (change <= SK_CALIB_CHANGE || k == most) break;
        if (!prev && !(prev = malloc(sizeof *prev * (size_t)n)))
            rc = sk_fail(r->msg, sizeof r->msg, STENCIL_ENOMEM, "no memory for %d weights", n);
        rc = sk_agree(r->comm, rc, r->msg, sizeof r->msg);
        if (!rc) memcpy(prev, w, sizeof *prev * (size_t)n);
    }
    free(prev);
    return rc;
}

int sk_weights(sk_run *r, const long *sizes, const stencil_kernel *named)
{
    int any_auto = 0, rc = 0;
    double mine = r->cfg.weight;
    r->stats.calib_rounds = 0;
    r->weights = malloc(sizeof *r->weights * (size_t)r->size);
    if (!r->weights)
        rc = sk_fail(r->msg, sizeof r->msg, STENCIL_ENOMEM, "no memory for %d weights", r->size);
    if ((rc = sk_agree(r->comm, rc, r->msg, sizeof r->msg))) return rc;
    if (r->opt.rank_weights && !r->opt.weights_auto) {
        memcpy(r->weights, r->opt.rank_weights, sizeof *r->weights * (size_t)r->size);
        return 0;
    }
    MPI_Allreduce(&r->cfg.weight_auto, &any_auto, 1, MPI_INT, MPI_MAX, r->comm);
    if (any_auto) {
        if ((rc = calibrate_rounds(r, sizes, named))) return rc;
    } else {
        MPI_Allgather(&mine, 1, MPI_DOUBLE, r->weights, 1, MPI_DOUBLE, r->comm);
    }
    int uniform = !any_auto;
    for (int i = 0; uniform && i < r->size; i++) uniform = r->weights[i] == 1.0;
    if (uniform) { /* nothing configured: the plain block distribution */
        free(r->weights);
        r->weights = NULL;
        return 0;
    }
    report(r, any_auto);
    return 0;
}
