/*
 * The persistent run (stencil_create / advance / view / checkpoint / load / destroy) and the
 * skeleton's periodic work, under mpiexec -n 1..4, host or OpenCL (STENCIL_BACKEND), against the
 * independent serial reference on random data:
 *   - any split of the iterations into advances gives bitwise the reference, as
 *     stencil_skeleton() does (one step or two fused steps per exchange, the peer path), and two
 *     runs can live side by side;
 *   - the norms of advance_norm equal a serial computation (max exactly, L2 to 1e-12);
 *   - a checkpoint written at k and resumed on another rank count and partition (native and
 *     HDF5) ends bitwise at the reference;
 *   - bad checkpoints, paths and runs fail with the same clear code on every rank, and the run's
 *     array is unchanged after them;
 *   - the skeleton's monitor, checkpoints, restart and stop;
 *   - the host backend's shared buffers step over names a killed process left behind.
 * Every assertion is on an allreduced value.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stencil_set.h"
#include "testutil.h"

static char dir[256];
static int rank, nranks;

static const char *backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

typedef struct ctx {
    unsigned long seed;
    const double *ref; /* view: compare with this grid */
    long bad, seen, inits;
    stencil_norm norms[8];
    long nnorms, stop_at;
} ctx;

static int init_cb(stencil_tile *t, void *user)
{
    ctx *c = user;
    c->inits++;
    tu_fill_tile(t, c->seed);
    return 0;
}

static int check_cb(const stencil_tile *t, void *user)
{
    ctx *c = user;
    double md;
    c->bad = (c->bad > 0 ? c->bad : 0) + tu_compare_tile(t, c->ref, &md);
    c->seen = t->iteration;
    return 0;
}

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void opts(stencil_options *o, ctx *c, stencil_partition part, stencil_boundary bnd)
{
    stencil_options_init(o);
    o->backend = backend();
    o->partition = part;
    o->boundary = bnd;
    o->user = c;
}

/* The reference after `iters` steps; the caller frees it. */
static double *ref_at(const stencil_desc *st, const long *sizes, int periodic, long iters)
{
    double *g = tu_random_grid(st->ndims, sizes, 7);
    tu_reference(st, sizes, periodic, iters, g);
    return g;
}

/* Views the run against the reference of `iters`; the number of differing cells, all ranks. */
static long view_bad(stencil_run *run, ctx *c, const double *ref)
{
    c->ref = ref;
    c->bad = -1;
    int rc = stencil_view(run, check_cb);
    return rc ? -1000 : tu_allsum(MPI_COMM_WORLD, c->bad);
}

