//===- Evaluator.cpp - Evaluating a compiled cat model in stages ----------===//
//
// The compiled Program (Program.h) runs over a register file in an arena:
// primitive registers point straight into the Execution's bit matrices,
// everything else is computed in place. A Binding (ModelImpl.h) gives each
// register the level of the latest primitive it reads; stage L runs only
// the instructions of level L, so what a trace combination fixes is
// computed once for all its rf and co choices.
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Evaluator.h"

#include "BitOps.h"
#include "ModelImpl.h"

#include "incant/Cat/Primitives.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <string>

namespace incant::cat {

//===----------------------------------------------------------------------===//
// Derived primitives and bindings
//===----------------------------------------------------------------------===//

const std::vector<Derivation> &derivations() {
  static const std::vector<Derivation> Table = [] {
    auto Idx = [](std::string_view N) { return int(*lookupPrimitive(N)); };
    std::vector<Derivation> T(primitiveNames().size());
    auto Set = [&](std::string_view N, Recipe R, std::string_view A = {},
                   std::string_view B = {}) {
      T[Idx(N)] = {R, A.empty() ? -1 : Idx(A), B.empty() ? -1 : Idx(B)};
    };
    Set("_", Recipe::Full);
    Set("id", Recipe::Ident);
    Set("M", Recipe::Or, "R", "W");
    Set("fr", Recipe::InvSeq, "rf", "co");
    Set("po-loc", Recipe::And, "po", "loc");
    Set("rfe", Recipe::And, "rf", "ext");
    Set("rfi", Recipe::And, "rf", "int");
    Set("coe", Recipe::And, "co", "ext");
    Set("coi", Recipe::And, "co", "int");
    Set("fre", Recipe::And, "fr", "ext");
    Set("fri", Recipe::And, "fr", "int");
    Set("membar.cta", Recipe::FenceRel, "MEMBAR", "CTA");
    Set("membar.gl", Recipe::FenceRel, "MEMBAR", "GPU");
    Set("membar.sys", Recipe::FenceRel, "MEMBAR", "SYS");
    for (std::string_view Scope : {"cta", "cluster", "gpu", "sys"}) {
      std::string_view Upper = Scope == "cta"       ? "CTA"
                               : Scope == "cluster" ? "CLUSTER"
                               : Scope == "gpu"     ? "GPU"
                                                    : "SYS";
      Set("fence.sc." + std::string(Scope), Recipe::FenceRel, "FENCE_SC",
          Upper);
      Set("fence.acq_rel." + std::string(Scope), Recipe::FenceRel,
          "FENCE_ACQ_REL", Upper);
    }
    for (size_t I = 0; I != T.size(); ++I)
      assert((T[I].How != Recipe::None) == primitiveNames()[I].Derivable &&
             "primitive table and derivations disagree");
    return T;
  }();
  return Table;
}

namespace {

Polarity join(Polarity A, Polarity B) {
  if (A == Polarity::None)
    return B;
  if (B == Polarity::None || A == B)
    return A;
  return Polarity::Both;
}

Polarity flip(Polarity A) {
  return A == Polarity::Up     ? Polarity::Down
         : A == Polarity::Down ? Polarity::Up
                               : A;
}

} // namespace

/// The level of every register and instruction, in code order; a let rec
/// block takes the level of its whole body.
void ModelImpl::computeLevels(Binding &B) const {
  for (const PrimReg &R : P.Prims)
    B.RegLevel[size_t(R.Reg)] = B.PrimLevel[R.Prim];
  auto Visit = [&](const Instr &I) {
    uint8_t L = 0;
    for (int32_t R : {I.A, I.B, I.C})
      if (R >= 0)
        L = std::max(L, B.RegLevel[size_t(R)]);
    B.RegLevel[size_t(I.Dst)] = L;
    return L;
  };
  for (size_t Pc = 0; Pc != P.Code.size(); ++Pc) {
    const Instr &I = P.Code[Pc];
    if (I.Code != Op::FixInit) {
      B.InstrLevel[Pc] = Visit(I);
      continue;
    }
    size_t End = Pc + 1;
    while (!(P.Code[End].Code == Op::FixLoop && P.Code[End].A == I.A))
      ++End;
    const FixBlock &F = P.Fixes[size_t(I.A)];
    uint8_t L = 0;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (size_t Q = Pc + 1; Q != End; ++Q)
        L = std::max(L, Visit(P.Code[Q]));
      for (auto [Var, Res] : F.Vars) {
        uint8_t NL = std::max({L, B.RegLevel[size_t(Var)],
                               B.RegLevel[size_t(Res)]});
        Changed |= NL != B.RegLevel[size_t(Var)];
        B.RegLevel[size_t(Var)] = NL;
        L = NL;
      }
    }
    for (size_t Q = Pc; Q <= End; ++Q) {
      B.InstrLevel[Q] = L;
      if (P.Code[Q].Dst >= 0)
        B.RegLevel[size_t(P.Code[Q].Dst)] = L;
    }
    for (auto [Var, Res] : F.Vars)
      B.RegLevel[size_t(Var)] = L;
    Pc = End;
  }
}

