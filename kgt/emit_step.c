/*
 * The one-step streaming kernel (kgt_rt.h), for any 1D, 2D or 3D pattern.
 *
 * Why: a kernel that reads every neighbour through L1/L2 (the generic kernel, kgt's walk
 * kernels) is bound by L2 bandwidth, not HBM (bench/RESULTS.md). Here a block loads each input
 * plane of its tile once into shared memory and takes the neighbours from there.
 *
 * Order of the arithmetic: an output cell's terms come plane by plane (dimension-0 offset
 * ascending), and within a plane in row-major order, so accumulating a partial sum per cell and
 * plane offset while the planes stream past adds exactly the contract's terms in its order:
 * acc = first term; acc = acc + w * x ...; out = acc / d. Every output in flight has its own
 * accumulator; with P = reach below + reach above + 1 of them per cell, the loop is unrolled by P
 * so that each accumulator's name is fixed.
 */
#include <stdlib.h>
#include <string.h>

#include "step.h"

/* The kernel's signature and the block's coordinates; sfx ends its name, vec aligns the shared
   tile for 16-byte accesses (shape vec, below). */
/* The cells this thread computes: where they sit in the tile and in the array. */
static void emit_cells(kgt_buf *b, const step *st)
{
    const kgt_step_info *in = st->in;
    for (int c = 0; c < in->sh.nc; c++) {
        if (st->s->ndims == 3)
            kgt_printf(b,
                       "    const int cy%d = ty0 + threadIdx.y + %d, cx%d = tx0 + threadIdx.x;\n"
                       "    const int q%d = (threadIdx.y + %d) * %d + threadIdx.x + %d;\n",
                       c, c * in->sh.by, c, c, c * in->sh.by + in->elo[1], st->w, in->elo[2]);
        else
            kgt_printf(b,
                       "    const int cy%d = y0, cx%d = tx0 + threadIdx.x + %d;\n"
                       "    const int q%d = threadIdx.x + %d;\n",
                       c, c, c * in->sh.bx, c, c * in->sh.bx + in->elo[2]);
        kgt_printf(b, "    const bool ok%d = cx%d >= x0 && cx%d < x1 && cy%d < y1;\n", c, c, c, c);
        if (st->s->ndims < 3)
            kgt_printf(b, "    const long long o%d = (long long)cy%d * s1 + cx%d;\n", c, c, c);
    }
    /*
     * 3D stores address from the first cell's offset, the cells lying by rows apart (the
     * launcher checks that a tile's offsets fit an int): per-cell 64-bit offsets were recomputed
     * at every store by nvcc (17 instructions each for 3d7 on sm_90; 3d27 gained by the change).
     * In 1D and 2D the same change lost (1d3): per cell.
     */
    if (st->s->ndims == 3)
        kgt_printf(b,
                   "    const long long o0 = (long long)cy0 * s1 + cx0;\n"
                   "    const int ys = %d * (int)s1;\n",
                   in->sh.by);
}

/* Where cell c's output goes, after the plane's base (ob in 3D, ko elsewhere). */
static void emit_cell_store(kgt_buf *b, const step *st, int c)
{
    if (st->s->ndims == 3)
        kgt_printf(b, "                if (ok%d) ob[%d * ys] = ", c, c);
    else
        kgt_printf(b, "                if (ok%d) out[ko + o%d] = ", c, c);
}

static void emit_store_plane(kgt_buf *b, const step *st, int ind, const char *buf)
{
    for (int k = 0; k < st->k; k++) {
        if ((k + 1) * st->nt > st->tot)
            kgt_printf(b, "%*sif (tid + %d < %d) ", ind, "", k * st->nt, st->tot);
        else
            kgt_printf(b, "%*s", ind, "");
        kgt_printf(b, "%s[tid + %d] = p%d;\n", buf, k * st->nt, k);
    }
}

static void emit_load_plane(kgt_buf *b, const step *st, int ind)
{
    for (int k = 0; k < st->k; k++) kgt_printf(b, "%*sp%d = ip[g%d];\n", ind, "", k, k);
}

