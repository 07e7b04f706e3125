/*
 * GPU backend, programs (sb_open_args.prog): the program's kernel in the run's element type as
 * kgt writes it for run-time compilation (kgt_prog_emit_gpu_rtc), compiled at open by NVRTC or
 * hiprtc through the process-wide cache of rtc.cuh, and launched per step with the args struct
 * by value: over the union of the evolving fields' boxes (the kernel checks each field's own
 * box). Where indices fit in int, the kernel computes several cells a thread in the shape of
 * kgt's plan (kgt_prog_gpu_plan), its x range started at a 128-byte line so that each warp's row
 * of loads takes whole lines; otherwise one cell a thread, as kgt's ahead-of-time launchers do.
 * 2D programs whose window of rows fits the registers (kgt_prog_vec_plan) also get the
 * vector-row kernel in the same module (kgt/prog_vec.c), which each launch takes where every
 * array of the step starts on 16 bytes and the rows are whole vectors (the skeleton pads the
 * rows of program arrays so: skel/prog_setup.c).
 *
 * 2D programs also get the fused kernels of k = 1..4 steps per launch (kgt/prog_fuse.c), for
 * the skeleton's passes of T > 1 (prog_update_k), by tiles and by vector rows
 * (kgt/prog_vfuse.c), the latter where a pass's arrays allow.
 *
 * STENCIL_PROG_SHAPE="bx,by,cy" overrides the plan's shape of the one-step kernel, as
 * STENCIL_RTC_SHAPE does for stencils, and leaves the vector rows out: tests/progdev runs every
 * program in several shapes through it, and bench/run.sh progs measures shapes against the
 * default (PROG_SHAPES).
 */
#ifndef SB_GPU_PROG_CUH
#define SB_GPU_PROG_CUH

#include "state.cuh"

namespace SB_GPU_NS
{

/* The device's kgt_prog_args_f / _d (kgt/prog_emit.c, emit_args): the same members in the
   same order, so the same layout on host and device. */
template <typename T> struct prog_args {
    const T *in[KGT_PROG_MAX_FIELDS];
    const T *prev[KGT_PROG_MAX_FIELDS];
    T *out[KGT_PROG_MAX_FIELDS];
    long stride[KGT_PROG_MAX_FIELDS][3];
    long lo[KGT_PROG_MAX_FIELDS][3], hi[KGT_PROG_MAX_FIELDS][3];
    long origin[3];
    long t;
    T par[KGT_PROG_MAX_PARAMS];
};

/* Compiles (or finds) the source in b (freed here) and loads its n kernels names into mod and
   fn. */
static int compile_load(sb_dev *dev, impl *im, kgt_buf *b, const char *const *names, int n,
                        rtc_module *mod, rtc_func *fn)
{
    const char *name = names[0];
    char err[160] = "";
    double secs = 0;
    if (b->oom) {
        free(b->s);
        return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": out of host memory");
    }
    const char *bin = rtc_binary(b->s, im->arch, &secs, err, sizeof err);
    free(b->s);
    dev->t_compile += secs;
    if (!bin)
        return sb_fail(dev, STENCIL_EBUILD, SB_GPU_NAME ": program '%s' (%s) did not compile: %s",
                       im->kprog->name, name, err);
    if (rtc_load(mod, bin, names, fn, n)) {
        (void)gpuGetLastError();
        return sb_fail(dev, STENCIL_EBUILD, SB_GPU_NAME ": program '%s' (%s): module did not load",
                       im->kprog->name, name);
    }
    return 0;
}

/* The fused kernels' kgt_prog_fuse_args_f / _d (kgt/prog_fuse.c, emit_fuse_args), member for
   member: the size is checked against the members' below. */
