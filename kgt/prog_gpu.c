/*
 * Programs, the run-time CUDA/HIP kernel (kgt_prog_emit_gpu_rtc, narrow indices). One cell a
 * thread is latency bound: every cell pays its own index arithmetic, box tests and a load of
 * every neighbour it reads. Here each thread computes cy consecutive cells along dimension
 * ndims - 2 (the rows of a 2D grid, y of a 3D one) at one position of the last dimension:
 *  - a thread whose cells are all inside the box of every evolving field (every thread but
 *    those at the boxes' edges) loads each distinct value its cells read, of every field and
 *    level, once into a register (read-only loads from per-field base pointers, at constant
 *    offsets from them), computes its cells from those registers (cell r's read at offset o
 *    is the register of o + r along the walk) and stores them without tests;
 *  - any other thread goes cell by cell, each field tested against its own box, its reads
 *    from memory, as the one-cell kernel does.
 * A field whose box is empty takes no part in the first test and is never stored. Reads of a
 * cell inside any box stay inside the local array (its halo is the union of every read's reach).
 * The arithmetic is the printers' (kgt_add & co., kgt_pdiv), so bitwise that of every target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog_emit.h"

/* A value a thread reads: field f (prev: its previous level) at off from the thread's first
   cell (along the walk, the offset plus the row). ints only, compared with memcmp. */
typedef struct rd {
    int f, prev, off[KGT_MAX_DIMS];
} rd;

typedef struct rdset {
    rd *r;
    int n, cap, oom;
} rdset;

static void rd_add(rdset *s, const rd *x)
{
    for (int i = 0; i < s->n; i++)
        if (!memcmp(&s->r[i], x, sizeof *x)) return;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        rd *r = realloc(s->r, (size_t)cap * sizeof *r);
        if (!r) {
            s->oom = 1;
            return;
        }
        s->r = r, s->cap = cap;
    }
    s->r[s->n++] = *x;
}

/* The reads of e at the thread's first cell, lets included (each let's tree once: seen). */
static void reads_of(const kgt_prog *p, const kgt_pnode *n, rdset *s, char *seen)
{
    if (n->kind == KP_READ) {
        rd x;
        memset(&x, 0, sizeof x);
        x.f = n->ref, x.prev = n->prev;
        for (int d = 0; d < p->ndims; d++) x.off[d] = n->off[d];
        rd_add(s, &x);
    }
    if (n->kind == KP_LET && !seen[n->ref]) {
        seen[n->ref] = 1;
        reads_of(p, p->let[n->ref].e, s, seen);
    }
    for (int i = 0; i < 3; i++)
        if (n->a[i]) reads_of(p, n->a[i], s, seen);
}

static int walk_dim(const kgt_prog *p)
{
    return p->ndims >= 2 ? p->ndims - 2 : -1;
}

static int rd_cmp(const void *pa, const void *pb)
{
    const rd *a = pa, *b = pb;
    if (a->f != b->f) return a->f - b->f;
    if (a->prev != b->prev) return a->prev - b->prev;
    for (int d = 0; d < KGT_MAX_DIMS; d++)
        if (a->off[d] != b->off[d]) return a->off[d] - b->off[d];
    return 0;
}

/* The registers of a thread of cy cells: every update's reads at each of its cells, sorted
   (field, level, then dimension 0 first: row by row in 2D). The caller frees s->r. */
static void thread_regs(const kgt_prog *p, int cy, rdset *s)
{
    rdset r0 = {0};
    char seen[KGT_PROG_MAX_LETS] = {0};
    int w = walk_dim(p);
    memset(s, 0, sizeof *s);
    for (int f = 0; f < p->nf; f++)
        if (!p->f[f].coef) reads_of(p, p->f[f].update, &r0, seen);
    for (int r = 0; r < cy && !r0.oom; r++)
        for (int i = 0; i < r0.n; i++) {
            rd x = r0.r[i];
            if (w >= 0) x.off[w] += r;
            rd_add(s, &x);
        }
    s->oom |= r0.oom;
    free(r0.r);
    if (s->n > 1) qsort(s->r, (size_t)s->n, sizeof *s->r, rd_cmp);
}

