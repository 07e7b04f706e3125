/*
 * Program runs out of core (skprog.h): every level of every field, coefficients included, lives
 * in host memory (pinned where the device gives it; in options.ooc_file where one is given), and
 * streams through the device in chunks of rows of dimension 0, as skel/ooc.c does for a
 * stencil's array. r->dev becomes the host backend on those host levels, so the exchange, the
 * ghosts, the frames, norms, views and checkpoints run unchanged on them; only the updates go to
 * the rank's real device (sp->ooc->dev), which sees chunk buffers with the local array's strides
 * and fewer rows.
 *
 * A sweep (sk_psweep) runs m steps chunk by chunk: a chunk's rows and the rows its steps read
 * go up for every field's current level (and previous level where kept), the device runs the
 * m steps over the chunk's part of each step's boxes in chunk-local indices, and whole rows of
 * the last level come down into the host level being written. A pass of T steps is one sweep
 * (prog_loop.c, ooc_pass), so each level crosses the link once per pass; the rank's own
 * periodic halos and the mirror ghosts are made on the device, in each chunk, as the host makes
 * them in core. Where the chunks would be thinner than their halo rows, each step is a sweep
 * of its own (sk_prog_update) and the host makes them. Results are bitwise those in core: every
 * cell is computed by the same kernels from the same inputs.
 *
 * The kernels see the index of a cell from the origin the device was opened with; a chunk's
 * launches add its first row (sb_prog_step.base), so the index i is that of the cell in core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ooc.h"
#include "skprog.h"

/* Sets of chunk buffers: three where they fit, so that chunk j + 1 goes up while chunk j is
   computed and chunk j - 1 comes down; else one, stage after stage. */
enum { POOC_SETS = SK_POOC_SETS, POOC_LEVELS = 4 * KGT_PROG_MAX_FIELDS };

/* The fewest rows each part of a split chunk computes (chunk_steps). */
enum { POOC_SPLIT = 8 };

/* Where a host level's memory comes from. */
enum { LEVEL_MALLOC, LEVEL_PINNED /* dev.host_alloc */, LEVEL_MAPPED /* the out-of-core file */ };

typedef struct sk_pooc {
    sb_dev dev;                                  /* the rank's device: chunk buffers only */
    sb_mem in[POOC_SETS][KGT_PROG_MAX_FIELDS];   /* per field: its current level's rows */
    sb_mem prev[POOC_SETS][KGT_PROG_MAX_FIELDS]; /* fields that keep their previous level */
    sb_mem out[POOC_SETS][KGT_PROG_MAX_FIELDS];  /* evolving fields: the level written */
    sb_mem pout[POOC_SETS][KGT_PROG_MAX_FIELDS]; /* fused, previous level kept: the one before */
    void *level[POOC_LEVELS];                    /* the host levels (sk_prog_ooc_level) */
    int from[POOC_LEVELS];                       /* LEVEL_* */
    size_t lbytes[POOC_LEVELS];                  /* their sizes, where mapped */
    int fd;             /* the out-of-core file (options.ooc_file) holding them, or -1 */
    long long fbytes;   /* its bytes mapped so far */
    sk_psweep *sw;      /* the sweep being run */
    int nsets;          /* 3 (a pipeline) or 1 */
    int multi;          /* a pass of T steps is one sweep (sk_prog_ooc_multi), else each step is */
    int fuse;           /* steps per prog_update_k in a sweep (0 or 1: none) */
    long cap, hlo, hhi; /* rows of a chunk buffer; rows read below and above */
    long long up, down, limit; /* bytes moved; the device memory limit (0: none) */
    int nbufs, chunks;         /* chunk buffers per set; the most chunks of a sweep */
    /* The sweep being run (sweep_plan): its runs of steps (each one prog_update_k, or one
       prog_update where 1), and for parallelograms (skew) each step's rows below and above a
       chunk's own [a, b) where a neighbour chunk meets it, the rows below a that a chunk's
       buffers start at and above b where they end, and the rows above a its evolving fields'
       uploads start at. */
    int nrun, run[SL_MAX_STEPS], skew;
    long slo[SL_MAX_STEPS], shi[SL_MAX_STEPS], xend[SL_MAX_STEPS], sbase, stop, ubase;
} sk_pooc;

/* Chunk j of a sweep: it computes rows [a, b) of the last level, its buffers' row 0 is local
   row base, and rows [base, top) go up ([up, top) of its evolving fields' current levels); fin
   and pen: the buffers with its last level and the one before, once computed. slo, shi: its
   lower and upper edges are a parallelogram's (sweep_plan), else a trapezoid's; k: its set.
   m: where its steps split (chunk_steps), 0 where they do not. */
typedef struct pchunk {
    long a, b, base, top, up, m;
    int slo, shi, k;
    sb_mem fin[KGT_PROG_MAX_FIELDS], pen[KGT_PROG_MAX_FIELDS];
} pchunk;

/* A failure of the device's call e into r->rc, with the device's message; callers skip calls
   once r->rc is set, as SK_DEV does. */
static void odev(sk_run *r, const sk_pooc *o, int e)
{
    if (e && !r->rc) r->rc = err_set(r->msg, sizeof r->msg, e, "%s", o->dev.err);
}

/* Bytes of every level of every field: what in core allocates on the device. */
static long long level_bytes(const sk_run *r)
{
    return sk_prog_levels(r->prog->p, 0) * (long long)(r->loc.nelems * sb_elem_size(r->st.type));
}

int sk_prog_ooc_want(sk_run *r, int *want)
{
    long long limit = 0;
    int mode = sk_ooc_mode(r), rc = sk_ooc_limit(r, &limit);
    *want = 0;
    if (rc) return rc;
    if (r->opt.out_of_core < -1 || r->opt.out_of_core > 1)
        return SK_FAIL(r, STENCIL_EINVAL, "options.out_of_core is %d, not -1, 0 or 1",
                       r->opt.out_of_core);
    long long need = level_bytes(r);
    if (mode == -1 && limit > 0 && need > limit)
        return SK_FAIL(r, STENCIL_EDEVMEM,
                       "the program's levels need %lld bytes of device memory, the limit is %lld "
                       "and out-of-core runs are off",
                       need, limit);
    *want = mode == 1 || (mode == 0 && limit > 0 && need > limit);
    return 0;
}

