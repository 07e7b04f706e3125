/*
 * The bad-input catalogue. Each case breaks one thing about an otherwise valid call, on every
 * rank or on one rank only, and every rank must return the same expected error code with a
 * message, never hang or crash, and options.stats all zeros. Run under mpiexec -n 1 and -n 3
 * (and 2, 4).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stencil_set.h"
#include "testutil.h"

typedef struct call {
    long sizes[3];
    const long *sizes_p;
    stencil_desc st;
    const stencil_desc *st_p;
    double w[125];
    long iters;
    const char *kernel;
    stencil_init_fn init;
    stencil_output_fn output;
    stencil_options opt;
    double rank_w[8];
    int fail_init, fail_output;
    MPI_Comm comm;
} call;

typedef struct bad_case {
    const char *name;
    const char *why;
    int only_last_rank; /* 1: only the highest rank's input is bad */
    void (*breakit)(call *c);
    int (*expect)(int nranks); /* expected code for this many ranks */
} bad_case;

static int init_ok(stencil_tile *t, void *user)
{
    call *c = user;
    tu_fill_tile(t, 5);
    return c->fail_init;
}

static int output_ok(const stencil_tile *t, void *user)
{
    (void)t;
    return ((call *)user)->fail_output;
}

/* A valid baseline: 2D 4-point Jacobi on 40 x 30, 3 iterations, host backend. */
static void baseline(call *c)
{
    memset(c, 0, sizeof *c);
    stencil_set_get(2, STENCIL_FLOAT, &c->st);
    memcpy(c->w, c->st.weights, sizeof(double) * 9);
    c->st.weights = c->w;
    c->st_p = &c->st;
    c->sizes[0] = 40;
    c->sizes[1] = 30;
    c->sizes_p = c->sizes;
    c->iters = 3;
    c->init = init_ok;
    c->output = output_ok;
    stencil_options_init(&c->opt);
    c->opt.backend = "host";
    c->opt.user = c;
    c->comm = MPI_COMM_WORLD;
}

static int e_inval(int n)
{
    (void)n;
    return STENCIL_EINVAL;
}
static int e_callback(int n)
{
    (void)n;
    return STENCIL_ECALLBACK;
}
static int e_nobackend(int n)
{
    (void)n;
    return STENCIL_ENOBACKEND;
}
static int e_nokernel(int n)
{
    (void)n;
    return STENCIL_ENOKERNEL;
}
static int e_part_if_many(int n)
{
    return n > 1 ? STENCIL_EPARTITION : 0;
}
static int e_inval_if_many(int n)
{
    return n > 1 ? STENCIL_EINVAL : 0;
}

