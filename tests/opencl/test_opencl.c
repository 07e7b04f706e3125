/*
 * Backend-level tests of the OpenCL backend, one process, no MPI: every stencil of the set on a
 * 1-rank partition (fixed and periodic), float and double, compared bitwise with a serial
 * reference written here from the dense weights (the contract's operation order); box copies in
 * both copy modes; join ordering; named kernels; device and build errors.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backend_fixture.h"
#include "layout.h"
#include "ocl.h"
#include "stencil_set.h"
#include "testutil.h"

static const long sizes[4][3] = {{0}, {97}, {37, 29}, {13, 11, 9}};

static int fx_open(fixture *f, const stencil_kernel *named)
{
    sb_open_args a = {.device = -1, .local_size = 1, .st = &f->s, .named = named, .local = &f->l};
    f->dev.ops = &sb_opencl_ops;
    return sb_opencl_ops.open(&f->dev, &a);
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
    OK(&f->dev, fx_open(f, named));
    for (int i = 0; i < 2; i++) {
        f->h[i] = malloc(f->bytes);
        REQ(f->h[i]);
        fill(f->h[i], f->l.nelems, f->desc.type, 17 + (unsigned long)i);
        OK(&f->dev, sb_opencl_ops.mem_alloc(&f->dev, f->bytes, &f->m[i]));
        OK(&f->dev, sb_opencl_ops.write(&f->dev, f->m[i], f->h[i], f->bytes));
    }
    ck_assert_uint_ge(f->dev.device_bytes, 2 * f->bytes);
}

/* fx_start on one rank's whole array of set stencil `name` in float, global sizes g. */
static void fx_start_set(fixture *f, const char *name, const long *g)
{
    stencil_desc d;
    REQ(stencil_set_get(stencil_set_find(name), STENCIL_FLOAT, &d) == 0);
    fx_layout(f, &d, g, 0);
    fx_start(f, NULL);
}

static void fx_end(fixture *f)
{
    for (int i = 0; i < 2; i++) {
        if (f->m[i]) sb_opencl_ops.mem_free(&f->dev, f->m[i]);
        free(f->h[i]);
    }
    sb_opencl_ops.close(&f->dev);
    sl_stencil_free(&f->s);
    sl_partition_free(&f->p);
}

/* The serial reference over box b (local indices): tests/common/testutil.c. */
static void reference(fixture *f, int in, const sl_box *b)
{
    tu_reference_box(&f->desc, f->l.stride, b->lo, b->hi, f->h[in], f->h[1 - in]);
}

/* Reads array i back and compares it bitwise with its mirror, every cell. */
static void expect_equal(fixture *f, int i, const char *what)
{
    char *got = malloc(f->bytes);
    REQ(got);
    OK(&f->dev, sb_opencl_ops.read(&f->dev, f->m[i], got, f->bytes));
    size_t bad = 0, first = 0;
    for (size_t c = 0; c < f->l.nelems; c++)
        if (memcmp(got + c * f->es, f->h[i] + c * f->es, f->es) != 0 && bad++ == 0) first = c;
    free(got);
    ck_assert_msg(bad == 0, "%s: %zu cells differ, first at %zu", what, bad, first);
}

/* One whole-box update, then iterations split into border (QBORDER) and inner (QINNER) parts
   joined between steps, as the skeleton overlaps them. */
