/* Error codes, their names, and agreement on one error across all ranks (err.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

static const char *const messages[] = {
    "success",
    "invalid argument",
    "out of host memory",
    "the grid cannot be partitioned for this number of ranks and stencil radius",
    "backend not available (not built in, or no usable device)",
    "unknown kernel, or no implementation for this backend",
    "device runtime error",
    "device kernel build failed",
    "MPI error",
    "a user callback failed",
    "operation not supported by this backend",
    "double precision not supported by the device",
    "device memory exhausted",
    "input/output error",
    "malformed file or description",
};

const char *stencil_strerror(int code)
{
    if (code > 0 || code < STENCIL_ECODE_MIN) return "unknown error code";
    return messages[-code];
}

int err_set(char *msg, size_t len, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return code;
}

int err_mpi(char *msg, size_t len, int code, int mpirc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0, cls = mpirc;
    if (MPI_Error_class(mpirc, &cls) != MPI_SUCCESS) cls = mpirc;
    if (MPI_Error_string(cls, s, &n) != MPI_SUCCESS) strcpy(s, "unknown MPI error");
    return err_set(msg, len, code, "%s: %s", what, s);
}

/*
 * The lowest failing rank wins, so every rank reports the same code and message whatever order
 * failures happened in. Costs two small collectives; called only at phase boundaries.
 */
int err_agree(MPI_Comm comm, int code, char *msg, size_t len)
{
    int rank, size, who, mine;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mine = code ? rank : size;
    if (MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return code ? code : STENCIL_EMPI;
    if (who == size) return 0;
    char buf[300];
    /* A message agreed before (an inner phase's) keeps its one "rank N: " prefix. */
    int pre = 0;
    if (rank == who && sscanf(msg, "rank %*d: %n", &pre) >= 0 && pre > 0)
        snprintf(buf, sizeof buf, "%s", msg);
    else if (rank == who)
        snprintf(buf, sizeof buf, "rank %d: %s", rank, msg[0] ? msg : stencil_strerror(code));
    int agreed = code;
    if (MPI_Bcast(&agreed, 1, MPI_INT, who, comm) != MPI_SUCCESS ||
        MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, who, comm) != MPI_SUCCESS)
        return code ? code : STENCIL_EMPI;
    buf[sizeof buf - 1] = '\0';
    snprintf(msg, len, "%s", buf);
    return agreed;
}
