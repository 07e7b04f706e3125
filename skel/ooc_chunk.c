/*
 * Where the chunks of an out-of-core sweep lie, and which rows each of its steps touches.
 *
 * A sweep of T steps runs in groups of steps (o->depth at a time where the device has a fast
 * kernel of that many steps, in one update call; the remainder of T first, so group sizes never
 * shrink); the levels
 * S_1 < ... < S_m = T end the groups, S_0 = 0 is the sweep's input. Chunk i owns rows
 * [a_i, a_{i+1}) of dimension 0 (local indices) and computes level S on rows [lo_i(S), hi_i(S)),
 * other dimensions widened by T - S steps of the reach, all inside the live box.
 *
 * Trapezoids (the plain scheme): lo_i(S) = a_i - (T - S) rlo, hi_i(S) = a_{i+1} + (T - S) rhi.
 * Each chunk recomputes its neighbours' margins and uploads T radii of rows on each side.
 *
 * Parallelograms (o->skew): between chunks, lo_i(S) = hi_{i-1}(S) = a_i + (T - S) R with R the
 * larger reach of dimension 0; the first chunk's lower edge and the last chunk's upper edge stay
 * trapezoid. A level S_j row below lo_i(S_j) that chunk i reads was computed by chunk i - 1:
 * its buffers hold the rows [lo_i(S_{j+1}) - k_{j+1} rlo, lo_i(S_j)) of every level S_j that
 * chunk i needs (later levels of the same buffer write only below lo_i(S_{j+2}), and R >= rlo),
 * and they travel on the device through a carry buffer: of each buffer (parity), every row from
 * the lowest chunk i touches, a_i - k_m rlo, up to where its upload (or for the second buffer its
 * copy of the upload) begins. Rows between the levels hold other levels there, which chunk i
 * overwrites before it reads them; every row gets the fixed frame's cells, which no step
 * writes. Nothing is
 * computed twice between chunks, and a chunk uploads only a few rows beyond its own. It needs
 * chunks of at least kmax (R + rlo) rows and a device that copies between its buffers.
 */
#include <stdlib.h>

#include "ooc.h"

long sk_ooc_reach0(const sk_run *r)
{
    return r->st.rlo[0] > r->st.rhi[0] ? r->st.rlo[0] : r->st.rhi[0];
}

int sk_ooc_groups(const sk_run *r, int T, int *k)
{
    int m = 0, K = r->ooc->depth > 1 ? r->ooc->depth : 1;
    if (T % K) k[m++] = T % K;
    for (int s = T % K; s < T; s += K) k[m++] = K;
    return m;
}

/*
 * Owned rows per chunk for buffers of cap rows and sweeps of T steps (kmax: the largest group):
 * the first chunk's, the others', and whether the parallelograms fit.
 */
static int ooc_fit(const sk_run *r, long cap, int T, long *first, long *rest)
{
    long rlo = r->st.rlo[0], rhi = r->st.rhi[0], R = sk_ooc_reach0(r), kmax = r->ooc->depth;
    long o0 = r->loc.owned.lo[0] - r->loc.ext.lo[0], below = o0 - (long)T * rlo;
    below = o0 - (below > 0 ? below : 0); /* the first chunk's rows under its own (the array's) */
    *first = cap - below - (long)T * R;
    *rest = cap - (long)T * R - kmax * (rlo + rhi);
    if (r->ooc->dcopy && r->ooc->ccap > 0 && *first >= kmax * (R + rlo) &&
        *rest >= 2 * kmax * (R + rlo))
        return 1;
    *first = *rest = cap - (long)T * (rlo + rhi);
    return 0;
}

long sk_ooc_cap(const sk_run *r, int T, long *ccap)
{
    const sk_ooc *o = r->ooc;
    long rr = r->st.rlo[0] + r->st.rhi[0], halo = (long)T * rr;
    long avail = (long)(o->limit / (long long)o->row_bytes),
         owned = r->loc.owned.hi[0] - r->loc.owned.lo[0];
    *ccap = (long)T * sk_ooc_reach0(r) + (long)(r->depth > 1 ? r->depth : 1) * rr;
    if (o->limit <= 0) return (owned + 7) / 8 + halo;
    long cap = (avail - 2 * *ccap) / o->nbufs;
    if (cap >= 1 + halo) return cap;
    *ccap = 0; /* no room for the carry: trapezoids */
    return avail / o->nbufs;
}

