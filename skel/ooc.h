/*
 * What the parts of out-of-core runs share: ooc_decide.c (whether a rank goes out of core, and
 * with what T), ooc.c (the host copies, the chunk buffers, start and release), ooc_chunk.c (the
 * chunk geometry), ooc_sweep.c (the sweeps), ooc_probe.c (the probe for T) and ooc_stats.c.
 */
#ifndef SK_OOC_H
#define SK_OOC_H

#include "skel.h"

#define ODEV(r, call)                                                                              \
    do {                                                                                           \
        if (!(r)->rc) {                                                                            \
            int e_ = (call);                                                                       \
            if (e_) (r)->rc = err_set((r)->msg, sizeof(r)->msg, e_, "%s", (r)->ooc->dev.err);      \
        }                                                                                          \
    } while (0)

/* The largest T of an out-of-core sweep, for a stencil of reach 1 (sk_ooc_want); in 3D less, since
   the composed halo pattern grows with the cube of T. */
#define SK_OOC_MAX   SL_MAX_STEPS
#define SK_OOC_MAX3D 64

/* The host copies: the two time levels (two allocations, or one mapping); the current one is also
   the host image the callbacks see. */
enum { OOC_ARRAYS = 2 };

/* Chunk buffers: two for the chunk being updated, one coming down that the next chunk goes up
   into behind the download, in OOC_PIECES ranges of rows (ooc_sweep.c); with a fourth
   ($STENCIL_OOC_BUFS=4, for experiments), the next chunk goes up into a buffer of its own. */
enum { OOC_BUFS = 3, OOC_MAXBUFS = 4, OOC_PIECES = 8 };

struct sk_ooc {
    sb_dev dev;             /* the rank's device: chunk buffers only */
    int dev_open;           /* dev must be closed */
    sb_mem cb[OOC_MAXBUFS]; /* chunk buffers (ooc_sweep.c says how they rotate) */
    int nbufs;              /* how many: OOC_BUFS, or OOC_MAXBUFS for experiments */
    long rows;              /* owned rows per chunk (the last may have fewer) */
    long cap;               /* rows a chunk buffer holds */
    int nchunks;            /* chunks per sweep */
    size_t row_bytes;       /* bytes of one row of the local array (dimension 0) */
    size_t bytes;           /* bytes of one local array */
    void *arr[OOC_ARRAYS];
    int pinned[OOC_ARRAYS];   /* from dev.host_alloc, else calloc (or the mapping) */
    void *map;                /* the file mapping holding all three, or NULL */
    long long limit;          /* the device memory limit (0: none) */
    long long up, down;       /* bytes moved */
    int dcopy;                /* the device copies between its buffers (copy_peer) */
    int depth;                /* steps per launch: a fused update's (fuse_depth), else 1 */
    long *a;                  /* chunk i owns rows [a[i], a[i + 1]) (local indices) */
    int skew;                 /* parallelograms between chunks, through the carry (ooc_chunk.c) */
    sb_mem carry;             /* rows chunk i passes to chunk i + 1, one range per parity */
    long ccap;                /* rows of one range of the carry (0: no room, no parallelograms) */
    long sweeps;              /* sweeps done */
    double t_sweeps;          /* the time they took */
    double cells_all;         /* cells times steps they updated */
    long long bytes_all;      /* bytes they moved */
    int serialized;           /* a sweep ran its stages one after another */
    int ahead, ahead_T;       /* 1 + the buffer holding the next sweep's chunk 0 for T = ahead_T */
    int pend, pend_i, pend_T; /* 1 + the buffer of chunk pend_i of a sweep of pend_T steps still
                                 to come down (the next sweep's first stage submits it) */
};

/* Times an upload (beside a download) and an update of the first chunk: r->ooc_bw and
   r->ooc_rate (ooc_probe.c). sk_ooc_want: the T of least modelled time for r->iters steps. */
void sk_ooc_probe(sk_run *r);
int sk_ooc_want(const sk_run *r);

