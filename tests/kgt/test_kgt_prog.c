/*
 * Stencil programs (kgt/prog_*.c), on the host. For each program of prog/examples.stencil
 * (Gray-Scott, Game of Life, the acoustic wave equation, 3D heat in flux form, and one covering
 * the other features and boundary kinds), several steps from random data three ways, in float
 * and double, bitwise equal:
 *   - the interpreter (kgt_prog_eval_step) on the whole grid, and (kgt_prog_eval_tile) on the
 *     host kernels' arguments;
 *   - the host kernels kgt generated at build time (examples_prog.c), on arrays with exactly
 *     each field's halo (from the analysis), filled with kgt_prog_ghost before each step, the
 *     fixed frames left out of the boxes;
 *   - the serial references written by hand in prog/prog_ref.h;
 *   - with OpenCL, the generated OpenCL kernels on the device (prog/prog_ocl.h), on the same
 *     padded arrays as the host kernels.
 * Also: the analysis (reach per field and side), run-time text with its line:col messages, and
 * the printers' text for C, OpenCL and CUDA. Suite 'kgt'.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "examples_prog.h"
#include "kgt.h"
#include "prog.h"

#define REAL float
#define SFX  f
#include "prog/prog_ref.h"
#undef REAL
#undef SFX
#define REAL double
#define SFX  d
#include "prog/prog_ref.h"
#undef REAL
#undef SFX

enum { STEPS = 6 };

static const char *examples_path;
static kgt_file file;

static const kgt_prog *find(const char *name)
{
    for (int i = 0; i < file.nprog; i++)
        if (strcmp(file.prog[i]->name, name) == 0) return file.prog[i];
    ck_abort_msg("no program %s", name);
    return NULL;
}

static uint64_t rng = 12345;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* The state of one run: dense levels of every field (cur, prev, out). */
typedef struct run {
    const kgt_prog *p;
    int dbl;
    long n[3], total;
    void *cur[KGT_PROG_MAX_FIELDS], *prev[KGT_PROG_MAX_FIELDS], *out[KGT_PROG_MAX_FIELDS];
} run;

static size_t esz(int dbl)
{
    return dbl ? sizeof(double) : sizeof(float);
}

static void put(void *a, int dbl, long i, double v)
{
    if (dbl)
        ((double *)a)[i] = v;
    else
        ((float *)a)[i] = (float)v;
}

static double val(const void *a, int dbl, long i)
{
    return dbl ? ((const double *)a)[i] : ((const float *)a)[i];
}

static void run_init(run *r, const kgt_prog *p, int dbl, const long *n, int life)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->dbl = dbl;
    r->total = 1;
    for (int d = 0; d < 3; d++) r->n[d] = d < p->ndims ? n[d] : 1;
    for (int d = 0; d < p->ndims; d++) r->total *= n[d];
    rng = 777 + (uint64_t)dbl;
    for (int f = 0; f < p->nf; f++) {
        r->cur[f] = malloc((size_t)r->total * esz(dbl));
        r->prev[f] = malloc((size_t)r->total * esz(dbl));
        r->out[f] = malloc((size_t)r->total * esz(dbl));
        for (long i = 0; i < r->total; i++) {
            double x = urand();
            put(r->cur[f], dbl, i, life ? (x < 0.35) : p->f[f].coef ? 0.1 + 0.2 * x : 2 * x - 1);
            put(r->prev[f], dbl, i, 2 * urand() - 1);
        }
    }
}

static void run_copy(run *to, const run *from)
{
    *to = *from;
    for (int f = 0; f < from->p->nf; f++) {
        size_t sz = (size_t)from->total * esz(from->dbl);
        to->cur[f] = malloc(sz);
        to->prev[f] = malloc(sz);
        to->out[f] = malloc(sz);
        memcpy(to->cur[f], from->cur[f], sz);
        memcpy(to->prev[f], from->prev[f], sz);
    }
}

static void run_free(run *r)
{
    for (int f = 0; f < r->p->nf; f++) {
        free(r->cur[f]);
        free(r->prev[f]);
        free(r->out[f]);
    }
}

