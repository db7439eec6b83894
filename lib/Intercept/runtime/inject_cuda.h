//===- inject_cuda.h - The driver API the injected library uses -*- C++ -*-===//
//
// The few CUDA driver types and entry points the injected library needs,
// declared here with the driver's stable ABI (as lib/CUDA/CudaApi.h does),
// so the library builds without the CUDA toolkit. unittests/Intercept
// checks them against cuda.h where the toolkit is installed.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INJECT_CUDA_H
#define INCANT_INJECT_CUDA_H

#include <cstddef>
#include <cstdint>

namespace incant_inject {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using cuuint64_t = uint64_t;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUlib_st;
struct CUkern_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUlibrary = CUlib_st *;
using CUkernel = CUkern_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUjit_option = int;
using CUlibraryOption = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr uintptr_t CU_STREAM_LEGACY_HANDLE = 0x1;
constexpr uintptr_t CU_STREAM_PER_THREAD_HANDLE = 0x2;
constexpr cuuint64_t CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 1u << 1;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
constexpr int CU_STREAM_CAPTURE_STATUS_NONE = 0;

// Virtual memory management (cuMemAddressReserve and friends).
using CUmemGenericAllocationHandle = unsigned long long;
constexpr int CU_MEM_ALLOCATION_TYPE_PINNED = 1;
constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 1;
constexpr int CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3;
constexpr int CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0;

struct CUmemLocation {
  int type;
  int id;
};

struct CUmemAllocationProp {
  int type;
  int requestedHandleTypes;
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};

struct CUmemAccessDesc {
  CUmemLocation location;
  int flags;
};

struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  union {
    char bytes[64];
    int cooperative;
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};

struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

// Signatures of the hooked entry points.
using GetProcAddressV2Fn = CUresult (*)(const char *, void **, int,
                                        cuuint64_t, int *);
using GetProcAddressV1Fn = CUresult (*)(const char *, void **, int,
                                        cuuint64_t);
using LaunchKernelFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void **, void **);
using LaunchKernelExFn = CUresult (*)(const CUlaunchConfig *, CUfunction,
                                      void **, void **);
using LaunchCooperativeFn = CUresult (*)(CUfunction, unsigned, unsigned,
                                         unsigned, unsigned, unsigned,
                                         unsigned, unsigned, CUstream,
                                         void **);
using ModuleLoadDataFn = CUresult (*)(CUmodule *, const void *);
using ModuleLoadDataExFn = CUresult (*)(CUmodule *, const void *, unsigned,
                                        CUjit_option *, void **);
using ModuleLoadFn = CUresult (*)(CUmodule *, const char *);
using ModuleUnloadFn = CUresult (*)(CUmodule);
using LibraryLoadDataFn = CUresult (*)(CUlibrary *, const void *,
                                       CUjit_option *, void **, unsigned,
                                       CUlibraryOption *, void **, unsigned);
using LibraryLoadFromFileFn = CUresult (*)(CUlibrary *, const char *,
                                           CUjit_option *, void **, unsigned,
                                           CUlibraryOption *, void **,
                                           unsigned);
using LibraryUnloadFn = CUresult (*)(CUlibrary);
using LibraryGetKernelFn = CUresult (*)(CUkernel *, CUlibrary, const char *);
using LibraryEnumerateKernelsFn = CUresult (*)(CUkernel *, unsigned,
                                               CUlibrary);
using ModuleGetFunctionFn = CUresult (*)(CUfunction *, CUmodule,
                                         const char *);
using DevicePrimaryCtxResetFn = CUresult (*)(CUdevice);
using CtxDestroyFn = CUresult (*)(CUcontext);

/// Real driver entry points the library calls itself (found through the
/// real cuGetProcAddress; null where the driver lacks one).
struct Driver {
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *) = nullptr;
  CUresult (*cuCtxGetDevice)(CUdevice *) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuDeviceGetPCIBusId)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  ModuleLoadDataFn cuModuleLoadData = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) =
      nullptr;
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule,
                                const char *) = nullptr;
  CUresult (*cuFuncGetModule)(CUmodule *, CUfunction) = nullptr;
  CUresult (*cuFuncGetName)(const char **, CUfunction) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuKernelGetFunction)(CUfunction *, CUkernel) = nullptr;
  CUresult (*cuKernelGetName)(const char **, CUkernel) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemGetAllocationGranularity)(size_t *,
                                            const CUmemAllocationProp *,
                                            int) = nullptr;
  CUresult (*cuMemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr,
                                  unsigned long long) = nullptr;
  CUresult (*cuMemAddressFree)(CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemCreate)(CUmemGenericAllocationHandle *, size_t,
                          const CUmemAllocationProp *,
                          unsigned long long) = nullptr;
  CUresult (*cuMemRelease)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*cuMemMap)(CUdeviceptr, size_t, size_t,
                       CUmemGenericAllocationHandle,
                       unsigned long long) = nullptr;
  CUresult (*cuMemUnmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *,
                             size_t) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream) =
      nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t,
                                CUstream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream) =
      nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned) = nullptr;
  CUresult (*cuStreamIsCapturing)(CUstream, int *) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t) =
      nullptr;
  LaunchKernelFn cuLaunchKernel = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
};

} // namespace incant_inject

#endif // INCANT_INJECT_CUDA_H
