//===- Executions.cpp - Candidate executions of a litmus::Program ---------===//
//
// For every combination of one trace per thread: lay out the events (one
// initial write per physical location first), decide how its barriers meet
// (a combination where one hangs has no execution) and, for the models that
// read them, the barrier quorums' synchronizing sets and the Fence-SC order;
// build the parts of the execution that do not depend on rf or co once per
// such choice; then enumerate rf (each read from a write of the same
// location and value) and co (a total or a partial order per location,
// initial write first) and fill only the rf/co-derived relations per
// candidate. docs/checker.md states the semantics.
//
//===----------------------------------------------------------------------===//
#include "incant/Model/Executions.h"

#include "Primitives.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <tuple>

using namespace incant;
using namespace incant::model;
using cat::Relation;
using litmus::Value;

namespace {

/// Calls \p F with every strict order of \p K elements (rows[a]: the bit
/// set of elements after a; transitively closed): every total order, or
/// with \p Partial every partial one. Returns false if \p F stopped.
class OrderEnumerator {
public:
  OrderEnumerator(unsigned K, bool Partial,
                  const std::function<bool(const std::vector<uint32_t> &)> &F)
      : K(K), Partial(Partial), F(F), Rows(K, 0), Unordered(K, 0) {}

  bool run() {
    if (!Partial)
      return permutations();
    return pairs(0, 1);
  }

private:
  unsigned K;
  bool Partial;
  const std::function<bool(const std::vector<uint32_t> &)> &F;
  std::vector<uint32_t> Rows, Unordered;

  bool permutations() {
    std::vector<unsigned> Perm(K);
    for (unsigned I = 0; I != K; ++I)
      Perm[I] = I;
    do {
      uint32_t After = 0;
      for (unsigned I = K; I-- > 0;) {
        Rows[Perm[I]] = After;
        After |= uint32_t(1) << Perm[I];
      }
      if (!F(Rows))
        return false;
    } while (std::next_permutation(Perm.begin(), Perm.end()));
    return true;
  }

  /// Adds I -> J and closes transitively; false if that relates a pair
  /// decided unordered.
  bool addEdge(unsigned I, unsigned J) {
    uint32_t Succ = (uint32_t(1) << J) | Rows[J];
    for (unsigned A = 0; A != K; ++A)
      if (A == I || (Rows[A] >> I & 1)) {
        Rows[A] |= Succ;
        if (Rows[A] & Unordered[A])
          return false;
      }
    return true;
  }

  /// Decides the pair (I, J) and the ones after it.
  bool pairs(unsigned I, unsigned J) {
    while (I < K && J >= K) {
      ++I;
      J = I + 1;
    }
    if (I + 1 >= K)
      return F(Rows);
    unsigned NI = I, NJ = J + 1;
    if ((Rows[I] >> J & 1) || (Rows[J] >> I & 1))
      return pairs(NI, NJ); // fixed by transitivity
    std::vector<uint32_t> Saved = Rows;
    if (addEdge(I, J) && !pairs(NI, NJ))
      return false;
    Rows = Saved;
    if (addEdge(J, I) && !pairs(NI, NJ))
      return false;
    Rows = Saved;
    Unordered[I] |= uint32_t(1) << J;
    Unordered[J] |= uint32_t(1) << I;
    bool Go = pairs(NI, NJ);
    Unordered[I] &= ~(uint32_t(1) << J);
    Unordered[J] &= ~(uint32_t(1) << I);
    return Go;
  }
};

/// Whether two placements are in one CTA.
bool sameCta(const litmus::Placement &A, const litmus::Placement &B) {
  return A.Device == B.Device && A.Cluster == B.Cluster && A.CTA == B.CTA;
}

} // namespace

namespace incant::model {

class CandidateEnumerator {
public:
  CandidateEnumerator(const litmus::Program &P, const CheckOptions &Opts,
                      const CandidateShape &Shape,
                      const std::function<bool(const Candidate &)> &Visit)
      : P(P), Opts(Opts), Shape(Shape), Visit(Visit) {}

  EnumerationStats run();

private:
  const litmus::Program &P;
  const CheckOptions &Opts;
  const CandidateShape &Shape;
  const std::function<bool(const Candidate &)> &Visit;
  EnumerationStats Stats;
  bool Stop = false;
  TraceSet TS;
  /// Per thread: the (instance, id) pairs of the barriers its code names
  /// with an integer id (or none); the thread takes part in those.
  std::vector<std::set<std::pair<int32_t, int64_t>>> StaticBarriers;

