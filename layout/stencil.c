/* Stencil validation and reduction to its non-zero points. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

static int fail(char *msg, size_t msglen, int code, const char *fmt, ...)
{
    va_list ap;

    if (msg && msglen > 0) {
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Checks everything but the weights; on success *npts_dense is the dense pattern length. */
static int check_shape(const stencil_desc *desc, long *ndense, char *msg, size_t msglen)
{
    int d;

    if (!desc) return fail(msg, msglen, STENCIL_EINVAL, "stencil description is NULL");
    if (desc->ndims < 1 || desc->ndims > STENCIL_MAX_DIMS)
        return fail(msg, msglen, STENCIL_EINVAL, "stencil ndims %d is not in 1..%d", desc->ndims,
                    STENCIL_MAX_DIMS);
    if (desc->type != STENCIL_FLOAT && desc->type != STENCIL_DOUBLE)
        return fail(msg, msglen, STENCIL_EINVAL, "stencil element type %d is not float or double",
                    (int)desc->type);
    *ndense = 1;
    for (d = 0; d < desc->ndims; d++) {
        int lo = desc->radius_lo[d], hi = desc->radius_hi[d];
        if (lo < 0 || lo > STENCIL_MAX_RADIUS || hi < 0 || hi > STENCIL_MAX_RADIUS)
            return fail(msg, msglen, STENCIL_EINVAL,
                        "stencil radius of dimension %d (low %d, high %d) is not in 0..%d", d, lo,
                        hi, STENCIL_MAX_RADIUS);
        *ndense *= lo + 1 + hi;
    }
    if (!desc->weights) return fail(msg, msglen, STENCIL_EINVAL, "stencil weights are NULL");
    if (!isfinite(desc->divisor) || desc->divisor == 0.0)
        return fail(msg, msglen, STENCIL_EINVAL, "stencil divisor %g is zero or not finite",
                    desc->divisor);
    return 0;
}

/* Offset of dense index i, dimension 0 slowest. */
static void dense_offset(const stencil_desc *desc, long i, int off[SL_D])
{
    int d;

    for (d = SL_D - 1; d >= 0; d--) {
        if (d >= desc->ndims) {
            off[d] = 0;
            continue;
        }
        {
            long ext = desc->radius_lo[d] + 1 + desc->radius_hi[d];
            off[d] = (int)(i % ext) - desc->radius_lo[d];
            i /= ext;
        }
    }
}

static void fill_points(sl_stencil *s, const stencil_desc *desc, long ndense)
{
    long i;
    int d, n = 0;

    for (i = 0; i < ndense; i++) {
        if (desc->weights[i] == 0.0) continue;
        dense_offset(desc, i, s->off[n]);
        s->w[n] = desc->weights[i];
        /* The halo follows the points that are really read, not the declared dense box. */
        for (d = 0; d < SL_D; d++) {
            if (-s->off[n][d] > s->rlo[d]) s->rlo[d] = -s->off[n][d];
            if (s->off[n][d] > s->rhi[d]) s->rhi[d] = s->off[n][d];
        }
        n++;
    }
    s->npts = n;
}

int sl_stencil_make(sl_stencil *s, const stencil_desc *desc, char *msg, size_t msglen)
{
    long ndense = 0, i, nz = 0;
    int rc;

    memset(s, 0, sizeof(*s));
    rc = check_shape(desc, &ndense, msg, msglen);
    if (rc) return rc;
    for (i = 0; i < ndense; i++) {
        if (!isfinite(desc->weights[i]))
            return fail(msg, msglen, STENCIL_EINVAL, "stencil weight %ld is not finite", i);
        if (desc->weights[i] != 0.0) nz++;
    }
    if (nz == 0) return fail(msg, msglen, STENCIL_EINVAL, "stencil has no non-zero weight");
    s->off = malloc((size_t)nz * sizeof(*s->off));
    s->w = malloc((size_t)nz * sizeof(*s->w));
    if (!s->off || !s->w) {
        sl_stencil_free(s);
        return fail(msg, msglen, STENCIL_ENOMEM, "out of memory for %ld stencil points", nz);
    }
    s->ndims = desc->ndims;
    s->divisor = desc->divisor;
    s->type = desc->type;
    fill_points(s, desc, ndense);
    memcpy(s->flo, s->rlo, sizeof s->flo);
    memcpy(s->fhi, s->rhi, sizeof s->fhi);
    if (msg && msglen > 0) msg[0] = '\0';
    return 0;
}

void sl_stencil_free(sl_stencil *s)
{
    if (!s) return;
    free(s->off);
    free(s->w);
    s->off = NULL;
    s->w = NULL;
    s->npts = 0;
}

