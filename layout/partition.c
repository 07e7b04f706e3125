/* Process grids, cuts and ownership. */
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

static int smallest_factor(int n)
{
    int f;

    for (f = 2; (long)f * f <= n; f++)
        if (n % f == 0) return f;
    return n;
}

/*
 * Gives each prime factor of rem, largest first, to the free dimension whose parts are currently
 * longest: this balances the grid like MPI_Dims_create but follows the domain's aspect ratio, so
 * halo faces stay small on elongated grids.
 */
static void spread_factors(int ndims, const long gsize[SL_D], const int isfree[SL_D], int rem,
                           int pgrid[SL_D])
{
    int f[32], nf = 0, i, d;

    while (rem > 1) {
        f[nf] = smallest_factor(rem);
        rem /= f[nf++];
    }
    for (i = nf - 1; i >= 0; i--) {
        int best = -1;
        for (d = 0; d < ndims; d++) {
            if (!isfree[d]) continue;
            if (best < 0 || gsize[d] * pgrid[best] > gsize[best] * pgrid[d]) best = d;
        }
        pgrid[best] *= f[i];
    }
}

int sl_grid_choose(int ndims, const long gsize[SL_D], int nranks, stencil_partition kind,
                   const int hint[SL_D], int pgrid[SL_D], char *msg, size_t msglen)
{
    int d, isfree[SL_D] = {0, 0, 0}, nfree = 0;
    long fixed = 1;

    for (d = 0; d < SL_D; d++) pgrid[d] = 1;
    if (ndims < 1 || ndims > SL_D)
        return fail(msg, msglen, STENCIL_EINVAL, "ndims %d is not in 1..%d", ndims, SL_D);
    if (nranks < 1) return fail(msg, msglen, STENCIL_EINVAL, "%d ranks", nranks);
    if (kind == STENCIL_PART_BANDS) {
        pgrid[0] = nranks;
        return 0;
    }
    if (kind != STENCIL_PART_BLOCKS)
        return fail(msg, msglen, STENCIL_EINVAL, "unknown partition kind %d", (int)kind);
    for (d = 0; d < SL_D; d++) {
        int h = hint ? hint[d] : 0;
        if (h < 0 || (d >= ndims && h > 1))
            return fail(msg, msglen, STENCIL_EINVAL,
                        "process grid entry %d is %d: must be >= 0, and <= 1 past ndims %d", d, h,
                        ndims);
        if (d >= ndims) continue;
        if (h > 0) {
            pgrid[d] = h;
            fixed *= h;
        } else {
            isfree[d] = 1;
            nfree++;
        }
    }
    if (nranks % fixed != 0 || (nfree == 0 && fixed != nranks))
        return fail(msg, msglen, STENCIL_EINVAL,
                    "the fixed process-grid entries multiply to %ld, which does not %s %d ranks",
                    fixed, nfree ? "divide" : "equal", nranks);
    spread_factors(ndims, gsize, isfree, (int)(nranks / fixed), pgrid);
    return 0;
}

static int check_args(int ndims, const long gsize[SL_D], const int pgrid[SL_D],
                      const double *weights, long nranks, char *msg, size_t msglen)
{
    int d;
    long r;

    if (ndims < 1 || ndims > SL_D)
        return fail(msg, msglen, STENCIL_EINVAL, "ndims %d is not in 1..%d", ndims, SL_D);
    for (d = 0; d < SL_D; d++) {
        if (pgrid[d] < 1 || (d >= ndims && pgrid[d] != 1))
            return fail(msg, msglen, STENCIL_EINVAL, "process grid has %d ranks on dimension %d",
                        pgrid[d], d);
        if (d < ndims && gsize[d] < 1)
            return fail(msg, msglen, STENCIL_EINVAL, "global size %ld on dimension %d", gsize[d],
                        d);
    }
    for (r = 0; weights && r < nranks; r++)
        if (!isfinite(weights[r]) || weights[r] <= 0.0)
            return fail(msg, msglen, STENCIL_EINVAL, "rank %ld has weight %g: must be positive", r,
                        weights[r]);
    return 0;
}

/* Cut positions follow the cumulative slab weights, rounded to the nearest cell. */
static int weighted_cuts(const sl_partition *p, int d, const double *weights)
{
    int P = p->pgrid[d], r, i, c[SL_D];
    double *slab = calloc((size_t)P, sizeof(double)), cum = 0.0, total = 0.0;
    long N = p->gsize[d], *cut = p->cuts[d];

    if (!slab) return STENCIL_ENOMEM;
    /* Scaled by a power of two so that the largest weight is below 1: exact (the cuts do not
     * change), and the sums cannot overflow however large the weights are. */
    double wmax = 0.0;
    int e = 0;
    for (r = 0; r < p->nranks; r++) wmax = weights[r] > wmax ? weights[r] : wmax;
    frexp(wmax, &e);
    for (r = 0; r < p->nranks; r++) {
        sl_partition_coords(p, r, c);
        slab[c[d]] += ldexp(weights[r], -e);
    }
    for (i = 0; i < P; i++) total += slab[i];
    cut[0] = 0;
    for (i = 1; i < P; i++) {
        cum += slab[i - 1];
        /* N * cum first: exact for integer weights, so 1:3 of 100 cells is 25/75 exactly. */
        cut[i] = (long)floor((double)N * cum / total + 0.5);
        if (cut[i] < cut[i - 1]) cut[i] = cut[i - 1];
        if (cut[i] > N) cut[i] = N;
    }
    cut[P] = N;
    free(slab);
    return 0;
}

