//===- MergeCli.cpp - `incant merge` --------------------------------------===//
//
// Merge campaign databases (one per shard) into one, in one transaction; a
// result already there (same test, parameters and chip) is kept once.
// Exit codes: 0 merged, 2 usage error or a missing or foreign database.
//
//===----------------------------------------------------------------------===//
// Tool part: incantCampaign
#include "Subcommand.h"
#include "incant/Campaign/Store.h"
#include "incant/Support/Diagnostic.h"

#include <fmt/format.h>
#include <iostream>

using namespace incant;

static void addMerge(CLI::App &App, int &Rc) {
  static std::string Out;
  static std::vector<std::string> Ins;
  CLI::App *Sub = App.add_subcommand(
      "merge", "Merge campaign databases (e.g. one per shard) into one");
  Sub->add_option("out", Out, "The merged database (created if absent)")
      ->required();
  Sub->add_option("inputs", Ins, "Databases to merge into it")->required();
  Sub->callback([&Rc] {
    campaign::MergeStats S;
    std::string E;
    Rc = campaign::mergeStores(Out, Ins, S, E);
    if (Rc) {
      DiagnosticEngine(&std::cerr).error(E);
      return;
    }
    std::cout << fmt::format("merge: {} result(s) added to {}, {} already "
                             "there\n",
                             S.Added, Out, S.Duplicates);
  });
}

static incant::tool::Subcommand Merge(51, addMerge);
