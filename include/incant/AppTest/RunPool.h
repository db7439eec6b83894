//===- RunPool.h - Runs of one application, several at once -----*- C++ -*-===//
//
// `--jobs N` of `incant fences` and `incant fences cost`: N runners of one
// application, each run on a thread of its own. Their kernels still run one
// process at a time: with more than one runner, every run gets
// INCANT_GPU_LOCK, a lock file the injected library takes at the run's
// first launch and holds until the process exits, so what overlaps is the
// runs' start (the CUDA context, loading) and end.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_APPTEST_RUNPOOL_H
#define INCANT_APPTEST_RUNPOOL_H

#include "incant/AppTest/AppRunner.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace incant::apptest {

class RunPool {
public:
  /// \p First is the runner already made (AppRunner::make); \p Jobs - 1
  /// more are made the same way from \p App.
  static Expected<std::unique_ptr<RunPool>>
  make(std::unique_ptr<AppRunner> First, const AppUnderTest &App,
       unsigned Jobs, DiagnosticEngine &Diags);
  ~RunPool();

  AppRunner &first() { return *Runners.front(); }
  unsigned size() const { return unsigned(Runners.size()); }
  /// The lock file every runner's runs get ("" with one runner).
  const std::string &lockFile() const { return LockFile; }

  /// Calls \p Body(I, Runner) for I = 0, 1, 2, ... with the pool's runners
  /// at once, each index once; a worker stops when Body returns false, and
  /// no index is handed out after that. Returns when every worker has
  /// stopped.
  void forEach(const std::function<bool(uint64_t, AppRunner &)> &Body);

private:
  RunPool() = default;
  std::vector<std::unique_ptr<AppRunner>> Runners;
  std::string LockFile;
};

} // namespace incant::apptest

#endif // INCANT_APPTEST_RUNPOOL_H
