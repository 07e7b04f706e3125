/*
 * The run-time kernel sources compile with the GPU backends' own run-time compilers and
 * options, for every docs/STENCILS.md stencil and both element types, without a GPU: NVRTC for
 * sm_90 (and hiprtc for gfx90a when the HIP backend is built and hiprtc works here). A source that
 * does not compile ($STENCIL_RTC=fail) is refused with the compiler's message, the failure
 * the backends answer by keeping the generic kernel (shown on the GPU host).
 *
 * Each distinct source is compiled once per compiler and target (the pipelined and the plain
 * step kernel of most stencils are the same text). Under $TEST_SHARD=k/n a run compiles every
 * n-th distinct source from the k-th on (meson runs the n shards side by side); every run
 * generates and checks every source.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "gen.h"
#include "stencil_set.h"

typedef int (*compile_fn)(const char *, const char *, char *, size_t);

/* Compiles src for arch unless this run compiled the same text for arch already or another
   shard has it: 0 then. */
static int compile_once(compile_fn compile, const char *src, const char *arch, char *err,
                        size_t errlen)
{
    static char *done[256];
    static int ndone, distinct;
    for (int k = 0; k < ndone; k++) {
        size_t a = strlen(arch);
        if (!strncmp(done[k], arch, a) && done[k][a] == '\n' && !strcmp(done[k] + a + 1, src))
            return 0;
    }
    ck_assert_int_lt(ndone, 256);
    done[ndone] = malloc(strlen(arch) + strlen(src) + 2);
    ck_assert_ptr_nonnull(done[ndone]);
    sprintf(done[ndone++], "%s\n%s", arch, src);
    return tu_shard_mine(distinct++) ? compile(src, arch, err, errlen) : 0;
}

/* Stencil i of the set, of element type t (1: double), as the backends see it. */
static void set_stencil(int i, int t, sl_stencil *st)
{
    stencil_desc d;
    char msg[256];
    stencil_set_get(i, t ? STENCIL_DOUBLE : STENCIL_FLOAT, &d);
    ck_assert_int_eq(sl_stencil_make(st, &d, msg, sizeof msg), 0);
}

static void compile_all(compile_fn compile, const char *arch, int pipe)
{
    for (int i = 0; i < stencil_set_count(); i++)
        for (int t = 0; t < 2; t++) {
            sl_stencil st;
            char err[200];
            kgt_step_info info;
            set_stencil(i, t, &st);
            char *src = sb_gen_gpu(&st, pipe, &info);
            ck_assert_ptr_nonnull(src);
            ck_assert_ptr_nonnull(strstr(src, info.name));
            int rc = compile_once(compile, src, arch, err, sizeof err);
            ck_assert_msg(rc == 0, "%s %s for %s: %s", stencil_set_name(i), t ? "double" : "float",
                          arch, err);
            free(src);
            sl_stencil_free(&st);
        }
}

/* The streaming kernels of 2..KGT_STREAM_MAX steps per launch: every 2D stencil of the set
   (all reach at most 4 cells; star ones through the row ring, boxes through the edge ring), the
   1D ones in their 2D form and the 3D stencils reaching one (3d7 a star, 3d27, 3d-oct, 3d19 by
   partial sums) have them, the 3D star reaching two (3d13) at 2 steps; of one step (the one-step
   kernel of 3D stencils), the 3D stencils reaching one cell. 14 stencils of several steps and
   3d13's two, 4 of one, each in both types. */
static void compile_streams(compile_fn compile, const char *arch)
{
    int found = 0;
    for (int i = 0; i < stencil_set_count(); i++)
        for (int t = 0; t < 2; t++)
            for (int levels = 1; levels <= KGT_STREAM_MAX; levels++) {
                sl_stencil st;
                char err[200];
                kgt_stream_info info;
                set_stencil(i, t, &st);
                char *src = sb_gen_gpu_stream(&st, levels, &info);
                const char *name = stencil_set_name(i);
                /* 1D stencils stream in their 2D form; 2d25 and 2d17 have kernels but depth 1;
                   3d13's ring of L >= 3 levels exceeds static shared memory, its depth is 1 */
                const int box = !strcmp(name, "3d7") || !strcmp(name, "3d27") ||
                                !strcmp(name, "3d-oct") || !strcmp(name, "3d19"),
                          r2 = !strcmp(name, "3d13");
                int want = levels > 1 ? st.ndims <= 2 || box || (r2 && levels == 2) : box;
                ck_assert_msg((src != NULL) == want, "%s: %d-step stream kernel %s", name, levels,
                              src ? "made" : "missing");
                /* the dense boxes 3d27 and 3d19 run one step per launch (their depth is 1) */
                ck_assert_int_eq(sb_gen_stream_depth(&st) >= 2,
                                 (st.ndims <= 2 && strcmp(name, "2d25") && strcmp(name, "2d17")) ||
                                     !strcmp(name, "3d7") || !strcmp(name, "3d-oct"));
                if (src) {
                    found++;
                    ck_assert_int_eq(info.levels, levels);
                    ck_assert_ptr_nonnull(strstr(src, info.name[0]));
                    ck_assert(info.v > 1 ? strstr(src, info.name[1]) != NULL : !info.name[1][0]);
                    int rc = compile_once(compile, src, arch, err, sizeof err);
                    ck_assert_msg(rc == 0, "%s %s %d-step stream for %s: %s", name,
                                  t ? "double" : "float", levels, arch, err);
                }
                free(src);
                sl_stencil_free(&st);
            }
    ck_assert_int_eq(found, 2 * (14 * (KGT_STREAM_MAX - 1) + 4 + 1));
}

#if STENCIL_HAVE_CUDA_RTC
static void refuse_broken(compile_fn compile, const char *arch)
{
    stencil_desc d;
    sl_stencil st;
    char msg[256], err[200];
    kgt_step_info info;
    stencil_set_get(stencil_set_find("2d4"), STENCIL_FLOAT, &d);
    ck_assert_int_eq(sl_stencil_make(&st, &d, msg, sizeof msg), 0);
    setenv("STENCIL_RTC", "fail", 1);
    char *src = sb_gen_gpu(&st, 3, &info);
    unsetenv("STENCIL_RTC");
    ck_assert_ptr_nonnull(src);
    ck_assert_int_eq(compile(src, arch, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "STENCIL_RTC=fail") != NULL, "message: %s", err);
    free(src);
    sl_stencil_free(&st);
}

START_TEST(nvrtc_all)
{
    compile_all(sb_cuda_rtc_compile, "-arch=sm_90", 3);
    compile_all(sb_cuda_rtc_compile, "-arch=sm_90", 0);
    compile_streams(sb_cuda_rtc_compile, "-arch=sm_90");
}
END_TEST

START_TEST(nvrtc_refuses)
{
    refuse_broken(sb_cuda_rtc_compile, "-arch=sm_90");
}
END_TEST
#endif

#if STENCIL_HAVE_HIP_RTC
START_TEST(hiprtc_all)
{
    compile_all(sb_hip_rtc_compile, "--offload-arch=gfx90a", 0);
    compile_streams(sb_hip_rtc_compile, "--offload-arch=gfx90a");
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("rtc_compile");
    TCase *tc = tcase_create("compile");
    tcase_set_timeout(tc, 600);
#if STENCIL_HAVE_CUDA_RTC
    tcase_add_test(tc, nvrtc_all);
    tcase_add_test(tc, nvrtc_refuses);
#endif
#if STENCIL_HAVE_HIP_RTC
    tcase_add_test(tc, hiprtc_all);
#endif
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