/* After a step: the previous level takes the current one, the current the new one. */
static void rotate(run *r)
{
    for (int f = 0; f < r->p->nf; f++) {
        void *c = r->cur[f];
        if (r->p->f[f].coef) continue;
        r->cur[f] = r->out[f];
        r->out[f] = r->prev[f];
        r->prev[f] = c;
    }
}

/* Bitwise equal, and finite (NaN, the kernels' unfilled ghosts, must never get in). */
static void same(const run *a, const run *b, const char *what)
{
    for (int f = 0; f < a->p->nf; f++)
        for (long i = 0; i < a->total; i++) {
            ck_assert_msg(isfinite(val(a->cur[f], a->dbl, i)), "%s: %s %s not finite at %ld",
                          a->p->name, what, a->p->f[f].name, i);
            ck_assert_msg(memcmp((const char *)a->cur[f] + i * (long)esz(a->dbl),
                                 (const char *)b->cur[f] + i * (long)esz(a->dbl), esz(a->dbl)) == 0,
                          "%s %s %s: field %s cell %ld: %.17g against %.17g", a->p->name,
                          a->dbl ? "double" : "float", what, a->p->f[f].name, i,
                          val(a->cur[f], a->dbl, i), val(b->cur[f], b->dbl, i));
        }
}

static double *defaults(const kgt_prog *p)
{
    static double par[KGT_PROG_MAX_PARAMS];
    for (int i = 0; i < p->npar; i++) par[i] = p->par[i].value;
    return par;
}

/* The geometry of field f's padded arrays: exactly its halo (the larger of its two levels'). */
typedef struct pad_geom {
    long lo[3], ext[3], st[3], size, off;
} pad_geom;

static void geometry(const run *r, int f, pad_geom *g)
{
    const kgt_pfield *fd = &r->p->f[f];
    int nd = r->p->ndims;
    g->size = 1;
    g->off = 0;
    for (int d = 0; d < 3; d++) g->lo[d] = 0, g->ext[d] = 1, g->st[d] = 0;
    for (int d = 0; d < nd; d++) {
        int l = fd->reach[d][0] > fd->preach[d][0] ? fd->reach[d][0] : fd->preach[d][0];
        int h = fd->reach[d][1] > fd->preach[d][1] ? fd->reach[d][1] : fd->preach[d][1];
        g->lo[d] = l;
        g->ext[d] = r->n[d] + l + h;
    }
    for (int d = nd - 1; d >= 0; d--) {
        g->st[d] = g->size;
        g->size *= g->ext[d];
    }
    for (int d = 0; d < nd; d++) g->off += g->lo[d] * g->st[d];
}

/* Padded cell q's coordinates in the grid (outside it in the halo). */
static void coords(const run *r, const pad_geom *g, long q, long *x)
{
    for (int d = r->p->ndims - 1; d >= 0; d--) {
        x[d] = q % g->ext[d] - g->lo[d];
        q /= g->ext[d];
    }
}

/* The compute box of field f: the grid less its fixed frame. */
static int in_box(const run *r, int f, const long *x, long *lo, long *hi)
{
    const kgt_pfield *fd = &r->p->f[f];
    int in = 1;
    for (int d = 0; d < r->p->ndims; d++) {
        lo[d] = fd->bc[d][0].kind == KGT_B_FIXED ? fd->frame[d][0] : 0;
        hi[d] = r->n[d] - (fd->bc[d][1].kind == KGT_B_FIXED ? fd->frame[d][1] : 0);
        if (x && (x[d] < lo[d] || x[d] >= hi[d])) in = 0;
    }
    return in;
}

/* One step by the generated host kernel fn (type T, suffix c): padded copies of every level
   with its ghosts, the kernel, the new level copied back (the frame from the current one). */
