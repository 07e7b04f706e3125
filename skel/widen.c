/*
 * Geometry of a pass of T steps: the box that step s updates is the target box widened by the
 * T - s radii still to come, within the live cells. Shared by the in-core loop (loop.c) and the
 * out-of-core sweeps (ooc_sweep.c), below both.
 */
#include "skel.h"

sl_box sk_widen(const sk_run *r, const sl_box *b, int k, const sl_box *live)
{
    sl_box w = *b;
    for (int d = 0; d < r->st.ndims; d++) {
        w.lo[d] -= (long)k * r->st.rlo[d];
        w.hi[d] += (long)k * r->st.rhi[d];
    }
    return sl_box_intersect(&w, live);
}
