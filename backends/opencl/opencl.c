/*
 * The OpenCL backend (OpenCL 1.2 API through the ICD loader; PoCL in CI, NVIDIA on the GPU host).
 *
 * NAMED KERNEL CONTRACT. stencil_kernel.opencl_source is OpenCL C defining
 *
 *   __kernel void stencil_update(__global const real_t *in, __global real_t *out,
 *                                long lo0, long lo1, long lo2, long n0, long n1, long n2,
 *                                long s0, long s1)
 *
 * It is compiled with -Dreal_t=float|double -DSTENCIL_DOUBLE=0|1 (and
 * -cl-fp32-correctly-rounded-divide-sqrt where the device supports it) after a prologue of
 * `#pragma OPENCL FP_CONTRACT OFF`, plus `#pragma OPENCL EXTENSION cl_khr_fp64 : enable` for
 * double; `#line 1` precedes the source so build logs give its own line numbers. It is launched
 * over an NDRange of global size (n2 rounded up to the work-group width, n1, n0): the work-item
 * (gid0, gid1, gid2) updates cell (lo0 + gid2, lo1 + gid1, lo2 + gid0) of the local array, in
 * local indices with dimension 0 slowest, at linear index i * s0 + j * s1 + k (the innermost
 * stride is 1; unused dimensions have lo = 0, n = 1), reading `in` and writing `out`. It must
 * return when gid0 >= n2, and must follow the arithmetic contract of backends/backend.h.
 * Global sizes 1 and 2 are exact, so for a box whose n2 is smaller than the work-group width
 * (every 1D and 2D box) the runtime picks the work-group shape, which can be slow on GPUs.
 * A source that also returns when gid1 >= n1 or gid2 >= n0 says so by containing the word
 * STENCIL_ALL_IDS_CHECKED (e.g. `#define STENCIL_ALL_IDS_CHECKED 1`); it is then launched like the
 * generic kernel (kernels/generic.cl, same signature, all ids checked): the work-group lies along
 * the innermost dimension with more than one cell (dimension 1 of a 2D box) and that global size
 * is rounded up to it, while the others stay exact.
 *
 * Queues: three in-order queues (border, inner, transfers); join() puts a marker on each and a
 * barrier waiting on the others' markers, so neither the host nor the device idles while they
 * synchronise. Kernels meant for the border queue (border updates, packing of outgoing halos) are
 * enqueued on the inner queue, ahead of the inner update, and the border queue waits for them
 * (ocl_launch_routed, ocl_launch.c): OpenCL has no queue priorities, and when the driver started
 * the inner update first, NVIDIA's OpenCL ran the border kernels only after it, so the halos left a
 * whole inner update late (docs/performance-notes.md, OpenCL). That is the default on GPUs; CPU
 * devices keep them on the border queue (STENCIL_OPENCL_BORDER=inner|own chooses).
 *
 * Environment: STENCIL_OPENCL_PLATFORM, STENCIL_OPENCL_DEVICE (see ocl_device.c),
 * STENCIL_OPENCL_WG (update work-group width, default 256), STENCIL_OPENCL_COPY=rect|pack (how
 * non-contiguous boxes move; default rect on CPU devices, pack elsewhere; see ocl_copy.c),
 * STENCIL_OPENCL_WALK (cells of dimension 0 per work-item of the generic kernel; default 4 on CPU
 * devices, 8 elsewhere; see ocl_build.c), STENCIL_OPENCL_BORDER=inner|own (which queue runs the
 * border kernels; default inner on GPUs, own on CPUs, see above).
 */
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

