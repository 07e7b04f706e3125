/*
 * Backend-level tests of the GPU backends (cuda or hip, named by argv[1]), one process, no MPI.
 * Needs a device: suite 'gpu', never run in CI.
 *
 * Every stencil of the set on 1-rank layouts (fixed and periodic), float and double, several
 * iterations with each update split over both queues and joined, compared bitwise with a serial
 * reference written here from the dense weights; the kernel's launch shapes; a stencil too large
 * for a parameter block; box copies in every copy path; a named kernel; the error paths.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backend_fixture.h"
#include "layout.h"
#include "stencil_set.h"
#include "testutil.h"

static const sb_ops *ops; /* the backend under test */

#if TEST_NAMED_CUDA
int test_2d4_launch_f(const void *in, void *out, const long *lo, const long *hi, const long *stride,
                      void *queue);
#endif

static int fx_open(fixture *f, const stencil_kernel *named, int device)
{
    sb_open_args a = {
        .device = device, .local_size = 1, .st = &f->s, .named = named, .local = &f->l};
    f->dev.ops = ops;
    return ops->open(&f->dev, &a);
}

static void fill(char *buf, size_t n, stencil_type t, unsigned long seed)
{
    for (size_t i = 0; i < n; i++) {
        double v = tu_random(seed, (long)i);
        if (t == STENCIL_DOUBLE)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
    }
}

/* Opens the device and uploads random in/out arrays (mirrored in f->h). */
static void fx_start(fixture *f, const stencil_kernel *named)
{
    OK(&f->dev, fx_open(f, named, -1));
    for (int i = 0; i < 2; i++) {
        f->h[i] = malloc(f->bytes);
        REQ(f->h[i]);
        fill(f->h[i], f->l.nelems, f->desc.type, 17 + (unsigned long)i);
        OK(&f->dev, ops->mem_alloc(&f->dev, f->bytes, &f->m[i]));
        OK(&f->dev, ops->write(&f->dev, f->m[i], f->h[i], f->bytes));
    }
    ck_assert_uint_ge(f->dev.device_bytes, 2 * f->bytes);
}

static void fx_end(fixture *f)
{
    for (int i = 0; i < 2; i++) {
        if (f->m[i]) ops->mem_free(&f->dev, f->m[i]);
        free(f->h[i]);
    }
    ops->close(&f->dev);
    sl_stencil_free(&f->s);
    sl_partition_free(&f->p);
}

/* The serial reference over box b (local indices): tests/common/testutil.c. */
static void reference(const fixture *f, const sl_box *b, const char *in, char *out)
{
    tu_reference_box(&f->desc, f->l.stride, b->lo, b->hi, in, out);
}

/* Cuts box u along dim 0 into up to 3 boxes (some may be empty). */
static int split(const sl_box *u, sl_box out[3])
{
    long n = u->hi[0] - u->lo[0], c1 = u->lo[0] + n / 3, c2 = u->lo[0] + (2 * n) / 3 + 1;
    if (c2 > u->hi[0]) c2 = u->hi[0];
    for (int i = 0; i < 3; i++) out[i] = *u;
    out[0].hi[0] = c1;
    out[1].lo[0] = c1;
    out[1].hi[0] = c2;
    out[2].lo[0] = c2;
    return 3;
}

/* iters steps, each split over both queues and joined; compares both arrays bitwise. */
static void run_and_compare(fixture *f, int iters)
{
    sl_box u = sl_local_box(&f->l, &f->l.update), parts[3];
    int np = split(&u, parts);
    for (int t = 0; t < iters; t++) {
        int a = t & 1, b = !a;
        for (int i = 0; i < np; i++) {
            int q = i == 1 ? SB_QINNER : SB_QBORDER;
            OK(&f->dev, ops->update(&f->dev, q, 1, f->m[a], f->m[b], &parts[i], NULL));
            reference(f, &parts[i], f->h[a], f->h[b]);
        }
        OK(&f->dev, ops->join(&f->dev));
    }
    OK(&f->dev, ops->wait(&f->dev, SB_QBORDER));
    OK(&f->dev, ops->wait(&f->dev, SB_QINNER));
    char *got = malloc(f->bytes);
    REQ(got);
    for (int i = 0; i < 2; i++) {
        OK(&f->dev, ops->read(&f->dev, f->m[i], got, f->bytes));
        size_t bad = 0, first = 0;
        for (size_t e = 0; e < f->l.nelems; e++)
            if (memcmp(got + e * f->es, f->h[i] + e * f->es, f->es) && !bad++) first = e;
        ck_assert_msg(bad == 0, "%dD %s: %zu cells differ in array %d, first at %zu", f->desc.ndims,
                      f->es == 8 ? "double" : "float", bad, i, first);
    }
    free(got);
}