void sl_min_part(const sl_stencil *s, int minpart[SL_D])
{
    int d;

    for (d = 0; d < SL_D; d++) {
        minpart[d] = s->rlo[d] > s->rhi[d] ? s->rlo[d] : s->rhi[d];
        if (minpart[d] < 1) minpart[d] = 1;
    }
}

#define SL_CGROUPS ((2 * STENCIL_MAX_RADIUS + 1) * (2 * STENCIL_MAX_RADIUS + 1))

/*
 * The composed pattern as bit rows: row (i0, i1) holds dimension 2 as bits. Grid index of offset o
 * in dimension d is o + org[d]; the grid covers `steps` times the stencil's reach, so no sum ever
 * leaves it. Dense 3D radius 8 at 8 steps: 129^2 rows of 3 words, two grids of 400 kB.
 */
typedef struct sl_cgrid {
    int side[SL_D], org[SL_D];
    int words;
    uint64_t *bits, *next, *tmp;
} sl_cgrid;

/* The stencil's points by (off0, off1): each group's dimension-2 offsets as a bit mask. */
typedef struct sl_groups {
    int n;
    int o0[SL_CGROUPS], o1[SL_CGROUPS];
    uint32_t mask[SL_CGROUPS]; /* bit q: offset q - rlo[2] */
    char first[SL_CGROUPS];    /* no earlier group has the same mask */
} sl_groups;

static uint64_t *row_of(const sl_cgrid *g, uint64_t *base, long i0, long i1)
{
    return base + (i0 * g->side[1] + i1) * g->words;
}

static void set_bit(const sl_cgrid *g, uint64_t *base, const int o[SL_D])
{
    long x = o[2] + g->org[2];
    row_of(g, base, o[0] + g->org[0], o[1] + g->org[1])[x / 64] |= (uint64_t)1 << (x % 64);
}

/* dst |= src shifted towards higher bits by sh (negative: lower); bits past the row drop. */
static void or_shifted(uint64_t *dst, const uint64_t *src, int words, int sh)
{
    int ws = (sh < 0 ? -sh : sh) / 64, bs = (sh < 0 ? -sh : sh) % 64;
    for (int w = 0; w < words; w++) {
        int a = sh >= 0 ? w - ws : w + ws, b = sh >= 0 ? a - 1 : a + 1;
        uint64_t v = 0;
        if (a >= 0 && a < words) v = sh >= 0 ? src[a] << bs : src[a] >> bs;
        if (bs && b >= 0 && b < words) v |= sh >= 0 ? src[b] >> (64 - bs) : src[b] << (64 - bs);
        dst[w] |= v;
    }
}

static void group_points(const sl_stencil *s, sl_groups *gr)
{
    gr->n = 0;
    for (int p = 0; p < s->npts; p++) {
        int k = 0;
        while (k < gr->n && (gr->o0[k] != s->off[p][0] || gr->o1[k] != s->off[p][1])) k++;
        if (k == gr->n) {
            gr->o0[k] = s->off[p][0];
            gr->o1[k] = s->off[p][1];
            gr->mask[k] = 0;
            gr->n++;
        }
        gr->mask[k] |= (uint32_t)1 << (s->off[p][2] + s->rlo[2]);
    }
    for (int k = 0; k < gr->n; k++) {
        gr->first[k] = 1;
        for (int j = 0; j < k && gr->first[k]; j++) gr->first[k] = gr->mask[j] != gr->mask[k];
    }
}

/*
 * g->next = g->bits + the stencil (Minkowski sum). Per source row, the row is smeared along
 * dimension 2 once per distinct mask, then or-ed into each group's target row: dense stencils
 * share one mask, so the work is rows x groups words, not rows x points.
 */
static void dilate(sl_cgrid *g, const sl_stencil *s, const sl_groups *gr)
{
    uint64_t *tmp = g->tmp;
    long rows = (long)g->side[0] * g->side[1];
    memset(g->next, 0, (size_t)rows * g->words * sizeof(uint64_t));
    for (long i0 = 0; i0 < g->side[0]; i0++)
        for (long i1 = 0; i1 < g->side[1]; i1++) {
            const uint64_t *src = row_of(g, g->bits, i0, i1);
            int any = 0;
            for (int w = 0; w < g->words; w++) any |= src[w] != 0;
            if (!any) continue;
            for (int k = 0; k < gr->n; k++) {
                if (!gr->first[k]) continue;
                memset(tmp, 0, (size_t)g->words * sizeof(uint64_t));
                for (int q = 0; q < 32; q++)
                    if (gr->mask[k] >> q & 1) or_shifted(tmp, src, g->words, q - s->rlo[2]);
                for (int j = k; j < gr->n; j++) {
                    if (gr->mask[j] != gr->mask[k]) continue;
                    uint64_t *dst = row_of(g, g->next, i0 + gr->o0[j], i1 + gr->o1[j]);
                    for (int w = 0; w < g->words; w++) dst[w] |= tmp[w];
                }
            }
        }
}