static int same_everywhere(int rc)
{
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

#define ASSERT_RC(rc, want)                                                                        \
    do {                                                                                           \
        int rc_ = (rc);                                                                            \
        ck_assert_msg(same_everywhere(rc_), "ranks returned different codes");                     \
        ck_assert_msg(rc_ == (want), "%s: %d (%s), expected %d", #rc, rc_, stencil_strerror(rc_),  \
                      (want));                                                                     \
    } while (0)

typedef struct split_case {
    const char *name;
    stencil_type type;
    stencil_boundary bnd;
    stencil_partition part;
    int fuse, peer; /* peer: 1 = halos device to device (host backend: shared memory) */
    long sizes[3];
} split_case;

static const split_case splits_cases[] = {
    {"2d9", STENCIL_FLOAT, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BANDS, 1, 0, {23, 19, 1}},
    {"3d7", STENCIL_DOUBLE, STENCIL_BOUNDARY_PERIODIC, STENCIL_PART_BLOCKS, 1, 1, {9, 10, 11}},
    {"2d5asym", STENCIL_FLOAT, STENCIL_BOUNDARY_FIXED, STENCIL_PART_BLOCKS, 2, 0, {26, 21, 1}},
};

/* 7 iterations in one advance, in seven, and in uneven parts with empty advances between. */
START_TEST(advance_splits)
{
    static const long parts[3][8] = {{7, -1}, {1, 1, 1, 1, 1, 1, 1, -1}, {0, 2, 3, 0, 2, -1}};
    const split_case *k = &splits_cases[_i];
    stencil_desc st;
    stencil_set_get(stencil_set_find(k->name), k->type, &st);
    if (k->fuse == 2 && strcmp(backend(), "host") != 0) return; /* OpenCL has no update2 */
    double *ref = ref_at(&st, k->sizes, k->bnd == STENCIL_BOUNDARY_PERIODIC, 7);
    for (int s = 0; s < 3; s++) {
        ctx c = {.seed = 7};
        stencil_options o;
        opts(&o, &c, k->part, k->bnd);
        o.fuse = k->fuse;
        o.peer = k->peer ? 1 : -1;
        stencil_run *run;
        ASSERT_RC(stencil_create(MPI_COMM_WORLD, k->sizes, &st, NULL, init_cb, &o, &run), 0);
        for (int p = 0; parts[s][p] >= 0; p++) ASSERT_RC(stencil_advance(run, parts[s][p]), 0);
        long it = -1;
        ASSERT_RC(stencil_iteration(run, &it), 0);
        ck_assert_int_eq(it, 7);
        long bad = view_bad(run, &c, ref);
        ck_assert_msg(bad == 0, "%s split %d: %ld cells differ", k->name, s, bad);
        stencil_stats stats;
        ASSERT_RC(stencil_run_stats(run, &stats), 0);
        ck_assert_int_eq(stats.steps, k->fuse);
        ASSERT_RC(stencil_destroy(&run), 0);
        ck_assert_ptr_null(run);
    }
    /* stencil_skeleton() with the same options ends at the same reference. */
    ctx c = {.seed = 7, .ref = ref, .bad = -1};
    stencil_options o;
    opts(&o, &c, k->part, k->bnd);
    o.fuse = k->fuse;
    ASSERT_RC(stencil_skeleton(MPI_COMM_WORLD, k->sizes, &st, 7, NULL, init_cb, check_cb, &o), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, c.bad), 0);
    free(ref);
}
END_TEST

/* This process's shared buffers /stencil-<pid>-k, as Linux shows them: mapped (from
 * /proc/self/maps, named or not) or named (in /dev/shm). The highest k, -1 if none. */
static long shm_serial_max(int mapped)
{
    char pre[48], line[512];
    snprintf(pre, sizeof pre, "%sstencil-%ld-", mapped ? "/dev/shm/" : "", (long)getpid());
    long mx = -1;
    if (mapped) {
        FILE *f = fopen("/proc/self/maps", "r");
        while (f && fgets(line, sizeof line, f)) {
            char *at = strstr(line, pre);
            if (at && atol(at + strlen(pre)) > mx) mx = atol(at + strlen(pre));
        }
        if (f) fclose(f);
        return mx;
    }
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d && (e = readdir(d));)
        if (strncmp(e->d_name, pre, strlen(pre)) == 0 && atol(e->d_name + strlen(pre)) > mx)
            mx = atol(e->d_name + strlen(pre));
    if (d) closedir(d);
    return mx;
}

/* Shared memory outlives a killed process, and a later process may get its pid. The host
 * backend's shared buffers lose their names once the neighbours have opened them, so a running
 * run has none; and when the next 40 names this process would take are taken, the peer run
 * steps over them, leaves them alone and still ends at the reference. */
