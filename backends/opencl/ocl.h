/* Private state and helpers of the OpenCL backend; see opencl.c for the kernel contract. */
#ifndef SB_OCL_H
#define SB_OCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdint.h>

#include "backend.h"

/* How non-contiguous boxes move between device and host (contiguous ones are one plain copy). */
enum { OCL_COPY_RECT = 0, OCL_COPY_PACK = 1 };

/* Cells of dimension 0 one work-item of the generic kernel computes (STENCIL_WALK) on every
   device; STENCIL_OPENCL_WALK overrides it (ocl_build.c). */
#define OCL_WALK 8

/* A pinned host buffer handed out by host_alloc: the mapped pointer and the buffer behind it. */
typedef struct ocl_pinned {
    void *ptr;
    cl_mem mem;
    struct ocl_pinned *next;
} ocl_pinned;

typedef struct ocl_impl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue q[SB_NQUEUES];
    cl_program prog;                         /* copy kernels and the stencil kernel */
    cl_kernel update, pack, unpack, copybox; /* arguments are set and enqueued by one thread */
    cl_mem scratch[SB_NQUEUES]; /* contiguous device staging of the pack path, one per queue */
    size_t scratch_bytes[SB_NQUEUES];
    cl_event last[SB_NQUEUES]; /* the latest command on each queue, for busy() */
    cl_event *stamp;           /* tracing: the marker of each slot (sb_ops.stamp), or NULL */
    int nstamps;
    ocl_pinned *pinned;
    stencil_type type;
    size_t es;            /* element size */
    size_t wg;            /* work-group width of the update launch */
    size_t copy_wg;       /* work-group size of the pack / unpack launches */
    size_t max_item[3];   /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    cl_ulong max_alloc;   /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    long stride[SL_D];    /* strides of the local arrays */
    int copy_mode;        /* OCL_COPY_RECT or OCL_COPY_PACK */
    int bounds_all;       /* the update kernel checks all three ids (generic; opted-in named) */
    int walk;             /* cells of dimension 0 per work-item (generic: pick_walk; named: 1) */
    int route;            /* border-queue kernels run on the inner queue (STENCIL_OPENCL_BORDER) */
    int cpu;              /* a CPU device: arrays in host memory (ocl_mem.c) */
    int stagger;          /* arrays placed half a page apart (ocl_mem.c; CPU devices) */
    size_t base_align;    /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: sub-buffer origins */
    uintptr_t first_addr; /* host address of the first array on a CPU device, else 0 */
    const struct kgt_prog *kprog; /* a program run (ocl_prog.c): update is its kernel */
    long origin[SL_D];            /* programs: global index of local cell 0 */
    char kname[96];               /* the program kernel's name */
    struct ocl_prog_args *pargs;  /* programs: the steps' argument buffers (ocl_prog.c) */
    /* ocl_norm.c's program, kernel and partial sums, built on first use */
    struct ocl_norm *norm;
} ocl_impl;

extern const sb_ops sb_opencl_ops;

/* The name of a CL error code ("CL_INVALID_VALUE"), or "CL_UNKNOWN_ERROR". */
const char *ocl_errname(cl_int err);
/* The STENCIL_E* code for a CL error. */
int ocl_code(cl_int err);
/* sb_fail with the CL error name and the failing call. */
int ocl_fail(sb_dev *dev, cl_int err, const char *call);

/* Picks platform and device (options, environment, node-local rank); fills o and dev->name. */
int ocl_pick_device(sb_dev *dev, ocl_impl *o, const sb_open_args *a);
/* Builds the stencil program (generic or named) and the copy program, creates the kernels. */
int ocl_build(sb_dev *dev, ocl_impl *o, const sb_open_args *a);
/* The n sources built as one program into *out (ocl_build.c: a failed build is tried twice;
   what names it in the error). */
int ocl_build_program(sb_dev *dev, ocl_impl *o, const char **srcs, cl_uint n, const char *opts,
                      const char *what, cl_program *out);

/*
 * Enqueues kernel k (arguments set) on queue q over n[0] x n[1] x n[2] work-items, n[0] fastest.
 * any_dim: the kernel checks every id, so the work-group (width wg) goes along the first
 * dimension with more than one item, rounded up; else only n[0] is rounded, as the named-kernel
 * contract says, and the runtime shapes work-groups when n[0] < wg.
 */
int ocl_launch(sb_dev *dev, int q, cl_kernel k, const size_t n[3], size_t wg, int any_dim,
               const char *what);
/* ocl_launch, except that a kernel for the border queue goes on the inner queue when o->route,
   and the border queue waits for it (opencl.c, "Queues"). Only for kernels whose inputs are
   ready in the inner queue's order: border updates and packing, not unpacking. after_border:
   the kernel also waits for the border queue's latest command (a pack kernel must not refill
   the staging buffer that the previous box's download still reads). */
int ocl_launch_routed(sb_dev *dev, int q, cl_kernel k, const size_t n[3], size_t wg, int any_dim,
                      int after_border, const char *what);
/* Releases queue q's latest event and returns the slot for the next command's event. */
cl_event *ocl_next_event(ocl_impl *o, int q);

/* Device arrays (ocl_mem.c): on CPU devices staggered against 4K aliasing. */
int ocl_mem_alloc(sb_dev *dev, size_t bytes, sb_mem *m);
void ocl_mem_free(sb_dev *dev, sb_mem m);

/* Device-to-device halos within one process and context (see ocl_peer.c). */
int ocl_ipc_export(sb_dev *dev, sb_mem m, void *handle, size_t cap, size_t *len);
int ocl_ipc_open(sb_dev *dev, const void *handle, size_t len, sb_mem *m);
void ocl_ipc_close(sb_dev *dev, sb_mem m);
int ocl_copy_peer(sb_dev *dev, int q, sb_mem dst, const sl_box *db, const long *ds, sb_mem src,
                  const sl_box *sb, const long *ss);

int ocl_copy_out(sb_dev *dev, int q, sb_mem m, const sl_box *b, void *host);
int ocl_copy_in(sb_dev *dev, int q, sb_mem m, const sl_box *b, const void *host);

/* Programs (ocl_prog.c): the OpenCL text of p (kernel sb_prog_NAME, its name into kname; NULL
   when out of memory; the caller frees it; narrow: int indices, kgt_prog_emit_opencl_rt), one
   step (sb_ops.prog_update), and the release of the steps' argument buffers (at close). */
char *ocl_prog_source(const struct kgt_prog *p, int narrow, char *kname, size_t cap);
int ocl_prog_update(sb_dev *dev, int q, const sb_prog_step *s);
void ocl_prog_free(ocl_impl *o);

/* The norm of a change (sb_ops.norm, ocl_norm.c); ocl_norm_free releases what it built. */
int ocl_norm(sb_dev *dev, sb_mem a, sb_mem b, const sl_box *box, double out[2]);
void ocl_norm_free(ocl_impl *o);

/* Kernel sources embedded at build time (ocl_sources.c, generated from the .cl files). */
extern const char sb_ocl_src_generic[];
extern const char sb_ocl_src_copy[];

#endif /* SB_OCL_H */