#define KERNEL_STEP(T, c)                                                                          \
    static void kernel_step_##c(run *r, long t, void (*fn)(const kgt_prog_args_##c *),             \
                                const char *ocl)                                                   \
    {                                                                                              \
        static kgt_prog_args_##c a;                                                                \
        const kgt_prog *p = r->p;                                                                  \
        T *pad[3][KGT_PROG_MAX_FIELDS];                                                            \
        pad_geom g[KGT_PROG_MAX_FIELDS];                                                           \
        const double *par = defaults(p);                                                           \
        memset(&a, 0, sizeof a);                                                                   \
        for (int k = 0; k < p->npar; k++) a.par[k] = (T)par[k];                                    \
        a.t = t;                                                                                   \
        for (int f = 0; f < p->nf; f++) {                                                          \
            geometry(r, f, &g[f]);                                                                 \
            for (int lv = 0; lv < 3; lv++) {                                                       \
                const void *src = lv == 0 ? r->cur[f] : r->prev[f];                                \
                ck_assert_ptr_nonnull(pad[lv][f] = malloc((size_t)g[f].size * sizeof(T)));         \
                for (long q = 0; q < g[f].size; q++) {                                             \
                    long x[3];                                                                     \
                    coords(r, &g[f], q, x);                                                        \
                    pad[lv][f][q] =                                                                \
                        lv < 2 ? (T)kgt_prog_ghost(p, f, r->dbl, r->n, src, x) : (T)NAN;           \
                }                                                                                  \
            }                                                                                      \
            a.in[f] = pad[0][f] + g[f].off;                                                        \
            a.prev[f] = pad[1][f] + g[f].off;                                                      \
            a.out[f] = p->f[f].coef ? NULL : pad[2][f] + g[f].off;                                 \
            for (int d = 0; d + 1 < p->ndims; d++) a.stride[f][d] = g[f].st[d];                    \
            in_box(r, f, NULL, a.lo[f], a.hi[f]);                                                  \
        }                                                                                          \
        if (ocl)                                                                                   \
            OCL_EXEC(r, t, ocl, (void *(*)[KGT_PROG_MAX_FIELDS])pad, g, a.lo, a.hi, a.par,         \
                     sizeof(T));                                                                   \
        else                                                                                       \
            fn(&a);                                                                                \
        for (int f = 0; f < p->nf; f++) {                                                          \
            for (long i = 0; i < r->total && !p->f[f].coef; i++) {                                 \
                long x[3], rest = i, q = g[f].off, lo[3], hi[3];                                   \
                for (int d = p->ndims - 1; d >= 0; d--) {                                          \
                    x[d] = rest % r->n[d];                                                         \
                    rest /= r->n[d];                                                               \
                    q += x[d] * g[f].st[d];                                                        \
                }                                                                                  \
                put(r->out[f], r->dbl, i,                                                          \
                    in_box(r, f, x, lo, hi) ? pad[2][f][q] : val(r->cur[f], r->dbl, i));           \
            }                                                                                      \
            for (int lv = 0; lv < 3; lv++) free(pad[lv][f]);                                       \
        }                                                                                          \
    }
#if KGT_PROG_OPENCL
#include "prog/prog_ocl.h"
#define OCL_EXEC ocl_exec
#else
#define OCL_EXEC(...) ck_abort_msg("built without OpenCL")
#endif
KERNEL_STEP(float, f)
KERNEL_STEP(double, d)

/* kgt_prog_eval_tile, the interpreter on the host kernel's arguments (the fallback where no
   kernel is compiled), through the kernel's signature. */
static const kgt_prog *tile_prog;
#define TILE_FN(c, dbl)                                                                            \
    static void tile_##c(const kgt_prog_args_##c *a)                                               \
    {                                                                                              \
        static kgt_prog_tile tl;                                                                   \
        memset(&tl, 0, sizeof tl);                                                                 \
        for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) {                                            \
            tl.in[f] = a->in[f];                                                                   \
            tl.prev[f] = a->prev[f];                                                               \
            tl.out[f] = a->out[f];                                                                 \
            memcpy(tl.stride[f], a->stride[f], sizeof tl.stride[f]);                               \
            memcpy(tl.lo[f], a->lo[f], sizeof tl.lo[f]);                                           \
            memcpy(tl.hi[f], a->hi[f], sizeof tl.hi[f]);                                           \
        }                                                                                          \
        memcpy(tl.origin, a->origin, sizeof tl.origin);                                            \
        tl.t = a->t;                                                                               \
        for (int k = 0; k < KGT_PROG_MAX_PARAMS; k++) tl.par[k] = a->par[k];                       \
        kgt_prog_eval_tile(tile_prog, dbl, &tl);                                                   \
    }
