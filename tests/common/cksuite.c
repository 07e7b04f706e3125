#include <mpi.h>

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
