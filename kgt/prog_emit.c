/*
 * Programs, kernels: the loops and declarations around the printed updates (prog_print.c), for
 * the host (plain C loops), OpenCL C and CUDA/HIP. Every kernel takes each field as its own
 * array: a pointer to the field's local cell (0, ..., 0), its strides (the last dimension
 * contiguous), and per evolving field the box of local cells to compute [lo, hi) (a fixed
 * frame is the caller's: it leaves those cells out of the box). The cell's global index is
 * origin + the local one. The caller fills every halo (kgt_prog_ghost says with what); the
 * kernels read nothing else beyond a box.
 *
 * Each update is computed in a loop (or a branch) of its own, with the lets it uses, so fields
 * with different boxes need nothing from each other's. The output arrays have the layout of
 * the input ones.
 */
#include <string.h>

#include "prog_emit.h"

const char *const kgt_pe_tnames[2] = {"float", "double"};

/* Each let's tree is walked once (seen), however often it is named, so chains of lets cost
   linear time. */
void kgt_pe_fields_used(const kgt_prog *p, const kgt_pnode *n, char *fu, char *seen)
{
    if (n->kind == KP_READ) fu[n->ref] = 1;
    if (n->kind == KP_LET && !seen[n->ref]) {
        seen[n->ref] = 1;
        kgt_pe_fields_used(p, p->let[n->ref].e, fu, seen);
    }
    for (int i = 0; i < 3; i++)
        if (n->a[i]) kgt_pe_fields_used(p, n->a[i], fu, seen);
}

/* The args struct of one element type (host and CUDA, by value there: about 2.5 KiB, under
   CUDA's 4 KiB of kernel parameters), one layout for every program so that a caller needs no
   type per program. */
void kgt_pe_args(kgt_buf *b, int dbl)
{
    const char *t = kgt_pe_tnames[dbl];
    char c = dbl ? 'd' : 'f';
    kgt_printf(b,
               "#ifndef KGT_PROG_ARGS_%c\n#define KGT_PROG_ARGS_%c\n"
               "typedef struct kgt_prog_args_%c {\n"
               "    const %s *in[%d];   /* per field (declaration order): its local cell 0 */\n"
               "    const %s *prev[%d]; /* fields that keep a previous level, else unused */\n"
               "    %s *out[%d];        /* evolving fields: the new level, in's layout; NULL for "
               "coefficients */\n"
               "    long stride[%d][3]; /* dimensions 0 .. dims-2; the last is contiguous */\n"
               "    long lo[%d][3], hi[%d][3]; /* evolving fields: the local cells to compute */\n"
               "    long origin[3];     /* global index of local cell 0 */\n"
               "    long t;             /* the step number */\n"
               "    %s par[%d];         /* parameters, in declaration order */\n"
               "} kgt_prog_args_%c;\n#endif\n",
               c, c, c, t, KGT_PROG_MAX_FIELDS, t, KGT_PROG_MAX_FIELDS, t, KGT_PROG_MAX_FIELDS,
               KGT_PROG_MAX_FIELDS, KGT_PROG_MAX_FIELDS, KGT_PROG_MAX_FIELDS, t,
               KGT_PROG_MAX_PARAMS, c);
}

const kgt_pe_ix kgt_pe_long = {"long", 0}, kgt_pe_int = {"int", 1};

/* Declarations at the top of a kernel: parameters and each field's arrays and strides, from
   `a.` (CUDA, the struct by value) or `a->` (host). */
void kgt_pe_decls(kgt_buf *b, const kgt_prog *p, int dbl, const char *a, kgt_pe_ix ix)
{
    const char *t = kgt_pe_tnames[dbl];
    for (int i = 0; i < p->npar; i++)
        kgt_printf(b, "    const %s p_%s = %spar[%d]; (void)p_%s;\n", t, p->par[i].name, a, i,
                   p->par[i].name);
    for (int f = 0; f < p->nf; f++) {
        const char *n = p->f[f].name;
        kgt_printf(b, "    const %s *const f_%s = %sin[%d]; (void)f_%s;\n", t, n, a, f, n);
        if (p->f[f].keeps)
            kgt_printf(b, "    const %s *const pf_%s = %sprev[%d]; (void)pf_%s;\n", t, n, a, f, n);
        for (int d = 0; d + 1 < p->ndims; d++)
            kgt_printf(b, "    const %s s_%s_%d = %s%s%sstride[%d][%d]; (void)s_%s_%d;\n", ix.t, n,
                       d, ix.shared ? "(int)" : "", "", a, ix.shared ? 0 : f, d, n, d);
    }
}

