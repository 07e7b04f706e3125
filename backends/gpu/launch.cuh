/*
 * GPU backend, updates (sb_ops.update, gpu_updatek): one step by the named, run-time or generic
 * kernel (gpu_update), two steps per launch (gpu_update2), k steps (the streaming kernels, as
 * deep as fuse_depth says).
 */
#ifndef SB_GPU_LAUNCH_CUH
#define SB_GPU_LAUNCH_CUH

#include "bind.cuh"
#include "state.cuh"

namespace SB_GPU_NS
{

/* ---------------------------------------------------------------- update */

/* NP: the point count as a template argument for the common ones (all loads issued at once). */
template <typename T, int U, class P>
static void launch_u(const impl *im, const sb_mem in, sb_mem out, const geom &g, dim3 grid,
                     dim3 block, gpuStream_t s, const P &pt)
{
    const T *i = (const T *)in;
    T *o = (T *)out;
    int np = im->tn.spec ? im->npts : 0;
    if (np == 4)
        k_stencil<T, U, 4, P><<<grid, block, 0, s>>>(i, o, g, pt);
    else if (np == 5)
        k_stencil<T, U, 5, P><<<grid, block, 0, s>>>(i, o, g, pt);
    else if (np == 7)
        k_stencil<T, U, 7, P><<<grid, block, 0, s>>>(i, o, g, pt);
    else if (np == 9)
        k_stencil<T, U, 9, P><<<grid, block, 0, s>>>(i, o, g, pt);
    else
        k_stencil<T, U, 0, P><<<grid, block, 0, s>>>(i, o, g, pt);
}

template <typename T>
static void launch_t(const impl *im, const pts_param<T> &pp, const sb_mem in, sb_mem out,
                     const geom &g, dim3 grid, dim3 block, gpuStream_t s)
{
    if (im->goff) {
        pts_global<T> pg = {pp.n, pp.recip, pp.div, (const int *)im->goff, (const T *)im->gw};
        k_stencil<T, 8, 0, pts_global<T>><<<grid, block, 0, s>>>((const T *)in, (T *)out, g, pg);
    } else if (im->tn.u == 4)
        launch_u<T, 4>(im, in, out, g, grid, block, s, pp);
    else
        launch_u<T, 8>(im, in, out, g, grid, block, s, pp);
}

/* Walk chunk and grid z for nw cells; grid y and z hold at most 65535 blocks. */
static long long walk_chunk(long long nw, long long chunk, long long *gz)
{
    *gz = (nw + chunk - 1) / chunk;
    if (*gz > 65535) {
        chunk = (nw + 65534) / 65535;
        *gz = (nw + chunk - 1) / chunk;
    }
    return chunk;
}

/* Geometry and launch shape of the generic kernel for box nb; 0, or -1 if it cannot launch. */
static int plan_generic(const impl *im, const nbox *nb, geom *g, dim3 *grid, dim3 *block)
{
    const tune &t = im->tn;
    g->base = nb->lo[0] * nb->s[0] + nb->lo[1] * nb->s[1] + nb->lo[2] * nb->s[2];
    g->sw = nb->s[0];
    g->sy = nb->s[1];
    g->nw = nb->n[0];
    g->ny = (int)nb->n[1];
    g->nx = nb->n[2];
    g->xs = 0;
    /* Alignment: when every row starts at the same offset modulo 128 bytes, start the x range
       that much earlier and leave those lanes idle, so warps read and write whole lines. */
    const long long a = 128 / (long long)im->esz;
    if (t.al && g->sw % a == 0 && g->sy % a == 0) {
        g->xs = (int)(g->base % a);
        g->base -= g->xs;
        g->nx += g->xs;
    }
    long long gz, chunk = walk_chunk(g->nw, t.chunk, &gz);
    long long gx = (g->nx + t.bx - 1) / t.bx, gy = (nb->n[1] + t.by - 1) / t.by;
    if (gy > 65535 || gx > INT_MAX || chunk > INT_MAX) return -1;
    g->chunk = (int)chunk;
    *grid = dim3((unsigned)gx, (unsigned)gy, (unsigned)gz);
    *block = dim3(t.bx, t.by, 1);
    return 0;
}

/*
 * Boxes narrower than THIN_X cells along x: the border boxes of links along x (a periodic
 * dimension, or blocks). Kernels with threads along x leave all but a few lanes of each row idle
 * there (measured on periodic 3d7, one step per launch: docs/performance-notes.md), so the generic
 * kernel takes them with its threads along y (the rows of a 2D box or of a box one row high), about
 * 2048 blocks of walks along the slowest dimension.
 */
enum { THIN_X = 8, THIN_BLOCKS = 2048 };
static int plan_thin(const nbox *nb, geom *g, dim3 *grid, dim3 *block)
{
    long long nw = nb->n[0], ny = nb->n[1], sw = nb->s[0], sy = nb->s[1];
    if (ny == 1) { /* the rows are the walk's: threads along them, no walk */
        ny = nw, sy = sw;
        nw = 1, sw = 0;
    }
    const int bx = (int)nb->n[2], by = 256 / bx;
    const long long gy = (ny + by - 1) / by, want = (THIN_BLOCKS + gy - 1) / gy;
    long long gz, chunk = walk_chunk(nw, (nw + want - 1) / want, &gz);
    if (gy > 65535 || ny > INT_MAX || chunk > INT_MAX) return -1;
    g->base = nb->lo[0] * nb->s[0] + nb->lo[1] * nb->s[1] + nb->lo[2] * nb->s[2];
    g->sw = sw, g->sy = sy, g->nw = nw, g->ny = (int)ny, g->nx = nb->n[2], g->xs = 0;
    g->chunk = (int)chunk;
    *grid = dim3(1, (unsigned)gy, (unsigned)gz);
    *block = dim3((unsigned)bx, (unsigned)by, 1);
    return 0;
}

static int thin_x(const nbox *nb)
{
    return nb->n[2] < THIN_X && nb->n[0] * nb->n[1] >= 256;
}

static int launch_generic(sb_dev *dev, int q, sb_mem in, sb_mem out, const nbox *nb)
{
    impl *im = im_of(dev);
    geom g;
    dim3 grid, block;
    if ((!thin_x(nb) || plan_thin(nb, &g, &grid, &block)) &&
        plan_generic(im, nb, &g, &grid, &block))
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": box too large for one launch");
    if (im->type == STENCIL_DOUBLE)
        launch_t<double>(im, im->pd, in, out, g, grid, block, im->q[q]);
    else
        launch_t<float>(im, im->pf, in, out, g, grid, block, im->q[q]);
    GPU_TRY(dev, gpuGetLastError());
    return 0;
}

