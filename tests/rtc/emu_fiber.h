/*
 * The emulations' threads (stream_emu.cc, stream3_emu.cc, prog_emu.cc, test_step_emul.c): each
 * emulated GPU thread of a block is a fiber, all of them on the calling thread, switching only
 * where one waits at a barrier (__syncthreads, a warp's shuffle). POSIX threads did the same
 * with the kernel scheduling them, which cost ten times the emulated work in system time.
 */
#ifndef EMU_FIBER_H
#define EMU_FIBER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct emu_barrier {
    unsigned size, count, gen;
} emu_barrier;

/* A barrier of `size` fibers, as pthread_barrier_init: the last to arrive releases the others. */
void emu_barrier_init(emu_barrier *b, unsigned size);
void emu_barrier_wait(emu_barrier *b);
/* A variable each emulated thread has its own of (threadIdx and the like): saved and restored
   at each switch, zero when a fiber starts, the caller's own again after emu_fibers_run. At most
   8 of them, 64 bytes in all; registering one twice is harmless. */
void emu_fiber_local(void *p, size_t n);
/* fn(arg + i * stride) for i = 0 .. n - 1 (n <= 1024), each a fiber, until all have returned.
   0, or -1 when their stacks could not be had. A fiber that waits at a barrier no other can
   complete aborts the process with a message (threads would hang). */
int emu_fibers_run(unsigned n, void *(*fn)(void *), void *arg, size_t stride);

#ifdef __cplusplus
}
#endif

#endif