/// How each register moves when the primitives of level \p Level grow; a
/// let rec block is iterated until its variables' polarities settle.
std::vector<Polarity> ModelImpl::polarities(const Binding &B,
                                            unsigned Level) const {
  std::vector<Polarity> Pol(P.NumRegs, Polarity::None);
  for (const PrimReg &R : P.Prims)
    if (B.PrimLevel[R.Prim] == Level)
      Pol[size_t(R.Reg)] = Polarity::Up;
  auto Visit = [&](const Instr &I) {
    Polarity Out = Polarity::None;
    int32_t Ops[3] = {I.A, I.B, I.C};
    for (int K = 0; K != 3; ++K) {
      if (Ops[K] < 0)
        continue;
      Polarity P1 = Pol[size_t(Ops[K])];
      bool Negative = (I.Code == Op::Diff && K == 1) ||
                      I.Code == Op::ComplSet || I.Code == Op::ComplRel;
      Out = join(Out, Negative ? flip(P1) : P1);
    }
    Pol[size_t(I.Dst)] = Out;
  };
  for (size_t Pc = 0; Pc != P.Code.size(); ++Pc) {
    const Instr &I = P.Code[Pc];
    if (I.Code != Op::FixInit) {
      if (I.Code != Op::FixLoop)
        Visit(I);
      continue;
    }
    size_t End = Pc + 1;
    while (!(P.Code[End].Code == Op::FixLoop && P.Code[End].A == I.A))
      ++End;
    const FixBlock &F = P.Fixes[size_t(I.A)];
    for (int Round = 0; Round != 8; ++Round) {
      for (size_t Q = Pc + 1; Q != End; ++Q)
        Visit(P.Code[Q]);
      bool Changed = false;
      for (auto [Var, Res] : F.Vars) {
        Polarity NP = join(Pol[size_t(Var)], Pol[size_t(Res)]);
        Changed |= NP != Pol[size_t(Var)];
        Pol[size_t(Var)] = NP;
      }
      if (!Changed)
        break;
    }
    Pc = End;
  }
  return Pol;
}

