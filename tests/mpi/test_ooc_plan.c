/*
 * The out-of-core planner's property, under mpiexec -n 2 (and -n 4), host or OpenCL
 * (STENCIL_BACKEND): device memory limits (options.device_memory) swept from below the smallest
 * feasible one to beyond the in-core need, 2D and 3D, one skeleton call and a persistent run of
 * advances 4, 4, 5. At every limit the run either succeeds, bitwise equal to the independent
 * serial reference, or fails with STENCIL_EDEVMEM because not even one step per sweep fits (the
 * limit below the need the message states); a failure at a limit above a success is a planner bug.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "stencil_set.h"
#include "testutil.h"

static int rank;

typedef struct pctx {
    tu_check_ctx c;
    char msg[512];
    stencil_stats s; /* the run's T and chunks, for the failure messages */
} pctx;

static void on_error(int code, const char *msg, void *user)
{
    (void)code;
    snprintf(((pctx *)user)->msg, sizeof((pctx *)user)->msg, "%s", msg);
}

static const char *backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

/* One run at a limit: 0 or the code; *bad the wrong cells over all ranks. */
static int run_at(const stencil_desc *st, const long *sizes, long long limit, int persistent,
                  const double *ref, pctx *p, long *bad)
{
    stencil_options o;
    stencil_options_init(&o);
    o.backend = backend();
    o.out_of_core = 1;
    o.device_memory = limit;
    o.on_error = on_error;
    o.user = p;
    o.partition = st->ndims == 2 ? STENCIL_PART_BANDS : STENCIL_PART_BLOCKS;
    p->c.seed = 21;
    p->c.ref = ref;
    p->c.bad = -1;
    p->msg[0] = '\0';
    memset(&p->s, 0, sizeof p->s);
    o.stats = &p->s;
    int rc;
    if (!persistent) {
        rc = stencil_skeleton(MPI_COMM_WORLD, sizes, st, 13, NULL, tu_init_cb, tu_check_cb, &o);
    } else {
        stencil_run *run = NULL;
        rc = stencil_create(MPI_COMM_WORLD, sizes, st, NULL, tu_init_cb, &o, &run);
        if (!rc) rc = stencil_advance(run, 4);
        if (!rc) rc = stencil_advance(run, 4);
        if (!rc) rc = stencil_advance(run, 5);
        if (!rc) rc = stencil_view(run, tu_check_cb);
        if (!rc) rc = stencil_run_stats(run, &p->s);
        stencil_destroy(&run);
    }
    *bad = tu_allsum(MPI_COMM_WORLD, rc ? 0 : p->c.bad);
    return rc;
}

/* The least bytes the message says one step per sweep needs ("needs at least B x R rows of S
   bytes"), 0 when it says none. */
static long long stated_need(const char *msg)
{
    const char *s = strstr(msg, "needs at least ");
    long long b = 0, rows = 0, bytes = 0;
    if (s && sscanf(s, "needs at least %lld x %lld rows of %lld bytes", &b, &rows, &bytes) == 3)
        return b * rows * bytes;
    return 0;
}

static void sweep(const char *name, const long *sizes, long long from, long long to, double step)
{
    stencil_desc st;
    stencil_set_get(stencil_set_find(name), STENCIL_FLOAT, &st);
    double *ref = tu_random_grid(st.ndims, sizes, 21);
    tu_reference(&st, sizes, 0, 13, ref);
    for (int persistent = 0; persistent < 2; persistent++) {
        long long ok_at = 0;
        for (long long lim = from; lim <= to; lim = (long long)((double)lim * step) + 1) {
            pctx p;
            long bad = -1;
            int rc = run_at(&st, sizes, lim, persistent, ref, &p, &bad);
            int lo, hi;
            MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            ck_assert_msg(lo == hi, "%s limit %lld: codes differ between ranks", name, lim);
            if (rc == 0) {
                ck_assert_msg(bad == 0, "%s %s limit %lld: %ld cells differ (T %d, %d chunks, %s)",
                              name, persistent ? "persistent" : "skeleton", lim, bad, p.s.steps,
                              p.s.ooc_chunks, p.s.steps_why);
                if (!ok_at) ok_at = lim;
                continue;
            }
            long long need = stated_need(p.msg);
            ck_assert_msg(rc == STENCIL_EDEVMEM && !ok_at && need > lim,
                          "%s %s limit %lld: %d (%s)%s", name,
                          persistent ? "persistent" : "skeleton", lim, rc, p.msg,
                          ok_at ? ", though a smaller limit succeeded" : "");
        }
        ck_assert_msg(ok_at > 0, "%s: no limit succeeded", name);
    }
    free(ref);
}

START_TEST(plan_2d)
{
    const long sizes[2] = {300, 257};
    int fast = !strcmp(backend(), "host");
    sweep("2d9", sizes, 8 << 10, 600 << 10, fast ? 1.12 : 1.5);
}
END_TEST

START_TEST(plan_3d)
{
    const long sizes[3] = {40, 24, 20};
    int fast = !strcmp(backend(), "host");
    sweep("3d7", sizes, 8 << 10, 300 << 10, fast ? 1.15 : 1.6);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Suite *s = suite_create("ooc-plan");
    TCase *tc = tcase_create("plan");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, plan_2d);
    tcase_add_test(tc, plan_3d);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    MPI_Finalize();
    return failed ? 1 : 0;
}
