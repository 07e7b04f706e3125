/*
 * The step kernel's plans (kgt_rt.h): the default shape of a stencil and element type, and the
 * checks and sizes of a shape (kgt_step_plan). The kernels themselves: emit_step.c.
 */
#include <stdio.h>
#include <string.h>

#include "kgt_rt.h"

#define STEP_SMEM_MAX (48 * 1024) /* static shared memory of one block */

/*
 * Shapes measured best on an H200 (bench/RESULTS.md, run-time kernels): asynchronous copies
 * where there are any, but for double in 2D and for 1D (one plane: nothing to overlap), where the
 * next row goes through registers, and for float 2D stencils reaching one cell with at most two
 * points in a row other than the centre one (2d4 and 2d-diag ran faster through registers; 2d9,
 * three points a row, and 2d9nc, reaching two, faster with copies); float 2D stencils of at most
 * five points take the vector rows of emit_vec.c (below), and so do those of up to nine points
 * (with split division where the divisor allows it). 3D float stencils, and 3D double ones of at
 * most seven points, take emit_rows3.c's vector rows with running sums (below); other 3D double
 * stencils keep scalar rows on copied tiles (3d7 fp64 ran slower with vector rows on tiles, a
 * family since retired, and with emit_vec.c's single rows). emit_vec.c's single 3D rows (y
 * neighbours through L1) stay as a shape (STENCIL_RTC_SHAPE), no longer a default.
 */
void kgt_step_default(const kgt_stencil *s, int dbl, int pipe, kgt_step_shape *sh)
{
    sh->vec = sh->walk = sh->minb = sh->prefetch = 0;
    /* 2D double: short register walks where a row brings at most two new loads per cell (2d4
       fp64 gained over the shared-memory tile; 2d9, three per row, lost: bench/RESULTS.md). */
    if (s->ndims == 2 && dbl && kgt_row_points(s) <= 2) {
        sh->bx = 128, sh->by = 1, sh->nc = 1, sh->zc = 4, sh->pipe = 0, sh->walk = 4;
        return;
    }
    /* 2D float stencils of at most five points: vector rows, 256 threads walking 4 rows (2d4,
       2d-diag and 2d5asym faster than with the shapes below: bench/RESULTS.md). */
    if (s->ndims == 2 && !dbl && kgt_nonzero_points(s) <= 5) {
        sh->bx = 256, sh->by = 1, sh->nc = 1, sh->zc = 4, sh->pipe = 0, sh->vec = 1, sh->walk = 1;
        return;
    }
    /* Up to nine points, vector rows too, with split division: 2d9 (reach 1, rows prefetched:
       emit_vec.c) best with 128 threads, then 256, then 512; 2d9nc (reach 2) best with 256,
       ahead of 512 and of the shapes below (bench/RESULTS.md). */
    if (s->ndims == 2 && !dbl && kgt_nonzero_points(s) <= 9) {
        sh->bx = kgt_reach_within(s, 2, 1) ? 128 : 256, sh->by = 1, sh->nc = 1, sh->zc = 4,
        sh->pipe = 0;
        sh->vec = 1, sh->walk = 1;
        return;
    }
    /* 3D: vector rows with running sums, nc rows a thread (emit_rows3.c). Float stencils of at
       most seven points: 64 x 2 threads of 2 rows walking 4 planes, CUDA launch bounds asking for
       9 blocks a SM (3d7 slightly faster than without them, ahead of 64 x 4 and of the single
       rows of emit_vec.c); larger ones (3d27): 128 threads of 4 rows walking 32, unrolled twice
       (faster than the copy-tile vector rows); double, at most seven points: 64 x 4 threads of
       2 rows (3d7 faster than the scalar tile; bench/RESULTS.md). */
    if (s->ndims == 3 && kgt_nonzero_points(s) <= 7) {
        sh->bx = 64, sh->by = dbl ? 4 : 2, sh->nc = 2, sh->zc = 4, sh->pipe = 0, sh->vec = 1;
        sh->walk = 1, sh->minb = dbl || !pipe ? 0 : 9; /* 56 registers of an NVIDIA SM's 64K */
    } else if (s->ndims == 3 && !dbl) {
        sh->bx = 128, sh->by = 1, sh->nc = 4, sh->zc = 32, sh->pipe = 0, sh->vec = 1, sh->walk = 2;
        /* Reaching two cells or more, the running sums take so many registers that three
           blocks fit a SM: launch bounds asking for four (3d13 faster, bench/RESULTS.md). */
        if (!kgt_reach_within(s, 3, 1)) sh->minb = 4;
    } else if (s->ndims == 3) {
        sh->bx = dbl ? 64 : 32, sh->by = dbl ? 4 : 8, sh->nc = dbl ? 2 : 4, sh->zc = 128;
        sh->pipe = pipe ? 3 : 0;
    } else {
        sh->bx = 128, sh->by = 1, sh->nc = dbl ? 4 : 8, sh->zc = s->ndims == 2 ? 256 : 1;
        sh->pipe = pipe && !dbl && s->ndims == 2 ? 3 : 0;
        if (sh->pipe && kgt_reach_within(s, 2, 1) && kgt_row_points(s) <= 2) {
            sh->pipe = 0; /* register rows */
            if (kgt_row_points(s) <= 1) sh->bx = 64, sh->nc = 16;
        }
        if (sh->pipe) sh->zc = 512;
        /* Float 2D stencils of more than nine points (the loop above takes the others): four
           cells a thread and 256 rows a block; eight cells took so many registers that three
           blocks fit a SM, and 512 rows left the grid under two waves (2d17 faster,
           bench/RESULTS.md). */
        if (s->ndims == 2 && !dbl && sh->pipe) sh->nc = 4, sh->zc = 256;
    }
}

