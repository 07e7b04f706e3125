/*
 * Files that are not what a writer or reader expects, under mpiexec -n 2 and -n 4 (host or
 * OpenCL, STENCIL_BACKEND): every call returns the same code on every rank, nothing hangs,
 * nothing but a regular file is ever replaced or deleted, and a failed load leaves the run's
 * array as it was (in core and out of core).
 *
 *   - stencil_write / stencil_checkpoint onto a FIFO or a character device (a mknod copy of
 *     /dev/full, made in the scratch directory; root only), and stencil_write_png onto a FIFO:
 *     STENCIL_EIO (ENOSYS without libpng), the node is still there;
 *   - stencil_read / stencil_read_info / stencil_load of a FIFO: STENCIL_EIO, no hang;
 *   - an out-of-core backing file (options.ooc_file) that is a FIFO: STENCIL_EIO, left alone;
 *   - overlapping tiles whose cell counts add up: STENCIL_EINVAL, no file;
 *   - a shorter array over a longer file that cannot be deleted (its directory immutable,
 *     where the file system lets root set that): the file has exactly the new size;
 *   - a checkpoint of another stencil (same offsets, another divisor) and an HDF5 file without
 *     its iteration attribute: STENCIL_EFORMAT and the array unchanged, out of core too;
 *   - an HDF5 checkpoint whose XDMF sidecar cannot be written: STENCIL_EIO, and the old
 *     checkpoint is still the one on disk;
 *   - the HDF5 attribute stencil_offsets has the shape npts x 3 (io/README.md).
 * Every assertion is on an allreduced value.
 */
#define _XOPEN_SOURCE 700 /* mknod, S_IFCHR */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/fs.h>
#endif
#ifdef TEST_HDF5
#include <hdf5.h>
#endif

#include "cksuite.h"
#include "testutil.h"

static char dir[256];
static int rank, nranks;

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

/* Every rank got exactly `expect`. */
static int agreed(int rc, int expect)
{
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == expect && hi == expect;
}

/* Rank 0's answer, on every rank. */
static int bcast0(int v)
{
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v;
}

