/* OpenCL error codes: their names for messages and the STENCIL_E* code each becomes. */
#include "ocl.h"

#define E(x)                                                                                       \
    case x:                                                                                        \
        return #x;

const char *ocl_errname(cl_int err)
{
    switch (err) {
        E(CL_SUCCESS)
        E(CL_DEVICE_NOT_FOUND)
        E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES)
        E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE)
        E(CL_MEM_COPY_OVERLAP)
        E(CL_IMAGE_FORMAT_MISMATCH)
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_MAP_FAILURE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_COMPILE_PROGRAM_FAILURE)
        E(CL_LINKER_NOT_AVAILABLE)
        E(CL_LINK_PROGRAM_FAILURE)
        E(CL_DEVICE_PARTITION_FAILED)
        E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE_TYPE)
        E(CL_INVALID_PLATFORM)
        E(CL_INVALID_DEVICE)
        E(CL_INVALID_CONTEXT)
        E(CL_INVALID_QUEUE_PROPERTIES)
        E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_HOST_PTR)
        E(CL_INVALID_MEM_OBJECT)
        E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        E(CL_INVALID_IMAGE_SIZE)
        E(CL_INVALID_SAMPLER)
        E(CL_INVALID_BINARY)
        E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE)
        E(CL_INVALID_KERNEL_NAME)
        E(CL_INVALID_KERNEL_DEFINITION)
        E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX)
        E(CL_INVALID_ARG_VALUE)
        E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS)
        E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE)
        E(CL_INVALID_GLOBAL_OFFSET)
        E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT)
        E(CL_INVALID_OPERATION)
        E(CL_INVALID_GL_OBJECT)
        E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_MIP_LEVEL)
        E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_INVALID_PROPERTY)
        E(CL_INVALID_IMAGE_DESCRIPTOR)
        E(CL_INVALID_COMPILER_OPTIONS)
        E(CL_INVALID_LINKER_OPTIONS)
        E(CL_INVALID_DEVICE_PARTITION_COUNT)
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "CL_UNKNOWN_ERROR";
    }
}

int ocl_code(cl_int err)
{
    switch (err) {
    case CL_SUCCESS:
        return 0;
    case CL_OUT_OF_HOST_MEMORY:
        return STENCIL_ENOMEM;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
        return STENCIL_EDEVMEM;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILE_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
    case CL_INVALID_BUILD_OPTIONS:
        return STENCIL_EBUILD;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case -1001: /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no driver */
        return STENCIL_ENOBACKEND;
    default:
        return STENCIL_EDEVICE;
    }
}

int ocl_fail(sb_dev *dev, cl_int err, const char *call)
{
    return sb_fail(dev, ocl_code(err), "OpenCL: %s failed: %s (%d)", call, ocl_errname(err),
                   (int)err);
}