static void run_updates(fixture *f, const char *name)
{
    const sb_ops *ops = &sb_opencl_ops;
    sb_dev *dev = &f->dev;
    sl_box ub = sl_local_box(&f->l, &f->l.update), ib = sl_local_box(&f->l, &f->l.inner);
    OK(dev, ops->update(dev, SB_QINNER, 1, f->m[0], f->m[1], &ub, NULL));
    OK(dev, ops->wait(dev, SB_QINNER));
    reference(f, 0, &ub);
    expect_equal(f, 1, name);
    int cur = 1;
    for (int it = 0; it < 3; it++, cur = 1 - cur) {
        for (int b = 0; b < f->l.nborder; b++) {
            sl_box bb = sl_local_box(&f->l, &f->l.border[b]);
            OK(dev, ops->update(dev, SB_QBORDER, 1, f->m[cur], f->m[1 - cur], &bb, NULL));
        }
        OK(dev, ops->flush(dev, SB_QBORDER));
        OK(dev, ops->update(dev, SB_QINNER, 1, f->m[cur], f->m[1 - cur], &ib, NULL));
        OK(dev, ops->join(dev));
        reference(f, cur, &ub);
    }
    OK(dev, ops->wait(dev, SB_QBORDER));
    OK(dev, ops->wait(dev, SB_QINNER));
    ck_assert_int_eq(ops->busy(dev, SB_QINNER), 0);
    expect_equal(f, 0, name);
    expect_equal(f, 1, name);
}

/* Box b of a local array to/from a contiguous buffer, on the host. */
static void host_box(const fixture *f, char *arr, const sl_box *b, char *buf, int out)
{
    const long *s = f->l.stride;
    size_t row = (size_t)(b->hi[2] - b->lo[2]) * f->es;
    for (long i = b->lo[0]; i < b->hi[0]; i++)
        for (long j = b->lo[1]; j < b->hi[1]; j++, buf += row) {
            char *a = arr + (size_t)(i * s[0] + j * s[1] + b->lo[2] * s[2]) * f->es;
            memcpy(out ? buf : a, out ? a : buf, row);
        }
}

/* Out of array 0 into pinned memory and compared; then random data in, mirrored on the host. */
static void copy_box(fixture *f, const sl_box *b, unsigned long seed, const char *what)
{
    const sb_ops *ops = &sb_opencl_ops;
    size_t n = (size_t)sl_box_volume(b), bytes = n * f->es;
    if (!n) return;
    char *pin, *want = malloc(bytes);
    REQ(want);
    OK(&f->dev, ops->host_alloc(&f->dev, bytes, (void **)&pin));
    OK(&f->dev, ops->copy_out(&f->dev, SB_QBORDER, f->m[0], b, pin));
    OK(&f->dev, ops->wait(&f->dev, SB_QBORDER));
    host_box(f, f->h[0], b, want, 1);
    ck_assert_msg(memcmp(want, pin, bytes) == 0, "%s: copy_out differs", what);
    fill(pin, n, f->desc.type, seed);
    OK(&f->dev, ops->copy_in(&f->dev, SB_QINNER, f->m[0], b, pin));
    OK(&f->dev, ops->wait(&f->dev, SB_QINNER));
    host_box(f, f->h[0], b, pin, 0);
    ops->host_free(&f->dev, pin);
    free(want);
}

/* The halo boxes of the pattern, the border boxes, the whole array, a column and a plane. */
static int copy_boxes(const fixture *f, sl_box *out)
{
    int n = 0;
    for (int d = 0; d < SL_NDIRS; d++) {
        const sl_dir *dir = &f->l.dir[d];
        if (dir->active && dir->has_send) out[n++] = sl_local_box(&f->l, &dir->send);
        if (dir->active && dir->has_recv) out[n++] = sl_local_box(&f->l, &dir->recv);
    }
    for (int b = 0; b < f->l.nborder; b++) out[n++] = sl_local_box(&f->l, &f->l.border[b]);
    sl_box all = sl_local_box(&f->l, &f->l.ext), u = sl_local_box(&f->l, &f->l.update);
    out[n++] = all;
    out[n] = u;
    out[n++].hi[f->desc.ndims - 1] = u.lo[f->desc.ndims - 1] + 1;
    out[n] = u;
    out[n++].hi[0] = u.lo[0] + 1;
    return n;
}

static void run_copies(fixture *f, const char *name)
{
    sl_box boxes[2 * SL_NDIRS + 2 * SL_D + 3];
    int n = copy_boxes(f, boxes);
    ocl_impl *o = f->dev.impl;
    for (int mode = OCL_COPY_RECT; mode <= OCL_COPY_PACK; mode++) {
        o->copy_mode = mode;
        for (int i = 0; i < n; i++)
            copy_box(f, &boxes[i], 100 + (unsigned long)(mode * n + i), name);
        expect_equal(f, 0, name);
    }
}

