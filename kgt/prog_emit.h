/*
 * Programs, what the kernel emitters share (prog_emit.c: host, OpenCL, ahead-of-time CUDA/HIP;
 * prog_gpu.c: the run-time CUDA/HIP kernel): the args struct, declarations, one cell's body.
 */
#ifndef KGT_PROG_EMIT_H
#define KGT_PROG_EMIT_H

#include "prog.h"

extern const char *const kgt_pe_tnames[2];

/* Index arithmetic: the integer type of cell indices and strides, and whether every field has
   the strides of field 0 (one layout: the compiler then shares the index of a cell between
   fields). The run-time CUDA/HIP kernel narrows both where the caller says they hold. */
typedef struct kgt_pe_ix {
    const char *t;
    int shared;
} kgt_pe_ix;
extern const kgt_pe_ix kgt_pe_long, kgt_pe_int;

/* The fields e reads (fu[nf]), lets included, each let's tree walked once (seen[nlet]). */
void kgt_pe_fields_used(const kgt_prog *p, const kgt_pnode *n, char *fu, char *seen);
/* The args struct of one element type (once per translation unit). */
void kgt_pe_args(kgt_buf *b, int dbl);
/* Parameters p_NAME, arrays f_NAME / pf_NAME and strides s_NAME_d from `a.` or `a->`. */
void kgt_pe_decls(kgt_buf *b, const kgt_prog *p, int dbl, const char *a, kgt_pe_ix ix);
/* Field f's update at local cell (x0, ...) into out (an array expression), ind the indent. */
void kgt_pe_cell(kgt_buf *b, const kgt_prog *p, int f, int dbl, int target, const char *out,
                 const char *ind, kgt_pe_ix ix);
/* The cell's global index g0.. from a's origin (a NULL: OpenCL's m). */
void kgt_pe_index(kgt_buf *b, const kgt_prog *p, const char *a, const char *ind);
/* min, max, division and sqrt of a target and type (once per translation unit). */
void kgt_pe_helpers(kgt_buf *b, int target, int dbl);

/* The run-time CUDA/HIP kernels' cells from registers (prog_gpu.c, prog_vec.c): the lets every
   update uses (used[nlet]), and those lets of one cell as registers rg give them. */
void kgt_pe_lets_all(const kgt_prog *p, char *used);
void kgt_pe_reg_lets(kgt_buf *b, const kgt_prog *p, int dbl, const char *used, const kgt_pregs *rg);

/* The fused kernels' args struct kgt_prog_fuse_args_f / _d, tiles and vector rows alike (once
   per translation unit; prog_emit.c). */
void kgt_pe_fuse_args(kgt_buf *b, int dbl);
/* The vector rows' check and grid (prog_vfuse.c; kgt_prog_fuse_check and _grid call them for
   v > 0), and their kernel (kgt_prog_emit_gpu_fused calls it). */
int kgt_prog_vfuse_check(const kgt_prog *p, int dbl, const kgt_prog_fuse *fz);
void kgt_prog_vfuse_grid(const kgt_prog *p, const kgt_prog_fuse *fz, const long *n, unsigned *grid);
void kgt_prog_emit_gpu_vfused(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                              const kgt_prog_fuse *fz);

/* The one-cell-a-thread CUDA/HIP kernel of one type over the union of the boxes (kgt's
   ahead-of-time kernel; rtc: C linkage, for NVRTC, in ix's index type). */
void kgt_pe_gpu_kernel1(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl, int rtc,
                        kgt_pe_ix ix);

#endif
