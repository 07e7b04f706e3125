/* Half-open boxes and direction slots. */
#include "layout.h"

long sl_box_volume(const sl_box *b)
{
    long v = 1;
    int d;

    for (d = 0; d < SL_D; d++) {
        if (b->hi[d] <= b->lo[d]) return 0;
        v *= b->hi[d] - b->lo[d];
    }
    return v;
}

int sl_box_empty(const sl_box *b)
{
    int d;

    for (d = 0; d < SL_D; d++)
        if (b->hi[d] <= b->lo[d]) return 1;
    return 0;
}

sl_box sl_box_intersect(const sl_box *a, const sl_box *b)
{
    sl_box r;
    int d;

    for (d = 0; d < SL_D; d++) {
        r.lo[d] = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
        r.hi[d] = a->hi[d] < b->hi[d] ? a->hi[d] : b->hi[d];
        /* Keep empty results well formed (hi == lo) so extents never go negative. */
        if (r.hi[d] < r.lo[d]) r.hi[d] = r.lo[d];
    }
    return r;
}

int sl_box_contains(const sl_box *b, const long p[SL_D])
{
    int d;

    for (d = 0; d < SL_D; d++)
        if (p[d] < b->lo[d] || p[d] >= b->hi[d]) return 0;
    return 1;
}

int sl_dir_index(const int d[SL_D])
{
    return (d[0] + 1) * 9 + (d[1] + 1) * 3 + (d[2] + 1);
}
