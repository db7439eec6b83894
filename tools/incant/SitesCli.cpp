//===- SitesCli.cpp - `incant sites` --------------------------------------===//
//
// What the instrumenting build changed in a binary
// (incant/Intercept/SitesCommand.h). Exit codes: 0 listed; 2 unreadable or
// not built through incant.
//
//===----------------------------------------------------------------------===//
// Tool part: incantIntercept
#include "Subcommand.h"
#include "incant/Commands/SitesCommand.h"

#include <iostream>

using namespace incant;

static void addSites(CLI::App &App, int &Rc) {
  static intercept::SitesCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "sites", "List what the instrumenting build changed in an "
               "application: modules, kernels, sites with source lines");
  Sub->add_option("file", Cmd.File, "An executable or library built through "
                                    "incant (or a PTX module or cubin)")
      ->required();
  Sub->add_flag("--json", Cmd.Json, "The manifests as a JSON array");
  Sub->callback([&Rc] { Rc = intercept::runSites(Cmd, std::cout, std::cerr); });
}

static tool::Subcommand Sites(72, addSites);
