/*
 * The host backend: plain C99 on the calling thread (OpenMP threads when built with it).
 * It is the reference semantics every other backend matches, and the fallback where no GPU is.
 * All ops complete before returning, so queues, flush, wait and join have nothing to do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"

#ifdef _OPENMP
#define HOST_PARALLEL_FOR _Pragma("omp parallel for collapse(2) schedule(static)")
#else
#define HOST_PARALLEL_FOR
#endif

/* One generic update per element type; the order of the sum is the contract of backend.h. */
#define HOST_UPDATE(T, W)                                                                          \
    static void update_##T(const host_impl *h, const T *in, T *out, const sl_box *b)               \
    {                                                                                              \
        const T div = (T)h->div;                                                                   \
        HOST_PARALLEL_FOR                                                                          \
        for (long i = b->lo[0]; i < b->hi[0]; i++) {                                               \
            for (long j = b->lo[1]; j < b->hi[1]; j++) {                                           \
                long row = i * h->stride[0] + j * h->stride[1];                                    \
                for (long k = b->lo[2]; k < b->hi[2]; k++) {                                       \
                    const T *c = in + row + k;                                                     \
                    T acc = h->W[0] * c[h->doff[0]];                                               \
                    for (int p = 1; p < h->npts; p++) acc = acc + h->W[p] * c[h->doff[p]];         \
                    out[row + k] = acc / div;                                                      \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
HOST_UPDATE(float, wf)
HOST_UPDATE(double, wd)

static void host_close(sb_dev *dev)
{
    host_impl *h = dev->impl;
    if (h) {
        host_prog_close(h);
        while (h->shm) host_shm_drop(h, h->shm->p);
        free(h->doff);
        free(h->wd);
        free(h->wf);
        free(h->stamp);
        free(h->scratch);
        free(h->scratch2);
        free(h);
    }
    dev->impl = NULL;
}

static int host_named(sb_dev *dev, host_impl *h, const sb_open_args *a)
{
    if (!a->named) return 0;
    h->named = a->named->host[a->st->type];
    if (!h->named)
        return sb_fail(dev, STENCIL_ENOKERNEL, "kernel '%s' has no host %s implementation",
                       a->named->name, a->st->type == STENCIL_DOUBLE ? "double" : "float");
    return 0;
}

static int host_open(sb_dev *dev, const sb_open_args *a)
{
    const sl_stencil *s = a->st;
    host_impl *h = calloc(1, sizeof *h);
    if (!h) return sb_fail(dev, STENCIL_ENOMEM, "host backend: out of memory");
    dev->impl = h;
    h->doff = malloc(sizeof *h->doff * (size_t)s->npts);
    h->wd = malloc(sizeof *h->wd * (size_t)s->npts);
    h->wf = malloc(sizeof *h->wf * (size_t)s->npts);
    h->nstamps = a->stamps > 0 ? a->stamps : 0;
    h->stamp = h->nstamps ? calloc((size_t)h->nstamps, sizeof *h->stamp) : NULL;
    if (!h->doff || !h->wd || !h->wf || (h->nstamps && !h->stamp)) {
        host_close(dev);
        return sb_fail(dev, STENCIL_ENOMEM, "host backend: out of memory");
    }
    h->type = s->type;
    h->peer = a->peer;
    h->npts = s->npts;
    h->div = s->divisor;
    memcpy(h->stride, a->local->stride, sizeof h->stride);
    memcpy(h->rlo, s->rlo, sizeof h->rlo);
    memcpy(h->rhi, s->rhi, sizeof h->rhi);
    h->nelems = a->local->nelems;
    for (int p = 0; p < s->npts; p++) {
        h->doff[p] = 0;
        for (int d = 0; d < SL_D; d++) h->doff[p] += s->off[p][d] * h->stride[d];
        h->wd[p] = s->w[p];
        h->wf[p] = (float)s->w[p];
    }
    strcpy(dev->name, "host CPU");
    const char *rep = getenv("STENCIL_HOST_REPEAT");
    h->repeat = rep && atol(rep) > 1 ? atol(rep) : 1;
    const char *fail = getenv("STENCIL_HOST_FAIL");
    h->fail_at = fail ? atol(fail) : 0;
    h->prog = a->prog;
    memcpy(h->origin, a->origin, sizeof h->origin);
    int rc = host_named(dev, h, a);
    if (!rc && h->prog) host_prog_open(dev, h);
    if (rc) host_close(dev);
    return rc;
}

static int host_host_alloc(sb_dev *dev, size_t bytes, void **p)
{
    *p = malloc(bytes ? bytes : 1);
    return *p ? 0 : sb_fail(dev, STENCIL_ENOMEM, "host backend: cannot allocate %zu bytes", bytes);
}

static void host_host_free(sb_dev *dev, void *p)
{
    (void)dev;
    free(p);
}

static int host_write(sb_dev *dev, sb_mem m, const void *src, size_t bytes)
{
    (void)dev;
    if (m != src) memcpy(m, src, bytes); /* an out-of-core run's host image is a level */
    return 0;
}

static int host_read(sb_dev *dev, sb_mem m, void *dst, size_t bytes)
{
    (void)dev;
    if (dst != m) memcpy(dst, m, bytes);
    return 0;
}

static int host_update(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b)
{
    host_impl *h = dev->impl;
    (void)q;
    if (h->fail_at > 0 && --h->fail_at == 0)
        return sb_fail(dev, STENCIL_EDEVICE, "host backend: update failed (STENCIL_HOST_FAIL)");
    if (sl_box_empty(b)) return 0;
    for (long k = 0; k < h->repeat; k++) {
        if (h->named)
            h->named(in, out, b->lo, b->hi, h->stride);
        else if (h->type == STENCIL_DOUBLE)
            update_double(h, in, out, b);
        else
            update_float(h, in, out, b);
    }
    return 0;
}

/*
 * The reference for fused kernels: the first step into scratch over the cells the second one
 * reads (b widened by the radius) that are live, then the second step from scratch. Scratch
 * starts as a copy of in, so its frame cells, never written, hold the frame's fixed values.
 */
static int host_update2(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b,
                        const sl_box *live)
{
    host_impl *h = dev->impl;
    size_t bytes = h->nelems * sb_elem_size(h->type);
    if (sl_box_empty(b)) return 0;
    if (!h->scratch) {
        h->scratch = malloc(bytes ? bytes : 1);
        if (!h->scratch)
            return sb_fail(dev, STENCIL_ENOMEM, "host backend: no %zu bytes of scratch", bytes);
        memcpy(h->scratch, in, bytes);
    }
    sl_box s1 = *b;
    for (int d = 0; d < SL_D; d++) {
        s1.lo[d] -= h->rlo[d];
        s1.hi[d] += h->rhi[d];
    }
    s1 = sl_box_intersect(&s1, live);
    int rc = host_update(dev, q, in, h->scratch, &s1);
    return rc ? rc : host_update(dev, q, h->scratch, out, b);
}

/* A local array that starts as a copy of in (the frame's values), allocated once into *p. */
static int host_scratch(sb_dev *dev, void **p, const void *in)
{
    host_impl *h = dev->impl;
    size_t bytes = h->nelems * sb_elem_size(h->type);
    if (*p) return 0;
    *p = malloc(bytes ? bytes : 1);
    if (!*p) return sb_fail(dev, STENCIL_ENOMEM, "host backend: no %zu bytes of scratch", bytes);
    memcpy(*p, in, bytes);
    return 0;
}

/* k steps as update2 takes two: step s on b widened by k - s reaches within live, alternating
   between the two scratch arrays. */
static int host_updatek(sb_dev *dev, int q, int k, sb_mem in, sb_mem out, const sl_box *b,
                        const sl_box *live)
{
    host_impl *h = dev->impl;
    if (k < 1) return sb_fail(dev, STENCIL_EINVAL, "host backend: %d steps", k);
    if (k == 1) return host_update(dev, q, in, out, b);
    if (k == 2) return host_update2(dev, q, in, out, b, live);
    if (sl_box_empty(b)) return 0;
    int rc = host_scratch(dev, &h->scratch, in);
    if (!rc) rc = host_scratch(dev, &h->scratch2, in);
    void *scr[2] = {h->scratch2, h->scratch};
    for (int s = 1; s <= k && !rc; s++) {
        sl_box w = *b;
        for (int d = 0; d < SL_D && s < k; d++) {
            w.lo[d] -= (long)(k - s) * h->rlo[d];
            w.hi[d] += (long)(k - s) * h->rhi[d];
        }
        if (s < k) w = sl_box_intersect(&w, live);
        if (sl_box_empty(&w)) continue;
        rc = host_update(dev, q, s == 1 ? in : scr[(s - 1) & 1], s == k ? out : scr[s & 1], &w);
    }
    return rc;
}

static int host_fuse_depth(const sl_stencil *st, const stencil_kernel *named)
{
    (void)st;
    (void)named;
    return 1;
}

/* Moves box b between the local array and a contiguous buffer, one row at a time. */
/* The cells of box b along dimension 1 and 2 that lie one after the other in memory: a 2D
   array (dimension 2 of extent 1) has whole box rows along dimension 1, one copy each. */
static long host_run(const sl_box *b, const long *stride, long *n1)
{
    long n2 = b->hi[2] - b->lo[2];
    *n1 = b->hi[1] - b->lo[1];
    if (n2 == 1 && stride[1] == 1) {
        n2 = *n1;
        *n1 = 1;
    }
    return n2;
}

static void host_box_copy(const host_impl *h, char *arr, const sl_box *b, char *buf, int out)
{
    size_t es = sb_elem_size(h->type);
    long n1;
    size_t row = (size_t)host_run(b, h->stride, &n1) * es;
    for (long i = b->lo[0]; i < b->hi[0]; i++) {
        for (long j = b->lo[1]; j < b->lo[1] + n1; j++) {
            char *a = arr + (size_t)(i * h->stride[0] + j * h->stride[1] + b->lo[2]) * es;
            if (out)
                memcpy(buf, a, row);
            else
                memcpy(a, buf, row);
            buf += row;
        }
    }
}

static int host_copy_peer(sb_dev *dev, int q, sb_mem dst, const sl_box *db, const long *ds,
                          sb_mem src, const sl_box *sbx, const long *ss)
{
    size_t es = sb_elem_size(((host_impl *)dev->impl)->type);
    long n1, d1;
    size_t row = (size_t)host_run(db, ds, &n1) * es;
    (void)q;
    if (sl_box_empty(db)) return 0;
    if (host_run(db, ss, &d1) * (long)es != (long)row) { /* the source's rows lie otherwise */
        n1 = db->hi[1] - db->lo[1];
        row = (size_t)(db->hi[2] - db->lo[2]) * es;
    }
    for (long i = 0; i < db->hi[0] - db->lo[0]; i++)
        for (long j = 0; j < n1; j++) {
            long d = (db->lo[0] + i) * ds[0] + (db->lo[1] + j) * ds[1] + db->lo[2];
            long s = (sbx->lo[0] + i) * ss[0] + (sbx->lo[1] + j) * ss[1] + sbx->lo[2];
            memmove((char *)dst + (size_t)d * es, (const char *)src + (size_t)s * es, row);
        }
    return 0;
}

/* sb_ops.copy_many, last copy first: the copies are independent (backend.h), so any order
   gives the same cells, and running them backwards lets the tests catch a caller that batches
   copies which are not. */
static int host_copy_many(sb_dev *dev, int q, int n, const sb_copy *c)
{
    for (int i = n - 1; i >= 0; i--) {
        int rc = host_copy_peer(dev, q, c[i].dst, c[i].db, c[i].ds, c[i].src, c[i].sb, c[i].ss);
        if (rc) return rc;
    }
    return 0;
}

static int host_copy_out(sb_dev *dev, int q, sb_mem m, const sl_box *b, void *host)
{
    (void)q;
    if (!sl_box_empty(b)) host_box_copy(dev->impl, m, b, host, 1);
    return 0;
}

static int host_copy_in(sb_dev *dev, int q, sb_mem m, const sl_box *b, const void *host)
{
    (void)q;
    if (!sl_box_empty(b)) host_box_copy(dev->impl, m, b, (char *)host, 0);
    return 0;
}

static int host_nothing_q(sb_dev *dev, int q)
{
    (void)dev;
    (void)q;
    return 0;
}

static int host_join(sb_dev *dev)
{
    (void)dev;
    return 0;
}

static int host_after(sb_dev *dev, int q, int from)
{
    (void)dev;
    (void)q;
    (void)from;
    return 0;
}

/* Every op has finished when it returns: the time of a stamp is the time of the call. */
static int host_stamp(sb_dev *dev, int q, int slot)
{
    host_impl *h = dev->impl;
    struct timespec ts;
    (void)q;
    if (slot < 0 || slot >= h->nstamps)
        return sb_fail(dev, STENCIL_EINVAL, "host backend: stamp slot %d of %d", slot, h->nstamps);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    h->stamp[slot] = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    return 0;
}

static int host_stamp_read(sb_dev *dev, int n, double *sec)
{
    host_impl *h = dev->impl;
    if (n < 0 || n > h->nstamps)
        return sb_fail(dev, STENCIL_EINVAL, "host backend: %d stamps read of %d", n, h->nstamps);
    for (int i = 0; i < n; i++) sec[i] = h->stamp[i] - h->stamp[0];
    return 0;
}

/* Row by row in index order: the serial order a test can reproduce exactly. */
#define HOST_NORM(T)                                                                               \
    static void norm_##T(const host_impl *h, const T *a, const T *b, const sl_box *x, double *o)   \
    {                                                                                              \
        for (long i = x->lo[0]; i < x->hi[0]; i++)                                                 \
            for (long j = x->lo[1]; j < x->hi[1]; j++) {                                           \
                long row = i * h->stride[0] + j * h->stride[1];                                    \
                for (long k = x->lo[2]; k < x->hi[2]; k++) {                                       \
                    double d = (double)a[row + k] - (double)b[row + k];                            \
                    o[0] = o[0] + d * d;                                                           \
                    if (fabs(d) > o[1]) o[1] = fabs(d);                                            \
                }                                                                                  \
            }                                                                                      \
    }
HOST_NORM(float)
HOST_NORM(double)

static int host_norm(sb_dev *dev, sb_mem a, sb_mem b, const sl_box *x, double out[2])
{
    host_impl *h = dev->impl;
    out[0] = out[1] = 0;
    if (sl_box_empty(x)) return 0;
    if (h->type == STENCIL_DOUBLE)
        norm_double(h, a, b, x, out);
    else
        norm_float(h, a, b, x, out);
    return 0;
}

const sb_ops sb_host_ops = {
    .name = "host",
    .open = host_open,
    .close = host_close,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .host_alloc = host_host_alloc,
    .host_free = host_host_free,
    .write = host_write,
    .read = host_read,
    .update = host_updatek,
    .fuse_depth = host_fuse_depth,
    .copy_out = host_copy_out,
    .copy_in = host_copy_in,
    .flush = host_nothing_q,
    .wait = host_nothing_q,
    .join = host_join,
    .after = host_after,
    .busy = host_nothing_q,
    .stamp = host_stamp,
    .stamp_read = host_stamp_read,
    .async = 0,
    .ipc_export = host_ipc_export,
    .ipc_open = host_ipc_open,
    .ipc_close = host_ipc_close,
    .copy_peer = host_copy_peer,
    .copy_many = host_copy_many,
    .ipc_seal = host_ipc_seal,
    .prog_update = host_prog_update,
    .prog_fuse_depth = host_prog_fuse_depth,
    .prog_update_k = host_prog_update_k,
    .peer_default = 0,
    .auto_try = 0,
    .norm = host_norm,
};
