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

/* Sums of more terms are too deep as nested calls (clang stops at 256 nested brackets). */
#define RN_NEST 64

static const char *const type_name[2] = {"float", "double"};

/* Whether the weighted terms' products are kgt_mul calls. With rn 2 they are infix when the
   sum has two terms or more: then every product goes into a kgt_add/kgt_sub (explicitly rounded,
   so no compiler fuses a product into it), and nvcc shares equal infix products between the
   rows of the streaming kernel, which it does not do for __fmul_rn calls (bench/RESULTS.md). */
static int mul_calls(const kgt_stencil *s, const kgt_index *ix)
{
    return ix->rn == 1 || (ix->rn == 2 && count_terms(s) < 2);
}

/* The weighted term of point p, its sign left to the operator unless it is the first term. */
static void emit_term(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix, int p,
                      int first, int call)
{
    double w = in_type(s->pts[p].w, dbl);
    if (first && w == -1.0) kgt_printf(b, "-");
    if (fabs(w) != 1.0) {
        kgt_printf(b, call ? "kgt_mul(" : "");
        kgt_emit_literal(b, first ? w : fabs(w), dbl);
        kgt_printf(b, call ? ", " : " * ");
    }
    emit_index(b, s, s->pts[p].off, ix);
    if (fabs(w) != 1.0 && call) kgt_printf(b, ")");
}

/* The operator that adds the term of point p (not the first): "add" or "sub". */
static const char *rn_op(const kgt_stencil *s, int dbl, int p)
{
    return in_type(s->pts[p].w, dbl) < 0.0 ? "sub" : "add";
}

/* ((t0 + t1) - t2) ... as kgt_sub(kgt_add(t0, t1), t2): the calls open outermost first. The
   terms of points [p0, p1) only; with acc, added to acc (acc + t0) - t1 ... */
static void emit_sum_nested(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix, int p0,
                            int p1, const char *acc)
{
    int n = 0, first = !acc, calls = -first, mul = mul_calls(s, ix);
    for (int i = p0; i < p1; i++) calls += s->pts[i].w != 0.0;
    for (int i = p1 - 1; i >= p0 && n < calls; i--) {
        if (s->pts[i].w == 0.0) continue;
        if (n > 0 && n % 8 == 0) kgt_printf(b, "%s", ix->wrap);
        kgt_printf(b, "kgt_%s(", rn_op(s, dbl, i));
        n++;
    }
    n = 0;
    if (acc) kgt_printf(b, "%s", acc);
    for (int i = p0; i < p1; i++) {
        if (s->pts[i].w == 0.0) continue;
        if (!first) kgt_printf(b, ",%s ", n % 4 == 0 ? ix->wrap : "");
        emit_term(b, s, dbl, ix, i, first, mul);
        if (!first) kgt_printf(b, ")");
        first = 0;
        n++;
    }
}

void kgt_emit_sum_part(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix, int p0,
                       int p1, const char *acc)
{
    emit_sum_nested(b, s, dbl, ix, p0, p1, acc);
}

/* A lambda called at once: acc = t0; acc = kgt_add(acc, t1) ...; no nesting at all. */
static void emit_sum_lambda(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix)
{
    int first = 1, mul = mul_calls(s, ix);
    kgt_printf(b, "[&] {");
    for (int i = 0; i < s->npts; i++) {
        if (s->pts[i].w == 0.0) continue;
        if (first)
            kgt_printf(b, "%s    %s kgt_s = ", ix->wrap, type_name[dbl]);
        else
            kgt_printf(b, "%s    kgt_s = kgt_%s(kgt_s, ", ix->wrap, rn_op(s, dbl, i));
        emit_term(b, s, dbl, ix, i, first, mul);
        kgt_printf(b, first ? ";" : ");");
        first = 0;
    }
    kgt_printf(b, "%s    return kgt_s;%s}()", ix->wrap, ix->wrap);
}

