/*
 * What the two halves of out-of-core runs share: ooc.c (the mode, the host copies, the chunk
 * buffers, start and release) and ooc_sweep.c (the sweeps, their statistics, the probe for T).
 */
#ifndef SK_OOC_H
#define SK_OOC_H

#include "skel.h"

#define ODEV(r, call)                                                                              \
    do {                                                                                           \
        if (!(r)->rc) {                                                                            \
            int e_ = (call);                                                                       \
            if (e_) (r)->rc = sk_fail((r)->msg, sizeof(r)->msg, e_, "%s", (r)->ooc->dev.err);      \
        }                                                                                          \
    } while (0)

/* The largest T of an out-of-core sweep, for a stencil of reach 1 (ooc_want); in 3D less, since
   the composed halo pattern grows with the cube of T. */
#define SK_OOC_MAX   SL_MAX_STEPS
#define SK_OOC_MAX3D 64

/* The host copies: the two time levels (two allocations, or one mapping); the current one is also
   the host image the callbacks see. */
enum { OOC_ARRAYS = 2 };

/* Chunk buffers: one going up, two for the chunk being updated, one coming down. */
enum { OOC_BUFS = 4 };

struct sk_ooc {
    sb_dev dev;          /* the rank's device: chunk buffers only */
    int dev_open;        /* dev must be closed */
    sb_mem cb[OOC_BUFS]; /* chunk buffers (ooc_sweep.c says how they rotate) */
    long rows;           /* owned rows per chunk (the last may have fewer) */
    long cap;            /* rows a chunk buffer holds */
    int nchunks;         /* chunks per sweep */
    size_t row_bytes;    /* bytes of one row of the local array (dimension 0) */
    size_t bytes;        /* bytes of one local array */
    void *arr[OOC_ARRAYS];
    int pinned[OOC_ARRAYS]; /* from dev.host_alloc, else calloc (or the mapping) */
    void *map;              /* the file mapping holding all three, or NULL */
    long long limit;        /* the device memory limit (0: none) */
    long long up, down;     /* bytes moved */
    int dcopy;              /* the device copies between its buffers (copy_peer) */
    int two;                /* the device has a fast two-step kernel (fuse_level 2) */
    long sweeps;            /* sweeps done */
    double t_sweeps;        /* the time they took */
    double cells_all;       /* cells times steps they updated */
    long long bytes_all;    /* bytes they moved */
    int serialized;         /* a sweep ran its stages one after another */
    int ahead, ahead_T;     /* 1 + the buffer holding the next sweep's chunk 0 for T = ahead_T */
};

/* Times an upload and an update of the first chunk: r->ooc_bw and r->ooc_rate (ooc_sweep.c). */
void sk_ooc_probe(sk_run *r);

#endif /* SK_OOC_H */
