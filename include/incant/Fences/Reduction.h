//===- Reduction.h - Empirical fence insertion (Algorithm 1) ----*- C++ -*-===//
//
// The search of the weak-memory-app-testing-pldi16 paper (section 5.1,
// Algorithm 1) over an abstract oracle, so that it is tested against
// simulated applications and runs against real ones (FenceCommand.h):
//
//   all fences on must be empirically stable (else the application fails
//   for another reason); then, with iteration count I:
//     F_b = BinaryReduction(all, I)   halves, first half tried first
//     F_l = LinearReduction(F_b, I)   one fence at a time, in code order
//     if EmpiricallyStable(F_l): done, else I = 2 I and start again
//
// CheckApplication(F, I) runs the application with fences F (and no other)
// I times and passes if no run fails; EmpiricallyStable(F) runs it for a
// longer budget. Both stop at the first failing run. Beyond the paper:
//
//   - before the rounds, F = {} is checked: an application that passes
//     with no fence and is then stable needs none (the paper's algorithm
//     reaches the same answer through every reduction step);
//   - each fence of the result is then tried with the weaker kinds
//     (acq_rel.cta, sc.cta, acq_rel.gpu, the cheapest first) and keeps the
//     first that passes; the weakened set must be stable, else every fence
//     goes back to sc.gpu;
//   - chunks: between the binary and the linear reduction, F_b's fences are
//     removed a quarter, an eighth, ... at a time (in code order) before
//     one at a time, so the fences no run needs go in few checks and the
//     runs go to the few that matter (Chunks);
//   - evidence: a failed check shows that its set, and every set it
//     contains (fewer fences, or weaker kinds), is not enough: such a set
//     fails without running. Runs of a set that passed count towards a
//     later check of the same set, which runs only the rest (Evidence);
//   - when the stability check fails, the next round's I is at least what
//     catches the failure rate the stability checks measured (failures
//     over their runs) with probability Confidence, within the stability
//     check's runs; the paper only doubles I, round after round;
//   - recheck: when the stability check fails, every fence on is checked
//     again (fresh runs, the stability check's budget) before the next
//     round. The premise of the rounds, that every fence on is stable, was
//     shown once, under the conditions of then; an application that has
//     since begun to fail whatever its fences (a resumed search, another
//     process on the GPU) would otherwise have its failures blamed on the
//     fences of each check, round after round, and the search would keep
//     every fence. If the recheck fails, the search ends as Unstable.
//
// Every check is numbered; a Journal gives the results of checks made
// before (a killed search resumes from its store) and records new ones.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_FENCES_REDUCTION_H
#define INCANT_FENCES_REDUCTION_H

#include "incant/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace incant::fences {

/// A fence set: candidate index (in code order) -> fence kind
/// (intercept::fenceKindNames() order; 0 is sc.gpu).
using FenceSet = std::map<uint32_t, unsigned>;

/// "0-3,7,9/acq_rel.cta": a set written compactly (kinds other than
/// sc.gpu after a slash).
std::string formatSet(const FenceSet &S);
/// The inverse of formatSet; nullopt if \p Text is not such a list.
std::optional<FenceSet> parseSet(const std::string &Text);

enum class Purpose { All, None, Binary, Chunk, Linear, Stable, Weaken };
const char *purposeName(Purpose P);

/// What one check asks of the oracle.
struct CheckSpec {
  uint64_t Runs = 0;   ///< At most this many runs (0: no limit).
  double Seconds = 0;  ///< At most this long (0: no limit).
};

/// What the oracle answers.
struct CheckOutcome {
  uint64_t Runs = 0, Failures = 0;
  double Seconds = 0;
  std::string FirstFailure; ///< What the first failing run said.
  bool passed() const { return Failures == 0; }
};

class Oracle {
public:
  virtual ~Oracle() = default;
  /// Runs the application with exactly the fences \p F on, until \p Spec's
  /// runs or seconds are spent or a run fails; \p Seq is the check's number
  /// in the search (for the runs' seeds). False with \p Error set if the
  /// application cannot be run at all (a usage error, not a verdict).
  virtual bool check(uint64_t Seq, const FenceSet &F, const CheckSpec &Spec,
                     CheckOutcome &Out, std::string &Error) = 0;
};

