/* Run-time kernel sources from kgt's emitters (gen.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int sb_rtc_mode(void)
{
    const char *e = getenv("STENCIL_RTC");
    if (!e) return SB_RTC_ON;
    if (!strcmp(e, "0") || !strcmp(e, "off")) return SB_RTC_OFF;
    if (!strcmp(e, "fail")) return SB_RTC_FAIL;
    return SB_RTC_ON;
}

static int to_kgt(const sl_stencil *st, kgt_stencil *ks)
{
    return kgt_stencil_init(ks, "rt", st->ndims, st->rlo, st->rhi, st->npts,
                            (const int(*)[KGT_MAX_DIMS])st->off, st->w, st->divisor);
}

/* st in the form the streaming kernels take it (kgt_stream_form: a 1D stencil along rows). */
static int to_kgt_stream(const sl_stencil *st, kgt_stencil *ks)
{
    kgt_stencil plain;
    if (to_kgt(st, &plain)) return -1;
    int rc = kgt_stream_form(&plain, "rt", ks);
    kgt_stencil_clear(&plain);
    return rc;
}

/*
 * The tuning variables of the run-time kernels, for experiments (kgt takes them through its plans
 * and reads no environment): $KGT_VEC_PREFETCH=0|1 the 2D vector rows' prefetch off or on,
 * $STENCIL_RTC_STREAM3="ny,by" the 3D streaming kernels' rows per thread and thread rows,
 * $STENCIL_RTC_STREAM_H the rows (planes) a block of the streaming kernels walks.
 */
static void env_tuning(int *prefetch, kgt_stream_tune *tune)
{
    const char *pf = getenv("KGT_VEC_PREFETCH"), *s3 = getenv("STENCIL_RTC_STREAM3");
    const char *h = getenv("STENCIL_RTC_STREAM_H");
    long rows = h ? atol(h) : 0;
    int ny, by;
    *prefetch = pf && (*pf == '0' || *pf == '1') ? (*pf == '1' ? KGT_TUNE_ON : KGT_TUNE_OFF)
                                                 : KGT_TUNE_DEFAULT;
    memset(tune, 0, sizeof *tune);
    tune->h = rows >= 1 && rows <= 65535 ? (int)rows : 0;
    if (s3 && sscanf(s3, "%d,%d", &ny, &by) == 2) tune->ny = ny, tune->by = by;
}

/* src, made not to compile under $STENCIL_RTC=fail (the tests of the fallback). */
static char *broken_if_asked(char *src)
{
    if (!src || sb_rtc_mode() != SB_RTC_FAIL) return src;
    char *bad = realloc(src, strlen(src) + 40);
    if (!bad) free(src);
    if (bad) strcat(bad, "\n#error STENCIL_RTC=fail\n");
    return bad;
}

char *sb_gen_gpu(const sl_stencil *st, int pipe, kgt_step_info *info)
{
    kgt_stencil ks;
    kgt_step_shape sh;
    kgt_stream_tune tune;
    int dbl = st->type == STENCIL_DOUBLE, prefetch;
    const char *e = getenv("STENCIL_RTC_SHAPE");
    if (to_kgt(st, &ks)) return NULL;
    env_tuning(&prefetch, &tune);
    kgt_step_default(&ks, dbl, pipe, &sh);
    sh.prefetch = prefetch;
    if (e && *e) {
        sh.vec = sh.walk = sh.minb = 0; /* what the text does not give */
        sscanf(e, "%d,%d,%d,%d,%d,%d,%d,%d", &sh.bx, &sh.by, &sh.nc, &sh.zc, &sh.pipe, &sh.vec,
               &sh.walk, &sh.minb);
    }
    char *src = kgt_rt_gpu(&ks, dbl, &sh, info);
    if (!src && sh.vec) { /* a stencil or device the vector shape does not take */
        sh.vec = 0;
        src = kgt_rt_gpu(&ks, dbl, &sh, info);
    }
    if (!src && e && *e) { /* a forced shape this stencil does not take: its own */
        kgt_step_default(&ks, dbl, pipe, &sh);
        sh.prefetch = prefetch;
        src = kgt_rt_gpu(&ks, dbl, &sh, info);
    }
    kgt_stencil_clear(&ks);
    return broken_if_asked(src);
}

/*
 * $STENCIL_RTC_DEPTH=n >= 1, for measurements of the depth model (bench/run.sh table): the
 * streaming kernels of up to n levels wherever kgt has them (kgt_stream_levels), in place of the
 * depths kgt finds worth running; automatic T follows it too.
 */
int sb_gen_stream_depth(const sl_stencil *st)
{
    kgt_stencil ks;
    if (to_kgt_stream(st, &ks)) return 0;
    int dbl = st->type == STENCIL_DOUBLE;
    int depth = st->ndims == 3 ? kgt_stream3_depth(&ks, dbl) : kgt_stream_depth(&ks, dbl);
    const char *e = getenv("STENCIL_RTC_DEPTH");
    int most = kgt_stream_levels(&ks), want = e ? atoi(e) : 0;
    if (want >= 1 && most >= 1) depth = want < most ? want : most;
    kgt_stencil_clear(&ks);
    return depth;
}

unsigned long long sb_gen_stream_stamp(const sl_stencil *st, int levels, kgt_stream_info *info)
{
    kgt_stencil ks;
    if (to_kgt_stream(st, &ks)) return 0;
    unsigned long long h = kgt_stream_stamp(&ks, st->type == STENCIL_DOUBLE, levels, info);
    kgt_stencil_clear(&ks);
    return h;
}

char *sb_gen_gpu_stream(const sl_stencil *st, int levels, kgt_stream_info *info)
{
    kgt_stencil ks;
    kgt_stream_tune tune;
    int prefetch;
    if (to_kgt_stream(st, &ks)) return NULL;
    env_tuning(&prefetch, &tune);
    char *src = kgt_rt_gpu_stream(&ks, st->type == STENCIL_DOUBLE, levels, &tune, info);
    kgt_stencil_clear(&ks);
    return broken_if_asked(src);
}

char *sb_gen_opencl(const sl_stencil *st, size_t nelems)
{
    kgt_stencil ks;
    if (to_kgt(st, &ks)) return NULL;
    char *src = kgt_rt_opencl(&ks, nelems >= (size_t)INT_MAX);
    kgt_stencil_clear(&ks);
    return src;
}
