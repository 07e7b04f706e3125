/*
 * The streaming kernels (kgt/emit_stream.c) under an emulation of the CUDA execution model: one
 * fiber per GPU thread (emu_fiber.h), a barrier for __syncthreads, blocks one after another. C++,
 * as the kernels are (templates, references); test_stream_emul.c drives it through emu_stream_*.
 */
#include <cstdlib>

#include "emu_prelude.hh"

struct emu_entry {
    const char *name;
    int dbl, levels, ix_int;
    emu_fn fn[2];
};

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include "stream_kernels.h"

template <typename T, typename I>
using kfn = void (*)(const T *, T *, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I);

struct emu_launch {
    const emu_entry *e;
    int vec;
    const void *in;
    void *out;
    const long long *a;
    unsigned tx;
};

template <typename T, typename I> static void call(const emu_launch *l)
{
    const long long *a = l->a;
    ((kfn<T, I>)l->e->fn[l->vec])((const T *)l->in, (T *)l->out, (I)a[0], (I)a[1], (I)a[2], (I)a[3],
                                  (I)a[4], (I)a[5], (I)a[6], (I)a[7], (I)a[8], (I)a[9], (I)a[10],
                                  (I)a[11], (I)a[12], (I)a[13], (I)a[14]);
}

static void *emu_thread(void *p)
{
    const emu_launch *l = (const emu_launch *)p;
    threadIdx.x = l->tx, threadIdx.y = threadIdx.z = 0;
    if (l->e->dbl)
        l->e->ix_int ? call<double, int>(l) : call<double, long>(l);
    else
        l->e->ix_int ? call<float, int>(l) : call<float, long>(l);
    return NULL;
}

extern "C" int emu_stream_count(void)
{
    return (int)(sizeof emu_entries / sizeof *emu_entries);
}

extern "C" void emu_stream_entry(int i, const char **name, int *dbl, int *levels)
{
    *name = emu_entries[i].name, *dbl = emu_entries[i].dbl, *levels = emu_entries[i].levels;
}

/* Block (bx, by) of a launch of entry i with nt threads; args as kgt_stream_plan wrote them. 0, or
   -1 when threads could not be started. */
extern "C" int emu_stream_block(int i, int vec, int nt, const void *in, void *out,
                                const long long *args, unsigned bx, unsigned by)
{
    static emu_launch ls[1024];
    if (nt > 1024) return -1;
    blockIdx.x = bx, blockIdx.y = by, blockIdx.z = 0;
    emu_barrier_init(&emu_bar, (unsigned)nt);
    for (int n = 0; n < nt; n++)
        ls[n] = emu_launch{&emu_entries[i], vec, in, out, args, (unsigned)n};
    emu_fiber_local(&threadIdx, sizeof threadIdx);
    return emu_fibers_run((unsigned)nt, emu_thread, ls, sizeof *ls);
}