static int make_cuts(sl_partition *p, const double *weights)
{
    int d, i;

    for (d = 0; d < SL_D; d++) {
        long N = p->gsize[d], P = p->pgrid[d];
        p->cuts[d] = malloc((size_t)(P + 1) * sizeof(long));
        if (!p->cuts[d]) return STENCIL_ENOMEM;
        if (weights && d < p->ndims) {
            if (weighted_cuts(p, d, weights)) return STENCIL_ENOMEM;
            continue;
        }
        /* Block distribution: the first N % P parts get one extra cell. */
        for (i = 0; i <= P; i++) p->cuts[d][i] = i * (N / P) + (i < N % P ? i : N % P);
    }
    return 0;
}

static int check_parts(const sl_partition *p, const int minpart[SL_D], char *msg, size_t msglen)
{
    int d, i;

    for (d = 0; d < p->ndims; d++) {
        int need = minpart && minpart[d] > 1 ? minpart[d] : 1;
        for (i = 0; i < p->pgrid[d]; i++) {
            long part = p->cuts[d][i + 1] - p->cuts[d][i];
            if (part < need)
                return fail(msg, msglen, STENCIL_EPARTITION,
                            "dimension %d: part %d has %ld cells, fewer than the stencil radius "
                            "%d (global size %ld over %d ranks); use fewer ranks on this dimension",
                            d, i, part, need, p->gsize[d], p->pgrid[d]);
        }
    }
    return 0;
}

int sl_partition_make(sl_partition *p, int ndims, const long gsize[SL_D], const int pgrid[SL_D],
                      const double *weights, const int minpart[SL_D], int periodic, char *msg,
                      size_t msglen)
{
    int d, rc;
    long nranks = 1;

    memset(p, 0, sizeof(*p));
    for (d = 0; d < SL_D; d++) nranks *= pgrid[d] > 0 ? pgrid[d] : 1;
    rc = check_args(ndims, gsize, pgrid, weights, nranks, msg, msglen);
    if (rc) return rc;
    p->ndims = ndims;
    p->periodic = periodic ? 1 : 0;
    p->nranks = (int)nranks;
    for (d = 0; d < SL_D; d++) {
        p->gsize[d] = d < ndims ? gsize[d] : 1;
        p->pgrid[d] = pgrid[d];
    }
    rc = make_cuts(p, weights);
    if (rc) {
        sl_partition_free(p);
        return fail(msg, msglen, rc, "out of memory for the partition cuts");
    }
    rc = check_parts(p, minpart, msg, msglen);
    if (rc)
        sl_partition_free(p);
    else if (msg && msglen > 0)
        msg[0] = '\0';
    return rc;
}

void sl_partition_free(sl_partition *p)
{
    int d;

    if (!p) return;
    for (d = 0; d < SL_D; d++) {
        free(p->cuts[d]);
        p->cuts[d] = NULL;
    }
}

double sl_share_change(const double *a, const double *b, int n)
{
    double sa = 0.0, sb = 0.0, worst = 0.0;
    int i;

    for (i = 0; i < n; i++) {
        sa += a ? a[i] : 1.0;
        sb += b[i];
    }
    for (i = 0; i < n; i++) {
        double share_a = (a ? a[i] : 1.0) / sa, change = fabs(b[i] / sb / share_a - 1.0);
        if (change > worst) worst = change;
    }
    return worst;
}

void sl_partition_coords(const sl_partition *p, int rank, int c[SL_D])
{
    c[2] = rank % p->pgrid[2];
    rank /= p->pgrid[2];
    c[1] = rank % p->pgrid[1];
    c[0] = rank / p->pgrid[1];
}

int sl_partition_rank(const sl_partition *p, const int c[SL_D])
{
    int d, w[SL_D];

    for (d = 0; d < SL_D; d++) {
        w[d] = c[d];
        if (w[d] >= 0 && w[d] < p->pgrid[d]) continue;
        if (!p->periodic) return -1;
        w[d] = ((w[d] % p->pgrid[d]) + p->pgrid[d]) % p->pgrid[d];
    }
    return (w[0] * p->pgrid[1] + w[1]) * p->pgrid[2] + w[2];
}

sl_box sl_partition_owned(const sl_partition *p, int rank)
{
    sl_box b;
    int c[SL_D], d;

    sl_partition_coords(p, rank, c);
    for (d = 0; d < SL_D; d++) {
        b.lo[d] = p->cuts[d][c[d]];
        b.hi[d] = p->cuts[d][c[d] + 1];
    }
    return b;
}

int sl_partition_owner(const sl_partition *p, const long g[SL_D])
{
    int d, c[SL_D];

    for (d = 0; d < SL_D; d++) {
        int lo = 0, hi = p->pgrid[d]; /* invariant: cuts[lo] <= g < cuts[hi] */
        if (g[d] < 0 || g[d] >= p->gsize[d]) return -1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (p->cuts[d][mid] <= g[d])
                lo = mid;
            else
                hi = mid;
        }
        c[d] = lo;
    }
    return sl_partition_rank(p, c);
}

sl_box sl_update_box(const sl_partition *p, const sl_stencil *s, int rank)
{
    sl_box own = sl_partition_owned(p, rank), in;
    int d;

    if (p->periodic) return own;
    for (d = 0; d < SL_D; d++) {
        in.lo[d] = s->flo[d];
        in.hi[d] = p->gsize[d] - s->fhi[d];
    }
    return sl_box_intersect(&own, &in);
}