static void b_sizes_null(call *c)
{
    c->sizes_p = NULL;
}
static void b_st_null(call *c)
{
    c->st_p = NULL;
}
static void b_init_null(call *c)
{
    c->init = NULL;
}
static void b_ndims0(call *c)
{
    c->st.ndims = 0;
}
static void b_ndims4(call *c)
{
    c->st.ndims = 4;
}
static void b_size0(call *c)
{
    c->sizes[0] = 0;
}
static void b_size_neg(call *c)
{
    c->sizes[1] = -5;
}
static void b_div0(call *c)
{
    c->st.divisor = 0;
}
static void b_div_nan(call *c)
{
    c->st.divisor = NAN;
}
static void b_div_inf(call *c)
{
    c->st.divisor = INFINITY;
}
static void b_w_zero(call *c)
{
    memset(c->w, 0, sizeof c->w);
}
static void b_w_null(call *c)
{
    c->st.weights = NULL;
}
static void b_w_nan(call *c)
{
    c->w[1] = NAN;
}
static void b_w_inf(call *c)
{
    c->w[3] = -INFINITY;
}
static void b_iters_neg(call *c)
{
    c->iters = -1;
}
static void b_radius_neg(call *c)
{
    c->st.radius_lo[0] = -1;
}
static void b_radius_big(call *c)
{
    c->st.radius_hi[1] = STENCIL_MAX_RADIUS + 1;
}
static void b_type(call *c)
{
    c->st.type = (stencil_type)7;
}
static void b_partition(call *c)
{
    c->opt.partition = (stencil_partition)9;
}
static void b_boundary(call *c)
{
    c->opt.boundary = (stencil_boundary)4;
}
static void b_backend(call *c)
{
    c->opt.backend = "no-such-backend";
}
static void b_kernel(call *c)
{
    c->kernel = "no_such_kernel";
}
static void b_init_fails(call *c)
{
    c->fail_init = 1;
}
static void b_output_fails(call *c)
{
    c->fail_output = 1;
}
static void b_frame(call *c)
{
    c->sizes[1] = 2;
} /* frame 1+1 leaves nothing to update */
/* 1d-wide (radius 3) on 5 cells: one rank is fine, two parts would be thinner than 3. */
static void use_1d_wide(call *c)
{
    stencil_set_get(1, STENCIL_FLOAT, &c->st);
    c->sizes[0] = 5;
}
static void b_too_many_ranks(call *c)
{
    use_1d_wide(c);
}
static void b_grid_hint(call *c)
{
    c->opt.partition = STENCIL_PART_BLOCKS;
    c->opt.proc_grid[0] = 5;
    c->opt.proc_grid[1] = 7;
}
static void b_weight_neg(call *c)
{
    for (int i = 0; i < 8; i++) c->rank_w[i] = 1;
    c->rank_w[0] = -1;
    c->opt.rank_weights = c->rank_w;
}
static void b_weight_nan(call *c)
{
    for (int i = 0; i < 8; i++) c->rank_w[i] = 1;
    c->rank_w[0] = NAN;
    c->opt.rank_weights = c->rank_w;
}
static void b_periodic_small(call *c)
{
    use_1d_wide(c);
    c->opt.boundary = STENCIL_BOUNDARY_PERIODIC;
}
static void b_diff_sizes(call *c)
{
    c->sizes[0] = 41;
}
static void b_diff_iters(call *c)
{
    c->iters = 4;
}
static void b_diff_stencil(call *c)
{
    c->w[1] = 2;
}
static void b_diff_boundary(call *c)
{
    c->opt.boundary = STENCIL_BOUNDARY_PERIODIC;
}

static const bad_case cases[] = {
    {"sizes NULL", "no global sizes to partition", 0, b_sizes_null, e_inval},
    {"stencil NULL", "no stencil to apply", 0, b_st_null, e_inval},
    {"init NULL", "the array would be undefined", 0, b_init_null, e_inval},
    {"ndims 0", "dimensions must be 1..3", 0, b_ndims0, e_inval},
    {"ndims 4", "dimensions must be 1..3", 0, b_ndims4, e_inval},
    {"size 0", "an empty grid", 0, b_size0, e_inval},
    {"size negative", "a negative extent", 0, b_size_neg, e_inval},
    {"divisor 0", "division by zero", 0, b_div0, e_inval},
    {"divisor NaN", "every result would be NaN", 0, b_div_nan, e_inval},
    {"divisor inf", "every result would be 0 or NaN", 0, b_div_inf, e_inval},
    {"all-zero weights", "no neighbour at all", 0, b_w_zero, e_inval},
    {"weights NULL", "no pattern", 0, b_w_null, e_inval},
    {"weight NaN", "poisons every cell", 0, b_w_nan, e_inval},
    {"weight -inf", "poisons every cell", 0, b_w_inf, e_inval},
    {"iterations -1", "negative iteration count", 0, b_iters_neg, e_inval},
    {"radius -1", "a radius cannot be negative", 0, b_radius_neg, e_inval},
    {"radius too big", "beyond STENCIL_MAX_RADIUS", 0, b_radius_big, e_inval},
    {"element type", "neither float nor double", 0, b_type, e_inval},
    {"partition kind", "unknown partition", 0, b_partition, e_inval},
    {"boundary mode", "unknown boundary", 0, b_boundary, e_inval},
    {"backend name", "not built in", 0, b_backend, e_nobackend},
    {"kernel name", "never registered", 0, b_kernel, e_nokernel},
    {"init fails", "user callback reports failure", 0, b_init_fails, e_callback},
    {"output fails", "user callback reports failure", 0, b_output_fails, e_callback},
    {"grid all frame", "fixed frame leaves no cell to update", 0, b_frame, e_inval},
    {"too many ranks", "parts thinner than the radius", 0, b_too_many_ranks, e_part_if_many},
    {"process grid hint", "5 x 7 does not match the rank count", 0, b_grid_hint, e_inval},
    {"weight negative", "a share cannot be negative", 0, b_weight_neg, e_inval},
    {"weight NaN", "a share must be a number", 0, b_weight_nan, e_inval},
    {"periodic too many ranks", "periodic parts thinner than the radius", 0, b_periodic_small,
     e_part_if_many},
    {"one rank: stencil NULL", "only one rank is wrong", 1, b_st_null, e_inval},
    {"one rank: init fails", "only one rank's callback fails", 1, b_init_fails, e_callback},
    {"one rank: output fails", "only one rank's callback fails", 1, b_output_fails, e_callback},
    {"one rank: backend", "only one rank asks for a missing backend", 1, b_backend, e_nobackend},
    {"one rank: divisor 0", "only one rank's stencil is invalid", 1, b_div0, e_inval},
    {"one rank: sizes differ", "ranks disagree on the grid", 1, b_diff_sizes, e_inval_if_many},
    {"one rank: iterations differ", "ranks disagree on the iterations", 1, b_diff_iters,
     e_inval_if_many},
    {"one rank: stencil differs", "ranks disagree on the weights", 1, b_diff_stencil,
     e_inval_if_many},
    {"one rank: boundary differs", "ranks disagree on the boundary", 1, b_diff_boundary,
     e_inval_if_many},
};

