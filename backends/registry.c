/* The table of backends built into this library. The only place that knows which exist. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "sb_config.h"

extern const sb_ops sb_host_ops;
#if STENCIL_HAVE_OPENCL
extern const sb_ops sb_opencl_ops;
#endif
#if STENCIL_HAVE_CUDA
extern const sb_ops sb_cuda_ops;
#endif
#if STENCIL_HAVE_HIP
extern const sb_ops sb_hip_ops;
#endif

/* GPU backends first: sb_auto follows this order. */
const sb_ops *const sb_backends[] = {
#if STENCIL_HAVE_CUDA
    &sb_cuda_ops,
#endif
#if STENCIL_HAVE_HIP
    &sb_hip_ops,
#endif
#if STENCIL_HAVE_OPENCL
    &sb_opencl_ops,
#endif
    &sb_host_ops,   NULL,
};

const sb_ops *sb_find(const char *name)
{
    for (int i = 0; sb_backends[i]; i++)
        if (strcmp(sb_backends[i]->name, name) == 0) return sb_backends[i];
    return NULL;
}

const char *sb_names(void)
{
    static const char names[] = "host"
#if STENCIL_HAVE_OPENCL
                                ", opencl"
#endif
#if STENCIL_HAVE_CUDA
                                ", cuda"
#endif
#if STENCIL_HAVE_HIP
                                ", hip"
#endif
        ;
    return names;
}

const sb_ops *sb_auto(int i)
{
    for (int k = 0; sb_backends[k]; k++)
        if (sb_backends[k]->auto_try && i-- == 0) return sb_backends[k];
    return i == 0 ? &sb_host_ops : NULL;
}
