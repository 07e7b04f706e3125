/*
 * stencil_skeleton(), the one-call API: set-up (setup.c), the loop to each monitor and
 * checkpoint point (run.c), the output, the statistics.
 */
#include <string.h>

#include "skprog.h"

/* The monitor sees the tile and the last step's change; 1 from any rank stops every rank. */
static int sk_monitor(sk_run *r, const stencil_norm *change, int *stop)
{
    stencil_tile t;
    int rc = 0, mine = 0;
    SK_PHASE(r, rc, sk_current(r, &t, r->opt.monitor_data));
    if (rc) return rc;
    rc = sk_monitor_call(r, &t, change, &mine); /* before mine is read */
    return sk_monitor_stop(r, rc, mine, stop);
}

static long sk_next_stop(long done, long every, long next)
{
    if (every <= 0) return next;
    long at = (done / every + 1) * every;
    return at < next ? at : next;
}

/* The loop of stencil_skeleton(): advances to each monitor or checkpoint point, then the goal. */
static int sk_periodic(sk_run *r, long total)
{
    long me = r->opt.monitor ? r->opt.monitor_every : 0;
    long ce = r->opt.checkpoint ? r->opt.checkpoint_every : 0;
    int rc = 0, stop = 0, saved = 1;
    while (!rc && !stop && r->done < total) {
        long next = sk_next_stop(r->done, ce, sk_next_stop(r->done, me, total));
        int mon = me > 0 && next % me == 0;
        stencil_norm change[SB_PROG_FIELDS]; /* a program's: one per field */
        if (r->prog)
            rc = sk_advance_prog(r, next - r->done, mon ? change : NULL, SB_PROG_FIELDS);
        else
            rc = sk_advance(r, next - r->done, mon ? change : NULL);
        if (!rc && mon) { /* an output too: timed, for the statistics and the time left */
            double t = MPI_Wtime();
            rc = r->prog ? sk_prog_monitor(r, change, &stop) : sk_monitor(r, change, &stop);
            r->stats.t_output += MPI_Wtime() - t;
            r->nout++;
        }
        saved = ce > 0 && next % ce == 0;
        if (!rc && saved) rc = sk_checkpoint(r, r->opt.checkpoint);
    }
    /* The end (or a stop) gets its checkpoint too, unless one was just written. */
    if (!rc && ce > 0 && !saved) rc = sk_checkpoint(r, r->opt.checkpoint);
    return rc;
}

int sk_skeleton_finish(sk_run *r, int rc, long iterations, stencil_output_fn output)
{
    r->out_end = output != NULL;
    if (!rc) rc = sk_periodic(r, iterations);
    r->out_end = 0;
    if (!rc && output) rc = sk_view(r, output);
    if (!rc) sk_stats(r, r->t0, r->t_up);
    sk_report(r, rc);
    if (!rc && r->opt.stats) *r->opt.stats = r->stats;
    sk_free(r);
    return rc;
}

int stencil_skeleton(MPI_Comm comm, const long *sizes, const stencil_desc *st, long iterations,
                     const char *kernel, stencil_init_fn init, stencil_output_fn output,
                     const stencil_options *opt)
{
    sk_run *r;
    if (opt && opt->stats) memset(opt->stats, 0, sizeof *opt->stats);
    int rc = sk_new(comm, opt, &r);
    if (rc) return rc;
    r->iters = r->goal = iterations;
    return sk_skeleton_finish(r, sk_setup(r, sizes, st, kernel, init), iterations, output);
}
