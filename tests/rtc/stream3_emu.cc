/*
 * The 3D streaming kernels (kgt/emit_stream3.c) under the emulation of stream_emu.cc, with warp
 * shuffles: each warp's lanes exchange values through a double-buffered slot per lane and a
 * barrier per warp (emu_fiber.h) (a lane writing the next shuffle's slot has passed the barrier
 * that every lane reaches only after reading the last one). test_stream3_emul.c drives it through
 * emu3_*.
 */
#include <cstdlib>

#include "emu_prelude.hh"

namespace
{
enum { EMU_WARPS = 32 };
emu_barrier emu_warp[EMU_WARPS];
unsigned char emu_lane[2][EMU_WARPS][32][8];
thread_local int emu_flip;

/* __shfl_up (delta < 0) and __shfl_down (delta > 0) over 32 lanes: a lane whose source lies
   outside the warp keeps its own value. */
template <typename T> T emu_shfl(T v, int delta)
{
    const unsigned w = threadIdx.y, l = threadIdx.x;
    const int f = emu_flip;
    emu_flip ^= 1;
    std::memcpy(emu_lane[f][w][l], &v, sizeof v);
    emu_barrier_wait(&emu_warp[w]);
    const int src = (int)l + delta < 0 || (int)l + delta >= 32 ? (int)l : (int)l + delta;
    T r;
    std::memcpy(&r, emu_lane[f][w][src], sizeof r);
    return r;
}
} // namespace

#define KGT_SHFL_UP(v, d)   emu_shfl((v), -(d))
#define KGT_SHFL_DOWN(v, d) emu_shfl((v), (d))

struct emu3_entry {
    const char *name;
    int dbl, levels, ny, by;
    emu_fn fn[2];
};

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include "stream3_kernels.h"

template <typename T>
using kfn3 = void (*)(const T *, T *, int, int, int, int, int, int, int, int, int, int, int, int,
                      int, int, int, int, int, int, int, int, int, int);

struct emu3_launch {
    const emu3_entry *e;
    int vec;
    const void *in;
    void *out;
    const long long *a;
    unsigned tx, ty;
};

template <typename T> static void call3(const emu3_launch *l)
{
    int a[22];
    for (int i = 0; i < 22; i++) a[i] = (int)l->a[i];
    ((kfn3<T>)l->e->fn[l->vec])((const T *)l->in, (T *)l->out, a[0], a[1], a[2], a[3], a[4], a[5],
                                a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15],
                                a[16], a[17], a[18], a[19], a[20], a[21]);
}

static void *emu3_thread(void *p)
{
    const emu3_launch *l = (const emu3_launch *)p;
    threadIdx.x = l->tx, threadIdx.y = l->ty, threadIdx.z = 0;
    if (l->e->dbl)
        call3<double>(l);
    else
        call3<float>(l);
    return NULL;
}

extern "C" int emu3_count(void)
{
    return (int)(sizeof emu3_entries / sizeof *emu3_entries);
}

extern "C" void emu3_entry_info(int i, const char **name, int *dbl, int *levels, int *ny, int *by)
{
    const emu3_entry &e = emu3_entries[i];
    *name = e.name, *dbl = e.dbl, *levels = e.levels, *ny = e.ny, *by = e.by;
}

/* Block (bx, by, bz) of a launch of entry i; args as kgt_stream3_plan wrote them. */
extern "C" int emu3_block(int i, int vec, const void *in, void *out, const long long *args,
                          unsigned bx, unsigned by, unsigned bz)
{
    const emu3_entry *e = &emu3_entries[i];
    const int nt = 32 * e->by;
    static emu3_launch ls[1024];
    if (nt > 1024 || e->by > EMU_WARPS) return -1;
    blockIdx.x = bx, blockIdx.y = by, blockIdx.z = bz;
    emu_barrier_init(&emu_bar, (unsigned)nt);
    for (int w = 0; w < e->by; w++) emu_barrier_init(&emu_warp[w], 32);
    for (int n = 0; n < nt; n++)
        ls[n] = emu3_launch{e, vec, in, out, args, (unsigned)(n % 32), (unsigned)(n / 32)};
    emu_fiber_local(&threadIdx, sizeof threadIdx);
    emu_fiber_local(&emu_flip, sizeof emu_flip);
    return emu_fibers_run((unsigned)nt, emu3_thread, ls, sizeof *ls);
}
