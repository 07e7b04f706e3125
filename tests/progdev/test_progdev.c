/*
 * Programs on each backend, at the backend level (one process, no MPI, no skeleton): the
 * backend named on the command line opened directly with each program of
 * tests/kgt/prog/examples.stencil (they use coefficient fields, previous levels, parameters,
 * the cell's index and the step number between them: `features` and `wave` all of those), in
 * float and double, on arrays with halos and padded rows, every level of every field random;
 * one prog_update with parameters away from their defaults, each evolving field over a box of
 * its own; every output array read back whole and compared bitwise with kgt's interpreter of
 * the host kernel (kgt_prog_eval_tile) run on host copies: the boxes must hold its values and
 * every other cell its old one. Suites 'unit' (host), 'opencl', 'gpu' (cuda, hip). The host
 * compiles its kernels with the system C compiler (STENCIL_CACHE_DIR: the build's folder); with
 * STENCIL_HOST_CC pointing nowhere it interprets them and says so in its notice.
 *
 * BACKEND `rtc` (suite 'rtc', no GPU needed): each program's run-time CUDA/HIP text
 * (kgt_prog_emit_gpu_rtc), both types, compiled by NVRTC for sm_90 (hiprtc for gfx90a) with
 * the GPU backend's own options.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "gen.h"
#include "kgt.h"
#include "layout.h"
#include "prog.h"

enum { H = 2 }; /* halo width on every side: the examples reach 1 */

static const char *examples_path, *backend_name;
static const sb_ops *ops;
static kgt_file file;

static uint64_t rng;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* One field level on the host and the device. */
typedef struct level {
    char *h;
    sb_mem m;
} level;

#define OKD(dev, call)                                                                             \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_) ck_abort_msg("%s:%d: %s = %d: %s", __FILE__, __LINE__, #call, rc_, (dev)->err);   \
    } while (0)

/* Random values; the Game of Life gets cells of 0 and 1 so that its rule fires. */
static void fill(const kgt_prog *p, char *buf, size_t n, int dbl)
{
    int life = strcmp(p->name, "life") == 0;
    for (size_t i = 0; i < n; i++) {
        double v = 2 * urand() - 1;
        if (life) v = v > 0.2;
        if (dbl)
            ((double *)buf)[i] = v;
        else
            ((float *)buf)[i] = (float)v;
    }
}

/* Opens the backend on program p in type dbl over layout l (st, a and dev filled here). */
static int open_prog(const kgt_prog *p, int dbl, const sl_local *l, sl_stencil *st, sb_open_args *a,
                     sb_dev *dev)
{
    static int off0[1][SL_D];
    static double w1 = 1;
    memset(st, 0, sizeof *st);
    st->ndims = p->ndims;
    st->npts = 1;
    st->off = off0;
    st->w = &w1;
    st->divisor = 1;
    st->type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    for (int d = 0; d < p->ndims; d++) st->rlo[d] = st->rhi[d] = H;
    memset(a, 0, sizeof *a);
    a->device = -1;
    a->local_size = 1;
    a->st = st;
    a->local = l;
    a->prog = p;
    for (int d = 0; d < p->ndims; d++) a->origin[d] = 1 - H; /* indices from -1 */
    memset(dev, 0, sizeof *dev);
    dev->ops = ops;
    return ops->open(dev, a);
}

/* What the host backend should say at open: 0 compiled, 1 interpreted with a notice. */
static int expect_interp;

