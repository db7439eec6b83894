//===- CudaApi.h - The CUDA driver, NVRTC and NVML, loaded with dlopen -*- C++ -*-===//
//
// incant builds and runs where no GPU, driver or toolkit exists, so the
// CUDA libraries are opened at run time. Only the few entry points the
// harness needs are declared here (with the driver API's stable ABI types);
// unittests/CUDA checks them against cuda.h when the toolkit is installed.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_CUDAAPI_H
#define INCANT_CUDA_CUDAAPI_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace incant::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using nvrtcResult = int;
struct _nvrtcProgram;
using nvrtcProgram = _nvrtcProgram *;

// CUdevice_attribute values used here (cuda.h, stable).
enum : int {
  CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
  CU_ATTR_MULTIPROCESSOR_COUNT = 16,
  CU_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
};

/// Function pointers into libcuda.so.1.
struct DriverApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) =
      nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t) =
      nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
};

struct NvrtcApi {
  nvrtcResult (*nvrtcVersion)(int *, int *) = nullptr;
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *,
                                    int, const char *const *,
                                    const char *const *) = nullptr;
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *) = nullptr;
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *) =
      nullptr;
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *) = nullptr;
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *) = nullptr;
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t *) = nullptr;
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char *) = nullptr;
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *) = nullptr;
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *) = nullptr;
};

struct NvmlApi {
  int (*nvmlInit)() = nullptr;
  int (*nvmlSystemGetDriverVersion)(char *, unsigned) = nullptr;
  int (*nvmlShutdown)() = nullptr;
};

/// The loaded libraries. Each part is optional: Driver is needed to run,
/// NVRTC to compile (and for --emit's PTX), NVML only for the driver
/// version string.
class CudaLibraries {
public:
  CudaLibraries() = default;
  ~CudaLibraries();
  CudaLibraries(const CudaLibraries &) = delete;
  CudaLibraries &operator=(const CudaLibraries &) = delete;

  /// Opens libcuda.so.1 and calls cuInit; on failure returns false and
  /// says why in \p Why.
  bool loadDriver(std::string &Why);
  /// Opens NVRTC (libnvrtc.so.13, .12, ..., also under $CUDA_HOME/lib64
  /// and /usr/local/cuda/lib64).
  bool loadNvrtc(std::string &Why);
  /// Opens libnvidia-ml.so.1; returns the driver version or "".
  std::string nvmlDriverVersion();

  DriverApi Drv;
  NvrtcApi Rtc;
  NvmlApi Nvml;
  std::string NvrtcPath; ///< Which NVRTC was opened.

  /// Text of a driver error code.
  std::string errorString(CUresult R) const;

private:
  void *DriverHandle = nullptr;
  std::string DriverFailure; ///< Why cuInit failed, once it has.
  void *NvrtcHandle = nullptr;
  void *NvmlHandle = nullptr;
};

/// Candidate file names for NVRTC, most recent first.
std::vector<std::string> nvrtcCandidates();

} // namespace incant::cuda

#endif // INCANT_CUDA_CUDAAPI_H