/* The in-plane values of plane offset o0 that a cell reads (each once), then its terms. */
static void emit_plane_terms(kgt_buf *b, const step *st, int u, int o0, int first_o0)
{
    const kgt_stencil *s = st->s;
    int slot = kgt_step_mod(u - o0, st->p), first = o0 == first_o0;
    for (int c = 0; c < st->in->sh.nc; c++) {
        for (int i = 0; i < s->npts; i++) {
            int o[3];
            char acc[24], v[32];
            if (s->pts[i].w == 0.0) continue;
            kgt_wyx(s, s->pts[i].off, o);
            if (o[0] != o0) continue;
            snprintf(acc, sizeof acc, "a%d_%d", slot, c);
            snprintf(v, sizeof v, "cur[q%d + %d]", c, o[1] * st->w + o[2]);
            kgt_printf(b, "            ");
            kgt_emit_acc_term(b, st->dbl, first, acc, s->pts[i].w, v);
            first = 0;
        }
        first = o0 == first_o0;
    }
}

/* The quotients <q><c> of accumulator slot a's nc outputs by split division, ok<c> the cells
   in the box (kgt_emit_split_quotients). */
/* The outputs of accumulator slot a by split division (kgt_step_split), then their stores. */
static void emit_store_split(kgt_buf *b, const step *st, int a)
{
    int nc = st->in->sh.nc;
    kgt_step_split(b, st, 'q', a, nc);
    for (int c = 0; c < nc; c++) {
        emit_cell_store(b, st, c);
        kgt_printf(b, "q%d;\n", c);
    }
    kgt_printf(b, "            }\n");
}

/* The terms of plane r from cur, and the outputs plane r completes. */
static void emit_terms_store(kgt_buf *b, const step *st, int u)
{
    const kgt_step_info *in = st->in;
    int lo = in->elo[0], hi = in->ehi[0];
    for (int o0 = -lo; o0 <= hi; o0++)
        if (kgt_has_plane(st->s, o0)) emit_plane_terms(b, st, u, o0, -lo);
    kgt_printf(b, "            if (r >= %d) {\n", lo + hi);
    if (st->s->ndims == 3)
        kgt_printf(b,
                   "                %s *const ob = out + ((long long)(zs + r - %d) * s0 + o0);\n",
                   kgt_types[st->dbl].name, lo + hi);
    else
        kgt_printf(b, "                const long long ko = (long long)(zs + r - %d) * s0;\n",
                   lo + hi);
    if (in->split) {
        emit_store_split(b, st, kgt_step_mod(u - hi, st->p));
        return;
    }
    for (int c = 0; c < in->sh.nc; c++) {
        char acc[24];
        snprintf(acc, sizeof acc, "a%d_%d", kgt_step_mod(u - hi, st->p), c);
        emit_cell_store(b, st, c);
        kgt_emit_quotient(b, st->s, st->dbl, acc);
        kgt_printf(b, ";\n");
    }
    kgt_printf(b, "            }\n");
}

/* Asynchronous copies of plane `plane` (an expression) into its slot of the ring. */
static void emit_copy_plane(kgt_buf *b, const step *st, int ind, const char *plane)
{
    kgt_printf(b,
               "%*s{\n%*s    const %s *ia = ib + (long long)(zs - %d + %s) * s0;\n"
               "%*s    %s *sa = sm + ((%s) %% %d) * %d;\n",
               ind, "", ind, "", kgt_types[st->dbl].name, st->in->elo[0], plane, ind, "",
               kgt_types[st->dbl].name, plane, st->slots, st->tot);
    for (int k = 0; k < st->k; k++) {
        kgt_printf(b, "%*s    ", ind, "");
        if ((k + 1) * st->nt > st->tot) kgt_printf(b, "if (tid + %d < %d) ", k * st->nt, st->tot);
        kgt_printf(b, "KGT_CP_ASYNC(sa + tid + %d, ia + g%d);\n", k * st->nt, k);
    }
    kgt_printf(b, "%*s}\n", ind, "");
}