/* The rows of a chunk buffer: within the limit, else an eighth of the part and its halo rows. */
static long chunk_rows(const sk_run *r, const sk_pooc *o)
{
    long ext = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    size_t row = (size_t)r->loc.stride[0] * sb_elem_size(r->st.type);
    long cap = o->limit > 0 ? (long)(o->limit / (long long)((size_t)(o->nsets * o->nbufs) * row))
                            : (r->loc.owned.hi[0] - r->loc.owned.lo[0]) / 8 + o->hlo + o->hhi + 1;
    return cap < ext ? cap : ext;
}

static int alloc_sets(sk_run *r, sk_pooc *o, size_t bytes)
{
    const kgt_prog *p = r->prog->p;
    int rc = 0;
    for (int k = 0; k < o->nsets; k++)
        for (int f = 0; f < p->nf && !rc; f++) {
            sb_mem *m[4] = {&o->in[k][f], p->f[f].coef ? NULL : &o->out[k][f],
                            p->f[f].keeps ? &o->prev[k][f] : NULL,
                            p->f[f].keeps && o->fuse >= 2 ? &o->pout[k][f] : NULL};
            for (int i = 0; i < 4 && !rc; i++)
                if (m[i]) rc = o->dev.ops->mem_alloc(&o->dev, bytes, m[i]);
        }
    return rc ? SK_FAIL(r, rc, "out-of-core chunk buffers: %s", o->dev.err) : 0;
}

/*
 * Whether the sweeps' chunks may be parallelograms (sweep_plan): three sets, passes of more steps
 * than one run of them, no previous level kept; then *stop and *sbase: at most the rows above a
 * chunk that its buffers hold (T steps of the larger reach) and below it (one run's reach).
 */
static int parallel(const sk_run *r, const sk_pooc *o, long *stop, long *sbase)
{
    int F = o->fuse >= 2 ? o->fuse : 1, T = r->prog->T;
    *stop = (long)T * sk_ooc_reach0(r);
    *sbase = (long)F * r->st.rlo[0];
    return o->nsets == POOC_SETS && o->multi && T > F && !sk_prog_keeps(r->prog->p);
}

/* The rows a chunk buffer holds beyond those its chunk computes: a trapezoid's T steps of reach
   on both sides (hlo, hhi), or a parallelogram's where it may be one and that is fewer. */
static long chunk_halo(const sk_run *r, const sk_pooc *o)
{
    long stop, sbase, trap = o->hlo + o->hhi;
    return parallel(r, o, &stop, &sbase) && stop + sbase < trap ? stop + sbase : trap;
}

/* Whether a sweep's first and last parallelogram chunks fit o->cap rows (sweep_chunks: a
   quarter of a chunk's rows, with a trapezoid's halo on the outer side), stop and sbase the
   rows above and below a chunk that its buffers hold. */
static int ends_fit(const sk_pooc *o, long stop, long sbase)
{
    long rows = o->cap - stop - sbase, q = rows / 4 > 0 ? rows / 4 : 1;
    return q + o->hlo + stop <= o->cap && sbase + q + o->hhi <= o->cap;
}

/*
 * Whether three sets of o->cap rows pipeline: a chunk computes more rows than its reads reach, as
 * trapezoids or, where they may be, parallelograms, whose first and last chunks fit too; the
 * trapezoids of a sweep that cannot be parallelograms then compute at least a row.
 */
static int pipelines(const sk_run *r, const sk_pooc *o)
{
    long stop, sbase, cap = o->cap, least = o->hlo + o->hhi + 1;
    if (cap >= 2 * least) return 1;
    if (cap < least || !parallel(r, o, &stop, &sbase)) return 0;
    return cap - stop - sbase > stop + sbase && ends_fit(o, stop, sbase);
}

/* Three sets of chunk buffers where they pipeline, else one; halved while the device refuses
   them when no limit is given. */
static int alloc_chunks(sk_run *r, sk_pooc *o)
{
    const kgt_prog *p = r->prog->p;
    size_t row = (size_t)r->loc.stride[0] * sb_elem_size(r->st.type);
    long least = o->hlo + o->hhi + 1;
    o->nbufs = sk_prog_levels(p, o->fuse >= 2);
    for (;;) {
        o->nsets = POOC_SETS;
        o->cap = chunk_rows(r, o);
        if (!pipelines(r, o)) {
            o->nsets = 1;
            o->cap = chunk_rows(r, o);
        }
        if (o->cap < least)
            return SK_FAIL(r, STENCIL_EDEVMEM,
                           "device memory limit %lld bytes: the program out of core needs at "
                           "least %d x %ld rows of %zu bytes",
                           o->limit, o->nbufs, least, row);
        int rc = alloc_sets(r, o, (size_t)o->cap * row);
        if (!rc) return 0;
        sk_prog_ooc_free(r);
        if (rc != STENCIL_EDEVMEM || o->limit > 0 || o->cap <= least) return rc;
        r->msg[0] = '\0';
        o->limit = (long long)(o->cap / 2) * (long long)((size_t)(o->nsets * o->nbufs) * row);
    }
}

