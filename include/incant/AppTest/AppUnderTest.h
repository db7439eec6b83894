//===- AppUnderTest.h - The application under test, and one run's record -*- C++ -*-===//
//
// What `incant stress`, `incant fences` and `incant fences cost` test: an
// application built through incant, how each run of it is judged (its
// post-condition) and what the injected library makes of its environment
// (AppUnderTest, which AppRunner runs); the environments it runs in and
// the seed of every choice (AppSetup); and what one run did (RunRecord).
// Nothing here knows the command line.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_APPTEST_APPUNDERTEST_H
#define INCANT_APPTEST_APPUNDERTEST_H

#include "incant/AppTest/Environment.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace incant::apptest {

/// The application and its post-condition: what AppRunner needs.
struct AppUnderTest {
  std::vector<std::string> Argv; ///< The application and its arguments.
  double Timeout = 30;           ///< Seconds per run.
  // Post-condition (at most one; default: exit code 0).
  std::string Check; ///< A shell command judging the run's output.
  std::optional<int> ExpectExit;
  std::string ExpectStdout; ///< A POSIX extended regular expression.
  StressKnobs Knobs;
  std::string InjectLibrary; ///< Path of libincant-inject.so.
  /// Run it even if it carries no instrumented module.
  bool NoBuildCheck = false;
};

/// The application under test and where it runs: the environments (a
/// list as parseEnvironments reads it), the seed, and how it is named.
struct AppSetup : AppUnderTest {
  std::string Envs = "sys-";
  bool Randomise = false;  ///< For environment names without + or -.
  uint64_t Seed = 1;
  std::string ProfileNote; ///< Where Knobs.Sys came from, for the output.
  std::string Label; ///< The application's name in output (default: argv[0]).
  bool Progress = true;    ///< Progress lines on the error stream.

  const std::string &label() const {
    return Label.empty() && !Argv.empty() ? Argv[0] : Label;
  }
};

enum class Verdict { Pass, Fail, Hang, Crash };
const char *verdictName(Verdict V);

/// A kernel one run launched (the injected library's report).
struct KernelRecord {
  std::string Name;
  std::string Unit; ///< The unit its control words name ("" if none).
  uint64_t Launches = 0;
  double Ms = 0; ///< Kernel time (INCANT_TIME=1), all launches.
  bool Instrumented = false;
};

/// One run of the application.
struct RunRecord {
  std::string Env;
  uint64_t Index = 0;
  uint64_t Seed = 0;
  Verdict V = Verdict::Pass;
  int ExitCode = -1, Signal = 0;
  double Seconds = 0;
  bool Reported = false; ///< The injected library wrote its report.
  uint64_t Launches = 0, Stressed = 0, CapHits = 0;
  std::vector<std::string> Notes; ///< The library's.
  std::vector<KernelRecord> Kernels;
  /// Units whose fence masks were set, module images replaced.
  uint64_t FenceUnits = 0, Replaced = 0;
  /// INCANT_ENERGY=1: NVML energy over the launches, launches measured,
  /// those over which the counter moved, and whether NVML answered.
  double EnergyMj = 0;
  uint64_t EnergyReads = 0, EnergyChanges = 0;
  bool EnergyOk = false;
  std::string Stdout; ///< The start of the program's standard output.
};

} // namespace incant::apptest

#endif // INCANT_APPTEST_APPUNDERTEST_H
