/*
 * kgt - the kernel generation tool: internal model shared by the parser and the emitters.
 * Plain C99 and libc only, so the tool builds before (and without) the library it generates for.
 */
#ifndef KGT_H
#define KGT_H

#include <stdint.h>
#include <stdio.h>

#define KGT_MAX_DIMS   3
#define KGT_MAX_RADIUS 8 /* STENCIL_MAX_RADIUS; kgt must not include stencil.h (it pulls mpi.h) */
#define KGT_VERSION    "0.1.0"

/* One weight at one offset, with where it was written (for duplicate-offset messages). */
typedef struct kgt_point {
    int off[KGT_MAX_DIMS];
    double w;
    int line, col;
} kgt_point;

typedef struct kgt_stencil {
    char *name;    /* the registered name: letters, digits, '_' and '-' */
    char *stem;    /* name with '-' made '_': the part of the generated symbols */
    int line, col; /* of the name */
    int ndims;
    int has_radius;
    int rlo[KGT_MAX_DIMS], rhi[KGT_MAX_DIMS];
    kgt_point *pts; /* every point written, zero weights included, in row-major order after
                       kgt_parse() */
    int npts, cap;
    int has_divisor;
    double divisor;
    int mode; /* KGT_MODE_* */
} kgt_stencil;

enum { KGT_MODE_NONE = 0, KGT_MODE_POINTS = 1, KGT_MODE_PATTERN = 2 };

struct kgt_prog; /* a stencil program (prog.h) */

typedef struct kgt_file {
    const char *path;
    kgt_stencil *st;
    int nst, cap;
    struct kgt_prog **prog; /* the file's `program` blocks (prog.h), in order */
    int nprog, pcap;
} kgt_file;

/* Parses and validates path; on error prints "path:line:col: message" to stderr, returns -1. */
int kgt_parse(const char *path, kgt_file *out);
/* The same from an open stream; path only names it in messages (the fuzzer parses memory). */
int kgt_parse_stream(const char *path, FILE *fp, kgt_file *out);
void kgt_file_free(kgt_file *f);

/* Number of entries of the dense weight box, and the dense weights (caller frees). */
long kgt_dense_size(const kgt_stencil *s);
double *kgt_dense(const kgt_stencil *s);

/* An element type: float (kgt_types[0]) or double (kgt_types[1]); the emitters' int dbl indexes
   it (analysis.c). */
typedef struct kgt_type {
    const char *name; /* the C type */
    char suf;         /* the symbols' suffix: 'f' or 'd' */
    const char *vec;  /* the 16-byte vector type: float4, double2 */
    int vw;           /* cells of one 16-byte vector */
    int size;         /* bytes of one cell */
} kgt_type;
extern const kgt_type kgt_types[2];

/* Emission targets. */
enum { KGT_T_HOST = 1, KGT_T_OPENCL = 2, KGT_T_CUDA = 4, KGT_T_HIP = 8 };

typedef struct kgt_gen {
    const kgt_file *file;
    const char *prefix; /* C identifier that prefixes every generated symbol */
    const char *source; /* input file name as shown in the generated comments */
    int targets;        /* KGT_T_* bits */
    int walk;           /* GPU kernels: cells of dimension 0 per thread (2D/3D), 0 = default */
    int fused;          /* KGT_FUSED_*: which stencils get two-step CUDA/HIP kernels */
} kgt_gen;

/* --fused: auto (the default) = 2D stencils whose non-zero weights reach at most one cell, and
   2D star stencils reaching at most two (kgt_stream). */
enum { KGT_FUSED_AUTO = 0, KGT_FUSED_ALL = 1, KGT_FUSED_NONE = 2 };

/* Longest --walk: the emitter keeps a table of the registers of one walk. */
#define KGT_WALK_MAX 32

/* A growing string: every emitter writes into one, so a failed run leaves no half-written file. */
typedef struct kgt_buf {
    char *s;
    size_t len, cap;
    int oom; /* set when an append failed; the text is then incomplete */
} kgt_buf;

