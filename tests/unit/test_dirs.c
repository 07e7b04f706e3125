/*
 * layout/dirs.c: regions around a box per direction (sl_dirs_shift, sl_dirs_bound), the shape
 * of the exact halos of programs over several steps. The 5-point star composed once, twice and
 * three times gives the widths of its diamond per direction, and for random offset sets in 2D
 * the region of T composed steps holds every cell that T steps read, found cell by cell on a
 * grid around a small box.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

typedef int dirw[SL_NDIRS][SL_D];

static int slot(int a, int b, int c)
{
    int e[SL_D] = {a, b, c};
    return sl_dir_index(e);
}

START_TEST(star)
{
    static const int off[4][SL_D] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
    dirw w[4];
    memset(w, 0, sizeof w);
    for (int t = 1; t <= 3; t++)
        for (int i = 0; i < 4; i++) sl_dirs_shift(w[t], w[t - 1], 2, off[i]);
    ck_assert_int_eq(w[1][slot(1, 0, 0)][0], 1);
    ck_assert_int_eq(w[1][slot(1, 1, 0)][0], 0); /* one step reads no corner */
    ck_assert_int_eq(w[2][slot(-1, 0, 0)][0], 2);
    ck_assert(w[2][slot(-1, 1, 0)][0] == 1 && w[2][slot(-1, 1, 0)][1] == 1);
    ck_assert(w[3][slot(1, 1, 0)][0] == 2 && w[3][slot(1, 1, 0)][1] == 2);
    ck_assert_int_eq(w[3][slot(0, -1, 0)][1], 3);
    ck_assert_int_eq(w[3][slot(0, 0, 1)][2], 0); /* nothing along a third dimension */
    int b[SL_D][2];
    sl_dirs_bound(w[3], 2, b);
    ck_assert(b[0][0] == 3 && b[0][1] == 3 && b[1][0] == 3 && b[1][1] == 3 && b[2][1] == 0);
}
END_TEST

/* Whether cell (x, y) (box [0, N)^2) lies in region w. */
enum { N = 4, M = 40, G = N + 2 * M };
static int inside(dirw w, int x, int y)
{
    int e[2], q[2] = {x, y}, di;
    for (int d = 0; d < 2; d++) {
        e[d] = q[d] < 0 ? -1 : q[d] >= N ? 1 : 0;
        q[d] = q[d] < 0 ? -q[d] : q[d] >= N ? q[d] - N + 1 : 0;
    }
    di = slot(e[0], e[1], 0);
    return di == SL_NDIRS / 2 ||
           ((e[0] == 0 || q[0] <= w[di][0]) && (e[1] == 0 || q[1] <= w[di][1]));
}

START_TEST(covers_random)
{
    srand(7 + (unsigned)_i);
    int n = 1 + rand() % 5, off[5][SL_D], T = 1 + _i % 4;
    for (int i = 0; i < n; i++) {
        off[i][0] = rand() % 7 - 3;
        off[i][1] = rand() % 7 - 3;
        off[i][2] = 0;
    }
    static char a[G][G], b[G][G];
    memset(a, 0, sizeof a);
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++) a[M + x][M + y] = 1;
    dirw w, nw;
    memset(w, 0, sizeof w);
    for (int t = 0; t < T; t++) { /* cells read by the next step; the box always in */
        memcpy(b, a, sizeof b);
        for (int x = 0; x < G; x++)
            for (int y = 0; y < G; y++)
                for (int i = 0; i < n && a[x][y]; i++) b[x + off[i][0]][y + off[i][1]] = 1;
        memcpy(a, b, sizeof a);
        memset(nw, 0, sizeof nw);
        for (int i = 0; i < n; i++) sl_dirs_shift(nw, w, 2, off[i]);
        memcpy(w, nw, sizeof w);
    }
    for (int x = 0; x < G; x++)
        for (int y = 0; y < G; y++)
            ck_assert_msg(!a[x][y] || inside(w, x - M, y - M), "T=%d: cell %d,%d read, not in", T,
                          x - M, y - M);
}
END_TEST

static Suite *dirs_suite(void)
{
    Suite *s = suite_create("dirs");
    TCase *tc = tcase_create("dirs");
    tcase_add_test(tc, star);
    tcase_add_loop_test(tc, covers_random, 0, 64);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(dirs_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