/* Rank 0 looks at a path: its st_mode type bits, 0 when absent; st_size into *size. */
static int kind_of(const char *p, long *size)
{
    struct stat st;
    int k = 0;
    long sz = -1;
    if (rank == 0 && lstat(p, &st) == 0) {
        k = (int)(st.st_mode & S_IFMT);
        sz = (long)st.st_size;
    }
    MPI_Bcast(&sz, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (size) *size = sz;
    return bcast0(k);
}

/* This rank's band of rows [lo, hi) of a g0 x 10 float array, dense rows; data from seed. */
static stencil_tile rows(long g0, long lo, long hi, void **mem)
{
    stencil_tile t = {.type = STENCIL_FLOAT,
                      .ndims = 2,
                      .global_size = {g0, 10, 1},
                      .offset = {lo, 0, 0},
                      .size = {hi - lo, 10, 1},
                      .stride = {10, 1, 1},
                      .rank = rank};
    t.data = *mem = calloc((size_t)((hi - lo) * 10) + 1, sizeof(float));
    tu_fill_tile(&t, 5);
    return t;
}

static stencil_tile band(long g0, void **mem)
{
    return rows(g0, g0 * rank / nranks, g0 * (rank + 1) / nranks, mem);
}

/* A FIFO and (root, where mknod works) a character device like /dev/full; 1 when the device
 * node exists. */
static int make_nodes(const char *fifo, const char *dev)
{
    int ok = 1, node = 0;
    if (rank == 0) {
        ok = mkfifo(fifo, 0600) == 0;
        node = mknod(dev, S_IFCHR | 0600, makedev(1, 7)) == 0;
    }
    ck_assert(bcast0(ok));
    node = bcast0(node);
    if (!node && rank == 0) fprintf(stderr, "test_faults: no mknod here, device node unchecked\n");
    return node;
}

START_TEST(write_never_replaces_nodes)
{
    char fifo[300], dev[300], fifo5[300];
    void *m;
    path_of(fifo, sizeof fifo, "fifo");
    path_of(dev, sizeof dev, "full");
    path_of(fifo5, sizeof fifo5, "fifo.h5");
    int node = make_nodes(fifo, dev);
    if (rank == 0) ck_assert(mkfifo(fifo5, 0600) == 0);
    stencil_tile t = band(12, &m);
    ck_assert_msg(agreed(stencil_write(MPI_COMM_WORLD, fifo, &t), STENCIL_EIO), "write a FIFO");
    ck_assert(kind_of(fifo, NULL) == S_IFIFO);
    ck_assert_msg(agreed(stencil_write(MPI_COMM_WORLD, fifo5, &t),
                         stencil_have_hdf5() ? STENCIL_EIO : STENCIL_ENOSYS),
                  "write an .h5 FIFO");
    ck_assert(kind_of(fifo5, NULL) == S_IFIFO);
#ifdef TEST_PNG
    const int png = STENCIL_EIO;
#else
    const int png = STENCIL_ENOSYS;
#endif
    ck_assert_msg(agreed(stencil_write_png(MPI_COMM_WORLD, fifo, &t, 0, 0, 0, 0), png), "png");
    ck_assert(kind_of(fifo, NULL) == S_IFIFO);
    if (node) {
        ck_assert_msg(agreed(stencil_write(MPI_COMM_WORLD, dev, &t), STENCIL_EIO), "device");
        ck_assert_msg(kind_of(dev, NULL) == S_IFCHR, "the device node was replaced");
    }
    free(m);
}
END_TEST

START_TEST(read_fifo_returns)
{
    char fifo[300];
    void *m;
    path_of(fifo, sizeof fifo, "fifo");
    stencil_tile t = band(12, &m);
    long it = 0;
    ck_assert_msg(agreed(stencil_read(MPI_COMM_WORLD, fifo, &t, &it), STENCIL_EIO), "read");
    ck_assert_msg(
        agreed(stencil_read_info(MPI_COMM_WORLD, fifo, NULL, NULL, NULL, NULL), STENCIL_EIO),
        "read_info");
    free(m);
}
END_TEST

/* Rank 1's band starts and ends a row early: the counts add up, one row twice, one missing. */
START_TEST(overlapping_tiles)
{
    char p[300];
    void *m;
    path_of(p, sizeof p, "overlap.sten");
    long lo = 12 * rank / nranks, hi = 12 * (rank + 1) / nranks, shift = rank == 1;
    stencil_tile t = rows(12, lo - shift, hi - shift, &m);
    ck_assert(agreed(stencil_write(MPI_COMM_WORLD, p, &t), STENCIL_EINVAL));
    ck_assert_msg(kind_of(p, NULL) == 0, "a file was written");
    free(m);
}
END_TEST

/* Sets or clears the immutable flag of rank 0's directory; 1 when it could. */
static int dir_immutable(int on)
{
    int ok = 0;
#if defined(__linux__) && defined(FS_IOC_GETFLAGS)
    if (rank == 0) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY), flags = 0;
        if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
            flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
            ok = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
        }
        if (fd >= 0) close(fd);
    }
#endif
    (void)on;
    return bcast0(ok);
}

START_TEST(shorter_file_keeps_no_tail)
{
    char p[300];
    void *m;
    long size = 0;
    path_of(p, sizeof p, "long.sten");
    stencil_tile t = band(12, &m);
    ck_assert(agreed(stencil_write(MPI_COMM_WORLD, p, &t), 0));
    free(m);
    int imm = dir_immutable(1);
    if (!imm && rank == 0) fprintf(stderr, "test_faults: directory cannot be made immutable\n");
    t = band(6, &m);
    int rc = stencil_write(MPI_COMM_WORLD, p, &t);
    if (imm) dir_immutable(0);
    free(m);
    ck_assert(agreed(rc, 0));
    kind_of(p, &size);
    ck_assert_msg(size == 128 + 6 * 10 * 4, "the file has %ld bytes", size);
}
END_TEST

