/*
 * stencil_write(), stencil_read(), stencil_read_info(): the distributed array in one file through
 * collective MPI-IO. Each rank writes its tile straight from its strided memory into its place in
 * the file (subarray datatypes for both), so nothing is gathered on one rank.
 *
 * File layout (all little-endian):
 *   offset size
 *      0    8  magic "STENCIL\0"
 *      8    4  u32 format version (1)
 *     12    4  u32 header size = data offset (128)
 *     16    4  u32 ndims (1..3)
 *     20    4  u32 element type (0 = IEEE 754 binary32, 1 = binary64)
 *     24    4  u32 element size in bytes (4 or 8)
 *     28    4  u32 reserved (0)
 *     32   24  i64 global size of dimensions 0, 1, 2 (1 past ndims)
 *     56    8  i64 iteration (tile->iteration when written)
 *     64   64  reserved (0)
 *    128       the elements, row-major (dimension 0 slowest)
 */
#include <stdio.h>
#include <string.h>

#include "sio.h"

#define SI_MAGIC   "STENCIL"
#define SI_VERSION 1
#define SI_HEADER  128

typedef struct si_header {
    unsigned version, header_size, ndims, type, esize;
    long long gsize[3], iteration;
    unsigned long long hash; /* of the stencil (checkpoints), 0: none */
} si_header;

