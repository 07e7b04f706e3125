/*
 * GPU backend, kernel set-up at open: a named kernel's launchers, or the generic kernel's
 * points, divisor and launch shape, and the run-time kernel compiled for the stencil (rtc.cuh).
 */
#ifndef SB_GPU_BIND_CUH
#define SB_GPU_BIND_CUH

#include "prog.cuh"
#include "state.cuh"

namespace SB_GPU_NS
{

/* ---------------------------------------------------------------- generic kernel setup */

/* 1 when d is a power of two whose reciprocal is exact in T (then x / d == x * (1 / d)). */
template <typename T> static int exact_recip(T d)
{
    int ex;
    if (!isfinite(d) || d == 0 || fabs(frexp((double)d, &ex)) != 0.5) return 0;
    T r = T(1) / d;
    return isfinite(r) && r != 0 && (double)r * (double)d == 1.0;
}

/* The divisor as the kernels apply it: its exact reciprocal (*recip = 1) or itself. */
template <typename T> static T kernel_divisor(double divisor, int *recip)
{
    T d = (T)divisor;
    *recip = exact_recip(d);
    return *recip ? T(1) / d : d;
}

template <typename T> static void fill_points(pts_param<T> *P, const sl_stencil *st, const int *lin)
{
    P->n = st->npts;
    P->div = kernel_divisor<T>(st->divisor, &P->recip);
    for (int p = 0; p < st->npts && p < SB_GPU_MAXP; p++) {
        P->off[p] = lin[p];
        P->w[p] = (T)st->w[p];
    }
}

/*
 * The generic kernel's update2 takes 2D stencils of at most SB_GPU_MAXF points reaching at most
 * 2 cells: 0 when it does not, else how far the points reach (1 or 2).
 */
static int generic_fuse_reach(const sl_stencil *st)
{
    int r = 0;
    if (st->ndims != 2 || st->npts > SB_GPU_MAXF) return 0;
    for (int d = 0; d < 2; d++) {
        r = st->rlo[d] > r ? st->rlo[d] : r;
        r = st->rhi[d] > r ? st->rhi[d] : r;
    }
    return r <= 2 ? (r > 0 ? r : 1) : 0;
}

/* lin: the points' linear offsets in the array, as bind_generic checked them. */
template <typename T>
static void fill_fused(fused_param<T> *F, const sl_stencil *st, const int *lin, long s0,
                       size_t nelems, int reach)
{
    memset(F, 0, sizeof *F);
    F->n = st->npts;
    F->div = kernel_divisor<T>(st->divisor, &F->recip);
    F->ly = st->rlo[0], F->hy = st->rhi[0], F->lx = st->rlo[1], F->hx = st->rhi[1];
    F->s0 = s0;
    F->n0 = (long long)nelems / s0;
    for (int p = 0; p < st->npts; p++) {
        F->goff[p] = lin[p];
        F->soff[p] = st->off[p][0] * (SB_FX + 2 * reach) + st->off[p][1];
        F->w[p] = (T)st->w[p];
    }
}

/* Points beyond a parameter block's room go to device memory. */
static int upload_points(sb_dev *dev, impl *im, const sl_stencil *st, const int *lin)
{
    size_t n = (size_t)st->npts;
    GPU_TRY(dev, gpuMalloc(&im->goff, n * sizeof(int)));
    GPU_TRY(dev, gpuMalloc(&im->gw, n * im->esz));
    GPU_TRY(dev, gpuMemcpy(im->goff, lin, n * sizeof(int), gpuMemcpyHostToDevice));
    void *w = malloc(n * im->esz);
    if (!w) return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": out of host memory");
    for (size_t p = 0; p < n; p++) {
        if (im->type == STENCIL_DOUBLE)
            ((double *)w)[p] = st->w[p];
        else
            ((float *)w)[p] = (float)st->w[p];
    }
    gpuError_t e = gpuMemcpy(im->gw, w, n * im->esz, gpuMemcpyHostToDevice);
    free(w);
    if (e != gpuSuccess) return rt_fail(dev, STENCIL_EDEVICE, "gpuMemcpy(weights)", e);
    dev->device_bytes += n * (sizeof(int) + im->esz);
    return 0;
}

