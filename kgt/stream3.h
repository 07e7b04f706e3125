/*
 * The 3D streaming kernels' shape and window (emit_stream3.c: the loads and a level's cells),
 * shared with their walk, kernels and launcher (emit_stream3_kernel.c). Private to kgt.
 */
#ifndef KGT_STREAM3_H
#define KGT_STREAM3_H

#include "kgt_rt.h"

/*
 * HDEF3: planes a block walks at most. For 3d7 float at L = 3 (bench/RESULTS.md, plan section),
 * 96 planes ran fastest on 512 x 1024^2 (a rank's part on two GPUs; 252 and 128 were slower),
 * and as fast as 252 on 1024^3 and on a 96 x 768^2 box (an out-of-core chunk).
 */
enum { BX = 32, P = 2 /* input planes loaded ahead */, HDEF3 = 96 };
/* RING_MAX: the most bytes of the kernels' ring in static shared memory */
enum { RING_MAX = 48 * 1024 };

typedef struct shape3 {
    int lv, r, v, ny, by; /* levels; radius; columns and rows per thread; thread rows */
    int hp, hy;           /* columns and rows not stored each side */
    int hdef, hmin;       /* planes per block: at most, at least */
    int elo[3], ehi[3];
    int split;
    float rd;
    int box;  /* one level (any stencil reaching one cell): tiles without unstored columns and
                 rows, their edge columns and the rows beyond them loaded too (kgt_s3_load_plane) */
    int part; /* L >= 2 levels of a stencil reaching one cell, not a star: partial sums per plane
                 (emit_stream3_box.c) */
    int u;    /* planes of one unrolled iteration */
    int lg;   /* level L's plane lags the input plane entering by lg */
    int fill; /* planes a block walks besides its own: L * R + lg */
} shape3;

shape3 kgt_s3_shape(const kgt_stencil *s, int dbl, int levels, const kgt_stream_tune *tune);
/* The bytes of the ring in shared memory: NB planes per level below L (box mode: U, else 2) of
   (BY + 2) thread rows x 2R rows x TX + 2PC columns. */
long kgt_s3_ring_bytes(const shape3 *t, int dbl);
/* The kernel's constants (an enum), for the kernel's body. */
void kgt_s3_enum(kgt_buf *b, const shape3 *t);
/* The warp macros the text needs (C as well as CUDA/HIP). */
void kgt_s3_macros(kgt_buf *b);
void kgt_s3_load(kgt_buf *b, const char *fn, int dbl, const shape3 *t, int n);
void kgt_s3_load_plane(kgt_buf *b, const char *fn, const char *ld, int dbl, const shape3 *t);
/* Level k's cells of one plane, from the window of level k - 1. */
void kgt_s3_level(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, int k);
/* Split division: nv[i][j] of numerator num ("sn": sn[i][j]); the fallback to `/` for NY x V
   quotients when one numerator leaves the split range. */
void kgt_s3_div_split(kgt_buf *b, const kgt_stencil *s, const shape3 *t, const char *num, int i,
                      int j);
void kgt_s3_split_tail(kgt_buf *b, const kgt_stencil *s, const shape3 *t);
/* The registers kgt_temp names of cell (i, j)'s points, from window w (partial sums: the entering
   plane w). */
void kgt_s3_temps(kgt_buf *b, const kgt_stencil *s, int dbl, const shape3 *t, const char *w, int i,
                  int j);
/* Level L's plane r (nv) into out, where stored. */
void kgt_s3_store(kgt_buf *b, int dbl, const shape3 *t);

/* Partial-sum mode (emit_stream3_box.c): the registers, the shared memory's zeroed part, one
   iteration of the plane loop (input plane z entering, ring s). 0, or -1 when the stencil's
   points are not ordered by plane. */
void kgt_s3b_regs(kgt_buf *b, int dbl, const shape3 *t);
void kgt_s3b_zero(kgt_buf *b);
int kgt_s3b_iter(kgt_buf *b, const char *ld, const kgt_stencil *s, int dbl, const shape3 *t);

#endif