static void release_all(ocl_impl *o)
{
    for (int i = 0; i < SB_NQUEUES; i++) {
        if (o->q[i]) clFinish(o->q[i]);
        if (o->last[i]) clReleaseEvent(o->last[i]);
    }
    for (int i = 0; i < o->nstamps && o->stamp; i++)
        if (o->stamp[i]) clReleaseEvent(o->stamp[i]);
    free(o->stamp);
    while (o->pinned) {
        ocl_pinned *p = o->pinned;
        o->pinned = p->next;
        clEnqueueUnmapMemObject(o->q[SB_QBORDER], p->mem, p->ptr, 0, NULL, NULL);
        clFinish(o->q[SB_QBORDER]);
        clReleaseMemObject(p->mem);
        free(p);
    }
    for (int i = 0; i < SB_NQUEUES; i++)
        if (o->scratch[i]) clReleaseMemObject(o->scratch[i]);
    ocl_norm_free(o);
    ocl_prog_free(o);
    cl_kernel ks[4] = {o->update, o->pack, o->unpack, o->copybox};
    for (int i = 0; i < 4; i++)
        if (ks[i]) clReleaseKernel(ks[i]);
    if (o->prog) clReleaseProgram(o->prog);
    for (int i = 0; i < SB_NQUEUES; i++)
        if (o->q[i]) clReleaseCommandQueue(o->q[i]);
    if (o->ctx) clReleaseContext(o->ctx);
}

static void ocl_close(sb_dev *dev)
{
    if (dev->impl) {
        release_all(dev->impl);
        free(dev->impl);
    }
    dev->impl = NULL;
}

static int make_queues(sb_dev *dev, ocl_impl *o)
{
    cl_int err;
    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM, (cl_context_properties)o->platform, 0};
    o->ctx = clCreateContext(props, 1, &o->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clCreateContext");
    /* Profiling only when tracing: it may cost every command a little. */
    cl_command_queue_properties qp = o->nstamps ? CL_QUEUE_PROFILING_ENABLE : 0;
    for (int i = 0; i < SB_NQUEUES; i++) {
        o->q[i] = clCreateCommandQueue(o->ctx, o->device, qp, &err);
        if (err != CL_SUCCESS) return ocl_fail(dev, err, "clCreateCommandQueue");
    }
    return 0;
}

/* Environment variable `name` set to word a (*which = 0) or b (1); left alone when unset or
   empty; anything else fails. */
static int env_choice(sb_dev *dev, const char *name, const char *a, const char *b, int *which)
{
    const char *env = getenv(name);
    if (!env || !*env) return 0;
    if (strcmp(env, a) == 0 || strcmp(env, b) == 0) {
        *which = strcmp(env, b) == 0;
        return 0;
    }
    return sb_fail(dev, STENCIL_EINVAL, "OpenCL: %s=%s is not %s or %s", name, env, a, b);
}

/*
 * Choices that depend on whether the device is a CPU, each with its environment override:
 * - STENCIL_OPENCL_COPY: rect on CPU devices (a rectangle is a memcpy loop there; see
 *   docs/performance-notes.md), pack on the others (one kernel and one DMA instead of one per row);
 * - STENCIL_OPENCL_BORDER: own on CPU devices (PoCL on the GPU host's CPU ran its updates several
 *   times slower with the border kernels on the inner queue), inner on the others;
 * - STENCIL_OPENCL_STAGGER=0: no staggered arrays (ocl_mem.c), which only CPU devices get.
 */
static int pick_modes(sb_dev *dev, ocl_impl *o)
{
    cl_device_type t = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    o->cpu = (t & CL_DEVICE_TYPE_CPU) != 0;
    o->copy_mode = o->cpu ? OCL_COPY_RECT : OCL_COPY_PACK;
    o->route = !o->cpu;
    const char *st = getenv("STENCIL_OPENCL_STAGGER");
    o->stagger = o->cpu && !(st && strcmp(st, "0") == 0);
    int pack = o->copy_mode == OCL_COPY_PACK;
    int rc = env_choice(dev, "STENCIL_OPENCL_COPY", "rect", "pack", &pack);
    o->copy_mode = pack ? OCL_COPY_PACK : OCL_COPY_RECT;
    if (!rc) {
        int own = !o->route;
        rc = env_choice(dev, "STENCIL_OPENCL_BORDER", "inner", "own", &own);
        o->route = !own;
    }
    return rc;
}