void kgt_printf(kgt_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * How a target spells a cell index: base + o0 * s0 + o1 * s1 + o2 * s2. A NULL stride name
 * means a unit stride (the offset is written as a literal).
 */
typedef struct kgt_index {
    const char *in;   /* name of the input array */
    const char *base; /* index of the cell being updated */
    const char *stride[KGT_MAX_DIMS];
    const char *wrap; /* written before every fourth term, to keep lines readable */
    int temps;        /* 1: name each load kgt_temp() (a register), not in[...] */
    int walk;         /* with temps: the cell's step along dimension 0 */
    int xshift;       /* with temps: the cell's place in a vector along the last dimension */
    int rn; /* 1: CUDA/HIP: write kgt_add/kgt_sub/kgt_mul calls, immune to contraction whatever the
               compiler flags; 2: the same, but the products of a sum of two terms or more are
               infix (each goes into a kgt_add/kgt_sub, which no compiler fuses a product into) */
} kgt_index;

/* Name of the register holding in[base + (walk + o0) * s0 + o1 * s1 + o2] (offsets >= -8). */
void kgt_temp(kgt_buf *b, int walk, const int *off);

/*
 * Writes the value of the updated cell for element type dbl ? double : float, following the
 * arithmetic contract of backends/backend.h.
 */
void kgt_emit_expr(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix);
/* CUDA/HIP statements (emit_dev.c): `out[c] = ` the expression of the cell at c, indented by
   ind; strides s0 (and s1 in 3D), the last dimension contiguous. */
void kgt_emit_cell(kgt_buf *b, const kgt_stencil *s, int dbl, int ind, const char *c);
/*
 * The unrolled cells 0 .. walk - 1 of a walk along dimension 0 (walk <= KGT_WALK_MAX): every
 * distinct input cell loaded once, from in[base + ...], into a named register shared by the cells
 * that read it; cell u stored to out[base + u * s0] when `act`.
 */
void kgt_emit_walk_cells(kgt_buf *b, const kgt_stencil *s, int dbl, int walk);
/* "\n" and n - 1 spaces: the " + " that follows puts the operator at column n. Room: 40. */
const char *kgt_wrap(char *buf, int n);
/*
 * Writes the sum of the weighted terms alone (no division), as kgt_emit_expr orders it. With
 * ix->rn: nested calls kgt_add(kgt_add(t0, t1), t2) ...; past 64 terms (clang allows 256 nested
 * brackets) a lambda called at once, [&] { T kgt_s = t0; kgt_s = kgt_add(kgt_s, t1); ...}().
 */
void kgt_emit_sum(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix);
/* With ix->rn, the terms of points [p0, p1) alone, in kgt_emit_sum's order and operations:
   the sum's first terms (acc NULL: no point before p0 has a weight), or acc's continuation by
   them, so that sums built a part at a time equal kgt_emit_sum's bitwise. */
void kgt_emit_sum_part(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix, int p0,
                       int p1, const char *acc);
/* kgt_emit_expr of the sum held in the variable named sum (NULL: kgt_emit_sum's). */
void kgt_emit_expr_of(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_index *ix,
                      const char *sum);
/*
 * CUDA/HIP: the definitions of kgt_add, kgt_sub and kgt_mul (float and double overloads), the
 * arithmetic that no compiler flag can contract into fused multiply-adds; no #include needed.
 */
void kgt_emit_rn_helpers(kgt_buf *b);
/* Writes x as an exact C literal of the element type (hex float, 'f' suffix for float). */
void kgt_emit_literal(kgt_buf *b, double x, int dbl);
/* A comment block describing s, each line starting with lead. */
void kgt_emit_summary(kgt_buf *b, const kgt_stencil *s, const char *lead);

/* The generated files: <prefix>.h, <prefix>.c, and the CUDA/HIP source. */
void kgt_emit_header(kgt_buf *b, const kgt_gen *g);
void kgt_emit_c(kgt_buf *b, const kgt_gen *g);
void kgt_emit_gpu(kgt_buf *b, const kgt_gen *g);
/* Non-zero when 1/d is exact in the element type (the divisor becomes a multiplication). */
int kgt_exact_reciprocal(double d, int dbl, double *r);
/*
 * Split division (split.c): a float quotient s / d as RN(s rd) corrected by two fmas, equal to
 * `/` for |s| in [2^-63, 2^63], given as the bit patterns of |s| (the kernel takes `/` outside).
 * kgt_split_divisor: non-zero, with rd = RN(1/d), when d (converted to float) is in [1, 2^24],
 * its reciprocal is not exact, and the split quotient equals `/` on that whole range (checked).
 */
#define KGT_SPLIT_LO 0x20000000u /* 2^-63 */
#define KGT_SPLIT_HI 0x5f000000u /* 2^63 */
/* In range: (the float's bits * 2 - 2 KGT_SPLIT_LO) mod 2^32 <= KGT_SPLIT_SPAN (split.c). */
#define KGT_SPLIT_SPAN (2u * (KGT_SPLIT_HI - KGT_SPLIT_LO))
int kgt_split_divisor(double d, float *rd);
/* The device helper kgt_div_split and the range macros of split division (once per source). */
void kgt_emit_div_split(kgt_buf *b);
/* One quotient of kgt_emit_split_quotients: dst = num / divisor where the expression in holds. */
typedef struct kgt_split_cell {
    char dst[16], in[48], num[24];
} kgt_split_cell;
/*
 * The quotients c[0..n) by split division, in declared float variables; when a numerator is
 * outside the split range, all n are divided again by `/` (the same sums, so the same bits as
 * `/` alone). retest 0: numerators whose `in` is false (cells outside the box: their sums may be
 * anything) divide 1 (an empty `in`: every numerator divides as it is). retest 1: all divide as
 * they are, and only a numerator whose `in` holds (or is empty) outside the range counts.
 */
void kgt_emit_split_quotients(kgt_buf *b, int n, const kgt_split_cell *c, double divisor, float rd,
                              int retest);
/* A float's bit pattern, and the float of a bit pattern. */
uint32_t kgt_float_bits(float x);
float kgt_bits_float(uint32_t u);
/* KGT_WARP, KGT_SHFL and KGT_ALL for CUDA and HIP (emit_dev.c): kgt's output and the run-time
   sources both start with them. */
void kgt_emit_warp_macros(kgt_buf *b);
/* The vector kernel <prefix>_<stem>_v<f|d> of a 2D/3D stencil for CUDA/HIP (emit_vec.c). */
void kgt_emit_gpu_vec(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl);
/* The body of the 2D and 3D step kernels of shape vec with walk (bx threads a block along x, a
   multiple of the warp; 3D: by rows): rows rolling through registers, the row loop unrolled
   `unroll` times; al: 16-byte accesses, else element by element; prefetch: KGT_TUNE_* for the
   2D float rows' prefetched form (emit_vec.c). */
void kgt_emit_vec_step_body(kgt_buf *b, const kgt_stencil *s, int dbl, int bx, int by, int unroll,
                            int al, int prefetch, int split, float rd);
/* A tuning field of a plan (kgt_rt.h): kgt's own choice, or forced off or on. */
enum { KGT_TUNE_DEFAULT = 0, KGT_TUNE_OFF = 1, KGT_TUNE_ON = 2 };
/* `acc = ` the first term (first), or `acc = acc + w * v`, of a running sum through the
   contraction-proof helpers kgt_add/kgt_sub/kgt_mul, and ";\n" (emit_step.c). */
void kgt_emit_acc_term(kgt_buf *b, int dbl, int first, const char *acc, double w, const char *v);
/* acc / divisor of s, as the arithmetic contract allows it to be written (emit_step.c). */
void kgt_emit_quotient(kgt_buf *b, const kgt_stencil *s, int dbl, const char *acc);
/* The body of the 3D step kernel of shape vec with walk and nc > 1 consecutive rows a thread
   (bx threads a block along x, a multiple of the warp, by rows of threads): each plane loaded
   once, its terms added to running sums, the plane loop unrolled `unroll` times; al: 16-byte
   accesses, else element by element (emit_rows3.c). */
void kgt_emit_rows3_body(kgt_buf *b, const kgt_stencil *s, int dbl, int bx, int by, int nc,
                         int unroll, int al, int split, float rd);
/* The fused kernel and its launcher KGT_FUSED(<prefix>_<stem>, f|d) for CUDA/HIP. */
void kgt_emit_gpu_fused(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl);
/* The streaming kernels of 2..kgt_steps_depth levels and their table (emit_steps.c). */
void kgt_emit_gpu_steps(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl);
/* The most steps per launch of s's streaming kernels, 0 when fewer than two. */
int kgt_steps_depth(const kgt_stencil *s, int dbl);
/* Rows and columns a box needs before the fused launcher takes the streaming kernel. */
int kgt_stream_min(void);
/* The streaming kernel and its launcher <prefix>_<stem>_stream<f|d> (static; emit_stream.c). */
void kgt_emit_gpu_stream(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl);
/* The OpenCL C source of one stencil (a program defining stencil_update). */
void kgt_emit_opencl(kgt_buf *b, const kgt_stencil *s);

/* ---- The analysis (analysis.c): the stencil's non-zero points, extents, planes and rows, and
   the family predicates. The emitters ask these instead of reading zero weights themselves. */
/* Whether the CUDA/HIP output of s for type dbl has a vector kernel. */
int kgt_gpu_vector(const kgt_stencil *s, int dbl);

/* a / b rounded towards minus infinity (b > 0). */
int kgt_floordiv(int a, int b);

/* Whether s has a non-zero weight at offset o0 along its walk dimension. */
int kgt_has_plane(const kgt_stencil *s, int o0);

/* Whether the CUDA/HIP output of s under g has fused (two-step) launchers. */
int kgt_fused(const kgt_gen *g, const kgt_stencil *s);

/* How far the non-zero weights reach before (lo) and after (hi) a cell, per dimension (all
   KGT_MAX_DIMS entries are written; 0 past ndims). */
void kgt_extents(const kgt_stencil *s, int *lo, int *hi);
/* Whether s has ndims dimensions and its non-zero weights reach at most r cells along each. */
int kgt_reach_within(const kgt_stencil *s, int ndims, int r);
/* Whether s is a 2D star stencil (no non-zero weight off the axes) reaching at most 2 cells:
   --fused auto gives it fused launchers (kgt_fused). */
int kgt_stream(const kgt_stencil *s);
/* Whether s is a 2D stencil of any pattern reaching at most 2 cells: its fused launchers, where it
   has some, take the streaming kernel too (the kgt command's kernels). */
int kgt_stream_any(const kgt_stencil *s);
/* The farthest reach of the run-time 2D streaming kernels, per side and dimension. */
enum { KGT_STREAM_REACH = 4 };
/* Whether s is a 2D stencil of any pattern reaching at most KGT_STREAM_REACH cells: it has the
   run-time streaming kernels (kgt_rt.h; box stencils through the edge ring of emit_stream.c). */
int kgt_stream_rt(const kgt_stencil *s);

/* An offset of s as (walk, y, x): dimension 0 of a 2D/3D array, the middle one of a 3D array,
   the last one; 0 where s has no such dimension. */
void kgt_wyx(const kgt_stencil *s, const int *off, int *o);

/* The walk of the GPU kernels under g. */
int kgt_walk(const kgt_gen *g);
/* Non-zero points of s; the most non-zero points in one row of a 2D stencil other than the
   centre one's; whether a non-zero weight lies off the axes (2D). */
int kgt_nonzero_points(const kgt_stencil *s);
int kgt_row_points(const kgt_stencil *s);
int kgt_off_axis(const kgt_stencil *s);
/* Whether s is a 3D star stencil reaching at most 2 cells (the 3D streaming kernels of several
   steps), or any 3D stencil reaching one cell (their one-step box mode): kgt_rt.h. */
int kgt_stream3(const kgt_stencil *s);
int kgt_stream3_box(const kgt_stencil *s);
/* L >= 2 steps per launch of the 3D streaming kernels: stars reaching 2, anything reaching 1. */
int kgt_stream3_any(const kgt_stencil *s);
/* The most levels of the 3D streaming kernels of s whose ring fits (emit_stream3_kernel.c). */
int kgt_stream3_levels(const kgt_stencil *s);

#endif /* KGT_H */