template <typename T> struct prog_fuse_args {
    const T *in[KGT_PROG_MAX_FIELDS], *prev[KGT_PROG_MAX_FIELDS];
    T *out[KGT_PROG_MAX_FIELDS], *pout[KGT_PROG_MAX_FIELDS];
    long origin[2], t;
    int stride, n[2];
    int u[2];
    int box[KGT_PROG_FUSE_MAX][KGT_PROG_MAX_FIELDS][2][2];
    T par[KGT_PROG_MAX_PARAMS];
};
static constexpr size_t fuse_round(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}
template <typename T> static constexpr size_t fuse_args_bytes()
{
    return fuse_round(
        fuse_round(4 * KGT_PROG_MAX_FIELDS * sizeof(void *) + 3 * sizeof(long) +
                       (5 + 4 * KGT_PROG_FUSE_MAX * KGT_PROG_MAX_FIELDS) * sizeof(int),
                   sizeof(T)) +
            KGT_PROG_MAX_PARAMS * sizeof(T),
        sizeof(void *));
}
static_assert(sizeof(prog_fuse_args<float>) == fuse_args_bytes<float>(), "kgt_prog_fuse_args_f");
static_assert(sizeof(prog_fuse_args<double>) == fuse_args_bytes<double>(), "kgt_prog_fuse_args_d");

/*
 * The fused kernels of a 2D program with narrow indices, k = 1 .. KGT_PROG_FUSE_MAX, each
 * where kgt plans it; pfuse the largest k compiled. Optional: a failure leaves pfuse at what
 * compiled below it (0: the skeleton runs the steps one launch each) with a notice. Beside each
 * tile kernel, in its module, the same k steps by vector rows where kgt plans them
 * (STENCIL_PROG_VFUSE: "0" none, "v,nt,h" that shape where it fits), which a launch takes when
 * its arrays allow (fuse_launch).
 */
/* STENCIL_PROG_VFUSE: -1 "0" (none), 1 "v,nt,h" (that shape, in *want), else 0 (kgt's plan). */
static int vfuse_setting(kgt_prog_fuse *want)
{
    const char *env = getenv("STENCIL_PROG_VFUSE");
    memset(want, 0, sizeof *want);
    if (env && !strcmp(env, "0")) return -1;
    return env && *env && sscanf(env, "%d,%d,%d", &want->v, &want->nt, &want->h) == 3;
}

/* The vector-row kernel of k steps that bind_fused builds for p, in *vz; 0: none. */
static int vfuse_shape(const kgt_prog *p, int dbl, int k, kgt_prog_fuse *vz)
{
    kgt_prog_fuse want;
    int how = vfuse_setting(&want);
    if (how < 0) return 0;
    if (how == 0) return !kgt_prog_vfuse_plan(p, dbl, k, vz);
    *vz = want, vz->k = k;
    return !kgt_prog_fuse_check(p, dbl, vz);
}

/*
 * The rows a block of the short-strip variant walks. An out-of-core chunk buffer holds a few
 * hundred rows: strips of the plan's height leave a chunk's launches only a few blocks per SM,
 * and shorter strips fill the device at the cost of more window rows per strip, which makes
 * them a little slower over a whole array in core (bench/RESULTS.md, programs out of core).
 * A chunk launch takes them where it spans fewer than SB_PROG_SHORT_STRIPS strips of the plan's
 * (measured winning at 800 and 1200 rows of strips of 64, losing at 8192).
 */
#define SB_PROG_SHORT_H 16
#define SB_PROG_SHORT_STRIPS 32

