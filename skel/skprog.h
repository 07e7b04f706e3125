/*
 * Program runs (stencil_program_*): a stencil_run whose sk_run has `prog` set. The files:
 *   prog_api.c    the public calls: parsing, parameters, create, skeleton, norms
 *   prog_setup.c  partition, one local layout for every field, device, buffers, init
 *   prog_steps.c  T, the time steps per exchange, and what a pass of T steps reads of each level
 *   prog_links.c  the halo links of every field and level, exactly as deep as a pass reads
 *   prog_bound.c  the ghosts of mirror and constant faces
 *   prog_face.c   a linear stencil with a boundary per face, as a program
 *   prog_image.c  tiles for the callbacks, checkpoints
 *   prog_weights.c  automatic weights: calibration rounds that time the program's steps
 *   prog_ooc.c    out of core: the levels in host memory, streamed through the device in sweeps
 *   prog_loop.c   per pass of T steps: halos of the fields read across cells, ghosts of mirror
 *                 and constant faces, the updates, the rotation of the time levels; norms
 *
 * The layout: every field has the same local array, the owned box widened on every side by the
 * union of what a pass of T steps reads of any field (R), also beyond the global edges, so that
 * the ghosts of mirror and constant faces have a place. Halos travel per field and level, in
 * the 3^d - 1 directions, as deep as a pass reads that way; a direction wraps where that field is
 * periodic. A field read only at offset 0 (level not read across cells) exchanges nothing at
 * T = 1. Step k of a pass computes each field over what the later steps read of it (prog_steps.c),
 * and refills the ghosts of mirror and constant faces before the next step.
 */
#ifndef SK_SKPROG_H
#define SK_SKPROG_H

#include "prog.h"
#include "skel.h"

/* Host staging of one field level's links (send and receive per direction). */
typedef struct sk_plink {
    int peer, stag, rtag;
    sl_box send, recv; /* local indices */
    size_t sbytes, rbytes;
    void *sbuf, *rbuf;
    int self;    /* our own neighbour: recv copied on the device from ssrc, no message */
    sl_box ssrc; /* local indices */
} sk_plink;

typedef struct sk_pslot {
    int field, level; /* level 0: current, -1: previous */
    int gw[SL_D][2];  /* ghosts of mirror and constant faces: how deep, per dimension and side */
    int n;
    sk_plink link[SL_NDIRS];
} sk_pslot;

typedef struct sk_prog {
    kgt_prog *p;
    double par[KGT_PROG_MAX_PARAMS];
    long n[SL_D]; /* global sizes */
    int R[SL_D][2];
    int periodic[KGT_PROG_MAX_FIELDS][SL_D];
    /* Levels of field f: cur, prv (fields that keep it) and nxt (evolving fields). */
    sb_mem cur[KGT_PROG_MAX_FIELDS], prv[KGT_PROG_MAX_FIELDS], nxt[KGT_PROG_MAX_FIELDS];
    sl_box box[KGT_PROG_MAX_FIELDS]; /* update box per evolving field, global */
    /* box split: inner cells no halo, send or ghost touches, and 2 * ndims border slabs */
    sl_box inner[KGT_PROG_MAX_FIELDS], border[KGT_PROG_MAX_FIELDS][2 * SL_D];
    long long cells[KGT_PROG_MAX_FIELDS]; /* global count of its updated cells */
    int nslot;
    sk_pslot slot[2 * KGT_PROG_MAX_FIELDS];
    MPI_Request *req;
    MPI_Status *st; /* not STATUSES_IGNORE (skel.h) */
    void *gbuf;     /* a ghost slab on the host (prog_bound.c) */
    int dcopy;      /* the backend copies box to box on the device (copy_peer) */
    int staged[2];  /* links through host staging of non-coefficient (0) and coefficient slots */
    unsigned long long hash; /* of the program text (checkpoints) */
    int linear; /* a linear stencil with options.face (prog_face.c): tiles show no field */
    /* r->host: the host image of one level (the callbacks' tile, ghost fills) */
    int T;     /* time steps per exchange (prog_steps.c) */
    int xprev; /* T > 1: the previous levels travel at every exchange too */
    /* hw[f][0], [1]: the halo of field f's current and previous level per direction
       (layout.h, sl_dirs_shift), exactly what a pass reads of them */
    int hw[KGT_PROG_MAX_FIELDS][2][SL_NDIRS][SL_D];
    /* bw[k + 1][f]: how far beyond the owned box level k (-1 .. T) of a pass must be valid, per
       dimension and side: what step k computes, and how deep its ghosts go */
    int bw[SL_MAX_STEPS + 2][KGT_PROG_MAX_FIELDS][SL_D][2];
    struct sk_pooc *ooc; /* out of core (prog_ooc.c): r->dev is the host backend on the levels */
    /* fuse >= 2: that many steps of a pass at most run as one prog_update_k (prog_loop.c,
       sk_prog_fusable: the substeps, or the whole pass where no message overlaps its last
       step); spr: the extra level it writes of a field that keeps its previous one */
    int fuse;
    sb_mem spr[KGT_PROG_MAX_FIELDS];
} sk_prog;

