/*
 * Programs, the fused CUDA/HIP kernel of k steps per launch in 2D (kgt_prog_emit_gpu_fused),
 * by overlapped tiles: a block owns a tile of tx x ty cells of the last step's boxes and loads,
 * once, every level it reads of every field over the tile widened by k * R (R: the program's
 * largest read offset per dimension) into shared memory; step j then computes the tile widened
 * by (k - 1 - j) * R into the next level's tile buffer (the margins its neighbours compute too
 * are recomputed), and the last step stores the tile to global memory, with the level before it
 * for fields that keep a previous one. Levels rotate between buffers per field: two, three for a
 * field that keeps its previous level, one for a coefficient field.
 *
 * Equal, bitwise, to k one-step launches (each field f over box[j][f] at step j, t + j) on the
 * same arrays whenever what the k launches read beyond a box of the step before is the same at
 * every level (fixed frames), which is the caller's to arrange, as it is for k one-step calls:
 * a cell of a step's tile outside the field's box of that step carries the level before.
 */
#include <stdio.h>
#include <string.h>

#include "prog_emit.h"

/* The largest offset of any read, per dimension (both sides, both levels). */
static void reach_of(const kgt_prog *p, int *r)
{
    r[0] = r[1] = 0;
    for (int f = 0; f < p->nf; f++)
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 2; s++) {
                if (p->f[f].reach[d][s] > r[d]) r[d] = p->f[f].reach[d][s];
                if (p->f[f].preach[d][s] > r[d]) r[d] = p->f[f].preach[d][s];
            }
}

static int nbufs(const kgt_pfield *f)
{
    return f->coef ? 1 : f->keeps ? 3 : 2;
}

static long shared_bytes(const kgt_prog *p, int dbl, const kgt_prog_fuse *fz)
{
    int r[2], n = 0;
    reach_of(p, r);
    for (int f = 0; f < p->nf; f++) n += nbufs(&p->f[f]);
    return (long)n * (fz->ty + 2 * fz->k * r[0]) * (fz->tx + 2 * fz->k * r[1]) * (dbl ? 8 : 4);
}

int kgt_prog_fuse_check(const kgt_prog *p, int dbl, const kgt_prog_fuse *fz)
{
    if (fz->v) return kgt_prog_vfuse_check(p, dbl, fz);
    if (p->ndims != 2 || fz->k < 1 || fz->k > KGT_PROG_FUSE_MAX) return -1;
    if (fz->tx < 1 || fz->ty < 1 || fz->nt < 1 || fz->nt > 1024) return -1;
    return shared_bytes(p, dbl, fz) <= 48 * 1024 ? 0 : -1;
}

/* Tiles of 64 x 32 cells, halved (rows first) until the buffers fit 48 KiB; 256 threads. */
int kgt_prog_fuse_plan(const kgt_prog *p, int dbl, int k, kgt_prog_fuse *fz)
{
    *fz = (kgt_prog_fuse){k, 64, 32, 256, 0, 0};
    while (kgt_prog_fuse_check(p, dbl, fz) && fz->tx >= 16) {
        if (fz->ty > 8)
            fz->ty /= 2;
        else
            fz->tx /= 2;
    }
    return kgt_prog_fuse_check(p, dbl, fz);
}

void kgt_prog_fuse_grid(const kgt_prog *p, const kgt_prog_fuse *fz, const long *n, unsigned *grid)
{
    if (fz->v) {
        kgt_prog_vfuse_grid(p, fz, n, grid);
        return;
    }
    grid[0] = (unsigned)((n[1] + fz->tx - 1) / fz->tx);
    grid[1] = (unsigned)((n[0] + fz->ty - 1) / fz->ty);
    grid[2] = 1;
}

/* Buffer of field f holding level j (0: the launch's input; -1: its previous level). */
static int buf_of(const kgt_pfield *f, int j)
{
    int n = nbufs(f);
    return n == 1 ? 0 : ((j + (n == 3 ? 1 : 0)) % n + n) % n;
}

