/* The statistics of out-of-core sweeps, and how their T was chosen. */
#include <stdio.h>

#include "ooc.h"

/*
 * The device's figures replace the host copies' in the statistics. The hidden fraction: the
 * transfers and updates of all sweeps at the probe's rates, one after the other, against the
 * time the sweeps took; the share of the transfer time that this saved.
 */
void sk_ooc_stats(sk_run *r, stencil_stats *s)
{
    sk_ooc *o = r->ooc;
    double x = r->ooc_bw > 0 ? (double)o->bytes_all / r->ooc_bw : 0;
    double c = r->ooc_rate > 0 ? o->cells_all / r->ooc_rate : 0;
    s->ooc = 1;
    s->ooc_chunks = o->nchunks;
    s->ooc_up = o->up;
    s->ooc_down = o->down;
    s->ooc_bandwidth = r->ooc_bw;
    s->ooc_rate = r->ooc_rate;
    s->ooc_hidden = 0;
    if (!o->serialized && x > 0 && o->t_sweeps > 0) {
        double hid = (x + c - o->t_sweeps) / x;
        s->ooc_hidden = hid < 0 ? 0 : hid > 1 ? 1 : hid;
    }
    s->device_bytes = o->dev.device_bytes;
    snprintf(s->backend, sizeof s->backend, "%s", o->dev.ops->name);
    snprintf(s->device, sizeof s->device, "%s", o->dev.name);
    snprintf(s->kernel, sizeof s->kernel, "%s", o->dev.kernel[0] ? o->dev.kernel : "generic");
}

/* stats.steps_why of a T from the probe. */
void sk_ooc_why(sk_run *r)
{
    snprintf(r->why, sizeof r->why, "out of core: %.3g GB/s, %.3g Gcells/s", r->ooc_bw / 1e9,
             r->ooc_rate / 1e9);
}