static void bind_fused(sb_dev *dev, impl *im)
{
    const kgt_prog *p = im->kprog;
    int dbl = im->type == STENCIL_DOUBLE;
    im->pfuse = 0;
    if (p->ndims != 2 || !im->pnarrow) return;
    for (int k = 1; k <= KGT_PROG_FUSE_MAX; k++) {
        kgt_prog_fuse *fz = &im->pkfz[k], *vz = &im->pvkfz[k], *sz = &im->pvsfz[k];
        char err[160] = "", name[112], vname[112], sname[112];
        double secs = 0;
        kgt_buf b;
        memset(&b, 0, sizeof b);
        if (kgt_prog_fuse_plan(p, dbl, k, fz)) break; /* tiles only shrink with k: none above */
        kgt_prog_fuse forced;
        int vec = vfuse_shape(p, dbl, k, vz), shrt = 0;
        /* a shape forced (STENCIL_PROG_VFUSE) is every launch's */
        if (vec && vfuse_setting(&forced) == 0 && vz->h > SB_PROG_SHORT_H) {
            *sz = *vz, sz->h = SB_PROG_SHORT_H;
            shrt = !kgt_prog_fuse_check(p, dbl, sz);
        }
        kgt_emit_rn_helpers(&b);
        kgt_prog_emit_gpu_fused(&b, p, "sb_prog", dbl, fz);
        if (vec) kgt_prog_emit_gpu_fused(&b, p, "sb_prog", dbl, vz);
        if (shrt) kgt_prog_emit_gpu_fused(&b, p, "sb_progs", dbl, sz);
        const char *bin = b.oom ? NULL : rtc_binary(b.s, im->arch, &secs, err, sizeof err);
        free(b.s);
        dev->t_compile += secs;
        snprintf(name, sizeof name, "sb_prog_%s_fuse_k%c", p->name, dbl ? 'd' : 'f');
        snprintf(vname, sizeof vname, "sb_prog_%s_vfuse_k%c", p->name, dbl ? 'd' : 'f');
        snprintf(sname, sizeof sname, "sb_progs_%s_vfuse_k%c", p->name, dbl ? 'd' : 'f');
        const char *names[3] = {name, vname, sname};
        rtc_func fns[3] = {NULL, NULL, NULL};
        if (!bin || rtc_load(&im->pkmod[k], bin, names, fns, 1 + vec + shrt)) {
            (void)gpuGetLastError();
            im->pkfn[k] = im->pvkfn[k] = im->pvsfn[k] = NULL;
            snprintf(dev->note, sizeof dev->note,
                     SB_GPU_NAME ": program '%s': the fused kernel of %d steps did not build (%s); "
                                 "at most %d steps per launch",
                     p->name, k, err[0] ? err : "no module", im->pfuse);
            return;
        }
        im->pkfn[k] = fns[0], im->pvkfn[k] = fns[1], im->pvsfn[k] = fns[2];
        im->pfuse = k;
    }
}

/* Compiles (or finds) and loads the program's kernel. No fallback: a program has no generic
   kernel on the device, so a failed compile fails the open with the compiler's message. */
static int bind_prog(sb_dev *dev, impl *im, const sb_open_args *a)
{
    const kgt_prog *p = a->prog;
    int dbl = im->type == STENCIL_DOUBLE;
    char name[96], vname[96], oname[96];
    kgt_buf b;
    memset(&b, 0, sizeof b);
    im->kprog = p;
    for (int d = 0; d < SL_D; d++) im->origin[d] = a->origin[d];
    /* 2D: the rows, and a row's elements padding included (all inside the allocation). */
    /* One layout for every field (backend.h): narrow indices where the array allows them. */
    im->pnarrow = a->local->nelems < (size_t)INT_MAX;
    kgt_prog_gpu_plan(p, dbl, &im->pshape);
    const char *env = getenv("STENCIL_PROG_SHAPE");
    if (env && *env && im->pnarrow &&
        (kgt_prog_shape_parse(env, &im->pshape) || kgt_prog_shape_check(p, &im->pshape)))
        return sb_fail(dev, STENCIL_EINVAL,
                       SB_GPU_NAME ": STENCIL_PROG_SHAPE=%s is not a shape for program '%s' "
                                   "(bx,by,cy: bx * by <= 1024, cy <= %d, by = cy = 1 in 1D)",
                       env, p->name, KGT_PROG_MAX_CY);
    kgt_prog_emit_gpu_rtc(&b, p, "sb_prog", dbl, im->pnarrow, &im->pshape);
    /* 2D: the vector rows too, in the same module, unless a shape asks for the other kernel;
       with several evolving fields also their variant for steps where all have one box. */
    int vec = im->pnarrow && !(env && *env) && !kgt_prog_vec_plan(p, dbl, &im->pvec), nev = 0;
    for (int f = 0; f < p->nf; f++) nev += !p->f[f].coef;
    int one = vec && nev > 1;
    if (vec) kgt_prog_emit_gpu_vec(&b, p, "sb_prog", dbl, &im->pvec);
    if (one) {
        kgt_prog_vec o = im->pvec;
        o.one = 1;
        kgt_prog_emit_gpu_vec(&b, p, "sb_prog", dbl, &o);
    }
    snprintf(name, sizeof name, "sb_prog_%s_cuda_k%c", p->name, dbl ? 'd' : 'f');
    snprintf(vname, sizeof vname, "sb_prog_%s_cuda_v%c", p->name, dbl ? 'd' : 'f');
    snprintf(oname, sizeof oname, "sb_prog_%s_cuda_v1%c", p->name, dbl ? 'd' : 'f');
    const char *names[3] = {name, vname, oname};
    rtc_func fns[3] = {NULL, NULL, NULL};
    int rc = compile_load(dev, im, &b, names, 1 + vec + one, &im->pmod, fns);
    if (rc) return rc;
    im->pfn = fns[0], im->pvfn = fns[1], im->pv1fn = fns[2];
    snprintf(dev->kernel, sizeof dev->kernel, "rtc");
    bind_fused(dev, im);
    return 0;
}