static int launch_named(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b)
{
    impl *im = im_of(dev);
    long lo[SL_D], hi[SL_D];
    for (int d = 0; d < SL_D; d++) {
        lo[d] = b->lo[d];
        hi[d] = b->hi[d];
    }
    int r = im->named(in, out, lo, hi, im->stride, (void *)im->q[q]);
    gpuError_t e = gpuGetLastError();
    if (r || e != gpuSuccess)
        return sb_fail(dev, STENCIL_EDEVICE, SB_GPU_NAME ": kernel '%s' launcher returned %d: %s",
                       im->named_name ? im->named_name : "?", r, gpuGetErrorString(e));
    return 0;
}

/* Planes per block for a walk of nz planes (kgt_rt.h: the lines kgt's launchers carry too). */
static int walk_split(int nz, int zc, long long tiles, int slots)
{
    KGT_WALK_SPLIT_LINES(KGT_WALK_SPLIT_CODE)
}

/* The run-time step kernel over box b: the launch its plan (kgt_rt.h) describes. */
static int launch_rtc(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b, const nbox *nb)
{
    impl *im = im_of(dev);
    const kgt_step_info &k = im->rk.info;
    const int nd = im->ndims, x = nd - 1;
    int z0 = nd > 1 ? (int)b->lo[0] : 0, z1 = nd > 1 ? (int)b->hi[0] : 1;
    int y0 = nd > 2 ? (int)b->lo[1] : 0, y1 = nd > 2 ? (int)b->hi[1] : 1;
    int x0 = (int)b->lo[x], x1 = (int)b->hi[x], zc = k.sh.zc;
    long long s0 = nd > 1 ? im->stride[0] : 0, s1 = nd > 2 ? im->stride[1] : 0, first = 0;
    for (int d = 0; d < nd; d++) first += (long long)b->lo[d] * im->stride[d];
    /* Tiles start on the 128-byte line of the box's first cell (idle lanes before it). */
    const long long line = 128 / (long long)im->esz;
    int xa = x0 - (int)(((long long)((uintptr_t)out / im->esz) + first) % line);
    dim3 grid((unsigned)((x1 - xa + k.tx - 1) / k.tx), (unsigned)((y1 - y0 + k.ty - 1) / k.ty));
    zc = walk_split(z1 - z0, zc, (long long)grid.x * grid.y, im->rk.slots);
    grid.z = (unsigned)((z1 - z0 + zc - 1) / zc);
    /* The kernel's offsets within a plane's tile are ints: else the generic kernel does it. */
    const int v = k.sh.vec ? 16 / (int)im->esz : 0;
    long long tile = s1 * (k.ty + k.elo[1] + k.ehi[1] + 1) + k.tx + k.elo[2] + k.ehi[2] + 2 * v;
    if (tile > INT_MAX || grid.y > 65535) return launch_generic(dev, q, in, out, nb);
    /* Vector rows: 16-byte accesses need the arrays and their rows and planes aligned. */
    const int u = v && ((uintptr_t)in % 16 || (uintptr_t)out % 16 || s0 % v || s1 % v);
    void *args[] = {&in, &out, &z0, &z1, &y0, &y1, &xa, &x0, &x1, &s0, &s1, &zc};
    GPU_TRY(dev, rtc_launch(&im->rk, u, grid, im->q[q], args));
    return 0;
}

