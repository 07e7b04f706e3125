/*
 * Two time steps per launch for 2D stencils on CUDA/HIP: the kernels behind
 * stencil_kernel.cuda_fused / .hip_fused (include/stencil.h says what a fused launcher computes).
 *
 * Why: a kernel doing one step per sweep of the grid moves at least 8 bytes per fp32 cell and
 * step, so it cannot pass the copy roofline; two steps per sweep can.
 * The scheme is the best of a standalone study (docs/performance-notes.md, "Two time steps per
 * launch"): for 2d4, a 256 x 32 tile and 512 threads beat the generic kernel and kgt's single
 * step. 2d9nc (radius 2) ran slower fused than single-step: its redundant step-1 cells and nine
 * reads per cell cost more than the DRAM traffic saved. The register-streaming kernel
 * (emit_stream.c) serves the stencils reaching at most 2 cells better on boxes of at least
 * kgt_stream_min() rows and columns (star ones, and box ones through its edge ring: through the
 * skeleton with two steps per exchange, 2d9 and 2d-diag ran faster streaming than through this tile
 * kernel); the launcher takes it there and keeps this tile kernel for thinner boxes (the skeleton's
 * border strips) and for stencils reaching further. --fused auto takes the stencils reaching one
 * cell at most and the star stencils reaching two (box stencils reaching two were not measured).
 *
 * The tile: a block of TX x BY = 256 x 2 threads owns TX x TY output cells (TY 32 for float as in
 * the study, 16 for double: the same bytes). E_lo / E_hi are the extents of the NON-ZERO weights
 * (zero weights may declare a larger box, and reading that far could leave the array).
 *  1. Step 1 on the tile grown by E_lo before and E_hi after it, in both dimensions: each thread
 *     reads `in` straight from global memory (through L1, which neighbouring cells share) and
 *     writes the value into dynamic shared memory of (TY + E_lo0 + E_hi0) x (TX + E_lo1 + E_hi1)
 *     elements. A cell outside [live_lo, live_hi) (the fixed frame) keeps its input value; cells
 *     past hi + E_hi are needed by no output cell and skipped, so nothing beyond what the caller
 *     made valid is read.
 *  2. One barrier, then step 2 of the tile's cells inside [lo, hi), read from shared memory.
 * Step 1 is never stored to global memory. Both steps are kgt_emit_expr's expression (the index
 * spelled on the global, then the shared array), so results equal two host steps bitwise. Rows
 * are indexed in 64 bits: local arrays over 2^31 elements occur (32768^2 fp32 with halos).
 */
#include "kgt.h"

enum {
    TX = 256,           /* threads and output columns per block */
    BY = 2,             /* thread rows: TX * BY = 512 threads, the study's best */
    SMEM_OPT_IN = 49152 /* CUDA wants an opt-in for more dynamic shared memory per block */
};
/* The most a HIP workgroup has (64 KiB of LDS); CUDA would take more. */
#define SMEM_MAX 65536L

/* The shape of one kernel's tile. */
typedef struct tile {
    int elo[KGT_MAX_DIMS], ehi[KGT_MAX_DIMS]; /* extents of the non-zero weights */
    int ty;                                   /* output rows per block */
    int ky, kx;                               /* rows and columns of the step-1 tile */
    long smem;                                /* its bytes */
} tile;

/* Wide stencils (--fused all) halve TY until the step-1 tile fits a HIP workgroup's 64 KiB. */
static tile make_tile(const kgt_stencil *s, int dbl)
{
    tile t;
    long esz = dbl ? 8 : 4;
    kgt_extents(s, t.elo, t.ehi);
    t.kx = TX + t.elo[1] + t.ehi[1];
    for (t.ty = dbl ? 16 : 32;; t.ty /= 2) {
        t.ky = t.ty + t.elo[0] + t.ehi[0];
        t.smem = esz * t.ky * t.kx;
        if (t.smem <= SMEM_MAX || t.ty <= BY) break;
    }
    return t;
}