/* The body computing field f at local cell (x0, ...): the index of each field it reads, the
   lets it uses in order, the store. out is the output array's expression. */
void kgt_pe_cell(kgt_buf *b, const kgt_prog *p, int f, int dbl, int target, const char *out,
                 const char *ind, kgt_pe_ix ix)
{
    char used[KGT_PROG_MAX_LETS], seen[KGT_PROG_MAX_LETS] = {0}, fu[KGT_PROG_MAX_FIELDS] = {0};
    const char *n = p->f[f].name;
    kgt_prog_lets_used(p, p->f[f].update, used);
    kgt_pe_fields_used(p, p->f[f].update, fu, seen);
    fu[f] = 1;
    for (int g = 0; g < p->nf; g++) {
        if (!fu[g]) continue;
        kgt_printf(b, "%sconst %s c_%s = ", ind, ix.t, p->f[g].name);
        for (int d = 0; d + 1 < p->ndims; d++)
            kgt_printf(b, "x%d * s_%s_%d + ", d, p->f[g].name, d);
        kgt_printf(b, "x%d;\n", p->ndims - 1);
    }
    for (int i = 0; i < p->nlet; i++) {
        if (!used[i]) continue;
        kgt_printf(b, "%sconst %s l_%s = ", ind,
                   p->let[i].e->type == KP_T_BOOL ? "int" : kgt_pe_tnames[dbl], p->let[i].name);
        kgt_prog_print(b, p, p->let[i].e, target, dbl);
        kgt_printf(b, ";\n");
    }
    kgt_printf(b, "%s%s[c_%s] = ", ind, out, n);
    kgt_prog_print(b, p, p->f[f].update, target, dbl);
    kgt_printf(b, ";\n");
}

/* The cell's global index g0.. from a->origin / a.origin, or (a NULL: OpenCL) m[0..2]. */
void kgt_pe_index(kgt_buf *b, const kgt_prog *p, const char *a, const char *ind)
{
    for (int d = 0; d < p->ndims; d++)
        kgt_printf(b, "%sconst long g%d = %s%s[%d] + x%d; (void)g%d;\n", ind, d, a ? a : "",
                   a ? "origin" : "m", d, d, d);
}

/* min and max as selects, division and sqrt: per target, per type (prog_print.c). */
void kgt_pe_helpers(kgt_buf *b, int target, int dbl)
{
    const char *t = kgt_pe_tnames[dbl],
               *q = target == KGT_PT_CUDA ? "static __device__ __forceinline__" : "static inline";
    char c = dbl ? 'd' : 'f';
    /* Once per translation unit, whatever number of programs it holds. */
    kgt_printf(b,
               "#ifndef KGT_PROG_HELPERS_%c\n#define KGT_PROG_HELPERS_%c\n"
               "%s %s kgt_pmin_%c(%s a, %s b) { return b < a ? b : a; }\n"
               "%s %s kgt_pmax_%c(%s a, %s b) { return a < b ? b : a; }\n",
               c, c, q, t, c, t, t, q, t, c, t, t);
    if (target == KGT_PT_CUDA)
        kgt_printf(b,
                   "#if defined(__HIPCC__)\n"
                   "%s %s kgt_pdiv_%c(%s a, %s b) { return a / b; }\n"
                   "%s %s kgt_psqrt_%c(%s a) { return sqrt(a); }\n"
                   "#else\n"
                   "%s %s kgt_pdiv_%c(%s a, %s b) { return __%cdiv_rn(a, b); }\n"
                   "%s %s kgt_psqrt_%c(%s a) { return __%csqrt_rn(a); }\n"
                   "#endif\n",
                   q, t, c, t, t, q, t, c, t, q, t, c, t, t, c, q, t, c, t, c);
    kgt_printf(b, "#endif\n");
}

