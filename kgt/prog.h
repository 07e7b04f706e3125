/*
 * Stencil programs: several fields, coefficient fields, parameters and non-linear update
 * expressions (kgt/README.md, "Programs"). The layers, bottom up:
 *   prog_lex.c      tokens of one line of a program block
 *   prog_expr.c     expressions into a typed tree (kgt_pnode), names resolved, types checked
 *   prog_parse.c    the statements of a block (`program NAME ... end`), from kgt's file or a string
 *   prog_analyse.c  per-field reach, frames and boundary consistency, when the block closes
 *   prog_print.c    one expression as text for a target (C, OpenCL C, CUDA/HIP)
 *   prog_emit.c     whole kernels around the printed updates, and kgt's program outputs
 *   prog_eval.c     the reference interpreter: one step on the whole grid, boundaries applied
 * Nothing here includes the library; like the rest of kgt it is C99 on libc and libm.
 */
#ifndef KGT_PROG_H
#define KGT_PROG_H

#include "kgt.h"

#define KGT_PROG_MAX_FIELDS 16
#define KGT_PROG_MAX_PARAMS 64
#define KGT_PROG_MAX_LETS   256
#define KGT_PROG_MAX_NAME   63

/* Node kinds. Leaves first, then unary, binary and the select. */
enum {
    KP_NUM,   /* a literal: num, converted to the element type as written */
    KP_PARAM, /* parameter ref */
    KP_READ,  /* field ref at off (prev: its previous time level) */
    KP_INDEX, /* the cell's global index along dimension ref */
    KP_TIME,  /* the step number t */
    KP_LET,   /* let ref */
    KP_NEG,
    KP_NOT,
    KP_ABS,
    KP_SQRT,
    KP_ADD,
    KP_SUB,
    KP_MUL,
    KP_DIV,
    KP_MIN,
    KP_MAX,
    KP_LT,
    KP_LE,
    KP_GT,
    KP_GE,
    KP_EQ,
    KP_NE,
    KP_AND,
    KP_OR,
    KP_SEL /* a[0] ? a[1] : a[2] */
};

/* Value types: every node is a number (the element type) or a condition. */
enum { KP_T_NUM = 0, KP_T_BOOL = 1 };

typedef struct kgt_pnode {
    int kind, type;
    int line, col; /* where it was written */
    double num;
    int ref, prev;
    int off[KGT_MAX_DIMS];
    struct kgt_pnode *a[3];
} kgt_pnode;

/* Boundary kinds of one face of one field. Fixed (the default): the cells of the frame the
   field's update reaches across keep their values, and nothing is read beyond the face. */
enum { KGT_B_FIXED = 0, KGT_B_PERIODIC, KGT_B_MIRROR, KGT_B_CONST };

typedef struct kgt_bface {
    int kind;
    double value;  /* KGT_B_CONST */
    int line, col; /* of the face in its `boundary` statement (0: the default) */
} kgt_bface;

typedef struct kgt_pfield {
    char name[KGT_PROG_MAX_NAME + 1];
    int line, col;
    int coef;  /* read-only coefficient field */
    int keeps; /* keeps its previous level (`field u prev`), read as u@prev */
    kgt_bface bc[KGT_MAX_DIMS][2];
    kgt_pnode *update; /* evolving fields: the new value */
    int uline;         /* line of the update, 0 while none */
    /* Analysis (prog_analyse.c), [dimension][0: towards -, 1: towards +], in cells: */
    int reach[KGT_MAX_DIMS][2];  /* how far any update reads this field (its halo) */
    int preach[KGT_MAX_DIMS][2]; /* the same for its previous level */
    int read, pread;             /* read at all (current level / previous level) */
    int frame[KGT_MAX_DIMS][2];  /* how far this field's update reads any field: on a fixed
                                    face, the width of the frame that keeps its values */
} kgt_pfield;

typedef struct kgt_pparam {
    char name[KGT_PROG_MAX_NAME + 1];
    double value;
} kgt_pparam;

typedef struct kgt_plet {
    char name[KGT_PROG_MAX_NAME + 1];
    kgt_pnode *e;
} kgt_plet;