/* Program ip of the file in element type dbl on the backend, against the interpreter. */
static void run_one(int ip, int dbl)
{
    const kgt_prog *p = file.prog[ip];
    int nd = p->ndims;
    static const long sizes[4][3] = {{0}, {61}, {13, 37}, {7, 9, 11}};
    long ext[SL_D] = {1, 1, 1};
    sl_local l;
    sl_stencil st;
    sb_open_args a;
    sb_prog_step s;
    sb_dev dev;
    kgt_prog_tile tl;
    level lv[3][KGT_PROG_MAX_FIELDS];
    double par[KGT_PROG_MAX_PARAMS];
    size_t es = dbl ? sizeof(double) : sizeof(float), bytes;
    rng = 977 + 31 * (uint64_t)ip + (uint64_t)dbl;
    memset(&l, 0, sizeof l);
    memset(lv, 0, sizeof lv);
    /* Padded rows: the last dimension is contiguous, the others are not dense. */
    for (int d = 0; d < nd; d++) ext[d] = sizes[nd][d] + 2 * H;
    for (int d = 0; d < SL_D; d++) l.stride[d] = 1;
    if (nd > 1) l.stride[nd - 2] = ext[nd - 1] + 5;
    for (int d = nd - 3; d >= 0; d--) l.stride[d] = ext[d + 1] * l.stride[d + 1];
    l.nelems = (size_t)(ext[0] * (nd > 1 ? l.stride[0] : 1));
    l.ndims = nd;
    bytes = l.nelems * es;
    int rc = open_prog(p, dbl, &l, &st, &a, &dev);
    if (rc == STENCIL_ENOFP64) {
        fprintf(stderr, "%s: no double precision, %s skipped\n", backend_name, p->name);
        return;
    }
    OKD(&dev, rc);
    if (strcmp(backend_name, "host") == 0 && expect_interp)
        ck_assert_msg(strstr(dev.note, "interpreter") != NULL, "note: '%s'", dev.note);
    else if (strcmp(backend_name, "host") == 0)
        ck_assert_msg(strcmp(dev.kernel, "rtc") == 0 && !dev.note[0], "kernel %s, note '%s'",
                      dev.kernel, dev.note);
    memset(&s, 0, sizeof s);
    memset(&tl, 0, sizeof tl);
    for (int f = 0; f < p->nf; f++) {
        for (int k = 0; k < 3; k++) {
            if ((k == 1 && !p->f[f].keeps) || (k == 2 && p->f[f].coef)) continue;
            lv[k][f].h = malloc(bytes);
            ck_assert_ptr_nonnull(lv[k][f].h);
            fill(p, lv[k][f].h, l.nelems, dbl);
            OKD(&dev, ops->mem_alloc(&dev, bytes, &lv[k][f].m));
            OKD(&dev, ops->write(&dev, lv[k][f].m, lv[k][f].h, bytes));
        }
        s.in[f] = lv[0][f].m, s.prev[f] = lv[1][f].m, s.out[f] = lv[2][f].m;
        tl.in[f] = lv[0][f].h, tl.prev[f] = lv[1][f].h, tl.out[f] = lv[2][f].h;
        for (int d = 0; d < SL_D; d++) {
            /* Boxes differ per field: one starts a cell later and ends a cell earlier. */
            int sh = d == 0 && (f & 1);
            s.box[f].lo[d] = d < nd ? H + sh : 0;
            s.box[f].hi[d] = d < nd ? H + sizes[nd][d] - sh : 1;
            tl.stride[f][d] = l.stride[d];
            tl.lo[f][d] = s.box[f].lo[d];
            tl.hi[f][d] = s.box[f].hi[d];
        }
    }
    /* Parameters away from their defaults, whole ones kept (indices of a point source); in
       double, Gray-Scott takes the defaults (par NULL). */
    for (int i = 0; i < p->npar; i++) {
        double v = p->par[i].value;
        par[i] = v == floor(v) ? v : v * 1.1;
        tl.par[i] = ip == 0 && dbl ? v : par[i];
    }
    s.par = ip == 0 && dbl ? NULL : par;
    s.t = 4;
    tl.t = 4;
    for (int d = 0; d < 3; d++) tl.origin[d] = a.origin[d];
    OKD(&dev, ops->prog_update(&dev, ip & 1 ? SB_QBORDER : SB_QINNER, &s));
    kgt_prog_eval_tile(p, dbl, &tl);
    OKD(&dev, ops->wait(&dev, SB_QBORDER));
    OKD(&dev, ops->wait(&dev, SB_QINNER));
    for (int f = 0; f < p->nf; f++) {
        char *got;
        if (p->f[f].coef) continue;
        got = malloc(bytes);
        ck_assert_ptr_nonnull(got);
        OKD(&dev, ops->read(&dev, lv[2][f].m, got, bytes));
        for (size_t i = 0; i < l.nelems; i++)
            if (memcmp(got + i * es, lv[2][f].h + i * es, es)) {
                double g = dbl ? ((double *)got)[i] : ((float *)got)[i];
                double w = dbl ? ((double *)lv[2][f].h)[i] : ((float *)lv[2][f].h)[i];
                ck_abort_msg("%s %s %s field %s: element %zu is %.17g, expected %.17g",
                             backend_name, p->name, dbl ? "double" : "float", p->f[f].name, i, g,
                             w);
            }
        free(got);
    }
    for (int f = 0; f < p->nf; f++)
        for (int k = 0; k < 3; k++)
            if (lv[k][f].h) {
                ops->mem_free(&dev, lv[k][f].m);
                free(lv[k][f].h);
            }
    ops->close(&dev);
}

