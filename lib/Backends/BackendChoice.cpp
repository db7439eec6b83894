//===- BackendChoice.cpp - Which backend and device a run uses ------------===//
#include "incant/Backends/BackendChoice.h"
#include "incant/CUDA/CudaBackend.h"
#include "incant/OpenCL/OpenCLBackend.h"

#include <dlfcn.h>

namespace incant::backends {

using harness::DeviceInfo;

/// Whether an NVIDIA driver is installed (the CUDA backend would use it).
bool haveCudaDriver() {
  void *H = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!H)
    return false;
  dlclose(H);
  return true;
}

/// Whether the backend, which is there, has device \p Index: a device
/// index that no device has is a usage error (exit 2), like `campaign
/// --devices 99`, not a missing device (exit 3).
static bool knownDevice(harness::Backend &B, uint32_t Index,
                        DiagnosticEngine &Diags) {
  size_t N = B.devices().size();
  if (Index < N)
    return true;
  Diags.error("no " + std::string(B.name()) + " device " +
              std::to_string(Index) + " (there " +
              (N == 1 ? "is 1" : "are " + std::to_string(N)) +
              "; see `incant devices`)");
  return false;
}

Expected<ChosenBackend> chooseBackend(const std::string &Backend,
                                      std::optional<uint32_t> Device,
                                      DiagnosticEngine &Diags) {
  if (Backend == "cuda" || (Backend == "auto" && haveCudaDriver())) {
    ChosenBackend C;
    C.B = cuda::createCudaBackend();
    std::string Why;
    if (C.B->available(Why) && !C.B->devices().empty()) {
      C.Device = Device.value_or(0);
      if (!knownDevice(*C.B, C.Device, Diags))
        return ErrorKind::Input;
      if (Backend == "auto")
        C.Note = "chose the first CUDA device";
      return C;
    }
    if (Backend == "cuda") {
      Diags.error(cuda::noDriverMessage());
      return ErrorKind::Device;
    }
  }
  if (Backend != "auto" && Backend != "opencl") {
    Diags.error("unknown backend '" + Backend +
                "' (expected auto, opencl or cuda)");
    return ErrorKind::Input;
  }
  ChosenBackend C;
  C.B = opencl::createOpenCLBackend();
  std::string Why;
  if (!C.B->available(Why)) {
    Diags.error(Why);
    return ErrorKind::Device;
  }
  std::vector<DeviceInfo> Ds = C.B->devices();
  if (Ds.empty()) {
    Diags.error("the OpenCL runtime lists no device; install a driver (e.g. "
                "Debian's pocl-opencl-icd for the CPU)");
    return ErrorKind::Device;
  }
  if (Device) {
    C.Device = *Device;
    if (!knownDevice(*C.B, C.Device, Diags))
      return ErrorKind::Input;
    return C;
  }
  if (Backend == "auto" && haveCudaDriver())
    C.Note = "an NVIDIA driver is installed but no CUDA device could be "
             "used; ";
  // An OpenCL GPU that can run litmus tests, else such a CPU device (an
  // NVIDIA OpenCL GPU, for one, lacks device-scope atomics).
  const DeviceInfo *Pick = nullptr;
  for (const DeviceInfo &D : Ds)
    if (D.Usable && D.IsGPU && !Pick)
      Pick = &D;
  for (const DeviceInfo &D : Ds)
    if (D.Usable && D.IsCPU && !Pick)
      Pick = &D;
  if (!Pick)
    Pick = &Ds[0];
  C.Device = Pick->Index;
  C.Note += Pick->IsGPU ? "chose the first OpenCL GPU"
                        : "no OpenCL GPU: chose the OpenCL CPU device";
  return C;
}

std::unique_ptr<harness::Backend> createBackend(const std::string &Name) {
  if (Name == "cuda")
    return cuda::createCudaBackend();
  if (Name == "opencl")
    return opencl::createOpenCLBackend();
  return nullptr;
}

} // namespace incant::backends