static int ocl_open(sb_dev *dev, const sb_open_args *a)
{
    if (!a || !a->st || !a->local)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: open needs a stencil and a local layout");
    ocl_impl *o = calloc(1, sizeof *o);
    if (!o) return sb_fail(dev, STENCIL_ENOMEM, "OpenCL: out of memory");
    dev->impl = o;
    o->type = a->st->type;
    o->es = sb_elem_size(o->type);
    o->bounds_all = !a->named || (a->named->opencl_source &&
                                  strstr(a->named->opencl_source, "STENCIL_ALL_IDS_CHECKED"));
    memcpy(o->stride, a->local->stride, sizeof o->stride);
    o->kprog = a->prog;
    memcpy(o->origin, a->origin, sizeof o->origin);
    if (a->prog && a->named) {
        ocl_close(dev);
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: a program run takes no named kernel");
    }
    o->nstamps = a->stamps > 0 ? a->stamps : 0;
    o->stamp = o->nstamps ? calloc((size_t)o->nstamps, sizeof *o->stamp) : NULL;
    if (o->nstamps && !o->stamp) {
        ocl_close(dev);
        return sb_fail(dev, STENCIL_ENOMEM, "OpenCL: out of memory");
    }
    int rc = ocl_pick_device(dev, o, a);
    if (!rc) rc = make_queues(dev, o);
    if (!rc) rc = ocl_build(dev, o, a);
    if (!rc) rc = pick_modes(dev, o);
    if (!rc) {
        cl_uint bits = 0;
        clGetDeviceInfo(o->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof o->max_alloc, &o->max_alloc,
                        NULL);
        clGetDeviceInfo(o->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
        o->base_align = bits / 8;
    }
    if (rc) ocl_close(dev);
    return rc;
}

/* Pinned host memory: a host-allocated buffer, mapped once for the host's whole use of it. */
static int ocl_host_alloc(sb_dev *dev, size_t bytes, void **p)
{
    ocl_impl *o = dev->impl;
    ocl_pinned *pin = calloc(1, sizeof *pin);
    if (!pin) return sb_fail(dev, STENCIL_ENOMEM, "OpenCL: out of memory");
    cl_int err;
    size_t n = bytes ? bytes : 1;
    pin->mem = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
    if (err != CL_SUCCESS) {
        free(pin);
        return ocl_fail(dev, err, "clCreateBuffer (pinned)");
    }
    pin->ptr = clEnqueueMapBuffer(o->q[SB_QBORDER], pin->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                  0, n, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(pin->mem);
        free(pin);
        return ocl_fail(dev, err, "clEnqueueMapBuffer");
    }
    pin->next = o->pinned;
    o->pinned = pin;
    *p = pin->ptr;
    return 0;
}

static void ocl_host_free(sb_dev *dev, void *p)
{
    ocl_impl *o = dev->impl;
    for (ocl_pinned **pp = &o->pinned; *pp; pp = &(*pp)->next) {
        ocl_pinned *pin = *pp;
        if (pin->ptr != p) continue;
        *pp = pin->next;
        /* Copies from either queue may still read it: let them finish first. */
        clFinish(o->q[SB_QINNER]);
        clEnqueueUnmapMemObject(o->q[SB_QBORDER], pin->mem, pin->ptr, 0, NULL, NULL);
        clFinish(o->q[SB_QBORDER]);
        clReleaseMemObject(pin->mem);
        free(pin);
        return;
    }
}

/* Whole-array transfers: blocking, after everything queued on the border and inner queues
   (the copy queue serves only out-of-core sweeps, which make no whole-array transfers). */
static int ocl_xfer(sb_dev *dev, sb_mem m, void *buf, size_t bytes, int out)
{
    ocl_impl *o = dev->impl;
    cl_int err = clFinish(o->q[SB_QINNER]);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clFinish");
    if (out)
        err = clEnqueueReadBuffer(o->q[SB_QBORDER], m, CL_TRUE, 0, bytes, buf, 0, NULL, NULL);
    else
        err = clEnqueueWriteBuffer(o->q[SB_QBORDER], m, CL_TRUE, 0, bytes, buf, 0, NULL, NULL);
    return err == CL_SUCCESS
               ? 0
               : ocl_fail(dev, err, out ? "clEnqueueReadBuffer" : "clEnqueueWriteBuffer");
}

static int ocl_write(sb_dev *dev, sb_mem m, const void *src, size_t bytes)
{
    return ocl_xfer(dev, m, (void *)src, bytes, 0);
}

static int ocl_read(sb_dev *dev, sb_mem m, void *dst, size_t bytes)
{
    return ocl_xfer(dev, m, dst, bytes, 1);
}

static int ocl_update(sb_dev *dev, int q, sb_mem in, sb_mem out, const sl_box *b)
{
    ocl_impl *o = dev->impl;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", q);
    if (o->kprog)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: a program run has no stencil update");
    if (sl_box_empty(b)) return 0;
    cl_mem mi = in, mo = out;
    cl_long a[8] = {b->lo[0],
                    b->lo[1],
                    b->lo[2],
                    b->hi[0] - b->lo[0],
                    b->hi[1] - b->lo[1],
                    b->hi[2] - b->lo[2],
                    o->stride[0],
                    o->stride[1]};
    cl_int err = clSetKernelArg(o->update, 0, sizeof mi, &mi);
    err |= clSetKernelArg(o->update, 1, sizeof mo, &mo);
    for (int i = 0; i < 8; i++)
        err |= clSetKernelArg(o->update, (cl_uint)(2 + i), sizeof a[i], &a[i]);
    if (err != CL_SUCCESS)
        return sb_fail(
            dev, STENCIL_EDEVICE,
            "OpenCL: clSetKernelArg failed: stencil_update must take (in, out, 8 longs)");
    size_t n[3] = {(size_t)a[5], (size_t)a[4], (size_t)a[3]};
    /* The generic kernel walks OCL_WALK cells of dimension 0 per work-item (generic.cl). */
    if (o->walk > 1) n[2] = (n[2] + (size_t)o->walk - 1) / (size_t)o->walk;
    return ocl_launch_routed(dev, q, o->update, n, o->wg, o->bounds_all, 0, "stencil_update");
}

static int ocl_flush(sb_dev *dev, int q)
{
    ocl_impl *o = dev->impl;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", q);
    cl_int err = clFlush(o->q[q]);
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, "clFlush");
}

