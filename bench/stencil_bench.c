/*
 * stencil_bench: times stencil_skeleton() on one stencil of the set and prints one JSON line
 * (rank 0) with the configuration, Gcells/s, per-phase times and memory.
 *
 *   mpiexec -n N stencil_bench -S 2d4 -n 20480x20480 -i 1000 [-t float|double] [-b backend]
 *       [-p bands|blocks] [-k kernel] [--serialize] [--weak] [--repeat R] [--periodic]
 *       [--peer -1|0|1] [--label TEXT] [--trace PATH]
 *
 * --weak multiplies dimension 0 by the rank count (same cells per rank). --repeat runs the
 * whole call R times and reports the best and the median. --trace writes each rank's phase
 * timestamps to PATH.RANK.jsonl (options.trace; the last repeat's); bench/trace_summary.sh
 * sums them up. Tracing pauses the queues every 1024 iterations: time throughput without it.
 * Out-of-core rates: STENCIL_OOC=on (or a device memory limit, STENCIL_DEVICE_MEMORY=64M) in the
 * environment; the line's ooc* fields are rank 0's (mode, chunks, bytes each way, the fraction
 * of transfer time hidden, the measured transfer and kernel rates).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"
#include "stencil_set.h"
#ifdef BENCH_KGT
#include "kgt_set.h" /* kgt kernels of the whole stencil set, named as in docs/STENCILS.md */
#endif

typedef struct bench {
    const char *stencil, *backend, *kernel, *label, *trace;
    long sizes[3];
    int ndims_given;
    long iters;
    stencil_type type;
    stencil_partition part;
    stencil_boundary bnd;
    int serialize, weak, repeat, peer;
} bench;

/* Cheap non-zero data: a few ALU ops per cell so 10^9-cell grids initialise quickly. */
static int init_fast(stencil_tile *t, void *user)
{
    (void)user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            uint32_t x = (uint32_t)(t->offset[0] + i) * 2654435761u ^ (uint32_t)(t->offset[1] + j);
            long row = i * t->stride[0] + j * t->stride[1];
            for (long k = 0; k < t->size[2]; k++) {
                x = x * 1664525u + 1013904223u;
                double v = (double)(x >> 8) / 16777216.0;
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[row + k] = v;
                else
                    ((float *)t->data)[row + k] = (float)v;
            }
        }
    return 0;
}

static int parse_sizes(bench *b, const char *s)
{
    char *end;
    b->ndims_given = 0;
    while (*s && b->ndims_given < 3) {
        b->sizes[b->ndims_given++] = strtol(s, &end, 10);
        s = *end == 'x' ? end + 1 : end;
        if (*end != 'x') break;
    }
    return *s ? -1 : 0;
}

static int parse_args(bench *b, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--serialize"))
            b->serialize = 1;
        else if (!strcmp(a, "--weak"))
            b->weak = 1;
        else if (!strcmp(a, "--periodic"))
            b->bnd = STENCIL_BOUNDARY_PERIODIC;
        else if (!v)
            return -1;
        else if (!strcmp(a, "-S"))
            b->stencil = argv[++i];
        else if (!strcmp(a, "-n")) {
            if (parse_sizes(b, argv[++i])) return -1;
        } else if (!strcmp(a, "-i"))
            b->iters = atol(argv[++i]);
        else if (!strcmp(a, "-t"))
            b->type = !strcmp(argv[++i], "double") ? STENCIL_DOUBLE : STENCIL_FLOAT;
        else if (!strcmp(a, "-b"))
            b->backend = argv[++i];
        else if (!strcmp(a, "-k"))
            b->kernel = argv[++i];
        else if (!strcmp(a, "-p"))
            b->part = !strcmp(argv[++i], "blocks") ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
        else if (!strcmp(a, "--peer"))
            b->peer = atoi(argv[++i]);
        else if (!strcmp(a, "--repeat"))
            b->repeat = atoi(argv[++i]);
        else if (!strcmp(a, "--label"))
            b->label = argv[++i];
        else if (!strcmp(a, "--trace"))
            b->trace = argv[++i];
        else
            return -1;
    }
    return 0;
}

