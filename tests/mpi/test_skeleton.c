/*
 * Full skeleton runs of every stencil of the set, float and double, fixed and periodic, bands
 * and blocks, compared BITWISE with the independent serial reference on random data.
 * Run under mpiexec -n 1..4; the backend comes from STENCIL_BACKEND (default: host).
 * Bitwise equality with one reference for every rank count and partition is also the proof
 * that results do not depend on the partition.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* At least two reaches per part on up to 4 ranks at two steps (2d17: 4, 3d13: 2). */
static const long sizes_by_dim[3][3] = {{61, 1, 1}, {33, 25, 1}, {16, 12, 10}};

static const char *backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

/* One configuration; returns the number of wrong cells over all ranks. */
static int use_peer = -1;         /* options.peer for the runs below */
static int use_serialize = 0;     /* options.serialize */
static const char *use_trace = 0; /* options.trace */
static int use_fuse = 0;          /* options.fuse */
static stencil_stats last;        /* stats of the last run */

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
    opt.serialize = use_serialize;
    opt.trace = use_trace;
    opt.fuse = use_fuse;
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
        if (rc == 0 && use_fuse)
            ck_assert_msg(last.steps == use_fuse, "%s: %d steps per exchange, asked for %d",
                          stencil_set_name(si), last.steps, use_fuse);
        /* All ranks share this node, so every link must have taken the peer path. */
        long off_path = tu_allsum(MPI_COMM_WORLD, rc == 0 ? last.links - last.peer_links : 0);
        /* OpenCL has no inter-process memory handles: there the links fall back to staging. */
        if (use_peer == 1 && strcmp(backend(), "opencl") != 0)
            ck_assert_msg(off_path == 0, "%s: %ld receiving links not on the peer path",
                          stencil_set_name(si), off_path);
        ck_assert_msg(rc == 0, "%s: stencil_skeleton returned %d (%s)", stencil_set_name(si), rc,
                      stencil_strerror(rc));
        /* On the GPU host: which kernel ran (rtc by default, generic after STENCIL_RTC=fail). */
        const char *ek = getenv("STENCIL_EXPECT_KERNEL");
        if (ek && *ek)
            ck_assert_msg(strcmp(last.kernel, ek) == 0, "%s: kernel '%s' ran, expected '%s'",
                          stencil_set_name(si), last.kernel, ek);
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

/*
 * Two steps per exchange (options.fuse = 2): halos twice as deep, every other step, and the host
 * backend's two-step reference; 7 iterations end on a single step. Bitwise like the rest.
 */
static void check_fused(stencil_type type, stencil_boundary bnd, stencil_partition part)
{
    use_fuse = 2;
    check_all(type, bnd, part);
    use_fuse = 0;
}

/* _i = 0..3: float fixed bands, float periodic blocks, double fixed blocks, double periodic
   bands (each type, boundary and partition twice, each pair of them once). */
START_TEST(fused_cases)
{
    check_fused(_i / 2 ? STENCIL_DOUBLE : STENCIL_FLOAT,
                _i % 2 ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED,
                (_i + _i / 2) % 2 ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS);
}
END_TEST

/* Fused and peer path together: the deeper halos pulled from the neighbours' buffers. */
START_TEST(fused_peer_fixed_blocks)
{
    use_peer = 1;
    check_fused(STENCIL_FLOAT, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BLOCKS);
    use_peer = -1;
}
END_TEST

/* Every iteration count from 0 to 5 with two steps per exchange: odd ones end on one step. */
START_TEST(fused_iteration_counts)
{
    use_fuse = 2;
    for (long it = 0; it <= 5; it++) {
        int rc;
        long bad =
            run_one(2, STENCIL_DOUBLE, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BLOCKS, it, &rc);
        ck_assert_int_eq(rc, 0);
        ck_assert_msg(last.steps == (it >= 2 ? 2 : 1), "%ld iterations: %d steps", it, last.steps);
        ck_assert_msg(bad == 0, "%ld iterations fused: %ld cells differ", it, bad);
    }
    use_fuse = 0;
}
END_TEST

/*
 * The 2D stencils on a grid large enough for whole 256 x 32 tiles, where GPU two-step kernels
 * take their fast path (the small grids above only reach the edge path), and, on 1 and 2 ranks,
 * for inner boxes of at least 64 x 64 cells, which the streaming two-step kernels take: one step
 * per exchange and two, both bitwise against the reference.
 */
