/*
 * What the emulation tests of the streaming kernels (test_stream_emul.c, 2D; test_stream3_emul.c,
 * 3D) and of the program kernels (test_prog_emul.c: emul_find_prog, emul_main) share: the kgt files
 * they read, the arrays of a case, the serial reference of L steps and the bitwise comparison.
 * Arrays are row-major of nd = 2 or 3 dimensions n.
 */
#ifndef EMUL_COMMON_H
#define EMUL_COMMON_H

#include <check.h>
#include <stddef.h>

#include "kgt_rt.h"
#include "prog.h"
#include "testutil.h"

/* The stencil of the files given on the command line named name, or NULL. */
const kgt_stencil *emul_find(const char *name);

/* The program of those files named name, or NULL; how many programs they hold. */
const kgt_prog *emul_find_prog(const char *name);
int emul_nprogs(void);

/* ks as the reference takes it, in element type dbl; st->weights is malloc'ed (free it). */
void emul_desc(const kgt_stencil *ks, int dbl, stencil_desc *st);

/* One case: array n, box [lo, hi), live [llo, lhi) (the first nd dimensions). */
typedef struct emul_case {
    long n[3], lo[3], hi[3], llo[3], lhi[3];
} emul_case;

/* The input (random inside the cells the kernels may read, [a, b), NaN elsewhere), the output
   (-7.25, to be left untouched outside the box) and the reference of `levels` steps, all
   malloc'ed; *bytes their size. */
void emul_arrays(const stencil_desc *st, const emul_case *c, const long *a, const long *b,
                 int levels, unsigned long seed, void **in, void **out, void **ref, size_t *bytes);

/* Cells of out and ref that differ bitwise; frees in, out and ref. */
long emul_compare(const stencil_desc *st, void *in, void *out, void *ref, size_t bytes);

/* Parses the files argv[1..], runs test over [0, count) in one suite; the exit status. */
int emul_main(int argc, char **argv, const char *suite, const TTest *test, int count);

#endif
