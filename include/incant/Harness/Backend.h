//===- Backend.h - The one interface every test backend implements -*- C++ -*-===//
//
// A backend (OpenCL, CUDA) lists its devices and runs a litmus::Program
// under RunParams, returning the histogram counted on the device. Layout,
// permutations, incantations, histogram and statistics are shared
// (harness::); a backend only generates code and launches it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_HARNESS_BACKEND_H
#define INCANT_HARNESS_BACKEND_H

#include "incant/Harness/Histogram.h"
#include "incant/Harness/Params.h"
#include "incant/Litmus/Program.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::harness {

struct DeviceInfo {
  std::string Backend;  ///< "opencl", "cuda"
  uint32_t Index = 0;   ///< The N of --device N, within the backend.
  std::string Name;
  std::string Vendor;
  std::string Platform;
  std::string Version;  ///< Device version string.
  std::string Driver;
  bool IsGPU = false;
  bool IsCPU = false;
  bool IsNvidia = false;
  /// The backend can run litmus tests here (e.g. an OpenCL device needs
  /// device-scope atomics); Notes says why not.
  bool Usable = true;
  uint32_t ComputeUnits = 0;
  uint32_t MaxGroupSize = 0;
  /// What the backend can and cannot express on this device, in words
  /// (e.g. "atomics: OpenCL C 3.0, scopes work_group device").
  std::vector<std::string> Notes;
};

/// What a run needs besides the Program.
struct RunRequest {
  const litmus::Program *Prog = nullptr;
  /// The test's file, for diagnostics pointing at its instructions.
  std::shared_ptr<const SourceFile> File;
  RunParams Params;
  uint32_t Device = 0;
  /// Write generated code here and do not run (empty: run).
  std::string EmitDir;
};

struct RunResult {
  Histogram Hist;
  uint64_t Launches = 0;
  uint64_t Instances = 0;       ///< Total instances run.
  uint32_t InstancesPerLaunch = 0;
  uint32_t Groups = 0;          ///< Work-groups per launch.
  uint32_t GroupSize = 0;
  uint32_t WarpSize = 0;
  double Seconds = 0;           ///< Time spent in launches.
  uint64_t BarrierTimeouts = 0; ///< Threads whose spin barrier gave up.
  uint64_t LoopBoundHits = 0;   ///< Instances cut short by the loop bound.
  uint64_t Lost = 0;            ///< Instances the device could not record.
  DeviceInfo Device;
  std::vector<std::string> EmittedFiles; ///< With --emit.
  /// "optcheck: ok", "optcheck: FAILED (...)" or "optcheck: skipped (...)"
  /// from a backend that checks the compiled code (CUDA); empty otherwise.
  std::string OptCheck;
};

class Backend {
public:
  virtual ~Backend();
  virtual const char *name() const = 0;
  /// Whether the backend's runtime could be loaded; \p Why says why not.
  virtual bool available(std::string &Why) = 0;
  virtual std::vector<DeviceInfo> devices() = 0;
  /// Runs (or with EmitDir set, only generates). Errors are reported to
  /// \p Diags and their kind returned: Input for a test or parameters the
  /// backend cannot run faithfully (an instruction with no faithful form, a
  /// placement it cannot lay out), Device when the runtime, the driver or a
  /// device call fails, Internal when the generated code does not build.
  virtual Expected<RunResult> run(const RunRequest &Req,
                                  DiagnosticEngine &Diags) = 0;
};

} // namespace incant::harness

#endif // INCANT_HARNESS_BACKEND_H
