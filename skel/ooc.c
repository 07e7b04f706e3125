/*
 * Out-of-core runs: a rank's local array (both time levels) lives in host memory and streams
 * through its device in chunks of rows of dimension 0, a slab being one contiguous range of the
 * row-major array.
 *
 * Once a rank goes out of core, r->dev becomes the host backend working on the host copies
 * (r->buf[0..1]; r->host is the current one, whose transfers to and from itself the host backend
 * skips), so the exchange, views, norms, checkpoints and loads run unchanged on them; the rank's
 * real device (o->dev) only sees chunk buffers. A sweep advances the whole part
 * by T steps: per chunk [a, b) of owned rows, rows [a - T*rlo0, b + T*rhi0) of level n go up (into
 * one buffer of the chunk, and on the device into the other, since the fixed frame is read from
 * both), T updates over boxes that shrink by the radius per step ping-pong between them (several
 * steps at a time through one update call where the device has a fast fused kernel), and the owned
 * rows [a, b) come down to level n + 1. Uploads go on the border queue, updates on the inner
 * queue, downloads on the transfer queue, a join between the stages, so that chunk i is updated
 * while chunk i - 1 comes down and chunk i + 1 goes up, all three at once; three chunk buffers
 * rotate between those roles, chunk i + 1 going up into chunk i - 1's behind its download
 * (ooc_sweep.c).
 *
 * T: two steps before anything is measured; then a probe times an upload (beside a download) and
 * an update of the first chunk, and when every rank is out of core set-up runs again with the T
 * of least modelled time (sk_ooc_want, sk_ooc_again), at most twice. The host copies, the largest
 * allocations (pinned, and zeroed), are made only once T is settled (sk_ooc_host).
 *
 * The chunk buffers have the local array's strides and fewer rows, so the kernels and the box
 * copies of the device opened for the whole local array work on them with chunk-local boxes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ooc.h"

const char *sk_ooc_file_base(const sk_run *r)
{
    const char *file = r->opt.ooc_file ? r->opt.ooc_file : r->env.ooc_file;
    return file && file[0] ? file : NULL;
}

int sk_ooc_file_open(sk_run *r, const char *base, int *fd)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", base, r->rank);
    *fd = open(path, O_CREAT | O_RDWR, 0600);
    if (*fd < 0) return SK_FAIL(r, STENCIL_EIO, "cannot create the out-of-core file %s", path);
    struct stat st;
    /* Only a regular file is cut and unlinked: never a device node or FIFO of that name. */
    int bad = fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode);
    if (!bad) unlink(path);
    if (bad || ftruncate(*fd, 0) != 0) {
        close(*fd);
        *fd = -1;
        return bad ? SK_FAIL(r, STENCIL_EIO, "the out-of-core file %s is not a regular file", path)
                   : SK_FAIL(r, STENCIL_EIO, "cannot truncate the out-of-core file %s", path);
    }
    return 0;
}

void *sk_ooc_file_map(int fd, long long at, size_t bytes, int *err)
{
    *err = posix_fallocate(fd, (off_t)at, (off_t)bytes);
    void *p =
        *err ? MAP_FAILED : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)at);
    return p == MAP_FAILED ? NULL : p;
}

/* The host copies in one file mapping: removed at once, so it goes when the run does. */
static int ooc_map(sk_run *r, const char *base)
{
    sk_ooc *o = r->ooc;
    size_t total = OOC_ARRAYS * o->bytes;
    int fd, err, rc = sk_ooc_file_open(r, base, &fd);
    if (rc) return rc;
    void *p = sk_ooc_file_map(fd, 0, total, &err);
    close(fd);
    if (!p)
        return SK_FAIL(r, STENCIL_EIO,
                       "the out-of-core file %s.%d cannot hold or map %zu bytes (%s)", base,
                       r->rank, total, err ? strerror(err) : "mmap failed");
    o->map = p;
    for (int i = 0; i < OOC_ARRAYS; i++) o->arr[i] = (char *)p + (size_t)i * o->bytes;
    return 0;
}

/* Physical memory of the node: more than this for the host copies would only swap or fail. */
static size_t ooc_host_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : (size_t)-1;
}

