/*
 * Run-time kernels of the device backends: the sources come from kgt's emitters (kgt/kgt_rt.h),
 * the one code generator of the project, specialized to the call's stencil.
 */
#ifndef SB_GEN_H
#define SB_GEN_H

#include "kgt_rt.h"
#include "layout.h"

/* $STENCIL_RTC: "0"/"off" keeps the generic kernel; "fail" compiles a broken source (tests). */
enum { SB_RTC_ON = 0, SB_RTC_OFF = 1, SB_RTC_FAIL = 2 };
int sb_rtc_mode(void);

/*
 * The step kernel of st for NVRTC/hiprtc, in st's element type; the block shape is kgt's default
 * (pipe: the device has asynchronous copies) or
 * $STENCIL_RTC_SHAPE="bx,by,nc,zc[,pipe[,vec[,walk[,minb]]]]". A malloc'ed string (info: its
 * plan), or NULL when out of memory or the shape does not fit.
 */
char *sb_gen_gpu(const sl_stencil *st, int pipe, kgt_step_info *info);

/*
 * The streaming kernels of st taking `levels` steps per launch (kgt_rt_gpu_stream) for
 * NVRTC/hiprtc, or NULL when st is neither a 2D stencil reaching at most 4 cells nor a 3D star
 * stencil reaching at most 2, levels is out of 2..KGT_STREAM_MAX (3D: 1..KGT_STREAM_MAX; at 1
 * any 3D stencil reaching one cell, and only those), or out of memory; $STENCIL_RTC=fail breaks it
 * as it breaks sb_gen_gpu's.
 */
char *sb_gen_gpu_stream(const sl_stencil *st, int levels, kgt_stream_info *info);
/* The most steps per launch of st's streaming kernels worth running (kgt_stream_depth, in st's
   element type; $STENCIL_RTC_DEPTH, gen.c): 0 when st has none (neither a 2D stencil reaching at
   most 4 cells nor a 3D star reaching at most 2). */
int sb_gen_stream_depth(const sl_stencil *st);
/* The stamp of st's streaming kernels of `levels` steps without tuning (kgt_stream_stamp) and
   their info; 0 when there are none. What a named kernel's table (stencil_device_steps) must
   match before the backends launch it. */
unsigned long long sb_gen_stream_stamp(const sl_stencil *st, int levels, kgt_stream_info *info);

/*
 * The OpenCL backend's walk kernel prologue for st (kgt_rt_opencl), indices of type long when
 * the local array has nelems >= INT_MAX cells; malloc'ed, NULL when out of memory.
 */
char *sb_gen_opencl(const sl_stencil *st, size_t nelems);

/*
 * For the tests: each GPU backend's run-time compiler with the options it uses, on src, for the
 * target arch ("-arch=sm_90", "--offload-arch=gfx90a"); needs no device. 0, or -1 with the
 * compiler's first error line in err.
 */
int sb_cuda_rtc_compile(const char *src, const char *arch, char *err, size_t errlen);
int sb_hip_rtc_compile(const char *src, const char *arch, char *err, size_t errlen);

#endif /* SB_GEN_H */
