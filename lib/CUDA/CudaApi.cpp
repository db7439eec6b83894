//===- CudaApi.cpp - The CUDA driver, NVRTC and NVML, loaded with dlopen ---===//

#include "incant/CUDA/CudaApi.h"
#include "incant/Support/Phases.h"

#include <fmt/format.h>

#include <cstdlib>
#include <dlfcn.h>

using namespace incant::cuda;

namespace {

template <typename F> bool sym(void *H, F &Fn, const char *Name) {
  Fn = reinterpret_cast<F>(dlsym(H, Name));
  return Fn != nullptr;
}

} // namespace

CudaLibraries::~CudaLibraries() {
  // The driver and NVRTC stay loaded until exit: unloading libcuda while a
  // context exists is not supported.
  if (NvmlHandle && Nvml.nvmlShutdown)
    Nvml.nvmlShutdown();
}

std::string CudaLibraries::errorString(CUresult R) const {
  const char *S = nullptr;
  if (Drv.cuGetErrorString && Drv.cuGetErrorString(R, &S) == 0 && S)
    return fmt::format("{} (CUDA error {})", S, R);
  return fmt::format("CUDA error {}", R);
}

bool CudaLibraries::loadDriver(std::string &Why) {
  if (DriverHandle) {
    // Opened before; cuInit's answer stands (a second call must not
    // pretend a driver without devices works).
    Why = DriverFailure;
    return DriverFailure.empty();
  }
  incant::phases::Scope Timed("cuda: driver (dlopen, cuInit)");
  const char *Path = std::getenv("INCANT_LIBCUDA");
  void *H = dlopen(Path ? Path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    Why = "no CUDA driver (libcuda.so.1) found";
    return false;
  }
  bool Ok = true;
  Ok &= sym(H, Drv.cuInit, "cuInit");
  Ok &= sym(H, Drv.cuDriverGetVersion, "cuDriverGetVersion");
  Ok &= sym(H, Drv.cuDeviceGetCount, "cuDeviceGetCount");
  Ok &= sym(H, Drv.cuDeviceGet, "cuDeviceGet");
  Ok &= sym(H, Drv.cuDeviceGetName, "cuDeviceGetName");
  Ok &= sym(H, Drv.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  Ok &= sym(H, Drv.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  Ok &= sym(H, Drv.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  Ok &= sym(H, Drv.cuCtxSetCurrent, "cuCtxSetCurrent");
  Ok &= sym(H, Drv.cuCtxSynchronize, "cuCtxSynchronize");
  Ok &= sym(H, Drv.cuModuleLoadData, "cuModuleLoadData");
  Ok &= sym(H, Drv.cuModuleUnload, "cuModuleUnload");
  Ok &= sym(H, Drv.cuModuleGetFunction, "cuModuleGetFunction");
  Ok &= sym(H, Drv.cuMemAlloc, "cuMemAlloc_v2");
  Ok &= sym(H, Drv.cuMemFree, "cuMemFree_v2");
  Ok &= sym(H, Drv.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  Ok &= sym(H, Drv.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  Ok &= sym(H, Drv.cuMemsetD8, "cuMemsetD8_v2");
  Ok &= sym(H, Drv.cuLaunchKernel, "cuLaunchKernel");
  Ok &= sym(H, Drv.cuOccupancyMaxActiveBlocksPerMultiprocessor,
            "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  Ok &= sym(H, Drv.cuGetErrorString, "cuGetErrorString");
  if (!Ok) {
    Why = "the CUDA driver (libcuda.so.1) lacks entry points incant needs";
    dlclose(H);
    Drv = {};
    return false;
  }
  DriverHandle = H;
  CUresult R = Drv.cuInit(0);
  int N = 0;
  if (R != 0 || Drv.cuDeviceGetCount(&N) != 0 || N == 0) {
    Why = R == 100 || N == 0 ? "no CUDA device found"
                             : "the CUDA driver failed to start: " +
                                   errorString(R);
    DriverFailure = Why;
    return false;
  }
  return true;
}

std::vector<std::string> incant::cuda::nvrtcCandidates() {
  std::vector<std::string> Names;
  for (int V = 14; V >= 11; --V)
    Names.push_back(fmt::format("libnvrtc.so.{}", V));
  Names.push_back("libnvrtc.so");
  std::vector<std::string> All;
  if (const char *P = std::getenv("INCANT_LIBNVRTC"))
    All.push_back(P);
  All.insert(All.end(), Names.begin(), Names.end());
  std::vector<std::string> Dirs;
  if (const char *H = std::getenv("CUDA_HOME"))
    Dirs.push_back(std::string(H) + "/lib64/");
  Dirs.push_back("/usr/local/cuda/lib64/");
  for (const auto &D : Dirs)
    for (const auto &N : Names)
      All.push_back(D + N);
  return All;
}

bool CudaLibraries::loadNvrtc(std::string &Why) {
  if (NvrtcHandle)
    return true;
  incant::phases::Scope Timed("cuda: NVRTC (dlopen)");
  void *H = nullptr;
  for (const auto &Name : nvrtcCandidates())
    if ((H = dlopen(Name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      NvrtcPath = Name;
      break;
    }
  if (!H) {
    Why = "no NVRTC (libnvrtc.so.13 or similar) found; set CUDA_HOME";
    return false;
  }
  bool Ok = true;
  Ok &= sym(H, Rtc.nvrtcVersion, "nvrtcVersion");
  Ok &= sym(H, Rtc.nvrtcCreateProgram, "nvrtcCreateProgram");
  Ok &= sym(H, Rtc.nvrtcDestroyProgram, "nvrtcDestroyProgram");
  Ok &= sym(H, Rtc.nvrtcCompileProgram, "nvrtcCompileProgram");
  Ok &= sym(H, Rtc.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
  Ok &= sym(H, Rtc.nvrtcGetProgramLog, "nvrtcGetProgramLog");
  Ok &= sym(H, Rtc.nvrtcGetPTXSize, "nvrtcGetPTXSize");
  Ok &= sym(H, Rtc.nvrtcGetPTX, "nvrtcGetPTX");
  Ok &= sym(H, Rtc.nvrtcGetCUBINSize, "nvrtcGetCUBINSize");
  Ok &= sym(H, Rtc.nvrtcGetCUBIN, "nvrtcGetCUBIN");
  if (!Ok) {
    Why = "NVRTC (" + NvrtcPath + ") lacks entry points incant needs";
    dlclose(H);
    Rtc = {};
    return false;
  }
  NvrtcHandle = H;
  return true;
}

std::string CudaLibraries::nvmlDriverVersion() {
  if (!NvmlHandle) {
    incant::phases::Scope Timed("cuda: NVML (driver version)");
    void *H = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!H)
      return "";
    if (!sym(H, Nvml.nvmlInit, "nvmlInit_v2") ||
        !sym(H, Nvml.nvmlSystemGetDriverVersion,
             "nvmlSystemGetDriverVersion") ||
        !sym(H, Nvml.nvmlShutdown, "nvmlShutdown") || Nvml.nvmlInit() != 0) {
      Nvml = {};
      dlclose(H);
      return "";
    }
    NvmlHandle = H;
  }
  char Buf[96] = {};
  if (Nvml.nvmlSystemGetDriverVersion(Buf, sizeof(Buf)) != 0)
    return "";
  return Buf;
}
