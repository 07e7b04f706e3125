#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "cksuite.h"

int tu_run_suite(Suite *s)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

int tu_shard_mine(long i)
{
    const char *e = getenv("TEST_SHARD");
    int k = 0, n = 1;
    if (e && *e && (sscanf(e, "%d/%d", &k, &n) != 2 || n < 1 || k < 0 || k >= n)) {
        fprintf(stderr, "TEST_SHARD=%s: want k/n with 0 <= k < n\n", e);
        exit(2);
    }
    return i % n == k;
}

void tu_add_loop_shard(TCase *tc, const TTest *t, int count)
{
    for (int i = 0; i < count; i++)
        if (tu_shard_mine(i)) tcase_add_loop_test(tc, t, i, i + 1);
}

void tu_one_cpu(void)
{
    cpu_set_t one;
    int cpu = sched_getcpu();
    if (cpu < 0) return;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)sched_setaffinity(0, sizeof one, &one);
}
