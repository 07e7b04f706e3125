/*
 * kgt at run time: what the library's backends call to get kernels specialized to the stencil of
 * a stencil_skeleton() call, from the same emitters the kgt command uses ahead of time.
 *
 * Plain C99 (no MPI, no device headers), so every backend can include it.
 */
#ifndef KGT_RT_H
#define KGT_RT_H

#include <stddef.h>

#include "kgt.h"

/*
 * A stencil from its non-zero points (offsets in row-major order, dimension 0 slowest), as the
 * library holds it. name becomes the registered name and the stem of generated symbols. 0, or
 * -1 when out of memory or the description is out of kgt's range; kgt_stencil_clear frees it.
 */
int kgt_stencil_init(kgt_stencil *s, const char *name, int ndims, const int *rlo, const int *rhi,
                     int npts, const int (*off)[KGT_MAX_DIMS], const double *w, double divisor);
void kgt_stencil_clear(kgt_stencil *s);

/*
 * The prologue of the OpenCL backend's walk kernel (backends/opencl/kernels/generic.cl) for s:
 * idx_t (long when idx_long), STENCIL_SUM(in, c) assigning acc the whole expression of the cell
 * at c (kgt_emit_expr, strides S0 and S1, both element types under #if STENCIL_DOUBLE) and
 * STENCIL_FINISH(acc). A malloc'ed string, or NULL when out of memory.
 */
char *kgt_rt_opencl(const kgt_stencil *s, int idx_long);

/*
 * The one-step streaming kernel (emit_step.c), for 1D, 2D and 3D stencils of any pattern.
 *
 * Dimensions are seen as (walk, y, x): x the last (contiguous) one, y the middle one of a 3D
 * array, walk dimension 0 of a 2D/3D array (a 1D array has neither walk nor y). A block of
 * bx * by threads owns a tile of tx = bx * (2D/1D: nc) columns by ty = by * (3D: nc) rows and
 * walks zc planes of the walk dimension: each input plane of the tile (grown by the stencil's
 * in-plane reach) is loaded once into shared memory (pipe = 0: double-buffered, the next plane's
 * loads in flight in registers while the current one is used; pipe = D: a ring of D slots that
 * asynchronous copies fill D - 1 planes ahead), and every cell keeps one partial sum per plane
 * offset of the stencil in registers: the terms still arrive in the contract's row-major order.
 *
 * Kernel: extern "C" __global__ void NAME(const T *in, T *out, int z0, int z1, int y0, int y1,
 *   int xa, int x0, int x1, long long s0, long long s1, int zc)
 * updates [z0, z1) x [y0, y1) x [x0, x1) (local indices; a 2D box has y0 = 0, y1 = 1; a 1D box
 * also z0 = 0, z1 = 1), with tiles starting at xa <= x0 (a 128-byte line); grid
 * (ceil((x1 - xa) / tx), ceil((y1 - y0) / ty), ceil((z1 - z0) / zc)), block (bx, by).
 */
typedef struct kgt_step_shape {
    int bx, by;   /* threads per block along x and y (by = 1 unless 3D) */
    int nc;       /* cells per thread: along x (1D/2D, bx apart) or y (3D, by apart; 3D vec with
                     walk: consecutive rows, emit_rows3.c, at most 8) */
    int zc;       /* planes a block walks */
    int pipe;     /* planes in flight: 0 = the next one through registers; 2..4 = that many
                     shared-memory slots filled by asynchronous copies (CUDA sm_80+) */
    int vec;      /* each thread takes 16 bytes of consecutive x cells (4 float, 2 double) per
                     row, with walk only (2D and 3D: rows roll through registers, the row or
                     plane loop unrolled `walk` times; bx a multiple of 64), in 16-byte loads and
                     stores, x neighbours by warp shuffles (emit_vec.c, emit_rows3.c). Two kernels, NAME
                     for arrays and strides aligned to 16 bytes,      NAME_u (element by element)
                     otherwise */
    int walk;     /* 2D, pipe 0 and nc 1 only: no shared memory; each thread walks its column of
                     the block's zc rows `walk` cells at a time, every distinct input of those cells
                     loaded once into a register (kgt's walk kernels at run time) */
    int minb;     /* the least blocks per SM that __launch_bounds__ asks for (it caps registers;
                     hip-clang reads that argument as warps per execution unit); 0: none (the
                     defaults, which set none) */
    int prefetch; /* 2D vector rows: KGT_TUNE_DEFAULT (kgt's choice), KGT_TUNE_OFF or
                     KGT_TUNE_ON: the next rows' loads issued before the current rows' sums
                     (emit_vec.c), for experiments */
} kgt_step_shape;

