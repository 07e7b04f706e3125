/*
 * Brute-force proof that the halo pattern of layout/ is exact, for every stencil of the set over
 * bands and blocks, 1..8 simulated ranks, fixed and periodic boundaries, and small uneven grids.
 *
 * Everything expected is recomputed here from the dense weights and the cuts, cell by cell,
 * without the library's pattern code: which halo cells each update cell reads, who owns them,
 * which neighbour sits in each direction.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "stencil_set.h"

#define MAXR   8
#define MAXPTS 343

/* Check records every passing ck_assert (a syscall each): the hot loops assert only failures. */
#define REQUIRE(c, ...)                                                                            \
    do {                                                                                           \
        if (!(c)) ck_abort_msg(__VA_ARGS__);                                                       \
    } while (0)
#define REQ(c) REQUIRE(c, "%s:%d: %s", __FILE__, __LINE__, #c)

#define FOR_BOX(b, c)                                                                              \
    for (c[0] = (b).lo[0]; c[0] < (b).hi[0]; c[0]++)                                               \
        for (c[1] = (b).lo[1]; c[1] < (b).hi[1]; c[1]++)                                           \
            for (c[2] = (b).lo[2]; c[2] < (b).hi[2]; c[2]++)

typedef struct world {
    char name[200];
    stencil_desc desc;
    sl_stencil s;
    sl_partition p;
    sl_local L[MAXR];
    int npts, pts[MAXPTS][3];
    int rlo[3], rhi[3];
    long unneeded;      /* received cells nobody reads (bounding-box slack) */
    long unneeded_live; /* ... of which cells outside the fixed frame */
} world;

/* Non-zero points by walking the declared box, independently of sl_stencil_make. */
static void test_points(world *w)
{
    const stencil_desc *st = &w->desc;
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, o[3], d;
    long i = 0;

    for (d = 0; d < st->ndims; d++) {
        lo[d] = st->radius_lo[d];
        hi[d] = st->radius_hi[d];
    }
    w->npts = 0;
    for (d = 0; d < 3; d++) w->rlo[d] = w->rhi[d] = 0;
    for (o[0] = -lo[0]; o[0] <= hi[0]; o[0]++)
        for (o[1] = -lo[1]; o[1] <= hi[1]; o[1]++)
            for (o[2] = -lo[2]; o[2] <= hi[2]; o[2]++, i++) {
                if (st->weights[i] == 0.0) continue;
                for (d = 0; d < 3; d++) {
                    w->pts[w->npts][d] = o[d];
                    if (-o[d] > w->rlo[d]) w->rlo[d] = -o[d];
                    if (o[d] > w->rhi[d]) w->rhi[d] = o[d];
                }
                w->npts++;
            }
}

static long wrap(long x, long n)
{
    return ((x % n) + n) % n;
}

static int rank_of(const world *w, const int c[3])
{
    int d, k[3];

    for (d = 0; d < 3; d++) {
        k[d] = c[d];
        if (k[d] < 0 || k[d] >= w->p.pgrid[d]) {
            if (!w->p.periodic) return -1;
            k[d] = (int)wrap(k[d], w->p.pgrid[d]);
        }
    }
    return (k[0] * w->p.pgrid[1] + k[1]) * w->p.pgrid[2] + k[2];
}

/* Owner found by scanning the cuts linearly (the library bisects). */
static int owner_of(const world *w, const long g[3])
{
    int d, i, c[3];

    for (d = 0; d < 3; d++)
        for (i = 0; i < w->p.pgrid[d]; i++)
            if (g[d] >= w->p.cuts[d][i] && g[d] < w->p.cuts[d][i + 1]) c[d] = i;
    return rank_of(w, c);
}

static long ext_index(const sl_box *e, const long q[3])
{
    return ((q[0] - e->lo[0]) * (e->hi[1] - e->lo[1]) + (q[1] - e->lo[1])) * (e->hi[2] - e->lo[2]) +
           (q[2] - e->lo[2]);
}

/* A row of n cells as the local array holds it: $STENCIL_ROW_ALIGN = a pads every row to a
   multiple of a, else 2D rows of SL_ROW_PAD_MIN cells or more go to a multiple of SL_ROW_ALIGN
   and 3D rows to a multiple of SL_ROW_VEC. */