std::shared_ptr<Binding> ModelImpl::makeBinding(const Execution &X) const {
  auto B = std::make_shared<Binding>();
  B->Key = X.layoutKey();
  B->NumSets = X.sets().size();
  B->NumRels = X.relations().size();
  auto Prims = primitiveNames();
  B->Slot.assign(Prims.size(), -1);
  B->PrimLevel.assign(Prims.size(), 0);
  for (size_t I = 0; I != X.sets().size(); ++I)
    if (auto Idx = lookupPrimitive(X.sets()[I].Name); Idx && Prims[*Idx].IsSet)
      B->Slot[*Idx] = int32_t(I);
  for (size_t I = 0; I != X.relations().size(); ++I)
    if (auto Idx = lookupPrimitive(X.relations()[I].Name);
        Idx && !Prims[*Idx].IsSet) {
      B->Slot[*Idx] = int32_t(I);
      B->PrimLevel[*Idx] = X.relations()[I].Level;
    }
  // A derived primitive is at the level of what it reads.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 0; I != Prims.size(); ++I) {
      if (B->Slot[I] >= 0)
        continue;
      const Derivation &D = derivations()[I];
      uint8_t L = 0;
      for (int Op : {D.A, D.B})
        if (Op >= 0)
          L = std::max(L, B->PrimLevel[size_t(Op)]);
      if (D.How == Recipe::FenceRel)
        L = std::max(L, B->PrimLevel[*lookupPrimitive("po")]);
      if (L > B->PrimLevel[I]) {
        B->PrimLevel[I] = L;
        Changed = true;
      }
    }
  }
  // The top level is the highest the model reads.
  for (const PrimReg &R : P.Prims)
    B->Top = std::max(B->Top, B->PrimLevel[R.Prim]);

  B->RegLevel.assign(P.NumRegs, 0);
  B->InstrLevel.assign(P.Code.size(), 0);
  B->Transitive.assign(P.NumRegs, false);
  for (const PrimReg &R : P.Prims)
    if (int32_t Slot = B->Slot[R.Prim]; Slot >= 0 && !Prims[R.Prim].IsSet)
      B->Transitive[size_t(R.Reg)] = X.relations()[size_t(Slot)].Transitive;
  computeLevels(*B);
  size_t Levels = size_t(std::max<uint8_t>(
                      B->Top, *std::max_element(B->PrimLevel.begin(),
                                                B->PrimLevel.end()))) +
                  1;
  B->CodeBegin.assign(Levels, uint32_t(P.Code.size()));
  B->CodeEnd.assign(Levels, 0);
  for (size_t Pc = 0; Pc != P.Code.size(); ++Pc) {
    size_t L = B->InstrLevel[Pc];
    B->CodeBegin[L] = std::min(B->CodeBegin[L], uint32_t(Pc));
    B->CodeEnd[L] = uint32_t(Pc + 1);
  }
  B->LevelPrims.assign(Levels, {});
  for (size_t I = 0; I != P.Prims.size(); ++I)
    B->LevelPrims[B->PrimLevel[P.Prims[I].Prim]].push_back(uint32_t(I));
  B->PrimsFrom.assign(Levels, {});
  for (size_t L = 0; L != Levels; ++L)
    for (size_t I = 0; I != Prims.size(); ++I)
      if (B->PrimLevel[I] >= L)
        B->PrimsFrom[L].push_back(uint32_t(I));
  B->RegPol.assign(size_t(B->Top) + 1, {});
  for (unsigned L = 1; L <= B->Top; ++L)
    B->RegPol[L] = polarities(*B, L);
  return B;
}

std::shared_ptr<const Binding> ModelImpl::bind(const Execution &X) const {
  uint64_t Key = X.layoutKey();
  {
    std::lock_guard<std::mutex> Lock(Mu);
    for (const auto &B : Cache)
      if (B->Key == Key && B->NumSets == X.sets().size() &&
          B->NumRels == X.relations().size())
        return B;
  }
  std::shared_ptr<const Binding> B = makeBinding(X);
  std::lock_guard<std::mutex> Lock(Mu);
  if (Cache.size() >= 16)
    Cache.erase(Cache.begin());
  Cache.push_back(B);
  return B;
}

//===----------------------------------------------------------------------===//
// The machine
//===----------------------------------------------------------------------===//

namespace {
/// What a primitive over no events points at (never read).
const uint64_t NoWords = 0;
} // namespace

class EvaluatorImpl {
public:
  explicit EvaluatorImpl(const ModelImpl &M) : M(M) {}

