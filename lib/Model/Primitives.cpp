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

} // namespace

void Primitives::setUpCombination(const litmus::Program &P,
                                  const std::vector<EventRef> &Events,
                                  const std::vector<int32_t> &ThreadOf,
                                  const std::vector<const Trace *> &Chosen,
                                  const std::vector<int32_t> &Base) {
  N = unsigned(Events.size());
  NumLocs = unsigned(P.Locs.size());
  X.emplace(N);

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

  // Hand everything over in the order of cat::primitiveNames().
  struct Named {
    std::string_view Name;
    Relation *R;
  };
  Named Fixed[] = {
      {"id", &Id},          {"po", &Po},       {"loc", &Loc},
      {"ext", &Ext},        {"int", &Int},     {"rmw", &Rmw},
      {"addr", &Addr},      {"data", &Data},   {"ctrl", &Ctrl},
      {"po-loc", &PoLoc},   {"warp", &Scopes[LWarp]},
      {"cta", &Scopes[LCta]}, {"cluster", &Scopes[LCluster]},
      {"gl", &Scopes[LGpu]}, {"gpu", &Scopes[LGpu]},
      {"sys", &Scopes[LSys]}, {"bsync", &Bsync},
  };
  for (unsigned D = 0; D < NumDynamic; ++D)
    DynamicSlot[D] = -1;
  for (const cat::PrimitiveInfo &PI : cat::primitiveNames()) {
    std::string Name(PI.Name);
    if (PI.IsSet) {
      unsigned S = 0;
      while (S < NumSets && PI.Name != SetNames[S])
        ++S;
      X->setSet(Name, S < NumSets ? Sets[S] : EventSet(N));
      continue;
    }
    int32_t Slot = int32_t(X->relations().size());
    bool Done = false;
    for (unsigned D = 0; D < NumDynamic && !Done; ++D)
      if (PI.Name == DynamicNames[D]) {
        X->setRelation(Name, Relation(N));
        DynamicSlot[D] = Slot;
        Done = true;
      }
    for (const Named &F : Fixed)
      if (!Done && PI.Name == F.Name) {
        X->setRelation(Name, *F.R);
        Done = true;
      }
    for (size_t K = 0; K < std::size(FenceRels) && !Done; ++K)
      if (PI.Name == FenceRels[K].Name) {
        X->setRelation(Name, FenceRelations[K]);
        Done = true;
      }
    if (!Done) // a primitive this enumerator does not know: empty
      X->setRelation(Name, Relation(N));
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
