/*
 * Device arrays. On CPU devices each array after the first is a sub-buffer placed so that its
 * host address lies half a page (OCL_STAGGER bytes modulo 4096) from the first array's.
 *
 * Why: a CPU device computes in host memory, and the update reads `in` and writes `out` at the
 * same index. When both arrays start at the same offset within a page (as fresh mmap'ed
 * allocations do), every store has the low 12 address bits of the loads around it, and the CPU's
 * store-to-load forwarding check takes them for dependent (4K aliasing). PoCL ran a first
 * stencil_skeleton() call in a process markedly slower than the following ones, enough to stall
 * mixed jobs on the GPU host (docs/performance-notes.md, OpenCL); later calls got recycled heap
 * memory at other offsets by chance.
 * STENCIL_OPENCL_STAGGER=0 turns it off.
 */
#include <stdint.h>

#include "ocl.h"

#define OCL_PAGE    4096
#define OCL_STAGGER 2048

/* The host address behind a CPU device's buffer: where mapping it points (no copy there). */
static int host_address(sb_dev *dev, ocl_impl *o, cl_mem m, uintptr_t *addr)
{
    cl_int err;
    void *p =
        clEnqueueMapBuffer(o->q[SB_QBORDER], m, CL_TRUE, CL_MAP_READ, 0, 1, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clEnqueueMapBuffer");
    *addr = (uintptr_t)p;
    err = clEnqueueUnmapMemObject(o->q[SB_QBORDER], m, p, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(o->q[SB_QBORDER]);
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, "clEnqueueUnmapMemObject");
}

/* The first array: remembered. A later one: the offset that puts it OCL_STAGGER from the first,
   modulo a page, or 0 when the device's sub-buffer alignment does not allow that offset. */
static int stagger_offset(sb_dev *dev, ocl_impl *o, cl_mem parent, size_t *off)
{
    uintptr_t a = 0;
    int rc = host_address(dev, o, parent, &a);
    *off = 0;
    if (rc) return rc;
    if (!o->first_addr) {
        o->first_addr = a;
        return 0;
    }
    size_t d = (size_t)((a - o->first_addr) % OCL_PAGE);
    size_t want = (OCL_STAGGER + OCL_PAGE - d) % OCL_PAGE;
    if (o->base_align && want % o->base_align == 0) *off = want;
    return 0;
}

int ocl_mem_alloc(sb_dev *dev, size_t bytes, sb_mem *m)
{
    ocl_impl *o = dev->impl;
    int stagger = o->stagger;
    size_t n = bytes ? bytes : 1, total = n + (stagger ? OCL_PAGE : 0), off = 0;
    if (o->max_alloc && total > o->max_alloc)
        return sb_fail(dev, STENCIL_EDEVMEM,
                       "OpenCL: %zu bytes exceed the device's largest allocation (%llu)", total,
                       (unsigned long long)o->max_alloc);
    cl_int err;
    cl_mem mem = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, total, NULL, &err);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clCreateBuffer");
    int rc = stagger ? stagger_offset(dev, o, mem, &off) : 0;
    if (!rc && stagger) { /* our reference to the parent goes with the sub-buffer (mem_free) */
        cl_buffer_region reg = {off, n};
        cl_mem sub =
            clCreateSubBuffer(mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
        if (err != CL_SUCCESS) rc = ocl_fail(dev, err, "clCreateSubBuffer");
        if (!rc) mem = sub;
    }
    if (rc) {
        clReleaseMemObject(mem);
        return rc;
    }
    *m = mem;
    dev->device_bytes += total;
    return 0;
}

void ocl_mem_free(sb_dev *dev, sb_mem m)
{
    size_t n = 0;
    cl_mem parent = NULL;
    if (!m) return;
    clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    if (clGetMemObjectInfo(parent ? parent : (cl_mem)m, CL_MEM_SIZE, sizeof n, &n, NULL) ==
            CL_SUCCESS &&
        n <= dev->device_bytes)
        dev->device_bytes -= n;
    clReleaseMemObject(m);
    if (parent) clReleaseMemObject(parent);
}