START_TEST(stale_shared_names)
{
    if (strcmp(backend(), "host") != 0) return;
    const split_case *k = &splits_cases[1];
    stencil_desc st;
    stencil_set_get(stencil_set_find(k->name), k->type, &st);
    double *ref = ref_at(&st, k->sizes, 1, 3);
    ctx c = {.seed = 7};
    stencil_options o;
    opts(&o, &c, k->part, STENCIL_BOUNDARY_PERIODIC);
    o.peer = 1;
    stencil_run *run;
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, k->sizes, &st, NULL, init_cb, &o, &run), 0);
    long at = shm_serial_max(1), named = shm_serial_max(0);
    ASSERT_RC(stencil_destroy(&run), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, named >= 0), 0);
    if (tu_allsum(MPI_COMM_WORLD, at < 0)) { /* no /proc or /dev/shm here: nothing to test */
        free(ref);
        return;
    }
    char name[48];
    for (long i = 1; i <= 40; i++) {
        snprintf(name, sizeof name, "/stencil-%ld-%ld", (long)getpid(), at + i);
        int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
        if (fd >= 0) close(fd);
    }
    /* No assertion before the names are gone again: a failure must not leave them to the
     * tests after this one. */
    int rc = stencil_create(MPI_COMM_WORLD, k->sizes, &st, NULL, init_cb, &o, &run);
    long past = 0, bad = -1, kept = 0;
    if (rc == 0) {
        past = shm_serial_max(1) > at + 40;
        rc = stencil_advance(run, 3);
        bad = rc ? -1 : view_bad(run, &c, ref);
        stencil_destroy(&run);
    }
    for (long i = 1; i <= 40; i++) {
        snprintf(name, sizeof name, "/stencil-%ld-%ld", (long)getpid(), at + i);
        kept += shm_unlink(name) == 0;
    }
    ASSERT_RC(rc, 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, !past), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, kept != 40), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, bad), 0);
    free(ref);
}
END_TEST

/* Two runs in one process, advanced in turns, each ends where it should. */
START_TEST(two_runs)
{
    stencil_desc a, b;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_DOUBLE, &a);
    stencil_set_get(stencil_set_find("1d3"), STENCIL_FLOAT, &b);
    long sa[2] = {17, 18}, sb[1] = {40};
    double *ra = ref_at(&a, sa, 0, 6), *rb = ref_at(&b, sb, 1, 5);
    ctx ca = {.seed = 7}, cb = {.seed = 7};
    stencil_options oa, ob;
    opts(&oa, &ca, STENCIL_PART_BLOCKS, STENCIL_BOUNDARY_FIXED);
    opts(&ob, &cb, STENCIL_PART_BANDS, STENCIL_BOUNDARY_PERIODIC);
    stencil_run *x, *y;
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, sa, &a, NULL, init_cb, &oa, &x), 0);
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, sb, &b, NULL, init_cb, &ob, &y), 0);
    ASSERT_RC(stencil_advance(x, 2), 0);
    ASSERT_RC(stencil_advance(y, 3), 0);
    ASSERT_RC(stencil_advance(x, 4), 0);
    ASSERT_RC(stencil_advance(y, 2), 0);
    ck_assert_int_eq(view_bad(x, &ca, ra), 0);
    ck_assert_int_eq(view_bad(y, &cb, rb), 0);
    stencil_destroy(&x);
    stencil_destroy(&y);
    free(ra);
    free(rb);
}
END_TEST

/* Serial norm of the change between reference steps k-1 and k over the updated cells. */
static void serial_norm(const stencil_desc *st, const long *sizes, int periodic, long k, double *l2,
                        double *mx, long long *cells)
{
    double *a = ref_at(st, sizes, periodic, k - 1), *b = ref_at(st, sizes, periodic, k);
    long n[3] = {1, 1, 1}, lo[3] = {0, 0, 0}, hi[3];
    for (int d = 0; d < st->ndims; d++) n[d] = sizes[d];
    for (int d = 0; d < 3; d++) {
        int rl = d < st->ndims ? st->radius_lo[d] : 0, rh = d < st->ndims ? st->radius_hi[d] : 0;
        lo[d] = periodic ? 0 : rl;
        hi[d] = periodic ? n[d] : n[d] - rh;
    }
    double s = 0, m = 0;
    *cells = 0;
    for (long i = lo[0]; i < hi[0]; i++)
        for (long j = lo[1]; j < hi[1]; j++)
            for (long q = lo[2]; q < hi[2]; q++) {
                long at = (i * n[1] + j) * n[2] + q;
                double d = st->type == STENCIL_FLOAT ? (double)(float)b[at] - (double)(float)a[at]
                                                     : b[at] - a[at];
                s += d * d;
                m = fabs(d) > m ? fabs(d) : m;
                ++*cells;
            }
    *l2 = sqrt(s);
    *mx = m;
    free(a);
    free(b);
}

