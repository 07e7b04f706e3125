/*
 * GPU backend, halo copies: boxes to and from the host staging buffers (sb_ops.copy_out,
 * copy_in) by the copy engines or by a kernel, and the intra-node peer path (ipc_export,
 * ipc_open, ipc_close, copy_peer).
 *
 * Halo copies: a box that is one contiguous range is a single async memcpy. Other boxes are
 * copied by one of three paths (STENCIL_GPU_COPY=dma|pack|zerocopy, zerocopy by default):
 *   dma      strided 2D/3D async memcpy by the copy engines;
 *   pack     pack kernel into a device staging buffer, then one async memcpy;
 *   zerocopy pack kernel writing straight into the pinned (mapped) host staging buffer.
 * docs/performance-notes.md has the measurements behind the default.
 */
#ifndef SB_GPU_HALO_CUH
#define SB_GPU_HALO_CUH

#include "state.cuh"

namespace SB_GPU_NS
{

/* ---------------------------------------------------------------- halo copies */

static void copy_mode_init(impl *im)
{
    const char *env = getenv("STENCIL_GPU_COPY");
    im->copy_mode = COPY_AUTO;
    if (!env) return;
    if (!strcmp(env, "dma")) im->copy_mode = COPY_DMA;
    if (!strcmp(env, "pack")) im->copy_mode = COPY_PACK;
    if (!strcmp(env, "zerocopy")) im->copy_mode = COPY_ZC;
}

/* One side of a copy: an array (device, host or mapped host) and a box in it, like nbox. */
struct side {
    char *p;
    long long lo[3], s[3];
};

static side side_of(char *p, const nbox *nb)
{
    side x = {p, {nb->lo[0], nb->lo[1], nb->lo[2]}, {nb->s[0], nb->s[1], 1}};
    return x;
}

/* A contiguous row-major buffer holding just the box. */
static side side_flat(char *p, const nbox *nb)
{
    side x = {p, {0, 0, 0}, {nb->n[1] * nb->n[2], nb->n[2], 1}};
    return x;
}

static char *side_at(const side &x, size_t esz)
{
    return x.p + (x.lo[0] * x.s[0] + x.lo[1] * x.s[1] + x.lo[2]) * (long long)esz;
}

static int side_contig(const side &x, const long long *n)
{
    return (n[1] == 1 || x.s[1] == n[2]) && (n[0] == 1 || x.s[0] == n[1] * n[2]);
}

/* By the copy engines: one memcpy when both sides are contiguous, else 2D, else 3D. */
static int copy_dma(sb_dev *dev, int q, const side &d, const side &s, const long long *n,
                    gpuMemcpyKind kind)
{
    impl *im = im_of(dev);
    size_t esz = im->esz, wb = (size_t)n[2] * esz;
    gpuStream_t st = im->q[q];
    if (side_contig(d, n) && side_contig(s, n)) {
        GPU_TRY(dev, gpuMemcpyAsync(side_at(d, esz), side_at(s, esz), (size_t)(n[0] * n[1]) * wb,
                                    kind, st));
        return 0;
    }
    if (n[0] == 1 || n[1] == 1) {
        int k = n[0] == 1 ? 1 : 0; /* the dimension of the rows */
        GPU_TRY(dev, gpuMemcpy2DAsync(side_at(d, esz), (size_t)d.s[k] * esz, side_at(s, esz),
                                      (size_t)s.s[k] * esz, wb, (size_t)n[k], kind, st));
        return 0;
    }
    gpuMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_gpuPitchedPtr(s.p, (size_t)s.s[1] * esz, (size_t)s.s[1] * esz,
                                  (size_t)(s.s[0] / s.s[1]));
    p.dstPtr = make_gpuPitchedPtr(d.p, (size_t)d.s[1] * esz, (size_t)d.s[1] * esz,
                                  (size_t)(d.s[0] / d.s[1]));
    p.srcPos = make_gpuPos((size_t)s.lo[2] * esz, (size_t)s.lo[1], (size_t)s.lo[0]);
    p.dstPos = make_gpuPos((size_t)d.lo[2] * esz, (size_t)d.lo[1], (size_t)d.lo[0]);
    p.extent = make_gpuExtent(wb, (size_t)n[1], (size_t)n[0]);
    p.kind = kind;
    GPU_TRY(dev, gpuMemcpy3DAsync(&p, st));
    return 0;
}

static cbox cbox_of(const side &x, const long long *n)
{
    cbox b = {x.lo[0] * x.s[0] + x.lo[1] * x.s[1] + x.lo[2],
              x.s[0],
              x.s[1],
              (unsigned)n[0],
              (unsigned)n[1],
              (unsigned)n[2]};
    return b;
}

/* By a kernel on queue q; both sides must be addressable by this device. */
static int copy_kernel(sb_dev *dev, int q, const side &d, const side &s, const long long *n)
{
    impl *im = im_of(dev);
    cbox sb = cbox_of(s, n), db = cbox_of(d, n);
    unsigned cnt = (unsigned)(n[0] * n[1] * n[2]), blocks = (cnt + 255) / 256;
    gpuStream_t st = im->q[q];
    if (im->esz == 8) {
        typedef unsigned long long E;
        k_copy<E><<<blocks, 256, 0, st>>>((const E *)s.p, (E *)d.p, sb, db, cnt);
    } else {
        typedef unsigned int E;
        k_copy<E><<<blocks, 256, 0, st>>>((const E *)s.p, (E *)d.p, sb, db, cnt);
    }
    GPU_TRY(dev, gpuGetLastError());
    return 0;
}

static int stage_reserve(sb_dev *dev, int q, size_t bytes)
{
    impl *im = im_of(dev);
    if (im->stage_bytes[q] >= bytes) return 0;
    if (im->stage[q]) {
        GPU_TRY(dev, gpuStreamSynchronize(im->q[q])); /* the old buffer may still be in use */
        (void)gpuFree(im->stage[q]);
        dev->device_bytes -= im->stage_bytes[q];
        im->stage[q] = NULL;
        im->stage_bytes[q] = 0;
    }
    gpuError_t e = gpuMalloc(&im->stage[q], bytes);
    if (e != gpuSuccess) {
        (void)gpuGetLastError();
        im->stage[q] = NULL;
        return rt_fail(dev, STENCIL_EDEVMEM, "gpuMalloc(staging)", e);
    }
    im->stage_bytes[q] = bytes;
    dev->device_bytes += bytes;
    return 0;
}

/* Kernel into a device staging buffer plus one contiguous memcpy (or the reverse). */
static int copy_staged(sb_dev *dev, int q, const side &dv, const side &hs, const long long *n,
                       int out)
{
    impl *im = im_of(dev);
    size_t bytes = (size_t)(n[0] * n[1] * n[2]) * im->esz;
    int rc = stage_reserve(dev, q, bytes);
    if (rc) return rc;
    side st = hs;
    st.p = (char *)im->stage[q];
    if (out) {
        rc = copy_kernel(dev, q, st, dv, n);
        return rc ? rc : copy_dma(dev, q, hs, st, n, gpuMemcpyDeviceToHost);
    }
    rc = copy_dma(dev, q, st, hs, n, gpuMemcpyHostToDevice);
    return rc ? rc : copy_kernel(dev, q, dv, st, n);
}

/*
 * Path for a strided box: a kernel writing straight into the mapped host staging buffer when
 * the buffer is ours (else through device staging). On an H200 it was never far from the best
 * path and had none of the copy engines' slow cases (1-element rows, as in a 2D column halo, and
 * some host-to-device 2D copies; docs/performance-notes.md).
 */
static int pick_copy(const impl *im, const long long *n, const alloc_rec *rec)
{
    int mode = im->copy_mode == COPY_AUTO ? COPY_ZC : im->copy_mode;
    if (mode == COPY_ZC && (!rec || !rec->dp)) mode = COPY_PACK;
    if (n[0] * n[1] * n[2] > INT_MAX) mode = COPY_DMA; /* beyond the copy kernel's indices */
    return mode;
}

static int gpu_copy(sb_dev *dev, int q, sb_mem mem, const sl_box *b, void *host, int out)
{
    impl *im = im_of(dev);
    nbox nb;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue");
    if (!norm_box(im->ndims, b, im->stride, &nb)) return 0;
    int rc = use_device(dev);
    if (rc) return rc;
    side dv = side_of((char *)mem, &nb), hs = side_flat((char *)host, &nb);
    gpuMemcpyKind kind = out ? gpuMemcpyDeviceToHost : gpuMemcpyHostToDevice;
    if (side_contig(dv, nb.n)) return copy_dma(dev, q, out ? hs : dv, out ? dv : hs, nb.n, kind);
    size_t bytes = (size_t)(nb.n[0] * nb.n[1] * nb.n[2]) * im->esz;
    const alloc_rec *rec = list_find(&im->hmem, host, bytes);
    int mode = pick_copy(im, nb.n, rec);
    if (mode == COPY_DMA) return copy_dma(dev, q, out ? hs : dv, out ? dv : hs, nb.n, kind);
    if (mode == COPY_PACK) return copy_staged(dev, q, dv, hs, nb.n, out);
    side zc = side_flat(rec->dp + ((char *)host - rec->p), &nb);
    return copy_kernel(dev, q, out ? zc : dv, out ? dv : zc, nb.n);
}

int gpu_copy_out(sb_dev *dev, int q, sb_mem m, const sl_box *b, void *host)
{
    return gpu_copy(dev, q, m, b, host, 1);
}

int gpu_copy_in(sb_dev *dev, int q, sb_mem m, const sl_box *b, const void *host)
{
    return gpu_copy(dev, q, m, b, (void *)host, 0);
}

/* ---------------------------------------------------------------- intra-node peers */

int gpu_ipc_export(sb_dev *dev, sb_mem m, void *handle, size_t cap, size_t *len)
{
    gpuIpcMemHandle_t h;
    int rc = use_device(dev);
    if (rc) return rc;
    if (cap < sizeof h)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": handle buffer too small");
    /* A buffer not at the start of its own block would open at the wrong address elsewhere. */
    if (!im_of(dev)->peer || (uintptr_t)m % SB_GPU_IPC_BLOCK)
        return sb_fail(dev, STENCIL_ENOSYS, SB_GPU_NAME ": buffer is not a whole IPC block");
    GPU_TRY(dev, gpuIpcGetMemHandle(&h, m));
    memcpy(handle, &h, sizeof h);
    *len = sizeof h;
    return 0;
}

