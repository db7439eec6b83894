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
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

using namespace incant;
using namespace incant::model;
using cat::Relation;
using litmus::Value;

namespace {

/// Whether two placements are in one CTA.
/// The barrier instance of barrier.cluster's events (Lower.cpp).
constexpr int32_t ClusterBarrierInstance = -2;

bool sameCta(const litmus::Placement &A, const litmus::Placement &B) {
  return A.Device == B.Device && A.Cluster == B.Cluster && A.CTA == B.CTA;
}

} // namespace

namespace incant::model {

class CandidateEnumerator {
public:
  CandidateEnumerator(const litmus::Program &P, const CheckOptions &Opts,
                      const CandidateShape &Shape,
                      const std::function<bool(const Candidate &)> &Visit,
                      CandidatePruner *Pruner, Primitives &Prims)
      : P(P), Opts(Opts), Shape(Shape), Visit(Visit), Pruner(Pruner),
        Prims(Prims) {}

  EnumerationStats run();

private:
  const litmus::Program &P;
  const CheckOptions &Opts;
  const CandidateShape &Shape;
  const std::function<bool(const Candidate &)> &Visit;
  CandidatePruner *Pruner;
  Primitives &Prims;
  EnumerationStats Stats;
  bool Stop = false;
  TraceSet TS;
  /// Per thread: the (instance, id) pairs of the barriers its code names
  /// with an integer id (or none); the thread takes part in those.
  std::vector<std::set<std::pair<int32_t, int64_t>>> StaticBarriers;
  /// Per thread and trace: bit masks (PairWords words each) over the
  /// (location, value) pairs it writes, and over those its reads need that
  /// are not the location's initial value; the traces grouped by those two
  /// masks (GroupWrites/GroupNeeds per group, GroupTraces its traces), so
  /// that a combination's test is made once per group.
  unsigned PairWords = 0;
  std::vector<std::vector<uint64_t>> TraceWrites, TraceNeeds;
  std::vector<std::vector<uint64_t>> GroupWrites, GroupNeeds;
  std::vector<std::vector<std::vector<uint32_t>>> GroupTraces;
  /// LaterMay[t]: the pairs some trace of thread t or after writes.
  std::vector<std::vector<uint64_t>> LaterMay;
  /// Per thread: the pairs the traces chosen up to it write and need.
  std::vector<std::vector<uint64_t>> WrittenUpTo, NeededUpTo;
  std::chrono::steady_clock::time_point Start;

  /// Counts a step; false (and Stop set) once a limit of Opts is reached.
  bool step();
  /// Reads the clock: false (and Stop set) past Opts.TimeLimit.
  bool pollClock();
  /// Partial trace combinations tried (not steps: most are dropped by a
  /// mask test); the clock is read every 4096 of them, as two threads of
  /// 2^16 traces each make 2^32 of them.
  uint64_t Partial = 0;
  void stopBy(std::string Reason) {
    Stats.Incomplete = Stats.StoppedByCaller = Stop = true;
    Stats.Reason = std::move(Reason);
  }

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
  /// Pairs (indices into ScFences) of fences each in the other's scope;
  /// FenceRows[a]: the fences after fence a in the order being chosen.
  std::vector<std::pair<unsigned, unsigned>> FencePairs;
  std::vector<uint32_t> FenceRows;
  bool FenceFound = false; ///< An order the model allows was visited.
  Relation SyncBar, SyncFence;

  // The current candidate.
  std::vector<int32_t> Rf; ///< Per event: the write a read reads from, else -1.
  /// Coherence being chosen, per entry of CoLocs: Rows[a] the writes after
  /// write a (closed transitively), Unordered[a] those decided unordered.
  std::vector<std::vector<uint32_t>> CoRows, CoUnordered;
  /// The pairs (entry of CoLocs, a, b) to decide, in order.
  std::vector<std::tuple<unsigned, unsigned, unsigned>> CoPairs;
  bool PruneLower = false, PruneUpper = false;
  /// Coherence first (chosen by setUpChoice where the rf choices
  /// outnumber the coherence orders): each location's writes are placed
  /// one after another in an order that extends coherence, and the read of
  /// an atomic's write chooses its rf as soon as the write is placed; the
  /// other reads choose theirs once co is whole. With total coherence the
  /// pruner sees co at its least: the placed writes in order, each before
  /// every write not placed yet. With partial coherence each write placed
  /// chooses which placed writes precede it (a downward-closed set), and a
  /// partial order is reached once, by its least linear extension (at each
  /// step, the least-numbered write that nothing unplaced precedes); the
  /// pruner sees the edges decided (a subset) and those plus every pair that
  /// can still be added (a superset), and an atomic's read whose source is
  /// not placed yet waits for it (Deferred).
  bool CoFirst = false, CoPartial = false;
  /// Which bounds the pruner can refute with: rf and co at their least;
  /// rf at its least and co at its most; both at their most.
  bool PruneCoLower = false, PruneCoMixed = false, PruneCoUpper = false;
  /// Per entry of CoLocs: the writes not placed yet (bit per LocWrites
  /// index); per write, the entry of Reads of its atomic's read (-1 none),
  /// when it was placed and the last step at which a later-numbered write
  /// was placed before it (-1 none; it needs a predecessor placed after).
  std::vector<uint32_t> CoUnplaced;
  std::vector<std::vector<int32_t>> CoRmwRead, PlacedAt, LastSkip;
  /// Per event: entry of CoLocs * 32 + LocWrites index (-1: not such a write).
  std::vector<int32_t> WriteSlot;
  /// Per entry of CoLocs and write: the writes the model orders with it
  /// one way or the other in every execution it allows (partial coherence;
  /// CandidatePruner::coherenceOrdered): placed first, it precedes them.
  std::vector<std::vector<uint32_t>> MustOrder;
  /// The entries of Reads chosen once co is whole; per entry of Reads, the
  /// writes (bits of CoLocs[DeferC[I]]'s) not placed yet that it may still
  /// read from while it waits for its source (0: it does not wait).
  std::vector<unsigned> LateReads;
  std::vector<uint32_t> DeferredOn;
  std::vector<unsigned> DeferC;
  /// The write being placed (partial) and the placed writes not yet
  /// decided before or unordered with it.
  unsigned CurC = 0, CurB = 0;
  uint32_t CurPending = 0;
  Relation RfUpper;
  /// rf is chosen read by read; between reads the pruner sees the reads
  /// chosen so far with co at its least (initial writes first) and at its
  /// most (every pair both ways).
  bool PruneRfLower = false, PruneRfUpper = false;
  /// The pruner's answer on the level-0 primitives of the last choice.
  bool Level0Known = false, Level0Admits = false;
  Relation Co;
  std::vector<Value> FinalLocs;
  std::vector<std::vector<Value>> FinalOptions;

