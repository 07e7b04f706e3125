/*
 * kgt's split division (kgt/split.c), on the host: kgt_split_divisor() accepts the divisors the
 * streaming kernel may divide by with two fmas, and for each one it accepts, the split quotient
 * equals `/` bitwise on 10^7 random floats spread over every exponent of the split range (both
 * signs) and on the range's edges. This is evidence independent of kgt's own exhaustive check of
 * [1, 2), which relies on scaling by powers of two to cover the rest. Zeros, subnormals,
 * infinities and NaN must lie outside the range, so the kernel takes `/` for them. Suite 'kgt'.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "kgt.h"

enum { RANDOM = 10000000 };

/* The kernels' range test of kgt_div_split_max: kgt_split_off (twice the bits, less twice
   KGT_SPLIT_LO, wrapping) against KGT_SPLIT_SPAN; kgt_div_split's lo/hi is the plain test of
   |s|'s bits (test_range_forms: the two agree). */
static int in_range(float s)
{
    return kgt_float_bits(s) * 2u - 2u * KGT_SPLIT_LO <= KGT_SPLIT_SPAN;
}

/* The kernel's split quotient, written here again: q0 = RN(s rd), corrected by two fmas. */
static float split(float s, float d, float rd)
{
    const float q0 = s * rd;
    return fmaf(fmaf(-d, q0, s), rd, q0);
}

/* splitmix64 */
static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A float of random sign and mantissa whose exponent is uniform over the split range. */
static float random_in_range(uint64_t *state)
{
    const uint64_t r = next(state);
    const uint32_t lo = KGT_SPLIT_LO >> 23, hi = KGT_SPLIT_HI >> 23; /* biased exponents */
    const uint32_t e = lo + (uint32_t)((r >> 32) % (hi - lo + 1));
    const uint32_t m = e == hi ? 0 : (uint32_t)r & 0x7fffffu; /* 2^63 is the top */
    return kgt_bits_float((uint32_t)(r >> 31 & 1) << 31 | e << 23 | m);
}

/*
 * Bitwise differences between split and `/` on the edges and RANDOM values of the range (a value
 * outside the range counts as one too). No ck_assert in the loop: each one reports to the runner.
 */
static long mismatches(float d, float rd, uint64_t seed)
{
    static const uint32_t edges[] = {KGT_SPLIT_LO, KGT_SPLIT_LO + 1, KGT_SPLIT_HI - 1,
                                     KGT_SPLIT_HI, 0x3f800000u,      0x3fffffffu};
    long bad = 0;
    for (int i = 0; i < (int)(sizeof edges / sizeof edges[0]); i++)
        for (uint32_t sign = 0; sign < 2; sign++) {
            const float s = kgt_bits_float(edges[i] | sign << 31);
            bad += !in_range(s) || kgt_float_bits(split(s, d, rd)) != kgt_float_bits(s / d);
        }
    for (long i = 0; i < RANDOM; i++) {
        const float s = random_in_range(&seed);
        bad += !in_range(s) || kgt_float_bits(split(s, d, rd)) != kgt_float_bits(s / d);
    }
    return bad;
}

/* Divisors a stencil may have: 2d9nc's 24, other integers, fractions, the largest accepted. */
static const double accepted[] = {24, 3, 6, 7, 10, 20, 27, 1.5, 1.1, 1e6 + 3, 0x1p24 - 1};

START_TEST(test_accepted)
{
    const double d = accepted[_i];
    float rd = 0;
    ck_assert_msg(kgt_split_divisor(d, &rd), "divisor %g refused", d);
    ck_assert(kgt_float_bits(rd) == kgt_float_bits(1.0f / (float)d));
    ck_assert_msg(mismatches((float)d, rd, 1000u + (uint64_t)_i) == 0,
                  "divisor %g: split differs from /", d);
}
END_TEST

/* Outside [1, 2^24], exact reciprocals (already multiplications), and what float cannot hold. */
START_TEST(test_refused)
{
    static const double refused[] = {1,   2,     4,   24.0 / 32, 0x1p24, 0x1p24 + 2,
                                     0.3, 0.999, -24, -3,        1e40,   0};
    for (int i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++) {
        float rd = 0;
        ck_assert_msg(!kgt_split_divisor(refused[i], &rd), "divisor %g accepted", refused[i]);
    }
}
END_TEST

/* Numerators the kernel must divide by `/`: the range test refuses them. */
START_TEST(test_fallback)
{
    const float outside[] = {0.0f,
                             -0.0f,
                             INFINITY,
                             -INFINITY,
                             NAN,
                             -NAN,
                             kgt_bits_float(1),
                             kgt_bits_float(0x007fffffu), /* subnormals */
                             1e-30f,
                             -1e-30f,
                             1e30f,
                             0x1p64f,
                             0x1p-64f,
                             kgt_bits_float(KGT_SPLIT_LO - 1),
                             kgt_bits_float(KGT_SPLIT_HI + 1)};
    for (int i = 0; i < (int)(sizeof outside / sizeof outside[0]); i++)
        ck_assert_msg(!in_range(outside[i]), "%a in the split range", (double)outside[i]);
}
END_TEST

/* The kernels' tests agree: in_range, the second test of the cells in the box (float compares
   of |s|) and |s|'s bit pattern within KGT_SPLIT_LO..HI (kgt_div_split's lo/hi): every sign and
   exponent, with the mantissas at both ends and every 4099th between. */
static int range_disagrees(uint32_t u)
{
    const float s = kgt_bits_float(u), a = fabsf(s);
    const int bits = (u & 0x7fffffffu) >= KGT_SPLIT_LO && (u & 0x7fffffffu) <= KGT_SPLIT_HI;
    return (in_range(s) != bits) + ((a >= 0x1p-63f && a <= 0x1p+63f) != bits);
}

START_TEST(test_range_forms)
{
    static const uint32_t ends[] = {0, 1, 2, 0x400000u, 0x7ffffeu, 0x7fffffu};
    long bad = 0;
    for (uint32_t se = 0; se < 512; se++) {
        for (int i = 0; i < (int)(sizeof ends / sizeof ends[0]); i++)
            bad += range_disagrees(se << 23 | ends[i]);
        for (uint32_t m = 3; m < 0x7fffffu; m += 4099) bad += range_disagrees(se << 23 | m);
    }
    ck_assert_msg(bad == 0, "%ld disagreements", bad);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kgt-split");
    TCase *tc = tcase_create("split");
    SRunner *sr;
    int failed;
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_accepted, 0, (int)(sizeof accepted / sizeof accepted[0]));
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_fallback);
    tcase_add_test(tc, test_range_forms);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