TILE_FN(f, 0)
TILE_FN(d, 1)

/* The hand-written reference's step of program name. */
static void ref_step(run *r, long t)
{
    const char *nm = r->p->name;
    const double *par = defaults(r->p);
    void **c = r->cur, **pv = r->prev, **o = r->out;
    if (!strcmp(nm, "grayscott")) {
        if (r->dbl)
            ref_grayscott_d(r->n, par, c[0], c[1], o[0], o[1]);
        else
            ref_grayscott_f(r->n, par, c[0], c[1], o[0], o[1]);
    } else if (!strcmp(nm, "life")) {
        if (r->dbl)
            ref_life_d(r->n, c[0], o[0]);
        else
            ref_life_f(r->n, c[0], o[0]);
    } else if (!strcmp(nm, "wave")) {
        if (r->dbl)
            ref_wave_d(r->n, t, par, c[0], pv[0], c[1], o[0]);
        else
            ref_wave_f(r->n, t, par, c[0], pv[0], c[1], o[0]);
    } else if (!strcmp(nm, "heat3")) {
        if (r->dbl)
            ref_heat3_d(r->n, par, c[0], c[1], o[0]);
        else
            ref_heat3_f(r->n, par, c[0], c[1], o[0]);
    } else if (!strcmp(nm, "features")) {
        if (r->dbl)
            ref_features_d(r->n, t, par, c[0], c[1], pv[1], c[2], o[0], o[1]);
        else
            ref_features_f(r->n, t, par, c[0], c[1], pv[1], c[2], o[0], o[1]);
    } else {
        ck_abort_msg("no reference for %s", nm);
    }
}

typedef struct example {
    const char *name;
    long n[3];
    void (*host_f)(const kgt_prog_args_f *);
    void (*host_d)(const kgt_prog_args_d *);
    const char *opencl;
} example;

static const example examples[] = {
    {"grayscott",
     {20, 17, 1},
     examples_grayscott_host_f,
     examples_grayscott_host_d,
     examples_grayscott_opencl},
    {"life", {16, 19, 1}, examples_life_host_f, examples_life_host_d, examples_life_opencl},
    {"wave", {24, 24, 1}, examples_wave_host_f, examples_wave_host_d, examples_wave_opencl},
    {"heat3", {7, 6, 9}, examples_heat3_host_f, examples_heat3_host_d, examples_heat3_opencl},
    {"features",
     {11, 13, 1},
     examples_features_host_f,
     examples_features_host_d,
     examples_features_opencl},
};

START_TEST(test_three_ways)
{
    const example *ex = &examples[_i / 2];
    const kgt_prog *p = find(ex->name);
    int dbl = _i % 2;
    run a, b, c, d;
    tile_prog = p;
    run_init(&a, p, dbl, ex->n, !strcmp(ex->name, "life"));
    if (!strcmp(ex->name, "features")) /* some cells take the other branch of b's update */
        for (long i = 0; i < a.total; i += 3)
            put(a.cur[0], dbl, i, val(a.prev[1], dbl, i % ex->n[1] ? i - 1 : i + ex->n[1] - 1));
    run_copy(&b, &a);
    run_copy(&c, &a);
    run_copy(&d, &a);
    for (long t = 0; t < STEPS; t++) {
        ck_assert_int_eq(kgt_prog_eval_step(p, dbl, a.n, t, NULL, a.cur, a.prev, a.out), 0);
        if (dbl)
            kernel_step_d(&b, t, ex->host_d, NULL);
        else
            kernel_step_f(&b, t, ex->host_f, NULL);
        if (dbl)
            kernel_step_d(&d, t, tile_d, NULL);
        else
            kernel_step_f(&d, t, tile_f, NULL);
        ref_step(&c, t);
        rotate(&a);
        rotate(&b);
        rotate(&c);
        rotate(&d);
        same(&a, &c, "interpreter vs hand-written");
        same(&b, &c, "generated host kernel vs hand-written");
        same(&d, &c, "interpreter on the kernel's tile vs hand-written");
    }
    run_free(&d);
    run_free(&a);
    run_free(&b);
    run_free(&c);
}
END_TEST