static long padded_row(long n, int ndims)
{
    const char *e = getenv("STENCIL_ROW_ALIGN");
    long a = e ? atol(e) : 0;
    if (a < 1 || a > 1024) {
        if (ndims == 3)
            a = SL_ROW_VEC;
        else if (ndims != 2 || n < SL_ROW_PAD_MIN)
            return n;
        else
            a = SL_ROW_ALIGN;
    }
    return (n + a - 1) / a * a;
}

static int in_box(const sl_box *b, const long q[3])
{
    return q[0] >= b->lo[0] && q[0] < b->hi[0] && q[1] >= b->lo[1] && q[1] < b->hi[1] &&
           q[2] >= b->lo[2] && q[2] < b->hi[2];
}

static int slot_of(const int d[3])
{
    return (d[0] + 1) * 9 + (d[1] + 1) * 3 + (d[2] + 1);
}

static void check_tiling(const world *w)
{
    long n = w->p.gsize[0] * w->p.gsize[1] * w->p.gsize[2], g[3];
    sl_box all = {{0, 0, 0}, {w->p.gsize[0], w->p.gsize[1], w->p.gsize[2]}};
    int *cnt = calloc((size_t)n, sizeof(int)), r;

    for (r = 0; r < w->p.nranks; r++) {
        FOR_BOX(w->L[r].owned, g)
        {
            REQUIRE(in_box(&all, g), "%s: rank %d owns a cell outside the grid", w->name, r);
            cnt[ext_index(&all, g)]++;
            REQUIRE(owner_of(w, g) == r && sl_partition_owner(&w->p, g) == r,
                    "%s: owner of (%ld,%ld,%ld) is not %d", w->name, g[0], g[1], g[2], r);
        }
    }
    FOR_BOX(all, g)
    REQUIRE(cnt[ext_index(&all, g)] == 1, "%s: cell (%ld,%ld,%ld) owned %d times", w->name, g[0],
            g[1], g[2], cnt[ext_index(&all, g)]);
    free(cnt);
}

/* Boxes owned, update and ext against their definitions, and the local index map. */
static void check_boxes(const world *w, int r)
{
    const sl_local *l = &w->L[r];
    sl_box e = l->owned;
    long g[3], stride = 1, st[3];
    int d, c[3];
    char *seen;

    sl_partition_coords(&w->p, r, c);
    REQ(rank_of(w, c) == r);
    for (d = 0; d < 3; d++) {
        long N = w->p.gsize[d], ulo = w->p.periodic ? 0 : w->rlo[d];
        long uhi = w->p.periodic ? N : N - w->rhi[d];
        long lo = l->owned.lo[d] > ulo ? l->owned.lo[d] : ulo;
        long hi = l->owned.hi[d] < uhi ? l->owned.hi[d] : uhi;
        REQ(l->coords[d] == c[d]);
        REQUIRE(sl_box_empty(&l->update) || (l->update.lo[d] == lo && l->update.hi[d] == hi),
                "%s: rank %d update box wrong on dim %d", w->name, r, d);
        if (hi <= lo) REQ(sl_box_empty(&l->update));
        if (w->p.periodic || l->owned.lo[d] > 0) e.lo[d] -= w->rlo[d];
        if (w->p.periodic || l->owned.hi[d] < N) e.hi[d] += w->rhi[d];
        REQ(l->bnd_lo[d] == (l->owned.lo[d] == 0));
        REQ(l->bnd_hi[d] == (l->owned.hi[d] == N));
    }
    REQUIRE(memcmp(&e, &l->ext, sizeof(e)) == 0, "%s: rank %d ext box", w->name, r);
    for (d = 2; d >= 0; d--) {
        if (d < w->p.ndims) REQ(l->stride[d] == stride);
        st[d] = stride;
        stride *= e.hi[d] - e.lo[d];
        if (d == w->p.ndims - 1 && d > 0) stride = padded_row(stride, w->p.ndims);
    }
    REQ((long)l->nelems == stride);
    seen = calloc(l->nelems, 1);
    FOR_BOX(e, g)
    {
        size_t i = sl_local_index(l, g);
        REQ((long)i ==
            (g[0] - e.lo[0]) * st[0] + (g[1] - e.lo[1]) * st[1] + (g[2] - e.lo[2]) * st[2]);
        REQ(!seen[i]);
        seen[i] = 1;
    }
    free(seen);
}