/* One launch of a run-time kernel taking args, on q. */
static int launch_rtc(sb_dev *dev, rtc_func fn, const unsigned *grid, const unsigned *block,
                      void **args, gpuStream_t q, const char *what)
{
#if defined(SB_GPU_HIP)
    gpuError_t e = hipModuleLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1],
                                         block[2], 0, q, args, NULL);
#else
    gpuError_t e = cudaLaunchKernel((const void *)fn, dim3(grid[0], grid[1], grid[2]),
                                    dim3(block[0], block[1], block[2]), args, 0, q);
#endif
    return e == gpuSuccess ? 0 : rt_fail(dev, STENCIL_EDEVICE, what, e);
}

/* A program was opened, q is a queue, and the device is current: 0, or the failure. */
static int prog_ready(sb_dev *dev, int q)
{
    if (!im_of(dev)->kprog)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": no program was opened");
    if (q < 0 || q >= SB_NQUEUES)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": no queue %d", q);
    return use_device(dev);
}

/* Whether every array of the step starts on 16 bytes and the rows are whole vectors, as the
   vector-row kernel's loads and stores need (chunk buffers and odd row widths may not). */
template <typename T>
static int vec_aligned(const impl *im, const kgt_prog *p, const prog_args<T> *a)
{
    if (im->stride[0] % im->pvec.v) return 0;
    for (int f = 0; f < p->nf; f++) {
        const void *ptr[3] = {a->in[f], p->f[f].keeps ? a->prev[f] : NULL, a->out[f]};
        for (int k = 0; k < 3; k++)
            if (ptr[k] && (uintptr_t)ptr[k] % 16) return 0;
    }
    return 1;
}

