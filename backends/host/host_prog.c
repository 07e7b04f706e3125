/*
 * Programs on the host: each step through the program's compiled host kernel (host_prog_cc.c)
 * or, where none could be compiled, kgt's interpreter of that kernel (kgt_prog_eval_tile); both
 * follow the arithmetic contract of the printed kernels, so they agree bitwise.
 */
#include <stdlib.h>
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
    tl.origin[0] += s->base;
    tl.t = s->t;
    for (int i = 0; i < p->npar; i++) tl.par[i] = s->par ? s->par[i] : p->par[i].value;
    for (long k = 0; k < h->repeat; k++) /* STENCIL_HOST_REPEAT: a slower device, as update's */
        if (h->prog_fn)
            run_compiled(h, &tl);
        else
            kgt_prog_eval_tile(p, h->type == STENCIL_DOUBLE, &tl);
    return 0;
}

/* Box b (local indices) of src into dst, both local arrays of h's layout. */
static void box_move(const host_impl *h, char *dst, const char *src, const sl_box *b, size_t es)
{
    if (sl_box_empty(b)) return;
    size_t row = (size_t)(b->hi[SL_D - 1] - b->lo[SL_D - 1]) * es;
    for (long i = b->lo[0]; i < b->hi[0]; i++)
        for (long j = b->lo[1]; j < b->hi[1]; j++) {
            size_t at = (size_t)(i * h->stride[0] + j * h->stride[1] + b->lo[2] * h->stride[2]);
            memcpy(dst + at * es, src + at * es, row);
        }
}

int host_prog_fuse_depth(sb_dev *dev)
{
    host_impl *h = dev->impl;
    return h->prog ? SB_PROG_FUSE_MAX : 0;
}

/*
 * sb_ops.prog_update_k as the fused GPU kernel computes it (kgt/prog_fuse.c), by one-step
 * updates through scratch levels of the whole local array: level j + 1 starts as a copy of
 * level j (a cell outside a step's box carries the level before), and only the last step's
 * boxes reach out[] and pout[]. Host memory being the device's, this is what CI checks the
 * skeleton's fused path with.
 */
int host_prog_update_k(sb_dev *dev, int q, const sb_prog_steps *s)
{
    host_impl *h = dev->impl;
    const kgt_prog *p = h->prog;
    if (!p) return sb_fail(dev, STENCIL_EINVAL, "host backend: no program was opened");
    size_t es = sb_elem_size(h->type);
    size_t n = (s->rows > 0 ? (size_t)s->rows * (size_t)h->stride[0] : h->nelems) * es;
    if (s->k < 1 || s->k > SB_PROG_FUSE_MAX)
        return sb_fail(dev, STENCIL_EINVAL, "host backend: %d fused steps", s->k);
    for (int f = 0; f < p->nf; f++)
        for (int g = 0; g < p->nf && !p->f[f].coef; g++)
            if (s->out[f] == s->in[g] || s->out[f] == s->prev[g] ||
                (s->pout[f] && (s->pout[f] == s->in[g] || s->pout[f] == s->prev[g])))
                return sb_fail(dev, STENCIL_EINVAL, "host backend: fused output aliases input");
    char *lv = malloc(3 * n * (size_t)p->nf);
    if (!lv) return sb_fail(dev, STENCIL_ENOMEM, "host backend: out of memory");
    char *cur[KGT_PROG_MAX_FIELDS], *prv[KGT_PROG_MAX_FIELDS], *nxt[KGT_PROG_MAX_FIELDS];
    for (int f = 0; f < p->nf; f++) {
        cur[f] = lv + 3 * n * (size_t)f, prv[f] = cur[f] + n, nxt[f] = prv[f] + n;
        if (p->f[f].coef) continue;
        memcpy(cur[f], s->in[f], n);
        if (p->f[f].keeps) memcpy(prv[f], s->prev[f], n);
    }
    int rc = 0;
    for (int j = 0; j < s->k && !rc; j++) {
        sb_prog_step st;
        memset(&st, 0, sizeof st);
        for (int f = 0; f < p->nf; f++) {
            st.in[f] = p->f[f].coef ? s->in[f] : cur[f];
            st.prev[f] = p->f[f].keeps ? prv[f] : NULL;
            st.box[f] = s->box[j][f];
            if (p->f[f].coef) continue;
            memcpy(nxt[f], cur[f], n);
            st.out[f] = nxt[f];
        }
        st.t = s->t + j;
        st.base = s->base;
        st.par = s->par;
        rc = host_prog_update(dev, q, &st);
        for (int f = 0; f < p->nf; f++) {
            if (p->f[f].coef) continue;
            char *c = cur[f];
            cur[f] = nxt[f];
            nxt[f] = p->f[f].keeps ? prv[f] : c;
            if (p->f[f].keeps) prv[f] = c;
        }
    }
    for (int f = 0; f < p->nf && !rc; f++) {
        if (p->f[f].coef) continue;
        box_move(h, s->out[f], cur[f], &s->box[s->k - 1][f], es);
        if (p->f[f].keeps && s->pout[f]) box_move(h, s->pout[f], prv[f], &s->box[s->k - 1][f], es);
    }
    free(lv);
    return rc;
}