/* Every halo read is received exactly once, from the owner; every received cell is read. */
static void check_reads(world *w, int r)
{
    const sl_local *l = &w->L[r];
    long n = sl_box_volume(&l->ext), c[3], q[3], g[3], i;
    int *cov = calloc((size_t)n, sizeof(int)), *from = calloc((size_t)n, sizeof(int));
    char *need = calloc((size_t)n, 1);
    int s, p, d, dd[3];

    for (s = 0; s < SL_NDIRS; s++) {
        const sl_box *b = &l->dir[s].recv;
        if (!l->dir[s].has_recv) {
            REQUIRE(sl_box_empty(b), "%s: rank %d dir %d recv box", w->name, r, s);
            continue;
        }
        sl_box in = sl_box_intersect(b, &l->ext);
        REQUIRE(sl_box_volume(&in) == sl_box_volume(b), "%s: recv outside ext", w->name);
        in = sl_box_intersect(b, &l->owned);
        REQUIRE(sl_box_empty(&in), "%s: rank %d receives owned cells", w->name, r);
        FOR_BOX(*b, q)
        {
            cov[ext_index(&l->ext, q)]++;
            from[ext_index(&l->ext, q)] = s;
        }
    }
    FOR_BOX(l->update, c)
    for (p = 0; p < w->npts; p++) {
        for (d = 0; d < 3; d++) {
            q[d] = c[d] + w->pts[p][d];
            g[d] = w->p.periodic ? wrap(q[d], w->p.gsize[d]) : q[d];
            dd[d] = q[d] < l->owned.lo[d] ? -1 : q[d] >= l->owned.hi[d] ? 1 : 0;
        }
        REQUIRE(in_box(&l->ext, q), "%s: rank %d reads outside ext", w->name, r);
        REQ(g[0] >= 0 && g[0] < w->p.gsize[0] && g[1] >= 0 && g[1] < w->p.gsize[1] && g[2] >= 0 &&
            g[2] < w->p.gsize[2]);
        if (in_box(&l->owned, q)) continue;
        i = ext_index(&l->ext, q);
        REQUIRE(cov[i] == 1, "%s: rank %d halo cell (%ld,%ld,%ld) received %d times", w->name, r,
                q[0], q[1], q[2], cov[i]);
        REQUIRE(from[i] == slot_of(dd) && l->dir[from[i]].peer == owner_of(w, g),
                "%s: rank %d halo cell (%ld,%ld,%ld) from the wrong direction or peer", w->name, r,
                q[0], q[1], q[2]);
        need[i] = 1;
    }
    FOR_BOX(l->ext, q)
    {
        i = ext_index(&l->ext, q);
        REQUIRE(cov[i] <= 1, "%s: rank %d cell received twice", w->name, r);
        if (!cov[i] || need[i]) continue;
        w->unneeded++;
        for (d = 0; d < 3; d++) {
            g[d] = w->p.periodic ? wrap(q[d], w->p.gsize[d]) : q[d];
            if (!w->p.periodic && (g[d] < w->rlo[d] || g[d] >= w->p.gsize[d] - w->rhi[d])) break;
        }
        if (d == 3) w->unneeded_live++;
    }
    free(cov);
    free(from);
    free(need);
}

static sl_box wrap_box(const world *w, sl_box b)
{
    int d;

    for (d = 0; d < 3; d++) {
        long shift = wrap(b.lo[d], w->p.gsize[d]) - b.lo[d];
        b.lo[d] += shift;
        b.hi[d] += shift;
    }
    return b;
}

