//===- Inliner.cpp - Calls replaced by the bodies they call ---------------===//
#include "incant/IR/Inliner.h"

#include <fmt/format.h>
#include "Builtins.h"

#include <optional>
#include <set>
#include <unordered_map>

namespace incant::ir {

using ptx::BodyItem;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

namespace {

struct CallShape {
  std::string Callee;
  std::vector<std::string> Args, Rets;
  bool Indirect = false;
};

/// `call (r0, r1), f, (a0, a1), proto;` in parts.
CallShape shapeOf(const Instruction &I) {
  CallShape S;
  bool SeenCallee = false;
  for (const Operand &O : I.Ops) {
    if (O.K == Operand::List) {
      std::vector<std::string> &Into = SeenCallee ? S.Args : S.Rets;
      for (const Operand &E : O.Elems)
        Into.push_back(E.Name);
      continue;
    }
    if (!SeenCallee) {
      S.Callee = O.Name;
      S.Indirect = !O.Name.empty() && O.Name[0] == '%';
      SeenCallee = true;
    }
  }
  return S;
}

/// Renames the names of one inlined copy of a function.
class Renamer {
public:
  Renamer(const ptx::Function &F, const CallShape &Call, unsigned N) {
    Suffix = "_inl" + std::to_string(N);
    RegPrefix = "%inl" + std::to_string(N) + "_";
    for (const BodyItem &B : F.Body) {
      if (const auto *V = std::get_if<ptx::Variable>(&B)) {
        if (V->Space == ptx::AddrSpace::Reg) {
          if (V->IsRange)
            for (uint32_t K = 0; K < V->RangeCount; ++K)
              Names[V->Name + std::to_string(K)] = reg(V->Name + std::to_string(K));
          else
            Names[V->Name] = reg(V->Name);
        } else if (V->Space == ptx::AddrSpace::Param ||
                   V->Space == ptx::AddrSpace::Local) {
          Names[V->Name] = V->Name + Suffix;
        }
      } else if (const auto *L = std::get_if<ptx::Label>(&B)) {
        Names[L->Name] = L->Name + Suffix;
      } else if (const auto *P = std::get_if<ptx::CallPrototype>(&B)) {
        Names[P->Name] = P->Name + Suffix;
      }
    }
    for (size_t K = 0; K < F.Params.size() && K < Call.Args.size(); ++K)
      Names[F.Params[K].Name] = Call.Args[K];
    for (size_t K = 0; K < F.Returns.size() && K < Call.Rets.size(); ++K)
      Names[F.Returns[K].Name] = Call.Rets[K];
    Exit = "$Lret" + Suffix;
  }