int kgt_prog_shape_check(const kgt_prog *p, const kgt_prog_shape *s)
{
    if (s->bx < 1 || s->by < 1 || s->cy < 1 || s->cy > KGT_PROG_MAX_CY) return -1;
    if ((long)s->bx * s->by > 1024) return -1;
    if (p->ndims == 1 && (s->by != 1 || s->cy != 1)) return -1;
    return 0;
}

int kgt_prog_shape_parse(const char *text, kgt_prog_shape *s)
{
    char end;
    if (!text || sscanf(text, "%d,%d,%d%c", &s->bx, &s->by, &s->cy, &end) != 3) return -1;
    return s->bx > 0 && s->by > 0 && s->cy > 0 ? 0 : -1;
}

/* Blocks whose x width is whole 128-byte lines; as many cells a thread as keep the registers
   its reads take (4-byte words) to a quarter of what a thread may have at full occupancy. */
void kgt_prog_gpu_plan(const kgt_prog *p, int dbl, kgt_prog_shape *s)
{
    s->bx = p->ndims == 1 ? 256 : 64;
    s->by = p->ndims == 1 ? 1 : 4;
    s->cy = p->ndims == 1 ? 1 : p->ndims == 2 ? 8 : 4;
    while (s->cy > 1) {
        rdset r;
        thread_regs(p, s->cy, &r);
        free(r.r);
        if (!r.oom && r.n * (dbl ? 2 : 1) <= 64) break;
        s->cy /= 2;
    }
}

/* The offset of register x from its field's base pointer: `row * s0 + o1` and the like. */
static void reg_offset(kgt_buf *b, const kgt_prog *p, const int *off)
{
    int any = 0;
    for (int d = 0; d < p->ndims; d++) {
        int v = off[d], a = v < 0 ? -v : v, last = d == p->ndims - 1;
        if (!v) continue;
        kgt_printf(b, "%s", any ? (v < 0 ? " - " : " + ") : (v < 0 ? "-" : ""));
        if (last)
            kgt_printf(b, "%d", a);
        else if (a == 1)
            kgt_printf(b, "s%d", d);
        else
            kgt_printf(b, "%d * s%d", a, d);
        any = 1;
    }
    if (!any) kgt_printf(b, "0");
}

/* The thread's first cell y0.. and its cells' common index c, from the grid (prog.h). */
static void emit_coords(kgt_buf *b, const kgt_prog *p, const kgt_prog_shape *sh)
{
    int nd = p->ndims, w = walk_dim(p);
    kgt_printf(b, "    const int y%d = (int)u%d + (int)(blockIdx.x * %uu + threadIdx.x);\n", nd - 1,
               nd - 1, (unsigned)sh->bx);
    if (w >= 0)
        kgt_printf(b,
                   "    const int y%d = (int)u%d + (int)(blockIdx.y * %uu + threadIdx.y) * %d;\n",
                   w, w, (unsigned)sh->by, sh->cy);
    if (nd == 3) kgt_printf(b, "    const int y0 = (int)u0 + (int)blockIdx.z;\n");
    for (int d = 0; d + 1 < nd; d++)
        kgt_printf(b, "    const int s%d = (int)a.stride[0][%d];\n", d, d);
    kgt_printf(b, "    const int c = ");
    for (int d = 0; d + 1 < nd; d++) kgt_printf(b, "y%d * s%d + ", d, d);
    kgt_printf(b, "y%d;\n    (void)c;\n", nd - 1);
}

/* Per evolving field f: e_f, its box is empty; in_f, the thread's cells are all inside it. */
static void emit_tests(kgt_buf *b, const kgt_prog *p, const kgt_prog_shape *sh)
{
    int nd = p->ndims, w = walk_dim(p);
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        kgt_printf(b, "    const bool e_%d = ", f);
        for (int d = 0; d < nd; d++)
            kgt_printf(b, "%sa.lo[%d][%d] >= a.hi[%d][%d]", d ? " || " : "", f, d, f, d);
        kgt_printf(b, ";\n    const bool in_%d = ", f);
        for (int d = 0; d < nd; d++)
            kgt_printf(b, "%sy%d >= (int)a.lo[%d][%d] && y%d + %d <= (int)a.hi[%d][%d]",
                       d ? " && " : "", d, f, d, d, d == w ? sh->cy : 1, f, d);
        kgt_printf(b, ";\n");
    }
    kgt_printf(b, "    if (");
    for (int f = 0, any = 0; f < p->nf; f++)
        if (!p->f[f].coef) kgt_printf(b, "%s(e_%d || in_%d)", any++ ? " && " : "", f, f);
    kgt_printf(b, ") {\n");
}

