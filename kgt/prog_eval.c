/*
 * Programs, the reference interpreter: a walk of the tree per cell, the definition the
 * generated kernels are tested against and the fallback where no kernel can be compiled.
 *
 * Arithmetic is done in double and rounded to float after every operation when the element
 * type is float. For + - * / and sqrt that gives exactly the float operation's result (double
 * has more than 2p + 2 bits for p = 24, so rounding twice is innocuous), so one interpreter
 * serves both types, bitwise.
 *
 * Reads beyond the grid follow the read field's face: periodic wraps, mirror reflects about the
 * face (ghost -1 is cell 0: a zero gradient), constant gives its value. A cell beyond several
 * faces resolves the dimensions in order, a later constant face overriding an earlier one;
 * halos filled by kgt_prog_ghost hold exactly these values. A fixed face is never read across
 * (prog_analyse.c): the frame of cells whose update would is copied instead.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

typedef struct ev {
    const kgt_prog *p;
    int dbl, bad;
    const long *n;
    long t;
    long x[KGT_MAX_DIMS];
    const double *par;
    void *const *cur, *const *prev;
    const kgt_prog_tile *tile; /* set: reads from the tile's arrays, halos filled */
    double *letv;
    char *letok;
} ev;

static double rnd(const ev *v, double x)
{
    return v->dbl ? x : (double)(float)x;
}

static double get(const void *a, int dbl, long i)
{
    return dbl ? ((const double *)a)[i] : (double)((const float *)a)[i];
}

/* The value of field f in array a (its level) at cell c, inside the grid or not. */
static double load(const kgt_prog *p, int f, int dbl, const long *n, const void *a, const long *c,
                   int *bad)
{
    long i = 0;
    int isconst = 0;
    double cv = 0.0;
    for (int d = 0; d < p->ndims; d++) {
        long y = c[d];
        if (y < 0 || y >= n[d]) {
            const kgt_bface *bf = &p->f[f].bc[d][y >= n[d]];
            if (bf->kind == KGT_B_PERIODIC) y = (y % n[d] + n[d]) % n[d];
            if (bf->kind == KGT_B_MIRROR) y = y < 0 ? -1 - y : 2 * n[d] - 1 - y;
            if (bf->kind == KGT_B_CONST) isconst = 1, cv = bf->value, y = 0;
            if (bf->kind == KGT_B_FIXED || y < 0 || y >= n[d]) *bad = 1, y = 0;
        }
        i = i * n[d] + y;
    }
    if (isconst) return dbl ? cv : (double)(float)cv;
    return get(a, dbl, i);
}

double kgt_prog_ghost(const kgt_prog *p, int f, int dbl, const long *n, const void *a,
                      const long *x)
{
    int bad = 0;
    double v = load(p, f, dbl, n, a, x, &bad);
    return bad ? NAN : v;
}

static double eval(ev *v, const kgt_pnode *e);

static double read_tile(const ev *v, const kgt_pnode *e)
{
    const kgt_prog_tile *tl = v->tile;
    int nd = v->p->ndims, f = e->ref;
    long i = v->x[nd - 1] + e->off[nd - 1];
    for (int d = 0; d + 1 < nd; d++) i += (v->x[d] + e->off[d]) * tl->stride[f][d];
    return get(e->prev ? tl->prev[f] : tl->in[f], v->dbl, i);
}

static double eval_bin(ev *v, const kgt_pnode *e)
{
    double a = eval(v, e->a[0]), b;
    if (e->kind == KP_AND && a == 0.0) return 0.0; /* no side effects: order is free here */
    if (e->kind == KP_OR && a != 0.0) return 1.0;
    b = eval(v, e->a[1]);
    switch (e->kind) {
    case KP_ADD:
        return rnd(v, a + b);
    case KP_SUB:
        return rnd(v, a - b);
    case KP_MUL:
        return rnd(v, a * b);
    case KP_DIV:
        return rnd(v, a / b);
    case KP_MIN:
        return b < a ? b : a;
    case KP_MAX:
        return a < b ? b : a;
    case KP_LT:
        return a < b;
    case KP_LE:
        return a <= b;
    case KP_GT:
        return a > b;
    case KP_GE:
        return a >= b;
    case KP_EQ:
        return a == b;
    case KP_NE:
        return a != b;
    default:
        return b != 0.0; /* && and || with a not deciding */
    }
}