static const long sizes_a[4][3] = {{0}, {5003}, {203, 157}, {37, 29, 45}};
static const long sizes_b[4][3] = {{0}, {77}, {19, 300}, {9, 23, 300}};

/* _i: stencil (i / 8), type ((i / 4) & 1), periodic ((i / 2) & 1), sizes (i & 1). */
START_TEST(update_set)
{
    fixture f;
    stencil_desc d;
    int si = _i / 8;
    stencil_set_get(si, (_i / 4) & 1 ? STENCIL_DOUBLE : STENCIL_FLOAT, &d);
    const long *g = (_i & 1) ? sizes_b[d.ndims] : sizes_a[d.ndims];
    fx_layout(&f, &d, g, (_i / 2) & 1);
    fx_start(&f, NULL);
    run_and_compare(&f, 3);
    fx_end(&f);
}
END_TEST

/* Launch shapes: unroll depth, block shape, short walks, NP specialization, rows aligned to
 * 128 bytes (the sizes below have aligned rows). "bx,by,chunk,u,spec,al" */
static const char *const tunes[] = {"32,4,7,4,0,1",   "64,2,5,8,1,1",  "16,16,3,8,1,0",
                                    "256,1,64,8,0,1", "128,2,1,4,1,0", "96,1,200,8,0,1",
                                    "32,8,9,8,1,1",   "64,4,3,4,0,0"};
static const long sizes_t[4][3] = {{0}, {4096}, {61, 128}, {13, 17, 64}};
static const char *const tune_set[] = {"1d-wide", "2d4", "2d9nc", "2d5asym", "3d7", "3d-oct"};

START_TEST(update_tunes)
{
    fixture f;
    stencil_desc d;
    int ti = _i % 8, si = stencil_set_find(tune_set[(_i / 8) % 6]);
    stencil_set_get(si, _i >= 48 ? STENCIL_DOUBLE : STENCIL_FLOAT, &d);
    setenv("STENCIL_GPU_TUNE", tunes[ti], 1);
    fx_layout(&f, &d, sizes_t[d.ndims], 0);
    fx_start(&f, NULL);
    unsetenv("STENCIL_GPU_TUNE");
    run_and_compare(&f, 2);
    fx_end(&f);
}
END_TEST

/* 17x17 = 289 non-zero weights: more points than a parameter block holds. */
START_TEST(update_big)
{
    static double w[17 * 17];
    for (int a = 0; a < 17 * 17; a++) w[a] = 1 + tu_random(5, a);
    stencil_desc d = {2, {8, 8, 0}, {8, 8, 0}, w, 3.0, _i ? STENCIL_DOUBLE : STENCIL_FLOAT};
    const long g[2] = {61, 150};
    fixture f;
    fx_layout(&f, &d, g, _i);
    fx_start(&f, NULL);
    run_and_compare(&f, 2);
    fx_end(&f);
}
END_TEST

/* Box b of the local array (host mirror h) packed row-major into out. */
static void pack_ref(const fixture *f, const sl_box *b, const char *h, char *out)
{
    size_t n = 0;
    const long *s = f->l.stride;
    for (long i = b->lo[0]; i < b->hi[0]; i++)
        for (long j = b->lo[1]; j < b->hi[1]; j++)
            for (long k = b->lo[2]; k < b->hi[2]; k++) {
                long c = i * s[0] + (f->desc.ndims > 1 ? j * s[1] : 0) +
                         (f->desc.ndims > 2 ? k * s[2] : 0);
                memcpy(out + n++ * f->es, h + (size_t)c * f->es, f->es);
            }
}