/* The device memory limit (options, else $STENCIL_DEVICE_MEMORY) into *limit; 0: none
   (ooc_decide.c). Fails on a bad value. */
int sk_ooc_limit(sk_run *r, long long *limit);

/*
 * Level S of chunk i, inside the live box, as a box of the chunk's buffer (row 0: local row base);
 * rows [*lo, *hi) of the local array clipped to it as box b of such a buffer, 0 when none is left
 * (ooc_sweep.c).
 */
sl_box sk_ooc_box(const sk_run *r, int i, int T, int S, long base);

/* The larger reach along dimension 0, max(rlo[0], rhi[0]) (ooc_chunk.c). */
long sk_ooc_reach0(const sk_run *r);
int sk_ooc_chunk_rows(const sk_run *r, long base, long *lo, long *hi, sl_box *b);

/* Host memory for transfers: pinned where the device gives it (1), else calloc (0; *p NULL when
   neither); sk_ooc_host_put releases it either way (ooc.c). */
int sk_ooc_host_get(sk_ooc *o, size_t bytes, void **p);
void sk_ooc_host_put(sk_ooc *o, void *p, int pinned);
/* The out-of-core file (ooc.c): sk_ooc_file_base the path options.ooc_file or $STENCIL_OOC_FILE
   gives (NULL: none); sk_ooc_file_open creates "<base>.<rank>", a regular file, unlinks it and
   cuts it to nothing (*fd, else a failure into r); sk_ooc_file_map its bytes from at (a multiple
   of the page size) allocated and mapped, NULL with *err (0: the mapping failed) else. */
const char *sk_ooc_file_base(const sk_run *r);
int sk_ooc_file_open(sk_run *r, const char *base, int *fd);
void *sk_ooc_file_map(int fd, long long at, size_t bytes, int *err);

/*
 * Chunk geometry (ooc_chunk.c). sk_ooc_groups: the step groups of a sweep of T steps, k[0..m-1]
 * (non-decreasing), returns m. sk_ooc_cap: the rows of a chunk buffer for sweeps of T steps under
 * the device memory limit (o->limit), and the carry's (*ccap; 0: no room); sk_ooc_fits whether
 * those buffers hold a chunk at all (one owned row and T steps of halo rows), the test that
 * allocating them makes (ooc.c). sk_ooc_shape: owned rows
 * of the first and the other chunks and their count, for buffers of cap rows and sweeps of T steps;
 * 1 for parallelograms. sk_ooc_split: the rows of the first and the other chunks when n chunks
 * share `owned` rows (the first as large as *first may be with parallelograms, the others even,
 * the last perhaps fewer; all even without). sk_ooc_layout: o->a, o->nchunks, o->skew for o->cap
 * and r->steps. sk_ooc_rows: chunk i's owned rows. sk_ooc_level: the rows of level S (a group's
 * end) chunk i computes. sk_ooc_base: the local row of chunk i's buffer row 0. sk_ooc_upload_rows:
 * the input rows chunk i uploads, and from which row on its second buffer takes them too.
 * sk_ooc_carry_rows: the rows of parity p chunk i takes from chunk i - 1 (0: none).
 */
int sk_ooc_groups(const sk_run *r, int T, int *k);
long sk_ooc_cap(const sk_run *r, int T, long *ccap);
int sk_ooc_fits(const sk_run *r, int T);
int sk_ooc_shape(const sk_run *r, long cap, int T, long *first, long *rest, int *n);
void sk_ooc_split(long owned, int n, int skew, long *first, long *rest);
int sk_ooc_layout(sk_run *r);
void sk_ooc_rows(const sk_run *r, int i, long *a, long *b);
void sk_ooc_level(const sk_run *r, int i, int T, int S, long *lo, long *hi);
long sk_ooc_base(const sk_run *r, int i, int T);
void sk_ooc_upload_rows(const sk_run *r, int i, int T, long *lo, long *hi, long *dup);
int sk_ooc_carry_rows(const sk_run *r, int i, int T, int p, long *lo, long *hi);

#endif /* SK_OOC_H */
