/*
 * Arrays in a parallel HDF5 file: one dataset per array ("/u" for a stencil's; a program's
 * fields by name, "FIELD.prev" for a previous level; IEEE little-endian float or double, global
 * sizes, row-major), each with attributes "iteration" (int64), "sizes" (int64 per
 * dimension), "stencil_hash" (uint64, 0: none recorded), and for checkpoints the stencil's
 * "stencil_offsets" (npts x 3 int32), "stencil_weights" (npts double) and "stencil_divisor".
 * Every rank writes its tile into its hyperslab with one collective H5Dwrite from its strided
 * memory, nothing gathered. Each HDF5 call is an agreed phase (si_phase), so every rank returns
 * the same code; HDF5's own error printing is off during our calls (and restored after).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "sio.h"

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

/* The file: created (replacing one there), or opened for writing (a program's field added). */
static int h5_file(si_ctx *c, h5_call *h, const char *path, int append)
{
    h->file = append ? H5Fopen(path, H5F_ACC_RDWR, h->fapl)
                     : H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, h->fapl);
    return h->file < 0 ? si_fail(c, STENCIL_EIO, "%s: HDF5 cannot create the file", path) : 0;
}

/* The dataset of tile t, the one before it (of a set) closed. */
static int h5_dset(si_ctx *c, h5_call *h, const char *path, const stencil_tile *t)
{
    hsize_t dims[3];
    char name[96];
    si_dset_name(t, name, sizeof name);
    for (int d = 0; d < t->ndims; d++) dims[d] = (hsize_t)t->global_size[d];
    if (h->mspace >= 0) H5Sclose(h->mspace);
    if (h->dset >= 0) H5Dclose(h->dset);
    if (h->space >= 0) H5Sclose(h->space);
    h->mspace = h->dset = h->space = H5I_INVALID_HID;
    h->space = H5Screate_simple(t->ndims, dims, NULL);
    hid_t ft = t->type == STENCIL_DOUBLE ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
    if (h->space >= 0)
        h->dset = H5Dcreate2(h->file, name, ft, h->space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    return h->dset < 0
               ? si_fail(c, STENCIL_EIO, "%s: HDF5 cannot create the dataset /%s", path, name)
               : 0;
}

/* The dataset of t: attributes, then every rank's tile in one collective write. */
static void h5_put(si_ctx *c, h5_call *h, const char *path, const stencil_tile *t, const si_meta *m)
{
    si_phase(c, h5_dset(c, h, path, t));
    if (!c->rc) si_phase(c, h5_attrs(c, h, t, m));
    if (!c->rc) si_phase(c, h5_select(c, h, t));
    if (!c->rc)
        si_phase(c,
                 H5Dwrite(h->dset, h5_mem_type(t->type), h->mspace, h->space, h->dxpl, t->data) < 0
                     ? si_fail(c, STENCIL_EIO, "%s: HDF5 write failed", path)
                     : 0);
}

static void h5_end(si_ctx *c, h5_call *h, const char *path)
{
    int bad = h5_close(h);
    if (!c->rc) si_phase(c, bad ? si_fail(c, STENCIL_EIO, "%s: HDF5 close failed", path) : 0);
}

/* Dataset name of file f: its shape, element type and iteration are t's. */
static int h5_same_grid(hid_t f, const char *name, const stencil_tile *t)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) return 0;
    hid_t sp = H5Dget_space(d), ft = H5Dget_type(d);
    hsize_t dims[3];
    long long it = -1;
    int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == t->ndims &&
             H5Sget_simple_extent_dims(sp, dims, NULL) >= 0 && ft >= 0 &&
             H5Tget_class(ft) == H5T_FLOAT &&
             H5Tget_size(ft) == (t->type == STENCIL_DOUBLE ? 8 : 4);
    for (int k = 0; ok && k < t->ndims; k++) ok = dims[k] == (hsize_t)t->global_size[k];
    if (ok && H5Aexists(d, "iteration") > 0) {
        hid_t a = H5Aopen(d, "iteration", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_LLONG, &it) < 0) it = -1;
        if (a >= 0) H5Aclose(a);
    }
    ok = ok && it == t->iteration;
    if (ft >= 0) H5Tclose(ft);
    if (sp >= 0) H5Sclose(sp);
    H5Dclose(d);
    return ok;
}

