/*
 * T time steps per halo exchange (options.steps, or its alias options.fuse): every stencil of the
 * set, T = 1..4 and automatic, float and double, fixed and periodic, bands and blocks, BITWISE
 * against the serial reference. The combinations are spread over the rank counts: a run on n ranks
 * takes those whose number is n - 1 modulo STEPS_SPREAD (STEPS_SPREAD=1 in the environment: all of
 * them). Also: messages per rank drop T-fold, and parts too thin for T halos fail a forced T on
 * every rank and lower an automatic one. Deeper: 2D star (2d4, 2d9nc) and box (2d9, 2d-diag)
 * stencils with T = 3, 4 and automatic on grids whose boxes reach the GPU backend's streaming
 * kernels of 3 and 4 steps per launch (11 iterations: a last, shorter pass too). And 3d7 and the
 * boxes of reach 1 (3d27, 3d-oct, 3d19) with T = 2, 3, 4 and automatic on a grid whose boxes reach
 * the GPU backend's 3D streaming kernels of 2, 3 and 4 steps per launch over several tiles and walk
 * chunks, each with a partial last one, and tiles without per-cell tests. The backend comes from
 * STENCIL_BACKEND (default: host).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "stencil_set.h"
#include "testutil.h"

enum { NT = 5 }; /* T = 1..4 and 0 (automatic) */

/* Grids whose parts fit four steps of every stencil of the set on up to four ranks. */
static const long sizes_by_dim[3][3] = {{61, 1, 1}, {70, 40, 1}, {34, 17, 9}};

static const char *backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

static stencil_stats last;
static char last_msg[256];

static void on_error(int code, const char *msg, void *user)
{
    (void)code, (void)user;
    snprintf(last_msg, sizeof last_msg, "%s", msg);
}

/* One run of iters; the number of wrong cells over all ranks (1 per rank without output). */
static long run(const stencil_desc *st, const long *sizes, int fuse, stencil_boundary bnd,
                stencil_partition part, long iters, unsigned long seed, int *rc)
{
    tu_check_ctx c = {.seed = seed, .bad = -1};
    double *g = tu_random_grid(st->ndims, sizes, seed);
    tu_reference(st, sizes, bnd == STENCIL_BOUNDARY_PERIODIC, iters, g);
    c.ref = g;
    stencil_options opt;
    stencil_options_init(&opt);
    opt.boundary = bnd;
    opt.partition = part;
    opt.backend = backend();
    if (fuse % 2) /* both names: steps, and fuse, its deprecated alias */
        opt.steps = fuse;
    else
        opt.fuse = fuse;
    opt.stats = &last;
    opt.user = &c;
    opt.on_error = on_error;
    memset(&last, 0, sizeof last);
    last_msg[0] = '\0';
    *rc = stencil_skeleton(MPI_COMM_WORLD, sizes, st, iters, NULL, tu_init_cb, tu_check_cb, &opt);
    free(g);
    return tu_allsum(MPI_COMM_WORLD, c.bad < 0 ? 1 : c.bad);
}

static int spread(void)
{
    const char *s = getenv("STEPS_SPREAD");
    return s && atoi(s) > 0 ? atoi(s) : 4;
}

/* _i: the stencil. Its combinations of T, type, boundary and partition this rank count runs. */
START_TEST(every_t_bitwise)
{
    int size, si = _i, k = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < NT; t++)
        for (int c = 0; c < 8; c++, k++) {
            if ((k + si) % spread() != (size - 1) % spread()) continue;
            stencil_type type = c & 1 ? STENCIL_DOUBLE : STENCIL_FLOAT;
            stencil_boundary bnd = c & 2 ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED;
            stencil_partition part = c & 4 ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
            int fuse = (t + 1) % NT, rc; /* 1, 2, 3, 4, 0 */
            stencil_desc st;
            stencil_set_get(si, type, &st);
            long bad = run(&st, sizes_by_dim[st.ndims - 1], fuse, bnd, part, 7,
                           300u + (unsigned long)(si * 40 + k), &rc);
            const char *what = c & 1 ? "double" : "float";
            ck_assert_msg(rc == 0, "%s %s T=%d case %d: rc %d (%s)", stencil_set_name(si), what,
                          fuse, c, rc, last_msg);
            ck_assert_msg(fuse == 0 || last.steps == fuse, "%s: T=%d ran %d steps per exchange",
                          stencil_set_name(si), fuse, last.steps);
            ck_assert_msg(last.steps >= 1 && last.steps_why[0], "no T or reason");
            ck_assert_msg(bad == 0, "%s %s T=%d (%s) case %d: %ld cells differ",
                          stencil_set_name(si), what, fuse, last.steps_why, c, bad);
        }
}
END_TEST

