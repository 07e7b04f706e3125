/*
 * Test tool: every source the backends ask kgt for at run time (backends/gen.h), written to a
 * folder, one file per source and one per plan, so that a change of kgt can be checked byte for
 * byte against the sources before it (`diff -r`).
 *
 *   rtc_dump DIR
 *
 * For every stencil of the set (tests/common/stencil_set.c), both element types: the step kernel
 * with and without asynchronous copies, the streaming kernels of 1..KGT_STREAM_MAX steps with the
 * layouts of a few boxes, the depths, and the OpenCL prologue with int and long indices. DIR/
 * default holds what the defaults give; DIR/<VAR>=<value> what the tuning variables the backends
 * read give (the step kernel's shapes of tests/rtc/step_gen.c through STENCIL_RTC_SHAPE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen.h"
#include "stencil_set.h"

static char dir[512];

static void make_dir(const char *d)
{
    if (mkdir(d, 0777) && errno != EEXIST) {
        perror(d);
        exit(1);
    }
}

static FILE *open_out(const char *name)
{
    char path[1024];
    FILE *f = NULL;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        !(f = fopen(path, "w"))) {
        perror(path);
        exit(1);
    }
    return f;
}

static void put(const char *name, const char *text)
{
    if (!text) return;
    FILE *f = open_out(name);
    fputs(text, f);
    fclose(f);
}

static void dump_step(const sl_stencil *st, const char *tag, int pipe)
{
    kgt_step_info in;
    char name[160];
    memset(&in, 0, sizeof in);
    char *src = sb_gen_gpu(st, pipe, &in);
    snprintf(name, sizeof name, "%s-step-pipe%d.cu", tag, pipe);
    put(name, src);
    snprintf(name, sizeof name, "%s-step-pipe%d.plan", tag, pipe);
    FILE *f = open_out(name);
    if (!src)
        fprintf(f, "none\n");
    else
        fprintf(f,
                "bx %d by %d nc %d zc %d pipe %d vec %d walk %d minb %d\ntx %d ty %d\n"
                "elo %d %d %d ehi %d %d %d\nsmem %zu split %d rd %a\nname %s\n",
                in.sh.bx, in.sh.by, in.sh.nc, in.sh.zc, in.sh.pipe, in.sh.vec, in.sh.walk,
                in.sh.minb, in.tx, in.ty, in.elo[0], in.elo[1], in.elo[2], in.ehi[0], in.ehi[1],
                in.ehi[2], in.smem, in.split, (double)in.rd, in.name);
    fclose(f);
    free(src);
}

/* A few boxes of an array of 1000 (x 1000) x 1024 cells, laid out by the streaming plans. */
static void dump_layouts(FILE *f, const kgt_stream_info *t)
{
    static const long boxes[][6] = {{0, 0, 0, 1000, 1000, 1024},
                                    {3, 5, 7, 13, 17, 29},
                                    {100, 1, 64, 900, 999, 960},
                                    {0, 0, 0, 2, 3, 5}};
    for (int b = 0; b < 4; b++)
        for (long slots = 0; slots <= 1056; slots += 1056) {
            kgt_stream_info u = *t;
            long long args[KGT_STREAM3_NARGS];
            long grid[3] = {0, 0, 0}, llo[3], lhi[3];
            int n = t->ndims == 3 ? KGT_STREAM3_NARGS : KGT_STREAM_NARGS, rc;
            u.slots = slots;
            for (int d = 0; d < 3; d++) llo[d] = boxes[b][d] + 1, lhi[d] = boxes[b][3 + d] - 1;
            if (t->ndims == 3)
                rc = kgt_stream3_plan(&u, boxes[b], boxes[b] + 3, llo, lhi, 1024L * 1000, 1024,
                                      args, grid);
            else {
                long lo[2] = {boxes[b][0], boxes[b][2]}, hi[2] = {boxes[b][3], boxes[b][5]};
                long l2[2] = {llo[0], llo[2]}, h2[2] = {lhi[0], lhi[2]};
                rc = kgt_stream_plan(&u, lo, hi, l2, h2, 1024, args, grid);
            }
            fprintf(f, "box %d slots %ld: rc %d grid %ld %ld %ld args", b, slots, rc, grid[0],
                    grid[1], grid[2]);
            for (int i = 0; !rc && i < n; i++) fprintf(f, " %lld", args[i]);
            fprintf(f, "\n");
        }
}