/* The datasets of file f that t's grid has (every link, when t is NULL). */
static void h5_list(hid_t f, const stencil_tile *t, si_names *nm)
{
    H5G_info_t gi;
    nm->n = 0;
    if (H5Gget_info(f, &gi) < 0) return;
    for (hsize_t k = 0; k < gi.nlinks && nm->n < SI_MAX_SETS; k++) {
        char *b = nm->name[nm->n];
        ssize_t len = H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, k, b,
                                         sizeof nm->name[0], H5P_DEFAULT);
        if (len > 0 && (size_t)len < sizeof nm->name[0] && (!t || h5_same_grid(f, b, t))) nm->n++;
    }
}

/*
 * Rank 0, for a program's field given to stencil_write: 1 when path is already an HDF5 file of
 * this grid and iteration (all its datasets) without this field, which is then added to it; 0
 * when the file is to be made anew (none, another grid or iteration, or this field there:
 * the next output has begun).
 */
static int h5_can_add(const char *path, const stencil_tile *t)
{
    si_names all, same;
    char name[96];
    if (access(path, F_OK) != 0 || H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    h5_list(f, NULL, &all);
    h5_list(f, t, &same);
    si_dset_name(t, name, sizeof name);
    int ok = all.n > 0 && all.n == same.n && all.n < SI_MAX_SETS;
    for (int i = 0; ok && i < all.n; i++) ok = strcmp(all.name[i], name) != 0;
    H5Fclose(f);
    return ok;
}

int si_h5_write(si_ctx *c, const char *path, const stencil_tile *t, const si_meta *m)
{
    h5_call h;
    int add = 0;
    h5_open_call(&h);
    if (t->field) { /* a program's field: into the file of the others of its output */
        if (c->rank == 0) add = h5_can_add(path, t);
        if (MPI_Bcast(&add, 1, MPI_INT, 0, c->comm) != MPI_SUCCESS)
            si_phase(c, si_fail(c, STENCIL_EMPI, "MPI_Bcast failed"));
    }
    if (!c->rc) si_phase(c, h5_fapl(c, &h));
    if (!c->rc) si_phase(c, h5_file(c, &h, path, add));
    if (!c->rc) h5_put(c, &h, path, t, m);
    h5_end(c, &h, path);
    return c->rc;
}

int si_h5_write_set(si_ctx *c, const char *path, int n, si_fill_fn fill, void *user,
                    const si_meta *m)
{
    h5_call h;
    h5_open_call(&h);
    si_phase(c, h5_fapl(c, &h));
    if (!c->rc) si_phase(c, h5_file(c, &h, path, 0));
    for (int i = 0; i < n && !c->rc; i++) {
        stencil_tile t;
        char why[200] = "";
        int e = fill(i, &t, user, why, sizeof why);
        si_phase(c, e ? si_fail(c, e, "%s", why) : 0);
        if (!c->rc) h5_put(c, &h, path, &t, m);
    }
    h5_end(c, &h, path);
    return c->rc;
}

int si_h5_names(si_ctx *c, const char *path, si_names *nm)
{
    H5E_auto2_t efunc;
    void *edata;
    H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) h5_list(f, NULL, nm);
    if (f >= 0) H5Fclose(f);
    H5Eset_auto2(H5E_DEFAULT, efunc, edata);
    if (f < 0 || nm->n == 0) return si_fail(c, STENCIL_EFORMAT, "%s: no datasets to show", path);
    return 0;
}

static int h5_read_attr(hid_t obj, const char *name, hid_t type, void *v)
{
    if (H5Aexists(obj, name) <= 0) return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int bad = a < 0 || H5Aread(a, type, v) < 0;
    if (a >= 0) H5Aclose(a);
    return bad;
}