int gpu_update(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b)
{
    impl *im = im_of(dev);
    nbox nb;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue");
    if (!norm_box(im->ndims, b, im->stride, &nb)) return 0;
    int rc = use_device(dev);
    if (rc) return rc;
    if (im->named) return launch_named(dev, q, in, out, b);
    return im->use_rtc && !thin_x(&nb) ? launch_rtc(dev, q, in, out, b, &nb)
                                       : launch_generic(dev, q, in, out, &nb);
}

template <typename T, int NP, int TY>
static void launch_fused_r(const fused_param<T> &f, int r, dim3 grid, size_t smem, gpuStream_t q,
                           const T *in, T *out)
{
    if (r == 1)
        k_fused<T, NP, TY, 1><<<grid, dim3(SB_FX, SB_FBY), smem, q>>>(in, out, f);
    else
        k_fused<T, NP, TY, 2><<<grid, dim3(SB_FX, SB_FBY), smem, q>>>(in, out, f);
}

/* Compile-time point counts for the set's 2D stencils, as the single-step kernel has. */
template <typename T, int TY>
static void launch_fused_t(fused_param<T> f, const impl *im, const sl_box *b, const sl_box *live,
                           gpuStream_t q, const void *in, void *out)
{
    f.lo0 = b->lo[0], f.lo1 = b->lo[1], f.hi0 = b->hi[0], f.hi1 = b->hi[1];
    f.ll0 = live->lo[0], f.ll1 = live->lo[1], f.lh0 = live->hi[0], f.lh1 = live->hi[1];
    dim3 grid((unsigned)((b->hi[1] - b->lo[1] + SB_FX - 1) / SB_FX),
              (unsigned)((b->hi[0] - b->lo[0] + TY - 1) / TY));
    size_t smem = sizeof(T) * (size_t)(TY + 2 * im->fuse_r) * (size_t)(SB_FX + 2 * im->fuse_r);
    typedef void (*launch_fn)(const fused_param<T> &, int, dim3, size_t, gpuStream_t, const T *,
                              T *);
    launch_fn l = f.n == 4   ? launch_fused_r<T, 4, TY>
                  : f.n == 5 ? launch_fused_r<T, 5, TY>
                  : f.n == 8 ? launch_fused_r<T, 8, TY>
                  : f.n == 9 ? launch_fused_r<T, 9, TY>
                             : launch_fused_r<T, 0, TY>;
    l(f, im->fuse_r, grid, smem, q, (const T *)in, (T *)out);
}

