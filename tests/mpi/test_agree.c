/*
 * Options that must agree between ranks, configuration files and option ranges, and what a
 * user sees of an error, under mpiexec -n 2 and -n 4 (host backend) and -n 2 (OpenCL, PoCL in
 * CI; STENCIL_BACKEND picks):
 *   - options.rank_weights, monitor and checkpoint that differ between ranks (or are set on one
 *     rank only) fail with STENCIL_EINVAL on every rank, nothing hangs; program runs too, and
 *     their iteration counts;
 *   - configuration rules without backend= keep the default backend; lines of any length;
 *     a configuration that names a directory or a FIFO is STENCIL_EIO;
 *   - options.fuse = INT_MIN, negative monitor_every / checkpoint_every: STENCIL_EINVAL; equal
 *     rank weights of 1e308 partition like equal weights;
 *   - options win over the environment, which wins over the configuration file (backend and
 *     weight); the environment is read once, when a run is created: a variable changed in
 *     place afterwards (putenv's own buffer) does not reach the run;
 *   - without on_error rank 0 prints the agreed message once on stderr (options.quiet: not);
 *     messages carry one "rank N: " prefix; stencil_register_kernel_msg says why it refused.
 * Every assertion is on an allreduced value.
 */
#define _XOPEN_SOURCE 700 /* putenv */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cksuite.h"
#include "stencil_set.h"
#include "testutil.h"

static char dir[256];
static int rank, nranks;

static int agreed(int rc, int expect)
{
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == expect && hi == expect;
}

static const long sizes[2] = {48, 20};

typedef struct result {
    tu_check_ctx c;
    stencil_stats s;
    char msg[512];
    int calls;
} result;

static void on_error(int code, const char *msg, void *user)
{
    result *r = user;
    (void)code;
    snprintf(r->msg, sizeof r->msg, "%s", msg);
    r->calls++;
}

static int monitor(const stencil_tile *t, const stencil_norm *n, void *user)
{
    (void)t;
    (void)n;
    (void)user;
    return 0;
}

/* The backend under test: STENCIL_BACKEND's (host or opencl, tests/mpi/meson.build). */
static const char *backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

static void options(stencil_options *o, result *r)
{
    stencil_options_init(o);
    o->backend = backend();
    o->stats = &r->s;
    o->user = r; /* r->c is first: the test callbacks see a tu_check_ctx */
    o->on_error = on_error;
}

/* A skeleton run of 2d9 on 48 x 20 for 5 iterations; bad: wrong cells over all ranks. */
static int run(stencil_options *o, result *r, long *bad)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_FLOAT, &st);
    r->c.seed = 3;
    r->c.bad = -1;
    double *g = tu_random_grid(2, sizes, 3);
    tu_reference(&st, sizes, o->boundary == STENCIL_BOUNDARY_PERIODIC, 5, g);
    r->c.ref = g;
    int rc = stencil_skeleton(MPI_COMM_WORLD, sizes, &st, 5, NULL, tu_init_cb, tu_check_cb, o);
    if (bad) *bad = tu_allsum(MPI_COMM_WORLD, rc ? 0 : r->c.bad);
    free(g);
    return rc;
}

START_TEST(rank_weights_must_agree)
{
    result r = {0};
    stencil_options o;
    double *w = malloc(sizeof *w * (size_t)nranks);
    for (int i = 0; i < nranks; i++) w[i] = rank == 0 ? (i == 0 ? 1 : 3) : (i == 0 ? 3 : 1);
    options(&o, &r);
    o.rank_weights = w;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "different weights");
    ck_assert(strstr(r.msg, "rank_weights"));
    o.rank_weights = rank == 1 ? NULL : w;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "NULL on one rank");
    /* Equal huge weights: their sum overflowed. */
    for (int i = 0; i < nranks; i++) w[i] = 1e308;
    o.rank_weights = w;
    long bad = -1;
    ck_assert_msg(agreed(run(&o, &r, &bad), 0), "weights of 1e308: %s", r.msg);
    ck_assert(bad == 0);
    free(w);
}
END_TEST