static void reach_is(const kgt_prog *p, const char *field, int level, const int *want)
{
    const kgt_pfield *f = &p->f[kgt_prog_find_field(p, field)];
    for (int d = 0; d < p->ndims; d++)
        for (int s = 0; s < 2; s++)
            ck_assert_msg((level ? f->preach : f->reach)[d][s] == want[2 * d + s],
                          "%s: %s%s reach %d/%d is %d, not %d", p->name, field,
                          level ? "@prev" : "", d, s, (level ? f->preach : f->reach)[d][s],
                          want[2 * d + s]);
}

#if KGT_PROG_OPENCL
/* The OpenCL kernels on the OpenCL device (PoCL in CI), against the hand-written references. */
START_TEST(test_opencl)
{
    const example *ex = &examples[_i / 2];
    const kgt_prog *p = find(ex->name);
    int dbl = _i % 2;
    run b, c;
    ocl_open();
    if (dbl && !cl.fp64) return;
    run_init(&b, p, dbl, ex->n, !strcmp(ex->name, "life"));
    run_copy(&c, &b);
    for (long t = 0; t < 3; t++) {
        if (dbl)
            kernel_step_d(&b, t, NULL, ex->opencl);
        else
            kernel_step_f(&b, t, NULL, ex->opencl);
        ref_step(&c, t);
        rotate(&b);
        rotate(&c);
        same(&b, &c, "OpenCL kernel vs hand-written");
    }
    run_free(&b);
    run_free(&c);
}
END_TEST
#endif

START_TEST(test_analysis)
{
    static const int one[6] = {1, 1, 1, 1, 1, 1}, none[6] = {0};
    const kgt_prog *w = find("wave"), *x = find("features");
    reach_is(find("grayscott"), "u", 0, one);
    reach_is(find("grayscott"), "v", 0, one);
    reach_is(find("life"), "c", 0, one);
    reach_is(w, "u", 0, one);
    reach_is(w, "u", 1, none); /* u@prev at the cell only: no halo */
    reach_is(w, "c2", 0, none);
    ck_assert(w->f[0].pread && w->f[1].read && !w->f[1].pread);
    reach_is(find("heat3"), "T", 0, one);
    reach_is(find("heat3"), "kap", 0, one);
    {
        static const int a[4] = {1, 0, 0, 1}, b[4] = {1, 1, 1, 0}, bp[4] = {0, 0, 1, 0};
        static const int fa[4] = {1, 1, 0, 1}, fb[4] = {1, 0, 1, 0};
        reach_is(x, "a", 0, a);
        reach_is(x, "b", 0, b);
        reach_is(x, "b", 1, bp);
        reach_is(x, "m", 0, none);
        for (int k = 0; k < 4; k++) {
            ck_assert_int_eq(x->f[0].frame[k / 2][k % 2], fa[k]);
            ck_assert_int_eq(x->f[1].frame[k / 2][k % 2], fb[k]);
        }
    }
}
END_TEST

/* Run-time text: the same language, messages at line:col. */
static void bad_text(const char *text, int line, int col, const char *msg)
{
    kgt_perr e;
    kgt_prog *p = kgt_prog_parse_string(text, &e);
    char got[300], want[300];
    ck_assert_ptr_null(p);
    snprintf(got, sizeof got, "%d:%d: %s", e.line, e.col, e.msg);
    snprintf(want, sizeof want, "%d:%d: %s", line, col, msg);
    ck_assert_str_eq(got, want);
}