static int grid_alloc(sl_cgrid *g, const sl_stencil *s, int steps)
{
    for (int d = 0; d < SL_D; d++) {
        g->org[d] = steps * s->rlo[d];
        g->side[d] = steps * (s->rlo[d] + s->rhi[d]) + 1;
    }
    g->words = (g->side[2] + 63) / 64;
    size_t n = (size_t)g->side[0] * (size_t)g->side[1] * (size_t)g->words;
    g->bits = calloc(n, sizeof(uint64_t));
    g->next = calloc(n, sizeof(uint64_t));
    g->tmp = calloc((size_t)g->words, sizeof(uint64_t));
    return g->bits && g->next && g->tmp ? 0 : STENCIL_ENOMEM;
}

/* Marks what `steps` steps read: sums of `steps` points, or with a fixed frame of 1..steps. */
static void mark_sums(sl_cgrid *g, const sl_stencil *s, int steps, int periodic)
{
    static const int zero[SL_D] = {0};
    sl_groups gr;
    group_points(s, &gr);
    for (int p = 0; p < s->npts; p++) set_bit(g, g->bits, s->off[p]);
    for (int k = 2; k <= steps; k++) {
        /* A frame cell passes its input through: the chain may stop there, an offset 0. */
        if (!periodic) set_bit(g, g->bits, zero);
        dilate(g, s, &gr);
        uint64_t *t = g->bits;
        g->bits = g->next;
        g->next = t;
    }
}

/* Points of the marked grid, in row-major order (dimension 0 slowest), weight 1. */
static long count_marks(const sl_cgrid *g)
{
    long n = 0, words = (long)g->side[0] * g->side[1] * g->words;
    for (long i = 0; i < words; i++)
        for (uint64_t v = g->bits[i]; v; v &= v - 1) n++;
    return n;
}

static void collect_marks(sl_stencil *c, const sl_cgrid *g)
{
    for (long i0 = 0; i0 < g->side[0]; i0++)
        for (long i1 = 0; i1 < g->side[1]; i1++) {
            const uint64_t *row = row_of(g, g->bits, i0, i1);
            for (int x = 0; x < g->side[2]; x++) {
                if (!(row[x / 64] >> (x % 64) & 1)) continue;
                int o[SL_D] = {(int)i0 - g->org[0], (int)i1 - g->org[1], x - g->org[2]};
                memcpy(c->off[c->npts], o, sizeof o);
                c->w[c->npts++] = 1.0;
                for (int d = 0; d < SL_D; d++) {
                    if (-o[d] > c->rlo[d]) c->rlo[d] = -o[d];
                    if (o[d] > c->rhi[d]) c->rhi[d] = o[d];
                }
            }
        }
}

static int alloc_points(sl_stencil *c, long n)
{
    c->off = malloc((size_t)n * sizeof(*c->off));
    c->w = malloc((size_t)n * sizeof(*c->w));
    if (c->off && c->w) return 0;
    sl_stencil_free(c);
    return STENCIL_ENOMEM;
}

static void copy_points(sl_stencil *out, const sl_stencil *s)
{
    out->npts = s->npts;
    memcpy(out->off, s->off, (size_t)s->npts * sizeof(*out->off));
    memcpy(out->w, s->w, (size_t)s->npts * sizeof(*out->w));
    memcpy(out->rlo, s->rlo, sizeof out->rlo);
    memcpy(out->rhi, s->rhi, sizeof out->rhi);
}

static void grid_free(sl_cgrid *g)
{
    free(g->bits);
    free(g->next);
    free(g->tmp);
}

int sl_stencil_compose(sl_stencil *out, const sl_stencil *s, int steps, int periodic)
{
    sl_cgrid g = {{0}, {0}, 0, NULL, NULL, NULL};
    long n = s->npts;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (steps < 1 || steps > SL_MAX_STEPS) return STENCIL_EINVAL;
    if (steps > 1) {
        rc = grid_alloc(&g, s, steps);
        if (!rc) mark_sums(&g, s, steps, periodic);
        if (!rc) n = count_marks(&g);
    }
    if (!rc) rc = alloc_points(out, n);
    if (!rc) {
        out->ndims = s->ndims;
        out->divisor = s->divisor;
        out->type = s->type;
        memcpy(out->flo, s->flo, sizeof out->flo);
        memcpy(out->fhi, s->fhi, sizeof out->fhi);
        if (steps > 1)
            collect_marks(out, &g);
        else
            copy_points(out, s);
    }
    grid_free(&g);
    return rc;
}
