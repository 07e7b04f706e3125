/*
 * Parallel output and restart, under mpiexec -n 4.
 *
 * Restart: 3 ranks in bands (a sub-communicator) run N1 iterations and write the array; 4 ranks
 * in 2D/3D blocks read it in their init callback, run N2 more, and must match an uninterrupted
 * 4-rank run of N1 + N2 iterations BITWISE. The uninterrupted run's own file is also decoded
 * here with plain stdio, following the documented format, and compared with the independent
 * serial reference, so the format is checked without going through stencil_read.
 *
 * Errors: hand-made strided band tiles; header mismatches give STENCIL_EFORMAT, a missing file
 * or directory STENCIL_EIO, disagreeing tiles STENCIL_EINVAL, on every rank.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stencil_set.h"
#include "testutil.h"

#define N1 4
#define N2 3

static char dir[256]; /* a fresh directory, the same path on every rank */

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

typedef struct rctx {
    MPI_Comm comm;
    unsigned long seed;
    const char *read_path;  /* init: read this file instead of random data */
    const char *write_path; /* output: write the array here */
    long read_iter;
    int keep_on; /* output: copy the tile's cells into keep (uninterrupted run) */
    double *keep;
    const double *want; /* output: compare the tile's cells with these (restarted run) */
    long bad;
} rctx;

static long tile_cells(const stencil_tile *t)
{
    return t->size[0] * t->size[1] * t->size[2];
}

/* The tile's cells in (i, j, k) order as doubles: exact for float, so bitwise comparable. */
static void tile_values(const stencil_tile *t, double *out)
{
    long n = 0;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long at = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                out[n++] = t->type == STENCIL_DOUBLE ? ((const double *)t->data)[at]
                                                     : ((const float *)t->data)[at];
            }
}

static int init_cb(stencil_tile *t, void *user)
{
    rctx *c = user;
    if (!c->read_path) {
        tu_fill_tile(t, c->seed);
        return 0;
    }
    return stencil_read(c->comm, c->read_path, t, &c->read_iter) != 0;
}

static int output_cb(const stencil_tile *t, void *user)
{
    rctx *c = user;
    size_t n = (size_t)tile_cells(t);
    if (c->keep_on) tile_values(t, c->keep = malloc(n ? n * sizeof *c->keep : 1));
    if (c->want) {
        double *got = malloc(n ? n * sizeof *got : 1);
        tile_values(t, got);
        c->bad = 0;
        for (size_t i = 0; i < n; i++) c->bad += memcmp(&got[i], &c->want[i], sizeof *got) != 0;
        free(got);
    }
    return c->write_path ? stencil_write(c->comm, c->write_path, t) != 0 : 0;
}

