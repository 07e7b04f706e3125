/*
 * GPU backend, tracing: timed events recorded on the queues (sb_ops.stamp, stamp_read).
 */
#ifndef SB_GPU_STAMP_CUH
#define SB_GPU_STAMP_CUH

#include "state.cuh"

namespace SB_GPU_NS
{

/* Timed events for tracing, created only when asked for (recording them costs a little more). */
static int make_stamps(sb_dev *dev, impl *im, int n)
{
    if (n <= 0) return 0;
    im->stamp = (gpuEvent_t *)calloc((size_t)n, sizeof *im->stamp);
    if (!im->stamp) return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": out of host memory");
    for (; im->nstamps < n; im->nstamps++) GPU_TRY(dev, gpuEventCreate(&im->stamp[im->nstamps]));
    return 0;
}

int gpu_stamp(sb_dev *dev, int q, int slot)
{
    impl *im = im_of(dev);
    if (q < 0 || q >= SB_NQUEUES || slot < 0 || slot >= im->nstamps)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": stamp slot %d of %d on queue %d", slot,
                       im->nstamps, q);
    int rc = use_device(dev);
    if (rc) return rc;
    GPU_TRY(dev, gpuEventRecord(im->stamp[slot], im->q[q]));
    return 0;
}

/* Elapsed times between events resolve to about half a microsecond. */
int gpu_stamp_read(sb_dev *dev, int n, double *sec)
{
    impl *im = im_of(dev);
    if (n < 0 || n > im->nstamps)
        return sb_fail(dev, STENCIL_EINVAL, SB_GPU_NAME ": %d stamps read of %d", n, im->nstamps);
    int rc = use_device(dev);
    if (rc) return rc;
    for (int i = 0; i < n; i++) {
        float ms = 0;
        GPU_TRY(dev, gpuEventElapsedTime(&ms, im->stamp[0], im->stamp[i]));
        sec[i] = 1e-3 * (double)ms;
    }
    return 0;
}

} /* namespace SB_GPU_NS */

#endif
