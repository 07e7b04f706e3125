/*
 * kgt at run time (kgt_rt.h): a stencil from the library's description, and the sources the
 * backends compile while a program runs, from the same emitters as the kgt command.
 */
#include <stdlib.h>
#include <string.h>

#include "kgt_rt.h"

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

int kgt_stencil_init(kgt_stencil *s, const char *name, int ndims, const int *rlo, const int *rhi,
                     int npts, const int (*off)[KGT_MAX_DIMS], const double *w, double divisor)
{
    memset(s, 0, sizeof *s);
    if (ndims < 1 || ndims > KGT_MAX_DIMS || npts < 1) return -1;
    s->name = dup_str(name);
    s->stem = dup_str(name);
    s->pts = calloc((size_t)npts, sizeof *s->pts);
    if (!s->name || !s->stem || !s->pts) {
        kgt_stencil_clear(s);
        return -1;
    }
    for (char *c = s->stem; *c; c++)
        if (*c == '-') *c = '_';
    s->ndims = ndims;
    s->has_radius = s->has_divisor = 1;
    s->mode = KGT_MODE_POINTS;
    s->divisor = divisor;
    for (int d = 0; d < ndims; d++) {
        s->rlo[d] = rlo[d];
        s->rhi[d] = rhi[d];
    }
    for (int p = 0; p < npts; p++) {
        for (int d = 0; d < ndims; d++) s->pts[p].off[d] = off[p][d];
        s->pts[p].w = w[p];
    }
    s->npts = s->cap = npts;
    return 0;
}

void kgt_stencil_clear(kgt_stencil *s)
{
    free(s->name);
    free(s->stem);
    free(s->pts);
    memset(s, 0, sizeof *s);
}

/* The buffer's text handed over, or NULL (and freed) when an append failed. */
static char *take(kgt_buf *b)
{
    if (b->oom || !b->s) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

char *kgt_rt_opencl(const kgt_stencil *s, int idx_long)
{
    kgt_buf b = {0};
    kgt_index ix = {"in", "c", {NULL, NULL, NULL}, " \\\n        ", 0, 0, 0, 0};
    if (s->ndims > 1) ix.stride[0] = "S0";
    if (s->ndims > 2) ix.stride[1] = "S1";
    kgt_printf(&b, "/* %s, generated at run time by kgt %s */\n#define idx_t %s\n", s->name,
               KGT_VERSION, idx_long ? "long" : "int");
    for (int dbl = 1; dbl >= 0; dbl--) {
        kgt_printf(&b,
                   "%s\n#define STENCIL_SUM(in, c) acc = ", dbl ? "#if STENCIL_DOUBLE" : "#else");
        kgt_emit_expr(&b, s, dbl, &ix);
        kgt_printf(&b, ";\n");
    }
    kgt_printf(&b, "#endif\n#define STENCIL_FINISH(acc) (acc)\n");
    return take(&b);
}

/* What every run-time GPU source starts with. */
static void gpu_prelude(kgt_buf *b, const kgt_stencil *s)
{
    kgt_printf(b, "/* %s, generated at run time by kgt %s */\n", s->name, KGT_VERSION);
    kgt_emit_warp_macros(b);
    kgt_emit_rn_helpers(b);
    kgt_printf(b, "#define KGT_EXTERN_C extern \"C\"\n"
                  "#define KGT_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))\n");
}

char *kgt_rt_gpu(const kgt_stencil *s, int dbl, const kgt_step_shape *sh, kgt_step_info *info)
{
    kgt_buf b = {0};
    if (kgt_step_plan(s, dbl, sh, info)) return NULL;
    gpu_prelude(&b, s);
    kgt_emit_step_macros(&b);
    if (info->split) kgt_emit_div_split(&b);
    kgt_emit_step(&b, s, dbl, info);
    return take(&b);
}

char *kgt_rt_gpu_stream(const kgt_stencil *s, int dbl, int levels, const kgt_stream_tune *tune,
                        kgt_stream_info *info)
{
    kgt_buf b = {0};
    int three = s->ndims == 3;
    if (!(three ? (levels >= 2 ? kgt_stream3_any(s) : kgt_stream3_box(s)) : kgt_stream_rt(s)) ||
        levels < 2 - three || levels > KGT_STREAM_MAX)
        return NULL;
    gpu_prelude(&b, s);
    if ((three ? kgt_emit_gpu_stream3_rt : kgt_emit_gpu_stream_rt)(&b, s, dbl, levels, tune, info))
        b.oom = 1;
    return take(&b);
}
