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

/// One event of a candidate execution: events 0..Locs-1 are the initial
/// writes (event l writes location l), then each thread's events in order.
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
  /// Final value of a location (its co-last write) and of a register.
  litmus::Value finalLoc(unsigned Loc) const { return (*FinalLocs)[Loc]; }
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
  const std::vector<litmus::Value> *FinalLocs = nullptr;
};

struct EnumerationStats {
  uint64_t Candidates = 0; ///< Candidates handed to the visitor.
  uint64_t Steps = 0;      ///< Trace combinations and candidates.
  bool Incomplete = false; ///< A limit (traces, values, CheckOptions) was hit.
  std::string Reason;      ///< Which limit, in words.
  bool StoppedByCaller = false; ///< MaxCandidates, MaxSteps or TimeLimit.
};

/// Calls \p Visit on every candidate execution of \p P, within the limits
/// of \p Opts (MaxCandidates, MaxSteps, TimeLimit). \p Visit returns false
/// to stop early.
EnumerationStats
forEachCandidate(const litmus::Program &P, const CheckOptions &Opts,
                 const std::function<bool(const Candidate &)> &Visit);

} // namespace incant::model

#endif // INCANT_MODEL_EXECUTIONS_H
