//===- Primitives.cpp - The primitive sets and relations of an execution --===//
#include "Primitives.h"

#include "incant/Cat/Primitives.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <string>
#include <string_view>

using namespace incant;
using namespace incant::model;
using cat::EventSet;
using cat::Relation;
using litmus::CacheOp;
using litmus::FenceKind;
using litmus::Scope;
using litmus::Sem;

namespace {

/// The sets the cat dialect names, in the order they are given to the model.
const char *const SetNames[] = {
    "_",      "R",     "W",     "M",       "F",        "IW",
    "B",      "ATOM",  "WEAK",  "VOL",     "RLX",      "ACQ",
    "REL",    "ACQ_REL", "SC",  "CTA",     "CLUSTER",  "GPU",
    "SYS",    "MEMBAR", "FENCE_SC", "FENCE_ACQ_REL", "SHARED", "GLOBAL",
    "CA",     "CG",    "CS",    "LU",      "CV",       "WB",
    "WT",     "GEN",   "SUR",   "TEX",     "CON",      "ALIAS",
    "ASYNC",  "CBAR",  "AOP",   "AWAIT",   "BULK"};

enum SetId : unsigned {
  SAll, SR, SW, SM, SF, SIW, SB, SATOM, SWEAK, SVOL, SRLX, SACQ, SREL,
  SACQ_REL, SSC, SCTA, SCLUSTER, SGPU, SSYS, SMEMBAR, SFENCE_SC,
  SFENCE_ACQ_REL, SSHARED, SGLOBAL, SCA, SCG, SCS, SLU, SCV, SWB, SWT,
  SGEN, SSUR, STEX, SCON, SALIAS, SASYNC, SCBAR, SAOP, SAWAIT, SBULK,
  NumSets
};
static_assert(sizeof(SetNames) / sizeof(SetNames[0]) == NumSets);

/// The semantics sets of an event: what the memory model sees. A read or
/// write of an atom is RLX, or ACQ (read) / REL (write) when the atom
/// acquires / releases, as Dat3M splits it; .volatile is VOL and RLX
/// (PTX: relaxed with system scope); a fence is SC (membar, fence.sc) or
/// ACQ_REL; a proxy fence and a barrier have none.
template <typename AddFn> void addSemSets(const Event &Ev, AddFn &&Add) {
  if (Ev.K == EventKind::Barrier) {
    // barrier.cluster: arrive releases (unless .relaxed), wait acquires.
    if (Ev.S == Sem::Release)
      Add(SREL);
    else if (Ev.S == Sem::Acquire)
      Add(SACQ);
    return;
  }
  if (Ev.K == EventKind::Fence) {
    if (Ev.Fence == FenceKind::FenceAcqRel)
      Add(SACQ_REL);
    else if (Ev.Fence != FenceKind::Proxy)
      Add(SSC);
    return;
  }
  bool Read = Ev.K == EventKind::Read;
  if (Ev.Atom) {
    bool Acq = Ev.S == Sem::Acquire || Ev.S == Sem::AcqRel;
    bool Rel = Ev.S == Sem::Release || Ev.S == Sem::AcqRel;
    Add(Read ? (Acq ? SACQ : SRLX) : (Rel ? SREL : SRLX));
    return;
  }
  switch (Ev.S) {
  case Sem::Weak: Add(SWEAK); break;
  case Sem::Volatile: Add(SVOL); Add(SRLX); break;
  case Sem::Relaxed: Add(SRLX); break;
  case Sem::Acquire: Add(SACQ); break;
  case Sem::Release: Add(SREL); break;
  case Sem::AcqRel: Add(SACQ_REL); break;
  case Sem::SC: Add(SSC); break;
  }
}

unsigned proxySet(litmus::Proxy Px) {
  switch (Px) {
  case litmus::Proxy::Generic: return SGEN;
  case litmus::Proxy::Surface: return SSUR;
  case litmus::Proxy::Texture: return STEX;
  case litmus::Proxy::Constant: return SCON;
  case litmus::Proxy::Alias: return SALIAS;
  case litmus::Proxy::Async: return SASYNC;
  }
  return NumSets;
}

unsigned scopeSet(Scope S) {
  switch (S) {
  case Scope::None: return NumSets;
  case Scope::CTA: return SCTA;
  case Scope::Cluster: return SCLUSTER;
  case Scope::GPU: return SGPU;
  case Scope::Sys: return SSYS;
  }
  return NumSets;
}

unsigned cacheSet(CacheOp C) {
  switch (C) {
  case CacheOp::None: return NumSets;
  case CacheOp::CA: return SCA;
  case CacheOp::CG: return SCG;
  case CacheOp::CS: return SCS;
  case CacheOp::LU: return SLU;
  case CacheOp::CV: return SCV;
  case CacheOp::WB: return SWB;
  case CacheOp::WT: return SWT;
  }
  return NumSets;
}

/// The fence relations: name, fence kind, scope.
struct FenceRel {
  const char *Name;
  FenceKind K;
  Scope Sc;
};
const FenceRel FenceRels[] = {
    {"membar.cta", FenceKind::Membar, Scope::CTA},
    {"membar.gl", FenceKind::Membar, Scope::GPU},
    {"membar.sys", FenceKind::Membar, Scope::Sys},
    {"fence.sc.cta", FenceKind::FenceSC, Scope::CTA},
    {"fence.sc.cluster", FenceKind::FenceSC, Scope::Cluster},
    {"fence.sc.gpu", FenceKind::FenceSC, Scope::GPU},
    {"fence.sc.sys", FenceKind::FenceSC, Scope::Sys},
    {"fence.acq_rel.cta", FenceKind::FenceAcqRel, Scope::CTA},
    {"fence.acq_rel.cluster", FenceKind::FenceAcqRel, Scope::Cluster},
    {"fence.acq_rel.gpu", FenceKind::FenceAcqRel, Scope::GPU},
    {"fence.acq_rel.sys", FenceKind::FenceAcqRel, Scope::Sys},
};

/// Levels of the thread hierarchy, innermost first.
enum Level { LWarp, LCta, LCluster, LGpu, LSys };

bool sameLevel(const litmus::Placement &A, const litmus::Placement &B,
               Level L) {
  switch (L) {
  case LWarp:
    if (A.Warp != B.Warp)
      return false;
    [[fallthrough]];
  case LCta:
    if (A.CTA != B.CTA)
      return false;
    [[fallthrough]];
  case LCluster:
    if (A.Cluster != B.Cluster)
      return false;
    [[fallthrough]];
  case LGpu:
    if (A.Device != B.Device)
      return false;
    [[fallthrough]];
  case LSys:
    return true;
  }
  return true;
}

void clearRelation(Relation &R, unsigned N) {
  if (R.size() != N)
    R = Relation(N);
  else
    R.clear();
}

const char *const FixedNames[] = {
    "id",   "po",   "loc",  "ext",     "int",  "rmw", "addr",  "data",
    "ctrl", "po-loc", "warp", "cta",   "cluster", "gl", "gpu", "sys",
    "vloc", "sr",   "scta", "syncbar", "sync_fence", "async-inst"};

/// The level of the thread hierarchy an event's scope names, if it has one:
/// its scope qualifier, .sys for .volatile.
std::optional<Level> scopeLevel(const Event &Ev) {
  if (Ev.K == EventKind::Barrier ||
      (Ev.K == EventKind::Fence && Ev.Fence == FenceKind::Proxy))
    return std::nullopt;
  if (Ev.S == Sem::Volatile)
    return LSys;
  switch (Ev.Sc) {
  case Scope::None: return std::nullopt;
  case Scope::CTA: return LCta;
  case Scope::Cluster: return LCluster;
  case Scope::GPU: return LGpu;
  case Scope::Sys: return LSys;
  }
  return std::nullopt;
}

const EventSet &EmptySet(unsigned N) {
  thread_local EventSet Empty;
  if (Empty.size() != N)
    Empty = EventSet(N);
  return Empty;
}

/// Row |= row \p I of the masks \p M (\p Wd words a row).
inline void orRow(unsigned Wd, uint64_t *Row, const std::vector<uint64_t> &M,
                  size_t I) {
  for (unsigned K = 0; K != Wd; ++K)
    Row[K] |= M[I * Wd + K];
}

} // namespace