  bool stage(const Execution &X, unsigned Level);
  bool keep(const Execution &X, unsigned Level) {
    const Binding *Before = B.get();
    bindTo(X);
    if (B.get() != Before || Staged < int(Level) || !Error.empty() ||
        N != X.numEvents())
      return false;
    Staged = int(Level);
    return true;
  }
  Verdict finish(const Execution &X);
  Verdict evaluateAll(const Execution &X);
  bool refutes(const Execution &X, unsigned From, uint32_t UpperMask);
  bool canRefute(const Execution &X, unsigned From, uint32_t UpperMask) {
    bindTo(X);
    for (const CheckInfo &C : M.P.Checks)
      if (eligible(C, From, UpperMask))
        return true;
    return false;
  }
  bool coherenceOrdered(const Execution &X, Relation &Out);

private:
  const ModelImpl &M;
  std::shared_ptr<const Binding> B;
  unsigned N = 0, Wd = 0;
  size_t Stride = 0;
  /// Grow-only word buffers, not zeroed (a check makes an evaluator per
  /// test; zeroing them was 3% of a small test): every register, derived
  /// primitive and scratch row is written before it is read.
  struct Words {
    std::unique_ptr<uint64_t[]> P;
    size_t Size = 0;
    /// At least \p N words; the contents are lost when it grows.
    void reserve(size_t N) {
      if (N > Size) {
        P.reset(new uint64_t[N]);
        Size = N;
      }
    }
    uint64_t *data() { return P.get(); }
  };
  Words Arena;
  std::vector<const uint64_t *> Reg;
  Words Derived;
  std::vector<const uint64_t *> PrimPtr;
  std::vector<uint8_t> PrimState; ///< 0 not looked at, 1 busy, 2 done
  Words Tmp;
  std::vector<uint64_t> FixIters;
  std::string Error;
  /// The levels up to this one hold the values of the last stages.
  int Staged = -1;
  /// orderedRegisters() of the model, once asked for.
  std::optional<std::vector<int32_t>> Ordered;
  /// Per check: what holds() gave on the registers as the last stage of its
  /// level left them (1 holds, 0 fails, -1 not known: not tested since, or
  /// its register's level was run again, by a stage or on bounds); verdict()
  /// takes it rather than testing an allowed candidate's checks twice.
  /// Checks of a primitive itself are never kept (the execution's data may
  /// change under them).
  std::vector<int8_t> CheckKnown;
  std::vector<bool> CheckKeepable;

  void bindTo(const Execution &X);
  const uint64_t *prim(unsigned Idx, const Execution &X);
  bool run(unsigned Level);
  bool holds(const CheckInfo &C) const;
  /// Forgets the results of the checks at \p Level (their registers are
  /// about to be computed again).
  void forgetChecks(unsigned Level);
  Verdict verdict() const;
  bool eligible(const CheckInfo &C, unsigned From, uint32_t UpperMask) const;
};

void EvaluatorImpl::bindTo(const Execution &X) {
  if (!B || B->Key != X.layoutKey() || B->NumSets != X.sets().size() ||
      B->NumRels != X.relations().size())
    B = M.bind(X);
}

const uint64_t *EvaluatorImpl::prim(unsigned Idx, const Execution &X) {
  if (PrimState[Idx] == 2)
    return PrimPtr[Idx];
  const PrimitiveInfo &Info = primitiveNames()[Idx];
  if (int32_t Slot = B->Slot[Idx]; Slot >= 0) {
    const uint64_t *Ptr;
    unsigned Size;
    if (Info.IsSet) {
      const EventSet &E = X.sets()[size_t(Slot)].S;
      Ptr = E.size() ? E.words().data() : &NoWords;
      Size = E.size();
    } else {
      const Relation &R = X.relations()[size_t(Slot)].R;
      Ptr = R.size() ? R.row(0) : &NoWords;
      Size = R.size();
    }
    if (Size != N) {
      Error = "primitive '" + std::string(Info.Name) + "' has " +
              std::to_string(Size) + " events, but the execution has " +
              std::to_string(N);
      return nullptr;
    }
    PrimState[Idx] = 2;
    return PrimPtr[Idx] = Ptr;
  }
  const Derivation &D = derivations()[Idx];
  if (D.How == Recipe::None || PrimState[Idx] == 1) {
    Error = "the execution does not give primitive '" +
            std::string(Info.Name) + "'";
    return nullptr;
  }
  PrimState[Idx] = 1;
  const uint64_t *A = nullptr, *Bp = nullptr;
  if (D.A >= 0 && !(A = prim(unsigned(D.A), X)))
    return nullptr;
  if (D.B >= 0 && !(Bp = prim(unsigned(D.B), X)))
    return nullptr;
  uint64_t *Out = Derived.data() + Idx * Stride;
  size_t Len = Info.IsSet ? Wd : Stride;
  switch (D.How) {
  case Recipe::None:
    break;
  case Recipe::Full:
    bits::fullSet(Out, N);
    break;
  case Recipe::Ident:
    bits::identity(Out, N);
    break;
  case Recipe::Or:
    bits::orOf(Out, A, Bp, Len);
    break;
  case Recipe::And:
    bits::andOf(Out, A, Bp, Len);
    break;
  case Recipe::InvSeq: // A^-1 ; B
    bits::inverse(Tmp.data(), A, N);
    bits::compose(Out, Tmp.data(), Bp, N);
    break;
  case Recipe::FenceRel: { // po ; [A & B] ; po
    const uint64_t *Po = prim(*lookupPrimitive("po"), X);
    if (!Po)
      return nullptr;
    uint64_t *Fences = Tmp.data() + Stride; // Wd words
    bits::andOf(Fences, A, Bp, Wd);
    uint64_t *All = Fences + Wd;
    bits::fullSet(All, N);
    bits::restrict(Tmp.data(), Po, All, Fences, N); // po;[F]
    bits::compose(Out, Tmp.data(), Po, N);
    break;
  }
  }
  PrimState[Idx] = 2;
  return PrimPtr[Idx] = Out;
}

