/*
 * The environment, read in one place: every variable the library's users may set is read here
 * into an sk_env when a run is created (sk_new), and the rest of the library takes its values
 * from there; nothing below (layout, io) reads the environment. The options, where given, take
 * precedence at each use. The backends' device-selection and tuning variables (STENCIL_OPENCL_*,
 * STENCIL_GPU_*, STENCIL_RTC*, STENCIL_HOST_*) are read by the backends at open.
 */
#include <stdlib.h>
#include <string.h>

#include "skel.h"

static const char *var(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

/*
 * The values copied into one block (e->copy): getenv's strings belong to the environment, and a
 * later setenv or putenv may change them under a run that read them (POSIX), which would break
 * "read once". Without memory the environment's own strings serve.
 */
static void own(sk_env *e)
{
    const char **v[] = {&e->backend,
                        &e->device,
                        &e->weight,
                        &e->config,
                        &e->trace,
                        &e->peer,
                        &e->steps,
                        &e->split,
                        &e->ooc,
                        &e->device_memory,
                        &e->ooc_file,
                        &e->ooc_bufs,
                        &e->calibration_rounds};
    size_t n = sizeof v / sizeof *v, len = 0;
    for (size_t i = 0; i < n; i++)
        if (*v[i]) len += strlen(*v[i]) + 1;
    e->copy = len ? malloc(len) : NULL;
    if (!e->copy) return;
    char *p = e->copy;
    for (size_t i = 0; i < n; i++)
        if (*v[i]) {
            size_t k = strlen(*v[i]) + 1;
            memcpy(p, *v[i], k);
            *v[i] = p;
            p += k;
        }
}

void sk_env_read(sk_env *e)
{
    e->backend = var("STENCIL_BACKEND");
    e->device = var("STENCIL_DEVICE");
    e->weight = var("STENCIL_WEIGHT");
    e->config = var("STENCIL_CONFIG");
    e->trace = getenv("STENCIL_TRACE"); /* set but empty: off, as "" in the options */
    e->peer = var("STENCIL_PEER");
    e->steps = var("STENCIL_STEPS");
    if (!e->steps) e->steps = var("STENCIL_FUSE"); /* the older name */
    e->split = var("STENCIL_SPLIT");
    e->verbose = getenv("STENCIL_VERBOSE") != NULL;
    e->calibration_rounds = var("STENCIL_CALIBRATION_ROUNDS");
    e->ooc = var("STENCIL_OOC");
    e->device_memory = var("STENCIL_DEVICE_MEMORY");
    e->ooc_file = var("STENCIL_OOC_FILE");
    e->ooc_bufs = var("STENCIL_OOC_BUFS");
    const char *a = var("STENCIL_ROW_ALIGN");
    long v = a ? strtol(a, NULL, 10) : 0;
    e->row_align = v >= 1 && v <= 1024 ? (int)v : 0;
    own(e);
}
