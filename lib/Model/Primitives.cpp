//===- Primitives.cpp - The primitive sets and relations of an execution --===//
#include "Primitives.h"

#include "incant/Cat/Primitives.h"

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
    "WT"};

enum SetId : unsigned {
  SAll, SR, SW, SM, SF, SIW, SB, SATOM, SWEAK, SVOL, SRLX, SACQ, SREL,
  SACQ_REL, SSC, SCTA, SCLUSTER, SGPU, SSYS, SMEMBAR, SFENCE_SC,
  SFENCE_ACQ_REL, SSHARED, SGLOBAL, SCA, SCG, SCS, SLU, SCV, SWB, SWT,
  NumSets
};
static_assert(sizeof(SetNames) / sizeof(SetNames[0]) == NumSets);

unsigned semSet(Sem S) {
  switch (S) {
  case Sem::Weak: return SWEAK;
  case Sem::Volatile: return SVOL;
  case Sem::Relaxed: return SRLX;
  case Sem::Acquire: return SACQ;
  case Sem::Release: return SREL;
  case Sem::AcqRel: return SACQ_REL;
  case Sem::SC: return SSC;
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
  if (R.size() != N) {
    R = Relation(N);
    return;
  }
  for (unsigned A = 0; A < N; ++A) {
    uint64_t *Row = R.row(A);
    for (unsigned W = 0; W < R.wordsPerRow(); ++W)
      Row[W] = 0;
  }
}

const char *const FixedNames[] = {
    "id",   "po",   "loc",  "ext",     "int",  "rmw", "addr", "data", "ctrl",
    "po-loc", "warp", "cta", "cluster", "gl",  "gpu", "sys",  "bsync"};

const EventSet &EmptySet(unsigned N) {
  thread_local EventSet Empty;
  if (Empty.size() != N)
    Empty = EventSet(N);
  return Empty;
}

} // namespace

