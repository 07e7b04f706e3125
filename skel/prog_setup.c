/*
 * Set-up of a program run (skprog.h): the program parsed again from its text (the run owns its
 * copy), the union of its reads as the layout's stencil, the partition, one local array shape
 * for every field, the backend opened for the program, the levels allocated and initialised.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skprog.h"

/* The union of every offset any update reads (weights 1): the backend's st. */
static int union_stencil(sk_run *r, const kgt_prog *p, stencil_type type)
{
    sl_stencil *s = &r->st;
    int nd = p->ndims, n = 0, cap = p->nnodes + 1;
    memset(s, 0, sizeof *s);
    s->ndims = nd;
    s->type = type;
    s->divisor = 1;
    s->off = calloc((size_t)cap, sizeof *s->off);
    s->w = calloc((size_t)cap, sizeof *s->w);
    if (!s->off || !s->w) return SK_FAIL(r, STENCIL_ENOMEM, "out of memory (program reads)");
    n = 1; /* the centre, always */
    for (int i = 0; i < p->nnodes; i++) {
        const kgt_pnode *e = p->nodes[i];
        if (e->kind != KP_READ) continue;
        int o[SL_D] = {0, 0, 0}, dup = 0;
        for (int d = 0; d < nd; d++) o[d] = e->off[d];
        for (int k = 0; k < n && !dup; k++) dup = !memcmp(s->off[k], o, sizeof o);
        if (!dup) memcpy(s->off[n++], o, sizeof o);
    }
    s->npts = n;
    for (int k = 0; k < n; k++) s->w[k] = 1;
    for (int d = 0; d < nd; d++) {
        for (int k = 0; k < n; k++) {
            if (-s->off[k][d] > s->rlo[d]) s->rlo[d] = -s->off[k][d];
            if (s->off[k][d] > s->rhi[d]) s->rhi[d] = s->off[k][d];
        }
        s->flo[d] = s->rlo[d];
        s->fhi[d] = s->rhi[d];
    }
    return 0;
}

static int check_args(sk_run *r, const long *sizes, const kgt_prog *p, stencil_type type,
                      stencil_init_fn init)
{
    sk_prog *sp = r->prog;
    if (!sizes || !init) return SK_FAIL(r, STENCIL_EINVAL, "%s is NULL", !sizes ? "sizes" : "init");
    if (type != STENCIL_FLOAT && type != STENCIL_DOUBLE)
        return SK_FAIL(r, STENCIL_EINVAL, "unknown element type %d", (int)type);
    for (int d = 0; d < SL_D; d++) sp->n[d] = 1;
    for (int d = 0; d < p->ndims; d++) {
        if (sizes[d] <= 0)
            return SK_FAIL(r, STENCIL_EINVAL, "size of dimension %d is %ld", d, sizes[d]);
        sp->n[d] = sizes[d];
    }
    if (r->opt.partition != STENCIL_PART_BANDS && r->opt.partition != STENCIL_PART_BLOCKS)
        return SK_FAIL(r, STENCIL_EINVAL, "unknown partition kind %d", (int)r->opt.partition);
    if (r->opt.steps < 0 || r->opt.steps > STENCIL_MAX_STEPS)
        return SK_FAIL(r, STENCIL_EINVAL, "options.steps is %d, not in 0..%d", r->opt.steps,
                       STENCIL_MAX_STEPS);
    return 0;
}

