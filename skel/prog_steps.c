/*
 * T, the time steps per exchange of a program run (skprog.h), and what a pass of T steps reads.
 *
 * Level k of a pass (k = 0 the level its exchange filled, k = -1 the previous one, k = T the
 * last) must hold valid values over a region around the owned box: level T over the box, and
 * level k wherever a later step reads it, the regions of the readers shifted by each offset at
 * which their updates read it (step k + 1 reads level k as the current level, step k + 2 as the
 * previous one), composed over the fields that read each other, per direction
 * (layout's sl_dirs_shift). Every level also holds its owned box (the norms compare the last two
 * levels there). So the halos of levels 0 and -1 (hw) are exactly what T steps need, and step k
 * computes the bounding box of level k's region (bw), within the cells the field updates. A
 * coefficient field is read at every step: its halo is the union over the steps.
 *
 * T is options.steps (or $STENCIL_STEPS), capped by the iterations; the automatic choice is 1
 * for programs but where fused steps are known to win (auto_steps). Lowered, the same on every
 * rank, where a part along a dimension with neighbours or a mirror face is thinner than the
 * regions' reach there (the halos come from the next rank only, and the cells a mirror ghost
 * reflects must be the rank's own); 1 where an update reads the cell's index along a dimension in
 * which its field is periodic (the cells a rank computes beyond that face would see the index
 * unwrapped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooc.h"
#include "skprog.h"

typedef struct sk_read {
    int g, prev, off[SL_D];
} sk_read;

/* The distinct reads of expression n (lets expanded once each), and the index dimensions it
   uses (bits). */
static void reads_of(const kgt_prog *p, const kgt_pnode *n, char *let, sk_read *rd, int *nrd,
                     int *index)
{
    if (n->kind == KP_LET) {
        if (!let[n->ref]) {
            let[n->ref] = 1;
            reads_of(p, p->let[n->ref].e, let, rd, nrd, index);
        }
        return;
    }
    if (n->kind == KP_INDEX) *index |= 1 << n->ref;
    if (n->kind == KP_READ) {
        sk_read x = {n->ref, n->prev != 0, {0, 0, 0}};
        for (int d = 0; d < p->ndims; d++) x.off[d] = n->off[d];
        for (int i = 0; i < *nrd; i++)
            if (!memcmp(&rd[i], &x, sizeof x)) return;
        rd[(*nrd)++] = x;
        return;
    }
    for (int i = 0; i < 3; i++)
        if (n->a[i]) reads_of(p, n->a[i], let, rd, nrd, index);
}

typedef int sk_dirw[SL_NDIRS][SL_D];

typedef struct sk_reads {
    sk_read *rd[KGT_PROG_MAX_FIELDS];
    int n[KGT_PROG_MAX_FIELDS], index[KGT_PROG_MAX_FIELDS];
    sk_dirw *w; /* [(T + 2) * nf]: level k of field f at (k + 1) * nf + f */
} sk_reads;

static void reads_free(sk_reads *s)
{
    for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) free(s->rd[f]);
    free(s->w);
}

static int reads_make(const kgt_prog *p, sk_reads *s)
{
    memset(s, 0, sizeof *s);
    char *let = calloc((size_t)p->nlet + 1, 1);
    s->w = calloc((size_t)(SL_MAX_STEPS + 2) * (size_t)p->nf, sizeof *s->w);
    int bad = !let || !s->w;
    for (int f = 0; f < p->nf && !bad; f++) {
        if (p->f[f].coef) continue;
        s->rd[f] = calloc((size_t)p->nnodes + 1, sizeof *s->rd[f]);
        if (!(bad = !s->rd[f])) {
            memset(let, 0, (size_t)p->nlet + 1);
            reads_of(p, p->f[f].update, let, s->rd[f], &s->n[f], &s->index[f]);
        }
    }
    free(let);
    return bad ? STENCIL_ENOMEM : 0;
}