typedef struct kgt_step_info {
    kgt_step_shape sh;
    int tx, ty;         /* the tile */
    int elo[3], ehi[3]; /* reach of the non-zero weights, as (walk, y, x) */
    size_t smem;        /* static shared memory of the kernel, bytes */
    int split;          /* float quotients by split division (kgt_split_divisor) */
    float rd;           /* with split: RN(1 / divisor) */
    char name[48];      /* the kernel's symbol */
} kgt_step_info;

/* The default shape for s and the element type (dbl: double); pipe: asynchronous copies
   available (CUDA), else 0. */
void kgt_step_default(const kgt_stencil *s, int dbl, int pipe, kgt_step_shape *sh);
/* The macros the step kernel's asynchronous copies use (kgt_rt_gpu and kgt's CUDA/HIP output). */
void kgt_emit_step_macros(kgt_buf *b);
/* Fills info for s under shape sh; -1 when the shape is unusable (too many threads, etc.). */
int kgt_step_plan(const kgt_stencil *s, int dbl, const kgt_step_shape *sh, kgt_step_info *info);
/* Writes the kernel of s for element type dbl under plan info (kgt_step_plan). */
void kgt_emit_step(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_step_info *info);

/*
 * The step kernel's walks, planned once for both launches: the body of
 * int f(int nz, int zc, long long tiles, int slots), the planes per block for a walk of nz planes
 * over `tiles` tiles on a device of `slots` resident blocks (0: unknown). About zc, adjusted so
 * that the blocks fill whole waves of the slots (a last wave half full is idle device time;
 * fixed walks of 256 rows held back kgt's 2d-diag), never under half of zc (each block re-reads
 * the stencil's reach along the walk); where the blocks would fill less than a quarter of the
 * slots (a small part, e.g. 2d4 on 1024 x 2048 with two walks of 512 rows per tile), walks down
 * to 8 planes for a quarter of them, not more (splitting up to all the slots slowed 2d9nc);
 * at most 65535 blocks deep. L(depth, code...) takes one line at indentation depth: the run-time
 * launch compiles it (backends/gpu/launch.cuh), kgt writes it into its launchers as text
 * (kgt/emit_dev.c), so that kgt's output stands alone.
 */
/* clang-format off */
#define KGT_WALK_SPLIT_LINES(L) \
    L(1, long long gz = (nz + zc - 1) / zc;)                                             \
    L(1, if (slots > 0 && tiles > 0 && tiles * gz * 4 < slots) {)                        \
    L(2, long long g = (slots / 4 + tiles - 1) / tiles;)                                 \
    L(2, int z = (int)((nz + g - 1) / g), least = 8 < zc ? 8 : zc;)                      \
    L(2, if (z < least) z = least;)                                                      \
    L(2, if (z < zc) zc = z;)                                                            \
    L(1, } else if (slots > 0 && tiles > 0) {)                                           \
    L(2, long long waves = (tiles * gz + slots - 1) / slots, g = waves * slots / tiles;) \
    L(2, int z = g > 0 ? (int)((nz + g - 1) / g) : zc;)                                  \
    L(2, if (g > 0 && 2 * z >= zc && z <= 2 * zc) zc = z;)                               \
    L(1, })                                                                              \
    L(1, if ((nz + zc - 1) / zc > 65535) zc = (nz + 65534) / 65535;)                     \
    L(1, return zc < 1 ? 1 : zc;)
/* clang-format on */
/* L for code, and for text: the line indented by four spaces a depth. */
#define KGT_WALK_SPLIT_CODE(depth, ...) __VA_ARGS__
#define KGT_WALK_SPLIT_TEXT(depth, ...) KGT_WALK_SPLIT_INDENT##depth #__VA_ARGS__ "\n"
#define KGT_WALK_SPLIT_INDENT1          "    "
#define KGT_WALK_SPLIT_INDENT2          "        "