int gpu_ipc_open(sb_dev *dev, const void *handle, size_t len, sb_mem *m)
{
    gpuIpcMemHandle_t h;
    void *p = NULL;
    if (len != sizeof h) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": not a device handle");
    int rc = use_device(dev);
    if (rc) return rc;
    memcpy(&h, handle, sizeof h);
    /* Peer access lets copy kernels read and write the other device's buffer directly. */
    GPU_TRY(dev, gpuIpcOpenMemHandle(&p, h, gpuIpcMemLazyEnablePeerAccess));
    *m = p;
    return 0;
}

void gpu_ipc_close(sb_dev *dev, sb_mem m)
{
    impl *im = im_of(dev);
    if (!im || !m) return;
    (void)gpuSetDevice(im->device);
    (void)gpuIpcCloseMemHandle(m);
}

/* Either buffer may live on another device of the node (opened by ipc_open). */
int gpu_copy_peer(sb_dev *dev, int q, sb_mem dst, const sl_box *db, const long *ds, sb_mem src,
                  const sl_box *sbx, const long *ss)
{
    impl *im = im_of(dev);
    nbox nd, ns;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue");
    if (!norm_box(im->ndims, db, ds, &nd)) return 0;
    if (!norm_box(im->ndims, sbx, ss, &ns) || memcmp(nd.n, ns.n, sizeof nd.n))
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": copy_peer boxes differ in shape");
    int rc = use_device(dev);
    if (rc) return rc;
    side d = side_of((char *)dst, &nd), s = side_of((char *)src, &ns);
    /* Not measured between devices yet: wide rows to the copy engines, narrow ones by kernel. */
    int mode = im->copy_mode;
    if (mode == COPY_AUTO) mode = (size_t)nd.n[2] * im->esz >= 512 ? COPY_DMA : COPY_PACK;
    if (nd.n[0] * nd.n[1] * nd.n[2] > INT_MAX) mode = COPY_DMA;
    if (mode == COPY_DMA || (side_contig(d, nd.n) && side_contig(s, nd.n)))
        return copy_dma(dev, q, d, s, nd.n, gpuMemcpyDefault);
    return copy_kernel(dev, q, d, s, nd.n);
}