  void indexValues();
  void forEachCombination(size_t Thread);
  bool setUpCombination();
  bool setUpBarriers();
  void forEachSyncSet(size_t Phase);
  void forEachFenceOrder();
  static void clear(Relation &R, unsigned N);
  void buildSyncFence();
  void decideFence(size_t Pair);
  /// \p R emptied (sync_fence is empty while rf and co are chosen: a
  /// lower bound).
  Relation &Empty(Relation &R) {
    clear(R, unsigned(L.Events.size()));
    return R;
  }
  void setUpChoice();
  bool preferCoFirst(uint64_t RfChoices) const;
  void startCoFirst();
  bool placed(int32_t W) const;
  enum class Bounds { Lower, Mixed, Upper };
  bool coFirstRefuted(Bounds Which);
  void buildRfUpper();
  void buildCoUpper();
  void placeCo(size_t C);
  void choosePred(unsigned C, unsigned B, uint32_t Pending);
  void placeOwnRead(unsigned C, unsigned B);
  void resolveDeferred(unsigned C, unsigned B, size_t From);
  void forEachLateRf(size_t I);
  void coFirstCandidate();
  void visitWithFenceOrders();
  void forEachRf(size_t I);
  bool rfRefuted();
  void startCo();
  void decideCo(size_t Pair);
  bool addCoEdge(unsigned C, unsigned A, unsigned B);
  void buildCo(bool Upper);
  void visitCandidate();
};

} // namespace incant::model

void Candidate::forEachFinalState(const std::function<void()> &F) const {
  // One final state (coherence total, or one co-last value per location):
  // no choice to step through.
  if (std::all_of(FinalOptions->begin(), FinalOptions->end(),
                  [](const std::vector<litmus::Value> &O) { return O.empty(); })) {
    F();
    return;
  }
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

bool CandidateEnumerator::step() {
  ++Stats.Steps;
  if (Opts.MaxSteps && Stats.Steps > Opts.MaxSteps) {
    --Stats.Steps;
    stopBy("stopped after " + std::to_string(Opts.MaxSteps) +
           " steps (trace combinations, rf, co and Fence-SC choices, and "
           "candidate executions)");
    return false;
  }
  // The clock is read every 1024 steps (a step takes 0.1 to 100 us).
  if ((Stats.Steps & 1023) != 0)
    return true;
  if (Opts.Progress)
    Opts.Progress(Stats.Steps, Stats.Candidates);
  return pollClock();
}

bool CandidateEnumerator::pollClock() {
  if (Opts.TimeLimit > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
              .count() >= Opts.TimeLimit) {
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), "%gs", Opts.TimeLimit);
    stopBy(std::string("stopped at the time limit of ") + Buf);
    return false;
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
  StaticBarriers.assign(P.Threads.size(), {});
  for (size_t T = 0; T != P.Threads.size(); ++T)
    for (const litmus::Op &O : P.Threads[T].Ops)
      if (O.K == litmus::Op::Kind::Barrier && O.BarrierIdReg < 0)
        StaticBarriers[T].insert({O.BarrierInstance, O.BarrierId});
  Chosen.assign(P.Threads.size(), nullptr);
  Prims.setUpTest(P);
  for (const std::vector<Trace> &Ts : TS.Threads)
    if (Ts.empty())
      return Stats; // a thread with no valid trace: no execution at all
  indexValues();
  forEachCombination(0);
  return Stats;
}