/* Cell r's local and global indices, in its own scope's indent ind. */
static void emit_cell_index(kgt_buf *b, const kgt_prog *p, const char *r, const char *ind)
{
    int w = walk_dim(p);
    for (int d = 0; d < p->ndims; d++)
        kgt_printf(b, "%sconst int x%d = y%d%s%s;\n%s(void)x%d;\n", ind, d, d, d == w ? " + " : "",
                   d == w ? r : "", ind, d);
    kgt_pe_index(b, p, "a.", ind);
}

/* The lets every update uses, transitively (used[nlet]). */
void kgt_pe_lets_all(const kgt_prog *p, char *used)
{
    char u1[KGT_PROG_MAX_LETS];
    memset(used, 0, KGT_PROG_MAX_LETS);
    for (int f = 0; f < p->nf; f++) {
        if (p->f[f].coef) continue;
        kgt_prog_lets_used(p, p->f[f].update, u1);
        for (int i = 0; i < p->nlet; i++) used[i] |= u1[i];
    }
}

/* The used lets of one cell from registers (rg), in a cell's scope (12 spaces). */
void kgt_pe_reg_lets(kgt_buf *b, const kgt_prog *p, int dbl, const char *used, const kgt_pregs *rg)
{
    for (int i = 0; i < p->nlet; i++) {
        if (!used[i]) continue;
        kgt_printf(b, "            const %s l_%s = ",
                   p->let[i].e->type == KP_T_BOOL ? "int" : kgt_pe_tnames[dbl], p->let[i].name);
        kgt_prog_print_regs(b, p, p->let[i].e, KGT_PT_CUDA, dbl, rg);
        kgt_printf(b, ";\n            (void)l_%s;\n", p->let[i].name);
    }
}

/* The thread's cells from registers, stored without tests (fields with an empty box aside). */
static void emit_inner(kgt_buf *b, const kgt_prog *p, int dbl, const kgt_prog_shape *sh,
                       const rdset *rs)
{
    const char *t = kgt_pe_tnames[dbl];
    char used[KGT_PROG_MAX_LETS];
    int w = walk_dim(p);
    for (int f = 0; f < p->nf; f++) {
        const char *n = p->f[f].name;
        kgt_printf(b, "        const %s *__restrict__ const b_%s = f_%s + c;\n", t, n, n);
        if (p->f[f].keeps)
            kgt_printf(b, "        const %s *__restrict__ const pb_%s = pf_%s + c;\n", t, n, n);
        if (!p->f[f].coef)
            kgt_printf(b, "        %s *__restrict__ const o_%s = a.out[%d] + c;\n", t, n, f);
        kgt_printf(b, "        (void)b_%s;\n", n);
    }
    for (int i = 0; i < rs->n; i++) {
        const rd *x = &rs->r[i];
        kgt_printf(b, "        const %s ", t);
        kgt_prog_reg_name(b, p, x->f, x->prev, x->off);
        kgt_printf(b, " = KGT_LDG(%sb_%s + ", x->prev ? "p" : "", p->f[x->f].name);
        reg_offset(b, p, x->off);
        kgt_printf(b, ");\n");
    }
    kgt_pe_lets_all(p, used);
    for (int r = 0; r < sh->cy; r++) {
        char rs_[16];
        kgt_pregs rg = {w, r, 0, 0, NULL, NULL};
        snprintf(rs_, sizeof rs_, "%d", r);
        kgt_printf(b, "        { /* cell %d */\n", r);
        emit_cell_index(b, p, rs_, "            ");
        kgt_pe_reg_lets(b, p, dbl, used, &rg);
        for (int f = 0; f < p->nf; f++) {
            if (p->f[f].coef) continue;
            kgt_printf(b, "            if (!e_%d) o_%s[", f, p->f[f].name);
            if (w >= 0 && r)
                kgt_printf(b, "%d * s%d", r, w);
            else
                kgt_printf(b, "0");
            kgt_printf(b, "] = ");
            kgt_prog_print_regs(b, p, p->f[f].update, KGT_PT_CUDA, dbl, &rg);
            kgt_printf(b, ";\n");
        }
        kgt_printf(b, "        }\n");
    }
    kgt_printf(b, "        return;\n    }\n");
}

