//===- CLApi.h - The OpenCL runtime, loaded with dlopen ---------*- C++ -*-===//
//
// incant must start on machines without OpenCL, so nothing links against
// libOpenCL: the ICD loader is opened at run time and the entry points the
// backend uses are looked up by name. Types and constants come from the
// Khronos headers (opencl-c-headers).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_OPENCL_CLAPI_H
#define INCANT_LIB_OPENCL_CLAPI_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <string>

namespace incant::opencl {

#define INCANT_CL_FUNCTIONS(X)                                                 \
  X(clGetPlatformIDs)                                                          \
  X(clGetPlatformInfo)                                                         \
  X(clGetDeviceIDs)                                                            \
  X(clGetDeviceInfo)                                                           \
  X(clCreateContext)                                                           \
  X(clReleaseContext)                                                          \
  X(clCreateCommandQueueWithProperties)                                                      \
  X(clReleaseCommandQueue)                                                     \
  X(clCreateProgramWithSource)                                                 \
  X(clBuildProgram)                                                            \
  X(clGetProgramBuildInfo)                                                     \
  X(clReleaseProgram)                                                          \
  X(clCreateKernel)                                                            \
  X(clReleaseKernel)                                                           \
  X(clSetKernelArg)                                                            \
  X(clGetKernelWorkGroupInfo)                                                  \
  X(clCreateBuffer)                                                            \
  X(clReleaseMemObject)                                                        \
  X(clEnqueueWriteBuffer)                                                      \
  X(clEnqueueReadBuffer)                                                       \
  X(clEnqueueFillBuffer)                                                       \
  X(clEnqueueNDRangeKernel)                                                    \
  X(clWaitForEvents)                                                           \
  X(clReleaseEvent)                                                            \
  X(clFinish)

/// The loaded entry points; a process loads them once.
struct CLApi {
#define INCANT_CL_MEMBER(Name) decltype(&::Name) Name = nullptr;
  INCANT_CL_FUNCTIONS(INCANT_CL_MEMBER)
#undef INCANT_CL_MEMBER

  /// Null (and \p Why set) if libOpenCL.so.1 or an entry point is missing.
  static const CLApi *get(std::string &Why);
};

/// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES").
const char *errorName(cl_int Err);

} // namespace incant::opencl

#endif // INCANT_LIB_OPENCL_CLAPI_H
