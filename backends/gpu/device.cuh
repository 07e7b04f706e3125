/*
 * GPU backend, device and queues: which device a rank opens, its four streams (border, inner,
 * transfer, auxiliary) and their control (flush, wait, join, busy), device and pinned host memory,
 * whole-array transfers.
 */
#ifndef SB_GPU_DEVICE_CUH
#define SB_GPU_DEVICE_CUH

#include "state.cuh"

namespace SB_GPU_NS
{

/* ---------------------------------------------------------------- device and queues */

static int parse_index(const char *s, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < 0 || x > INT_MAX) return -1;
    *v = (int)x;
    return 0;
}

/* Explicit option first, then STENCIL_DEVICE, then the node-local rank modulo the count. */
static int pick_device(sb_dev *dev, impl *im, const sb_open_args *a)
{
    int n = 0;
    gpuError_t e = gpuGetDeviceCount(&n);
    if (e != gpuSuccess || n <= 0)
        return sb_fail(dev, STENCIL_ENOBACKEND, SB_GPU_NAME ": no usable device (%s)",
                       e != gpuSuccess ? gpuGetErrorString(e) : "none found");
    const char *env = getenv("STENCIL_DEVICE");
    int d;
    if (a->device >= 0)
        d = a->device;
    else if (env && *env) {
        if (parse_index(env, &d))
            return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": STENCIL_DEVICE='%s' is not an index",
                           env);
    } else
        d = (a->local_rank > 0 ? a->local_rank : 0) % n;
    if (d >= n)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": device %d requested, %d found", d, n);
    im->device = d;
    GPU_TRY(dev, gpuSetDevice(d));
    gpuDeviceProp prop;
    GPU_TRY(dev, gpuGetDeviceProperties(&prop, d));
    snprintf(dev->name, sizeof dev->name, "%.50s #%d", prop.name, d);
    rtc_arch(prop, im->arch, sizeof im->arch);
    im->sms = prop.multiProcessorCount;
    return 0;
}

static int make_queues(sb_dev *dev, impl *im)
{
    int least = 0, greatest = 0;
    GPU_TRY(dev, gpuDeviceGetStreamPriorityRange(&least, &greatest));
    GPU_TRY(dev, gpuStreamCreateWithPriority(&im->q[SB_QBORDER], gpuStreamNonBlocking, greatest));
    GPU_TRY(dev, gpuStreamCreateWithPriority(&im->q[SB_QINNER], gpuStreamNonBlocking, least));
    GPU_TRY(dev, gpuStreamCreateWithPriority(&im->q[SB_QXFER], gpuStreamNonBlocking, greatest));
    GPU_TRY(dev, gpuStreamCreateWithPriority(&im->q[SB_QAUX], gpuStreamNonBlocking, least));
    for (int i = 0; i < SB_NQUEUES; i++)
        GPU_TRY(dev, gpuEventCreateWithFlags(&im->ev[i], gpuEventDisableTiming));
    return 0;
}

/* ---------------------------------------------------------------- queues */

/* Kernels and copies start when issued; nothing to flush. */
int gpu_flush(sb_dev *dev, int q)
{
    (void)dev;
    (void)q;
    return 0;
}

int gpu_wait(sb_dev *dev, int q)
{
    impl *im = im_of(dev);
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue");
    int rc = use_device(dev);
    if (rc) return rc;
    GPU_TRY(dev, gpuStreamSynchronize(im->q[q]));
    return 0;
}

/* All events are recorded before any wait, so each queue waits only for the others' past. */
int gpu_join(sb_dev *dev)
{
    impl *im = im_of(dev);
    int rc = use_device(dev);
    if (rc) return rc;
    for (int i = 0; i < SB_NQUEUES; i++) GPU_TRY(dev, gpuEventRecord(im->ev[i], im->q[i]));
    for (int i = 0; i < SB_NQUEUES; i++)
        for (int j = 0; j < SB_NQUEUES; j++)
            if (j != i) GPU_TRY(dev, gpuStreamWaitEvent(im->q[i], im->ev[j], 0));
    return 0;
}

int gpu_after(sb_dev *dev, int q, int from)
{
    impl *im = im_of(dev);
    if (q < 0 || q >= SB_NQUEUES || from < 0 || from >= SB_NQUEUES)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue");
    if (q == from) return 0;
    int rc = use_device(dev);
    if (rc) return rc;
    GPU_TRY(dev, gpuEventRecord(im->ev[from], im->q[from]));
    GPU_TRY(dev, gpuStreamWaitEvent(im->q[q], im->ev[from], 0));
    return 0;
}

