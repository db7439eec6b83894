//===- CudaBackend.h - The CUDA backend behind harness::Backend -*- C++ -*-===//
//
// `incant run --backend cuda`: generates CUDA C with the test as inline PTX
// (Codegen.h), compiles it with NVRTC, checks the SASS (OptCheck.h) and
// launches it through the driver API under harness::RunParams, counting
// outcomes on the GPU into a harness::Histogram. prepare() generates and
// compiles many tests as one module (Batch.h) ahead of their runs. The
// libraries are opened with dlopen: without libcuda.so.1 or a device,
// available() says so and the tool exits with code 3. See docs/cuda.md.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_CUDABACKEND_H
#define INCANT_CUDA_CUDABACKEND_H

#include "incant/Harness/Backend.h"

#include <cstdint>
#include <memory>
#include <string_view>
#include <optional>
#include <string>

namespace incant::cuda {

/// The message for a machine without the driver or a device.
inline const char *noDriverMessage() {
  return "no CUDA driver (libcuda.so.1) / no CUDA device found";
}

/// Knobs of the CUDA harness that harness::RunParams has no word for. The
/// measurement program (bench/cuda) sets them; `incant run` and every other
/// command use the defaults.
struct CudaTuning {
  /// With memory stress and RunParams' StressGroups 0: the share of the
  /// co-resident blocks that stress instead of testing.
  double StressFraction = 0.25;
  /// With bank conflicts on: testing lanes per warp (the others make the
  /// conflicting accesses).
  uint32_t BankLanes = 16;
  /// Warps added to each testing block that run the stress pattern while
  /// its other warps test: stress inside the CTA, for intra-CTA
  /// placements. Ignored for tests with bar.sync.
  uint32_t CtaStressWarps = 0;
  /// Stop launching after this many seconds (0: all RunParams::Iterations);
  /// RunResult::Launches says how many ran.
  double MaxSeconds = 0;
  /// Backend::prepare compiles for this architecture ("sm_90") instead of
  /// the device's, and needs no driver then (tests and benchmarks).
  std::string PrepareArch;
};

std::unique_ptr<harness::Backend> createCudaBackend(const CudaTuning &T = {});

/// What the CUDA backend's prepare() made of a test, for tests and
/// benchmarks: the architecture compiled for, the module's size and
/// identity (tests of one batch share it), the test's kernel and its
/// optcheck line. Null for another backend's prepared test.
struct PreparedSummary {
  std::string Arch;
  const void *Module = nullptr;
  size_t ModuleBytes = 0;
  std::string TestKernel;
  std::string HistKernel;
  std::string OptCheck;
  /// The module's bytes (a cubin), alive as long as the prepared test.
  std::string_view Cubin;
};
std::optional<PreparedSummary>
summarisePrepared(const harness::PreparedTest &P);

} // namespace incant::cuda

#endif // INCANT_CUDA_CUDABACKEND_H