/* Sender and receiver agree on peers, tags and boxes; nothing crosses a fixed edge. */
static void check_pairing(const world *w, int a)
{
    const sl_local *l = &w->L[a];
    int s, d, c[3], back[3], valid;

    for (s = 0; s < SL_NDIRS; s++) {
        const sl_dir *x = &l->dir[s];
        REQ(slot_of(x->d) == s);
        valid = 0;
        for (d = 0; d < 3; d++) {
            c[d] = l->coords[d] + x->d[d];
            back[d] = -x->d[d];
            if (x->d[d] != 0 && d >= w->p.ndims) valid = -1;
            if (x->d[d] != 0 && valid == 0) valid = 1;
        }
        if (valid != 1) {
            REQUIRE(!x->active && !x->has_send && !x->has_recv, "%s: slot %d", w->name, s);
            continue;
        }
        REQ(x->peer == rank_of(w, c));
        REQ(x->active == (x->has_send || x->has_recv));
        REQ(x->send_tag == s);
        REQ(x->recv_tag == slot_of(back));
        if (x->peer < 0) {
            REQUIRE(!x->active, "%s: rank %d sends past a fixed edge", w->name, a);
            continue;
        }
        const sl_dir *y = &w->L[x->peer].dir[slot_of(back)];
        REQ(y->peer == a);
        REQ(x->send_tag == y->recv_tag);
        REQ(x->recv_tag == y->send_tag);
        REQ(x->has_send == y->has_recv);
        REQ(x->has_recv == y->has_send);
        if (!x->has_send) continue;
        sl_box rb = wrap_box(w, y->recv), in = sl_box_intersect(&x->send, &l->owned);
        REQUIRE(memcmp(&rb, &x->send, sizeof(rb)) == 0,
                "%s: rank %d dir %d send box differs from rank %d's recv box", w->name, a, s,
                x->peer);
        REQUIRE(sl_box_volume(&in) == sl_box_volume(&x->send), "%s: sends unowned cells", w->name);
    }
}

/* Border and inner partition the update box, and every cell that is sent lies in the border. */
static void check_border(const world *w, int r)
{
    const sl_local *l = &w->L[r];
    long n = sl_box_volume(&l->owned), c[3];
    int *cnt = calloc((size_t)n, sizeof(int)), *inner = calloc((size_t)n, sizeof(int)), i, s;

    REQ(l->nborder >= 0 && l->nborder <= 2 * w->p.ndims);
    for (i = 0; i < l->nborder; i++) {
        REQ(!sl_box_empty(&l->border[i]));
        FOR_BOX(l->border[i], c)
        {
            REQUIRE(in_box(&l->update, c), "%s: border outside update", w->name);
            cnt[ext_index(&l->owned, c)]++;
        }
    }
    FOR_BOX(l->inner, c)
    {
        REQUIRE(in_box(&l->update, c), "%s: inner outside update", w->name);
        cnt[ext_index(&l->owned, c)]++;
        inner[ext_index(&l->owned, c)] = 1;
    }
    FOR_BOX(l->owned, c)
    REQUIRE(cnt[ext_index(&l->owned, c)] == in_box(&l->update, c),
            "%s: rank %d border/inner cover (%ld,%ld,%ld) %d times", w->name, r, c[0], c[1], c[2],
            cnt[ext_index(&l->owned, c)]);
    for (s = 0; s < SL_NDIRS; s++) {
        if (!l->dir[s].has_send) continue;
        FOR_BOX(l->dir[s].send, c)
        REQUIRE(!inner[ext_index(&l->owned, c)], "%s: rank %d sends an inner cell", w->name, r);
    }
    free(cnt);
    free(inner);
}

/* Direction rules the stencil set is in the set for (STENCILS.md, "why it is here"). */
static void check_shape_rules(const world *w, const char *st)
{
    int r, s, k, corners = 0;

    for (r = 0; r < w->p.nranks; r++)
        for (s = 0; s < SL_NDIRS; s++) {
            const sl_dir *x = &w->L[r].dir[s];
            int ncomp = (x->d[0] != 0) + (x->d[1] != 0) + (x->d[2] != 0), up = 0, down = 0;
            for (k = 0; k < 3; k++) {
                up |= x->d[k] > 0;
                down |= x->d[k] < 0;
            }
            if (ncomp >= 2 && x->active) corners++;
            if (!strcmp(st, "2d4") || !strcmp(st, "2d9nc") || !strcmp(st, "3d7"))
                REQUIRE(ncomp < 2 || !x->active, "%s: corner exchange", w->name);
            if (!strcmp(st, "2d5asym")) {
                REQUIRE(!(up && x->has_recv), "%s: 2d5asym receives from above", w->name);
                REQUIRE(!(down && x->has_send), "%s: 2d5asym sends below", w->name);
            }
            if (!strcmp(st, "3d-oct")) REQ(!(down && x->has_recv));
            if (!strcmp(st, "3d27") && w->p.periodic && ncomp > 0 && ncomp <= w->p.ndims)
                REQUIRE(x->active, "%s: 3d27 periodic dir %d inactive", w->name, s);
        }
    if (!strcmp(st, "2d-diag") && (w->p.periodic || (w->p.pgrid[0] > 1 && w->p.pgrid[1] > 1)))
        REQUIRE(corners > 0, "%s: 2d-diag has no corner exchange", w->name);
}