START_TEST(test_runtime_text)
{
    kgt_perr e;
    kgt_prog *p = kgt_prog_parse_string("# a 1D diffusion\nprogram g\n  dims 1\n  field u\n"
                                        "  param r = 0.25\n  update u = u + r * (u[-1] - 2 * u + "
                                        "u[2])\n  boundary u all periodic\nend\n\n",
                                        &e);
    ck_assert_msg(p != NULL, "%d:%d: %s", e.line, e.col, e.msg);
    ck_assert_int_eq(p->f[0].reach[0][0], 1);
    ck_assert_int_eq(p->f[0].reach[0][1], 2);
    kgt_prog_free(p);
    bad_text("program g\n  dims 1\n  field u\n  update u = u[-1] + w\nend", 4, 22,
             "unknown name 'w'");
    bad_text("", 1, 1, "no program in the text");
    bad_text("program g\n dims 1\n field u\n update u = u\n", 1, 9, "program 'g' is missing 'end'");
    bad_text("program g\n dims 1\n field u\n update u = u\nend\nend\n", 6, 1,
             "text after the end of program 'g'");
    bad_text("stencil a\n", 1, 1, "expected 'program NAME', got 'stencil'");
    bad_text("program g\n dims 1\n field u\n update u = u[+9]\nend\n", 4, 16,
             "offset 9 of 'u' is beyond the maximum reach 8");
    bad_text("program 2g\n", 1, 9, "bad number '2g'");
    bad_text("program g h\n", 1, 11, "unexpected 'h'");
}
END_TEST

/* The printers: the same tree, each target's spelling, every operation bracketed or a call. */
START_TEST(test_printers)
{
    static const char *const want[3][2] = {
        {"((kgt_pmin_f(f_u[c_u], 0x1p+1f) * f_u[c_u + 1]) + (sqrtf(f_u[c_u]) / 0x1.8p+1f))",
         "((kgt_pmin_d(f_u[c_u], 0x1p+1) * f_u[c_u + 1]) + (sqrt(f_u[c_u]) / 0x1.8p+1))"},
        {"((kgt_pmin_f(f_u[c_u], 0x1p+1f) * f_u[c_u + 1]) + (sqrt(f_u[c_u]) / 0x1.8p+1f))",
         "((kgt_pmin_d(f_u[c_u], 0x1p+1) * f_u[c_u + 1]) + (sqrt(f_u[c_u]) / 0x1.8p+1))"},
        {"kgt_add(kgt_mul(kgt_pmin_f(f_u[c_u], 0x1p+1f), f_u[c_u + 1]), "
         "kgt_pdiv_f(kgt_psqrt_f(f_u[c_u]), 0x1.8p+1f))",
         "kgt_add(kgt_mul(kgt_pmin_d(f_u[c_u], 0x1p+1), f_u[c_u + 1]), "
         "kgt_pdiv_d(kgt_psqrt_d(f_u[c_u]), 0x1.8p+1))"}};
    kgt_perr e;
    kgt_prog *p = kgt_prog_parse_string(
        "program g\n dims 1\n field u\n update u = min(u, 2) * u[1] + sqrt(u) / 3\n"
        " boundary u all mirror\nend\n",
        &e);
    ck_assert_msg(p != NULL, "%d:%d: %s", e.line, e.col, e.msg);
    for (int t = 0; t < 3; t++)
        for (int dbl = 0; dbl < 2; dbl++) {
            kgt_buf b = {0};
            kgt_prog_print(&b, p, p->f[0].update, t, dbl);
            ck_assert_ptr_nonnull(b.s);
            ck_assert_str_eq(b.s, want[t][dbl]);
            free(b.s);
        }
    kgt_prog_free(p);
}
END_TEST

static void load(void)
{
    ck_assert_int_eq(kgt_parse(examples_path, &file), 0);
}

static void unload(void)
{
    kgt_file_free(&file);
}

int main(int argc, char **argv)
{
    Suite *s = suite_create("kgt_prog");
    TCase *tc = tcase_create("programs");
    SRunner *sr;
    int failed;
    if (argc < 2) {
        fprintf(stderr, "usage: test_kgt_prog EXAMPLES.stencil\n");
        return 2;
    }
    examples_path = argv[1];
    tcase_add_checked_fixture(tc, load, unload);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_three_ways, 0, 2 * (int)(sizeof examples / sizeof examples[0]));
#if KGT_PROG_OPENCL
    tcase_add_loop_test(tc, test_opencl, 0, 2 * (int)(sizeof examples / sizeof examples[0]));
#endif
    tcase_add_test(tc, test_analysis);
    tcase_add_test(tc, test_runtime_text);
    tcase_add_test(tc, test_printers);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
