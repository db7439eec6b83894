//===- StressCli.cpp - `incant stress` ------------------------------------===//
//
// Run an application built through incant many times under stress
// (incant/AppTest/StressCommand.h, docs/stress.md). Exit codes: 0 no run
// failed; 1 some run failed; 2 usage or input error; 3 no CUDA device or
// driver for a program built through incant, the injected library
// missing, or a database write failing.
//
//===----------------------------------------------------------------------===//
// Tool part: incantAppTest
#include "AppOptions.h"
#include "Subcommand.h"
#include "incant/Commands/StressCommand.h"

#include <iostream>

using namespace incant;

static void addStress(CLI::App &App, int &Rc) {
  static apptest::StressCommand Cmd;
  static std::string Profile;
  static int ExpectExit = 0;
  CLI::App *Sub = App.add_subcommand(
      "stress", "Run an application built through incant many times under "
                "memory stress and thread randomisation; count the runs "
                "that fail its post-condition");
  tool::addEnvironmentOptions(Sub, Cmd, Profile);
  tool::addNumber(Sub, "--runs", Cmd.Runs, IntRange{1, 10'000'000},
                  "Runs per environment (default 100, or none with --time)");
  Sub->add_option("--time", Cmd.Time,
                  "Time per environment instead (90s, 5m, 1h); with --runs, "
                  "whichever ends first");
  Sub->add_option("--db", Cmd.Db, "Store every run in this SQLite database");
  Sub->add_flag("--json", Cmd.Json, "One JSON object instead of the table");
  CLI::Option *Exit = tool::addAppOptions(Sub, Cmd, ExpectExit);
  Sub->callback([&Rc, Exit] {
    if (Exit->count())
      Cmd.ExpectExit = ExpectExit;
    if (!tool::applyEnvironmentProfile(Cmd, Profile)) {
      Rc = 2;
      return;
    }
    Cmd.InjectLibrary = tool::injectLibrary();
    Rc = apptest::runStress(Cmd, std::cout, std::cerr);
  });
}

static tool::Subcommand Stress(74, addStress);