/* The 5-point average, divisor 5 or 4: the same offsets, another stencil. */
static const double w5[9] = {0, 1, 0, 1, 1, 1, 0, 1, 0};

static stencil_desc five(double divisor)
{
    stencil_desc st = {.ndims = 2,
                       .radius_lo = {1, 1, 0},
                       .radius_hi = {1, 1, 0},
                       .weights = w5,
                       .divisor = divisor,
                       .type = STENCIL_FLOAT};
    return st;
}

static const long gsz[2] = {40, 33};

static int init_cb(stencil_tile *t, void *user)
{
    (void)user;
    tu_fill_tile(t, 11);
    return 0;
}

/* The run's array as a global grid of doubles (the view callback's tiles summed over ranks). */
static double *snap;
static int snap_cb(const stencil_tile *t, void *user)
{
    (void)user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            snap[(t->offset[0] + i) * gsz[1] + t->offset[1] + j] =
                ((const float *)t->data)[i * t->stride[0] + j * t->stride[1]];
    return 0;
}

static double *view(stencil_run *run)
{
    size_t n = (size_t)(gsz[0] * gsz[1]);
    double *all = calloc(n, sizeof *all);
    snap = calloc(n, sizeof *snap);
    ck_assert(agreed(stencil_view(run, snap_cb), 0));
    MPI_Allreduce(snap, all, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(snap);
    return all;
}

static stencil_run *make_run(double divisor, int ooc)
{
    stencil_options o;
    stencil_options_init(&o);
    const char *b = getenv("STENCIL_BACKEND");
    o.backend = b && b[0] ? b : "host";
    o.out_of_core = ooc ? 1 : -1;
    if (ooc) o.device_memory = 3LL * 4 * 33 * 8; /* a few rows a chunk */
    stencil_desc st = five(divisor);
    stencil_run *run = NULL;
    ck_assert(agreed(stencil_create(MPI_COMM_WORLD, gsz, &st, NULL, init_cb, &o, &run), 0));
    return run;
}

#ifdef TEST_HDF5
/* Rank 0 deletes an attribute of /u (serial HDF5 on the closed file). */
static int h5_drop_attr(const char *p, const char *name)
{
    int ok = 1;
    if (rank == 0) {
        hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t d = f < 0 ? -1 : H5Dopen2(f, "u", H5P_DEFAULT);
        ok = d >= 0 && H5Adelete(d, name) >= 0;
        if (d >= 0) H5Dclose(d);
        if (f >= 0) H5Fclose(f);
    }
    return bcast0(ok);
}

/* Rank 0 reads the shape of an attribute of /u: rank and dims into d[2]. */
static int h5_attr_shape(const char *p, const char *name, hsize_t d[2])
{
    int n = -1;
    d[0] = d[1] = 0;
    if (rank == 0) {
        hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t ds = f < 0 ? -1 : H5Dopen2(f, "u", H5P_DEFAULT);
        hid_t a = ds < 0 ? -1 : H5Aopen(ds, name, H5P_DEFAULT);
        hid_t sp = a < 0 ? -1 : H5Aget_space(a);
        if (sp >= 0) n = H5Sget_simple_extent_ndims(sp);
        if (n >= 1 && n <= 2) H5Sget_simple_extent_dims(sp, d, NULL);
        if (sp >= 0) H5Sclose(sp);
        if (a >= 0) H5Aclose(a);
        if (ds >= 0) H5Dclose(ds);
        if (f >= 0) H5Fclose(f);
    }
    unsigned long long v[2] = {d[0], d[1]};
    MPI_Bcast(v, 2, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    d[0] = v[0];
    d[1] = v[1];
    return bcast0(n);
}
#endif

/* Cells of two global grids that differ bitwise. */
static long differ(const double *a, const double *b)
{
    long n = 0;
    for (long i = 0; i < gsz[0] * gsz[1]; i++) n += memcmp(&a[i], &b[i], sizeof *a) != 0;
    return n;
}

/* A failed load, in core and out of core, leaves the array (and the iteration count) alone. */
static void load_unchanged(int ooc)
{
    char other[300], fifo[300];
    path_of(other, sizeof other, "other.sten");
    path_of(fifo, sizeof fifo, "fifo");
    stencil_run *b = make_run(4.0, 0), *a = make_run(5.0, ooc);
    ck_assert(agreed(stencil_advance(b, 2), 0));
    ck_assert(agreed(stencil_checkpoint(b, other), 0));
    ck_assert(agreed(stencil_advance(a, 3), 0));
    double *before = view(a);
    ck_assert_msg(agreed(stencil_load(a, other), STENCIL_EFORMAT), "another stencil");
    double *after = view(a);
    long it = -1;
    stencil_iteration(a, &it);
    ck_assert_msg(differ(before, after) == 0, "%ld cells changed (another stencil, ooc %d)",
                  differ(before, after), ooc);
    ck_assert(agreed((int)it, 3));
    free(after);
    ck_assert_msg(agreed(stencil_load(a, fifo), STENCIL_EIO), "load a FIFO");
#ifdef TEST_HDF5
    char h5[300];
    path_of(h5, sizeof h5, "noiter.h5");
    ck_assert(agreed(stencil_checkpoint(b, h5), 0));
    ck_assert(h5_drop_attr(h5, "iteration"));
    ck_assert_msg(agreed(stencil_load(a, h5), STENCIL_EFORMAT), "no iteration attribute");
    after = view(a);
    ck_assert_msg(differ(before, after) == 0, "%ld cells changed (no iteration, ooc %d)",
                  differ(before, after), ooc);
    free(after);
#endif
    /* The run goes on from its own array. */
    ck_assert(agreed(stencil_advance(a, 1), 0));
    free(before);
    stencil_destroy(&a);
    stencil_destroy(&b);
}

START_TEST(load_in_core_unchanged)
{
    load_unchanged(0);
}
END_TEST

START_TEST(load_out_of_core_unchanged)
{
    load_unchanged(1);
}
END_TEST

/* Out of core, the backing file <path>.<rank>: rank 0's is a FIFO, refused and left. */
START_TEST(ooc_file_never_replaces_nodes)
{
    char base[300], fifo[320];
    path_of(base, sizeof base, "back");
    snprintf(fifo, sizeof fifo, "%s.0", base);
    if (rank == 0) ck_assert(mkfifo(fifo, 0600) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    stencil_options o;
    stencil_options_init(&o);
    const char *b = getenv("STENCIL_BACKEND");
    o.backend = b && b[0] ? b : "host";
    o.out_of_core = 1;
    o.device_memory = 3LL * 4 * 33 * 8;
    o.ooc_file = base;
    o.quiet = 1;
    stencil_desc st = five(5.0);
    stencil_run *run = NULL;
    int rc = stencil_create(MPI_COMM_WORLD, gsz, &st, NULL, init_cb, &o, &run);
    stencil_destroy(&run);
    ck_assert_msg(agreed(rc, STENCIL_EIO), "a FIFO as the backing file: %d", rc);
    ck_assert(kind_of(fifo, NULL) == S_IFIFO); /* collective: rank 0 looks */
    if (rank == 0) unlink(fifo);
}
END_TEST

START_TEST(checkpoint_never_replaces_nodes)
{
    char dev[300], fifo[300], tfifo[300], ck[300];
    path_of(dev, sizeof dev, "full");
    path_of(fifo, sizeof fifo, "fifo");
    path_of(ck, sizeof ck, "ck.sten");
    path_of(tfifo, sizeof tfifo, "ck.sten.tmp");
    if (rank == 0) ck_assert(mkfifo(tfifo, 0600) == 0);
    stencil_run *a = make_run(5.0, 0);
    ck_assert_msg(agreed(stencil_checkpoint(a, fifo), STENCIL_EIO), "checkpoint onto a FIFO");
    ck_assert(kind_of(fifo, NULL) == S_IFIFO);
    ck_assert_msg(agreed(stencil_checkpoint(a, ck), STENCIL_EIO), "its .tmp a FIFO");
    ck_assert(kind_of(tfifo, NULL) == S_IFIFO && kind_of(ck, NULL) == 0);
    if (kind_of(dev, NULL) == S_IFCHR) {
        ck_assert_msg(agreed(stencil_checkpoint(a, dev), STENCIL_EIO), "onto a device");
        ck_assert_msg(kind_of(dev, NULL) == S_IFCHR, "the device node was replaced");
    }
    if (rank == 0) unlink(tfifo);
    stencil_destroy(&a);
}
END_TEST

#ifdef TEST_HDF5
START_TEST(h5_sidecar_failure_keeps_checkpoint)
{
    char ck[300], xmf[300], xtmp[300];
    path_of(ck, sizeof ck, "ck.h5");
    path_of(xmf, sizeof xmf, "ck.xmf");
    path_of(xtmp, sizeof xtmp, "ck.xmf.tmp");
    stencil_run *a = make_run(5.0, 0);
    ck_assert(agreed(stencil_advance(a, 2), 0));
    ck_assert(agreed(stencil_checkpoint(a, ck), 0));
    ck_assert(agreed(stencil_advance(a, 1), 0));
    /* The sidecar's name taken by a directory, then its temporary name. */
    if (rank == 0) ck_assert(unlink(xmf) == 0);
    for (int k = 0; k < 2; k++) {
        const char *d = k ? xtmp : xmf;
        if (rank == 0) ck_assert(mkdir(d, 0700) == 0);
        ck_assert_msg(agreed(stencil_checkpoint(a, ck), STENCIL_EIO), "sidecar %d", k);
        ck_assert(kind_of(d, NULL) == S_IFDIR);
        if (rank == 0) rmdir(d);
    }
    stencil_run *b = make_run(5.0, 0);
    ck_assert(agreed(stencil_load(b, ck), 0));
    long it = -1;
    stencil_iteration(b, &it);
    ck_assert_msg(agreed((int)it, 2), "the checkpoint on disk is at iteration %ld", it);
    hsize_t d[2];
    ck_assert_msg(h5_attr_shape(ck, "stencil_offsets", d) == 2 && d[0] == 5 && d[1] == 3,
                  "stencil_offsets is not 5 x 3");
    stencil_destroy(&a);
    stencil_destroy(&b);
}
END_TEST
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tu_scratch_make(MPI_COMM_WORLD, "stencil-faults", dir, sizeof dir);
    if (nranks < 2 || !dir[0]) {
        fprintf(stderr, "test_faults: needs mpiexec -n 2 or more and a temporary directory\n");
        MPI_Finalize();
        return 1;
    }
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, write_never_replaces_nodes);
    tcase_add_test(tc, read_fifo_returns);
    tcase_add_test(tc, overlapping_tiles);
    tcase_add_test(tc, shorter_file_keeps_no_tail);
    tcase_add_test(tc, load_in_core_unchanged);
    tcase_add_test(tc, load_out_of_core_unchanged);
    tcase_add_test(tc, checkpoint_never_replaces_nodes);
    tcase_add_test(tc, ooc_file_never_replaces_nodes);
#ifdef TEST_HDF5
    tcase_add_test(tc, h5_sidecar_failure_keeps_checkpoint);
#endif
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    static const char *const names[] = {"fifo",      "full",        "fifo.h5",   "overlap.sten",
                                        "long.sten", "other.sten",  "noiter.h5", "noiter.xmf",
                                        "ck.sten",   "ck.sten.tmp", "ck.h5",     "ck.xmf",
                                        "ck.h5.tmp"};
    dir_immutable(0);
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, sizeof names / sizeof *names);
    MPI_Finalize();
    return failed ? 1 : 0;
}