START_TEST(fused_big_grid)
{
    static const long sizes[2] = {150, 600};
    for (int si = 0; si < stencil_set_count(); si++) {
        stencil_desc st;
        stencil_set_get(si, _i % 2 ? STENCIL_DOUBLE : STENCIL_FLOAT, &st);
        if (st.ndims != 2) continue;
        run_ctx c = {.seed = 900u + (unsigned long)si};
        double *g = tu_random_grid(2, sizes, c.seed);
        tu_reference(&st, sizes, _i / 2, 5, g);
        c.ref = g;
        for (int fuse = 1; fuse <= 2; fuse++) {
            stencil_options opt;
            stencil_options_init(&opt);
            opt.backend = backend();
            opt.boundary = _i / 2 ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED;
            opt.fuse = use_fuse = fuse;
            opt.user = &c;
            c.bad = -1;
            int rc =
                stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 5, NULL, init_cb, output_cb, &opt);
            ck_assert_msg(rc == 0, "%s fuse %d: rc %d", stencil_set_name(si), fuse, rc);
            long bad = tu_allsum(MPI_COMM_WORLD, c.bad < 0 ? 1 : c.bad);
            ck_assert_msg(bad == 0, "%s fuse %d case %d: %ld cells differ", stencil_set_name(si),
                          fuse, _i, bad);
        }
        use_fuse = 0;
        free(g);
    }
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
    ck_assert_msg(stats.cells == 31L * 23L, "updated cells %lld", stats.cells);
    ck_assert_msg(stats.gcells > 0, "throughput %g", stats.gcells);
}
END_TEST

/*
 * Tracing (options.trace, STENCIL_TRACE): results stay bitwise right, each rank writes one line
 * per pass, and the stamps keep the order their queues guarantee. No timing thresholds.
 */
static char trace_dir[64]; /* rank 0's temporary folder, broadcast */