  // The current trace combination.
  std::vector<const Trace *> Chosen;
  CombinationLayout L;
  std::vector<int32_t> Reads;                  ///< Read events.
  std::vector<std::vector<int32_t>> RfCands;   ///< Per entry of Reads.
  std::vector<std::vector<int32_t>> LocWrites; ///< Non-init writes per physical location.
  std::vector<int32_t> CoLocs;                 ///< Physical locations with >= 2 of them.

  /// One barrier phase: the k-th barrier with one (instance, id) of the
  /// threads of one CTA.
  struct Phase {
    std::vector<unsigned> Members; ///< Barrier events.
    std::vector<unsigned> Mandatory; ///< Members that synchronize whatever the quorum.
    int64_t Quorum = -1;
  };
  std::vector<Phase> Phases;
  std::vector<std::vector<unsigned>> SyncSet; ///< Per phase: members that synchronize.
  std::vector<unsigned> ScFences;
  Relation SyncBar, SyncFence;
  Primitives Prims;

  // The current candidate.
  std::vector<size_t> RfChoice;
  std::vector<int32_t> Rf; ///< Per event: the write a read reads from, else -1.
  std::vector<std::vector<uint32_t>> CoRows; ///< Per entry of CoLocs.
  Relation Co;
  std::vector<Value> FinalLocs;
  std::vector<std::vector<Value>> FinalOptions;

  void forEachCombination(size_t Thread);
  bool setUpCombination();
  bool setUpBarriers();
  void forEachSyncSet(size_t Phase);
  void forEachFenceOrder();
  void setUpChoice();
  void forEachRf(size_t I);
  void forEachCo(size_t I);
  void visitCandidate();
};

} // namespace incant::model

void Candidate::forEachFinalState(const std::function<void()> &F) const {
  std::vector<size_t> Pick(FinalOptions->size(), 0);
  while (true) {
    for (size_t L = 0; L != Pick.size(); ++L)
      if (!(*FinalOptions)[L].empty())
        (*FinalLocs)[L] = (*FinalOptions)[L][Pick[L]];
    F();
    size_t L = 0;
    for (; L != Pick.size(); ++L) {
      if (++Pick[L] < (*FinalOptions)[L].size())
        break;
      Pick[L] = 0;
    }
    if (L == Pick.size())
      return;
  }
}

EnumerationStats CandidateEnumerator::run() {
  TraceOptions TO;
  TO.Unroll = Opts.Unroll;
  TS = computeTraces(P, TO);
  Stats.Incomplete = TS.Incomplete;
  StaticBarriers.assign(P.Threads.size(), {});
  for (size_t T = 0; T != P.Threads.size(); ++T)
    for (const litmus::Op &O : P.Threads[T].Ops)
      if (O.K == litmus::Op::Kind::Barrier && O.BarrierIdReg < 0)
        StaticBarriers[T].insert({O.BarrierInstance, O.BarrierId});
  Chosen.assign(P.Threads.size(), nullptr);
  for (const std::vector<Trace> &Ts : TS.Threads)
    if (Ts.empty())
      return Stats; // a thread with no valid trace: no execution at all
  forEachCombination(0);
  return Stats;
}

void CandidateEnumerator::forEachCombination(size_t Thread) {
  if (Thread == P.Threads.size()) {
    if (setUpCombination() && setUpBarriers())
      forEachSyncSet(0);
    return;
  }
  for (const Trace &T : TS.Threads[Thread]) {
    if (Stop)
      return;
    Chosen[Thread] = &T;
    forEachCombination(Thread + 1);
  }
}

