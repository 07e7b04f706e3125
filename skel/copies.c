/*
 * Batches of device-to-device box copies (sb_ops.copy_many): a rank's own halos of a program
 * step (periodic faces it spans, every field and level) are many small boxes, each a launch of
 * its own when copied one by one, after the update that they then hold up. A batch keeps the
 * order the copies were asked in wherever it matters: a copy that reads or writes a cell that a
 * held copy writes (or writes one that a held copy reads) first sends the held ones.
 */
#include <string.h>

#include "skel.h"

static int same_strides(const long *a, const long *b)
{
    return a == b || !memcmp(a, b, SL_D * sizeof *a);
}

/* Whether box x of m (strides s) meets box y of n (strides t); other strides: assumed to. */
static int meets(sb_mem m, const sl_box *x, const long *s, sb_mem n, const sl_box *y, const long *t)
{
    if (m != n) return 0;
    if (!same_strides(s, t)) return 1;
    sl_box i = sl_box_intersect(x, y);
    return !sl_box_empty(&i);
}

static int depends(const sk_copies *b, const sb_copy *c)
{
    for (int i = 0; i < b->n; i++) {
        const sb_copy *h = &b->c[i];
        if (meets(h->dst, h->db, h->ds, c->src, c->sb, c->ss) ||
            meets(h->dst, h->db, h->ds, c->dst, c->db, c->ds) ||
            meets(h->src, h->sb, h->ss, c->dst, c->db, c->ds))
            return 1;
    }
    return 0;
}

int sk_copies_flush(sb_dev *dev, int q, sk_copies *b)
{
    int n = b->n, rc = 0;
    b->n = 0;
    if (n > 1 && dev->ops->copy_many) return dev->ops->copy_many(dev, q, n, b->c);
    for (int i = 0; i < n && !rc; i++) {
        const sb_copy *c = &b->c[i];
        rc = dev->ops->copy_peer(dev, q, c->dst, c->db, c->ds, c->src, c->sb, c->ss);
    }
    return rc;
}

int sk_copies_add(sb_dev *dev, int q, sk_copies *b, const sb_copy *c)
{
    int rc = 0;
    if (sl_box_empty(c->db)) return 0;
    if (b->n == SB_COPY_MANY || depends(b, c)) rc = sk_copies_flush(dev, q, b);
    sb_copy *h = &b->c[b->n];
    *h = *c;
    b->box[b->n][0] = *c->db, b->box[b->n][1] = *c->sb;
    h->db = &b->box[b->n][0], h->sb = &b->box[b->n][1];
    b->n++;
    return rc;
}

int sk_copies_touch(const sk_copies *b, sb_mem m, const sl_box *x, const long *s)
{
    sb_copy c = {m, m, x, x, s, s};
    return depends(b, &c);
}