/* The other threads: cell by cell, each field tested against its own box. */
static void emit_edge(kgt_buf *b, const kgt_prog *p, int dbl, const kgt_prog_shape *sh)
{
    kgt_printf(b, "#pragma unroll 1\n    for (int r = 0; r < %d; r++) {\n", sh->cy);
    emit_cell_index(b, p, "r", "        ");
    for (int f = 0; f < p->nf; f++) {
        char out[32];
        if (p->f[f].coef) continue;
        kgt_printf(b, "        if (");
        for (int d = 0; d < p->ndims; d++)
            kgt_printf(b, "%sx%d >= (int)a.lo[%d][%d] && x%d < (int)a.hi[%d][%d]", d ? " && " : "",
                       d, f, d, d, f, d);
        kgt_printf(b, ") { /* update %s */\n", p->f[f].name);
        snprintf(out, sizeof out, "a.out[%d]", f);
        kgt_pe_cell(b, p, f, dbl, KGT_PT_CUDA, out, "            ", kgt_pe_int);
        kgt_printf(b, "        }\n");
    }
    kgt_printf(b, "    }\n}\n\n");
}

void kgt_prog_emit_gpu_kernel(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl,
                              const kgt_prog_shape *shape)
{
    char c = dbl ? 'd' : 'f';
    kgt_prog_shape sh;
    rdset rs;
    if (shape)
        sh = *shape;
    else
        kgt_prog_gpu_plan(p, dbl, &sh);
    if (kgt_prog_shape_check(p, &sh)) {
        b->oom = 1; /* the caller checks shapes; nothing sensible to write */
        return;
    }
    thread_regs(p, sh.cy, &rs);
    if (rs.oom) {
        free(rs.r);
        b->oom = 1;
        return;
    }
    kgt_pe_helpers(b, KGT_PT_CUDA, dbl);
    kgt_pe_args(b, dbl);
    /* Read-only loads: through the non-coherent path on CUDA; a plain load on HIP. */
    kgt_printf(b, "#ifndef KGT_LDG\n#if defined(__HIPCC__)\n#define KGT_LDG(p) (*(p))\n#else\n"
                  "#define KGT_LDG(p) __ldg(p)\n#endif\n#endif\n");
    kgt_printf(b,
               "/* shape %d x %d threads, %d cells a thread */\n"
               "extern \"C\" __global__ void __launch_bounds__(%d) %s_%s_cuda_k%c(const "
               "kgt_prog_args_%c a, long u0, long u1, long u2)\n{\n"
               "    const long t = a.t;\n    (void)t;\n    (void)u0;\n    (void)u1;\n"
               "    (void)u2;\n",
               sh.bx, sh.by, sh.cy, sh.bx * sh.by, prefix, p->name, c, c);
    emit_coords(b, p, &sh);
    kgt_pe_decls(b, p, dbl, "a.", kgt_pe_int);
    emit_tests(b, p, &sh);
    emit_inner(b, p, dbl, &sh, &rs);
    emit_edge(b, p, dbl, &sh);
    free(rs.r);
}

void kgt_prog_emit_gpu_rtc(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl, int narrow,
                           const kgt_prog_shape *sh)
{
    kgt_emit_rn_helpers(b);
    if (!narrow) {
        kgt_pe_helpers(b, KGT_PT_CUDA, dbl);
        kgt_pe_args(b, dbl);
        kgt_pe_gpu_kernel1(b, p, prefix, dbl, 1, kgt_pe_long);
        return;
    }
    kgt_prog_emit_gpu_kernel(b, p, prefix, dbl, sh);
}

void kgt_prog_gpu_grid(int ndims, const kgt_prog_shape *sh, const long *n, unsigned *grid)
{
    long rows = (long)sh->by * sh->cy;
    grid[0] = (unsigned)((n[ndims - 1] + sh->bx - 1) / sh->bx);
    grid[1] = ndims > 1 ? (unsigned)((n[ndims - 2] + rows - 1) / rows) : 1;
    grid[2] = ndims > 2 ? (unsigned)n[0] : 1;
}
