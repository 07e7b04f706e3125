/*
 * Weighted partitions, per-rank configuration and automatic calibration (issue 6), against the
 * serial reference, bitwise. Run under mpiexec -n 2..4.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stencil_set.h"
#include "testutil.h"

typedef struct ctx {
    const double *ref;
    long bad;
} ctx;

static int init_cb(stencil_tile *t, void *user)
{
    (void)user;
    tu_fill_tile(t, 4242);
    return 0;
}

static int output_cb(const stencil_tile *t, void *user)
{
    double md;
    ((ctx *)user)->bad = tu_compare_tile(t, ((ctx *)user)->ref, &md);
    return 0;
}

static int nranks(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

static int myrank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* Runs one stencil and checks it; returns this rank's stats. */
static stencil_stats run_checked(const char *name, const long *sizes, stencil_options *opt,
                                 stencil_type type)
{
    stencil_desc st;
    stencil_stats stats;
    ck_assert_int_eq(stencil_set_get(stencil_set_find(name), type, &st), 0);
    double *g = tu_random_grid(st.ndims, sizes, 4242);
    tu_reference(&st, sizes, opt->boundary == STENCIL_BOUNDARY_PERIODIC, 6, g);
    ctx c = {.ref = g, .bad = -1};
    opt->user = &c;
    opt->stats = &stats;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 6, NULL, init_cb, output_cb, opt);
    free(g);
    ck_assert_msg(rc == 0, "%s: %s", name, stencil_strerror(rc));
    long bad = tu_allsum(MPI_COMM_WORLD, c.bad);
    ck_assert_msg(bad == 0, "%s: %ld cells differ from the reference", name, bad);
    return stats;
}

static long owned_cells(const stencil_stats *s)
{
    long n = 1;
    for (int d = 0; d < 3; d++) n *= s->owned_hi[d] - s->owned_lo[d];
    return n;
}

/* Rank r weighs r + 1: each rank must own more cells than the one before it. */
static void weighted(stencil_partition part, stencil_boundary bnd)
{
    static const char *names[] = {"1d-wide", "2d4", "2d5asym", "2d9", "3d7", "3d-oct"};
    static const long sz[4][3] = {{0}, {120}, {40, 36}, {14, 12, 13}};
    double w[8];
    for (int i = 0; i < nranks(); i++) w[i] = i + 1;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        stencil_desc st;
        stencil_set_get(stencil_set_find(names[k]), STENCIL_FLOAT, &st);
        stencil_options opt;
        stencil_options_init(&opt);
        opt.partition = part;
        opt.boundary = bnd;
        opt.backend = "host";
        opt.rank_weights = w;
        stencil_stats s = run_checked(names[k], sz[st.ndims], &opt, STENCIL_DOUBLE);
        ck_assert(s.weight == myrank() + 1);
        if (part == STENCIL_PART_BANDS) {
            long mine = owned_cells(&s), prev = 0;
            MPI_Sendrecv(&mine, 1, MPI_LONG, (myrank() + 1) % nranks(), 0, &prev, 1, MPI_LONG,
                         (myrank() + nranks() - 1) % nranks(), 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            if (myrank() > 0)
                ck_assert_msg(mine > prev, "%s: rank %d owns %ld cells, rank before %ld", names[k],
                              myrank(), mine, prev);
        }
    }
}

START_TEST(weighted_bands_fixed)
{
    weighted(STENCIL_PART_BANDS, STENCIL_BOUNDARY_FIXED);
}
END_TEST
START_TEST(weighted_bands_periodic)
{
    weighted(STENCIL_PART_BANDS, STENCIL_BOUNDARY_PERIODIC);
}
END_TEST
START_TEST(weighted_blocks_fixed)
{
    weighted(STENCIL_PART_BLOCKS, STENCIL_BOUNDARY_FIXED);
}
END_TEST
START_TEST(weighted_blocks_periodic)
{
    weighted(STENCIL_PART_BLOCKS, STENCIL_BOUNDARY_PERIODIC);
}
END_TEST

/* Writes a configuration file on rank 0 and shares its name. */
static void write_config(char *path, const char *text)
{
    if (myrank() == 0) {
        strcpy(path, "/tmp/stencil-cfg-XXXXXX");
        int fd = mkstemp(path);
        ck_assert(fd >= 0);
        ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
        close(fd);
    }
    MPI_Bcast(path, 64, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/*
 * The configuration-file tests own the per-rank settings. STENCIL_BACKEND and friends take
 * precedence over the file by design, so these tests set them aside (a GPU-host run of the whole
 * suite sets STENCIL_BACKEND=cuda) and put them back for the tests after them.
 */
static const char *const rank_vars[] = {"STENCIL_BACKEND", "STENCIL_DEVICE", "STENCIL_WEIGHT"};
static char *saved_vars[3];

static void set_aside_rank_env(void)
{
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(rank_vars[i]);
        saved_vars[i] = v ? strdup(v) : NULL;
        unsetenv(rank_vars[i]);
    }
}

static void restore_rank_env(void)
{
    for (int i = 0; i < 3; i++) {
        if (saved_vars[i]) setenv(rank_vars[i], saved_vars[i], 1);
        free(saved_vars[i]);
        saved_vars[i] = NULL;
    }
}

/* The configuration file gives rank 0 weight 3 and the others weight 1. */
START_TEST(config_file_weights)
{
    char path[64];
    write_config(path, "# test configuration\n"
                       "rank=0 backend=host weight=3   # the big one\n"
                       "node=* local=* backend=host weight=1\n");
    stencil_options opt;
    stencil_options_init(&opt);
    opt.config = path;
    long sizes[2] = {60, 20};
    set_aside_rank_env();
    stencil_stats s = run_checked("2d4", sizes, &opt, STENCIL_FLOAT);
    restore_rank_env();
    ck_assert(s.weight == (myrank() == 0 ? 3.0 : 1.0));
    ck_assert_int_eq(s.calib_rounds, 0);
    ck_assert_str_eq(s.backend, "host");
    if (myrank() == 0) unlink(path);
}
END_TEST

START_TEST(config_file_malformed)
{
    char path[64];
    write_config(path, "rank=0 backend=host\nrank=1 wieght=2\n");
    stencil_options opt;
    stencil_options_init(&opt);
    opt.config = path;
    long sizes[2] = {60, 20};
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &st);
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 2, NULL, init_cb, NULL, &opt);
    ck_assert_int_eq(rc, STENCIL_EFORMAT);
    if (myrank() == 0) unlink(path);
}
END_TEST

