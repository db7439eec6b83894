//===- FencesCli.cpp - `incant fences` and `incant fences cost` -----------===//
//
// Empirical fence insertion on an application built through incant with
// the pass "fences", and the cost of its fences
// (incant/Fences/FenceCommand.h, CostCommand.h, docs/fences.md).
// Exit codes: `fences`: 0 a stable reduced set; 1 unstable even with every
// fence on, or out of budget; 2 usage or input error; 3 no CUDA device or
// driver, or a store write failing. `fences cost`: 0 measured; 1 no run of
// a variant counted; 2 usage or input error; 3 no CUDA device or driver.
//
//===----------------------------------------------------------------------===//
// Tool part: incantFences
#include "AppOptions.h"
#include "Subcommand.h"
#include "incant/Commands/CostCommand.h"
#include "incant/Commands/FenceCommand.h"

#include <iostream>

using namespace incant;

static void addFences(CLI::App &App, int &Rc) {
  static fences::FenceCommand Cmd;
  static fences::CostCommand Cost;
  static std::string Profile;
  static int ExpectExit = 0, CostExpectExit = 0;
  Cmd.App.Envs = "sys+";
  CLI::App *Sub = App.add_subcommand(
      "fences", "Find the fences an application built through incant "
                "needs: start from a fence after every global access, "
                "remove what stress testing shows unneeded");
  Sub->require_subcommand(0, 1);
  tool::addEnvironmentOptions(Sub, Cmd.App, Profile);
  tool::addNumber(Sub, "--iterations", Cmd.Iterations, IntRange{1, 1'000'000},
                  "Runs per check in the first round (at least doubled each "
                  "round)")
      ->capture_default_str();
  Sub->add_option("--check-time", Cmd.CheckTime,
                  "Longest time of one check (90s, 5m)");
  Sub->add_option("--stable-for", Cmd.StableFor,
                  "Time of a stability check (the paper: 1h)")
      ->capture_default_str();
  tool::addNumber(Sub, "--stable-runs", Cmd.StableRuns,
                  IntRange{0, 10'000'000},
                  "Runs of a stability check (then --stable-for caps it)");
  Sub->add_option("--budget", Cmd.Budget,
                  "Time for this invocation's checks; the store keeps them, "
                  "the same command goes on");
  tool::addNumber(Sub, "--jobs", Cmd.Jobs, IntRange{1, 64},
                  "Runs of a check at once; their kernels still run one "
                  "process at a time (a lock from the first launch to the "
                  "exit)")
      ->capture_default_str();
  Sub->add_flag_callback(
      "--no-weaken", [] { Cmd.Weaken = false; },
      "Keep fence.sc.gpu; do not try the weaker kinds");
  Sub->add_flag("--paper-only", Cmd.PaperOnly,
                "Algorithm 1 as the paper has it: no chunks, failures imply "
                "nothing, runs are not counted again, I only doubles");
  Sub->add_option("--reference", Cmd.Reference,
                  "A build of the application with its own fences, to "
                  "compare the result with");
  Sub->add_option("--save", Cmd.Save,
                  "Write the reduced and the conservative sets here (for "
                  "`incant fences cost --set`)");
  Sub->add_option("--patch", Cmd.Patch,
                  "Write a unified diff that adds the reduced fences");
  auto *Db = Sub->add_option("--db", Cmd.Db,
                             "The store of checks (SQLite): a search run "
                             "again resumes")
                 ->capture_default_str();
  Sub->add_flag("--no-db", Cmd.NoDb, "Keep the checks in memory only")
      ->excludes(Db);
  Sub->add_flag("--json", Cmd.Json, "One JSON object instead of the report");
  Sub->add_option("--report-json", Cmd.ReportJson,
                  "Also write the JSON object to this file");
  CLI::Option *Exit = tool::addAppOptions(Sub, Cmd.App, ExpectExit);
  // `cost` takes the application after it; `fences` itself needs one only
  // when no subcommand is given.
  Sub->get_option("app")->required(false);

  CLI::App *C = Sub->add_subcommand(
      "cost", "Runtime and energy of an application with no fences, a "
              "fence after every access and the reduced set");
  C->add_option("--set", Cost.Set,
                "The sets `incant fences --save` wrote (without it: no and "
                "cons only)");
  tool::addNumber(C, "--runs", Cost.Runs, IntRange{1, 10'000'000},
                  "Runs of each variant")
      ->capture_default_str();
  tool::addNumber(C, "--jobs", Cost.Jobs, IntRange{1, 64},
                  "Runs at once; their kernels still run one process at a "
                  "time (a lock from the first launch to the exit)")
      ->capture_default_str();
  tool::addNumber(C, "--energy-steps", Cost.EnergySteps,
                  IntRange{0, 1'000'000},
                  "With --jobs 1: more runs of each variant until NVML's "
                  "energy counter moved this many times over its counted "
                  "runs (it updates about every 100 ms; 0: off)")
      ->capture_default_str();
  tool::addNumber(C, "--energy-time", Cost.EnergySeconds,
                  RealRange{1, 1e6},
                  "Seconds from the first run after which no run for "
                  "--energy-steps starts")
      ->capture_default_str();
  C->add_flag("--all-runs", Cost.AllRuns,
              "Count runs that fail the post-condition too (an application "
              "that fails without fences on every run)");
  C->add_option("--results", Cost.Results,
                "Append the result here (JSON lines; --plot draws them all)");
  C->add_option("--plot", Cost.Plot, "Draw Figure 5 (SVG) here");
  C->add_flag("--json", Cost.Json, "One JSON object instead of the table");
  CLI::Option *CostExit = tool::addAppOptions(C, Cost.App, CostExpectExit);
  // Without an application: draw --results into --plot.
  C->get_option("app")->required(false);
  C->callback([&Rc, CostExit] {
    if (CostExit->count())
      Cost.App.ExpectExit = CostExpectExit;
    Cost.App.InjectLibrary = tool::injectLibrary();
    Rc = fences::runCost(Cost, std::cout, std::cerr);
  });

  Sub->callback([&Rc, Sub, Exit, Db] {
    if (Sub->got_subcommand("cost"))
      return;
    if (Cmd.App.Argv.empty()) {
      std::cerr << "incant: error: no program to run: incant fences "
                   "[options] -- ./app ARGS\n";
      Rc = 2;
      return;
    }
    if (Exit->count())
      Cmd.App.ExpectExit = ExpectExit;
    Cmd.DbGiven = Db->count() > 0;
    if (!tool::applyEnvironmentProfile(Cmd.App, Profile)) {
      Rc = 2;
      return;
    }
    Cmd.App.InjectLibrary = tool::injectLibrary();
    Rc = fences::runFences(Cmd, std::cout, std::cerr);
  });
}

static tool::Subcommand Fences(75, addFences);
