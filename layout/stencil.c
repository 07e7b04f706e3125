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

/* Adds offset o to the set pts[0..*n) unless it is there already; extends the radii. */
static void add_point(sl_stencil *c, const int o[SL_D])
{
    int p, d;

    for (p = 0; p < c->npts; p++)
        if (memcmp(c->off[p], o, sizeof c->off[p]) == 0) return;
    memcpy(c->off[c->npts], o, sizeof c->off[c->npts]);
    c->w[c->npts++] = 1.0;
    for (d = 0; d < SL_D; d++) {
        if (-o[d] > c->rlo[d]) c->rlo[d] = -o[d];
        if (o[d] > c->rhi[d]) c->rhi[d] = o[d];
    }
}

int sl_stencil_compose(sl_stencil *out, const sl_stencil *s, int steps, int periodic)
{
    int n2 = s->npts + (steps == 2 ? s->npts * (s->npts + 1) : 0), a, b, d, o[SL_D];

    memset(out, 0, sizeof(*out));
    if (steps != 1 && steps != 2) return STENCIL_EINVAL;
    out->off = malloc((size_t)n2 * sizeof(*out->off));
    out->w = malloc((size_t)n2 * sizeof(*out->w));
    if (!out->off || !out->w) {
        sl_stencil_free(out);
        return STENCIL_ENOMEM;
    }
    out->ndims = s->ndims;
    out->divisor = s->divisor;
    out->type = s->type;
    memcpy(out->flo, s->flo, sizeof out->flo);
    memcpy(out->fhi, s->fhi, sizeof out->fhi);
    for (a = 0; a < s->npts; a++) {
        if (steps == 1 || !periodic) add_point(out, s->off[a]);
        for (b = 0; steps == 2 && b < s->npts; b++) {
            for (d = 0; d < SL_D; d++) o[d] = s->off[a][d] + s->off[b][d];
            add_point(out, o);
        }
    }
    if (steps == 1) memcpy(out->w, s->w, (size_t)s->npts * sizeof(*out->w));
    return 0;
}