bool CandidateEnumerator::setUpCombination() {
  size_t NumLocs = P.Locs.size();
  L.Events.clear();
  L.ThreadOf.clear();
  L.InitLoc.clear();
  L.InitOf.assign(NumLocs, -1);
  L.Base.assign(P.Threads.size(), 0);
  for (size_t Loc = 0; Loc < NumLocs; ++Loc) {
    int32_t Phys = P.Locs[Loc].phys(int32_t(Loc));
    if (Phys != int32_t(Loc))
      continue;
    L.InitOf[Loc] = int32_t(L.Events.size());
    L.InitLoc.push_back(int32_t(Loc));
    L.Events.push_back({-1, nullptr});
    L.ThreadOf.push_back(-1);
  }
  L.NumInits = unsigned(L.Events.size());
  for (size_t Loc = 0; Loc < NumLocs; ++Loc)
    L.InitOf[Loc] = L.InitOf[size_t(P.Locs[Loc].phys(int32_t(Loc)))];
  for (size_t T = 0; T < Chosen.size(); ++T) {
    L.Base[T] = int32_t(L.Events.size());
    for (const Event &E : Chosen[T]->Events) {
      L.Events.push_back({int32_t(T), &E});
      L.ThreadOf.push_back(int32_t(T));
    }
  }
  // Writes per location, reads and their rf candidates.
  LocWrites.assign(NumLocs, {});
  Reads.clear();
  for (size_t E = L.NumInits; E < L.Events.size(); ++E) {
    const Event &Ev = *L.Events[E].E;
    if (Ev.K == EventKind::Write)
      LocWrites[size_t(Ev.Loc)].push_back(int32_t(E));
    else if (Ev.K == EventKind::Read)
      Reads.push_back(int32_t(E));
  }
  RfCands.assign(Reads.size(), {});
  for (size_t I = 0; I < Reads.size(); ++I) {
    const Event &R = *L.Events[size_t(Reads[I])].E;
    if (P.Locs[size_t(R.Loc)].Init == R.V)
      RfCands[I].push_back(L.InitOf[size_t(R.Loc)]);
    for (int32_t W : LocWrites[size_t(R.Loc)])
      if (L.Events[size_t(W)].E->V == R.V)
        RfCands[I].push_back(W);
    if (RfCands[I].empty())
      return false; // some read can read from nothing: no candidate (exact)
  }
  CoLocs.clear();
  for (size_t Loc = 0; Loc < NumLocs; ++Loc)
    if (LocWrites[Loc].size() >= 2)
      CoLocs.push_back(int32_t(Loc));
  return true;
}

/// Groups the barrier events into phases and finds the ones that hang.
bool CandidateEnumerator::setUpBarriers() {
  Phases.clear();
  using Key = std::tuple<int32_t, int32_t, int32_t, int32_t, int64_t, int32_t>;
  std::map<Key, size_t> Index;
  // (CTA, instance, id) -> the threads that met a barrier of it.
  std::map<std::tuple<int32_t, int32_t, int32_t, int32_t, int64_t>,
           std::set<int32_t>>
      Met;
  for (size_t E = L.NumInits; E < L.Events.size(); ++E) {
    const Event &Ev = *L.Events[E].E;
    if (Ev.K != EventKind::Barrier)
      continue;
    const litmus::Placement &W = P.Threads[size_t(L.ThreadOf[E])].Where;
    Key K{W.Device, W.Cluster, W.CTA, Ev.BarrierInstance, Ev.BarrierId,
          Ev.BarrierCount};
    auto [It, New] = Index.try_emplace(K, Phases.size());
    if (New)
      Phases.emplace_back();
    Phase &Ph = Phases[It->second];
    Ph.Members.push_back(unsigned(E));
    if (Ev.Quorum >= 0)
      Ph.Quorum = std::max(Ph.Quorum, Ev.Quorum);
    else
      Ph.Mandatory.push_back(unsigned(E));
    Met[{W.Device, W.Cluster, W.CTA, Ev.BarrierInstance, Ev.BarrierId}]
        .insert(L.ThreadOf[E]);
  }
  for (auto &[K, I] : Index) {
    const Phase &Ph = Phases[I];
    auto [Dev, Clu, Cta, Inst, Id, Count] = K;
    if (Ph.Quorum >= 0) {
      // A quorum larger than the threads that arrive: they all wait.
      if (Ph.Quorum > int64_t(Ph.Members.size()))
        return false;
      continue;
    }
    // Without a quorum every thread of the CTA that takes part must arrive:
    // one that names this barrier in its code or met it in this run.
    litmus::Placement Here{Dev, Clu, Cta, 0};
    const std::set<int32_t> &Arrived = Met[{Dev, Clu, Cta, Inst, Id}];
    for (size_t T = 0; T != P.Threads.size(); ++T) {
      if (!sameCta(P.Threads[T].Where, Here))
        continue;
      if (!Arrived.count(int32_t(T)) && !StaticBarriers[T].count({Inst, Id}))
        continue;
      bool Reached = std::any_of(
          Ph.Members.begin(), Ph.Members.end(),
          [&](unsigned E) { return L.ThreadOf[E] == int32_t(T); });
      if (!Reached)
        return false; // the others wait for it forever
    }
  }
  SyncSet.assign(Phases.size(), {});
  return true;
}

