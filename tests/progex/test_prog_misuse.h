/*
 * Misuse of the program API through the collective calls (included by test_prog_errors.c):
 * each case breaks one thing about an otherwise valid call. Messages are compared exactly
 * where the text is fixed below, else only for being the same on every rank.
 */

static void b_size0(pcall *c)
{
    c->sizes[1] = 0;
}
static void b_size_negative(pcall *c)
{
    c->sizes[0] = -4;
}
static void b_sizes_null(pcall *c)
{
    c->sizes_p = NULL;
}
static void b_prog_null(pcall *c)
{
    c->prog = NULL;
}
static void b_init_null(pcall *c)
{
    c->init = NULL;
}
static void b_iters_negative(pcall *c)
{
    c->iters = -1;
}
static void b_type(pcall *c)
{
    c->type = (stencil_type)7;
}
/* A mirror face reflecting 2 cells on a grid of 1 along i, a periodic wrap of 3 on 2 along j. */
static void b_thin_mirror(pcall *c)
{
    c->sizes[0] = 1;
}
static void b_thin_periodic(pcall *c)
{
    c->sizes[1] = 2;
}
static void b_init_fails(pcall *c)
{
    c->fail_init = rank_of() == nranks() - 1; /* one rank's init fails */
}
static void b_output_fails(pcall *c)
{
    c->fail_output = rank_of() == 0;
}

/* The expected message: msg, its one %d (where it has one) the rank count or the last rank. */
enum { ARG_NONE, ARG_RANKS, ARG_LAST };

static const struct skel_case {
    const char *name;
    const char **text;
    void (*breakit)(pcall *c);
    int code;
    const char *msg;
    int arg;
} skel_cases[] = {
    {"a size 0", &pair_text, b_size0, STENCIL_EINVAL, "rank 0: size of dimension 1 is 0", 0},
    {"a negative size", &pair_text, b_size_negative, STENCIL_EINVAL,
     "rank 0: size of dimension 0 is -4", 0},
    {"sizes NULL", &pair_text, b_sizes_null, STENCIL_EINVAL, "rank 0: sizes is NULL", 0},
    {"program NULL", &pair_text, b_prog_null, STENCIL_EINVAL, "rank 0: the program is NULL", 0},
    {"init NULL", &pair_text, b_init_null, STENCIL_EINVAL, "rank 0: init is NULL", 0},
    {"iterations -1", &pair_text, b_iters_negative, STENCIL_EINVAL,
     "rank 0: negative iteration count -1", 0},
    {"element type 7", &pair_text, b_type, STENCIL_EINVAL, "rank 0: unknown element type 7", 0},
    {"mirror reach 2 on 1 cell", &reach2_text, b_thin_mirror, STENCIL_EPARTITION,
     "rank 0: dimension 0: part 0 has 1 cells, fewer than the stencil radius 2 (global size 1 "
     "over %d ranks); use fewer ranks on this dimension",
     ARG_RANKS},
    {"periodic reach 3 on 2 cells", &reach2_text, b_thin_periodic, STENCIL_EPARTITION,
     "rank 0: dimension 1: part 0 has 2 cells, fewer than the stencil radius 3 (global size 2 "
     "over 1 ranks); use fewer ranks on this dimension",
     0},
    {"init fails on one rank", &pair_text, b_init_fails, STENCIL_ECALLBACK,
     "rank %d: init callback failed (field u, level 0)", ARG_LAST},
    {"output fails on rank 0", &pair_text, b_output_fails, STENCIL_ECALLBACK,
     "rank 0: output callback failed", 0},
};

START_TEST(skeleton_misuse)
{
    const struct skel_case *k = &skel_cases[_i];
    pcall c;
    baseline(&c, *k->text);
    stencil_program *own = c.prog;
    k->breakit(&c);
    int rc = run_skeleton(&c);
    char want[512];
    snprintf(want, sizeof want, k->msg, k->arg == ARG_RANKS ? nranks() : nranks() - 1);
    ck_assert_msg(rc == k->code, "%s: code %d, want %d (%s)", k->name, rc, k->code, g_msg);
    expect(rc, k->code, want);
    stencil_program_free(own);
}
END_TEST

static stencil_run *create_ok(pcall *c)
{
    stencil_run *run = NULL;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, c->sizes, c->prog, c->type, c->init, &c->opt, &run),
        0);
    ck_assert_ptr_nonnull(run);
    return run;
}

START_TEST(run_param_unknown)
{
    pcall c;
    baseline(&c, pair_text);
    stencil_run *run = create_ok(&c);
    expect(stencil_run_set_param(run, "nope", 1.0), STENCIL_EINVAL, "unknown parameter 'nope'");
    expect(stencil_run_set_param(run, "a", INFINITY), STENCIL_EINVAL,
           "parameter 'a': value is not finite");
    /* NaN is refused too; its message (NaN differs from itself, so the ranks' agreement is
       checked first) is not pinned here. */
    expect(stencil_run_set_param(run, "a", NAN), STENCIL_EINVAL, NULL);
    expect(stencil_run_set_param(run, "a", 0.125), 0, NULL);
    expect(stencil_advance(run, 2), 0, NULL); /* the run still works */
    stencil_destroy(&run);
    stencil_program_free(c.prog);
}
END_TEST

