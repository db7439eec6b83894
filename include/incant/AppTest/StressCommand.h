//===- StressCommand.h - `incant stress`: run an application many times -*- C++ -*-===//
//
//   incant stress [--env none|sys|rand|cache[+|-][:spreadK],...|all]
//                 [--randomise] [--runs N | --time T] [--timeout S]
//                 [--check CMD | --expect-exit N | --expect-stdout RE]
//                 [--profile P] [--db F.sqlite] [--json] -- ./app ARGS
//
// Runs the application (built through incant, BuildCommands.h) again and
// again in each environment (Environment.h), with the injected library
// (LD_PRELOAD) making the environment, and judges every run by its
// post-condition. A run that outlives --timeout is a hang, one ended by a
// signal a crash; both count as failures. Per environment: runs, failures,
// the failure rate with its Wilson 95 % interval, and time; as a table
// shaped like the PLDI'16 paper's Table 5, as JSON, and in SQLite.
//
// Exit codes: 0 no run failed; 1 some run failed; 2 usage or input error
// (no such program, a program not built through incant, a check command
// that cannot run, an unusable database).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_APPTEST_STRESSCOMMAND_H
#define INCANT_APPTEST_STRESSCOMMAND_H

#include "incant/AppTest/Environment.h"
#include "incant/Harness/Stats.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace incant::apptest {

struct StressCommand {
  std::vector<std::string> Argv; ///< The application and its arguments.
  std::string Envs = "sys-";
  bool Randomise = false; ///< For environment names without + or -.
  uint64_t Runs = 0;      ///< Per environment (0: 100 unless Time is set).
  std::string Time;       ///< Per environment: "90s", "5m".
  double Timeout = 30;    ///< Seconds per run.
  // Post-condition (at most one; default: exit code 0).
  std::string Check;
  std::optional<int> ExpectExit;
  std::string ExpectStdout;
  StressKnobs Knobs;
  std::string ProfileNote; ///< Where Knobs.Sys came from, for the output.
  std::string Db;
  bool Json = false;
  uint64_t Seed = 1;
  std::string InjectLibrary; ///< Path of libincant-inject.so.
  bool NoBuildCheck = false;
  std::string Label; ///< The application's name in output (default: argv[0]).
  bool Progress = true;
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

struct EnvSummary {
  Environment Env;
  uint64_t Runs = 0, Fails = 0, Hangs = 0, Crashes = 0;
  uint64_t failures() const { return Fails + Hangs + Crashes; }
  double Seconds = 0;
  uint64_t Launches = 0, Stressed = 0, CapHits = 0, Unreported = 0;
  std::set<std::string> Notes;
  harness::Proportion rate() const;
};

int runStress(const StressCommand &Cmd, std::ostream &Out, std::ostream &Err);

/// The text table and the JSON object `incant stress` prints.
void printStressTable(const std::string &Label,
                      const std::vector<EnvSummary> &Envs, std::ostream &OS);
std::string stressJson(const StressCommand &Cmd,
                       const std::vector<EnvSummary> &Envs);

} // namespace incant::apptest

#endif // INCANT_APPTEST_STRESSCOMMAND_H