/* sb_ops.copy_many: one kernel for every box; copy_peer one by one where a box is too large for
   the kernel's 32-bit counts. */
int gpu_copy_many(sb_dev *dev, int q, int n, const sb_copy *c)
{
    impl *im = im_of(dev);
    cmany m;
    unsigned long long blocks = 0;
    if (q < 0 || q >= SB_NQUEUES || n < 0 || n > SB_COPY_MANY)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad copy_many");
    memset(&m, 0, sizeof m);
    for (int i = 0; i < n; i++) {
        nbox nd, ns;
        if (!norm_box(im->ndims, c[i].db, c[i].ds, &nd)) continue;
        if (!norm_box(im->ndims, c[i].sb, c[i].ss, &ns) || memcmp(nd.n, ns.n, sizeof nd.n))
            return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": copy_many boxes differ in shape");
        long long cnt = nd.n[0] * nd.n[1] * nd.n[2];
        if (cnt > INT_MAX || blocks + (unsigned long long)(cnt + 255) / 256 > INT_MAX) {
            for (int j = 0; j < n; j++) {
                int rc = gpu_copy_peer(dev, q, c[j].dst, c[j].db, c[j].ds, c[j].src, c[j].sb,
                                       c[j].ss);
                if (rc) return rc;
            }
            return 0;
        }
        side d = side_of((char *)c[i].dst, &nd), s = side_of((char *)c[i].src, &ns);
        cmany_one *o = &m.c[m.n++];
        o->src = s.p, o->dst = d.p, o->sb = cbox_of(s, nd.n), o->db = cbox_of(d, nd.n);
        o->first = (unsigned)blocks, o->n = (unsigned)cnt;
        blocks += (unsigned long long)(cnt + 255) / 256;
    }
    if (!m.n) return 0;
    int rc = use_device(dev);
    if (rc) return rc;
    gpuStream_t st = im->q[q];
    if (im->esz == 8)
        k_copy_many<unsigned long long><<<(unsigned)blocks, 256, 0, st>>>(m);
    else
        k_copy_many<unsigned int><<<(unsigned)blocks, 256, 0, st>>>(m);
    GPU_TRY(dev, gpuGetLastError());
    return 0;
}

} /* namespace SB_GPU_NS */

#endif