/* prog_setup.c */
int sk_prog_setup(sk_run *r, const long *sizes, const char *text, const double *par,
                  stencil_type type, stencil_init_fn init, int linear);
void sk_prog_free(sk_run *r);

/* The slots a pass exchanges (the current level of evolving fields; at T = 1 the previous
   level's halos are those it had as the current one, at T > 1 it travels too) or set-up (all,
   coefficients and previous levels too). */
enum { SK_SEL_STEP = 0, SK_SEL_ALL = 1 };
static inline int sk_slot_in(const sk_prog *sp, const sk_pslot *s, int sel)
{
    return sel == SK_SEL_ALL || (!sp->p->f[s->field].coef && (s->level == 0 || sp->xprev));
}

/* prog_steps.c: T (r->steps, r->why) and the tables hw, bw, R for it, after the partition;
   collective. sk_prog_cbox: the box step k (1 .. T) computes of field f, global. sk_prog_frames:
   the cells of the local array in the fixed frames of field f (at most 2 * ndims boxes). */
int sk_prog_steps(sk_run *r);
sl_box sk_prog_cbox(const sk_run *r, int f, int k);
int sk_prog_frames(const sk_run *r, int f, sl_box *slab);

/* Whether evolving field f has a mirror or constant face: its ghosts are refilled between
   steps, so no fused run of steps may cover them. */
static inline int sk_prog_refilled(const kgt_prog *p, int f)
{
    for (int d = 0; d < p->ndims && !p->f[f].coef; d++)
        for (int e = 0; e < 2; e++)
            if (p->f[f].bc[d][e].kind == KGT_B_MIRROR || p->f[f].bc[d][e].kind == KGT_B_CONST)
                return 1;
    return 0;
}

/* Whether fused runs of steps (sb_prog_steps) may replace p's substeps: no ghosts refilled
   between steps, and no previous level read farther than its current one (a fused launch
   writes level k - 1 only over the last step's box, which the last step's reads of the current
   level cover, and the step after it reads that level as its previous one). */
static inline int sk_prog_fuse_reads(const kgt_prog *p)
{
    for (int f = 0; f < p->nf; f++) {
        if (sk_prog_refilled(p, f)) return 0;
        for (int d = 0; d < p->ndims; d++)
            for (int e = 0; e < 2; e++)
                if (p->f[f].keeps && p->f[f].preach[d][e] > p->f[f].reach[d][e]) return 0;
    }
    return 1;
}

/* Whether a field of p keeps its previous level (out of core, its chunks stay trapezoids). */
static inline int sk_prog_keeps(const kgt_prog *p)
{
    for (int f = 0; f < p->nf; f++)
        if (p->f[f].keeps) return 1;
    return 0;
}

/* The buffers p's levels take: per evolving field its current and next level and, where it
   keeps one, its previous level, with one more where fused runs of steps write the level before
   their last (fused); per coefficient field one. */
static inline int sk_prog_levels(const kgt_prog *p, int fused)
{
    int n = 0;
    for (int f = 0; f < p->nf; f++)
        n += 1 + !p->f[f].coef + (p->f[f].keeps != 0) * (1 + (fused != 0));
    return n;
}

/* prog_ooc.c: whether this rank runs out of core (options.out_of_core, device_memory); the
   start (the opened device moved aside, r->dev the host backend, chunk buffers); the chunk
   buffers freed, and everything released; sk_prog_update is the update of a step, in core or
   out of core. */
int sk_prog_ooc_want(sk_run *r, int *want);
int sk_prog_ooc_start(sk_run *r);
void sk_prog_ooc_free(sk_run *r);
void sk_prog_ooc_release(sk_run *r);
int sk_prog_update(sk_run *r, int q, const sb_prog_step *s);
/* Whether a pass of T steps is one sweep of the chunks; the host levels, pinned where the
   device gives it (alloc and free). SK_POOC_SETS: the sets of chunk buffers of a pipelined
   sweep (the automatic T out of core, prog_steps.c, counts them). */
