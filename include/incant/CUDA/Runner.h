//===- Runner.h - Run a litmus::Program on an NVIDIA GPU -------*- C++ -*-===//
//
// The CUDA backend's entry point: generate the harness for a Program,
// compile it with NVRTC, check the SASS (optcheck), launch it many times
// with the chosen incantations and return the histogram of outcomes that
// the GPU counted. Errors that are the user's (an op the backend cannot
// run) go to the DiagnosticEngine; a missing driver or device is reported
// through RunResult::Status so that the tool can exit with its own code.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CUDA_RUNNER_H
#define INCANT_CUDA_RUNNER_H

#include "incant/CUDA/Codegen.h"
#include "incant/CUDA/OptCheck.h"
#include "incant/Litmus/Program.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace incant::cuda {

/// Incantations and launch shape. Defaults: see docs/cuda.md.
struct RunOptions {
  uint64_t Iterations = 100;     ///< Launches.
  uint32_t ThreadsPerBlock = 256;
  uint32_t Stride = 1;           ///< Words between location slots.
  bool SingleInstance = false;   ///< --instances 1 (thesis mode).
  /// --instances N > 1: at most the testing blocks N instances need; 0:
  /// every co-resident block not stressing tests.
  uint32_t Instances = 0;

  bool Stress = false;           ///< Memory stress by non-testing blocks.
  double StressFraction = 0.25;  ///< Share of co-resident blocks that stress.
  uint32_t StressIters = 64;
  uint32_t StressLines = 64;     ///< Scratchpad locations stressed.
  uint32_t StressSpread = 1024;  ///< Words between them (patch-aligned).
  uint32_t StressPattern = 0x9;  ///< 2 bits per access, 1 ld, 2 st: st;ld.
  /// Stress the test's memory StressOffset words past an instance's first
  /// location instead of the scratchpad (RunParams docs).
  bool StressInTest = false;
  uint32_t StressOffset = 0;
  /// Words between an instance's locations; 0: the permuted spread.
  uint32_t LocDistance = 0;

  bool Bank = false;             ///< General bank conflicts.
  uint32_t BankLanes = 16;       ///< Testing lanes per warp when on.

  bool Randomise = false;        ///< Thread randomisation.
  bool Barrier = false;          ///< Bounded spin barrier.
  uint32_t BarrierPolls = 2000;
  bool PreStress = false;
  uint32_t PreStressIters = 16;

  uint32_t StressBlocks = 0;     ///< Stress blocks; 0: StressFraction.
  /// Warps added to each testing block that stress memory (the stress
  /// pattern, as stress blocks do) while its other warps test: stress
  /// inside the CTA, for intra-CTA placements. Ignored with bar.sync.
  uint32_t CtaStressWarps = 0;
  /// Stop launching after this many seconds (0: run all Iterations).
  double MaxSeconds = 0;
  uint32_t LoopBound = 1000;     ///< Backward branches per role.
  uint32_t Device = 0;
  uint64_t Seed = 1;
  bool OptCheck = true;
  std::string EmitDir;           ///< --emit DIR: write sources, do not run.
  std::string Arch;              ///< e.g. "sm_90"; default: the device's.
};

struct HistogramEntry {
  std::vector<uint32_t> Values; ///< The words counted (GeneratedTest::NumOut).
  std::vector<litmus::Value> State; ///< One per Program::Observe (decodeOutcome).
  uint64_t Count = 0;
  bool Satisfies = false;       ///< The condition's proposition holds.
};

struct RunResult {
  enum StatusKind {
    Ok,
    NoDriver,      ///< No libcuda.so.1, no device: exit code 3.
    NoCompiler,    ///< No NVRTC.
    BadInput,      ///< Diagnostics were reported.
    Failed,        ///< A CUDA call failed (Message says which).
    Emitted,       ///< --emit: files written, nothing run.
  } Status = Ok;
  std::string Message;

  std::string Device;        ///< Name, e.g. "NVIDIA H100 80GB HBM3".
  std::string Arch;          ///< "sm_90"
  int SMs = 0;
  std::string Driver;        ///< NVML's driver version, or the CUDA one.
  std::string Nvrtc;         ///< NVRTC version.

  OptCheckResult Opt;
  std::vector<HistogramEntry> Histogram; ///< Sorted by values.
  uint64_t Overflow = 0;     ///< Outcomes the on-GPU table could not hold.
  uint64_t Instances = 0;    ///< Total counted.
  uint64_t Satisfying = 0;   ///< Instances whose outcome satisfies Cond.
  double Seconds = 0;        ///< Wall time of the launches.
  uint64_t Launches = 0;     ///< Launches made (fewer with MaxSeconds).
  uint32_t InstancesPerLaunch = 0;
  uint32_t TestBlocks = 0, TotalBlocks = 0, ThreadsPerBlock = 0;
  std::string Params;        ///< One line describing the parameters.
};

/// Evaluates the Program's condition proposition on one observed tuple.
bool evaluateCondition(const litmus::Program &P,
                       const std::vector<litmus::Value> &Values);
/// The same on 32-bit words (each a signed 32-bit value).
bool evaluateCondition(const litmus::Program &P,
                       const std::vector<uint32_t> &Words);

/// A litmus7-style report: the histogram (`*>` on states that satisfy the
/// condition), Ok/No, witnesses, rates, device and parameters, optcheck.
std::string formatResult(const litmus::Program &P, const RunResult &R);

/// Runs (or with EmitDir, emits) \p P.
RunResult runOnCuda(const litmus::Program &P, const RunOptions &Opts,
                    std::shared_ptr<const SourceFile> File,
                    DiagnosticEngine &Diags);

} // namespace incant::cuda

#endif // INCANT_CUDA_RUNNER_H