/*
 * One plane of the unrolled walk. pipe = D: wait for plane r, refill the slot every thread has
 * finished with (plane r - 1's) with plane r + D - 1, add plane r's terms. pipe = 0: prefetch
 * the next plane into registers, add this one's terms, store the next into the other buffer.
 */
static void emit_plane(kgt_buf *b, const step *st, int u)
{
    int d = st->in->sh.pipe;
    kgt_printf(b, "        {\n            const int r = r0 + %d;\n            if (r >= n) break;\n",
               u);
    if (d) {
        char next[16];
        snprintf(next, sizeof next, "r + %d", d - 1);
        kgt_printf(b,
                   "            KGT_CP_WAIT(%d);\n            __syncthreads();\n"
                   "            if (r + %d < n)\n",
                   d - 2, d - 1);
        emit_copy_plane(b, st, 12, next);
        kgt_printf(
            b, "            KGT_CP_COMMIT();\n            const %s *cur = sm + (r %% %d) * %d;\n",
            kgt_types[st->dbl].name, d, st->tot);
        emit_terms_store(b, st, u);
        kgt_printf(b, "        }\n");
        return;
    }
    kgt_printf(b,
               "            const %s *cur = sm + (r & 1) * %d;\n"
               "            if (r + 1 < n) {\n                ip += s0;\n",
               kgt_types[st->dbl].name, st->tot);
    emit_load_plane(b, st, 16);
    kgt_printf(b, "            }\n");
    emit_terms_store(b, st, u);
    kgt_printf(b, "            if (r + 1 < n) {\n");
    kgt_printf(b, "                %s *nx = sm + ((r + 1) & 1) * %d;\n", kgt_types[st->dbl].name,
               st->tot);
    emit_store_plane(b, st, 16, "nx");
    kgt_printf(b, "            }\n            __syncthreads();\n        }\n");
}

/* The first plane(s): into registers and shared memory, or the first D - 1 copies in flight. */
static void emit_prologue(kgt_buf *b, const step *st)
{
    const kgt_step_info *in = st->in;
    if (in->sh.pipe) {
        for (int p = 0; p < in->sh.pipe - 1; p++) {
            char plane[16];
            snprintf(plane, sizeof plane, "%d", p);
            kgt_printf(b, "    if (%d < n)\n", p);
            emit_copy_plane(b, st, 4, plane);
            kgt_printf(b, "    KGT_CP_COMMIT();\n");
        }
        return;
    }
    kgt_printf(b, "    const %s *ip = ib + (long long)(zs - %d) * s0;\n", kgt_types[st->dbl].name,
               in->elo[0]);
    for (int k = 0; k < st->k; k++)
        kgt_printf(b, "    %s p%d = ip[g%d];\n", kgt_types[st->dbl].name, k, k);
    emit_store_plane(b, st, 4, "sm");
    kgt_printf(b, "    __syncthreads();\n");
}

/*
 * Shape walk (2D): a block of bx threads, one column each from xa on (lanes outside [x0, x1) load
 * clamped cells and store nothing), walks its zc rows `walk` at a time through kgt's unrolled walk
 * (emit_dev.c), the rest one cell at a time. No shared memory: the rows come through L1.
 */
static void emit_walk_kernel(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_step_info *in)
{
    int w = in->sh.walk;
    kgt_step_signature(b, in, dbl, "");
    kgt_printf(b,
               "    const int x = xa + (int)blockIdx.x * %d + (int)threadIdx.x;\n"
               "    const int zs = z0 + (int)blockIdx.z * zc, ze = zs + zc < z1 ? zs + zc : z1;\n"
               "    const int act = x >= x0 && x < x1;\n"
               "    int i0 = zs;\n"
               "    long long base = (long long)zs * s0 + KGT_CLAMP(x, x0, x1 - 1);\n"
               "    (void)y0; (void)y1; (void)s1;\n"
               "    for (; i0 + %d <= ze; i0 += %d, base += %d * s0) {\n",
               in->sh.bx, w, w, w);
    kgt_emit_walk_cells(b, s, dbl, w);
    kgt_printf(b, "    }\n"
                  "    if (act)\n"
                  "        for (long long c = base; i0 < ze; i0++, c += s0) {\n");
    kgt_emit_cell(b, s, dbl, 12, "c");
    kgt_printf(b, "        }\n}\n");
}