int sk_prog_ooc_start(sk_run *r)
{
    sk_prog *sp = r->prog;
    sk_pooc *o = sp->ooc = calloc(1, sizeof *sp->ooc);
    if (!o) return SK_FAIL(r, STENCIL_ENOMEM, "out of memory");
    o->fd = -1;
    int rc = sk_ooc_limit(r, &o->limit);
    if (rc) return rc;
    o->sw = calloc(1, sizeof *o->sw);
    if (!o->sw) return SK_FAIL(r, STENCIL_ENOMEM, "out of memory");
    o->dev = r->dev; /* the device opened for the program: the kernels are its */
    memset(&r->dev, 0, sizeof r->dev);
    r->dev_open = 0;
    sb_open_args a = {.device = -1, .st = &r->st, .local = &r->loc};
    r->dev.ops = sb_find("host");
    rc = r->dev.ops->open(&r->dev, &a);
    if (rc) return SK_FAIL(r, rc, "host levels: %s", r->dev.err);
    r->dev_open = 1;
    /* One update of the whole box per step: border slabs along the rows would each stream
       every row of every level through the device again, for an inner update to overlap. */
    for (int f = 0; f < sp->p->nf; f++) {
        sl_box none = sp->box[f];
        none.hi[0] = none.lo[0];
        sp->inner[f] = none;
        for (int i = 0; i < 2 * SL_D; i++) sp->border[f][i] = i ? none : sp->box[f];
    }
    /* Sweeps of whole passes, with chunks that compute at least as many rows as their halo
       holds; else one sweep per step. Fused runs of steps where they may replace the substeps
       (sk_prog_fuse_reads; a field that keeps its previous level then has a fourth buffer a set,
       for the level before the run's last). */
    long long limit = o->limit;
    long ext = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    int nofuse = !sk_prog_fuse_reads(sp->p);
    for (o->multi = 1;; o->multi = 0) {
        o->hlo = o->multi ? sp->R[0][0] : r->st.rlo[0];
        o->hhi = o->multi ? sp->R[0][1] : r->st.rhi[0];
        o->fuse = 0;
        if (o->multi && sp->T > 1 && !nofuse && o->dev.ops->prog_update_k &&
            o->dev.ops->prog_fuse_depth) {
            int n = o->dev.ops->prog_fuse_depth(&o->dev);
            o->fuse = n > SB_PROG_FUSE_MAX ? SB_PROG_FUSE_MAX : n;
        }
        o->limit = limit;
        rc = alloc_chunks(r, o);
        long halo = chunk_halo(r, o);
        int thin = !rc && o->cap < ext && o->cap - halo < halo;
        if (!o->multi || sp->T == 1 || (rc != STENCIL_EDEVMEM && !thin)) return rc;
        sk_prog_ooc_free(r);
        r->msg[0] = '\0';
    }
}

int sk_prog_ooc_multi(const sk_run *r)
{
    return r->prog->ooc && r->prog->ooc->multi;
}

void sk_prog_ooc_free(sk_run *r)
{
    sk_pooc *o = r->prog->ooc;
    for (int k = 0; k < POOC_SETS; k++)
        for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) {
            sb_mem *m[4] = {&o->in[k][f], &o->out[k][f], &o->prev[k][f], &o->pout[k][f]};
            for (int i = 0; i < 4; i++) {
                if (*m[i]) o->dev.ops->mem_free(&o->dev, *m[i]);
                *m[i] = NULL;
            }
        }
}

/* A level of bytes in the out-of-core file, its next pages (fresh ones: zero). */
static int file_level(sk_run *r, sk_pooc *o, const char *base, size_t bytes, int i)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t len = bytes ? bytes : 1;
    int err, rc = o->fd < 0 ? sk_ooc_file_open(r, base, &o->fd) : 0;
    if (rc) return rc;
    o->level[i] = sk_ooc_file_map(o->fd, o->fbytes, len, &err);
    if (!o->level[i])
        return SK_FAIL(r, STENCIL_EIO,
                       "the out-of-core file %s.%d cannot hold or map %zu more bytes (%s)", base,
                       r->rank, len, err ? strerror(err) : "mmap failed");
    o->from[i] = LEVEL_MAPPED;
    o->lbytes[i] = len;
    o->fbytes += (long long)((len + (size_t)page - 1) / (size_t)page * (size_t)page);
    return 0;
}

int sk_prog_ooc_level(sk_run *r, size_t bytes, sb_mem *m)
{
    sk_pooc *o = r->prog->ooc;
    const char *file = sk_ooc_file_base(r);
    int i = 0;
    while (i < POOC_LEVELS && o->level[i]) i++;
    if (i == POOC_LEVELS) return SK_FAIL(r, STENCIL_ENOMEM, "out of core: too many host levels");
    if (file) {
        int rc = file_level(r, o, file, bytes, i);
        if (rc) return rc;
        *m = o->level[i];
        return 0;
    }
    o->from[i] =
        o->dev.ops->host_alloc(&o->dev, bytes, &o->level[i]) == 0 ? LEVEL_PINNED : LEVEL_MALLOC;
    if (o->from[i] == LEVEL_MALLOC) o->level[i] = malloc(bytes ? bytes : 1);
    if (!o->level[i]) return SK_FAIL(r, STENCIL_ENOMEM, "cannot allocate %zu bytes", bytes);
    memset(o->level[i], 0, bytes); /* as the host backend's levels: no stale cells */
    *m = o->level[i];
    return 0;
}

void sk_prog_ooc_level_free(sk_run *r, sb_mem m)
{
    sk_pooc *o = r->prog->ooc;
    for (int i = 0; i < POOC_LEVELS && m; i++) {
        if (o->level[i] != m) continue;
        if (o->from[i] == LEVEL_MAPPED)
            munmap(m, o->lbytes[i]);
        else if (o->from[i] == LEVEL_PINNED)
            o->dev.ops->host_free(&o->dev, m);
        else
            free(m);
        o->level[i] = NULL;
        return;
    }
}

void sk_prog_ooc_release(sk_run *r)
{
    sk_pooc *o = r->prog->ooc;
    if (!o) return;
    for (int q = 0; q < SB_NQUEUES; q++) (void)o->dev.ops->wait(&o->dev, q);
    sk_prog_ooc_free(r);
    for (int i = 0; i < POOC_LEVELS; i++) sk_prog_ooc_level_free(r, o->level[i]);
    if (o->fd >= 0) close(o->fd);
    o->dev.ops->close(&o->dev);
    free(o->sw);
    free(o);
    r->prog->ooc = NULL;
}

/* Rows [lo, hi) of host level h up into chunk buffer m, whose row 0 is local row base: whole
   rows, one contiguous range of host memory. */
static void up(sk_run *r, sk_pooc *o, sb_mem m, const void *h, long base, long lo, long hi)
{
    sl_box b;
    if (!sk_ooc_chunk_rows(r, base, &lo, &hi, &b)) return;
    size_t row = (size_t)r->loc.stride[0] * sb_elem_size(r->st.type);
    if (!r->rc)
        odev(r, o,
             o->dev.ops->copy_in(&o->dev, SB_QBORDER, m, &b, (const char *)h + (size_t)lo * row));
    o->up += (long long)((size_t)(hi - lo) * row);
}