static int h5_open_file(si_ctx *c, h5_call *h, const char *path)
{
    h->file = H5Fopen(path, H5F_ACC_RDONLY, h->fapl);
    return h->file < 0 ? si_fail(c, STENCIL_EFORMAT, "%s: not a readable HDF5 file", path) : 0;
}

/* Opens the tile's dataset (the one before it closed), and checks its shape and type against
   the tile's. */
static int h5_open_field(si_ctx *c, h5_call *h, const char *path, const stencil_tile *t)
{
    hsize_t dims[3];
    long long g[3] = {1, 1, 1};
    char name[96];
    si_dset_name(t, name, sizeof name);
    if (h->mspace >= 0) H5Sclose(h->mspace);
    if (h->dset >= 0) H5Dclose(h->dset);
    if (h->space >= 0) H5Sclose(h->space);
    h->mspace = h->dset = h->space = H5I_INVALID_HID;
    h->dset = H5Dopen2(h->file, name, H5P_DEFAULT);
    if (h->dset < 0) return si_fail(c, STENCIL_EFORMAT, "%s: no dataset /%s", path, name);
    h->space = H5Dget_space(h->dset);
    int n = h->space < 0 ? -1 : H5Sget_simple_extent_ndims(h->space);
    if (n < 1 || n > 3 || H5Sget_simple_extent_dims(h->space, dims, NULL) < 0)
        return si_fail(c, STENCIL_EFORMAT, "%s: /%s is not a 1-3D array", path, name);
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

/* The tile's dataset into its memory, its shape, type and attributes checked first. */
static void h5_get(si_ctx *c, h5_call *h, const char *path, stencil_tile *t, long long *it,
                   unsigned long long want, int *touched)
{
    si_phase(c, h5_open_field(c, h, path, t));
    if (!c->rc) si_phase(c, h5_read_meta(c, h, path, it, want));
    if (!c->rc) si_phase(c, h5_select(c, h, t));
    if (!c->rc) {
        *touched = 1;
        si_phase(c,
                 H5Dread(h->dset, h5_mem_type(t->type), h->mspace, h->space, h->dxpl, t->data) < 0
                     ? si_fail(c, STENCIL_EFORMAT, "%s: HDF5 read failed (truncated?)", path)
                     : 0);
    }
}

int si_h5_read(si_ctx *c, const char *path, stencil_tile *t, long *iteration,
               unsigned long long want, int *touched)
{
    h5_call h;
    long long it = 0;
    h5_open_call(&h);
    si_phase(c, h5_fapl(c, &h));
    if (!c->rc) si_phase(c, h5_open_file(c, &h, path));
    if (!c->rc) h5_get(c, &h, path, t, &it, want, touched);
    h5_close(&h);
    *iteration = (long)it;
    return c->rc;
}

int si_h5_read_set(si_ctx *c, const char *path, stencil_tile *t, int n, long *iteration,
                   unsigned long long want, int *touched)
{
    h5_call h;
    long long it = 0, first = 0;
    h5_open_call(&h);
    si_phase(c, h5_fapl(c, &h));
    if (!c->rc) si_phase(c, h5_open_file(c, &h, path));
    for (int i = 0; i < n && !c->rc; i++) { /* every dataset checked before any is read */
        si_phase(c, h5_open_field(c, &h, path, &t[i]));
        if (!c->rc) si_phase(c, h5_read_meta(c, &h, path, &it, want));
        if (!c->rc && i && it != first)
            si_phase(c, si_fail(c, STENCIL_EFORMAT, "%s: datasets of iterations %lld and %lld",
                                path, first, it));
        first = it;
    }
    for (int i = 0; i < n && !c->rc; i++) h5_get(c, &h, path, &t[i], &it, want, touched);
    h5_close(&h);
    *iteration = (long)first;
    return c->rc;
}

int stencil_have_hdf5(void)
{
    return 1;
}
