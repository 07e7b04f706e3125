/*
 * The 2D streaming kernels' shape and window (emit_stream.c), shared with their kernels and
 * launchers (emit_stream_kernel.c). Private to kgt.
 */
#ifndef KGT_STREAM2_H
#define KGT_STREAM2_H

#include "kgt_rt.h"

enum {
    SB = 128,       /* threads per block (the study's best) */
    STREAM_MIN = 64 /* rows and columns a box needs for the streaming kernel (emit_fused.c) */
};

/* The shape of one streaming kernel. */
typedef struct shape {
    int lv;         /* levels: time steps per launch */
    int r, v;       /* window radius; columns per thread */
    int hp, pad, u; /* columns not stored each side; ring padding; unrolled rows */
    int hdef, hmin; /* rows per block: at most, at least (h + 2LR a multiple of u) */
    int elo[KGT_MAX_DIMS], ehi[KGT_MAX_DIMS]; /* extents of the non-zero weights */
    int split;                                /* float split division by rd (split.c) */
    float rd;
    int box;  /* off-axis weights: the edge ring of every window row (emit_walk_box) */
    int fill; /* rows a block walks besides its own: 2LR, box 2LR + L - 1 */
    int pt;   /* box: ring threads of padding each side */
} shape;

shape kgt_s2_shape(const kgt_stencil *s, int dbl, int levels);
/* The kernel's constants (an enum), for the kernel's and the launcher's bodies. */
void kgt_s2_enum(kgt_buf *b, const shape *t);
void kgt_s2_load(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t);
/* The walk: a thread's windows down the block's rows, the levels and the stores. */
void kgt_s2_walk(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t);

#endif
