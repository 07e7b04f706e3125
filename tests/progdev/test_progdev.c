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
 * The GPU backends run each case in kgt's planned shape and in every shape of prog_tests.h that
 * fits (through STENCIL_PROG_SHAPE), each on three sets of boxes: boxes per field that differ
 * and whose edges no tile divides, boxes one cell wide, and one field's box empty. An optional
 * third file adds programs (tests/rtc/prog_extra.stencil: 1D, 3D, reads two cells away).
 *
 * BACKEND `rtc` (suite 'rtc', no GPU needed): each program's run-time CUDA/HIP text
 * (kgt_prog_emit_gpu_rtc), both types, long indices and int ones in the plan's shape and every
 * shape of prog_tests.h that fits (the plan's with the vector-row kernel of 2D programs beside,
 * as the GPU backend builds it), and the fused k-step kernels of 2D programs (k = 1..4, the
 * plan's tiles and the plan's vector rows in one source), compiled by NVRTC for sm_90 (hiprtc for
 * gfx90a) with the GPU backend's own options.
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
#include "fuse_case.h"
#include "prog.h"
#include "prog_tests.h"

enum { H = 2, NBOXES = 3 }; /* halo width on every side: the programs reach at most 2 */

static const char *examples_path, *backend_name;
static const sb_ops *ops;
static kgt_file file, extra;
static const kgt_prog *progs[64];
static int nprogs;

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

/* Field f's box in set bc over [H, H + n) (sb_prog_step's, dimensions past nd [0, 1)). */
static void box_of(const kgt_prog *p, int f, int bc, const long *n, sl_box *b)
{
    int nd = p->ndims, nev = 0, last = -1;
    for (int g = 0; g < p->nf; g++)
        if (!p->f[g].coef) nev++, last = g;
    for (int d = 0; d < SL_D; d++) {
        b->lo[d] = d < nd ? H : 0;
        b->hi[d] = d < nd ? H + n[d] : 1;
        if (d >= nd) continue;
        if (bc == 0 && d == 0 && (f & 1)) b->lo[d]++, b->hi[d]--; /* one starts a cell later */
        if (bc == 1 && d == ((f & 1) ? nd - 1 : 0)) b->lo[d] = H + 3, b->hi[d] = H + 4;
        if (bc == 2 && f == last && nev > 1) b->hi[d] = b->lo[d];
    }
}

/* Program ip in element type dbl on the backend, boxes bc, `steps` steps, against the
   interpreter. */
