/*
 * Run-time kernels of the GPU backend: the step kernel of the call's stencil (backends/gen.h,
 * from kgt's emitters) compiled at open by NVRTC (CUDA) or hiprtc (HIP), cached per process,
 * loaded as a module and launched on the backend's streams.
 *
 * The cache maps (architecture, source text) to the compiled binary, so a process that opens the
 * same stencil again (weights calibration, several calls) compiles once.
 */
#ifndef SB_GPU_RTC_CUH
#define SB_GPU_RTC_CUH

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "vendor.h"

extern "C" {
#include "gen.h"
}

namespace SB_GPU_NS
{

#if defined(SB_GPU_HIP)
typedef hipModule_t rtc_module;
typedef hipFunction_t rtc_func;
#else
typedef cudaLibrary_t rtc_module;
typedef cudaKernel_t rtc_func;
#endif

struct rtc_kernel {
    rtc_module mod;
    rtc_func fn;
    rtc_func fnu; /* under shape vec: the kernel for arrays not aligned to 16 bytes (NAME_u) */
    kgt_step_info info;
    int slots; /* blocks of the kernel resident on the whole device at once; 0: unknown */
};

/* The streaming kernels of one depth (2D stencils, 3D stencils, kgt_rt_gpu_stream):
   fn[vector rows]. */
struct rtc_stream {
    rtc_module mod;
    rtc_func fn[2];
    kgt_stream_info info;
    const void *stub[2]; /* a named kernel's (kgt's table, compiled ahead of time) instead of fn */
};

/* The architecture the compiler targets, as its option: the device's own. */
static void rtc_arch(const gpuDeviceProp &p, char *opt, size_t len)
{
#if defined(SB_GPU_HIP)
    snprintf(opt, len, "--offload-arch=%s", p.gcnArchName);
#else
    snprintf(opt, len, "-arch=sm_%d%d", p.major, p.minor);
#endif
}

/* The compiler's first error line (else its first line) into msg, on one line. */
static void rtc_message(const char *log, char *msg, size_t len)
{
    const char *at = strstr(log, "error");
    if (at)
        while (at > log && at[-1] != '\n') at--;
    else
        at = log;
    size_t n = strcspn(at, "\n");
    snprintf(msg, len, "%.*s", (int)n, at);
}

/* Compiles src for arch: 0 with a malloc'ed binary, or -1 with the compiler's message in err. */
static int rtc_compile(const char *src, const char *arch, char **bin, size_t *len, char *err,
                       size_t errlen)
{
#if defined(SB_GPU_HIP)
    const char *opts[] = {arch, "-O3", "-ffp-contract=off"};
    hiprtcProgram p;
    if (hiprtcCreateProgram(&p, src, "stencil_rtc.hip", 0, NULL, NULL) != HIPRTC_SUCCESS)
        return snprintf(err, errlen, "hiprtcCreateProgram failed"), -1;
    int ok = hiprtcCompileProgram(p, 3, opts) == HIPRTC_SUCCESS &&
             hiprtcGetCodeSize(p, len) == HIPRTC_SUCCESS && (*bin = (char *)malloc(*len)) &&
             hiprtcGetCode(p, *bin) == HIPRTC_SUCCESS;
    size_t loglen = 0;
    char *log = NULL;
    if (!ok && hiprtcGetProgramLogSize(p, &loglen) == HIPRTC_SUCCESS &&
        (log = (char *)calloc(loglen + 1, 1)) && hiprtcGetProgramLog(p, log) == HIPRTC_SUCCESS)
        rtc_message(log, err, errlen);
    free(log);
    hiprtcDestroyProgram(&p);
#else
    const char *opts[] = {arch, "-fmad=false", "-prec-div=true", "-ftz=false"};
    nvrtcProgram p;
    if (nvrtcCreateProgram(&p, src, "stencil_rtc.cu", 0, NULL, NULL) != NVRTC_SUCCESS)
        return snprintf(err, errlen, "nvrtcCreateProgram failed"), -1;
    int ok = nvrtcCompileProgram(p, 4, opts) == NVRTC_SUCCESS &&
             nvrtcGetCUBINSize(p, len) == NVRTC_SUCCESS && (*bin = (char *)malloc(*len)) &&
             nvrtcGetCUBIN(p, *bin) == NVRTC_SUCCESS;
    size_t loglen = 0;
    char *log = NULL;
    if (!ok && nvrtcGetProgramLogSize(p, &loglen) == NVRTC_SUCCESS &&
        (log = (char *)calloc(loglen + 1, 1)) && nvrtcGetProgramLog(p, log) == NVRTC_SUCCESS)
        rtc_message(log, err, errlen);
    free(log);
    nvrtcDestroyProgram(&p);
#endif
    if (!ok) {
        free(*bin);
        *bin = NULL;
        if (!err[0]) snprintf(err, errlen, "the run-time compiler failed");
    }
    return ok ? 0 : -1;
}

/* Loads module bin into *mod and looks up its n kernels names[] into fns. */
static int rtc_load(rtc_module *mod, const char *bin, const char *const *names, rtc_func *fns,
                    int n)
{
#if defined(SB_GPU_HIP)
    if (hipModuleLoadData(mod, bin) != hipSuccess) return -1;
    for (int i = 0; i < n; i++)
        if (hipModuleGetFunction(&fns[i], *mod, names[i]) != hipSuccess) return -1;
#else
    if (cudaLibraryLoadData(mod, bin, NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess) return -1;
    for (int i = 0; i < n; i++)
        if (cudaLibraryGetKernel(&fns[i], *mod, names[i]) != cudaSuccess) return -1;
#endif
    return 0;
}

/* How many blocks of fn (threads each) fit on the device at once (sms multiprocessors); 0 when
   unknown. */
static int rtc_slots(rtc_func fn, int threads, int sms)
{
    int n = 0;
#if defined(SB_GPU_HIP)
    if (hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, threads, 0) != hipSuccess) n = 0;
#else
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void *)fn, threads, 0) !=
        cudaSuccess)
        n = 0;