int sk_ooc_fits(const sk_run *r, int T)
{
    long ccap;
    return sk_ooc_cap(r, T, &ccap) >= 1 + (long)T * (r->st.rlo[0] + r->st.rhi[0]);
}

int sk_ooc_shape(const sk_run *r, long cap, int T, long *first, long *rest, int *n)
{
    long owned = r->loc.owned.hi[0] - r->loc.owned.lo[0];
    int skew = ooc_fit(r, cap, T, first, rest);
    *n = owned <= *first || *first < 1 || *rest < 1
             ? 1
             : 1 + (int)((owned - *first + *rest - 1) / *rest);
    return skew;
}

void sk_ooc_split(long owned, int n, int skew, long *first, long *rest)
{
    if (n < 2) {
        *first = *rest = owned;
        return;
    }
    if (!skew) *first = (owned + n - 1) / n;
    *rest = (owned - *first + n - 2) / (n - 1);
}

int sk_ooc_layout(sk_run *r)
{
    sk_ooc *o = r->ooc;
    long first, rest, o0 = r->loc.owned.lo[0] - r->loc.ext.lo[0],
                      o1 = r->loc.owned.hi[0] - r->loc.ext.lo[0];
    int n;
    o->skew = sk_ooc_shape(r, o->cap, r->steps, &first, &rest, &n);
    if (first < 1 || rest < 1) first = rest = 1;
    free(o->a);
    o->a = malloc(((size_t)n + 1) * sizeof *o->a);
    if (!o->a) return STENCIL_ENOMEM;
    o->nchunks = n;
    o->a[0] = o0;
    if (n > 1) {
        sk_ooc_split(o1 - o0, n, o->skew, &first, &rest);
        o->a[1] = o0 + first;
        for (int i = 2; i < n; i++) o->a[i] = o->a[i - 1] + rest;
    }
    o->a[n] = o1;
    o->skew = o->skew && n > 1;
    return 0;
}

void sk_ooc_rows(const sk_run *r, int i, long *a, long *b)
{
    *a = r->ooc->a[i];
    *b = r->ooc->a[i + 1];
}

void sk_ooc_level(const sk_run *r, int i, int T, int S, long *lo, long *hi)
{
    const sk_ooc *o = r->ooc;
    long R = sk_ooc_reach0(r), w = (long)(T - S);
    *lo = o->skew && i > 0 ? o->a[i] + w * R : o->a[i] - w * r->st.rlo[0];
    *hi = o->skew && i + 1 < o->nchunks ? o->a[i + 1] + w * R : o->a[i + 1] + w * r->st.rhi[0];
}

long sk_ooc_base(const sk_run *r, int i, int T)
{
    const sk_ooc *o = r->ooc;
    long base = o->a[i] - (o->skew && i > 0 ? o->depth : T) * (long)r->st.rlo[0];
    return base < 0 ? 0 : base;
}

void sk_ooc_upload_rows(const sk_run *r, int i, int T, long *lo, long *hi, long *dup)
{
    int k[SK_OOC_MAX];
    sk_ooc_groups(r, T, k);
    long l1, h1;
    sk_ooc_level(r, i, T, k[0], &l1, &h1);
    *lo = l1 - (long)k[0] * r->st.rlo[0];
    *hi = h1 + (long)k[0] * r->st.rhi[0];
    *dup = r->ooc->skew && i > 0 ? l1 : *lo; /* not over the rows the carry brings */
}

int sk_ooc_carry_rows(const sk_run *r, int i, int T, int p, long *lo, long *hi)
{
    int k[SK_OOC_MAX], m = sk_ooc_groups(r, T, k);
    long up, top, dup;
    if (!r->ooc->skew || i == 0 || m < 2) return 0;
    sk_ooc_upload_rows(r, i, T, &up, &top, &dup);
    *lo = r->ooc->a[i] - (long)k[m - 1] * r->st.rlo[0];
    *hi = p ? dup : up;
    return *hi > *lo;
}