void kgt_emit_step(kgt_buf *b, const kgt_stencil *s, int dbl, const kgt_step_info *in)
{
    if (in->sh.walk && in->sh.vec && in->sh.nc > 1) { /* 3D: rows with running sums */
        for (int al = 1; al >= 0; al--) {
            kgt_step_signature(b, in, dbl, al ? "" : "_u");
            kgt_emit_rows3_body(b, s, dbl, in->sh.bx, in->sh.by, in->sh.nc, in->sh.walk, al,
                                in->split, in->rd);
        }
        return;
    }
    if (in->sh.walk && in->sh.vec) { /* vector rows: NAME, then NAME_u element by element */
        kgt_step_signature(b, in, dbl, "");
        kgt_emit_vec_step_body(b, s, dbl, in->sh.bx, in->sh.by, in->sh.walk, 1, in->sh.prefetch,
                               in->split, in->rd);
        kgt_step_signature(b, in, dbl, "_u");
        kgt_emit_vec_step_body(b, s, dbl, in->sh.bx, in->sh.by, in->sh.walk, 0, in->sh.prefetch,
                               in->split, in->rd);
        return;
    }
    if (in->sh.walk) {
        emit_walk_kernel(b, s, dbl, in);
        return;
    }
    step st = {s, in, dbl, in->sh.bx * in->sh.by, 0, 0, 0, in->elo[0] + in->ehi[0] + 1, 2, 0};
    st.rim = in->elo[2];
    st.w = in->tx + in->elo[2] + in->ehi[2];
    st.tot = st.w * (in->ty + in->elo[1] + in->ehi[1]);
    st.k = (st.tot + st.nt - 1) / st.nt;
    if (in->sh.pipe) st.slots = in->sh.pipe;
    kgt_step_head(b, &st, "");
    kgt_step_loader(b, &st);
    emit_cells(b, &st);
    emit_prologue(b, &st);
    for (int a = 0; a < st.p; a++)
        for (int c = 0; c < in->sh.nc; c++)
            kgt_printf(b, "    %s a%d_%d = 0;\n", kgt_types[dbl].name, a, c);
    kgt_printf(b, "    for (int r0 = 0; r0 < n; r0 += %d) {\n", st.p);
    for (int u = 0; u < st.p; u++) emit_plane(b, &st, u);
    kgt_printf(b, "    }\n}\n");
}

/* One variant of the step kernel of s under the prefix of g: its plan in info. */
static int emit_named(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl, int pipe,
                      kgt_step_info *info)
{
    kgt_stencil t = *s;
    kgt_step_shape sh;
    char stem[160];
    snprintf(stem, sizeof stem, "%s_%s", g->prefix, s->stem);
    t.stem = stem;
    kgt_step_default(s, dbl, pipe, &sh);
    if (kgt_step_plan(&t, dbl, &sh, info)) return -1;
    if (info->split) kgt_emit_div_split(b);
    kgt_emit_step(b, &t, dbl, info);
    return 0;
}

/* The launcher of the step kernel planned in in: the run-time launch (backends/gpu/launch.cuh),
   the boxes it cannot take going to the walk kernel. */