START_TEST(periodic_work_must_agree)
{
    result r = {0};
    stencil_options o;
    char ck[300];
    snprintf(ck, sizeof ck, "%s/ck.sten", dir);
    options(&o, &r);
    o.monitor = rank == 0 ? monitor : NULL;
    o.monitor_every = 5;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "monitor on rank 0 only");
    ck_assert(strstr(r.msg, "monitor"));
    options(&o, &r);
    o.checkpoint = rank == 0 ? ck : NULL;
    o.checkpoint_every = 2;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "checkpoint on rank 0 only");
    options(&o, &r);
    o.checkpoint = ck;
    o.checkpoint_every = rank == 0 ? 2 : 3;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "different checkpoint_every");
    ck_assert(access(ck, F_OK) != 0 || rank != 0);
}
END_TEST

/* A program skeleton of 5 iterations (iters on rank 0) on 48 x 20 (rank 1: x 20 + wider), the
   given options. */
static int run_program_on(stencil_options *o, long iters, long wider)
{
    const long mine[2] = {sizes[0], sizes[1] + (rank == 1 ? wider : 0)};
    static const char *text = "program avg\n  dims 2\n  field u\n"
                              "  update u = (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]) / 4\nend\n";
    stencil_program *p = NULL;
    char msg[256];
    int rc = stencil_program_parse(text, &p, msg, sizeof msg);
    if (!rc)
        rc = stencil_program_skeleton(MPI_COMM_WORLD, mine, p, STENCIL_FLOAT, rank ? 5 : iters,
                                      tu_init_cb, NULL, o);
    stencil_program_free(p);
    return rc;
}

static int run_program(stencil_options *o, long iters)
{
    return run_program_on(o, iters, 0);
}

START_TEST(program_options_must_agree)
{
    result r = {0};
    stencil_options o;
    char ck[300];
    snprintf(ck, sizeof ck, "%s/ck.sten", dir);
    double *w = malloc(sizeof *w * (size_t)nranks);
    for (int i = 0; i < nranks; i++) w[i] = rank == 0 ? (i == 0 ? 1 : 3) : (i == 0 ? 3 : 1);
    r.c.seed = 3;
    options(&o, &r);
    ck_assert_msg(agreed(run_program(&o, 5), 0), "agreeing ranks: %s", r.msg);
    ck_assert_msg(agreed(run_program(&o, 6), STENCIL_EINVAL), "different iterations");
    ck_assert(strstr(r.msg, "iterations"));
    ck_assert_msg(agreed(run_program_on(&o, 5, 1), STENCIL_EINVAL), "different sizes");
    ck_assert(strstr(r.msg, "sizes"));
    o.rank_weights = w;
    ck_assert_msg(agreed(run_program(&o, 5), STENCIL_EINVAL), "different weights");
    ck_assert(strstr(r.msg, "rank_weights"));
    options(&o, &r);
    o.monitor = rank == 0 ? monitor : NULL;
    o.monitor_every = 2;
    ck_assert_msg(agreed(run_program(&o, 5), STENCIL_EINVAL), "monitor on rank 0 only");
    ck_assert(strstr(r.msg, "monitor"));
    options(&o, &r);
    o.checkpoint = rank == 0 ? ck : NULL;
    o.checkpoint_every = 2;
    ck_assert_msg(agreed(run_program(&o, 5), STENCIL_EINVAL), "checkpoint on rank 0 only");
    ck_assert(access(ck, F_OK) != 0 || rank != 0);
    free(w);
}
END_TEST

START_TEST(option_ranges)
{
    result r = {0};
    stencil_options o;
    options(&o, &r);
    o.fuse = INT_MIN;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "fuse INT_MIN");
    o.fuse = STENCIL_MAX_STEPS + 1;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "fuse too large");
    options(&o, &r);
    o.monitor = monitor;
    o.monitor_every = -1;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "monitor_every -1");
    options(&o, &r);
    o.checkpoint = "never.sten";
    o.checkpoint_every = -5;
    ck_assert_msg(agreed(run(&o, &r, NULL), STENCIL_EINVAL), "checkpoint_every -5");
}
END_TEST

