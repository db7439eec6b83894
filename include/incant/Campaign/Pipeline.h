//===- Pipeline.h - The threads of a campaign -------------------*- C++ -*-===//
//
// A campaign's tests flow through three kinds of thread, so that the GPU
// never waits for what the CPU can do beforehand:
//
//   preparing (--jobs of them)  a chunk of --batch tests at a time: load
//                               (parse, lower), each model's verdict (once
//                               per test, when the store lacks it), and
//                               Backend::prepare (CUDA: generate, compile
//                               the chunk as one module, optcheck);
//   running (one per worker)    launch each prepared test on its device;
//   storing (one)               many results per SQLite transaction.
//
// Bounded queues join them; each thread adds up the time it spends per
// phase, which the campaign's summary prints.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAMPAIGN_PIPELINE_H
#define INCANT_CAMPAIGN_PIPELINE_H

#include "incant/Campaign/Store.h"
#include "incant/Cat/Model.h"
#include "incant/Harness/Backend.h"

#include <atomic>
#include <iosfwd>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace incant::campaign {

/// One device worker: its backend object and device.
struct Worker {
  std::unique_ptr<harness::Backend> B;
  harness::DeviceInfo Info;
};

/// A test still to run: its file and the hash of its bytes.
struct Pending {
  std::string Path;
  std::string Hash;
};

struct PipelineConfig {
  harness::RunParams Run;
  std::string Params; ///< paramsKey() of Run.
  std::string Host;
  std::vector<std::pair<std::string, const cat::Model *>> Models;
  std::vector<Pending> Todo;
  /// Hashes of tests whose verdicts the store already holds.
  std::set<std::string> HaveVerdicts;
  unsigned Jobs = 1;  ///< Preparing threads.
  unsigned Batch = 1; ///< Tests per chunk (per module on CUDA).
  /// Where the backend keeps compiled tests (RunRequest::CompileCache).
  std::string CompileCache;
  std::string IncantVersion; ///< Stored with every result.
  /// Progress on the error stream: one line rewritten in place on a
  /// terminal (ProgressTty), else a line every 30 s and at the end.
  bool Progress = true;
  bool ProgressTty = true;
  /// Test hook: exit at once (as if killed) after storing this many
  /// results; 0: never.
  uint64_t StopAfter = 0;
  /// Once true (a signal asked the campaign to stop): no more tests are
  /// prepared or run; the runs under way finish and everything finished is
  /// stored. Null: never.
  const std::atomic<bool> *Stop = nullptr;
};

/// Seconds spent per phase, each summed over the threads that do it.
struct PhaseTimes {
  double Load = 0, Model = 0, Compile = 0, Launch = 0, Store = 0;
  double Gpu = 0; ///< RunResult::Seconds: the devices' share of Launch.
};

struct PipelineStats {
  size_t Done = 0;   ///< Results stored (errors included).
  size_t Errors = 0; ///< Of them, stored as errors.
  size_t DeviceFailures = 0, StoreFailures = 0;
  bool Stopped = false; ///< Config::Stop came true before the end.
  PhaseTimes Times;
};

/// Runs every test of \p C.Todo through \p Workers into \p DB, with progress
/// and per-test messages on \p Err.
PipelineStats runPipeline(const PipelineConfig &C, std::vector<Worker> &Workers,
                          Store &DB, std::ostream &Err);

} // namespace incant::campaign

#endif // INCANT_CAMPAIGN_PIPELINE_H
