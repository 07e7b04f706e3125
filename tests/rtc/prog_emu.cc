/*
 * The run-time program kernels (kgt/prog_gpu.c) under an emulation of the CUDA execution model:
 * the kernels use no shared memory and no barrier, so each thread of each block runs to its end
 * in turn on the calling thread. Read-only loads are plain loads; __fdiv_rn and __fsqrt_rn are
 * the host's IEEE division and square root (the test is built without contraction).
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

#define KGT_LDG(p) (*(p))
namespace
{
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
    int dbl, shape[3], plan;
    void (*fn)(const void *, long, long, long);
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

extern "C" void emu_prog_entry(int i, const char **name, int *dbl, int shape[3], int *plan)
{
    const emu_entry *e = &emu_entries[i];
    *name = e->name, *dbl = e->dbl, *plan = e->plan;
    for (int d = 0; d < 3; d++) shape[d] = e->shape[d];
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