static void dump_stream(const sl_stencil *st, const char *tag, int levels)
{
    kgt_stream_info in;
    char name[160];
    memset(&in, 0, sizeof in);
    char *src = sb_gen_gpu_stream(st, levels, &in);
    snprintf(name, sizeof name, "%s-stream%d.cu", tag, levels);
    put(name, src);
    snprintf(name, sizeof name, "%s-stream%d.plan", tag, levels);
    FILE *f = open_out(name);
    if (!src)
        fprintf(f, "none\n");
    else {
        fprintf(f,
                "levels %d r %d v %d b %d w %d u %d hdef %d hmin %d hset %d\n"
                "elo %d %d %d ehi %d %d %d ix_int %d min_box %d fill %d\nname %s %s\n"
                "ndims %d by %d ny %d wy %d xal %d\n",
                in.levels, in.r, in.v, in.b, in.w, in.u, in.hdef, in.hmin, in.hset, in.elo[0],
                in.elo[1], in.elo[2], in.ehi[0], in.ehi[1], in.ehi[2], in.ix_int, in.min_box,
                in.fill, in.name[0], in.name[1], in.ndims, in.by, in.ny, in.wy, in.xal);
        dump_layouts(f, &in);
    }
    fclose(f);
    free(src);
}

static void dump_all(const char *sub)
{
    char top[sizeof dir];
    snprintf(top, sizeof top, "%s", dir);
    if (snprintf(dir, sizeof dir, "%s/%s", top, sub) >= (int)sizeof dir) {
        fprintf(stderr, "rtc_dump: path too long\n");
        exit(1);
    }
    make_dir(dir);
    for (int i = 0; i < stencil_set_count(); i++)
        for (int t = 0; t < 2; t++) {
            stencil_desc d;
            sl_stencil st;
            char msg[256], tag[64];
            stencil_set_get(i, t ? STENCIL_DOUBLE : STENCIL_FLOAT, &d);
            if (sl_stencil_make(&st, &d, msg, sizeof msg)) {
                fprintf(stderr, "rtc_dump: %s: %s\n", stencil_set_name(i), msg);
                exit(1);
            }
            snprintf(tag, sizeof tag, "%s-%c", stencil_set_name(i), t ? 'd' : 'f');
            dump_step(&st, tag, 0);
            dump_step(&st, tag, 1);
            for (int l = 1; l <= KGT_STREAM_MAX; l++) dump_stream(&st, tag, l);
            char name[160];
            snprintf(name, sizeof name, "%s-depth", tag);
            FILE *f = open_out(name);
            fprintf(f, "stream depth %d\n", sb_gen_stream_depth(&st));
            fclose(f);
            for (int l = 0; l < 2; l++) {
                char *src = sb_gen_opencl(&st, l ? (size_t)1 << 32 : 1000);
                snprintf(name, sizeof name, "%s-opencl-%s.cl", tag, l ? "long" : "int");
                put(name, src);
                free(src);
            }
            sl_stencil_free(&st);
        }
    snprintf(dir, sizeof dir, "%s", top);
}

/* The tuning variables and the values dumped under each. */
static const char *const tuning[][2] = {{"KGT_VEC_PREFETCH", "0"},
                                        {"KGT_VEC_PREFETCH", "1"},
                                        {"STENCIL_RTC_STREAM3", "2,4"},
                                        {"STENCIL_RTC_STREAM3", "4,8"},
                                        {"STENCIL_RTC_STREAM_H", "64"},
                                        {"STENCIL_RTC_SHAPE", "32,2,2,3"},
                                        {"STENCIL_RTC_SHAPE", "32,1,3,1,2"},
                                        {"STENCIL_RTC_SHAPE", "64,4,1,7,3,0,0,2"},
                                        {"STENCIL_RTC_SHAPE", "32,1,1,7,0,0,3"},
                                        {"STENCIL_RTC_SHAPE", "64,1,1,5,0,1,2"},
                                        {"STENCIL_RTC_SHAPE", "64,2,2,3,0,1,1"},
                                        {"STENCIL_RTC_SHAPE", "128,1,4,5,0,1,2"},
                                        {"STENCIL_RTC_SHAPE", "64,2,2,4,0,1,1,9"}};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: rtc_dump DIR\n");
        return 2;
    }
    if (snprintf(dir, sizeof dir, "%s", argv[1]) >= (int)sizeof dir / 2) return 2;
    make_dir(dir);
    for (size_t k = 0; k < sizeof tuning / sizeof *tuning; k++) unsetenv(tuning[k][0]);
    dump_all("default");
    for (size_t k = 0; k < sizeof tuning / sizeof *tuning; k++) {
        char sub[96];
        snprintf(sub, sizeof sub, "%s=%s", tuning[k][0], tuning[k][1]);
        setenv(tuning[k][0], tuning[k][1], 1);
        dump_all(sub);
        unsetenv(tuning[k][0]);
    }
    return 0;
}