#ifdef TEST_MIXED_OPENCL
/* One job, two backends: rank 0 on the host, the others on OpenCL (PoCL in CI). */
START_TEST(mixed_host_opencl)
{
    char path[64];
    write_config(path, "rank=0 backend=host weight=1\nbackend=opencl weight=2\n");
    static const char *names[] = {"2d9", "3d27", "2d5asym"};
    stencil_stats s[3];
    set_aside_rank_env();
    for (int k = 0; k < 3; k++) {
        stencil_options opt;
        stencil_options_init(&opt);
        opt.config = path;
        opt.partition = STENCIL_PART_BLOCKS;
        stencil_desc st;
        stencil_set_get(stencil_set_find(names[k]), STENCIL_FLOAT, &st);
        long sz[3] = {24, 22, st.ndims == 3 ? 12 : 1};
        s[k] = run_checked(names[k], sz, &opt, STENCIL_FLOAT);
    }
    restore_rank_env();
    for (int k = 0; k < 3; k++) ck_assert_str_eq(s[k].backend, myrank() == 0 ? "host" : "opencl");
    if (myrank() == 0) unlink(path);
}
END_TEST
#endif

/*
 * Rank 0 computes every update 8 times: calibration must give it the smallest share, whatever the
 * number of rounds. Round 1 times equal shares, which are far off here (rank 0's share shrinks by
 * over a third), so by default a second round times the re-cut partition: 2 or 3 rounds, the same
 * count on every rank. STENCIL_CALIBRATION_ROUNDS=1 keeps round 1 alone.
 */
static void calibrated(const char *rounds)
{
    setenv("STENCIL_CALIBRATION_ROUNDS", rounds, 1);
    if (myrank() == 0) setenv("STENCIL_HOST_REPEAT", "8", 1);
    stencil_options opt;
    stencil_options_init(&opt);
    opt.backend = "host";
    opt.weights_auto = 1;
    long sizes[2] = {600, 400};
    stencil_stats s = run_checked("2d4", sizes, &opt, STENCIL_FLOAT);
    unsetenv("STENCIL_HOST_REPEAT");
    unsetenv("STENCIL_CALIBRATION_ROUNDS");
    double w0 = s.weight, wmax = 0;
    MPI_Bcast(&w0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&s.weight, &wmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long mine = owned_cells(&s), cells0 = mine;
    MPI_Bcast(&cells0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    ck_assert_msg(w0 * 2 < wmax, "slow rank weight %g, fastest %g", w0, wmax);
    if (myrank() != 0)
        ck_assert_msg(mine > cells0, "rank %d owns %ld <= %ld", myrank(), mine, cells0);
    int lo = 0, hi = 0;
    MPI_Allreduce(&s.calib_rounds, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&s.calib_rounds, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ck_assert_int_eq(lo, hi);
    if (strcmp(rounds, "1") == 0)
        ck_assert_int_eq(lo, 1);
    else
        ck_assert_msg(lo >= 2 && lo <= atoi(rounds), "%d calibration rounds", lo);
}

START_TEST(auto_calibration)
{
    calibrated("1");
    calibrated("3"); /* the default */
    calibrated("5");
}
END_TEST

/* A malformed round count on one rank is the same error on all. */
START_TEST(auto_calibration_bad_rounds)
{
    if (myrank() == nranks() - 1) setenv("STENCIL_CALIBRATION_ROUNDS", "0", 1);
    stencil_options opt;
    stencil_options_init(&opt);
    opt.backend = "host";
    opt.weights_auto = 1;
    long sizes[2] = {60, 40};
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &st);
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 2, NULL, init_cb, NULL, &opt);
    unsetenv("STENCIL_CALIBRATION_ROUNDS");
    ck_assert_int_eq(rc, STENCIL_EINVAL);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Suite *s = suite_create("weights");
    TCase *tc = tcase_create("weights");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, weighted_bands_fixed);
    tcase_add_test(tc, weighted_bands_periodic);
    tcase_add_test(tc, weighted_blocks_fixed);
    tcase_add_test(tc, weighted_blocks_periodic);
    tcase_add_test(tc, config_file_weights);
    tcase_add_test(tc, config_file_malformed);
#ifdef TEST_MIXED_OPENCL
    tcase_add_test(tc, mixed_host_opencl);
#endif
    tcase_add_test(tc, auto_calibration);
    tcase_add_test(tc, auto_calibration_bad_rounds);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, myrank() == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed ? 1 : 0;
}
