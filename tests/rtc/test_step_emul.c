/*
 * The one-step streaming kernel (kgt/emit_step.c) of every docs/STENCILS.md stencil, both element
 * types and several block shapes, run on the CPU under an emulation of the CUDA execution model
 * (one fiber per GPU thread, emu_fiber.h, a barrier for __syncthreads), against the serial
 * reference: bitwise inside the box, untouched outside it. The device itself runs the same text
 * through NVRTC or hiprtc; this checks the generated indexing, tiling, walk chunks and order of the
 * sums without a GPU.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "emu_fiber.h"
#include "kgt.h" /* KGT_SPLIT_LO, KGT_SPLIT_HI */
#include "stencil_set.h"
#include "testutil.h"

/* ---- the emulated execution model the generated text is written against */
typedef struct {
    unsigned x, y, z;
} emu_dim3;
static __thread emu_dim3 threadIdx;
static emu_dim3 blockIdx;
static emu_barrier emu_bar;
#define __syncthreads()        emu_barrier_wait(&emu_bar)
#define __global__             static
#define __launch_bounds__(...) /* a device matter */
#define __shared__             static
#define __restrict__ restrict
#define KGT_EXTERN_C
#define kgt_add(a, b)        ((a) + (b))
#define kgt_sub(a, b)        ((a) - (b))
#define kgt_mul(a, b)        ((a) * (b))
#define KGT_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
/* Split division (kgt/split.c) as the device helpers compute it, with C99's exact fmaf: both
   forms of the range test. */
static uint32_t emu_bits(float s)
{
    uint32_t a;
    memcpy(&a, &s, sizeof a);
    return a;
}
static float emu_split_q(float s, float d, float rd)
{
    float q0 = s * rd;
    return fmaf(fmaf(-d, q0, s), rd, q0);
}
static float emu_div_split(float s, float d, float rd, unsigned *lo, unsigned *hi)
{
    const uint32_t a = emu_bits(s) & 0x7fffffffu;
    *lo = a < *lo ? a : *lo;
    *hi = a > *hi ? a : *hi;
    return emu_split_q(s, d, rd);
}
static float emu_div_split_max(float s, float d, float rd, unsigned *m)
{
    const unsigned u = emu_bits(s) * 2u - 2u * KGT_SPLIT_LO;
    *m = u > *m ? u : *m;
    return emu_split_q(s, d, rd);
}
#define kgt_div_split(s, d, rd, lo, hi) emu_div_split((s), (d), (rd), &(lo), &(hi))
#define kgt_div_split_max(s, d, rd, m)  emu_div_split_max((s), (d), (rd), &(m))
/* Asynchronous copies land at once here: the ring's slot logic is what is checked. */
#define KGT_CP_ASYNC(d, s) (*(d) = *(s))
#define KGT_CP_COMMIT()
#define KGT_CP_WAIT(n)
/* 16-byte vectors (vector rows). */
#define __align__(n) __attribute__((aligned(n)))
typedef struct {
    float x, y, z, w;
} float4;
typedef struct {
    double x, y;
} double2;

/* Vectors of element loads and stores of element (NAME_u of 2D vector rows). */
static float4 make_float4(float a, float b, float c, float d)
{
    float4 v = {a, b, c, d};
    return v;
}
static double2 make_double2(double a, double b)
{
    double2 v = {a, b};
    return v;
}
#define KGT_VST4F(p, r) ((p)[0] = (r).x, (p)[1] = (r).y, (p)[2] = (r).z, (p)[3] = (r).w)
#define KGT_VST2D(p, r) ((p)[0] = (r).x, (p)[1] = (r).y)

/* Warps of 32 threads (2D vector rows): a shuffle is a write, a barrier of the warp's threads
   and a read, alternating between two exchange areas so that one barrier a call does. */