static int ocl_wait(sb_dev *dev, int q)
{
    ocl_impl *o = dev->impl;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", q);
    cl_int err = clFinish(o->q[q]);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clFinish");
    ocl_next_event(o, q);
    return 0;
}

/* A marker on each queue, then on each a barrier on the others' markers; all flushed, since a
   queue waiting on another queue's event needs that event's commands submitted. */
static int ocl_join(sb_dev *dev)
{
    ocl_impl *o = dev->impl;
    cl_event m[SB_NQUEUES] = {NULL}, others[SB_NQUEUES - 1];
    cl_int err = CL_SUCCESS;
    const char *call = "clEnqueueMarkerWithWaitList";
    for (int i = 0; i < SB_NQUEUES && err == CL_SUCCESS; i++)
        err = clEnqueueMarkerWithWaitList(o->q[i], 0, NULL, &m[i]);
    for (int i = 0; i < SB_NQUEUES && err == CL_SUCCESS; i++) {
        cl_uint n = 0;
        for (int j = 0; j < SB_NQUEUES; j++)
            if (j != i) others[n++] = m[j];
        call = "clEnqueueBarrierWithWaitList";
        err = clEnqueueBarrierWithWaitList(o->q[i], n, others, ocl_next_event(o, i));
    }
    for (int i = 0; i < SB_NQUEUES && err == CL_SUCCESS; i++) {
        call = "clFlush";
        err = clFlush(o->q[i]);
    }
    for (int i = 0; i < SB_NQUEUES; i++)
        if (m[i]) clReleaseEvent(m[i]);
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, call);
}

/* A marker on `from`, flushed, and a barrier on q that waits for it. */
static int ocl_after(sb_dev *dev, int q, int from)
{
    ocl_impl *o = dev->impl;
    if (q < 0 || q >= SB_NQUEUES || from < 0 || from >= SB_NQUEUES)
        return sb_fail(dev, STENCIL_EINVAL, "opencl: bad queue");
    if (q == from) return 0;
    cl_event m = NULL;
    const char *call = "clEnqueueMarkerWithWaitList";
    cl_int err = clEnqueueMarkerWithWaitList(o->q[from], 0, NULL, &m);
    if (err == CL_SUCCESS) call = "clFlush", err = clFlush(o->q[from]);
    if (err == CL_SUCCESS)
        call = "clEnqueueBarrierWithWaitList",
        err = clEnqueueBarrierWithWaitList(o->q[q], 1, &m, ocl_next_event(o, q));
    if (m) clReleaseEvent(m);
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, call);
}

