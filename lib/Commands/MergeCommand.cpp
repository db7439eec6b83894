//===- MergeCommand.cpp - `incant merge` ----------------------------------===//
#include "incant/Commands/MergeCommand.h"
#include "incant/Campaign/Store.h"
#include "incant/Support/Diagnostic.h"

#include <fmt/format.h>
#include <ostream>

namespace incant::campaign {

int runMerge(const MergeCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  MergeStats S;
  std::string E;
  if (std::optional<ErrorKind> Failed =
          mergeStores(Cmd.Out, Cmd.Inputs, S, E)) {
    DiagnosticEngine(&Err).error(E);
    return exitCodeOf(*Failed);
  }
  Out << fmt::format("merge: {} result(s) added to {}, {} already there\n",
                     S.Added, Cmd.Out, S.Duplicates);
  return 0;
}

} // namespace incant::campaign
