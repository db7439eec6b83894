//===- CheckCommand.h - `incant check`: verdicts of models on litmus tests -*- C++ -*-===//
//
// The library side of `incant check`. The tool fills a CheckCommand and calls
// runCheck; everything it prints goes to the two streams given.
//
// Exit codes: 0 every file was checked (whatever the verdicts); 1 a manifest
// expectation was not met; 2 some input (test, model, manifest, option) was
// malformed; the other files are still checked.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_CHECKCOMMAND_H
#define INCANT_COMMANDS_CHECKCOMMAND_H

#include "incant/Model/Check.h"
#include "incant/Support/Range.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::driver {

struct CheckCommand {
  std::vector<std::string> Files;
  /// A shipped model's name (sc, ptx-rmo, ptx) or a path to a .cat file.
  std::string Model = "ptx";
  /// Extra folders searched for models by name, before the shipped ones.
  std::vector<std::string> ModelDirs;
  bool Json = false;
  /// A manifest of expected verdicts (litmus/manifest.tsv format); when set,
  /// every test it lists is checked under every model it names, and Files
  /// and Model are ignored.
  std::string Manifest;
  unsigned Unroll = 2;
  /// Bounds of each test's search (model::CheckOptions): steps and
  /// seconds, 0 for none. A search cut short is reported as incomplete.
  uint64_t MaxSteps = model::CheckOptions::DefaultMaxSteps;
  double Timeout = model::CheckOptions::DefaultTimeLimit;
};

/// The ranges of check's numeric options (docs/limits.md).
inline constexpr IntRange UnrollRange{0, 32};
inline constexpr IntRange MaxStepsRange{0, 1'000'000'000'000};
inline constexpr RealRange TimeoutRange{0, 1e6};

int runCheck(const CheckCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::driver

#endif // INCANT_COMMANDS_CHECKCOMMAND_H
