/*
 * The one ops table every backend fills. The skeleton drives a device only through it.
 *
 * Memory: a backend allocates the two local arrays (ext box of sl_local, nelems elements each) and
 * pinned host staging buffers. Boxes passed to ops are in local indices (sl_local_box()).
 *
 * Queues: SB_QBORDER carries border updates and halo copies, SB_QINNER the inner update, SB_QXFER
 * a third stream of copies (out-of-core runs: downloads beside the uploads on SB_QBORDER), SB_QAUX
 * a second stream of updates (out-of-core program sweeps: the upper part of a chunk beside the
 * lower part on SB_QINNER). Work on one queue runs in order; work on different queues may overlap
 * until join() makes each queue wait for everything already submitted to the others.
 * copy_out/copy_in may return before the copy is done: the host may touch the staging memory only
 * after wait() on that queue.
 *
 * Arithmetic contract (what makes backends bitwise comparable): for each cell, with the stencil's
 * non-zero points p = 0..npts-1 in row-major order and T the element type,
 *     acc = (T)w[0] * in[c + off[0]];  acc = acc + (T)w[p] * in[c + off[p]] ...;
 *     out[c] = acc / (T)divisor;
 * with no contraction into fused multiply-adds and correctly rounded division. A weight of exactly
 * 1 may be folded to the bare term and -1 to a subtraction (both are exact); a divisor that is a
 * power of two may become a multiplication by its exact reciprocal.
 *
 * Unsupported operations are stubs returning STENCIL_ENOSYS, never NULL.
 */
#ifndef SB_BACKEND_H
#define SB_BACKEND_H

#include <stddef.h>

#include "err.h"
#include "layout.h"
#include "stencil.h"

enum { SB_QBORDER = 0, SB_QINNER = 1, SB_QXFER = 2, SB_QAUX = 3, SB_NQUEUES = 4 };

typedef void *sb_mem;

/* One copy of sb_ops.copy_many: copy_peer's arguments. */
typedef struct sb_copy {
    sb_mem dst, src;
    const sl_box *db, *sb;
    const long *ds, *ss;
} sb_copy;
enum { SB_COPY_MANY = 32 }; /* the most copies of one copy_many */

typedef struct sb_open_args {
    int device;     /* device index, or -1: node-local rank modulo the devices found */
    int local_rank; /* rank among the ranks of this node */
    int local_size;
    const sl_stencil *st;
    const stencil_kernel *named; /* specialized kernel, or NULL for the generic one */
    const sl_local *local;       /* strides and sizes of the local arrays */
    int peer;                    /* 1: buffers may be exported with ipc_export */
    int stamps;                  /* timestamp slots to prepare for stamp(); 0: tracing off */
    int steps; /* time steps per exchange the run plans: 1 needs no two-step kernel (a backend
                  may skip preparing one); 0: not known */
    /*
     * A program run (kgt/prog.h; NULL: a stencil run): open builds or binds the program's
     * kernels for st->type instead of the stencil's (st then is the union of every read, for
     * the element type and the reach; named is NULL), and the skeleton calls prog_update, never
     * update. Every field has its own buffers, all with the layout of `local`.
     */
    const struct kgt_prog *prog;
    long origin[SL_D]; /* programs: global index of local cell (0, 0, 0) */
} sb_open_args;

/* The most fields a program has (KGT_PROG_MAX_FIELDS). */
#define SB_PROG_FIELDS 16

/*
 * One time step of a program: every evolving field f computed over box[f] (local indices; an
 * empty box computes nothing) from the levels in[] (every field, coefficients included) and
 * prev[] (fields that keep their previous level; NULL for the others) into out[f] (NULL for
 * coefficients). Field order is the program's declaration order. par: the parameters' values
 * in declaration order, rounded to the element type by the backend. t: the step number the
 * update expressions see. Reads beyond the boxes come from halos the skeleton filled. base: the
 * local row of dimension 0 that row 0 of the buffers holds (0 but for out-of-core chunk
 * buffers, whose boxes are in chunk rows): the index i the expressions see is
 * origin[0] + base + the chunk row.
 */
typedef struct sb_prog_step {
    sb_mem in[SB_PROG_FIELDS], prev[SB_PROG_FIELDS], out[SB_PROG_FIELDS];
    sl_box box[SB_PROG_FIELDS];
    long t, base;
    const double *par;
} sb_prog_step;