/* Rows [lo, hi) of chunk buffer m (row 0: local row base) down into host level h, whole rows,
   on the transfer queue: h is pinned where the device pins it (sk_prog_ooc_level), so the copy
   runs beside the others. */
static void down(sk_run *r, sk_pooc *o, sb_mem m, void *h, long base, long lo, long hi)
{
    sl_box b;
    if (!sk_ooc_chunk_rows(r, base, &lo, &hi, &b)) return;
    size_t row = (size_t)r->loc.stride[0] * sb_elem_size(r->st.type);
    if (!r->rc)
        odev(r, o, o->dev.ops->copy_out(&o->dev, SB_QXFER, m, &b, (char *)h + (size_t)lo * row));
    o->down += (long long)((size_t)(hi - lo) * row);
}

/* The fixed frames of field f from chunk buffer x into y, over the chunk's rows (inner queue),
   and the ghosts of its constant faces: the cells no step writes that a later step reads. */
static void dup_frames(sk_run *r, sk_pooc *o, int f, sb_mem y, sb_mem x, const pchunk *c)
{
    sl_box slab[2 * SL_D];
    int n = sk_prog_carried(r, f, slab);
    for (int i = 0; i < n && !r->rc; i++) {
        sl_box b = sl_local_box(&r->loc, &slab[i]);
        long lo = b.lo[0] > c->base ? b.lo[0] : c->base, hi = b.hi[0] < c->top ? b.hi[0] : c->top;
        if (hi <= lo) continue;
        b.lo[0] = lo - c->base;
        b.hi[0] = hi - c->base;
        odev(r, o,
             o->dev.ops->copy_peer(&o->dev, SB_QINNER, y, &b, r->loc.stride, x, &b, r->loc.stride));
    }
}

/*
 * The rank's own periodic halos of every level a pass exchanges, made on the device chunk by
 * chunk (the host skips those links, sk_prog_ooc_local). A link along the rows of dimension 0
 * (recv and source in the same rows) copies within the chunk's buffers (inner queue, one
 * launch where the device batches copies). A link across dimension 0 alone (the wrap: halo rows
 * from the other end of the part) comes up as whole rows straight from its source rows on the
 * host (border queue, after the chunk's own rows); the links along the rows then also run over
 * those halo rows, which makes the corners (their sources' halo cells being the wrapped ones),
 * so the corner links themselves are not needed.
 */
static int rowlocal(const sk_plink *l)
{
    return l->recv.lo[0] == l->ssrc.lo[0] && l->recv.hi[0] == l->ssrc.hi[0];
}

static int wrap0(const sk_plink *l)
{
    for (int d = 1; d < SL_D; d++)
        if (l->recv.lo[d] != l->ssrc.lo[d] || l->recv.hi[d] != l->ssrc.hi[d]) return 0;
    return !rowlocal(l);
}

/* The rows slot s's links along the rows cover: the owned rows and its wrapped halo rows. */
static void slot_rows(const sk_run *r, const sk_pslot *s, long *lo, long *hi)
{
    sl_box own = sl_local_box(&r->loc, &r->loc.owned);
    *lo = own.lo[0], *hi = own.hi[0];
    for (int j = 0; j < s->n; j++) {
        const sk_plink *l = &s->link[j];
        if (!sk_prog_ooc_local(r, l) || !wrap0(l)) continue;
        if (l->recv.lo[0] < *lo) *lo = l->recv.lo[0];
        if (l->recv.hi[0] > *hi) *hi = l->recv.hi[0];
    }
}

/*
 * The levels in set k whose halos slot s's links make: its own, and at T = 1 (when the previous
 * level does not travel, its halos being those it had as the current one) the previous level
 * of a field that keeps one, whose host copy did not get them either. bufs and host: the chunk
 * buffers and the host levels the wrapped rows come from; the count.
 */
static int slot_levels(const sk_run *r, const sk_psweep *w, const sk_pslot *s, int k, sb_mem *bufs,
                       const void **host)
{
    const sk_prog *sp = r->prog;
    const sk_pooc *o = sp->ooc;
    int f = s->field, n = 0;
    if (!sk_slot_in(sp, s, SK_SEL_STEP)) return 0;
    bufs[n] = s->level ? o->prev[k][f] : o->in[k][f];
    host[n++] = s->level ? w->srcp[f] : w->src[f];
    if (!s->level && !sp->xprev && sp->p->f[f].keeps) {
        bufs[n] = o->prev[k][f];
        host[n++] = w->srcp[f];
    }
    return n;
}

/* Chunk c's wrapped halo rows of set k, from their source rows on the host (border queue). */
static void wrap_up(sk_run *r, const sk_psweep *w, const pchunk *c, int k)
{
    sk_prog *sp = r->prog;
    sk_pooc *o = sp->ooc;
    size_t row = (size_t)r->loc.stride[0] * sb_elem_size(r->st.type);
    for (int i = 0; i < sp->nslot && !r->rc; i++) {
        const sk_pslot *s = &sp->slot[i];
        sb_mem m[2];
        const void *h[2];
        int nl = slot_levels(r, w, s, k, m, h);
        for (int j = 0; j < s->n && !r->rc && nl; j++) {
            const sk_plink *l = &s->link[j];
            if (!sk_prog_ooc_local(r, l) || !wrap0(l)) continue;
            long lo = l->recv.lo[0] > c->base ? l->recv.lo[0] : c->base;
            long hi = l->recv.hi[0] < c->top ? l->recv.hi[0] : c->top;
            sl_box b;
            if (hi <= lo || !sk_ooc_chunk_rows(r, c->base, &lo, &hi, &b)) continue;
            size_t from = (size_t)(l->ssrc.lo[0] + lo - l->recv.lo[0]) * row;
            for (int v = 0; v < nl && !r->rc; v++) {
                odev(r, o,
                     o->dev.ops->copy_in(&o->dev, SB_QBORDER, m[v], &b, (const char *)h[v] + from));
                o->up += (long long)((size_t)(hi - lo) * row);
            }
        }
    }
}