int kgt_step_plan(const kgt_stencil *s, int dbl, const kgt_step_shape *sh, kgt_step_info *info)
{
    int lo[KGT_MAX_DIMS], hi[KGT_MAX_DIMS];
    memset(info, 0, sizeof *info);
    info->sh = *sh;
    if (s->ndims < 3) info->sh.by = 1;
    if (s->ndims < 2) info->sh.zc = 1;
    const kgt_step_shape *h = &info->sh;
    if (h->bx < 1 || h->by < 1 || h->nc < 1 || h->nc > 16 || h->zc < 1 || h->bx * h->by > 1024 ||
        h->pipe < 0 || h->pipe == 1 || h->pipe > 8 || h->vec < 0 || h->vec > 1 || h->minb < 0 ||
        h->minb > 32)
        return -1;
    kgt_extents(s, lo, hi);
    kgt_wyx(s, lo, info->elo);
    kgt_wyx(s, hi, info->ehi);
    const int v = kgt_types[dbl].vw;
    /* vec: 2D and 3D with a register walk in blocks of whole warps along x (64 threads: AMD's
       too) */
    if (h->vec && (!h->walk || s->ndims < 2 || h->bx % 64)) return -1;
    if (h->walk < 0 || h->walk > KGT_WALK_MAX ||
        (h->walk && ((s->ndims != 2 && !h->vec) || h->pipe ||
                     (h->nc != 1 && !(h->vec && s->ndims == 3 && h->nc <= 8)))))
        return -1;
    info->tx = h->bx * (h->vec ? v : s->ndims == 3 ? 1 : h->nc);
    info->ty = s->ndims == 3 ? h->by * h->nc : 1;
    size_t w = (size_t)(info->tx + info->elo[2] + info->ehi[2]); /* vec: no tile (walk) */
    size_t rows = (size_t)(info->ty + info->elo[1] + info->ehi[1]);
    info->smem = h->walk ? 0 : (size_t)(h->pipe ? h->pipe : 2) * w * rows * (dbl ? 8 : 4);
    if (info->smem > STEP_SMEM_MAX) return -1;
    info->split = !dbl && (!h->walk || h->vec) && kgt_split_divisor(s->divisor, &info->rd);
    snprintf(info->name, sizeof info->name, "kgt_step_%s_%c", s->stem, dbl ? 'd' : 'f');
    return 0;
}

/*
 * Whether kgt's named one-step launcher of s is the step kernel's, the run-time kernel's source
 * (else kgt's walk kernels'): the plan must hold on HIP (registers) and CUDA (copies). 2D double
 * stencils whose divisor has no exact reciprocal keep kgt's vector walk (2d9nc fp64 ran faster
 * with it than with the step kernel, bench/RESULTS.md).
 */
int kgt_gpu_step(const kgt_stencil *s, int dbl)
{
    kgt_step_shape sh;
    kgt_step_info in;
    if (dbl && kgt_gpu_vector(s, dbl)) return 0;
    for (int pipe = 0; pipe < 2; pipe++) {
        kgt_step_default(s, dbl, pipe, &sh);
        if (kgt_step_plan(s, dbl, &sh, &in)) return 0;
    }
    return 1;
}
