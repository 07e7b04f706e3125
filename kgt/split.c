/*
 * Split division: q = s / d for float without the device's division routine (a slow-path test
 * and a branch per quotient), as the register-streaming kernel (emit_stream.c) emits it:
 *
 *     q0 = RN(s * rd);  q = fma(fma(-d, q0, s), rd, q0)      rd = RN(1 / d)
 *
 * q0 is within an ulp of s/d, the residual s - d q0 is computed by the inner fma, and the outer
 * one corrects q0 by rd times it (Markstein). The kernel takes it for |s| in [2^-63, 2^63]
 * (KGT_SPLIT_LO..KGT_SPLIT_HI as bit patterns) and `/` for anything else, zeros, subnormals,
 * infinities and NaN included. Whether q equals the correctly rounded s / d for every such s is
 * decided here, for one divisor, by trying every s in [1, 2); why that covers the whole range:
 *
 * Let 1 <= d <= 2^24, s = m 2^e with m in [1, 2) and -63 <= e <= 63 (|s| <= 2^63). Each of
 * RN(s rd), the fma residual, the fma result and RN(s / d) is the rounding of an exact value that
 * is m's exact value times 2^e, and rounding commutes with scaling by 2^e while the exact values
 * and their roundings stay normal (or zero) and finite:
 *   - q0, q and s / d are about s/d: at least 2^-63 rd >= 2^-87 (rd >= 2^-24 as d <= 2^24),
 *     normal, and at most 2^63 (d >= 1).
 *   - the residual r = s - d q0 is zero or at least 2^(e-47) in magnitude: s is a multiple of
 *     2^(e-23), and d q0 of 2^(ed-23) 2^(eq-23), with ed the exponent of d and eq >= e - ed - 1
 *     that of q0 (rd >= 2^(-ed-1)); so |r| >= 2^-110, normal, and |r| is about 2^-23 |s|.
 *   - a zero residual gives q = q0 at every scale.
 * Negating s negates q0, the residual, q and s / d exactly (round-to-nearest is symmetric, and a
 * zero residual is +0 for s and -s alike, which leaves q0 unchanged). So the 2^23 values of
 * [1, 2) decide every s in range. The check runs per qualifying stencil at generation time (a
 * few tens of milliseconds) and is not cached.
 *
 * Plain C99 on libm's fmaf; the project compiles kgt with -ffp-contract=off, so s * rd is a
 * rounded float product and not fused into the fma that follows.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kgt.h"

uint32_t kgt_float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

float kgt_bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The kernel's split quotient, in host arithmetic (the same roundings). */
static float split_div(float s, float d, float rd)
{
    const float q0 = s * rd;
    return fmaf(fmaf(-d, q0, s), rd, q0);
}

int kgt_split_divisor(double divisor, float *rd)
{
    const float d = (float)divisor;
    double exact;
    if (!(d >= 1.0f && d <= 0x1p24f) || kgt_exact_reciprocal(d, 0, &exact)) return 0;
    *rd = 1.0f / d;
    for (uint32_t u = kgt_float_bits(1.0f); u < kgt_float_bits(2.0f); u++) {
        const float s = kgt_bits_float(u);
        if (kgt_float_bits(split_div(s, d, *rd)) != kgt_float_bits(s / d)) return 0;
    }
    return 1;
}

/*
 * The device half of split division, once per file (the first stencil that divides so writes
 * it): HIP spells the intrinsics as CUDA does, and an unused static function would warn. Two
 * forms of the range test: kgt_div_split gathers the smallest and largest |s| (lo, hi), and
 * kgt_div_split_max one unsigned maximum m of kgt_split_off(s), 2|s| - 2 KGT_SPLIT_LO as bit
 * patterns modulo 2^32: |s| in the range gives 0 .. KGT_SPLIT_SPAN, |s| below it wraps above
 * 2^32 - 2 KGT_SPLIT_LO (one integer multiply-add and a maximum a numerator).
 */