/*
 * Defaults per dimensionality: the best shapes measured on an H200 (docs/performance-notes.md).
 * STENCIL_GPU_TUNE="bx,by,chunk,u,spec[,al]" overrides them, for benchmarks and tests.
 */
static void default_tune(impl *im)
{
    static const tune by_dims[3] = {
        {256, 1, 1, 8, 1, 1}, {256, 1, 16, 8, 1, 1}, {128, 2, 64, 4, 1, 1}};
    im->tn = by_dims[im->ndims - 1];
    const char *env = getenv("STENCIL_GPU_TUNE");
    tune t = im->tn;
    if (env &&
        sscanf(env, "%d,%d,%d,%d,%d,%d", &t.bx, &t.by, &t.chunk, &t.u, &t.spec, &t.al) >= 5 &&
        t.bx > 0 && t.by > 0 && t.bx * t.by <= 256 && t.chunk > 0 && (t.u == 4 || t.u == 8))
        im->tn = t;
    if (im->ndims < 3) im->tn.by = 1;
}

/*
 * Several steps per launch for 2D stencils (gpu_fuse_depth promised them): the streaming
 * kernels of 2 up to the run's T steps (steps; 0: not known) or the stencil's depth, whichever
 * is less, compiled now (shorter kernels serve a last, shorter pass and out-of-core sweeps).
 * Without them update2 runs the generic two-step kernel and updatek has only two steps, with a
 * notice.
 */
static void bind_rtc_stream(sb_dev *dev, impl *im, const sl_stencil *st, int steps)
{
    char err[160];
    int depth = sb_gen_stream_depth(st);
    if (steps > 1 && steps < depth) depth = steps;
    for (int l = 2; l <= depth; l++) {
        if (rtc_build_stream(&im->rs[l], st, l, im->arch, im->sms, &dev->t_compile, err,
                             sizeof err) == 0) {
            im->use_stream = l;
            continue;
        }
        rtc_unload(&im->rs[l]);
        (void)gpuGetLastError();
        snprintf(dev->note, sizeof dev->note,
                 SB_GPU_NAME " run-time %d-step kernel not compiled (%.100s); %s", l, err,
                 l == 2 ? "the generic two-step kernel runs" : "fewer steps per launch");
        return;
    }
}

/*
 * A named kernel's multi-step kernels (kgt's table): levels 2 up to the run's T steps or the
 * table's depth, each taken only when its stamp equals that of the source this library would
 * compile (the same kernel, so the same plan fits); from the first that differs, fewer steps per
 * launch, with a notice.
 */
static void bind_named_steps(sb_dev *dev, impl *im, const sl_stencil *st,
                             const stencil_device_steps *tab, int steps)
{
    if (!tab) return;
    int depth = tab->depth < KGT_STREAM_MAX ? tab->depth : KGT_STREAM_MAX;
    if (steps > 1 && steps < depth) depth = steps;
    for (int l = 2; l <= depth; l++) {
        rtc_stream *k = &im->rs[l];
        if (!tab->kernels[l][0] || sb_gen_stream_stamp(st, l, &k->info) != tab->stamp[l]) {
            snprintf(dev->note, sizeof dev->note,
                     SB_GPU_NAME " kernel '%.60s': its %d-step kernels are not this library's "
                                 "(regenerate with its kgt); fewer steps per launch",
                     im->named_name ? im->named_name : "?", l);
            return;
        }
        k->stub[0] = tab->kernels[l][0];
        k->stub[1] = tab->kernels[l][1] ? tab->kernels[l][1] : tab->kernels[l][0];
        const int threads = k->info.b * (k->info.ndims == 3 ? k->info.by : 1);
        k->info.slots = rtc_stub_slots(k->stub[k->info.v > 1], threads, im->sms);
        im->use_stream = l;
    }
}

