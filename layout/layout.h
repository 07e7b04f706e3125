/*
 * Layout engine: partitions, boxes and the exact halo communication pattern.
 * Pure C, no MPI, no device code, so every part of it is unit-testable on one process.
 *
 * Coordinates are global cell indices. A box is half-open, [lo, hi) per dimension; dimensions past
 * ndims have lo = 0, hi = 1. Halo boxes in periodic mode may lie outside [0, N): a halo cell at -1
 * holds global cell N - 1.
 */
#ifndef SL_LAYOUT_H
#define SL_LAYOUT_H

#include <stddef.h>

#include "stencil.h"

#define SL_D     STENCIL_MAX_DIMS
#define SL_NDIRS 27 /* 3^3 direction slots; slot of (0,0,0) is never active */

/* Rows of 2D local arrays of at least SL_ROW_PAD_MIN cells are padded to a multiple of
   SL_ROW_ALIGN elements, rows of 3D ones to a multiple of SL_ROW_VEC (local.c). */
#define SL_ROW_ALIGN   32
#define SL_ROW_PAD_MIN 1024
#define SL_ROW_VEC     4
/* Elements a row of n cells takes in a local array of ndims dimensions (align: the partition's
   row_align, 0 for the rule above). */
size_t sl_row_elems(size_t n, int ndims, int align);

typedef struct sl_box {
    long lo[SL_D], hi[SL_D];
} sl_box;

/*
 * A stencil reduced to its non-zero points, in the row-major order of the dense pattern.
 * rlo/rhi (how far the points reach) set the halo depth; flo/fhi the fixed frame. They differ only
 * for a composed stencil (sl_stencil_compose), whose points are what several steps read.
 */
typedef struct sl_stencil {
    int ndims;
    int rlo[SL_D], rhi[SL_D];
    int flo[SL_D], fhi[SL_D];
    int npts;
    int (*off)[SL_D]; /* npts offsets */
    double *w;        /* npts weights */
    double divisor;
    stencil_type type;
} sl_stencil;

typedef struct sl_partition {
    int ndims;
    long gsize[SL_D];
    int pgrid[SL_D];  /* ranks per dimension; rank = (c0 * pgrid[1] + c1) * pgrid[2] + c2 */
    long *cuts[SL_D]; /* cuts[d][0..pgrid[d]]: part i of dim d is [cuts[d][i], cuts[d][i+1]) */
    int periodic;
    int nranks;
    /* Rows of 2D and 3D local arrays padded to a multiple of this (1 to 1024; 1: none) instead
       of the default padding (local.c); 0 (what sl_partition_make sets): the default. The
       caller sets it (the skeleton from $STENCIL_ROW_ALIGN): layout reads no environment. */
    int row_align;
} sl_partition;

/* One of the 3^d - 1 neighbour directions of a rank. */
typedef struct sl_dir {
    int active;  /* 1 when something is sent or received this way */
    int d[SL_D]; /* -1, 0, +1 per dimension */
    int peer;    /* neighbour rank in this direction (may be this rank when periodic) */
    int has_recv, has_send;
    sl_box recv;  /* halo cells received from peer, global (possibly unwrapped) coords */
    sl_box send;  /* owned cells sent to peer, global coords */
    int send_tag; /* tag of the message sent this way */
    int recv_tag; /* tag of the message received from this way */
} sl_dir;

/* Everything one rank needs to know about its part. */
typedef struct sl_local {
    int rank;
    int ndims;
    int coords[SL_D];
    sl_box owned;  /* cells this rank owns */
    sl_box ext;    /* owned plus halos; not extended past a fixed global edge */
    sl_box update; /* owned cells the stencil updates (fixed frame excluded) */
    sl_box live;   /* ext cells the stencil updates: a fused launch computes its first step there */
    sl_box inner;  /* update cells that no neighbour needs: computed while halos travel */
    int nborder;
    sl_box border[2 * SL_D];        /* disjoint boxes covering update minus inner */
    sl_dir dir[SL_NDIRS];           /* indexed by sl_dir_index() */
    long stride[SL_D];              /* element strides of the local array over ext; rows may be
                                       padded (SL_ROW_ALIGN) */
    size_t nelems;                  /* elements of the local array */
    int bnd_lo[SL_D], bnd_hi[SL_D]; /* owned box touches the global low/high edge */
} sl_local;

/* Box helpers. */
long sl_box_volume(const sl_box *b); /* 0 for an empty box */
int sl_box_empty(const sl_box *b);
sl_box sl_box_intersect(const sl_box *a, const sl_box *b);
int sl_box_contains(const sl_box *b, const long p[SL_D]);

/* Direction slot of d (each -1..1): (d0+1)*9 + (d1+1)*3 + (d2+1). */
int sl_dir_index(const int d[SL_D]);

