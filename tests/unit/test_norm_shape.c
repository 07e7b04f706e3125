/*
 * The CUDA/HIP norm kernel's walk of a box (backends/gpu/norm_shape.h), checked on the CPU since
 * no GPU runs in CI: on random 1-3D boxes of random local arrays, its rows visit every cell of
 * the box exactly once and nothing else, and a 2D box is walked as n0 rows of n1 cells (rows
 * along a dimension of one cell would leave all threads of a block but one idle).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "norm_shape.h"

/* Visits as the kernel does, every row and every cell of it; counts per array position. */
static void walk(const sb_norm_rows *g, int *seen, long n)
{
    for (long r = 0; r < g->rows; r++) {
        long base = g->off + (r / g->m) * g->sa + (r % g->m) * g->sb;
        for (long k = 0; k < g->len; k++) {
            long at = base + k * g->cs;
            if (at >= 0 && at < n)
                seen[at]++;
            else
                seen[n]++; /* outside the array */
        }
    }
}

START_TEST(every_cell_once)
{
    srand(21);
    for (int t = 0; t < 2000; t++) {
        int nd = 1 + t % 3;
        long ext[3] = {1, 1, 1}, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        for (int d = 0; d < nd; d++) {
            ext[d] = 1 + rand() % 9;
            lo[d] = rand() % ext[d];
            hi[d] = lo[d] + rand() % (ext[d] - lo[d] + 1);
        }
        long stride[3] = {ext[1] * ext[2], ext[2], 1}, n = ext[0] * ext[1] * ext[2];
        int *seen = calloc((size_t)n + 1, sizeof *seen);
        sb_norm_rows g = sb_norm_shape(lo, hi, stride);
        walk(&g, seen, n);
        long bad = seen[n];
        for (long i = 0; i < ext[0]; i++)
            for (long j = 0; j < ext[1]; j++)
                for (long k = 0; k < ext[2]; k++) {
                    int in = i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] &&
                             k < hi[2];
                    bad += seen[i * stride[0] + j * stride[1] + k] != in;
                }
        free(seen);
        ck_assert_msg(bad == 0, "box %ld:%ld %ld:%ld %ld:%ld of %ld x %ld x %ld: %ld cells wrong",
                      lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], ext[0], ext[1], ext[2], bad);
    }
}
END_TEST

START_TEST(rows_coalesce)
{
    long lo[3] = {1, 1, 0}, hi[3] = {20481, 20481, 1}, stride[3] = {20482, 1, 1};
    sb_norm_rows g = sb_norm_shape(lo, hi, stride);
    ck_assert_int_eq(g.rows, 20480);
    ck_assert_int_eq(g.len, 20480);
    ck_assert_int_eq(g.cs, 1);
    long lo3[3] = {1, 1, 1}, hi3[3] = {9, 9, 9}, s3[3] = {100, 10, 1};
    g = sb_norm_shape(lo3, hi3, s3);
    ck_assert_int_eq(g.rows, 64);
    ck_assert_int_eq(g.len, 8);
    ck_assert_int_eq(g.cs, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("norm shape");
    TCase *tc = tcase_create("walk");
    tcase_add_test(tc, every_cell_once);
    tcase_add_test(tc, rows_coalesce);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed != 0;
}
