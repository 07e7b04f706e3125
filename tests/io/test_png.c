/*
 * stencil_write_png under mpiexec -n 4, from the output callback of 0-iteration skeleton runs
 * (blocks and bands), decoded back with libpng's reader on rank 0:
 *  - the size follows the layout of io/README.md (enlarged small grids, sampled big ones);
 *  - a field that grows in row-major order gives pixels whose lightness grows in the same order,
 *    which a misplaced rank's part would break; the smallest and largest cells get the two ends
 *    of the colour ramp when the range is automatic;
 *  - random data gives many colours; bad arguments give the same error on every rank.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pngread.h"
#include "stencil_set.h"
#include "testutil.h"

#define M 10 /* SP_MARGIN of io/picture.h */

static const unsigned char ramp_lo[3] = {0, 0, 4}, ramp_hi[3] = {252, 255, 164};

typedef struct pctx {
    const char *path;
    int random, slice_dim;
    long slice_index;
    double vmin, vmax;
    int rc;
} pctx;

static int init_cb(stencil_tile *t, void *user)
{
    pctx *c = user;
    if (c->random) {
        tu_fill_tile(t, 11);
        return 0;
    }
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long at = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                long g = ((t->offset[0] + i) * t->global_size[1] + t->offset[1] + j) *
                             t->global_size[2] +
                         t->offset[2] + k;
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[at] = (double)g;
                else
                    ((float *)t->data)[at] = (float)g;
            }
    return 0;
}

static int output_cb(const stencil_tile *t, void *user)
{
    pctx *c = user;
    c->rc = stencil_write_png(MPI_COMM_WORLD, c->path, t, c->slice_dim, c->slice_index, c->vmin,
                              c->vmax);
    return 0;
}

/* A 0-iteration run that only writes the picture; returns the agreed stencil_write_png code. */
static int picture(const char *stencil, stencil_type type, const long *sizes,
                   stencil_partition part, pctx *c)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find(stencil), type, &st);
    stencil_options opt;
    stencil_options_init(&opt);
    opt.partition = part;
    opt.backend = "host";
    opt.user = c;
    c->rc = 1;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 0, NULL, init_cb, output_cb, &opt);
    int lo, hi;
    MPI_Allreduce(&c->rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&c->rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ck_assert_msg(rc == 0, "skeleton: %s", stencil_strerror(rc));
    ck_assert_msg(lo == hi, "ranks disagree: %d and %d", lo, hi);
    return lo;
}