static void put_u32(unsigned char *p, unsigned long long v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static unsigned long long get_u(const unsigned char *p, int bytes)
{
    unsigned long long v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void si_encode(const stencil_tile *t, unsigned long long hash, unsigned char h[SI_HEADER])
{
    memset(h, 0, SI_HEADER);
    memcpy(h, SI_MAGIC, 8);
    put_u32(h + 8, SI_VERSION, 4);
    put_u32(h + 12, SI_HEADER, 4);
    put_u32(h + 16, (unsigned)t->ndims, 4);
    put_u32(h + 20, (unsigned)t->type, 4);
    put_u32(h + 24, t->type == STENCIL_DOUBLE ? 8 : 4, 4);
    for (int d = 0; d < 3; d++)
        put_u32(h + 32 + 8 * d, (unsigned long long)(d < t->ndims ? t->global_size[d] : 1), 8);
    put_u32(h + 56, (unsigned long long)t->iteration, 8);
    put_u32(h + 64, hash, 8);
}

static int si_decode(si_ctx *c, const unsigned char h[SI_HEADER], si_header *out)
{
    if (memcmp(h, SI_MAGIC, 8) != 0)
        return si_fail(c, STENCIL_EFORMAT, "not a libstencil array file (bad magic)");
    out->version = (unsigned)get_u(h + 8, 4);
    out->header_size = (unsigned)get_u(h + 12, 4);
    out->ndims = (unsigned)get_u(h + 16, 4);
    out->type = (unsigned)get_u(h + 20, 4);
    out->esize = (unsigned)get_u(h + 24, 4);
    for (int d = 0; d < 3; d++) out->gsize[d] = (long long)get_u(h + 32 + 8 * d, 8);
    out->iteration = (long long)get_u(h + 56, 8);
    out->hash = get_u(h + 64, 8);
    if (out->version != SI_VERSION || out->header_size != SI_HEADER)
        return si_fail(c, STENCIL_EFORMAT, "unsupported file format version %u (header %u bytes)",
                       out->version, out->header_size);
    if (out->ndims < 1 || out->ndims > 3 || out->type > 1 || out->esize != 4u + 4u * out->type)
        return si_fail(c, STENCIL_EFORMAT, "corrupt header: %u dimensions, type %u, size %u",
                       out->ndims, out->type, out->esize);
    for (int d = 0; d < 3; d++)
        if (out->gsize[d] <= 0 || (d >= (int)out->ndims && out->gsize[d] != 1))
            return si_fail(c, STENCIL_EFORMAT, "corrupt header: size %lld in dimension %d",
                           out->gsize[d], d);
    return 0;
}

/* The data is written in the native representation; the format promises little-endian. */
static int si_check_host(si_ctx *c)
{
    const unsigned one = 1;
    if (*(const unsigned char *)&one != 1)
        return si_fail(c, STENCIL_ENOSYS, "array files are little-endian; this host is not");
    return 0;
}

static const char *type_name(unsigned type)
{
    return type == STENCIL_DOUBLE ? "double" : "float";
}

static void sizes_str(char *buf, size_t len, int ndims, const long long *g)
{
    int n = snprintf(buf, len, "%lld", g[0]);
    for (int d = 1; d < ndims && n > 0 && (size_t)n < len; d++)
        n += snprintf(buf + n, len - (size_t)n, " x %lld", g[d]);
}

/* The file's array (ndims, sizes 1 past ndims, type) must be the tile's. */
int si_match_dims(si_ctx *c, int ndims, const long long *gsize, int type, const stencil_tile *t)
{
    long long g[3] = {1, 1, 1};
    for (int d = 0; d < t->ndims; d++) g[d] = t->global_size[d];
    char fs[80], ts[80];
    sizes_str(fs, sizeof fs, ndims, gsize);
    sizes_str(ts, sizeof ts, t->ndims, g);
    if (ndims != t->ndims || memcmp(gsize, g, sizeof g) != 0)
        return si_fail(c, STENCIL_EFORMAT, "the file holds a %dD %s array, the run a %dD %s array",
                       ndims, fs, t->ndims, ts);
    if (type != (int)t->type)
        return si_fail(c, STENCIL_EFORMAT, "the file holds %s elements, the run uses %s",
                       type_name((unsigned)type), type_name((unsigned)t->type));
    return 0;
}

/* The header must describe the array the tile belongs to. */
static int si_match(si_ctx *c, const si_header *h, const stencil_tile *t, long long fsize)
{
    long long cells = 1;
    for (int d = 0; d < 3; d++) cells *= h->gsize[d];
    int rc = si_match_dims(c, (int)h->ndims, h->gsize, (int)h->type, t);
    if (rc) return rc;
    if (fsize < SI_HEADER + cells * h->esize)
        return si_fail(c, STENCIL_EFORMAT, "the file is truncated: %lld bytes, %lld expected",
                       fsize, SI_HEADER + cells * h->esize);
    return 0;
}

/* The tile's place in the file, and its layout in memory; an empty tile moves nothing. */
static int si_types(si_ctx *c, const stencil_tile *t, MPI_Datatype *file, MPI_Datatype *mem)
{
    MPI_Datatype e = si_mpi_type(t->type);
    int n = t->ndims, gs[3], sub[3], start[3], msz[3], zero[3] = {0, 0, 0}, rc;
    if (si_tile_cells(t) == 0) {
        rc = MPI_Type_contiguous(1, e, file);
        if (rc == MPI_SUCCESS) rc = MPI_Type_contiguous(1, e, mem);
    } else {
        for (int d = 0; d < n; d++) {
            gs[d] = (int)t->global_size[d];
            sub[d] = (int)t->size[d];
            start[d] = (int)t->offset[d];
            msz[d] = d == 0 ? sub[0] : (int)(t->stride[d - 1] / t->stride[d]);
        }
        rc = MPI_Type_create_subarray(n, gs, sub, start, MPI_ORDER_C, e, file);
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_create_subarray(n, msz, sub, zero, MPI_ORDER_C, e, mem);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(file);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(mem);
    return rc == MPI_SUCCESS ? 0 : si_mpi_fail(c, rc, "building the subarray datatypes");
}

/*
 * Rank 0 alone (re)creates the file and writes the header, so open errors are its own. An old
 * file is cut to the new size rather than deleted first: deleting can fail (a directory that
 * forbids it) and would then leave a longer file's tail behind.
 */
static int si_create(si_ctx *c, const char *path, const stencil_tile *t, unsigned long long hash)
{
    unsigned char h[SI_HEADER];
    MPI_File fh;
    MPI_Status st;
    long long cells = 1;
    for (int d = 0; d < t->ndims; d++) cells *= t->global_size[d];
    si_encode(t, hash, h);
    int rc =
        MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) return si_mpi_fail(c, rc, path);
    rc = MPI_File_set_size(fh,
                           (MPI_Offset)(SI_HEADER + cells * (t->type == STENCIL_DOUBLE ? 8 : 4)));
    if (rc == MPI_SUCCESS) rc = MPI_File_write_at(fh, 0, h, SI_HEADER, MPI_BYTE, &st);
    int rc2 = MPI_File_close(&fh);
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
        return si_mpi_fail(c, rc != MPI_SUCCESS ? rc : rc2, path);
    return 0;
}

typedef struct si_xfer {
    MPI_File fh;
    MPI_Datatype file, mem;
} si_xfer;

/* Collective open, view and transfer; every MPI call is its own agreed phase. */
static void si_transfer(si_ctx *c, si_xfer *x, const char *path, const stencil_tile *t, int write)
{
    MPI_Status st;
    int rc;
    x->fh = MPI_FILE_NULL;
    x->file = x->mem = MPI_DATATYPE_NULL;
    si_phase(c, si_types(c, t, &x->file, &x->mem));
    if (!c->rc) {
        rc = MPI_File_open(c->comm, path, write ? MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL,
                           &x->fh);
        si_phase(c, rc == MPI_SUCCESS ? 0 : si_mpi_fail(c, rc, path));
    }
    if (!c->rc) {
        rc = MPI_File_set_view(x->fh, SI_HEADER, si_mpi_type(t->type), x->file, "native",
                               MPI_INFO_NULL);
        si_phase(c, rc == MPI_SUCCESS ? 0 : si_mpi_fail(c, rc, "MPI_File_set_view"));
    }
    if (!c->rc) {
        int n = si_tile_cells(t) > 0, got = 0;
        rc = write ? MPI_File_write_all(x->fh, t->data, n, x->mem, &st)
                   : MPI_File_read_all(x->fh, t->data, n, x->mem, &st);
        if (rc == MPI_SUCCESS) MPI_Get_count(&st, x->mem, &got);
        si_phase(c, rc != MPI_SUCCESS ? si_mpi_fail(c, rc, path)
                    : got != n        ? si_fail(c, STENCIL_EIO, "%s: short transfer", path)
                                      : 0);
    }
}

static void si_transfer_end(si_ctx *c, si_xfer *x, const char *path)
{
    if (x->fh != MPI_FILE_NULL) {
        int rc = MPI_File_close(&x->fh);
        si_phase(c, rc == MPI_SUCCESS ? 0 : si_mpi_fail(c, rc, path));
    }
    if (x->file != MPI_DATATYPE_NULL) MPI_Type_free(&x->file);
    if (x->mem != MPI_DATATYPE_NULL) MPI_Type_free(&x->mem);
}

static int si_args(si_ctx *c, const char *path, const stencil_tile *t)
{
    if (!path) return si_fail(c, STENCIL_EINVAL, "path is NULL");
    int rc = si_check_host(c);
    return rc ? rc : si_check_tile(c, t);
}

int si_h5_name(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return (n > 3 && !strcmp(path + n - 3, ".h5")) || (n > 5 && !strcmp(path + n - 5, ".hdf5"));
}

static void si_write_native(si_ctx *c, const char *path, const stencil_tile *tile,
                            unsigned long long hash)
{
    si_xfer x;
    si_phase(c, c->rank == 0 ? si_create(c, path, tile, hash) : 0);
    if (!c->rc) {
        si_transfer(c, &x, path, tile, 1);
        si_transfer_end(c, &x, path);
    }
}

/* Rank 0, before anything is written: the file and its sidecar may be (re)written. */
static int si_targets(si_ctx *c, const char *path, int xdmf)
{
    char xmf[4096];
    int rc = si_writable(c, path);
    if (rc || !xdmf) return rc;
    si_xdmf_name(path, xmf, sizeof xmf);
    return si_writable(c, xmf);
}

void si_write_start(si_ctx *c, const char *path, const stencil_tile *t, const si_meta *meta)
{
    if (meta) c->why = meta->why, c->whylen = meta->whylen;
    si_phase(c, si_args(c, path, t));
    if (!c->rc) {
        long it = t->iteration;
        si_phase(c, si_check_same(c, t, &it, 1));
    }
}

int si_write_file(MPI_Comm comm, const char *path, const stencil_tile *tile, const si_meta *meta)
{
    si_ctx c;
    if (si_begin(&c, comm, "stencil_write")) return si_end(&c);
    si_write_start(&c, path, tile, meta);
    int h5 = meta && meta->format >= 0 ? meta->format : si_h5_name(path);
    if (!c.rc) si_phase(&c, c.rank == 0 ? si_targets(&c, path, h5 && !(meta && meta->no_xdmf)) : 0);
    if (!c.rc && h5)
        si_phase(&c, si_h5_write(&c, path, tile, meta));
    else if (!c.rc)
        si_write_native(&c, path, tile, meta ? meta->hash : 0);
    int rc = si_end(&c);
    if (!rc && h5 && !(meta && meta->no_xdmf)) rc = si_write_xdmf(comm, path, tile);
    return rc;
}

int stencil_write(MPI_Comm comm, const char *path, const stencil_tile *tile)
{
    return si_write_file(comm, path, tile, NULL);
}

/* Rank 0 reads the header and the file size alone and broadcasts them: one open, not P. */
static int si_read_header(si_ctx *c, const char *path, unsigned char h[SI_HEADER], long long *fsize)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Offset size = 0;
    int got = 0;
    int rc = si_readable(c, path);
    if (rc) return rc;
    rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) return si_mpi_fail(c, rc, path);
    rc = MPI_File_get_size(fh, &size);
    if (rc == MPI_SUCCESS) rc = MPI_File_read_at(fh, 0, h, SI_HEADER, MPI_BYTE, &st);
    if (rc == MPI_SUCCESS) MPI_Get_count(&st, MPI_BYTE, &got);
    MPI_File_close(&fh);
    if (rc != MPI_SUCCESS) return si_mpi_fail(c, rc, path);
    *fsize = (long long)size;
    if (got < SI_HEADER)
        return si_fail(c, STENCIL_EFORMAT, "%s: %lld bytes, too short for a header", path, *fsize);
    return 0;
}

