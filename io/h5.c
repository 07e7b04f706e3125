/*
 * The array in a parallel HDF5 file: one dataset "/u" (the field; IEEE little-endian float or
 * double, global sizes, row-major) with attributes "iteration" (int64), "sizes" (int64 per
 * dimension), "stencil_hash" (uint64, 0: none recorded), and for checkpoints the stencil's
 * "stencil_offsets" (npts x 3 int32), "stencil_weights" (npts double) and "stencil_divisor".
 * Every rank writes its tile into its hyperslab with one collective H5Dwrite from its strided
 * memory, nothing gathered. Each HDF5 call is an agreed phase (si_phase), so every rank returns
 * the same code; HDF5's own error printing is off during our calls (and restored after).
 */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "sio.h"

#define SI_H5_FIELD "u"

/* The open objects of one call; closed in reverse by h5_close. */
typedef struct h5_call {
    hid_t fapl, file, space, dset, mspace, dxpl;
    H5E_auto2_t efunc;
    void *edata;
} h5_call;

static void h5_open_call(h5_call *h)
{
    h->fapl = h->file = h->space = h->dset = h->mspace = h->dxpl = H5I_INVALID_HID;
    H5Eget_auto2(H5E_DEFAULT, &h->efunc, &h->edata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Returns 0, or non-zero when closing the file failed (its data may not be complete). */
static int h5_close(h5_call *h)
{
    int bad = 0;
    if (h->dxpl >= 0) H5Pclose(h->dxpl);
    if (h->mspace >= 0) H5Sclose(h->mspace);
    if (h->dset >= 0) H5Dclose(h->dset);
    if (h->space >= 0) H5Sclose(h->space);
    if (h->file >= 0) bad = H5Fclose(h->file) < 0;
    if (h->fapl >= 0) H5Pclose(h->fapl);
    H5Eset_auto2(H5E_DEFAULT, h->efunc, h->edata);
    return bad;
}

static hid_t h5_mem_type(stencil_type t)
{
    return t == STENCIL_DOUBLE ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
}

static int h5_fapl(si_ctx *c, h5_call *h)
{
    h->fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (h->fapl < 0 || H5Pset_fapl_mpio(h->fapl, c->comm, MPI_INFO_NULL) < 0)
        return si_fail(c, STENCIL_EIO, "HDF5: cannot set up MPI-IO file access");
    h->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (h->dxpl < 0 || H5Pset_dxpl_mpio(h->dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        return si_fail(c, STENCIL_EIO, "HDF5: cannot set up collective transfers");
    return 0;
}

/* The tile's hyperslab of the file space and its strided layout in memory. */
static int h5_select(si_ctx *c, h5_call *h, const stencil_tile *t)
{
    int n = t->ndims;
    hsize_t start[3], count[3], msz[3], mstart[3] = {0, 0, 0}, mstr[3] = {1, 1, 1};
    for (int d = 0; d < n; d++) {
        start[d] = (hsize_t)t->offset[d];
        count[d] = (hsize_t)t->size[d];
        msz[d] = d == 0 ? (hsize_t)t->size[0] : (hsize_t)(t->stride[d - 1] / t->stride[d]);
    }
    /* The innermost dimension may itself be strided: select every stride-th element. */
    mstr[n - 1] = (hsize_t)t->stride[n - 1];
    msz[n - 1] = (n == 1 ? (hsize_t)t->size[0] : msz[n - 1]) * mstr[n - 1];
    h->mspace = H5Screate_simple(n, msz, NULL);
    if (h->mspace < 0) return si_fail(c, STENCIL_EIO, "HDF5: H5Screate_simple failed");
    herr_t e;
    if (si_tile_cells(t) == 0)
        e = H5Sselect_none(h->space) < 0 || H5Sselect_none(h->mspace) < 0 ? -1 : 0;
    else
        e = H5Sselect_hyperslab(h->space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
                    H5Sselect_hyperslab(h->mspace, H5S_SELECT_SET, mstart, mstr, count, NULL) < 0
                ? -1
                : 0;
    return e < 0 ? si_fail(c, STENCIL_EIO, "HDF5: selecting the tile failed") : 0;
}

/* An attribute of rank 0 (scalar), 1 (n values) or 2 (n rows of cols values). */
static int h5_attr_shape(hid_t obj, const char *name, hid_t type, int rank, hsize_t n, hsize_t cols,
                         const void *v)
{
    hsize_t dims[2] = {n, cols};
    hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = sp < 0 ? -1 : H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    int bad = a < 0 || H5Awrite(a, type, v) < 0;
    if (a >= 0) H5Aclose(a);
    if (sp >= 0) H5Sclose(sp);
    return bad;
}

static int h5_attr(hid_t obj, const char *name, hid_t type, int rank, hsize_t n, const void *v)
{
    return h5_attr_shape(obj, name, type, rank, n, 1, v);
}

/* Every rank writes the same attributes (HDF5 metadata calls are collective). */
static int h5_attrs(si_ctx *c, h5_call *h, const stencil_tile *t, const si_meta *m)
{
    long long it = t->iteration, g[3];
    unsigned long long hash = m ? m->hash : 0;
    for (int d = 0; d < t->ndims; d++) g[d] = t->global_size[d];
    int bad = h5_attr(h->dset, "iteration", H5T_NATIVE_LLONG, 0, 1, &it);
    bad |= h5_attr(h->dset, "sizes", H5T_NATIVE_LLONG, 1, (hsize_t)t->ndims, g);
    bad |= h5_attr(h->dset, "stencil_hash", H5T_NATIVE_ULLONG, 0, 1, &hash);
    if (m && m->npts > 0) {
        bad |= h5_attr_shape(h->dset, "stencil_offsets", H5T_NATIVE_INT, 2, (hsize_t)m->npts, 3,
                             m->off);
        bad |= h5_attr(h->dset, "stencil_weights", H5T_NATIVE_DOUBLE, 1, (hsize_t)m->npts, m->w);
        bad |= h5_attr(h->dset, "stencil_divisor", H5T_NATIVE_DOUBLE, 0, 1, &m->divisor);
    }
    return bad ? si_fail(c, STENCIL_EIO, "HDF5: writing the attributes failed") : 0;
}

static int h5_create(si_ctx *c, h5_call *h, const char *path, const stencil_tile *t)
{
    hsize_t dims[3];
    for (int d = 0; d < t->ndims; d++) dims[d] = (hsize_t)t->global_size[d];
    h->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, h->fapl);
    if (h->file < 0) return si_fail(c, STENCIL_EIO, "%s: HDF5 cannot create the file", path);
    h->space = H5Screate_simple(t->ndims, dims, NULL);
    hid_t ft = t->type == STENCIL_DOUBLE ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
    if (h->space >= 0)
        h->dset =
            H5Dcreate2(h->file, SI_H5_FIELD, ft, h->space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    return h->dset < 0 ? si_fail(c, STENCIL_EIO, "%s: HDF5 cannot create the dataset", path) : 0;
}

int si_h5_write(si_ctx *c, const char *path, const stencil_tile *t, const si_meta *m)
{
    h5_call h;
    h5_open_call(&h);
    si_phase(c, h5_fapl(c, &h));
    if (!c->rc) si_phase(c, h5_create(c, &h, path, t));
    if (!c->rc) si_phase(c, h5_attrs(c, &h, t, m));
    if (!c->rc) si_phase(c, h5_select(c, &h, t));
    if (!c->rc)
        si_phase(c, H5Dwrite(h.dset, h5_mem_type(t->type), h.mspace, h.space, h.dxpl, t->data) < 0
                        ? si_fail(c, STENCIL_EIO, "%s: HDF5 write failed", path)
                        : 0);
    int bad = h5_close(&h);
    if (!c->rc) si_phase(c, bad ? si_fail(c, STENCIL_EIO, "%s: HDF5 close failed", path) : 0);
    return c->rc;
}

static int h5_read_attr(hid_t obj, const char *name, hid_t type, void *v)
{
    if (H5Aexists(obj, name) <= 0) return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int bad = a < 0 || H5Aread(a, type, v) < 0;
    if (a >= 0) H5Aclose(a);
    return bad;
}

/* Opens the file and the field, and checks its shape and type against the tile's. */
static int h5_open_field(si_ctx *c, h5_call *h, const char *path, const stencil_tile *t)
{
    hsize_t dims[3];
    long long g[3] = {1, 1, 1};
    h->file = H5Fopen(path, H5F_ACC_RDONLY, h->fapl);
    if (h->file < 0) return si_fail(c, STENCIL_EFORMAT, "%s: not a readable HDF5 file", path);
    h->dset = H5Dopen2(h->file, SI_H5_FIELD, H5P_DEFAULT);
    if (h->dset < 0) return si_fail(c, STENCIL_EFORMAT, "%s: no dataset /" SI_H5_FIELD, path);
    h->space = H5Dget_space(h->dset);
    int n = h->space < 0 ? -1 : H5Sget_simple_extent_ndims(h->space);
    if (n < 1 || n > 3 || H5Sget_simple_extent_dims(h->space, dims, NULL) < 0)
        return si_fail(c, STENCIL_EFORMAT, "%s: /" SI_H5_FIELD " is not a 1-3D array", path);
    for (int d = 0; d < n; d++) g[d] = (long long)dims[d];
    hid_t ft = H5Dget_type(h->dset);
    int type = -1;
    if (ft >= 0 && H5Tget_class(ft) == H5T_FLOAT)
        type = H5Tget_size(ft) == 8 ? STENCIL_DOUBLE : H5Tget_size(ft) == 4 ? STENCIL_FLOAT : -1;
    if (ft >= 0) H5Tclose(ft);
    if (type < 0) return si_fail(c, STENCIL_EFORMAT, "%s: elements are not float or double", path);
    return si_match_dims(c, n, g, type, t);
}

/* The attributes a read needs, checked before any cell is stored. */
static int h5_read_meta(si_ctx *c, h5_call *h, const char *path, long long *it,
                        unsigned long long want)
{
    unsigned long long hash = 0;
    h5_read_attr(h->dset, "stencil_hash", H5T_NATIVE_ULLONG, &hash);
    if (h5_read_attr(h->dset, "iteration", H5T_NATIVE_LLONG, it))
        return si_fail(c, STENCIL_EFORMAT, "%s: no iteration attribute", path);
    return si_check_hash(c, path, hash, want);
}

int si_h5_read(si_ctx *c, const char *path, stencil_tile *t, long *iteration,
               unsigned long long want, int *touched)
{
    h5_call h;
    long long it = 0;
    h5_open_call(&h);
    si_phase(c, h5_fapl(c, &h));
    if (!c->rc) si_phase(c, h5_open_field(c, &h, path, t));
    if (!c->rc) si_phase(c, h5_read_meta(c, &h, path, &it, want));
    if (!c->rc) si_phase(c, h5_select(c, &h, t));
    if (!c->rc) {
        *touched = 1;
        si_phase(c, H5Dread(h.dset, h5_mem_type(t->type), h.mspace, h.space, h.dxpl, t->data) < 0
                        ? si_fail(c, STENCIL_EFORMAT, "%s: HDF5 read failed (truncated?)", path)
                        : 0);
    }
    h5_close(&h);
    *iteration = (long)it;
    return c->rc;
}

int stencil_have_hdf5(void)
{
    return 1;
}
