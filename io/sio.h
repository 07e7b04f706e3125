/* Private interface of the parallel output: tile checks and collective error agreement. */
#ifndef SI_SIO_H
#define SI_SIO_H

#include <mpi.h>

#include "err.h"
#include "stencil.h"

/*
 * The state of one collective I/O call. Every phase ends in si_phase(), which agrees on the
 * first failure across ranks (err_agree), so all ranks take the same path and return the
 * same code; later phases are skipped once rc is set.
 */
typedef struct si_ctx {
    MPI_Comm comm; /* private duplicate with MPI_ERRORS_RETURN */
    int rank, size;
    int rc;
    const char *fn; /* public function name, for the message */
    char msg[300];
    char *why; /* set: si_end copies the message here instead of printing it (skel's calls) */
    size_t whylen;
} si_ctx;

/* Duplicates comm; returns 0 or a code that every rank gets (comm is the same on all ranks). */
int si_begin(si_ctx *c, MPI_Comm comm, const char *fn);
/* Agrees on `code` (this rank's result of the phase) unless an earlier phase failed. */
void si_phase(si_ctx *c, int code);
/* Prints the agreed message on rank 0 when the call failed, frees the communicator. */
int si_end(si_ctx *c);
/* err.h's helpers into c->msg; return code. MPI failures of file operations are STENCIL_EIO. */
#define si_fail(c, code, ...)       ERR_FAIL(c, code, __VA_ARGS__)
#define si_mpi_fail(c, mpirc, what) err_mpi((c)->msg, sizeof(c)->msg, STENCIL_EIO, mpirc, what)

/* Local checks of a tile (dims, type, box inside the array, nested strides); no MPI. */
int si_check_tile(si_ctx *c, const stencil_tile *t);
/*
 * Collective: every rank passed the same ndims, type, global sizes and `extra` values (up to 8),
 * and the tiles' cell counts add up to the array's, so no cell is missing or written twice.
 */
int si_check_same(si_ctx *c, const stencil_tile *t, const long *extra, int nextra);
long long si_tile_cells(const stencil_tile *t);
/*
 * Local, for the rank that opens the file: a path to be written must be absent or a regular
 * file (a device node, FIFO or directory is never replaced or deleted); a path to be read must
 * be a regular file (a FIFO would block the open). 0 or STENCIL_EIO with c->msg set.
 */
int si_writable(si_ctx *c, const char *path);
int si_readable(si_ctx *c, const char *path);
/* Removes path when it is a regular file (a temporary of ours), never anything else. */
void si_remove_regular(const char *path);
MPI_Datatype si_mpi_type(stencil_type type);

/*
 * What a checkpoint records beside the array: a hash of the stencil (0: none, as stencil_write
 * writes) and, for HDF5's attributes, its points (npts offsets of 3 ints, weights, divisor).
 */
typedef struct si_meta {
    unsigned long long hash;
    int npts;
    const int (*off)[3];
    const double *w;
    double divisor;
    int format;  /* -1: by the name (si_h5_name), 0: native, 1: HDF5 */
    int no_xdmf; /* HDF5 without its XDMF sidecar (a checkpoint writes it after the rename) */
    char *why;   /* the agreed message of a failure, not printed (NULL: rank 0 prints it) */
    size_t whylen;
} si_meta;

/*
 * stencil_write / stencil_read with the stencil's hash: HDF5 when the name ends in ".h5" or
 * ".hdf5" (writing) or the file starts with HDF5's signature (reading), else the native format.
 * meta may be NULL. A read checks everything before it stores any cell: the header or the
 * attributes, and a file's stencil hash against want (files without one are accepted; want 0:
 * any), so on STENCIL_EFORMAT the tile's memory is untouched; *touched (may be NULL) is 1 when
 * the failure came during or after the data transfer (memory then partly overwritten).
 * Collective, agreed codes.
 */
int si_write_file(MPI_Comm comm, const char *path, const stencil_tile *t, const si_meta *meta);
/* The checks a write starts with, as agreed phases of c: the path, the tile, the same grid and
   iteration on every rank; meta's why (may be NULL) receives the message. */
