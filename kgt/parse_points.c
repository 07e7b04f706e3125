/*
 * The description file parser, a stencil's points: 'point' lines and 'pattern' blocks, each
 * offset checked against the radius and for duplicates in constant time.
 */
#include <stdlib.h>
#include <string.h>

#include "parser.h"

static int add_point(parser *p, const int *off, double w, int col)
{
    kgt_stencil *s = p->cur;
    kgt_point *q;
    if (kgt_grow((void **)&s->pts, &s->cap, s->npts + 1, sizeof *s->pts))
        return perr(p, col, "out of memory");
    q = &s->pts[s->npts++];
    memset(q, 0, sizeof *q);
    memcpy(q->off, off, (size_t)s->ndims * sizeof *off);
    q->w = w;
    q->line = p->line;
    q->col = col;
    return 0;
}

/* Checks offset o of dimension d against the declared radius, or the global maximum. */
static int check_offset(const parser *p, const tok *t, int d, int o)
{
    const kgt_stencil *s = p->cur;
    if (s->has_radius && (o < -s->rlo[d] || o > s->rhi[d]))
        return perr(p, t->col, "offset %d is beyond the radius %d/%d of dimension %d", o, s->rlo[d],
                    s->rhi[d], d);
    if (o < -KGT_MAX_RADIUS || o > KGT_MAX_RADIUS)
        return perr(p, t->col, "offset %d exceeds the maximum radius %d", o, KGT_MAX_RADIUS);
    return 0;
}

/* The key of an offset in the parser's table of the open stencil's offsets. */
static int off_key(const int *off)
{
    int k = 0;
    for (int d = 0; d < KGT_MAX_DIMS; d++) k = k * OFF_SIDE + off[d] + KGT_MAX_RADIUS;
    return k;
}

static int dup_offset(const parser *p, const int *off, int col)
{
    const kgt_stencil *s = p->cur;
    int k = off_key(off), line;
    if (p->seen[k] != p->gen) return 0;
    line = s->pts[p->first[k]].line;
    if (s->ndims == 1)
        return perr(p, col, "duplicate offset (%d) (first at line %d)", off[0], line);
    if (s->ndims == 2)
        return perr(p, col, "duplicate offset (%d, %d) (first at line %d)", off[0], off[1], line);
    return perr(p, col, "duplicate offset (%d, %d, %d) (first at line %d)", off[0], off[1], off[2],
                line);
}

/* Marks the offset of the point just added as seen in the open stencil. */
static void see_offset(parser *p)
{
    int k = off_key(p->cur->pts[p->cur->npts - 1].off);
    p->seen[k] = p->gen;
    p->first[k] = p->cur->npts - 1;
}

/* point O0 [O1 [O2]] : W */
int kgt_kw_point(parser *p)
{
    kgt_stencil *s = p->cur;
    int off[KGT_MAX_DIMS] = {0, 0, 0}, colon = -1;
    double w;
    if (kgt_need_dims(p)) return -1;
    if (s->mode == KGT_MODE_PATTERN)
        return perr(p, p->t[0].col, "cannot mix 'point' and 'pattern'");
    for (int i = 1; i < p->nt && colon < 0; i++)
        if (strcmp(p->t[i].s, ":") == 0) colon = i;
    if (colon < 0) return perr(p, p->t[0].col, "missing ':' in 'point'");
    if (colon - 1 != s->ndims)
        return perr(p, p->t[0].col, "'point' needs %d offset%s before ':', got %d", s->ndims,
                    s->ndims > 1 ? "s" : "", colon - 1);
    if (colon + 1 >= p->nt) return perr(p, p->t[colon].col, "missing weight after ':'");
    if (colon + 2 < p->nt)
        return perr(p, p->t[colon + 2].col, "unexpected '%s'", p->t[colon + 2].s);
    for (int d = 0; d < s->ndims; d++)
        if (kgt_parse_int(p, &p->t[1 + d], &off[d]) || check_offset(p, &p->t[1 + d], d, off[d]))
            return -1;
    if (dup_offset(p, off, p->t[1].col)) return -1;
    if (kgt_parse_real(p, &p->t[colon + 1], "weight", &w)) return -1;
    s->mode = KGT_MODE_POINTS;
    if (add_point(p, off, w, p->t[1].col)) return -1;
    see_offset(p);
    return 0;
}

static int pattern_rows(const kgt_stencil *s)
{
    int rows = 1;
    for (int d = 0; d + 1 < s->ndims; d++) rows *= s->rlo[d] + 1 + s->rhi[d];
    return rows;
}

int kgt_kw_pattern(parser *p)
{
    kgt_stencil *s = p->cur;
    if (kgt_need_dims(p) || kgt_need_args(p, 0, "pattern")) return -1;
    if (s->mode == KGT_MODE_POINTS) return perr(p, p->t[0].col, "cannot mix 'point' and 'pattern'");
    if (s->mode == KGT_MODE_PATTERN) return perr(p, p->t[0].col, "duplicate 'pattern'");
    if (!s->has_radius) return perr(p, p->t[0].col, "'pattern' needs 'radius' first");
    s->mode = KGT_MODE_PATTERN;
    p->in_pattern = 1;
    p->rows = 0;
    p->pat_line = p->line;
    p->pat_col = p->t[0].col;
    return 0;
}

/* One row of the dense pattern: the weights along the last dimension. */
int kgt_pattern_row(parser *p)
{
    kgt_stencil *s = p->cur;
    int last = s->ndims - 1, len = s->rlo[last] + 1 + s->rhi[last], r = p->rows;
    int off[KGT_MAX_DIMS] = {0, 0, 0};
    if (r >= pattern_rows(s))
        return perr(p, p->t[0].col, "pattern has more than %d row%s", pattern_rows(s),
                    pattern_rows(s) > 1 ? "s" : "");
    if (p->nt != len)
        return perr(p, p->t[0].col, "pattern row has %d weight%s, expected %d", p->nt,
                    p->nt > 1 ? "s" : "", len);
    /* Row r of a 3D pattern is plane r / extent1, row r % extent1 of that plane. */
    if (s->ndims == 3) {
        int e1 = s->rlo[1] + 1 + s->rhi[1];
        off[0] = r / e1 - s->rlo[0];
        off[1] = r % e1 - s->rlo[1];
    } else if (s->ndims == 2) {
        off[0] = r - s->rlo[0];
    }
    for (int c = 0; c < len; c++) {
        double w;
        if (kgt_parse_real(p, &p->t[c], "weight", &w)) return -1;
        off[last] = c - s->rlo[last];
        if (add_point(p, off, w, p->t[c].col)) return -1;
    }
    p->rows++;
    return 0;
}

int kgt_end_pattern(parser *p)
{
    int want = pattern_rows(p->cur);
    p->in_pattern = 0;
    if (p->rows != want)
        return kgt_perr_at(p, p->pat_line, p->pat_col, "pattern has %d row%s, expected %d", p->rows,
                           p->rows == 1 ? "" : "s", want);
    return 0;
}
