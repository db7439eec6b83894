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

#include <functional>
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

/// A test made ready to launch on one kind of device (its code generated
/// and compiled) by Backend::prepare, ahead of the run and on another
/// thread; only its backend looks inside.
class PreparedTest {
public:
  virtual ~PreparedTest();
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
  /// A folder where the backend keeps compiled code between commands and
  /// takes it from when the same code comes again (campaign
  /// --compile-cache); empty: nowhere.
  std::string CompileCache;
  /// What Backend::prepare made of this request (the same Program, File
  /// and Params), or null: the run generates and compiles itself.
  std::shared_ptr<const PreparedTest> Prepared;
  /// Called during the launches with how many have been queued so far (of
  /// Params.Iterations), once a launch; empty: not called. For a progress
  /// line, so it must return at once.
  std::function<void(uint64_t Launched)> OnLaunch;
};

struct RunResult {
  Histogram Hist;
  uint64_t Launches = 0;
  uint64_t Instances = 0;       ///< Total instances run.
  uint32_t InstancesPerLaunch = 0;
  uint32_t Groups = 0;          ///< Work-groups per launch.
  uint32_t GroupSize = 0;
  uint32_t WarpSize = 0;
  /// Time spent in launches, from the first until the device finished the
  /// last: the GPU's (or OpenCL device's) share of the run, without
  /// generating, compiling or loading the code.
  double Seconds = 0;
  /// Waits at the spin barrier that gave up, of BarrierWaits: on OpenCL
  /// every testing work-item waits for its instance's roles; on CUDA one
  /// thread per testing block waits for every testing block.
  uint64_t BarrierTimeouts = 0;
  uint64_t BarrierWaits = 0;    ///< 0 when the barrier was off.
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

  /// Prepares every request of \p Reqs (all for one device, without
  /// EmitDir) for run(), in one go where the backend gains from it (CUDA
  /// compiles them as one module). May be called from several threads at
  /// once, also while run() runs on another. Per request: the prepared
  /// test, null when this backend prepares nothing ahead (run() does all
  /// the work), or the error's kind with its diagnostics in \p Diags[i]
  /// (as run() would have reported them). The default prepares nothing.
  virtual std::vector<Expected<std::shared_ptr<const PreparedTest>>>
  prepare(const std::vector<RunRequest> &Reqs,
          const std::vector<DiagnosticEngine *> &Diags);
};

} // namespace incant::harness

#endif // INCANT_HARNESS_BACKEND_H
