//===- Model.cpp - Executions, loading and printing cat models ------------===//
//
// The evaluation itself is in Evaluator.cpp.
//
//===----------------------------------------------------------------------===//
#include "incant/Cat/Model.h"

#include "Compiler.h"
#include "ModelImpl.h"

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

void Execution::resize(unsigned NumEvents) {
  N = NumEvents;
  for (NamedSet &S : Sets)
    S.S = EventSet(N);
  for (NamedRelation &R : Rels)
    R.R = Relation(N);
}

void Execution::setSet(const std::string &Name, EventSet S) {
  Key = mixName(Key, Name, true);
  Sets.push_back({Name, std::move(S)});
}

void Execution::setRelation(const std::string &Name, Relation R,
                            uint8_t Level, bool Transitive) {
  Key = mixName(Key, Name, false) + Level * 0x9e3779b97f4a7c15ull +
        (Transitive ? 0x2545f4914f6cdd1dull : 0);
  Rels.push_back({Name, std::move(R), Level, Transitive});
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

ModelImpl::ModelImpl(Program Prog)
    : P(std::move(Prog)), UsedPrims(primitiveNames().size(), false) {
  // A derived primitive reads the ones its recipe names, transitively.
  std::vector<unsigned> Work;
  for (const PrimReg &R : P.Prims)
    Work.push_back(R.Prim);
  while (!Work.empty()) {
    unsigned I = Work.back();
    Work.pop_back();
    if (UsedPrims[I])
      continue;
    UsedPrims[I] = true;
    const Derivation &D = derivations()[I];
    for (int Op : {D.A, D.B})
      if (Op >= 0)
        Work.push_back(unsigned(Op));
    if (D.How == Recipe::FenceRel)
      Work.push_back(*lookupPrimitive("po"));
  }
}

const std::string &Model::name() const { return Impl->P.Title; }

bool Model::partialCoherence() const { return Impl->P.PartialCoherence; }

bool Model::usesPrimitive(std::string_view Name) const {
  std::optional<unsigned> Idx = lookupPrimitive(Name);
  return Idx && Impl->UsedPrims[*Idx];
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
