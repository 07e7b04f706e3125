/*
 * Device-to-device halos. OpenCL 1.2 has no way to share a buffer between processes, so a handle
 * names a buffer of this process and context only: ipc_open succeeds for the skeleton's own
 * links (a periodic dimension with one rank) and fails, with STENCIL_ENOSYS, for every other
 * process, whose links then fall back to host staging. copy_peer is one kernel, box to box.
 */
#include <string.h>
#include <unistd.h>

#include "ocl.h"

typedef struct ocl_handle {
    long pid;
    void *ctx;
    void *mem;
} ocl_handle;

int ocl_ipc_export(sb_dev *dev, sb_mem m, void *handle, size_t cap, size_t *len)
{
    ocl_impl *o = dev->impl;
    ocl_handle h = {(long)getpid(), o->ctx, m};
    if (cap < sizeof h) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: handle buffer too small");
    memcpy(handle, &h, sizeof h);
    *len = sizeof h;
    return 0;
}

int ocl_ipc_open(sb_dev *dev, const void *handle, size_t len, sb_mem *m)
{
    ocl_impl *o = dev->impl;
    ocl_handle h;
    if (len != sizeof h) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: not an OpenCL buffer handle");
    memcpy(&h, handle, sizeof h);
    if (h.pid != (long)getpid() || h.ctx != (void *)o->ctx)
        return sb_fail(dev, STENCIL_ENOSYS, "OpenCL: buffers cannot be shared between processes");
    cl_int err = clRetainMemObject((cl_mem)h.mem);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clRetainMemObject");
    *m = h.mem;
    return 0;
}

void ocl_ipc_close(sb_dev *dev, sb_mem m)
{
    (void)dev;
    if (m) clReleaseMemObject(m);
}

/* The offset of box b's first cell and its pitches (innermost first) for strides s. */
static void box_geometry(const sl_box *b, const long *s, cl_long *start, cl_long p[2])
{
    *start = b->lo[0] * s[0] + b->lo[1] * s[1] + b->lo[2] * s[2];
    p[0] = s[1];
    p[1] = s[0];
}

int ocl_copy_peer(sb_dev *dev, int q, sb_mem dst, const sl_box *db, const long *ds, sb_mem src,
                  const sl_box *sb, const long *ss)
{
    ocl_impl *o = dev->impl;
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", q);
    if (ds[2] != 1 || ss[2] != 1)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: copy_peer needs a unit innermost stride");
    long n = sl_box_volume(db);
    if (n != sl_box_volume(sb))
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: copy_peer boxes differ in size");
    if (!n) return 0;
    cl_long a[9], dp[2], sp[2];
    size_t c[3] = {(size_t)(db->hi[2] - db->lo[2]), (size_t)(db->hi[1] - db->lo[1]),
                   (size_t)(db->hi[0] - db->lo[0])};
    box_geometry(db, ds, &a[0], dp);
    box_geometry(sb, ss, &a[1], sp);
    a[2] = (cl_long)c[0], a[3] = (cl_long)c[1], a[4] = (cl_long)c[2];
    a[5] = dp[0], a[6] = dp[1], a[7] = sp[0], a[8] = sp[1];
    cl_mem md = dst, ms = src;
    cl_int err = clSetKernelArg(o->copybox, 0, sizeof md, &md);
    err |= clSetKernelArg(o->copybox, 1, sizeof ms, &ms);
    for (int i = 0; i < 9; i++)
        err |= clSetKernelArg(o->copybox, (cl_uint)(2 + i), sizeof a[i], &a[i]);
    if (err != CL_SUCCESS)
        return sb_fail(dev, STENCIL_EDEVICE, "OpenCL: clSetKernelArg failed for sb_copy_box");
    return ocl_launch(dev, q, o->copybox, c, o->copy_wg, 1, "sb_copy_box");
}
