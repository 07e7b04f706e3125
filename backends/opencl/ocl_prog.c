/*
 * Programs on OpenCL (sb_open_args.prog): the program's kernel as kgt writes it
 * (kgt_prog_emit_opencl) is built into the backend's one program beside the copy kernels, in
 * place of the stencil kernel, and each step is one launch of it over the union of the evolving
 * fields' boxes (the kernel checks each field's own box).
 *
 * The kernel's arguments (kgt/prog_emit.c): per field its input, its previous level if it
 * keeps one, its output if it evolves; then m (longs: origin[3], t, the launch's first local
 * cell[3], one unused, then per field 12: offset of local cell 0 in its buffers, strides[3],
 * lo[3], hi[3], 2 unused) and the parameters in the element type. m and the parameters change
 * every step and may still be read by a launch queued earlier on another queue, so each step
 * gets small buffers of its own (copied at creation, released at once: OpenCL keeps them until
 * the launch that uses them is done).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"
#include "prog.h"

/* Longs of the m argument. */
#define OCL_PROG_M (8 + 12 * KGT_PROG_MAX_FIELDS)

char *ocl_prog_source(const struct kgt_prog *p, char *kname, size_t cap)
{
    kgt_buf b = {0};
    kgt_prog_emit_opencl(&b, p, "sb_prog");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    snprintf(kname, cap, "sb_prog_%s", p->name);
    return b.s;
}

/* A read-only buffer holding a copy of bytes at host. */
static int small_buffer(sb_dev *dev, ocl_impl *o, size_t bytes, void *host, cl_mem *m)
{
    cl_int err;
    *m = clCreateBuffer(o->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
    return err == CL_SUCCESS ? 0 : ocl_fail(dev, err, "clCreateBuffer (program arguments)");
}

int ocl_prog_update(sb_dev *dev, int q, const sb_prog_step *s)
{
    ocl_impl *o = dev->impl;
    const kgt_prog *p = o->kprog;
    cl_long m[OCL_PROG_M];
    double pd[KGT_PROG_MAX_PARAMS] = {0};
    float pf[KGT_PROG_MAX_PARAMS] = {0};
    long u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    size_t n[3] = {1, 1, 1};
    int any = 0, nd;
    cl_uint arg = 0;
    cl_int err = CL_SUCCESS;
    cl_mem mb = NULL, pb = NULL;
    if (!p) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no program was opened");
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", q);
    nd = p->ndims;
    memset(m, 0, sizeof m);
    for (int d = 0; d < 3; d++) m[d] = o->origin[d];
    m[3] = s->t;
    for (int f = 0; f < p->nf; f++) {
        cl_long *mf = m + 8 + 12 * f;
        int empty = sl_box_empty(&s->box[f]);
        for (int d = 0; d + 1 < nd; d++) mf[1 + d] = o->stride[d];
        if (p->f[f].coef) continue;
        for (int d = 0; d < nd; d++) {
            mf[4 + d] = s->box[f].lo[d];
            mf[7 + d] = empty ? s->box[f].lo[d] : s->box[f].hi[d];
            if (empty) continue;
            if (!any || s->box[f].lo[d] < u[d]) u[d] = s->box[f].lo[d];
            if (!any || s->box[f].hi[d] > v[d]) v[d] = s->box[f].hi[d];
        }
        any |= !empty;
    }
    if (!any) return 0;
    for (int d = 0; d < nd; d++) {
        m[4 + d] = u[d];
        n[nd - 1 - d] = (size_t)(v[d] - u[d]);
    }
    for (int i = 0; i < p->npar; i++) {
        pd[i] = s->par ? s->par[i] : p->par[i].value;
        pf[i] = (float)pd[i];
    }
    for (int f = 0; f < p->nf && err == CL_SUCCESS; f++) {
        cl_mem lv[3] = {s->in[f], s->prev[f], s->out[f]};
        for (int l = 0; l < 3 && err == CL_SUCCESS; l++) {
            if ((l == 1 && !p->f[f].keeps) || (l == 2 && p->f[f].coef)) continue;
            if (!lv[l])
                return sb_fail(dev, STENCIL_EINVAL, "OpenCL: program field %s has no buffer",
                               p->f[f].name);
            err = clSetKernelArg(o->update, arg++, sizeof lv[l], &lv[l]);
        }
    }
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clSetKernelArg (program)");
    int rc = small_buffer(dev, o, sizeof m, m, &mb);
    /* At least one element: a program without parameters still takes the argument. */
    if (!rc)
        rc = small_buffer(dev, o, (size_t)(p->npar ? p->npar : 1) * o->es,
                          o->type == STENCIL_DOUBLE ? (void *)pd : (void *)pf, &pb);
    if (!rc) {
        err = clSetKernelArg(o->update, arg++, sizeof mb, &mb);
        err |= clSetKernelArg(o->update, arg++, sizeof pb, &pb);
        if (err != CL_SUCCESS) rc = ocl_fail(dev, err, "clSetKernelArg (program)");
    }
    /* The kernel checks every field's box: the runtime may round the launch up (any_dim 0). */
    if (!rc) rc = ocl_launch_routed(dev, q, o->update, n, o->wg, 0, 0, o->kname);
    if (mb) clReleaseMemObject(mb);
    if (pb) clReleaseMemObject(pb);
    return rc;
}
