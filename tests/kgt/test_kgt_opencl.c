/*
 * kgt's OpenCL sources run on the OpenCL device (PoCL in CI) exactly as the backend's named
 * kernel contract says (backends/opencl/opencl.c): built with -Dreal_t and -DSTENCIL_DOUBLE,
 * global size (n2 rounded up, n1, n0). The results must equal the generated host kernels
 * bitwise; test_kgt_host proves those equal to the serial reference. The global size is also
 * rounded up in dimensions 1 and 2, which the generated kernels guard against as well.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "kgt_set.h"
#include "stencil_set.h"
#include "testutil.h"

static const char *const golden_names[] = {"heat2d", "wave-1d", "inexact", "negated",
                                           "tiny",   "box3d",   "star6"};
#define NGOLDEN ((int)(sizeof golden_names / sizeof golden_names[0]))

typedef struct ocl {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    int fp64, crdiv;
} ocl;

static ocl cl;

static void ocl_open(void)
{
    cl_platform_id plat;
    cl_uint n = 0;
    cl_int err;
    cl_device_fp_config fp = 0;
    ck_assert_int_eq(clGetPlatformIDs(1, &plat, &n), CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &cl.dev, &n), CL_SUCCESS);
    cl.ctx = clCreateContext(NULL, 1, &cl.dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl.q = clCreateCommandQueue(cl.ctx, cl.dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clGetDeviceInfo(cl.dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
    cl.fp64 = fp != 0;
    fp = 0;
    clGetDeviceInfo(cl.dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    /* The backend asks for correctly rounded float division where the device offers it. */
    cl.crdiv = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
}

/* Every kernel's name, set first: kernel i of the programs below is kgt_k<i>. */
static const char *kernel_name(int i)
{
    int nset = stencil_set_count();
    return i < nset ? stencil_set_name(i) : golden_names[i - nset];
}

static cl_program prog[2];

/*
 * One program per element type holding every generated source, each kernel renamed by a macro:
 * a build per stencil would cost PoCL a second each.
 */
