/*
 * kgt's kernel frame: what every CUDA/HIP kernel family writes the same way (the macros its
 * sources start with, a cell's statement, the unrolled cells of a register walk, a running
 * sum's terms and its quotient). It sits on the analysis (analysis.c) and the expressions
 * (emit_expr.c), below the families.
 */
#include <string.h>

#include "kgt_rt.h"

/* Cells of dimension 0 one thread computes in 2D/3D, unless --walk says otherwise: longer
   walks share more loads between cells but hold more registers (bench/RESULTS.md, kgt). */
void kgt_emit_warp_macros(kgt_buf *b)
{
    kgt_printf(b, "#if defined(__HIPCC__)\n#define KGT_WARP warpSize\n"
                  "#define KGT_SHFL(v, src) __shfl((v), (src))\n#define KGT_ALL(p) __all(p)\n"
                  "#else\n#define KGT_WARP 32\n"
                  "#define KGT_SHFL(v, src) __shfl_sync(0xffffffffu, (v), (src))\n"
                  "#define KGT_ALL(p) __all_sync(0xffffffffu, (p))\n#endif\n");
}

void kgt_emit_cell(kgt_buf *b, const kgt_stencil *s, int dbl, int ind, const char *c)
{
    char wrap[40];
    /* The last dimension has unit stride, written as a literal so offsets fold into loads. */
    kgt_index ix = {"in", c, {NULL, NULL, NULL}, kgt_wrap(wrap, ind + 4), 0, 0, 0, 1};
    if (s->ndims > 1) ix.stride[0] = "s0";
    if (s->ndims > 2) ix.stride[1] = "s1";
    kgt_printf(b, "%*sout[%s] = ", ind, "", c);
    kgt_emit_expr(b, s, dbl, &ix);
    kgt_printf(b, ";\n");
}

/* Declares the register of one input cell unless an earlier cell of the walk already did. */
static void emit_load(kgt_buf *b, const kgt_stencil *s, int dbl, int u, const int *off,
                      unsigned char *seen)
{
    int row = u + off[0] + KGT_MAX_RADIUS, side = 2 * KGT_MAX_RADIUS + 1;
    int key = (row * side + off[1] + KGT_MAX_RADIUS) * side + off[2] + KGT_MAX_RADIUS;
    if (seen[key]) return;
    seen[key] = 1;
    kgt_printf(b, "        const %s ", kgt_types[dbl].name);
    kgt_temp(b, u, off);
    kgt_printf(b, " = in[base + %d * s0", u + off[0]);
    if (s->ndims == 3 && off[1]) kgt_printf(b, " + %d * s1", off[1]);
    if (off[s->ndims - 1]) kgt_printf(b, " + %d", off[s->ndims - 1]);
    kgt_printf(b, "];\n");
}

/* (Taking the x-neighbours of a walk from warp shuffles instead of loads was tried and was slower
   everywhere but 2d4, where it tied: bench/RESULTS.md.) */
void kgt_emit_walk_cells(kgt_buf *b, const kgt_stencil *s, int dbl, int walk)
{
    enum { ROWS = KGT_WALK_MAX + 2 * KGT_MAX_RADIUS, SIDE = 2 * KGT_MAX_RADIUS + 1 };
    unsigned char seen[ROWS * SIDE * SIDE]; /* not static: backends generate from any thread */
    char wrap[40];
    memset(seen, 0, sizeof seen);
    for (int u = 0; u < walk; u++) {
        kgt_index ix = {"in", "c", {NULL, NULL, NULL}, kgt_wrap(wrap, 12), 1, u, 0, 1};
        for (int p = 0; p < s->npts; p++) {
            int off[3] = {0, 0, 0};
            for (int d = 0; d < s->ndims; d++) off[d] = s->pts[p].off[d];
            if (s->pts[p].w != 0.0) emit_load(b, s, dbl, u, off, seen);
        }
        kgt_printf(b, "        if (act) out[base + %d * s0] = ", u);
        kgt_emit_expr(b, s, dbl, &ix);
        kgt_printf(b, ";\n");
    }
}

