/*
 * Program runs out of core (skprog.h): every level of every field, coefficients included, lives
 * in host memory, and each step streams them through the device in chunks of rows of dimension
 * 0, as skel/ooc.c does for a stencil's array. r->dev becomes the host backend on those host
 * levels, so the exchange, the ghosts, the frames, norms, views and checkpoints run unchanged
 * on them; only the updates (sk_prog_update) go to the rank's real device (sp->ooc->dev),
 * which sees chunk buffers with the local array's strides and fewer rows: per chunk of the rows
 * a step computes, those rows and the rows its reads reach go up for every field's current
 * level (and previous level where kept), the device computes the chunk's boxes in chunk-local
 * indices, and the computed cells come down into the level being written. Results are bitwise
 * those in core: every cell is computed by the same kernel from the same inputs.
 *
 * The kernels see the index of a cell from the origin the device was opened with, which a
 * chunk shifts along dimension 0: a program that reads the index i is refused out of core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooc.h"
#include "skprog.h"

/* Sets of chunk buffers: three where they fit, so that chunk j + 1 goes up while chunk j is
   computed and chunk j - 1 comes down; else one, stage after stage. Two sets of host staging. */
enum { POOC_SETS = 3 };

typedef struct sk_pooc {
    sb_dev dev;                                  /* the rank's device: chunk buffers only */
    sb_mem in[POOC_SETS][KGT_PROG_MAX_FIELDS];   /* per field: its current level's rows */
    sb_mem prev[POOC_SETS][KGT_PROG_MAX_FIELDS]; /* fields that keep their previous level */
    sb_mem out[POOC_SETS][KGT_PROG_MAX_FIELDS];  /* evolving fields: the level written */
    void *stage[2][KGT_PROG_MAX_FIELDS];         /* the computed cells coming down, per field */
    int pinned[2][KGT_PROG_MAX_FIELDS];          /* from dev.host_alloc */
    int nsets;                                   /* 3 (a pipeline) or 1 */
    long cap, hlo, hhi;        /* rows of a chunk buffer; rows read below and above */
    long long up, down, limit; /* bytes moved; the device memory limit (0: none) */
    int nbufs, chunks;         /* chunk buffers per set; the most chunks of an update */
} sk_pooc;

/* Chunk j of an update: it computes rows [a, b), its buffers' row 0 is local row base, and
   rows [base, top) go up. */
typedef struct pchunk {
    long a, b, base, top;
} pchunk;

/* A failure of the device's call e into r->rc, with the device's message; callers skip calls
   once r->rc is set, as SK_DEV does. */
static void odev(sk_run *r, const sk_pooc *o, int e)
{
    if (e && !r->rc) r->rc = err_set(r->msg, sizeof r->msg, e, "%s", o->dev.err);
}

/* The program reads the index along dimension 0. */
static int reads_i(const kgt_prog *p)
{
    for (int i = 0; i < p->nnodes; i++)
        if (p->nodes[i]->kind == KP_INDEX && p->nodes[i]->ref == 0) return 1;
    return 0;
}

/* Bytes of every level of every field: what in core allocates on the device. */
static long long level_bytes(const sk_run *r)
{
    const kgt_prog *p = r->prog->p;
    long long n = 0;
    for (int f = 0; f < p->nf; f++) n += 1 + !p->f[f].coef + (p->f[f].keeps != 0);
    return n * (long long)(r->loc.nelems * sb_elem_size(r->st.type));
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
            sb_mem *m[3] = {&o->in[k][f], p->f[f].coef ? NULL : &o->out[k][f],
                            p->f[f].keeps ? &o->prev[k][f] : NULL};
            for (int i = 0; i < 3 && !rc; i++)
                if (m[i]) rc = o->dev.ops->mem_alloc(&o->dev, bytes, m[i]);
        }
    for (int k = 0; k < 2 && !rc; k++)
        for (int f = 0; f < p->nf && !rc; f++) {
            if (p->f[f].coef) continue;
            o->pinned[k][f] = o->dev.ops->host_alloc(&o->dev, bytes, &o->stage[k][f]) == 0;
            if (!o->pinned[k][f]) o->stage[k][f] = malloc(bytes);
            if (!o->stage[k][f]) return SK_FAIL(r, STENCIL_ENOMEM, "out of memory (staging)");
        }
    return rc ? SK_FAIL(r, rc, "out-of-core chunk buffers: %s", o->dev.err) : 0;
}

/* Three sets of chunk buffers where a chunk of them holds twice the rows its reads reach, else
   one; halved while the device refuses them when no limit is given. */