static void check_norm(const stencil_norm *nm, const stencil_desc *st, const long *sizes,
                       int periodic, long k)
{
    double l2, mx;
    long long cells;
    serial_norm(st, sizes, periodic, k, &l2, &mx, &cells);
    ck_assert_int_eq(nm->iteration, k);
    ck_assert_int_eq(nm->cells, cells);
    ck_assert_msg(nm->max == mx, "iteration %ld: max %.17g, serial %.17g", k, nm->max, mx);
    ck_assert_msg(fabs(nm->l2 - l2) <= 1e-12 * l2, "iteration %ld: L2 %.17g, serial %.17g", k,
                  nm->l2, l2);
    ck_assert_msg(l2 > 0, "a change of zero proves nothing");
}

/* advance_norm: the norms of the last step, and the same array as plain advances. */
START_TEST(norms_serial)
{
    const split_case *k = &splits_cases[_i];
    stencil_desc st;
    stencil_set_get(stencil_set_find(k->name), k->type, &st);
    if (k->fuse == 2 && strcmp(backend(), "host") != 0) return;
    int periodic = k->bnd == STENCIL_BOUNDARY_PERIODIC;
    ctx c = {.seed = 7};
    stencil_options o;
    opts(&o, &c, k->part, k->bnd);
    o.fuse = k->fuse;
    stencil_run *run;
    stencil_norm nm;
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, k->sizes, &st, NULL, init_cb, &o, &run), 0);
    ASSERT_RC(stencil_advance_norm(run, 4, &nm), 0);
    check_norm(&nm, &st, k->sizes, periodic, 4);
    ASSERT_RC(stencil_advance_norm(run, 1, &nm), 0);
    check_norm(&nm, &st, k->sizes, periodic, 5);
    ASSERT_RC(stencil_advance_norm(run, 0, &nm), STENCIL_EINVAL); /* needs a step */
    double *ref = ref_at(&st, k->sizes, periodic, 5);
    ck_assert_int_eq(view_bad(run, &c, ref), 0);
    free(ref);
    stencil_destroy(&run);
}
END_TEST

/* Checkpoint at 3 on all ranks in bands; resume on fewer ranks in blocks, native and HDF5. */
START_TEST(checkpoint_resume)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9nc"), STENCIL_DOUBLE, &st);
    long sizes[2] = {26, 23};
    double *ref = ref_at(&st, sizes, 1, 7);
    char pn[300], ph[300];
    path_of(pn, sizeof pn, "ck.sten");
    path_of(ph, sizeof ph, "ck.h5");
    int h5 = stencil_have_hdf5();
    ctx c = {.seed = 7};
    stencil_options o;
    opts(&o, &c, STENCIL_PART_BANDS, STENCIL_BOUNDARY_PERIODIC);
    stencil_run *run;
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, init_cb, &o, &run), 0);
    ASSERT_RC(stencil_advance(run, 3), 0);
    ASSERT_RC(stencil_checkpoint(run, pn), 0);
    if (h5) ASSERT_RC(stencil_checkpoint(run, ph), 0);
    stencil_destroy(&run);

    MPI_Comm sub;
    int nsub = nranks > 1 ? nranks - 1 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, rank < nsub ? 0 : MPI_UNDEFINED, rank, &sub);
    for (int f = 0; f < 1 + h5; f++) {
        long bad = 0;
        if (sub != MPI_COMM_NULL) {
            ctx d = {.seed = 99, .ref = ref, .bad = -1};
            stencil_options q;
            opts(&q, &d, STENCIL_PART_BLOCKS, STENCIL_BOUNDARY_PERIODIC);
            q.checkpoint = f ? ph : pn;
            q.restart = 1;
            long it = -1;
            int rc = stencil_create(sub, sizes, &st, NULL, NULL, &q, &run);
            if (!rc) rc = stencil_iteration(run, &it);
            if (!rc) rc = stencil_advance(run, 4);
            if (!rc) rc = stencil_view(run, check_cb);
            stencil_destroy(&run);
            bad = rc ? 1000 : d.bad + (it != 3) + (d.inits != 0) + (d.seen != 7);
        }
        bad = tu_allsum(MPI_COMM_WORLD, bad);
        ck_assert_msg(bad == 0, "%s: resumed run differs (%ld)", f ? "HDF5" : "native", bad);
    }
    if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);

    /* stencil_load into a live run on every rank, in blocks. */
    opts(&o, &c, STENCIL_PART_BLOCKS, STENCIL_BOUNDARY_PERIODIC);
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, init_cb, &o, &run), 0);
    ASSERT_RC(stencil_advance(run, 1), 0);
    ASSERT_RC(stencil_load(run, pn), 0);
    ASSERT_RC(stencil_advance(run, 4), 0);
    ck_assert_int_eq(view_bad(run, &c, ref), 0);
    stencil_destroy(&run);
    free(ref);
}
END_TEST