/* Agreed header of `path` on every rank, decoded. */
static void si_header_all(si_ctx *c, const char *path, si_header *h, long long *fsize)
{
    unsigned char raw[SI_HEADER];
    memset(raw, 0, sizeof raw);
    *fsize = 0;
    si_phase(c, c->rank == 0 ? si_read_header(c, path, raw, fsize) : 0);
    if (c->rc) return;
    if (MPI_Bcast(raw, SI_HEADER, MPI_BYTE, 0, c->comm) != MPI_SUCCESS ||
        MPI_Bcast(fsize, 1, MPI_LONG_LONG, 0, c->comm) != MPI_SUCCESS) {
        si_phase(c, si_fail(c, STENCIL_EMPI, "MPI_Bcast of the header failed"));
        return;
    }
    si_phase(c, si_decode(c, raw, h));
}

/* Rank 0 looks at the first bytes: HDF5's signature, or not. */
static int si_is_h5(si_ctx *c, const char *path, int *h5)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8] = {0};
    int rc = 0;
    *h5 = 0;
    if (c->rank == 0) {
        FILE *f = NULL;
        rc = si_readable(c, path);
        if (!rc && !(f = fopen(path, "rb")))
            rc = si_fail(c, STENCIL_EIO, "%s: cannot open", path);
        else if (!rc) {
            *h5 = fread(head, 1, 8, f) == 8 && !memcmp(head, sig, 8);
            fclose(f);
        }
    }
    si_phase(c, rc);
    if (!c->rc && MPI_Bcast(h5, 1, MPI_INT, 0, c->comm) != MPI_SUCCESS)
        si_phase(c, si_fail(c, STENCIL_EMPI, "MPI_Bcast failed"));
    return c->rc;
}

