/* Helpers shared by every backend. */
#include <stdarg.h>
#include <stdio.h>

#include "backend.h"

int sb_fail(sb_dev *dev, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dev->err, sizeof dev->err, fmt, ap);
    va_end(ap);
    return code;
}

size_t sb_elem_size(stencil_type t)
{
    return t == STENCIL_DOUBLE ? sizeof(double) : sizeof(float);
}
