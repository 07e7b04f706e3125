/* One case of the fused k-step program kernels' tests (fuse_case.c). */
#ifndef FUSE_CASE_H
#define FUSE_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "prog.h"

/* What run() computes: k steps of p in type dbl on host arrays (local cell 0 at index 0, row
   stride `stride`, n[0] x n[1] cells), each evolving field f over box[j][f] at step j (local
   [lo, hi) per dimension), into out[f] (level k) and pout[f] (level k - 1, fields that keep a
   previous level) over box[k - 1][f], leaving their other elements as they are; grid: the
   launch of kgt_prog_fuse_grid from u. */
typedef struct fuse_job {
    const kgt_prog *p;
    int dbl, k;
    const void *in[KGT_PROG_MAX_FIELDS], *prev[KGT_PROG_MAX_FIELDS];
    void *out[KGT_PROG_MAX_FIELDS], *pout[KGT_PROG_MAX_FIELDS];
    long origin[2], t, stride, n[2], u[2];
    long box[KGT_PROG_FUSE_MAX][KGT_PROG_MAX_FIELDS][2][2];
    double par[KGT_PROG_MAX_PARAMS];
    size_t bytes; /* of each array */
    unsigned grid[3];
} fuse_job;

typedef int (*fuse_run)(void *ctx, const fuse_job *job);

enum { FUSE_NCASES = 2 };

/* Case bc (0 .. FUSE_NCASES - 1) of p, dbl, fz: the elements that differ (0: all equal). */
long fuse_case(const kgt_prog *p, int dbl, const kgt_prog_fuse *fz, int bc, uint64_t seed,
               fuse_run run, void *ctx);

#endif
