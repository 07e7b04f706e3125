/*
 * The GPU backend's per-device state (struct impl), shared by the parts of gpu_backend.cu: runtime
 * errors translated into sb_fail, the records of allocations, and boxes normalized to
 * (walk, y, x) for launches and copies. The parts are included into gpu_backend.cu, one
 * translation unit (nvcc and hipcc each compile it once), so their helpers stay static.
 */
#ifndef SB_GPU_STATE_CUH
#define SB_GPU_STATE_CUH

#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX  1

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendor.h"

#include "stencil.h"
extern "C" {
#include "backend.h"
#include "prog.h"
}

#include "fused.cuh"
#include "kernels.cuh"
#include "norm.cuh"
#include "rtc.cuh"

namespace SB_GPU_NS
{

enum { COPY_AUTO = 0, COPY_DMA, COPY_PACK, COPY_ZC };

struct alloc_rec {
    char *p;      /* the allocation (host or device address) */
    char *dp;     /* host allocations: the device's address of p */
    size_t bytes; /* as requested */
};

struct alloc_list {
    alloc_rec *r;
    int n, cap;
};

/* Launch shape of the generic kernel (defaults per dimensionality; STENCIL_GPU_TUNE overrides). */
struct tune {
    int bx, by, chunk, u, spec; /* block, walk per thread, cells per group, compile-time NP */
    int al;                     /* start rows at 128-byte boundaries (idle lanes before lo) */
};

/* Granularity of device allocations that are exported to other processes. */
#define SB_GPU_IPC_BLOCK ((size_t)2 << 20)

struct impl {
    int device;
    gpuStream_t q[SB_NQUEUES];
    gpuEvent_t ev[SB_NQUEUES];
    gpuEvent_t *stamp; /* tracing: one timed event per slot (gpu_stamp), or NULL */
    int nstamps;
    stencil_type type;
    size_t esz;
    int ndims;
    long stride[SL_D];
    stencil_device_kernel_fn named; /* NULL: generic kernel */
    stencil_device_fused_fn fused;  /* the named kernel's two-step launcher, or NULL */
    const char *named_name;
    int npts;
    pts_param<float> pf; /* generic kernel's points, in the array's type */
    pts_param<double> pd;
    fused_param<float> ff; /* update2 of the generic kernel, when fuse_r > 0 */
    fused_param<double> fd;
    int fuse_r;      /* 0: no generic update2; else the largest extent of the points (1 or 2) */
    void *goff, *gw; /* points in device memory when npts > SB_GPU_MAXP */
    tune tn;
    int copy_mode;
    void *stage[SB_NQUEUES]; /* device staging of the pack path */
    size_t stage_bytes[SB_NQUEUES];
    alloc_list dmem, hmem;
    int peer;      /* buffers may be exported: allocate whole IPC blocks (gpu_mem_alloc) */
    char arch[64]; /* the run-time compiler's target option for this device */
    int sms;       /* its multiprocessors */
    rtc_kernel rk; /* the run-time kernel (rtc.cuh), when use_rtc */
    int use_rtc;
    /* the run-time streaming kernels (2D stencils, 3D stencils) by steps per launch: rs[L]
       compiled for L = 2..use_stream (0: none) */
    rtc_stream rs[KGT_STREAM_MAX + 1];
    int use_stream;
    int rlo[SL_D], rhi[SL_D];   /* the stencil's reach (updatek's steps one at a time) */
    size_t nelems;              /* elements of a local array */
    sb_mem kscr[SB_NQUEUES][2]; /* updatek's steps one at a time: scratch per queue, or NULL */
    const kgt_prog *kprog;      /* a program run (prog.cuh): its kernel is pfn in pmod */
    long origin[SL_D];          /* programs: global index of local cell 0 */
    rtc_module pmod;
    rtc_func pfn;
    int pnarrow;           /* programs: the kernel indexes in int (kgt_prog_emit_gpu_rtc) */
    kgt_prog_shape pshape; /* programs, narrow: the kernel's shape */
    rtc_func pvfn;         /* programs in 2D, narrow: the vector-row kernel (pmod), or NULL */
    rtc_func pv1fn;        /* its variant of one box for every evolving field, or NULL */
    kgt_prog_vec pvec;     /* its shape */
    /* programs in 2D, narrow: the fused kernels of k = 1 .. pfuse steps (prog.cuh), each in its
       module; a k whose plan failed has none (pkfn[k] NULL) */
    int pfuse;
    rtc_module pkmod[KGT_PROG_FUSE_MAX + 1];
    rtc_func pkfn[KGT_PROG_FUSE_MAX + 1];
    kgt_prog_fuse pkfz[KGT_PROG_FUSE_MAX + 1];
    /* and by vector rows (kgt/prog_vfuse.c) in the same module, where planned, or NULL */
    rtc_func pvkfn[KGT_PROG_FUSE_MAX + 1];
    kgt_prog_fuse pvkfz[KGT_PROG_FUSE_MAX + 1];
    /* and its variant of short strips (SB_PROG_SHORT_H rows a block) for the few rows of
       out-of-core chunk buffers, or NULL */
    rtc_func pvsfn[KGT_PROG_FUSE_MAX + 1];
    kgt_prog_fuse pvsfz[KGT_PROG_FUSE_MAX + 1];
};

static impl *im_of(sb_dev *dev)
{
    return (impl *)dev->impl;
}

static int rt_fail(sb_dev *dev, int code, const char *what, gpuError_t e)
{
    return sb_fail(dev, code, SB_GPU_NAME ": %s failed: %s (%s)", what, gpuGetErrorString(e),
                   gpuGetErrorName(e));
}

/* Returns the translated error from the enclosing int function when a runtime call fails. */
#define GPU_TRY(dev, call)                                                                         \
    do {                                                                                           \
        gpuError_t e_ = (call);                                                                    \
        if (e_ != gpuSuccess) return rt_fail((dev), STENCIL_EDEVICE, #call, e_);                   \
    } while (0)

/* Runtime state is per host thread: make this device current before touching its objects. */
static int use_device(sb_dev *dev)
{
    GPU_TRY(dev, gpuSetDevice(im_of(dev)->device));
    return 0;
}

static int list_add(alloc_list *l, char *p, char *dp, size_t bytes)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        alloc_rec *r = (alloc_rec *)realloc(l->r, cap * sizeof *r);
        if (!r) return -1;
        l->r = r;
        l->cap = cap;
    }
    alloc_rec rec = {p, dp, bytes};
    l->r[l->n++] = rec;
    return 0;
}

