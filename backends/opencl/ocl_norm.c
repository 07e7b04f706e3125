/*
 * The norm of the change between two iterates (sb_ops.norm) on an OpenCL device: one launch of
 * OCL_NORM_GROUPS work-groups, each summing a grid-stride share of the box and reducing it in
 * local memory, then the partials read back and reduced on the host in double. Built on first
 * use, so a run that never asks for a norm compiles nothing more. Accumulates in double where
 * the device has fp64, else in float.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ocl.h"

#define OCL_NORM_WG     64
#define OCL_NORM_GROUPS 256

static const char norm_src[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#if NORM_FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "typedef double acc_t;\n"
    "#else\n"
    "typedef float acc_t;\n"
    "#endif\n"
    "__kernel void stencil_norm(__global const elem_t *a, __global const elem_t *b, long lo0,\n"
    "                           long lo1, long lo2, long n1, long n2, long s0, long s1,\n"
    "                           long total, __global acc_t *part, __local acc_t *ls,\n"
    "                           __local acc_t *lm)\n"
    "{\n"
    "    size_t l = get_local_id(0), w = get_local_size(0);\n"
    "    acc_t s = 0, m = 0;\n"
    "    for (long i = get_global_id(0); i < total; i += (long)get_global_size(0)) {\n"
    "        long k = i % n2, t = i / n2, j = t % n1, h = t / n1;\n"
    "        long at = (lo0 + h) * s0 + (lo1 + j) * s1 + lo2 + k;\n"
    "        acc_t d = (acc_t)a[at] - (acc_t)b[at];\n"
    "        s = s + d * d;\n"
    "        m = fmax(m, fabs(d));\n"
    "    }\n"
    "    ls[l] = s;\n"
    "    lm[l] = m;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t h = w / 2; h > 0; h /= 2) {\n"
    "        if (l < h) {\n"
    "            ls[l] = ls[l] + ls[l + h];\n"
    "            lm[l] = fmax(lm[l], lm[l + h]);\n"
    "        }\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (l == 0) {\n"
    "        part[2 * get_group_id(0)] = ls[0];\n"
    "        part[2 * get_group_id(0) + 1] = lm[0];\n"
    "    }\n"
    "}\n";

struct ocl_norm {
    cl_program prog;
    cl_kernel k;
    cl_mem part;
    size_t acc; /* bytes of one accumulator: 8 (fp64) or 4 */
};

void ocl_norm_free(ocl_impl *o)
{
    struct ocl_norm *n = o->norm;
    if (!n) return;
    if (n->part) clReleaseMemObject(n->part);
    if (n->k) clReleaseKernel(n->k);
    if (n->prog) clReleaseProgram(n->prog);
    free(n);
    o->norm = NULL;
}

static int norm_build(sb_dev *dev, ocl_impl *o)
{
    cl_device_fp_config fp = 0;
    cl_int err;
    struct ocl_norm *n = o->norm = calloc(1, sizeof *n);
    if (!n) return sb_fail(dev, STENCIL_ENOMEM, "OpenCL: no memory for the norm kernel");
    clGetDeviceInfo(o->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
    n->acc = fp ? 8 : 4;
    char opts[96];
    snprintf(opts, sizeof opts, "-DNORM_FP64=%d -Delem_t=%s", fp ? 1 : 0,
             o->type == STENCIL_DOUBLE ? "double" : "float");
    const char *src = norm_src;
    int rc = ocl_build_program(dev, o, &src, 1, opts, "the norm kernel", &n->prog);
    if (rc) return rc;
    n->k = clCreateKernel(n->prog, "stencil_norm", &err);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clCreateKernel (norm)");
    n->part = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, 2 * OCL_NORM_GROUPS * n->acc, NULL, &err);
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, "clCreateBuffer (norm partials)");
}

static cl_int norm_args(ocl_impl *o, sb_mem a, sb_mem b, const sl_box *x)
{
    struct ocl_norm *n = o->norm;
    cl_mem ma = a, mb = b;
    cl_long v[8] = {
        x->lo[0],     x->lo[1],     x->lo[2],        x->hi[1] - x->lo[1], x->hi[2] - x->lo[2],
        o->stride[0], o->stride[1], sl_box_volume(x)};
    cl_int err = clSetKernelArg(n->k, 0, sizeof ma, &ma);
    err |= clSetKernelArg(n->k, 1, sizeof mb, &mb);
    for (int i = 0; i < 8; i++) err |= clSetKernelArg(n->k, (cl_uint)(2 + i), sizeof v[i], &v[i]);
    err |= clSetKernelArg(n->k, 10, sizeof n->part, &n->part);
    err |= clSetKernelArg(n->k, 11, OCL_NORM_WG * n->acc, NULL);
    err |= clSetKernelArg(n->k, 12, OCL_NORM_WG * n->acc, NULL);
    return err;
}

int ocl_norm(sb_dev *dev, sb_mem a, sb_mem b, const sl_box *box, double out[2])
{
    ocl_impl *o = dev->impl;
    out[0] = out[1] = 0;
    if (sl_box_empty(box)) return 0;
    if (!o->norm) {
        int rc = norm_build(dev, o);
        if (rc) return rc;
    }
    struct ocl_norm *n = o->norm;
    long groups = (sl_box_volume(box) + OCL_NORM_WG - 1) / OCL_NORM_WG;
    size_t local = OCL_NORM_WG,
           global = OCL_NORM_WG * (size_t)(groups < OCL_NORM_GROUPS ? groups : OCL_NORM_GROUPS);
    union {
        double d[2 * OCL_NORM_GROUPS];
        float f[2 * OCL_NORM_GROUPS];
    } p;
    cl_command_queue q = o->q[SB_QINNER];
    cl_int err = norm_args(o, a, b, box);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clSetKernelArg (norm)");
    err = clEnqueueNDRangeKernel(q, n->k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clEnqueueNDRangeKernel (norm)");
    err = clEnqueueReadBuffer(q, n->part, CL_TRUE, 0, 2 * (global / local) * n->acc, &p, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clEnqueueReadBuffer (norm)");
    for (size_t g = 0; g < global / local; g++) {
        double s = n->acc == 8 ? p.d[2 * g] : p.f[2 * g];
        double m = n->acc == 8 ? p.d[2 * g + 1] : p.f[2 * g + 1];
        out[0] = out[0] + s;
        if (m > out[1]) out[1] = m;
    }
    return 0;
}
