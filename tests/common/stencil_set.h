/*
 * The stencil set of the tests, examples and benchmarks (docs/STENCILS.md) as ready-made
 * stencil_desc values. Each desc points at a static dense weight array; nothing is allocated.
 *
 *   stencil_desc st;
 *   stencil_set_get(stencil_set_find("2d9"), STENCIL_FLOAT, &st);
 */
#ifndef STENCIL_SET_H
#define STENCIL_SET_H

#include "stencil.h"

/* Number of stencils in the set (15); indices are 0 .. count-1, in docs/STENCILS.md order. */
int stencil_set_count(void);
/* Name of stencil i ("1d3", "2d9", "3d-oct", ...), or NULL when i is out of range. */
const char *stencil_set_name(int i);
/* Index of the stencil called name, or -1. */
int stencil_set_find(const char *name);
/* Fills *out with stencil i and element type t; returns 0, or -1 when i is out of range. */
int stencil_set_get(int i, stencil_type t, stencil_desc *out);

#endif /* STENCIL_SET_H */