static char last_msg[512];
static void on_error(int code, const char *msg, void *user)
{
    (void)code;
    (void)user;
    snprintf(last_msg, sizeof last_msg, "%s", msg);
}

START_TEST(catalogue)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bad_case *bc = &cases[_i];
    call c;
    baseline(&c);
    if (!bc->only_last_rank || rank == size - 1) bc->breakit(&c);
    c.opt.on_error = on_error;
    stencil_stats stats;
    memset(&stats, 0x5a, sizeof stats); /* the call must clear it: all zeros after an error */
    c.opt.stats = &stats;
    last_msg[0] = '\0';
    int rc =
        stencil_skeleton(c.comm, c.sizes_p, c.st_p, c.iters, c.kernel, c.init, c.output, &c.opt);
    int lo, hi, want = bc->expect(size);
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ck_assert_msg(lo == hi, "%s: ranks disagree (%d vs %d)", bc->name, lo, hi);
    ck_assert_msg(rc == want, "%s (%s): got %d (%s), want %d", bc->name, bc->why, rc,
                  stencil_strerror(rc), want);
    if (want) ck_assert_msg(last_msg[0] != '\0', "%s: no error message", bc->name);
    static const stencil_stats zero;
    if (rc) ck_assert_msg(!memcmp(&stats, &zero, sizeof stats), "%s: stats not zero", bc->name);
}
END_TEST

START_TEST(strerror_covers_codes)
{
    for (int c = 0; c >= STENCIL_ECODE_MIN; c--)
        ck_assert_msg(strcmp(stencil_strerror(c), "unknown error code") != 0, "code %d", c);
    ck_assert_str_eq(stencil_strerror(1), "unknown error code");
    ck_assert_str_eq(stencil_strerror(STENCIL_ECODE_MIN - 1), "unknown error code");
}
END_TEST

START_TEST(comm_null)
{
    long sizes[2] = {10, 10};
    stencil_desc st;
    stencil_set_get(2, STENCIL_FLOAT, &st);
    ck_assert_int_eq(stencil_skeleton(MPI_COMM_NULL, sizes, &st, 1, NULL, init_ok, NULL, NULL),
                     STENCIL_EINVAL);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Suite *s = suite_create("errors");
    TCase *tc = tcase_create("bad-input-catalogue");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, catalogue, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, strerror_covers_codes);
    tcase_add_test(tc, comm_null);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed ? 1 : 0;
}