int sk_ooc_host_get(sk_ooc *o, size_t bytes, void **p)
{
    *p = NULL;
    if (o->dev.ops->host_alloc(&o->dev, bytes, p) == 0) return 1;
    *p = calloc(bytes ? bytes : 1, 1);
    return 0;
}

void sk_ooc_host_put(sk_ooc *o, void *p, int pinned)
{
    if (pinned)
        o->dev.ops->host_free(&o->dev, p);
    else
        free(p);
}

/*
 * The two time levels in pinned memory where the device gives it (transfers overlap), else in
 * plain memory; sk_upload fills both from level 0, the host image, zeroed as in core
 * (sk_ooc_start).
 */
static int ooc_host_arrays(sk_run *r, long long limit)
{
    sk_ooc *o = r->ooc;
    const char *file = sk_ooc_file_base(r);
    if (file) return ooc_map(r, file);
    int fits = o->bytes <= ooc_host_ram() / OOC_ARRAYS;
    for (int i = 0; i < OOC_ARRAYS && fits; i++) {
        o->pinned[i] = sk_ooc_host_get(o, o->bytes, &o->arr[i]);
        fits = o->arr[i] != NULL;
    }
    if (!fits)
        return SK_FAIL(r, STENCIL_ENOMEM,
                       "the part (%zu bytes per time level) fits neither the device (limit "
                       "%lld bytes, 0: none given) nor host memory (%d x %zu bytes of %zu); "
                       "options.ooc_file puts it in a file",
                       o->bytes, limit, OOC_ARRAYS, o->bytes, ooc_host_ram());
    return 0;
}

static void ooc_free_chunks(sk_ooc *o)
{
    for (int k = 0; k < OOC_MAXBUFS; k++) {
        if (o->cb[k]) o->dev.ops->mem_free(&o->dev, o->cb[k]);
        o->cb[k] = NULL;
    }
    if (o->carry) o->dev.ops->mem_free(&o->dev, o->carry);
    o->carry = NULL;
}

/*
 * o->nbufs chunk buffers of o->cap rows and, for parallelograms (ooc_chunk.c), a carry of two
 * ranges of o->ccap rows: within the limit when one is given, else buffers of an eighth of the
 * part and its halo rows, halved while the device refuses the memory.
 */
static int ooc_chunks(sk_run *r, long long limit)
{
    sk_ooc *o = r->ooc;
    long ext = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    long halo = (long)r->steps * (r->st.rlo[0] + r->st.rhi[0]);
    long cap = sk_ooc_cap(r, r->steps, &o->ccap);
    r->ooc_short = 0;
    if (cap < 1 + halo) {
        /* A smaller T may fit (sk_ooc_retry); the bound is exact while the rows stay as wide. */
        int T = r->steps - 1;
        while (T > 1 && !sk_ooc_fits(r, T)) T--;
        r->ooc_short = r->steps > 1 ? T : 0;
        return SK_FAIL(r, STENCIL_EDEVMEM,
                       "device memory limit %lld bytes: out of core needs at least %d x %ld rows "
                       "of %zu bytes",
                       limit, o->nbufs, 1 + halo, o->row_bytes);
    }
    for (;;) {
        int rc = 0;
        o->cap = cap < ext ? cap : ext;
        if (sk_ooc_layout(r)) return SK_FAIL(r, STENCIL_ENOMEM, "out of host memory");
        for (int i = 0; i < o->nbufs && !rc; i++)
            rc = o->dev.ops->mem_alloc(&o->dev, (size_t)o->cap * o->row_bytes, &o->cb[i]);
        if (!rc && o->skew)
            rc = o->dev.ops->mem_alloc(&o->dev, 2 * (size_t)o->ccap * o->row_bytes, &o->carry);
        if (!rc) return 0;
        ooc_free_chunks(o);
        if (rc == STENCIL_EDEVMEM && limit <= 0 && cap <= 1 + halo && r->steps > 1)
            r->ooc_short = r->steps / 2; /* the device refused even the least chunks of this T */
        if (rc != STENCIL_EDEVMEM || limit > 0 || cap <= 1 + halo)
            return SK_FAIL(r, rc, "out-of-core chunk buffers: %s", o->dev.err);
        cap = halo + (cap - halo + 1) / 2;
    }
}