static void unpack_ref(const fixture *f, const sl_box *b, const char *in, char *h)
{
    size_t n = 0;
    const long *s = f->l.stride;
    for (long i = b->lo[0]; i < b->hi[0]; i++)
        for (long j = b->lo[1]; j < b->hi[1]; j++)
            for (long k = b->lo[2]; k < b->hi[2]; k++) {
                long c = i * s[0] + (f->desc.ndims > 1 ? j * s[1] : 0) +
                         (f->desc.ndims > 2 ? k * s[2] : 0);
                memcpy(h + (size_t)c * f->es, in + n++ * f->es, f->es);
            }
}

/* Boxes of every shape: faces, columns, slabs, a single cell, the whole array. */
static int copy_boxes(const fixture *f, sl_box *bx)
{
    sl_box e = sl_local_box(&f->l, &f->l.ext);
    int n = 0, nd = f->desc.ndims;
    bx[n++] = e;
    for (int d = 0; d < nd; d++) {
        sl_box b = e;
        b.lo[d] = e.lo[d] + 1;
        b.hi[d] = e.lo[d] + 3; /* a face two cells thick */
        for (int o = 0; o < nd; o++)
            if (o != d) {
                b.lo[o] += 1;
                b.hi[o] -= 2;
            }
        bx[n++] = b;
    }
    sl_box c = e;
    for (int d = 0; d < nd; d++) {
        c.lo[d] = e.lo[d] + 2;
        c.hi[d] = e.lo[d] + 3;
    }
    bx[n++] = c;
    return n;
}

/* _i: mode (i % 4), dims (1 + (i / 4) % 3), type (i / 12), host memory pinned or not. */
START_TEST(copies)
{
    static const char *const modes[] = {"auto", "dma", "pack", "zerocopy"};
    static const char *const names[] = {"1d3", "2d9nc", "3d27"};
    int nd = 1 + (_i / 4) % 3;
    stencil_desc d;
    fixture f;
    stencil_set_get(stencil_set_find(names[nd - 1]), _i >= 12 ? STENCIL_DOUBLE : STENCIL_FLOAT, &d);
    setenv("STENCIL_GPU_COPY", modes[_i % 4], 1);
    fx_layout(&f, &d, sizes_b[nd], 1);
    fx_start(&f, NULL);
    unsetenv("STENCIL_GPU_COPY");
    sl_box bx[8];
    int nb = copy_boxes(&f, bx);
    void *pin;
    OK(&f.dev, ops->host_alloc(&f.dev, f.bytes, &pin));
    char *plain = malloc(f.bytes), *want = malloc(f.bytes);
    REQ(plain && want);
    for (int k = 0; k < 2 * nb; k++) {
        const sl_box *b = &bx[k % nb];
        char *h = k < nb ? (char *)pin : plain;
        size_t n = (size_t)sl_box_volume(b);
        int q = k & 1 ? SB_QINNER : SB_QBORDER;
        memset(h, 0x5A, f.bytes);
        OK(&f.dev, ops->copy_out(&f.dev, q, f.m[0], b, h));
        OK(&f.dev, ops->wait(&f.dev, q));
        pack_ref(&f, b, f.h[0], want);
        ck_assert_msg(memcmp(h, want, n * f.es) == 0, "copy_out of box %d (%s)", k, modes[_i % 4]);
        fill(h, n, d.type, 100 + (unsigned long)k);
        OK(&f.dev, ops->copy_in(&f.dev, q, f.m[1], b, h));
        unpack_ref(&f, b, h, f.h[1]);
        OK(&f.dev, ops->wait(&f.dev, q));
        OK(&f.dev, ops->read(&f.dev, f.m[1], want, f.bytes));
        ck_assert_msg(memcmp(want, f.h[1], f.bytes) == 0, "copy_in of box %d (%s)", k,
                      modes[_i % 4]);
    }
    ops->host_free(&f.dev, pin);
    free(plain);
    free(want);
    fx_end(&f);
}
END_TEST