static int run(MPI_Comm comm, const stencil_desc *st, const long *sizes, stencil_partition part,
               stencil_boundary bnd, long iters, rctx *c)
{
    stencil_options opt;
    stencil_options_init(&opt);
    opt.partition = part;
    opt.boundary = bnd;
    opt.backend = "host";
    opt.user = c;
    c->comm = comm;
    return stencil_skeleton(comm, sizes, st, iters, NULL, init_cb, output_cb, &opt);
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* Rank 0 decodes the file by the documented layout and compares it with the reference. */
static long check_file(const char *path, const stencil_desc *st, const long *sizes, long iter,
                       const double *ref)
{
    unsigned char h[128];
    long total = sizes[0] * (st->ndims > 1 ? sizes[1] : 1) * (st->ndims > 2 ? sizes[2] : 1);
    size_t es = st->type == STENCIL_DOUBLE ? 8 : 4;
    FILE *f = fopen(path, "rb");
    if (!f || fread(h, 1, 128, f) != 128) return -1;
    long bad = memcmp(h, "STENCIL", 8) != 0 || le(h + 8, 4) != 1 || le(h + 12, 4) != 128 ||
               le(h + 16, 4) != (uint64_t)st->ndims || le(h + 20, 4) != (uint64_t)st->type ||
               le(h + 24, 4) != es || (long)le(h + 56, 8) != iter;
    for (int d = 0; d < 3; d++)
        bad += (long)le(h + 32 + 8 * d, 8) != (d < st->ndims ? sizes[d] : 1);
    for (long i = 0; i < total; i++) {
        unsigned char e[8];
        if (fread(e, 1, es, f) != es) return -2;
        float wf = (float)ref[i];
        bad += memcmp(e, es == 8 ? (const void *)&ref[i] : (const void *)&wf, es) != 0;
    }
    bad += fgetc(f) != EOF; /* nothing after the data */
    fclose(f);
    return bad;
}

/* The restart scenario for one stencil; every assertion is on an allreduced value. */
static void restart_case(const char *name, stencil_type type, stencil_boundary bnd,
                         const long *sizes)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    stencil_desc st;
    stencil_set_get(stencil_set_find(name), type, &st);
    char part[300], full[300];
    path_of(part, sizeof part, "part.sten");
    path_of(full, sizeof full, "full.sten");

    /* Uninterrupted: 4 ranks, blocks, N1 + N2 iterations; keeps its tile and writes a file. */
    rctx a = {.seed = 42, .keep_on = 1, .write_path = full};
    int rc_a = run(MPI_COMM_WORLD, &st, sizes, STENCIL_PART_BLOCKS, bnd, N1 + N2, &a);

    /* Interrupted: ranks 0..2 in bands write after N1; rank 3 waits. */
    MPI_Comm three;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 3 ? 0 : MPI_UNDEFINED, rank, &three);
    rctx b = {.seed = 42, .write_path = part};
    int rc_b = 0;
    if (three != MPI_COMM_NULL) {
        rc_b = run(three, &st, sizes, STENCIL_PART_BANDS, bnd, N1, &b);
        MPI_Comm_free(&three);
    }

    /* Restarted: 4 ranks, blocks, read in init, N2 more, compared with the uninterrupted run. */
    rctx c = {.read_path = part, .want = a.keep, .bad = -1, .read_iter = -1};
    int rc_c = run(MPI_COMM_WORLD, &st, sizes, STENCIL_PART_BLOCKS, bnd, N2, &c);
    ck_assert_msg(tu_allsum(MPI_COMM_WORLD, rc_a != 0) == 0, "%s: uninterrupted run: %s", name,
                  stencil_strerror(rc_a));
    ck_assert_msg(tu_allsum(MPI_COMM_WORLD, rc_b != 0) == 0, "%s: 3-rank run: %s", name,
                  stencil_strerror(rc_b));
    ck_assert_msg(tu_allsum(MPI_COMM_WORLD, rc_c != 0) == 0, "%s: restarted run: %s", name,
                  stencil_strerror(rc_c));
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, c.read_iter != N1), 0);
    long bad = tu_allsum(MPI_COMM_WORLD, c.bad < 0 ? 1 : c.bad);
    ck_assert_msg(bad == 0, "%s: %ld cells differ after the restart", name, bad);

    /* The uninterrupted run's file, decoded independently, against the serial reference. */
    double *ref = tu_random_grid(st.ndims, sizes, 42);
    tu_reference(&st, sizes, bnd == STENCIL_BOUNDARY_PERIODIC, N1 + N2, ref);
    long fbad = rank == 0 ? check_file(full, &st, sizes, N1 + N2, ref) : 0;
    free(ref);
    free(a.keep);
    MPI_Bcast(&fbad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    ck_assert_msg(fbad == 0, "%s: the file differs from the format or the reference (%ld)", name,
                  fbad);
}

START_TEST(restart_2d_float_fixed)
{
    static const long sizes[2] = {23, 19};
    restart_case("2d9", STENCIL_FLOAT, STENCIL_BOUNDARY_FIXED, sizes);
}
END_TEST

START_TEST(restart_2d_double_periodic)
{
    static const long sizes[2] = {26, 21};
    restart_case("2d9nc", STENCIL_DOUBLE, STENCIL_BOUNDARY_PERIODIC, sizes);
}
END_TEST

START_TEST(restart_3d_double_fixed)
{
    static const long sizes[3] = {11, 9, 10};
    restart_case("3d7", STENCIL_DOUBLE, STENCIL_BOUNDARY_FIXED, sizes);
}
END_TEST

