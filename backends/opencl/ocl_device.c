/*
 * Platform and device choice. Precedence: STENCIL_OPENCL_PLATFORM (a substring of the platform
 * name, case-insensitive) picks the platform, else the first platform with a GPU, else the first
 * with any device. On it, the GPUs are the candidates if there are any, else every device (PoCL's
 * CPU device). Index: STENCIL_OPENCL_DEVICE, else sb_open_args.device when >= 0, else the
 * node-local rank modulo the candidates.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

#define OCL_MAX_PLATFORMS 32

static int icase_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return 1;
    }
    return n == 0;
}

static cl_uint count_devices(cl_platform_id p, cl_device_type t)
{
    cl_uint n = 0;
    if (clGetDeviceIDs(p, t, 0, NULL, &n) != CL_SUCCESS) return 0;
    return n;
}

/* The platform named by the environment, or the first with a GPU, or the first with a device. */
static int pick_platform(sb_dev *dev, cl_platform_id *out)
{
    cl_platform_id ps[OCL_MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(OCL_MAX_PLATFORMS, ps, &np);
    if (err == -1001 || (err == CL_SUCCESS && np == 0))
        return sb_fail(dev, STENCIL_ENOBACKEND, "OpenCL: no platform installed (ICD loader)");
    if (err != CL_SUCCESS) return ocl_fail(dev, err, "clGetPlatformIDs");
    const char *want = getenv("STENCIL_OPENCL_PLATFORM");
    int any = -1, gpu = -1;
    for (cl_uint i = 0; i < np; i++) {
        char name[256] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        if (want && *want && !icase_contains(name, want)) continue;
        if (gpu < 0 && count_devices(ps[i], CL_DEVICE_TYPE_GPU) > 0) gpu = (int)i;
        if (any < 0 && count_devices(ps[i], CL_DEVICE_TYPE_ALL) > 0) any = (int)i;
    }
    if (any < 0 && want && *want)
        return sb_fail(dev, STENCIL_ENOBACKEND,
                       "OpenCL: no platform with a device matches STENCIL_OPENCL_PLATFORM=%s",
                       want);
    if (any < 0) return sb_fail(dev, STENCIL_ENOBACKEND, "OpenCL: no platform has a device");
    *out = ps[gpu >= 0 ? gpu : any];
    return 0;
}

/* The device index asked for, or -1 for the default; STENCIL_EINVAL on a malformed variable. */
static int wanted_index(sb_dev *dev, const sb_open_args *a, long *idx)
{
    const char *env = getenv("STENCIL_OPENCL_DEVICE");
    *idx = a->device >= 0 ? a->device : -1;
    if (env && *env) {
        char *end;
        errno = 0;
        *idx = strtol(env, &end, 10);
        if (errno || *end || *idx < 0)
            return sb_fail(dev, STENCIL_EINVAL, "OpenCL: STENCIL_OPENCL_DEVICE=%s is not an index",
                           env);
    }
    return 0;
}

static int pick_index(sb_dev *dev, const sb_open_args *a, cl_uint n, cl_uint *out)
{
    long idx;
    int rc = wanted_index(dev, a, &idx);
    if (rc) return rc;
    if (idx < 0) idx = (a->local_rank > 0 ? a->local_rank : 0) % (long)n;
    if (idx >= (long)n)
        return sb_fail(dev, STENCIL_EINVAL, "OpenCL: device index %ld out of range (%u device%s)",
                       idx, n, n == 1 ? "" : "s");
    *out = (cl_uint)idx;
    return 0;
}

int ocl_pick_device(sb_dev *dev, ocl_impl *o, const sb_open_args *a)
{
    int rc = pick_platform(dev, &o->platform);
    if (rc) return rc;
    cl_device_type t = count_devices(o->platform, CL_DEVICE_TYPE_GPU) > 0 ? CL_DEVICE_TYPE_GPU
                                                                          : CL_DEVICE_TYPE_ALL;
    cl_uint n = count_devices(o->platform, t), idx = 0;
    cl_device_id *ids = n ? malloc(sizeof *ids * n) : NULL;
    if (!ids)
        return sb_fail(dev, n ? STENCIL_ENOMEM : STENCIL_ENOBACKEND, "OpenCL: no device list");
    cl_int err = clGetDeviceIDs(o->platform, t, n, ids, NULL);
    rc = err != CL_SUCCESS ? ocl_fail(dev, err, "clGetDeviceIDs") : pick_index(dev, a, n, &idx);
    if (!rc) o->device = ids[idx];
    free(ids);
    if (rc) return rc;
    char name[256] = "";
    clGetDeviceInfo(o->device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    /* The index, as the CUDA backend does: PoCL's CPU devices, for one, all have one name. */
    snprintf(dev->name, sizeof dev->name, "%.50s #%u", name, idx);
    return 0;
}