/* The regions of every level of a pass of T steps (file comment), into s->w and sp's tables. */
static void compose(sk_prog *sp, sk_reads *s, int T)
{
    const kgt_prog *p = sp->p;
    int nf = p->nf, nd = p->ndims;
    sk_dirw coef[KGT_PROG_MAX_FIELDS];
    memset(s->w, 0, (size_t)(T + 2) * (size_t)nf * sizeof *s->w);
    memset(coef, 0, sizeof coef);
#define W(k, f) s->w[((k) + 1) * nf + (f)]
    for (int k = T - 1; k >= -1; k--)
        for (int f = 0; f < nf; f++)
            for (int i = 0; i < s->n[f]; i++) {
                const sk_read *x = &s->rd[f][i];
                int step = x->prev ? k + 2 : k + 1; /* the step of f that reads level k so */
                if (step < 1 || step > T) continue;
                sk_dirw *to = p->f[x->g].coef ? &coef[x->g] : &W(k, x->g);
                sl_dirs_shift(*to, W(step, f), nd, x->off);
            }
    memset(sp->hw, 0, sizeof sp->hw);
    memset(sp->bw, 0, sizeof sp->bw);
    for (int f = 0; f < nf; f++) {
        if (p->f[f].coef) {
            memcpy(sp->hw[f][0], coef[f], sizeof coef[f]);
            continue;
        }
        memcpy(sp->hw[f][0], W(0, f), sizeof(sk_dirw));
        memcpy(sp->hw[f][1], W(-1, f), sizeof(sk_dirw));
        /* One step: the previous level's halo is the one it had as the current level. */
        if (T == 1) sl_dirs_max(sp->hw[f][0], W(-1, f));
        for (int k = -1; k <= T; k++) sl_dirs_bound(W(k, f), nd, sp->bw[k + 1][f]);
    }
#undef W
    memset(sp->R, 0, sizeof sp->R);
    for (int f = 0; f < nf; f++)
        for (int l = 0; l < 2; l++) {
            int b[SL_D][2];
            sl_dirs_bound(sp->hw[f][l], nd, b);
            for (int k = 0; k <= T + 1; k++)
                for (int d = 0; d < nd; d++)
                    for (int e = 0; e < 2; e++) {
                        if (b[d][e] > sp->R[d][e]) sp->R[d][e] = b[d][e];
                        if (sp->bw[k][f][d][e] > sp->R[d][e]) sp->R[d][e] = sp->bw[k][f][d][e];
                    }
        }
    sp->T = T;
    sp->xprev = T > 1;
}

/* Whether this rank's part is thick enough for the regions of T steps (file comment). */
static int fits(const sk_run *r)
{
    const sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    for (int d = 0; d < p->ndims; d++) {
        int bound = r->part.pgrid[d] > 1;
        for (int f = 0; f < p->nf; f++)
            bound |= sp->periodic[f][d] || p->f[f].bc[d][0].kind == KGT_B_MIRROR ||
                     p->f[f].bc[d][1].kind == KGT_B_MIRROR;
        long thick = r->loc.owned.hi[d] - r->loc.owned.lo[d];
        if (bound && (thick < sp->R[d][0] || thick < sp->R[d][1])) return 0;
    }
    return 1;
}

/* An update reads the index along a dimension in which its field is periodic. */
static int index_periodic(const sk_prog *sp, const sk_reads *s)
{
    for (int f = 0; f < sp->p->nf; f++)
        for (int d = 0; d < sp->p->ndims; d++)
            if ((s->index[f] >> d & 1) && sp->periodic[f][d]) return 1;
    return 0;
}

/*
 * The automatic T: what the planned backend knows to win (sb_ops.prog_auto_steps: steps in one
 * fused launch, prog_loop.c), else 1. Asked only where a pass can be one launch: one rank (no
 * messages), no mirror or constant faces (refilled between steps), at least as many iterations.
 */
static int auto_steps(const sk_run *r)
{
    const kgt_prog *p = r->prog->p;
    const sb_ops *o = sk_planned_backend(r);
    if (!o || !o->prog_update_k || !o->prog_auto_steps || r->size != 1) return 1;
    for (int f = 0; f < p->nf; f++)
        if (sk_prog_refilled(p, f)) return 1;
    int T = o->prog_auto_steps(p, r->st.type, r->env.row_align);
    return T > 1 && T <= r->iters && T <= STENCIL_MAX_STEPS ? T : 1;
}