#if TEST_NAMED_CUDA
START_TEST(named_kernel)
{
    stencil_desc d;
    fixture f;
    stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &d);
    stencil_kernel k = {.name = "test-2d4", .stencil = d, .cuda = {test_2d4_launch_f, NULL}};
    fx_layout(&f, &d, sizes_a[2], 0);
    fx_start(&f, &k);
    run_and_compare(&f, 3);
    fx_end(&f);
}
END_TEST
#endif

START_TEST(errors)
{
    stencil_desc d;
    fixture f;
    stencil_set_get(stencil_set_find("2d4"), STENCIL_DOUBLE, &d);
    fx_layout(&f, &d, sizes_a[2], 0);
    /* A named kernel without a launcher for this backend and type. */
    stencil_kernel k = {.name = "no-gpu", .stencil = d};
    ck_assert_int_eq(fx_open(&f, &k, -1), STENCIL_ENOKERNEL);
    ck_assert_ptr_null(f.dev.impl);
    ck_assert_ptr_nonnull(strstr(f.dev.err, "no-gpu"));
    ck_assert_int_eq(fx_open(&f, NULL, 4096), STENCIL_EINVAL);
    setenv("STENCIL_DEVICE", "x", 1);
    ck_assert_int_eq(fx_open(&f, NULL, -1), STENCIL_EINVAL);
    setenv("STENCIL_DEVICE", "0", 1);
    ck_assert_int_eq(fx_open(&f, NULL, -1), 0);
    unsetenv("STENCIL_DEVICE");
    ck_assert_ptr_nonnull(strstr(f.dev.name, "#0"));
    /* Far more memory than any device has: EDEVMEM naming both sizes. */
    sb_mem m;
    ck_assert_int_eq(ops->mem_alloc(&f.dev, (size_t)1 << 52, &m), STENCIL_EDEVMEM);
    ck_assert_ptr_nonnull(strstr(f.dev.err, "free"));
    ck_assert_int_eq(ops->busy(&f.dev, SB_QINNER), 0);
    ck_assert_int_eq(ops->busy(&f.dev, 7), STENCIL_EINVAL);
    /* The device still works after the failed allocation. */
    OK(&f.dev, ops->mem_alloc(&f.dev, f.bytes, &f.m[0]));
    ck_assert_uint_eq(f.dev.device_bytes, f.bytes);
    ops->mem_free(&f.dev, f.m[0]);
    f.m[0] = NULL;
    ck_assert_uint_eq(f.dev.device_bytes, 0);
    fx_end(&f);
}
END_TEST

/* quick: a subset for compute-sanitizer (2d4 and 3d7 in both kernels, copies, errors). */
static Suite *gpu_suite(int quick)
{
    Suite *s = suite_create(ops->name);
    TCase *tc = tcase_create("backend");
    tcase_set_timeout(tc, quick ? 900 : 120);
    if (quick) {
        tcase_add_loop_test(tc, update_set, 16, 20);
        tcase_add_loop_test(tc, update_set, 56, 60);
        tcase_add_loop_test(tc, update_tunes, 12, 16);
        tcase_add_loop_test(tc, update_tunes, 36, 40);
        tcase_add_loop_test(tc, copies, 4, 12);
    } else {
        tcase_add_loop_test(tc, update_set, 0, 8 * stencil_set_count());
        tcase_add_loop_test(tc, update_tunes, 0, 96);
        tcase_add_loop_test(tc, update_big, 0, 2);
        tcase_add_loop_test(tc, copies, 0, 24);
    }
#if TEST_NAMED_CUDA
    if (strcmp(ops->name, "cuda") == 0) tcase_add_test(tc, named_kernel);
#endif
    tcase_add_test(tc, errors);
    suite_add_tcase(s, tc);
    return s;
}

/* test_gpu_backend [cuda|hip] [quick] */
int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "cuda";
    ops = sb_find(name);
    if (!ops) {
        fprintf(stderr, "backend '%s' is not built in (built: %s)\n", name, sb_names());
        return 1;
    }
    SRunner *sr = srunner_create(gpu_suite(argc > 2 && strcmp(argv[2], "quick") == 0));
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
