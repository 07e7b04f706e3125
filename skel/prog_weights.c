/*
 * Automatic weights (options.weights_auto, weight=auto in the configuration file) for program
 * runs: weights.c's rounds, each timing the program on that round's partition. A round sets up
 * a private run of the program (its own set-up: partition, device, kernel, levels, every field
 * filled with 0.5) and times its local steps alone, every evolving field updated over its whole
 * box without messages, so that a rank is rated by its own device and not by the neighbours it
 * would wait for. Rates are grid cells per second: the partition shares grid cells, whatever
 * the number of fields.
 */
#include <stdlib.h>
#include <string.h>

#include "skprog.h"

typedef struct prog_calib {
    const char *text;
    stencil_type type;
    int linear;
} prog_calib;

/* Ordinary numbers for the timing, as the stencil's calibration uses. */
static int half(stencil_tile *t, void *user)
{
    (void)user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long e = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[e] = 0.5;
                else
                    ((float *)t->data)[e] = 0.5f;
            }
    return 0;
}

/* One step of every evolving field over its whole box, cur into nxt: no messages, and no
   rotation (the timing needs none). */
static void local_step(sk_run *r, long k, void *arg)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    sb_prog_step s;
    (void)arg;
    memset(&s, 0, sizeof s);
    for (int f = 0; f < p->nf; f++) {
        s.in[f] = sp->cur[f];
        s.prev[f] = p->f[f].keeps ? sp->prv[f] : NULL;
        s.out[f] = p->f[f].coef ? NULL : sp->nxt[f];
        s.box[f] = sl_local_box(&r->loc, &sp->box[f]);
    }
    s.t = k;
    s.par = sp->par;
    SK_DEV(r, sk_prog_update(r, SB_QBORDER, &s));
}

/* As for a stencil (README, "Grids larger than device memory"): a rank out of core would time
   its transfers, not its device's rate. */
static int in_core(sk_run *q)
{
    int mine = q->prog->ooc != NULL, any = 0;
    if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, q->comm) != MPI_SUCCESS)
        return SK_FAIL(q, STENCIL_EMPI, "MPI_Allreduce failed (calibration)");
    if (mine)
        return SK_FAIL(q, STENCIL_EINVAL,
                       "weights_auto is not available out of core: give the weights");
    return any ? SK_FAIL(q, STENCIL_EINVAL, "another rank runs out of core") : 0;
}

/* The options of a round's run: the round's weights, nothing periodic, nothing printed. */
static void round_options(stencil_options *o, const double *w)
{
    o->rank_weights = w;
    o->weights_auto = 0;
    o->stats = NULL;
    o->on_error = NULL;
    o->quiet = 1;
    o->progress = 0;
    o->trace = "";
    o->monitor = NULL;
    o->monitor_every = 0;
    o->checkpoint = NULL;
    o->checkpoint_every = 0;
    o->restart = 0;
}

static int prog_rate(sk_run *r, const long *sizes, void *arg, double *rate)
{
    const prog_calib *c = arg;
    stencil_options o = r->opt;
    double *ones = r->weights ? NULL : malloc(sizeof *ones * (size_t)r->size), pace = 0;
    sk_run *q = NULL;
    int rc = r->weights || ones ? 0 : SK_FAIL(r, STENCIL_ENOMEM, "no memory for weights");
    *rate = 0;
    for (int i = 0; ones && i < r->size; i++) ones[i] = 1.0; /* round 1: equal shares */
    if ((rc = err_agree(r->comm, rc, r->msg, sizeof r->msg))) return rc;
    round_options(&o, r->weights ? r->weights : ones);
    rc = sk_new(r->comm, &o, &q);
    if (rc) SK_FAIL(r, rc, "calibration: cannot start a run");
    if (q) q->measured = 1; /* the last round's rates: they may move to fit, as the run's do */
    if ((rc = err_agree(r->comm, rc, r->msg, sizeof r->msg))) return free(ones), rc;
    rc = sk_prog_setup(q, sizes, c->text, r->prog->par, c->type, half, c->linear);
    SK_PHASE(q, rc, in_core(q));
    if (!rc) {
        int e = sk_calib_pace(q, local_step, NULL, &pace);
        rc = err_agree(q->comm, e ? SK_FAIL(q, e, "%s", q->dev.err) : 0, q->msg, sizeof q->msg);
    }
    double cells = rc ? 0 : (double)sl_box_volume(&q->loc.owned);
    *rate = pace > 0 && cells > 0 ? cells / pace : 0;
    if (rc) SK_FAIL(r, rc, "calibration: %s", q->msg);
    sk_free(q);
    free(ones);
    return rc;
}

int sk_prog_weights(sk_run *r, const long *sizes, const char *text, stencil_type type, int linear)
{
    prog_calib c = {text, type, linear};
    return sk_weights_by(r, sizes, prog_rate, &c);
}