static void run_one(int ip, int dbl, int bc, int steps)
{
    const kgt_prog *p = progs[ip];
    int nd = p->ndims;
    static const long sizes[4][3] = {{0}, {61}, {41, 133}, {7, 19, 37}};
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
    prog_rng = 977 + 31 * (uint64_t)ip + (uint64_t)dbl;
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
            prog_fill(p, lv[k][f].h, l.nelems, dbl);
            OKD(&dev, ops->mem_alloc(&dev, bytes, &lv[k][f].m));
            OKD(&dev, ops->write(&dev, lv[k][f].m, lv[k][f].h, bytes));
        }
        box_of(p, f, bc, sizes[nd], &s.box[f]);
        for (int d = 0; d < SL_D; d++) {
            tl.stride[f][d] = l.stride[d];
            tl.lo[f][d] = s.box[f].lo[d];
            tl.hi[f][d] = sl_box_empty(&s.box[f]) ? s.box[f].lo[d] : s.box[f].hi[d];
        }
    }
    for (int d = 0; d < 3; d++) tl.origin[d] = a.origin[d];
    /* Several steps: the levels rotate on both sides, the queue alternates (each step after the
       last), t and the parameters change every step (the backend's argument slots). */
    for (int k = 0; k < steps; k++) {
        int q = (ip + k) & 1 ? SB_QBORDER : SB_QINNER;
        /* Parameters away from their defaults, whole ones kept (indices of a point source); in
           double, Gray-Scott takes the defaults (par NULL). */
        for (int i = 0; i < p->npar; i++) {
            double v = p->par[i].value;
            par[i] = v == floor(v) ? v : v * (1.1 + 0.01 * k);
            tl.par[i] = ip == 0 && dbl ? v : par[i];
        }
        s.par = ip == 0 && dbl ? NULL : par;
        s.t = tl.t = 4 + k;
        for (int f = 0; f < p->nf; f++) {
            s.in[f] = lv[0][f].m, s.prev[f] = lv[1][f].m, s.out[f] = lv[2][f].m;
            tl.in[f] = lv[0][f].h, tl.prev[f] = lv[1][f].h, tl.out[f] = lv[2][f].h;
        }
        OKD(&dev, ops->prog_update(&dev, q, &s));
        if (k + 1 < steps) OKD(&dev, ops->after(&dev, q ^ 1, q));
        kgt_prog_eval_tile(p, dbl, &tl);
        for (int f = 0; f < p->nf && k + 1 < steps; f++) {
            level c = lv[0][f];
            if (p->f[f].coef) continue;
            lv[0][f] = lv[2][f];
            if (p->f[f].keeps)
                lv[2][f] = lv[1][f], lv[1][f] = c;
            else
                lv[2][f] = c;
        }
    }
    OKD(&dev, ops->wait(&dev, SB_QBORDER));
    OKD(&dev, ops->wait(&dev, SB_QINNER));
    for (int f = 0; f < p->nf; f++)
        for (int k = 0; k < 3; k++) {
            char *got;
            if (p->f[f].coef || !lv[k][f].h) continue;
            got = malloc(bytes);
            ck_assert_ptr_nonnull(got);
            OKD(&dev, ops->read(&dev, lv[k][f].m, got, bytes));
            for (size_t i = 0; i < l.nelems; i++)
                if (memcmp(got + i * es, lv[k][f].h + i * es, es)) {
                    double g = dbl ? ((double *)got)[i] : ((float *)got)[i];
                    double w = dbl ? ((double *)lv[k][f].h)[i] : ((float *)lv[k][f].h)[i];
                    /* IEEE 754 leaves the sign and payload of a NaN an operation makes to the
                       hardware (the host's default NaN is negative, NVIDIA's positive): a NaN
                       must stay a NaN, every other value bitwise. */
                    if (isnan(g) && isnan(w)) continue;
                    ck_abort_msg("%s %s %s field %s level %d, boxes %d, %d steps: element %zu is "
                                 "%.17g, expected %.17g",
                                 backend_name, p->name, dbl ? "double" : "float", p->f[f].name, k,
                                 bc, steps, i, g, w);
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

static int is_gpu(void)
{
    return strcmp(backend_name, "cuda") == 0 || strcmp(backend_name, "hip") == 0;
}

/* Each box set; on a GPU backend in every test shape that fits, then the plan's. */
START_TEST(programs)
{
    const kgt_prog *p = progs[_i / 2];
    for (int s = 0; s < (is_gpu() ? PROG_TEST_NSHAPES : 0); s++) {
        kgt_prog_shape sh = {prog_test_shapes[s][0], prog_test_shapes[s][1],
                             prog_test_shapes[s][2]};
        char v[48];
        if (kgt_prog_shape_check(p, &sh)) continue;
        snprintf(v, sizeof v, "%d,%d,%d", sh.bx, sh.by, sh.cy);
        setenv("STENCIL_PROG_SHAPE", v, 1);
        for (int bc = 0; bc < NBOXES; bc++) run_one(_i / 2, _i % 2, bc, 1);
    }
    unsetenv("STENCIL_PROG_SHAPE");
    for (int bc = 0; bc < NBOXES; bc++) run_one(_i / 2, _i % 2, bc, 1);
    /* More launches per queue than the backend has argument slots (OpenCL: 16). */
    run_one(_i / 2, _i % 2, 0, 37);
}
END_TEST

/* A fused job on the backend, opened for the job's layout: every array up, k steps in one
   prog_update_k, out and pout down. */
static int dev_run(void *ctx, const fuse_job *j)
{
    const kgt_prog *p = j->p;
    sl_local l;
    sl_stencil st;
    sb_open_args a;
    sb_dev dev, *dv = &dev;
    sb_prog_steps s;
    sb_mem m[4][KGT_PROG_MAX_FIELDS];
    (void)ctx;
    memset(&l, 0, sizeof l);
    for (int d = 0; d < SL_D; d++) l.stride[d] = 1;
    l.stride[0] = j->stride;
    l.nelems = (size_t)(j->n[0] * j->stride);
    l.ndims = 2;
    OKD(dv, open_prog(p, j->dbl, &l, &st, &a, dv));
    memset(&s, 0, sizeof s);
    memset(m, 0, sizeof m);
    for (int f = 0; f < p->nf; f++) {
        const void *h[4] = {j->in[f], j->prev[f], j->out[f], j->pout[f]};
        for (int v = 0; v < 4; v++) {
            if (!h[v]) continue;
            OKD(dv, ops->mem_alloc(dv, j->bytes, &m[v][f]));
            OKD(dv, ops->write(dv, m[v][f], h[v], j->bytes));
        }
        s.in[f] = m[0][f], s.prev[f] = m[1][f], s.out[f] = m[2][f], s.pout[f] = m[3][f];
        for (int q = 0; q < j->k; q++)
            for (int d = 0; d < SL_D; d++) {
                s.box[q][f].lo[d] = d < 2 ? j->box[q][f][d][0] : 0;
                s.box[q][f].hi[d] = d < 2 ? j->box[q][f][d][1] : 1;
            }
    }
    s.k = j->k, s.t = j->t, s.par = j->par;
    for (int d = 0; d < 2; d++) /* the global index the job's cells have */
        ck_assert_int_eq(a.origin[d], j->origin[d]);
    OKD(dv, ops->prog_update_k(dv, SB_QINNER, &s));
    OKD(dv, ops->wait(dv, SB_QINNER));
    for (int f = 0; f < p->nf; f++)
        for (int v = 0; v < 4; v++) {
            if (!m[v][f]) continue;
            if (v >= 2) OKD(dv, ops->read(dv, m[v][f], v == 2 ? j->out[f] : j->pout[f], j->bytes));
            ops->mem_free(dv, m[v][f]);
        }
    ops->close(dv);
    return 0;
}

/* The fused k-step launch (prog_update_k) of each 2D program, k = 1 .. the device's depth, in
   the plan's tiles, against k interpreted steps (fuse_case.c); where the backend has the op. */
START_TEST(fused)
{
    const kgt_prog *p = progs[_i / 2];
    int dbl = _i % 2;
    sl_local l;
    sl_stencil st;
    sb_open_args a;
    sb_dev dev;
    kgt_prog_fuse fz;
    if (p->ndims != 2 || !ops->prog_update_k || !ops->prog_fuse_depth) return;
    memset(&l, 0, sizeof l);
    for (int d = 0; d < SL_D; d++) l.stride[d] = 1;
    l.stride[0] = 64, l.nelems = 64 * 64, l.ndims = 2;
    int rc = open_prog(p, dbl, &l, &st, &a, &dev);
    if (rc == STENCIL_ENOFP64) return;
    OKD(&dev, rc);
    int depth = ops->prog_fuse_depth(&dev);
    ops->close(&dev);
    for (int k = 1; k <= depth; k++) {
        ck_assert_int_eq(kgt_prog_fuse_plan(p, dbl, k, &fz), 0);
        for (int bc = 0; bc < FUSE_NCASES; bc++)
            ck_assert_int_eq(
                fuse_case(p, dbl, &fz, bc, 99 + 7 * (uint64_t)_i + (uint64_t)bc, dev_run, NULL), 0);
        /* rows of whole vectors, which the GPU backend runs by vector rows where it has them */
        if (kgt_prog_vfuse_plan(p, dbl, k, &fz)) continue;
        for (int bc = 0; bc < FUSE_NCASES; bc++)
            ck_assert_int_eq(
                fuse_case(p, dbl, &fz, bc, 77 + 7 * (uint64_t)_i + (uint64_t)bc, dev_run, NULL), 0);
    }
}
END_TEST

/* The host without a working compiler: the interpreter runs, with a notice, and agrees. */
START_TEST(host_fallback)
{
    setenv("STENCIL_HOST_CC", "/nonexistent/cc", 1);
    expect_interp = 1;
    for (int bc = 0; bc < NBOXES; bc++) run_one(_i / 2, _i % 2, bc, 1);
}
END_TEST

START_TEST(empty_boxes)
{
    /* Every box empty: nothing is launched, nothing changes, and the call succeeds. */
    const kgt_prog *p = progs[0];
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
    const kgt_prog *p = progs[_i / 2];
    char err[256] = "";
    /* Per-field long indices; shared int ones in the plan's shape (-1) and each test shape. */
    for (int s = -2; s < PROG_TEST_NSHAPES; s++) {
        kgt_prog_shape sh = {0, 0, 0};
        if (s >= 0) {
            sh = (kgt_prog_shape){prog_test_shapes[s][0], prog_test_shapes[s][1],
                                  prog_test_shapes[s][2]};
            if (kgt_prog_shape_check(p, &sh)) continue;
        }
        kgt_buf b = {0};
        kgt_prog_vec v;
        kgt_prog_emit_gpu_rtc(&b, p, "sb_prog", _i % 2, s > -2, s >= 0 ? &sh : NULL);
        /* The plan's module as the backend builds it: the vector rows beside (2D), also in
           their variant of one box for every evolving field. */
        if (s == -1 && !kgt_prog_vec_plan(p, _i % 2, &v)) {
            kgt_prog_emit_gpu_vec(&b, p, "sb_prog", _i % 2, &v);
            v.one = 1;
            kgt_prog_emit_gpu_vec(&b, p, "sb_prog", _i % 2, &v);
        }
        ck_assert(!b.oom && b.s);
#if STENCIL_HAVE_CUDA_RTC
        ck_assert_msg(sb_cuda_rtc_compile(b.s, "-arch=sm_90", err, sizeof err) == 0,
                      "%s shape %d: %s", p->name, s, err);
#endif
#if STENCIL_HAVE_HIP_RTC
        ck_assert_msg(sb_hip_rtc_compile(b.s, "--offload-arch=gfx90a", err, sizeof err) == 0,
                      "%s shape %d: %s", p->name, s, err);
#endif
        free(b.s);
    }
    /* The fused k-step kernels of 2D programs as the GPU backend builds them: the plan's tiles,
       and beside them the plan's vector rows. */
    for (int k = 1; k <= KGT_PROG_FUSE_MAX && p->ndims == 2; k++) {
        kgt_prog_fuse fz, vz;
        kgt_buf b = {0};
        if (kgt_prog_fuse_plan(p, _i % 2, k, &fz)) continue;
        kgt_emit_rn_helpers(&b);
        kgt_prog_emit_gpu_fused(&b, p, "sb_prog", _i % 2, &fz);
        if (!kgt_prog_vfuse_plan(p, _i % 2, k, &vz))
            kgt_prog_emit_gpu_fused(&b, p, "sb_prog", _i % 2, &vz);
        ck_assert(!b.oom && b.s);
#if STENCIL_HAVE_CUDA_RTC
        ck_assert_msg(sb_cuda_rtc_compile(b.s, "-arch=sm_90", err, sizeof err) == 0,
                      "%s fused %d: %s", p->name, k, err);
#endif
#if STENCIL_HAVE_HIP_RTC
        ck_assert_msg(sb_hip_rtc_compile(b.s, "--offload-arch=gfx90a", err, sizeof err) == 0,
                      "%s fused %d: %s", p->name, k, err);
#endif
        free(b.s);
    }
}
END_TEST
#endif

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s EXAMPLES.stencil BACKEND [MORE.stencil]\n", argv[0]);
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
    if (argc == 4 && kgt_parse(argv[3], &extra)) {
        fprintf(stderr, "cannot read the programs of %s\n", argv[3]);
        return 1;
    }
    for (int i = 0; i < file.nprog && nprogs < 64; i++) progs[nprogs++] = file.prog[i];
    for (int i = 0; i < extra.nprog && nprogs < 64; i++) progs[nprogs++] = extra.prog[i];
    Suite *su = suite_create("progdev");
    TCase *tc = tcase_create(backend_name);
    tcase_set_timeout(tc, 240);
    if (ops) {
        tcase_add_loop_test(tc, programs, 0, 2 * nprogs);
        tcase_add_test(tc, empty_boxes);
        tcase_add_loop_test(tc, fused, 0, 2 * nprogs);
        if (strcmp(backend_name, "host") == 0) {
            /* Compiled kernels checked against the interpreter need a compiler here. */
            unsetenv("STENCIL_HOST_CC");
            tcase_add_loop_test(tc, host_fallback, 0, 2 * nprogs);
        }
    } else {
#if STENCIL_HAVE_CUDA_RTC || STENCIL_HAVE_HIP_RTC
        tcase_add_loop_test(tc, rtc_compile, 0, 2 * nprogs);
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
    kgt_file_free(&extra);
    return failed ? 1 : 0;
}
