/*
 * Run-time kernel builds. The walk kernel (kernels/generic.cl) gets the call's stencil as a
 * prologue that kgt's emitters write (backends/gen.h): the whole expression of a cell, its terms
 * in row-major order with the weights as exact hex literals of the element type. Every program
 * is built with FP_CONTRACT OFF and correctly rounded single-precision division: the arithmetic
 * contract of backends/backend.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen.h"
#include "ocl.h"

/* Copies the head of a failed build's log into dev->err. */
static int build_log(sb_dev *dev, ocl_impl *o, cl_program prog, const char *what)
{
    size_t n = 0;
    clGetProgramBuildInfo(prog, o->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    if (!log) return sb_fail(dev, STENCIL_EBUILD, "OpenCL: %s failed to build (no log)", what);
    log[0] = 0;
    clGetProgramBuildInfo(prog, o->device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    log[n] = 0;
    for (char *c = log; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    int rc = sb_fail(dev, STENCIL_EBUILD, "OpenCL: %s failed to build: %s", what, log);
    free(log);
    return rc;
}

/*
 * Builds the n sources as one program; on success *out holds it. A failed build is tried once
 * more before it is reported: PoCL's kernel cache, which every process of a node shares, can fail
 * a build while another process writes the same entry, and a second build then finds it whole
 * (PoCL issues 430 and 1480: several MPI ranks of one node building the same source at once).
 * A source that does not compile fails both times with the same log.
 */
int ocl_build_program(sb_dev *dev, ocl_impl *o, const char **srcs, cl_uint n, const char *opts,
                      const char *what, cl_program *out)
{
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;
    for (int tries = 0; tries < 2; tries++) {
        struct timespec t0, t1;
        if (p) clReleaseProgram(p);
        p = clCreateProgramWithSource(o->ctx, n, srcs, NULL, &err);
        if (err != CL_SUCCESS) return ocl_fail(dev, err, "clCreateProgramWithSource");
        clock_gettime(CLOCK_MONOTONIC, &t0);
        err = clBuildProgram(p, 1, &o->device, opts, NULL, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        /* stats.t_compile: the OpenCL compiler's time, as NVRTC's on CUDA (short when it
           cached). */
        dev->t_compile +=
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (err == CL_SUCCESS) {
            *out = p;
            return 0;
        }
    }
    int rc = err == CL_BUILD_PROGRAM_FAILURE ? build_log(dev, o, p, what)
                                             : ocl_fail(dev, err, "clBuildProgram");
    clReleaseProgram(p);
    return rc;
}

static int check_fp(sb_dev *dev, ocl_impl *o, int *crdiv)
{
    cl_device_fp_config fp = 0;
    if (o->type == STENCIL_DOUBLE) {
        clGetDeviceInfo(o->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
        if (!fp)
            return sb_fail(dev, STENCIL_ENOFP64,
                           "OpenCL: device '%s' has no double precision (cl_khr_fp64)", dev->name);
    }
    fp = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    /* Without the capability the option is not allowed; such a device's float division may then
       differ from the host's in the last bit (double division is always correctly rounded). */
    *crdiv = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    return 0;
}

/* One program per open (each build costs PoCL a quarter second even from its cache): the
   pragmas, the copy kernels, then the named source or the walk kernel's prologue and body. */
static int build_all(sb_dev *dev, ocl_impl *o, const sb_open_args *a, const char *opts)
{
    const char *head = o->type == STENCIL_DOUBLE ? "#pragma OPENCL FP_CONTRACT OFF\n"
                                                   "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                                                 : "#pragma OPENCL FP_CONTRACT OFF\n";
    const char *srcs[4] = {head, sb_ocl_src_copy, "#line 1\n", NULL};
    char what[96];
    if (a->prog) {
        /* The program's text carries its own pragmas per type (kgt_prog_emit_opencl). */
        char *src =
            ocl_prog_source(a->prog, a->local->nelems < (size_t)INT_MAX, o->kname, sizeof o->kname);
        if (!src) return sb_fail(dev, STENCIL_ENOMEM, "OpenCL: out of memory for the program");
        snprintf(what, sizeof what, "program '%s'", o->kname + 8);
        srcs[3] = src;
        o->walk = 1;
        int rc = ocl_build_program(dev, o, srcs, 4, opts, what, &o->prog);
        free(src);
        if (!rc) snprintf(dev->kernel, sizeof dev->kernel, "rtc");
        return rc;
    }
    if (a->named) {
        if (!a->named->opencl_source)
            return sb_fail(dev, STENCIL_ENOKERNEL, "kernel '%s' has no OpenCL source",
                           a->named->name);
        snprintf(what, sizeof what, "kernel '%s'", a->named->name);
        srcs[3] = a->named->opencl_source;
        o->walk = 1;
        return ocl_build_program(dev, o, srcs, 4, opts, what, &o->prog);
    }
    char *pro = sb_gen_opencl(a->st, a->local->nelems);
    if (!pro) return sb_fail(dev, STENCIL_ENOMEM, "OpenCL: out of memory for the kernel source");
    srcs[2] = pro;
    srcs[3] = sb_ocl_src_generic;
    char wopts[256];
    snprintf(wopts, sizeof wopts, "%s -DSTENCIL_WALK=%d", opts, o->walk);
    int rc = ocl_build_program(dev, o, srcs, 4, wopts, "run-time kernel", &o->prog);
    free(pro);
    if (!rc) snprintf(dev->kernel, sizeof dev->kernel, "rtc");
    return rc;
}

/* Cells of dimension 0 per work-item of the generic kernel: STENCIL_OPENCL_WALK, else OCL_WALK.
   On a GPU the walk keeps the inputs that neighbouring cells share in registers; PoCL vectorises
   the work-item loop instead, and there walks 4 and 8 tied on the 2-core CI machine while 8 was
   fastest on the GPU host's CPU (docs/performance-notes.md, OpenCL), so one default serves both. */
static int pick_walk(sb_dev *dev, ocl_impl *o)
{
    const char *env = getenv("STENCIL_OPENCL_WALK");
    o->walk = OCL_WALK;
    if (!env || !*env) return 0;
    char *end;
    long w = strtol(env, &end, 10);
    if (*end || w < 1 || w > 64)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: STENCIL_OPENCL_WALK=%s is not 1..64", env);
    o->walk = (int)w;
    return 0;
}

static int make_kernel(sb_dev *dev, cl_program p, const char *name, cl_kernel *k)
{
    cl_int err;
    *k = clCreateKernel(p, name, &err);
    if (err == CL_INVALID_KERNEL_NAME)
        return sb_fail(dev, STENCIL_EBUILD, "OpenCL: the source defines no kernel %s", name);
    return err != CL_SUCCESS ? ocl_fail(dev, err, "clCreateKernel") : 0;
}

/* Work-group widths: STENCIL_OPENCL_WG (else 256) for updates, 256 for copies, within what the
   device allows for each kernel. */
static int pick_wg(sb_dev *dev, ocl_impl *o)
{
    size_t max = 0;
    cl_int err = clGetKernelWorkGroupInfo(o->update, o->device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof max, &max, NULL);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clGetKernelWorkGroupInfo");
    const char *env = getenv("STENCIL_OPENCL_WG");
    long w = env && *env ? strtol(env, NULL, 10) : 256;
    if (w < 1)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: STENCIL_OPENCL_WG=%s is not a size", env);
    o->wg = (size_t)w < max ? (size_t)w : max;
    err = clGetDeviceInfo(o->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof o->max_item, o->max_item,
                          NULL);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clGetDeviceInfo");
    o->copy_wg = 256;
    cl_kernel ks[3] = {o->pack, o->unpack, o->copybox};
    for (int i = 0; i < 3; i++) {
        err = clGetKernelWorkGroupInfo(ks[i], o->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max,
                                       &max, NULL);
        if (err != CL_SUCCESS) return ocl_fail(dev, err, "clGetKernelWorkGroupInfo");
        o->copy_wg = max < o->copy_wg ? max : o->copy_wg;
    }
    return 0;
}

int ocl_build(sb_dev *dev, ocl_impl *o, const sb_open_args *a)
{
    int crdiv = 0;
    int rc = check_fp(dev, o, &crdiv);
    if (rc) return rc;
    int dbl = o->type == STENCIL_DOUBLE;
    char opts[192];
    snprintf(opts, sizeof opts, "-Dreal_t=%s -DSTENCIL_DOUBLE=%d -Delem_t=%s%s",
             dbl ? "double" : "float", dbl, dbl ? "ulong" : "uint",
             crdiv ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
    if (!a->named && !a->prog) rc = pick_walk(dev, o);
    if (!rc) rc = build_all(dev, o, a, opts);
    if (!rc) rc = make_kernel(dev, o->prog, a->prog ? o->kname : "stencil_update", &o->update);
    if (!rc) rc = make_kernel(dev, o->prog, "sb_pack", &o->pack);
    if (!rc) rc = make_kernel(dev, o->prog, "sb_unpack", &o->unpack);
    if (!rc) rc = make_kernel(dev, o->prog, "sb_copy_box", &o->copybox);
    return rc ? rc : pick_wg(dev, o);
}