  std::string reg(const std::string &Name) const {
    return RegPrefix + Name.substr(Name.empty() || Name[0] != '%' ? 0 : 1);
  }
  void rename(std::string &Name) const {
    auto It = Names.find(Name);
    if (It != Names.end())
      Name = It->second;
  }
  void rename(Operand &O) const {
    rename(O.Name);
    for (Operand &E : O.Elems)
      rename(E);
  }
  const std::string &exitLabel() const { return Exit; }

private:
  std::unordered_map<std::string, std::string> Names;
  std::string Suffix, RegPrefix, Exit;
};

/// The body items of one inlined copy of \p F. \p Site is the `.loc` of
/// the call, if any: the copy's own positions are chained to it, as nvcc's
/// inlined_at does, so that locations lead back to the caller's source.
std::vector<BodyItem> cloneBody(const ptx::Function &F, const Renamer &R,
                                const ptx::LocDirective *Site) {
  std::vector<BodyItem> Out;
  for (const BodyItem &B : F.Body) {
    BodyItem C = B;
    if (auto *L = std::get_if<ptx::LocDirective>(&C)) {
      if (Site && !L->HasInlinedAt && L->Line != 0) {
        L->HasInlinedAt = true;
        L->InlinedFile = Site->File;
        L->InlinedLine = Site->Line;
        L->InlinedCol = Site->Col;
      }
    } else if (auto *V = std::get_if<ptx::Variable>(&C)) {
      if (V->Space == ptx::AddrSpace::Reg)
        V->Name = R.reg(V->Name);
      else
        R.rename(V->Name);
    } else if (auto *L = std::get_if<ptx::Label>(&C)) {
      R.rename(L->Name);
    } else if (auto *P = std::get_if<ptx::CallPrototype>(&C)) {
      R.rename(P->Name);
    } else if (auto *I = std::get_if<Instruction>(&C)) {
      for (Operand &O : I->Ops)
        R.rename(O);
      if (I->G)
        R.rename(I->G->Reg);
      if (I->Op == Opcode::Ret) {
        // ret: on to the code after the call.
        Instruction Bra;
        Bra.Op = Opcode::Bra;
        Bra.Name = "bra";
        Bra.G = I->G;
        Operand T;
        T.K = Operand::Label;
        T.Name = R.exitLabel();
        Bra.Ops.push_back(T);
        Bra.Range = I->Range;
        Bra.NameRange = I->NameRange;
        C = Bra;
      }
    }
    Out.push_back(std::move(C));
  }
  return Out;
}

} // namespace

const ptx::Function *definitionOf(const ptx::Module &M, std::string_view Name) {
  const ptx::Function *Decl = nullptr;
  for (const ptx::ModuleItem &I : M.Items)
    if (const auto *F = std::get_if<ptx::Function>(&I); F && F->Name == Name) {
      if (F->HasBody)
        return F;
      Decl = F;
    }
  return Decl;
}

Inlined inlineCalls(const ptx::Module &Src, unsigned MaxDepth, size_t MaxItems) {
  Inlined Out;
  Out.M = Src;
  unsigned Counter = 0;
  for (ptx::ModuleItem &MI : Out.M.Items) {
    auto *G = std::get_if<ptx::Function>(&MI);
    if (!G || !G->HasBody)
      continue;
    std::vector<Origin> Origins(G->Body.size());
    for (unsigned I = 0; I < G->Body.size(); ++I)
      Origins[I] = {G->Name, I, {}};
    bool Any = false;
    std::vector<std::pair<unsigned, std::string>> Kept;
    for (unsigned Depth = 0; Depth <= MaxDepth; ++Depth) {
      std::vector<BodyItem> Body;
      std::vector<Origin> Orig;
      bool Changed = false;
      Kept.clear();
      std::optional<ptx::LocDirective> CallLoc; // the latest .loc
      for (unsigned I = 0; I < G->Body.size(); ++I) {
        if (const auto *L = std::get_if<ptx::LocDirective>(&G->Body[I]))
          if (L->Line != 0)
            CallLoc = *L;
        const auto *In = std::get_if<Instruction>(&G->Body[I]);
        if (!In || In->Op != Opcode::Call) {
          Body.push_back(G->Body[I]);
          Orig.push_back(Origins[I]);
          continue;
        }
        CallShape Call = shapeOf(*In);
        const ptx::Function *F = definitionOf(Src, Call.Callee);
        if (!Call.Indirect && (!F || !F->HasBody))
          if (const ptx::Function *B = builtinDefinition(Call.Callee))
            F = B;
        std::string Why;
        std::set<std::string> Chain = {G->Name};
        for (const auto &C : Origins[I].Calls)
          Chain.insert(C.first);
        Chain.insert(Origins[I].Function);
        if (Call.Indirect)
          Why = "an indirect call";
        else if (!F || !F->HasBody)
          Why = "the callee is only declared";
        else if (Chain.count(F->Name))
          Why = "a recursive call";
        else if (Depth == MaxDepth)
          Why = fmt::format("calls nested deeper than the inliner's limit of "
                            "{} levels",
                            MaxDepth);
        else if (G->Body.size() + F->Body.size() > MaxItems)
          Why = fmt::format("the function would grow past the inliner's "
                            "limit of {} items",
                            MaxItems);
        if (!Why.empty()) {
          Kept.emplace_back(static_cast<unsigned>(Body.size()), Why);
          Body.push_back(G->Body[I]);
          Orig.push_back(Origins[I]);
          continue;
        }
        Changed = Any = true;
        Renamer R(*F, Call, Counter++);
        Origin Site = Origins[I];
        std::vector<std::pair<std::string, unsigned>> Calls = Site.Calls;
        Calls.emplace_back(Site.Function, Site.Item);
        Body.push_back(ptx::BlockBegin{In->Range});
        Orig.push_back(Site);
        std::vector<BodyItem> Copy =
            cloneBody(*F, R, CallLoc ? &*CallLoc : nullptr);
        for (unsigned K = 0; K < Copy.size(); ++K) {
          Body.push_back(std::move(Copy[K]));
          Orig.push_back({F->Name, K, Calls});
        }
        Body.push_back(ptx::Label{R.exitLabel(), In->Range});
        Orig.push_back(Site);
        Body.push_back(ptx::BlockEnd{In->Range});
        Orig.push_back(Site);
      }
      G->Body = std::move(Body);
      Origins = std::move(Orig);
      if (!Changed)
        break;
    }
    if (Any)
      Out.Origins[G->Name] = std::move(Origins);
    if (!Kept.empty())
      Out.Kept[G->Name] = std::move(Kept);
  }
  return Out;
}

} // namespace incant::ir
