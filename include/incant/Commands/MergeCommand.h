//===- MergeCommand.h - `incant merge` --------------------------*- C++ -*-===//
//
// Merges campaign databases (one per shard) into one, in one transaction; a
// result already there (same test, parameters and chip) is kept once
// (campaign::mergeStores, Store.h).
//
// Exit codes of runMerge: 0 merged; 2 a missing, foreign or damaged
// database; 3 a write to the merged database that failed (nothing merged).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_MERGECOMMAND_H
#define INCANT_COMMANDS_MERGECOMMAND_H

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::campaign {

struct MergeCommand {
  /// The merged database (created if absent).
  std::string Out;
  /// The databases merged into it.
  std::vector<std::string> Inputs;
};

int runMerge(const MergeCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::campaign

#endif // INCANT_COMMANDS_MERGECOMMAND_H