static void trace_setup(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    strcpy(trace_dir, "/tmp/stencil-trace-XXXXXX");
    if (rank == 0 && !mkdtemp(trace_dir)) trace_dir[0] = '\0';
    MPI_Bcast(trace_dir, sizeof trace_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static void trace_teardown(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && trace_dir[0]) rmdir(trace_dir); /* the runs removed their files */
}

/* The value of "key" on a trace line, or NAN when the line has none. */
static double field(const char *line, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/*
 * Line k of a run of iters iterations in passes of T: it names the pass by its first iteration
 * and the iterations it covers (stencil.h), and keeps the order guaranteed within one queue and
 * within one host thread; 0 when the line is right.
 */
static int line_errors(const char *line, long k, long iters, int T, int serialized)
{
    long it = k * T, left = iters - it;
    double b0 = field(line, "border_start"), b1 = field(line, "border_end");
    double i0 = field(line, "inner_start"), i1 = field(line, "inner_end");
    int bad = field(line, "it") != (double)it || !(b0 <= b1) || !(i0 <= i1);
    bad += field(line, "steps") != (double)(left < T ? left : T);
    if (left <= T) return bad + !isnan(field(line, "unpack_end")) + !(b1 <= i0);
    double p1 = field(line, "pack_end"), u0 = field(line, "unpack_start");
    double u1 = field(line, "unpack_end"), h = field(line, "hidden");
    bad += !(b1 <= p1 && p1 <= u0 && u0 <= u1) + !(h >= 0 && h <= 1);
    bad += !(field(line, "send") <= field(line, "wait_end"));
    if (serialized) bad += !(u1 <= i0) + (h != 0);
    return bad;
}

/* Reads and removes this rank's trace file; the number of broken lines (-1: no file). */
static long trace_check(const char *prefix, long iters, int T, int serialized)
{
    int rank;
    char path[160], line[1024];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s.%d.jsonl", prefix, rank);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) bad += line_errors(line, n++, iters, T, serialized) != 0;
    fclose(f);
    remove(path);
    return bad + (n != (iters + T - 1) / T ? 1000 : 0); /* a line per pass */
}

enum { TR_OPTION, TR_ENV, TR_OFF }; /* options.trace, STENCIL_TRACE, or "" over STENCIL_TRACE */

/* Problems of one finished traced run on this rank. */
static long trace_verdict(const stencil_stats *s, const char *prefix, long iters, int serialize,
                          int how)
{
    long bad = trace_check(prefix, iters, s->steps, serialize);
    if (how == TR_OFF) return bad != -1 || s->traced != 0;
    bad += !(s->exchange_hidden >= 0 && s->exchange_hidden <= 1);
    return bad + (s->traced != iters || (serialize && s->exchange_hidden != 0));
}

/* One traced run of 2d9 (double, periodic blocks): the number of problems over all ranks. */
static long traced_run(const char *name, long iters, int serialize, int peer, int how)
{
    char prefix[128];
    int rc;
    snprintf(prefix, sizeof prefix, "%s/%s", trace_dir, name);
    if (how != TR_OPTION) setenv("STENCIL_TRACE", prefix, 1);
    use_trace = how == TR_ENV ? NULL : how == TR_OFF ? "" : prefix;
    use_serialize = serialize;
    use_peer = peer;
    long wrong = run_one(stencil_set_find("2d9"), STENCIL_DOUBLE, STENCIL_BOUNDARY_PERIODIC,
                         STENCIL_PART_BLOCKS, iters, &rc);
    unsetenv("STENCIL_TRACE");
    use_trace = NULL;
    use_serialize = 0;
    use_peer = -1;
    long bad = rc ? 1000000 : trace_verdict(&last, prefix, iters, serialize, how);
    return wrong + tu_allsum(MPI_COMM_WORLD, bad);
}

/*
 * Two steps per exchange: one line per pass, named by its first iteration (0, 2, 4, 6), the odd
 * last step a pass of its own; stats.traced counts the 7 iterations, not the 4 passes.
 */
START_TEST(trace_fused)
{
    ck_assert_msg(trace_dir[0], "no temporary folder");
    use_fuse = 2;
    long bad = traced_run("fused", 7, 0, -1, TR_OPTION);
    int steps = last.steps;
    use_fuse = 0;
    ck_assert_int_eq(steps, 2);
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(trace_overlapped)
{
    ck_assert_msg(trace_dir[0], "no temporary folder");
    ck_assert_int_eq(traced_run("overlap", 6, 0, -1, TR_OPTION), 0);
    ck_assert_int_eq(traced_run("peer", 4, 0, 1, TR_OPTION), 0);
}
END_TEST

START_TEST(trace_serialized)
{
    ck_assert_int_eq(traced_run("serial", 5, 1, -1, TR_OPTION), 0);
}
END_TEST

/* Past 1024 iterations the stamps are read back and the clock reference taken again. */
START_TEST(trace_two_chunks)
{
    ck_assert_int_eq(traced_run("chunks", 1030, 0, -1, TR_OPTION), 0);
}
END_TEST

/* STENCIL_TRACE when the options leave it NULL; an empty path in the options turns it off. */
START_TEST(trace_env_and_off)
{
    ck_assert_int_eq(traced_run("env", 3, 0, -1, TR_ENV), 0);
    ck_assert_int_eq(traced_run("off", 3, 0, -1, TR_OFF), 0);
}
END_TEST

static void reset_peer(void)
{
    use_peer = -1; /* a failed peer test must not leave the others on the peer path */
    use_fuse = 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    trace_setup();
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
    tcase_add_loop_test(tc, fused_cases, 0, 4);
    tcase_add_test(tc, fused_peer_fixed_blocks);
    tcase_add_test(tc, fused_iteration_counts);
    tcase_add_loop_test(tc, fused_big_grid, 0, 4);
    tcase_add_test(tc, few_iterations);
    tcase_add_test(tc, serialized_same_result);
    tcase_add_test(tc, trace_overlapped);
    tcase_add_test(tc, trace_serialized);
    tcase_add_test(tc, trace_two_chunks);
    tcase_add_test(tc, trace_env_and_off);
    tcase_add_test(tc, trace_fused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* No fork: MPI processes must not fork, and every rank runs every test in the same order. */
    srunner_set_fork_status(sr, CK_NOFORK);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    trace_teardown();
    MPI_Finalize();
    return failed ? 1 : 0;
}
