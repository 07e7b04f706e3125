/*
 * Fibers for the emulations (emu_fiber.h), by ucontext: a stack of 1 MiB each (allocated once;
 * the C library maps blocks that large, touched only as deep as a kernel goes), round-robin
 * among the fibers that can run.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "emu_fiber.h"

enum { STACK = 1 << 20, MAXF = 1024, NLOC = 8, LOCBYTES = 64 };

typedef struct fiber {
    ucontext_t uc;
    char *stack;
    const emu_barrier *wait; /* the barrier it waits at, of generation gen */
    unsigned gen;
    int done;
    unsigned char loc[LOCBYTES];
} fiber;

static fiber fb[MAXF];
static ucontext_t home;
static unsigned nf, cur, ndone;
static void *(*body)(void *);
static char *base;
static size_t step;
static struct {
    void *p;
    size_t n;
} loc[NLOC];
static int nloc;
static size_t locbytes;

void emu_fiber_local(void *p, size_t n)
{
    for (int k = 0; k < nloc; k++)
        if (loc[k].p == p) return;
    if (nloc == NLOC || locbytes + n > LOCBYTES) {
        fprintf(stderr, "emu_fiber: too many fiber-local variables\n");
        abort();
    }
    loc[nloc].p = p, loc[nloc].n = n, nloc++, locbytes += n;
}

static void save(unsigned char *to)
{
    size_t o = 0;
    for (int k = 0; k < nloc; o += loc[k].n, k++) memcpy(to + o, loc[k].p, loc[k].n);
}

static void load(const unsigned char *from)
{
    size_t o = 0;
    for (int k = 0; k < nloc; o += loc[k].n, k++) memcpy(loc[k].p, from + o, loc[k].n);
}

static int runnable(unsigned i)
{
    return !fb[i].done && (!fb[i].wait || fb[i].wait->gen != fb[i].gen);
}

/* From the current fiber to the next one after it that can run (itself last). */
static void next(void)
{
    unsigned to = nf;
    for (unsigned s = 1; s <= nf && to == nf; s++)
        if (runnable((cur + s) % nf)) to = (cur + s) % nf;
    if (to == nf) {
        fprintf(stderr, "emu_fiber: %u of %u threads wait at barriers that cannot complete\n",
                nf - ndone, nf);
        abort();
    }
    if (to == cur) return;
    unsigned from = cur;
    save(fb[from].loc);
    cur = to;
    load(fb[to].loc);
    swapcontext(&fb[from].uc, &fb[to].uc);
}

static void start(void)
{
    unsigned i = cur;
    body(base + i * step);
    fb[i].done = 1;
    if (++ndone == nf) setcontext(&home);
    next(); /* never comes back: this one no longer runs */
    abort();
}

void emu_barrier_init(emu_barrier *b, unsigned size)
{
    b->size = size, b->count = 0, b->gen = 0;
}

void emu_barrier_wait(emu_barrier *b)
{
    if (++b->count == b->size) {
        b->count = 0, b->gen++;
        return;
    }
    fb[cur].wait = b, fb[cur].gen = b->gen;
    next();
    fb[cur].wait = NULL;
}

/* Fiber f ready to start (getcontext returns twice: kept out of the caller's loop). */
static int prepare(fiber *f)
{
    if (!f->stack && !(f->stack = malloc(STACK))) return -1;
    if (getcontext(&f->uc)) return -1;
    f->uc.uc_stack.ss_sp = f->stack;
    f->uc.uc_stack.ss_size = STACK;
    f->uc.uc_link = &home;
    makecontext(&f->uc, start, 0);
    f->done = 0, f->wait = NULL;
    memset(f->loc, 0, sizeof f->loc);
    return 0;
}

int emu_fibers_run(unsigned n, void *(*fn)(void *), void *arg, size_t stride)
{
    unsigned char mine[LOCBYTES];
    if (n == 0) return 0;
    if (n > MAXF) return -1;
    for (unsigned i = 0; i < n; i++)
        if (prepare(&fb[i])) return -1;
    body = fn, base = arg, step = stride, nf = n, ndone = 0, cur = 0;
    save(mine);
    load(fb[0].loc);
    if (swapcontext(&home, &fb[0].uc)) return -1;
    load(mine);
    return 0;
}
