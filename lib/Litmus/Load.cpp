//===- Load.cpp - Read, parse and lower a litmus file ---------------------===//
#include "incant/Litmus/Load.h"
#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"

namespace incant::litmus {

std::optional<LoadedTest> loadTest(const std::string &Path,
                                   DiagnosticEngine &Diags) {
  std::string Error;
  std::shared_ptr<SourceFile> File = SourceFile::read(Path, Error);
  if (!File) {
    Diags.error("cannot read '" + Path + "': " + Error);
    return std::nullopt;
  }
  std::optional<Test> T = parseTest(File, Diags);
  if (!T)
    return std::nullopt;
  std::optional<Program> P = lower(*T, Diags);
  if (!P)
    return std::nullopt;
  return LoadedTest{std::move(File), std::move(*T), std::move(*P)};
}

} // namespace incant::litmus
