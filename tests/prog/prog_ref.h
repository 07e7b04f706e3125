/*
 * Helpers of the program tests (tests/prog): the serial reference (kgt's interpreter over the
 * whole grid), random data the same on every rank, and the callbacks that fill tiles and
 * compare them with the reference bitwise.
 */
#ifndef TP_PROG_REF_H
#define TP_PROG_REF_H

#include <check.h>
#include <stddef.h>

#include "prog.h"
#include "stencil.h"

typedef struct prog_case {
    const char *text;
    long n[3];
    int binary; /* 0/1 data (Game of Life) */
} prog_case;

typedef struct ctx {
    const stencil_program *prog;
    int binary, dbl;
    void *ref[KGT_PROG_MAX_FIELDS]; /* the expected current level, whole grid */
    long bad, seen;
} ctx;

/* The serial reference: levels of every field over the whole grid, stepped in place. */
typedef struct ref {
    kgt_prog *p;
    int dbl;
    long n[3], total;
    void *cur[KGT_PROG_MAX_FIELDS], *prev[KGT_PROG_MAX_FIELDS], *out[KGT_PROG_MAX_FIELDS];
    double par[KGT_PROG_MAX_PARAMS];
    double l2[KGT_PROG_MAX_FIELDS], max[KGT_PROG_MAX_FIELDS];
} ref;

/* The test programs (prog_cases.c) and an init that leaves the tile as it is. */
extern const prog_case tp_cases[];
extern const int tp_ncases;
int tp_noop_init(stencil_tile *t, void *user);

/* Random value of field f, level lv (0 or -1), global cell g: the same on every rank. */
double value(int f, int lv, const long *g, int binary);
/* The init callback (user: a ctx) and the output callback counting differences into ctx. */
int init(stencil_tile *t, void *user);
int check_out(const stencil_tile *t, void *user);
void ref_init(ref *R, const prog_case *pc, int dbl);
/* Step t of the reference, with the change of each field kept in l2/max. */
void ref_step(ref *R, long t);
void ref_free(ref *R);
long sum_long(long v);
stencil_program *parse(const char *text);
/* $STENCIL_BACKEND, else host. */
const char *test_backend(void);
/* Options of the tests: that backend, bands or blocks, quiet. */
void opts(stencil_options *o, int blocks);
/* What most tests start with: the program parsed, its reference at step 0, a ctx for the
   callbacks (the program's fields, dbl), and options (opts) whose user is that ctx. */
typedef struct tp_env {
    stencil_program *p;
    ref R;
    ctx c;
    stencil_options o;
} tp_env;
void tp_begin(tp_env *e, const prog_case *pc, int dbl, int blocks);
void tp_end(tp_env *e);
/* A persistent run of e's program on grid n with e->o, double: advances of adv[0 .. nadv - 1]
   steps, the first parameter (where there is one) set to 0.125 before the last advance, which
   returns the changes; those, and the view at the end, checked against the reference stepped
   alike, bitwise; the run's statistics into *st. */
/* The whole run of e's program on pc's grid (e's type) through stencil_program_skeleton with
   e->o (stats into *st), iters steps, checked bitwise against the reference stepped alike; what
   names the run in messages. */
void tp_skeleton(tp_env *e, const prog_case *pc, long iters, stencil_stats *st, const char *what);
void tp_persistent(tp_env *e, const long *n, const long *adv, int nadv, stencil_stats *st);

/*
 * The whole grid of every field as a run's output callback saw it, to compare two runs bitwise.
 * Its first member is the ctx init takes (options.user may point at a tp_grid). tp_grid_sync
 * assembles the tiles of every rank of comm (an OR of bytes: each cell is owned once).
 */
typedef struct tp_grid {
    ctx c;
    long total;
    size_t es;
    unsigned char *a[KGT_PROG_MAX_FIELDS];
} tp_grid;
void tp_grid_init(tp_grid *g, const tp_env *e);
/* Two grids, as tests compare them: tp_grid_init of both. */
void tp_grid_pair(tp_grid *a, tp_grid *b, const tp_env *e);
/* A tile of the whole grid of R's sizes over data (row-major), of field (may be NULL). */
void tp_whole_tile(stencil_tile *t, const ref *R, void *data, const char *field);
/* An assembled grid against the reference's current levels: c->bad and c->seen counted anew
   (c->ref set to R's). */
void tp_grid_check(const tp_grid *g, const ref *R, ctx *c);
int tp_grid_out(const stencil_tile *t, void *user);
void tp_grid_sync(tp_grid *g, MPI_Comm comm);
/* Bytes that differ between two grids of the same program, over every field. */
long tp_grid_diff(const tp_grid *a, const tp_grid *b);
void tp_grid_free(tp_grid *g);

/* The main of a program test: MPI, *rank and *nranks, one test case filled by add, the suite
   run (cksuite.h); the exit status. */
int tp_main(int argc, char **argv, const char *name, void (*add)(TCase *), int *rank, int *nranks);

#endif