static void emit_step(kgt_buf *b, const kgt_prog *p, int dbl, const kgt_prog_fuse *fz, const int *r,
                      int j)
{
    const char *t = kgt_pe_tnames[dbl];
    int k = fz->k, last = j == k - 1, w0 = (k - 1 - j) * r[0], w1 = (k - 1 - j) * r[1];
    int rw = fz->tx + 2 * k * r[1], h0 = k * r[0], h1 = k * r[1];
    int sw = fz->tx + 2 * w1, sn = (fz->ty + 2 * w0) * sw;
    kgt_pregs rg = {-1, 0, 1, 0, NULL, NULL};
    kgt_printf(b, "    { /* step %d */\n        const long t = a.t + %d;\n        (void)t;\n", j,
               j);
    for (int f = 0; f < p->nf; f++) {
        const char *n = p->f[f].name;
        kgt_printf(b, "#define KS_%s(o0, o1) s_%s_%d[e + (o0) * %d + (o1)]\n", n, n,
                   buf_of(&p->f[f], j), rw);
        if (p->f[f].keeps)
            kgt_printf(b, "#define KSP_%s(o0, o1) s_%s_%d[e + (o0) * %d + (o1)]\n", n, n,
                       buf_of(&p->f[f], j - 1), rw);
    }
    kgt_printf(b,
               "        for (int q = tid; q < %d; q += %d) {\n"
               "            const int e = (%d + q / %d) * %d + %d + q %% %d;\n"
               "            const int x0 = r0 + e / %d, x1 = c0 + e %% %d;\n"
               "            if (x0 < 0 || x0 >= a.n[0] || x1 < 0 || x1 >= a.n[1]) continue;\n"
               "            const long g0 = a.origin[0] + x0, g1 = a.origin[1] + x1;\n"
               "            (void)g0;\n            (void)g1;\n",
               sn, fz->nt, h0 - w0, sw, rw, h1 - w1, sw, rw, rw);
    for (int f = 0; f < p->nf; f++) {
        char used[KGT_PROG_MAX_LETS];
        const char *n = p->f[f].name;
        if (p->f[f].coef) continue;
        kgt_printf(b,
                   "            { /* %s */\n"
                   "                const bool in = x0 >= a.box[%d][%d][0][0] && x0 < "
                   "a.box[%d][%d][0][1] && x1 >= a.box[%d][%d][1][0] && x1 < a.box[%d][%d][1][1];\n"
                   "                %s v = KS_%s(0, 0);\n                if (in) {\n",
                   n, j, f, j, f, j, f, j, f, t, n);
        kgt_prog_lets_used(p, p->f[f].update, used);
        for (int i = 0; i < p->nlet; i++) {
            if (!used[i]) continue;
            kgt_printf(b, "                    const %s l_%s = ",
                       p->let[i].e->type == KP_T_BOOL ? "int" : t, p->let[i].name);
            kgt_prog_print_regs(b, p, p->let[i].e, KGT_PT_CUDA, dbl, &rg);
            kgt_printf(b, ";\n");
        }
        kgt_printf(b, "                    v = ");
        kgt_prog_print_regs(b, p, p->f[f].update, KGT_PT_CUDA, dbl, &rg);
        kgt_printf(b, ";\n                }\n");
        if (!last) {
            kgt_printf(b, "                s_%s_%d[e] = v;\n", n, buf_of(&p->f[f], j + 1));
        } else {
            kgt_printf(b,
                       "                if (in) {\n                    a.out[%d][x0 * a.stride + "
                       "x1] = v;\n",
                       f);
            if (p->f[f].keeps)
                kgt_printf(b, "                    a.pout[%d][x0 * a.stride + x1] = KS_%s(0, 0);\n",
                           f, n);
            kgt_printf(b, "                }\n");
        }
        kgt_printf(b, "            }\n");
    }
    kgt_printf(b, "        }\n");
    for (int f = 0; f < p->nf; f++) {
        kgt_printf(b, "#undef KS_%s\n", p->f[f].name);
        if (p->f[f].keeps) kgt_printf(b, "#undef KSP_%s\n", p->f[f].name);
    }
    if (!last) kgt_printf(b, "        __syncthreads();\n");
    kgt_printf(b, "    }\n");
}

void kgt_prog_emit_gpu_fused(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                             const kgt_prog_fuse *fz)
{
    const char *t = kgt_pe_tnames[dbl];
    char c = dbl ? 'd' : 'f';
    int r[2];
    if (fz->v) {
        kgt_prog_emit_gpu_vfused(b, p, prefix, dbl, fz);
        return;
    }
    if (kgt_prog_fuse_check(p, dbl, fz)) {
        b->oom = 1; /* the caller checks the plan; nothing sensible to write */
        return;
    }
    reach_of(p, r);
    int k = fz->k, h0 = k * r[0], h1 = k * r[1], rw = fz->tx + 2 * h1;
    int rn = (fz->ty + 2 * h0) * rw;
    kgt_pe_helpers(b, KGT_PT_CUDA, dbl);
    kgt_pe_fuse_args(b, dbl);
    kgt_printf(b,
               "/* %d steps, tiles of %d x %d cells, %d threads */\n"
               "extern \"C\" __global__ void __launch_bounds__(%d) %s_%s_fuse_k%c(const "
               "kgt_prog_fuse_args_%c a)\n{\n",
               k, fz->tx, fz->ty, fz->nt, fz->nt, prefix, p->name, c, c);
    for (int f = 0; f < p->nf; f++)
        for (int i = 0; i < nbufs(&p->f[f]); i++)
            kgt_printf(b, "    __shared__ %s s_%s_%d[%d];\n", t, p->f[f].name, i, rn);
    kgt_printf(b,
               "    const int r0 = a.u[0] + (int)blockIdx.y * %d - %d;\n"
               "    const int c0 = a.u[1] + (int)blockIdx.x * %d - %d;\n"
               "    const int tid = (int)threadIdx.x;\n",
               fz->ty, h0, fz->tx, h1);
    for (int i = 0; i < p->npar; i++)
        kgt_printf(b, "    const %s p_%s = a.par[%d];\n    (void)p_%s;\n", t, p->par[i].name, i,
                   p->par[i].name);
    /* Every level the steps read, over the tile widened by k * R, where the array has cells. */
    kgt_printf(b,
               "    for (int e = tid; e < %d; e += %d) {\n"
               "        const int x0 = r0 + e / %d, x1 = c0 + e %% %d;\n"
               "        if (x0 < 0 || x0 >= a.n[0] || x1 < 0 || x1 >= a.n[1]) continue;\n"
               "        const int g = x0 * a.stride + x1;\n",
               rn, fz->nt, rw, rw);
    for (int f = 0; f < p->nf; f++) {
        kgt_printf(b, "        s_%s_%d[e] = a.in[%d][g];\n", p->f[f].name, buf_of(&p->f[f], 0), f);
        if (p->f[f].keeps)
            kgt_printf(b, "        s_%s_%d[e] = a.prev[%d][g];\n", p->f[f].name,
                       buf_of(&p->f[f], -1), f);
    }
    kgt_printf(b, "    }\n    __syncthreads();\n");
    for (int j = 0; j < k; j++) emit_step(b, p, dbl, fz, r, j);
    kgt_printf(b, "}\n\n");
}