typedef struct kgt_prog {
    char name[KGT_PROG_MAX_NAME + 1]; /* letters, digits, '_' ('-' is an operator here) */
    int line, col;
    int ndims;
    kgt_pfield f[KGT_PROG_MAX_FIELDS];
    int nf;
    kgt_pparam par[KGT_PROG_MAX_PARAMS];
    int npar;
    kgt_plet let[KGT_PROG_MAX_LETS];
    int nlet;
    kgt_pnode **nodes; /* every node, for kgt_prog_free */
    int nnodes, ncap;
    int uses_index, uses_time;
    int closed; /* 'end' seen and the analysis passed */
} kgt_prog;

/* A mistake: where, and the message (no position in it). */
typedef struct kgt_perr {
    int line, col;
    char msg[256];
} kgt_perr;

int kgt_perr_set(kgt_perr *e, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* --- parsing (prog_parse.c) --- */
/* A program opened by `program NAME` (the name's token and position); NULL (e set) on error. */
kgt_prog *kgt_prog_begin(const char *name, int line, int col, kgt_perr *e);
/* Feeds the next line of the block: 0 to go on, 1 when it was `end` (the program is complete
   and analysed), -1 on an error (e set; free the program). */
int kgt_prog_line(kgt_prog *p, const char *text, int line, kgt_perr *e);
/* The text of one program block (`program NAME` ... `end`, comments and blank lines around it
   allowed), as given at run time. NULL on error, e holding line:col and the message. */
kgt_prog *kgt_prog_parse_string(const char *text, kgt_perr *e);
void kgt_prog_free(kgt_prog *p);
int kgt_prog_find_field(const kgt_prog *p, const char *name);
/* Dimension names of the index: i, j, k. */
extern const char kgt_prog_dim_names[KGT_MAX_DIMS];

/* --- lexing (prog_lex.c) --- */
enum { PT_END = 0, PT_NUM, PT_NAME, PT_OP };
typedef struct kgt_ptok {
    int kind, col;
    char s[KGT_PROG_MAX_NAME + 2]; /* name or operator text (names longer are cut: len says) */
    int len;
    double num;
} kgt_ptok;
/* Tokens of one line ('#' starts a comment); at most max, the last one PT_END. */
int kgt_prog_lex(const char *text, int line, kgt_ptok *t, int max, kgt_perr *e);

/* --- expressions (prog_expr.c) --- */
/* Parses tokens t[*pos ..] as an expression of p; *pos moves past it. */
kgt_pnode *kgt_prog_expr(kgt_prog *p, const kgt_ptok *t, int *pos, int line, kgt_perr *e);
const char *kgt_prog_op_name(int kind);

/* --- analysis (prog_analyse.c) --- */
int kgt_prog_analyse(kgt_prog *p, int line, kgt_perr *e);

/* --- printing (prog_print.c) --- */
enum { KGT_PT_C = 0, KGT_PT_OPENCL, KGT_PT_CUDA };
/* The expression e as one fully parenthesised expression of target's language for element
   type dbl. Names: p_NAME parameters, l_NAME lets, the cell's global index g0..g2, the step t,
   field reads f_NAME[c_NAME + o0 * NAME_s0 + ...] (pf_/pc_ for the previous level). */
void kgt_prog_print(kgt_buf *b, const kgt_prog *p, const kgt_pnode *e, int target, int dbl);
/* Register reads (the run-time CUDA/HIP kernel, prog_gpu.c): a read of field f at offset o, for
   the cell `row` cells along dimension `walk` from the thread's first one, prints as the name
   of the register holding f at o + row along walk (kgt_prog_reg_name). shared (the fused
   kernel, prog_fuse.c): it prints as KS_NAME(o0, o1..) (KSP_ for the previous level), macros
   the kernel defines per step. */
typedef struct kgt_pregs {
    int walk, row, shared;
    int col; /* and col cells along the last dimension (the vector rows, prog_vec.c) */
    /* read set: every read prints as read(b, p, n, ctx) instead (the fused vector rows,
       prog_vfuse.c, whose registers depend on the step) */
    void (*read)(kgt_buf *b, const kgt_prog *p, const kgt_pnode *n, const void *ctx);
    const void *ctx;
} kgt_pregs;
void kgt_prog_print_regs(kgt_buf *b, const kgt_prog *p, const kgt_pnode *e, int target, int dbl,
                         const kgt_pregs *rg);
/* The register of field f (prev: its previous level) at offset off from the thread's first cell:
   r_NAME_o0_o1.. (rp_ for the previous level; m for minus). */
void kgt_prog_reg_name(kgt_buf *b, const kgt_prog *p, int f, int prev, const int *off);
/* Which lets e uses, transitively (used[nlet]), so a kernel computes only those. */
void kgt_prog_lets_used(const kgt_prog *p, const kgt_pnode *e, char *used);

/* --- kernels (prog_emit.c, prog_out.c) --- */
/* The args struct and the host function's prototype per element type (for a header). */
void kgt_prog_emit_host_header(kgt_buf *b, const kgt_prog *p, const char *prefix);
/* What the CUDA/HIP text of programs needs, once per source before the programs: the macros
   KGT_STREAM_T, KGT_LAUNCH_ERROR, KGT_PROG_LAUNCHER and kgt_add/kgt_sub/kgt_mul. */
void kgt_prog_emit_gpu_prelude(kgt_buf *b);
/* The host functions prefix_NAME_host_f / _d (one step over the boxes of the args struct),
   after the header's text; the file needs <math.h> and contraction off (prog_out.c). */
void kgt_prog_emit_host(kgt_buf *b, const kgt_prog *p, const char *prefix);
/* A whole C translation unit of p's host functions (the header's text, then the functions) for
   a compiler at run time; contraction off in the text itself. */
void kgt_prog_emit_host_unit(kgt_buf *b, const kgt_prog *p, const char *prefix);
/* OpenCL C source: kernel prefix_NAME, both types under #if STENCIL_DOUBLE. */
void kgt_prog_emit_opencl(kgt_buf *b, const kgt_prog *p, const char *prefix);
/* The same kernel for the OpenCL backend; narrow: every field has field 0's strides and a local
   array fewer than 2^31 elements, so indices are int and shared between the fields; m and par
   are then __constant (the same buffers). */
void kgt_prog_emit_opencl_rt(kgt_buf *b, const kgt_prog *p, const char *prefix, int narrow);
/* CUDA/HIP source: kernels and C-linkage launchers prefix_NAME_cuda_f / _d. */
void kgt_prog_emit_gpu(kgt_buf *b, const kgt_prog *p, const char *prefix);
/*
 * The run-time CUDA/HIP kernel's shape (prog_gpu.c): blocks of bx x by threads, x along the last
 * dimension, y along the one before (2D, 3D; 3D: grid z over dimension 0); each thread computes
 * cy consecutive cells along dimension ndims - 2 (1 in 1D), the rows they share read once into
 * registers. kgt_prog_gpu_plan: the default for p in type dbl; kgt_prog_shape_check: 0 when s
 * fits p (bx * by <= 1024, cy in 1..KGT_PROG_MAX_CY, by and cy 1 in 1D), else -1.
 */
#define KGT_PROG_MAX_CY 16
typedef struct kgt_prog_shape {
    int bx, by, cy;
} kgt_prog_shape;
void kgt_prog_gpu_plan(const kgt_prog *p, int dbl, kgt_prog_shape *s);
int kgt_prog_shape_check(const kgt_prog *p, const kgt_prog_shape *s);
/* "bx,by,cy" into s (0), or -1 when text is not three positive integers. */
int kgt_prog_shape_parse(const char *text, kgt_prog_shape *s);
/*
 * The kernel of one element type alone, for NVRTC/hiprtc (no headers, no launcher): extern "C"
 * __global__ void prefix_NAME_cuda_kf / _kd(const kgt_prog_args_f / _d a, long u0, long u1,
 * long u2), the args struct by value. narrow: every field has field 0's strides and a local array
 * has fewer than 2^31 elements, so cell indices are int and shared between the fields: then the
 * kernel has shape sh (NULL: the plan's) and is launched with blocks of sh's bx x by threads,
 * grid x over the last dimension's extent of the union of the boxes from u (its lower corner,
 * the last dimension's moved down at will), y over the extent of the one before in steps of
 * by * cy (2D, 3D), z over dimension 0 (3D); a thread whose cells are all inside every
 * evolving field's box computes them without tests from registers, the others cell by cell.
 * narrow 0: the ahead-of-time kernel (long indices per field, one cell a thread, blocks of
 * kgt_prog_gpu_block, the grid's y over the extent itself).
 */
void kgt_prog_emit_gpu_rtc(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl, int narrow,
                           const kgt_prog_shape *sh);
/*
 * The vector-row kernel of 2D programs (prog_vec.c), beside the narrow kernel in the same
 * source: extern "C" __global__ void prefix_NAME_cuda_vf / _vd(const kgt_prog_args_f / _d a,
 * long u0, long u1, long u2), for local arrays whose fields all start on 16 bytes with a row
 * stride of whole vectors (4 floats, 2 doubles). Blocks of bx threads (one vector each) walking
 * zc rows: grid x over the vectors of the boxes' union from column u1 (a multiple of the
 * vector, at or before the union's first column), y over its rows u0 .. u2 - 1 in steps of zc
 * (kgt_prog_vec_grid, n the union's extents from (u0, u1)). kgt_prog_vec_plan: 0 and the shape
 * where the program takes this kernel (2D, its window of rows fits the registers), else -1.
 */
typedef struct kgt_prog_vec {
    int bx, zc, v; /* threads a block, rows a block walks, cells a vector */
    int one;       /* _cuda_v1f / _v1d: every evolving field's box is the first one's, u0 .. u2 - 1
                      its rows, not empty */
} kgt_prog_vec;
int kgt_prog_vec_plan(const kgt_prog *p, int dbl, kgt_prog_vec *v);
void kgt_prog_vec_grid(const kgt_prog_vec *v, const long *n, unsigned *grid);
void kgt_prog_emit_gpu_vec(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                           const kgt_prog_vec *v);
/* The narrow kernel without kgt_add & co. (kgt_emit_rn_helpers), for the CPU emulation. */
void kgt_prog_emit_gpu_kernel(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                              const kgt_prog_shape *sh);
void kgt_prog_gpu_block(int ndims, unsigned *bx, unsigned *by);
/* The narrow kernel's grid (x, y, z) for shape sh over the extents n (dimension 0 first) of the
   cells from u0.. on. */
void kgt_prog_gpu_grid(int ndims, const kgt_prog_shape *sh, const long *n, unsigned *grid);
/*
 * The fused 2D kernel of k steps per launch (prog_fuse.c): extern "C" __global__ void
 * prefix_NAME_fuse_kf / _kd(const kgt_prog_fuse_args_f / _d a) (the struct is in the source),
 * blocks of nt threads (x), one tile of tx x ty cells a block, grid x over the last dimension's
 * extent of the union of the last step's boxes from a.u, y over dimension 0's
 * (kgt_prog_fuse_grid). Step j computes each evolving field f over a.box[j][f] (local cells;
 * box[j] contains box[j + 1] widened by the reach where the cells exist), the last step stores
 * level k into out[f] and, for fields that keep a previous level, level k - 1 into pout[f],
 * over box[k - 1][f]. Reads come from in[] and prev[] within box[0] widened by k times the
 * largest read offset; the arrays must hold those cells. Bitwise k one-step launches over the
 * same boxes, as long as what they read outside a field's box of the step before is the same at
 * every level (fixed frames).
 */
#define KGT_PROG_FUSE_MAX 4
typedef struct kgt_prog_fuse {
    int k, tx, ty, nt;
    int v, h; /* v > 0: the vector-row traversal (prog_vfuse.c), v cells a lane, h rows a block
                 (tx, ty unused) */
} kgt_prog_fuse;
/* 0 when p has the fused kernel fz in type dbl (2D, k in 1..KGT_PROG_FUSE_MAX, nt <= 1024, the
   tile buffers within 48 KiB of shared memory; for v > 0 the vector rows' conditions below),
   else -1. _plan: the default tiles for k steps. _grid: the launch grid over n cells (tiles
   or strips). */
int kgt_prog_fuse_check(const kgt_prog *p, int dbl, const kgt_prog_fuse *fz);
int kgt_prog_fuse_plan(const kgt_prog *p, int dbl, int k, kgt_prog_fuse *fz);
void kgt_prog_fuse_grid(const kgt_prog *p, const kgt_prog_fuse *fz, const long *n, unsigned *grid);
/*
 * The same k steps by vector rows (prog_vfuse.c, fz->v > 0; the kernel prefix_NAME_vfuse_kf /
 * _kd, the same args): for local arrays whose fields all start on v elements with a row stride
 * of whole vectors (a.n[1], the stride, included). Warps of 32 lanes of v cells (1, 2, 4 floats;
 * 1, 2 doubles) each own a strip of a row, blocks of nt threads (whole warps side by side) walk h
 * rows; the grid covers the union's extents from a.u (kgt_prog_fuse_grid). kgt_prog_fuse_check
 * of it: 0 when p has it (2D, the windows within reach, margins of k times the reach along x
 * under half a strip); _vfuse_plan: the default for k steps, or -1 where the windows take too
 * many registers.
 */
int kgt_prog_vfuse_plan(const kgt_prog *p, int dbl, int k, kgt_prog_fuse *fz);
/* The kernel without kgt_add & co. (kgt_emit_rn_helpers precede it for NVRTC). */
void kgt_prog_emit_gpu_fused(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                             const kgt_prog_fuse *fz);
/* The texts of kgt's program outputs for a file (prog_out.c): h = P_prog.h, c = P_prog.c (host
   functions, OpenCL sources as strings), g = P_prog.cu and P_prog_hip.cpp (left empty unless
   targets has cuda or hip). */
void kgt_prog_emit_outputs(const kgt_file *f, const char *prefix, int targets, kgt_buf *h,
                           kgt_buf *c, kgt_buf *g);

/* --- reference evaluation (prog_eval.c) --- */
/*
 * One step on the whole grid of n cells (dense row-major arrays, dimension 0 slowest), boundary
 * kinds applied to the reads beyond the grid, fixed frames copied. cur[f] for every field
 * (coefficients included), prev[f] for those that keep a previous level (else ignored), out[f]
 * for the evolving ones; float or double arrays (dbl). par: values of the parameters in the
 * element type's precision (NULL: the defaults). Returns 0, or -1 when the grid is thinner
 * than a periodic or mirror reach.
 */
int kgt_prog_eval_step(const kgt_prog *p, int dbl, const long *n, long t, const double *par,
                       void *const *cur, void *const *prev, void *const *out);
/* A tile as the generated kernels see it (kgt_prog_args_f/_d of P_prog.h, untyped): per field
   its local cell 0 in each level, strides (the last dimension contiguous), per evolving field
   the box of local cells to compute; halos filled by the caller. */
typedef struct kgt_prog_tile {
    const void *in[KGT_PROG_MAX_FIELDS], *prev[KGT_PROG_MAX_FIELDS];
    void *out[KGT_PROG_MAX_FIELDS];
    long stride[KGT_PROG_MAX_FIELDS][3];
    long lo[KGT_PROG_MAX_FIELDS][3], hi[KGT_PROG_MAX_FIELDS][3];
    long origin[3], t;
    double par[KGT_PROG_MAX_PARAMS];
} kgt_prog_tile;
/* The generated host kernel's step, interpreted: the fallback where no kernel is compiled. */
void kgt_prog_eval_tile(const kgt_prog *p, int dbl, const kgt_prog_tile *tl);
/* The value of field f beyond the grid at cell x (some coordinates outside [0, n)), from the
   arrays of the same level: what a halo holds there. */
double kgt_prog_ghost(const kgt_prog *p, int f, int dbl, const long *n, const void *a,
                      const long *x);

#endif
