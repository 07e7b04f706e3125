/* Private interface of the parallel output: tile checks and collective error agreement. */
#ifndef SI_SIO_H
#define SI_SIO_H

#include <mpi.h>

#include "stencil.h"

/*
 * The state of one collective I/O call. Every phase ends in si_phase(), which agrees on the
 * first failure across ranks (skel's sk_agree), so all ranks take the same path and return the
 * same code; later phases are skipped once rc is set.
 */
typedef struct si_ctx {
    MPI_Comm comm; /* private duplicate with MPI_ERRORS_RETURN */
    int rank, size;
    int rc;
    const char *fn; /* public function name, for the message */
    char msg[300];
} si_ctx;

/* Duplicates comm; returns 0 or a code that every rank gets (comm is the same on all ranks). */
int si_begin(si_ctx *c, MPI_Comm comm, const char *fn);
/* Agrees on `code` (this rank's result of the phase) unless an earlier phase failed. */
void si_phase(si_ctx *c, int code);
/* Prints the agreed message on rank 0 when the call failed, frees the communicator. */
int si_end(si_ctx *c);
/* snprintf into c->msg; returns code. */
int si_fail(si_ctx *c, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int si_mpi_fail(si_ctx *c, int mpirc, const char *what);

/* Local checks of a tile (dims, type, box inside the array, nested strides); no MPI. */
int si_check_tile(si_ctx *c, const stencil_tile *t);
/*
 * Collective: every rank passed the same ndims, type, global sizes and `extra` values (up to 8),
 * and the tiles' cell counts add up to the array's, so no cell is missing or written twice.
 */
int si_check_same(si_ctx *c, const stencil_tile *t, const long *extra, int nextra);
long long si_tile_cells(const stencil_tile *t);
MPI_Datatype si_mpi_type(stencil_type type);

#endif /* SI_IO_H */