static int launch_fused_generic(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b,
                                const sl_box *live)
{
    impl *im = im_of(dev);
    if ((b->hi[1] - b->lo[1] + SB_FX - 1) / SB_FX > INT_MAX || (b->hi[0] - b->lo[0]) / 16 > 65535)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": box too large for one fused launch");
    if (im->type == STENCIL_DOUBLE)
        launch_fused_t<double, 16>(im->fd, im, b, live, im->q[q], in, out);
    else
        launch_fused_t<float, 32>(im->ff, im, b, live, im->q[q], in, out);
    GPU_TRY(dev, gpuGetLastError());
    return 0;
}

/* Two steps per launch: kgt's fused launcher of a named kernel, or the generic one in 2D. */
int gpu_update2(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b, const sl_box *live)
{
    impl *im = im_of(dev);
    if (im->named ? !im->fused : !im->fuse_r)
        return sb_fail(dev, STENCIL_ENOSYS, SB_GPU_NAME ": no two-step kernel for this stencil");
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue");
    if (sl_box_empty(b)) return 0;
    int rc = use_device(dev);
    if (rc) return rc;
    if (im->use_stream >= 2 && im->stride[1] == 1) {
        int r = rtc_stream_launch(&im->rs[2], in, out, b->lo, b->hi, live->lo, live->hi, im->stride,
                                  im->esz, im->q[q], 0);
        if (r < 0)
            return sb_fail(dev, STENCIL_EDEVICE, SB_GPU_NAME ": two-step kernel launch: %s",
                           gpuGetErrorString(gpuGetLastError()));
        if (r == 0) return 0;
    }
    if (!im->named) return launch_fused_generic(dev, q, in, out, b, live);
    int r = im->fused(in, out, b->lo, b->hi, live->lo, live->hi, im->stride, (void *)im->q[q]);
    gpuError_t e = gpuGetLastError();
    if (r || e != gpuSuccess)
        return sb_fail(dev, STENCIL_EDEVICE,
                       SB_GPU_NAME ": fused kernel '%s' launcher returned %d: %s",
                       im->named_name ? im->named_name : "?", r, gpuGetErrorString(e));
    return 0;
}

/*
 * k steps one update at a time through the queue's two scratch arrays, allocated at the first
 * such call; each starts as a copy of in, so cells a step does not write (the fixed frame) hold
 * in's values. The path of boxes or stencils the streaming kernels do not take.
 */
static int updatek_steps(sb_dev *dev, int q, int k, sb_mem in, sb_mem out, const sl_box *b,
                         const sl_box *live)
{
    impl *im = im_of(dev);
    size_t bytes = im->nelems * im->esz;
    for (int i = 0; i < 2; i++) {
        int rc = im->kscr[q][i] ? 0 : gpu_mem_alloc(dev, bytes, &im->kscr[q][i]);
        if (rc) return rc;
        GPU_TRY(dev, gpuMemcpyAsync(im->kscr[q][i], in, bytes, gpuMemcpyDeviceToDevice, im->q[q]));
    }
    for (int s = 1; s <= k; s++) {
        sl_box w = *b;
        for (int d = 0; d < im->ndims && s < k; d++) {
            w.lo[d] -= (long)(k - s) * im->rlo[d];
            w.hi[d] += (long)(k - s) * im->rhi[d];
        }
        if (s < k) w = sl_box_intersect(&w, live);
        if (sl_box_empty(&w)) continue;
        sb_mem src = s == 1 ? in : im->kscr[q][(s - 1) & 1],
               dst = s == k ? out : im->kscr[q][s & 1];
        int rc = gpu_update(dev, q, src, dst, &w);
        if (rc) return rc;
    }
    return 0;
}

