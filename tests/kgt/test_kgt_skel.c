/*
 * Full stencil_skeleton() runs of every stencil of the set with kgt's kernels, float and double,
 * fixed and periodic, on random data: on the host backend each run twice, kernel NULL (generic)
 * and the kgt name, whose tiles must be BITWISE equal, and equal to the serial reference of
 * tests/common. With KGT_TEST_OPENCL the kgt kernel also runs on the OpenCL backend (float,
 * fixed: each OpenCL run costs PoCL about a second; test_kgt_opencl covers double) and must
 * equal the host tiles bitwise. With KGT_TEST_DEVICE ("cuda", "hip": GPU host only) every case
 * also runs generic and named on that backend, and both must equal the host tiles bitwise.
 * Run under mpiexec -n 1 and -n 2; pass/fail is agreed over the ranks before asserting.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kgt_set.h"
#include "stencil_set.h"
#include "testutil.h"

#ifndef KGT_TEST_OPENCL
#define KGT_TEST_OPENCL 0
#endif
#ifndef KGT_TEST_DEVICE
#define KGT_TEST_DEVICE NULL
#endif

/* What a run leaves: a copy of this rank's owned tile, packed. */
typedef struct result {
    unsigned long seed;
    char *data;
    size_t bytes;
    const double *ref; /* when set, the tile is compared with this global reference */
    long bad;
} result;

static int init_cb(stencil_tile *t, void *user)
{
    tu_fill_tile(t, ((result *)user)->seed);
    return 0;
}

static int output_cb(const stencil_tile *t, void *user)
{
    result *r = user;
    size_t es = t->type == STENCIL_DOUBLE ? sizeof(double) : sizeof(float), at = 0;
    double maxdiff;
    r->bytes = es * (size_t)(t->size[0] * t->size[1] * t->size[2]);
    if (!(r->data = malloc(r->bytes ? r->bytes : 1))) return 1;
    for (long i = 0; i < t->size[0]; i++)
        for (long j = 0; j < t->size[1]; j++)
            for (long k = 0; k < t->size[2]; k++, at += es)
                memcpy(r->data + at,
                       (const char *)t->data +
                           es * (size_t)(i * t->stride[0] + j * t->stride[1] + k * t->stride[2]),
                       es);
    r->bad = r->ref ? tu_compare_tile(t, r->ref, &maxdiff) : 0;
    return 0;
}

/* The second set gives rows of a multiple of 16 bytes (fixed boundary), where the GPU launchers
   take their vector kernels; the first gives odd rows (scalar kernels). */
static const long size_sets[2][3][3] = {{{53, 1, 1}, {21, 17, 1}, {10, 9, 8}},
                                        {{53, 1, 1}, {21, 40, 1}, {10, 9, 24}}};
static const long (*sizes_by_dim)[3] = size_sets[0];

static int run_fuse = 0; /* options.fuse of the runs */
static stencil_stats last;

static int run(const stencil_desc *st, const char *backend, const char *kernel,
               stencil_boundary bnd, result *r)
{
    stencil_options opt;
    stencil_options_init(&opt);
    opt.fuse = run_fuse;
    opt.stats = &last;
    opt.backend = backend;
    opt.boundary = bnd;
    opt.user = r;
    r->data = NULL;
    r->bad = 0;
    return stencil_skeleton(MPI_COMM_WORLD, sizes_by_dim[st->ndims - 1], st, 3, kernel, init_cb,
                            output_cb, &opt);
}

static int same(const result *a, const result *b)
{
    return a->data && b->data && a->bytes == b->bytes && memcmp(a->data, b->data, a->bytes) == 0;
}

/* Generic vs named on one backend; *named keeps the named result. Returns local failures. */
static long compare_on(const stencil_desc *st, const char *backend, const char *name,
                       stencil_boundary bnd, const double *ref, result *named)
{
    result generic = {.seed = named->seed};
    long fails = 0;
    named->ref = ref;
    fails += run(st, backend, NULL, bnd, &generic) != 0;
    fails += run(st, backend, name, bnd, named) != 0;
    fails += !same(&generic, named);
    fails += named->bad != 0;
    free(generic.data);
    return fails;
}

static long check_case(int si, stencil_type type, stencil_boundary bnd)
{
    stencil_desc st;
    const char *name = stencil_set_name(si);
    result host = {.seed = 500u + (unsigned long)si}, ocl = {.seed = host.seed};
    result dev = {.seed = host.seed};
    const char *device = KGT_TEST_DEVICE;
    double *ref;
    long fails;
    stencil_set_get(si, type, &st);
    ref = tu_random_grid(st.ndims, sizes_by_dim[st.ndims - 1], host.seed);
    tu_reference(&st, sizes_by_dim[st.ndims - 1], bnd == STENCIL_BOUNDARY_PERIODIC, 3, ref);
    fails = compare_on(&st, "host", name, bnd, ref, &host);
    /* Two steps per exchange through the host's reference, with the named host kernel. */
    result fused = {.seed = host.seed};
    run_fuse = 2;
    fails += run(&st, "host", name, bnd, &fused) != 0 || last.steps != 2;
    run_fuse = 0;
    fails += !same(&host, &fused);
    free(fused.data);
    if (KGT_TEST_OPENCL && type == STENCIL_FLOAT && bnd == STENCIL_BOUNDARY_FIXED) {
        ocl.ref = NULL;
        fails += run(&st, "opencl", name, bnd, &ocl) != 0;
        fails += !same(&host, &ocl);
    }
    if (device) {
        const stencil_kernel *k = stencil_find_kernel(name);
        const int cuda = !strcmp(device, "cuda");
        const stencil_device_steps *tab = cuda ? k->cuda_steps[type] : k->hip_steps[type];
        int multi = (cuda ? k->cuda_fused[type] : k->hip_fused[type]) || (tab && tab->depth >= 2);
        fails += compare_on(&st, device, name, bnd, NULL, &dev);
        /* By default a kernel with a fused launcher or multi-step kernels runs several steps per
           exchange (up to the iterations). */
        fails += multi && last.steps < 2;
        fails += !same(&host, &dev);
    }
    free(ref);
    free(host.data);
    free(ocl.data);
    free(dev.data);
    return fails;
}

START_TEST(test_named_equals_generic)
{
    int si = _i / 4;
    stencil_type type = _i % 2 ? STENCIL_DOUBLE : STENCIL_FLOAT;
    stencil_boundary bnd = _i / 2 % 2 ? STENCIL_BOUNDARY_PERIODIC : STENCIL_BOUNDARY_FIXED;
    long fails = 0;
    for (int set = 0; set < (KGT_TEST_DEVICE ? 2 : 1); set++) {
        sizes_by_dim = size_sets[set];
        fails += tu_allsum(MPI_COMM_WORLD, check_case(si, type, bnd));
    }
    ck_assert_msg(fails == 0, "%s %s %s: %ld failed comparisons", stencil_set_name(si),
                  type == STENCIL_DOUBLE ? "double" : "float",
                  bnd == STENCIL_BOUNDARY_PERIODIC ? "periodic" : "fixed", fails);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("kgt-skeleton");
    TCase *tc = tcase_create("skeleton");
    SRunner *sr;
    int failed;
    MPI_Init(&argc, &argv);
    if (kgt_set_register() != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_named_equals_generic, 0, 4 * stencil_set_count());
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK); /* MPI and forks do not mix */
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed ? 1 : 0;
}
