/* Running a Check suite under MPI, the same way in every MPI test program. */
#ifndef TU_CKSUITE_H
#define TU_CKSUITE_H

#include <check.h>

/*
 * Runs s without forking (MPI processes must not fork; every rank runs every test in the same
 * order), rank 0 reporting; frees the runner. Returns the number of failed tests.
 */
int tu_run_suite(Suite *s);

#endif