/*
 * The automatic T of a program run expected to start out of core (0: not expected). A sweep moves
 * every level across the link once per pass, so T steps cost one transfer; the halo rows a chunk
 * carries grow with T, and so does the work they repeat: T is as large as keeps those rows within
 * an eighth of a chunk buffer's, at most SL_MAX_STEPS. Where that gives fewer than 16 steps (thick
 * rows, as 3D planes are, leave few of them per chunk), a sweep is bound by the link whatever its
 * halo costs, so T goes up to 16 as long as the halo rows take at most half the buffer (T times the
 * rows a chunk computes, the work per transfer, is largest there). Where no field keeps a previous
 * level the chunks are parallelograms (prog_ooc.c), which repeat no work between chunks and upload
 * no halo twice: T then only costs the rows above a chunk that its buffers hold, T times the
 * larger reach, kept within a quarter of a buffer. And T times the reach stays within an eighth
 * of the part along every other dimension. Before the layout, so the rows are estimated from the
 * reach of one step.
 */
static int ooc_steps(sk_run *r)
{
    const kgt_prog *p = r->prog->p;
    long long limit = 0;
    int mode = sk_ooc_mode(r);
    sl_local l;
    if (mode == -1 || sk_ooc_limit(r, &limit) || sl_local_make(&l, &r->part, &r->st, r->rank))
        return 0;
    size_t es = sb_elem_size(r->st.type), row = (size_t)l.stride[0] * es;
    /* in core when the levels fit; else a set's chunk buffers are the levels and the fused
       runs' fourth one where they may run */
    int nbufs = sk_prog_levels(p, 0);
    if (mode == 0 && (limit <= 0 || (long long)(l.nelems * es) * nbufs <= limit)) return 0;
    nbufs = sk_prog_levels(p, sk_prog_fuse_reads(p));
    long owned = l.owned.hi[0] - l.owned.lo[0];
    long cap =
        limit > 0 ? (long)(limit / (long long)((size_t)(SK_POOC_SETS * nbufs) * row)) : owned / 8;
    long reach = r->st.rlo[0] + r->st.rhi[0];
    long T = reach > 0 ? cap / (8 * reach) : SL_MAX_STEPS, link = reach > 0 ? cap / (2 * reach) : 0;
    if (T < 16) T = link < 16 ? link : 16; /* fewer steps: the link bounds the sweep anyway */
    long R = sk_ooc_reach0(r);
    if (!sk_prog_keeps(p) && R > 0 && cap / (4 * R) > T) T = cap / (4 * R); /* parallelograms */
    for (int d = 1; d < p->ndims; d++) {
        long w = r->st.rlo[d] + r->st.rhi[d], n = l.owned.hi[d] - l.owned.lo[d];
        if (w > 0 && n / (8 * w) < T) T = n / (8 * w);
    }
    return T < 2 ? 0 : T > SL_MAX_STEPS ? SL_MAX_STEPS : (int)T;
}

