/*
 * The 2D streaming kernels (emit_stream.c) as kernels: their shared ring, the kernel bodies and
 * the launchers of the kgt command and of the run-time path (kgt_rt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream2.h"

/*
 * Block (bx, by): loaded columns [x0, x0 + B*V), x0 = xs + bx*W - HP (xs: lo1 rounded down to a
 * vector); stored columns [x0 + HP, x0 + HP + W) within [lo1, hi1); output rows
 * [lo0 + by*h, +h) within [lo0, hi0). VEC: rows and arrays allow vector accesses.
 */
/* The ring and its zeros (star: the padding; box: every slot, a thread its own elements, so
   no barrier is needed before the walk writes them); the rows the walk loads up to. */
static void emit_ring_decl(kgt_buf *b, int dbl, const shape *t)
{
    const char *ty = kgt_types[dbl].name;
    if (!t->box) {
        kgt_printf(
            b,
            "    __shared__ __align__(16) %s sh[2][L][SW];\n"
            "    const int tid = threadIdx.x;\n"
            "    const KGT_IX x0 = xs + (KGT_IX)blockIdx.x * W - HP;\n"
            "    const KGT_IX ys = lo0 + (KGT_IX)blockIdx.y * h, ye = ys + h < hi0 ? ys + h "
            ": hi0;\n"
            "    if (tid < PAD) /* read only by columns that are not stored */\n"
            "        for (int p = 0; p < 2 * L; p++) sh[p / L][p %% L][tid] = "
            "sh[p / L][p %% L][SW - 1 - tid] = 0;\n"
            "    /* step k < L is used on rows [ys - (L - k)R, ye + (L - k)R) and all loaded "
            "columns;\n"
            "       rows are loaded from ys - LR up to the end of the last unrolled "
            "iteration */\n"
            "    const KGT_IX yend = ys - L * R + (ye - ys + 2 * L * R + U - 1) / U * U + "
            "K;\n",
            ty);
        return;
    }
    kgt_printf(b,
               "    __shared__ __align__(16) %s sh[S][L][NE][BP];\n"
               "    const int tid = threadIdx.x;\n"
               "    const KGT_IX x0 = xs + (KGT_IX)blockIdx.x * W - HP;\n"
               "    const KGT_IX ys = lo0 + (KGT_IX)blockIdx.y * h, ye = ys + h < hi0 ? ys + h : "
               "hi0;\n"
               "    /* slots read before the walk writes them, and the padding: rows and columns "
               "no\n       stored cell needs */\n"
               "    for (int p = 0; p < S * L * NE; p++) {\n"
               "        %s *e = &sh[0][0][0][0] + p * BP;\n"
               "        e[PT + tid] = 0;\n"
               "        if (tid < PT) e[tid] = e[BP - 1 - tid] = 0;\n"
               "    }\n"
               "    /* step k < L is used on rows [ys - (L - k)R, ye + (L - k)R) and all loaded "
               "columns;\n"
               "       rows are loaded from ys - LR up to the end of the last unrolled "
               "iteration */\n"
               "    const KGT_IX yend = ys - L * R + (ye - ys + FILL + U - 1) / U * U + K;\n",
               ty, ty);
}

/* The kernel's body after its head; vec: the template parameter VEC, or "0"/"1". */
static void emit_kernel_body(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                             const shape *t, const char *vec)
{
    kgt_s2_enum(b, t);
    emit_ring_decl(b, dbl, t);
    kgt_printf(
        b,
        "    const int fast = x0 >= a1 && x0 + B * V <= b1 && x0 >= ll1 && x0 + B * V <= "
        "lh1 &&\n"
        "                     x0 + HP >= lo1 && x0 + HP + W <= hi1 && ys - (L - 1) * R >= ll0 "
        "&&\n"
        "                     ye + (L - 1) * R <= lh0 && ys - L * R >= a0 && yend <= b0;\n"
        "    if (fast)\n"
        "        %s_%s_walk%c<%s, 1>(in, out, x0, ys, ye, lo1, hi1, ll0, ll1, lh0, lh1, "
        "a0, b0, a1, b1,\n"
        "                            s0, sh);\n"
        "    else\n"
        "        %s_%s_walk%c<%s, 0>(in, out, x0, ys, ye, lo1, hi1, ll0, ll1, lh0, lh1, "
        "a0, b0, a1, b1,\n"
        "                            s0, sh);\n"
        "}\n\n",
        g->prefix, s->stem, kgt_types[dbl].suf, vec, g->prefix, s->stem, kgt_types[dbl].suf, vec);
}

