//===- Launch.h - Run a generated test on a GPU (private) -------*- C++ -*-===//
#ifndef INCANT_LIB_CUDA_LAUNCH_H
#define INCANT_LIB_CUDA_LAUNCH_H

#include "Compile.h"
#include "incant/CUDA/Codegen.h"
#include "incant/CUDA/CudaBackend.h"
#include "incant/Harness/Backend.h"

#include <functional>
#include <list>
#include <map>
#include <memory>

namespace incant::cuda {

/// What one backend object keeps on one device between runs, so that a
/// campaign's thousands of runs do not allocate, free, load and unload for
/// each test (cuMemFree and cuModuleUnload wait for the whole device, also
/// for other workers' launches): device buffers, grown as needed and freed
/// with the object, and the last few modules loaded (a batch's module
/// serves all its tests). Used by one thread at a time.
class DeviceState {
public:
  DeviceState(CudaLibraries &L, uint32_t Device) : L(L), Device(Device) {}
  ~DeviceState();
  DeviceState(const DeviceState &) = delete;
  DeviceState &operator=(const DeviceState &) = delete;

  /// Makes the device's primary context current (retained once).
  bool activate(DiagnosticEngine &Diags);
  /// Buffer number \p Slot, at least \p Bytes long, zeroed.
  bool buffer(unsigned Slot, size_t Bytes, CUdeviceptr &P,
              DiagnosticEngine &Diags);
  /// \p M loaded in this context.
  bool module(const std::shared_ptr<const CompiledModule> &M, CUmodule &Mod,
              DiagnosticEngine &Diags);

private:
  bool check(CUresult R, const char *What, DiagnosticEngine &Diags);
  CudaLibraries &L;
  uint32_t Device;
  CUcontext Ctx = nullptr;
  struct Buffer {
    CUdeviceptr Ptr = 0;
    size_t Bytes = 0;
  };
  std::map<unsigned, Buffer> Buffers;
  /// Most recently used first.
  std::list<std::pair<std::shared_ptr<const CompiledModule>, CUmodule>>
      Modules;
};

/// Runs \p G, the code generated for a test, on the device of \p State:
/// the kernels of \p Compiled (a batch's, from Backend::prepare) or, when
/// it is null or for another architecture, compiled here through the
/// cache; the launch shape from the device's occupancy and \p Params, the
/// incantations as kernel parameters, Params.Iterations launches, and the
/// histogram the GPU counted, decoded into the test's values
/// (decodeOutcome); \p OnLaunch (may be empty) after each launch queued.
/// The driver and NVRTC must be loaded. Failures are
/// reported to \p Diags: a CUDA call (Device), NVRTC rejecting the
/// generated code (Internal), a test or parameters the launch cannot hold
/// (Input).
Expected<harness::RunResult>
runOnDevice(const GeneratedTest &G, const CompiledKernels *Compiled,
            const harness::RunParams &Params, const CudaTuning &Tuning,
            DeviceState &State, uint32_t Device,
            const std::function<void(uint64_t)> &OnLaunch,
            const std::string &CompileCache, DiagnosticEngine &Diags);

} // namespace incant::cuda

#endif // INCANT_LIB_CUDA_LAUNCH_H