#endif
    (void)gpuGetLastError();
    return n > 0 ? n * sms : 0;
}

static void rtc_unload_module(rtc_module *m)
{
    if (!*m) return;
#if defined(SB_GPU_HIP)
    (void)hipModuleUnload(*m);
#else
    (void)cudaLibraryUnload(*m);
#endif
    *m = NULL;
}

static void rtc_unload(rtc_kernel *k)
{
    rtc_unload_module(&k->mod);
}

static void rtc_unload(rtc_stream *k)
{
    rtc_unload_module(&k->mod);
    k->stub[0] = k->stub[1] = NULL;
}

/* The same for a kernel compiled ahead of time (its host stub). */
static int rtc_stub_slots(const void *stub, int threads, int sms)
{
    int n = 0;
#if defined(SB_GPU_HIP)
    if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, stub, threads, 0) != hipSuccess) n = 0;
#else
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, stub, threads, 0) != cudaSuccess) n = 0;
#endif
    (void)gpuGetLastError();
    return n > 0 ? n * sms : 0;
}

/* u: the kernel for arrays not aligned to 16 bytes (shape vec). */
static gpuError_t rtc_launch(const rtc_kernel *k, int u, dim3 grid, gpuStream_t s, void **args)
{
    const kgt_step_shape &h = k->info.sh;
    rtc_func fn = u ? k->fnu : k->fn;
#if defined(SB_GPU_HIP)
    return hipModuleLaunchKernel(fn, grid.x, grid.y, grid.z, h.bx, h.by, 1, 0, s, args, NULL);
#else
    return cudaLaunchKernel((const void *)fn, grid, dim3(h.bx, h.by, 1), args, 0, s);
#endif
}

} /* namespace SB_GPU_NS */