/* Every rank got exactly `expect`. */
static int agreed(int rc, int expect)
{
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == expect && hi == expect;
}

#define SENTINEL (-12345.0)

/* This rank's band of a 2D g0 x g1 array, rows padded by `pad` sentinel cells (strided memory). */
static stencil_tile band(stencil_type type, long g0, long g1, long pad, void **mem)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long lo = g0 * rank / size, hi = g0 * (rank + 1) / size;
    stencil_tile t = {.type = type,
                      .ndims = 2,
                      .global_size = {g0, g1, 1},
                      .offset = {lo, 0, 0},
                      .size = {hi - lo, g1, 1},
                      .stride = {g1 + pad, 1, 1},
                      .rank = rank};
    size_t n = (size_t)((hi - lo) * (g1 + pad)) + 1;
    t.data = *mem = malloc(n * (type == STENCIL_DOUBLE ? 8 : 4));
    for (size_t i = 0; i < n; i++)
        if (type == STENCIL_DOUBLE)
            ((double *)t.data)[i] = SENTINEL;
        else
            ((float *)t.data)[i] = (float)SENTINEL;
    return t;
}

/* Padding cells must still hold the sentinel: the reader wrote only the tile's cells. */
static long padding_touched(const stencil_tile *t, long pad)
{
    long bad = 0;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = t->size[1]; j < t->size[1] + pad; j++)
            bad += ((const float *)t->data)[i * t->stride[0] + j] != (float)SENTINEL;
    return bad;
}

/* Write from one strided layout, read into another, and the header query. */
START_TEST(strided_round_trip)
{
    char p[300];
    void *m1, *m2;
    path_of(p, sizeof p, "band.sten");
    stencil_tile w = band(STENCIL_FLOAT, 12, 10, 3, &m1);
    tu_fill_tile(&w, 7);
    w.iteration = 17;
    ck_assert(agreed(stencil_write(MPI_COMM_WORLD, p, &w), 0));
    int nd = 0;
    long sz[3] = {0, 0, 0}, it = 0;
    stencil_type ty = STENCIL_DOUBLE;
    ck_assert(agreed(stencil_read_info(MPI_COMM_WORLD, p, &nd, sz, &ty, &it), 0));
    ck_assert(nd == 2 && sz[0] == 12 && sz[1] == 10 && ty == STENCIL_FLOAT && it == 17);
    stencil_tile r = band(STENCIL_FLOAT, 12, 10, 1, &m2);
    it = 0;
    ck_assert(agreed(stencil_read(MPI_COMM_WORLD, p, &r, &it), 0));
    double *g = tu_random_grid(2, (const long[]){12, 10}, 7), maxdiff;
    long bad = tu_allsum(MPI_COMM_WORLD, tu_compare_tile(&r, g, &maxdiff));
    long touched = tu_allsum(MPI_COMM_WORLD, padding_touched(&r, 1));
    free(g);
    free(m1);
    free(m2);
    ck_assert_msg(bad == 0, "%ld cells differ after the round trip", bad);
    ck_assert_msg(touched == 0, "%ld padding cells overwritten", touched);
    ck_assert(it == 17 && r.iteration == 17);
}
END_TEST

/* Reads that must fail with the same code on every rank. */
static int read_as(const char *p, stencil_type type, long g1, int ndims)
{
    void *m;
    stencil_tile t = band(type, 12, g1, 0, &m);
    if (ndims == 3) t.ndims = 3; /* 12 x g1 x 1 */
    long it;
    int rc = stencil_read(MPI_COMM_WORLD, p, &t, &it);
    free(m);
    return rc;
}

