//===- BuildCli.cpp - `incant build-env`, `nvcc`, `ptxas`, `instrument` ---===//
//
// Building an application through incant's instrumentation
// (incant/Intercept/BuildCommands.h).
//
// Exit codes: build-env and instrument: 0 done, 2 usage or input error;
// nvcc and ptxas: the program's own, 2 if incant's rewrite fails, 3 if nvcc
// or ptxas is not found.
//
//===----------------------------------------------------------------------===//
// Tool part: incantIntercept
#include "OptionKinds.h"
#include "Options.h"
#include "Subcommand.h"
#include "incant/DynRace/StaticVerdicts.h"
#include "incant/Commands/BuildCommands.h"
#include "incant/Intercept/Instrument.h"

#include <fmt/format.h>

#include <iostream>

using namespace incant;

static std::string passList() {
  return fmt::format("{}", fmt::join(intercept::passNames(), ", "));
}

static void addBuildEnv(CLI::App &App, int &Rc) {
  static intercept::BuildEnvCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "build-env", "Print the environment that builds CUDA applications "
                   "through incant: eval \"$(incant build-env)\", then build "
                   "as usual");
  tool::addList(Sub, "--passes", Cmd.Passes,
                "Rewriting passes, one per --passes or comma-separated "
                "(default: randomise; passes: " +
                    passList() + ")",
                /*Commas=*/true);
  Sub->callback([&Rc] { Rc = intercept::runBuildEnv(Cmd, std::cout, std::cerr); });
}

/// A subcommand that hands every argument after its name to \p Run.
static void addPassThrough(CLI::App &App, int &Rc, const char *Name,
                           const char *Help,
                           int (*Run)(const std::vector<std::string> &,
                                      std::ostream &)) {
  CLI::App *Sub = App.add_subcommand(Name, Help);
  Sub->prefix_command();
  Sub->allow_extras();
  Sub->set_help_flag();
  Sub->callback([&Rc, Sub, Run] {
    Rc = Run(Sub->remaining(), std::cerr);
  });
}

static void addInstrument(CLI::App &App, int &Rc) {
  static intercept::InstrumentCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "instrument", "Show what the instrumenting build does to one PTX "
                    "module (the rewritten PTX, or its manifest)");
  Sub->add_option("file", Cmd.File, "A .ptx file")->required();
  Sub->add_option("-o,--output", Cmd.Output, "Write here instead of stdout");
  tool::addList(Sub, "--passes", Cmd.Passes,
                "Rewriting passes, one per --passes or comma-separated "
                "(default: randomise; passes: " +
                    passList() + ")",
                /*Commas=*/true);
  Sub->add_flag("--manifest", Cmd.Manifest,
                "Print the unit's manifest (JSON) instead of the PTX");
  Sub->callback([&Rc] {
    Rc = intercept::runInstrument(Cmd, std::cout, std::cerr,
                                  dynrace::staticRaceOracle());
  });
}

/// The static checker's child process for pass race's pruning
/// (DynRace/StaticVerdicts.h): not for users, so not in --help.
static void addRaceVerdicts(CLI::App &App, int &Rc) {
  static unsigned TimeoutMs = 500, MaxAccesses = 400;
  CLI::App *Sub = App.add_subcommand(
      "race-verdicts", "The static race verdicts on the PTX module on stdin");
  Sub->group("");
  tool::addNumber(Sub, "--timeout-ms", TimeoutMs, IntRange{1, 3'600'000},
                  "Per solver query");
  tool::addNumber(Sub, "--max-accesses", MaxAccesses, IntRange{0, 1'000'000},
                  "Larger modules are not checked");
  Sub->callback([&Rc] {
    Rc = dynrace::printStaticVerdicts(std::cin, TimeoutMs, MaxAccesses,
                                      std::cout);
  });
}

static void addBuild(CLI::App &App, int &Rc) {
  addBuildEnv(App, Rc);
  addPassThrough(App, Rc, "nvcc",
                 "Run nvcc with incant's instrumentation (every argument "
                 "goes to nvcc)",
                 intercept::runNvccFront);
  addPassThrough(App, Rc, "ptxas",
                 "What nvcc runs through --ptxas-prefix: rewrite the PTX "
                 "module, then run ptxas (every argument goes to ptxas)",
                 [](const std::vector<std::string> &Args, std::ostream &Err) {
                   // Pass "race" instruments what the static checker
                   // leaves unproved (docs/race.md, "Dynamic").
                   return intercept::runPtxasWrapper(
                       Args, Err, dynrace::staticRaceOracle());
                 });
  addInstrument(App, Rc);
  addRaceVerdicts(App, Rc);
}

static tool::Subcommand Build(70, addBuild);
