/*
 * The bad-input catalogue of programs (issue 43): malformed program texts, each refused by
 * stencil_program_parse with STENCIL_EFORMAT and its exact "line:col: message"
 * (bad_programs.h), and misuse of the program API (unknown parameters, non-finite values,
 * values that differ between ranks, a grid too thin for a boundary's reach, bad sizes, too few
 * norms, failing callbacks, a linear stencil's bad options.face), each with its exact code on
 * every rank and the same exact message on every rank. Run under mpiexec -n 2 (and 1).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bad_programs.h"
#include "cksuite.h"
#include "stencil.h"

static char g_msg[512];
static int g_code;

static void on_error(int code, const char *message, void *user)
{
    (void)user;
    g_code = code;
    snprintf(g_msg, sizeof g_msg, "%s", message ? message : "");
}

static int rank_of(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int nranks(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

/* Every rank holds the same string s. */
static int same_everywhere(const char *s)
{
    char mine[512] = {0}, first[512] = {0};
    snprintf(mine, sizeof mine, "%s", s);
    memcpy(first, mine, sizeof first);
    MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
    int ok = !strcmp(first, mine), all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

START_TEST(parse_errors)
{
    const struct bad_program *b = &bad_programs[_i];
    stencil_program *prog = (stencil_program *)&g_msg; /* must become NULL */
    char msg[256] = "untouched";
    int rc = stencil_program_parse(b->text, &prog, msg, sizeof msg);
    ck_assert_int_eq(rc, STENCIL_EFORMAT);
    ck_assert_ptr_null(prog);
    ck_assert_str_eq(msg, b->msg);
    ck_assert(same_everywhere(msg));
}
END_TEST

/* A valid program: a field with a previous level, a coefficient, a parameter, mirror walls. */
static const char *pair_text = "program pair\n"
                               "  dims 2\n"
                               "  field u prev\n"
                               "  coef k\n"
                               "  param a = 0.25\n"
                               "  update u = u + a * k * (u[-1,0] + u[1,0] - 2 * u) + 0 * u@prev\n"
                               "  boundary * all mirror\n"
                               "end\n";

/* Reads u two cells away across mirror (i) or periodic (j) faces. */
static const char *reach2_text = "program reach2\n"
                                 "  dims 2\n"
                                 "  field u\n"
                                 "  update u = u[-2,0] + u[2,0] + u[0,-3] + u[0,3]\n"
                                 "  boundary u i mirror\n"
                                 "  boundary u j periodic\n"
                                 "end\n";

typedef struct pcall {
    stencil_program *prog;
    long sizes[3];
    const long *sizes_p;
    stencil_type type;
    long iters;
    int fail_init, fail_output;
    stencil_init_fn init;
    stencil_options opt;
} pcall;

static int init_ok(stencil_tile *t, void *user)
{
    pcall *c = user;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++) {
            double v = 0.01 * (double)((t->offset[0] + i) * 7 + (t->offset[1] + j));
            long at = i * t->stride[0] + j * t->stride[1];
            if (t->type == STENCIL_DOUBLE)
                ((double *)t->data)[at] = v;
            else
                ((float *)t->data)[at] = (float)v;
        }
    return c->fail_init;
}

static int output_ok(const stencil_tile *t, void *user)
{
    (void)t;
    return ((pcall *)user)->fail_output;
}

static void baseline(pcall *c, const char *text)
{
    memset(c, 0, sizeof *c);
    char msg[256];
    ck_assert_int_eq(stencil_program_parse(text, &c->prog, msg, sizeof msg), 0);
    c->sizes[0] = 12;
    c->sizes[1] = 10;
    c->sizes_p = c->sizes;
    c->type = STENCIL_FLOAT;
    c->iters = 3;
    c->init = init_ok;
    stencil_options_init(&c->opt);
    c->opt.backend = "host";
    c->opt.user = c;
    c->opt.on_error = on_error;
    c->opt.quiet = 1;
    g_msg[0] = 0;
    g_code = 0;
}

static int run_skeleton(pcall *c)
{
    return stencil_program_skeleton(MPI_COMM_WORLD, c->sizes_p, c->prog, c->type, c->iters, c->init,
                                    output_ok, &c->opt);
}

/* The call's code on every rank is `want`, its message the same on every rank (and `msg` where
   given); on_error was called with the code. */
static void expect(int rc, int want, const char *msg)
{
    ck_assert_int_eq(rc, want);
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ck_assert_int_eq(lo, hi);
    ck_assert_msg(same_everywhere(g_msg), "messages differ between ranks: %s", g_msg);
    if (msg) ck_assert_str_eq(g_msg, msg);
}

START_TEST(param_unknown)
{
    pcall c;
    baseline(&c, pair_text);
    double v = -1;
    ck_assert_int_eq(stencil_program_set_param(c.prog, "nope", 1.0), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_program_get_param(c.prog, "nope", &v), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_program_set_param(c.prog, NULL, 1.0), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_program_get_param(c.prog, "a", &v), 0);
    ck_assert(v == 0.25);
    stencil_program_free(c.prog);
}
END_TEST

START_TEST(param_not_finite)
{
    pcall c;
    baseline(&c, pair_text);
    ck_assert_int_eq(stencil_program_set_param(c.prog, "a", NAN), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_program_set_param(c.prog, "a", INFINITY), STENCIL_EINVAL);
    double v = 0;
    ck_assert_int_eq(stencil_program_get_param(c.prog, "a", &v), 0);
    ck_assert(v == 0.25); /* unchanged */
    stencil_program_free(c.prog);
}
END_TEST

START_TEST(parse_null)
{
    stencil_program *prog = NULL;
    char msg[64];
    ck_assert_int_eq(stencil_program_parse(NULL, &prog, msg, sizeof msg), STENCIL_EINVAL);
    ck_assert_int_eq(stencil_program_parse(pair_text, NULL, msg, sizeof msg), STENCIL_EINVAL);
    ck_assert_ptr_null(stencil_program_field(NULL, 0));
    stencil_program_free(NULL);
}
END_TEST

#include "test_prog_misuse.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Suite *s = suite_create("prog-errors");
    TCase *tc = tcase_create("bad-programs");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, parse_errors, 0, (int)(sizeof bad_programs / sizeof bad_programs[0]));
    tcase_add_test(tc, param_unknown);
    tcase_add_test(tc, param_not_finite);
    tcase_add_test(tc, parse_null);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, misuse_tcase());
    int failed = tu_run_suite(s);
    MPI_Finalize();
    return failed ? 1 : 0;
}