namespace incant::model {

std::string_view scopeSetName(Scope S) {
  unsigned I = scopeSet(S);
  return I < NumSets ? SetNames[I] : "";
}

std::string_view proxySetName(litmus::Proxy Px) {
  unsigned I = proxySet(Px);
  return I < NumSets ? SetNames[I] : "";
}

std::string_view fenceRelationName(FenceKind K, Scope S) {
  for (const FenceRel &R : FenceRels)
    if (R.K == K && R.Sc == S)
      return R.Name;
  return "";
}

/// Where the enumerator takes primitive number Prim from.
struct PlanEntry {
  enum Kind { Set, Fixed, Fence, Dynamic, Unknown } K = Unknown;
  unsigned Prim = 0;
  unsigned Id = 0;
};
} // namespace incant::model

static std::vector<PlanEntry> makePlan() {
  std::vector<PlanEntry> Plan;
  auto Prims = cat::primitiveNames();
  for (unsigned I = 0; I < Prims.size(); ++I) {
    PlanEntry E;
    E.Prim = I;
    std::string_view Name = Prims[I].Name;
    auto Find = [&](const char *const *Names, size_t Count,
                    PlanEntry::Kind K) {
      for (size_t J = 0; J < Count && E.K == PlanEntry::Unknown; ++J)
        if (Name == std::string_view(Names[J])) {
          E.K = K;
          E.Id = unsigned(J);
        }
    };
    if (Prims[I].IsSet) {
      Find(SetNames, NumSets, PlanEntry::Set);
    } else {
      Find(FixedNames, std::size(FixedNames), PlanEntry::Fixed);
      Find(Primitives::DynamicNames, Primitives::NumDynamic,
           PlanEntry::Dynamic);
      for (size_t J = 0; J < std::size(FenceRels); ++J)
        if (E.K == PlanEntry::Unknown && Name == FenceRels[J].Name) {
          E.K = PlanEntry::Fence;
          E.Id = unsigned(J);
        }
    }
    Plan.push_back(E);
  }
  return Plan;
}