/// A read of a value other than its location's initial one needs a write
/// of that value in some thread's trace: masks of such (location, value)
/// pairs let forEachCombination drop a partial combination as soon as a
/// need can no longer be met, before laying its events out.
void CandidateEnumerator::indexValues() {
  std::map<std::pair<int32_t, Value>, uint32_t> Ids;
  for (const std::vector<Trace> &Ts : TS.Threads)
    for (const Trace &T : Ts)
      for (const Event &E : T.Events)
        if (E.K == EventKind::Write ||
            (E.K == EventKind::Read && P.Locs[size_t(E.Loc)].Init != E.V))
          Ids.try_emplace({E.Loc, E.V}, uint32_t(Ids.size()));
  PairWords = unsigned((Ids.size() + 63) / 64);
  size_t NT = P.Threads.size();
  TraceWrites.assign(NT, {});
  TraceNeeds.assign(NT, {});
  for (size_t T = 0; T != NT; ++T) {
    const std::vector<Trace> &Ts = TS.Threads[T];
    TraceWrites[T].assign(Ts.size() * PairWords, 0);
    TraceNeeds[T].assign(Ts.size() * PairWords, 0);
    for (size_t I = 0; I != Ts.size(); ++I)
      for (const Event &E : Ts[I].Events) {
        bool Write = E.K == EventKind::Write;
        if (!Write && (E.K != EventKind::Read ||
                       P.Locs[size_t(E.Loc)].Init == E.V))
          continue; // the initial write serves such a read
        auto It = Ids.find({E.Loc, E.V});
        std::vector<uint64_t> &M = Write ? TraceWrites[T] : TraceNeeds[T];
        M[I * PairWords + It->second / 64] |= uint64_t(1) << (It->second % 64);
      }
  }
  GroupWrites.assign(NT, {});
  GroupNeeds.assign(NT, {});
  GroupTraces.assign(NT, {});
  for (size_t T = 0; T != NT; ++T) {
    std::map<std::vector<uint64_t>, size_t> Index;
    for (size_t I = 0; I != TS.Threads[T].size(); ++I) {
      auto W = TraceWrites[T].begin() + ptrdiff_t(I * PairWords);
      auto N = TraceNeeds[T].begin() + ptrdiff_t(I * PairWords);
      std::vector<uint64_t> Key(W, W + PairWords);
      Key.insert(Key.end(), N, N + PairWords);
      auto [It, New] = Index.try_emplace(Key, GroupTraces[T].size());
      if (New) {
        GroupWrites[T].insert(GroupWrites[T].end(), W, W + PairWords);
        GroupNeeds[T].insert(GroupNeeds[T].end(), N, N + PairWords);
        GroupTraces[T].emplace_back();
      }
      GroupTraces[T][It->second].push_back(uint32_t(I));
    }
  }
  LaterMay.assign(NT + 1, std::vector<uint64_t>(PairWords, 0));
  for (size_t T = NT; T-- > 0;) {
    LaterMay[T] = LaterMay[T + 1];
    for (size_t I = 0; I != TS.Threads[T].size(); ++I)
      for (unsigned K = 0; K != PairWords; ++K)
        LaterMay[T][K] |= TraceWrites[T][I * PairWords + K];
  }
  WrittenUpTo.assign(NT, std::vector<uint64_t>(PairWords, 0));
  NeededUpTo.assign(NT, std::vector<uint64_t>(PairWords, 0));
}

