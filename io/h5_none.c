/* Built without parallel HDF5: "*.h5" files are refused with a clear message. */
#include "sio.h"

static int si_no_h5(si_ctx *c, const char *path)
{
    return si_fail(c, STENCIL_ENOSYS,
                   "%s: libstencil was built without parallel HDF5 (Debian: libhdf5-mpich-dev, "
                   "meson -Dhdf5=enabled); use a name without .h5 for the native format",
                   path);
}

int si_h5_write(si_ctx *c, const char *path, const stencil_tile *t, const si_meta *meta)
{
    (void)t;
    (void)meta;
    return si_no_h5(c, path);
}

int si_h5_read(si_ctx *c, const char *path, stencil_tile *t, long *iteration,
               unsigned long long want, int *touched)
{
    (void)t;
    (void)iteration;
    (void)want;
    (void)touched;
    return si_no_h5(c, path);
}

int si_h5_write_set(si_ctx *c, const char *path, int n, si_fill_fn fill, void *user,
                    const si_meta *meta)
{
    (void)n;
    (void)fill;
    (void)user;
    (void)meta;
    return si_no_h5(c, path);
}

int si_h5_read_set(si_ctx *c, const char *path, stencil_tile *t, int n, long *iteration,
                   unsigned long long want, int *touched)
{
    (void)t;
    (void)n;
    (void)iteration;
    (void)want;
    (void)touched;
    return si_no_h5(c, path);
}

int si_h5_names(si_ctx *c, const char *path, si_names *nm)
{
    nm->n = 0;
    return si_no_h5(c, path);
}

int stencil_have_hdf5(void)
{
    return 0;
}
