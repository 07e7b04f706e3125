/*
 * The OpenCL backend's launches, shared by the stencil, program, copy and peer kernels: each
 * command's event kept per queue (busy, join), and the routing of border-queue kernels onto the
 * inner queue (opencl.c, "Queues").
 */
#include "ocl.h"

cl_event *ocl_next_event(ocl_impl *o, int q)
{
    if (o->last[q]) clReleaseEvent(o->last[q]);
    o->last[q] = NULL;
    return &o->last[q];
}

int ocl_launch(sb_dev *dev, int q, cl_kernel k, const size_t n[3], size_t wg, int any_dim,
               const char *what)
{
    ocl_impl *o = dev->impl;
    int d = 0;
    if (any_dim)
        while (d < 2 && n[d] == 1) d++;
    size_t g[3] = {n[0], n[1], n[2]}, l[3] = {1, 1, 1};
    size_t w = wg < o->max_item[d] ? wg : o->max_item[d];
    int use_local = any_dim || g[d] >= w;
    if (use_local) {
        l[d] = w;
        g[d] = (g[d] + w - 1) / w * w;
    }
    cl_int err = clEnqueueNDRangeKernel(o->q[q], k, 3, NULL, g, use_local ? l : NULL, 0, NULL,
                                        ocl_next_event(o, q));
    return err == CL_SUCCESS ? 0
                             : sb_fail(dev, ocl_code(err), "OpenCL: launching %s failed: %s", what,
                                       ocl_errname(err));
}

int ocl_launch_routed(sb_dev *dev, int q, cl_kernel k, const size_t n[3], size_t wg, int any_dim,
                      int after_border, const char *what)
{
    ocl_impl *o = dev->impl;
    if (q != SB_QBORDER || !o->route) return ocl_launch(dev, q, k, n, wg, any_dim, what);
    cl_int err = CL_SUCCESS;
    if (after_border && o->last[q])
        err = clEnqueueBarrierWithWaitList(o->q[SB_QINNER], 1, &o->last[q], NULL);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clEnqueueBarrierWithWaitList");
    int rc = ocl_launch(dev, SB_QINNER, k, n, wg, any_dim, what);
    if (rc) return rc;
    /* Flushed now: the border queue may be waited on before the inner queue is flushed. */
    err = clFlush(o->q[SB_QINNER]);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clFlush");
    err = clEnqueueBarrierWithWaitList(o->q[q], 1, &o->last[SB_QINNER], ocl_next_event(o, q));
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, "clEnqueueBarrierWithWaitList");
}
