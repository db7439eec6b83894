//===- Executions.h - Candidate executions of a litmus::Program -*- C++ -*-===//
//
// The second half of the checker: one trace per thread (Traces.h), an rf
// choice for every read and a coherence order per location make a candidate
// execution. forEachCandidate hands each one, with every primitive set and
// relation of the cat dialect filled in, to a visitor; model::check is a
// visitor that asks a cat::Model about each one.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_MODEL_EXECUTIONS_H
#define INCANT_MODEL_EXECUTIONS_H

#include "incant/Cat/Model.h"
#include "incant/Litmus/Program.h"
#include "incant/Model/Check.h"
#include "incant/Model/Traces.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace incant::model {

/// One event of a candidate execution: the initial writes first (one per
/// physical location, in the order of P.Locs), then each thread's events
/// in program order.
struct EventRef {
  int32_t Thread = -1;  ///< Index into Program::Threads; -1 for initial writes.
  const Event *E = nullptr;
};

/// What a visitor sees of one candidate execution. Valid only during the call.
class Candidate {
public:
  /// The primitive sets and relations (docs/checker.md lists them).
  const cat::Execution &execution() const { return *X; }
  const litmus::Program &program() const { return *Prog; }
  unsigned numEvents() const { return unsigned(Events->size()); }
  const EventRef &event(unsigned E) const { return (*Events)[E]; }
  /// The trace each thread runs.
  const Trace &trace(unsigned Thread) const { return *(*Traces)[Thread]; }
  /// The event that event \p R (a read) reads from.
  unsigned readsFrom(unsigned R) const { return unsigned((*Rf)[R]); }
  /// Final value of a location (P.Locs index; aliases share their physical
  /// location's) and of a register. With a partial coherence order a
  /// location may end with any of its co-maximal writes: see
  /// forEachFinalState.
  litmus::Value finalLoc(unsigned Loc) const {
    return (*FinalLocs)[size_t(Prog->Locs[Loc].phys(int32_t(Loc)))];
  }
  /// Calls \p F once per final state of the locations this candidate may
  /// end in (once if coherence is total), with finalLoc() set accordingly.
  void forEachFinalState(const std::function<void()> &F) const;
  litmus::Value finalReg(unsigned Thread, unsigned Reg) const {
    return trace(Thread).FinalRegs[Reg];
  }

private:
  friend class CandidateEnumerator;
  const litmus::Program *Prog = nullptr;
  const cat::Execution *X = nullptr;
  const std::vector<EventRef> *Events = nullptr;
  const std::vector<const Trace *> *Traces = nullptr;
  const std::vector<int32_t> *Rf = nullptr;
  std::vector<litmus::Value> *FinalLocs = nullptr;
  /// Per physical location: the values it may end with (empty: no choice).
  const std::vector<std::vector<litmus::Value>> *FinalOptions = nullptr;
};

/// How candidate executions are drawn, as the model needs them.
struct CandidateShape {
  /// Every strict partial order of each location's writes (initial write
  /// first), not only total ones; cat::Model::partialCoherence().
  bool PartialCoherence = false;
  /// Guess the Fence-SC order (`sync_fence`): an acyclic orientation of the
  /// pairs of fence.sc/membar that are in each other's scope. The order is
  /// a witness, not part of what an execution shows: with a pruner, a
  /// candidate is visited once, with the first order the model allows (or
  /// not at all if it allows none). Without it `sync_fence` is empty.
  bool FenceSCOrder = false;
};

struct EnumerationStats {
  uint64_t Candidates = 0; ///< Candidates handed to the visitor.
  uint64_t Steps = 0;      ///< Trace combinations, choices and candidates.
  bool Incomplete = false; ///< A limit (traces, values, CheckOptions) was hit.
  std::string Reason;      ///< Which limit, in words.
  bool StoppedByCaller = false; ///< MaxCandidates, MaxSteps or TimeLimit.
};

/// Lets the enumerator skip the candidates a model forbids whatever the rest
/// of their choices are (model::check answers with a cat::Evaluator). The
/// primitives come in levels: 0 fixed by the trace combination and its
/// barrier and Fence-SC choices, 1 rf, 2 co.
class CandidatePruner {
public:
  virtual ~CandidatePruner() = default;
  /// The primitives up to \p Level are set (the enumerator calls this each
  /// time it changes a level's, up to co and the Fence-SC order): false
  /// skips every candidate that shares them.
  virtual bool admits(const cat::Execution &X, unsigned Level) = 0;
  /// The primitives up to \p Level are those of the last admits() of that
  /// level, which answered true: true if the pruner keeps what it worked
  /// out then (no need to call admits again).
  virtual bool keep(const cat::Execution &, unsigned) { return false; }
  /// While the primitives of levels \p From and up are being chosen, X
  /// holds bounds on them: bit L of \p UpperMask says level L holds a
  /// superset of every completion's, else a subset. True skips them all.
  virtual bool refutes(const cat::Execution &X, unsigned From,
                       uint32_t UpperMask) = 0;
  /// Whether refutes can ever answer true with such bounds.
  virtual bool canRefute(const cat::Execution &X, unsigned From,
                         uint32_t UpperMask) = 0;
  /// After admits(X, 0) answered true: adds to \p Out the pairs of events
  /// that every execution the pruner admits with these level-0 primitives
  /// orders in co one way or the other; false if it knows of none.
  virtual bool coherenceOrdered(const cat::Execution &, cat::Relation &) {
    return false;
  }
};

/// Calls \p Visit on every candidate execution of \p P that \p Pruner, if
/// given, does not rule out, within the limits of \p Opts (MaxCandidates,
/// MaxSteps, TimeLimit). \p Visit returns false to stop early.
EnumerationStats
forEachCandidate(const litmus::Program &P, const CheckOptions &Opts,
                 const CandidateShape &Shape,
                 const std::function<bool(const Candidate &)> &Visit,
                 CandidatePruner *Pruner = nullptr);

} // namespace incant::model

#endif // INCANT_MODEL_EXECUTIONS_H
