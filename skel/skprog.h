/*
 * Program runs (stencil_program_*): a stencil_run whose sk_run has `prog` set. The files:
 *   prog_api.c    the public calls: parsing, parameters, create, skeleton, norms
 *   prog_setup.c  partition, one local layout for every field, device, buffers, init
 *   prog_bound.c  the ghosts of mirror and constant faces
 *   prog_face.c   a linear stencil with a boundary per face, as a program
 *   prog_image.c  tiles for the callbacks, checkpoints
 *   prog_loop.c   per step: halos of the fields read across cells, ghosts of mirror and
 *                 constant faces, the update, the rotation of the time levels; norms and view
 *
 * The layout: every field has the same local array, the owned box widened on every side by the
 * union of what any update reads of any field (R), also beyond the global edges, so that the
 * ghosts of mirror and constant faces have a place. Halos travel per field and level, in all
 * 3^d - 1 directions, R wide; a direction wraps where that field is periodic. A field read only at
 * offset 0 (level not read across cells) exchanges nothing.
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
} sk_prog;

/* prog_setup.c */
int sk_prog_setup(sk_run *r, const long *sizes, const char *text, const double *par,
                  stencil_type type, stencil_init_fn init, int linear);
void sk_prog_free(sk_run *r);

/* The slots a step exchanges (the current level of evolving fields; the previous level's halos
   are those it had as the current one) or set-up (all, coefficients and previous levels too). */
enum { SK_SEL_STEP = 0, SK_SEL_ALL = 1 };
static inline int sk_slot_in(const sk_prog *sp, const sk_pslot *s, int sel)
{
    return sel == SK_SEL_ALL || (!sp->p->f[s->field].coef && s->level == 0);
}

/* prog_bound.c: the ghosts of mirror and constant faces of the slots sel takes, after their
   exchange; errors into r->rc. */
void sk_prog_ghosts(sk_run *r, int sel);

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

/* prog_loop.c */
int sk_prog_halos_all(sk_run *r);
int sk_prog_advance(sk_run *r, long n, stencil_norm *changes, int nchanges);

#endif
