/*
 * GPU benchmark (one rank, one GPU). Modes:
 *
 *   bench_gpu skel [iters] [case...]   the figures of bench/RESULTS.md: each case through
 *       stencil_skeleton() (whole loop, default 1000 iterations, generic kernel, backend cuda),
 *       with the naive CUDA kernel (baseline) and the device-to-device copy bandwidth (ceiling)
 *       measured in the same run. Cases: 2d4-f32 2d4-f64 3d7-f32 2d9nc-f32 (default: all).
 *   bench_gpu tune [iters]   the generic kernel's launch shapes, through the backend ops.
 *   bench_gpu copy           the halo copy paths (dma, pack, zerocopy) on typical faces.
 *   bench_gpu one CASE [iters]   one case through the ops (for profilers).
 *
 * Sizes: 2D 32768^2, 3D 1024^3 (STENCILS.md). Gcells/s counts interior cells.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "layout.h"
#include "stencil.h"

int bench_fill(void *p, size_t n, int dbl, unsigned long long seed);
double bench_copy_bw(size_t bytes, int reps);
double bench_naive(int which, long n0, long n1, long n2, int iters);

static const double w_2d4[] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
static const double w_3d7[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0,
                               1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
static const double w_2d9nc[] = {0, 0, 1, 0, 0, 0, 0, 4, 0, 0, 1, 4, 4,
                                 4, 1, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0};

typedef struct bcase {
    const char *name;
    stencil_desc st;
    long size[3];
    int naive; /* bench_naive's which, or -1 */
} bcase;

static const bcase cases[] = {
    {"2d4-f32", {2, {1, 1, 0}, {1, 1, 0}, w_2d4, 4, STENCIL_FLOAT}, {32768, 32768, 1}, 0},
    {"2d4-f64", {2, {1, 1, 0}, {1, 1, 0}, w_2d4, 4, STENCIL_DOUBLE}, {32768, 32768, 1}, 1},
    {"3d7-f32", {3, {1, 1, 1}, {1, 1, 1}, w_3d7, 6, STENCIL_FLOAT}, {1024, 1024, 1024}, 2},
    {"2d9nc-f32", {2, {2, 2, 0}, {2, 2, 0}, w_2d9nc, 24, STENCIL_FLOAT}, {32768, 32768, 1}, -1},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double interior(const bcase *c)
{
    double n = 1;
    for (int d = 0; d < c->st.ndims; d++)
        n *= (double)(c->size[d] - c->st.radius_lo[d] - c->st.radius_hi[d]);
    return n;
}

/* ------------------------------------------------------------------ through the skeleton */

/* Cheap hash fill of the tile, row by row (1G cells in a few seconds). */
static int init_tile(stencil_tile *t, void *user)
{
    (void)user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            unsigned long long x =
                (unsigned long long)((t->offset[0] + i) * 1000003 + j) * 2654435761u;
            for (long k = 0; k < t->size[2]; k++) {
                long at = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                double v = (double)(x >> 11) / 9007199254740992.0;
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[at] = v;
                else
                    ((float *)t->data)[at] = (float)v;
            }
        }
    return 0;
}

static int run_skel(const bcase *c, long iters, double copy_gbs)
{
    stencil_options opt;
    stencil_stats s;
    stencil_options_init(&opt);
    opt.backend = "cuda";
    opt.stats = &s;
    double t0 = now();
    int rc = stencil_skeleton(MPI_COMM_WORLD, c->size, &c->st, iters, NULL, init_tile, NULL, &opt);
    if (rc) {
        fprintf(stderr, "%s: stencil_skeleton: %s\n", c->name, stencil_strerror(rc));
        return rc;
    }
    double naive =
        c->naive >= 0 ? bench_naive(c->naive, c->size[0], c->size[1], c->size[2], (int)iters) : 0;
    double bpc = 2.0 * (double)sb_elem_size(c->st.type), roof = copy_gbs / bpc;
    printf("RESULT %-10s skel %7.1f Gcells/s (%5.1f%% of %5.1f roofline, t_loop %.3f s, "
           "setup %.1f s, wall %.1f s) naive %7.1f Gcells/s  device %s  devmem %.2f GB\n",
           c->name, s.gcells, 100 * s.gcells / roof, roof, s.t_loop, s.t_setup, now() - t0, naive,
           s.device, (double)s.device_bytes / 1e9);
    fflush(stdout);
    return 0;
}

