/* Private to the host backend: its state, and the buffers of host_shm.c. */
#ifndef SB_HOST_H
#define SB_HOST_H

#include "backend.h"

/* A buffer in POSIX shared memory, so a neighbour process on the node can map it (peer path). */
typedef struct host_shm {
    void *p;
    size_t bytes;
    char name[48]; /* empty for a mapping opened from a neighbour */
    struct host_shm *next;
} host_shm;

typedef struct host_impl {
    stencil_type type;
    int npts;
    long *doff; /* linear offset of each point in the local array */
    double *wd; /* weights as double */
    float *wf;  /* weights as float */
    double div;
    long stride[SL_D];
    stencil_host_kernel_fn named;
    int peer;      /* allocate in shared memory */
    int sealed;    /* ipc_seal was called: new shared buffers lose their names at once */
    host_shm *shm; /* shared mappings, own and opened */
    long repeat; /* STENCIL_HOST_REPEAT: run each update this many times (a slow device, for tests)
                  */
    double *stamp; /* tracing: wall-clock seconds per slot */
    int nstamps;
    int rlo[SL_D], rhi[SL_D]; /* how far the stencil reads */
    size_t nelems;            /* elements of a local array */
    void *scratch;  /* update2's first step; a local array, allocated by the first update2 */
    void *scratch2; /* updatek's other intermediate steps (k > 2), allocated by the first one */
    long fail_at;   /* STENCIL_HOST_FAIL: this update call fails (a device error, for tests) */
    const struct kgt_prog *prog; /* a program run: its compiled kernel (host_prog_cc.c) or
                                    the interpreter runs its steps (host_prog.c) */
    long origin[SL_D];
    void *prog_so;                     /* the compiled kernel's shared object, or NULL */
    void (*prog_fn)(const void *args); /* its host function of h->type, or NULL: interpreted */
} host_impl;

/* Programs (host_prog.c): one step of h->prog. */
int host_prog_update(sb_dev *dev, int q, const sb_prog_step *s);
/* host_prog.c: k steps (sb_prog_steps), as one-step updates through scratch levels. */
int host_prog_fuse_depth(sb_dev *dev);
int host_prog_update_k(sb_dev *dev, int q, const sb_prog_steps *s);
/* host_prog_cc.c: compiles and loads h->prog's kernel at open, else leaves a notice in
   dev->note (the interpreter runs); host_prog_close unloads it. */
void host_prog_open(sb_dev *dev, host_impl *h);
void host_prog_close(host_impl *h);

/*
 * Device memory (host_shm.c): in POSIX shared memory when the run may use the peer path, so that
 * a neighbour process on the node can map it (ipc_export/open/close, ipc_seal), else aligned
 * heap memory. host_shm_drop unmaps p if it is a shared mapping (1), else returns 0.
 */
int host_mem_alloc(sb_dev *dev, size_t bytes, sb_mem *m);
void host_mem_free(sb_dev *dev, sb_mem m);
int host_shm_drop(host_impl *h, void *p);
void host_ipc_seal(sb_dev *dev);
int host_ipc_export(sb_dev *dev, sb_mem m, void *handle, size_t cap, size_t *len);
int host_ipc_open(sb_dev *dev, const void *handle, size_t len, sb_mem *m);
void host_ipc_close(sb_dev *dev, sb_mem m);

#endif /* SB_HOST_H */
