/*
 * The only vendor-specific part of the GPU backend: maps gpu* names onto the CUDA or HIP runtime.
 * gpu_backend.cu is compiled once by nvcc (SB_GPU_CUDA) and once by hipcc (SB_GPU_HIP); both
 * objects may be linked into one library, so each build puts its code in its own namespace and
 * exports its own ops table. Run-time compilation (NVRTC, hiprtc) differs more than by names:
 * rtc.cuh holds its two versions.
 */
#ifndef SB_GPU_VENDOR_H
#define SB_GPU_VENDOR_H

#if defined(SB_GPU_HIP)
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>

#define SB_GPU_NS          sb_hip_impl
#define SB_GPU_OPS         sb_hip_ops
#define SB_GPU_NAME        "hip"
#define SB_GPU_LAUNCHER    hip /* stencil_kernel member holding this vendor's launchers */
#define SB_GPU_FUSED       hip_fused
#define SB_GPU_STEPS       hip_steps
#define SB_GPU_RTC_COMPILE sb_hip_rtc_compile
/* clang's device pass would emit the (const) ops table and miss its host functions. */
#if defined(__HIP_DEVICE_COMPILE__)
#define SB_GPU_DEVICE_PASS 1
#else
#define SB_GPU_DEVICE_PASS 0
#endif

typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
typedef hipEvent_t gpuEvent_t;
typedef hipDeviceProp_t gpuDeviceProp;
typedef hipMemcpy3DParms gpuMemcpy3DParms;
typedef hipMemcpyKind gpuMemcpyKind;
typedef hipIpcMemHandle_t gpuIpcMemHandle_t;

#define gpuSuccess                      hipSuccess
#define gpuGetErrorString               hipGetErrorString
#define gpuGetErrorName                 hipGetErrorName
#define gpuGetLastError                 hipGetLastError
#define gpuGetDeviceCount               hipGetDeviceCount
#define gpuSetDevice                    hipSetDevice
#define gpuGetDeviceProperties          hipGetDeviceProperties
#define gpuMalloc                       hipMalloc
#define gpuFree                         hipFree
#define gpuMemGetInfo                   hipMemGetInfo
#define gpuHostAlloc                    hipHostMalloc
#define gpuHostAllocPortable            hipHostMallocPortable
#define gpuHostAllocMapped              hipHostMallocMapped
#define gpuFreeHost                     hipHostFree
#define gpuHostGetDevicePointer         hipHostGetDevicePointer
#define gpuMemcpy                       hipMemcpy
#define gpuMemcpyAsync                  hipMemcpyAsync
#define gpuMemcpy2DAsync                hipMemcpy2DAsync
#define gpuMemcpy3DAsync                hipMemcpy3DAsync
#define gpuMemcpyHostToDevice           hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost           hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice         hipMemcpyDeviceToDevice
#define make_gpuPitchedPtr              make_hipPitchedPtr
#define make_gpuPos                     make_hipPos
#define make_gpuExtent                  make_hipExtent
#define gpuStreamNonBlocking            hipStreamNonBlocking
#define gpuStreamCreateWithPriority     hipStreamCreateWithPriority
#define gpuDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define gpuStreamDestroy                hipStreamDestroy
#define gpuStreamSynchronize            hipStreamSynchronize
#define gpuStreamWaitEvent              hipStreamWaitEvent
#define gpuStreamQuery                  hipStreamQuery
#define gpuErrorNotReady                hipErrorNotReady
#define gpuMemcpyDefault                hipMemcpyDefault
#define gpuIpcGetMemHandle              hipIpcGetMemHandle
#define gpuIpcOpenMemHandle             hipIpcOpenMemHandle
#define gpuIpcCloseMemHandle            hipIpcCloseMemHandle
#define gpuIpcMemLazyEnablePeerAccess   hipIpcMemLazyEnablePeerAccess
#define gpuEventCreateWithFlags         hipEventCreateWithFlags
#define gpuEventDisableTiming           hipEventDisableTiming
#define gpuEventRecord                  hipEventRecord
#define gpuEventDestroy                 hipEventDestroy
#define gpuEventCreate                  hipEventCreate
#define gpuEventElapsedTime             hipEventElapsedTime

