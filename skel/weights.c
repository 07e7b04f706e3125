/*
 * Share weights: given in the options, configured per rank, or measured by short timed runs of
 * each rank's device ("auto"). Measured weights are cells per second, so the partition gives each
 * device a share proportional to its speed.
 *
 * Calibration runs in rounds. Round 1 times every rank on an equal share. A device's rate depends
 * on the size of its share (caches, occupancy, launch overhead on small boxes: a CPU device can
 * run several times slower on a whole grid than on a third of it), so each
 * later round cuts the grid in proportion to the rates just measured and times every rank again
 * on that share. Rounds stop once no rank's share moves by more than SK_CALIB_CHANGE from the
 * partition it was timed on, or after SK_CALIB_ROUNDS (STENCIL_CALIBRATION_ROUNDS); the last
 * round's rates are the weights. Every rank decides from the same allgathered rates, so all stop
 * together. A round costs a device open and kernel build, the allocation and fill of the share,
 * and the timed passes of measure() (the loop's own, sk_local_pass, without messages) (at least 5,
 * else about 0.1 s); ranks wait for the slowest, and the worst case is SK_CALIB_ROUNDS such rounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skel.h"

#define SK_CALIB_ROUNDS  3    /* at most: the equal round and two re-cut ones */
#define SK_CALIB_MAX     10   /* most rounds STENCIL_CALIBRATION_ROUNDS may ask for */
#define SK_CALIB_CHANGE  0.05 /* a share moving less than this (relative) is settled */
#define SK_CALIB_TIME    0.1  /* seconds of timed iterations per round, at least */
#define SK_CALIB_MIN     5    /* timed iterations per round, at least */
#define SK_CALIB_MAX_IT  4096 /* timed iterations per round, at most */
#define SK_CALIB_OUTLIER 3.0  /* iterations slower than this many medians: lost their core */

/* Fills both buffers (and the scratch arrays) with a harmless constant so the timing sees ordinary
 * numbers. */