void kgt_emit_sum(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix)
{
    int first = 1, n = 0;
    if (ix->rn) {
        if (count_terms(s) > RN_NEST)
            emit_sum_lambda(b, s, dbl, ix);
        else
            emit_sum_nested(b, s, dbl, ix, 0, s->npts, NULL);
        return;
    }
    for (int i = 0; i < s->npts; i++) {
        if (s->pts[i].w == 0.0) continue; /* zero weights are not neighbours */
        if (n++ % 4 == 0 && !first) kgt_printf(b, "%s", ix->wrap);
        if (!first) kgt_printf(b, in_type(s->pts[i].w, dbl) < 0.0 ? " - " : " + ");
        emit_term(b, s, dbl, ix, i, first, 0);
        first = 0;
    }
}

/* The sum of the terms, or the text sum where given (a name holding it). */
static void put_sum(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix, const char *sum)
{
    if (sum)
        kgt_printf(b, "%s", sum);
    else
        kgt_emit_sum(b, s, dbl, ix);
}

void kgt_emit_expr_of(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix,
                      const char *sum)
{
    double d = in_type(s->divisor, dbl), r;
    int paren = count_terms(s) > 1 && !ix->rn && !sum; /* a call needs no parentheses */
    if (d == 1.0) {
        put_sum(b, s, dbl, ix, sum);
        return;
    }
    if (d == -1.0) { /* x / -1 == -x exactly */
        kgt_printf(b, "-(");
        put_sum(b, s, dbl, ix, sum);
        kgt_printf(b, ")");
        return;
    }
    if (kgt_exact_reciprocal(d, dbl, &r) && ix->rn) {
        kgt_printf(b, "kgt_mul(");
        put_sum(b, s, dbl, ix, sum);
        kgt_printf(b, ", ");
        kgt_emit_literal(b, r, dbl);
        kgt_printf(b, ")");
        return;
    }
    kgt_printf(b, paren ? "(" : "");
    put_sum(b, s, dbl, ix, sum);
    kgt_printf(b, paren ? ") " : " ");
    if (kgt_exact_reciprocal(d, dbl, &r)) {
        kgt_printf(b, "* ");
        kgt_emit_literal(b, r, dbl);
    } else {
        kgt_printf(b, "/ ");
        kgt_emit_literal(b, d, dbl);
    }
}

void kgt_emit_expr(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix)
{
    kgt_emit_expr_of(b, s, dbl, ix, NULL);
}

void kgt_emit_rn_helpers(kgt_buf *b)
{
    static const char *const op[3][2] = {{"add", "+"}, {"sub", "-"}, {"mul", "*"}};
    /* Unused ones must not warn (a file may never subtract). __fadd_rn & co. are never contracted
       into an fma, whatever -fmad says; NVRTC has them built in. HIP's __fadd_rn is a plain `+`
       that hipcc contracts by default, so HIP gets the operator with contraction off in the helper
       itself: run-time sources have no file-wide pragma. (clang's -ffp-contract=fast overrides
       every pragma; its default honours them.) */
    kgt_printf(b,
               "/* kgt_add, kgt_sub, kgt_mul: arithmetic that no compiler flag contracts into "
               "fmas. */\n"
               "#if defined(__HIPCC__)\n"
               "#define KGT_RN(t, name, op, rn) static __device__ __forceinline__ "
               "__attribute__((unused)) \\\n"
               "    t kgt_##name(t a, t b) { _Pragma(\"clang fp contract(off)\") return a op b; }\n"
               "#else\n"
               "#define KGT_RN(t, name, op, rn) static __device__ __forceinline__ "
               "__attribute__((unused)) \\\n"
               "    t kgt_##name(t a, t b) { return rn(a, b); }\n"
               "#endif\n");
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 3; i++)
            kgt_printf(b, "KGT_RN(%s, %s, %s, __%c%s_rn)\n", type_name[d], op[i][0], op[i][1],
                       d ? 'd' : 'f', op[i][0]);
    kgt_printf(b, "#undef KGT_RN\n");
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