static void local_halos(sk_run *r, const sk_psweep *w, int k, const pchunk *c)
{
    sk_prog *sp = r->prog;
    sk_pooc *o = sp->ooc;
    sk_copies held;
    held.n = 0;
    for (int i = 0; i < sp->nslot && !r->rc; i++) {
        const sk_pslot *s = &sp->slot[i];
        sb_mem m[2];
        const void *h[2];
        int nl = slot_levels(r, w, s, k, m, h);
        long rlo, rhi;
        slot_rows(r, s, &rlo, &rhi);
        rlo = rlo > c->base ? rlo : c->base;
        rhi = rhi < c->top ? rhi : c->top;
        for (int j = 0; j < s->n && !r->rc && rhi > rlo && nl; j++) {
            const sk_plink *l = &s->link[j];
            if (!sk_prog_ooc_local(r, l) || !rowlocal(l)) continue;
            sl_box d = l->recv, src = l->ssrc;
            src.lo[0] = d.lo[0] = rlo - c->base;
            src.hi[0] = d.hi[0] = rhi - c->base;
            for (int v = 0; v < nl && !r->rc; v++) {
                sb_copy cp = {m[v], m[v], &d, &src, r->loc.stride, r->loc.stride};
                odev(r, o, sk_copies_add(&o->dev, SB_QINNER, &held, &cp));
            }
        }
        /* then the level's mirror ghosts, as the host makes them after the exchange (held
           keeps them after the halo copies they read) */
        for (int v = 0; v < nl && !r->rc; v++)
            odev(r, o,
                 sk_prog_ghosts_rows(r, &o->dev, SB_QINNER, &held, s->field, m[v],
                                     (const int(*)[2])s->gw, c->base, c->top));
    }
    if (held.n && !r->rc) odev(r, o, sk_copies_flush(&o->dev, SB_QINNER, &held));
}

int sk_prog_ooc_local(const sk_run *r, const sk_plink *l)
{
    return sk_prog_ooc_multi(r) && l->self && l->rbytes;
}

/* Step j's box of field f in chunk c, in its buffers' indices: the sweep's box cut to the rows
   the chunk's final rows [a, b) need of that level (empty where it computes none). */
static sl_box chunk_box(const sk_run *r, const sk_psweep *w, int j, int f, const pchunk *c)
{
    const sk_pooc *o = r->prog->ooc;
    sl_box k = w->box[j][f];
    long lo = c->slo ? c->a + o->slo[j] : c->a - w->ex[j][f][0];
    long hi = c->shi ? c->b + o->shi[j] : c->b + w->ex[j][f][1];
    k.lo[0] = k.lo[0] > lo ? k.lo[0] : lo;
    k.hi[0] = k.hi[0] < hi ? k.hi[0] : hi;
    if (r->prog->p->f[f].coef || sl_box_empty(&w->box[j][f]) || k.hi[0] <= k.lo[0])
        k.hi[0] = k.lo[0];
    k.lo[0] -= c->base;
    k.hi[0] -= c->base;
    return k;
}

/* Step j's box of field f in chunk c cut at the parallelogram edge of c's split at row c->m
   (sweep_plan's edges from there): part 1 the rows below it, part 2 those above, part 0 all. */
static sl_box part_box(const sk_run *r, const sk_psweep *w, int j, int f, const pchunk *c, int part)
{
    const sk_pooc *o = r->prog->ooc;
    sl_box k = chunk_box(r, w, j, f, c);
    long e = c->m + (part == 1 ? o->shi[j] : o->slo[j]) - c->base;
    if (part == 1 && k.hi[0] > e) k.hi[0] = e;
    if (part == 2 && k.lo[0] < e) k.lo[0] = e;
    if (k.hi[0] < k.lo[0]) k.hi[0] = k.lo[0];
    return k;
}

/* Chunk c's levels up into its set, on the border queue: an evolving field's current level from
   c->up (below it, the rows a step reads of a level come by the carry, carry_in). */
static void chunk_up(sk_run *r, const sk_psweep *w, const pchunk *c)
{
    sk_pooc *o = r->prog->ooc;
    int k = c->k;
    for (int f = 0; f < r->prog->p->nf; f++) {
        up(r, o, o->in[k][f], w->src[f], c->base, r->prog->p->f[f].coef ? c->base : c->up, c->top);
        if (r->prog->p->f[f].keeps) up(r, o, o->prev[k][f], w->srcp[f], c->base, c->base, c->top);
    }
    wrap_up(r, w, c, k);
}

/* The mirror ghosts of the level step j of sweep w made, in the chunk's buffers cur, as deep as
   the pass's later steps read them (sk_prog_ghost_level in core). */
static void ghosts_after(sk_run *r, const sk_psweep *w, int j, sb_mem *cur, const pchunk *c)
{
    sk_prog *sp = r->prog;
    sk_pooc *o = sp->ooc;
    int k = w->k0 + j; /* level k of the pass */
    sk_copies held;
    held.n = 0;
    for (int f = 0; f < sp->p->nf && !r->rc; f++)
        if (!sp->p->f[f].coef)
            odev(r, o,
                 sk_prog_ghosts_rows(r, &o->dev, SB_QINNER, &held, f, cur[f],
                                     (const int(*)[2])sp->bw[k + 1][f], c->base, c->top));
    if (held.n && !r->rc) odev(r, o, sk_copies_flush(&o->dev, SB_QINNER, &held));
}

/* Box b (local indices: whole rows, or a slab of them) over rows [lo, hi) from chunk p's
   buffer `from` into chunk c's buffer `to`, on the rows both buffers hold, into held (inner
   queue). */
static void copy_across(sk_run *r, sk_copies *held, sb_mem to, const pchunk *c, sb_mem from,
                        const pchunk *p, sl_box b, long lo, long hi)
{
    sk_pooc *o = r->prog->ooc;
    lo = lo > c->base ? lo : c->base;
    lo = lo > p->base ? lo : p->base;
    hi = hi < c->top ? hi : c->top;
    hi = hi < p->top ? hi : p->top;
    if (hi <= lo || r->rc) return;
    sl_box s = b;
    b.lo[0] = lo - c->base, b.hi[0] = hi - c->base;
    s.lo[0] = lo - p->base, s.hi[0] = hi - p->base;
    sb_copy cp = {to, from, &b, &s, r->loc.stride, r->loc.stride};
    odev(r, o, sk_copies_add(&o->dev, SB_QINNER, held, &cp));
}

