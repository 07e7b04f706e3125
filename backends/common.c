/* Helpers shared by every backend. */
#include "backend.h"

size_t sb_elem_size(stencil_type t)
{
    return t == STENCIL_DOUBLE ? sizeof(double) : sizeof(float);
}