void kgt_emit_div_split(kgt_buf *b)
{
    kgt_printf(b,
               "#ifndef KGT_SPLIT_LO\n"
               "/* Split division (kgt/split.c): s / d for d in [1, 2^24], rd = RN(1/d), without "
               "the\n"
               "   division routine. Correctly rounded (kgt checked it for d) while |s| lies in\n"
               "   [KGT_SPLIT_LO, KGT_SPLIT_HI] as bit patterns: lo and hi gather |s| so that the "
               "caller\n"
               "   takes `/` when a numerator is outside (zero, tiny, huge, infinite, NaN). */\n"
               "#define KGT_SPLIT_LO 0x%08xu /* 2^-63 */\n"
               "#define KGT_SPLIT_HI 0x%08xu /* 2^63 */\n"
               "#define KGT_SPLIT_FN static __device__ __forceinline__ __attribute__((unused))\n"
               "KGT_SPLIT_FN float kgt_div_split(float s, float d, float rd, unsigned &lo, "
               "unsigned &hi)\n"
               "{\n"
               "    const unsigned a = __float_as_uint(s) & 0x7fffffffu;\n"
               "    const float q0 = kgt_mul(s, rd);\n"
               "    lo = a < lo ? a : lo;\n"
               "    hi = a > hi ? a : hi;\n"
               "    return __fmaf_rn(__fmaf_rn(-d, q0, s), rd, q0);\n"
               "}\n"
               "/* The same quotient; m gathers kgt_split_off(s), in range while <= "
               "KGT_SPLIT_SPAN. */\n"
               "#define KGT_SPLIT_SPAN 0x%08xu /* 2 (HI - LO) */\n"
               "KGT_SPLIT_FN unsigned kgt_split_off(float s)\n"
               "{\n"
               "    return __float_as_uint(s) * 2u - 2u * KGT_SPLIT_LO;\n"
               "}\n"
               "KGT_SPLIT_FN float kgt_div_split_max(float s, float d, float rd, unsigned &m)\n"
               "{\n"
               "    const unsigned u = kgt_split_off(s);\n"
               "    const float q0 = kgt_mul(s, rd);\n"
               "    m = u > m ? u : m;\n"
               "    return __fmaf_rn(__fmaf_rn(-d, q0, s), rd, q0);\n"
               "}\n"
               "#endif\n\n",
               KGT_SPLIT_LO, KGT_SPLIT_HI, KGT_SPLIT_SPAN);
}

/* dst = num / divisor for cell i, at the range test of the form retest picks. */
static void emit_quotient(kgt_buf *b, const kgt_split_cell *c, double divisor, float rd, int retest)
{
    kgt_printf(b, "                %s = kgt_div_split%s(", c->dst, retest ? "_max" : "");
    if (c->in[0] && !retest)
        kgt_printf(b, "%s ? %s : 1.0f, ", c->in, c->num);
    else
        kgt_printf(b, "%s, ", c->num);
    kgt_emit_literal(b, divisor, 0);
    kgt_printf(b, ", ");
    kgt_emit_literal(b, rd, 0);
    kgt_printf(b, retest ? ", m);\n" : ", lo, hi);\n");
}

/*
 * retest 0: cells outside the box divide 1 (a compare and a select each), lo/hi decide. retest 1:
 * every numerator divides as it is, cells outside the box too (their sums of clamped cells may be
 * anything, and are not stored); only when one is out of range are the numerators of the cells
 * in the box tested again, by float compares (a second kgt_split_off would keep the first's
 * values live as common subexpressions, a register a numerator). Prefetched vector rows take
 * retest 1 (2d9 in blocks of 256 gained); the other vector rows (2d9nc lost with it), the tile
 * kernels (1D lost) and the streaming kernels keep retest 0 (bench/RESULTS.md).
 */
void kgt_emit_split_quotients(kgt_buf *b, int n, const kgt_split_cell *c, double divisor, float rd,
                              int retest)
{
    int guarded = 0;
    kgt_printf(b, retest ? "                unsigned m = 0;\n"
                         : "                unsigned lo = 0xffffffffu, hi = 0;\n");
    for (int i = 0; i < n; i++) {
        guarded |= c[i].in[0] != 0;
        emit_quotient(b, &c[i], divisor, rd, retest);
    }
    if (!retest) {
        kgt_printf(b, "                if (lo < KGT_SPLIT_LO || hi > KGT_SPLIT_HI) {\n");
    } else if (guarded) {
        kgt_printf(b, "                if (m > KGT_SPLIT_SPAN) {\n"
                      "                    int out = 0;\n");
        for (int i = 0; i < n; i++) {
            kgt_printf(b, "                    ");
            if (c[i].in[0]) kgt_printf(b, "if (%s) ", c[i].in);
            kgt_printf(b, "out |= !(fabsf(%s) >= 0x1p-63f && fabsf(%s) <= 0x1p+63f);\n", c[i].num,
                       c[i].num);
        }
        kgt_printf(b, "                    m = out ? m : 0;\n"
                      "                }\n                if (m > KGT_SPLIT_SPAN) {\n");
    } else {
        kgt_printf(b, "                if (m > KGT_SPLIT_SPAN) {\n");
    }
    for (int i = 0; i < n; i++) {
        kgt_printf(b, "                    %s = %s / ", c[i].dst, c[i].num);
        kgt_emit_literal(b, divisor, 0);
        kgt_printf(b, ";\n");
    }
    kgt_printf(b, "                }\n");
}
