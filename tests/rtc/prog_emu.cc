/*
 * The run-time program kernels (kgt/prog_gpu.c) under an emulation of the CUDA execution model:
 * the kernels use no shared memory and no barrier, so each thread of each block runs to its end
 * in turn on the calling thread. The fused k-step kernels (kgt/prog_fuse.c) share tiles and
 * meet at barriers, and the vector-row kernels at warp shuffles: one fiber per GPU thread
 * (emu_fiber.h), blocks one after another. Read-only loads are plain loads; __fdiv_rn and
 * __fsqrt_rn are the host's IEEE division and square root (the test is built without
 * contraction).
 */
#include <cmath>
#include <math.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#endif
#include "emu_prelude.hh"
#include "prog_emu.h"

#define KGT_LDG(p)     (*(p))
#define KGT_VBOUNDS(n) /* a device matter */
namespace
{
struct float4 {
    float x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d)
{
    return float4{a, b, c, d};
}
struct double2 {
    double x, y;
};
inline double2 make_double2(double a, double b)
{
    return double2{a, b};
}

/* Warp shuffles of the vector-row kernels: each lane writes its value into a double-buffered
   slot and meets its warp at a barrier, then reads the source lane's slot (its lane number
   modulo the warp, as __shfl_sync takes it). */
enum { EMU_WARPS = 32 };
emu_barrier emu_warp[EMU_WARPS];
unsigned char emu_lane[2][EMU_WARPS][32][8];
thread_local int emu_flip;
template <typename T> T emu_shfl(T v, int src)
{
    const unsigned w = threadIdx.x / 32, l = threadIdx.x % 32;
    const int f = emu_flip;
    emu_flip ^= 1;
    std::memcpy(emu_lane[f][w][l], &v, sizeof v);
    emu_barrier_wait(&emu_warp[w]);
    T r;
    std::memcpy(&r, emu_lane[f][w][((src % 32) + 32) % 32], sizeof r);
    return r;
}
#define KGT_WARP           32
#define KGT_SHFL(v, src)   emu_shfl((v), (src))
#define KGT_SHFL32(v, src) emu_shfl((v), (src))
inline float __fdiv_rn(float a, float b)
{
    return a / b;
}
inline double __ddiv_rn(double a, double b)
{
    return a / b;
}
inline float __fsqrt_rn(float a)
{
    return std::sqrt(a);
}
inline double __dsqrt_rn(double a)
{
    return std::sqrt(a);
}
} // namespace

struct emu_entry {
    const char *name;
    int dbl, shape[3], plan, vec; /* vec: the vector-row kernel, shape {bx, cells, zc} */
    void (*fn)(const void *, long, long, long);
};

struct emu_fentry {
    const char *name;
    int dbl, fz[6];
    void (*fn)(const void *);
};

#include "prog_kernels.h"

template <typename A, typename T> static void fill(A *k, const emu_prog_args *a)
{
    std::memset(k, 0, sizeof *k);
    for (int f = 0; f < 16; f++) {
        k->in[f] = (const T *)a->in[f];
        k->prev[f] = (const T *)a->prev[f];
        k->out[f] = (T *)a->out[f];
        for (int d = 0; d < 3; d++) {
            k->stride[f][d] = a->stride[f][d];
            k->lo[f][d] = a->lo[f][d];
            k->hi[f][d] = a->hi[f][d];
        }
    }
    for (int d = 0; d < 3; d++) k->origin[d] = a->origin[d];
    k->t = a->t;
    for (int i = 0; i < 64; i++) k->par[i] = (T)a->par[i];
}

extern "C" int emu_prog_count(void)
{
    return (int)(sizeof emu_entries / sizeof *emu_entries);
}

extern "C" void emu_prog_entry(int i, const char **name, int *dbl, int shape[3], int *plan,
                               int *vec)
{
    const emu_entry *e = &emu_entries[i];
    *name = e->name, *dbl = e->dbl, *plan = e->plan, *vec = e->vec;
    for (int d = 0; d < 3; d++) shape[d] = e->shape[d];
}

struct emu_vthread {
    const emu_entry *e;
    const void *k;
    const long *u;
    unsigned x;
};

static void *emu_vec_thread(void *p)
{
    const emu_vthread *t = (const emu_vthread *)p;
    threadIdx = emu_dim3{t->x, 0, 0};
    emu_flip = 0;
    t->e->fn(t->k, t->u[0], t->u[1], t->u[2]);
    return NULL;
}