/* Rank 0 writes a configuration file of the given text. */
static void config(const char *name, const char *text, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        ck_assert(f && fputs(text, f) >= 0 && fclose(f) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/*
 * A run with this configuration: rank 1's weight (stats) on every rank. The backend is what the
 * file and the environment leave: STENCIL_BACKEND's, checked on every rank.
 */
static double weight_of_rank1(const char *path, int *rc)
{
    result r = {0};
    stencil_options o;
    options(&o, &r);
    o.backend = NULL;
    o.config = path;
    long bad = -1;
    *rc = run(&o, &r, &bad);
    double w = rank == 1 ? r.s.weight : 0, all = 0;
    MPI_Allreduce(&w, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    long other = tu_allsum(MPI_COMM_WORLD, !*rc && strcmp(r.s.backend, backend()) != 0);
    if (!*rc && (bad || other)) *rc = 1;
    return all;
}

START_TEST(config_rules)
{
    char p[300];
    int rc;
    /* No backend= on the line: the default stays (the environment's). */
    config("nobackend.conf", "rank=1 weight=3\n", p, sizeof p);
    double w = weight_of_rank1(p, &rc);
    ck_assert_msg(agreed(rc, 0), "a rule without backend=");
    ck_assert(w == 3.0);
    /* A comment and a rule longer than any fixed buffer. */
    size_t n = 5000;
    char *text = malloc(3 * n);
    memset(text, 0, 3 * n);
    strcat(text, "# ");
    memset(text + 2, 'c', n);
    strcat(text, "\nrank=1");
    memset(text + strlen(text), ' ', n);
    strcat(text, "weight=2\n");
    config("long.conf", text, p, sizeof p);
    free(text);
    w = weight_of_rank1(p, &rc);
    ck_assert_msg(agreed(rc, 0), "long lines");
    ck_assert_msg(w == 2.0, "rank 1 weight %g", w);
    /* A directory is not an empty configuration; a FIFO is refused, not waited on. */
    weight_of_rank1(dir, &rc);
    ck_assert_msg(agreed(rc, STENCIL_EIO), "a directory");
    snprintf(p, sizeof p, "%s/conf.fifo", dir);
    if (rank == 0) ck_assert(mkfifo(p, 0600) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    weight_of_rank1(p, &rc);
    ck_assert_msg(agreed(rc, STENCIL_EIO), "a FIFO");
}
END_TEST

/* This rank's weight (stats) in a run of the configuration file at path; rc its code. */
static char weight_msg[512];
static double weight_of(const stencil_options *base, const char *path, int *rc)
{
    result r = {0};
    stencil_options o = *base;
    o.stats = &r.s;
    o.user = &r;
    o.config = path;
    long bad = -1;
    *rc = run(&o, &r, &bad);
    if (!*rc && bad) *rc = 1;
    snprintf(weight_msg, sizeof weight_msg, "%s", r.msg);
    return r.s.weight;
}

/* name=value for putenv, whose buffer stays the environment's (static) until replaced. */
static char trace_var[400];

START_TEST(precedence_and_env_once)
{
    char p[300];
    int rc;
    const char *b = getenv("STENCIL_BACKEND"), *wv = getenv("STENCIL_WEIGHT");
    char keep_b[64], keep_w[64];
    snprintf(keep_b, sizeof keep_b, "%s", b ? b : "");
    snprintf(keep_w, sizeof keep_w, "%s", wv ? wv : "");
    config("weight5.conf", "backend=nosuch weight=5\n", p, sizeof p);
    result r = {0};
    stencil_options o;
    options(&o, &r);
    /* The file alone names a backend that does not exist: ENOBACKEND shows it was read. */
    o.backend = NULL;
    unsetenv("STENCIL_BACKEND");
    weight_of(&o, p, &rc);
    ck_assert_msg(agreed(rc, STENCIL_ENOBACKEND), "the file's backend");
    /* The environment's backend and weight over the file's. */
    setenv("STENCIL_BACKEND", keep_b[0] ? keep_b : "host", 1);
    setenv("STENCIL_WEIGHT", "2", 1);
    double w = weight_of(&o, p, &rc);
    ck_assert_msg(agreed(rc, 0) && tu_allsum(MPI_COMM_WORLD, w != 2.0) == 0, "environment: %g", w);
    /* The options over the environment. */
    setenv("STENCIL_BACKEND", "nosuch", 1);
    o.backend = keep_b[0] ? keep_b : "host";
    double *ws = malloc(sizeof *ws * (size_t)nranks);
    for (int i = 0; i < nranks; i++) ws[i] = 7;
    o.rank_weights = ws;
    w = weight_of(&o, p, &rc);
    free(ws);
    if (keep_b[0])
        setenv("STENCIL_BACKEND", keep_b, 1);
    else
        unsetenv("STENCIL_BACKEND");
    if (keep_w[0])
        setenv("STENCIL_WEIGHT", keep_w, 1);
    else
        unsetenv("STENCIL_WEIGHT");
    ck_assert_msg(agreed(rc, 0) && tu_allsum(MPI_COMM_WORLD, w != 7.0) == 0, "options: %g %s", w,
                  weight_msg);
    /* Tracing off ("" set) at create; the same buffer then names a trace: nothing is written. */
    char late[340];
    snprintf(late, sizeof late, "%s/late", dir);
    snprintf(trace_var, sizeof trace_var, "STENCIL_TRACE=");
    putenv(trace_var);
    options(&o, &r);
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_FLOAT, &st);
    stencil_run *run = NULL;
    rc = stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, tu_init_cb, &o, &run);
    snprintf(trace_var, sizeof trace_var, "STENCIL_TRACE=%s", late);
    if (!rc) rc = stencil_advance(run, 3);
    stencil_destroy(&run);
    unsetenv("STENCIL_TRACE");
    char file[400];
    snprintf(file, sizeof file, "%s.%d.jsonl", late, rank);
    int traced = access(file, F_OK) == 0;
    if (traced) unlink(file);
    ck_assert_msg(agreed(rc, 0), "run: %s", r.msg);
    ck_assert_msg(tu_allsum(MPI_COMM_WORLD, traced) == 0, "a variable changed after create");
}
END_TEST

/* Rank 0's stderr during fn, into buf. */
static void capture(void (*fn)(int), int arg, char *buf, size_t len)
{
    char path[300];
    snprintf(path, sizeof path, "%s/stderr.%d", dir, rank);
    fflush(stderr);
    int keep = dup(2);
    FILE *f = freopen(path, "w", stderr);
    ck_assert(f != NULL);
    fn(arg);
    fflush(stderr);
    dup2(keep, 2);
    close(keep);
    FILE *in = fopen(path, "r");
    size_t got = in ? fread(buf, 1, len - 1, in) : 0;
    buf[got] = '\0';
    if (in) fclose(in);
    unlink(path);
}

static int quiet_rc;
static void failing_run(int quiet)
{
    result r = {0};
    stencil_options o;
    options(&o, &r);
    o.on_error = NULL;
    o.quiet = quiet;
    o.fuse = 99;
    quiet_rc = run(&o, &r, NULL);
}

START_TEST(default_error_print)
{
    char out[4096];
    capture(failing_run, 0, out, sizeof out);
    ck_assert(agreed(quiet_rc, STENCIL_EINVAL));
    int printed = strstr(out, "options.fuse is 99") != NULL;
    int lines = 0;
    for (char *c = out; *c; c++) lines += *c == '\n';
    long p = tu_allsum(MPI_COMM_WORLD, printed), l = tu_allsum(MPI_COMM_WORLD, lines);
    ck_assert_msg(p == 1 && l == 1, "printed on %ld ranks, %ld lines", p, l);
    capture(failing_run, 1, out, sizeof out);
    ck_assert(agreed(quiet_rc, STENCIL_EINVAL));
    ck_assert_msg(tu_allsum(MPI_COMM_WORLD, (long)strlen(out)) == 0, "quiet printed");
}
END_TEST

/* A persistent run's load of a missing file and an out-of-core limit too small: one prefix. */
START_TEST(one_rank_prefix)
{
    result r = {0};
    stencil_options o;
    stencil_desc st;
    stencil_set_get(stencil_set_find("2d9"), STENCIL_FLOAT, &st);
    options(&o, &r);
    o.stats = NULL;
    stencil_run *pr = NULL;
    r.c.seed = 1;
    ck_assert(agreed(stencil_create(MPI_COMM_WORLD, sizes, &st, NULL, tu_init_cb, &o, &pr), 0));
    ck_assert(agreed(stencil_load(pr, "/nonexistent/ck.sten"), STENCIL_EIO));
    ck_assert_msg(strstr(r.msg, "rank 0: rank") == NULL && strstr(r.msg, "rank ") == r.msg,
                  "message: %s", r.msg);
    ck_assert_msg(strstr(r.msg, "nonexistent"), "the reason is lost: %s", r.msg);
    stencil_destroy(&pr);
    options(&o, &r);
    o.out_of_core = 1;
    o.device_memory = 64;
    ck_assert(agreed(run(&o, &r, NULL), STENCIL_EDEVMEM));
    ck_assert_msg(strstr(r.msg, "rank 0: rank") == NULL && strstr(r.msg, "rank ") == r.msg,
                  "message: %s", r.msg);
}
END_TEST

static void host_k(const void *in, void *out, const long *lo, const long *hi, const long *stride)
{
    (void)in, (void)out, (void)lo, (void)hi, (void)stride;
}

START_TEST(register_kernel_reason)
{
    static const double w[3] = {1, 1, 1};
    static stencil_kernel bad = {
        .name = "agree-bad",
        .stencil = {.ndims = 1, .radius_lo = {1}, .radius_hi = {1}, .weights = w, .divisor = 0.0}};
    static stencil_kernel good = {
        .name = "agree-good",
        .stencil = {.ndims = 1, .radius_lo = {1}, .radius_hi = {1}, .weights = w, .divisor = 3.0},
        .host = {host_k, NULL}};
    static stencil_kernel twin;
    char msg[256] = "";
    ck_assert(stencil_register_kernel_msg(&bad, msg, sizeof msg) == STENCIL_EINVAL);
    ck_assert_msg(strstr(msg, "agree-bad") && strstr(msg, "divisor"), "reason: %s", msg);
    ck_assert(stencil_register_kernel_msg(&good, msg, sizeof msg) == 0);
    twin = good;
    ck_assert(stencil_register_kernel_msg(&twin, msg, sizeof msg) == STENCIL_EINVAL);
    ck_assert_msg(strstr(msg, "already registered"), "reason: %s", msg);
    ck_assert(stencil_register_kernel_msg(NULL, msg, sizeof msg) == STENCIL_EINVAL && msg[0]);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    tu_scratch_make(MPI_COMM_WORLD, "stencil-agree", dir, sizeof dir);
    if (nranks < 2 || !dir[0]) {
        fprintf(stderr, "test_agree: needs mpiexec -n 2 or more and a temporary directory\n");
        MPI_Finalize();
        return 1;
    }
    Suite *s = suite_create("agree");
    TCase *tc = tcase_create("agree");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, rank_weights_must_agree);
    tcase_add_test(tc, periodic_work_must_agree);
    tcase_add_test(tc, program_options_must_agree);
    tcase_add_test(tc, option_ranges);
    tcase_add_test(tc, config_rules);
    tcase_add_test(tc, precedence_and_env_once);
    tcase_add_test(tc, default_error_print);
    tcase_add_test(tc, one_rank_prefix);
    tcase_add_test(tc, register_kernel_reason);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    static const char *const names[] = {"ck.sten",   "ck.sten.tmp",  "nobackend.conf",
                                        "long.conf", "weight5.conf", "conf.fifo"};
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, sizeof names / sizeof *names);
    MPI_Finalize();
    return failed ? 1 : 0;
}