static void write_checkpoint(const char *name, stencil_type type, const long *sizes,
                             const char *path)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find(name), type, &st);
    ctx c = {.seed = 5};
    stencil_options o;
    opts(&o, &c, STENCIL_PART_BANDS, STENCIL_BOUNDARY_FIXED);
    stencil_run *run;
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, init_cb, &o, &run), 0);
    ASSERT_RC(stencil_advance(run, 1), 0);
    ASSERT_RC(stencil_checkpoint(run, path), 0);
    stencil_destroy(&run);
}

/* Rank 0 copies the first half of src to dst. */
static void truncate_copy(const char *src, const char *dst)
{
    if (rank == 0) {
        FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
        char buf[65536];
        size_t n = a ? fread(buf, 1, sizeof buf, a) : 0;
        if (b) fwrite(buf, 1, n / 2, b);
        if (a) fclose(a);
        if (b) fclose(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Bad checkpoints and paths: one clear code everywhere, and the run's array is untouched. */
START_TEST(bad_checkpoints)
{
    static const long sizes[2] = {20, 17}, other[2] = {20, 18};
    char p[8][300];
    const char *names[8] = {"own.sten",   "2d4.sten", "size.sten", "dbl.sten",
                            "trunc.sten", "own.h5",   "trunc.h5",  "file"};
    for (int i = 0; i < 8; i++) path_of(p[i], sizeof p[i], names[i]);
    int h5 = stencil_have_hdf5();
    write_checkpoint("2d9", STENCIL_FLOAT, sizes, p[0]);
    write_checkpoint("2d4", STENCIL_FLOAT, sizes, p[1]);
    write_checkpoint("2d9", STENCIL_FLOAT, other, p[2]);
    write_checkpoint("2d9", STENCIL_DOUBLE, sizes, p[3]);
    truncate_copy(p[0], p[4]);
    if (h5) {
        write_checkpoint("2d9", STENCIL_FLOAT, sizes, p[5]);
        truncate_copy(p[5], p[6]);
    }
    if (rank == 0) fclose(fopen(p[7], "w")); /* a file where a directory should be */
    MPI_Barrier(MPI_COMM_WORLD);

    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_FLOAT, &st);
    ctx c = {.seed = 7};
    stencil_options o;
    opts(&o, &c, STENCIL_PART_BLOCKS, STENCIL_BOUNDARY_FIXED);
    stencil_run *run;
    ASSERT_RC(stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, init_cb, &o, &run), 0);
    ASSERT_RC(stencil_advance(run, 2), 0);
    ASSERT_RC(stencil_load(run, p[1]), STENCIL_EFORMAT); /* another stencil */
    ASSERT_RC(stencil_load(run, p[2]), STENCIL_EFORMAT); /* another size */
    ASSERT_RC(stencil_load(run, p[3]), STENCIL_EFORMAT); /* another type */
    ASSERT_RC(stencil_load(run, p[4]), STENCIL_EFORMAT); /* truncated */
    if (h5) ASSERT_RC(stencil_load(run, p[6]), STENCIL_EFORMAT);
    char missing[300], nodir[400], nodir5[400];
    path_of(missing, sizeof missing, "missing.sten");
    snprintf(nodir, sizeof nodir, "%s/ck.sten", p[7]);
    snprintf(nodir5, sizeof nodir5, "%s/ck.h5", p[7]);
    ASSERT_RC(stencil_load(run, missing), STENCIL_EIO);
    ASSERT_RC(stencil_checkpoint(run, nodir), STENCIL_EIO);
    ASSERT_RC(stencil_checkpoint(run, nodir5), STENCIL_EIO); /* the directory is looked at first */
    if (!h5) ASSERT_RC(stencil_checkpoint(run, p[5]), STENCIL_ENOSYS); /* built without HDF5 */
    ASSERT_RC(stencil_checkpoint(run, NULL), STENCIL_EINVAL);
    char elsewhere[300];
    path_of(elsewhere, sizeof elsewhere, "other.sten");
    ASSERT_RC(stencil_checkpoint(run, rank == 1 ? missing : elsewhere),
              nranks > 1 ? STENCIL_EINVAL : 0);
    /* Ranks that disagree on the count: refused, the run goes on (one rank: 1 step). */
    ASSERT_RC(stencil_advance(run, rank == 0 ? 1 : 2), nranks > 1 ? STENCIL_EINVAL : 0);
    ASSERT_RC(stencil_advance(run, nranks > 1 ? 4 : 3), 0);
    double *ref = ref_at(&st, sizes, 0, 6);
    ck_assert_int_eq(view_bad(run, &c, ref), 0);
    free(ref);
    ASSERT_RC(stencil_load(run, p[0]), 0); /* a good one still loads */
    long it = -1;
    stencil_iteration(run, &it);
    ck_assert_int_eq(it, 1);
    stencil_destroy(&run);
    ASSERT_RC(stencil_advance(run, 1), STENCIL_EINVAL); /* destroyed: run is NULL */
    ASSERT_RC(stencil_view(run, check_cb), STENCIL_EINVAL);
    ASSERT_RC(stencil_destroy(&run), 0);
    const char *files[] = {"own.sten", "2d4.sten", "size.sten", "dbl.sten", "trunc.sten",
                           "own.h5",   "own.xmf",  "trunc.h5",  "file",     "other.sten"};
    for (size_t i = 0; rank == 0 && i < sizeof files / sizeof *files; i++) {
        char q[300];
        path_of(q, sizeof q, files[i]);
        remove(q);
    }
}
END_TEST

/* A device error in an advance on one rank: every rank fails, later work is refused (stats
   zeroed, also for a destroyed run). */
START_TEST(failed_run)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_FLOAT, &st);
    long sizes[2] = {20, 17};
    ctx c = {.seed = 7};
    stencil_options o;
    opts(&o, &c, STENCIL_PART_BANDS, STENCIL_BOUNDARY_FIXED);
    o.backend = "host"; /* the failure is injected by the host backend */
    stencil_run *run;
    char pn[300];
    path_of(pn, sizeof pn, "failed.sten");
    if (rank == nranks - 1) setenv("STENCIL_HOST_FAIL", "9", 1);
    int rc = stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, init_cb, &o, &run);
    unsetenv("STENCIL_HOST_FAIL");
    ASSERT_RC(rc, 0);
    ASSERT_RC(stencil_advance(run, 10), STENCIL_EDEVICE);
    ASSERT_RC(stencil_advance(run, 1), STENCIL_EINVAL);
    ASSERT_RC(stencil_view(run, check_cb), STENCIL_EINVAL);
    ASSERT_RC(stencil_checkpoint(run, pn), STENCIL_EINVAL);
    stencil_stats stats;
    stats.t_total = 123;
    stats.nranks = 5;
    ASSERT_RC(stencil_run_stats(run, &stats), STENCIL_EINVAL);
    ck_assert(stats.t_total == 0 && stats.nranks == 0);
    ASSERT_RC(stencil_destroy(&run), 0);
    stats.t_total = 123;
    stats.nranks = 5;
    ASSERT_RC(stencil_run_stats(run, &stats), STENCIL_EINVAL); /* run is NULL */
    ck_assert(stats.t_total == 0 && stats.nranks == 0);
}
END_TEST

