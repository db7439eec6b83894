//===- Executions.cpp - Candidate executions of a litmus::Program ---------===//
//
// For every combination of one trace per thread: lay out the events (initial
// writes first), build the parts of the execution that do not depend on rf
// or co (sets, po, dependencies, scopes, fences) once, then enumerate rf
// (each read from a write of the same location and value) and co (a total
// order per location, initial write first) and fill only the rf/co-derived
// relations per candidate.
//
//===----------------------------------------------------------------------===//
#include "incant/Model/Executions.h"

#include "Primitives.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdio>

using namespace incant;
using namespace incant::model;
using litmus::Value;

namespace incant::model {

class CandidateEnumerator {
public:
  CandidateEnumerator(const litmus::Program &P, const CheckOptions &Opts,
                      const std::function<bool(const Candidate &)> &Visit)
      : P(P), Opts(Opts), Visit(Visit) {}

  EnumerationStats run();

private:
  const litmus::Program &P;
  const CheckOptions &Opts;
  const std::function<bool(const Candidate &)> &Visit;
  EnumerationStats Stats;
  bool Stop = false;
  TraceSet TS;
  std::chrono::steady_clock::time_point Start;

  /// Counts a step; false (and Stop set) once a limit of Opts is reached.
  bool step();
  void stopBy(std::string Reason) {
    Stats.Incomplete = Stats.StoppedByCaller = Stop = true;
    Stats.Reason = std::move(Reason);
  }

  // The current trace combination.
  std::vector<const Trace *> Chosen;
  std::vector<EventRef> Events;
  std::vector<int32_t> ThreadOf; ///< Thread of each event; -1-l for IW of l.
  std::vector<int32_t> Base;     ///< First event of each thread.
  std::vector<int32_t> Reads;    ///< Read events.
  std::vector<std::vector<int32_t>> RfCands; ///< Per entry of Reads.
  std::vector<std::vector<int32_t>> LocWrites; ///< Non-init writes per location.
  std::vector<int32_t> CoLocs;   ///< Locations with >= 2 non-init writes.

  // The current candidate.
  std::vector<size_t> RfChoice;
  std::vector<int32_t> Rf; ///< Per event: the write a read reads from, else -1.
  std::vector<std::vector<int32_t>> CoOrder; ///< Per location, non-init writes.
  std::vector<Value> FinalLocs;
  Primitives Prims;

  void forEachCombination(size_t Thread);
  void setUpCombination();
  void forEachRf(size_t I);
  void forEachCo(size_t I);
  void visitCandidate();
};

} // namespace incant::model

bool CandidateEnumerator::step() {
  ++Stats.Steps;
  if (Opts.MaxSteps && Stats.Steps > Opts.MaxSteps) {
    --Stats.Steps;
    stopBy("stopped after " + std::to_string(Opts.MaxSteps) +
           " steps (trace combinations and candidate executions)");
    return false;
  }
  // The clock is read every 1024 steps (a step takes 0.1 to 100 us).
  if ((Stats.Steps & 1023) == 0) {
    if (Opts.Progress)
      Opts.Progress(Stats.Steps, Stats.Candidates);
    if (Opts.TimeLimit > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      Start)
                .count() >= Opts.TimeLimit) {
      char Buf[32];
      std::snprintf(Buf, sizeof(Buf), "%gs", Opts.TimeLimit);
      stopBy(std::string("stopped at the time limit of ") + Buf);
      return false;
    }
  }
  return true;
}

EnumerationStats CandidateEnumerator::run() {
  Start = std::chrono::steady_clock::now();
  TraceOptions TO;
  TO.Unroll = Opts.Unroll;
  TS = computeTraces(P, TO);
  Stats.Incomplete = TS.Incomplete;
  if (TS.Incomplete)
    Stats.Reason = "a limit of the per-thread trace search was reached "
                   "(values per location, traces or reads per thread)";
  Chosen.assign(P.Threads.size(), nullptr);
  for (const std::vector<Trace> &Ts : TS.Threads)
    if (Ts.empty())
      return Stats; // a thread with no valid trace: no execution at all
  forEachCombination(0);
  return Stats;
}