START_TEST(programs)
{
    run_one(_i / 2, _i % 2);
}
END_TEST

/* The host without a working compiler: the interpreter runs, with a notice, and agrees. */
START_TEST(host_fallback)
{
    setenv("STENCIL_HOST_CC", "/nonexistent/cc", 1);
    expect_interp = 1;
    run_one(_i / 2, _i % 2);
}
END_TEST

START_TEST(empty_boxes)
{
    /* Every box empty: nothing is launched, nothing changes, and the call succeeds. */
    const kgt_prog *p = file.prog[0];
    sl_local l;
    sl_stencil st;
    sb_open_args a;
    sb_prog_step s;
    sb_dev dev;
    memset(&l, 0, sizeof l);
    for (int d = 0; d < SL_D; d++) l.stride[d] = 1;
    l.stride[0] = 8;
    l.nelems = 64;
    l.ndims = p->ndims;
    OKD(&dev, open_prog(p, 0, &l, &st, &a, &dev));
    memset(&s, 0, sizeof s);
    OKD(&dev, ops->prog_update(&dev, SB_QINNER, &s));
    OKD(&dev, ops->wait(&dev, SB_QINNER));
    ops->close(&dev);
}
END_TEST

#if STENCIL_HAVE_CUDA_RTC || STENCIL_HAVE_HIP_RTC
START_TEST(rtc_compile)
{
    const kgt_prog *p = file.prog[_i / 2];
    char err[256] = "";
    for (int narrow = 0; narrow < 2; narrow++) { /* per-field long indices, shared int ones */
        kgt_buf b = {0};
        kgt_prog_emit_gpu_rtc(&b, p, "sb_prog", _i % 2, narrow);
        ck_assert(!b.oom && b.s);
#if STENCIL_HAVE_CUDA_RTC
        ck_assert_msg(sb_cuda_rtc_compile(b.s, "-arch=sm_90", err, sizeof err) == 0, "%s: %s",
                      p->name, err);
#endif
#if STENCIL_HAVE_HIP_RTC
        ck_assert_msg(sb_hip_rtc_compile(b.s, "--offload-arch=gfx90a", err, sizeof err) == 0,
                      "%s: %s", p->name, err);
#endif
        free(b.s);
    }
}
END_TEST
#endif

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s EXAMPLES.stencil BACKEND\n", argv[0]);
        return 2;
    }
    examples_path = argv[1];
    backend_name = argv[2];
    ops = sb_find(backend_name);
    if (!ops && strcmp(backend_name, "rtc")) {
        fprintf(stderr, "backend %s is not built\n", backend_name);
        return 77;
    }
    if (kgt_parse(examples_path, &file) || file.nprog < 5) {
        fprintf(stderr, "cannot read the programs of %s\n", examples_path);
        return 1;
    }
    Suite *su = suite_create("progdev");
    TCase *tc = tcase_create(backend_name);
    tcase_set_timeout(tc, 240);
    if (ops) {
        tcase_add_loop_test(tc, programs, 0, 2 * file.nprog);
        tcase_add_test(tc, empty_boxes);
        if (strcmp(backend_name, "host") == 0) {
            /* Compiled kernels checked against the interpreter need a compiler here. */
            unsetenv("STENCIL_HOST_CC");
            tcase_add_loop_test(tc, host_fallback, 0, 2 * file.nprog);
        }
    } else {
#if STENCIL_HAVE_CUDA_RTC || STENCIL_HAVE_HIP_RTC
        tcase_add_loop_test(tc, rtc_compile, 0, 2 * file.nprog);
#else
        return 77;
#endif
    }
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    kgt_file_free(&file);
    return failed ? 1 : 0;
}