void Primitives::setUpTest(const litmus::Program &P) {
  Last.Valid = false; // another test: its locations may differ
  size_t NT = P.Threads.size();
  GroupOf.assign(5 * NT, 0);
  for (int Lv = LWarp; Lv <= LSys; ++Lv)
    for (size_t T = 0; T != NT; ++T) {
      size_t U = 0;
      while (!sameLevel(P.Threads[U].Where, P.Threads[T].Where, Level(Lv)))
        ++U;
      GroupOf[size_t(Lv) * NT + T] = uint32_t(U);
    }
}

/// (Records the combination as Last when it is not the same.) Only the
/// threads whose trace differs from the last call's are compared event by
/// event: forEachCombination changes one thread's trace at a time, and a
/// trace seen last time has Last's shape already.
bool Primitives::sameShapeAsLast(const CombinationLayout &L,
                                 const std::vector<const Trace *> &Chosen,
                                 const Relation &SyncBar,
                                 const Relation &SyncFence) {
  auto Shape = [](const EventRef &R) {
    Event E = R.E ? *R.E : Event{};
    E.V = {};
    return E;
  };
  bool Same = Last.Valid && Last.Events.size() == L.Events.size() &&
              Last.ThreadOf == L.ThreadOf && Last.InitLoc == L.InitLoc &&
              Last.Base == L.Base && Last.Reads.size() == Chosen.size() &&
              Last.Chosen.size() == Chosen.size() &&
              Last.SyncBar == SyncBar && Last.SyncFence == SyncFence;
  for (size_t E = 0; Same && E != L.NumInits; ++E)
    Same = L.Events[E].E == nullptr;
  for (size_t T = 0; Same && T != Chosen.size(); ++T) {
    if (Chosen[T] == Last.Chosen[T])
      continue;
    size_t From = size_t(L.Base[T]), To = From + Chosen[T]->Events.size();
    for (size_t E = From; Same && E != To; ++E)
      Same = L.Events[E].E != nullptr && Shape(L.Events[E]) == Last.Events[E];
    Same = Same && Chosen[T]->Reads == Last.Reads[T];
  }
  Last.Chosen = Chosen;
  if (Same)
    return true;
  Last.Events.clear();
  for (const EventRef &R : L.Events)
    Last.Events.push_back(Shape(R));
  Last.ThreadOf = L.ThreadOf;
  Last.InitLoc = L.InitLoc;
  Last.Base = L.Base;
  Last.Reads.resize(Chosen.size());
  for (size_t T = 0; T != Chosen.size(); ++T)
    Last.Reads[T] = Chosen[T]->Reads;
  Last.SyncBar = SyncBar;
  Last.SyncFence = SyncFence;
  Last.Valid = true;
  return false;
}

