/*
 * GPU backend, programs: k steps in one launch (sb_ops.prog_fuse_depth, prog_update_k; the
 * proposal of backend.h, which the skeleton does not call yet). The fused 2D kernel of kgt
 * (kgt_prog_emit_gpu_fused, tiles of kgt_prog_fuse_plan) is compiled for a depth on its first
 * use, through the process-wide cache of rtc.cuh, and launched with its args struct by value.
 * 2D programs whose local arrays take int indices only; elsewhere the depth is 0.
 */
#ifndef SB_GPU_PROG_FUSE_CUH
#define SB_GPU_PROG_FUSE_CUH

#include "prog.cuh"

namespace SB_GPU_NS
{

/* kgt_prog_fuse_args_f / _d (kgt/prog_fuse.c): the same members in the same order. */
template <typename T> struct prog_fuse_args {
    const T *in[KGT_PROG_MAX_FIELDS], *prev[KGT_PROG_MAX_FIELDS];
    T *out[KGT_PROG_MAX_FIELDS], *pout[KGT_PROG_MAX_FIELDS];
    long origin[2], t;
    int stride, n[2];
    int u[2];
    int box[KGT_PROG_FUSE_MAX][KGT_PROG_MAX_FIELDS][2][2];
    T par[KGT_PROG_MAX_PARAMS];
};

/* sb_ops.prog_fuse_depth: the most steps a launch takes for the opened program. */
int gpu_prog_fuse_depth(sb_dev *dev)
{
    impl *im = im_of(dev);
    kgt_prog_fuse fz;
    if (!im->kprog || im->kprog->ndims != 2 || !im->pnarrow) return 0;
    for (int k = KGT_PROG_FUSE_MAX; k >= 2; k--)
        if (!kgt_prog_fuse_plan(im->kprog, im->type == STENCIL_DOUBLE, k, &fz)) return k;
    return 0;
}

/* The kernel of k steps, compiled and loaded on first use. */
static int fuse_bind(sb_dev *dev, impl *im, int k)
{
    const kgt_prog *p = im->kprog;
    int dbl = im->type == STENCIL_DOUBLE;
    char name[96];
    kgt_buf b;
    if (im->ffn[k]) return 0;
    if (kgt_prog_fuse_plan(p, dbl, k, &im->fz[k]))
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": program '%s' has no %d-step kernel",
                       p->name, k);
    memset(&b, 0, sizeof b);
    kgt_emit_rn_helpers(&b);
    kgt_prog_emit_gpu_fused(&b, p, "sb_prog", dbl, &im->fz[k]);
    snprintf(name, sizeof name, "sb_prog_%s_fuse_k%c", p->name, dbl ? 'd' : 'f');
    return compile_load(dev, im, &b, name, &im->fmod[k], &im->ffn[k]);
}

template <typename T>
static int fuse_launch(sb_dev *dev, impl *im, gpuStream_t q, const sb_prog_steps *s)
{
    const kgt_prog *p = im->kprog;
    const int k = s->k;
    prog_fuse_args<T> a;
    long u[2] = {0, 0}, v[2] = {0, 0};
    int any = 0;
    memset(&a, 0, sizeof a);
    for (int f = 0; f < p->nf; f++) {
        a.in[f] = (const T *)s->in[f];
        a.prev[f] = (const T *)s->prev[f];
        a.out[f] = p->f[f].coef ? NULL : (T *)s->out[f];
        a.pout[f] = p->f[f].keeps ? (T *)s->pout[f] : NULL;
        if (p->f[f].coef) continue;
        for (int j = 0; j < k; j++)
            for (int d = 0; d < 2; d++) {
                int empty = sl_box_empty(&s->box[j][f]);
                a.box[j][f][d][0] = (int)s->box[j][f].lo[d];
                a.box[j][f][d][1] = (int)(empty ? s->box[j][f].lo[d] : s->box[j][f].hi[d]);
            }
        if (sl_box_empty(&s->box[k - 1][f])) continue;
        for (int d = 0; d < 2; d++) {
            if (!any || s->box[k - 1][f].lo[d] < u[d]) u[d] = s->box[k - 1][f].lo[d];
            if (!any || s->box[k - 1][f].hi[d] > v[d]) v[d] = s->box[k - 1][f].hi[d];
        }
        any = 1;
    }
    if (!any) return 0;
    for (int d = 0; d < 2; d++) {
        a.origin[d] = im->origin[d];
        a.n[d] = (int)im->pn[d];
        a.u[d] = (int)u[d];
    }
    a.t = s->t;
    a.stride = (int)im->stride[0];
    for (int i = 0; i < p->npar; i++) a.par[i] = (T)(s->par ? s->par[i] : p->par[i].value);
    long n[2] = {v[0] - u[0], v[1] - u[1]};
    unsigned grid[3];
    kgt_prog_fuse_grid(&im->fz[k], n, grid);
    void *args[1] = {(void *)&a};
    unsigned block[3] = {(unsigned)im->fz[k].nt, 1, 1};
    return launch_rtc(dev, im->ffn[k], grid, block, args, q, "fused program kernel launch");
}

/* sb_ops.prog_update_k. External linkage, as gpu_prog_update. */
int gpu_prog_update_k(sb_dev *dev, int q, const sb_prog_steps *s)
{
    impl *im = im_of(dev);
    int rc = prog_ready(dev, q);
    if (rc) return rc;
    if (s->k < 1 || s->k > gpu_prog_fuse_depth(dev))
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": %d steps a launch: at most %d", s->k,
                       gpu_prog_fuse_depth(dev));
    rc = fuse_bind(dev, im, s->k);
    if (rc) return rc;
    return im->type == STENCIL_DOUBLE ? fuse_launch<double>(dev, im, im->q[q], s)
                                      : fuse_launch<float>(dev, im, im->q[q], s);
}

} /* namespace SB_GPU_NS */

#endif