/* Self links of a periodic rank, device to device: each receive box of array 1 from the
   matching send box of array 0, opened through a handle as the skeleton does. */
static void run_peer(fixture *f, const char *name)
{
    const sb_ops *ops = &sb_opencl_ops;
    char handle[128];
    size_t len = 0;
    sb_mem src;
    OK(&f->dev, ops->ipc_export(&f->dev, f->m[0], handle, sizeof handle, &len));
    OK(&f->dev, ops->ipc_open(&f->dev, handle, len, &src));
    for (int d = 0; d < SL_NDIRS; d++) {
        const sl_dir *r = &f->l.dir[d], *s = &f->l.dir[SL_NDIRS - 1 - d];
        if (!r->active || !r->has_recv) continue;
        sl_box db = sl_local_box(&f->l, &r->recv), sb = sl_local_box(&f->l, &s->send);
        size_t n = (size_t)sl_box_volume(&db);
        char *tmp = malloc(n * f->es);
        REQ(tmp && n == (size_t)sl_box_volume(&sb));
        OK(&f->dev,
           ops->copy_peer(&f->dev, SB_QBORDER, f->m[1], &db, f->l.stride, src, &sb, f->l.stride));
        host_box(f, f->h[0], &sb, tmp, 1);
        host_box(f, f->h[1], &db, tmp, 0);
        free(tmp);
    }
    OK(&f->dev, ops->wait(&f->dev, SB_QBORDER));
    ops->ipc_close(&f->dev, src);
    expect_equal(f, 1, name);
    handle[0] ^= 1; /* another process's handle */
    ck_assert_int_eq(ops->ipc_open(&f->dev, handle, len, &src), STENCIL_ENOSYS);
}

static void run_desc(const stencil_desc *d, const char *sname, int periodic)
{
    fixture f;
    char name[64];
    snprintf(name, sizeof name, "%s %s %s", sname, d->type == STENCIL_DOUBLE ? "double" : "float",
             periodic ? "periodic" : "fixed");
    fx_layout(&f, d, sizes[d->ndims], periodic);
    fx_start(&f, NULL);
    run_updates(&f, name);
    run_copies(&f, name);
    if (periodic) run_peer(&f, name);
    fx_end(&f);
}

static void run_case(int si, stencil_type t, int periodic)
{
    stencil_desc d;
    REQ(stencil_set_get(si, t, &d) == 0);
    run_desc(&d, stencil_set_name(si), periodic);
}

/* Weights that no decimal literal or float conversion gets exactly right by accident, +-1
   (folded by the generic kernel), and divisors with and without an exact reciprocal. */
START_TEST(odd_weights)
{
    static const double w[9] = {0.1, -1, 1.0 / 3, -0.7, 1, 2.5e-3, 12345.678, -1, 0.3};
    static const double divisors[3] = {0.7, 0.25, 1};
    stencil_desc d = {2, {1, 1, 0}, {1, 1, 0}, w, divisors[_i % 3], STENCIL_FLOAT};
    d.type = _i / 3 % 2 ? STENCIL_DOUBLE : STENCIL_FLOAT;
    run_desc(&d, "odd", _i / 6);
}
END_TEST

START_TEST(stencils_float)
{
    run_case(_i / 2, STENCIL_FLOAT, _i % 2);
}
END_TEST

/* Double on one stencil per shape family: each distinct kernel costs PoCL about a second to build
   on a cold cache, and the double path differs from the float one only in its literals. */
static const char *const double_set[] = {"1d-wide", "2d9nc", "2d5asym", "3d27", "3d-oct"};

START_TEST(stencils_double)
{
    run_case(stencil_set_find(double_set[_i / 2]), STENCIL_DOUBLE, _i % 2);
}
END_TEST

