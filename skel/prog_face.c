/*
 * A linear stencil with a boundary per face (options.face): run as the program that computes
 * it, `update u = (w0 * u[o0] + w1 * u[o1] + ...) / divisor` over the non-zero points in
 * row-major order. Evaluated left to right in the element type with the weights converted from
 * double, that is the arithmetic contract of backend.h term for term, so the results are the
 * linear kernels' bitwise (the frame of a fixed face is the points' reach, as for a stencil).
 * Tiles show field NULL, as for any stencil run. A named kernel is checked as the stencil path
 * checks it (registered, computing this stencil), then the program runs in its place: the faces'
 * ghosts need the program's kernel, and the named kernel computes the same stencil under the
 * same contract, so the bits are the ones it would give (stats.kernel names the program's
 * kernel, never "named").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skprog.h"

int sk_face_any(const stencil_options *o)
{
    for (int d = 0; d < SL_D; d++)
        for (int s = 0; s < 2; s++)
            if (o->face[d][s] != STENCIL_BOUNDARY_FIXED) return 1;
    return 0;
}

static int check_faces(sk_run *r, int nd)
{
    const stencil_options *o = &r->opt;
    for (int d = 0; d < SL_D; d++)
        for (int s = 0; s < 2; s++) {
            int k = (int)o->face[d][s];
            if (k < STENCIL_BOUNDARY_FIXED || k > STENCIL_BOUNDARY_CONSTANT)
                return SK_FAIL(r, STENCIL_EINVAL, "options.face[%d][%d] is %d, no boundary kind", d,
                               s, k);
            if (d >= nd && k != STENCIL_BOUNDARY_FIXED)
                return SK_FAIL(r, STENCIL_EINVAL, "options.face[%d] set for a %dD stencil", d, nd);
        }
    for (int d = 0; d < nd; d++)
        if ((o->face[d][0] == STENCIL_BOUNDARY_PERIODIC) !=
            (o->face[d][1] == STENCIL_BOUNDARY_PERIODIC))
            return SK_FAIL(r, STENCIL_EINVAL,
                           "options.face: dimension %d is periodic on one side only", d);
    return 0;
}

/* Appends to b (cap bytes, used *n) like snprintf; -1 when it is full. */
static int put(char *b, size_t cap, size_t *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int put(char *b, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *n) return -1;
    *n += (size_t)k;
    return 0;
}

/* The program text of stencil s with the faces of the options. */
static char *program_text(sk_run *r, const sl_stencil *s)
{
    static const char *const kind[] = {"fixed", "periodic", "mirror", "constant"};
    size_t cap = 256 + (size_t)s->npts * 96, n = 0;
    char *b = malloc(cap);
    int bad = !b;
    if (!bad)
        bad = put(b, cap, &n, "program stencil\n  dims %d\n  field u\n  update u = (", s->ndims);
    for (int p = 0; p < s->npts && !bad; p++) {
        bad = put(b, cap, &n, "%s(%.17g) * u[", p ? " + " : "", s->w[p]);
        for (int d = 0; d < s->ndims && !bad; d++)
            bad = put(b, cap, &n, "%s%d", d ? "," : "", s->off[p][d]);
        if (!bad) bad = put(b, cap, &n, "]");
    }
    if (!bad) bad = put(b, cap, &n, ") / (%.17g)\n", s->divisor);
    for (int d = 0; d < s->ndims && !bad; d++)
        for (int side = 0; side < 2 && !bad; side++) {
            int k = (int)r->opt.face[d][side];
            bad = put(b, cap, &n, "  boundary u %c%c %s", kgt_prog_dim_names[d], side ? '+' : '-',
                      kind[k]);
            if (!bad && k == STENCIL_BOUNDARY_CONSTANT)
                bad = put(b, cap, &n, " %.17g", r->opt.face_value[d][side]);
            if (!bad) bad = put(b, cap, &n, "\n");
        }
    if (!bad) bad = put(b, cap, &n, "end\n");
    if (bad) {
        free(b);
        return NULL;
    }
    return b;
}

int sk_face_setup(sk_run *r, const long *sizes, const stencil_desc *st, const char *kernel,
                  stencil_init_fn init)
{
    sl_stencil s;
    double none[1] = {0};
    int rc = 0;
    memset(&s, 0, sizeof s);
    if (!st) rc = SK_FAIL(r, STENCIL_EINVAL, "stencil description is NULL");
    const stencil_kernel *named = NULL;
    if (!rc) rc = sl_stencil_make(&s, st, r->msg, sizeof r->msg);
    if (!rc) rc = check_faces(r, st->ndims);
    if (!rc) rc = sk_named_for(kernel, &s, &named, r->msg, sizeof r->msg);
    char *text = rc ? NULL : program_text(r, &s);
    if (!rc && !text) rc = SK_FAIL(r, STENCIL_ENOMEM, "out of memory (stencil as a program)");
    sl_stencil_free(&s);
    rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
    SK_PHASE(r, rc, sk_same_text(r, kernel ? kernel : "", "kernel names"));
    if (!rc) rc = sk_prog_setup(r, sizes, text, none, st->type, init, 1);
    free(text);
    return rc;
}