void CandidateEnumerator::forEachCombination(size_t Thread) {
  if (Thread == P.Threads.size()) {
    if (step() && setUpCombination() && setUpBarriers())
      forEachSyncSet(0);
    return;
  }
  uint64_t *Written = WrittenUpTo[Thread].data();
  uint64_t *Needed = NeededUpTo[Thread].data();
  const uint64_t *Later = LaterMay[Thread + 1].data();
  for (size_t G = 0; G != GroupTraces[Thread].size(); ++G) {
    if (Stop || ((++Partial & 4095) == 0 && !pollClock()))
      return;
    // Every need of the traces chosen so far is written by one of them or
    // may be by a later thread's trace.
    const uint64_t *W = &GroupWrites[Thread][G * PairWords];
    const uint64_t *N = &GroupNeeds[Thread][G * PairWords];
    bool Met = true;
    for (unsigned K = 0; K != PairWords; ++K) {
      Written[K] = W[K] | (Thread ? WrittenUpTo[Thread - 1][K] : 0);
      Needed[K] = N[K] | (Thread ? NeededUpTo[Thread - 1][K] : 0);
      Met &= (Needed[K] & ~(Written[K] | Later[K])) == 0;
    }
    if (!Met)
      continue;
    for (uint32_t I : GroupTraces[Thread][G]) {
      if (Stop || ((++Partial & 4095) == 0 && !pollClock()))
        return;
      Chosen[Thread] = &TS.Threads[Thread][I];
      forEachCombination(Thread + 1);
    }
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
  // Writes per location, reads and their rf candidates (the vectors kept
  // from one combination to the next: a test of many small combinations
  // spent a tenth of its time allocating them).
  LocWrites.resize(NumLocs);
  for (std::vector<int32_t> &Ws : LocWrites)
    Ws.clear();
  Reads.clear();
  for (size_t E = L.NumInits; E < L.Events.size(); ++E) {
    const Event &Ev = *L.Events[E].E;
    if (Ev.K == EventKind::Write)
      LocWrites[size_t(Ev.Loc)].push_back(int32_t(E));
    else if (Ev.K == EventKind::Read)
      Reads.push_back(int32_t(E));
  }
  RfCands.resize(Reads.size());
  for (std::vector<int32_t> &Cs : RfCands)
    Cs.clear();
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
    // barrier.cluster (instance -2) meets over the whole cluster: CTA -1.
    int32_t Cta = Ev.BarrierInstance == ClusterBarrierInstance ? -1 : W.CTA;
    Key K{W.Device, W.Cluster, Cta, Ev.BarrierInstance, Ev.BarrierId,
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
    Met[{W.Device, W.Cluster, Cta, Ev.BarrierInstance, Ev.BarrierId}]
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
      const litmus::Placement &TW = P.Threads[T].Where;
      if (Cta < 0 ? TW.Device != Dev || TW.Cluster != Clu
                  : !sameCta(TW, Here))
        continue;
      // Every thread of the cluster takes part in barrier.cluster.
      if (Cta >= 0 && !Arrived.count(int32_t(T)) &&
          !StaticBarriers[T].count({Inst, Id}))
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

/// Barrier synchronization from the phases' synchronizing sets, and the
/// fence.sc (and membar) events whose Fence-SC order the model reads, with
/// the pairs of them that are each in the other's scope.
void CandidateEnumerator::forEachFenceOrder() {
  unsigned N = unsigned(L.Events.size());
  clear(SyncBar, N);
  for (size_t I = 0; I != Phases.size(); ++I)
    for (unsigned A : SyncSet[I])
      for (unsigned B : Phases[I].Members)
        if (!L.Events[B].E->Arrive)
          SyncBar.insert(A, B);
  ScFences.clear();
  FencePairs.clear();
  if (Shape.FenceSCOrder)
    for (unsigned E = L.NumInits; E < N; ++E) {
      const Event &Ev = *L.Events[E].E;
      if (Ev.K == EventKind::Fence && (Ev.Fence == litmus::FenceKind::FenceSC ||
                                       Ev.Fence == litmus::FenceKind::Membar))
        ScFences.push_back(E);
    }
  if (ScFences.size() > 32) {
    Stats.Incomplete = true;
    Stats.Reason = "more than 32 fence.sc in one execution: the Fence-SC "
                   "order of the others is not guessed";
    ScFences.resize(32);
  }
  auto Includes = [&](unsigned F, unsigned Other) {
    const litmus::Placement &A = P.Threads[size_t(L.ThreadOf[F])].Where;
    const litmus::Placement &B = P.Threads[size_t(L.ThreadOf[Other])].Where;
    switch (L.Events[F].E->Sc) {
    case litmus::Scope::CTA: return sameCta(A, B);
    case litmus::Scope::Cluster:
      return A.Device == B.Device && A.Cluster == B.Cluster;
    case litmus::Scope::GPU: return A.Device == B.Device;
    default: return true;
    }
  };
  // Each fence against the ones before it, nearest first (as coherence).
  for (unsigned B = 1; B < ScFences.size(); ++B)
    for (unsigned A = B; A-- > 0;)
      if (Includes(ScFences[A], ScFences[B]) &&
          Includes(ScFences[B], ScFences[A]))
        FencePairs.push_back({A, B});
  setUpChoice();
}

void CandidateEnumerator::clear(Relation &R, unsigned N) {
  if (R.size() != N)
    R = Relation(N);
  else
    R.clear();
}

/// sync_fence from the decided orientations: FenceRows closed transitively,
/// restricted to the pairs in each other's scope.
void CandidateEnumerator::buildSyncFence() {
  clear(SyncFence, unsigned(L.Events.size()));
  for (auto [A, B] : FencePairs) {
    if (FenceRows[A] >> B & 1)
      SyncFence.insert(ScFences[A], ScFences[B]);
    else if (FenceRows[B] >> A & 1)
      SyncFence.insert(ScFences[B], ScFences[A]);
  }
}

/// The Fence-SC order is chosen last, once rf and co are (the model's
/// relations grow with it, so a partial order refutes early): every acyclic
/// orientation of FencePairs, pair by pair, each reached once.
void CandidateEnumerator::decideFence(size_t Pair) {
  if (Stop || !step())
    return;
  while (Pair < FencePairs.size()) {
    auto [A, B] = FencePairs[Pair];
    if (!(FenceRows[A] >> B & 1) && !(FenceRows[B] >> A & 1))
      break;
    ++Pair; // fixed by transitivity
  }
  if (Pair == FencePairs.size()) {
    buildSyncFence();
    Prims.setSyncFence(SyncFence);
    if (Pruner && !Pruner->admits(Prims.execution(), 3))
      return; // try another order
    FenceFound = true;
    visitCandidate();
    return;
  }
  auto [A, B] = FencePairs[Pair];
  std::vector<uint32_t> Saved = FenceRows;
  for (int Choice = 0; Choice != 2 && !Stop && !(Pruner && FenceFound);
       ++Choice) {
    unsigned From = Choice == 0 ? A : B, To = Choice == 0 ? B : A;
    uint32_t Succ = (uint32_t(1) << To) | FenceRows[To];
    for (unsigned X = 0; X != FenceRows.size(); ++X)
      if (X == From || (FenceRows[X] >> From & 1))
        FenceRows[X] |= Succ;
    bool Refuted = false;
    if (Pruner && Pair + 1 < FencePairs.size()) {
      buildSyncFence();
      Prims.setSyncFence(SyncFence);
      Refuted = Pruner->refutes(Prims.execution(), 3, 0);
    }
    if (!Refuted)
      decideFence(Pair + 1);
    FenceRows = Saved;
  }
}

void CandidateEnumerator::setUpChoice() {
  clear(SyncFence, unsigned(L.Events.size()));
  bool Rebuilt = Prims.setUpCombination(P, L, Chosen, SyncBar, SyncFence);
  if (Pruner) {
    // The same level-0 primitives as the last choice's (combinations
    // that differ only in the values read): the same answer.
    const cat::Execution &X = Prims.execution();
    if (Rebuilt || !Level0Known ||
        (Level0Admits && !Pruner->keep(X, 0)))
      Level0Admits = Pruner->admits(X, 0);
    Level0Known = true;
    if (!Level0Admits)
      return; // the model forbids this choice whatever rf and co are
  }
  PruneRfLower = PruneRfUpper = false;
  // Pruning rf costs two evaluations per read: worth it only when the rf
  // choices are many.
  uint64_t RfChoices = 1;
  for (const std::vector<int32_t> &C : RfCands)
    RfChoices = std::min<uint64_t>(RfChoices * C.size(), 1u << 20);
  CoFirst = preferCoFirst(RfChoices);
  if (CoFirst) {
    startCoFirst();
    return;
  }
  if (Pruner && Reads.size() >= 2 && RfChoices > 16) {
    PruneRfLower = Pruner->canRefute(Prims.execution(), 1, 0);
    PruneRfUpper = Pruner->canRefute(Prims.execution(), 1, 1u << 2);
  }
  CoRows.assign(CoLocs.size(), {});
  CoUnordered.assign(CoLocs.size(), {});
  for (size_t C = 0; C != CoLocs.size(); ++C) {
    size_t K = LocWrites[size_t(CoLocs[C])].size();
    CoRows[C].assign(K, 0);
    CoUnordered[C].assign(K, 0);
  }
  forEachRf(0);
}

/// Whether the model forbids every completion of the reads chosen so far.
bool CandidateEnumerator::rfRefuted() {
  Prims.setRf(Rf);
  for (bool Upper : {false, true}) {
    if (!(Upper ? PruneRfUpper : PruneRfLower))
      continue;
    buildCo(Upper);
    Prims.setCo(Co);
    if (Pruner->refutes(Prims.execution(), 1, Upper ? 1u << 2 : 0))
      return true;
  }
  return false;
}

void CandidateEnumerator::forEachRf(size_t I) {
  if (Stop || !step())
    return;
  if (I == 0)
    Rf.assign(L.Events.size(), -1);
  if (I > 0 && I + 1 < Reads.size() && (PruneRfLower || PruneRfUpper) &&
      rfRefuted())
    return;
  if (I == Reads.size()) {
    Prims.setRf(Rf);
    if (Pruner && !Pruner->admits(Prims.execution(), 1))
      return;
    if (!CoLocs.empty() && (PruneRfLower || PruneRfUpper)) {
      if (rfRefuted())
        return; // no coherence order can complete this rf
      // The bounds replaced rf's level: staged again on rf itself.
      Prims.setRf(Rf);
      if (Pruner && !Pruner->admits(Prims.execution(), 1))
        return;
    }
    startCo();
    return;
  }
  for (int32_t W : RfCands[I]) {
    if (Stop)
      return;
    Rf[size_t(Reads[I])] = W;
    forEachRf(I + 1);
  }
  Rf[size_t(Reads[I])] = -1;
}

/// Coherence is chosen pair by pair (a before b, b before a, or, when it is
/// partial, neither), closing transitively; every total (partial) order is
/// reached once. Between decisions the pruner sees the edges decided so
/// far (a subset of every completion) and those plus every undecided pair
/// both ways (a superset).
void CandidateEnumerator::startCo() {
  CoRows.assign(CoLocs.size(), {});
  CoUnordered.assign(CoLocs.size(), {});
  CoPairs.clear();
  for (size_t C = 0; C != CoLocs.size(); ++C) {
    unsigned K = unsigned(LocWrites[size_t(CoLocs[C])].size());
    if (K > 32) {
      Stats.Incomplete = true;
      Stats.Reason = "more than 32 writes to one location in one execution: "
                     "its coherence orders are not enumerated";
      return;
    }
    CoRows[C].assign(K, 0);
    CoUnordered[C].assign(K, 0);
    // Each write in turn against the ones before it, nearest first: the
    // orders grow by insertion, and transitivity fixes most pairs.
    for (unsigned B = 1; B < K; ++B)
      for (unsigned A = B; A-- > 0;)
        CoPairs.push_back({unsigned(C), A, B});
  }
  if (Pruner && CoPairs.size() >= 2) {
    PruneLower = Pruner->canRefute(Prims.execution(), 2, 0);
    PruneUpper = Pruner->canRefute(Prims.execution(), 2, 1u << 2);
  } else {
    PruneLower = PruneUpper = false;
  }
  decideCo(0);
}

bool CandidateEnumerator::addCoEdge(unsigned C, unsigned A, unsigned B) {
  std::vector<uint32_t> &Rows = CoRows[C];
  const std::vector<uint32_t> &Un = CoUnordered[C];
  uint32_t Succ = (uint32_t(1) << B) | Rows[B];
  for (unsigned X = 0; X != Rows.size(); ++X)
    if (X == A || (Rows[X] >> A & 1)) {
      Rows[X] |= Succ;
      if (Rows[X] & Un[X])
        return false;
    }
  return true;
}

void CandidateEnumerator::buildCo(bool Upper) {
  unsigned N = unsigned(L.Events.size());
  if (Co.size() != N)
    Co = Relation(N);
  else
    Co.clear();
  for (size_t Loc = 0; Loc < LocWrites.size(); ++Loc)
    for (int32_t W : LocWrites[Loc])
      Co.insert(unsigned(L.InitOf[Loc]), unsigned(W));
  for (size_t C = 0; C != CoLocs.size(); ++C) {
    const std::vector<int32_t> &Ws = LocWrites[size_t(CoLocs[C])];
    const std::vector<uint32_t> &Rows = CoRows[C];
    for (size_t A = 0; A != Ws.size(); ++A)
      for (size_t B = 0; B != Ws.size(); ++B) {
        bool Edge = Rows[A] >> B & 1;
        if (!Edge && Upper && A != B)
          Edge = !(Rows[B] >> A & 1) && !(CoUnordered[C][A] >> B & 1);
        if (Edge)
          Co.insert(unsigned(Ws[A]), unsigned(Ws[B]));
      }
  }
}

void CandidateEnumerator::decideCo(size_t Pair) {
  if (Stop || !step())
    return;
  while (Pair < CoPairs.size()) {
    auto [C, A, B] = CoPairs[Pair];
    if (!(CoRows[C][A] >> B & 1) && !(CoRows[C][B] >> A & 1))
      break;
    ++Pair; // fixed by transitivity
  }
  if (Pair == CoPairs.size()) {
    buildCo(false);
    Prims.setCo(Co);
    if (Pruner && !Pruner->admits(Prims.execution(), 2)) {
      ++Stats.Candidates; // forbidden: a check at co's level fails
      return;
    }
    visitWithFenceOrders();
    return;
  }
  auto [C, A, B] = CoPairs[Pair];
  bool Prune = Pair + 1 < CoPairs.size();
  auto Refuted = [&] {
    if (!Prune)
      return false;
    if (PruneLower) {
      buildCo(false);
      Prims.setCo(Co);
      if (Pruner->refutes(Prims.execution(), 2, 0))
        return true;
    }
    if (PruneUpper) {
      buildCo(true);
      Prims.setCo(Co);
      if (Pruner->refutes(Prims.execution(), 2, 1u << 2))
        return true;
    }
    return false;
  };
  std::vector<uint32_t> Saved = CoRows[C];
  for (int Choice = 0; Choice != (Shape.PartialCoherence ? 3 : 2); ++Choice) {
    bool Ok = true;
    if (Choice == 0)
      Ok = addCoEdge(C, A, B);
    else if (Choice == 1)
      Ok = addCoEdge(C, B, A);
    else {
      CoUnordered[C][A] |= uint32_t(1) << B;
      CoUnordered[C][B] |= uint32_t(1) << A;
    }
    if (Ok && !Refuted())
      decideCo(Pair + 1);
    CoRows[C] = Saved;
    if (Choice == 2) {
      CoUnordered[C][A] &= ~(uint32_t(1) << B);
      CoUnordered[C][B] &= ~(uint32_t(1) << A);
    }
    if (Stop)
      return;
  }
}

/// rf and co are whole and the model admits them: the candidate, with
/// each Fence-SC order if the model reads one.
void CandidateEnumerator::visitWithFenceOrders() {
  if (FencePairs.empty()) {
    visitCandidate();
    return;
  }
  FenceRows.assign(ScFences.size(), 0);
  FenceFound = false;
  decideFence(0);
  if (!FenceFound && Pruner)
    ++Stats.Candidates; // forbidden whatever the Fence-SC order
  Prims.setSyncFence(Empty(SyncFence));
}

/// Coherence first where rf has more choices than co has orders (the
/// writes of one thread taken in program order, as coherence keeps them in
/// every model at hand; an estimate only, the search itself assumes
/// nothing): a chain of atomics then finds each read's source among the
/// writes placed just before its own, where rf first tries every write of
/// the value and co only after.
bool CandidateEnumerator::preferCoFirst(uint64_t RfChoices) const {
  if (CoLocs.empty() || RfChoices <= 16)
    return false;
  double CoChoices = 1;
  for (int32_t Loc : CoLocs) {
    std::map<int32_t, unsigned> PerThread;
    unsigned K = 0;
    for (int32_t W : LocWrites[size_t(Loc)]) {
      ++K;
      // Interleavings: K! / (k_1! k_2! ...), built up write by write.
      CoChoices *= double(K) / double(++PerThread[L.ThreadOf[size_t(W)]]);
    }
    if (K > 32)
      return false; // startCo reports it
  }
  return CoChoices <= double(RfChoices);
}

void CandidateEnumerator::startCoFirst() {
  CoPartial = Shape.PartialCoherence;
  Rf.assign(L.Events.size(), -1);
  std::vector<int32_t> ReadIndex(L.Events.size(), -1);
  for (size_t I = 0; I != Reads.size(); ++I)
    ReadIndex[size_t(Reads[I])] = int32_t(I);
  std::vector<bool> Early(Reads.size(), false);
  size_t NC = CoLocs.size();
  CoRows.assign(NC, {});
  CoUnordered.assign(NC, {});
  CoUnplaced.assign(NC, 0);
  CoRmwRead.assign(NC, {});
  PlacedAt.assign(NC, {});
  LastSkip.assign(NC, {});
  WriteSlot.assign(L.Events.size(), -1);
  for (size_t C = 0; C != NC; ++C) {
    const std::vector<int32_t> &Ws = LocWrites[size_t(CoLocs[C])];
    CoRows[C].assign(Ws.size(), 0);
    CoUnordered[C].assign(Ws.size(), 0);
    PlacedAt[C].assign(Ws.size(), -1);
    LastSkip[C].assign(Ws.size(), -1);
    CoUnplaced[C] = Ws.size() == 32 ? ~uint32_t(0)
                                     : (uint32_t(1) << Ws.size()) - 1;
    for (size_t I = 0; I != Ws.size(); ++I) {
      const Event &E = *L.Events[size_t(Ws[I])].E;
      WriteSlot[size_t(Ws[I])] = int32_t(C * 32 + I);
      int32_t R = -1;
      if (E.RmwRead >= 0) {
        int32_t T = L.ThreadOf[size_t(Ws[I])];
        R = ReadIndex[size_t(L.Base[size_t(T)] + E.RmwRead)];
        Early[size_t(R)] = true;
      }
      CoRmwRead[C].push_back(R);
    }
  }
  LateReads.clear();
  for (unsigned I = 0; I != Reads.size(); ++I)
    if (!Early[I])
      LateReads.push_back(I);
  DeferredOn.assign(Reads.size(), 0);
  DeferC.assign(Reads.size(), 0);
  MustOrder.assign(NC, {});
  Relation Ordered(unsigned(L.Events.size()));
  bool AnyOrdered = CoPartial && Pruner &&
                    Pruner->coherenceOrdered(Prims.execution(), Ordered);
  for (size_t C = 0; C != NC; ++C) {
    const std::vector<int32_t> &Ws = LocWrites[size_t(CoLocs[C])];
    MustOrder[C].assign(Ws.size(), 0);
    for (size_t A = 0; A != Ws.size() && AnyOrdered; ++A)
      for (size_t B = 0; B != Ws.size(); ++B)
        if (A != B && (Ordered.contains(unsigned(Ws[A]), unsigned(Ws[B])) ||
                       Ordered.contains(unsigned(Ws[B]), unsigned(Ws[A]))))
          MustOrder[C][A] |= uint32_t(1) << B;
  }
  Prims.setRf(Rf);
  PruneCoLower = Pruner && Pruner->canRefute(Prims.execution(), 1, 0);
  PruneCoMixed = Pruner && Pruner->canRefute(Prims.execution(), 1, 1u << 2);
  PruneCoUpper = Pruner && CoPartial &&
                 Pruner->canRefute(Prims.execution(), 1, 3u << 1);
  CurPending = 0;
  placeCo(0);
}

bool CandidateEnumerator::placed(int32_t W) const {
  int32_t Slot = WriteSlot[size_t(W)];
  return Slot < 0 || !(CoUnplaced[size_t(Slot / 32)] >> (Slot % 32) & 1);
}

/// Whether the model forbids every completion of the rf chosen so far and
/// the writes placed so far: with both at their least, with co at its most
/// beside (fr then from rf at its most: each read not chosen yet reading
/// from all its sources), or (\p Upper) with both at their most. Lower
/// refutes first, Mixed after it: a failed Lower test runs Mixed too.
bool CandidateEnumerator::coFirstRefuted(Bounds Which) {
  const cat::Execution &X = Prims.execution();
  if (Which != Bounds::Upper) {
    if (PruneCoLower) {
      buildCo(false);
      Prims.setRf(Rf);
      Prims.setCo(Co);
      if (Pruner->refutes(X, 1, 0))
        return true;
    }
    if (Which == Bounds::Lower || !PruneCoMixed)
      return false;
    buildRfUpper();
    buildCoUpper();
    Prims.setRf(Rf);
    Prims.setCo(Co, &RfUpper);
    return Pruner->refutes(X, 1, 1u << 2);
  }
  if (!PruneCoUpper)
    return false;
  buildRfUpper();
  buildCoUpper();
  Prims.setRfRelation(RfUpper);
  Prims.setCo(Co);
  return Pruner->refutes(X, 1, 3u << 1);
}

/// rf at its most: the sources chosen, and every source of the other reads.
void CandidateEnumerator::buildRfUpper() {
  clear(RfUpper, unsigned(L.Events.size()));
  for (size_t I = 0; I != Reads.size(); ++I) {
    unsigned R = unsigned(Reads[I]);
    if (Rf[R] >= 0)
      RfUpper.insert(unsigned(Rf[R]), R);
    else
      for (int32_t W : RfCands[I])
        RfUpper.insert(unsigned(W), R);
  }
}

/// co at its most while writes are being placed: the edges decided, every
/// edge into a write not placed yet, and those the write being placed may
/// still take (partial coherence).
void CandidateEnumerator::buildCoUpper() {
  buildCo(false);
  for (size_t C = 0; C != CoLocs.size(); ++C) {
    const std::vector<int32_t> &Ws = LocWrites[size_t(CoLocs[C])];
    for (size_t B = 0; B != Ws.size(); ++B) {
      uint32_t From = 0;
      if (CoUnplaced[C] >> B & 1)
        From = ~uint32_t(0);
      else if (C == CurC && B == CurB)
        From = CurPending;
      for (size_t A = 0; A != Ws.size(); ++A)
        if (A != B && (From >> A & 1))
          Co.insert(unsigned(Ws[A]), unsigned(Ws[B]));
    }
  }
}

/// Places the next write of CoLocs[C], each unplaced one in turn.
void CandidateEnumerator::placeCo(size_t C) {
  while (C < CoLocs.size() && CoUnplaced[C] == 0)
    ++C;
  if (C == CoLocs.size()) {
    forEachLateRf(0);
    return;
  }
  size_t K = LocWrites[size_t(CoLocs[C])].size();
  uint32_t All = K == 32 ? ~uint32_t(0) : (uint32_t(1) << K) - 1;
  uint32_t Unplaced = CoUnplaced[C];
  int32_t Step = int32_t(K) - __builtin_popcount(Unplaced);
  std::vector<int32_t> SavedSkips = LastSkip[C];
  for (uint32_t Left = Unplaced; Left && !Stop; Left &= Left - 1) {
    if (!step())
      return;
    unsigned B = unsigned(__builtin_ctz(Left));
    CoUnplaced[C] = Unplaced & ~(uint32_t(1) << B);
    PlacedAt[C][B] = Step;
    if (!CoPartial) {
      CoRows[C][B] = CoUnplaced[C];
      if (!coFirstRefuted(Bounds::Mixed))
        placeOwnRead(unsigned(C), B);
      CoRows[C][B] = 0;
    } else {
      // The unplaced writes numbered below B are passed over: each needs a
      // predecessor placed from now on.
      for (unsigned X = 0; X != B; ++X)
        if (Unplaced >> X & 1)
          LastSkip[C][X] = Step;
      choosePred(unsigned(C), B, All & ~Unplaced);
      LastSkip[C] = SavedSkips;
    }
    PlacedAt[C][B] = -1;
    CoUnplaced[C] = Unplaced;
  }
}

/// Partial coherence: decides, latest placed first, which of the placed
/// writes in \p Pending precede write \p B (those before one that does
/// follow by transitivity).
void CandidateEnumerator::choosePred(unsigned C, unsigned B,
                                     uint32_t Pending) {
  std::vector<uint32_t> &Rows = CoRows[C];
  if (Pending == 0) {
    // The least linear extension: a write placed at or after B's last skip
    // (the one placed then included) precedes it.
    if (int32_t Skip = LastSkip[C][B]; Skip >= 0) {
      bool Found = false;
      for (unsigned X = 0; X != Rows.size() && !Found; ++X)
        Found = PlacedAt[C][X] >= Skip && (Rows[X] >> B & 1);
      if (!Found)
        return;
    }
    CurPending = 0;
    // The unplaced writes the model orders with B come after it.
    std::vector<uint32_t> Saved = Rows;
    uint32_t After = MustOrder[C][B] & CoUnplaced[C];
    for (unsigned X = 0; X != Rows.size() && After; ++X)
      if (X == B || (Rows[X] >> B & 1))
        Rows[X] |= After;
    if (!coFirstRefuted(Bounds::Mixed))
      placeOwnRead(C, B);
    Rows = Saved;
    return;
  }
  unsigned A = 0;
  for (uint32_t P = Pending; P; P &= P - 1) {
    unsigned X = unsigned(__builtin_ctz(P));
    if (PlacedAt[C][X] > PlacedAt[C][A] || !(Pending >> A & 1))
      A = X;
  }
  uint32_t Rest = Pending & ~(uint32_t(1) << A);
  if (Rows[A] >> B & 1) {
    choosePred(C, B, Rest);
    return;
  }
  if (!step())
    return;
  std::vector<uint32_t> Saved = Rows;
  for (unsigned X = 0; X != Rows.size(); ++X)
    if (X == A || (Rows[X] >> A & 1))
      Rows[X] |= uint32_t(1) << B;
  choosePred(C, B, Rest); // the lower bound is tested once all are decided
  Rows = Saved;
  if (Stop)
    return;
  // A and B unordered.
  CurC = C;
  CurB = B;
  CurPending = Rest;
  if (!coFirstRefuted(Bounds::Upper))
    choosePred(C, B, Rest);
  CurPending = 0;
}

/// Write \p B is placed: its atomic's read, if any, chooses its source
/// among the placed writes and those co-after B; with partial coherence,
/// where another write not placed yet may be its source, it may also wait
/// for that one.
void CandidateEnumerator::placeOwnRead(unsigned C, unsigned B) {
  int32_t R = CoRmwRead[C][B];
  if (R < 0) {
    resolveDeferred(C, B, 0);
    return;
  }
  int32_t &Src = Rf[size_t(Reads[size_t(R)])];
  uint32_t Waits = 0;
  for (int32_t W : RfCands[size_t(R)]) {
    if (Stop || !step())
      break;
    int32_t Slot = WriteSlot[size_t(W)];
    if (CoPartial && !placed(W) && !(CoRows[C][B] >> (Slot % 32) & 1)) {
      Waits |= uint32_t(1) << (Slot % 32);
      continue;
    }
    Src = W;
    if (!coFirstRefuted(Bounds::Mixed))
      resolveDeferred(C, B, 0);
  }
  Src = -1;
  if (Waits && !Stop) {
    DeferredOn[size_t(R)] = Waits;
    DeferC[size_t(R)] = C;
    resolveDeferred(C, B, 0);
    DeferredOn[size_t(R)] = 0;
  }
}

/// The reads waiting for a source from entry \p From on that may read
/// from write \p B, now placed: each reads from it or, if another of its
/// sources is still unplaced, waits on.
void CandidateEnumerator::resolveDeferred(unsigned C, unsigned B,
                                          size_t From) {
  int32_t W = LocWrites[size_t(CoLocs[C])][B];
  size_t I = From;
  for (; I < Reads.size(); ++I)
    if ((DeferredOn[I] >> B & 1) && DeferC[I] == C)
      break;
  if (I == Reads.size()) {
    placeCo(C);
    return;
  }
  if (Stop || !step())
    return;
  uint32_t Saved = DeferredOn[I];
  DeferredOn[I] = 0;
  Rf[size_t(Reads[I])] = W;
  if (!coFirstRefuted(Bounds::Mixed))
    resolveDeferred(C, B, I + 1);
  Rf[size_t(Reads[I])] = -1;
  // Or it waits on, if another of its sources is still to be placed.
  DeferredOn[I] = Saved & ~(uint32_t(1) << B);
  if (!Stop && DeferredOn[I])
    resolveDeferred(C, B, I + 1);
  DeferredOn[I] = Saved;
}

/// The reads left once co is whole, each pruned with co exact.
void CandidateEnumerator::forEachLateRf(size_t I) {
  if (I == LateReads.size()) {
    coFirstCandidate();
    return;
  }
  int32_t &Src = Rf[size_t(Reads[LateReads[I]])];
  for (int32_t W : RfCands[LateReads[I]]) {
    if (Stop || !step())
      break;
    Src = W;
    if (I + 1 == LateReads.size() || !coFirstRefuted(Bounds::Mixed))
      forEachLateRf(I + 1);
  }
  Src = -1;
}

void CandidateEnumerator::coFirstCandidate() {
  buildCo(false);
  Prims.setRf(Rf);
  if (Pruner && !Pruner->admits(Prims.execution(), 1))
    return;
  Prims.setCo(Co);
  if (Pruner && !Pruner->admits(Prims.execution(), 2)) {
    ++Stats.Candidates; // forbidden: a check at co's level fails
    return;
  }
  visitWithFenceOrders();
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
  FinalLocs.assign(NumLocs, Value{});
  FinalOptions.resize(NumLocs); // kept: no allocation per candidate
  for (std::vector<Value> &O : FinalOptions)
    O.clear();
  size_t CoIdx = 0;
  for (size_t Loc = 0; Loc < NumLocs; ++Loc) {
    FinalLocs[Loc] = P.Locs[Loc].Init;
    const std::vector<int32_t> &Ws = LocWrites[Loc];
    if (Ws.empty())
      continue;
    if (Ws.size() == 1) {
      FinalLocs[Loc] = L.Events[size_t(Ws[0])].E->V;
      continue;
    }
    assert(CoIdx < CoLocs.size() && CoLocs[CoIdx] == int32_t(Loc));
    const std::vector<uint32_t> &Rows = CoRows[CoIdx++];
    std::vector<Value> &Last = FinalOptions[Loc];
    for (size_t A = 0; A != Ws.size(); ++A) {
      if (Rows[A] == 0) {
        Value V = L.Events[size_t(Ws[A])].E->V;
        if (std::find(Last.begin(), Last.end(), V) == Last.end())
          Last.push_back(V);
      }
    }
    FinalLocs[Loc] = Last.front();
    if (Last.size() == 1)
      Last.clear(); // no choice
  }
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
                        const std::function<bool(const Candidate &)> &Visit,
                        CandidatePruner *Pruner) {
  // The primitives (an execution with its names, and buffers) are made once
  // per thread and kept from test to test; a call made while the thread's
  // are in use (from within Visit) makes its own.
  thread_local Primitives Kept;
  thread_local bool KeptInUse = false;
  if (KeptInUse) {
    Primitives Own;
    return CandidateEnumerator(P, Opts, Shape, Visit, Pruner, Own).run();
  }
  struct Use {
    Use() { KeptInUse = true; }
    ~Use() { KeptInUse = false; }
  } InUse;
  return CandidateEnumerator(P, Opts, Shape, Visit, Pruner, Kept).run();
}