#define KGT_WARP      32
#define KGT_UNROLL(n) /* a compiler's matter */
enum { EMU_WARPS = 32 };
static emu_barrier emu_warp[EMU_WARPS];
static unsigned char emu_lane[2][EMU_WARPS][32][8];
static __thread int emu_flip;
static __thread unsigned emu_tid;
static void emu_exchange(void *v, size_t n, int src)
{
    unsigned w = emu_tid / 32, l = emu_tid % 32;
    int f = emu_flip;
    emu_flip ^= 1;
    memcpy(emu_lane[f][w][l], v, n);
    emu_barrier_wait(&emu_warp[w]);
    memcpy(v, emu_lane[f][w][((src % 32) + 32) % 32], n);
}
#define KGT_SHFL(v, src)                                                                           \
    __extension__({                                                                                \
        __typeof__((v) + 0) v_ = (v); /* not const */                                              \
        emu_exchange(&v_, sizeof v_, (src));                                                       \
        v_;                                                                                        \
    })

typedef void (*step_fn)(void);
typedef void (*step_f)(const float *, float *, int, int, int, int, int, int, int, long long,
                       long long, int);
typedef void (*step_d)(const double *, double *, int, int, int, int, int, int, int, long long,
                       long long, int);
typedef struct {
    const char *name;
    int shape, dbl, bx, by, zc, tx, ty;
    int al; /* a vector kernel for arrays and strides aligned to 16 bytes */
    step_fn fn;
} step_entry;

#include "step_kernels.h"

/* ---- one launch */
typedef struct {
    const step_entry *e;
    const void *in;
    void *out;
    int a[7]; /* z0, z1, y0, y1, xa, x0, x1 */
    long long s0, s1;
    unsigned tx, ty;
} launch;

static void *emu_thread(void *p)
{
    const launch *l = p;
    threadIdx.x = l->tx, threadIdx.y = l->ty, threadIdx.z = 0;
    emu_tid = l->ty * (unsigned)l->e->bx + l->tx;
    emu_flip = 0;
    const int *a = l->a;
    if (l->e->dbl)
        ((step_d)l->e->fn)(l->in, l->out, a[0], a[1], a[2], a[3], a[4], a[5], a[6], l->s0, l->s1,
                           l->e->zc);
    else
        ((step_f)l->e->fn)(l->in, l->out, a[0], a[1], a[2], a[3], a[4], a[5], a[6], l->s0, l->s1,
                           l->e->zc);
    return NULL;
}

static void emu_block(const launch *base, unsigned bx, unsigned by, unsigned bz)
{
    int nt = base->e->bx * base->e->by;
    launch *ls = malloc(sizeof *ls * (size_t)nt);
    ck_assert(ls);
    blockIdx.x = bx, blockIdx.y = by, blockIdx.z = bz;
    emu_barrier_init(&emu_bar, (unsigned)nt);
    ck_assert(nt <= 32 * EMU_WARPS);
    for (int w = 0; w * 32 < nt; w++) /* kernels that shuffle come in whole warps */
        emu_barrier_init(&emu_warp[w], (unsigned)(nt - w * 32 < 32 ? nt - w * 32 : 32));
    for (int t = 0; t < nt; t++) {
        ls[t] = *base;
        ls[t].tx = (unsigned)(t % base->e->bx);
        ls[t].ty = (unsigned)(t / base->e->bx);
    }
    emu_fiber_local(&threadIdx, sizeof threadIdx);
    emu_fiber_local(&emu_flip, sizeof emu_flip);
    emu_fiber_local(&emu_tid, sizeof emu_tid);
    ck_assert_int_eq(emu_fibers_run((unsigned)nt, emu_thread, ls, sizeof *ls), 0);
    free(ls);
}

/* ---- the case: a strided local array with margins, a box inside it */
static void *emu_alloc(size_t bytes) /* aligned as device allocations are, to more than 16 */
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) ? NULL : p;
}

/* thin: a 3D box of 3 rows, fewer than some shapes' rows a thread (emit_rows3.c walks them one
   at a time) */
