/*
 * What the emulations of the streaming kernels (stream_emu.cc, stream3_emu.cc) share: the CUDA
 * names the kernels use, as host C++. One fiber per GPU thread (emu_fiber.h), a barrier for
 * __syncthreads, blocks one after another.
 */
#ifndef EMU_PRELUDE_HH
#define EMU_PRELUDE_HH

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "emu_fiber.h"

namespace
{
struct emu_dim3 {
    unsigned x, y, z;
};
thread_local emu_dim3 threadIdx;
emu_dim3 blockIdx;
emu_barrier emu_bar;

struct float2 {
    float x, y;
};
inline float2 make_float2(float a, float b)
{
    return float2{a, b};
}
inline unsigned __float_as_uint(float f)
{
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
inline float __fmaf_rn(float a, float b, float c)
{
    return std::fma(a, b, c);
}
/* The contract's operations, rounded once each (the test is built without contraction). */
#define EMU_RN(T)                                                                                  \
    inline T kgt_add(T a, T b)                                                                     \
    {                                                                                              \
        return a + b;                                                                              \
    }                                                                                              \
    inline T kgt_sub(T a, T b)                                                                     \
    {                                                                                              \
        return a - b;                                                                              \
    }                                                                                              \
    inline T kgt_mul(T a, T b)                                                                     \
    {                                                                                              \
        return a * b;                                                                              \
    }
EMU_RN(float)
EMU_RN(double)
} // namespace

#define __syncthreads()        emu_barrier_wait(&emu_bar)
#define __global__             /* a host function here */
#define __device__             /* likewise */
#define __forceinline__        inline
#define __launch_bounds__(...) /* a device matter */
#define __shared__             static
#define __align__(n)           __attribute__((aligned(n)))
#define KGT_EXTERN_C           static
#define KGT_CLAMP(v, lo, hi)   ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

typedef void (*emu_fn)(void);

#endif
