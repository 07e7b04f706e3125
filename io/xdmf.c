/*
 * The XDMF sidecar of an HDF5 snapshot: ParaView and VisIt read the grid from it and the fields
 * from the HDF5 file it names (relative: the two files stay together), one attribute of the one
 * grid per dataset (a stencil's "u"; a program's fields, by name). 1D arrays are shown as a
 * 1 x N 2D grid; cells are the grid's points, spacing 1, origin 0.
 */
#include <stdio.h>
#include <string.h>

#include "sio.h"

void si_xdmf_name(const char *h5path, char *out, size_t len)
{
    size_t n = strlen(h5path), ext = 0;
    if (n > 3 && !strcmp(h5path + n - 3, ".h5")) ext = 3;
    if (n > 5 && !strcmp(h5path + n - 5, ".hdf5")) ext = 5;
    snprintf(out, len, "%.*s.xmf", (int)(n - ext), h5path);
}

static void dims_str(const stencil_tile *t, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", t->ndims == 1 ? "1" : "");
    for (int d = 0; d < t->ndims; d++)
        n += snprintf(buf + n, len - (size_t)n, "%s%ld", n ? " " : "", t->global_size[d]);
}

void si_dset_name(const stencil_tile *t, char *out, size_t len)
{
    if (!t->field)
        snprintf(out, len, "u");
    else
        snprintf(out, len, "%s%s", t->field, t->level < 0 ? ".prev" : "");
}

static void xdmf_body(FILE *f, const char *h5base, const stencil_tile *t, const si_names *nm)
{
    int nd = t->ndims < 2 ? 2 : t->ndims;
    char dims[96];
    dims_str(t, dims, sizeof dims);
    fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n");
    fprintf(f,
            "<Xdmf Version=\"3.0\">\n <Domain>\n  <Grid Name=\"stencil\" GridType=\"Uniform\">\n");
    fprintf(f, "   <Time Value=\"%ld\"/>\n", t->iteration);
    fprintf(f, "   <Topology TopologyType=\"%dDCoRectMesh\" Dimensions=\"%s\"/>\n", nd, dims);
    fprintf(f, "   <Geometry GeometryType=\"%s\">\n", nd == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY");
    fprintf(f,
            "    <DataItem Name=\"Origin\" Dimensions=\"%d\" NumberType=\"Float\" "
            "Precision=\"8\" Format=\"XML\">%s</DataItem>\n",
            nd, nd == 3 ? "0 0 0" : "0 0");
    fprintf(f,
            "    <DataItem Name=\"Spacing\" Dimensions=\"%d\" NumberType=\"Float\" "
            "Precision=\"8\" Format=\"XML\">%s</DataItem>\n   </Geometry>\n",
            nd, nd == 3 ? "1 1 1" : "1 1");
    for (int i = 0; i < nm->n; i++) {
        fprintf(f, "   <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n",
                nm->name[i]);
        fprintf(f,
                "    <DataItem Dimensions=\"%s\" NumberType=\"Float\" Precision=\"%d\" "
                "Format=\"HDF\">%s:/%s</DataItem>\n   </Attribute>\n",
                dims, t->type == STENCIL_DOUBLE ? 8 : 4, h5base, nm->name[i]);
    }
    fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
}

static void xdmf_names(const char *h5path, char *xmf, size_t len, char *tmp, size_t tlen)
{
    si_xdmf_name(h5path, xmf, len);
    snprintf(tmp, tlen, "%s.tmp", xmf);
}

/* Rank 0: the sidecar under its temporary name, its final name checked (si_writable). */
static int xdmf_tmp(si_ctx *c, const char *h5path, const stencil_tile *t, const si_names *nm)
{
    char xmf[4096], tmp[4200];
    const char *slash = strrchr(h5path, '/');
    xdmf_names(h5path, xmf, sizeof xmf, tmp, sizeof tmp);
    int rc = si_writable(c, xmf);
    if (!rc) rc = si_writable(c, tmp);
    if (rc) return rc;
    FILE *f = fopen(tmp, "w");
    if (!f) return si_fail(c, STENCIL_EIO, "%s: cannot create the XDMF file", tmp);
    xdmf_body(f, slash ? slash + 1 : h5path, t, nm);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad) si_remove_regular(tmp);
    return bad ? si_fail(c, STENCIL_EIO, "%s: writing the XDMF file failed", tmp) : 0;
}

/* Rank 0: the temporary sidecar renamed into place, so a reader never sees half of it. */
static int xdmf_rename(si_ctx *c, const char *h5path)
{
    char xmf[4096], tmp[4200];
    xdmf_names(h5path, xmf, sizeof xmf, tmp, sizeof tmp);
    if (rename(tmp, xmf) == 0) return 0;
    si_remove_regular(tmp);
    return si_fail(c, STENCIL_EIO, "%s: writing the XDMF file failed", xmf);
}

int si_xdmf_prepare(MPI_Comm comm, const char *h5path, const stencil_tile *t, const si_names *nm,
                    char *why, size_t whylen)
{
    si_ctx c;
    if (si_begin(&c, comm, "stencil_checkpoint (XDMF)")) return si_end(&c);
    c.why = why;
    c.whylen = whylen;
    si_phase(&c, c.rank == 0 ? xdmf_tmp(&c, h5path, t, nm) : 0);
    return si_end(&c);
}

int si_xdmf_commit(MPI_Comm comm, const char *h5path, char *why, size_t whylen)
{
    si_ctx c;
    if (si_begin(&c, comm, "stencil_checkpoint (XDMF)")) return si_end(&c);
    c.why = why;
    c.whylen = whylen;
    si_phase(&c, c.rank == 0 ? xdmf_rename(&c, h5path) : 0);
    return si_end(&c);
}

void si_xdmf_discard(const char *h5path)
{
    char xmf[4096], tmp[4200];
    xdmf_names(h5path, xmf, sizeof xmf, tmp, sizeof tmp);
    si_remove_regular(tmp);
}

/* Rank 0: the file's datasets, then the sidecar that shows them. */
static int xdmf_listed(si_ctx *c, const char *h5path, const stencil_tile *t)
{
    si_names nm;
    int rc = si_h5_names(c, h5path, &nm);
    return rc ? rc : xdmf_tmp(c, h5path, t, &nm);
}

int si_write_xdmf(MPI_Comm comm, const char *h5path, const stencil_tile *t)
{
    si_ctx c;
    if (si_begin(&c, comm, "stencil_write (XDMF)")) return si_end(&c);
    si_phase(&c, c.rank == 0 ? xdmf_listed(&c, h5path, t) : 0);
    if (!c.rc) si_phase(&c, c.rank == 0 ? xdmf_rename(&c, h5path) : 0);
    return si_end(&c);
}