START_TEST(run_param_differs)
{
    pcall c;
    baseline(&c, pair_text);
    stencil_run *run = create_ok(&c);
    int want = nranks() > 1 ? STENCIL_EINVAL : 0;
    expect(stencil_run_set_param(run, "a", 0.1 * (double)rank_of()), want,
           want ? "rank 0: ranks passed different values of parameter 'a'" : NULL);
    stencil_destroy(&run);
    stencil_program_free(c.prog);
}
END_TEST

START_TEST(run_param_stencil_run)
{
    static const double w[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    stencil_desc st = {.ndims = 2,
                       .radius_lo = {1, 1},
                       .radius_hi = {1, 1},
                       .weights = w,
                       .divisor = 4,
                       .type = STENCIL_FLOAT};
    pcall c;
    baseline(&c, pair_text);
    stencil_run *run = NULL;
    ck_assert_int_eq(stencil_create(MPI_COMM_WORLD, c.sizes, &st, NULL, init_ok, &c.opt, &run), 0);
    expect(stencil_run_set_param(run, "a", 1.0), STENCIL_EINVAL,
           "rank 0: not a program run: no parameters");
    ck_assert_int_eq(stencil_run_set_param(NULL, "a", 1.0), STENCIL_EINVAL);
    stencil_destroy(&run);
    stencil_program_free(c.prog);
}
END_TEST

START_TEST(norms_too_few)
{
    pcall c;
    baseline(&c, pair_text);
    stencil_run *run = create_ok(&c);
    stencil_norm ch[2];
    expect(stencil_advance_norms(run, 1, ch, 1), STENCIL_EINVAL,
           "rank 0: changes has 1 entries, the run needs 2"); /* 2 fields */
    expect(stencil_advance_norms(run, 1, NULL, 2), STENCIL_EINVAL,
           "rank 0: changes has 0 entries, the run needs 2");
    expect(stencil_advance_norms(run, 1, ch, 2), 0, NULL);
    ck_assert(ch[1].max == 0 && ch[1].l2 == 0); /* the coefficient's */
    stencil_destroy(&run);
    stencil_program_free(c.prog);
}
END_TEST

/* The ranks' programs disagree on a parameter's value at create. */
START_TEST(create_param_differs)
{
    pcall c;
    baseline(&c, pair_text);
    ck_assert_int_eq(stencil_program_set_param(c.prog, "a", 0.25 + 0.25 * rank_of()), 0);
    stencil_run *run = (stencil_run *)&g_msg;
    int rc = stencil_program_create(MPI_COMM_WORLD, c.sizes, c.prog, c.type, c.init, &c.opt, &run);
    expect(rc, nranks() > 1 ? STENCIL_EINVAL : 0,
           nranks() > 1 ? "rank 0: ranks passed different values of parameter 'a'" : NULL);
    if (rc) ck_assert_ptr_null(run);
    stencil_destroy(&run);
    stencil_program_free(c.prog);
}
END_TEST

/* The ranks pass different programs. */
START_TEST(create_program_differs)
{
    pcall c;
    baseline(&c, rank_of() == 0 ? pair_text : reach2_text);
    stencil_run *run = NULL;
    int rc = stencil_program_create(MPI_COMM_WORLD, c.sizes, c.prog, c.type, c.init, &c.opt, &run);
    expect(rc, nranks() > 1 ? STENCIL_EINVAL : 0,
           nranks() > 1 ? "rank 0: ranks passed different programs" : NULL);
    if (rc) ck_assert_ptr_null(run);
    stencil_destroy(&run);
    stencil_program_free(c.prog);
}
END_TEST

/* A linear stencil's options.face: a dimension periodic on one side, no such kind, a face of a
   dimension the stencil has not. */
static const struct face_case {
    int d, side, kind;
    const char *msg;
} face_cases[] = {
    {1, 0, STENCIL_BOUNDARY_PERIODIC,
     "rank 0: options.face: dimension 1 is periodic on one side only"},
    {0, 1, 9, "rank 0: options.face[0][1] is 9, no boundary kind"},
    {2, 0, STENCIL_BOUNDARY_MIRROR, "rank 0: options.face[2] set for a 2D stencil"},
};

START_TEST(stencil_faces)
{
    static const double w[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    stencil_desc st = {.ndims = 2,
                       .radius_lo = {1, 1},
                       .radius_hi = {1, 1},
                       .weights = w,
                       .divisor = 4,
                       .type = STENCIL_FLOAT};
    const struct face_case *k = &face_cases[_i];
    pcall c;
    baseline(&c, pair_text);
    c.opt.face[0][0] = c.opt.face[0][1] = STENCIL_BOUNDARY_MIRROR;
    c.opt.face[k->d][k->side] = (stencil_boundary)k->kind;
    int rc = stencil_skeleton(MPI_COMM_WORLD, c.sizes, &st, 2, NULL, init_ok, output_ok, &c.opt);
    expect(rc, STENCIL_EINVAL, k->msg);
    stencil_program_free(c.prog);
}
END_TEST

static TCase *misuse_tcase(void)
{
    TCase *tc = tcase_create("misuse");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, skeleton_misuse, 0, (int)(sizeof skel_cases / sizeof skel_cases[0]));
    tcase_add_test(tc, run_param_unknown);
    tcase_add_test(tc, run_param_differs);
    tcase_add_test(tc, run_param_stencil_run);
    tcase_add_test(tc, norms_too_few);
    tcase_add_test(tc, create_param_differs);
    tcase_add_test(tc, create_program_differs);
    tcase_add_loop_test(tc, stencil_faces, 0, (int)(sizeof face_cases / sizeof face_cases[0]));
    return tc;
}