/*
 * k steps of a program in one launch (GPU: 2D programs, kgt/prog_fuse.c, the fused
 * kernel with a shared-memory tile per field and a k-reach halo). box[j][f] is step j's box of
 * field f (local indices, box[0] the widest: each step's reads of any field lie in that field's
 * box of the step before, or in cells the same at every level, such as fixed frames); t is the
 * first step's number; out[f] receives level k and, for fields that keep a previous level,
 * pout[f] level k - 1, both over box[k - 1][f]. Reads come from in[]/prev[] within box[0]
 * widened by the reach. Bitwise equal to k prog_update calls over the same boxes with the levels
 * rotating through scratch arrays, which is what it replaces. rows: the rows of dimension 0 the
 * buffers hold (0: the opened local array's; out-of-core chunk buffers hold fewer), which a
 * launch reads no farther than; base as in sb_prog_step.
 */
#define SB_PROG_FUSE_MAX 4
typedef struct sb_prog_steps {
    sb_mem in[SB_PROG_FIELDS], prev[SB_PROG_FIELDS], out[SB_PROG_FIELDS], pout[SB_PROG_FIELDS];
    sl_box box[SB_PROG_FUSE_MAX][SB_PROG_FIELDS];
    int k;
    long t, rows, base;
    const double *par;
} sb_prog_steps;

struct sb_ops;

typedef struct sb_dev {
    const struct sb_ops *ops;
    void *impl;          /* the backend's private state */
    char err[256];       /* message for the last failing op */
    char name[64];       /* device name, for stats */
    size_t device_bytes; /* device memory currently allocated */
    char kernel[16];     /* stencil_stats.kernel: "generic", "rtc" or "named" (open sets it) */
    double t_compile;    /* seconds open spent compiling a run-time kernel (0: cached or none) */
    char note[200];      /* open's notice for the user (e.g. a run-time compile that fell back) */
} sb_dev;

