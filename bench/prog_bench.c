/*
 * prog_bench: times stencil_program_skeleton() on a program read from a file and prints one
 * JSON line (rank 0) with the configuration, Gcells/s (cells updated per second, every
 * evolving field of a cell counted once) and the run's statistics.
 *
 *   mpiexec -n N prog_bench -f bench/progs/grayscott.stencil -n 8192x8192 -i 1000
 *       [-t float|double] [-b backend] [-p bands|blocks] [-s steps] [--repeat R]
 *       [--param NAME=VALUE] [--label TEXT] [--ooc BYTES]
 *
 * --ooc BYTES runs out of core (options.out_of_core = 1) with a device memory limit of BYTES
 * (each step's levels streamed through the device in chunks); the JSON line then has the
 * chunks and the bytes moved each way.
 *
 * The fields start from a cheap hash in [0, 1) scaled by 0.5, coefficient fields in
 * [0.1, 0.2), so that the bench programs stay finite.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil.h"

typedef struct pbench {
    const char *file, *backend, *label;
    const char *param[16];
    long sizes[3];
    int ndims, nparam, steps, repeat;
    long iters;
    long long ooc; /* --ooc: the device memory limit out of core; 0: in core */
    stencil_type type;
    stencil_partition part;
    const stencil_program *prog;
} pbench;

static int init_fast(stencil_tile *t, void *user)
{
    const pbench *b = user;
    int f = stencil_program_find_field(b->prog, t->field);
    int coef = f >= 0 && stencil_program_is_coef(b->prog, f);
    double lo = coef ? 0.1 : 0.0, scale = coef ? 0.1 : 0.5;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            uint32_t x = (uint32_t)(t->offset[0] + i) * 2654435761u ^ (uint32_t)(t->offset[1] + j) ^
                         (uint32_t)(f * 977 + t->level);
            long row = i * t->stride[0] + j * t->stride[1];
            for (long k = 0; k < t->size[2]; k++) {
                x = x * 1664525u + 1013904223u;
                double v = lo + scale * ((double)(x >> 8) / 16777216.0);
                if (t->type == STENCIL_DOUBLE)
                    ((double *)t->data)[row + k] = v;
                else
                    ((float *)t->data)[row + k] = (float)v;
            }
        }
    return 0;
}

static int parse_args(pbench *b, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return -1;
        i++;
        if (!strcmp(a, "-f"))
            b->file = v;
        else if (!strcmp(a, "-n")) {
            char *end;
            b->ndims = 0;
            for (const char *s = v; *s && b->ndims < 3; s = *end == 'x' ? end + 1 : end) {
                b->sizes[b->ndims++] = strtol(s, &end, 10);
                if (*end != 'x') break;
            }
        } else if (!strcmp(a, "-i"))
            b->iters = atol(v);
        else if (!strcmp(a, "-t"))
            b->type = !strcmp(v, "double") ? STENCIL_DOUBLE : STENCIL_FLOAT;
        else if (!strcmp(a, "-b"))
            b->backend = v;
        else if (!strcmp(a, "-p"))
            b->part = !strcmp(v, "blocks") ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
        else if (!strcmp(a, "-s"))
            b->steps = atoi(v);
        else if (!strcmp(a, "--repeat"))
            b->repeat = atoi(v);
        else if (!strcmp(a, "--label"))
            b->label = v;
        else if (!strcmp(a, "--ooc"))
            b->ooc = atoll(v);
        else if (!strcmp(a, "--param") && b->nparam < 16)
            b->param[b->nparam++] = v;
        else
            return -1;
    }
    return b->file ? 0 : -1;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (s = malloc((size_t)n + 1)) != NULL) {
        if (fread(s, 1, (size_t)n, f) != (size_t)n) {
            free(s);
            s = NULL;
        } else
            s[n] = 0;
    }
    fclose(f);
    return s;
}

static void report_error(int code, const char *message, void *user)
{
    int rank;
    (void)user;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) fprintf(stderr, "prog_bench: %s: %s\n", stencil_strerror(code), message);
}

static int set_params(pbench *b, stencil_program *p)
{
    for (int i = 0; i < b->nparam; i++) {
        char name[64];
        const char *eq = strchr(b->param[i], '=');
        size_t len = eq ? (size_t)(eq - b->param[i]) : 0;
        if (!eq || len >= sizeof name) return -1;
        memcpy(name, b->param[i], len);
        name[len] = 0;
        if (stencil_program_set_param(p, name, atof(eq + 1))) return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    pbench b = {.sizes = {4096, 4096, 1}, .ndims = 2, .iters = 100, .repeat = 1};
    stencil_program *p = NULL;
    char msg[256] = "";
    int rank, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *text = parse_args(&b, argc, argv) ? NULL : read_text(b.file);
    if (!text || stencil_program_parse(text, &p, msg, sizeof msg) || set_params(&b, p) ||
        stencil_program_ndims(p) != b.ndims) {
        if (rank == 0) fprintf(stderr, "prog_bench: bad arguments or program: %s\n", msg);
        MPI_Finalize();
        return 2;
    }
    b.prog = p;
    stencil_options opt;
    stencil_stats s;
    double best = 0, runs[64];
    int reps = b.repeat < 1 ? 1 : b.repeat > 64 ? 64 : b.repeat;
    stencil_options_init(&opt);
    opt.backend = b.backend;
    opt.partition = b.part;
    opt.steps = b.steps;
    opt.stats = &s;
    opt.out_of_core = b.ooc > 0;
    opt.device_memory = b.ooc;
    opt.on_error = report_error;
    opt.user = &b;
    for (int r = 0; r < reps && !rc; r++) {
        rc = stencil_program_skeleton(MPI_COMM_WORLD, b.sizes, p, b.type, b.iters, init_fast, NULL,
                                      &opt);
        runs[r] = s.gcells;
        if (s.gcells > best) best = s.gcells;
    }
    if (!rc && rank == 0) {
        printf("{\"label\":\"%s\",\"program\":\"%s\",\"type\":\"%s\",\"sizes\":[",
               b.label ? b.label : "", stencil_program_name(p),
               b.type == STENCIL_DOUBLE ? "double" : "float");
        for (int d = 0; d < b.ndims; d++) printf("%s%ld", d ? "," : "", b.sizes[d]);
        printf("],\"ranks\":%d,\"backend\":\"%s\",\"device\":\"%s\",\"kernel\":\"%s\","
               "\"iters\":%ld,\"steps\":%d,\"steps_why\":\"%s\",\"gcells_best\":%.3f,"
               "\"gcells_runs\":[",
               s.nranks, s.backend, s.device, s.kernel, b.iters, s.steps, s.steps_why, best);
        for (int r = 0; r < reps; r++) printf("%s%.3f", r ? "," : "", runs[r]);
        printf("],\"t_loop\":%.6f,\"t_setup\":%.4f,\"t_compile\":%.4f,\"bytes_sent\":%lld,"
               "\"device_bytes\":%zu,\"ooc\":%d,\"ooc_chunks\":%d,\"ooc_up\":%lld,"
               "\"ooc_down\":%lld}\n",
               s.t_loop, s.t_setup, s.t_compile, s.bytes_sent, s.device_bytes, s.ooc, s.ooc_chunks,
               s.ooc_up, s.ooc_down);
    }
    stencil_program_free(p);
    free(text);
    MPI_Finalize();
    return rc ? 1 : 0;
}
