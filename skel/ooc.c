/*
 * Out-of-core runs: a rank's local array (both time levels) lives in host memory and streams
 * through its device in chunks of rows of dimension 0, a slab being one contiguous range of the
 * row-major array.
 *
 * Once a rank goes out of core, r->dev becomes the host backend working on the host copies
 * (r->buf[0..1], r->host), so the exchange, views, norms, checkpoints and loads run unchanged on
 * them; the rank's real device (o->dev) only sees chunk buffers. A sweep advances the whole part
 * by T steps: per chunk [a, b) of owned rows, rows [a - T*rlo0, b + T*rhi0) of level n go up (into
 * both buffers of the chunk, since the fixed frame is read from both), T updates over boxes that
 * shrink by the radius per step ping-pong between them, and the owned rows [a, b) come down to
 * level n + 1. Uploads and downloads go on the border queue, updates on the inner queue, a join
 * between the stages; two sets of chunk buffers suffice, because the upload into a set follows
 * (on the same queue) the download of the chunk that used it, which follows its update.
 *
 * The chunk buffers have the local array's strides and fewer rows, so the kernels and the box
 * copies of the device opened for the whole local array work on them with chunk-local boxes.
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "skel.h"

#define SK_FAIL(r, code, ...) sk_fail((r)->msg, sizeof(r)->msg, code, __VA_ARGS__)
#define ODEV(r, call)                                                                              \
    do {                                                                                           \
        if (!(r)->rc) {                                                                            \
            int e_ = (call);                                                                       \
            if (e_) (r)->rc = sk_fail((r)->msg, sizeof(r)->msg, e_, "%s", (r)->ooc->dev.err);      \
        }                                                                                          \
    } while (0)

/* The largest T of an out-of-core sweep, for a stencil of reach 1 (ooc_want). */
#define SK_OOC_MAX SL_MAX_STEPS

/* The host copies: the host image and the two time levels (three allocations, or one mapping). */
enum { OOC_ARRAYS = 3 };

struct sk_ooc {
    sb_dev dev;       /* the rank's device: chunk buffers only */
    int dev_open;     /* dev must be closed */
    sb_mem cb[2][2];  /* two sets of two chunk buffers */
    long rows;        /* owned rows per chunk (the last may have fewer) */
    long cap;         /* rows a chunk buffer holds */
    int nchunks;      /* chunks per sweep */
    size_t row_bytes; /* bytes of one row of the local array (dimension 0) */
    size_t bytes;     /* bytes of one local array */
    void *arr[OOC_ARRAYS];
    int pinned[OOC_ARRAYS]; /* from dev.host_alloc, else calloc (or the mapping) */
    void *map;              /* the file mapping holding all three, or NULL */
    long long up, down;     /* bytes moved */
    int dcopy;              /* the device copies between its buffers (copy_peer) */
    int two;                /* the device has a fast two-step kernel (fuse_level 2) */
    long sweeps;            /* sweeps done */
    double t_xfer, t_comp;  /* the first (serialized) sweep: transfers, updates */
    double cells_first;     /* cells times steps it updated */
    long long bytes_first;  /* bytes it moved */
    double t_pipe;          /* the overlapped sweeps, in all */
    long npipe;
};

static long long ooc_parse_bytes(const char *s, int *bad)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    long long mul = *end == 'k' || *end == 'K'   ? 1LL << 10
                    : *end == 'm' || *end == 'M' ? 1LL << 20
                    : *end == 'g' || *end == 'G' ? 1LL << 30
                                                 : 1;
    if (mul > 1) end++;
    *bad = end == s || *end != 0 || v < 0;
    return v * mul;
}

/* -1 off, 0 automatic, 1 on: options.out_of_core, else $STENCIL_OOC. */
int sk_ooc_mode(const sk_run *r)
{
    if (r->ooc_force) return 1;
    if (r->opt.out_of_core) return r->opt.out_of_core > 0 ? 1 : -1;
    const char *e = getenv("STENCIL_OOC");
    if (e && (!strcmp(e, "on") || !strcmp(e, "1"))) return 1;
    if (e && (!strcmp(e, "off") || !strcmp(e, "0"))) return -1;
    return 0;
}

static int ooc_limit(sk_run *r, long long *limit)
{
    const char *e = getenv("STENCIL_DEVICE_MEMORY");
    int bad = 0;
    *limit = r->opt.device_memory;
    if (*limit < 0)
        return SK_FAIL(r, STENCIL_EINVAL, "options.device_memory is negative (%lld)", *limit);
    if (!*limit && e && e[0]) *limit = ooc_parse_bytes(e, &bad);
    if (bad) return SK_FAIL(r, STENCIL_EINVAL, "STENCIL_DEVICE_MEMORY='%s' is not a size", e);
    return 0;
}