/* Queue q waits for queue `from`: through join (how 0) or after (how 1). */
static void order(sb_dev *dev, int how, int q, int from)
{
    OK(dev, how ? sb_opencl_ops.after(dev, q, from) : sb_opencl_ops.join(dev));
}

/* Update on one queue, join (or after), then a copy on the other queue that waits only for its
   own queue: the join must order them, both ways. */
START_TEST(join_orders_queues)
{
    fixture f;
    const long g[3] = {48, 40, 64};
    fx_start_set(&f, "3d27", g);
    const sb_ops *ops = &sb_opencl_ops;
    sl_box ub = sl_local_box(&f.l, &f.l.update), last = ub;
    last.lo[0] = ub.hi[0] - 1;
    size_t n = (size_t)sl_box_volume(&ub);
    char *pin, *want = malloc(n * f.es);
    REQ(want);
    OK(&f.dev, ops->host_alloc(&f.dev, n * f.es, (void **)&pin));
    OK(&f.dev, ops->update(&f.dev, SB_QINNER, 1, f.m[0], f.m[1], &ub, NULL));
    order(&f.dev, _i, SB_QBORDER, SB_QINNER);
    OK(&f.dev, ops->copy_out(&f.dev, SB_QBORDER, f.m[1], &last, pin));
    OK(&f.dev, ops->wait(&f.dev, SB_QBORDER));
    reference(&f, 0, &ub);
    host_box(&f, f.h[1], &last, want, 1);
    ck_assert_msg(memcmp(want, pin, (size_t)sl_box_volume(&last) * f.es) == 0, "update -> copy");
    /* Now a copy on the border queue that the inner update must wait for. */
    fill(pin, n, f.desc.type, 99);
    OK(&f.dev, ops->copy_in(&f.dev, SB_QBORDER, f.m[0], &ub, pin));
    order(&f.dev, _i, SB_QINNER, SB_QBORDER);
    OK(&f.dev, ops->update(&f.dev, SB_QINNER, 1, f.m[0], f.m[1], &ub, NULL));
    OK(&f.dev, ops->wait(&f.dev, SB_QINNER));
    host_box(&f, f.h[0], &ub, pin, 0);
    reference(&f, 0, &ub);
    OK(&f.dev, ops->wait(&f.dev, SB_QBORDER));
    expect_equal(&f, 1, "copy -> update");
    ops->host_free(&f.dev, pin);
    free(want);
    fx_end(&f);
}
END_TEST