/* The kernel's parameters, after its name. */
static void emit_kernel_params(kgt_buf *b, int dbl)
{
    const char *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "(const %s *__restrict__ in, %s *__restrict__ out, KGT_IX lo0,\n"
               "    KGT_IX lo1, KGT_IX hi0, KGT_IX hi1, KGT_IX ll0, KGT_IX ll1, KGT_IX lh0, "
               "KGT_IX lh1,\n"
               "    KGT_IX a0, KGT_IX b0, KGT_IX a1, KGT_IX b1, KGT_IX s0, KGT_IX xs, KGT_IX h)"
               "\n{\n",
               ty, ty);
}

static void emit_kernel(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
{
    kgt_printf(b,
               "template <int VEC>\n"
               "static __global__ void __launch_bounds__(%d)\n"
               "    %s_%s_stream_k%c",
               SB, g->prefix, s->stem, kgt_types[dbl].suf);
    emit_kernel_params(b, dbl);
    emit_kernel_body(b, g, s, dbl, t, "VEC");
}

/*
 * The launch: loads clamped to the rectangle [a, b) the caller made valid (the box grown by the
 * extents, and by them again around the live cells of that); rows per block h from hdef down to
 * hmin until the grid has about 2048 blocks: a box of a few strips, or an out-of-core chunk of a
 * few thousand rows, still fills the device with more than one wave of blocks (with 256, a chunk
 * of 2900 rows of 2d4 ran its four-step kernel far slower than in core).
 */
static void emit_launch(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, const shape *t)
{
    const char *p = g->prefix, *n = s->stem, *ty = kgt_types[dbl].name;
    kgt_printf(b,
               "static int %s_%s_stream%c(const void *in, void *out, const long *lo, const long "
               "*hi,\n    const long *live_lo, const long *live_hi, long s0, void *queue)\n{\n",
               p, n, kgt_types[dbl].suf);
    kgt_s2_enum(b, t);
    kgt_printf(b,
               "    const long elo[2] = {%d, %d}, ehi[2] = {%d, %d};\n"
               "    long a[2], e[2], vl[2], vh[2];\n"
               "    for (int d = 0; d < 2; d++) {\n"
               "        const long l1 = lo[d] - elo[d], h1 = hi[d] + ehi[d];\n"
               "        const long ll = l1 > live_lo[d] ? l1 : live_lo[d];\n"
               "        const long lh = h1 < live_hi[d] ? h1 : live_hi[d];\n"
               "        a[d] = ll < lh && ll - elo[d] < l1 ? ll - elo[d] : l1;\n"
               "        e[d] = ll < lh && lh + ehi[d] > h1 ? lh + ehi[d] : h1;\n"
               "        /* the same live test on every index the kernel compares, [a, e) */\n"
               "        vl[d] = KGT_CLAMP(live_lo[d], a[d], e[d]);\n"
               "        vh[d] = KGT_CLAMP(live_hi[d], a[d], e[d]);\n"
               "        /* KGT_IX int: 32-bit indices in the kernel, 64-bit row products */\n"
               "        if (a[d] < -(1L << 30) || e[d] > (1L << 30)) return 1;\n"
               "    }\n"
               "    if (s0 > (1L << 30)) return 1;\n",
               t->elo[0], t->elo[1], t->ehi[0], t->ehi[1]);
    kgt_printf(b,
               "    const long xs = lo[1] - ((lo[1] %% V) + V) %% V, rows = hi[0] - lo[0];\n"
               "    const long gx = (hi[1] - xs + W - 1) / W, want = (2048 + gx - 1) / gx;\n"
               "    long h = (rows + want - 1) / want;\n"
               "    h = h < %d ? %d : h > %d ? %d : h;\n"
               "    h += (U - (h + %s) %% U) %% U;\n"
               "    const long gy = (rows + h - 1) / h;\n"
               "    if (gx > 2147483647L || gy > 65535) return 1;\n",
               t->hmin, t->hmin, t->hdef, t->hdef, t->box ? "FILL" : "2 * L * R");
    if (t->v > 1)
        kgt_printf(b,
                   "    const int vec = s0 %% V == 0 && (uintptr_t)in %% (V * sizeof(%s)) == 0 &&\n"
                   "                    (uintptr_t)out %% (V * sizeof(%s)) == 0;\n",
                   ty, ty);
    for (int v = t->v > 1; v >= 0; v--)
        kgt_printf(
            b,
            "    %s%s_%s_stream_k%c<%d><<<dim3((unsigned)gx, (unsigned)gy), B, 0,\n"
            "        (kgt_stream)queue>>>((const %s *)in, (%s *)out, (KGT_IX)lo[0], "
            "(KGT_IX)lo[1],\n"
            "        (KGT_IX)hi[0], (KGT_IX)hi[1], (KGT_IX)vl[0], (KGT_IX)vl[1], (KGT_IX)vh[0],\n"
            "        (KGT_IX)vh[1], (KGT_IX)a[0], (KGT_IX)e[0], (KGT_IX)a[1], (KGT_IX)e[1], "
            "(KGT_IX)s0,\n"
            "        (KGT_IX)xs, (KGT_IX)h);\n",
            t->v == 1 ? ""
            : v       ? "if (vec)\n    "
                      : "else\n    ",
            p, n, kgt_types[dbl].suf, v, ty, ty);
    kgt_printf(b, "    return KGT_LAUNCH_FAILED();\n}\n\n");
}

/* Index type of the kernel's rows and columns: int at radius 2, where 64-bit indices cost
   registers and instructions per row (2d9nc gained with int), long at radius 1, where int
   measured slower (2d4); bench/RESULTS.md. */
static const char *index_type(const shape *t)
{
    return t->r >= 2 ? "int" : "long";
}

void kgt_emit_gpu_stream(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    shape t = kgt_s2_shape(s, dbl, 2); /* the kgt command's launchers take two steps */
    kgt_printf(b,
               "/* Two steps per launch by register streaming (boxes of at least %d rows and "
               "columns):\n   %d threads of %d columns per block, window radius %d. */\n",
               STREAM_MIN, SB, t.v, t.r);
    kgt_printf(b, "#define KGT_IX %s\n", index_type(&t));
    if (t.split) kgt_emit_div_split(b);
    kgt_s2_load(b, g, s, dbl, &t);
    kgt_s2_walk(b, g, s, dbl, &t);
    emit_kernel(b, g, s, dbl, &t);
    emit_launch(b, g, s, dbl, &t);
    kgt_printf(b, "#undef KGT_IX\n\n");
}

/*
 * The run-time variant (kgt_rt.h): the same walk, and one extern "C" kernel per vector mode,
 * since NVRTC and hiprtc find kernels by name and a template's instances have mangled ones.
 * Symbols of L > 2 levels start with rt<L> (rt for two, as before), so sources of several depths
 * can share a module.
 */
int kgt_emit_gpu_stream_rt(kgt_buf *b, const kgt_stencil *s, int dbl, int levels,
                           const kgt_stream_tune *tune, kgt_stream_info *info)
{
    kgt_gen g;
    char prefix[8];
    memset(&g, 0, sizeof g);
    memset(info, 0, sizeof *info);
    if (!kgt_stream_rt(s) || levels < 2 || levels > KGT_STREAM_MAX) return -1;
    snprintf(prefix, sizeof prefix, levels == 2 ? "rt" : "rt%d", levels);
    g.prefix = prefix;
    shape t = kgt_s2_shape(s, dbl, levels);
    info->levels = levels;
    info->r = t.r, info->v = t.v, info->b = SB, info->w = SB * t.v - 2 * t.hp, info->u = t.u;
    info->hdef = t.hdef, info->hmin = t.hmin, info->min_box = STREAM_MIN, info->fill = t.fill;
    info->hset = kgt_stream_rows(tune);
    info->ix_int = !strcmp(index_type(&t), "int");
    for (int d = 0; d < 2; d++) info->elo[d] = t.elo[d], info->ehi[d] = t.ehi[d];
    kgt_printf(b, "#define KGT_IX %s\n", index_type(&t));
    if (t.split) kgt_emit_div_split(b);
    kgt_s2_load(b, &g, s, dbl, &t);
    kgt_s2_walk(b, &g, s, dbl, &t);
    for (int v = 0; v <= (t.v > 1); v++) {
        snprintf(info->name[v], sizeof info->name[v], "%s_%s_stream_k%c%d", prefix, s->stem,
                 kgt_types[dbl].suf, v);
        kgt_printf(b, "KGT_EXTERN_C __global__ void __launch_bounds__(%d)\n    %s", SB,
                   info->name[v]);
        emit_kernel_params(b, dbl);
        emit_kernel_body(b, &g, s, dbl, &t, v ? "1" : "0");
    }
    kgt_printf(b, "#undef KGT_IX\n");
    return 0;
}

/*
 * Levels worth running for s (1: the kernels exist, one step per launch is the default). Stars:
 * 4 at radius 1, 3 at radius 2, 2 beyond. Every depth up to KGT_STREAM_MAX compiles without
 * spilling more than 16 bytes at radius 1 and 2 (nvcc 13, sm_90), but 2d9nc float ran slower with
 * 4 levels than with 3 (96 registers per thread, 5 blocks per SM); 2d4 gained up to 4, float and
 * double. Each level keeps 2R + 1 window rows in registers, so past radius 2 two levels hold as
 * many as four do at radius 1; more are not offered by default until measured. Box stencils
 * (bench/RESULTS.md): 2d9 float (8 weights) ran faster with 3 levels than with 4 (64 against 77
 * registers: 8 blocks per SM against 6), but 2d-diag float (5 weights) and 2d9 double faster
 * with 4. A box reaching 2 or more cells (2d25) ran slower with 3 levels than one step per
 * launch: its edge ring holds 2R columns of each thread in 2(2R + 1) slots per level, and the
 * K rows of every level are gathered for each of its many weights, so the kernel is bound by
 * shared memory and registers, not by DRAM; one step per launch until a depth is measured to win.
 * A star reaching 4 (2d17) gained with 2 levels only over the one-step kernel's shape of before
 * (eight cells a thread, step_plan.c); its present one is faster than both, so it too gets one
 * step per launch; reaching 3 (2d-asym) still gains with 2.
 */
int kgt_stream_depth(const kgt_stencil *s, int dbl)
{
    if (!kgt_stream_rt(s)) return 0;
    const int r = kgt_s2_shape(s, dbl, 2).r;
    if (kgt_off_axis(s)) return r >= 2 ? 1 : !dbl && kgt_nonzero_points(s) > 6 ? 3 : 4;
    return r >= 4 ? 1 : r == 3 ? 2 : r == 2 ? 3 : 4;
}

int kgt_stream_levels(const kgt_stencil *s)
{
    if (s->ndims == 3) return kgt_stream3_levels(s);
    return kgt_stream_rt(s) ? KGT_STREAM_MAX : 0;
}

int kgt_stream_min(void)
{
    return STREAM_MIN;
}
