/* Option defaults. */
#include <string.h>

#include "stencil.h"

void stencil_options_init(stencil_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->partition = STENCIL_PART_BANDS;
    opt->boundary = STENCIL_BOUNDARY_FIXED;
    opt->device = -1;
    opt->peer = -1;
}