typedef struct sb_ops {
    const char *name;
    /* Picks the device, creates the queues, builds or binds the kernel. */
    int (*open)(sb_dev *dev, const sb_open_args *a);
    void (*close)(sb_dev *dev);
    int (*mem_alloc)(sb_dev *dev, size_t bytes, sb_mem *m);
    void (*mem_free)(sb_dev *dev, sb_mem m);
    int (*host_alloc)(sb_dev *dev, size_t bytes, void **p);
    void (*host_free)(sb_dev *dev, void *p);
    /* Whole-array transfers; blocking. */
    int (*write)(sb_dev *dev, sb_mem m, const void *src, size_t bytes);
    int (*read)(sb_dev *dev, sb_mem m, void *dst, size_t bytes);
    /*
     * k >= 1 steps at once: out over box b = the stencil applied k times to in. Step s < k is
     * computed where the later steps read it, only on cells inside live (sl_local's live box,
     * local indices; unused when k = 1, may then be NULL); cells outside live (the fixed frame)
     * keep their values. Bitwise equal to k one-step calls. k above fuse_depth: the backend runs
     * the steps one at a time through scratch memory of its own, or returns STENCIL_ENOSYS (the
     * skeleton asks for k > 1 only up to fuse_depth).
     *
     * "Fused" in the backends means steps per launch (one kernel computing k steps), not the
     * steps per exchange T (stencil_options.steps), though the skeleton asks for k = T where
     * fuse_depth allows.
     */
    int (*update)(sb_dev *dev, int q, int k, sb_mem in, sb_mem out, const sl_box *b,
                  const sl_box *live);
    /*
     * Asked before open, so the halo depth can follow: for st and the named kernel (NULL: the
     * generic one), the most steps per update call that run faster than one step per call (a
     * fused kernel of that depth); 1 or less: none. The skeleton's automatic T takes it.
     */
    int (*fuse_depth)(const sl_stencil *st, const stencil_kernel *named);
    /* Box b of m to/from a contiguous host buffer (row-major, dim 0 slowest). */
    int (*copy_out)(sb_dev *dev, int q, sb_mem m, const sl_box *b, void *host);
    int (*copy_in)(sb_dev *dev, int q, sb_mem m, const sl_box *b, const void *host);
    /* Starts submitted work without waiting (OpenCL clFlush); may be a no-op. */
    int (*flush)(sb_dev *dev, int q);
    /* Host waits until the queue is idle. */
    int (*wait)(sb_dev *dev, int q);
    /* Each queue waits (on the device) for what was submitted to the others. */
    int (*join)(sb_dev *dev);
    /* Queue q waits (on the device) for what was submitted to queue `from` so far, and only
       that: what is submitted to `from` later does not hold q back. */
    int (*after)(sb_dev *dev, int q, int from);
    /* 1 when work is still pending on the queue, 0 when idle, or a STENCIL_E* code. */
    int (*busy)(sb_dev *dev, int q);
    /*
     * Tracing (only called when sb_open_args.stamps > 0). stamp records into slot (0 <= slot <
     * stamps) the time at which the device reaches this point of queue q: after the work already
     * submitted to q, before what follows; a slot stamped again is overwritten. stamp_read, once
     * every queue is idle (after wait()), writes into sec[0..n-1] the times of slots 0..n-1 in
     * seconds on the device's clock, relative to slot 0; each of them must have been stamped.
     * The skeleton maps slot 0 onto the host clock (skel/trace.c).
     */
    int (*stamp)(sb_dev *dev, int q, int slot);
    int (*stamp_read)(sb_dev *dev, int n, double *sec);
    /*
     * 1 when ops return before the device work is done: the skeleton then submits the inner
     * update before blocking on the border queue. 0 (synchronous backends): it sends the halos
     * first and computes the inner update while the messages travel.
     */
    int async;
    /*
     * Intra-node device-to-device halos (each may be a STENCIL_ENOSYS stub). ipc_export writes
     * into handle (cap bytes) a handle of a buffer from mem_alloc that another process of the
     * node can ipc_open. copy_peer copies box sb of src (element strides ss) into box db of dst
     * (strides ds) on queue q; either buffer may be local or opened; both boxes have one shape.
     */
    int (*ipc_export)(sb_dev *dev, sb_mem m, void *handle, size_t cap, size_t *len);
    int (*ipc_open)(sb_dev *dev, const void *handle, size_t len, sb_mem *m);
    void (*ipc_close)(sb_dev *dev, sb_mem m);
    int (*copy_peer)(sb_dev *dev, int q, sb_mem dst, const sl_box *db, const long *ds, sb_mem src,
                     const sl_box *sb, const long *ss);
    /* 1: neighbours on the node exchange device-to-device unless told not to (GPU memory). */
    int peer_default;
    /* 1: backend "auto" tries this one (in sb_backends order) before falling back to the host. */
    int auto_try;
    /*
     * The change between two iterates over box b (local indices), blocking, after every queue
     * is idle: out[0] = sum of d * d, out[1] = max |d|, with d = (double)a - (double)b per cell,
     * in double (float where the device has no fp64). The order of the sum is the backend's own.
     */
    int (*norm)(sb_dev *dev, sb_mem a, sb_mem b, const sl_box *box, double out[2]);
    /*
     * Optional (NULL: nothing to do). Every process that was to ipc_open this device's buffers
     * has done so: names that would outlive a killed process (host: shared memory objects) are
     * withdrawn now, and buffers allocated from here on get none. ipc_export fails afterwards.
     */
    void (*ipc_seal)(sb_dev *dev);
    /* Programs (sb_open_args.prog): one step, queued on q; STENCIL_ENOSYS where not built. */
    int (*prog_update)(sb_dev *dev, int q, const sb_prog_step *s);
    /* Optional (NULL: none; the skeleton fuses a pass's substeps with them, skel/prog_loop.c):
       the most steps prog_update_k takes for the opened program (0: none), and k of them in one
       launch (sb_prog_steps). */
    int (*prog_fuse_depth)(sb_dev *dev);
    int (*prog_update_k)(sb_dev *dev, int q, const sb_prog_steps *s);
    /*
     * Optional (NULL: copy_peer one by one): n (<= SB_COPY_MANY) copy_peer calls on queue q as
     * one launch, so that a rank's many small halo boxes cost one launch, not one each. The caller
     * keeps them independent (skel/copies.c): no copy writes a cell that another one reads or
     * writes, so any order gives the same cells.
     */
    int (*copy_many)(sb_dev *dev, int q, int n, const sb_copy *c);
    /*
     * Optional (NULL: 1). Before open, for the automatic T of a program run on one rank whose
     * faces need no refill between steps: the steps per prog_update_k launch that this
     * backend's fused kernel of p runs faster than one launch a step, or 1 where it knows none.
     * type: the element type; row_align: sk_env's (0: the skeleton's own padding of program
     * rows, skel/prog_setup.c).
     */
    int (*prog_auto_steps)(const struct kgt_prog *p, int type, int row_align);
} sb_ops;

/* Every backend built in; NULL-terminated. */
extern const sb_ops *const sb_backends[];
/* The backend called name, or NULL if it is not built in. */
const sb_ops *sb_find(const char *name);
/* The built-in backends' names, for messages. */
const char *sb_names(void);
/*
 * What backend "auto" tries, in order: the i-th candidate, NULL after the last. The backends
 * whose ops set auto_try (GPU memory), then the host, which always opens.
 */
const sb_ops *sb_auto(int i);

/* Fills dev->err like snprintf (err.h); returns code for tail calls. */
#define sb_fail(dev, code, ...) err_set((dev)->err, sizeof(dev)->err, code, __VA_ARGS__)

/* Size in bytes of one element of type t. */
size_t sb_elem_size(stencil_type t);

#endif /* SB_BACKEND_H */