/* Validates desc and extracts its non-zero points. Returns 0 or STENCIL_E*, msg says why. */
int sl_stencil_make(sl_stencil *s, const stencil_desc *desc, char *msg, size_t msglen);
void sl_stencil_free(sl_stencil *s);
/*
 * The most steps a composed stencil takes: more than a user may force (STENCIL_MAX_STEPS), for the
 * long sweeps of out-of-core runs, whose callers keep steps times the reach within it too.
 */
#define SL_MAX_STEPS 128

/*
 * The cells that `steps` (1..SL_MAX_STEPS) updates in a row read, as a stencil for the halo
 * exchange: its points are sums of `steps` points of s (weights 1; for one step, s itself), and its
 * frame stays s's. Fixed boundaries also add the sums of fewer points, because an intermediate
 * cell in the frame passes its input through unchanged. Row-major order. Returns 0,
 * STENCIL_EINVAL or STENCIL_ENOMEM.
 */
int sl_stencil_compose(sl_stencil *out, const sl_stencil *s, int steps, int periodic);

/*
 * Chooses a process grid for nranks: bands put all ranks on dim 0; blocks use hint where non-zero
 * and otherwise balance the grid like MPI_Dims_create, favouring cuts of the longest dimensions.
 */
int sl_grid_choose(int ndims, const long gsize[SL_D], int nranks, stencil_partition kind,
                   const int hint[SL_D], int pgrid[SL_D], char *msg, size_t msglen);

/*
 * Cuts each dimension for pgrid. weights (nranks entries or NULL) give each slab of a dimension the
 * sum of its ranks' weights, and the cut positions follow the cumulative sums with exact integer
 * rounding. Every part along d must hold at least minpart[d] cells, else STENCIL_EPARTITION.
 */
int sl_partition_make(sl_partition *p, int ndims, const long gsize[SL_D], const int pgrid[SL_D],
                      const double *weights, const int minpart[SL_D], int periodic, char *msg,
                      size_t msglen);
void sl_partition_free(sl_partition *p);
/*
 * The largest relative change of any rank's share (its weight over the sum of the n weights) from
 * weights a to weights b: max |share_b / share_a - 1|. A NULL a stands for equal shares. Positive
 * weights expected; 0 when n < 1. Calibration stops re-measuring when this is small.
 */
double sl_share_change(const double *a, const double *b, int n);
void sl_partition_coords(const sl_partition *p, int rank, int c[SL_D]);
/* Rank at coords c (wrapped when periodic); -1 when c lies outside a non-periodic grid. */
int sl_partition_rank(const sl_partition *p, const int c[SL_D]);
sl_box sl_partition_owned(const sl_partition *p, int rank);
/* Owner of global cell g (g already inside [0, N)). */
int sl_partition_owner(const sl_partition *p, const long g[SL_D]);

/* Cells updated by the stencil in the global grid: all of it when periodic, else minus the frame.
 */
sl_box sl_update_box(const sl_partition *p, const sl_stencil *s, int rank);

/*
 * Builds rank's local layout: boxes, border/inner split and the exact communication pattern.
 * A halo cell is received iff an updated cell of this rank reads it through a non-zero weight
 * (per direction, the bounding box of those cells); a cell is sent iff the peer receives it.
 */
int sl_local_make(sl_local *l, const sl_partition *p, const sl_stencil *s, int rank);

/* No border/inner split: the update box is the one border box and the inner box is empty, so a
   pass updates all its cells before the exchange (as when every cell is sent). */
void sl_local_whole(sl_local *l);

/* Linear index of global cell g in the local array (g inside ext). */
size_t sl_local_index(const sl_local *l, const long g[SL_D]);
/* The box b translated into local indices (relative to ext.lo). */
sl_box sl_local_box(const sl_local *l, const sl_box *b);

/* Minimum part size per dimension for the stencil: max(rlo, rhi), at least 1. */
void sl_min_part(const sl_stencil *s, int minpart[SL_D]);

/*
 * A region around a box, per direction (dirs.c): w[e][d], for each direction slot e
 * (sl_dir_index) and each dimension d where e is not 0, how far beyond the box the region
 * reaches in direction e (the cells beyond the box in e, within the box along the dimensions
 * where e is 0); the box itself is always in. This is the shape of an exact halo. A region
 * with w all 0 is the box.
 *
 * sl_dirs_shift: out grows to hold the cells that the cells of in read at offset off: per
 * direction e, the widest |off + q|_d over the offsets q of in whose sum with off lies beyond
 * the box towards e along every dimension where e is not 0 (nd dimensions; the others 0).
 * sl_dirs_bound: the region's bounding box, as widths b[d][0] below and b[d][1] above the box.
 * sl_dirs_max: out grows to hold in.
 */
void sl_dirs_shift(int out[SL_NDIRS][SL_D], int in[SL_NDIRS][SL_D], int nd, const int off[SL_D]);
void sl_dirs_bound(int w[SL_NDIRS][SL_D], int nd, int b[SL_D][2]);
void sl_dirs_max(int out[SL_NDIRS][SL_D], int in[SL_NDIRS][SL_D]);

#endif /* SL_LAYOUT_H */