int gpu_busy(sb_dev *dev, int q)
{
    impl *im = im_of(dev);
    if (q < 0 || q >= SB_NQUEUES) return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": bad queue");
    int rc = use_device(dev);
    if (rc) return rc;
    gpuError_t e = gpuStreamQuery(im->q[q]);
    if (e == gpuErrorNotReady) return 1;
    if (e != gpuSuccess) return rt_fail(dev, STENCIL_EDEVICE, "gpuStreamQuery", e);
    return 0;
}

/* ---------------------------------------------------------------- memory */

int gpu_mem_alloc(sb_dev *dev, size_t bytes, sb_mem *m)
{
    impl *im = im_of(dev);
    void *p = NULL;
    int rc = use_device(dev);
    if (rc) return rc;
    /* The runtime may carve small allocations out of one larger block, and an IPC handle maps
       the whole block at its base, so a peer could read a neighbouring buffer. Whole 2 MiB
       blocks are never shared (CUDA programming guide, interprocess communication). */
    if (im->peer) bytes = (bytes + SB_GPU_IPC_BLOCK - 1) / SB_GPU_IPC_BLOCK * SB_GPU_IPC_BLOCK;
    gpuError_t e = gpuMalloc(&p, bytes ? bytes : 1);
    if (e != gpuSuccess) {
        size_t fr = 0, tot = 0;
        (void)gpuGetLastError();
        (void)gpuMemGetInfo(&fr, &tot);
        return sb_fail(dev, STENCIL_EDEVMEM,
                       SB_GPU_NAME ": %zu bytes of device memory needed, %zu free of %zu on %s: %s",
                       bytes, fr, tot, dev->name, gpuGetErrorString(e));
    }
    if (list_add(&im->dmem, (char *)p, NULL, bytes)) {
        (void)gpuFree(p);
        return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": out of host memory");
    }
    dev->device_bytes += bytes;
    *m = p;
    return 0;
}

void gpu_mem_free(sb_dev *dev, sb_mem m)
{
    impl *im = im_of(dev);
    if (!im || !m) return;
    (void)gpuSetDevice(im->device);
    dev->device_bytes -= list_remove(&im->dmem, m);
    (void)gpuFree(m);
}

/* Mapped, so that the zero-copy path's kernels can read and write it directly. */
int gpu_host_alloc(sb_dev *dev, size_t bytes, void **p)
{
    impl *im = im_of(dev);
    void *h = NULL, *d = NULL;
    int rc = use_device(dev);
    if (rc) return rc;
    gpuError_t e = gpuHostAlloc(&h, bytes ? bytes : 1, gpuHostAllocPortable | gpuHostAllocMapped);
    if (e != gpuSuccess) {
        (void)gpuGetLastError();
        return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": %zu bytes of pinned host memory: %s",
                       bytes, gpuGetErrorString(e));
    }
    if (gpuHostGetDevicePointer(&d, h, 0) != gpuSuccess) {
        (void)gpuGetLastError();
        d = NULL; /* not mapped: the zero-copy path is skipped for it */
    }
    if (list_add(&im->hmem, (char *)h, (char *)d, bytes)) {
        (void)gpuFreeHost(h);
        return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": out of host memory");
    }
    *p = h;
    return 0;
}

void gpu_host_free(sb_dev *dev, void *p)
{
    impl *im = im_of(dev);
    if (!im || !p) return;
    (void)gpuSetDevice(im->device);
    list_remove(&im->hmem, p);
    (void)gpuFreeHost(p);
}

/* Whole-array transfers are rare (setup, output): drain every queue so they order with all. */
static int drain(sb_dev *dev)
{
    impl *im = im_of(dev);
    int rc = use_device(dev);
    if (rc) return rc;
    for (int i = 0; i < SB_NQUEUES; i++) GPU_TRY(dev, gpuStreamSynchronize(im->q[i]));
    return 0;
}

int gpu_write(sb_dev *dev, sb_mem m, const void *src, size_t bytes)
{
    int rc = drain(dev);
    if (rc) return rc;
    GPU_TRY(dev, gpuMemcpy(m, src, bytes, gpuMemcpyHostToDevice));
    /* From pageable memory the copy may return before its DMA lands, and the non-blocking
       queues do not wait for it; nor does a neighbour pulling this buffer over the peer path
       (3 ranks on 2 H200s read the initial data too early: docs/performance-notes.md). */
    GPU_TRY(dev, gpuStreamSynchronize(0));
    return 0;
}

int gpu_read(sb_dev *dev, sb_mem m, void *dst, size_t bytes)
{
    int rc = drain(dev);
    if (rc) return rc;
    GPU_TRY(dev, gpuMemcpy(dst, m, bytes, gpuMemcpyDeviceToHost));
    return 0;
}

} /* namespace SB_GPU_NS */

#endif