/*
 * Whether this rank will start out of core, as far as the partition at T = 1 tells (steps.c: T
 * then follows the sweeps, not the in-core model). A bad limit is reported by sk_ooc_decide.
 */
int sk_ooc_expected(sk_run *r)
{
    long long limit = 0;
    int mode = sk_ooc_mode(r);
    sl_local l;
    if (mode != 0) return mode == 1;
    const char *e = getenv("STENCIL_DEVICE_MEMORY");
    int bad = 0;
    limit = r->opt.device_memory > 0 ? r->opt.device_memory
            : e && e[0]              ? ooc_parse_bytes(e, &bad)
                                     : 0;
    if (bad || limit <= 0 || sl_local_make(&l, &r->part, &r->st, r->rank)) return 0;
    return 2LL * (long long)(l.nelems * sb_elem_size(r->st.type)) > limit;
}

/*
 * Whether this rank starts out of core (1), in core (0), or fails. Collective (calibrated weights
 * time the device on the whole part, which an out-of-core rank does not hold).
 */
int sk_ooc_decide(sk_run *r, int *want)
{
    long long limit = 0,
              need = (2LL + r->nscr) * (long long)(r->loc.nelems * sb_elem_size(r->st.type));
    int mode = sk_ooc_mode(r), anyauto = 0, rc = ooc_limit(r, &limit);
    if (MPI_Allreduce(&r->cfg.weight_auto, &anyauto, 1, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (out-of-core mode)");
    if (rc) return rc;
    if (r->opt.out_of_core < -1 || r->opt.out_of_core > 1)
        return SK_FAIL(r, STENCIL_EINVAL, "options.out_of_core is %d, not -1, 0 or 1",
                       r->opt.out_of_core);
    *want = mode == 1 || (mode == 0 && limit > 0 && need > limit);
    if (mode == -1 && limit > 0 && need > limit)
        return SK_FAIL(r, STENCIL_EDEVMEM,
                       "the part needs %lld bytes of device memory, the limit is %lld and "
                       "out-of-core runs are off",
                       need, limit);
    if (*want && anyauto)
        return SK_FAIL(r, STENCIL_EINVAL,
                       "weights=auto cannot calibrate an out-of-core rank: give the weights");
    return 0;
}

/* The host copies in one file mapping: removed at once, so it goes when the run does. */
static int ooc_map(sk_run *r, const char *base)
{
    sk_ooc *o = r->ooc;
    char path[4096];
    size_t total = OOC_ARRAYS * o->bytes;
    snprintf(path, sizeof path, "%s.%d", base, r->rank);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (fd < 0) return SK_FAIL(r, STENCIL_EIO, "cannot create the out-of-core file %s", path);
    unlink(path);
    int err = posix_fallocate(fd, 0, (off_t)total);
    void *p = err ? MAP_FAILED : mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return SK_FAIL(r, STENCIL_EIO, "the out-of-core file %s cannot hold or map %zu bytes (%s)",
                       path, total, err ? strerror(err) : "mmap failed");
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

/*
 * The two time levels in pinned memory where the device gives it (transfers overlap), else in
 * plain memory; sk_upload fills both. The host image the callbacks see is zeroed, as in core.
 */
static int ooc_host_arrays(sk_run *r, long long limit)
{
    sk_ooc *o = r->ooc;
    const char *file = r->opt.ooc_file ? r->opt.ooc_file : getenv("STENCIL_OOC_FILE");
    if (file && file[0]) return ooc_map(r, file);
    int fits = o->bytes <= ooc_host_ram() / OOC_ARRAYS;
    for (int i = 0; i < OOC_ARRAYS && fits; i++) {
        o->pinned[i] = i > 0 && o->dev.ops->host_alloc(&o->dev, o->bytes, &o->arr[i]) == 0;
        if (!o->pinned[i]) o->arr[i] = calloc(o->bytes ? o->bytes : 1, 1);
        fits = o->arr[i] != NULL;
    }
    if (!fits)
        return SK_FAIL(r, STENCIL_ENOMEM,
                       "the part (%zu bytes per time level) fits neither the device (limit "
                       "%lld bytes, 0: none given) nor host memory (3 x %zu bytes of %zu); "
                       "options.ooc_file puts it in a file",
                       o->bytes, limit, o->bytes, ooc_host_ram());
    return 0;
}

static void ooc_free_chunks(sk_ooc *o)
{
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 2; k++) {
            if (o->cb[s][k]) o->dev.ops->mem_free(&o->dev, o->cb[s][k]);
            o->cb[s][k] = NULL;
        }
}

/* Chunk geometry for `rows` owned rows per chunk (halo rows of T steps on both sides). */
static void ooc_geometry(sk_run *r, long rows)
{
    sk_ooc *o = r->ooc;
    long owned = r->loc.owned.hi[0] - r->loc.owned.lo[0];
    if (rows > owned) rows = owned;
    if (rows < 1) rows = 1;
    o->nchunks = (int)((owned + rows - 1) / rows);
    o->rows = o->nchunks ? (owned + o->nchunks - 1) / o->nchunks : 1;
    o->cap = o->rows + (long)r->steps * (r->st.rlo[0] + r->st.rhi[0]);
    long ext = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    if (o->cap > ext) o->cap = ext;
}

/*
 * Four chunk buffers: within the limit when one is given, else eight chunks to start with,
 * halving the chunk while the device refuses the memory.
 */
static int ooc_chunks(sk_run *r, long long limit)
{
    sk_ooc *o = r->ooc;
    long owned = r->loc.owned.hi[0] - r->loc.owned.lo[0];
    long halo = (long)r->steps * (r->st.rlo[0] + r->st.rhi[0]);
    long rows = limit > 0 ? (long)(limit / (4 * (long long)o->row_bytes)) - halo : (owned + 7) / 8;
    if (rows < 1)
        return SK_FAIL(r, STENCIL_EDEVMEM,
                       "device memory limit %lld bytes: out of core needs at least 4 x %ld rows "
                       "of %zu bytes",
                       limit, 1 + halo, o->row_bytes);
    for (;;) {
        int rc = 0;
        ooc_geometry(r, rows);
        for (int i = 0; i < 4 && !rc; i++)
            rc =
                o->dev.ops->mem_alloc(&o->dev, (size_t)o->cap * o->row_bytes, &o->cb[i / 2][i % 2]);
        if (!rc) return 0;
        ooc_free_chunks(o);
        if (rc != STENCIL_EDEVMEM || limit > 0 || rows == 1)
            return SK_FAIL(r, rc, "out-of-core chunk buffers: %s", o->dev.err);
        rows /= 2;
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
    int rc = ooc_limit(r, &limit);
    if (rc) return rc;
    r->ooc = calloc(1, sizeof *r->ooc);
    if (!r->ooc) return SK_FAIL(r, STENCIL_ENOMEM, "out of host memory");
    sk_ooc *o = r->ooc;
    size_t es = sb_elem_size(r->st.type);
    o->bytes = r->loc.nelems * es;
    o->row_bytes = (size_t)r->loc.stride[0] * es;
    o->dcopy = 1;
    o->two = r->fast2;
    rc = ooc_swap_devices(r);
    if (!rc) rc = ooc_host_arrays(r, limit);
    if (!rc) rc = ooc_chunks(r, limit);
    if (rc) return rc;
    r->host = o->arr[0];
    r->buf[0] = o->arr[1];
    r->buf[1] = o->arr[2];
    rc = sk_exchange_init(&r->x, &r->loc, &r->dev, es);
    return rc ? SK_FAIL(r, rc, "%s", r->dev.err) : 0;
}

void sk_ooc_release(sk_run *r)
{
    sk_ooc *o = r->ooc;
    if (!o) return;
    ooc_free_chunks(o);
    if (o->map) munmap(o->map, OOC_ARRAYS * o->bytes);
    for (int i = 0; i < OOC_ARRAYS && !o->map; i++) {
        if (o->pinned[i])
            o->dev.ops->host_free(&o->dev, o->arr[i]);
        else
            free(o->arr[i]);
    }
    if (o->dev_open) o->dev.ops->close(&o->dev);
    r->host = NULL;
    r->buf[0] = r->buf[1] = NULL;
    free(o);
    r->ooc = NULL;
}

/* Box b widened by w steps of the radius per side, in every dimension, inside the live box. */
static sl_box ooc_step_box(const sk_run *r, long a, long b, int w)
{
    sl_box owned = sl_local_box(&r->loc, &r->loc.owned), live = sl_local_box(&r->loc, &r->loc.live);
    owned.lo[0] = a;
    owned.hi[0] = b;
    for (int d = 0; d < r->st.ndims; d++) {
        owned.lo[d] -= (long)w * r->st.rlo[d];
        owned.hi[d] += (long)w * r->st.rhi[d];
    }
    return sl_box_intersect(&owned, &live);
}

/* Rows [lo, hi) of the local array: host rows to chunk rows from `base` on. */
static void ooc_move(sk_run *r, int q, sb_mem m, long base, long lo, long hi, void *arr, int out)
{
    sk_ooc *o = r->ooc;
    long ext0 = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    lo = lo < 0 ? 0 : lo;
    hi = hi > ext0 ? ext0 : hi;
    if (hi <= lo) return;
    sl_box b = sl_local_box(&r->loc, &r->loc.ext);
    b.lo[0] = lo - base;
    b.hi[0] = hi - base;
    char *h = (char *)arr + (size_t)lo * o->row_bytes;
    size_t n = (size_t)(hi - lo) * o->row_bytes;
    if (out) {
        ODEV(r, o->dev.ops->copy_out(&o->dev, q, m, &b, h));
        o->down += (long long)n;
    } else {
        ODEV(r, o->dev.ops->copy_in(&o->dev, q, m, &b, h));
        o->up += (long long)n;
    }
}

/* Owned rows [a, b) of chunk i, in local indices. */
static void ooc_rows(const sk_run *r, int i, long *a, long *b)
{
    long o0 = r->loc.owned.lo[0] - r->loc.ext.lo[0], o1 = r->loc.owned.hi[0] - r->loc.ext.lo[0];
    *a = o0 + (long)i * r->ooc->rows;
    *b = *a + r->ooc->rows < o1 ? *a + r->ooc->rows : o1;
}

static long ooc_base(const sk_run *r, long a, int T)
{
    long base = a - (long)T * r->st.rlo[0];
    return base < 0 ? 0 : base;
}

/*
 * Rows [lo, hi) of chunk buffer 0 into buffer 1, on the device where the backend copies between
 * its own buffers (copy_peer), else again from the host (o->dcopy = 0 after the first refusal).
 */
static void ooc_dup(sk_run *r, sb_mem *cb, long base, long lo, long hi, void *arr)
{
    sk_ooc *o = r->ooc;
    long ext0 = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    lo = lo < 0 ? 0 : lo;
    hi = hi > ext0 ? ext0 : hi;
    if (hi <= lo) return;
    if (o->dcopy) {
        sl_box b = sl_local_box(&r->loc, &r->loc.ext);
        b.lo[0] = lo - base;
        b.hi[0] = hi - base;
        int rc = o->dev.ops->copy_peer(&o->dev, SB_QBORDER, cb[1], &b, r->loc.stride, cb[0], &b,
                                       r->loc.stride);
        if (rc == 0) return;
        if (rc != STENCIL_ENOSYS) {
            ODEV(r, rc);
            return;
        }
        o->dcopy = 0;
    }
    ooc_move(r, SB_QBORDER, cb[1], base, lo, hi, arr, 0);
}

/* Chunk i's rows with their margins into both buffers of its set (the frame is read from both). */
static void ooc_upload(sk_run *r, int i, int src, int T)
{
    long a, b, base;
    ooc_rows(r, i, &a, &b);
    base = ooc_base(r, a, T);
    sb_mem *cb = r->ooc->cb[i & 1];
    ooc_move(r, SB_QBORDER, cb[0], base, base, b + (long)T * r->st.rhi[0], r->buf[src], 0);
    ooc_dup(r, cb, base, a - (long)(T - 1) * r->st.rlo[0], b + (long)(T - 1) * r->st.rhi[0],
            r->buf[src]);
    ODEV(r, r->ooc->dev.ops->flush(&r->ooc->dev, SB_QBORDER));
}

/*
 * The T steps of chunk i, ping-pong between its two buffers: step s over the chunk widened by
 * T - s; where the device has a fast two-step kernel (o->two), steps s and s + 1 in one update2
 * (which computes step s where step s + 1 reads it). Returns the cells times steps; *out: the
 * buffer the last step wrote.
 */
static double ooc_compute(sk_run *r, int i, int T, int *out)
{
    sk_ooc *o = r->ooc;
    long a, b, base;
    double cells = 0;
    int w = 0; /* the buffer read next */
    ooc_rows(r, i, &a, &b);
    base = ooc_base(r, a, T);
    sb_mem *cb = o->cb[i & 1];
    sl_box live = sl_local_box(&r->loc, &r->loc.live);
    live.lo[0] -= base;
    live.hi[0] -= base;
    for (int s = 1; s <= T; s++) {
        int two = o->two && s < T;
        sl_box box = ooc_step_box(r, a, b, T - s - two);
        box.lo[0] -= base;
        box.hi[0] -= base;
        if (!sl_box_empty(&box)) {
            cells += (double)sl_box_volume(&box) * (two ? 2 : 1);
            if (two)
                ODEV(r, o->dev.ops->update2(&o->dev, SB_QINNER, cb[w], cb[w ^ 1], &box, &live));
            else
                ODEV(r, o->dev.ops->update(&o->dev, SB_QINNER, cb[w], cb[w ^ 1], &box));
        }
        w ^= 1;
        s += two;
    }
    *out = w;
    return cells;
}

/* Owned rows of chunk i from buffer w of its set, after its updates on the same queue. */
static void ooc_download(sk_run *r, int i, int dst, int T, int w)
{
    long a, b;
    ooc_rows(r, i, &a, &b);
    ooc_move(r, SB_QINNER, r->ooc->cb[i & 1][w], ooc_base(r, a, T), a, b, r->buf[dst], 1);
    ODEV(r, r->ooc->dev.ops->flush(&r->ooc->dev, SB_QINNER));
}

/* Serialized: waits for queue q and adds the time since *t to *sum. */
static void ooc_stage_end(sk_run *r, int ser, int q, double *t, double *sum)
{
    if (!ser) return;
    ODEV(r, r->ooc->dev.ops->wait(&r->ooc->dev, q));
    double now = MPI_Wtime();
    *sum += now - *t;
    *t = now;
}

/* One sweep: buf[src] advanced T steps into buf[src ^ 1]; errors go to r->rc. */
void sk_ooc_sweep(sk_run *r, int src, int T)
{
    sk_ooc *o = r->ooc;
    const sb_ops *ops = o->dev.ops;
    int ser = o->sweeps == 0 || r->opt.serialize || !ops->async;
    long long moved = o->up + o->down;
    double t0 = MPI_Wtime(), t = t0, cells = 0, tx = 0, tc = 0;
    /*
     * Uploads on the border queue, updates and downloads on the inner queue: the upload of chunk
     * i + 1 overlaps the updates and the download of chunk i (both directions of the link at
     * once). The join before chunk i makes its updates wait for its upload, and the upload of
     * chunk i + 1 for the download of chunk i - 1, which used the same set of buffers.
     */
    if (o->nchunks > 0) ooc_upload(r, 0, src, T);
    ooc_stage_end(r, ser, SB_QBORDER, &t, &tx);
    for (int i = 0; i < o->nchunks; i++) {
        int w = 0;
        ODEV(r, ops->join(&o->dev));
        cells += ooc_compute(r, i, T, &w);
        ODEV(r, ops->flush(&o->dev, SB_QINNER));
        ooc_stage_end(r, ser, SB_QINNER, &t, &tc);
        ooc_download(r, i, src ^ 1, T, w);
        ooc_stage_end(r, ser, SB_QINNER, &t, &tx);
        if (i + 1 < o->nchunks) ooc_upload(r, i + 1, src, T);
        ooc_stage_end(r, ser, SB_QBORDER, &t, &tx);
    }
    ODEV(r, ops->wait(&o->dev, SB_QBORDER));
    ODEV(r, ops->wait(&o->dev, SB_QINNER));
    if (o->sweeps++ == 0) {
        o->t_xfer = tx;
        o->t_comp = tc;
        o->cells_first = cells;
        o->bytes_first = o->up + o->down - moved;
    } else if (!ser) {
        o->t_pipe += MPI_Wtime() - t0;
        o->npipe++;
    }
}

/* The device's figures replace the host copies' in the statistics. */
void sk_ooc_stats(sk_run *r, stencil_stats *s)
{
    sk_ooc *o = r->ooc;
    double x = o->t_xfer, c = o->t_comp;
    s->ooc = 1;
    s->ooc_chunks = o->nchunks;
    s->ooc_up = o->up;
    s->ooc_down = o->down;
    s->ooc_bandwidth = x > 0 ? (double)o->bytes_first / x : 0;
    s->ooc_rate = c > 0 ? o->cells_first / c : 0;
    s->ooc_hidden = 0;
    if (o->npipe > 0 && x > 0) {
        double hid = (x + c - o->t_pipe / (double)o->npipe) / x;
        s->ooc_hidden = hid < 0 ? 0 : hid > 1 ? 1 : hid;
    }
    s->device_bytes = o->dev.device_bytes;
    snprintf(s->backend, sizeof s->backend, "%s", o->dev.ops->name);
    snprintf(s->device, sizeof s->device, "%s", o->dev.name);
    snprintf(s->kernel, sizeof s->kernel, "%s", o->dev.kernel[0] ? o->dev.kernel : "generic");
}

/*
 * The probe for T: chunk 0 up (host->device bytes/s) and its first step (or two, with update2)
 * on the device (cells/s per step), each timed on its second run, the first paying for first
 * touches and kernel loads.
 */
static void ooc_probe(sk_run *r)
{
    sk_ooc *o = r->ooc;
    const sb_ops *ops = o->dev.ops;
    long a, b;
    ooc_rows(r, 0, &a, &b);
    long base = ooc_base(r, a, r->steps);
    sl_box box = ooc_step_box(r, a, b, 0), live = sl_local_box(&r->loc, &r->loc.live);
    box.lo[0] -= base, box.hi[0] -= base, live.lo[0] -= base, live.hi[0] -= base;
    double t[3] = {0, 0, 0};
    long long up = o->up;
    for (int k = 0; k < 2 && !r->rc; k++) {
        t[0] = MPI_Wtime();
        ooc_move(r, SB_QBORDER, o->cb[0][0], base, base, b + (long)r->steps * r->st.rhi[0],
                 r->buf[0], 0);
        ODEV(r, ops->wait(&o->dev, SB_QBORDER));
        t[1] = MPI_Wtime();
        if (o->two)
            ODEV(r, ops->update2(&o->dev, SB_QINNER, o->cb[0][0], o->cb[0][1], &box, &live));
        else
            ODEV(r, ops->update(&o->dev, SB_QINNER, o->cb[0][0], o->cb[0][1], &box));
        ODEV(r, ops->wait(&o->dev, SB_QINNER));
        t[2] = MPI_Wtime();
    }
    double bytes = (double)(o->up - up) / 2, cells = (double)sl_box_volume(&box) * (o->two + 1);
    o->up = up;
    if (r->rc || t[1] <= t[0] || t[2] <= t[1]) return;
    r->ooc_bw = bytes / (t[1] - t[0]);
    r->ooc_rate = cells / (t[2] - t[1]);
}

/*
 * The T a sweep wants: its updates (rate cells/s per step) as long as its transfers (each cell
 * once up and once down, at once, bw bytes/s each way), with a quarter to spare; beyond two (which
 * halve the transfers at little cost), at most what keeps a chunk's halo rows under a quarter of
 * its rows, and what the halo pattern's composition allows (SK_OOC_MAX steps of reach 1).
 */
static int ooc_want(const sk_run *r)
{
    const sk_ooc *o = r->ooc;
    double es = (double)sb_elem_size(r->st.type);
    int reach = 1, T = 1;
    for (int d = 0; d < r->st.ndims; d++) {
        reach = r->st.rlo[d] > reach ? r->st.rlo[d] : reach;
        reach = r->st.rhi[d] > reach ? r->st.rhi[d] : reach;
    }
    if (r->ooc_bw > 0 && r->ooc_rate > 0) T = (int)ceil(1.25 * r->ooc_rate * es / r->ooc_bw);
    long cap = o->rows / (4L * (r->st.rlo[0] + r->st.rhi[0] > 0 ? r->st.rlo[0] + r->st.rhi[0] : 1));
    if (T > cap) T = (int)cap;
    if (T > SK_OOC_MAX / reach) T = SK_OOC_MAX / reach;
    return T < 2 ? 2 : T;
}

/*
 * The steps per exchange were chosen before anyone knew the parts would not fit. When every rank
 * is out of core and T was not forced, the probe says what T the sweeps want (ooc_want: the
 * smallest over the ranks), and set-up runs again with it when it differs.
 */
int sk_ooc_again(sk_run *r)
{
    int mine[2] = {r->ooc != NULL, SK_OOC_MAX}, all[2] = {0, 0};
    if (r->ooc_force || r->opt.fuse != 0 || r->iters < 2) mine[0] = 0;
    if (mine[0]) {
        ooc_probe(r);
        mine[1] = ooc_want(r);
        if (r->rc) mine[0] = 0;
    }
    if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, r->comm) != MPI_SUCCESS) return 0;
    int T = all[1] < r->iters ? all[1] : (int)r->iters;
    if (!all[0] || T == r->steps) return 0;
    r->ooc_force = 1;
    r->ooc_T = T;
    return 1;
}