/*
 * k steps of a 1D stencil by the 2D streaming kernels of its form laid along rows (gen.c), on rows
 * of a view of the array (kgt_stream_1d). 0 when launched, 1 when the kernels did not take a
 * part (the caller runs the whole box another way), -1 when a launch failed.
 */
static int stream_1d(impl *im, const rtc_stream *rs, int q, int k, sb_mem in, sb_mem out,
                     const sl_box *b, const sl_box *live)
{
    enum { ROW = 8192 }; /* stored cells per view row */
    kgt_rows1d p[3];
    const int n = kgt_stream_1d(k, im->rlo[0], im->rhi[0], (long)im->esz, ROW, b->lo[0], b->hi[0],
                                live->lo[0], live->hi[0], p);
    for (int j = 0; j < n; j++) {
        const long blo[2] = {0, p[j].lo}, bhi[2] = {p[j].rows, p[j].hi};
        const long vlo[2] = {0, p[j].llo}, vhi[2] = {p[j].rows, p[j].lhi}, stride[2] = {p[j].s0, 1};
        const char *i = (const char *)in + p[j].base * (long)im->esz;
        char *o = (char *)out + p[j].base * (long)im->esz;
        int r = rtc_stream_launch(rs, i, o, blo, bhi, vlo, vhi, stride, im->esz, im->q[q], 1);
        if (r) return r;
    }
    return 0;
}

/*
 * k steps per launch: the streaming kernels of k levels where open compiled them (any box size:
 * no other kernel takes k > 2 steps at once), update2 for two, else k updates through scratch.
 */
int gpu_updatek(sb_dev *dev, int q, int k, sb_mem in, sb_mem out, const sl_box *b,
                const sl_box *live)
{
    impl *im = im_of(dev);
    if (q < 0 || q >= SB_NQUEUES || k < 1)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue or step count");
    if (im->kprog) /* no stencil kernel was bound (prog.cuh) */
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": a program run has no stencil update");
    if (sl_box_empty(b)) return 0;
    if (k == 1) return gpu_update(dev, q, in, out, b);
    if (k == 2 && (im->named ? im->fused != NULL : im->fuse_r != 0))
        return gpu_update2(dev, q, in, out, b, live);
    int rc = use_device(dev);
    if (rc) return rc;
    if (k <= im->use_stream && im->stride[im->ndims - 1] == 1) {
        int r = im->ndims == 1 ? stream_1d(im, &im->rs[k], q, k, in, out, b, live)
                               : rtc_stream_launch(&im->rs[k], in, out, b->lo, b->hi, live->lo,
                                                   live->hi, im->stride, im->esz, im->q[q], 1);
        if (r < 0)
            return sb_fail(dev, STENCIL_EDEVICE, SB_GPU_NAME ": %d-step kernel launch: %s", k,
                           gpuGetErrorString(gpuGetLastError()));
        if (r == 0) return 0;
    }
    return updatek_steps(dev, q, k, in, out, b, live);
}

/*
 * The most steps per launch worth asking updatek for: the streaming kernels' depth for 2D
 * stencils reaching at most 4 cells, star or box, 3D stencils reaching 1 (star or box), 3D star
 * stencils reaching 2 and 1D stencils (their 2D form; run-time kernels on, or a named kernel's
 * table of them), 2 for a named kernel with a fused launcher, else 1. updatek runs k steps one at
 * a time where a kernel declines a box.
 */
int gpu_fuse_depth(const sl_stencil *st, const stencil_kernel *named)
{
    const stencil_device_steps *tab = named ? named->SB_GPU_STEPS[st->type] : NULL;
    int depth = named ? (tab ? (tab->depth < KGT_STREAM_MAX ? tab->depth : KGT_STREAM_MAX) : 0)
                : sb_rtc_mode() == SB_RTC_ON ? sb_gen_stream_depth(st)
                                             : 0;
    if (depth >= 2) return depth;
    return named && named->SB_GPU_FUSED[st->type] ? 2 : 1;
}

} /* namespace SB_GPU_NS */

#endif
