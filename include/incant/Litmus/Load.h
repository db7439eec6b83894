//===- Load.h - Read, parse and lower a litmus file in one step -*- C++ -*-===//
#ifndef INCANT_LITMUS_LOAD_H
#define INCANT_LITMUS_LOAD_H

#include "incant/Litmus/AST.h"
#include "incant/Litmus/Program.h"
#include "incant/Support/Diagnostic.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::litmus {

/// A litmus file with its parsed and lowered forms.
struct LoadedTest {
  std::shared_ptr<const SourceFile> File;
  Test AST;
  Program Prog;
};

/// Reads \p Path, parses and lowers it; reports every problem (an unreadable
/// file included) to \p Diags and returns nullopt on any.
std::optional<LoadedTest> loadTest(const std::string &Path,
                                   DiagnosticEngine &Diags);

/// The digest that `check` and `run` print as `Hash=` (herd7 and litmus7
/// print one): FNV-1a over the test's canonical form, so that two files
/// that differ only in layout get the same hash.
std::string testHash(const Test &T);

/// \p Inputs with every folder replaced by the *.litmus files under it
/// (searched recursively, sorted); other inputs stay as given, in order.
/// False with \p Error for a folder that cannot be listed or holds no
/// .litmus file.
bool expandFolders(const std::vector<std::string> &Inputs,
                   std::vector<std::string> &Files, std::string &Error);

} // namespace incant::litmus

#endif // INCANT_LITMUS_LOAD_H