static double lightness(const unsigned char *p)
{
    return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

/*
 * Rank 0 checks the picture of a gh x gw field enlarged `up` times; returns the failure count,
 * broadcast. `ramp_ends`: the first and last cells must be exactly the ramp's ends.
 */
static long check_picture(const char *path, unsigned w, unsigned h, int gh, int gw, int up,
                          int ramp_ends)
{
    int rank;
    long bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pr_image img;
        char why[256];
        if (pr_read(path, &img, why, sizeof why)) {
            fprintf(stderr, "%s\n", why);
            bad = 1000000;
        } else {
            bad += img.ihdr_w != w || img.ihdr_h != h || img.w != w || img.h != h;
            if (bad) fprintf(stderr, "%s: %u x %u, expected %u x %u\n", path, img.w, img.h, w, h);
            double last = -1;
            for (int i = 0; !bad && i < gh; i++)
                for (int j = 0; j < gw; j++) {
                    const unsigned char *p = pr_pixel(&img, (unsigned)(M + j * up + up / 2),
                                                      (unsigned)(M + i * up + up / 2));
                    bad += lightness(p) < last - 1.0; /* rounding of one channel step */
                    last = lightness(p);
                }
            if (!bad && ramp_ends) {
                bad += memcmp(pr_pixel(&img, M, M), ramp_lo, 3) != 0;
                bad +=
                    memcmp(pr_pixel(&img, (unsigned)(M + gw * up - 1), (unsigned)(M + gh * up - 1)),
                           ramp_hi, 3) != 0;
            }
            pr_free(&img);
        }
    }
    MPI_Bcast(&bad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return bad;
}

static char dir[256];

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

/* Width: margin, field, gap 12, bar 16, gap 6, 11 characters of 12 px, margin. */
static unsigned width_for(int pw)
{
    return (unsigned)(M + pw + 12 + 16 + 6 + 11 * 12 + M);
}

START_TEST(blocks_2d_auto_range)
{
    char p[300];
    path_of(p, sizeof p, "a.png");
    pctx c = {.path = p};
    static const long sizes[2] = {40, 30};
    ck_assert_int_eq(picture("2d4", STENCIL_DOUBLE, sizes, STENCIL_PART_BLOCKS, &c), 0);
    /* 256 / 40: enlarged 6 times, 240 x 180 pixels of field. */
    long bad = check_picture(p, width_for(180), M + 240 + M, 40, 30, 6, 1);
    ck_assert_msg(bad == 0, "%ld problems in the picture", bad);
}
END_TEST

START_TEST(slice_3d)
{
    char p[300];
    path_of(p, sizeof p, "b.png");
    pctx c = {.path = p, .slice_dim = 1, .slice_index = 4};
    static const long sizes[3] = {12, 10, 14};
    ck_assert_int_eq(picture("3d7", STENCIL_FLOAT, sizes, STENCIL_PART_BLOCKS, &c), 0);
    /* The plane of dimensions 0 and 2: 12 x 14, enlarged 256 / 14 = 18 times. */
    long bad = check_picture(p, width_for(14 * 18), M + 12 * 18 + M, 12, 14, 18, 1);
    ck_assert_msg(bad == 0, "%ld problems in the picture", bad);
}
END_TEST

START_TEST(downsampled)
{
    char p[300];
    path_of(p, sizeof p, "c.png");
    pctx c = {.path = p};
    static const long sizes[2] = {4100, 3};
    ck_assert_int_eq(picture("2d4", STENCIL_FLOAT, sizes, STENCIL_PART_BANDS, &c), 0);
    /* Every 3rd cell (4100 > 2048): 1367 x 1 samples, not enlarged. */
    long bad = check_picture(p, width_for(1), M + 1367 + M, 1367, 1, 1, 0);
    ck_assert_msg(bad == 0, "%ld problems in the picture", bad);
}
END_TEST

START_TEST(random_fixed_range)
{
    char p[300];
    path_of(p, sizeof p, "d.png");
    pctx c = {.path = p, .random = 1, .vmin = -1, .vmax = 1};
    static const long sizes[2] = {40, 30};
    ck_assert_int_eq(picture("2d9", STENCIL_FLOAT, sizes, STENCIL_PART_BLOCKS, &c), 0);
    int rank;
    long colours = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pr_image img;
        char why[256];
        if (pr_read(p, &img, why, sizeof why) == 0) {
            colours = pr_colours(&img);
            /* The colour bar: the top is the ramp's top, the bottom its bottom. */
            const unsigned bx = M + 180 + 12 + 8;
            if (memcmp(pr_pixel(&img, bx, M), ramp_hi, 3) != 0 ||
                memcmp(pr_pixel(&img, bx, M + 239), ramp_lo, 3) != 0)
                colours = -1;
            pr_free(&img);
        }
    }
    MPI_Bcast(&colours, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    ck_assert_msg(colours > 200, "%ld distinct colours (-1: wrong colour bar)", colours);
}
END_TEST

START_TEST(bad_arguments)
{
    char p[300], q[300];
    path_of(p, sizeof p, "e.png");
    path_of(q, sizeof q, "no-such-dir/e.png");
    static const long s1[1] = {40}, s2[2] = {20, 16}, s3[3] = {12, 10, 14};
    pctx c = {.path = p};
    ck_assert_int_eq(picture("1d3", STENCIL_FLOAT, s1, STENCIL_PART_BANDS, &c), STENCIL_EINVAL);
    c.slice_dim = 1;
    c.slice_index = 10;
    ck_assert_int_eq(picture("3d7", STENCIL_FLOAT, s3, STENCIL_PART_BLOCKS, &c), STENCIL_EINVAL);
    c.slice_dim = 3;
    c.slice_index = 0;
    ck_assert_int_eq(picture("3d7", STENCIL_FLOAT, s3, STENCIL_PART_BLOCKS, &c), STENCIL_EINVAL);
    pctx d = {.path = p, .vmin = 2, .vmax = 1};
    ck_assert_int_eq(picture("2d4", STENCIL_FLOAT, s2, STENCIL_PART_BLOCKS, &d), STENCIL_EINVAL);
    pctx e = {.path = q};
    ck_assert_int_eq(picture("2d4", STENCIL_FLOAT, s2, STENCIL_PART_BLOCKS, &e), STENCIL_EIO);
}
END_TEST

static void remove_dir(void)
{
    static const char *const names[] = {"a.png", "b.png", "c.png", "d.png", "e.png"};
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, sizeof names / sizeof *names);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    tu_scratch_make(MPI_COMM_WORLD, "stencil-png", dir, sizeof dir);
    if (!dir[0]) {
        fprintf(stderr, "test_png: cannot make a temporary directory\n");
        MPI_Finalize();
        return 1;
    }
    Suite *s = suite_create("png");
    TCase *tc = tcase_create("png");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, blocks_2d_auto_range);
    tcase_add_test(tc, slice_3d);
    tcase_add_test(tc, downsampled);
    tcase_add_test(tc, random_fixed_range);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* No fork under MPI; every rank runs every test in the same order. */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove_dir();
    MPI_Finalize();
    return failed ? 1 : 0;
}