void kgt_pe_fuse_args(kgt_buf *b, int dbl)
{
    const char *t = kgt_pe_tnames[dbl];
    char c = dbl ? 'd' : 'f';
    kgt_printf(b,
               "#ifndef KGT_PROG_FUSE_ARGS_%c\n#define KGT_PROG_FUSE_ARGS_%c\n"
               "typedef struct kgt_prog_fuse_args_%c {\n"
               "    const %s *in[%d], *prev[%d]; /* per field: local cell 0 of levels 0, -1 */\n"
               "    %s *out[%d], *pout[%d];      /* levels k and k - 1 (fields that keep one) */\n"
               "    long origin[2], t;  /* global index of local cell 0; t of the first step */\n"
               "    int stride, n[2];   /* row stride; the local array's cells [0, n) */\n"
               "    int u[2];           /* first cell of the union of the last step's boxes */\n"
               "    int box[%d][%d][2][2]; /* [step][field][dimension]: [lo, hi) */\n"
               "    %s par[%d];\n"
               "} kgt_prog_fuse_args_%c;\n#endif\n",
               c, c, c, t, KGT_PROG_MAX_FIELDS, KGT_PROG_MAX_FIELDS, t, KGT_PROG_MAX_FIELDS,
               KGT_PROG_MAX_FIELDS, KGT_PROG_FUSE_MAX, KGT_PROG_MAX_FIELDS, t, KGT_PROG_MAX_PARAMS,
               c);
}

void kgt_prog_emit_host_header(kgt_buf *b, const kgt_prog *p, const char *prefix)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        kgt_pe_args(b, dbl);
        kgt_printf(b, "void %s_%s_host_%c(const kgt_prog_args_%c *a);\n", prefix, p->name,
                   dbl ? 'd' : 'f', dbl ? 'd' : 'f');
    }
}

void kgt_prog_emit_host(kgt_buf *b, const kgt_prog *p, const char *prefix)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        char c = dbl ? 'd' : 'f';
        kgt_pe_helpers(b, KGT_PT_C, dbl);
        kgt_printf(b,
                   "void %s_%s_host_%c(const kgt_prog_args_%c *a)\n{\n    const long t = a->t;\n"
                   "    (void)t;\n",
                   prefix, p->name, c, c);
        kgt_pe_decls(b, p, dbl, "a->", kgt_pe_long);
        for (int f = 0; f < p->nf; f++) {
            char ind[64], out[32];
            int nd = p->ndims;
            if (p->f[f].coef) continue;
            kgt_printf(b, "    /* update %s */\n", p->f[f].name);
            for (int d = 0; d < nd; d++)
                kgt_printf(b, "%*sfor (long x%d = a->lo[%d][%d]; x%d < a->hi[%d][%d]; x%d++)%s\n",
                           4 + 4 * d, "", d, f, d, d, f, d, d, d == nd - 1 ? " {" : "");
            snprintf(ind, sizeof ind, "%*s", 4 + 4 * nd, "");
            snprintf(out, sizeof out, "a->out[%d]", f);
            kgt_pe_index(b, p, "a->", ind);
            kgt_pe_cell(b, p, f, dbl, KGT_PT_C, out, ind, kgt_pe_long);
            kgt_printf(b, "%*s}\n", 4 + 4 * (nd - 1), "");
        }
        kgt_printf(b, "}\n\n");
    }
}

/* OpenCL arguments: per field its input, its previous level if it keeps one, its output if it
   evolves; then m (longs: origin[3], t, the launch's first local cell[3], then per field 12:
   offset of local cell 0 in its buffers, stride[3], lo[3], hi[3], 2 unused) and par. narrow:
   indices in int, shared between the fields (field 0's strides), m and par in constant memory
   (uniform reads). */