static void emit_kernel_head(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                             const tile *t)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "/* Two steps per launch: %d x %d output cells per block of %d x %d threads; "
               "step 1 on them\n   and %d/%d rows, %d/%d columns around them, in %ld bytes of "
               "shared memory. */\n",
               TX, t->ty, TX, BY, t->elo[0], t->ehi[0], t->elo[1], t->ehi[1], t->smem);
    kgt_printf(b,
               "static __global__ void __launch_bounds__(%d)\n"
               "    %s_%s_fused_k%c(const %s *__restrict__ in, %s *__restrict__ out, long lo0,\n"
               "    long lo1, long hi0, long hi1, long ll0, long ll1, long lh0, long lh1, long s0)"
               "\n{\n",
               TX * BY, g->prefix, s->stem, kgt_types[dbl].suf, ty, ty);
    /* LY/HY, LX/HX: the extents; the step-1 tile starts LY rows and LX columns before y0, x0. */
    kgt_printf(b,
               "    enum { TX = %d, BY = %d, TY = %d, LY = %d, HY = %d, LX = %d, HX = %d,\n"
               "           KY = TY + LY + HY, KX = TX + LX + HX };\n",
               TX, BY, t->ty, t->elo[0], t->ehi[0], t->elo[1], t->ehi[1]);
    kgt_printf(b, "    extern __shared__ %s kgt_fused_%c[];\n", ty, kgt_types[dbl].suf);
    kgt_printf(b, "    %s *const sm = kgt_fused_%c; /* KY x KX, row-major */\n", ty,
               kgt_types[dbl].suf);
    kgt_printf(b, "    const int tx = threadIdx.x;\n"
                  "    const long y0 = lo0 + (long)blockIdx.y * TY, x0 = lo1 + (long)blockIdx.x * "
                  "TX;\n");
}

/* How the expressions spell a cell: step 1 on the array (in, at c), step 2 on the tile (sm, at m).
 */
static kgt_index in_index(char *wrap)
{
    const kgt_index ix = {"in", "c", {"s0", NULL, NULL}, kgt_wrap(wrap, 20), 0, 0, 0, 1};
    return ix;
}

static kgt_index tile_index(char *wrap)
{
    const kgt_index ix = {"sm", "m", {"KX", NULL, NULL}, kgt_wrap(wrap, 16), 0, 0, 0, 1};
    return ix;
}

/*
 * The fast path of a block whose whole step-1 tile is live and whose output tile lies inside
 * [lo, hi) (all blocks but those at the box's far edges and the frame): no per-cell tests, and
 * loops of a trip count known at compile time, unrolled so that each thread has all its loads of
 * step 1 in flight at once. The general path's bounds in the loop conditions kept them rolled,
 * and 2d4 ran well below the study's rate through the skeleton.
 */
static void emit_fast(kgt_buf *b, const kgt_stencil *s, int dbl)
{
    char wrap[40];
    const kgt_index i1 = in_index(wrap);
    kgt_printf(b, "    if (y0 - LY >= ll0 && y0 + TY + HY <= lh0 && y0 + TY <= hi0 &&\n"
                  "        x0 - LX >= ll1 && x0 + TX + HX <= lh1 && x0 + TX <= hi1) {\n"
                  "#pragma unroll\n"
                  "        for (int i0 = 0; i0 < KY; i0 += BY) {\n"
                  "            const int i = i0 + threadIdx.y;\n"
                  "            const long row = (y0 - LY + i) * s0 + x0 - LX;\n"
                  "#pragma unroll\n"
                  "            for (int j0 = 0; j0 < KX; j0 += TX) {\n"
                  "                const int j = j0 + tx;\n"
                  "                const long c = row + j;\n"
                  "                if (i < KY && j < KX) sm[i * KX + j] = ");
    kgt_emit_expr(b, s, dbl, &i1);
    const kgt_index i2 = tile_index(wrap);
    kgt_printf(b, ";\n"
                  "            }\n"
                  "        }\n"
                  "        __syncthreads();\n"
                  "#pragma unroll\n"
                  "        for (int i0 = 0; i0 < TY; i0 += BY) {\n"
                  "            const int i = i0 + threadIdx.y, m = (i + LY) * KX + LX + tx;\n"
                  "            out[(y0 + i) * s0 + x0 + tx] = ");
    kgt_emit_expr(b, s, dbl, &i2);
    kgt_printf(b, ";\n"
                  "        }\n"
                  "        return;\n"
                  "    }\n");
}

/* Step 1 into shared memory: tile cell (i, j) is the array's (y0 - LY + i, x0 - LX + j). */
static void emit_step1(kgt_buf *b, const kgt_stencil *s, int dbl)
{
    char wrap[40];
    const kgt_index ix = in_index(wrap);
    kgt_printf(b, "    /* Step 2 reads step 1 over [lo - L, hi + H): no cell past it is read or "
                  "computed. */\n"
                  "    for (int i = threadIdx.y; i < KY && y0 - LY + i < hi0 + HY; i += BY) {\n"
                  "        const long y = y0 - LY + i, row = y * s0;\n"
                  "        const int live = y >= ll0 && y < lh0;\n"
                  "        for (int j = tx; j < KX && x0 - LX + j < hi1 + HX; j += TX) {\n"
                  "            const long x = x0 - LX + j, c = row + x;\n"
                  "            if (live && x >= ll1 && x < lh1)\n"
                  "                sm[i * KX + j] = ");
    kgt_emit_expr(b, s, dbl, &ix);
    kgt_printf(b, ";\n"
                  "            else /* the fixed frame keeps its values */\n"
                  "                sm[i * KX + j] = in[c];\n"
                  "        }\n"
                  "    }\n"
                  "    __syncthreads();\n");
}

