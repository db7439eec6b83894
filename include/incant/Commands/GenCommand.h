//===- GenCommand.h - `incant gen` ------------------------------*- C++ -*-===//
//
// The options of `incant gen` and its entry point; the generator itself is
// Generate.h's.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_GENCOMMAND_H
#define INCANT_COMMANDS_GENCOMMAND_H

#include "incant/Gen/Generate.h"

#include <iosfwd>
#include <string>

namespace incant::gen {

struct GenCommand {
  GenOptions Opts;
  std::string OutDir;
  bool List = false; ///< Print names and cycles instead of writing files.
  /// Replace a file of the same name that holds a different test (without
  /// it, that is an error: nothing is overwritten silently).
  bool Force = false;
};

/// `incant gen`: writes OutDir/NAME.litmus for each test and a summary line.
int runGen(const GenCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::gen

#endif // INCANT_COMMANDS_GENCOMMAND_H
