/*
 * kgt's multi-step tables (kgt/emit_steps.c, in golden/golden.cu) against the library: for every
 * table, its depth is the one the GPU backends give the kernel object's stencil, and each level's
 * stamp equals the one they compute for it (backends/gen.c, from layout's form of the stencil:
 * non-zero points, reach of those points), so the backends launch kgt's kernels instead of
 * running fewer steps per launch. The golden stencils include zero weights and declared radii
 * wider than their points. Suite 'kgt'.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "gen.h"
#include "golden.h"
#include "layout.h"

static const char *cu_path, *c_path;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq((long)fread(s, 1, (size_t)n, f), n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* The registered name of the kernel object golden_STEM_kernel, from golden.c. */
static void name_of(const char *c_text, const char *stem, char *name, size_t len)
{
    char key[160];
    snprintf(key, sizeof key, "const stencil_kernel golden_%s_kernel = {\n    .name = \"", stem);
    const char *p = strstr(c_text, key);
    ck_assert_msg(p != NULL, "no kernel object for %s", stem);
    p += strlen(key);
    size_t n = strcspn(p, "\"");
    ck_assert_uint_lt(n, len);
    memcpy(name, p, n);
    name[n] = '\0';
}

START_TEST(stamps_match)
{
    char *cu = slurp(cu_path), *c = slurp(c_path);
    const char *key = "const kgt_steps KGT_STEPS(golden_";
    int tables = 0;
    ck_assert_int_eq(golden_register(), 0);
    for (const char *p = strstr(cu, key); p; p = strstr(p + 1, key)) {
        char stem[64], t, name[64], msg[160];
        int depth, used;
        unsigned long long stamp[5];
        ck_assert_int_eq(
            sscanf(p + strlen(key), "%63[^,], %c) = {\n    %d,\n    {%n", stem, &t, &depth, &used),
            3);
        const char *h = p + strlen(key) + used;
        for (int l = 0; l < 5; l++) {
            char *end;
            stamp[l] = strtoull(h, &end, 16);
            ck_assert_ptr_ne(end, h);
            h = end + strspn(end, "ul, ");
        }
        name_of(c, stem, name, sizeof name);
        const stencil_kernel *k = stencil_find_kernel(name);
        ck_assert_ptr_nonnull(k);
        stencil_desc d = k->stencil;
        d.type = t == 'd' ? STENCIL_DOUBLE : STENCIL_FLOAT;
        sl_stencil st;
        ck_assert_int_eq(sl_stencil_make(&st, &d, msg, sizeof msg), 0);
        ck_assert_msg(sb_gen_stream_depth(&st) == depth, "%s %c: depth %d, the backends' %d", name,
                      t, depth, sb_gen_stream_depth(&st));
        for (int l = 2; l <= depth; l++) {
            kgt_stream_info info;
            ck_assert_msg(sb_gen_stream_stamp(&st, l, &info) == stamp[l],
                          "%s %c: the %d-step stamp differs from the backends'", name, t, l);
        }
        tables++;
    }
    ck_assert_int_ge(tables, 4);
    free(cu);
    free(c);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc != 3) return fprintf(stderr, "usage: %s golden.cu golden.c\n", argv[0]), 2;
    cu_path = argv[1], c_path = argv[2];
    MPI_Init(&argc, &argv);
    Suite *s = suite_create("kgt-steps");
    TCase *tc = tcase_create("stamps");
    tcase_add_test(tc, stamps_match);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    MPI_Finalize();
    return failed ? 1 : 0;
}
