/* kgt --explain (explain.c): the command's report of the kernels each stencil gets. */
#ifndef KGT_EXPLAIN_H
#define KGT_EXPLAIN_H

#include <stdio.h>

#include "kgt.h"

/* For each stencil of g->file, its kernel families and plans, one line each, to f; 0 or -1. */
int kgt_explain(FILE *f, const kgt_gen *g);

#endif