static long run_case(const step_entry *e, unsigned long seed, int thin)
{
    stencil_desc st;
    ck_assert_int_eq(
        stencil_set_get(stencil_set_find(e->name), e->dbl ? STENCIL_DOUBLE : STENCIL_FLOAT, &st),
        0);
    /* 2D rows wide enough for whole warps of vectors inside the box (shape vec) */
    static const long boxes[3][3] = {{301, 1, 1}, {29, 603, 1}, {9, 37, 45}};
    long n[3] = {1, 1, 1}, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, stride[3];
    int nd = st.ndims;
    for (int d = 0; d < nd; d++) {
        lo[d] = st.radius_lo[d] + 1 + (long)(seed % 3);
        hi[d] = lo[d] + (thin && nd == 3 && d == 1 ? 3 : boxes[nd - 1][d]);
        n[d] = hi[d] + st.radius_hi[d] + 2;
    }
    n[nd - 1] += 3;                            /* rows not a multiple of a line */
    if (e->al) n[nd - 1] += 4 - n[nd - 1] % 4; /* ... but of 16 bytes */
    stride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--) stride[d] = stride[d + 1] * n[d + 1];
    size_t cells = (size_t)(stride[0] * n[0]), esz = e->dbl ? 8 : 4;
    size_t bytes = (cells * esz + 63) / 64 * 64;
    char *in = emu_alloc(bytes), *out = emu_alloc(bytes), *ref = malloc(bytes);
    ck_assert(in && out && ref);
    for (size_t i = 0; i < cells; i++) {
        /* subnormals where split division must leave its fast path: the columns left of the
           box (numerators of lanes outside it: the kernel tests the cells in the box again), and
           a patch of 5 cells a side in the box (numerators out of range there: `/`) */
        long c[3], rest = (long)i;
        int patch = 1;
        for (int d = 0; d < nd; d++) {
            c[d] = rest / stride[d], rest %= stride[d];
            patch &= c[d] > lo[d] && c[d] <= lo[d] + 5;
        }
        double v = tu_random(seed, (long)i);
        if (c[nd - 1] < lo[nd - 1] || patch) v *= 0x1p-130;
        if (e->dbl)
            ((double *)in)[i] = v, ((double *)out)[i] = NAN;
        else
            ((float *)in)[i] = (float)v, ((float *)out)[i] = NAN;
    }
    memcpy(ref, out, cells * esz);
    tu_reference_box(&st, stride, lo, hi, in, ref);

    /* (walk, y, x) as the kernel sees them */
    launch l = {.e = e, .in = in, .out = out};
    int x = nd - 1;
    l.a[0] = nd > 1 ? (int)lo[0] : 0, l.a[1] = nd > 1 ? (int)hi[0] : 1;
    l.a[2] = nd > 2 ? (int)lo[1] : 0, l.a[3] = nd > 2 ? (int)hi[1] : 1;
    l.a[5] = (int)lo[x], l.a[6] = (int)hi[x];
    l.s0 = nd > 1 ? stride[0] : 0, l.s1 = nd > 2 ? stride[1] : 0;
    long first = 0;
    for (int d = 0; d < nd; d++) first += lo[d] * stride[d];
    long line = 128 / (long)esz;
    l.a[4] = (int)(lo[x] - (long)(((uintptr_t)out / esz + (uintptr_t)first) % (uintptr_t)line));
    unsigned gx = (unsigned)((l.a[6] - l.a[4] + e->tx - 1) / e->tx);
    unsigned gy = (unsigned)((l.a[3] - l.a[2] + e->ty - 1) / e->ty);
    unsigned gz = (unsigned)((l.a[1] - l.a[0] + e->zc - 1) / e->zc);
    for (unsigned bz = 0; bz < gz; bz++)
        for (unsigned by = 0; by < gy; by++)
            for (unsigned bx = 0; bx < gx; bx++) emu_block(&l, bx, by, bz);
    long bad = 0;
    for (size_t i = 0; i < cells; i++) bad += memcmp(out + i * esz, ref + i * esz, esz) != 0;
    free(in);
    free(out);
    free(ref);
    return bad;
}

START_TEST(step_kernel)
{
    const step_entry *e = &step_entries[_i];
    for (int thin = 0; thin < 2; thin++) {
        long bad = run_case(e, 1234567u + (unsigned long)_i, thin);
        if (bad)
            ck_abort_msg("%s %s shape %d (%dx%d threads, tile %dx%d, walk %d)%s: %ld cells differ",
                         e->name, e->dbl ? "double" : "float", e->shape, e->bx, e->by, e->tx, e->ty,
                         e->zc, thin ? ", 3 rows" : "", bad);
    }
}
END_TEST

int main(void)
{
    tu_one_cpu();
    Suite *s = suite_create("step_emul");
    TCase *tc = tcase_create("emul");
    tcase_set_timeout(tc, 600);
    tu_add_loop_shard(tc, step_kernel, (int)(sizeof step_entries / sizeof *step_entries));
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