static int fill(sk_run *r)
{
    size_t n = r->loc.nelems;
    for (size_t i = 0; i < n; i++) {
        if (r->st.type == STENCIL_DOUBLE)
            ((double *)r->host)[i] = 0.5;
        else
            ((float *)r->host)[i] = 0.5f;
    }
    return sk_upload(r);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * The time per iteration a rank's neighbours will see: the mean of the n times in t (sorted here),
 * leaving out those over SK_CALIB_OUTLIER times the median. In the loop, ranks move in lockstep,
 * so a rank whose iterations scatter sets the pace by its mean, not its median. On the GPU host,
 * PoCL ranks rated by their median then ran slower than that on their share in most mixed jobs,
 * and the GPU ranks waited for them (docs/performance-notes.md). The cut drops
 * what the median was chosen to drop: the odd iteration that lost its core to another process for a
 * whole scheduler slice, which on an oversubscribed node (CI: three ranks on two cores) would
 * otherwise decide the rate. A 90th percentile failed exactly there: both fast ranks were rated by
 * one slice.
 */
static double pace_of(double *t, int n)
{
    double sum = 0;
    int kept = 0;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    for (int i = 0; i < n && t[i] <= SK_CALIB_OUTLIER * median; i++, kept++) sum += t[i];
    return kept ? sum / kept : median;
}

/*
 * Times passes one by one (after one untimed) until SK_CALIB_TIME has passed and at least
 * SK_CALIB_MIN were timed, and rates the rank by pace_of() those times. One pass at a time is
 * how the loop runs (it waits for the border every iteration). pass(r, k, arg) queues pass k;
 * both queues are waited for. Device errors are in r->rc (SK_DEV), returned and cleared.
 */
int sk_calib_pace(sk_run *r, void (*pass)(sk_run *r, long k, void *arg), void *arg, double *pace)
{
    const sb_ops *o = r->dev.ops;
    double total = 0, t[SK_CALIB_MAX_IT];
    int n = 0;
    for (long k = 0; !r->rc && k <= SK_CALIB_MAX_IT; k++) {
        double t0 = MPI_Wtime();
        pass(r, k, arg);
        SK_DEV(r, o->wait(&r->dev, SB_QBORDER));
        SK_DEV(r, o->wait(&r->dev, SB_QINNER));
        if (k == 0) continue; /* warm-up: first launches, first touches */
        t[n] = MPI_Wtime() - t0;
        total += t[n++];
        if (total >= SK_CALIB_TIME && n >= SK_CALIB_MIN) break;
    }
    int rc = r->rc;
    r->rc = 0; /* the loop's error slot (SK_DEV), free again for the run itself */
    *pace = rc ? 0 : pace_of(t, n);
    return rc;
}

static void stencil_pass(sk_run *r, long k, void *arg)
{
    (void)arg;
    sk_local_pass(r, k); /* rated as the loop will run: T steps per pass */
}

static int measure(sk_run *r, double *rate)
{
    sl_box b = sl_local_box(&r->loc, &r->loc.update);
    double cells = (double)sl_box_volume(&b), pace = 0;
    int rc = fill(r);
    if (!rc) rc = sk_calib_pace(r, stencil_pass, NULL, &pace);
    r->pass_steps = 0;
    if (rc) return err_set(r->msg, sizeof r->msg, rc, "calibration: %s", r->dev.err);
    *rate = pace > 0 && cells > 0 ? cells * r->steps / pace : 0;
    r->rate = *rate; /* the automatic T's model (steps.c) uses it on the next set-up */
    return 0;
}

/* Times this rank on the partition of r->weights (NULL: equal shares). */
static int calibrate(sk_run *r, const long *sizes, void *named, double *rate)
{
    *rate = 0;
    int rc = sk_prepare(r, sizes, named);
    if (!rc) rc = err_agree(r->comm, measure(r, rate), r->msg, sizeof r->msg);
    sk_release(r);
    return rc;
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
    return r->rank == 0 && (r->opt.progress > 0 || r->env.verbose);
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
    const char *env = r->env.calibration_rounds;
    int rc = 0, mine = 0;
    if (env && *env) {
        char *end;
        errno = 0;
        long v = strtol(env, &end, 10);
        if (errno || *end || v < 1 || v > SK_CALIB_MAX)
            rc = err_set(r->msg, sizeof r->msg, STENCIL_EINVAL,
                         "STENCIL_CALIBRATION_ROUNDS=%s is not 1..%d", env, SK_CALIB_MAX);
        else
            mine = (int)v;
    }
    if ((rc = err_agree(r->comm, rc, r->msg, sizeof r->msg))) return rc;
    if (MPI_Allreduce(&mine, rounds, 1, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS)
        return err_set(r->msg, sizeof r->msg, STENCIL_EMPI, "MPI_Allreduce failed (calibration)");
    if (*rounds == 0) *rounds = SK_CALIB_ROUNDS;
    return 0;
}

/*
 * The calibration rounds (see the top of the file): on return r->weights holds the last round's
 * rates of all ranks and r->stats.calib_rounds the number of rounds.
 */
static int calibrate_rounds(sk_run *r, const long *sizes, sk_rate_fn rate, void *arg)
{
    int n = r->size, most = 0, rc = max_rounds(r, &most);
    double *prev = NULL, *w = r->weights;
    for (int k = 1; !rc && k <= most; k++) {
        double mine = 0;
        r->weights = prev; /* the partition this round is timed on */
        rc = rate(r, sizes, arg, &mine);
        r->weights = w;
        if (!rc && MPI_Allgather(&mine, 1, MPI_DOUBLE, w, 1, MPI_DOUBLE, r->comm) != MPI_SUCCESS)
            rc = err_set(r->msg, sizeof r->msg, STENCIL_EMPI, "MPI_Allgather failed (calibration)");
        if ((rc = err_agree(r->comm, rc, r->msg, sizeof r->msg))) break;
        fix_zero_rates(w, n);
        r->stats.calib_rounds = k;
        double change = sl_share_change(prev, w, n);
        if (verbose(r)) {
            fprintf(stderr, "stencil: calibration round %d on %s shares, share change %.1f%%:", k,
                    prev ? "weighted" : "equal", 100 * change);
            print_weights(w, n);
        }
        if (change <= SK_CALIB_CHANGE || k == most) break;
        if (!prev && !(prev = malloc(sizeof *prev * (size_t)n)))
            rc = err_set(r->msg, sizeof r->msg, STENCIL_ENOMEM, "no memory for %d weights", n);
        rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
        if (!rc) memcpy(prev, w, sizeof *prev * (size_t)n);
    }
    free(prev);
    return rc;
}

int sk_weights(sk_run *r, const long *sizes, const stencil_kernel *named)
{
    return sk_weights_by(r, sizes, calibrate, (void *)named);
}

int sk_weights_by(sk_run *r, const long *sizes, sk_rate_fn rate, void *arg)
{
    int any_auto = 0, rc = 0;
    double mine = r->cfg.weight;
    r->stats.calib_rounds = 0;
    r->weights = malloc(sizeof *r->weights * (size_t)r->size);
    if (!r->weights)
        rc = err_set(r->msg, sizeof r->msg, STENCIL_ENOMEM, "no memory for %d weights", r->size);
    if ((rc = err_agree(r->comm, rc, r->msg, sizeof r->msg))) return rc;
    if (r->opt.rank_weights && !r->opt.weights_auto) {
        memcpy(r->weights, r->opt.rank_weights, sizeof *r->weights * (size_t)r->size);
        return 0;
    }
    MPI_Allreduce(&r->cfg.weight_auto, &any_auto, 1, MPI_INT, MPI_MAX, r->comm);
    if (any_auto) {
        r->measured = 1;
        if ((rc = calibrate_rounds(r, sizes, rate, arg))) return rc;
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

int sk_partition_weighted(sk_run *r, int ndims, const long *g, const int *pgrid, const int *minpart,
                          int periodic)
{
    int rc = sl_partition_make(&r->part, ndims, g, pgrid, r->weights, minpart, periodic, r->msg,
                               sizeof r->msg);
    if (rc != STENCIL_EPARTITION || !r->weights || !r->measured) return rc;
    double mean = 0;
    for (int i = 0; i < r->size; i++) mean += r->weights[i] / r->size;
    for (double a = 0.125; rc == STENCIL_EPARTITION && a <= 1.0; a *= 2) {
        for (int i = 0; i < r->size; i++) r->weights[i] += a * (mean - r->weights[i]);
        sl_partition_free(&r->part);
        rc = sl_partition_make(&r->part, ndims, g, pgrid, r->weights, minpart, periodic, r->msg,
                               sizeof r->msg);
    }
    if (!rc && verbose(r)) {
        fprintf(stderr, "stencil: calibrated weights moved towards their mean to fit the grid:");
        print_weights(r->weights, r->size);
    }
    return rc;
}