bool Primitives::setUpCombination(const litmus::Program &P,
                                  const CombinationLayout &L,
                                  const std::vector<const Trace *> &Chosen,
                                  const Relation &SyncBar,
                                  const Relation &SyncFence) {
  if (sameShapeAsLast(L, Chosen, SyncBar, SyncFence)) {
    // Everything but sync_fence's slot (which setSyncFence rewrites) and
    // the dynamic relations (set per candidate) is as it was left.
    if (SyncFenceSlot >= 0)
      X->relationAt(size_t(SyncFenceSlot)) = SyncFence;
    return false;
  }
  N = unsigned(L.Events.size());
  fillSets(P, L);
  placeEvents(L);
  buildRowMasks(P, L);
  buildThreadRelations(P, L);
  buildInstructionRelations(P, L, Chosen);
  buildFenceRelations(L);
  ExtRel = Ext;
  IntRel = Int;
  handOver(SyncBar, SyncFence);
  return true;
}

/// The sets of each event (kind, region, cache, proxy, semantics, scope).
void Primitives::fillSets(const litmus::Program &P,
                          const CombinationLayout &L) {
  const std::vector<EventRef> &Events = L.Events;
  const std::vector<int32_t> &ThreadOf = L.ThreadOf;
  unsigned NumInits = L.NumInits;
  // Sets. The buffers are members, cleared in place: a check sets up many
  // combinations of the same size.
  std::vector<EventSet> &Sets = SetBuf;
  if (Sets.size() != NumSets || Sets[0].size() != N)
    Sets.assign(NumSets, EventSet(N));
  else
    for (EventSet &S : Sets)
      std::fill(S.words().begin(), S.words().end(), 0);
  unsigned Cur = 0;
  auto AddCur = [&](unsigned S) {
    if (S < NumSets)
      Sets[S].insert(Cur);
  };
  for (unsigned E = 0; E < N; ++E) {
    Cur = E;
    AddCur(SAll);
    if (E < NumInits) {
      AddCur(SW);
      AddCur(SM);
      AddCur(SIW);
      AddCur(P.Locs[size_t(L.InitLoc[E])].R == litmus::Region::Shared
                 ? SSHARED
                 : SGLOBAL);
      continue;
    }
    const Event &Ev = *Events[E].E;
    switch (Ev.K) {
    case EventKind::Read:
      AddCur(SR);
      AddCur(SM);
      break;
    case EventKind::Write:
      AddCur(SW);
      AddCur(SM);
      break;
    case EventKind::Fence:
      AddCur(SF);
      AddCur(Ev.Fence == FenceKind::Membar    ? SMEMBAR
             : Ev.Fence == FenceKind::FenceSC ? SFENCE_SC
             : Ev.Fence == FenceKind::FenceAcqRel ? SFENCE_ACQ_REL
                                                  : NumSets);
      // A proxy fence is in the set of what it orders; the other fences
      // are generic, as Dat3M tags them.
      AddCur(Ev.Fence == FenceKind::Proxy ? proxySet(Ev.Px) : SGEN);
      break;
    case EventKind::Barrier:
      AddCur(SB);
      break;
    }
    if (Ev.OpIndex >= 0) {
      const litmus::Op &O =
          P.Threads[size_t(ThreadOf[E])].Ops[size_t(Ev.OpIndex)];
      if (O.ClusterBarrier)
        AddCur(SCBAR);
      if (O.Async >= 0)
        AddCur(SAOP);
      if (O.AsyncWait)
        AddCur(SAWAIT);
      if (O.BulkGroup)
        AddCur(SBULK);
    }
    if (Ev.K == EventKind::Read || Ev.K == EventKind::Write) {
      AddCur(P.Locs[size_t(Ev.Loc)].R == litmus::Region::Shared ? SSHARED
                                                                : SGLOBAL);
      AddCur(cacheSet(Ev.Cache));
      AddCur(proxySet(Ev.Px));
    }
    if (Ev.Atom)
      AddCur(SATOM);
    addSemSets(Ev, AddCur);
    if (Ev.K != EventKind::Barrier && Ev.Fence != FenceKind::Proxy) {
      AddCur(scopeSet(Ev.Sc));
      if (Ev.S == Sem::Volatile)
        AddCur(SSYS);
    }
  }
}