enum { SK_POOC_SETS = 3 };
int sk_prog_ooc_multi(const sk_run *r);
int sk_prog_ooc_level(sk_run *r, size_t bytes, sb_mem *m);
/* A link of a pass's exchange that the sweeps make on the device, not the host: the rank's own
   halos (prog_ooc.c). */
int sk_prog_ooc_local(const sk_run *r, const sk_plink *l);
void sk_prog_ooc_level_free(sk_run *r, sb_mem m);

/*
 * A sweep out of core: m steps of every chunk of rows of dimension 0 while its levels are on
 * the device. Step j (0 .. m - 1, number t + j) computes box[j][f] (local indices), within
 * ex[j][f] rows below and above the rows the chunk computes of the last level (the rows later
 * steps read of it); the levels are read from the host's src (current) and srcp (previous),
 * the last one comes down into dst and, where pen[f] is not NULL, the one before into pen (the
 * chunks' steps make sure that it exists). Between two steps the new level's
 * mirror ghosts are refilled, as deep as a pass's step k0 + j reads them (sp->bw).
 * sk_prog_ooc_sweeps: the run's.
 */
typedef struct sk_psweep {
    int m, k0; /* k0: the first step's number within a pass of T (1 .. T) */
    long t;
    const double *par;
    sl_box box[SL_MAX_STEPS][KGT_PROG_MAX_FIELDS];
    int ex[SL_MAX_STEPS][KGT_PROG_MAX_FIELDS][2];
    sb_mem src[KGT_PROG_MAX_FIELDS], srcp[KGT_PROG_MAX_FIELDS];
    sb_mem dst[KGT_PROG_MAX_FIELDS], pen[KGT_PROG_MAX_FIELDS];
} sk_psweep;
sk_psweep *sk_prog_ooc_sweeps(sk_run *r);
void sk_prog_ooc_sweep(sk_run *r, sk_psweep *w);

/* prog_links.c: the slots and their links, staging buffers, requests (after the levels). */
int sk_prog_links(sk_run *r);

/* prog_bound.c: the ghosts of mirror and constant faces of the slots sel takes, after their
   exchange; sk_prog_ghost_level: of level k of every evolving field, in cur, within a pass;
   errors into r->rc. */
void sk_prog_ghosts(sk_run *r, int sel);
void sk_prog_ghost_level(sk_run *r, int k);
/* Out of core: the mirror ghosts of field f's level in a chunk buffer holding rows [base, top)
   of the local array, w[d][s] deep, on dev's queue q (batched in held; 0 or a STENCIL_E*); the
   cells a level of field f carries unchanged, which no step writes: its fixed frames and the
   ghosts of its constant faces (global, at most 2 * ndims slabs), which the sweeps carry from
   level to level. */
int sk_prog_ghosts_rows(sk_run *r, sb_dev *dev, int q, sk_copies *held, int f, sb_mem m,
                        const int (*w)[2], long base, long top);
int sk_prog_carried(const sk_run *r, int f, sl_box *slab);

/* prog_face.c: a linear stencil with options.face set (sk_face_any) run as a program. */
int sk_face_any(const stencil_options *o);
int sk_face_setup(sk_run *r, const long *sizes, const stencil_desc *st, const char *kernel,
                  stencil_init_fn init);

/* prog_image.c: tiles, init, view, checkpoints */
unsigned long long sk_prog_hash(const char *text);
void sk_prog_tile(sk_run *r, stencil_tile *t, int f, int level);
int sk_prog_init(sk_run *r, stencil_init_fn init);
int sk_prog_view(sk_run *r, stencil_output_fn fn);
int sk_prog_checkpoint(sk_run *r, const char *path);
int sk_prog_load(sk_run *r, const char *path);
/* options.monitor of a program run: called per field with its tile and change (changes[f]); 1
   from any call on any rank stops every rank (*stop). Collective. */
int sk_prog_monitor(sk_run *r, const stencil_norm *changes, int *stop);

/* prog_weights.c: r->weights as sk_weights sets them, a calibration timing the program given by
   text (sk_prog_setup's arguments) on each round's partition. Collective, agreed. */
int sk_prog_weights(sk_run *r, const long *sizes, const char *text, stencil_type type, int linear);

/* prog_loop.c; sk_prog_fusable: the steps of a pass the device may fuse, after the device
   opened and the levels were allocated (0 or 1: none) */
int sk_prog_halos_all(sk_run *r);
int sk_prog_fusable(const sk_run *r);
int sk_prog_advance(sk_run *r, long n, stencil_norm *changes, int nchanges);

#endif