/* Step 2 of the output cells inside [lo, hi), from shared memory. */
static void emit_step2(kgt_buf *b, const kgt_stencil *s, int dbl)
{
    char wrap[40];
    const kgt_index ix = tile_index(wrap);
    kgt_printf(b, "    const long x = x0 + tx;\n"
                  "    if (x >= hi1) return;\n"
                  "    const int live = x >= ll1 && x < lh1;\n"
                  "    for (int i = threadIdx.y; i < TY && y0 + i < hi0; i += BY) {\n"
                  "        const long y = y0 + i;\n"
                  "        const int m = (i + LY) * KX + LX + tx;\n"
                  "        if (live && y >= ll0 && y < lh0)\n"
                  "            out[y * s0 + x] = ");
    kgt_emit_expr(b, s, dbl, &ix);
    kgt_printf(b, ";\n"
                  "        else\n"
                  "            out[y * s0 + x] = sm[m];\n"
                  "    }\n"
                  "}\n\n");
}

/* Grid: TX columns by TY rows of [lo, hi) per block; 0 for an empty box, 1 when too large. */
static void emit_launcher(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                          const tile *t)
{
    const char *p = g->prefix, *n = s->stem, *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "extern \"C\" int KGT_FUSED(%s_%s, %c)(const void *in, void *out, const long *lo,"
               "\n    const long *hi, const long *live_lo, const long *live_hi, const long *stride,"
               "\n    void *queue)\n{\n",
               p, n, kgt_types[dbl].suf);
    kgt_printf(b, "    const size_t smem = %ld; /* %d x %d %s */\n", t->smem, t->ky, t->kx, ty);
    kgt_printf(b, "    if (stride[1] != 1) return 1; /* the last dimension must be contiguous */\n"
                  "    if (hi[0] <= lo[0] || hi[1] <= lo[1]) return 0;\n");
    if (kgt_stream_any(s))
        kgt_printf(
            b,
            "    /* Streaming pays its warm-up rows and idle columns on boxes this large. */\n"
            "    if (hi[0] - lo[0] >= %d && hi[1] - lo[1] >= %d)\n"
            "        return %s_%s_stream%c(in, out, lo, hi, live_lo, live_hi, stride[0], "
            "queue);\n",
            kgt_stream_min(), kgt_stream_min(), p, n, kgt_types[dbl].suf);
    kgt_printf(b,
               "    const long gx = (hi[1] - lo[1] + %d) / %d, gy = (hi[0] - lo[0] + %d) / %d;\n",
               TX - 1, TX, t->ty - 1, t->ty);
    kgt_printf(b, "    if (gx > 2147483647L || gy > 65535) return 1;\n");
    /* The opt-in holds per device: asked at every launch, it is right with several devices. */
    if (t->smem > SMEM_OPT_IN)
        kgt_printf(b, "    if (KGT_SMEM_OPT_IN(%s_%s_fused_k%c, smem)) return 1;\n", p, n,
                   kgt_types[dbl].suf);
    kgt_printf(b,
               "    %s_%s_fused_k%c<<<dim3((unsigned)gx, (unsigned)gy), dim3(%d, %d), smem,\n"
               "        (kgt_stream)queue>>>((const %s *)in, (%s *)out, lo[0], lo[1], hi[0], hi[1],"
               "\n        live_lo[0], live_lo[1], live_hi[0], live_hi[1], stride[0]);\n",
               p, n, kgt_types[dbl].suf, TX, BY, ty, ty);
    kgt_printf(b, "    return KGT_LAUNCH_FAILED();\n}\n\n");
}

void kgt_emit_gpu_fused(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    tile t = make_tile(s, dbl);
    if (kgt_stream_any(s)) kgt_emit_gpu_stream(b, g, s, dbl);
    emit_kernel_head(b, g, s, dbl, &t);
    emit_fast(b, s, dbl);
    emit_step1(b, s, dbl);
    emit_step2(b, s, dbl);
    emit_launcher(b, g, s, dbl, &t);
}