/// Clears the fixed relations, sets id, and each event's location and scope.
void Primitives::placeEvents(const CombinationLayout &L) {
  const std::vector<EventRef> &Events = L.Events;
  unsigned NumInits = L.NumInits;
  // Relations fixed by the combination.
  for (Relation *R : {&Id, &Po, &Loc, &VLoc, &Ext, &Int, &Rmw, &Addr, &Data,
                      &Ctrl, &PoLoc, &Sr, &AsyncInst})
    clearRelation(*R, N);
  for (Relation &R : Scopes)
    clearRelation(R, N);
  for (unsigned E = 0; E < N; ++E)
    Id.insert(E, E);
  LocOf.assign(N, -1);
  VLocOf.assign(N, -1);
  ScopeOf.assign(N, std::nullopt);
  for (unsigned E = 0; E < N; ++E) {
    LocOf[E] = L.locOf(E);
    VLocOf[E] = E < NumInits ? L.InitLoc[E]
                : LocOf[E] >= 0 ? Events[E].E->VLoc
                                : -1;
    if (E >= NumInits)
      if (std::optional<Level> S = scopeLevel(*Events[E].E))
        ScopeOf[E] = uint8_t(*S);
  }
}

/// The row masks of each thread, location, scope and level of threads.
void Primitives::buildRowMasks(const litmus::Program &P,
                               const CombinationLayout &L) {
  const std::vector<int32_t> &ThreadOf = L.ThreadOf;
  // Row masks, built word by word: the events of each thread, of each
  // location and generic address, and per thread the scoped events whose
  // scope includes it.
  unsigned Wd = Id.wordsPerRow();
  size_t NT = P.Threads.size(), NL = P.Locs.size();
  auto Mask = [&](std::vector<uint64_t> &M, size_t Count) {
    M.assign(Count * Wd, 0);
  };
  auto Set = [&](std::vector<uint64_t> &M, size_t I, unsigned E) {
    M[I * Wd + E / 64] |= uint64_t(1) << (E % 64);
  };
  Mask(ThreadMask, NT);
  Mask(LocMask, NL);
  Mask(VLocMask, NL);
  Mask(IncludedBy, NT);
  for (unsigned E = 0; E < N; ++E) {
    if (ThreadOf[E] >= 0)
      Set(ThreadMask, size_t(ThreadOf[E]), E);
    if (LocOf[E] >= 0)
      Set(LocMask, size_t(LocOf[E]), E);
    if (VLocOf[E] >= 0)
      Set(VLocMask, size_t(VLocOf[E]), E);
    if (ScopeOf[E]) {
      const uint32_t *Group = &GroupOf[size_t(*ScopeOf[E]) * NT];
      for (size_t T = 0; T != NT; ++T)
        if (Group[T] == Group[size_t(ThreadOf[E])])
          Set(IncludedBy, T, E);
    }
  }
  // Per level and group of threads that share it: the events of the
  // group's threads (the row of each of their events in that level's
  // relation), indexed by the group's first thread.
  assert(GroupOf.size() == 5 * NT && "setUpTest not called for this test");
  Mask(LevelMask, 5 * NT);
  for (size_t I = 0; I != 5 * NT; ++I)
    orRow(Wd, &LevelMask[(I - I % NT + GroupOf[I]) * Wd], ThreadMask, I % NT);
}