/// With a quorum Q, any Q or more of the arriving threads synchronize
/// (Dat3M's semantics); the others pass without synchronizing.
void CandidateEnumerator::forEachSyncSet(size_t I) {
  if (Stop)
    return;
  if (I == Phases.size()) {
    forEachFenceOrder();
    return;
  }
  const Phase &Ph = Phases[I];
  if (Ph.Quorum < 0) {
    SyncSet[I] = Ph.Members;
    forEachSyncSet(I + 1);
    return;
  }
  size_t M = Ph.Members.size();
  assert(M < 32 && "too many barrier events in one phase");
  for (uint32_t Mask = 0; Mask < (uint32_t(1) << M) && !Stop; ++Mask) {
    std::vector<unsigned> S;
    for (size_t J = 0; J != M; ++J)
      if (Mask >> J & 1)
        S.push_back(Ph.Members[J]);
    bool HasMandatory = std::all_of(
        Ph.Mandatory.begin(), Ph.Mandatory.end(), [&](unsigned E) {
          return std::find(S.begin(), S.end(), E) != S.end();
        });
    if (!HasMandatory || int64_t(S.size()) < Ph.Quorum)
      continue;
    SyncSet[I] = std::move(S);
    forEachSyncSet(I + 1);
  }
}

/// The Fence-SC order, when the model reads it: every acyclic orientation
/// of the pairs of fence.sc (and membar) events each in the other's scope,
/// as the restrictions of the orders of all those fences.
void CandidateEnumerator::forEachFenceOrder() {
  unsigned N = unsigned(L.Events.size());
  SyncBar = Relation(N);
  for (size_t I = 0; I != Phases.size(); ++I)
    for (unsigned A : SyncSet[I])
      for (unsigned B : Phases[I].Members)
        if (!L.Events[B].E->Arrive)
          SyncBar.insert(A, B);
  SyncFence = Relation(N);
  ScFences.clear();
  if (Shape.FenceSCOrder)
    for (unsigned E = L.NumInits; E < N; ++E) {
      const Event &Ev = *L.Events[E].E;
      if (Ev.K == EventKind::Fence && (Ev.Fence == litmus::FenceKind::FenceSC ||
                                       Ev.Fence == litmus::FenceKind::Membar))
        ScFences.push_back(E);
    }
  if (ScFences.size() < 2) {
    setUpChoice();
    return;
  }
  // The pairs that the order relates: both in each other's scope.
  auto Level = [&](const Event &Ev) {
    switch (Ev.Sc) {
    case litmus::Scope::CTA: return 1;
    case litmus::Scope::Cluster: return 2;
    case litmus::Scope::GPU: return 3;
    default: return 4;
    }
  };
  auto Includes = [&](unsigned F, unsigned Other) {
    const litmus::Placement &A = P.Threads[size_t(L.ThreadOf[F])].Where;
    const litmus::Placement &B = P.Threads[size_t(L.ThreadOf[Other])].Where;
    switch (Level(*L.Events[F].E)) {
    case 1: return sameCta(A, B);
    case 2: return A.Device == B.Device && A.Cluster == B.Cluster;
    case 3: return A.Device == B.Device;
    default: return true;
    }
  };
  size_t K = ScFences.size();
  if (K > 8) {
    Stats.Incomplete = true; // 8! orders at most
    K = 8;
  }
  std::vector<std::pair<unsigned, unsigned>> Pairs;
  for (size_t I = 0; I != K; ++I)
    for (size_t J = I + 1; J != K; ++J)
      if (Includes(ScFences[I], ScFences[J]) &&
          Includes(ScFences[J], ScFences[I]))
        Pairs.push_back({unsigned(I), unsigned(J)});
  std::set<std::vector<bool>> Seen;
  std::vector<unsigned> Perm(K), Pos(K);
  for (unsigned I = 0; I != K; ++I)
    Perm[I] = I;
  do {
    for (unsigned I = 0; I != K; ++I)
      Pos[Perm[I]] = I;
    std::vector<bool> Dir;
    for (auto [A, B] : Pairs)
      Dir.push_back(Pos[A] < Pos[B]);
    if (!Seen.insert(Dir).second)
      continue;
    SyncFence = Relation(N);
    for (size_t Q = 0; Q != Pairs.size(); ++Q) {
      unsigned A = ScFences[Pairs[Q].first], B = ScFences[Pairs[Q].second];
      if (Dir[Q])
        SyncFence.insert(A, B);
      else
        SyncFence.insert(B, A);
    }
    setUpChoice();
  } while (!Stop && std::next_permutation(Perm.begin(), Perm.end()));
}

