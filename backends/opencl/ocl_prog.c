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
 * every step, so each step writes them into argument buffers of its own, made once: a ring of
 * OCL_PROG_SLOTS slots per queue, written (without blocking) on the queue the launch runs on,
 * so the in-order queue keeps each write after the launches that read the slot before; a slot's
 * host copy is reused once the launch that read it has finished (in practice long since).
 * Indices are int where the local arrays allow (kgt_prog_emit_opencl_rt).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"
#include "prog.h"

/* Longs of the m argument. */
#define OCL_PROG_M (8 + 12 * KGT_PROG_MAX_FIELDS)
/* Argument slots per queue: more than the launches of one step (2 * dims + 1). */
#define OCL_PROG_SLOTS 16

typedef struct ocl_prog_slot {
    cl_mem m, par;
    cl_event done; /* the launch that read the slot last, or NULL */
    cl_long hm[OCL_PROG_M];
    union {
        double d[KGT_PROG_MAX_PARAMS];
        float f[KGT_PROG_MAX_PARAMS];
    } hp;
} ocl_prog_slot;

struct ocl_prog_args {
    ocl_prog_slot s[SB_NQUEUES][OCL_PROG_SLOTS];
    unsigned next[SB_NQUEUES];
};

char *ocl_prog_source(const struct kgt_prog *p, int narrow, char *kname, size_t cap)
{
    kgt_buf b = {0};
    kgt_prog_emit_opencl_rt(&b, p, "sb_prog", narrow);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    snprintf(kname, cap, "sb_prog_%s", p->name);
    return b.s;
}

void ocl_prog_free(ocl_impl *o)
{
    if (!o->pargs) return;
    for (int q = 0; q < SB_NQUEUES; q++)
        for (int i = 0; i < OCL_PROG_SLOTS; i++) {
            ocl_prog_slot *sl = &o->pargs->s[q][i];
            if (sl->done) clReleaseEvent(sl->done);
            if (sl->m) clReleaseMemObject(sl->m);
            if (sl->par) clReleaseMemObject(sl->par);
        }
    free(o->pargs);
    o->pargs = NULL;
}

/* The next slot of queue q, its host copies free to fill (its buffers made on first use). */
static int next_slot(sb_dev *dev, ocl_impl *o, int q, ocl_prog_slot **out)
{
    cl_int err = CL_SUCCESS;
    if (!o->pargs && !(o->pargs = calloc(1, sizeof *o->pargs)))
        return sb_fail(dev, STENCIL_ENOMEM, "OpenCL: out of memory (program arguments)");
    ocl_prog_slot *sl = &o->pargs->s[q][o->pargs->next[q]++ % OCL_PROG_SLOTS];
    if (sl->done) {
        err = clFlush(o->q[q]); /* a host wait on a command never flushed may wait forever */
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &sl->done);
        clReleaseEvent(sl->done);
        sl->done = NULL;
        if (err != CL_SUCCESS) return ocl_fail(dev, err, "clWaitForEvents (program arguments)");
    }
    if (!sl->m) sl->m = clCreateBuffer(o->ctx, CL_MEM_READ_ONLY, sizeof sl->hm, NULL, &err);
    if (err == CL_SUCCESS && !sl->par)
        sl->par = clCreateBuffer(o->ctx, CL_MEM_READ_ONLY, sizeof sl->hp, NULL, &err);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clCreateBuffer (program arguments)");
    *out = sl;
    return 0;
}

int ocl_prog_update(sb_dev *dev, int q, const sb_prog_step *s)
{
    ocl_impl *o = dev->impl;
    const kgt_prog *p = o->kprog;
    ocl_prog_slot *sl = NULL;
    long u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    size_t n[3] = {1, 1, 1};
    int any = 0, nd;
    cl_uint arg = 0;
    cl_int err = CL_SUCCESS;
    if (!p) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no program was opened");
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, "OpenCL: no queue %d", q);
    nd = p->ndims;
    for (int f = 0; f < p->nf; f++)
        if (!sl_box_empty(&s->box[f]) && !p->f[f].coef) any = 1;
    if (!any) return 0;
    /* The queue the launch runs on (ocl_launch_routed): the writes go ahead of it there. */
    int ql = q == SB_QBORDER && o->route ? SB_QINNER : q, rc = next_slot(dev, o, ql, &sl);
    if (rc) return rc;
    cl_long *m = sl->hm;
    size_t mlen = (size_t)(8 + 12 * p->nf), plen = (size_t)(p->npar ? p->npar : 1);
    memset(m, 0, mlen * sizeof *m);
    for (int d = 0; d < 3; d++) m[d] = o->origin[d];
    m[0] += s->base;
    m[3] = s->t;
    any = 0;
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
    for (int d = 0; d < nd; d++) {
        m[4 + d] = u[d];
        n[nd - 1 - d] = (size_t)(v[d] - u[d]);
    }
    for (int i = 0; i < p->npar; i++) {
        double pv = s->par ? s->par[i] : p->par[i].value;
        if (o->type == STENCIL_DOUBLE)
            sl->hp.d[i] = pv;
        else
            sl->hp.f[i] = (float)pv;
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
    if (err == CL_SUCCESS) err = clSetKernelArg(o->update, arg++, sizeof sl->m, &sl->m);
    if (err == CL_SUCCESS) err = clSetKernelArg(o->update, arg++, sizeof sl->par, &sl->par);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clSetKernelArg (program)");
    /* Without blocking: the host copies stay untouched until the launch is done (next_slot). */
    err = clEnqueueWriteBuffer(o->q[ql], sl->m, CL_FALSE, 0, mlen * sizeof *m, m, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(o->q[ql], sl->par, CL_FALSE, 0, plen * o->es, &sl->hp, 0, NULL,
                                   NULL);
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clEnqueueWriteBuffer (program arguments)");
    /* The kernel checks every field's box: the runtime may round the launch up (any_dim 0). */
    /* Routed onto the inner queue, a border launch still waits for the border queue's work
       before it (the frames and halos it reads were copied there). */
    rc = ocl_launch_routed(dev, q, o->update, n, o->wg, 0, 1, o->kname);
    if (rc) return rc;
    /* The launch's event: the latest command of the queue it ran on. */
    if (o->last[ql] && clRetainEvent(o->last[ql]) == CL_SUCCESS) sl->done = o->last[ql];
    return 0;
}