/// loc, vloc, int, ext, po, po-loc, the scope relations and sr, row by row.
void Primitives::buildThreadRelations(const litmus::Program &P,
                                      const CombinationLayout &L) {
  const std::vector<int32_t> &ThreadOf = L.ThreadOf;
  unsigned NumInits = L.NumInits;
  unsigned Wd = Id.wordsPerRow();
  size_t NT = P.Threads.size();
  for (unsigned A = 0; A < N; ++A) {
    if (LocOf[A] >= 0) {
      orRow(Wd, Loc.row(A), LocMask, size_t(LocOf[A]));
      orRow(Wd, VLoc.row(A), VLocMask, size_t(VLocOf[A]));
    }
    uint64_t *IntRow = Int.row(A), *ExtRow = Ext.row(A);
    if (A < NumInits) {
      IntRow[A / 64] |= uint64_t(1) << (A % 64); // its own "thread"
      for (unsigned B = 0; B < N; ++B)
        if (B != A)
          ExtRow[B / 64] |= uint64_t(1) << (B % 64);
      continue;
    }
    size_t T = size_t(ThreadOf[A]);
    orRow(Wd, IntRow, ThreadMask, T);
    for (unsigned K = 0; K != Wd; ++K)
      ExtRow[K] = ~IntRow[K];
    if (N % 64)
      ExtRow[Wd - 1] &= (uint64_t(1) << (N % 64)) - 1;
    // po: the thread's events after A.
    uint64_t *PoRow = Po.row(A), *PoLocRow = PoLoc.row(A);
    const uint64_t *LocRow = Loc.row(A);
    for (unsigned K = 0; K != Wd; ++K) {
      uint64_t After = K * 64 > A ? ~uint64_t(0)
                       : (K + 1) * 64 <= A + 1
                           ? 0
                           : ~((uint64_t(2) << (A % 64)) - 1);
      PoRow[K] = IntRow[K] & After;
      PoLocRow[K] = PoRow[K] & LocRow[K];
    }
    for (size_t Lv = LWarp; Lv <= LSys; ++Lv)
      orRow(Wd, Scopes[Lv].row(A), LevelMask, Lv * NT + GroupOf[Lv * NT + T]);
    if (ScopeOf[A]) {
      // sr: B in a thread that A's scope includes, whose own scope
      // includes A's thread.
      uint64_t *Row = Sr.row(A);
      const uint64_t *Reach = Scopes[*ScopeOf[A]].row(A);
      for (unsigned K = 0; K != Wd; ++K)
        Row[K] = Reach[K] & IncludedBy[T * Wd + K];
    }
  }
}

/// async-inst, the dependencies and rmw, from each trace's masks.
void Primitives::buildInstructionRelations(
    const litmus::Program &P, const CombinationLayout &L,
    const std::vector<const Trace *> &Chosen) {
  const std::vector<EventRef> &Events = L.Events;
  const std::vector<int32_t> &ThreadOf = L.ThreadOf;
  unsigned NumInits = L.NumInits;
  // async-inst: po between the events of one asynchronous instruction.
  for (unsigned A = NumInits; A < N; ++A) {
    const Event &EA = *Events[A].E;
    const litmus::Op &OA =
        P.Threads[size_t(ThreadOf[A])].Ops[size_t(EA.OpIndex)];
    if (OA.Async < 0)
      continue;
    for (unsigned B = A + 1; B < N && ThreadOf[B] == ThreadOf[A]; ++B)
      if (P.Threads[size_t(ThreadOf[B])].Ops[size_t(Events[B].E->OpIndex)]
              .Async == OA.Async)
        AsyncInst.insert(A, B);
  }
  // Dependencies and rmw, from each trace's masks over its reads.
  for (size_t T = 0; T < Chosen.size(); ++T) {
    const Trace &Tr = *Chosen[T];
    unsigned B0 = unsigned(L.Base[T]);
    auto AddDeps = [&](Relation &R, uint64_t Mask, unsigned To) {
      for (unsigned I = 0; Mask; ++I, Mask >>= 1)
        if (Mask & 1)
          R.insert(B0 + unsigned(Tr.Reads[I]), To);
    };
    for (size_t I = 0; I < Tr.Events.size(); ++I) {
      const Event &Ev = Tr.Events[I];
      unsigned E = B0 + unsigned(I);
      AddDeps(Addr, Ev.Addr, E);
      AddDeps(Data, Ev.Data, E);
      AddDeps(Ctrl, Ev.Ctrl, E);
      if (Ev.RmwRead >= 0)
        Rmw.insert(B0 + unsigned(Ev.RmwRead), E);
    }
  }
}