bool EvaluatorImpl::stage(const Execution &X, unsigned Level) {
  bindTo(X);
  const Program &P = M.P;
  size_t NumPrims = primitiveNames().size();
  if (Level == 0) {
    N = X.numEvents();
    Wd = bits::wordsFor(N);
    Stride = size_t(N) * Wd;
    // +1 so that data() is never null, even with no events.
    Arena.reserve(P.NumRegs * Stride + 1);
    Reg.assign(P.NumRegs, nullptr);
    for (unsigned R = 0; R != P.NumRegs; ++R)
      Reg[R] = Arena.data() + R * Stride;
    Derived.reserve(NumPrims * Stride + 1);
    Tmp.reserve(Stride + 2 * Wd + 1);
    PrimPtr.assign(NumPrims, nullptr);
    PrimState.assign(NumPrims, 0);
    Error.clear();
    CheckKnown.assign(P.Checks.size(), -1);
    if (CheckKeepable.size() != P.Checks.size()) {
      CheckKeepable.assign(P.Checks.size(), true);
      for (size_t I = 0; I != P.Checks.size(); ++I)
        for (const PrimReg &PR : P.Prims)
          if (PR.Reg == P.Checks[I].Reg)
            CheckKeepable[I] = false;
    }
  }
  if (!Error.empty())
    return false;
  static const std::vector<uint32_t> None;
  bool Known = Level < B->PrimsFrom.size();
  for (uint32_t I : Known ? B->PrimsFrom[Level] : None)
    PrimState[I] = 0;
  for (uint32_t K : Known ? B->LevelPrims[Level] : None) {
    const PrimReg &PR = P.Prims[K];
    const uint64_t *Ptr = prim(PR.Prim, X);
    if (!Ptr)
      return false;
    Reg[size_t(PR.Reg)] = Ptr;
  }
  if (!run(Level))
    return false;
  Staged = int(Level);
  for (size_t I = 0; I != P.Checks.size(); ++I) {
    const CheckInfo &C = P.Checks[I];
    if (C.Flag || B->RegLevel[size_t(C.Reg)] != Level)
      continue;
    bool Holds = holds(C);
    if (CheckKeepable[I])
      CheckKnown[I] = int8_t(Holds);
    if (!Holds)
      return false;
  }
  return true;
}

void EvaluatorImpl::forgetChecks(unsigned Level) {
  const std::vector<CheckInfo> &Checks = M.P.Checks;
  for (size_t I = 0; I != Checks.size() && I != CheckKnown.size(); ++I)
    if (B->RegLevel[size_t(Checks[I].Reg)] == Level)
      CheckKnown[I] = -1;
}