static void emit_step_launcher(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl,
                               const kgt_step_info *in)
{
    const char *t = kgt_types[dbl].name;
    char c = dbl ? 'd' : 'f';
    int nd = s->ndims, last = nd - 1, v = in->sh.vec ? kgt_types[dbl].vw : 0;
    kgt_printf(
        b,
        "extern \"C\" int KGT_LAUNCHER(%s_%s, %c)(const void *in, void *out, const long *lo,\n"
        "    const long *hi, const long *stride, void *queue)\n{\n"
        "    const long long s0 = %s, s1 = %s;\n"
        "    int z0 = %s, z1 = %s, y0 = %s, y1 = %s;\n"
        "    int x0 = (int)lo[%d], x1 = (int)hi[%d], zc = %d;\n"
        "    /* the device's resident blocks (kgt_walk_split), found on the first call, an empty\n"
        "       box too: that loads the kernels (CUDA loads them lazily, at their first use) */\n"
        "    static int slots = -1;\n",
        g->prefix, s->stem, c, nd > 1 ? "stride[0]" : "0", nd > 2 ? "stride[1]" : "0",
        nd > 1 ? "(int)lo[0]" : "0", nd > 1 ? "(int)hi[0]" : "1", nd > 2 ? "(int)lo[1]" : "0",
        nd > 2 ? "(int)hi[1]" : "1", last, last, in->sh.zc);
    if (v)
        kgt_printf(b,
                   "    if (slots < 0) {\n"
                   "        slots = kgt_slots((const void *)%s, %d);\n"
                   "        kgt_load((const void *)%s_u);\n"
                   "    }\n",
                   in->name, in->sh.bx * in->sh.by, in->name);
    else
        kgt_printf(b, "    if (slots < 0) slots = kgt_slots((const void *)%s, %d);\n", in->name,
                   in->sh.bx * in->sh.by);
    kgt_printf(b,
               "    if (z1 <= z0 || y1 <= y0 || x1 <= x0) return 0;\n"
               "    if (stride[%d] != 1) return 1;\n"
               "    /* tile offsets are ints and the grid has limits: else the walk kernel */\n"
               "    if (s1 * %d + %d > 2147483647LL || (y1 - y0 + %d) / %d > 65535)\n"
               "        return %s_%s_walk_%c(in, out, lo, hi, stride, queue);\n"
               "    const int xa = x0 - (int)kgt_misalign(out, lo, stride, %d, sizeof(%s));\n"
               "    dim3 grd((unsigned)((x1 - xa + %d) / %d), (unsigned)((y1 - y0 + %d) / %d));\n"
               "    zc = kgt_walk_split(z1 - z0, zc, (long long)grd.x * grd.y, slots);\n"
               "    grd.z = (unsigned)((z1 - z0 + zc - 1) / zc);\n",
               last, in->ty + in->elo[1] + in->ehi[1] + 1, in->tx + in->elo[2] + in->ehi[2] + 2 * v,
               in->ty - 1, in->ty, g->prefix, s->stem, c, nd, t, in->tx - 1, in->tx, in->ty - 1,
               in->ty);
    if (v) /* vector rows: 16-byte accesses need the arrays, rows and planes aligned */
        kgt_printf(b,
                   "    const int u = (uintptr_t)in %% 16 || (uintptr_t)out %% 16 || s0 %% %d || "
                   "s1 %% %d;\n    if (u)\n    ",
                   v, v);
    for (int u = v ? 1 : 0; u >= 0; u--)
        kgt_printf(
            b,
            "    %s%s<<<grd, dim3(%d, %d), 0, (kgt_stream)queue>>>((const %s *)in, (%s *)out,"
            "\n        z0, z1, y0, y1, xa, x0, x1, s0, s1, zc);\n%s",
            in->name, u ? "_u" : "", in->sh.bx, in->sh.by, t, t, u ? "    else\n    " : "");
    kgt_printf(b, "    return KGT_LAUNCH_FAILED();\n}\n\n");
}

void kgt_emit_gpu_step(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    kgt_step_info in;
    /* HIP: the next plane through registers; CUDA: asynchronous copies. The shapes differ, so
       each has its own launcher. */
    for (int pipe = 0; pipe < 2; pipe++) {
        kgt_printf(b, pipe ? "#else\n" : "#if defined(__HIPCC__)\n");
        if (emit_named(b, g, s, dbl, pipe, &in)) break; /* kgt_gpu_step said it holds */
        emit_step_launcher(b, g, s, dbl, &in);
    }
    kgt_printf(b, "#endif\n\n");
}