/* _i: 2d4, 2d9nc, 2d9 or 2d-diag, float or double; T = 3, 4 and automatic, fixed and periodic,
   bands on an odd rank count, blocks on an even one. */
START_TEST(deep_fused)
{
    static const char *const names[4] = {"2d4", "2d9nc", "2d9", "2d-diag"};
    static const long sizes[2] = {150, 301};
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    stencil_desc st;
    stencil_type type = _i & 1 ? STENCIL_DOUBLE : STENCIL_FLOAT;
    stencil_set_get(stencil_set_find(names[_i / 2]), type, &st);
    stencil_partition part = size % 2 ? STENCIL_PART_BANDS : STENCIL_PART_BLOCKS;
    for (int c = 0; c < 6; c++) {
        int fuse = c / 2 == 2 ? 0 : 3 + c / 2, rc;
        stencil_boundary bnd = c & 1 ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED;
        long bad = run(&st, sizes, fuse, bnd, part, 11, 500u + (unsigned long)(_i * 8 + c), &rc);
        ck_assert_msg(rc == 0, "%s T=%d case %d: rc %d (%s)", names[_i / 2], fuse, c, rc, last_msg);
        ck_assert_msg(fuse == 0 || last.steps == fuse, "T=%d ran %d", fuse, last.steps);
        ck_assert_msg(bad == 0, "%s %s T=%d (%s) case %d: %ld cells differ", names[_i / 2],
                      _i & 1 ? "double" : "float", last.steps, last.steps_why, c, bad);
    }
}
END_TEST

/* _i: 3d7 (a star) or a box of reach 1 (3d27, 3d-oct, 3d19: partial sums on CUDA/HIP), float or
   double; T = 2, 3, 4 and automatic, fixed and periodic. */
START_TEST(deep_3d)
{
    static const char *const names[4] = {"3d7", "3d27", "3d-oct", "3d19"};
    static const long sizes[3] = {70, 90, 150};
    const char *name = names[_i / 2];
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    stencil_desc st;
    stencil_set_get(stencil_set_find(name), _i & 1 ? STENCIL_DOUBLE : STENCIL_FLOAT, &st);
    stencil_partition part = size % 2 ? STENCIL_PART_BANDS : STENCIL_PART_BLOCKS;
    for (int c = 0; c < 8; c++) {
        int fuse = c / 2 == 3 ? 0 : 2 + c / 2, rc;
        stencil_boundary bnd = c & 1 ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED;
        long bad = run(&st, sizes, fuse, bnd, part, 11, 700u + (unsigned long)(_i * 8 + c), &rc);
        ck_assert_msg(rc == 0, "%s T=%d case %d: rc %d (%s)", name, fuse, c, rc, last_msg);
        ck_assert_msg(fuse == 0 || last.steps == fuse, "T=%d ran %d", fuse, last.steps);
        ck_assert_msg(bad == 0, "%s %s T=%d (%s) case %d: %ld cells differ", name,
                      _i & 1 ? "double" : "float", last.steps, last.steps_why, c, bad);
    }
}
END_TEST

/* Fixed bands (neighbours above and below only): 8 iterations send T times fewer messages. */
START_TEST(messages_drop)
{
    static const long sizes[2] = {40, 12};
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_DOUBLE, &st);
    long base = 0;
    for (int t = 1; t <= 4; t *= 2) {
        int rc;
        long bad = run(&st, sizes, t, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS, 8, 77, &rc);
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(bad, 0);
        if (t == 1) base = last.messages;
        long off = tu_allsum(MPI_COMM_WORLD, last.messages * t != base);
        ck_assert_msg(off == 0, "T=%d: %lld messages, %ld at T=1", t, last.messages, base);
    }
}
END_TEST

