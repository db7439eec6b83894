//===- Findings.h - Race findings for CI: SARIF, suppressions -*- C++ -*-===//
//
// A finding is what a user acts on: one race (the PTX pairs folded by
// their two source lines, kind and variable), one divergent barrier, or
// one pair of source lines whose race the analysis could not decide. Each
// has a kind (its rule id: "race", "divergence", "unknown"), the kernel,
// the variable, its source sites (file, line, column and the line's text)
// and a message that carries the witness.
//
// From the findings: a SARIF 2.1.0 log (one result per finding, every
// site a location), and suppressions. A suppressions file names findings
// by kind, kernel, variable and the text of their source lines, not line
// numbers, so it still matches after edits elsewhere in the file; the
// format is in docs/race.md ("Suppressions and baselines"):
//
//   # a comment
//   [race]
//   kernel = neighbor
//   variable = s
//   line = shared.cu: s[t] = t;
//   line = shared.cu: out[i] = s[(t + 1) % blockDim.x];
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_RACE_FINDINGS_H
#define INCANT_RACE_FINDINGS_H

#include "incant/Race/Race.h"
#include "incant/Support/Diagnostic.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace incant::race {

enum class FindingKind : uint8_t { Race, Divergence, Unknown };
/// The rule id: "race", "divergence", "unknown".
const char *findingRuleId(FindingKind K);
/// FindingKind of a rule id; nullopt if \p Id is none.
std::optional<FindingKind> findingKindOf(const std::string &Id);

/// One source position of a finding.
struct FindingSite {
  std::string File;  ///< As the compiler recorded it, or the PTX file.
  uint32_t Line = 0; ///< 1-based.
  uint32_t Col = 0;  ///< 1-based; 0: not known.
  /// The source line, trimmed, its runs of blanks made one space (the PTX
  /// instruction where there is no source line): what a suppression
  /// matches.
  std::string Text;
  std::string Role; ///< "write", "read", "barrier".
};

struct Finding {
  FindingKind Kind = FindingKind::Race;
  std::string Kernel;   ///< ir::qualifiedKernelName.
  std::string Variable; ///< As the report names it ("s", "parameter 0").
  /// "data race: write-read on shared memory, s, between threads of one
  /// block" (a compiler-style line's message).
  std::string Title;
  /// The witness (threads, launch, byte) or, for unknown, the reason.
  std::string Detail;
  std::vector<FindingSite> Sites;
  /// What an option told the check to assume for the kernel
  /// (KernelReport::OptionAssumptions).
  std::vector<std::string> Assumptions;
  bool Suppressed = false;
  /// Where it is in its report: the kernel, and the pairs (or barrier) it
  /// folds.
  unsigned KernelIndex = 0;
  std::vector<unsigned> Pairs;
  std::optional<unsigned> Barrier;
};

/// The findings of \p R, kernel by kernel: races, divergent barriers and
/// undecided pairs (and, with \p WithSuppressed, those suppressed).
std::vector<Finding> collectFindings(const ModuleReport &R,
                                     bool WithSuppressed = false);

/// "FILE:LINE:COL" (or "FILE:LINE" without a column) of \p S.
std::string siteText(const FindingSite &S);
/// A source line as a suppression matches it: trimmed, runs of blanks one
/// space.
std::string normalizeSourceLine(const std::string &Line);

//===-- SARIF -------------------------------------------------------------===//

/// A SARIF 2.1.0 log with one run: incant \p Version as the tool (the three
/// rules), one result per finding; suppressed ones carry an external
/// suppression. \p Files are the files checked (the run's artifacts);
/// \p Assumptions, what an option told the check to assume for any kernel
/// (the run's property "assumptions", and each result's for its kernel).
nlohmann::json sarifLog(const std::vector<Finding> &Findings,
                        const std::vector<std::string> &Files,
                        const std::string &Version,
                        const std::vector<std::string> &Assumptions = {});

//===-- Suppressions ------------------------------------------------------===//

struct Suppression {
  FindingKind Kind = FindingKind::Race;
  std::string Kernel;   ///< As --kernel takes it; "" or "*": any.
  std::string Variable; ///< "" or "*": any.
  /// (file name, normalised text) of each source line; empty: any lines.
  std::vector<std::pair<std::string, std::string>> Lines;
  uint32_t DeclLine = 0; ///< Its `[kind]` line in the file.
  unsigned Matched = 0;
};

struct SuppressionFile {
  std::string Path;
  std::vector<Suppression> Entries;
};

/// Reads a suppressions file; nullopt after reporting an error with its
/// file:line:col.
std::optional<SuppressionFile> readSuppressions(const std::string &Path,
                                                DiagnosticEngine &Diags);

/// Whether \p S names \p F (\p KernelPtxName: the kernel's PTX name, for
/// --kernel-style matching).
bool suppressionMatches(const Suppression &S, const Finding &F,
                        const std::string &KernelPtxName);

/// Marks the pairs and barriers of \p R that an entry of \p S names as
/// Suppressed (counting each entry's matches); returns how many findings.
unsigned applySuppressions(ModuleReport &R, SuppressionFile &S);

/// \p Findings as a suppressions file (a baseline: today's findings).
std::string suppressionsText(const std::vector<Finding> &Findings);

} // namespace incant::race

#endif // INCANT_RACE_FINDINGS_H
