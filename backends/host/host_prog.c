/*
 * Programs on the host: each step through the program's compiled host kernel (host_prog_cc.c)
 * or, where none could be compiled, kgt's interpreter of that kernel (kgt_prog_eval_tile); both
 * follow the arithmetic contract of the printed kernels, so they agree bitwise.
 */
#include <string.h>

#include "host.h"
#include "prog.h"

/* The generated kernels' kgt_prog_args_f / _d (kgt/prog_emit.c, emit_args), member for member. */
#define PROG_ARGS(T)                                                                               \
    struct {                                                                                       \
        const T *in[KGT_PROG_MAX_FIELDS];                                                          \
        const T *prev[KGT_PROG_MAX_FIELDS];                                                        \
        T *out[KGT_PROG_MAX_FIELDS];                                                               \
        long stride[KGT_PROG_MAX_FIELDS][3];                                                       \
        long lo[KGT_PROG_MAX_FIELDS][3], hi[KGT_PROG_MAX_FIELDS][3];                               \
        long origin[3];                                                                            \
        long t;                                                                                    \
        T par[KGT_PROG_MAX_PARAMS];                                                                \
    }
typedef PROG_ARGS(float) prog_args_f;
typedef PROG_ARGS(double) prog_args_d;

/* The tile as the compiled kernel's args: the same values, the parameters in type T. */
#define TILE_ARGS(a, T, tl, p)                                                                     \
    do {                                                                                           \
        for (int f = 0; f < (p)->nf; f++) {                                                        \
            (a).in[f] = (const T *)(tl)->in[f];                                                    \
            (a).prev[f] = (const T *)(tl)->prev[f];                                                \
            (a).out[f] = (T *)(tl)->out[f];                                                        \
        }                                                                                          \
        memcpy((a).stride, (tl)->stride, sizeof(a).stride);                                        \
        memcpy((a).lo, (tl)->lo, sizeof(a).lo);                                                    \
        memcpy((a).hi, (tl)->hi, sizeof(a).hi);                                                    \
        memcpy((a).origin, (tl)->origin, sizeof(a).origin);                                        \
        (a).t = (tl)->t;                                                                           \
        for (int i = 0; i < (p)->npar; i++) (a).par[i] = (T)(tl)->par[i];                          \
    } while (0)

static void run_compiled(const host_impl *h, const kgt_prog_tile *tl)
{
    if (h->type == STENCIL_DOUBLE) {
        prog_args_d a;
        memset(&a, 0, sizeof a);
        TILE_ARGS(a, double, tl, h->prog);
        h->prog_fn(&a);
    } else {
        prog_args_f a;
        memset(&a, 0, sizeof a);
        TILE_ARGS(a, float, tl, h->prog);
        h->prog_fn(&a);
    }
}

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
    for (long k = 0; k < h->repeat; k++) /* STENCIL_HOST_REPEAT: a slower device, as update's */
        if (h->prog_fn)
            run_compiled(h, &tl);
        else
            kgt_prog_eval_tile(p, h->type == STENCIL_DOUBLE, &tl);
    return 0;
}
