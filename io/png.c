/*
 * stencil_write_png(): a picture of a 2D array, or of a 2D slice of a 3D array. Pictures are
 * small, so each rank sends its sampled part of the slice to rank 0, which renders and encodes.
 */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picture.h"
#include "sio.h"

/* The slice's plane: dimensions a (rows) and b (columns), sampled every f-th cell. */
typedef struct sp_plane {
    int a, b, s; /* s: the sliced dimension, -1 for 2D */
    int in;      /* this rank's tile meets the slice */
    long idx;
    long f;
    int gh, gw;
    int rect[4]; /* this rank's samples: first row, rows, first column, columns */
    double *part;
    double range[2]; /* this rank's finite min, and -max (one MPI_MIN for both) */
} sp_plane;

static int sp_args(si_ctx *c, const char *path, const stencil_tile *t, int sd, long si, double vmin,
                   double vmax)
{
    if (!path) return si_fail(c, STENCIL_EINVAL, "path is NULL");
    int rc = si_check_tile(c, t);
    if (rc) return rc;
    if (t->ndims == 1) return si_fail(c, STENCIL_EINVAL, "a picture needs a 2D or 3D array");
    if (t->ndims == 3 && (sd < 0 || sd > 2 || si < 0 || si >= t->global_size[sd]))
        return si_fail(c, STENCIL_EINVAL, "slice %ld of dimension %d is outside the 3D array", si,
                       sd);
    if (!isfinite(vmin) || !isfinite(vmax) || vmin > vmax)
        return si_fail(c, STENCIL_EINVAL, "value range [%g, %g] is not a finite interval", vmin,
                       vmax);
    return 0;
}

static long ceil_div(long x, long f)
{
    return (x + f - 1) / f;
}

static void sp_geometry(sp_plane *p, const stencil_tile *t, int sd, long si)
{
    p->s = t->ndims == 3 ? sd : -1;
    p->idx = si;
    p->a = p->s == 0 ? 1 : 0;
    p->b = p->s == 2 || p->s == -1 ? 1 : 2;
    long na = t->global_size[p->a], nb = t->global_size[p->b], m = na > nb ? na : nb;
    p->f = ceil_div(m, SP_MAX_SIDE);
    p->gh = (int)ceil_div(na, p->f);
    p->gw = (int)ceil_div(nb, p->f);
    p->in = p->s < 0 || (si >= t->offset[p->s] && si < t->offset[p->s] + t->size[p->s]);
    int in = p->in && si_tile_cells(t) > 0;
    long oa = t->offset[p->a], ob = t->offset[p->b];
    p->rect[0] = (int)ceil_div(oa, p->f);
    p->rect[1] = in ? (int)(ceil_div(oa + t->size[p->a], p->f) - p->rect[0]) : 0;
    p->rect[2] = (int)ceil_div(ob, p->f);
    p->rect[3] = in ? (int)(ceil_div(ob + t->size[p->b], p->f) - p->rect[2]) : 0;
}

static double load(const stencil_tile *t, const sp_plane *p, long i, long j)
{
    long at = i * t->stride[p->a] + j * t->stride[p->b];
    if (p->s >= 0) at += (p->idx - t->offset[p->s]) * t->stride[p->s];
    return t->type == STENCIL_DOUBLE ? ((const double *)t->data)[at]
                                     : (double)((const float *)t->data)[at];
}

/* This rank's samples, and the finite range of all its cells in the slice. */
static int sp_sample(si_ctx *c, sp_plane *p, const stencil_tile *t)
{
    size_t n = (size_t)p->rect[1] * (size_t)p->rect[3];
    p->range[0] = p->range[1] = INFINITY;
    p->part = malloc(n ? n * sizeof *p->part : 1);
    if (!p->part) return si_fail(c, STENCIL_ENOMEM, "no memory for %zu picture samples", n);
    for (long i = 0; p->in && i < t->size[p->a]; i++)
        for (long j = 0; j < t->size[p->b]; j++) {
            double v = load(t, p, i, j);
            if (isfinite(v)) {
                p->range[0] = v < p->range[0] ? v : p->range[0];
                p->range[1] = -v < p->range[1] ? -v : p->range[1];
            }
        }
    for (int y = 0; y < p->rect[1]; y++)
        for (int x = 0; x < p->rect[3]; x++)
            p->part[(size_t)y * (size_t)p->rect[3] + (size_t)x] =
                load(t, p, (p->rect[0] + y) * p->f - t->offset[p->a],
                     (p->rect[2] + x) * p->f - t->offset[p->b]);
    return 0;
}

/* Rank 0's buffers for the gather: rectangles, counts, displacements, samples, the field. */
typedef struct sp_gather {
    int *rects, *counts, *displs;
    double *recv, *field;
} sp_gather;

static void sp_gather_free(sp_gather *g)
{
    free(g->rects);
    free(g->counts);
    free(g->displs);
    free(g->recv);
    free(g->field);
}

static int sp_gather_alloc(si_ctx *c, sp_gather *g, const sp_plane *p)
{
    size_t np = (size_t)c->size, total = 0, cells = (size_t)p->gh * (size_t)p->gw;
    g->counts = malloc(np * sizeof *g->counts);
    g->displs = malloc(np * sizeof *g->displs);
    g->field = malloc(cells * sizeof *g->field);
    for (int r = 0; g->counts && g->displs && r < c->size; r++) {
        g->displs[r] = (int)total;
        g->counts[r] = g->rects[4 * r + 1] * g->rects[4 * r + 3];
        total += (size_t)g->counts[r];
    }
    g->recv = malloc(total ? total * sizeof *g->recv : 1);
    if (!g->counts || !g->displs || !g->field || !g->recv)
        return si_fail(c, STENCIL_ENOMEM, "no memory for a %d x %d picture", p->gh, p->gw);
    for (size_t i = 0; i < cells; i++) g->field[i] = NAN; /* cells nobody sent stay grey */
    return 0;
}