void si_write_start(si_ctx *c, const char *path, const stencil_tile *t, const si_meta *meta);
int si_read_file(MPI_Comm comm, const char *path, stencil_tile *t, long *iteration,
                 unsigned long long want, int *touched, char *why, size_t whylen);
int si_h5_name(const char *path);

/*
 * HDF5 (h5.c; h5_none.c answers STENCIL_ENOSYS): inside a si_ctx, every phase agreed. read
 * checks dimensions, sizes and type against the tile.
 */
int si_h5_write(si_ctx *c, const char *path, const stencil_tile *t, const si_meta *meta);
int si_h5_read(si_ctx *c, const char *path, stencil_tile *t, long *iteration,
               unsigned long long want, int *touched);
/*
 * Several arrays of one grid in one HDF5 file (a program's fields and levels), one dataset each,
 * named by its tile (si_dset_name). write_set creates the file; fill(i, t, user, why, len) sets
 * tile t of array i (geometry, data, field and level) or returns a code with its reason in why,
 * agreed like every phase. read_set reads tiles t[0..n-1], all their datasets checked (shape,
 * type, hash, one iteration for all) before any cell is stored.
 */
typedef int (*si_fill_fn)(int i, stencil_tile *t, void *user, char *why, size_t len);
int si_h5_write_set(si_ctx *c, const char *path, int n, si_fill_fn fill, void *user,
                    const si_meta *meta);
int si_h5_read_set(si_ctx *c, const char *path, stencil_tile *t, int n, long *iteration,
                   unsigned long long want, int *touched);
/* The same, whole collective calls (io/fields.c): codes and messages agreed (into why). */
int si_write_set(MPI_Comm comm, const char *path, const stencil_tile *geom, int n, si_fill_fn fill,
                 void *user, const si_meta *meta);
int si_read_set(MPI_Comm comm, const char *path, stencil_tile *t, int n, long *iteration,
                unsigned long long want, int *touched, char *why, size_t whylen);
/* A file's stencil hash against the one the reader wants (si_read_file); 0 or EFORMAT. */
int si_check_hash(si_ctx *c, const char *path, unsigned long long have, unsigned long long want);
/* The datasets of one HDF5 file, by name (programs: a field, "FIELD.prev" its previous level). */
#define SI_MAX_SETS 64
typedef struct si_names {
    int n;
    char name[SI_MAX_SETS][72];
} si_names;
/* A tile's dataset: "u" for a stencil's, the field's name for a program's ("FIELD.prev" for
   level -1). */
void si_dset_name(const stencil_tile *t, char *out, size_t len);
/* Rank 0 alone (a serial open): the datasets of the file at path of the shape of the tile that
   wrote it, in name order. 0 or EFORMAT. */
int si_h5_names(si_ctx *c, const char *path, si_names *nm);
/*
 * The XDMF sidecar of the HDF5 file h5path (its name with .h5/.hdf5 replaced by .xmf), which
 * ParaView and VisIt open: a uniform grid of the tile's global sizes, one attribute per dataset
 * of the file (rank 0 lists them). Written by rank 0, through a temporary name and a rename.
 * Collective, agreed code.
 */
int si_write_xdmf(MPI_Comm comm, const char *h5path, const stencil_tile *t);
/*
 * The sidecar of the datasets nm in two steps, for checkpoints: written to its temporary name (and
 * its final name checked) before the .h5 is renamed into place, so that nothing is replaced when
 * the sidecar cannot be written; renamed after it. Collective, agreed codes.
 */
int si_xdmf_prepare(MPI_Comm comm, const char *h5path, const stencil_tile *t, const si_names *nm,
                    char *why, size_t whylen);
int si_xdmf_commit(MPI_Comm comm, const char *h5path, char *why, size_t whylen);
void si_xdmf_discard(const char *h5path);
void si_xdmf_name(const char *h5path, char *out, size_t len);
/* Shared by both formats' size and type checks. */
int si_match_dims(si_ctx *c, int ndims, const long long *gsize, int type, const stencil_tile *t);

#endif /* SI_IO_H */
