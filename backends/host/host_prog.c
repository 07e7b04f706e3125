/*
 * Programs on the host: each step through kgt's interpreter of the generated host kernel
 * (kgt_prog_eval_tile), which follows the arithmetic contract of the printed kernels.
 */
#include <string.h>

#include "host.h"
#include "prog.h"

int host_prog_update(sb_dev *dev, int q, const sb_prog_step *s)
{
    host_impl *h = dev->impl;
    const kgt_prog *p = h->prog;
    kgt_prog_tile tl;
    (void)q;
    if (!p) return sb_fail(dev, STENCIL_EINVAL, "host backend: no program was opened");
    if (h->fail_at > 0 && --h->fail_at == 0)
        return sb_fail(dev, STENCIL_EDEVICE, "host backend: update failed (STENCIL_HOST_FAIL)");
    memset(&tl, 0, sizeof tl);
    for (int f = 0; f < p->nf; f++) {
        tl.in[f] = s->in[f];
        tl.prev[f] = s->prev[f];
        tl.out[f] = s->out[f];
        for (int d = 0; d < 3; d++) {
            tl.stride[f][d] = h->stride[d];
            tl.lo[f][d] = s->box[f].lo[d];
            tl.hi[f][d] = s->box[f].hi[d];
        }
        if (!p->f[f].coef && sl_box_empty(&s->box[f]))
            for (int d = 0; d < 3; d++) tl.hi[f][d] = tl.lo[f][d];
    }
    for (int d = 0; d < 3; d++) tl.origin[d] = h->origin[d];
    tl.t = s->t;
    for (int i = 0; i < p->npar; i++) tl.par[i] = s->par ? s->par[i] : p->par[i].value;
    kgt_prog_eval_tile(p, h->type == STENCIL_DOUBLE, &tl);
    return 0;
}