/// po;[fence];po for each kind and scope of fence.
void Primitives::buildFenceRelations(const CombinationLayout &L) {
  const std::vector<EventRef> &Events = L.Events;
  unsigned NumInits = L.NumInits;
  // po;[fence of that kind and scope];po.
  static_assert(std::size(FenceRels) == std::size(decltype(FenceRelations){}));
  for (size_t K = 0; K < std::size(FenceRels); ++K) {
    const FenceRel &FR = FenceRels[K];
    Relation &R = FenceRelations[K];
    clearRelation(R, N);
    for (unsigned F = NumInits; F < N; ++F) {
      const Event &Ev = *Events[F].E;
      if (Ev.K != EventKind::Fence || Ev.Fence != FR.K || Ev.Sc != FR.Sc)
        continue;
      for (unsigned A = NumInits; A < F; ++A) {
        if (!Po.contains(A, F))
          continue;
        for (unsigned B = F + 1; B < N; ++B)
          if (Po.contains(F, B))
            R.insert(A, B);
      }
    }
  }
}

/// Hands every primitive over to the execution, refilled in place.
void Primitives::handOver(const Relation &SyncBar,
                          const Relation &SyncFence) {
  // Hand everything over in the order of cat::primitiveNames(). Where to
  // take each primitive from is worked out once (Plan); an Execution of the
  // same size is refilled in place, so its layout and the model's binding
  // stay, and no names are copied.
  const Relation *Fixed[] = {&Id,   &Po,   &Loc,   &Ext,           &Int,
                             &Rmw,  &Addr, &Data,  &Ctrl,          &PoLoc,
                             &Scopes[LWarp], &Scopes[LCta], &Scopes[LCluster],
                             &Scopes[LGpu],  &Scopes[LGpu], &Scopes[LSys],
                             &VLoc, &Sr,   &Scopes[LCta], &SyncBar, &SyncFence,
                             &AsyncInst};
  static_assert(std::size(Fixed) == std::size(FixedNames));
  static const std::vector<PlanEntry> Plan = makePlan();
  // The execution is made once (names and all) and refilled after: resized
  // when the combination's size differs.
  bool Refill = X.has_value();
  if (!Refill)
    X.emplace(N);
  else if (X->numEvents() != N)
    X->resize(N);
  for (unsigned D = 0; D < NumDynamic; ++D)
    DynamicSlot[D] = -1;
  SyncFenceSlot = -1;
  size_t SetSlot = 0, RelSlot = 0;
  for (const PlanEntry &E : Plan) {
    const cat::PrimitiveInfo &PI = cat::primitiveNames()[E.Prim];
    if (PI.IsSet) {
      const EventSet &S = E.K == PlanEntry::Set ? SetBuf[E.Id] : EmptySet(N);
      if (Refill)
        X->setAt(SetSlot) = S;
      else
        X->setSet(std::string(PI.Name), S);
      ++SetSlot;
      continue;
    }
    const Relation *R = nullptr;
    switch (E.K) {
    case PlanEntry::Fixed:
      R = Fixed[E.Id];
      if (std::string_view(FixedNames[E.Id]) == "sync_fence")
        SyncFenceSlot = int32_t(RelSlot);
      break;
    case PlanEntry::Fence:
      R = &FenceRelations[E.Id];
      break;
    case PlanEntry::Dynamic:
      DynamicSlot[E.Id] = int32_t(RelSlot);
      break;
    default:
      break;
    }
    if (Refill) {
      if (R)
        X->relationAt(RelSlot) = *R;
      else if (E.K != PlanEntry::Dynamic)
        clearRelation(X->relationAt(RelSlot), N);
    } else {
      // co is transitive: the enumerator only makes (partial) orders.
      // sync_fence is chosen last, after co.
      X->setRelation(std::string(PI.Name), R ? *R : Relation(N),
                     E.K == PlanEntry::Dynamic ? DynamicLevel[E.Id]
                     : PI.Name == "sync_fence" ? 3
                                               : 0,
                     PI.Name == "co");
    }
    ++RelSlot;
  }
}

