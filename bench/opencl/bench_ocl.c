/*
 * OpenCL backend micro-benchmarks, one process, no MPI (backend level).
 *
 *   bench_ocl copy STENCIL N P ROUNDS    halo traffic of rank 0 of a periodic P^d block grid
 *                                        over an N^d array: every send box device->host, then
 *                                        every receive box host->device, per round; rect vs pack
 *   bench_ocl update STENCIL N ITERS     generic update of an N^d array (1 rank, fixed)
 *
 * STENCIL is a name of the test stencil set ("2d4", "3d7", ...). float elements. Prints one line
 * per measurement. The copy mode is switched inside one open device, so both modes see the same
 * buffers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "layout.h"
#include "ocl.h"
#include "stencil_set.h"

typedef struct bench {
    sl_stencil s;
    sl_partition p;
    sl_local l;
    sb_dev dev;
    sb_mem m[2];
} bench;

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_ocl: %s: %s\n", what, msg);
    return 1;
}

/* Layout of rank 0 on a P^d grid, device open, two arrays allocated and zeroed. */
static int setup(bench *b, const char *name, long n, int parts, int periodic)
{
    stencil_desc d;
    char msg[256];
    int si = stencil_set_find(name), pg[SL_D] = {1, 1, 1}, minpart[SL_D];
    if (si < 0 || stencil_set_get(si, STENCIL_FLOAT, &d)) return die(name, "unknown stencil");
    long g[SL_D] = {1, 1, 1};
    for (int i = 0; i < d.ndims; i++) {
        g[i] = n;
        pg[i] = parts;
    }
    if (sl_stencil_make(&b->s, &d, msg, sizeof msg)) return die("stencil", msg);
    sl_min_part(&b->s, minpart);
    if (sl_partition_make(&b->p, d.ndims, g, pg, NULL, minpart, periodic, msg, sizeof msg))
        return die("partition", msg);
    if (sl_local_make(&b->l, &b->p, &b->s, 0)) return die("layout", "sl_local_make failed");
    sb_open_args a = {.device = -1, .local_size = 1, .st = &b->s, .local = &b->l};
    b->dev.ops = &sb_opencl_ops;
    if (sb_opencl_ops.open(&b->dev, &a)) return die("open", b->dev.err);
    size_t bytes = b->l.nelems * sizeof(float);
    float *zero = calloc(b->l.nelems, sizeof *zero);
    for (int i = 0; i < 2; i++)
        if (!zero || sb_opencl_ops.mem_alloc(&b->dev, bytes, &b->m[i]) ||
            sb_opencl_ops.write(&b->dev, b->m[i], zero, bytes))
            return die("alloc", b->dev.err);
    free(zero);
    printf("# device: %s; local array %zu elements\n", b->dev.name, b->l.nelems);
    return 0;
}

/* One round: all send boxes out, wait, all receive boxes in, wait. */
static int copy_round(bench *b, void **buf)
{
    const sb_ops *o = &sb_opencl_ops;
    int rc = 0;
    for (int d = 0; d < SL_NDIRS && !rc; d++) {
        sl_box bx = sl_local_box(&b->l, &b->l.dir[d].send);
        if (b->l.dir[d].active && b->l.dir[d].has_send)
            rc = o->copy_out(&b->dev, SB_QBORDER, b->m[0], &bx, buf[d]);
    }
    rc = rc ? rc : o->wait(&b->dev, SB_QBORDER);
    for (int d = 0; d < SL_NDIRS && !rc; d++) {
        sl_box bx = sl_local_box(&b->l, &b->l.dir[d].recv);
        if (b->l.dir[d].active && b->l.dir[d].has_recv)
            rc = o->copy_in(&b->dev, SB_QBORDER, b->m[0], &bx, buf[SL_NDIRS + d]);
    }
    return rc ? rc : o->wait(&b->dev, SB_QBORDER);
}

static int bench_copy(bench *b, long rounds)
{
    void *buf[2 * SL_NDIRS] = {NULL};
    double bytes = 0;
    for (int d = 0; d < SL_NDIRS; d++) {
        const sl_dir *dir = &b->l.dir[d];
        long ns = dir->active && dir->has_send ? sl_box_volume(&dir->send) : 0;
        long nr = dir->active && dir->has_recv ? sl_box_volume(&dir->recv) : 0;
        bytes += (double)(ns + nr) * sizeof(float);
        if (sb_opencl_ops.host_alloc(&b->dev, (size_t)ns * 4, &buf[d]) ||
            sb_opencl_ops.host_alloc(&b->dev, (size_t)nr * 4, &buf[SL_NDIRS + d]))
            return die("host_alloc", b->dev.err);
    }
    ocl_impl *o = b->dev.impl;
    static const char *names[2] = {"rect", "pack"};
    for (int mode = OCL_COPY_RECT; mode <= OCL_COPY_PACK; mode++) {
        o->copy_mode = mode;
        if (copy_round(b, buf)) /* warm-up: kernel specialisation, first touches */
            return die("copy", b->dev.err);
        double t = now();
        for (long r = 0; r < rounds; r++)
            if (copy_round(b, buf)) return die("copy", b->dev.err);
        t = (now() - t) / (double)rounds;
        printf("copy %s: %.1f us per round, %.0f KiB per round, %.2f GB/s\n", names[mode], t * 1e6,
               bytes / 1024, bytes / t / 1e9);
    }
    return 0;
}

static int bench_update(bench *b, long iters)
{
    sl_box ub = sl_local_box(&b->l, &b->l.update);
    const sb_ops *o = &sb_opencl_ops;
    if (o->update(&b->dev, SB_QINNER, 1, b->m[0], b->m[1], &ub, NULL) ||
        o->wait(&b->dev, SB_QINNER))
        return die("update", b->dev.err);
    /* CPU time of all the process's threads too: on a shared CPU (PoCL in CI) it varies less
       with the machine's load than the wall time does. */
    double t = now(), cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < iters; i++)
        if (o->update(&b->dev, SB_QINNER, 1, b->m[i % 2], b->m[1 - i % 2], &ub, NULL))
            return die("update", b->dev.err);
    if (o->wait(&b->dev, SB_QINNER)) return die("update", b->dev.err);
    t = now() - t;
    cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    double cells = (double)sl_box_volume(&ub) * (double)iters;
    ocl_impl *oi = b->dev.impl;
    printf("update: %ld iterations of %ld cells in %.3f s: %.3f Gcells/s, %.3f Gcells per CPU "
           "second (work-group %zu, walk %d)\n",
           iters, sl_box_volume(&ub), t, cells / t / 1e9, cells / cpu / 1e9, oi->wg, oi->walk);
    return 0;
}

int main(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    int copy = argc == 6 && strcmp(argv[1], "copy") == 0;
    if (!copy && !(argc == 5 && strcmp(argv[1], "update") == 0)) {
        fprintf(stderr, "usage: bench_ocl copy STENCIL N P ROUNDS | update STENCIL N ITERS\n");
        return 2;
    }
    long n = atol(argv[3]), reps = atol(argv[copy ? 5 : 4]);
    int rc = setup(&b, argv[2], n, copy ? atoi(argv[4]) : 1, copy);
    if (!rc) rc = copy ? bench_copy(&b, reps) : bench_update(&b, reps);
    for (int i = 0; i < 2; i++)
        if (b.m[i]) sb_opencl_ops.mem_free(&b.dev, b.m[i]);
    sb_opencl_ops.close(&b.dev); /* also unmaps and frees the pinned buffers */
    return rc;
}