static int alloc_chunks(sk_run *r, sk_pooc *o)
{
    const kgt_prog *p = r->prog->p;
    size_t row = (size_t)r->loc.stride[0] * sb_elem_size(r->st.type);
    long least = o->hlo + o->hhi + 1;
    for (int f = 0; f < p->nf; f++) o->nbufs += 1 + !p->f[f].coef + (p->f[f].keeps != 0);
    for (;;) {
        o->nsets = POOC_SETS;
        o->cap = chunk_rows(r, o);
        if (o->cap < 2 * least) {
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
    if (reads_i(sp->p))
        return SK_FAIL(r, STENCIL_EINVAL,
                       "out of core: program '%s' reads the index i, which chunks of rows of "
                       "dimension 0 would shift (run it in core)",
                       sp->p->name);
    sk_pooc *o = sp->ooc = calloc(1, sizeof *sp->ooc);
    if (!o) return SK_FAIL(r, STENCIL_ENOMEM, "out of memory");
    int rc = sk_ooc_limit(r, &o->limit);
    if (rc) return rc;
    o->hlo = r->st.rlo[0];
    o->hhi = r->st.rhi[0];
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
    return alloc_chunks(r, o);
}

void sk_prog_ooc_free(sk_run *r)
{
    sk_pooc *o = r->prog->ooc;
    for (int k = 0; k < POOC_SETS; k++)
        for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) {
            sb_mem *m[3] = {&o->in[k][f], &o->out[k][f], &o->prev[k][f]};
            for (int i = 0; i < 3; i++) {
                if (*m[i]) o->dev.ops->mem_free(&o->dev, *m[i]);
                *m[i] = NULL;
            }
        }
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) {
            if (o->stage[k][f] && o->pinned[k][f]) o->dev.ops->host_free(&o->dev, o->stage[k][f]);
            if (o->stage[k][f] && !o->pinned[k][f]) free(o->stage[k][f]);
            o->stage[k][f] = NULL;
        }
}

void sk_prog_ooc_release(sk_run *r)
{
    sk_pooc *o = r->prog->ooc;
    if (!o) return;
    for (int q = 0; q < SB_NQUEUES; q++) (void)o->dev.ops->wait(&o->dev, q);
    sk_prog_ooc_free(r);
    o->dev.ops->close(&o->dev);
    free(o);
    r->prog->ooc = NULL;
}

/* Rows [lo, hi) of host level h up into chunk buffer m, whose row 0 is local row base. */
static void up(sk_run *r, sk_pooc *o, sb_mem m, const void *h, long base, long lo, long hi)
{
    size_t es = sb_elem_size(r->st.type), row = (size_t)r->loc.stride[0] * es;
    sl_box b = {{lo - base, 0, 0}, {hi - base, 1, 1}};
    for (int d = 1; d < SL_D; d++) b.hi[d] = r->loc.ext.hi[d] - r->loc.ext.lo[d];
    if (!r->rc)
        odev(r, o,
             o->dev.ops->copy_in(&o->dev, SB_QBORDER, m, &b, (const char *)h + (size_t)lo * row));
    o->up += (long long)((size_t)(hi - lo) * row);
}

/* The chunk's box of field f in its buffers' indices (empty where it computes none). */
static sl_box chunk_box(const sk_run *r, const sb_prog_step *s, int f, const pchunk *c)
{
    sl_box k = s->box[f];
    k.lo[0] = k.lo[0] > c->a ? k.lo[0] : c->a;
    k.hi[0] = k.hi[0] < c->b ? k.hi[0] : c->b;
    if (r->prog->p->f[f].coef || sl_box_empty(&s->box[f]) || k.hi[0] <= k.lo[0]) k.hi[0] = k.lo[0];
    k.lo[0] -= c->base;
    k.hi[0] -= c->base;
    return k;
}

/* Chunk c's levels up into set k, on the border queue. */
static void chunk_up(sk_run *r, const sb_prog_step *s, const pchunk *c, int k)
{
    sk_pooc *o = r->prog->ooc;
    for (int f = 0; f < r->prog->p->nf; f++) {
        up(r, o, o->in[k][f], s->in[f], c->base, c->base, c->top);
        if (r->prog->p->f[f].keeps) up(r, o, o->prev[k][f], s->prev[f], c->base, c->base, c->top);
    }
}

/* Chunk c computed in set k, on the inner queue. */
static void chunk_step(sk_run *r, const sb_prog_step *s, const pchunk *c, int k)
{
    sk_pooc *o = r->prog->ooc;
    const kgt_prog *p = r->prog->p;
    sb_prog_step d = *s;
    for (int f = 0; f < p->nf; f++) {
        d.in[f] = o->in[k][f];
        d.prev[f] = p->f[f].keeps ? o->prev[k][f] : NULL;
        d.out[f] = p->f[f].coef ? NULL : o->out[k][f];
        d.box[f] = chunk_box(r, s, f, c);
    }
    if (!r->rc) odev(r, o, o->dev.ops->prog_update(&o->dev, SB_QINNER, &d));
}