static void emit_opencl(kgt_buf *b, const kgt_prog *p, const char *prefix, int narrow)
{
    const char *it = narrow ? "int" : "long", *ic = narrow ? "(int)" : "",
               *as = narrow ? "__constant" : "__global const";
    kgt_printf(b, "#pragma OPENCL FP_CONTRACT OFF\n");
    for (int dbl = 0; dbl < 2; dbl++) {
        const char *t = kgt_pe_tnames[dbl];
        kgt_printf(b, dbl ? "#else\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                          : "#if !STENCIL_DOUBLE\n");
        kgt_pe_helpers(b, KGT_PT_OPENCL, dbl);
        kgt_printf(b, "__kernel void %s_%s(", prefix, p->name);
        for (int f = 0; f < p->nf; f++) {
            const char *n = p->f[f].name;
            kgt_printf(b, "__global const %s *b_%s, ", t, n);
            if (p->f[f].keeps) kgt_printf(b, "__global const %s *bp_%s, ", t, n);
            if (!p->f[f].coef) kgt_printf(b, "__global %s *bo_%s, ", t, n);
        }
        kgt_printf(b, "%s long *m, %s %s *par)\n{\n", as, as, t);
        kgt_printf(b, "    const long t = m[3];\n    (void)t;\n");
        for (int d = 0; d < p->ndims; d++)
            kgt_printf(b, "    const %s x%d = %sm[%d] + (%s)get_global_id(%d);\n", it, d, ic, 4 + d,
                       it, p->ndims - 1 - d);
        for (int i = 0; i < p->npar; i++)
            kgt_printf(b, "    const %s p_%s = par[%d];\n    (void)p_%s;\n", t, p->par[i].name, i,
                       p->par[i].name);
        for (int f = 0; f < p->nf; f++) {
            const char *n = p->f[f].name;
            int m0 = 8 + 12 * f;
            kgt_printf(b, "    __global const %s *const f_%s = b_%s + m[%d];\n    (void)f_%s;\n", t,
                       n, n, m0, n);
            if (p->f[f].keeps)
                kgt_printf(
                    b, "    __global const %s *const pf_%s = bp_%s + m[%d];\n    (void)pf_%s;\n", t,
                    n, n, m0, n);
            for (int d = 0; d + 1 < p->ndims; d++)
                kgt_printf(b, "    const %s s_%s_%d = %sm[%d];\n    (void)s_%s_%d;\n", it, n, d, ic,
                           (narrow ? 8 : m0) + 1 + d, n, d);
        }
        kgt_pe_index(b, p, NULL, "    ");
        for (int f = 0; f < p->nf; f++) {
            char out[128]; /* a name of up to 63 characters and an index */
            int m0 = 8 + 12 * f;
            if (p->f[f].coef) continue;
            kgt_printf(b, "    if (");
            for (int d = 0; d < p->ndims; d++)
                kgt_printf(b, "%sx%d >= %sm[%d] && x%d < %sm[%d]", d ? " && " : "", d, ic,
                           m0 + 4 + d, d, ic, m0 + 7 + d);
            kgt_printf(b, ") { /* update %s */\n", p->f[f].name);
            snprintf(out, sizeof out, "(bo_%s + m[%d])", p->f[f].name, m0);
            kgt_pe_cell(b, p, f, dbl, KGT_PT_OPENCL, out, "        ",
                        narrow ? kgt_pe_int : kgt_pe_long);
            kgt_printf(b, "    }\n");
        }
        kgt_printf(b, "}\n");
    }
    kgt_printf(b, "#endif\n");
}

void kgt_prog_emit_opencl(kgt_buf *b, const kgt_prog *p, const char *prefix)
{
    emit_opencl(b, p, prefix, 0);
}

void kgt_prog_emit_opencl_rt(kgt_buf *b, const kgt_prog *p, const char *prefix, int narrow)
{
    emit_opencl(b, p, prefix, narrow);
}

void kgt_prog_gpu_block(int ndims, unsigned *bx, unsigned *by)
{
    *bx = ndims == 1 ? 256 : 64;
    *by = ndims == 1 ? 1 : 4;
}

/* The CUDA/HIP kernel of one type over the union of the boxes (x along the last dimension),
   from u0.. on: NAME_cuda_kf / _kd, or (rtc) with C linkage, the name NVRTC looks up. */
void kgt_pe_gpu_kernel1(kgt_buf *b, const kgt_prog *p, const char *prefix, int dbl, int rtc,
                        kgt_pe_ix ix)
{
    char c = dbl ? 'd' : 'f';
    int nd = p->ndims, narrow = strcmp(ix.t, "long") != 0;
    kgt_printf(b,
               "%s__global__ void %s_%s_cuda_k%c(const kgt_prog_args_%c a, long u0, long u1, "
               "long u2)\n{\n    const long t = a.t;\n    (void)t;\n",
               rtc ? "extern \"C\" " : "", prefix, p->name, c, c);
    for (int d = 0; d < nd; d++) {
        static const char *const ax[] = {"x", "y", "z"};
        const char *w = ax[nd - 1 - d];
        if (narrow)
            kgt_printf(b,
                       "    const int x%d = (int)u%d + (int)(blockIdx.%s * blockDim.%s + "
                       "threadIdx.%s);\n",
                       d, d, w, w, w);
        else
            kgt_printf(b,
                       "    const long x%d = u%d + (long)blockIdx.%s * blockDim.%s + "
                       "threadIdx.%s;\n",
                       d, d, w, w, w);
    }
    kgt_pe_decls(b, p, dbl, "a.", ix);
    kgt_pe_index(b, p, "a.", "    ");
    for (int f = 0; f < p->nf; f++) {
        char out[32];
        if (p->f[f].coef) continue;
        kgt_printf(b, "    if (");
        for (int d = 0; d < nd; d++)
            kgt_printf(b, "%sx%d >= %sa.lo[%d][%d] && x%d < %sa.hi[%d][%d]", d ? " && " : "", d,
                       narrow ? "(int)" : "", f, d, d, narrow ? "(int)" : "", f, d);
        kgt_printf(b, ") { /* update %s */\n", p->f[f].name);
        snprintf(out, sizeof out, "a.out[%d]", f);
        kgt_pe_cell(b, p, f, dbl, KGT_PT_CUDA, out, "        ", ix);
        kgt_printf(b, "    }\n");
    }
    kgt_printf(b, "}\n\n");
}

/* CUDA/HIP: per type the args struct (by value), the kernel, and a C-linkage launcher
   returning non-zero on a launch error. */
void kgt_prog_emit_gpu(kgt_buf *b, const kgt_prog *p, const char *prefix)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        char c = dbl ? 'd' : 'f';
        int nd = p->ndims;
        unsigned bx, by;
        kgt_prog_gpu_block(nd, &bx, &by);
        kgt_pe_helpers(b, KGT_PT_CUDA, dbl);
        kgt_pe_args(b, dbl);
        kgt_pe_gpu_kernel1(b, p, prefix, dbl, 0, kgt_pe_long);
        kgt_printf(b,
                   "extern \"C\" int KGT_PROG_LAUNCHER(%s_%s, %c)(const kgt_prog_args_%c *a, "
                   "KGT_STREAM_T stream)\n"
                   "{\n    long u[3] = {0, 0, 0}, v[3] = {0, 0, 0}, n[3] = {1, 1, 1};\n"
                   "    int any = 0;\n"
                   "    for (int f = 0; f < %d; f++) {\n"
                   "        if (!a->out[f]) continue; /* coefficient fields */\n"
                   "        for (int d = 0; d < %d; d++) {\n"
                   "            if (!any || a->lo[f][d] < u[d]) u[d] = a->lo[f][d];\n"
                   "            if (!any || a->hi[f][d] > v[d]) v[d] = a->hi[f][d];\n"
                   "        }\n        any = 1;\n    }\n"
                   "    for (int d = 0; d < %d; d++) {\n"
                   "        if (v[d] <= u[d]) return 0;\n        n[d] = v[d] - u[d];\n    }\n",
                   prefix, p->name, c, c, p->nf, nd, nd);
        kgt_printf(b, "    dim3 block(%u, %u, 1);\n", bx, by);
        kgt_printf(b, "    dim3 grid((unsigned)((n[%d] + block.x - 1) / block.x), ", nd - 1);
        if (nd > 1)
            kgt_printf(b, "(unsigned)((n[%d] + block.y - 1) / block.y), ", nd - 2);
        else
            kgt_printf(b, "1, ");
        kgt_printf(b, "%s);\n", nd > 2 ? "(unsigned)n[0]" : "1");
        kgt_printf(b,
                   "    %s_%s_cuda_k%c<<<grid, block, 0, stream>>>(*a, u[0], u[1], u[2]);\n"
                   "    return KGT_LAUNCH_ERROR();\n}\n\n",
                   prefix, p->name, c);
    }
}