/* Whether kgt's named one-step launcher of s is the step kernel's (else the walk kernel's). */
int kgt_gpu_step(const kgt_stencil *s, int dbl);
/* kgt's CUDA/HIP output for a stencil of g where kgt_gpu_step holds: the step kernel and the
   launcher KGT_LAUNCHER(<prefix>_<stem>, f|d), one for HIP and one for CUDA, which hands boxes
   it cannot take to <prefix>_<stem>_walk_f|d.
 */
void kgt_emit_gpu_step(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl);

/*
 * The source a run-time compiler (NVRTC, hiprtc) takes: the arithmetic helpers and the step
 * kernel of s, no #include. A malloc'ed string, or NULL when out of memory or the shape is
 * unusable; info receives the plan.
 */
char *kgt_rt_gpu(const kgt_stencil *s, int dbl, const kgt_step_shape *sh, kgt_step_info *info);

/*
 * L time steps per launch at run time (2 <= L <= KGT_STREAM_MAX): kgt's register-streaming
 * kernel (emit_stream.c) for 2D stencils reaching at most 4 cells (kgt_stream_rt), as two
 * extern "C" kernels, name[0] with scalar and name[1] (when v > 1) with vector row accesses.
 * Launch them through kgt_stream_plan.
 */
/* KGT_STREAM3_NARGS: the 3D kernels' arguments (kgt_stream3_plan), in one enum with the 2D count
   so that C++ compares them without -Wenum-compare. */
enum { KGT_STREAM_MAX = 4, KGT_STREAM_NARGS = 15, KGT_STREAM3_NARGS = 22 };

typedef struct kgt_stream_info {
    int levels;     /* L, time steps per launch */
    int r, v, b;    /* window radius; columns per thread; threads per block */
    int w, u;       /* columns a block stores; rows of one unrolled iteration */
    int hdef, hmin; /* rows per block: at most, at least */
    int hset;       /* rows per block forced (kgt_stream_tune.h when the kernels were made, for
                       plan experiments; the plans round it up to u); 0: the plan's */
    int elo[KGT_MAX_DIMS], ehi[KGT_MAX_DIMS]; /* reach of the non-zero weights */
    int ix_int;       /* the kernels' index parameters are int (else long) */
    int min_box;      /* rows and columns a box needs */
    int fill;         /* rows a block walks besides its own (h + fill a multiple of u) */
    char name[2][64]; /* the kernels' symbols */
    int ndims;        /* 3: the 3D kernels (emit_stream3.c; else 0) */
    int by, ny, wy;   /* 3D: thread rows per block, rows per thread, rows a block stores */
    int xal;          /* 3D: the tiles' first columns are multiples of xal (a multiple of v) */
    long slots; /* blocks resident on the device at once, set by the caller once the kernels are
                   loaded (their occupancy); 0: unknown */
} kgt_stream_info;

/* Tuning of the streaming kernels for experiments, passed in by the caller (the backends read it
   from their environment: backends/gen.c); all zero (or a NULL pointer): kgt's own choices. */
typedef struct kgt_stream_tune {
    int h;      /* rows or planes a block walks, 1..65535 (kgt_stream_info.hset); 0: the plan's */
    int ny, by; /* 3D kernels: rows per thread (1..8) and thread rows, both or neither; a shape
                   kgt cannot take is ignored */
} kgt_stream_tune;

/* Appends the kernels of s for L = levels to b; -1 when s is not a streaming stencil
   (kgt_stream_rt) or levels is out of range. tune may be NULL. */
int kgt_emit_gpu_stream_rt(kgt_buf *b, const kgt_stencil *s, int dbl, int levels,
                           const kgt_stream_tune *tune, kgt_stream_info *info);

/* The whole source of the streaming kernels of s (kgt_emit_gpu_stream_rt), or NULL. */
char *kgt_rt_gpu_stream(const kgt_stencil *s, int dbl, int levels, const kgt_stream_tune *tune,
                        kgt_stream_info *info);
/*
 * The launch of L steps over box [lo, hi) of a 2D array of row stride s0 (live cells [llo, lhi)):
 * the kernels' arguments after (in, out), in order (lo0, lo1, hi0, hi1, ll0, ll1, lh0, lh1, a0,
 * b0, a1, b1, s0, xs, h; passed as int when info->ix_int, else as long), and the grid (x, y) of
 * blocks of info->b threads. 0, or 1 when the kernels do not take the box (empty, or indices
 * beyond their range). Any box size is correct; boxes under min_box rows or columns are faster
 * through other kernels where there are some. Loads are clamped into the rectangle the stored cells
 * need (the box grown by the extents, then by them again around its live cells, per level).
 */
