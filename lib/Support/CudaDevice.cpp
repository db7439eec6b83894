//===- CudaDevice.cpp - Is there a CUDA device to run on? -----------------===//
#include "incant/Support/CudaDevice.h"
#include "incant/Support/CommandContext.h"

#include <cstdlib>
#include <dlfcn.h>

namespace incant {

namespace {

using InitFn = int (*)(unsigned);
using CountFn = int (*)(int *);
using NameFn = int (*)(int, const char **);

/// "CUDA_ERROR_NO_DEVICE (error 100)", or "CUDA error 100" where the
/// driver cannot name it.
std::string errorText(NameFn Name, int R) {
  const char *S = nullptr;
  if (Name && Name(R, &S) == 0 && S)
    return std::string(S) + " (error " + std::to_string(R) + ")";
  return "CUDA error " + std::to_string(R);
}

std::string probe() {
  const char *Env = std::getenv("INCANT_LIBCUDA");
  std::string Lib = Env && *Env ? Env : "libcuda.so.1";
  // Kept open: a driver once initialised is not unloaded.
  void *H = dlopen(Lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *Why = dlerror();
    return "no CUDA driver (" + (Why ? std::string(Why) : Lib + " not found") +
           ")";
  }
  auto Init = reinterpret_cast<InitFn>(dlsym(H, "cuInit"));
  auto Count = reinterpret_cast<CountFn>(dlsym(H, "cuDeviceGetCount"));
  auto Name = reinterpret_cast<NameFn>(dlsym(H, "cuGetErrorName"));
  if (!Init || !Count)
    return "the CUDA driver " + Lib + " has no cuInit or cuDeviceGetCount";
  if (int R = Init(0); R != 0)
    return "the CUDA driver (" + Lib + ") failed to start: cuInit: " +
           errorText(Name, R);
  int N = 0;
  if (int R = Count(&N); R != 0)
    return "the CUDA driver (" + Lib + ") cannot count its devices: " +
           errorText(Name, R);
  if (N == 0)
    return "the CUDA driver (" + Lib + ") found no device";
  return "";
}

} // namespace

const std::string &missingCudaDevice() {
  static const std::string Why = probe();
  return Why;
}

// Here, not in CommandContext.cpp, so that a command that never asks links no
// dlopen (the statically linked `incant`).
int CommandContext::requireCudaDevice(std::string_view What) {
  const std::string &Missing = missingCudaDevice();
  if (Missing.empty())
    return 0;
  return fail(ErrorKind::Device,
              std::string(What) + " needs a CUDA device: " + Missing);
}

} // namespace incant