static cl_program build_all(int dbl)
{
    int n = stencil_set_count() + NGOLDEN;
    size_t len = 1;
    char *src, opts[128], log[4096] = "";
    cl_int err;
    cl_program p;
    for (int i = 0; i < n; i++)
        len += strlen(stencil_find_kernel(kernel_name(i))->opencl_source) + 80;
    ck_assert_ptr_nonnull(src = malloc(len));
    src[0] = '\0';
    for (int i = 0; i < n; i++)
        sprintf(src + strlen(src), "#define stencil_update kgt_k%d\n%s\n#undef stencil_update\n", i,
                stencil_find_kernel(kernel_name(i))->opencl_source);
    p = clCreateProgramWithSource(cl.ctx, 1, (const char **)&src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    snprintf(opts, sizeof opts, "-Dreal_t=%s -DSTENCIL_DOUBLE=%d%s", dbl ? "double" : "float", dbl,
             cl.crdiv ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
    err = clBuildProgram(p, 1, &cl.dev, opts, NULL, NULL);
    if (err != CL_SUCCESS)
        clGetProgramBuildInfo(p, cl.dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    ck_assert_msg(err == CL_SUCCESS, "build failed: %s", log);
    free(src);
    return p;
}

static cl_kernel get_kernel(int i, int dbl)
{
    char name[32];
    cl_int err;
    cl_kernel k;
    snprintf(name, sizeof name, "kgt_k%d", i);
    k = clCreateKernel(prog[dbl], name, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return k;
}

typedef struct box {
    long lo[3], hi[3], stride[3], n;
} box;

/* The box with a margin of radius + 1 cells; rows padded, innermost stride 1. */
static box make_box(const stencil_desc *st)
{
    static const long size[3][3] = {{45, 1, 1}, {12, 19, 1}, {6, 7, 9}};
    box b;
    long ext[3];
    for (int d = 0; d < 3; d++) {
        int used = d < st->ndims;
        b.lo[d] = used ? st->radius_lo[d] + 1 : 0;
        b.hi[d] = b.lo[d] + size[st->ndims - 1][d];
        ext[d] = used ? b.hi[d] + st->radius_hi[d] + 1 : 1;
    }
    b.stride[2] = 1;
    b.stride[1] = st->ndims == 3 ? ext[2] + 1 : 1;
    b.stride[0] = st->ndims == 1 ? 1 : b.stride[1] * ext[1] + 3;
    b.n = b.stride[0] * ext[0];
    return b;
}

static void fill(char *a, int dbl, long n, unsigned long seed)
{
    for (long i = 0; i < n; i++) {
        double v = tu_random(seed, i) * (double)(1L << (i % 5));
        if (dbl)
            ((double *)a)[i] = v;
        else
            ((float *)a)[i] = (float)v;
    }
}

static void run_device(cl_kernel kern, const box *b, const char *in, char *out, size_t bytes)
{
    cl_int err;
    cl_mem mi =
        clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)in, &err);
    cl_mem mo = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, out, &err);
    cl_long a[8] = {b->lo[0],
                    b->lo[1],
                    b->lo[2],
                    b->hi[0] - b->lo[0],
                    b->hi[1] - b->lo[1],
                    b->hi[2] - b->lo[2],
                    b->stride[0],
                    b->stride[1]};
    size_t g[3] = {(size_t)(a[5] + 15) / 16 * 16, (size_t)a[4] + 1, (size_t)a[3] + 2};
    ck_assert_int_eq(err, CL_SUCCESS);
    err = clSetKernelArg(kern, 0, sizeof mi, &mi) | clSetKernelArg(kern, 1, sizeof mo, &mo);
    for (int i = 0; i < 8; i++) err |= clSetKernelArg(kern, (cl_uint)(2 + i), sizeof a[i], &a[i]);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(cl.q, kern, 3, NULL, g, NULL, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(cl.q, mo, CL_TRUE, 0, bytes, out, 0, NULL, NULL),
                     CL_SUCCESS);
    clReleaseMemObject(mi);
    clReleaseMemObject(mo);
}

static void check_kernel(int i, int dbl)
{
    const char *name = kernel_name(i);
    const stencil_kernel *k = stencil_find_kernel(name);
    box b;
    size_t bytes;
    char *in, *dev, *host;
    ck_assert_msg(k && k->opencl_source && k->host[dbl], "%s: missing parts", name);
    if (dbl && !cl.fp64) return; /* nothing to compare on a device without doubles */
    b = make_box(&k->stencil);
    bytes = (dbl ? sizeof(double) : sizeof(float)) * (size_t)b.n;
    in = malloc(bytes);
    dev = malloc(bytes);
    host = malloc(bytes);
    ck_assert(in && dev && host);
    fill(in, dbl, b.n, 21u);
    fill(dev, dbl, b.n, 22u);
    memcpy(host, dev, bytes);
    cl_kernel kern = get_kernel(i, dbl);
    run_device(kern, &b, in, dev, bytes);
    clReleaseKernel(kern);
    k->host[dbl](in, host, b.lo, b.hi, b.stride);
    ck_assert_msg(memcmp(dev, host, bytes) == 0, "%s (%s): OpenCL differs from host", name,
                  dbl ? "double" : "float");
    free(in);
    free(dev);
    free(host);
}

static void setup(void)
{
    ck_assert_int_eq(kgt_set_register(), 0);
    ck_assert_int_eq(golden_register(), 0);
    ocl_open();
    prog[0] = build_all(0);
    if (cl.fp64) prog[1] = build_all(1);
}

START_TEST(test_kernel)
{
    check_kernel(_i / 2, _i % 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kgt-opencl");
    TCase *tc = tcase_create("opencl");
    SRunner *sr;
    int failed;
    /* One process for all: an OpenCL context per forked test would dominate the run time. */
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_kernel, 0, 2 * (stencil_set_count() + NGOLDEN));
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