/*
 * The stencil's own kernel, compiled now (rtc.cuh); where that cannot be had the generic kernel
 * stays bound and the skeleton prints dev->note once.
 */
static void bind_rtc(sb_dev *dev, impl *im, const sl_stencil *st, int steps)
{
    char err[160];
    if (sb_rtc_mode() == SB_RTC_OFF) return;
    if (rtc_build(&im->rk, st, im->arch, im->sms, &dev->t_compile, err, sizeof err) == 0) {
        im->use_rtc = 1;
        snprintf(dev->kernel, sizeof dev->kernel, "rtc");
        if (steps != 1) bind_rtc_stream(dev, im, st, steps); /* one step per exchange: none */
        return;
    }
    rtc_unload(&im->rk);
    (void)gpuGetLastError();
    snprintf(dev->note, sizeof dev->note,
             SB_GPU_NAME " run-time kernel not compiled (%.100s); the generic kernel runs", err);
}

static int bind_generic(sb_dev *dev, impl *im, const sl_stencil *st, size_t nelems, int steps)
{
    if (st->npts < 1) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": stencil has no points");
    int *lin = (int *)malloc((size_t)st->npts * sizeof(int));
    if (!lin) return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": out of host memory");
    for (int p = 0; p < st->npts; p++) {
        long long o = 0;
        for (int d = 0; d < st->ndims; d++) o += (long long)st->off[p][d] * im->stride[d];
        if (o > INT_MAX || o < -INT_MAX) {
            free(lin);
            return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": offset %lld too large", o);
        }
        lin[p] = (int)o;
    }
    im->npts = st->npts;
    fill_points(&im->pf, st, lin);
    fill_points(&im->pd, st, lin);
    im->fuse_r = generic_fuse_reach(st);
    if (im->fuse_r) {
        fill_fused(&im->ff, st, lin, im->stride[0], nelems, im->fuse_r);
        fill_fused(&im->fd, st, lin, im->stride[0], nelems, im->fuse_r);
    }
    int rc = st->npts > SB_GPU_MAXP ? upload_points(dev, im, st, lin) : 0;
    free(lin);
    default_tune(im);
    if (!rc) bind_rtc(dev, im, st, steps);
    return rc;
}

static int bind_kernel(sb_dev *dev, impl *im, const sb_open_args *a)
{
    const sl_stencil *st = a->st;
    if (!st || !a->local || st->ndims < 1 || st->ndims > SL_D)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": missing stencil or layout");
    im->type = st->type;
    im->esz = sb_elem_size(st->type);
    im->ndims = st->ndims;
    im->peer = a->peer;
    for (int d = 0; d < SL_D; d++) {
        im->stride[d] = a->local->stride[d];
        im->rlo[d] = d < st->ndims ? st->rlo[d] : 0;
        im->rhi[d] = d < st->ndims ? st->rhi[d] : 0;
    }
    im->nelems = a->local->nelems;
    if (a->prog && a->named)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": a program run takes no named kernel");
    if (a->prog) return bind_prog(dev, im, a);
    if (!a->named) return bind_generic(dev, im, st, a->local->nelems, a->steps);
    im->named = a->named->SB_GPU_LAUNCHER[st->type];
    im->fused = a->named->SB_GPU_FUSED[st->type];
    im->named_name = a->named->name;
    if (!im->named)
        return sb_fail(dev, STENCIL_ENOKERNEL,
                       SB_GPU_NAME ": kernel '%s' has no %s launcher for %s",
                       a->named->name ? a->named->name : "?", SB_GPU_NAME,
                       st->type == STENCIL_DOUBLE ? "double" : "float");
    bind_named_steps(dev, im, st, a->named->SB_GPU_STEPS[st->type], a->steps);
    /* An empty box launches nothing; kgt's launchers load their kernels at their first call,
       which the device would otherwise do at the run's first launch, inside its loop. */
    const long none[SL_D] = {0, 0, 0};
    if (im->named(NULL, NULL, none, none, im->stride, NULL)) (void)gpuGetLastError();
    return 0;
}

} /* namespace SB_GPU_NS */

#endif
