/*
 * The one place that turns a stencil into arithmetic. Every target uses it, so host, OpenCL, CUDA
 * and HIP kernels evaluate the same expression, in the order of the arithmetic contract
 * (backends/backend.h):
 *     acc = w0 * in[c + off0];  acc = acc + wp * in[c + offp] ...;  out = acc / divisor
 * written as one left-associative C expression. The only rewrites are the exact ones the
 * contract allows: weight 1 -> bare term, weight -1 -> subtraction (a + (-w) * x == a - w * x
 * bitwise, since rounding is symmetric), a power-of-two divisor -> product with its reciprocal.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kgt.h"

void kgt_printf(kgt_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (b->oom) return;
    va_start(ap, fmt);
    n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (!b->s || b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *s;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        if (!(s = realloc(b->s, cap))) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
        va_start(ap, fmt);
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

/* The value the element type holds for x: weights are converted from double as the contract says.
 */
static double in_type(double x, int dbl)
{
    return dbl ? x : (double)(float)x;
}

void kgt_emit_literal(kgt_buf *b, double x, int dbl)
{
    kgt_printf(b, dbl ? "%a" : "%af", in_type(x, dbl));
}

const char *kgt_wrap(char *buf, int n)
{
    if (n > 38) n = 38;
    if (n < 1) n = 1;
    buf[0] = '\n';
    memset(buf + 1, ' ', (size_t)(n - 1));
    buf[n] = '\0';
    return buf;
}

void kgt_temp(kgt_buf *b, int walk, const int *off)
{
    kgt_printf(b, "v%d_%d_%d", walk + off[0] + KGT_MAX_RADIUS, off[1] + KGT_MAX_RADIUS,
               off[2] + KGT_MAX_RADIUS);
}

static void emit_index(kgt_buf *b, const kgt_stencil *s, const int *off, const kgt_index *ix)
{
    if (ix->temps) {
        int o[KGT_MAX_DIMS] = {off[0], off[1], off[2]};
        o[s->ndims - 1] += ix->xshift;
        kgt_temp(b, ix->walk, o);
        return;
    }
    kgt_printf(b, "%s[%s", ix->in, ix->base);
    for (int d = 0; d < s->ndims; d++) {
        int o = off[d], a = abs(o);
        const char *st = ix->stride[d];
        if (o == 0) continue;
        if (!st)
            kgt_printf(b, " %c %d", o < 0 ? '-' : '+', a);
        else if (a == 1)
            kgt_printf(b, " %c %s", o < 0 ? '-' : '+', st);
        else
            kgt_printf(b, " %c %d * %s", o < 0 ? '-' : '+', a, st);
    }
    kgt_printf(b, "]");
}

/* Non-zero when the reciprocal of the divisor, in the element type, is exact. */
int kgt_exact_reciprocal(double d, int dbl, double *r)
{
    int e;
    double m = frexp(d, &e);
    if (fabs(m) != 0.5) return 0; /* not a power of two */
    *r = 1.0 / d;
    return isfinite(*r) && *r != 0.0 && *r * d == 1.0 && in_type(*r, dbl) == *r;
}

static int count_terms(const kgt_stencil *s)
{
    int n = 0;
    for (int i = 0; i < s->npts; i++) n += s->pts[i].w != 0.0;
    return n;
}

void kgt_emit_sum(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix)
{
    int first = 1, n = 0;
    for (int i = 0; i < s->npts; i++) {
        double w = in_type(s->pts[i].w, dbl);
        if (s->pts[i].w == 0.0) continue; /* zero weights are not neighbours */
        if (n++ % 4 == 0 && !first) kgt_printf(b, "%s", ix->wrap);
        if (first)
            kgt_printf(b, w == -1.0 ? "-" : "");
        else
            kgt_printf(b, w < 0.0 ? " - " : " + ");
        if (fabs(w) != 1.0) {
            kgt_emit_literal(b, first ? w : fabs(w), dbl);
            kgt_printf(b, " * ");
        }
        emit_index(b, s, s->pts[i].off, ix);
        first = 0;
    }
}

void kgt_emit_expr(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix)
{
    double d = in_type(s->divisor, dbl), r;
    int paren = count_terms(s) > 1;
    if (d == 1.0) {
        kgt_emit_sum(b, s, dbl, ix);
        return;
    }
    if (d == -1.0) { /* x / -1 == -x exactly */
        kgt_printf(b, "-(");
        kgt_emit_sum(b, s, dbl, ix);
        kgt_printf(b, ")");
        return;
    }
    kgt_printf(b, paren ? "(" : "");
    kgt_emit_sum(b, s, dbl, ix);
    kgt_printf(b, paren ? ") " : " ");
    if (kgt_exact_reciprocal(d, dbl, &r)) {
        kgt_printf(b, "* ");
        kgt_emit_literal(b, r, dbl);
    } else {
        kgt_printf(b, "/ ");
        kgt_emit_literal(b, d, dbl);
    }
}

void kgt_emit_rn_helpers(kgt_buf *b)
{
    static const char *const op[3][2] = {{"add", "+"}, {"sub", "-"}, {"mul", "*"}};
    static const char *const t[2] = {"float", "double"};
    /* __fadd_rn & co. are never contracted into an fma, whatever -fmad says; NVRTC has them
       built in. HIP compiles with contraction off (#pragma clang fp contract), so plain
       operators keep their rounding there. */
    kgt_printf(b, "/* Arithmetic immune to fma contraction, whatever the compiler flags. */\n");
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 3; i++)
            kgt_printf(b,
                       "static __device__ __forceinline__ %s kgt_%s(%s a, %s b)\n{\n"
                       "#if defined(__HIPCC__)\n    return a %s b;\n#else\n"
                       "    return __%c%s_rn(a, b);\n#endif\n}\n",
                       t[d], op[i][0], t[d], t[d], op[i][1], d ? 'd' : 'f', op[i][0]);
}

static void emit_radius(kgt_buf *b, const kgt_stencil *s)
{
    kgt_printf(b, "radius");
    for (int d = 0; d < s->ndims; d++) kgt_printf(b, " %d/%d", s->rlo[d], s->rhi[d]);
}

void kgt_emit_summary(kgt_buf *b, const kgt_stencil *s, const char *lead)
{
    int n = 0;
    kgt_printf(b, "%s%s: %d dims, ", lead, s->name, s->ndims);
    emit_radius(b, s);
    kgt_printf(b, ", %d non-zero points, divisor %.17g", count_terms(s), s->divisor);
    for (int i = 0; i < s->npts; i++) {
        const int *o = s->pts[i].off;
        if (s->pts[i].w == 0.0) continue;
        kgt_printf(b, n++ % 4 ? "  " : "\n%s  ", lead);
        if (s->ndims == 1) kgt_printf(b, "(%d): %.17g", o[0], s->pts[i].w);
        if (s->ndims == 2) kgt_printf(b, "(%d, %d): %.17g", o[0], o[1], s->pts[i].w);
        if (s->ndims == 3) kgt_printf(b, "(%d, %d, %d): %.17g", o[0], o[1], o[2], s->pts[i].w);
    }
    kgt_printf(b, "\n");
}