template <typename T>
static int prog_launch(sb_dev *dev, impl *im, gpuStream_t q, const sb_prog_step *s)
{
    const kgt_prog *p = im->kprog;
    const int nd = p->ndims;
    prog_args<T> a;
    long u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    int any = 0, same = 1, f0 = -1; /* same: every evolving field has field f0's box */
    memset(&a, 0, sizeof a);
    for (int f = 0; f < p->nf; f++) {
        int empty = sl_box_empty(&s->box[f]);
        a.in[f] = (const T *)s->in[f];
        a.prev[f] = (const T *)s->prev[f];
        a.out[f] = p->f[f].coef ? NULL : (T *)s->out[f];
        for (int d = 0; d < 3; d++) {
            a.stride[f][d] = im->stride[d];
            a.lo[f][d] = s->box[f].lo[d];
            a.hi[f][d] = empty ? s->box[f].lo[d] : s->box[f].hi[d];
        }
        if (p->f[f].coef) continue;
        if (f0 < 0) f0 = f;
        for (int d = 0; d < nd; d++) same &= a.lo[f][d] == a.lo[f0][d] && a.hi[f][d] == a.hi[f0][d];
        if (empty) continue;
        for (int d = 0; d < nd; d++) {
            if (!any || s->box[f].lo[d] < u[d]) u[d] = s->box[f].lo[d];
            if (!any || s->box[f].hi[d] > v[d]) v[d] = s->box[f].hi[d];
        }
        any = 1;
    }
    if (!any) return 0;
    for (int d = 0; d < 3; d++) a.origin[d] = im->origin[d];
    a.origin[0] += s->base;
    a.t = s->t;
    for (int i = 0; i < p->npar; i++) a.par[i] = (T)(s->par ? s->par[i] : p->par[i].value);
    unsigned bx, by, grid[3];
    rtc_func fn = im->pfn;
    if (im->pnarrow) {
        /* Back to the start of a 128-byte line of field 0 (every field has its layout): the
           threads before the box compute nothing. */
        long line = 128 / (long)sizeof(T), at = (long)(((uintptr_t)a.in[0] / sizeof(T)) % line);
        u[nd - 1] -= (at + u[nd - 1]) % line;
    }
    if (im->pvfn && vec_aligned(im, p, &a)) {
        /* The vector rows (2D, narrow): from that line, a whole vector, over the union's rows
           u0 .. u2 - 1 (prog_vec.c); the variant of one box where every evolving field has
           the same one (then the union). */
        long n[3] = {v[0] - u[0], v[1] - u[1], 1};
        kgt_prog_vec_grid(&im->pvec, n, grid);
        u[2] = v[0];
        bx = (unsigned)im->pvec.bx, by = 1, fn = im->pvfn;
        if (im->pv1fn && same) fn = im->pv1fn;
    } else if (im->pnarrow) {
        long n[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
        kgt_prog_gpu_grid(nd, &im->pshape, n, grid);
        bx = (unsigned)im->pshape.bx, by = (unsigned)im->pshape.by;
    } else {
        kgt_prog_gpu_block(nd, &bx, &by);
        grid[0] = (unsigned)((v[nd - 1] - u[nd - 1] + bx - 1) / bx);
        grid[1] = nd > 1 ? (unsigned)((v[nd - 2] - u[nd - 2] + by - 1) / by) : 1;
        grid[2] = nd > 2 ? (unsigned)(v[0] - u[0]) : 1;
    }
    void *args[4] = {(void *)&a, (void *)&u[0], (void *)&u[1], (void *)&u[2]};
    unsigned block[3] = {bx, by, 1};
    return launch_rtc(dev, fn, grid, block, args, q, "program kernel launch");
}

/* sb_ops.prog_update. External linkage, as gpu_norm: HIP's device pass drops the ops table. */
int gpu_prog_update(sb_dev *dev, int q, const sb_prog_step *s)
{
    impl *im = im_of(dev);
    int rc = prog_ready(dev, q);
    if (rc) return rc;
    return im->type == STENCIL_DOUBLE ? prog_launch<double>(dev, im, im->q[q], s)
                                      : prog_launch<float>(dev, im, im->q[q], s);
}

/* sb_ops.prog_fuse_depth */
int gpu_prog_fuse_depth(sb_dev *dev)
{
    impl *im = im_of(dev);
    return im && im->kprog ? im->pfuse : 0;
}

/*
 * sb_ops.prog_auto_steps: 4 where a pass of four steps in one fused launch is known to win (the
 * measured cases, bench/RESULTS.md): 2D float programs whose four steps run by vector rows (a
 * launch takes them where rows are whole vectors, as the skeleton pads program rows unless
 * STENCIL_ROW_ALIGN says otherwise), or, by tiles, those whose evolving fields keep no previous
 * level and which read no coefficient field (Gray-Scott gained by tiles, the wave equation lost).
 * Others stay at 1 until measured.
 */
int gpu_prog_auto_steps(const kgt_prog *p, int type, int row_align)
{
    kgt_prog_fuse vz;
    if (p->ndims != 2 || type != STENCIL_FLOAT) return 1;
    if (vfuse_shape(p, 0, 4, &vz) && row_align % vz.v == 0) return 4;
    for (int f = 0; f < p->nf; f++)
        if (p->f[f].coef || p->f[f].keeps) return 1;
    return 4;
}

/* The fused launch of s->k steps: tiles over the union of the last step's boxes. */
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
        for (int j = 0; j < k; j++)
            for (int d = 0; d < 2; d++) {
                a.box[j][f][d][0] = (int)s->box[j][f].lo[d];
                a.box[j][f][d][1] = (int)s->box[j][f].hi[d];
            }
        const sl_box *l = &s->box[k - 1][f];
        if (p->f[f].coef || sl_box_empty(l)) continue;
        for (int d = 0; d < 2; d++) {
            if (!any || l->lo[d] < u[d]) u[d] = l->lo[d];
            if (!any || l->hi[d] > v[d]) v[d] = l->hi[d];
        }
        any = 1;
    }
    if (!any) return 0;
    a.origin[0] = im->origin[0] + s->base, a.origin[1] = im->origin[1], a.t = s->t;
    a.stride = (int)im->stride[0];
    a.n[0] = (int)(s->rows > 0 ? (size_t)s->rows : im->nelems / (size_t)im->stride[0]);
    a.n[1] = (int)im->stride[0];
    a.u[0] = (int)u[0], a.u[1] = (int)u[1];
    for (int i = 0; i < p->npar; i++) a.par[i] = (T)(s->par ? s->par[i] : p->par[i].value);
    /* The vector rows where every array starts on a whole vector and rows are whole vectors;
       in chunk buffers (s->rows) by short strips where built. */
    const kgt_prog_fuse *fz = &im->pkfz[k];
    rtc_func fn = im->pkfn[k];
    if (im->pvkfn[k]) {
        const size_t vb = (size_t)im->pvkfz[k].v * sizeof(T);
        uintptr_t m = (uintptr_t)(im->stride[0] * sizeof(T));
        for (int f = 0; f < p->nf; f++)
            m |= (uintptr_t)a.in[f] | (uintptr_t)a.prev[f] | (uintptr_t)a.out[f] |
                 (uintptr_t)a.pout[f];
        if (m % vb == 0 && s->rows > 0 && im->pvsfn[k] &&
            v[0] - u[0] < (long)SB_PROG_SHORT_STRIPS * im->pvkfz[k].h)
            fz = &im->pvsfz[k], fn = im->pvsfn[k];
        else if (m % vb == 0)
            fz = &im->pvkfz[k], fn = im->pvkfn[k];
    }
    long n[2] = {v[0] - u[0], v[1] - u[1]};
    unsigned grid[3];
    kgt_prog_fuse_grid(p, fz, n, grid);
    void *args[1] = {(void *)&a};