/*
 * The carry into parallelogram chunk c from the one before it, p (sweep_plan), on the inner
 * queue once c's frames are in place: for each run of steps but the first, the rows of its
 * input level that p computed, from the buffer that held it in p's set into the same buffer of
 * c's (whole rows, frames and ghosts with them). p's buffers still hold them: a later run of p
 * writes that buffer only below where c's rows begin (run lengths never shrink), and p's
 * download reads it beside.
 */
static void carry_in(sk_run *r, const pchunk *c, const pchunk *p)
{
    sk_pooc *o = r->prog->ooc;
    const kgt_prog *pg = r->prog->p;
    sk_copies held;
    held.n = 0;
    for (int j = 1; j < o->nrun && !r->rc; j++) {
        long lo = c->a + o->xend[j] - (long)o->run[j] * r->st.rlo[0], hi = c->a + o->xend[j - 1];
        sl_box rows;
        if (!sk_ooc_chunk_rows(r, 0, &lo, &hi, &rows)) continue;
        for (int f = 0; f < pg->nf && !r->rc; f++)
            if (!pg->f[f].coef)
                copy_across(r, &held, j % 2 ? o->out[c->k][f] : o->in[c->k][f], c,
                            j % 2 ? o->out[p->k][f] : o->in[p->k][f], p, rows, lo, hi);
    }
    if (held.n && !r->rc) odev(r, o, sk_copies_flush(&o->dev, SB_QINNER, &held));
}

/*
 * The cells no step writes (fixed frames, constant ghosts: sk_prog_carried) of the rows of
 * parallelogram chunk c that did not go up, [c->base, c->up), out of the chunk before, p, whose
 * current-level buffers hold them over all its rows (by its upload, or this same copy), into c's
 * current-level buffers, on the inner queue before dup_frames spreads them.
 */
static void frames_in(sk_run *r, const pchunk *c, const pchunk *p)
{
    sk_pooc *o = r->prog->ooc;
    const kgt_prog *pg = r->prog->p;
    sk_copies held;
    held.n = 0;
    for (int f = 0; f < pg->nf && !r->rc; f++) {
        sl_box slab[2 * SL_D];
        int n = pg->f[f].coef ? 0 : sk_prog_carried(r, f, slab);
        for (int i = 0; i < n; i++) {
            sl_box d = sl_local_box(&r->loc, &slab[i]);
            copy_across(r, &held, o->in[c->k][f], c, o->in[p->k][f], p, d, d.lo[0],
                        d.hi[0] < c->up ? d.hi[0] : c->up);
        }
    }
    if (held.n && !r->rc) odev(r, o, sk_copies_flush(&o->dev, SB_QINNER, &held));
}

/* Run of n steps from step j of chunk c, part `part` of its rows (part_box), on queue q: one
   prog_update_k, or one prog_update where n is 1, from the levels in cur (prv: the previous
   ones) into nxt (pot: the level before the last, fused, where a field keeps one). */
static void run_launch(sk_run *r, const sk_psweep *w, const pchunk *c, int q, int part, int j,
                       int n, sb_mem *cur, sb_mem *nxt, sb_mem *prv, sb_mem *pot)
{
    sk_pooc *o = r->prog->ooc;
    const kgt_prog *pg = r->prog->p;
    if (r->rc) return;
    if (n >= 2) {
        sb_prog_steps s;
        memset(&s, 0, sizeof s);
        for (int f = 0; f < pg->nf; f++) {
            s.in[f] = cur[f];
            s.out[f] = nxt[f];
            s.prev[f] = prv[f];
            s.pout[f] = pot[f];
            for (int i = 0; i < n; i++) s.box[i][f] = part_box(r, w, j + i, f, c, part);
        }
        s.k = n;
        s.t = w->t + j;
        s.rows = o->cap;
        s.base = c->base;
        s.par = w->par;
        odev(r, o, o->dev.ops->prog_update_k(&o->dev, q, &s));
        return;
    }
    sb_prog_step s;
    memset(&s, 0, sizeof s);
    for (int f = 0; f < pg->nf; f++) {
        s.in[f] = cur[f];
        s.prev[f] = prv[f];
        s.out[f] = nxt[f];
        s.box[f] = part_box(r, w, j, f, c, part);
    }
    s.t = w->t + j;
    s.base = c->base;
    s.par = w->par;
    odev(r, o, o->dev.ops->prog_update(&o->dev, q, &s));
}

/*
 * The sweep's steps of chunk c in set c->k, on the inner queue, once the rank's own halos
 * along its rows are in place (and the carry from the chunk before, p, for parallelograms):
 * the levels rotate through the set's buffers as they do in core (prog_loop.c), the sweep's
 * runs of steps (sweep_plan) each one prog_update_k or one prog_update, the mirror ghosts made
 * again after each single step but the last. Every evolving field's level to be written gets
 * the fixed frames and constant ghosts of the current one, the only cells no step writes that a
 * later one reads (a field that keeps its previous level once more after the first step, into
 * the buffer that held level -1, and before each fused run into both buffers it writes). Whole
 * rows come down, their halo cells stale: the next sweep or the exchange after the pass makes
 * what is read of them. c->fin and c->pen: the buffers holding the last level and the one
 * before (a fused run writes both for fields that keep their previous level; for the others
 * the last step runs alone where the one before is wanted).
 *
 * Split at c->m (sweep_chunks), the rows below the parallelogram edge from there run on the
 * inner queue and those above on the auxiliary one, two launches in flight where one would
 * leave the device partly idle between launches (a chunk holds too few rows to fill it for
 * long). The lower part reads only its own rows, as a chunk reads none of the one above it,
 * so it never waits; the upper part's run u waits for the lower part's run u - 1, whose rows
 * below the edge it reads. Neither writes what the other reads meanwhile: as between chunks,
 * a later run of the lower part writes only below where the upper part's reads begin.
 */
