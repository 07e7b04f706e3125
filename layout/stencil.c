/* Stencil validation and reduction to its non-zero points. */
#include <math.h>
#include <stdarg.h>
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

/* Offsets of two steps lie in [-2R, 2R] per dimension: a dense grid of that box marks them. */
#define SL_CSIDE (4 * STENCIL_MAX_RADIUS + 1)

static long grid_index(const int o[SL_D])
{
    long i = 0;
    int d;

    for (d = 0; d < SL_D; d++) i = i * SL_CSIDE + o[d] + 2 * STENCIL_MAX_RADIUS;
    return i;
}

/* 1 when o was not marked yet. */
static int mark_one(unsigned char *mark, const int o[SL_D])
{
    long i = grid_index(o);

    if (mark[i]) return 0;
    mark[i] = 1;
    return 1;
}

/* Marks the sums of two points (and, with a fixed frame, the points); returns how many. */
static int mark_sums(const sl_stencil *s, int periodic, unsigned char *mark)
{
    int a, b, d, o[SL_D], n = 0;

    for (a = 0; a < s->npts; a++) {
        if (!periodic) n += mark_one(mark, s->off[a]);
        for (b = 0; b < s->npts; b++) {
            for (d = 0; d < SL_D; d++) o[d] = s->off[a][d] + s->off[b][d];
            n += mark_one(mark, o);
        }
    }
    return n;
}

/* The marked offsets, in row-major order, weight 1; the radii follow them. */
static void collect_marks(sl_stencil *c, const unsigned char *mark)
{
    int o[SL_D], d;
    long i, n = (long)SL_CSIDE * SL_CSIDE * SL_CSIDE;

    for (i = 0; i < n; i++) {
        if (!mark[i]) continue;
        o[0] = (int)(i / (SL_CSIDE * SL_CSIDE)) - 2 * STENCIL_MAX_RADIUS;
        o[1] = (int)(i / SL_CSIDE % SL_CSIDE) - 2 * STENCIL_MAX_RADIUS;
        o[2] = (int)(i % SL_CSIDE) - 2 * STENCIL_MAX_RADIUS;
        memcpy(c->off[c->npts], o, sizeof(o));
        c->w[c->npts++] = 1.0;
        for (d = 0; d < SL_D; d++) {
            if (-o[d] > c->rlo[d]) c->rlo[d] = -o[d];
            if (o[d] > c->rhi[d]) c->rhi[d] = o[d];
        }
    }
}

static int alloc_points(sl_stencil *c, int n)
{
    c->off = malloc((size_t)n * sizeof(*c->off));
    c->w = malloc((size_t)n * sizeof(*c->w));
    if (c->off && c->w) return 0;
    sl_stencil_free(c);
    return STENCIL_ENOMEM;
}

int sl_stencil_compose(sl_stencil *out, const sl_stencil *s, int steps, int periodic)
{
    unsigned char *mark = NULL;
    int n = s->npts, rc;

    memset(out, 0, sizeof(*out));
    if (steps != 1 && steps != 2) return STENCIL_EINVAL;
    if (steps == 2) {
        mark = calloc((size_t)SL_CSIDE * SL_CSIDE * SL_CSIDE, 1);
        if (!mark) return STENCIL_ENOMEM;
        n = mark_sums(s, periodic, mark);
    }
    rc = alloc_points(out, n);
    if (!rc) {
        out->ndims = s->ndims;
        out->divisor = s->divisor;
        out->type = s->type;
        memcpy(out->flo, s->flo, sizeof out->flo);
        memcpy(out->fhi, s->fhi, sizeof out->fhi);
        if (mark) {
            collect_marks(out, mark);
        } else { /* one step: the stencil itself */
            out->npts = n;
            memcpy(out->off, s->off, (size_t)n * sizeof(*out->off));
            memcpy(out->w, s->w, (size_t)n * sizeof(*out->w));
            memcpy(out->rlo, s->rlo, sizeof out->rlo);
            memcpy(out->rhi, s->rhi, sizeof out->rhi);
        }
    }
    free(mark);
    return rc;
}