static void sp_place(const sp_gather *g, const sp_plane *p, int nranks)
{
    for (int r = 0; r < nranks; r++) {
        const int *q = g->rects + 4 * r;
        const double *src = g->recv + g->displs[r];
        for (int y = 0; y < q[1]; y++)
            for (int x = 0; x < q[3]; x++)
                if (q[0] + y < p->gh && q[2] + x < p->gw)
                    g->field[(size_t)(q[0] + y) * (size_t)p->gw + (size_t)(q[2] + x)] =
                        src[(size_t)y * (size_t)q[3] + (size_t)x];
    }
}

/* Collective: the whole sampled slice in g->field on rank 0. */
static void sp_collect(si_ctx *c, sp_plane *p, sp_gather *g)
{
    int n = p->rect[1] * p->rect[3];
    if (c->rank == 0) g->rects = malloc((size_t)c->size * 4 * sizeof *g->rects);
    si_phase(c, c->rank == 0 && !g->rects ? si_fail(c, STENCIL_ENOMEM, "out of memory") : 0);
    if (c->rc) return;
    int rc = MPI_Gather(p->rect, 4, MPI_INT, g->rects, 4, MPI_INT, 0, c->comm);
    si_phase(c, rc != MPI_SUCCESS ? si_fail(c, STENCIL_EMPI, "MPI_Gather failed")
                : c->rank == 0    ? sp_gather_alloc(c, g, p)
                                  : 0);
    if (c->rc) return;
    rc = MPI_Gatherv(p->part, n, MPI_DOUBLE, g->recv, g->counts, g->displs, MPI_DOUBLE, 0, c->comm);
    si_phase(c, rc != MPI_SUCCESS ? si_fail(c, STENCIL_EMPI, "MPI_Gatherv failed") : 0);
    if (!c->rc && c->rank == 0) sp_place(g, p, c->size);
}

/* libpng reports errors by longjmp; everything it may leave behind is freed by the caller. */
static int sp_encode(si_ctx *c, const char *path, const sp_image *img, png_bytep *rows)
{
    int rc = si_writable(c, path);
    if (rc) return rc;
    FILE *fp = fopen(path, "wb");
    if (!fp) return si_fail(c, STENCIL_EIO, "cannot create %s: %s", path, strerror(errno));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(fp);
        return si_fail(c, STENCIL_EIO, "libpng failed while writing %s", path);
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)img->w, (png_uint_32)img->h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(fp) != 0) return si_fail(c, STENCIL_EIO, "writing %s: %s", path, strerror(errno));
    return 0;
}

static int sp_write(si_ctx *c, const char *path, const sp_plane *p, const double *field, double lo,
                    double hi)
{
    sp_image img;
    if (sp_render(field, p->gh, p->gw, sp_upscale(p->gh, p->gw), lo, hi, &img))
        return si_fail(c, STENCIL_ENOMEM, "no memory for the picture");
    png_bytep *rows = malloc((size_t)img.h * sizeof *rows);
    if (!rows) {
        free(img.rgb);
        return si_fail(c, STENCIL_ENOMEM, "no memory for the picture");
    }
    for (int y = 0; y < img.h; y++) rows[y] = img.rgb + (size_t)y * (size_t)img.w * 3;
    int rc = sp_encode(c, path, &img, rows);
    free(rows);
    free(img.rgb);
    return rc;
}

/* vmin == vmax: the global finite range; a flat field gets a unit-wide range around it. */
static int sp_range(si_ctx *c, sp_plane *p, double *lo, double *hi)
{
    double r[2];
    if (MPI_Allreduce(p->range, r, 2, MPI_DOUBLE, MPI_MIN, c->comm) != MPI_SUCCESS)
        return si_fail(c, STENCIL_EMPI, "MPI_Allreduce of the value range failed");
    if (*lo != *hi) return 0;
    *lo = isfinite(r[0]) ? r[0] : 0.0;
    *hi = isfinite(r[1]) ? -r[1] : 1.0;
    if (*lo == *hi) {
        *lo -= 0.5;
        *hi += 0.5;
    }
    return 0;
}

int stencil_write_png(MPI_Comm comm, const char *path, const stencil_tile *tile, int slice_dim,
                      long slice_index, double vmin, double vmax)
{
    si_ctx c;
    sp_plane p = {0};
    sp_gather g = {0};
    if (si_begin(&c, comm, "stencil_write_png")) return si_end(&c);
    si_phase(&c, sp_args(&c, path, tile, slice_dim, slice_index, vmin, vmax));
    if (!c.rc) {
        long extra[2] = {tile->ndims == 3 ? slice_dim : 0, tile->ndims == 3 ? slice_index : 0};
        si_phase(&c, si_check_same(&c, tile, extra, 2));
    }
    if (!c.rc) {
        sp_geometry(&p, tile, slice_dim, slice_index);
        si_phase(&c, sp_sample(&c, &p, tile));
    }
    if (!c.rc) si_phase(&c, sp_range(&c, &p, &vmin, &vmax));
    if (!c.rc) sp_collect(&c, &p, &g);
    if (!c.rc) si_phase(&c, c.rank == 0 ? sp_write(&c, path, &p, g.field, vmin, vmax) : 0);
    sp_gather_free(&g);
    free(p.part);
    return si_end(&c);
}