bool EvaluatorImpl::run(unsigned Level) {
  const Program &P = M.P;
  const uint64_t *const *R = Reg.data();
  uint64_t *A = Arena.data();
  auto Dst = [&](int32_t D) { return A + size_t(D) * Stride; };
  const uint64_t Cap = uint64_t(Stride) * 64 + 2;
  if (FixIters.size() < P.Fixes.size())
    FixIters.resize(P.Fixes.size());
  forgetChecks(Level);
  if (Level >= B->CodeBegin.size())
    return true;
  for (size_t Pc = B->CodeBegin[Level], E = B->CodeEnd[Level]; Pc < E; ++Pc) {
    if (B->InstrLevel[Pc] != Level)
      continue;
    const Instr &I = P.Code[Pc];
    size_t Len = I.Rel ? Stride : Wd;
    switch (I.Code) {
    case Op::Zero:
      bits::zero(Dst(I.Dst), Stride);
      break;
    case Op::Union:
      bits::orOf(Dst(I.Dst), R[I.A], R[I.B], Len);
      break;
    case Op::Inter:
      bits::andOf(Dst(I.Dst), R[I.A], R[I.B], Len);
      break;
    case Op::Diff:
      bits::diffOf(Dst(I.Dst), R[I.A], R[I.B], Len);
      break;
    case Op::Seq:
      bits::compose(Dst(I.Dst), R[I.A], R[I.B], N);
      break;
    case Op::Product:
      bits::product(Dst(I.Dst), R[I.A], R[I.B], N);
      break;
    case Op::ComplSet:
      bits::complementSet(Dst(I.Dst), R[I.A], N);
      break;
    case Op::ComplRel:
      bits::complementRel(Dst(I.Dst), R[I.A], N);
      break;
    case Op::Inverse:
      bits::inverse(Dst(I.Dst), R[I.A], N);
      break;
    case Op::Plus:
      bits::copy(Dst(I.Dst), R[I.A], Stride);
      if (!B->Transitive[size_t(I.A)])
        bits::closeTransitively(Dst(I.Dst), N);
      break;
    case Op::Star:
      bits::copy(Dst(I.Dst), R[I.A], Stride);
      if (!B->Transitive[size_t(I.A)])
        bits::closeTransitively(Dst(I.Dst), N);
      bits::addIdentity(Dst(I.Dst), N);
      break;
    case Op::Opt:
      bits::copy(Dst(I.Dst), R[I.A], Stride);
      bits::addIdentity(Dst(I.Dst), N);
      break;
    case Op::IdOn:
      bits::identityOn(Dst(I.Dst), R[I.A], N);
      break;
    case Op::Domain:
      bits::domain(Dst(I.Dst), R[I.A], N);
      break;
    case Op::Range:
      bits::range(Dst(I.Dst), R[I.A], N);
      break;
    case Op::Restrict:
      bits::restrict(Dst(I.Dst), R[I.A], R[I.B], R[I.C], N);
      break;
    case Op::FixInit:
      for (auto [Var, Res] : P.Fixes[size_t(I.A)].Vars)
        bits::zero(Dst(Var), Stride);
      FixIters[size_t(I.A)] = 0;
      break;
    case Op::FixLoop: {
      const FixBlock &F = P.Fixes[size_t(I.A)];
      bool Changed = false;
      for (size_t K = 0; K != F.Vars.size(); ++K) {
        auto [Var, Res] = F.Vars[K];
        size_t L = F.Rel[K] ? Stride : Wd;
        if (Var != Res && !bits::equal(R[Var], R[Res], L)) {
          bits::copy(Dst(Var), R[Res], L);
          Changed = true;
        }
      }
      if (Changed) {
        if (++FixIters[size_t(I.A)] > Cap * F.Vars.size()) {
          Error = "a 'let rec' did not reach a fixpoint (its definition is "
                  "not monotone)";
          return false;
        }
        Pc = size_t(I.B) - 1;
      }
      break;
    }
    }
  }
  return true;
}