/// One check, as the search made (or replayed) it.
struct CheckRecord {
  uint64_t Seq = 0; ///< From 0, in the order the search makes them.
  Purpose P = Purpose::All;
  unsigned Round = 0; ///< Reduction round (I doubles each round).
  FenceSet Set;
  CheckSpec Spec;
  CheckOutcome Out;
  bool Replayed = false; ///< From the journal, not run now.
  /// Failed without running: its set is contained in the set of this
  /// earlier failed check (Evidence).
  std::optional<uint64_t> ImpliedBy;
  /// Runs of earlier checks of the same set that passed and count towards
  /// this one; Spec asks only for the rest (Evidence). A check whose
  /// earlier runs cover it passes without running (Spec.Runs 0).
  uint64_t PriorRuns = 0;
  /// Failed: this check, or the one that implies its failure.
  bool failed() const { return ImpliedBy || !Out.passed(); }
};

/// True if fence set \p Sub orders no more than \p Super: each of its
/// fences is in \p Super with a kind at least as strong (sc.gpu is the
/// strongest, acq_rel.cta the weakest; acq_rel.gpu and sc.cta are not
/// comparable).
bool ordersNoMore(const FenceSet &Sub, const FenceSet &Super);

/// Where checks are kept (the store, or nothing).
class Journal {
public:
  virtual ~Journal() = default;
  /// The stored check number \p Seq, if it asked for \p Set with \p Spec.
  virtual std::optional<CheckOutcome> lookup(uint64_t Seq, const FenceSet &Set,
                                             const CheckSpec &Spec) = 0;
  /// Stores a check just made; false with \p Error set.
  virtual bool record(const CheckRecord &C, std::string &Error) = 0;
};

struct ReductionOptions {
  uint32_t Candidates = 0;     ///< Fences 0 .. Candidates-1.
  uint64_t Iterations = 32;    ///< I of the first round (runs per check).
  double CheckSeconds = 0;     ///< Also cap each check's time (0: none).
  CheckSpec Stable = {0, 3600}; ///< EmpiricallyStable (the paper: 1 hour).
  bool Weaken = true;          ///< Try the weaker kinds of each fence.
  bool TryNone = true;         ///< Check the empty set first.
  bool Chunks = true;          ///< Remove chunks before single fences.
  bool Evidence = true;        ///< Failures imply; passed runs count.
  /// Next round's I catches the measured failure rate with this
  /// probability (0: only double, as the paper).
  double Confidence = 0.95;
  /// Check every fence on again after each failed stability check.
  bool Recheck = true;
  double Budget = 0;           ///< Seconds of checks made now (0: none).
  unsigned MaxRounds = 16;
};

enum class SearchStatus {
  Reduced,  ///< Result holds an empirically stable reduced set.
  Unstable, ///< Even every fence on fails: the app fails otherwise.
  /// Stopped by the budget; Result holds the set the reduction had reached
  /// (the last one that passed its checks in the current round).
  OutOfBudget,
  Error,    ///< The oracle could not run the application, or the store failed.
};

struct SearchResult {
  SearchStatus Status = SearchStatus::Error;
  FenceSet Result;
  /// Before weakening (all sc.gpu); equal to Result if nothing weakened.
  FenceSet Strong;
  bool WeakenedUnstable = false; ///< A weakened set failed its stability check.
  /// Unstable: the round after which the recheck of every fence failed
  /// (0: the first check, before any round).
  unsigned UnstableAfterRound = 0;
  unsigned Rounds = 0;
  uint64_t FinalIterations = 0;
  std::vector<CheckRecord> Checks;
  double Seconds = 0;        ///< All checks, replayed ones included.
  double NewSeconds = 0;     ///< Checks made by this invocation.
  std::string Error;
  /// Error: the oracle's failure is the input's (a check command that
  /// cannot run, another binary); the store's is internal.
  ErrorKind Kind = ErrorKind::Input;
};

/// Runs the search. \p Progress, if set, is told of every check.
class ProgressSink {
public:
  virtual ~ProgressSink() = default;
  virtual void checked(const CheckRecord &C) = 0;
};

SearchResult reduceFences(const ReductionOptions &Opts, Oracle &O,
                          Journal *J = nullptr, ProgressSink *P = nullptr);

} // namespace incant::fences

#endif // INCANT_FENCES_REDUCTION_H
