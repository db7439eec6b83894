//===- Check.h - Enumerate a litmus test's executions under a model -*- C++ -*-===//
//
// model::check is the library entry point behind `incant check`: it
// enumerates the candidate executions of a litmus::Program (thread traces,
// rf, co), gives each one's primitive sets and relations to a cat::Model, and
// collects the final states of the executions the model allows.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_MODEL_CHECK_H
#define INCANT_MODEL_CHECK_H

#include "incant/Cat/Model.h"
#include "incant/Litmus/Program.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace incant::model {

struct CheckOptions {
  /// How many times a backward branch may be taken per thread (herd's -unroll).
  unsigned Unroll = 2;
  /// Stop enumerating after this many candidate executions (0: no limit);
  /// the result is then marked Incomplete.
  uint64_t MaxCandidates = 0;
  /// Stop after this many steps (0: no limit): a step is a combination of
  /// one trace per thread, a choice of rf, co or Fence-SC order tried, or a
  /// candidate execution, so that searches that give no candidate count
  /// too. The default (10^8, minutes on small
  /// tests) and TimeLimit's bound every caller's search; docs/checker.md.
  uint64_t MaxSteps = DefaultMaxSteps;
  /// Stop after this many seconds of wall-clock time (0: no limit).
  double TimeLimit = DefaultTimeLimit;
  static constexpr uint64_t DefaultMaxSteps = 100'000'000;
  static constexpr double DefaultTimeLimit = 60;
  /// Called about every thousand steps with the steps and candidates so
  /// far (a progress display); may be empty.
  std::function<void(uint64_t Steps, uint64_t Candidates)> Progress;
};

/// One final state: the values of Program::Observe, in order.
struct State {
  std::vector<litmus::Value> Values;
  bool Satisfies = false; ///< Satisfies the condition's proposition.
  uint64_t Executions = 0; ///< Allowed executions that end in this state.
  friend bool operator<(const State &A, const State &B) {
    return A.Values < B.Values;
  }
};

struct CheckResult {
  std::vector<State> States; ///< Distinct final states, sorted.
  uint64_t Positive = 0;     ///< Allowed executions satisfying the proposition.
  uint64_t Negative = 0;     ///< Allowed executions not satisfying it.
  bool Ok = false;           ///< The quantified condition holds.
  uint64_t Candidates = 0;   ///< Candidate executions evaluated by the model.
  uint64_t Steps = 0;        ///< Trace combinations, choices and candidates.
  bool Incomplete = false;   ///< A limit was reached; see IncompleteReason.
  std::string IncompleteReason; ///< Which limit, in words.
  /// Incomplete because of a limit the caller set (MaxCandidates,
  /// MaxSteps, TimeLimit), not one of the trace search's own.
  bool StoppedByCaller = false;
  std::vector<std::string> Flags; ///< `flag` checks that fired on some allowed execution.
};

/// Checks \p P under \p M. Never fails on a well-formed Program.
CheckResult check(const litmus::Program &P, const cat::Model &M,
                  const CheckOptions &Opts = {});

} // namespace incant::model

#endif // INCANT_MODEL_CHECK_H
