//===- MergeCli.cpp - `incant merge` --------------------------------------===//
//
// Merge campaign databases (one per shard) into one, in one transaction; a
// result already there (same test, parameters and chip) is kept once.
// Exit codes: 0 merged, 2 usage error or a missing, foreign or damaged
// database, 3 a write to the merged database that failed.
//
//===----------------------------------------------------------------------===//
// Tool part: incantCampaign
#include "Subcommand.h"
#include "incant/Commands/MergeCommand.h"

#include <iostream>

using namespace incant;

static void addMerge(CLI::App &App, int &Rc) {
  static campaign::MergeCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "merge", "Merge campaign databases (e.g. one per shard) into one");
  Sub->add_option("out", Cmd.Out, "The merged database (created if absent)")
      ->required();
  Sub->add_option("inputs", Cmd.Inputs, "Databases to merge into it")
      ->required();
  Sub->callback(
      [&Rc] { Rc = campaign::runMerge(Cmd, std::cout, std::cerr); });
}

static incant::tool::Subcommand Merge(51, addMerge);
