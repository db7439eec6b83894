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
// that cannot run, an unusable database); 3 no CUDA driver or device for
// a program built through incant (before any run), the injected library
// missing, a database write failing.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_STRESSCOMMAND_H
#define INCANT_COMMANDS_STRESSCOMMAND_H

#include "incant/AppTest/AppUnderTest.h"
#include "incant/Harness/Stats.h"

#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

namespace incant::apptest {

/// `incant stress`: the application, its environments, and how many runs.
struct StressCommand : AppSetup {
  uint64_t Runs = 0; ///< Per environment (0: 100 unless Time is set).
  std::string Time;  ///< Per environment: "90s", "5m".
  std::string Db;
  bool Json = false;
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

#endif // INCANT_COMMANDS_STRESSCOMMAND_H
