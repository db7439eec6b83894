//===- Model.cpp - Loading and evaluating cat models ----------------------===//
//
// Evaluation runs the compiled Program (Program.h) over a register file in a
// per-thread arena: primitive registers point straight into the Execution's
// bit matrices, everything else is computed in place. Primitive names are
// bound to the Execution's entries once per layout (Execution::layoutKey),
// so the hot path does no string work.
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Model.h"

#include "BitOps.h"
#include "Compiler.h"
#include "Program.h"

#include "incant/Cat/Primitives.h"

#include <array>
#include <atomic>
#include <cassert>
#include <mutex>
#include <ostream>
#include <string_view>

namespace incant::cat {

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

static uint64_t mixName(uint64_t Key, std::string_view Name, bool IsSet) {
  // FNV-1a over the name, then folded into the running key.
  uint64_t H = 0xcbf29ce484222325ull ^ (IsSet ? 0x5e7 : 0x2e1);
  for (char C : Name) {
    H ^= static_cast<unsigned char>(C);
    H *= 0x100000001b3ull;
  }
  Key ^= H + 0x9e3779b97f4a7c15ull + (Key << 6) + (Key >> 2);
  return Key;
}

void Execution::setSet(const std::string &Name, EventSet S) {
  Key = mixName(Key, Name, true);
  Sets.push_back({Name, std::move(S)});
}

void Execution::setRelation(const std::string &Name, Relation R) {
  Key = mixName(Key, Name, false);
  Rels.push_back({Name, std::move(R)});
}

const EventSet *Execution::set(const std::string &Name) const {
  for (size_t I = Sets.size(); I-- > 0;)
    if (Sets[I].Name == Name)
      return &Sets[I].S;
  return nullptr;
}

const Relation *Execution::relation(const std::string &Name) const {
  for (size_t I = Rels.size(); I-- > 0;)
    if (Rels[I].Name == Name)
      return &Rels[I].R;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// How the interpreter derives primitives the execution does not set
//===----------------------------------------------------------------------===//

namespace {

enum class Recipe : uint8_t { None, Full, Ident, Or, And, InvSeq, FenceRel };

struct Derivation {
  Recipe How = Recipe::None;
  int A = -1, B = -1; ///< Primitive indices of the operands.
};

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

/// Where each primitive is in an Execution of one layout: an index into
/// sets() or relations(), or -1.
struct LayoutBinding {
  uint64_t Key;
  size_t NumSets, NumRels;
  std::vector<int32_t> Slot;
};

/// The last binding this thread used, to skip the model's shared cache.
struct LastBinding {
  uint64_t ModelId = 0;
  std::shared_ptr<const LayoutBinding> B;
};
thread_local LastBinding TLSBinding;

std::atomic<uint64_t> NextModelId{1};

/// Per-thread scratch space, reused across evaluations.
struct Scratch {
  std::vector<uint64_t> Arena;
  std::vector<const uint64_t *> Reg;
  std::vector<uint64_t> Derived;
  std::vector<const uint64_t *> PrimPtr;
  std::vector<uint8_t> PrimState; ///< 0 not looked at, 1 busy, 2 done
  std::vector<uint64_t> Tmp;
  std::vector<uint64_t> FixIters;
};

thread_local Scratch TLS;

/// What a primitive over no events points at (never read).
const uint64_t NoWords = 0;

} // namespace

//===----------------------------------------------------------------------===//
// ModelImpl
//===----------------------------------------------------------------------===//

class ModelImpl {
public:
  explicit ModelImpl(Program P) : P(std::move(P)) {}

  /// Unique for the life of the process (unlike the object's address).
  const uint64_t Id = NextModelId++;

  using Binding = LayoutBinding;

  /// The binding for \p X's layout (per-thread last one, else the cache).
  /// Valid until this thread's next bind().
  const Binding *bind(const Execution &X) const;
  std::shared_ptr<const Binding> lookupShared(const Execution &X) const;
  Verdict evaluate(const Execution &X) const;

  Program P;

private:
  const uint64_t *prim(unsigned Idx, const Execution &X, const Binding &B,
                       Scratch &S, std::string &Error) const;

  mutable std::mutex Mu;
  mutable std::vector<std::shared_ptr<const Binding>> Cache;
};

const ModelImpl::Binding *ModelImpl::bind(const Execution &X) const {
  uint64_t Key = X.layoutKey();
  LastBinding &Last = TLSBinding;
  if (Last.ModelId == Id && Last.B->Key == Key &&
      Last.B->NumSets == X.sets().size() &&
      Last.B->NumRels == X.relations().size())
    return Last.B.get();
  Last.B = lookupShared(X);
  Last.ModelId = Id;
  return Last.B.get();
}

std::shared_ptr<const ModelImpl::Binding>
ModelImpl::lookupShared(const Execution &X) const {
  uint64_t Key = X.layoutKey();
  {
    std::lock_guard<std::mutex> Lock(Mu);
    for (const auto &B : Cache)
      if (B->Key == Key && B->NumSets == X.sets().size() &&
          B->NumRels == X.relations().size())
        return B;
  }
  auto B = std::make_shared<Binding>();
  B->Key = Key;
  B->NumSets = X.sets().size();
  B->NumRels = X.relations().size();
  B->Slot.assign(primitiveNames().size(), -1);
  auto Prims = primitiveNames();
  for (size_t I = 0; I != X.sets().size(); ++I)
    if (auto Idx = lookupPrimitive(X.sets()[I].Name); Idx && Prims[*Idx].IsSet)
      B->Slot[*Idx] = int32_t(I);
  for (size_t I = 0; I != X.relations().size(); ++I)
    if (auto Idx = lookupPrimitive(X.relations()[I].Name);
        Idx && !Prims[*Idx].IsSet)
      B->Slot[*Idx] = int32_t(I);
  std::lock_guard<std::mutex> Lock(Mu);
  if (Cache.size() >= 16)
    Cache.erase(Cache.begin());
  Cache.push_back(B);
  return B;
}

const uint64_t *ModelImpl::prim(unsigned Idx, const Execution &X,
                                const Binding &B, Scratch &S,
                                std::string &Error) const {
  if (S.PrimState[Idx] == 2)
    return S.PrimPtr[Idx];
  const PrimitiveInfo &Info = primitiveNames()[Idx];
  unsigned N = X.numEvents();
  if (int32_t Slot = B.Slot[Idx]; Slot >= 0) {
    const uint64_t *Ptr;
    unsigned Size;
    if (Info.IsSet) {
      const EventSet &E = X.sets()[Slot].S;
      Ptr = E.size() ? E.words().data() : &NoWords;
      Size = E.size();
    } else {
      const Relation &R = X.relations()[Slot].R;
      Ptr = R.size() ? R.row(0) : &NoWords;
      Size = R.size();
    }
    if (Size != N) {
      Error = "primitive '" + std::string(Info.Name) + "' has " +
              std::to_string(Size) + " events, but the execution has " +
              std::to_string(N);
      return nullptr;
    }
    S.PrimState[Idx] = 2;
    return S.PrimPtr[Idx] = Ptr;
  }
  const Derivation &D = derivations()[Idx];
  if (D.How == Recipe::None || S.PrimState[Idx] == 1) {
    Error = "the execution does not give primitive '" +
            std::string(Info.Name) + "'";
    return nullptr;
  }
  S.PrimState[Idx] = 1;
  const uint64_t *A = nullptr, *Bp = nullptr;
  if (D.A >= 0 && !(A = prim(D.A, X, B, S, Error)))
    return nullptr;
  if (D.B >= 0 && !(Bp = prim(D.B, X, B, S, Error)))
    return nullptr;
  unsigned Wd = bits::wordsFor(N);
  size_t Stride = size_t(N) * Wd;
  uint64_t *Out = S.Derived.data() + Idx * Stride;
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
    bits::inverse(S.Tmp.data(), A, N);
    bits::compose(Out, S.Tmp.data(), Bp, N);
    break;
  case Recipe::FenceRel: { // po ; [A & B] ; po
    const uint64_t *Po = prim(*lookupPrimitive("po"), X, B, S, Error);
    if (!Po)
      return nullptr;
    uint64_t *Fences = S.Tmp.data() + Stride; // Wd words
    bits::andOf(Fences, A, Bp, Wd);
    std::vector<uint64_t> All(Wd);
    bits::fullSet(All.data(), N);
    bits::restrict(S.Tmp.data(), Po, All.data(), Fences, N); // po;[F]
    bits::compose(Out, S.Tmp.data(), Po, N);
    break;
  }
  }
  S.PrimState[Idx] = 2;
  return S.PrimPtr[Idx] = Out;
}

Verdict ModelImpl::evaluate(const Execution &X) const {
  Verdict V;
  const Binding *B = bind(X);
  Scratch &S = TLS;
  unsigned N = X.numEvents();
  unsigned Wd = bits::wordsFor(N);
  size_t Stride = size_t(N) * Wd;
  size_t NumPrims = primitiveNames().size();

  // +1 so that data() is never null, even with no events.
  S.Arena.resize(P.NumRegs * Stride + 1);
  S.Reg.resize(P.NumRegs);
  S.PrimPtr.assign(NumPrims, nullptr);
  S.PrimState.assign(NumPrims, 0);
  if (S.Derived.size() < NumPrims * Stride + 1)
    S.Derived.resize(NumPrims * Stride + 1);
  if (S.Tmp.size() < Stride + Wd + 1)
    S.Tmp.resize(Stride + Wd + 1);
  S.FixIters.assign(P.Fixes.size(), 0);

  uint64_t *Arena = S.Arena.data();
  for (unsigned R = 0; R != P.NumRegs; ++R)
    S.Reg[R] = Arena + R * Stride;
  for (const PrimReg &PR : P.Prims) {
    const uint64_t *Ptr = prim(PR.Prim, X, *B, S, V.Error);
    if (!Ptr) {
      V.Allowed = false;
      return V;
    }
    S.Reg[PR.Reg] = Ptr;
  }

  const uint64_t *const *Reg = S.Reg.data();
  auto Dst = [&](int32_t R) { return Arena + R * Stride; };
  const uint64_t Cap = uint64_t(Stride) * 64 + 2;
  for (size_t Pc = 0, E = P.Code.size(); Pc < E; ++Pc) {
    const Instr &I = P.Code[Pc];
    size_t Len = I.Rel ? Stride : Wd;
    switch (I.Code) {
    case Op::Zero:
      bits::zero(Dst(I.Dst), Stride);
      break;
    case Op::Union:
      bits::orOf(Dst(I.Dst), Reg[I.A], Reg[I.B], Len);
      break;
    case Op::Inter:
      bits::andOf(Dst(I.Dst), Reg[I.A], Reg[I.B], Len);
      break;
    case Op::Diff:
      bits::diffOf(Dst(I.Dst), Reg[I.A], Reg[I.B], Len);
      break;
    case Op::Seq:
      bits::compose(Dst(I.Dst), Reg[I.A], Reg[I.B], N);
      break;
    case Op::Product:
      bits::product(Dst(I.Dst), Reg[I.A], Reg[I.B], N);
      break;
    case Op::ComplSet:
      bits::complementSet(Dst(I.Dst), Reg[I.A], N);
      break;
    case Op::ComplRel:
      bits::complementRel(Dst(I.Dst), Reg[I.A], N);
      break;
    case Op::Inverse:
      bits::inverse(Dst(I.Dst), Reg[I.A], N);
      break;
    case Op::Plus:
      bits::copy(Dst(I.Dst), Reg[I.A], Stride);
      bits::closeTransitively(Dst(I.Dst), N);
      break;
    case Op::Star:
      bits::copy(Dst(I.Dst), Reg[I.A], Stride);
      bits::closeTransitively(Dst(I.Dst), N);
      bits::addIdentity(Dst(I.Dst), N);
      break;
    case Op::Opt:
      bits::copy(Dst(I.Dst), Reg[I.A], Stride);
      bits::addIdentity(Dst(I.Dst), N);
      break;
    case Op::IdOn:
      bits::identityOn(Dst(I.Dst), Reg[I.A], N);
      break;
    case Op::Domain:
      bits::domain(Dst(I.Dst), Reg[I.A], N);
      break;
    case Op::Range:
      bits::range(Dst(I.Dst), Reg[I.A], N);
      break;
    case Op::Restrict:
      bits::restrict(Dst(I.Dst), Reg[I.A], Reg[I.B], Reg[I.C], N);
      break;
    case Op::FixInit:
      for (auto [Var, Res] : P.Fixes[I.A].Vars)
        bits::zero(Dst(Var), Stride);
      S.FixIters[I.A] = 0;
      break;
    case Op::FixLoop: {
      const FixBlock &F = P.Fixes[I.A];
      bool Changed = false;
      for (size_t K = 0; K != F.Vars.size(); ++K) {
        auto [Var, Res] = F.Vars[K];
        size_t L = F.Rel[K] ? Stride : Wd;
        if (Var != Res && !bits::equal(Reg[Var], Reg[Res], L)) {
          bits::copy(Dst(Var), Reg[Res], L);
          Changed = true;
        }
      }
      if (Changed) {
        if (++S.FixIters[I.A] > Cap * F.Vars.size()) {
          V.Error = "a 'let rec' did not reach a fixpoint (its definition "
                    "is not monotone)";
          V.Allowed = false;
          return V;
        }
        Pc = size_t(I.B) - 1;
      }
      break;
    }
    }
  }

  for (const CheckInfo &C : P.Checks) {
    const uint64_t *R = Reg[C.Reg];
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
    if (C.Negated)
      Holds = !Holds;
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

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

Model::Model(std::unique_ptr<ModelImpl> Impl) : Impl(std::move(Impl)) {}
Model::Model(Model &&) noexcept = default;
Model &Model::operator=(Model &&) noexcept = default;
Model::~Model() = default;

std::optional<Model> Model::load(const std::string &Path,
                                 DiagnosticEngine &Diags,
                                 const std::vector<std::string> &IncludeDirs) {
  std::string Err;
  std::shared_ptr<SourceFile> File = SourceFile::read(Path, Err);
  if (!File) {
    Diags.error("cannot read model '" + Path + "': " + Err);
    return std::nullopt;
  }
  return parse(std::move(File), Diags, IncludeDirs);
}

std::optional<Model> Model::parse(std::shared_ptr<const SourceFile> File,
                                  DiagnosticEngine &Diags,
                                  const std::vector<std::string> &IncludeDirs) {
  std::optional<Program> P = compileModel(std::move(File), Diags, IncludeDirs);
  if (!P)
    return std::nullopt;
  return Model(std::make_unique<ModelImpl>(std::move(*P)));
}

const std::string &Model::name() const { return Impl->P.Title; }

bool Model::partialCoherence() const { return Impl->P.PartialCoherence; }

bool Model::usesPrimitive(std::string_view Name) const {
  std::optional<unsigned> Idx = lookupPrimitive(Name);
  if (!Idx)
    return false;
  // A derived primitive reads the ones its recipe names, transitively.
  std::vector<bool> Used(primitiveNames().size(), false);
  std::vector<unsigned> Work;
  for (const PrimReg &R : Impl->P.Prims)
    Work.push_back(R.Prim);
  while (!Work.empty()) {
    unsigned I = Work.back();
    Work.pop_back();
    if (Used[I])
      continue;
    Used[I] = true;
    const Derivation &D = derivations()[I];
    for (int Op : {D.A, D.B})
      if (Op >= 0)
        Work.push_back(unsigned(Op));
    if (D.How == Recipe::FenceRel)
      Work.push_back(*lookupPrimitive("po"));
  }
  return Used[*Idx];
}

Verdict Model::evaluate(const Execution &X) const {
  return Impl->evaluate(X);
}

void Model::print(std::ostream &OS) const {
  static const char *const Names[] = {
      "zero",   "union", "inter",    "diff",     "seq",     "product",
      "~set",   "~rel",  "inverse",  "plus",     "star",    "opt",
      "id-on",  "domain", "range",   "restrict", "fix-init", "fix-loop"};
  const Program &P = Impl->P;
  OS << "model '" << P.Title << "': " << P.NumRegs << " registers, "
     << P.Code.size() << " operations, " << P.Checks.size() << " checks\n";
  for (const PrimReg &R : P.Prims)
    OS << "  r" << R.Reg << " = " << primitiveNames()[R.Prim].Name << "\n";
  for (size_t Pc = 0; Pc != P.Code.size(); ++Pc) {
    const Instr &I = P.Code[Pc];
    OS << "  " << Pc << ": ";
    if (I.Code == Op::FixInit || I.Code == Op::FixLoop) {
      OS << Names[size_t(I.Code)] << " #" << I.A;
      if (I.Code == Op::FixLoop) {
        OS << " to " << I.B << " [";
        for (auto [Var, Res] : P.Fixes[I.A].Vars)
          OS << " r" << Var << "<-r" << Res;
        OS << " ]";
      }
      OS << "\n";
      continue;
    }
    OS << "r" << I.Dst << " = " << Names[size_t(I.Code)];
    for (int32_t R : {I.A, I.B, I.C})
      if (R >= 0)
        OS << " r" << R;
    OS << "\n";
  }
  for (const CheckInfo &C : P.Checks)
    OS << "  check " << (C.Flag ? "flag " : "") << (C.Negated ? "~" : "")
       << (C.Kind == ast::CheckKind::Acyclic       ? "acyclic"
           : C.Kind == ast::CheckKind::Irreflexive ? "irreflexive"
                                                   : "empty")
       << " r" << C.Reg << " as " << C.Name << "\n";
}

} // namespace incant::cat