static void chunk_steps(sk_run *r, const sk_psweep *w, pchunk *c, const pchunk *p)
{
    sk_pooc *o = r->prog->ooc;
    const kgt_prog *pg = r->prog->p;
    int k = c->k, split = c->m > 0;
    sb_mem cur[KGT_PROG_MAX_FIELDS], nxt[KGT_PROG_MAX_FIELDS], prv[KGT_PROG_MAX_FIELDS],
        pot[KGT_PROG_MAX_FIELDS];
    local_halos(r, w, k, c);
    if (c->slo && p) frames_in(r, c, p);
    for (int f = 0; f < pg->nf; f++) {
        cur[f] = o->in[k][f];
        nxt[f] = pg->f[f].coef ? NULL : o->out[k][f];
        prv[f] = pg->f[f].keeps ? o->prev[k][f] : NULL;
        pot[f] = pg->f[f].keeps ? o->pout[k][f] : NULL;
        if (nxt[f]) dup_frames(r, o, f, nxt[f], cur[f], c);
    }
    if (c->slo && p) carry_in(r, c, p);
    if (split && !r->rc) odev(r, o, o->dev.ops->after(&o->dev, SB_QAUX, SB_QINNER));
    for (int u = 0, j = 0; u < o->nrun && !r->rc; u++) {
        int n = o->run[u];
        for (int f = 0; f < pg->nf && n >= 2; f++)
            if (pot[f]) dup_frames(r, o, f, pot[f], cur[f], c);
        if (split) run_launch(r, w, c, SB_QAUX, 2, j, n, cur, nxt, prv, pot);
        run_launch(r, w, c, SB_QINNER, split, j, n, cur, nxt, prv, pot);
        if (split && !r->rc) odev(r, o, o->dev.ops->after(&o->dev, SB_QAUX, SB_QINNER));
        for (int f = 0; f < pg->nf; f++) {
            sb_mem x = cur[f], y = prv[f];
            if (pg->f[f].coef) continue;
            cur[f] = nxt[f];
            nxt[f] = n >= 2 || !pg->f[f].keeps ? x : y;
            if (!pg->f[f].keeps) continue;
            prv[f] = n >= 2 ? pot[f] : x;
            if (n >= 2) pot[f] = y;
            if (n == 1 && j == 0 && w->m > 1) dup_frames(r, o, f, nxt[f], cur[f], c);
        }
        j += n;
        if (n == 1 && j < w->m && !r->rc) ghosts_after(r, w, j - 1, cur, c);
    }
    for (int f = 0; f < pg->nf; f++) {
        c->fin[f] = cur[f];
        c->pen[f] = pg->f[f].keeps ? prv[f] : nxt[f];
    }
}

/* Chunk c's final rows [a, b) down: the last level into w->dst, the one before into w->pen
   where asked. */
static void chunk_down(sk_run *r, const sk_psweep *w, const pchunk *c)
{
    sk_pooc *o = r->prog->ooc;
    for (int f = 0; f < r->prog->p->nf; f++) {
        if (r->prog->p->f[f].coef) continue;
        down(r, o, c->fin[f], w->dst[f], c->base, c->a, c->b);
        if (w->pen[f]) down(r, o, c->pen[f], w->pen[f], c->base, c->a, c->b);
    }
}

sk_psweep *sk_prog_ooc_sweeps(sk_run *r)
{
    return r->prog->ooc ? r->prog->ooc->sw : NULL;
}

/*
 * The runs of sweep w's steps: o->fuse at a time (one step each where the device fuses none),
 * the remainder first so that run lengths never shrink, and the last step alone where a field
 * without a previous level wants the level before the last (w->pen). Then, where the sweep may
 * take parallelograms (o->skew: more than one run, none alone, no field keeping a previous
 * level), their geometry, as skel/ooc_chunk.c's for a stencil with runs for its groups: with R
 * the larger reach along dimension 0, the rows above a chunk's first row a where its neighbour
 * below stops computing run u's last level are xend[u] = R times the steps of the runs after u
 * (0 for the last run); inside a run a chunk's lower and upper edges widen by one step's reach
 * below and above per step from the run's end (a trapezoid within the run, its input level read
 * n rlo below its last level's edge). So run u + 1 of a chunk reads run u's level from
 * xend[u + 1] - n rlo above a, and the chunk below computed it up to xend[u] above a: those rows
 * come by the carry (carry_in). Nothing is computed twice between chunks but within runs.
 */
static void sweep_plan(sk_run *r, const sk_psweep *w)
{
    sk_pooc *o = r->prog->ooc;
    const kgt_prog *p = r->prog->p;
    int alone = 0, F = o->fuse >= 2 ? o->fuse : 1, m = w->m;
    for (int f = 0; f < p->nf; f++) alone |= w->pen[f] && !p->f[f].keeps;
    if (alone && F > 1) m--; /* the level before the last comes from a single last step */
    o->nrun = 0;
    if (m % F) o->run[o->nrun++] = m % F;
    for (int j = m % F; j < m; j += F) o->run[o->nrun++] = F;
    if (m < w->m) o->run[o->nrun++] = 1;
    o->skew = o->nrun > 1 && m == w->m && !sk_prog_keeps(p) && o->nsets == POOC_SETS;
    if (!o->skew) return;
    long rlo = r->st.rlo[0], rhi = r->st.rhi[0], R = sk_ooc_reach0(r);
    o->xend[o->nrun - 1] = 0;
    for (int u = o->nrun - 1; u > 0; u--) o->xend[u - 1] = o->xend[u] + (long)o->run[u] * R;
    for (int u = 0, j = 0; u < o->nrun; u++)
        for (int i = 1; i <= o->run[u]; i++, j++) {
            o->slo[j] = o->xend[u] - (long)(o->run[u] - i) * rlo;
            o->shi[j] = o->xend[u] + (long)(o->run[u] - i) * rhi;
        }
    o->sbase = (long)o->run[o->nrun - 1] * rlo;
    o->stop = o->xend[0] + (long)o->run[0] * rhi;
    o->ubase = o->xend[0] - (long)o->run[0] * rlo;
}

/*
 * The chunks of a sweep over rows [lo, hi) into c (n of them, calloc'd): each computes rows of
 * at most a chunk buffer's less the rows its reads reach; pipelined, the first two and last two
 * take a quarter and a half of that, so that the first upload and the last download, which
 * nothing hides, are short. Parallelograms (o->skew, kept only where the pipeline's chunks fit
 * them): a chunk's lower edge is one where a chunk lies below it, its upper edge one where a
 * chunk lies above it; the others are trapezoids.
 */