void CandidateEnumerator::setUpChoice() {
  Prims.setUpCombination(P, L, Chosen, SyncBar, SyncFence);
  forEachRf(0);
}

void CandidateEnumerator::forEachRf(size_t I) {
  if (I == 0) {
    RfChoice.assign(Reads.size(), 0);
    Rf.assign(L.Events.size(), -1);
  }
  if (I == Reads.size()) {
    CoRows.assign(CoLocs.size(), {});
    forEachCo(0);
    return;
  }
  for (int32_t W : RfCands[I]) {
    if (Stop)
      return;
    Rf[size_t(Reads[I])] = W;
    forEachRf(I + 1);
  }
}

void CandidateEnumerator::forEachCo(size_t I) {
  if (I == CoLocs.size()) {
    visitCandidate();
    return;
  }
  unsigned K = unsigned(LocWrites[size_t(CoLocs[I])].size());
  if (K > 32) {
    Stats.Incomplete = true;
    return;
  }
  std::function<bool(const std::vector<uint32_t> &)> F =
      [&](const std::vector<uint32_t> &Rows) {
        CoRows[I] = Rows;
        forEachCo(I + 1);
        return !Stop;
      };
  OrderEnumerator(K, Shape.PartialCoherence, F).run();
}

void CandidateEnumerator::visitCandidate() {
  if (Opts.MaxCandidates && Stats.Candidates >= Opts.MaxCandidates) {
    Stats.Incomplete = true;
    Stop = true;
    return;
  }
  ++Stats.Candidates;
  size_t NumLocs = P.Locs.size();
  unsigned N = unsigned(L.Events.size());
  if (Co.size() != N)
    Co = Relation(N);
  else
    for (unsigned A = 0; A < N; ++A)
      std::fill(Co.row(A), Co.row(A) + Co.wordsPerRow(), 0);
  FinalLocs.assign(NumLocs, Value{});
  FinalOptions.assign(NumLocs, {});
  size_t CoIdx = 0;
  for (size_t Loc = 0; Loc < NumLocs; ++Loc) {
    FinalLocs[Loc] = P.Locs[Loc].Init;
    const std::vector<int32_t> &Ws = LocWrites[Loc];
    if (Ws.empty())
      continue;
    int32_t Init = L.InitOf[Loc];
    for (int32_t W : Ws)
      Co.insert(unsigned(Init), unsigned(W));
    if (Ws.size() == 1) {
      FinalLocs[Loc] = L.Events[size_t(Ws[0])].E->V;
      continue;
    }
    assert(CoIdx < CoLocs.size() && CoLocs[CoIdx] == int32_t(Loc));
    const std::vector<uint32_t> &Rows = CoRows[CoIdx++];
    std::vector<Value> Last;
    for (size_t A = 0; A != Ws.size(); ++A) {
      for (size_t B = 0; B != Ws.size(); ++B)
        if (Rows[A] >> B & 1)
          Co.insert(unsigned(Ws[A]), unsigned(Ws[B]));
      if (Rows[A] == 0) {
        Value V = L.Events[size_t(Ws[A])].E->V;
        if (std::find(Last.begin(), Last.end(), V) == Last.end())
          Last.push_back(V);
      }
    }
    FinalLocs[Loc] = Last.front();
    if (Last.size() > 1)
      FinalOptions[Loc] = std::move(Last);
  }
  Prims.setCandidate(Rf, Co);
  Candidate C;
  C.X = &Prims.execution();
  C.Prog = &P;
  C.Events = &L.Events;
  C.Traces = &Chosen;
  C.Rf = &Rf;
  C.FinalLocs = &FinalLocs;
  C.FinalOptions = &FinalOptions;
  if (!Visit(C))
    Stop = true;
}

EnumerationStats
model::forEachCandidate(const litmus::Program &P, const CheckOptions &Opts,
                        const CandidateShape &Shape,
                        const std::function<bool(const Candidate &)> &Visit) {
  return CandidateEnumerator(P, Opts, Shape, Visit).run();
}
