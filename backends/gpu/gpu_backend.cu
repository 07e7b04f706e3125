/*
 * The GPU backend: one source for CUDA (nvcc, exports sb_cuda_ops) and HIP (hipcc, exports
 * sb_hip_ops). Everything vendor-specific goes through vendor.h.
 *
 * Queues are three non-blocking streams: SB_QBORDER at the highest priority (border updates and
 * halo copies are on the critical path of the exchange), SB_QINNER at the lowest, SB_QXFER (the
 * out-of-core downloads) at the highest too.
 *
 * One translation unit made of parts of one concern each, included here:
 *   state.cuh   the per-device state (struct impl), runtime errors, allocation records, boxes;
 *   device.cuh  device choice, the three queues and their control, memory, whole-array transfers;
 *   stamp.cuh   timed events for tracing;
 *   bind.cuh    the kernel set up at open (named, run-time or generic);
 *   prog.cuh    programs: their run-time kernel, compiled at open, and its launch per step;
 *   launch.cuh  the update op (k steps a call: one-step, two-step and streaming launches);
 *   halo.cuh    halo copies to and from the staging buffers, and the intra-node peer path;
 * this file opens and closes a device and holds the ops table. One unit keeps the parts' helpers
 * static, with no internal header of shared declarations, and lets nvcc see each launch with its
 * kernel.
 */
#include "bind.cuh"
#include "device.cuh"
#include "halo.cuh"
#include "launch.cuh"
#include "norm.cuh"
#include "stamp.cuh"
#include "state.cuh"

namespace SB_GPU_NS
{

/* ---------------------------------------------------------------- open / close */

void gpu_close(sb_dev *dev);

int gpu_open(sb_dev *dev, const sb_open_args *a)
{
    dev->device_bytes = 0;
    impl *im = (impl *)calloc(1, sizeof *im);
    dev->impl = im;
    if (!im) return sb_fail(dev, STENCIL_ENOMEM, SB_GPU_NAME ": out of host memory");
    copy_mode_init(im);
    int rc = pick_device(dev, im, a);
    if (!rc) rc = make_queues(dev, im);
    if (!rc) rc = make_stamps(dev, im, a->stamps);
    if (!rc) rc = bind_kernel(dev, im, a);
    if (rc) {
        char keep[sizeof dev->err];
        memcpy(keep, dev->err, sizeof keep);
        gpu_close(dev);
        memcpy(dev->err, keep, sizeof keep);
    }
    return rc;
}

/* Best effort: a failed device may refuse some of these; nothing is left to report them to. */
void gpu_close(sb_dev *dev)
{
    impl *im = im_of(dev);
    if (!im) return;
    (void)gpuSetDevice(im->device);
    for (int i = 0; i < SB_NQUEUES; i++) {
        if (im->q[i]) (void)gpuStreamSynchronize(im->q[i]);
        if (im->stage[i]) (void)gpuFree(im->stage[i]);
    }
    if (im->goff) (void)gpuFree(im->goff);
    if (im->gw) (void)gpuFree(im->gw);
    rtc_unload(&im->rk);
    rtc_unload_module(&im->pmod);
    for (int k = 0; k <= KGT_PROG_FUSE_MAX; k++) rtc_unload_module(&im->pkmod[k]);
    for (int l = 0; l <= KGT_STREAM_MAX; l++) rtc_unload(&im->rs[l]);
    for (int i = 0; i < im->dmem.n; i++) (void)gpuFree(im->dmem.r[i].p);
    for (int i = 0; i < im->hmem.n; i++) (void)gpuFreeHost(im->hmem.r[i].p);
    for (int i = 0; i < SB_NQUEUES; i++) {
        if (im->ev[i]) (void)gpuEventDestroy(im->ev[i]);
        if (im->q[i]) (void)gpuStreamDestroy(im->q[i]);
    }
    for (int i = 0; i < im->nstamps; i++) (void)gpuEventDestroy(im->stamp[i]);
    free(im->stamp);
    (void)gpuGetLastError(); /* leave no error behind for a later open */
    free(im->dmem.r);
    free(im->hmem.r);
    free(im);
    dev->impl = NULL;
    dev->device_bytes = 0;
}

/*
 * sb_ops.norm (norm.cuh), on the inner stream; the skeleton calls it with both queues idle.
 * External linkage: HIP's device pass drops the ops table, and an unused static failed -Werror.
 */
int gpu_norm(sb_dev *dev, sb_mem a, sb_mem b, const sl_box *box, double out[2])
{
    impl *im = im_of(dev);
    int rc = use_device(dev);
    if (rc) return rc;
    gpuStream_t q = im->q[SB_QINNER];
    gpuError_t e;
    if (im->type == STENCIL_DOUBLE)
        e = norm_run((const double *)a, (const double *)b, box->lo, box->hi, im->stride, q, out);
    else
        e = norm_run((const float *)a, (const float *)b, box->lo, box->hi, im->stride, q, out);
    return e == gpuSuccess ? 0 : rt_fail(dev, STENCIL_EDEVICE, "norm kernel", e);
}

} /* namespace SB_GPU_NS */

using namespace SB_GPU_NS;

#if !SB_GPU_DEVICE_PASS
/* Asynchronous: every op but write/read/wait returns before the device work is done. */
extern "C" const sb_ops SB_GPU_OPS = {
    SB_GPU_NAME,
    gpu_open,
    gpu_close,
    gpu_mem_alloc,
    gpu_mem_free,
    gpu_host_alloc,
    gpu_host_free,
    gpu_write,
    gpu_read,
    gpu_updatek,
    gpu_fuse_depth,
    gpu_copy_out,
    gpu_copy_in,
    gpu_flush,
    gpu_wait,
    gpu_join,
    gpu_after,
    gpu_busy,
    gpu_stamp,
    gpu_stamp_read,
    1,
    gpu_ipc_export,
    gpu_ipc_open,
    gpu_ipc_close,
    gpu_copy_peer,
    /* On: the 3-rank failure on 2 H200s was the initial write not yet landed (gpu_write). */
    1,
    /* auto_try: "auto" takes a GPU before the host. */
    1,
    gpu_norm,
    /* ipc_seal: CUDA/HIP IPC handles name nothing that outlives the process. */
    NULL,
    gpu_prog_update,
    gpu_prog_fuse_depth,
    gpu_prog_update_k,
    gpu_copy_many,
    gpu_prog_auto_steps,
};
#endif