/* The agreed error message, printed once (rank 0). */
static void report_error(int code, const char *message, void *user)
{
    int rank;
    (void)user;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) fprintf(stderr, "stencil_bench: %s: %s\n", stencil_strerror(code), message);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_json(const bench *b, const stencil_desc *st, const stencil_stats *s,
                       const double *gc, const double *runs, int reps, size_t devmax, size_t locmax)
{
    printf("{\"label\":\"%s\",\"stencil\":\"%s\",\"kernel\":\"%s\",\"type\":\"%s\",\"sizes\":[",
           b->label ? b->label : "", b->stencil, b->kernel ? b->kernel : "generic",
           st->type == STENCIL_DOUBLE ? "double" : "float");
    for (int d = 0; d < st->ndims; d++) printf("%s%ld", d ? "," : "", b->sizes[d]);
    printf("],\"ranks\":%d,\"grid\":[%d,%d,%d],\"partition\":\"%s\",\"boundary\":\"%s\","
           "\"backend\":\"%s\",\"device\":\"%s\",\"iters\":%ld,\"serialize\":%d,\"weak\":%d,\"peer_"
           "links\":%d,\"links\":%d,\"steps\":%d,",
           s->nranks, s->proc_grid[0], s->proc_grid[1], s->proc_grid[2],
           b->part == STENCIL_PART_BLOCKS ? "blocks" : "bands",
           b->bnd == STENCIL_BOUNDARY_PERIODIC ? "periodic" : "fixed", s->backend, s->device,
           b->iters, b->serialize, b->weak, s->peer_links, s->links, s->steps);
    printf("\"gcells_best\":%.3f,\"gcells_median\":%.3f,\"repeats\":%d,\"t_loop\":%.6f,"
           "\"t_setup\":%.4f,\"t_border\":%.6f,\"t_mpi\":%.6f,\"t_halo_in\":%.6f,"
           "\"exchange_hidden\":%.4f,\"bytes_sent\":%lld,\"messages\":%lld,"
           "\"device_bytes_max\":%zu,\"local_bytes_max\":%zu,\"cells\":%lld,",
           gc[reps - 1], gc[reps / 2], reps, s->t_loop, s->t_setup, s->t_border, s->t_mpi,
           s->t_halo_in, s->exchange_hidden, s->bytes_sent, s->messages, devmax, locmax, s->cells);
    printf("\"gcells_runs\":[");
    for (int r = 0; r < reps; r++) printf("%s%.3f", r ? "," : "", runs[r]);
    printf("],");
    printf("\"ran\":\"%s\",\"t_compile\":%.4f,\"steps_why\":\"%s\",", s->kernel, s->t_compile,
           s->steps_why);
    printf("\"ooc\":%d,\"ooc_chunks\":%d,\"ooc_up\":%lld,\"ooc_down\":%lld,\"ooc_hidden\":%.4f,"
           "\"ooc_bandwidth\":%.4g,\"ooc_rate\":%.4g,",
           s->ooc, s->ooc_chunks, s->ooc_up, s->ooc_down, s->ooc_hidden, s->ooc_bandwidth,
           s->ooc_rate);
    printf("\"traced\":%ld,\"t_dev_border\":%.6f,\"t_dev_pack\":%.6f,\"t_dev_unpack\":%.6f,"
           "\"t_dev_inner\":%.6f}\n",
           s->traced, s->t_dev_border, s->t_dev_pack, s->t_dev_unpack, s->t_dev_inner);
}

int main(int argc, char **argv)
{
    bench b = {.stencil = "2d4",
               .sizes = {4096, 4096, 1},
               .ndims_given = 2,
               .iters = 100,
               .repeat = 1,
               .peer = -1};
    int rank, size, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef BENCH_KGT
    if (kgt_set_register() != 0 && rank == 0)
        fprintf(stderr, "stencil_bench: kgt registration failed\n");
#endif
    int si = parse_args(&b, argc, argv) ? -1 : stencil_set_find(b.stencil);
    stencil_desc st;
    if (si < 0 || stencil_set_get(si, b.type, &st) || st.ndims != b.ndims_given) {
        if (rank == 0) fprintf(stderr, "stencil_bench: bad arguments or stencil (see source)\n");
        MPI_Finalize();
        return 2;
    }
    if (b.weak) b.sizes[0] *= size;
    stencil_options opt;
    stencil_stats s;
    double gc[64], runs[64]; /* runs: in the order they ran; gc: sorted */
    int reps = b.repeat < 1 ? 1 : b.repeat > 64 ? 64 : b.repeat;
    stencil_options_init(&opt);
    opt.backend = b.backend;
    opt.partition = b.part;
    opt.boundary = b.bnd;
    opt.serialize = b.serialize;
    opt.peer = b.peer;
    opt.trace = b.trace;
    opt.stats = &s;
    opt.on_error = report_error;
    for (int r = 0; r < reps && !rc; r++) {
        rc = stencil_skeleton(MPI_COMM_WORLD, b.sizes, &st, b.iters, b.kernel, init_fast, NULL,
                              &opt);
        gc[r] = runs[r] = s.gcells;
    }
    if (rc) {
        if (rank == 0) fprintf(stderr, "stencil_bench: %s\n", stencil_strerror(rc));
    } else {
        size_t devmax = 0, locmax = 0;
        MPI_Reduce(&s.device_bytes, &devmax, 1, MPI_UNSIGNED_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&s.local_bytes, &locmax, 1, MPI_UNSIGNED_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        qsort(gc, (size_t)reps, sizeof *gc, cmp_double);
        if (rank == 0) print_json(&b, &st, &s, gc, runs, reps, devmax, locmax);
    }
    MPI_Finalize();
    return rc ? 1 : 0;
}