namespace {

/// Dst = In, or In & Mask.
void copyMasked(Relation &Dst, const Relation &In, const Relation *Mask,
                unsigned N) {
  if (N == 0)
    return;
  // The rows are contiguous: one loop over all their words (a small test's
  // relations are one word a row; a loop per row was 7% of its time).
  size_t Words = size_t(N) * In.wordsPerRow();
  const uint64_t *Src = In.row(0);
  uint64_t *D = Dst.row(0);
  if (!Mask) {
    std::copy(Src, Src + Words, D);
    return;
  }
  const uint64_t *M = Mask->row(0);
  for (size_t K = 0; K != Words; ++K)
    D[K] = Src[K] & M[K];
}

} // namespace

void Primitives::setSyncFence(const Relation &SyncFence) {
  if (SyncFenceSlot >= 0)
    copyMasked(X->relationAt(size_t(SyncFenceSlot)), SyncFence, nullptr, N);
}

void Primitives::setRf(const std::vector<int32_t> &RfOf) {
  clearRelation(Rf, N);
  for (unsigned R = 0; R < N && R < RfOf.size(); ++R)
    if (RfOf[R] >= 0)
      Rf.row(unsigned(RfOf[R]))[R / 64] |= uint64_t(1) << (R % 64);
  copyRf();
}

void Primitives::setRfRelation(const Relation &R) {
  Rf = R;
  copyRf();
}

void Primitives::copyRf() {
  // 0: whole, 1: & ext, 2: & int.
  const unsigned Part[NumDynamic] = {0, 0, 0, 1, 2, 1, 2, 1, 2};
  for (unsigned D = 0; D < NumDynamic; ++D)
    if (DynamicSlot[D] >= 0 && DynamicLevel[D] == 1)
      copyMasked(X->relationAt(size_t(DynamicSlot[D])), Rf,
                 Part[D] == 1 ? &ExtRel : Part[D] == 2 ? &IntRel : nullptr,
                 N);
}

void Primitives::setCo(const Relation &Co, const Relation *FrRf) {
  // fr: a read before every write co-after its source (not itself).
  clearRelation(Fr, N);
  unsigned Wd = Co.wordsPerRow();
  const Relation &FromRf = FrRf ? *FrRf : Rf;
  for (unsigned W = 0; W < N; ++W) {
    const uint64_t *RfRow = FromRf.row(W);
    const uint64_t *CoRow = Co.row(W);
    for (unsigned K = 0; K < Wd; ++K)
      for (uint64_t Bits = RfRow[K]; Bits; Bits &= Bits - 1) {
        unsigned R = K * 64 + unsigned(__builtin_ctzll(Bits));
        uint64_t *FrRow = Fr.row(R);
        for (unsigned J = 0; J < Wd; ++J)
          FrRow[J] |= CoRow[J];
        FrRow[R / 64] &= ~(uint64_t(1) << (R % 64));
      }
  }
  const Relation *Whole[NumDynamic] = {&Rf, &Co, &Fr, &Rf, &Rf,
                                       &Co, &Co, &Fr, &Fr};
  const unsigned Part[NumDynamic] = {0, 0, 0, 1, 2, 1, 2, 1, 2};
  for (unsigned D = 0; D < NumDynamic; ++D)
    if (DynamicSlot[D] >= 0 && DynamicLevel[D] == 2)
      copyMasked(X->relationAt(size_t(DynamicSlot[D])), *Whole[D],
                 Part[D] == 1 ? &ExtRel : Part[D] == 2 ? &IntRel : nullptr,
                 N);
}
