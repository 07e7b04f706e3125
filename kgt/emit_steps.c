/*
 * Several time steps per launch in kgt's output: the library's run-time streaming kernels
 * (kgt_rt_gpu_stream, what it compiles for kernel NULL) of 2 up to the stencil's depth, compiled
 * ahead of time, and a table naming them (stencil_kernel.cuda_steps / .hip_steps). The library
 * launches them through its own plans (stream_plan.c), so a named kernel runs the families,
 * depths and launches of the default; it first checks that each level's stamp, a digest of the
 * source, equals the one of the source it would compile itself, so a table made by another kgt
 * is never launched with a plan that does not fit it.
 */
#include <stdlib.h>
#include <string.h>

#include "kgt.h"
#include "kgt_rt.h"

/*
 * s as the library sees the stencil of the kernel object (layout/stencil.c): its non-zero points
 * in row-major order, reaching as far as they do, named `name`; a 1D stencil laid along the rows
 * of a 2D one, as the backends run it (backends/gen.c). The kernels and their stamps are made
 * from this form, so that they equal the library's bit for bit.
 */
int kgt_stream_form(const kgt_stencil *s, const char *name, kgt_stencil *c)
{
    int n = 0, rlo[KGT_MAX_DIMS] = {0}, rhi[KGT_MAX_DIMS] = {0};
    int(*off)[KGT_MAX_DIMS] = calloc((size_t)s->npts, sizeof *off);
    double *w = calloc((size_t)s->npts, sizeof *w);
    int rc = -1;
    if (off && w) {
        for (int p = 0; p < s->npts; p++) {
            if (s->pts[p].w == 0.0) continue;
            for (int d = 0; d < s->ndims; d++) {
                const int e = d + (s->ndims == 1); /* 1D: along dimension 1 */
                off[n][e] = s->pts[p].off[d];
                if (-off[n][e] > rlo[e]) rlo[e] = -off[n][e];
                if (off[n][e] > rhi[e]) rhi[e] = off[n][e];
            }
            w[n++] = s->pts[p].w;
        }
        rc = kgt_stencil_init(c, name, s->ndims == 1 ? 2 : s->ndims, rlo, rhi, n,
                              (const int(*)[KGT_MAX_DIMS])off, w, s->divisor);
    }
    free(off);
    free(w);
    return rc;
}

int kgt_steps_depth(const kgt_stencil *s, int dbl)
{
    kgt_stencil c;
    if (kgt_stream_form(s, "rt", &c)) return 0;
    int d = c.ndims == 3 ? kgt_stream3_depth(&c, dbl) : kgt_stream_depth(&c, dbl);
    kgt_stencil_clear(&c);
    return d >= 2 ? d : 0;
}

unsigned long long kgt_stream_stamp(const kgt_stencil *s, int dbl, int levels,
                                    kgt_stream_info *info)
{
    char *src = kgt_rt_gpu_stream(s, dbl, levels, NULL, info);
    unsigned long long h = 14695981039346656037ull; /* FNV-1a, 64 bits */
    if (!src) return 0;
    for (const unsigned char *c = (const unsigned char *)src; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    free(src);
    return h ? h : 1;
}

/* The kernels of levels 2..depth (static: kgt's prologue defines KGT_EXTERN_C so), then the table
   KGT_STEPS(P_NAME, t). */
void kgt_emit_gpu_steps(kgt_buf *b, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    const int depth = kgt_steps_depth(s, dbl);
    char names[KGT_STREAM_MAX + 1][2][64] = {{{0}}};
    unsigned long long stamp[KGT_STREAM_MAX + 1] = {0};
    if (!depth) return;
    kgt_printf(b,
               "/* %s, %s: the library's %d..%d-step kernels, its table (stencil_kernel.*_steps) "
               "*/\n",
               s->name, kgt_types[dbl].name, 2, depth);
    /* The 3D kernels' KGT_UNROLL is a bare pragma, the step kernels' a function-like macro. */
    kgt_printf(b, "#pragma push_macro(\"KGT_UNROLL\")\n#undef KGT_UNROLL\n"
                  "#if defined(__NVCC__) /* the run-time text's unused ring pointers */\n"
                  "#pragma nv_diagnostic push\n#pragma nv_diag_suppress 177, 550\n"
                  "#elif defined(__clang__)\n#pragma clang diagnostic push\n"
                  "#pragma clang diagnostic ignored \"-Wunused-variable\"\n"
                  "#pragma clang diagnostic ignored \"-Wunused-but-set-variable\"\n#endif\n");
    kgt_stencil c, rt;
    if (kgt_stream_form(s, s->name, &c)) {
        b->oom = 1;
        return;
    }
    if (kgt_stream_form(s, "rt", &rt)) {
        kgt_stencil_clear(&c);
        b->oom = 1;
        return;
    }
    for (int l = 2; l <= depth && !b->oom; l++) {
        kgt_stream_info info;
        stamp[l] = kgt_stream_stamp(&rt, dbl, l, &info);
        if ((c.ndims == 3 ? kgt_emit_gpu_stream3_rt : kgt_emit_gpu_stream_rt)(b, &c, dbl, l, NULL,
                                                                              &info))
            b->oom = 1;
        for (int v = 0; v < 2; v++)
            memcpy(names[l][v], info.name[info.v > 1 ? v : 0], sizeof names[l][v]);
    }
    kgt_stencil_clear(&c);
    kgt_stencil_clear(&rt);
    kgt_printf(b, "#if defined(__NVCC__)\n#pragma nv_diagnostic pop\n"
                  "#elif defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n"
                  "#undef KGT_UNROLL\n#pragma pop_macro(\"KGT_UNROLL\")\n");
    kgt_printf(b, "extern \"C\" const kgt_steps KGT_STEPS(%s_%s, %c) = {\n    %d,\n    {",
               g->prefix, s->stem, kgt_types[dbl].suf, depth);
    for (int l = 0; l <= KGT_STREAM_MAX; l++)
        kgt_printf(b, "%s0x%016llxull", l ? ", " : "", stamp[l]);
    kgt_printf(b, "},\n    {");
    for (int l = 0; l <= KGT_STREAM_MAX; l++) {
        if (l < 2 || l > depth) {
            kgt_printf(b, "%s{0, 0}", l ? ", " : "");
            continue;
        }
        kgt_printf(b, ",\n     {(const void *)%s, (const void *)%s}", names[l][0], names[l][1]);
    }
    kgt_printf(b, "}};\n\n");
}