int kgt_stream_plan(const kgt_stream_info *info, const long *lo, const long *hi, const long *llo,
                    const long *lhi, long s0, long long args[KGT_STREAM_NARGS], long grid[2]);

/* One dimension of a plan (2D or 3D): the cells the kernels may read along d, [*a, *e), and the
   live bounds clamped into them, [*vl, *vh); 1 when [lo, hi) is empty or [a, e) leaves the
   kernels' int indices. */
int kgt_stream_dim(const kgt_stream_info *t, int d, long lo, long hi, long llo, long lhi, long *a,
                   long *e, long *vl, long *vh);

/* The most levels worth running for s and the element type (dbl: double); 0: s does not
   stream. */
int kgt_stream_depth(const kgt_stencil *s, int dbl);
/* The most levels of the run-time streaming kernels of s (2D or 3D; 3D: those whose ring fits
   static shared memory), whether or not worth running (kgt_stream_depth, kgt_stream3_depth); 0: s
   has none. */
int kgt_stream_levels(const kgt_stencil *s);

/*
 * The same for 3D star stencils reaching at most 2 cells (kgt_stream3; emit_stream3.c) and any
 * other 3D stencil reaching one cell (diagonal points too: partial sums, emit_stream3_box.c) at
 * L >= 2 (kgt_stream3_any), and at L = 1 (one step per launch) for any 3D stencil reaching one
 * cell (kgt_stream3_box): kernels of info->b x info->by threads;
 * kgt_rt_gpu_stream takes them for 3D stencils. kgt_stream3_plan lays
 * out box [lo, hi) of a 3D array of strides (s0, s1, 1): the arguments after (in, out), all int,
 * (lo0, lo1, lo2, hi0, hi1, hi2, ll0, ll1, ll2, lh0, lh1, lh2, a0, b0, a1, b1, a2, b2, s0, s1, xs,
 * h), and the grid (x, y, z); 0, or 1 when the kernels do not take the box. Any box size.
 */
int kgt_emit_gpu_stream3_rt(kgt_buf *b, const kgt_stencil *s, int dbl, int levels,
                            const kgt_stream_tune *tune, kgt_stream_info *info);
int kgt_stream3_plan(const kgt_stream_info *info, const long *lo, const long *hi, const long *llo,
                     const long *lhi, long s0, long s1, long long args[KGT_STREAM3_NARGS],
                     long grid[3]);
int kgt_stream3_depth(const kgt_stencil *s, int dbl);
/*
 * The form in which the streaming kernels take s, named name (emit_steps.c): its non-zero points
 * in row-major order, its radius their reach (as layout/ makes a stencil_desc), a 1D stencil laid
 * along the rows of a 2D one (kgt_stream_1d runs it); 0, or -1 when out of memory. Clear *c.
 */
int kgt_stream_form(const kgt_stencil *s, const char *name, kgt_stencil *c);

/* The launches of k steps of a 1D stencil reaching rlo cells down and rhi up by its 2D form's
   kernels (stream_plan.c): box [lo, hi) and live cells [llo, lhi) of a 1D array of cells of esz
   bytes. The middle, where every cell's k-step cone lies in the live cells, as `rows` rows of a
   view of the array from cell `base` on, s0 cells apart, each reading the cells its own stored ones
   need (row_cells stored per row, a multiple of 32); the two ends as one-row boxes with the live
   bounds. Each part's box, live columns and row stride are in the view's coordinates (rows x
   columns from base); returns how many parts (0..3). */
typedef struct kgt_rows1d {
    long base, rows, s0, lo, hi, llo, lhi;
} kgt_rows1d;
int kgt_stream_1d(int k, int rlo, int rhi, long esz, long row_cells, long lo, long hi, long llo,
                  long lhi, kgt_rows1d part[3]);

/* A digest of the source kgt_rt_gpu_stream gives for s, dbl and levels (tune NULL; never 0), its
   info in *info; 0 when there is none (emit_steps.c). */
unsigned long long kgt_stream_stamp(const kgt_stencil *s, int dbl, int levels,
                                    kgt_stream_info *info);
/* tune's rows per block when in 1..65535, else 0 (also for NULL): kgt_stream_info.hset. */
int kgt_stream_rows(const kgt_stream_tune *tune);

#endif /* KGT_RT_H */