bool EvaluatorImpl::holds(const CheckInfo &C) const {
  const uint64_t *R = Reg[size_t(C.Reg)];
  bool Holds;
  switch (C.Kind) {
  case ast::CheckKind::Acyclic:
    Holds = bits::isAcyclic(R, N);
    break;
  case ast::CheckKind::Irreflexive:
    Holds = bits::isIrreflexive(R, N);
    break;
  case ast::CheckKind::Empty:
  default:
    Holds = bits::isZero(R, C.Rel ? Stride : Wd);
    break;
  }
  return C.Negated ? !Holds : Holds;
}

Verdict EvaluatorImpl::finish(const Execution &X) {
  bindTo(X);
  for (int L = std::max(Staged + 1, 0); L <= int(B->Top) && Error.empty();
       ++L)
    stage(X, unsigned(L));
  return verdict();
}

Verdict EvaluatorImpl::evaluateAll(const Execution &X) {
  bindTo(X);
  Error.clear();
  for (unsigned L = 0; L <= B->Top && Error.empty(); ++L)
    stage(X, L);
  return verdict();
}

Verdict EvaluatorImpl::verdict() const {
  Verdict V;
  if (!Error.empty()) {
    V.Allowed = false;
    V.Error = Error;
    return V;
  }
  for (size_t I = 0; I != M.P.Checks.size(); ++I) {
    const CheckInfo &C = M.P.Checks[I];
    bool Holds = I < CheckKnown.size() && CheckKnown[I] >= 0
                     ? CheckKnown[I] != 0
                     : holds(C);
    if (C.Flag) {
      if (Holds)
        V.Flags.push_back(C.Name);
    } else if (!Holds) {
      V.Allowed = false;
      V.FailedChecks.push_back(C.Name);
    }
  }
  return V;
}

/// A check can refute bounds if, at every level from \p From on, its
/// failure grows with what the bound at that level holds: with a lower
/// bound (a subset of every completion) where its expression grows, with
/// an upper bound where it shrinks, or the level does not matter to it.
bool EvaluatorImpl::eligible(const CheckInfo &C, unsigned From,
                             uint32_t UpperMask) const {
  if (C.Flag || B->RegLevel[size_t(C.Reg)] < From)
    return false;
  bool Any = false;
  for (unsigned L = From; L <= B->Top; ++L) {
    Polarity P1 = B->RegPol[L][size_t(C.Reg)];
    if (C.Negated)
      P1 = flip(P1);
    if (P1 == Polarity::None)
      continue;
    bool Upper = UpperMask >> L & 1;
    if ((P1 == Polarity::Up && !Upper) || (P1 == Polarity::Down && Upper)) {
      Any = true;
      continue;
    }
    return false;
  }
  return Any;
}

bool EvaluatorImpl::refutes(const Execution &X, unsigned From,
                            uint32_t UpperMask) {
  if (From == 0 || From > B->Top)
    return false;
  size_t NumPrims = primitiveNames().size();
  for (size_t I = 0; I != NumPrims; ++I)
    if (B->PrimLevel[I] >= From)
      PrimState[I] = 0;
  for (const PrimReg &PR : M.P.Prims) {
    if (B->PrimLevel[PR.Prim] < From)
      continue;
    const uint64_t *Ptr = prim(PR.Prim, X);
    if (!Ptr)
      return false;
    Reg[size_t(PR.Reg)] = Ptr;
  }
  Staged = int(From) - 1;
  for (unsigned L = From; L <= B->Top; ++L)
    if (!run(L)) {
      Error.clear(); // a bound may not converge; never refute on it
      return false;
    }
  for (const CheckInfo &C : M.P.Checks)
    if (eligible(C, From, UpperMask) && !holds(C))
      return true;
  return false;
}