#if defined(SB_GPU_HIP)
    gpuError_t e = hipModuleLaunchKernel(fn, grid[0], grid[1], grid[2], (unsigned)fz->nt, 1, 1, 0,
                                         q, args, NULL);
#else
    gpuError_t e = cudaLaunchKernel((const void *)fn, dim3(grid[0], grid[1], grid[2]),
                                    dim3((unsigned)fz->nt, 1, 1), args, 0, q);
#endif
    return e == gpuSuccess ? 0 : rt_fail(dev, STENCIL_EDEVICE, "fused program kernel launch", e);
}

/* sb_ops.prog_update_k: k up to pfuse; a k without its kernel (a plan that failed below pfuse
   does not happen: bind_fused stops at the first failure) is refused. */
int gpu_prog_update_k(sb_dev *dev, int q, const sb_prog_steps *s)
{
    impl *im = im_of(dev);
    if (!im->kprog) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": no program was opened");
    if (q < 0 || q >= SB_NQUEUES)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": no queue %d", q);
    if (s->k < 1 || s->k > im->pfuse || !im->pkfn[s->k])
        return sb_fail(dev, STENCIL_ENOSYS, SB_GPU_NAME ": no fused kernel of %d steps", s->k);
    int rc = use_device(dev);
    if (rc) return rc;
    return im->type == STENCIL_DOUBLE ? fuse_launch<double>(dev, im, im->q[q], s)
                                      : fuse_launch<float>(dev, im, im->q[q], s);
}

} /* namespace SB_GPU_NS */

#endif