/* Busy while the queue's latest command is not complete (in-order: then nothing before it is). */
static int ocl_busy(sb_dev *dev, int q)
{
    ocl_impl *o = dev->impl;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", q);
    if (!o->last[q]) return 0;
    cl_int st = CL_COMPLETE;
    cl_int err =
        clGetEventInfo(o->last[q], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clGetEventInfo");
    if (st < 0)
        return sb_fail(dev, STENCIL_EDEVICE, "OpenCL: queue %d: a command failed: %s (%d)", q,
                       ocl_errname(st), (int)st);
    return st != CL_COMPLETE;
}

/* A marker per slot: it completes when everything before it on the in-order queue has. */
static int ocl_stamp(sb_dev *dev, int q, int slot)
{
    ocl_impl *o = dev->impl;
    if (q < 0 || q >= SB_NQUEUES || slot < 0 || slot >= o->nstamps)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: stamp slot %d of %d on queue %d", slot,
                       o->nstamps, q);
    if (o->stamp[slot]) clReleaseEvent(o->stamp[slot]);
    o->stamp[slot] = NULL;
    cl_int err = clEnqueueMarkerWithWaitList(o->q[q], 0, NULL, &o->stamp[slot]);
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, "clEnqueueMarkerWithWaitList");
}

/* The end of a marker is when the device got past that point of the queue. */
static int ocl_stamp_read(sb_dev *dev, int n, double *sec)
{
    ocl_impl *o = dev->impl;
    cl_ulong t0 = 0, t = 0;
    if (n < 0 || n > o->nstamps)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: %d stamps read of %d", n, o->nstamps);
    for (int i = 0; i < n; i++) {
        if (!o->stamp[i]) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: slot %d not stamped", i);
        cl_int err =
            clGetEventProfilingInfo(o->stamp[i], CL_PROFILING_COMMAND_END, sizeof t, &t, NULL);
        if (err != CL_SUCCESS) return ocl_fail(dev, err, "clGetEventProfilingInfo");
        if (i == 0) t0 = t;
        sec[i] = t >= t0 ? 1e-9 * (double)(t - t0) : -1e-9 * (double)(t0 - t);
    }
    return 0;
}

/* One step per call only (multi-step kernels are not written for OpenCL: fuse_depth 0). */
static int ocl_updatek(sb_dev *dev, int q, int k, sb_mem in, sb_mem out, const sl_box *b,
                       const sl_box *live)
{
    (void)live;
    if (k == 1) return ocl_update(dev, q, in, out, b);
    return sb_fail(dev, STENCIL_ENOSYS, "opencl: no %d-step kernel", k);
}

static int ocl_fuse_depth(const sl_stencil *st, const stencil_kernel *named)
{
    (void)st, (void)named;
    return 0;
}

const sb_ops sb_opencl_ops = {
    .name = "opencl",
    .open = ocl_open,
    .close = ocl_close,
    .mem_alloc = ocl_mem_alloc,
    .mem_free = ocl_mem_free,
    .host_alloc = ocl_host_alloc,
    .host_free = ocl_host_free,
    .write = ocl_write,
    .read = ocl_read,
    .update = ocl_updatek,
    .fuse_depth = ocl_fuse_depth,
    .copy_out = ocl_copy_out,
    .copy_in = ocl_copy_in,
    .flush = ocl_flush,
    .wait = ocl_wait,
    .join = ocl_join,
    .after = ocl_after,
    .busy = ocl_busy,
    .stamp = ocl_stamp,
    .stamp_read = ocl_stamp_read,
    .async = 1,
    .ipc_export = ocl_ipc_export,
    .ipc_open = ocl_ipc_open,
    .ipc_close = ocl_ipc_close,
    .copy_peer = ocl_copy_peer,
    .peer_default = 1,
    .auto_try = 0,
    .norm = ocl_norm,
    .prog_update = ocl_prog_update,
};