/* The vector-row kernel: each block's threads as fibers, whole warps meeting at each shuffle. */
static void emu_vec_launch(const emu_entry *e, const void *k, const long *u, const unsigned *grid)
{
    const unsigned nt = (unsigned)e->shape[0];
    static emu_vthread ts[1024];
    emu_fiber_local(&threadIdx, sizeof threadIdx);
    emu_fiber_local(&emu_flip, sizeof emu_flip);
    for (unsigned y = 0; y < grid[1]; y++)
        for (unsigned x = 0; x < grid[0]; x++) {
            blockIdx = emu_dim3{x, y, 0};
            for (unsigned w = 0; w < nt / 32; w++) emu_barrier_init(&emu_warp[w], 32);
            for (unsigned n = 0; n < nt; n++) ts[n] = emu_vthread{e, k, u, n};
            if (emu_fibers_run(nt, emu_vec_thread, ts, sizeof *ts)) std::abort();
        }
}

extern "C" void emu_prog_launch(int i, const emu_prog_args *a, const long *u, const unsigned *grid)
{
    const emu_entry *e = &emu_entries[i];
    kgt_prog_args_f kf;
    kgt_prog_args_d kd;
    const void *k = &kf;
    if (e->dbl) {
        fill<kgt_prog_args_d, double>(&kd, a);
        k = &kd;
    } else {
        fill<kgt_prog_args_f, float>(&kf, a);
    }
    if (e->vec) {
        emu_vec_launch(e, k, u, grid);
        return;
    }
    for (unsigned z = 0; z < grid[2]; z++)
        for (unsigned y = 0; y < grid[1]; y++)
            for (unsigned x = 0; x < grid[0]; x++) {
                blockIdx = emu_dim3{x, y, z};
                for (unsigned ty = 0; ty < (unsigned)e->shape[1]; ty++)
                    for (unsigned tx = 0; tx < (unsigned)e->shape[0]; tx++) {
                        threadIdx = emu_dim3{tx, ty, 0};
                        e->fn(k, u[0], u[1], u[2]);
                    }
            }
}

template <typename A, typename T> static void fill_fuse(A *k, const emu_fuse_args *a)
{
    std::memset(k, 0, sizeof *k);
    for (int f = 0; f < 16; f++) {
        k->in[f] = (const T *)a->in[f];
        k->prev[f] = (const T *)a->prev[f];
        k->out[f] = (T *)a->out[f];
        k->pout[f] = (T *)a->pout[f];
    }
    for (int d = 0; d < 2; d++) k->origin[d] = a->origin[d], k->n[d] = a->n[d], k->u[d] = a->u[d];
    k->t = a->t;
    k->stride = a->stride;
    std::memcpy(k->box, a->box, sizeof k->box);
    for (int i = 0; i < 64; i++) k->par[i] = (T)a->par[i];
}

extern "C" int emu_fuse_count(void)
{
    return (int)(sizeof emu_fentries / sizeof *emu_fentries);
}

extern "C" void emu_fuse_entry(int i, const char **name, int *dbl, int fz[6])
{
    *name = emu_fentries[i].name, *dbl = emu_fentries[i].dbl;
    for (int d = 0; d < 6; d++) fz[d] = emu_fentries[i].fz[d];
}

struct emu_fthread {
    const emu_fentry *e;
    const void *k;
    unsigned x;
};

static void *emu_fuse_thread(void *p)
{
    const emu_fthread *t = (const emu_fthread *)p;
    threadIdx = emu_dim3{t->x, 0, 0};
    emu_flip = 0;
    t->e->fn(t->k);
    return NULL;
}

extern "C" int emu_fuse_launch(int i, const emu_fuse_args *a, const unsigned *grid)
{
    const emu_fentry *e = &emu_fentries[i];
    kgt_prog_fuse_args_f kf;
    kgt_prog_fuse_args_d kd;
    const void *k = &kf;
    if (e->dbl) {
        fill_fuse<kgt_prog_fuse_args_d, double>(&kd, a);
        k = &kd;
    } else {
        fill_fuse<kgt_prog_fuse_args_f, float>(&kf, a);
    }
    const unsigned nt = (unsigned)e->fz[3];
    static emu_fthread ts[1024];
    int rc = 0;
    emu_fiber_local(&threadIdx, sizeof threadIdx);
    emu_fiber_local(&emu_flip, sizeof emu_flip);
    for (unsigned y = 0; y < grid[1] && !rc; y++)
        for (unsigned x = 0; x < grid[0] && !rc; x++) {
            blockIdx = emu_dim3{x, y, 0};
            emu_barrier_init(&emu_bar, nt);
            for (unsigned w = 0; w < nt / 32; w++) emu_barrier_init(&emu_warp[w], 32);
            for (unsigned n = 0; n < nt; n++) ts[n] = emu_fthread{e, k, n};
            rc = emu_fibers_run(nt, emu_fuse_thread, ts, sizeof *ts);
        }
    return rc;
}