/* Removes the record of p; returns its size, or 0 if p is not listed. */
static size_t list_remove(alloc_list *l, const void *p)
{
    for (int i = 0; i < l->n; i++)
        if (l->r[i].p == p) {
            size_t b = l->r[i].bytes;
            l->r[i] = l->r[--l->n];
            return b;
        }
    return 0;
}

/* The listed host allocation holding [p, p + bytes), or NULL. */
static const alloc_rec *list_find(const alloc_list *l, const void *p, size_t bytes)
{
    const char *c = (const char *)p;
    for (int i = 0; i < l->n; i++)
        if (c >= l->r[i].p && c + bytes <= l->r[i].p + l->r[i].bytes) return &l->r[i];
    return NULL;
}

/* Box b normalized to (walk, y, x): x is the last dimension, walk the first of a 2D/3D box. */
struct nbox {
    long long lo[3], n[3], s[3]; /* walk, y, x */
};

/* Returns 0 for an empty box. */
static int norm_box(int ndims, const sl_box *b, const long *stride, nbox *nb)
{
    static const int map[3][3] = {{-1, -1, 0}, {0, -1, 1}, {0, 1, 2}};
    for (int k = 0; k < 3; k++) {
        int d = map[ndims - 1][k];
        nb->lo[k] = d < 0 ? 0 : b->lo[d];
        nb->n[k] = d < 0 ? 1 : b->hi[d] - b->lo[d];
        nb->s[k] = d < 0 ? 0 : stride[d];
        if (nb->n[k] <= 0) return 0;
    }
    return 1;
}

} /* namespace SB_GPU_NS */

#endif
