//===- Inliner.cpp - Calls replaced by the bodies they call ---------------===//
#include "incant/IR/Inliner.h"

#include "Builtins.h"
#include "incant/Support/Diagnostic.h"
#include <fmt/format.h>

#include <algorithm>
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
              Names[V->Name + std::to_string(K)] =
                  reg(V->Name + std::to_string(K));
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

/// The functions an indirect call's target register can hold: every
/// instruction of \p G that writes it (or a register it is copied from)
/// is a `mov` or `selp` of functions' names, registers or 0, or a load of
/// a kernel parameter that \p Params names. Empty when something else
/// writes it (a load, another parameter, arithmetic): the call stays
/// indirect.
std::vector<std::string>
indirectTargets(const ptx::Module &M, const ptx::Function &G,
                const std::string &Reg,
                const std::map<std::string, std::vector<std::string>> *Params) {
  std::vector<std::string> Targets;
  std::set<std::string> Seen, Work = {Reg};
  while (!Work.empty()) {
    std::string R = *Work.begin();
    Work.erase(Work.begin());
    if (!Seen.insert(R).second)
      continue;
    bool Written = false;
    for (const BodyItem &B : G.Body) {
      const auto *I = std::get_if<Instruction>(&B);
      if (!I || I->Ops.empty() || I->Op == Opcode::St || I->Op == Opcode::Bra ||
          I->Op == Opcode::Call)
        continue;
      const Operand &D = I->Ops[0];
      bool Writes = D.Name == R;
      for (const Operand &E : D.Elems)
        Writes |= E.Name == R;
      if (!Writes)
        continue;
      Written = true;
      // A load of a kernel parameter whose functions are named.
      if (Params && I->Op == Opcode::Ld && I->ASpace == ptx::AddrSpace::Param &&
          !I->G && I->Ops.size() == 2 && I->Ops[1].K == Operand::Address &&
          I->Ops[1].Value == 0)
        if (auto P = Params->find(I->Ops[1].Name); P != Params->end()) {
          for (const std::string &Fn : P->second)
            if (definitionOf(M, Fn) &&
                std::find(Targets.begin(), Targets.end(), Fn) == Targets.end())
              Targets.push_back(Fn);
          continue;
        }
      // mov d, s; or selp d, a, b, p (either of two), unguarded.
      bool Mov = I->Op == Opcode::Mov && I->Ops.size() == 2;
      bool Selp = I->Op == Opcode::Other && I->Ops.size() == 4 &&
                  I->Name.rfind("selp", 0) == 0;
      if ((!Mov && !Selp) || I->G || D.K != Operand::Reg)
        return {};
      for (unsigned K = 1; K < (Mov ? 2u : 3u); ++K) {
        const Operand &S = I->Ops[K];
        if (S.K == Operand::Imm && S.Value == 0)
          continue; // a null pointer: calling it faults
        if (S.K != Operand::Reg || S.Name.empty())
          return {};
        if (S.Name[0] == '%') {
          Work.insert(S.Name);
          continue;
        }
        if (!definitionOf(M, S.Name))
          return {}; // a variable's address, not a function
        if (std::find(Targets.begin(), Targets.end(), S.Name) == Targets.end())
          Targets.push_back(S.Name);
      }
    }
    if (!Written)
      return {}; // a parameter or an undeclared value
  }
  return Targets;
}

/// `call (rets), %r, (args), proto;` as a choice of direct calls, one per
/// function %r can hold (a thread whose %r matches none calls nothing: a
/// null pointer faults). Parsed from text so that the parser's grammar
/// builds the instructions.
std::optional<std::vector<BodyItem>>
dispatch(const Instruction &Call, const CallShape &Shape,
         const std::vector<std::string> &Targets, unsigned N) {
  std::string Pred = fmt::format("%ic{}_p", N),
              End = fmt::format("$Lic{}_end", N);
  std::string Rets, Args;
  for (const std::string &R : Shape.Rets)
    Rets += (Rets.empty() ? "" : ", ") + R;
  for (const std::string &A : Shape.Args)
    Args += (Args.empty() ? "" : ", ") + A;
  std::string Text;
  for (unsigned K = 0; K < Targets.size(); ++K)
    Text += fmt::format("setp.eq.u64 {}, {}, {};\n@{} bra $Lic{}_{};\n", Pred,
                        Shape.Callee, Targets[K], Pred, N, K);
  Text += fmt::format("bra.uni {};\n", End);
  for (unsigned K = 0; K < Targets.size(); ++K)
    Text += fmt::format("$Lic{}_{}:\ncall {}{}{};\nbra.uni {};\n", N, K,
                        Rets.empty() ? "" : "(" + Rets + "), ", Targets[K],
                        Args.empty() ? "" : ", (" + Args + ")", End);
  Text += End + ":\n";
  std::string Module = fmt::format(".version 8.0\n.target sm_90\n"
                                   ".address_size 64\n.func __incant_dispatch()"
                                   "\n{{\n.reg .pred {};\n{}}}\n",
                                   Pred, Text);
  auto File = std::make_shared<SourceFile>("<indirect call>", Module);
  DiagnosticEngine Diags;
  std::optional<ptx::Module> P = ptx::parseModule(File, Diags);
  if (!P || P->Items.empty())
    return std::nullopt;
  const auto *F = std::get_if<ptx::Function>(&P->Items.back());
  if (!F)
    return std::nullopt;
  std::vector<BodyItem> Out = F->Body;
  // The new code stands at the call's place in the source.
  for (BodyItem &B : Out)
    std::visit([&](auto &Node) { Node.Range = Call.Range; }, B);
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

Inlined inlineCalls(const ptx::Module &Src, unsigned MaxDepth,
                    size_t MaxItems, const ParamFunctions &Params) {
  Inlined Out;
  Out.M = Src;
  unsigned Counter = 0;
  for (ptx::ModuleItem &MI : Out.M.Items) {
    auto *G = std::get_if<ptx::Function>(&MI);
    if (!G || !G->HasBody)
      continue;
    auto Named = Params.find(G->Name);
    const std::map<std::string, std::vector<std::string>> *GP =
        Named == Params.end() ? nullptr : &Named->second;
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
        if (Call.Indirect) {
          // A target register that only ever holds known functions: one
          // direct call per function, inlined at the next depth.
          std::vector<std::string> Targets =
              indirectTargets(Src, *G, Call.Callee, GP);
          std::optional<std::vector<BodyItem>> Choice;
          if (!Targets.empty() && Depth < MaxDepth)
            Choice = dispatch(*In, Call, Targets, Counter++);
          if (Choice) {
            Changed = Any = true;
            Body.push_back(ptx::BlockBegin{In->Range});
            Orig.push_back(Origins[I]);
            for (BodyItem &B : *Choice) {
              Body.push_back(std::move(B));
              Orig.push_back(Origins[I]);
            }
            Body.push_back(ptx::BlockEnd{In->Range});
            Orig.push_back(Origins[I]);
            continue;
          }
          Why = "an indirect call";
        } else if (!F || !F->HasBody)
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