static double eval(ev *v, const kgt_pnode *e)
{
    switch (e->kind) {
    case KP_NUM:
        return rnd(v, e->num);
    case KP_PARAM:
        return rnd(v, v->par ? v->par[e->ref] : v->p->par[e->ref].value);
    case KP_INDEX:
        return rnd(v, (double)(v->x[e->ref] + (v->tile ? v->tile->origin[e->ref] : 0)));
    case KP_TIME:
        return rnd(v, (double)v->t);
    case KP_READ: {
        long c[KGT_MAX_DIMS];
        if (v->tile) return read_tile(v, e);
        for (int d = 0; d < v->p->ndims; d++) c[d] = v->x[d] + e->off[d];
        return load(v->p, e->ref, v->dbl, v->n, e->prev ? v->prev[e->ref] : v->cur[e->ref], c,
                    &v->bad);
    }
    case KP_LET:
        if (!v->letok[e->ref]) {
            v->letv[e->ref] = eval(v, v->p->let[e->ref].e);
            v->letok[e->ref] = 1;
        }
        return v->letv[e->ref];
    case KP_NEG:
        return -eval(v, e->a[0]);
    case KP_NOT:
        return eval(v, e->a[0]) == 0.0;
    case KP_ABS:
        return fabs(eval(v, e->a[0]));
    case KP_SQRT:
        return rnd(v, sqrt(eval(v, e->a[0])));
    case KP_SEL:
        return eval(v, e->a[0]) != 0.0 ? eval(v, e->a[1]) : eval(v, e->a[2]);
    default:
        return eval_bin(v, e);
    }
}

/* Whether cell x of field f is in its fixed frame (keeps its value). */
static int in_frame(const kgt_pfield *f, int nd, const long *n, const long *x)
{
    for (int d = 0; d < nd; d++) {
        if (f->bc[d][0].kind == KGT_B_FIXED && x[d] < f->frame[d][0]) return 1;
        if (f->bc[d][1].kind == KGT_B_FIXED && x[d] >= n[d] - f->frame[d][1]) return 1;
    }
    return 0;
}

/* A periodic or mirror face must not be read deeper than the grid is thick. */
static int too_thin(const kgt_prog *p, const long *n)
{
    for (int f = 0; f < p->nf; f++)
        for (int d = 0; d < p->ndims; d++)
            for (int s = 0; s < 2; s++) {
                const kgt_pfield *fd = &p->f[f];
                int r = fd->reach[d][s] > fd->preach[d][s] ? fd->reach[d][s] : fd->preach[d][s];
                if (fd->bc[d][s].kind != KGT_B_CONST && fd->bc[d][s].kind != KGT_B_FIXED &&
                    r > n[d])
                    return 1;
            }
    return 0;
}

int kgt_prog_eval_step(const kgt_prog *p, int dbl, const long *n, long t, const double *par,
                       void *const *cur, void *const *prev, void *const *out)
{
    ev v;
    long total = 1;
    memset(&v, 0, sizeof v);
    if (too_thin(p, n)) return -1;
    for (int d = 0; d < p->ndims; d++) total *= n[d];
    v.p = p;
    v.dbl = dbl;
    v.n = n;
    v.t = t;
    v.par = par;
    v.cur = cur;
    v.prev = prev;
    v.letv = malloc(((size_t)p->nlet + 1) * sizeof *v.letv);
    v.letok = malloc((size_t)p->nlet + 1);
    if (!v.letv || !v.letok) {
        free(v.letv);
        free(v.letok);
        return -1;
    }
    for (int f = 0; f < p->nf; f++) {
        const kgt_pfield *fd = &p->f[f];
        if (fd->coef) continue;
        for (long i = 0; i < total; i++) {
            double r;
            for (long k = i, d = p->ndims - 1; d >= 0; d--) {
                v.x[d] = k % n[d];
                k /= n[d];
            }
            if (in_frame(fd, p->ndims, n, v.x)) {
                r = get(cur[f], dbl, i);
            } else {
                memset(v.letok, 0, (size_t)p->nlet + 1);
                r = eval(&v, fd->update);
            }
            if (dbl)
                ((double *)out[f])[i] = r;
            else
                ((float *)out[f])[i] = (float)r;
        }
    }
    free(v.letv);
    free(v.letok);
    return v.bad ? -1 : 0;
}

void kgt_prog_eval_tile(const kgt_prog *p, int dbl, const kgt_prog_tile *tl)
{
    ev v;
    char letok[KGT_PROG_MAX_LETS];
    double letv[KGT_PROG_MAX_LETS];
    int nd = p->ndims;
    memset(&v, 0, sizeof v);
    v.p = p;
    v.dbl = dbl;
    v.t = tl->t;
    v.par = tl->par;
    v.tile = tl;
    v.letv = letv;
    v.letok = letok;
    for (int f = 0; f < p->nf; f++) {
        const long *lo = tl->lo[f], *hi = tl->hi[f];
        long count = 1;
        if (p->f[f].coef) continue;
        for (int d = 0; d < nd; d++) count *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
        for (long q = 0; q < count; q++) {
            long i = 0, rest = q;
            for (int d = nd - 1; d >= 0; d--) {
                v.x[d] = lo[d] + rest % (hi[d] - lo[d]);
                rest /= hi[d] - lo[d];
            }
            for (int d = 0; d < nd; d++) i += d + 1 < nd ? v.x[d] * tl->stride[f][d] : v.x[d];
            memset(letok, 0, sizeof letok);
            if (dbl)
                ((double *)tl->out[f])[i] = eval(&v, p->f[f].update);
            else
                ((float *)tl->out[f])[i] = (float)eval(&v, p->f[f].update);
        }
    }
}
