//===- TuneCommand.h - `incant tune` -----------------------------*- C++ -*-===//
//
// The library side of `incant tune patch|sequence|spread|random`: run one
// of the searches of Tune.h on a device with MP, LB and SB (or other tests
// with two locations), print what it found, and write the chip profile and
// plots. Exit codes: 0 done; 2 a usage or input error (bad option, test or
// profile); 3 no usable device or driver.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_TUNECOMMAND_H
#define INCANT_COMMANDS_TUNECOMMAND_H

#include "incant/Harness/Params.h"
#include "incant/Support/Range.h"
#include "incant/Support/Time.h"

#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace incant::tune {

struct TuneCommand {
  std::string Mode; ///< patch, sequence, spread or random
  /// --quick: a random search of at most QuickBudgetSeconds that starts
  /// from the shipped profile of the chip or of its architecture family
  /// (when no --profile is given), with fewer, shorter candidates.
  bool Quick = false;
  /// Test names (MP -> litmus/MP/MP+cta-global.litmus) or .litmus paths.
  std::vector<std::string> Tests = {"MP", "LB", "SB"};
  std::string Budget;   ///< "5m", "90s", "1h", "300"; empty: no limit.
  uint64_t Seed = 1;
  std::string Out;      ///< Profile to write (merged with --profile's).
  std::string ProfileIn; ///< Profile whose winners the search starts from.
  std::string PlotsDir;
  std::string Backend = "auto";
  std::optional<uint32_t> Device;
  /// Run options (`incant run`'s), applied after the input profile.
  harness::RunParams Params;
  std::string StressSeq;
  /// `incant run` option names given on the command line.
  std::set<std::string> Explicit;
  std::string ToolVersion = "incant";

  // Mode options; empty ranges take the mode's defaults (docs/tune.md).
  std::string Distances; ///< "1,32:257:32": items N or FIRST:END:STEP
  std::string Offsets;   ///< patch: stress offsets, same syntax
  uint32_t MaxOffset = 256;  ///< sequence: offsets below this, P apart
  uint32_t Phase = 4;        ///< Words into a patch that are stressed.
  uint64_t Epsilon = 3;
  uint32_t MaxLength = 5;
  uint32_t MaxSpread = 8;
  uint32_t Samples = 2;
  uint32_t Candidates = 50;
  uint32_t Rounds = 4;
};

/// The most --quick may take, in seconds (and its default budget).
constexpr double QuickBudgetSeconds = 300;

/// The longest access sequence `tune sequence` tries: 2^(N+1) - 2
/// sequences are measured per round (510 at 8).
constexpr uint32_t MaxSequenceLength = 8;

/// The ranges of the modes' numeric options (docs/limits.md); runTune
/// checks them too. Offsets and distances take the ranges of the run
/// parameters they become (stress-offset, loc-distance).
inline constexpr IntRange MaxOffsetRange{1, 65536};
inline constexpr IntRange PhaseRange{0, 65535};
inline constexpr IntRange EpsilonRange{0, 1'000'000'000};
inline constexpr IntRange MaxLengthRange{1, MaxSequenceLength};
inline constexpr IntRange MaxSpreadRange{1, 64};
inline constexpr IntRange SamplesRange{1, 1000};
inline constexpr IntRange CandidatesRange{1, 10000};
inline constexpr IntRange RoundsRange{1, 1000};

int runTune(const TuneCommand &Cmd, std::ostream &Out, std::ostream &Err);

/// parseDuration (Support/Time.h), for the tune options.
using incant::parseDuration;
/// The most values one --distances or --offsets list may hold.
constexpr uint64_t MaxGridValues = 4096;
/// "1,32:257:32" -> 1, 32, 64, ..., 256; false (with \p Error) if malformed
/// or longer than MaxGridValues (counted before a range is expanded).
bool parseRange(const std::string &Text, std::vector<uint32_t> &Out,
                std::string &Error);

} // namespace incant::tune

#endif // INCANT_COMMANDS_TUNECOMMAND_H
