/*
 * Full skeleton runs of every stencil of the set, float and double, fixed and periodic, bands
 * and blocks, compared BITWISE with the independent serial reference on random data.
 * Run under mpiexec -n 1..4; the backend comes from STENCIL_BACKEND (default: host).
 * Bitwise equality with one reference for every rank count and partition is also the proof
 * that results do not depend on the partition.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil_set.h"
#include "testutil.h"

typedef struct run_ctx {
    unsigned long seed;
    const double *ref;
    long bad;
    double maxdiff;
} run_ctx;

static int init_cb(stencil_tile *t, void *user)
{
    tu_fill_tile(t, ((run_ctx *)user)->seed);
    return 0;
}

static int output_cb(const stencil_tile *t, void *user)
{
    run_ctx *c = user;
    c->bad = tu_compare_tile(t, c->ref, &c->maxdiff);
    return 0;
}

static const long sizes_by_dim[3][3] = {{61, 1, 1}, {23, 19, 1}, {11, 9, 10}};

static const char *backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

/* One configuration; returns the number of wrong cells over all ranks. */
static int use_peer = -1;  /* options.peer for the runs below */
static stencil_stats last; /* stats of the last run */

static long run_one(int si, stencil_type type, stencil_boundary bnd, stencil_partition part,
                    long iters, int *rc_out)
{
    stencil_desc st;
    stencil_set_get(si, type, &st);
    const long *sizes = sizes_by_dim[st.ndims - 1];
    run_ctx c = {.seed = 1000u + (unsigned long)si * 7u + (unsigned long)type};
    double *g = tu_random_grid(st.ndims, sizes, c.seed);
    tu_reference(&st, sizes, bnd == STENCIL_BOUNDARY_PERIODIC, iters, g);
    c.ref = g;
    c.bad = -1;
    stencil_options opt;
    stencil_options_init(&opt);
    opt.boundary = bnd;
    opt.partition = part;
    opt.backend = backend();
    opt.peer = use_peer;
    opt.stats = &last;
    opt.user = &c;
    *rc_out = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, iters, NULL, init_cb, output_cb, &opt);
    free(g);
    return tu_allsum(MPI_COMM_WORLD, c.bad < 0 ? 1 : c.bad);
}

static void check_all(stencil_type type, stencil_boundary bnd, stencil_partition part)
{
    for (int si = 0; si < stencil_set_count(); si++) {
        int rc;
        long bad = run_one(si, type, bnd, part, 7, &rc);
        /* All ranks share this node, so every link must have taken the peer path. */
        long off_path = tu_allsum(MPI_COMM_WORLD, rc == 0 ? last.links - last.peer_links : 0);
        /* OpenCL has no inter-process memory handles: there the links fall back to staging. */
        if (use_peer == 1 && strcmp(backend(), "opencl") != 0)
            ck_assert_msg(off_path == 0, "%s: %ld receiving links not on the peer path",
                          stencil_set_name(si), off_path);
        ck_assert_msg(rc == 0, "%s: stencil_skeleton returned %d (%s)", stencil_set_name(si), rc,
                      stencil_strerror(rc));
        ck_assert_msg(bad == 0, "%s %s %s %s: %ld cells differ from the reference",
                      stencil_set_name(si), type == STENCIL_DOUBLE ? "double" : "float",
                      bnd == STENCIL_BOUNDARY_PERIODIC ? "periodic" : "fixed",
                      part == STENCIL_PART_BLOCKS ? "blocks" : "bands", bad);
    }
}

START_TEST(float_fixed_bands)
{
    check_all(STENCIL_FLOAT, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS);
}
END_TEST
START_TEST(float_periodic_bands)
{
    check_all(STENCIL_FLOAT, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BANDS);
}
END_TEST
START_TEST(float_fixed_blocks)
{
    check_all(STENCIL_FLOAT, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BLOCKS);
}
END_TEST
START_TEST(float_periodic_blocks)
{
    check_all(STENCIL_FLOAT, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BLOCKS);
}
END_TEST
START_TEST(double_fixed_bands)
{
    check_all(STENCIL_DOUBLE, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS);
}
END_TEST
START_TEST(double_periodic_bands)
{
    check_all(STENCIL_DOUBLE, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BANDS);
}
END_TEST
START_TEST(double_fixed_blocks)
{
    check_all(STENCIL_DOUBLE, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BLOCKS);
}
END_TEST
START_TEST(double_periodic_blocks)
{
    check_all(STENCIL_DOUBLE, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BLOCKS);
}
END_TEST

/*
 * The peer path: halos pulled from the neighbour's buffer (shared memory for the host backend)
 * with token messages. Periodic runs include ranks that are their own neighbours.
 */
static void check_peer(stencil_boundary bnd, stencil_partition part)
{
    use_peer = 1;
    check_all(STENCIL_FLOAT, bnd, part);
    use_peer = -1;
}

START_TEST(peer_fixed_bands)
{
    check_peer(STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS);
}
END_TEST
START_TEST(peer_periodic_blocks)
{
    check_peer(STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BLOCKS);
}
END_TEST

/* Zero and one iteration are edge cases of the loop (no exchange at all / only the last). */
START_TEST(few_iterations)
{
    for (long it = 0; it <= 2; it++) {
        int rc;
        long bad =
            run_one(2, STENCIL_DOUBLE, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BLOCKS, it, &rc);
        ck_assert_int_eq(rc, 0);
        ck_assert_msg(bad == 0, "%ld iterations: %ld cells differ", it, bad);
    }
}
END_TEST

/* The serialized-phase mode must compute the same thing. */
START_TEST(serialized_same_result)
{
    stencil_desc st;
    stencil_set_get(3, STENCIL_FLOAT, &st);
    const long *sizes = sizes_by_dim[1];
    run_ctx c = {.seed = 77};
    double *g = tu_random_grid(2, sizes, c.seed);
    tu_reference(&st, sizes, 0, 5, g);
    c.ref = g;
    c.bad = -1;
    stencil_options opt;
    stencil_stats stats;
    stencil_options_init(&opt);
    opt.serialize = 1;
    opt.backend = backend();
    opt.stats = &stats;
    opt.user = &c;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 5, NULL, init_cb, output_cb, &opt);
    free(g);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, c.bad), 0);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ck_assert_int_eq(stats.nranks, size);
    ck_assert_msg(stats.cells == 21L * 17L, "updated cells %lld", stats.cells);
    ck_assert_msg(stats.gcells > 0, "throughput %g", stats.gcells);
}
END_TEST

static void reset_peer(void)
{
    use_peer = -1; /* a failed peer test must not leave the others on the peer path */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Suite *s = suite_create("skeleton");
    TCase *tc = tcase_create("bitwise-vs-reference");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, reset_peer, NULL);
    tcase_add_test(tc, float_fixed_bands);
    tcase_add_test(tc, float_periodic_bands);
    tcase_add_test(tc, float_fixed_blocks);
    tcase_add_test(tc, float_periodic_blocks);
    tcase_add_test(tc, double_fixed_bands);
    tcase_add_test(tc, double_periodic_bands);
    tcase_add_test(tc, double_fixed_blocks);
    tcase_add_test(tc, double_periodic_blocks);
    tcase_add_test(tc, peer_fixed_bands);
    tcase_add_test(tc, peer_periodic_blocks);
    tcase_add_test(tc, few_iterations);
    tcase_add_test(tc, serialized_same_result);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* No fork: MPI processes must not fork, and every rank runs every test in the same order. */
    srunner_set_fork_status(sr, CK_NOFORK);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed ? 1 : 0;
}
