/*
 * Box transfers between a local array and a contiguous host buffer. A box is first normalised to
 * at most three runs (unit-stride elements, rows, slices) by dropping unit dimensions and merging
 * dimensions that are contiguous in memory. One run is one plain transfer; otherwise either a
 * rectangular transfer (clEnqueue*BufferRect) or a pack/unpack kernel into a contiguous device
 * buffer followed by one plain transfer (STENCIL_OPENCL_COPY=rect|pack, see opencl.c).
 * All transfers are non-blocking; the caller waits on the queue before touching host memory.
 */
#include "ocl.h"

typedef struct ocl_span {
    size_t start; /* first element */
    size_t c[3];  /* counts, innermost first */
    size_t p[3];  /* pitches in elements; p[0] == 1 */
    int runs;     /* non-trivial dimensions */
} ocl_span;

static void normalise(const ocl_impl *o, const sl_box *b, ocl_span *sp)
{
    long n[3], st[3], cc[4], pp[4];
    int m = 0;
    sp->start = 0;
    for (int t = 0; t < 3; t++) {
        n[t] = b->hi[2 - t] - b->lo[2 - t];
        st[t] = o->stride[2 - t];
        sp->start += (size_t)(b->lo[t] * o->stride[t]);
    }
    for (int t = 0; t < 3; t++) {
        if (n[t] == 1) continue;
        if (m > 0 && cc[m - 1] * pp[m - 1] == st[t]) {
            cc[m - 1] *= n[t];
            continue;
        }
        cc[m] = n[t];
        pp[m++] = st[t];
    }
    if (m == 0 || pp[0] != 1) { /* a single column: rows of one element */
        for (int t = m; t > 0; t--) {
            cc[t] = cc[t - 1];
            pp[t] = pp[t - 1];
        }
        cc[0] = pp[0] = 1;
        m++;
    }
    sp->runs = m;
    for (int t = 0; t < 3; t++) {
        sp->c[t] = t < m ? (size_t)cc[t] : 1;
        sp->p[t] = t < m ? (size_t)pp[t] : sp->p[t - 1] * sp->c[t - 1];
    }
}

static size_t span_elems(const ocl_span *sp)
{
    return sp->c[0] * sp->c[1] * sp->c[2];
}

static int rect(sb_dev *dev, int qi, cl_mem m, const ocl_span *sp, void *host, int out)
{
    ocl_impl *o = dev->impl;
    cl_command_queue q = o->q[qi];
    size_t es = o->es, rem = sp->start % sp->p[2];
    size_t bo[3] = {(rem % sp->p[1]) * es, rem / sp->p[1], sp->start / sp->p[2]};
    size_t ho[3] = {0, 0, 0}, r[3] = {sp->c[0] * es, sp->c[1], sp->c[2]};
    size_t bp1 = sp->p[1] * es, bp2 = sp->p[2] * es, hp1 = r[0], hp2 = r[0] * r[1];
    cl_int err;
    if (out)
        err = clEnqueueReadBufferRect(q, m, CL_FALSE, bo, ho, r, bp1, bp2, hp1, hp2, host, 0, NULL,
                                      ocl_next_event(o, qi));
    else
        err = clEnqueueWriteBufferRect(q, m, CL_FALSE, bo, ho, r, bp1, bp2, hp1, hp2, host, 0, NULL,
                                       NULL);
    return err == CL_SUCCESS
               ? 0
               : ocl_fail(dev, err, out ? "clEnqueueReadBufferRect" : "clEnqueueWriteBufferRect");
}

static int plain(sb_dev *dev, int qi, cl_mem m, size_t off, size_t bytes, void *host, int out)
{
    ocl_impl *o = dev->impl;
    cl_command_queue q = o->q[qi];
    cl_int err;
    if (out)
        err = clEnqueueReadBuffer(q, m, CL_FALSE, off, bytes, host, 0, NULL, ocl_next_event(o, qi));
    else
        err =
            clEnqueueWriteBuffer(q, m, CL_FALSE, off, bytes, host, 0, NULL, ocl_next_event(o, qi));
    return err == CL_SUCCESS
               ? 0
               : ocl_fail(dev, err, out ? "clEnqueueReadBuffer" : "clEnqueueWriteBuffer");
}

/* Grows queue qi's device staging buffer to at least bytes. Commands already queued on the old
   one keep it alive: OpenCL frees a released buffer only once they are done. */
static int scratch(sb_dev *dev, int qi, size_t bytes)
{
    ocl_impl *o = dev->impl;
    if (o->scratch_bytes[qi] >= bytes) return 0;
    if (o->scratch[qi]) {
        clReleaseMemObject(o->scratch[qi]);
        dev->device_bytes -= o->scratch_bytes[qi];
        o->scratch[qi] = NULL;
        o->scratch_bytes[qi] = 0;
    }
    cl_int err;
    o->scratch[qi] = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clCreateBuffer");
    o->scratch_bytes[qi] = bytes;
    dev->device_bytes += bytes;
    return 0;
}

static int pack_kernel(sb_dev *dev, int qi, cl_kernel k, cl_mem m, const ocl_span *sp, int out)
{
    ocl_impl *o = dev->impl;
    cl_long a[6] = {(cl_long)sp->start, (cl_long)sp->c[0], (cl_long)sp->c[1],
                    (cl_long)sp->c[2],  (cl_long)sp->p[1], (cl_long)sp->p[2]};
    cl_int err = clSetKernelArg(k, 0, sizeof m, &m);
    err |= clSetKernelArg(k, 1, sizeof o->scratch[qi], &o->scratch[qi]);
    for (int i = 0; i < 6; i++) err |= clSetKernelArg(k, (cl_uint)(2 + i), sizeof a[i], &a[i]);
    if (err != CL_SUCCESS)
        return sb_fail(dev, STENCIL_EDEVICE, "OpenCL: clSetKernelArg failed for a copy kernel");
    /* Packing reads cells that kernels before it computed; unpacking needs the upload first. */
    return out ? ocl_launch_routed(dev, qi, k, sp->c, o->copy_wg, 1, 1, "a copy kernel")
               : ocl_launch(dev, qi, k, sp->c, o->copy_wg, 1, "a copy kernel");
}

static int box_copy(sb_dev *dev, int qi, sb_mem mem, const sl_box *b, void *host, int out)
{
    ocl_impl *o = dev->impl;
    if (qi < 0 || qi >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", qi);
    if (sl_box_empty(b)) return 0;
    ocl_span sp;
    normalise(o, b, &sp);
    cl_mem m = mem;
    size_t bytes = span_elems(&sp) * o->es;
    if (sp.runs == 1) return plain(dev, qi, m, sp.start * o->es, bytes, host, out);
    if (o->copy_mode == OCL_COPY_RECT) return rect(dev, qi, m, &sp, host, out);
    int rc = scratch(dev, qi, bytes);
    if (!rc && out) rc = pack_kernel(dev, qi, o->pack, m, &sp, 1);
    if (!rc) rc = plain(dev, qi, o->scratch[qi], 0, bytes, host, out);
    if (!rc && !out) rc = pack_kernel(dev, qi, o->unpack, m, &sp, 0);
    return rc;
}

int ocl_copy_out(sb_dev *dev, int q, sb_mem m, const sl_box *b, void *host)
{
    return box_copy(dev, q, m, b, host, 1);
}

int ocl_copy_in(sb_dev *dev, int q, sb_mem m, const sl_box *b, const void *host)
{
    return box_copy(dev, q, m, b, (void *)host, 0);
}
