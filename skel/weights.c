/*
 * Share weights: given in the options, configured per rank, or measured by a short timed run of
 * each rank's device on an equal share ("auto"). Measured weights are cells per second, so the
 * partition gives each device a share proportional to its speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skel.h"

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

/* Runs batches of doubling size until one takes long enough to time reliably. */
static int measure(sk_run *r, double *rate)
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

static int calibrate(sk_run *r, const long *sizes, const stencil_kernel *named, double *rate)
{
    *rate = 0;
    int rc = sk_prepare(r, sizes, named);
    if (!rc) rc = sk_agree(r->comm, measure(r, rate), r->msg, sizeof r->msg);
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

static void report(const sk_run *r, int measured)
{
    if (r->rank != 0 || !(r->opt.progress > 0 || getenv("STENCIL_VERBOSE"))) return;
    fprintf(stderr, "stencil: %s weights:", measured ? "calibrated" : "configured");
    for (int i = 0; i < r->size; i++) fprintf(stderr, " %.4g", r->weights[i]);
    fprintf(stderr, "\n");
}

int sk_weights(sk_run *r, const long *sizes, const stencil_kernel *named)
{
    int any_auto = 0, rc = 0;
    double mine = r->cfg.weight;
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
        double *keep = r->weights;
        r->weights = NULL; /* calibrate on equal shares */
        rc = calibrate(r, sizes, named, &mine);
        r->weights = keep;
        if (rc) return rc;
    }
    MPI_Allgather(&mine, 1, MPI_DOUBLE, r->weights, 1, MPI_DOUBLE, r->comm);
    if (any_auto) fix_zero_rates(r->weights, r->size);
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
