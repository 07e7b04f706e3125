/*
 * run_cost: what a convergence check (stencil_advance_norm) and a checkpoint (stencil_checkpoint)
 * cost in a persistent run, every E iterations, as time per event and as a fraction of the loop.
 * One run (stencil_create, a warm-up advance), then for each E the same T iterations four ways,
 * each timed between barriers on rank 0, the four interleaved R times (-R, default 3); one JSON
 * line per way with the fastest time ("t", what the differences use) and the median:
 *   "single"     one stencil_advance(T)                        (the skeleton's loop)
 *   "chunks"     T/E calls stencil_advance(E)                  (the cost of stopping alone)
 *   "norm"       T/E calls stencil_advance_norm(E)             (a check every E iterations)
 *   "checkpoint" T/E calls stencil_advance(E) + stencil_checkpoint
 * per_event_ms = (t - t_chunks) / (T / E) for norm and checkpoint, fraction = (t - t_chunks) /
 * t_chunks; stop_ms and stop_fraction compare chunks with single the same way.
 *
 *   mpiexec -n 1 run_cost -S 2d4 -n 20480x20480 [-t float|double] [-b backend] [-k kernel]
 *       [-T 2000] [-E 100,1000] [-R 3] [-f /tmp/run_cost.h5] [--label TEXT]
 *
 * The checkpoint goes to -f (HDF5 when it ends in .h5 and HDF5 is built in, else the native
 * format) and is removed at the end: put it on the file system a real run would use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"
#include "stencil_set.h"

typedef struct cfg {
    const char *stencil, *backend, *kernel, *path, *label;
    long sizes[3], total, every[8];
    int nevery, ndims, repeat;
    stencil_type type;
} cfg;

static int init_fast(stencil_tile *t, void *user)
{
    (void)user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++) {
                long at = i * t->stride[0] + j * t->stride[1] + k * t->stride[2];
                double v = (double)((t->offset[0] + i + 7 * (t->offset[1] + j) + 13 * k) % 101);
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[at] = v / 100.0;
                else
                    ((float *)t->data)[at] = (float)(v / 100.0);
            }
    return 0;
}

static int parse(cfg *c, int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "-S"))
            c->stencil = v;
        else if (!strcmp(a, "-n")) {
            char *e = (char *)v;
            for (c->ndims = 0; c->ndims < 3 && *e; c->ndims++)
                c->sizes[c->ndims] = strtol(*e == 'x' ? e + 1 : e, &e, 10);
        } else if (!strcmp(a, "-t"))
            c->type = !strcmp(v, "double") ? STENCIL_DOUBLE : STENCIL_FLOAT;
        else if (!strcmp(a, "-b"))
            c->backend = v;
        else if (!strcmp(a, "-k"))
            c->kernel = v;
        else if (!strcmp(a, "-R"))
            c->repeat = atoi(v) > 0 && atoi(v) <= 15 ? atoi(v) : 3;
        else if (!strcmp(a, "-T"))
            c->total = atol(v);
        else if (!strcmp(a, "-f"))
            c->path = v;
        else if (!strcmp(a, "--label"))
            c->label = v;
        else if (!strcmp(a, "-E")) {
            char *e = (char *)v;
            for (c->nevery = 0; c->nevery < 8 && *e; c->nevery++)
                c->every[c->nevery] = strtol(*e == ',' ? e + 1 : e, &e, 10);
        } else
            return -1;
    }
    return 0;
}

/* T iterations in chunks of e, one way; seconds on rank 0 between barriers. */
static int timed(stencil_run *run, const cfg *c, const char *how, long e, double *t)
{
    int rc = 0;
    stencil_norm nm;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (!strcmp(how, "single")) rc = stencil_advance(run, c->total);
    for (long done = 0; !rc && strcmp(how, "single") && done < c->total; done += e) {
        if (!strcmp(how, "norm"))
            rc = stencil_advance_norm(run, e, &nm);
        else
            rc = stencil_advance(run, e);
        if (!rc && !strcmp(how, "checkpoint")) rc = stencil_checkpoint(run, c->path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    *t = MPI_Wtime() - t0;
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the repeat times t[0..n-1]: t[0] is the fastest. */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static void line(const cfg *c, const stencil_stats *s, const char *how, long e, double *ts,
                 double base, double events)
{
    double med = median(ts, c->repeat), t = ts[0];
    double extra = t - base;
    printf("{\"bench\":\"run_cost\",\"label\":\"%s\",\"stencil\":\"%s\",\"type\":\"%s\","
           "\"sizes\":[%ld,%ld,%ld],\"backend\":\"%s\",\"device\":\"%s\",\"kernel\":\"%s\","
           "\"steps\":%d,\"ranks\":%d,\"case\":\"%s\",\"every\":%ld,\"iterations\":%ld,"
           "\"file\":\"%s\",\"repeat\":%d,\"t\":%.6f,\"t_median\":%.6f,\"gcells\":%.2f",
           c->label, c->stencil, c->type == STENCIL_DOUBLE ? "double" : "float", c->sizes[0],
           c->sizes[1], c->sizes[2], s->backend, s->device, s->kernel, s->steps, s->nranks, how, e,
           c->total, c->path, c->repeat, t, med, (double)s->cells * (double)c->total / t / 1e9);
    if (events > 0)
        printf(",\"per_event_ms\":%.3f,\"fraction\":%.5f", 1e3 * extra / events, extra / base);
    printf("}\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cfg c = {.stencil = "2d4",
             .sizes = {4096, 4096, 1},
             .total = 2000,
             .every = {100, 1000},
             .nevery = 2,
             .repeat = 3,
             .ndims = 2,
             .path = "/tmp/run_cost.h5",
             .label = ""};
    int rank, rc = parse(&c, argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    stencil_desc st;
    if (rc || stencil_set_get(stencil_set_find(c.stencil), c.type, &st) || st.ndims != c.ndims) {
        if (rank == 0) fprintf(stderr, "run_cost: bad arguments (see the comment header)\n");
        MPI_Finalize();
        return 2;
    }
    if (!stencil_have_hdf5() && strstr(c.path, ".h5")) c.path = "/tmp/run_cost.ck";
    stencil_options o;
    stencil_options_init(&o);
    o.backend = c.backend;
    stencil_run *run;
    stencil_stats s;
    rc = stencil_create(MPI_COMM_WORLD, c.sizes, &st, c.kernel, init_fast, &o, &run);
    stencil_norm nm;
    /* Warm-up: the loop, the norm kernel (OpenCL builds it on first use), the file library. */
    if (!rc) rc = stencil_advance(run, 100);
    if (!rc) rc = stencil_advance_norm(run, 1, &nm);
    if (!rc) rc = stencil_checkpoint(run, c.path);
    if (!rc) rc = stencil_run_stats(run, &s);
    static const char *const how[4] = {"single", "chunks", "norm", "checkpoint"};
    for (int k = 0; !rc && k < c.nevery; k++) {
        long e = c.every[k];
        double t[4][15], n = (double)c.total / (double)e;
        for (int r = 0; r < c.repeat; r++)
            for (int w = 0; w < 4 && !rc; w++) rc = timed(run, &c, how[w], e, &t[w][r]);
        if (rc || rank) continue;
        for (int w = 0; w < 4; w++) median(t[w], c.repeat);
        line(&c, &s, how[0], e, t[0], 0, 0);
        line(&c, &s, how[1], e, t[1], t[0][0], n); /* per event: a stop and restart of the loop */
        line(&c, &s, how[2], e, t[2], t[1][0], n);
        line(&c, &s, how[3], e, t[3], t[1][0], n);
    }
    stencil_destroy(&run);
    if (rank == 0) {
        char xmf[4096];
        size_t n = strlen(c.path);
        snprintf(xmf, sizeof xmf, "%.*s.xmf", (int)(n > 3 ? n - 3 : n), c.path);
        remove(c.path);
        if (n > 3 && !strcmp(c.path + n - 3, ".h5")) remove(xmf);
    }
    if (rc && rank == 0) fprintf(stderr, "run_cost: %s\n", stencil_strerror(rc));
    MPI_Finalize();
    return rc != 0;
}