void CandidateEnumerator::forEachCombination(size_t Thread) {
  if (Thread == P.Threads.size()) {
    if (!step())
      return;
    setUpCombination();
    for (const std::vector<int32_t> &C : RfCands)
      if (C.empty())
        return; // some read can read from nothing: no candidate (exact)
    forEachRf(0);
    return;
  }
  for (const Trace &T : TS.Threads[Thread]) {
    if (Stop)
      return;
    Chosen[Thread] = &T;
    forEachCombination(Thread + 1);
  }
}

void CandidateEnumerator::setUpCombination() {
  size_t NumLocs = P.Locs.size();
  Events.clear();
  ThreadOf.clear();
  Base.assign(P.Threads.size(), 0);
  for (size_t L = 0; L < NumLocs; ++L) {
    Events.push_back({-1, nullptr});
    ThreadOf.push_back(-1 - int32_t(L));
  }
  for (size_t T = 0; T < Chosen.size(); ++T) {
    Base[T] = int32_t(Events.size());
    for (const Event &E : Chosen[T]->Events) {
      Events.push_back({int32_t(T), &E});
      ThreadOf.push_back(int32_t(T));
    }
  }
  // Writes per location, reads and their rf candidates.
  LocWrites.assign(NumLocs, {});
  Reads.clear();
  for (size_t E = NumLocs; E < Events.size(); ++E) {
    const Event &Ev = *Events[E].E;
    if (Ev.K == EventKind::Write)
      LocWrites[Ev.Loc].push_back(int32_t(E));
    else if (Ev.K == EventKind::Read)
      Reads.push_back(int32_t(E));
  }
  RfCands.assign(Reads.size(), {});
  for (size_t I = 0; I < Reads.size(); ++I) {
    const Event &R = *Events[Reads[I]].E;
    if (P.Locs[R.Loc].Init == R.V)
      RfCands[I].push_back(R.Loc);
    for (int32_t W : LocWrites[R.Loc])
      if (Events[W].E->V == R.V)
        RfCands[I].push_back(W);
    if (RfCands[I].empty())
      return;
  }
  CoLocs.clear();
  CoOrder.assign(NumLocs, {});
  for (size_t L = 0; L < NumLocs; ++L) {
    CoOrder[L] = LocWrites[L];
    if (LocWrites[L].size() >= 2)
      CoLocs.push_back(int32_t(L));
  }
  Prims.setUpCombination(P, Events, ThreadOf, Chosen, Base);
}

void CandidateEnumerator::forEachRf(size_t I) {
  if (I == 0) {
    RfChoice.assign(Reads.size(), 0);
    Rf.assign(Events.size(), -1);
  }
  if (I == Reads.size()) {
    forEachCo(0);
    return;
  }
  for (int32_t W : RfCands[I]) {
    if (Stop)
      return;
    Rf[Reads[I]] = W;
    forEachRf(I + 1);
  }
}

void CandidateEnumerator::forEachCo(size_t I) {
  if (I == CoLocs.size()) {
    visitCandidate();
    return;
  }
  std::vector<int32_t> &Order = CoOrder[CoLocs[I]];
  std::sort(Order.begin(), Order.end());
  do {
    if (Stop)
      return;
    forEachCo(I + 1);
  } while (std::next_permutation(Order.begin(), Order.end()));
}

void CandidateEnumerator::visitCandidate() {
  if (Opts.MaxCandidates && Stats.Candidates >= Opts.MaxCandidates) {
    stopBy("stopped after " + std::to_string(Opts.MaxCandidates) +
           " candidate executions");
    return;
  }
  if (!step())
    return;
  ++Stats.Candidates;
  size_t NumLocs = P.Locs.size();
  FinalLocs.resize(NumLocs);
  for (size_t L = 0; L < NumLocs; ++L)
    FinalLocs[L] = CoOrder[L].empty() ? P.Locs[L].Init
                                      : Events[CoOrder[L].back()].E->V;
  Prims.setCandidate(Rf, CoOrder, ThreadOf);
  Candidate C;
  C.X = &Prims.execution();
  C.Prog = &P;
  C.Events = &Events;
  C.Traces = &Chosen;
  C.Rf = &Rf;
  C.FinalLocs = &FinalLocs;
  if (!Visit(C))
    Stop = true;
}

EnumerationStats
model::forEachCandidate(const litmus::Program &P, const CheckOptions &Opts,
                        const std::function<bool(const Candidate &)> &Visit) {
  return CandidateEnumerator(P, Opts, Visit).run();
}