typedef struct cfg {
    int st;
    int periodic;
    int weighted;
    stencil_partition kind;
    int hint[3];
    int nranks;
    long gsize[3];
} cfg;

static long total_unneeded, total_unneeded_live, total_configs, total_eparts;

/* Equal cuts: the partition fails iff the smallest part is narrower than the radius. */
static int expect_epartition(const world *w, const long gsize[3], const int pgrid[3])
{
    int d;

    for (d = 0; d < w->desc.ndims; d++) {
        int need = w->rlo[d] > w->rhi[d] ? w->rlo[d] : w->rhi[d];
        if (gsize[d] / pgrid[d] < (need > 0 ? need : 1)) return 1;
    }
    return 0;
}

/* Some rank updates fewer cells along a dimension than the stencil spans there. */
static int narrow_update(const world *w)
{
    int r, d;

    for (r = 0; r < w->p.nranks; r++)
        for (d = 0; d < w->p.ndims; d++)
            if (!sl_box_empty(&w->L[r].update) &&
                w->L[r].update.hi[d] - w->L[r].update.lo[d] < w->rlo[d] + w->rhi[d])
                return 1;
    return 0;
}

static const double rank_w[MAXR] = {1, 3, 2, 5, 1, 4, 2, 3};

static void run_config(const cfg *k)
{
    world *w = calloc(1, sizeof(*w));
    int pgrid[3], minpart[3], rc, r, d, fixed_too_small = 0;
    char msg[256];

    stencil_set_get(k->st, STENCIL_DOUBLE, &w->desc);
    test_points(w);
    REQ(sl_stencil_make(&w->s, &w->desc, msg, sizeof(msg)) == 0);
    rc = sl_grid_choose(w->desc.ndims, k->gsize, k->nranks, k->kind, k->hint, pgrid, msg,
                        sizeof(msg));
    if (rc) { /* a hint that does not fit nranks */
        REQ(rc == STENCIL_EINVAL);
        goto out;
    }
    snprintf(w->name, sizeof(w->name), "%s %s %s%s grid %ldx%ldx%ld ranks %dx%dx%d",
             stencil_set_name(k->st), k->periodic ? "periodic" : "fixed",
             k->kind == STENCIL_PART_BANDS ? "bands" : "blocks", k->weighted ? " weighted" : "",
             k->gsize[0], k->gsize[1], k->gsize[2], pgrid[0], pgrid[1], pgrid[2]);
    REQ(pgrid[0] * pgrid[1] * pgrid[2] == k->nranks);
    sl_min_part(&w->s, minpart);
    rc = sl_partition_make(&w->p, w->desc.ndims, k->gsize, pgrid, k->weighted ? rank_w : NULL,
                           minpart, k->periodic, msg, sizeof(msg));
    if (!k->weighted)
        REQUIRE((rc == STENCIL_EPARTITION) == expect_epartition(w, k->gsize, pgrid),
                "%s: partition rc %d (%s)", w->name, rc, msg);
    if (rc) {
        REQ(rc == STENCIL_EPARTITION);
        total_eparts++;
        goto out;
    }
    /* The suite's -rowalign run pads rows as the skeleton would for STENCIL_ROW_ALIGN. */
    const char *align = getenv("STENCIL_ROW_ALIGN");
    w->p.row_align = align ? atoi(align) : 0;
    for (d = 0; d < w->desc.ndims; d++)
        if (!k->periodic && k->gsize[d] <= w->rlo[d] + w->rhi[d]) fixed_too_small = 1;
    for (r = 0; r < k->nranks; r++) {
        rc = sl_local_make(&w->L[r], &w->p, &w->s, r);
        REQUIRE(rc == (fixed_too_small ? STENCIL_EINVAL : 0), "%s: local rc %d", w->name, rc);
    }
    if (fixed_too_small) goto out;
    check_tiling(w);
    for (r = 0; r < k->nranks; r++) {
        check_boxes(w, r);
        check_reads(w, r);
        check_pairing(w, r);
        check_border(w, r);
    }
    check_shape_rules(w, stencil_set_name(k->st));
    total_configs++;
    total_unneeded += w->unneeded;
    total_unneeded_live += w->unneeded_live;
    if (w->unneeded_live) {
        printf("inexact: %s: %ld received cells outside the fixed frame are never read\n", w->name,
               w->unneeded_live);
        /* A bounding box can only have holes when an update box is narrower than the stencil. */
        REQUIRE(narrow_update(w), "%s: %ld received cells are never read", w->name,
                w->unneeded_live);
    }
out:
    sl_partition_free(&w->p);
    sl_stencil_free(&w->s);
    free(w);
}

