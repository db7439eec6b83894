//===- FenceCommand.h - `incant fences`: empirical fence insertion -*- C++ -*-===//
//
//   incant fences [--iterations I] [--check-time T] [--stable-for T |
//                 --stable-runs N] [--budget T] [--env E,...] [--no-weaken]
//                 [--reference ./app-with-its-fences] [--save F.json]
//                 [--patch F.diff] [--db F.sqlite | --no-db] [--json]
//                 [--report-json F.json]
//                 [oracle options as in stress] -- ./app ARGS
//
// The application must be built through incant with the pass "fences"
// (`eval "$(incant build-env --passes randomise,fences)"`). One run with
// every fence on shows which kernels it launches; their fence sites are the
// candidates (Candidates.h). Then Algorithm 1 (Reduction.h) with the
// application as oracle: each check runs it in the testing environments
// (round robin, default sys+) with exactly one fence set switched on
// through the injected library (INCANT_FENCES), judged by its
// post-condition. Every check goes to the store (FenceStore.h), so a
// killed search resumes.
//
// The report gives each fence of the reduced set by source file:line with
// the source text, the PTX position, the kind kept, a patch that adds the
// fence after the line, where a release or acquire access would do
// instead; and the orderings the application already had (or a reference
// build's, --reference), compared with the result.
//
// Exit codes: 0 a reduced set was found and is stable; 1 the application
// fails even with every fence on, or the budget ran out first; 2 usage or
// input error (no such program, not built with the pass "fences", a check
// command that cannot run, an unusable store, an output that cannot be
// written); 3 no CUDA driver or device (before any run), the injected
// library missing, a store write failing.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_FENCECOMMAND_H
#define INCANT_COMMANDS_FENCECOMMAND_H

#include "incant/AppTest/AppUnderTest.h"

#include <iosfwd>
#include <string>

namespace incant::fences {

struct FenceCommand {
  /// The application, its oracle and the environments of its runs.
  apptest::AppSetup App;
  uint64_t Iterations = 32;  ///< Runs per check in the first round.
  std::string CheckTime;     ///< Cap on each check ("" none).
  std::string StableFor = "1h"; ///< EmpiricallyStable's time.
  uint64_t StableRuns = 0;   ///< Or its runs (then StableFor is a cap).
  std::string Budget;        ///< Time for this invocation's checks.
  /// Runs of a check at once (apptest::RunPool: kernels one run at a time).
  unsigned Jobs = 1;
  bool Weaken = true;
  /// Algorithm 1 as the paper has it: no chunks, no evidence, I doubles.
  bool PaperOnly = false;
  std::string Reference;     ///< A build with the application's own fences.
  std::string Save;          ///< The result for `incant fences cost`.
  std::string Patch;         ///< A unified diff of the reduced fences.
  std::string ReportJson;    ///< Also write the JSON report here.
  std::string Db = "incant-fences.sqlite";
  bool DbGiven = false;      ///< --db was given (an error if unusable).
  bool NoDb = false;
  bool Json = false;
};

int runFences(const FenceCommand &Cmd, std::ostream &Out, std::ostream &Err);

/// What the report needs besides the search result.
} // namespace incant::fences

#endif // INCANT_COMMANDS_FENCECOMMAND_H