/* For the tests (gen.h): the backend's compiler and options on src, no device needed. */
extern "C" int SB_GPU_RTC_COMPILE(const char *src, const char *arch, char *err, size_t errlen)
{
    char *bin = NULL;
    size_t len = 0;
    err[0] = '\0';
    int rc = SB_GPU_NS::rtc_compile(src, arch, &bin, &len, err, errlen);
    free(bin);
    return rc;
}

namespace SB_GPU_NS
{

/* ---- the process-wide cache of compiled binaries */
struct rtc_entry {
    rtc_entry *next;
    char *key; /* architecture option, newline, source */
    char *bin;
    size_t len;
};
static rtc_entry *rtc_cache;
static pthread_mutex_t rtc_lock = PTHREAD_MUTEX_INITIALIZER;

static char *rtc_key(const char *arch, const char *src)
{
    size_t a = strlen(arch), n = strlen(src);
    char *k = (char *)malloc(a + n + 2);
    if (!k) return NULL;
    memcpy(k, arch, a);
    k[a] = '\n';
    memcpy(k + a + 1, src, n + 1);
    return k;
}

/* The cached binary for key, or NULL. Called with rtc_lock held. */
static const rtc_entry *rtc_find(const char *key)
{
    for (const rtc_entry *e = rtc_cache; e; e = e->next)
        if (!strcmp(e->key, key)) return e;
    return NULL;
}

static double rtc_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/*
 * The binary of src for arch: from the cache, or compiled now (*secs: the compile time, else
 * untouched). NULL with the reason in err. Entries are never freed, so the binary outlives the
 * lock.
 */
static const char *rtc_binary(const char *src, const char *arch, double *secs, char *err,
                              size_t errlen)
{
    char *key = rtc_key(arch, src);
    if (!key) return snprintf(err, errlen, "out of host memory"), (const char *)NULL;
    pthread_mutex_lock(&rtc_lock);
    const rtc_entry *e = rtc_find(key);
    if (!e) {
        rtc_entry *n = (rtc_entry *)calloc(1, sizeof *n);
        double t0 = rtc_now();
        if (n && rtc_compile(src, arch, &n->bin, &n->len, err, errlen) == 0) {
            n->key = key, key = NULL;
            n->next = rtc_cache;
            rtc_cache = n;
            e = n;
        } else
            free(n);
        *secs = rtc_now() - t0;
    }
    pthread_mutex_unlock(&rtc_lock);
    free(key);
    return e ? e->bin : NULL;
}

/*
 * Compiles (or finds) and loads the step kernel of st into k; *secs is the compile time (0 when
 * cached). 0, or -1 with the reason in err.
 */
static int rtc_build(rtc_kernel *k, const sl_stencil *st, const char *arch, int sms, double *secs,
                     char *err, size_t errlen)
{
    *secs = 0;
    err[0] = '\0';
#if defined(SB_GPU_HIP)
    char *src = sb_gen_gpu(st, 0, &k->info);
#else
    int cc = 0; /* asynchronous copies (cp.async) from sm_80 on */
    char *src = sb_gen_gpu(st, sscanf(arch, "-arch=sm_%d", &cc) == 1 && cc >= 80, &k->info);
#endif
    if (!src)
        return snprintf(err, errlen, "no source (out of memory, or the shape does not fit)"), -1;
    const char *bin = rtc_binary(src, arch, secs, err, errlen);
    free(src);
    if (!bin) return -1;
    char name_u[sizeof k->info.name + 2];
    snprintf(name_u, sizeof name_u, "%s_u", k->info.name);
    const char *names[2] = {k->info.name, name_u};
    rtc_func fns[2];
    if (rtc_load(&k->mod, bin, names, fns, k->info.sh.vec ? 2 : 1))
        return snprintf(err, errlen, "the compiled module did not load"), -1;
    k->fn = fns[0];
    k->fnu = k->info.sh.vec ? fns[1] : fns[0];
    k->slots = rtc_slots(k->fn, k->info.sh.bx * k->info.sh.by, sms);
    return 0;
}

/* The same for the streaming kernels of st taking `levels` steps; *secs grows by their compile
   time. */
static int rtc_build_stream(rtc_stream *k, const sl_stencil *st, int levels, const char *arch,
                            int sms, double *secs, char *err, size_t errlen)
{
    double t = 0;
    err[0] = '\0';
    char *src = sb_gen_gpu_stream(st, levels, &k->info);
    if (!src) return snprintf(err, errlen, "no source (out of memory)"), -1;
    const char *bin = rtc_binary(src, arch, &t, err, errlen);
    free(src);
    *secs += t;
    if (!bin) return -1;
    const char *names[2] = {k->info.name[0], k->info.name[1]};
    if (rtc_load(&k->mod, bin, names, k->fn, k->info.v > 1 ? 2 : 1))
        return snprintf(err, errlen, "the compiled module did not load"), -1;
    k->info.slots =
        rtc_slots(k->fn[k->info.v > 1], k->info.b * (k->info.ndims == 3 ? k->info.by : 1), sms);
    return 0;
}

/*
 * k->info.levels steps of the streaming kernels over box [lo, hi) of a 2D array of row stride
 * stride[0], or (info.ndims 3) of a 3D array of strides stride[0], stride[1] (local indices; live
 * cells [llo, lhi)), as kgt_stream_plan / kgt_stream3_plan lay them out. 0 when launched, 1 when
 * the kernels do not take the box (smaller than min_box unless any_size, or indices beyond their
 * range: the caller runs another kernel), -1 when the launch failed.
 */
static int rtc_stream_launch(const rtc_stream *k, const void *in, void *out, const long *lo,
                             const long *hi, const long *llo, const long *lhi, const long *stride,
                             size_t esz, gpuStream_t q, int any_size)
{
    const kgt_stream_info &t = k->info;
    const int three = t.ndims == 3, n = three ? KGT_STREAM3_NARGS : KGT_STREAM_NARGS;
    long long w64[KGT_STREAM3_NARGS > KGT_STREAM_NARGS ? KGT_STREAM3_NARGS : KGT_STREAM_NARGS];
    long grid[3] = {1, 1, 1}, s0 = stride[0], srow = three ? stride[1] : s0;
    if (!any_size && (hi[0] - lo[0] < t.min_box || hi[1] - lo[1] < t.min_box)) return 1;
    if (three ? kgt_stream3_plan(&t, lo, hi, llo, lhi, s0, stride[1], w64, grid)
              : kgt_stream_plan(&t, lo, hi, llo, lhi, s0, w64, grid))
        return 1;
    const long V = t.v;
    const int vec = V > 1 && s0 % V == 0 && srow % V == 0 && (uintptr_t)in % (V * esz) == 0 &&
                    (uintptr_t)out % (V * esz) == 0;
    int w32[sizeof w64 / sizeof *w64];
    void *args[2 + sizeof w64 / sizeof *w64] = {(void *)&in, (void *)&out};
    for (int i = 0; i < n; i++) {
        w32[i] = (int)w64[i];
        args[2 + i] = t.ix_int ? (void *)&w32[i] : (void *)&w64[i];
    }
    const unsigned by = three ? (unsigned)t.by : 1;
    const dim3 g3((unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2]);
#if defined(SB_GPU_HIP)
    gpuError_t r = k->stub[vec] ? hipLaunchKernel(k->stub[vec], g3, dim3(t.b, by), args, 0, q)
                                : hipModuleLaunchKernel(k->fn[vec], g3.x, g3.y, g3.z, t.b, by, 1, 0,
                                                        q, args, NULL);
#else
    const void *fn = k->stub[vec] ? k->stub[vec] : (const void *)k->fn[vec];
    gpuError_t r = cudaLaunchKernel(fn, g3, dim3(t.b, by), args, 0, q);
#endif
    return r == gpuSuccess ? 0 : -1;
}

} /* namespace SB_GPU_NS */

#endif /* SB_GPU_RTC_CUH */