/* Where mapping a buffer of a CPU device points: its host memory. */
static uintptr_t host_addr(fixture *f, sb_mem m)
{
    ocl_impl *o = f->dev.impl;
    cl_int err;
    void *p =
        clEnqueueMapBuffer(o->q[SB_QBORDER], m, CL_TRUE, CL_MAP_READ, 0, 1, 0, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clEnqueueUnmapMemObject(o->q[SB_QBORDER], m, p, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(o->q[SB_QBORDER]), CL_SUCCESS);
    return (uintptr_t)p;
}

/* On a CPU device the two arrays lie half a page apart (ocl_mem.c: 4K aliasing), and the stencil
   still computes the right cells through the sub-buffers. */
START_TEST(cpu_arrays_staggered)
{
    fixture f;
    const long g[3] = {40, 1000, 1};
    fx_start_set(&f, "2d4", g);
    ocl_impl *o = f.dev.impl;
    if (o->cpu) {
        uintptr_t a0 = host_addr(&f, f.m[0]), a1 = host_addr(&f, f.m[1]);
        ck_assert_msg((a1 - a0) % 4096 == 2048, "arrays %#lx and %#lx", (unsigned long)a0,
                      (unsigned long)a1);
    }
    sl_box ub = sl_local_box(&f.l, &f.l.update);
    OK(&f.dev, sb_opencl_ops.update(&f.dev, SB_QINNER, 1, f.m[0], f.m[1], &ub, NULL));
    OK(&f.dev, sb_opencl_ops.wait(&f.dev, SB_QINNER));
    reference(&f, 0, &ub);
    expect_equal(&f, 1, "update through staggered arrays");
    fx_end(&f);
}
END_TEST

static const char src_2d4[] =
    "__kernel void stencil_update(__global const real_t *in, __global real_t *out, long lo0,\n"
    "    long lo1, long lo2, long n0, long n1, long n2, long s0, long s1)\n"
    "{\n"
    "    long k = get_global_id(0);\n"
    "    if (k >= n2) return;\n"
    "    long c = (lo0 + (long)get_global_id(2)) * s0 + (lo1 + (long)get_global_id(1)) * s1\n"
    "             + lo2 + k;\n"
    "    real_t acc = in[c - s0];\n"
    "    acc = acc + in[c - s1];\n"
    "    acc = acc + in[c + s1];\n"
    "    acc = acc + in[c + s0];\n"
    "    out[c] = acc / (real_t)4;\n"
    "}\n";

static const char src_3d7[] =
    "__kernel void stencil_update(__global const real_t *in, __global real_t *out, long lo0,\n"
    "    long lo1, long lo2, long n0, long n1, long n2, long s0, long s1)\n"
    "{\n"
    "    long k = get_global_id(0);\n"
    "    if (k >= n2) return;\n"
    "    long c = (lo0 + (long)get_global_id(2)) * s0 + (lo1 + (long)get_global_id(1)) * s1\n"
    "             + lo2 + k;\n"
    "    real_t acc = in[c - s0];\n"
    "    acc = acc + in[c - s1];\n"
    "    acc = acc + in[c - 1];\n"
    "    acc = acc + in[c + 1];\n"
    "    acc = acc + in[c + s1];\n"
    "    acc = acc + in[c + s0];\n"
    "    out[c] = acc / (real_t)6;\n"
    "}\n";

/* Opted in to the rounded launch: every id checked (a 2D box rounds dimension 1 up). */
static const char src_2d4_all[] =
    "#define STENCIL_ALL_IDS_CHECKED 1\n"
    "__kernel void stencil_update(__global const real_t *in, __global real_t *out, long lo0,\n"
    "    long lo1, long lo2, long n0, long n1, long n2, long s0, long s1)\n"
    "{\n"
    "    long k = get_global_id(0), j = get_global_id(1), i = get_global_id(2);\n"
    "    if (k >= n2 || j >= n1 || i >= n0) return;\n"
    "    long c = (lo0 + i) * s0 + (lo1 + j) * s1 + lo2 + k;\n"
    "    real_t acc = in[c - s0];\n"
    "    acc = acc + in[c - s1];\n"
    "    acc = acc + in[c + s1];\n"
    "    acc = acc + in[c + s0];\n"
    "    out[c] = acc / (real_t)4;\n"
    "}\n";

static void run_named(const char *set_name, const char *src, stencil_type t, const long *g)
{
    fixture f;
    stencil_kernel k;
    memset(&k, 0, sizeof k);
    REQ(stencil_set_get(stencil_set_find(set_name), t, &k.stencil) == 0);
    k.name = "test-named";
    k.opencl_source = src;
    fx_layout(&f, &k.stencil, g, 1);
    fx_start(&f, &k);
    ck_assert_int_eq(((ocl_impl *)f.dev.impl)->bounds_all,
                     strstr(src, "STENCIL_ALL_IDS_CHECKED") != NULL);
    sl_box ub = sl_local_box(&f.l, &f.l.update);
    OK(&f.dev, sb_opencl_ops.update(&f.dev, SB_QINNER, 1, f.m[0], f.m[1], &ub, NULL));
    reference(&f, 0, &ub);
    expect_equal(&f, 1, set_name);
    fx_end(&f);
}

START_TEST(named_kernels)
{
    long g2[2] = {41, 33}, g3[3] = {5, 4, 300}; /* n2 = 300 exceeds the work-group width */
    run_named("2d4", src_2d4, STENCIL_FLOAT, g2);
    run_named("2d4", src_2d4, STENCIL_DOUBLE, g2);
    run_named("2d4", src_2d4_all, STENCIL_FLOAT, g2);
    run_named("3d7", src_3d7, STENCIL_FLOAT, g3);
    run_named("3d7", src_3d7, STENCIL_DOUBLE, g3);
}
END_TEST

/* open must fail with code, leave a message and release everything. */
static void expect_open_error(const stencil_kernel *named, int device, int code, const char *text)
{
    fixture f;
    stencil_desc d;
    REQ(stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &d) == 0);
    fx_layout(&f, &d, sizes[2], 0);
    sb_open_args a = {.device = device, .local_size = 1, .st = &f.s, .named = named, .local = &f.l};
    int rc = sb_opencl_ops.open(&f.dev, &a);
    ck_assert_msg(rc == code, "open gave %d (%s), expected %d", rc, f.dev.err, code);
    ck_assert_msg(strstr(f.dev.err, text) != NULL, "'%s' lacks '%s'", f.dev.err, text);
    ck_assert_ptr_null(f.dev.impl);
    fx_end(&f);
}