/* Ranks that disagree on the problem or the partition would wait on each other's messages. */
static int same_problem(sk_run *r, stencil_type type)
{
    enum { N = SL_D + 2 + SL_D };
    long v[2 * N], m[2 * N];
    for (int d = 0; d < SL_D; d++) v[d] = r->prog->n[d], v[SL_D + 2 + d] = r->opt.proc_grid[d];
    v[SL_D] = (long)type;
    v[SL_D + 1] = (long)r->opt.partition * 2 + (r->opt.rank_weights != NULL);
    for (int i = 0; i < N; i++) v[N + i] = -v[i];
    if (MPI_Allreduce(v, m, 2 * N, MPI_LONG, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (sizes)");
    for (int i = 0; i < N; i++)
        if (m[i] != -m[N + i])
            return SK_FAIL(r, STENCIL_EINVAL,
                           "ranks passed different sizes, type, partition or proc_grid");
    return 0;
}

/* The halo width per side: every field's reach and previous level's reach, at least 0. */
static void widths(sk_prog *sp)
{
    const kgt_prog *p = sp->p;
    memset(sp->R, 0, sizeof sp->R);
    for (int f = 0; f < p->nf; f++)
        for (int d = 0; d < p->ndims; d++) {
            for (int s = 0; s < 2; s++) {
                int a = p->f[f].reach[d][s], b = p->f[f].preach[d][s];
                if (a > sp->R[d][s]) sp->R[d][s] = a;
                if (b > sp->R[d][s]) sp->R[d][s] = b;
            }
            sp->periodic[f][d] = p->f[f].bc[d][0].kind == KGT_B_PERIODIC;
        }
}

/* The partition, its parts at least as thick as one step reads (R of widths). */
static int partition(sk_run *r)
{
    sk_prog *sp = r->prog;
    int nd = sp->p->ndims, pgrid[SL_D], minpart[SL_D] = {1, 1, 1};
    sl_local *l = &r->loc;
    int rc = sl_grid_choose(nd, sp->n, r->size, r->opt.partition, r->opt.proc_grid, pgrid, r->msg,
                            sizeof r->msg);
    if (rc) return rc;
    for (int d = 0; d < nd; d++) {
        int m = sp->R[d][0] > sp->R[d][1] ? sp->R[d][0] : sp->R[d][1];
        minpart[d] = m > 1 ? m : 1;
    }
    rc = sk_partition_weighted(r, nd, sp->n, pgrid, minpart, 0);
    if (rc) return rc;
    memset(l, 0, sizeof *l);
    l->rank = r->rank;
    l->ndims = nd;
    sl_partition_coords(&r->part, r->rank, l->coords);
    l->owned = sl_partition_owned(&r->part, r->rank);
    return 0;
}

/* The local layout: owned box widened by R (of T steps, prog_steps.c) on every side, rows
   padded. */
static int layout(sk_run *r)
{
    sk_prog *sp = r->prog;
    sl_local *l = &r->loc;
    int nd = sp->p->ndims;
    l->ext = l->owned;
    for (int d = 0; d < nd; d++) {
        l->ext.lo[d] -= sp->R[d][0];
        l->ext.hi[d] += sp->R[d][1];
        l->bnd_lo[d] = l->owned.lo[d] == 0;
        l->bnd_hi[d] = l->owned.hi[d] == sp->n[d];
    }
    /* 2D rows long enough to be padded: the owned cells start SL_ROW_ALIGN elements (a whole
       128-byte line and more) from the row's start, the left halo widened, so that the GPU's
       vector rows start on a line and no block column holds only the halo's cells. */
    long w = l->ext.hi[nd - 1] - l->ext.lo[nd - 1];
    if (nd == 2 && !r->env.row_align && w >= SL_ROW_PAD_MIN)
        l->ext.lo[1] =
            l->owned.lo[1] - (sp->R[1][0] + SL_ROW_ALIGN - 1) / SL_ROW_ALIGN * SL_ROW_ALIGN;
    l->update = l->live = l->inner = l->owned;
    l->nelems = 1;
    /* Rows padded as a stencil's are (layout/local.c), and short 2D rows to whole 16-byte
       vectors too: the GPU's vector-row program kernel (kgt/prog_vec.c) needs them. */
    for (int k = SL_D - 1; k >= 0; k--) {
        l->stride[k] = (long)l->nelems;
        l->nelems *= (size_t)(l->ext.hi[k] - l->ext.lo[k]);
        if (k == sp->p->ndims - 1 && k > 0) {
            l->nelems = sl_row_elems(l->nelems, sp->p->ndims, r->env.row_align);
            if (!r->env.row_align)
                l->nelems = (l->nelems + SL_ROW_VEC - 1) / SL_ROW_VEC * SL_ROW_VEC;
        }
    }
    return 0;
}

/*
 * The inner box of field f: its update box less, on every side, the widest halo of it (current
 * or previous level, any direction): what is sent, and the sources of mirror ghosts, are border
 * cells. With T > 1 also as far as its update reads: the previous levels' halos come in while
 * the inner box of the last step reads them. The border: 2 * nd slabs covering the rest
 * (dimension d's two slabs are inner along the dimensions before d and the whole box along
 * those after).
 */
static void split(sk_prog *sp, int f, int nd)
{
    const kgt_pfield *fd = &sp->p->f[f];
    sl_box b = sp->box[f], in = b, none = b;
    int empty = sl_box_empty(&b), hb[2][SL_D][2];
    for (int l = 0; l < 2; l++) sl_dirs_bound(sp->hw[f][l], nd, hb[l]);
    none.hi[0] = none.lo[0];
    for (int d = 0; d < nd; d++) {
        int w = 0;
        for (int s = 0; s < 2; s++) {
            for (int l = 0; l < 2; l++) w = hb[l][d][s] > w ? hb[l][d][s] : w;
            if (sp->T > 1) w = fd->frame[d][s] > w ? fd->frame[d][s] : w;
        }
        in.lo[d] += w;
        in.hi[d] -= w;
        if (in.hi[d] <= in.lo[d]) empty = 1;
    }
    for (int i = 0; i < 2 * SL_D; i++) sp->border[f][i] = none;
    if (empty) { /* one border slab: the whole box */
        sp->inner[f] = none;
        sp->border[f][0] = b;
        return;
    }
    sp->inner[f] = in;
    for (int d = 0; d < nd; d++) {
        sl_box lo = b, hi = b;
        for (int e = 0; e < d; e++) {
            lo.lo[e] = hi.lo[e] = in.lo[e];
            lo.hi[e] = hi.hi[e] = in.hi[e];
        }
        lo.hi[d] = in.lo[d];
        hi.lo[d] = in.hi[d];
        sp->border[f][2 * d] = lo;
        sp->border[f][2 * d + 1] = hi;
    }
}

/* Per evolving field: owned minus its fixed frame where this rank touches the face. */
static int boxes(sk_run *r)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    long long v[KGT_PROG_MAX_FIELDS], g[KGT_PROG_MAX_FIELDS];
    for (int f = 0; f < p->nf; f++) {
        sl_box b = r->loc.owned;
        for (int d = 0; d < p->ndims; d++) {
            if (p->f[f].bc[d][0].kind == KGT_B_FIXED && r->loc.bnd_lo[d])
                b.lo[d] += p->f[f].frame[d][0];
            if (p->f[f].bc[d][1].kind == KGT_B_FIXED && r->loc.bnd_hi[d])
                b.hi[d] -= p->f[f].frame[d][1];
            if (b.hi[d] < b.lo[d]) b.hi[d] = b.lo[d];
        }
        if (p->f[f].coef) b.hi[0] = b.lo[0]; /* nothing to compute */
        sp->box[f] = b;
        split(sp, f, p->ndims);
        v[f] = p->f[f].coef ? 0 : sl_box_volume(&b);
    }
    if (MPI_Allreduce(v, g, p->nf, MPI_LONG_LONG, MPI_SUM, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (cells)");
    /* Cells of the grid, not of the fields: a two-field program's rate is comparable with a
       stencil's (stencil.h, stats.cells). */
    r->stats.cells = 0;
    for (int f = 0; f < p->nf; f++)
        if ((sp->cells[f] = g[f]) > r->stats.cells) r->stats.cells = g[f];
    return 0;
}

static int open_backend(sk_run *r)
{
    sb_open_args a = {.peer = 0,
                      .device = r->cfg.device,
                      .local_rank = r->local_rank,
                      .local_size = r->local_size,
                      .st = &r->st,
                      .local = &r->loc,
                      .steps = 1,
                      .prog = r->prog->p};
    for (int d = 0; d < SL_D; d++) a.origin[d] = r->loc.ext.lo[d];
    const char *name = r->cfg.backend;
    int rc = STENCIL_ENOBACKEND;
    for (int i = 0;; i++) {
        const sb_ops *ops = strcmp(name, "auto") ? (i ? NULL : sb_find(name)) : sb_auto(i);
        if (!ops) break;
        memset(&r->dev, 0, sizeof r->dev);
        r->dev.ops = ops;
        rc = ops->open(&r->dev, &a);
        if (!rc) {
            r->dev_open = 1;
            r->stats.t_compile += r->dev.t_compile;
            if (!r->dev.kernel[0]) snprintf(r->dev.kernel, sizeof r->dev.kernel, "program");
            return 0;
        }
        SK_FAIL(r, rc, "%s backend: %s", ops->name, r->dev.err);
    }
    if (rc == STENCIL_ENOBACKEND)
        SK_FAIL(r, rc, "backend '%s' is not built in (built: %s)", name, sb_names());
    return rc;
}

static void free_levels(sk_run *r)
{
    sk_prog *sp = r->prog;
    for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) {
        sb_mem *m[4] = {&sp->cur[f], &sp->nxt[f], &sp->prv[f], &sp->spr[f]};
        for (int i = 0; i < 4; i++) {
            if (*m[i] && sp->ooc)
                sk_prog_ooc_level_free(r, *m[i]);
            else if (*m[i])
                r->dev.ops->mem_free(&r->dev, *m[i]);
            *m[i] = NULL;
        }
    }
}

static int alloc_on(sk_run *r)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    for (int f = 0; f < p->nf; f++) {
        sb_mem *m[3] = {&sp->cur[f], p->f[f].coef ? NULL : &sp->nxt[f],
                        p->f[f].keeps ? &sp->prv[f] : NULL};
        for (int i = 0; i < 3; i++) {
            if (!m[i]) continue;
            /* Out of core the levels are the host's, pinned for the chunks' transfers. */
            int rc = sp->ooc ? sk_prog_ooc_level(r, bytes, m[i])
                             : r->dev.ops->mem_alloc(&r->dev, bytes, m[i]);
            if (rc) return sp->ooc ? rc : SK_FAIL(r, rc, "%s", r->dev.err);
        }
    }
    /* The extra level of the fused substeps only where they run: not out of core (where the
       sweeps make their own, prog_loop.c). */
    sp->fuse = sp->ooc ? 0 : sk_prog_fusable(r);
    for (int f = 0; f < p->nf && sp->fuse >= 2; f++) {
        if (!p->f[f].keeps) continue;
        int rc = r->dev.ops->mem_alloc(&r->dev, bytes, &sp->spr[f]);
        if (rc) return SK_FAIL(r, rc, "%s", r->dev.err);
    }
    return 0;
}

/* On the device, or out of core where asked or over the limit, or where the device refused. */
static int alloc_levels(sk_run *r)
{
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    int ooc = 0, rc = sk_prog_ooc_want(r, &ooc);
    r->host = calloc(r->loc.nelems, sb_elem_size(r->st.type));
    if (!rc && !r->host) rc = SK_FAIL(r, STENCIL_ENOMEM, "cannot allocate %zu bytes", bytes);
    if (!rc && ooc) rc = sk_prog_ooc_start(r);
    if (!rc) rc = alloc_on(r);
    if (rc == STENCIL_EDEVMEM && !ooc && sk_ooc_mode(r) == 0) {
        free_levels(r);
        r->msg[0] = '\0';
        rc = sk_prog_ooc_start(r);
        if (!rc) rc = alloc_on(r);
    }
    return rc;
}

int sk_prog_setup(sk_run *r, const long *sizes, const char *text, const double *par,
                  stencil_type type, stencil_init_fn init, int linear)
{
    int rc = 0;
    kgt_perr e;
    sk_prog *sp = calloc(1, sizeof *sp);
    if (!sp) return SK_FAIL(r, STENCIL_ENOMEM, "out of memory");
    r->prog = sp;
    sp->linear = linear;
    sp->p = kgt_prog_parse_string(text, &e);
    if (!sp->p) rc = SK_FAIL(r, STENCIL_EFORMAT, "%d:%d: %s", e.line, e.col, e.msg);
    sp->hash = sk_prog_hash(text);
    if (!rc) memcpy(sp->par, par, sizeof(double) * (size_t)sp->p->npar);
    SK_PHASE(r, rc, sk_same_text(r, text, "programs"));
    SK_PHASE(r, rc, check_args(r, sizes, sp->p, type, init));
    SK_PHASE(r, rc, same_problem(r, type));
    if (!rc) rc = sk_check_same_options(r); /* agreed: every rank gets the same code */
    if (!rc) widths(sp);
    SK_PHASE(r, rc, union_stencil(r, sp->p, type));
    SK_PHASE(r, rc, sk_node_config(r));
    if (!rc) rc = sk_prog_weights(r, sizes, text, type, linear); /* prog_weights.c */
    SK_PHASE(r, rc, partition(r));
    SK_PHASE(r, rc, sk_prog_steps(r));
    SK_PHASE(r, rc, layout(r));
    SK_PHASE(r, rc, boxes(r));
    SK_PHASE(r, rc, open_backend(r));
    SK_PHASE(r, rc, sk_notice(r)); /* e.g. the host's interpreter, where nothing compiled */
    SK_PHASE(r, rc, alloc_levels(r));
    SK_PHASE(r, rc, sk_prog_links(r));
    int resume = 0;
    SK_PHASE(r, rc, sk_resuming(r, &resume));
    if (resume) { /* options.restart: every level from options.checkpoint */
        if (!rc) rc = sk_prog_load(r, r->opt.checkpoint);
    } else {
        SK_PHASE(r, rc, sk_prog_init(r, init));
        if (!rc) rc = sk_prog_halos_all(r);
    }
    r->t_up = MPI_Wtime() - r->t0;
    return rc;
}

void sk_prog_free(sk_run *r)
{
    sk_prog *sp = r->prog;
    if (!sp) return;
    if (r->dev_open) {
        for (int i = 0; i < sp->nslot; i++)
            for (int j = 0; j < sp->slot[i].n; j++) {
                sk_plink *k = &sp->slot[i].link[j];
                if (k->sbuf) r->dev.ops->host_free(&r->dev, k->sbuf);
                if (k->rbuf) r->dev.ops->host_free(&r->dev, k->rbuf);
            }
        free_levels(r);
    }
    if (sp->ooc) sk_prog_ooc_release(r);
    free(sp->req);
    free(sp->gbuf);
    free(sp->st);
    kgt_prog_free(sp->p);
    free(sp);
    r->prog = NULL;
}
