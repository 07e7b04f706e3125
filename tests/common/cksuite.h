/* Running a Check suite under MPI, the same way in every MPI test program. */
#ifndef TU_CKSUITE_H
#define TU_CKSUITE_H

#include <check.h>

/*
 * Runs s without forking (MPI processes must not fork; every rank runs every test in the same
 * order), rank 0 reporting; frees the runner. Returns the number of failed tests.
 */
int tu_run_suite(Suite *s);

/*
 * $TEST_SHARD=k/n: one of n runs that share a long test's items (meson runs them side by side):
 * whether item i (counted from 0 in the same order in every run) is this run's, i modulo n
 * being k. Every item is when TEST_SHARD is unset.
 */
int tu_shard_mine(long i);

/* The iterations of [0, count) of loop test t that are this run's (tu_shard_mine), added to tc. */
void tu_add_loop_shard(TCase *tc, const TTest *t, int count);

/*
 * Keeps this process, and the threads it starts from now on, on the processor it runs on. For
 * the emulations of GPU blocks (a thread per GPU thread, barriers): their threads then wake each
 * other on one processor's queue instead of across processors, which took most of their time
 * (in the kernel); the emulation itself is the same.
 */
void tu_one_cpu(void);

#endif