static const long sizes1[][3] = {{3, 1, 1}, {5, 1, 1}, {8, 1, 1}, {13, 1, 1}, {23, 1, 1}};
static const long sizes2[][3] = {{3, 4, 1},   {5, 3, 1},  {7, 9, 1},
                                 {10, 10, 1}, {13, 6, 1}, {17, 11, 1}};
static const long sizes3[][3] = {{3, 4, 5}, {4, 5, 6}, {6, 6, 6}, {7, 3, 5}, {9, 8, 7}};
static const int hints2[][3] = {{0, 0, 0}, {3, 2, 0}, {2, 2, 0}, {2, 0, 0}, {0, 3, 0}};
static const int hints3[][3] = {{0, 0, 0}, {2, 2, 2}, {2, 1, 3}, {1, 2, 0},
                                {0, 0, 2}, {0, 0, 1}, {3, 2, 1}};

/* One stencil, one boundary, weighted or not: every kind, hint, rank count and size. */
static void run_all(int st, int periodic, int weighted)
{
    stencil_desc desc;
    const long(*sizes)[3];
    const int(*hints)[3] = NULL;
    int nsizes, nhints = 0, i, h, n;
    cfg k;

    stencil_set_get(st, STENCIL_DOUBLE, &desc);
    sizes = desc.ndims == 1 ? sizes1 : desc.ndims == 2 ? sizes2 : sizes3;
    nsizes = desc.ndims == 1 ? 5 : desc.ndims == 2 ? 6 : 5;
    if (desc.ndims >= 2) {
        hints = desc.ndims == 2 ? hints2 : hints3;
        nhints = desc.ndims == 2 ? 5 : 7;
    }
    memset(&k, 0, sizeof(k));
    k.st = st;
    k.periodic = periodic;
    k.weighted = weighted;
    for (i = 0; i < nsizes; i++)
        for (n = 1; n <= MAXR; n++)
            for (h = -1; h < nhints; h++) {
                memcpy(k.gsize, sizes[i], sizeof(k.gsize));
                k.nranks = n;
                k.kind = h < 0 ? STENCIL_PART_BANDS : STENCIL_PART_BLOCKS;
                memset(k.hint, 0, sizeof(k.hint));
                if (h >= 0) memcpy(k.hint, hints[h], sizeof(k.hint));
                run_config(&k);
            }
}

START_TEST(pattern_exact)
{
    int st = _i / 4, periodic = _i % 2, weighted = _i / 2 % 2;

    total_configs = total_unneeded = total_unneeded_live = total_eparts = 0;
    run_all(st, periodic, weighted);
    printf("%-8s %-8s %-8s: %ld layouts checked, %ld rejected (EPARTITION); %ld received cells "
           "never read (%ld outside the fixed frame)\n",
           stencil_set_name(st), periodic ? "periodic" : "fixed", weighted ? "weighted" : "equal",
           total_configs, total_eparts, total_unneeded, total_unneeded_live);
    ck_assert_msg(total_configs > 0, "no layout checked");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("layout_pattern");
    TCase *tc = tcase_create("exact");
    SRunner *sr;
    int nfailed;

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, pattern_exact, 0, 4 * stencil_set_count());
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nfailed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