#else /* CUDA */
#include <cuda_runtime.h>
#include <nvrtc.h>

#define SB_GPU_NS          sb_cuda_impl
#define SB_GPU_OPS         sb_cuda_ops
#define SB_GPU_NAME        "cuda"
#define SB_GPU_LAUNCHER    cuda
#define SB_GPU_FUSED       cuda_fused
#define SB_GPU_STEPS       cuda_steps
#define SB_GPU_RTC_COMPILE sb_cuda_rtc_compile
#define SB_GPU_DEVICE_PASS 0 /* nvcc's device pass leaves host variables alone */

typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
typedef cudaDeviceProp gpuDeviceProp;
typedef cudaMemcpy3DParms gpuMemcpy3DParms;
typedef cudaMemcpyKind gpuMemcpyKind;
typedef cudaIpcMemHandle_t gpuIpcMemHandle_t;

#define gpuSuccess                      cudaSuccess
#define gpuGetErrorString               cudaGetErrorString
#define gpuGetErrorName                 cudaGetErrorName
#define gpuGetLastError                 cudaGetLastError
#define gpuGetDeviceCount               cudaGetDeviceCount
#define gpuSetDevice                    cudaSetDevice
#define gpuGetDeviceProperties          cudaGetDeviceProperties
#define gpuMalloc                       cudaMalloc
#define gpuFree                         cudaFree
#define gpuMemGetInfo                   cudaMemGetInfo
#define gpuHostAlloc                    cudaHostAlloc
#define gpuHostAllocPortable            cudaHostAllocPortable
#define gpuHostAllocMapped              cudaHostAllocMapped
#define gpuFreeHost                     cudaFreeHost
#define gpuHostGetDevicePointer         cudaHostGetDevicePointer
#define gpuMemcpy                       cudaMemcpy
#define gpuMemcpyAsync                  cudaMemcpyAsync
#define gpuMemcpy2DAsync                cudaMemcpy2DAsync
#define gpuMemcpy3DAsync                cudaMemcpy3DAsync
#define gpuMemcpyHostToDevice           cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost           cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice         cudaMemcpyDeviceToDevice
#define make_gpuPitchedPtr              make_cudaPitchedPtr
#define make_gpuPos                     make_cudaPos
#define make_gpuExtent                  make_cudaExtent
#define gpuStreamNonBlocking            cudaStreamNonBlocking
#define gpuStreamCreateWithPriority     cudaStreamCreateWithPriority
#define gpuDeviceGetStreamPriorityRange cudaDeviceGetStreamPriorityRange
#define gpuStreamDestroy                cudaStreamDestroy
#define gpuStreamSynchronize            cudaStreamSynchronize
#define gpuStreamWaitEvent              cudaStreamWaitEvent
#define gpuStreamQuery                  cudaStreamQuery
#define gpuErrorNotReady                cudaErrorNotReady
#define gpuMemcpyDefault                cudaMemcpyDefault
#define gpuIpcGetMemHandle              cudaIpcGetMemHandle
#define gpuIpcOpenMemHandle             cudaIpcOpenMemHandle
#define gpuIpcCloseMemHandle            cudaIpcCloseMemHandle
#define gpuIpcMemLazyEnablePeerAccess   cudaIpcMemLazyEnablePeerAccess
#define gpuEventCreateWithFlags         cudaEventCreateWithFlags
#define gpuEventDisableTiming           cudaEventDisableTiming
#define gpuEventRecord                  cudaEventRecord
#define gpuEventDestroy                 cudaEventDestroy
#define gpuEventCreate                  cudaEventCreate
#define gpuEventElapsedTime             cudaEventElapsedTime
#endif

#endif /* SB_GPU_VENDOR_H */