/* Chunk c's computed cells from set k down into staging h, on the copy queue (down), and from
   there into the level written, on the host, once they are there (put). */
static void chunk_down(sk_run *r, const sb_prog_step *s, const pchunk *c, int k, int h, int put)
{
    sk_pooc *o = r->prog->ooc;
    for (int f = 0; f < r->prog->p->nf; f++) {
        sl_box b = chunk_box(r, s, f, c);
        if (r->prog->p->f[f].coef || sl_box_empty(&b)) continue;
        if (!put) {
            if (!r->rc)
                odev(r, o,
                     o->dev.ops->copy_out(&o->dev, SB_QXFER, o->out[k][f], &b, o->stage[h][f]));
            o->down += (long long)sl_box_volume(&b) * (long long)sb_elem_size(r->st.type);
            continue;
        }
        b.lo[0] += c->base;
        b.hi[0] += c->base;
        SK_DEV(r, r->dev.ops->copy_in(&r->dev, SB_QBORDER, s->out[f], &b, o->stage[h][f]));
    }
}

/*
 * One step's update out of core: the boxes of s (local indices) chunk by chunk. With three sets,
 * stage j sends chunk j up, computes chunk j - 1 and brings chunk j - 2 down, each on its own
 * queue, then every queue waits for the others (join); meanwhile the host puts chunk j - 3's
 * cells in place. With one set, each chunk goes up, is computed and comes down in turn.
 */
static void ooc_update(sk_run *r, const sb_prog_step *s)
{
    sk_prog *sp = r->prog;
    sk_pooc *o = sp->ooc;
    const sb_ops *d = o->dev.ops;
    long lo = 0, hi = 0, ext = r->loc.ext.hi[0] - r->loc.ext.lo[0];
    for (int f = 0; f < sp->p->nf; f++) /* the rows any box covers */
        if (!sp->p->f[f].coef && !sl_box_empty(&s->box[f])) {
            if (hi <= lo || s->box[f].lo[0] < lo) lo = s->box[f].lo[0];
            if (s->box[f].hi[0] > hi) hi = s->box[f].hi[0];
        }
    long rows = o->cap - o->hlo - o->hhi, n = hi > lo ? (hi - lo + rows - 1) / rows : 0;
    int L = o->nsets == POOC_SETS; /* the lag between the stages of a chunk */
    pchunk *c = calloc((size_t)n + 1, sizeof *c);
    if (!c) {
        if (!r->rc) r->rc = err_set(r->msg, sizeof r->msg, STENCIL_ENOMEM, "out of memory");
        return;
    }
    for (long j = 0; j < n; j++) {
        c[j].a = lo + j * rows;
        c[j].b = c[j].a + rows < hi ? c[j].a + rows : hi;
        c[j].base = c[j].a - o->hlo > 0 ? c[j].a - o->hlo : 0;
        c[j].top = c[j].b + o->hhi < ext ? c[j].b + o->hhi : ext;
    }
    long put = 0; /* chunks whose cells are in place */
    for (long j = 0; j < n + 2 * L && !r->rc; j++) {
        long u = j, k = j - L, w = j - 2 * L;
        if (u < n) chunk_up(r, s, &c[u], (int)(u % o->nsets));
        if (!r->rc) odev(r, o, d->flush(&o->dev, SB_QBORDER));
        if (!L && !r->rc) odev(r, o, d->after(&o->dev, SB_QINNER, SB_QBORDER));
        if (k >= 0 && k < n) chunk_step(r, s, &c[k], (int)(k % o->nsets));
        if (!r->rc) odev(r, o, d->flush(&o->dev, SB_QINNER));
        if (!r->rc) odev(r, o, d->wait(&o->dev, SB_QXFER)); /* chunk w - 1 came down */
        for (; put < w && !r->rc; put++) chunk_down(r, s, &c[put], 0, (int)(put % 2), 1);
        if (!L && !r->rc) odev(r, o, d->after(&o->dev, SB_QXFER, SB_QINNER));
        if (w >= 0 && w < n) chunk_down(r, s, &c[w], (int)(w % o->nsets), (int)(w % 2), 0);
        if (!r->rc) odev(r, o, d->flush(&o->dev, SB_QXFER));
        if (!r->rc) odev(r, o, d->join(&o->dev));
    }
    if (!r->rc) odev(r, o, d->wait(&o->dev, SB_QXFER));
    for (; put < n && !r->rc; put++) chunk_down(r, s, &c[put], 0, (int)(put % 2), 1);
    o->chunks = n > o->chunks ? (int)n : o->chunks;
    free(c);
}

int sk_prog_update(sk_run *r, int q, const sb_prog_step *s)
{
    if (!r->prog->ooc) return r->dev.ops->prog_update(&r->dev, q, s);
    ooc_update(r, s);
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
