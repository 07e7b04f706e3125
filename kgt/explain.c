/*
 * kgt --explain: for each stencil of a file, the kernel family and plan each GPU path gives it,
 * asked of the same plan functions the emitters and the library's run-time kernels use
 * (kgt_step_default / kgt_step_plan, kgt_gpu_step, kgt_gpu_vector, kgt_fused, the streaming
 * predicates and depths), so the text cannot drift from what is generated. Above the emitters:
 * nothing in kgt_gen calls it.
 */
#include <stdlib.h>

#include "explain.h"
#include "kgt_rt.h"

/* The family a step plan's shape selects (kgt_rt.h, kgt_step_shape). */
static const char *step_family(const kgt_stencil *s, const kgt_step_shape *h)
{
    if (h->vec && h->walk) return s->ndims == 3 ? "3D vector rows, running sums" : "vector rows";
    if (h->walk) return "register walk";
    return h->pipe ? "scalar tile, asynchronous copies" : "scalar tile, planes through registers";
}

static void print_step(FILE *f, const kgt_stencil *s, const kgt_step_info *in)
{
    const kgt_step_shape *h = &in->sh;
    fprintf(f, "step kernel, %s: block %dx%d, cells/thread %d, planes/block %d", step_family(s, h),
            h->bx, h->by, h->nc, h->zc);
    if (h->pipe) fprintf(f, ", planes in flight %d", h->pipe);
    if (h->walk) fprintf(f, ", unroll %d", h->walk);
    if (h->minb) fprintf(f, ", min blocks/SM %d", h->minb);
    fprintf(f, ", tile %dx%d, shared %zu B%s\n", in->tx, in->ty, in->smem,
            in->split ? ", split division" : "");
}

/* The run-time kernel's plan: the default shape, without vector accesses where that shape is
   refused (backends/gen.c); -1 when none fits (the generic kernel runs). */
static int rt_plan(const kgt_stencil *s, int dbl, int pipe, kgt_step_info *in)
{
    kgt_step_shape sh;
    kgt_step_default(s, dbl, pipe, &sh);
    int rc = kgt_step_plan(s, dbl, &sh, in);
    if (rc && sh.vec) {
        sh.vec = 0;
        rc = kgt_step_plan(s, dbl, &sh, in);
    }
    return rc;
}

/*
 * One step per launch, for CUDA (pipe 1: asynchronous copies) or HIP (pipe 0): the run-time
 * kernel is the step kernel; kgt's named launcher is the same where kgt_gpu_step holds (same),
 * else the walk kernel.
 */
static void one_step(FILE *f, const kgt_gen *g, const kgt_stencil *s, int dbl, int pipe, int same)
{
    kgt_step_info in;
    const char *t = kgt_types[dbl].name, *who = pipe ? "cuda" : "hip";
    int rc = rt_plan(s, dbl, pipe, &in);
    if (!same)
        fprintf(f, "  %s %s one step, named: %s, cells/thread %d\n", t, who,
                kgt_gpu_vector(s, dbl) ? "vector walk kernel" : "walk kernel",
                s->ndims > 1 ? kgt_walk(g) : 1);
    fprintf(f, "  %s %s one step, %s: ", t, who, same ? "named and run-time" : "run-time");
    if (rc)
        fprintf(f, "generic kernel (no step plan fits)\n");
    else
        print_step(f, s, &in);
}

/* The streaming kernels' plan at their deepest level count (kgt_emit_gpu_stream_rt's info). */
static void print_stream(FILE *f, const kgt_stencil *s, int dbl, int levels)
{
    kgt_buf b = {0};
    kgt_stream_info in;
    int three = s->ndims == 3;
    int rc =
        (three ? kgt_emit_gpu_stream3_rt : kgt_emit_gpu_stream_rt)(&b, s, dbl, levels, NULL, &in);
    free(b.s);
    if (rc || b.oom) {
        fprintf(f, " (no plan)\n");
        return;
    }
    fprintf(f, ": window radius %d, columns/thread %d, block %dx%d", in.r, in.v, in.b,
            three ? in.by : 1);
    if (three) fprintf(f, ", rows/thread %d", in.ny);
    fprintf(f, ", columns/block %d, %s/block %d..%d\n", in.w, three ? "planes" : "rows", in.hmin,
            in.hdef);
}

/* Several steps per launch: kgt's fused launchers, and the run-time streaming kernels. */
static void multi_step(FILE *f, const kgt_gen *g, const kgt_stencil *s, int dbl)
{
    const char *t = kgt_types[dbl].name;
    int depth = s->ndims == 3 ? kgt_stream3_depth(s, dbl) : kgt_stream_depth(s, dbl);
    int most = kgt_stream_levels(s);
    if (kgt_fused(g, s))
        fprintf(f, "  %s two steps, named: fused two-step tile%s\n", t,
                kgt_stream_any(s) ? ", 2D streaming for large boxes" : "");
    fprintf(f, "  %s steps per launch, run-time: ", t);
    if (depth >= 2) {
        const char *kind =
            s->ndims == 3 ? kgt_stream3(s) ? "3D star streaming" : "3D box streaming, partial sums"
            : !kgt_off_axis(s) ? "2D star streaming"
                               : "2D box streaming";
        fprintf(f, "%s, up to %d", kind, depth);
        print_stream(f, s, dbl, depth);
    } else if (most >= 2) {
        fprintf(f,
                "1 (streaming kernels of up to %d exist; the depth model keeps one step per "
                "launch; STENCIL_RTC_DEPTH forces them)\n",
                most);
    } else {
        fprintf(f, "1 (no streaming kernel)\n");
    }
}

/* Whether every non-zero point lies on an axis (at most one offset not 0). */
static int star(const kgt_stencil *s)
{
    for (int p = 0; p < s->npts; p++) {
        int n = 0;
        for (int d = 0; d < s->ndims; d++) n += s->pts[p].off[d] != 0;
        if (s->pts[p].w != 0.0 && n > 1) return 0;
    }
    return 1;
}

static void summary(FILE *f, const kgt_stencil *s)
{
    int lo[KGT_MAX_DIMS], hi[KGT_MAX_DIMS];
    kgt_extents(s, lo, hi);
    fprintf(f, "stencil %s: %dD, %d points, reach", s->name, s->ndims, kgt_nonzero_points(s));
    for (int d = 0; d < s->ndims; d++) fprintf(f, " %d/%d", lo[d], hi[d]);
    fprintf(f, ", %s\n", star(s) ? "star" : "box");
}

int kgt_explain(FILE *f, const kgt_gen *g)
{
    for (int i = 0; i < g->file->nst; i++) {
        const kgt_stencil *s = &g->file->st[i];
        summary(f, s);
        fprintf(f, "  host, opencl: loops over the non-zero weights\n");
        for (int dbl = 0; dbl < 2; dbl++) {
            int same = kgt_gpu_step(s, dbl); /* plans both: ask once (split checks are slow) */
            one_step(f, g, s, dbl, 1, same);
            one_step(f, g, s, dbl, 0, same);
            multi_step(f, g, s, dbl);
        }
    }
    if (g->file->nprog)
        fprintf(f, "%d program(s): see kgt/README.md, \"Programs\"\n", g->file->nprog);
    return ferror(f) ? -1 : 0;
}