static int monitor_cb(const stencil_tile *t, const stencil_norm *nm, void *user)
{
    ctx *c = user;
    if (c->nnorms < 8) c->norms[c->nnorms++] = *nm;
    if (t->data == NULL || t->iteration != nm->iteration) c->bad += 1000;
    return c->stop_at && nm->iteration >= c->stop_at;
}

/* The skeleton's monitor, periodic checkpoints, restart and a stop; stats zeroed on failure. */
START_TEST(skeleton_periodic)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_FLOAT, &st);
    long sizes[2] = {21, 19};
    char ck[300];
    path_of(ck, sizeof ck, stencil_have_hdf5() ? "sk.h5" : "sk.sten");
    double *r10 = ref_at(&st, sizes, 0, 10), *r13 = ref_at(&st, sizes, 0, 13);
    ctx c = {.seed = 7, .ref = r10, .bad = -1};
    stencil_options o;
    opts(&o, &c, STENCIL_PART_BLOCKS, STENCIL_BOUNDARY_FIXED);
    o.monitor = monitor_cb;
    o.monitor_every = 3;
    o.monitor_data = 1;
    o.checkpoint = ck;
    o.checkpoint_every = 4;
    ASSERT_RC(stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 10, NULL, init_cb, check_cb, &o), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, c.bad), 0);
    ck_assert_int_eq(c.nnorms, 3);
    for (int i = 0; i < 3; i++) check_norm(&c.norms[i], &st, sizes, 0, 3 * (i + 1));

    ctx d = {.seed = 1, .ref = r13, .bad = -1}; /* resumes from the checkpoint at 10 */
    o.user = &d;
    o.restart = 1;
    o.monitor = NULL;
    ASSERT_RC(stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 13, NULL, init_cb, check_cb, &o), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, d.bad + (d.inits != 0) + (d.seen != 13)), 0);

    double *r6 = ref_at(&st, sizes, 0, 6);
    ctx e = {.seed = 7, .ref = r6, .bad = 0, .stop_at = 5};
    stencil_options p;
    opts(&p, &e, STENCIL_PART_BANDS, STENCIL_BOUNDARY_FIXED);
    p.monitor = monitor_cb;
    p.monitor_every = 3;
    p.monitor_data = 1;
    ASSERT_RC(stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 10, NULL, init_cb, check_cb, &p), 0);
    ck_assert_int_eq(tu_allsum(MPI_COMM_WORLD, e.bad + (e.seen != 6)), 0);

    stencil_stats stats;
    stats.t_total = 123;
    p.stats = &stats;
    ASSERT_RC(stencil_skeleton(MPI_COMM_WORLD, sizes, &st, -1, NULL, init_cb, NULL, &p),
              STENCIL_EINVAL);
    ck_assert(stats.t_total == 0 && stats.nranks == 0);
    free(r6);
    free(r10);
    free(r13);
    if (rank == 0) {
        char x[300];
        remove(ck);
        path_of(x, sizeof x, "sk.xmf");
        remove(x);
    }
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tu_scratch_make(MPI_COMM_WORLD, "stencil-run", dir, sizeof dir);
    Suite *s = suite_create("persistent run");
    TCase *ta = tcase_create("advance"), *tk = tcase_create("checkpoint"),
          *ts = tcase_create("skeleton");
    tcase_set_timeout(ta, 600);
    tcase_set_timeout(tk, 600);
    tcase_set_timeout(ts, 600);
    tcase_add_loop_test(ta, advance_splits, 0, 3);
    tcase_add_test(ta, two_runs);
    tcase_add_test(ta, stale_shared_names);
    tcase_add_loop_test(ta, norms_serial, 0, 3);
    tcase_add_test(tk, checkpoint_resume);
    tcase_add_test(tk, bad_checkpoints);
    tcase_add_test(tk, failed_run);
    tcase_add_test(ts, skeleton_periodic);
    suite_add_tcase(s, ta);
    suite_add_tcase(s, tk);
    suite_add_tcase(s, ts);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_scratch_remove(MPI_COMM_WORLD, dir, NULL, 0);
    MPI_Finalize();
    return failed != 0;
}