void kgt_emit_step_macros(kgt_buf *b)
{
    kgt_printf(
        b, "/* Step kernels: asynchronous global-to-shared copies where the device has them. "
           "*/\n"
           "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
           "#define KGT_CP_ASYNC(d, s) asm volatile(\"cp.async.ca.shared.global [%%0], [%%1], "
           "%%2;\\n\" \\\n"
           "    :: \"r\"((unsigned)__cvta_generic_to_shared(d)), \"l\"(s), \"n\"(sizeof(*(s))))\n"
           "#define KGT_CP_COMMIT() asm volatile(\"cp.async.commit_group;\\n\" ::)\n"
           "#define KGT_CP_WAIT(n) asm volatile(\"cp.async.wait_group %%0;\\n\" :: \"n\"(n))\n"
           "#else\n#define KGT_CP_ASYNC(d, s) (*(d) = *(s))\n#define KGT_CP_COMMIT()\n"
           "#define KGT_CP_WAIT(n)\n#endif\n");
    /* 16-byte rows (shape vec): copies that skip L1, vector loads and stores. */
    kgt_printf(
        b,
        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
        "#define KGT_CP_ASYNC16(d, s) asm volatile(\"cp.async.cg.shared.global [%%0], [%%1], "
        "16;\\n\" \\\n"
        "    :: \"r\"((unsigned)__cvta_generic_to_shared(d)), \"l\"(s))\n"
        "#else\n#define KGT_CP_ASYNC16(d, s) (*(float4 *)(d) = *(const float4 *)(s))\n#endif\n"
        "#define KGT_VST4F(p, r) ((p)[0] = (r).x, (p)[1] = (r).y, (p)[2] = (r).z, (p)[3] = (r).w)\n"
        "#define KGT_VST2D(p, r) ((p)[0] = (r).x, (p)[1] = (r).y)\n"
        "#define KGT_LD4F(p) (*(const float4 *)(p))\n"
        "#define KGT_LD2D(p) (*(const double2 *)(p))\n"
        "#define KGT_ST4F(p, a, b, c, d) (*(float4 *)(p) = make_float4(a, b, c, d))\n"
        "#define KGT_ST2D(p, a, b) (*(double2 *)(p) = make_double2(a, b))\n");
    /* A loop's unrolling (vector rows). hip-clang does not unroll a loop of unknown trip count
       holding shuffles (convergent operations) and says so as an error under -Werror: HIP leaves
       the loop rolled. */
    kgt_printf(b, "#define KGT_PRAGMA(x) _Pragma(#x)\n"
                  "#if defined(__HIP__)\n#define KGT_UNROLL(n)\n"
                  "#else\n#define KGT_UNROLL(n) KGT_PRAGMA(unroll n)\n#endif\n");
}

static void emit_value(kgt_buf *b, double x, int dbl)
{
    kgt_emit_literal(b, x, dbl);
}

/* The weight as the element type holds it (the contract converts from double). */
static double in_type(double x, int dbl)
{
    return dbl ? x : (double)(float)x;
}

void kgt_emit_acc_term(kgt_buf *b, int dbl, int first, const char *acc, double w, const char *v)
{
    double x = in_type(w, dbl);
    kgt_printf(b, "%s = ", acc);
    if (first) {
        if (x == 1.0)
            kgt_printf(b, "%s;\n", v);
        else if (x == -1.0)
            kgt_printf(b, "-%s;\n", v);
        else {
            kgt_printf(b, "kgt_mul(");
            emit_value(b, w, dbl);
            kgt_printf(b, ", %s);\n", v);
        }
        return;
    }
    if (x == 1.0 || x == -1.0) {
        kgt_printf(b, "kgt_%s(%s, %s);\n", x == 1.0 ? "add" : "sub", acc, v);
        return;
    }
    kgt_printf(b, "kgt_add(%s, kgt_mul(", acc);
    emit_value(b, w, dbl);
    kgt_printf(b, ", %s));\n", v);
}

void kgt_emit_quotient(kgt_buf *b, const kgt_stencil *s, int dbl, const char *acc)
{
    double d = in_type(s->divisor, dbl), r;
    if (d == 1.0)
        kgt_printf(b, "%s", acc);
    else if (d == -1.0)
        kgt_printf(b, "-%s", acc);
    else if (kgt_exact_reciprocal(d, dbl, &r)) {
        kgt_printf(b, "kgt_mul(%s, ", acc);
        emit_value(b, r, dbl);
        kgt_printf(b, ")");
    } else {
        kgt_printf(b, "%s / ", acc);
        emit_value(b, d, dbl);
    }
}