/* Rank 0 damages the file; the outcome is broadcast so that every rank asserts the same. */
static int rank0_edit(const char *p, long truncate_to, int corrupt_magic)
{
    int rank, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && truncate_to >= 0) ok = truncate(p, truncate_to) == 0;
    if (rank == 0 && corrupt_magic) {
        FILE *f = fopen(p, "r+b");
        ok = f && fputc('X', f) != EOF;
        ok = (f && fclose(f) == 0) && ok;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

START_TEST(header_mismatch)
{
    char p[300];
    void *m;
    path_of(p, sizeof p, "mismatch.sten");
    stencil_tile w = band(STENCIL_FLOAT, 12, 10, 0, &m);
    tu_fill_tile(&w, 9);
    ck_assert(agreed(stencil_write(MPI_COMM_WORLD, p, &w), 0));
    free(m);
    ck_assert_msg(agreed(read_as(p, STENCIL_FLOAT, 11, 2), STENCIL_EFORMAT), "other sizes");
    ck_assert_msg(agreed(read_as(p, STENCIL_DOUBLE, 10, 2), STENCIL_EFORMAT), "other type");
    ck_assert_msg(agreed(read_as(p, STENCIL_FLOAT, 10, 3), STENCIL_EFORMAT), "other ndims");
    ck_assert_msg(agreed(read_as(p, STENCIL_FLOAT, 10, 2), 0), "the matching read");
    ck_assert(rank0_edit(p, 128 + 12 * 10 * 4 - 1, 0));
    ck_assert_msg(agreed(read_as(p, STENCIL_FLOAT, 10, 2), STENCIL_EFORMAT), "truncated data");
    ck_assert(rank0_edit(p, 100, 0));
    ck_assert_msg(agreed(read_as(p, STENCIL_FLOAT, 10, 2), STENCIL_EFORMAT), "truncated header");
    ck_assert(agreed(stencil_write(MPI_COMM_WORLD, p, &(stencil_tile){0}), STENCIL_EINVAL));
    w = band(STENCIL_FLOAT, 12, 10, 0, &m);
    tu_fill_tile(&w, 9);
    ck_assert(agreed(stencil_write(MPI_COMM_WORLD, p, &w), 0));
    free(m);
    ck_assert(rank0_edit(p, -1, 1));
    ck_assert_msg(agreed(read_as(p, STENCIL_FLOAT, 10, 2), STENCIL_EFORMAT), "bad magic");
}
END_TEST

START_TEST(io_failures)
{
    char p[300], q[300];
    void *m;
    path_of(p, sizeof p, "no-such-file.sten");
    path_of(q, sizeof q, "no-such-dir/x.sten");
    ck_assert_msg(agreed(read_as(p, STENCIL_FLOAT, 10, 2), STENCIL_EIO), "missing file");
    ck_assert(agreed(stencil_read_info(MPI_COMM_WORLD, p, NULL, NULL, NULL, NULL), STENCIL_EIO));
    stencil_tile w = band(STENCIL_DOUBLE, 12, 10, 2, &m);
    tu_fill_tile(&w, 3);
    ck_assert_msg(agreed(stencil_write(MPI_COMM_WORLD, q, &w), STENCIL_EIO), "missing dir");
    /* One rank disagrees about the array: refused before any file is touched. */
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) w.global_size[1] = 11;
    path_of(p, sizeof p, "never.sten");
    ck_assert_msg(agreed(stencil_write(MPI_COMM_WORLD, p, &w), STENCIL_EINVAL), "disagreement");
    ck_assert(agreed(access(p, F_OK) == 0, 0));
    free(m);
}
END_TEST

static void remove_dir(void)
{
    static const char *const names[] = {"part.sten", "full.sten", "band.sten", "mismatch.sten"};
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, sizeof names / sizeof *names);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tu_scratch_make(MPI_COMM_WORLD, "stencil-io", dir, sizeof dir);
    if (size != 4 || !dir[0]) {
        fprintf(stderr, "test_restart: needs mpiexec -n 4 and a temporary directory\n");
        MPI_Finalize();
        return 1;
    }
    Suite *s = suite_create("io");
    TCase *tc = tcase_create("restart");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, restart_2d_float_fixed);
    tcase_add_test(tc, restart_2d_double_periodic);
    tcase_add_test(tc, restart_3d_double_fixed);
    tcase_add_test(tc, strided_round_trip);
    tcase_add_test(tc, header_mismatch);
    tcase_add_test(tc, io_failures);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* No fork under MPI; every rank runs every test in the same order. */
    srunner_set_fork_status(sr, CK_NOFORK);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove_dir();
    MPI_Finalize();
    return failed ? 1 : 0;
}