namespace incant::model {
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

void Primitives::setUpCombination(const litmus::Program &P,
                                  const std::vector<EventRef> &Events,
                                  const std::vector<int32_t> &ThreadOf,
                                  const std::vector<const Trace *> &Chosen,
                                  const std::vector<int32_t> &Base) {
  N = unsigned(Events.size());
  NumLocs = unsigned(P.Locs.size());

  // Sets.
  std::vector<EventSet> Sets(NumSets, EventSet(N));
  auto Add = [&](unsigned S, unsigned E) {
    if (S < NumSets)
      Sets[S].insert(E);
  };
  for (unsigned E = 0; E < N; ++E) {
    Add(SAll, E);
    if (E < NumLocs) {
      Add(SW, E);
      Add(SM, E);
      Add(SIW, E);
      Add(P.Locs[E].R == litmus::Region::Shared ? SSHARED : SGLOBAL, E);
      continue;
    }
    const Event &Ev = *Events[E].E;
    switch (Ev.K) {
    case EventKind::Read:
      Add(SR, E);
      Add(SM, E);
      break;
    case EventKind::Write:
      Add(SW, E);
      Add(SM, E);
      break;
    case EventKind::Fence:
      Add(SF, E);
      Add(Ev.Fence == FenceKind::Membar    ? SMEMBAR
          : Ev.Fence == FenceKind::FenceSC ? SFENCE_SC
                                           : SFENCE_ACQ_REL,
          E);
      break;
    case EventKind::Barrier:
      Add(SB, E);
      break;
    }
    if (Ev.K == EventKind::Read || Ev.K == EventKind::Write) {
      Add(P.Locs[Ev.Loc].R == litmus::Region::Shared ? SSHARED : SGLOBAL, E);
      Add(cacheSet(Ev.Cache), E);
    }
    if (Ev.Atom)
      Add(SATOM, E);
    if (Ev.K != EventKind::Barrier) {
      Add(semSet(Ev.S), E);
      Add(scopeSet(Ev.Sc), E);
    }
  }

  // Relations fixed by the combination.
  Relation Id = Relation::identity(N);
  Relation Po(N), Loc(N), Ext(N), Int(N), Rmw(N), Addr(N), Data(N), Ctrl(N),
      PoLoc(N), Bsync(N);
  Relation Scopes[5] = {Relation(N), Relation(N), Relation(N), Relation(N),
                        Relation(N)};
  auto LocOf = [&](unsigned E) -> int32_t {
    if (E < NumLocs)
      return int32_t(E);
    const Event &Ev = *Events[E].E;
    return Ev.K == EventKind::Read || Ev.K == EventKind::Write ? Ev.Loc : -1;
  };
  for (unsigned A = 0; A < N; ++A) {
    int32_t LA = LocOf(A);
    for (unsigned B = 0; B < N; ++B) {
      int32_t LB = LocOf(B);
      bool SameLoc = LA >= 0 && LA == LB;
      if (SameLoc)
        Loc.insert(A, B);
      if (ThreadOf[A] == ThreadOf[B]) {
        Int.insert(A, B);
        if (A < B && A >= NumLocs) {
          Po.insert(A, B);
          if (SameLoc)
            PoLoc.insert(A, B);
        }
      } else {
        Ext.insert(A, B);
      }
      if (A < NumLocs || B < NumLocs)
        continue;
      const litmus::Placement &PA = P.Threads[ThreadOf[A]].Where;
      const litmus::Placement &PB = P.Threads[ThreadOf[B]].Where;
      for (int L = LWarp; L <= LSys; ++L)
        if (sameLevel(PA, PB, Level(L)))
          Scopes[L].insert(A, B);
      const Event &EA = *Events[A].E, &EB = *Events[B].E;
      if (EA.K == EventKind::Barrier && EB.K == EventKind::Barrier &&
          sameLevel(PA, PB, LCta) && EA.BarrierId == EB.BarrierId &&
          EA.BarrierCount == EB.BarrierCount)
        Bsync.insert(A, B);
    }
  }
  // Dependencies and rmw, from each trace's masks over its reads.
  for (size_t T = 0; T < Chosen.size(); ++T) {
    const Trace &Tr = *Chosen[T];
    unsigned B0 = unsigned(Base[T]);
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
  // po;[fence of that kind and scope];po.
  Relation FenceRelations[std::size(FenceRels)];
  for (size_t K = 0; K < std::size(FenceRels); ++K) {
    const FenceRel &FR = FenceRels[K];
    Relation R(N);
    for (unsigned F = NumLocs; F < N; ++F) {
      const Event &Ev = *Events[F].E;
      if (Ev.K != EventKind::Fence || Ev.Fence != FR.K || Ev.Sc != FR.Sc)
        continue;
      for (unsigned A = NumLocs; A < F; ++A) {
        if (!Po.contains(A, F))
          continue;
        for (unsigned B = F + 1; B < N; ++B)
          if (Po.contains(F, B))
            R.insert(A, B);
      }
    }
    FenceRelations[K] = std::move(R);
  }
  ExtRel = Ext;
  IntRel = Int;

  // Hand everything over in the order of cat::primitiveNames(). Where to
  // take each primitive from is worked out once (Plan); an Execution of the
  // same size is refilled in place, so its layout and the model's binding
  // stay, and no names are copied.
  Relation *Fixed[] = {&Id,   &Po,   &Loc,   &Ext,           &Int,
                       &Rmw,  &Addr, &Data,  &Ctrl,          &PoLoc,
                       &Scopes[LWarp], &Scopes[LCta], &Scopes[LCluster],
                       &Scopes[LGpu],  &Scopes[LGpu], &Scopes[LSys], &Bsync};
  static const std::vector<PlanEntry> Plan = makePlan();
  bool Refill = X && X->numEvents() == N;
  if (!Refill)
    X.emplace(N);
  for (unsigned D = 0; D < NumDynamic; ++D)
    DynamicSlot[D] = -1;
  size_t SetSlot = 0, RelSlot = 0;
  for (const PlanEntry &E : Plan) {
    const cat::PrimitiveInfo &PI = cat::primitiveNames()[E.Prim];
    if (PI.IsSet) {
      const EventSet &S = E.K == PlanEntry::Set ? Sets[E.Id] : EmptySet(N);
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
      X->setRelation(std::string(PI.Name), R ? *R : Relation(N));
    }
    ++RelSlot;
  }
}

void Primitives::setCandidate(const std::vector<int32_t> &RfOf,
                              const std::vector<std::vector<int32_t>> &CoOrder,
                              const std::vector<int32_t> &) {
  // Scratch copies first (the slots may be missing if a name is unknown).
  for (Relation *R : {&Rf, &Co, &Fr})
    clearRelation(*R, N);
  // co: the initial write first, then the order chosen.
  for (unsigned L = 0; L < NumLocs; ++L) {
    const std::vector<int32_t> &O = CoOrder[L];
    for (size_t I = 0; I < O.size(); ++I) {
      Co.insert(L, unsigned(O[I]));
      for (size_t J = I + 1; J < O.size(); ++J)
        Co.insert(unsigned(O[I]), unsigned(O[J]));
    }
  }
  unsigned Wd = Co.wordsPerRow();
  for (unsigned R = NumLocs; R < N; ++R) {
    int32_t W = RfOf[R];
    if (W < 0)
      continue;
    Rf.insert(unsigned(W), R);
    // fr: R before every write co-after its source.
    const uint64_t *CoRow = Co.row(unsigned(W));
    uint64_t *FrRow = Fr.row(R);
    for (unsigned K = 0; K < Wd; ++K)
      FrRow[K] = CoRow[K];
    Fr.erase(R, R);
  }
  const Relation *Whole[NumDynamic] = {&Rf, &Co, &Fr, &Rf, &Rf,
                                       &Co, &Co, &Fr, &Fr};
  // 0: whole, 1: & ext, 2: & int.
  const unsigned Part[NumDynamic] = {0, 0, 0, 1, 2, 1, 2, 1, 2};
  for (unsigned D = 0; D < NumDynamic; ++D) {
    if (DynamicSlot[D] < 0)
      continue;
    Relation &Out = X->relationAt(size_t(DynamicSlot[D]));
    assert(Out.size() == N);
    const Relation &In = *Whole[D];
    const Relation *Mask = Part[D] == 1 ? &ExtRel : Part[D] == 2 ? &IntRel
                                                                   : nullptr;
    for (unsigned A = 0; A < N; ++A) {
      const uint64_t *Src = In.row(A);
      uint64_t *Dst = Out.row(A);
      if (!Mask) {
        for (unsigned K = 0; K < Wd; ++K)
          Dst[K] = Src[K];
        continue;
      }
      const uint64_t *M = Mask->row(A);
      for (unsigned K = 0; K < Wd; ++K)
        Dst[K] = Src[K] & M[K];
    }
  }
}