static pchunk *sweep_chunks(sk_run *r, long lo, long hi, long *pn)
{
    sk_pooc *o = r->prog->ooc;
    long ext = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    int L = o->nsets == POOC_SETS; /* the lag between the stages of a chunk */
    for (;; o->skew = 0) {
        long rows = o->skew ? o->cap - o->sbase - o->stop : o->cap - o->hlo - o->hhi;
        long n = hi > lo && rows > 0 ? (hi - lo + rows - 1) / rows : 0;
        long q = rows / 4 > 0 ? rows / 4 : 1, mid = hi - lo - 6 * q;
        int ramp = L && mid >= rows;
        long nm = ramp ? (mid + rows - 1) / rows : 0;
        if (o->skew && (!ramp || !ends_fit(o, o->stop, o->sbase))) continue;
        if (ramp) n = nm + 4;
        pchunk *c = calloc((size_t)n + 1, sizeof *c);
        if (!c) return NULL;
        for (long j = 0, at = lo; j < n; j++) {
            long size = !ramp                  ? rows
                        : j == 0 || j == n - 1 ? q
                        : j == 1 || j == n - 2 ? 2 * q
                                               : mid / nm + (j - 2 < mid % nm);
            c[j].a = at;
            c[j].b = at + size < hi ? at + size : hi;
            at = c[j].b;
            c[j].slo = o->skew && j > 0;
            c[j].shi = o->skew && j + 1 < n;
            c[j].base = c[j].a - (c[j].slo ? o->sbase : o->hlo);
            c[j].base = c[j].base > 0 ? c[j].base : 0;
            c[j].top = c[j].b + (c[j].shi ? o->stop : o->hhi);
            c[j].top = c[j].top < ext ? c[j].top : ext;
            c[j].up = c[j].slo && c[j].a + o->ubase > c[j].base ? c[j].a + o->ubase : c[j].base;
            c[j].m = o->skew && o->fuse >= 2 && c[j].b - c[j].a >= 2 * POOC_SPLIT
                         ? (c[j].a + c[j].b) / 2
                         : 0;
            c[j].k = (int)(j % o->nsets);
        }
        *pn = n;
        return c;
    }
}

/*
 * A sweep (sk_psweep, filled by the caller) chunk by chunk along dimension 0. With three sets,
 * stage j sends chunk j up, computes chunk j - 1 and brings chunk j - 2 down, each on its own
 * queue, then every queue waits for the others (join); with one set, each chunk goes up, is
 * computed and comes down in turn. The host waits once, at the end.
 */
void sk_prog_ooc_sweep(sk_run *r, sk_psweep *w)
{
    sk_prog *sp = r->prog;
    sk_pooc *o = sp->ooc;
    const sb_ops *d = o->dev.ops;
    long lo = 0, hi = 0, n = 0;
    for (int f = 0; f < sp->p->nf; f++) { /* the rows any last box covers */
        const sl_box *b = &w->box[w->m - 1][f];
        if (sp->p->f[f].coef || sl_box_empty(b)) continue;
        if (hi <= lo || b->lo[0] < lo) lo = b->lo[0];
        if (b->hi[0] > hi) hi = b->hi[0];
    }
    int L = o->nsets == POOC_SETS; /* the lag between the stages of a chunk */
    sweep_plan(r, w);
    pchunk *c = sweep_chunks(r, lo, hi, &n);
    if (!c) {
        if (!r->rc) r->rc = err_set(r->msg, sizeof r->msg, STENCIL_ENOMEM, "out of memory");
        return;
    }
    for (long j = 0; j < n + 2 * L && !r->rc; j++) {
        long u = j, k = j - L, v = j - 2 * L;
        if (u < n) chunk_up(r, w, &c[u]);
        if (!r->rc) odev(r, o, d->flush(&o->dev, SB_QBORDER));
        if (!L && !r->rc) odev(r, o, d->after(&o->dev, SB_QINNER, SB_QBORDER));
        if (k >= 0 && k < n) chunk_steps(r, w, &c[k], k > 0 ? &c[k - 1] : NULL);
        if (!r->rc) odev(r, o, d->flush(&o->dev, SB_QINNER));
        if (!L && !r->rc) odev(r, o, d->after(&o->dev, SB_QXFER, SB_QINNER));
        if (v >= 0 && v < n) chunk_down(r, w, &c[v]);
        if (!r->rc) odev(r, o, d->flush(&o->dev, SB_QXFER));
        if (!r->rc) odev(r, o, d->join(&o->dev));
    }
    for (int q = 0; q < SB_NQUEUES && !r->rc; q++) odev(r, o, d->wait(&o->dev, q));
    o->chunks = n > o->chunks ? (int)n : o->chunks;
    free(c);
}

/* One step out of core (the sweeps' fallback, sk_prog_ooc_multi == 0): a sweep of its boxes. */
int sk_prog_update(sk_run *r, int q, const sb_prog_step *s)
{
    if (!r->prog->ooc) return r->dev.ops->prog_update(&r->dev, q, s);
    sk_psweep *w = r->prog->ooc->sw;
    const kgt_prog *p = r->prog->p;
    memset(w->ex[0], 0, sizeof w->ex[0]);
    w->m = 1;
    w->k0 = 1;
    w->t = s->t;
    w->par = s->par;
    for (int f = 0; f < p->nf; f++) {
        w->box[0][f] = s->box[f];
        w->src[f] = s->in[f];
        w->srcp[f] = s->prev[f];
        w->dst[f] = s->out[f];
        w->pen[f] = NULL;
    }
    sk_prog_ooc_sweep(r, w);
    return 0; /* failures are in r->rc already */
}

void sk_prog_stats(sk_run *r, stencil_stats *s)
{
    sk_pooc *o = r->prog->ooc;
    if (!o) return;
    s->ooc = 1;
    s->ooc_chunks = o->chunks;
    s->ooc_up = o->up;
    s->ooc_down = o->down;
    s->device_bytes = o->dev.device_bytes;
    snprintf(s->backend, sizeof s->backend, "%s", o->dev.ops->name);
    snprintf(s->device, sizeof s->device, "%s", o->dev.name);
    snprintf(s->kernel, sizeof s->kernel, "%s", o->dev.kernel[0] ? o->dev.kernel : "program");
}