/* Bands of 5 rows of a radius-2 stencil: T = 2 fits, T = 3 does not. */
START_TEST(thin_parts)
{
    int size, rc;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return; /* one part is the whole grid: nothing is thin */
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9nc"), STENCIL_FLOAT, &st);
    long sizes[2] = {5L * size, 19};
    run(&st, sizes, 3, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS, 6, 9, &rc);
    long agreed = tu_allsum(MPI_COMM_WORLD, rc == STENCIL_EPARTITION);
    ck_assert_msg(agreed == size, "forced T=3: rc %d on this rank, %ld ranks agree", rc, agreed);
    ck_assert_msg(strstr(last_msg, "at least 6 cells") && strstr(last_msg, "thinnest part has 5"),
                  "message: %s", last_msg);
    long bad = run(&st, sizes, 2, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS, 6, 9, &rc);
    ck_assert(rc == 0 && bad == 0 && last.steps == 2);
    bad = run(&st, sizes, 0, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS, 6, 9, &rc);
    ck_assert_msg(rc == 0 && bad == 0, "automatic: rc %d, %ld cells differ", rc, bad);
    ck_assert_msg(last.steps <= 2, "automatic T=%d on parts of 5 rows", last.steps);
    /* The model wants more than two steps on so small a grid: the reason says why not. */
    if (strncmp(last.steps_why, "automatic", 9) != 0)
        ck_assert_msg(strstr(last.steps_why, "too thin") && last.steps == 2, "%s", last.steps_why);
}
END_TEST

/* $STENCIL_FUSE when the option is 0; out of range T: STENCIL_EINVAL on every rank. */
START_TEST(env_and_bad_t)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &st);
    int rc;
    setenv("STENCIL_FUSE", "3", 1);
    long bad =
        run(&st, sizes_by_dim[1], 0, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BLOCKS, 5, 2, &rc);
    unsetenv("STENCIL_FUSE");
    ck_assert(rc == 0 && bad == 0);
    ck_assert_msg(last.steps == 3 && !strcmp(last.steps_why, "forced"), "T=%d (%s)", last.steps,
                  last.steps_why);
    setenv("STENCIL_STEPS", "2", 1); /* the newer name wins */
    setenv("STENCIL_FUSE", "3", 1);
    bad = run(&st, sizes_by_dim[1], 0, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BLOCKS, 5, 3, &rc);
    unsetenv("STENCIL_STEPS");
    unsetenv("STENCIL_FUSE");
    ck_assert(rc == 0 && bad == 0);
    ck_assert_msg(last.steps == 2, "T=%d (%s)", last.steps, last.steps_why);
    run(&st, sizes_by_dim[1], STENCIL_MAX_STEPS + 1, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS, 3,
        1, &rc);
    ck_assert_int_eq(rc, STENCIL_EINVAL);
    run(&st, sizes_by_dim[1], -1, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS, 3, 1, &rc);
    ck_assert_int_eq(rc, STENCIL_EINVAL);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("steps-per-exchange");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, every_t_bitwise, 0, stencil_set_count());
    tcase_add_loop_test(tc, deep_fused, 0, 8);
    tcase_add_test(tc, messages_drop);
    tcase_add_test(tc, thin_parts);
    tcase_add_test(tc, env_and_bad_t);
    suite_add_tcase(s, tc);
    /* a case of its own, so that a GPU run can take it alone (CK_RUN_CASE=deep-3d) with the
       streaming kernels forced deep (STENCIL_RTC_DEPTH) */
    TCase *t3 = tcase_create("deep-3d");
    tcase_set_timeout(t3, 600);
    tcase_add_loop_test(t3, deep_3d, 0, 8);
    suite_add_tcase(s, t3);
    int failed = tu_run_suite(s);
    MPI_Finalize();
    return failed ? 1 : 0;
}