static int mode_skel(int argc, char **argv)
{
    long iters = argc > 2 ? atol(argv[2]) : 1000;
    double bw = bench_copy_bw((size_t)4 << 30, 20);
    printf("COPY device-to-device %.1f GB/s (4 GiB buffers, read + write counted)\n", bw);
    for (int i = 0; i < NCASES; i++) {
        int want = argc <= 3;
        for (int a = 3; a < argc; a++) want |= strcmp(argv[a], cases[i].name) == 0;
        if (want && run_skel(&cases[i], iters, bw)) return 1;
    }
    printf("COPY device-to-device %.1f GB/s (again, after the runs)\n",
           bench_copy_bw((size_t)4 << 30, 20));
    return 0;
}

/* ------------------------------------------------------------------ through the backend ops */

typedef struct opsrun {
    const sb_ops *ops;
    sb_dev dev;
    sl_stencil s;
    sl_partition p;
    sl_local l;
    sb_mem m[2];
} opsrun;

static int ops_open(opsrun *r, const bcase *c)
{
    char msg[256];
    int pgrid[SL_D] = {1, 1, 1}, minpart[SL_D];
    long g[SL_D] = {c->size[0], c->size[1], c->size[2]};
    memset(r, 0, sizeof *r);
    r->ops = sb_find("cuda");
    if (!r->ops || sl_stencil_make(&r->s, &c->st, msg, sizeof msg)) return -1;
    sl_min_part(&r->s, minpart);
    if (sl_partition_make(&r->p, c->st.ndims, g, pgrid, NULL, minpart, 0, msg, sizeof msg) ||
        sl_local_make(&r->l, &r->p, &r->s, 0))
        return -1;
    sb_open_args a = {.device = -1, .local_size = 1, .st = &r->s, .local = &r->l};
    r->dev.ops = r->ops;
    int rc = r->ops->open(&r->dev, &a);
    size_t bytes = r->l.nelems * sb_elem_size(c->st.type);
    for (int i = 0; !rc && i < 2; i++) {
        rc = r->ops->mem_alloc(&r->dev, bytes, &r->m[i]);
        if (!rc) rc = bench_fill(r->m[i], r->l.nelems, c->st.type == STENCIL_DOUBLE, 3);
    }
    if (rc) fprintf(stderr, "%s: %s\n", c->name, r->dev.err);
    return rc;
}

static void ops_close(opsrun *r)
{
    for (int i = 0; i < 2; i++)
        if (r->m[i]) r->ops->mem_free(&r->dev, r->m[i]);
    r->ops->close(&r->dev);
    sl_stencil_free(&r->s);
    sl_partition_free(&r->p);
}

/* Gcells/s of `iters` updates of the whole update box, ping-ponging, on the inner queue. */
static double ops_time(opsrun *r, const bcase *c, int iters)
{
    sl_box u = sl_local_box(&r->l, &r->l.update);
    double t0 = 0;
    for (int t = -3; t < iters; t++) {
        if (t == 0) {
            if (r->ops->wait(&r->dev, SB_QINNER)) return -1;
            t0 = now();
        }
        if (r->ops->update(&r->dev, SB_QINNER, r->m[t & 1], r->m[!(t & 1)], &u)) return -1;
    }
    if (r->ops->wait(&r->dev, SB_QINNER)) return -1;
    return interior(c) * iters / (now() - t0) / 1e9;
}

/* "bx,by,chunk,u,spec,al": block, walk per thread, cells per group, NP specialization, rows
 * aligned to 128 bytes. The first of each list is the built-in default. */
static const char *const tune2d[] = {"256,1,16,8,1,1",
                                     "256,1,8,8,1,1",
                                     "256,1,16,8,1,0",
                                     "256,1,8,8,1,0",
                                     "128,1,16,8,1,1",
                                     "128,1,8,8,1,1",
                                     "256,1,16,4,1,1",
                                     "256,1,32,8,1,1",
                                     "256,1,16,8,0,1",
                                     "64,1,8,8,1,1",
                                     NULL};
static const char *const tune3d[] = {"128,2,64,4,1,1",
                                     "128,2,64,4,1,0",
                                     "128,2,32,4,1,1",
                                     "128,2,16,4,1,1",
                                     "128,2,128,4,1,1",
                                     "64,4,64,4,1,1",
                                     "256,1,64,4,1,1",
                                     "128,2,64,8,1,1",
                                     "32,8,64,4,1,1",
                                     "128,2,64,4,0,1",
                                     NULL};