int sk_prog_steps(sk_run *r)
{
    sk_prog *sp = r->prog;
    sk_reads s;
    int rc = 0;
    if (r->opt.steps == 0) r->opt.steps = r->opt.fuse; /* the deprecated name */
    if (r->opt.steps < 0 || r->opt.steps > STENCIL_MAX_STEPS)
        rc = SK_FAIL(r, STENCIL_EINVAL,
                     "options.steps (or fuse, $STENCIL_STEPS) is %d, not in 0..%d", r->opt.steps,
                     STENCIL_MAX_STEPS);
    memset(&s, 0, sizeof s);
    if (!rc) rc = reads_make(sp->p, &s);
    int want = r->opt.steps > 0 && !rc ? r->opt.steps : rc ? 1 : auto_steps(r), T = want, all = 1;
    if (r->opt.steps > 0)
        snprintf(r->why, sizeof r->why, "forced");
    else if (want > 1)
        snprintf(r->why, sizeof r->why, "program: fused steps, T=%d", want);
    else
        snprintf(r->why, sizeof r->why, "program: one step");
    int ooc = rc || r->opt.steps > 0 ? 0 : ooc_steps(r);
    if (ooc > 1) { /* out of core: a pass is one sweep of the chunks through the device */
        want = T = ooc;
        snprintf(r->why, sizeof r->why, "program out of core: T=%d per sweep", ooc % 1000);
    }
    if (want > 1 && r->iters > 0 && want > r->iters) {
        want = T = (int)r->iters;
        snprintf(r->why, sizeof r->why, "forced, capped by the iterations");
    }
    if (!rc && T > 1 && index_periodic(sp, &s)) {
        T = want = 1;
        snprintf(r->why, sizeof r->why, "program: index across a periodic face, T=1");
    }
    for (; !rc && T > 1; T--) { /* the largest T this part fits */
        compose(sp, &s, T);
        if (fits(r)) break;
    }
    if (MPI_Allreduce(&T, &all, 1, MPI_INT, MPI_MIN, r->comm) != MPI_SUCCESS && !rc)
        rc = SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (steps per exchange)");
    if (!rc) {
        compose(sp, &s, all);
        if (all < want)
            snprintf(r->why, sizeof r->why, "%s T=%d, parts too thin: T=%d",
                     r->opt.steps > 0 ? "forced" : "program:", want % 1000, all % 1000);
        r->steps = all;
    } else if (rc == STENCIL_ENOMEM) {
        rc = SK_FAIL(r, rc, "out of memory (program reads)");
    }
    reads_free(&s);
    return rc;
}

sl_box sk_prog_cbox(const sk_run *r, int f, int k)
{
    const sk_prog *sp = r->prog;
    const kgt_pfield *fd = &sp->p->f[f];
    sl_box b = sp->box[f];
    if (fd->coef || k >= sp->T) return b;
    for (int d = 0; d < sp->p->ndims; d++) {
        if (sl_box_empty(&b)) break;
        long lo = r->loc.owned.lo[d] - sp->bw[k + 1][f][d][0];
        long hi = r->loc.owned.hi[d] + sp->bw[k + 1][f][d][1];
        if (!sp->periodic[f][d]) { /* the cells the field updates: none beyond the grid */
            long glo = fd->bc[d][0].kind == KGT_B_FIXED ? fd->frame[d][0] : 0;
            long ghi = sp->n[d] - (fd->bc[d][1].kind == KGT_B_FIXED ? fd->frame[d][1] : 0);
            lo = lo < glo ? glo : lo;
            hi = hi > ghi ? ghi : hi;
        }
        b.lo[d] = lo < b.lo[d] ? lo : b.lo[d];
        b.hi[d] = hi > b.hi[d] ? hi : b.hi[d];
    }
    return b;
}

int sk_prog_frames(const sk_run *r, int f, sl_box *slab)
{
    const sk_prog *sp = r->prog;
    const kgt_pfield *fd = &sp->p->f[f];
    int n = 0;
    for (int d = 0; d < sp->p->ndims && !fd->coef; d++)
        for (int s = 0; s < 2; s++) {
            if (fd->bc[d][s].kind != KGT_B_FIXED || !fd->frame[d][s]) continue;
            sl_box b = r->loc.ext;
            if (s == 0) {
                b.lo[d] = b.lo[d] > 0 ? b.lo[d] : 0;
                b.hi[d] = fd->frame[d][0];
            } else {
                b.lo[d] = sp->n[d] - fd->frame[d][1];
                b.hi[d] = b.hi[d] < sp->n[d] ? b.hi[d] : sp->n[d];
            }
            for (int e = 0; e < sp->p->ndims; e++) {
                long lo = b.lo[e] > r->loc.ext.lo[e] ? b.lo[e] : r->loc.ext.lo[e];
                long hi = b.hi[e] < r->loc.ext.hi[e] ? b.hi[e] : r->loc.ext.hi[e];
                b.lo[e] = lo, b.hi[e] = hi;
            }
            if (!sl_box_empty(&b)) slab[n++] = b;
        }
    return n;
}