/* What an in-core attempt left allocated goes, and the device moves to o->dev. */
static int ooc_swap_devices(sk_run *r)
{
    sk_ooc *o = r->ooc;
    for (int i = 0; i < 2; i++) {
        if (r->buf[i]) r->dev.ops->mem_free(&r->dev, r->buf[i]);
        r->buf[i] = NULL;
    }
    for (int i = 0; i < r->nscr; i++) /* the sweeps step through chunk buffers instead */
        if (r->scr[i]) r->dev.ops->mem_free(&r->dev, r->scr[i]);
    memset(r->scr, 0, sizeof r->scr);
    r->nscr = r->fused = 0;
    sk_exchange_free(&r->x, &r->dev);
    free(r->host);
    r->host = NULL;
    o->dev = r->dev;
    o->dev_open = r->dev_open;
    memset(&r->dev, 0, sizeof r->dev);
    r->dev_open = 0;
    r->opt.peer = 0;
    r->opt.trace = "";
    sb_open_args a = {.device = -1, .st = &r->st, .local = &r->loc};
    r->dev.ops = sb_find("host");
    int rc = r->dev.ops->open(&r->dev, &a);
    if (rc) return SK_FAIL(r, rc, "host copies: %s", r->dev.err);
    r->dev_open = 1;
    return 0;
}

int sk_ooc_start(sk_run *r)
{
    long long limit = 0;
    int rc = sk_ooc_limit(r, &limit);
    if (rc) return rc;
    r->ooc = calloc(1, sizeof *r->ooc);
    if (!r->ooc) return SK_FAIL(r, STENCIL_ENOMEM, "out of host memory");
    sk_ooc *o = r->ooc;
    size_t es = sb_elem_size(r->st.type);
    o->bytes = r->loc.nelems * es;
    o->row_bytes = (size_t)r->loc.stride[0] * es;
    o->dcopy = 1;
    const char *nb = r->env.ooc_bufs; /* experiments: 4 (the fourth buffer) */
    o->nbufs = nb && atoi(nb) == OOC_MAXBUFS ? OOC_MAXBUFS : OOC_BUFS;
    /* The device prepared its fused kernels of up to the run's T steps. */
    o->depth = r->steps >= 2 && r->depth >= 2 ? (r->depth < r->steps ? r->depth : r->steps) : 1;
    o->limit = limit;
    rc = ooc_swap_devices(r);
    if (!rc) rc = ooc_chunks(r, limit);
    if (rc) return rc;
    sk_ooc_probe(r);
    rc = r->rc;
    r->rc = 0;
    return rc;
}

int sk_ooc_host(sk_run *r)
{
    sk_ooc *o = r->ooc;
    int rc = ooc_host_arrays(r, o->limit);
    if (rc) return rc;
    r->buf[0] = o->arr[0];
    r->buf[1] = o->arr[1];
    r->host = r->buf[r->cur];
    /* Pinned memory comes as it was left; calloc and a fresh file are zero already. */
    if (o->pinned[r->cur]) memset(r->host, 0, o->bytes);
    rc = sk_exchange_init(&r->x, &r->loc, &r->dev, sb_elem_size(r->st.type));
    return rc ? SK_FAIL(r, rc, "%s", r->dev.err) : 0;
}

void sk_ooc_release(sk_run *r)
{
    sk_ooc *o = r->ooc;
    if (!o) return;
    if (o->dev_open) /* nothing in flight (a sweep's last download) when the buffers go */
        for (int q = 0; q < SB_NQUEUES; q++) (void)o->dev.ops->wait(&o->dev, q);
    ooc_free_chunks(o);
    free(o->a);
    if (o->map) munmap(o->map, OOC_ARRAYS * o->bytes);
    for (int i = 0; i < OOC_ARRAYS && !o->map; i++) sk_ooc_host_put(o, o->arr[i], o->pinned[i]);
    if (o->dev_open) o->dev.ops->close(&o->dev);
    r->host = NULL;
    r->buf[0] = r->buf[1] = NULL;
    free(o);
    r->ooc = NULL;
}
