/* Built when libpng is missing: pictures are not available, everything else is. */
#include "stencil.h"

int stencil_write_png(MPI_Comm comm, const char *path, const stencil_tile *tile, int slice_dim,
                      long slice_index, double vmin, double vmax)
{
    (void)comm, (void)path, (void)tile, (void)slice_dim, (void)slice_index, (void)vmin, (void)vmax;
    /* Same answer on every rank without any communication: nothing to agree on. */
    return STENCIL_ENOSYS;
}
