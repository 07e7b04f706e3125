/*
 * The error module, below io, skel and backends: messages formatted for a return in one
 * expression, MPI failures described one way, and agreement on one error across all ranks.
 * Depends on nothing of the library but stencil.h (the codes) and MPI.
 */
#ifndef ERR_ERR_H
#define ERR_ERR_H

#include <mpi.h>
#include <stddef.h>

#include "stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Formats msg like snprintf and returns code, for tail calls. */
int err_set(char *msg, size_t len, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/*
 * An MPI call failed with mpirc: "what: " and the MPI error class's text into msg (the class
 * reads "File does not exist" where the code's own text adds an implementation's stack); returns
 * code (STENCIL_EMPI, or STENCIL_EIO for file operations).
 */
int err_mpi(char *msg, size_t len, int code, int mpirc, const char *what);

/*
 * Collective error agreement: every rank of comm gets the code (and message, prefixed with the
 * rank) of the lowest failing rank; 0 when no rank failed.
 */
int err_agree(MPI_Comm comm, int code, char *msg, size_t len);

/* err_set into obj->msg (a char array), the form skel's and io's states use. */
#define ERR_FAIL(obj, code, ...) err_set((obj)->msg, sizeof(obj)->msg, code, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* ERR_ERR_H */
