//===- AppRunner.h - One run of an application, judged ----------*- C++ -*-===//
//
// The run step that `incant stress` repeats and `incant fences` uses as its
// oracle: start the application with the injected library (LD_PRELOAD) and
// the variables of one environment, under a timeout that kills its process
// group, read the library's report, and judge the run by the
// post-condition (exit status, a regular expression on stdout, or a check
// command): pass, fail, hang (timed out) or crash (a signal).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_APPTEST_APPRUNNER_H
#define INCANT_APPTEST_APPRUNNER_H

#include "incant/AppTest/AppUnderTest.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Error.h"

#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace incant::apptest {

/// Extra environment variables of one run (NAME, VALUE).
using EnvVars = std::vector<std::pair<std::string, std::string>>;

class AppRunner {
public:
  /// Checks what every run needs: a program that exists (and carries an
  /// instrumented module unless NoBuildCheck), at most one post-condition,
  /// a regular expression that compiles, a positive timeout (input errors)
  /// and the injected library (a device error: incant's own part is
  /// missing). The error is reported to \p Diags.
  static Expected<std::unique_ptr<AppRunner>> make(const AppUnderTest &App,
                                                   DiagnosticEngine &Diags);

  /// Runs the application once in \p E with seed \p Seed, the library's
  /// variables and then \p Extra; fills \p R (Env, Index and Seed are the
  /// caller's). False with \p Error set if the program cannot start or the
  /// check command broke (not a verdict: a usage error).
  bool run(const Environment &E, uint64_t Seed, const EnvVars &Extra,
           RunRecord &R, std::string &Error);

  /// The program as exec finds it.
  const std::string &program() const { return Program; }

  /// Whether the program runs kernels: it carries an instrumented module
  /// (the build check found one; unknown, and false, with NoBuildCheck).
  bool runsKernels() const { return RunsKernels; }

  /// Every later run gets INCANT_GPU_LOCK=\p Path (RunPool.h).
  void setGpuLock(std::string Path) { GpuLock = std::move(Path); }

private:
  AppRunner() = default;
  AppUnderTest Cmd;
  std::string Program;
  std::regex Re;
  std::string Report;
  std::string GpuLock;
  bool RunsKernels = false;
};

} // namespace incant::apptest

#endif // INCANT_APPTEST_APPRUNNER_H