int si_check_hash(si_ctx *c, const char *path, unsigned long long have, unsigned long long want)
{
    if (have && want && have != want)
        return si_fail(c, STENCIL_EFORMAT, "%s holds a checkpoint of another stencil", path);
    return 0;
}

static void si_read_native(si_ctx *c, const char *path, stencil_tile *tile, long *iteration,
                           unsigned long long want, int *touched)
{
    si_xfer x;
    si_header h;
    long long fsize;
    si_header_all(c, path, &h, &fsize);
    if (!c->rc) si_phase(c, si_match(c, &h, tile, fsize));
    if (!c->rc) si_phase(c, si_check_hash(c, path, h.hash, want));
    if (!c->rc) {
        *touched = 1;
        si_transfer(c, &x, path, tile, 0);
        si_transfer_end(c, &x, path);
    }
    if (!c->rc) *iteration = (long)h.iteration;
}

int si_read_file(MPI_Comm comm, const char *path, stencil_tile *tile, long *iteration,
                 unsigned long long want, int *touched, char *why, size_t whylen)
{
    si_ctx c;
    long it = 0;
    int h5 = 0, moved = 0;
    if (si_begin(&c, comm, "stencil_read")) return si_end(&c);
    c.why = why;
    c.whylen = whylen;
    si_phase(&c, si_args(&c, path, tile));
    if (!c.rc) si_phase(&c, si_check_same(&c, tile, NULL, 0));
    if (!c.rc) si_is_h5(&c, path, &h5);
    if (!c.rc && h5)
        si_phase(&c, si_h5_read(&c, path, tile, &it, want, &moved));
    else if (!c.rc)
        si_read_native(&c, path, tile, &it, want, &moved);
    if (!c.rc) {
        tile->iteration = it;
        if (iteration) *iteration = it;
    }
    if (touched) *touched = moved;
    return si_end(&c);
}

int stencil_read(MPI_Comm comm, const char *path, stencil_tile *tile, long *iteration)
{
    return si_read_file(comm, path, tile, iteration, 0, NULL, NULL, 0);
}

int stencil_read_info(MPI_Comm comm, const char *path, int *ndims, long *sizes, stencil_type *type,
                      long *iteration)
{
    si_ctx c;
    si_header h;
    long long fsize;
    if (si_begin(&c, comm, "stencil_read_info")) return si_end(&c);
    si_phase(&c, path ? 0 : si_fail(&c, STENCIL_EINVAL, "path is NULL"));
    if (!c.rc) si_header_all(&c, path, &h, &fsize);
    if (!c.rc) {
        if (ndims) *ndims = (int)h.ndims;
        for (int d = 0; sizes && d < (int)h.ndims; d++) sizes[d] = (long)h.gsize[d];
        if (type) *type = (stencil_type)h.type;
        if (iteration) *iteration = (long)h.iteration;
    }
    return si_end(&c);
}