START_TEST(device_errors)
{
    expect_open_error(NULL, 99, STENCIL_EINVAL, "out of range");
    setenv("STENCIL_OPENCL_DEVICE", "first", 1);
    expect_open_error(NULL, -1, STENCIL_EINVAL, "STENCIL_OPENCL_DEVICE");
    unsetenv("STENCIL_OPENCL_DEVICE");
    setenv("STENCIL_OPENCL_PLATFORM", "no-such-platform", 1);
    expect_open_error(NULL, -1, STENCIL_ENOBACKEND, "no-such-platform");
    unsetenv("STENCIL_OPENCL_PLATFORM");
    setenv("STENCIL_OPENCL_COPY", "fast", 1);
    expect_open_error(NULL, -1, STENCIL_EINVAL, "STENCIL_OPENCL_COPY");
    unsetenv("STENCIL_OPENCL_COPY");
}
END_TEST

START_TEST(build_errors)
{
    stencil_kernel k;
    memset(&k, 0, sizeof k);
    REQ(stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &k.stencil) == 0);
    k.name = "broken";
    k.opencl_source = "__kernel void stencil_update(__global real_t *in) { in[0] = oops; }\n";
    expect_open_error(&k, -1, STENCIL_EBUILD, "oops");
    k.opencl_source = "__kernel void other(__global float *x) { x[0] = 1; }\n";
    expect_open_error(&k, -1, STENCIL_EBUILD, "no kernel stencil_update");
    k.opencl_source = NULL;
    expect_open_error(&k, -1, STENCIL_ENOKERNEL, "no OpenCL source");
}
END_TEST

/* open reports the OpenCL compiler's time (stats.t_compile), never 0: a cached build takes some. */
START_TEST(compile_time)
{
    fixture f;
    stencil_desc d;
    REQ(stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &d) == 0);
    fx_layout(&f, &d, sizes[2], 0);
    OK(&f.dev, fx_open(&f, NULL));
    ck_assert_msg(f.dev.t_compile > 0 && f.dev.t_compile < 600, "t_compile %g", f.dev.t_compile);
    fx_end(&f);
}
END_TEST

int main(void)
{
    /* These tests pick devices themselves: the caller's choices must not interfere. */
    unsetenv("STENCIL_OPENCL_DEVICE");
    unsetenv("STENCIL_OPENCL_COPY");
    Suite *s = suite_create("opencl");
    TCase *tc = tcase_create("backend");
    tcase_set_timeout(tc, 120);
    int n = stencil_set_count();
    tcase_add_loop_test(tc, stencils_float, 0, 2 * n);
    tcase_add_loop_test(tc, stencils_double, 0, 2 * (int)(sizeof double_set / sizeof *double_set));
    tcase_add_loop_test(tc, odd_weights, 0, 12);
    tcase_add_loop_test(tc, join_orders_queues, 0, 2);
    tcase_add_test(tc, cpu_arrays_staggered);
    tcase_add_test(tc, named_kernels);
    tcase_add_test(tc, compile_time);
    tcase_add_test(tc, device_errors);
    tcase_add_test(tc, build_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