/// The registers E of the checks `empty E \ (co | co^-1)` of \p P, with co
/// the primitive coherence order or `co+` of it: every allowed execution
/// orders E's pairs of distinct events in co (an enumerated co is
/// transitive, so co+ is co).
static std::vector<int32_t> orderedRegisters(const Program &P) {
  std::vector<int32_t> Def(P.NumRegs, -1), Defs(P.NumRegs, 0);
  for (size_t Pc = 0; Pc != P.Code.size(); ++Pc)
    if (int32_t D = P.Code[Pc].Dst; D >= 0) {
      Def[size_t(D)] = int32_t(Pc);
      ++Defs[size_t(D)];
    }
  std::optional<unsigned> CoPrim = lookupPrimitive("co");
  auto IsPrimCo = [&](int32_t R) {
    for (const PrimReg &PR : P.Prims)
      if (PR.Reg == R)
        return CoPrim && PR.Prim == *CoPrim && Defs[size_t(R)] == 0;
    return false;
  };
  // A register holding one value, defined by \p Code (nullptr if not).
  auto Single = [&](int32_t R, Op Code) -> const Instr * {
    if (R < 0 || Defs[size_t(R)] != 1)
      return nullptr;
    const Instr &I = P.Code[size_t(Def[size_t(R)])];
    return I.Code == Code ? &I : nullptr;
  };
  auto IsCo = [&](int32_t R) {
    if (IsPrimCo(R))
      return true;
    const Instr *Plus = Single(R, Op::Plus);
    return Plus && IsPrimCo(Plus->A);
  };
  std::vector<int32_t> Out;
  for (const CheckInfo &C : P.Checks) {
    if (C.Kind != ast::CheckKind::Empty || C.Negated || C.Flag || !C.Rel)
      continue;
    const Instr *Diff = Single(C.Reg, Op::Diff);
    const Instr *Both = Diff && Diff->Rel ? Single(Diff->B, Op::Union) : nullptr;
    if (!Both || !Both->Rel)
      continue;
    for (auto [Fwd, Bwd] : {std::pair{Both->A, Both->B}, {Both->B, Both->A}}) {
      const Instr *Inv = Single(Bwd, Op::Inverse);
      if (Inv && Inv->A == Fwd && IsCo(Fwd)) {
        Out.push_back(Diff->A);
        break;
      }
    }
  }
  return Out;
}

bool EvaluatorImpl::coherenceOrdered(const Execution &X, Relation &Out) {
  bindTo(X);
  if (!Ordered)
    Ordered = orderedRegisters(M.P);
  bool Any = false;
  if (Staged < 0 || !Error.empty() || N != X.numEvents() || Out.size() != N)
    return false;
  for (int32_t R : *Ordered) {
    if (B->RegLevel[size_t(R)] != 0)
      continue;
    const uint64_t *Rows = Reg[size_t(R)];
    for (unsigned A = 0; A != N; ++A)
      for (unsigned K = 0; K != Wd; ++K)
        for (uint64_t Bits = Rows[A * Wd + K]; Bits; Bits &= Bits - 1)
          Out.insert(A, K * 64 + unsigned(__builtin_ctzll(Bits)));
    Any = true;
  }
  return Any;
}

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

Evaluator::Evaluator(const Model &M)
    : Impl(std::make_unique<EvaluatorImpl>(*M.Impl)) {}
Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator &&) noexcept = default;
Evaluator &Evaluator::operator=(Evaluator &&) noexcept = default;

bool Evaluator::stage(const Execution &X, unsigned Level) {
  return Impl->stage(X, Level);
}
bool Evaluator::keep(const Execution &X, unsigned Level) {
  return Impl->keep(X, Level);
}
Verdict Evaluator::finish(const Execution &X) { return Impl->finish(X); }
bool Evaluator::refutes(const Execution &X, unsigned From,
                        uint32_t UpperMask) {
  return Impl->refutes(X, From, UpperMask);
}
bool Evaluator::canRefute(const Execution &X, unsigned From,
                          uint32_t UpperMask) {
  return Impl->canRefute(X, From, UpperMask);
}
bool Evaluator::coherenceOrdered(const Execution &X, Relation &Out) {
  return Impl->coherenceOrdered(X, Out);
}

Verdict Model::evaluate(const Execution &X) const {
  thread_local uint64_t Last = 0;
  thread_local std::unique_ptr<EvaluatorImpl> Cached;
  if (!Cached || Last != Impl->Id) {
    Cached = std::make_unique<EvaluatorImpl>(*Impl);
    Last = Impl->Id;
  }
  return Cached->evaluateAll(X);
}

} // namespace incant::cat