static int mode_tune(int argc, char **argv)
{
    int iters = argc > 2 ? atoi(argv[2]) : 100;
    for (int i = 0; i < NCASES; i++) {
        const bcase *c = &cases[i];
        const char *const *t = c->st.ndims == 3 ? tune3d : tune2d;
        for (int k = 0; t[k]; k++) {
            opsrun r;
            setenv("STENCIL_GPU_TUNE", t[k], 1);
            if (ops_open(&r, c)) return 1;
            double g = ops_time(&r, c, iters);
            printf("TUNE %-10s %-20s %7.1f Gcells/s\n", c->name, t[k], g);
            fflush(stdout);
            ops_close(&r);
        }
    }
    unsetenv("STENCIL_GPU_TUNE");
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median microseconds of copy_out (or copy_in) + wait of box b. */
static double copy_us(opsrun *r, const sl_box *b, void *h, int out)
{
    double t[41];
    for (int k = 0; k < 41; k++) {
        double t0 = now();
        int rc = out ? r->ops->copy_out(&r->dev, SB_QBORDER, r->m[0], b, h)
                     : r->ops->copy_in(&r->dev, SB_QBORDER, r->m[0], b, h);
        if (rc || r->ops->wait(&r->dev, SB_QBORDER)) return -1;
        t[k] = (now() - t0) * 1e6;
    }
    qsort(t, 41, sizeof t[0], cmp_d);
    return t[20];
}

static void copy_case(const bcase *c, const char *what, int dim, int width)
{
    static const char *const modes[] = {"dma", "pack", "zerocopy"};
    for (int m = 0; m < 3; m++) {
        opsrun r;
        setenv("STENCIL_GPU_COPY", modes[m], 1);
        if (ops_open(&r, c)) return;
        sl_box b = sl_local_box(&r.l, &r.l.update);
        b.hi[dim] = b.lo[dim] + width; /* a face of the update box, `width` cells thick */
        size_t bytes = (size_t)sl_box_volume(&b) * sb_elem_size(c->st.type);
        void *h;
        if (r.ops->host_alloc(&r.dev, bytes, &h)) return;
        double o = copy_us(&r, &b, h, 1), i = copy_us(&r, &b, h, 0);
        printf("COPYPATH %-10s %-14s %-8s %8zu B  out %8.1f us (%6.2f GB/s)  in %8.1f us "
               "(%6.2f GB/s)\n",
               c->name, what, modes[m], bytes, o, bytes / o / 1e3, i, bytes / i / 1e3);
        fflush(stdout);
        r.ops->host_free(&r.dev, h);
        ops_close(&r);
    }
    unsetenv("STENCIL_GPU_COPY");
}

static int mode_copy(void)
{
    copy_case(&cases[0], "row(contig)", 0, 1);
    copy_case(&cases[0], "column x1", 1, 1);
    copy_case(&cases[3], "column x2", 1, 2);
    copy_case(&cases[1], "column x1", 1, 1);
    copy_case(&cases[2], "face dim0", 0, 1);
    copy_case(&cases[2], "face dim1", 1, 1);
    copy_case(&cases[2], "face dim2", 2, 1);
    return 0;
}

/* bench_gpu one CASE [iters]: the backend ops with the current STENCIL_GPU_TUNE (for ncu). */
static int mode_one(int argc, char **argv)
{
    for (int i = 0; argc > 2 && i < NCASES; i++) {
        opsrun r;
        if (strcmp(argv[2], cases[i].name) || ops_open(&r, &cases[i])) continue;
        printf("ONE %s %.1f Gcells/s\n", cases[i].name,
               ops_time(&r, &cases[i], argc > 3 ? atoi(argv[3]) : 10));
        ops_close(&r);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "skel";
    int rc;
    if (strcmp(mode, "one") == 0)
        rc = mode_one(argc, argv);
    else if (strcmp(mode, "tune") == 0)
        rc = mode_tune(argc, argv);
    else if (strcmp(mode, "copy") == 0)
        rc = mode_copy();
    else
        rc = mode_skel(argc, argv);
    MPI_Finalize();
    return rc;
}
