//===- Inliner.cpp - Calls replaced by the bodies they call ---------------===//
#include "incant/IR/Inliner.h"
#include "incant/IR/Rewriter.h"

#include <fmt/format.h>

#include <map>
#include <memory>
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

/// The body items of one inlined copy of \p F.
std::vector<BodyItem> cloneBody(const ptx::Function &F, const Renamer &R) {
  std::vector<BodyItem> Out;
  for (const BodyItem &B : F.Body) {
    BodyItem C = B;
    if (auto *V = std::get_if<ptx::Variable>(&C)) {
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

/// PTX text defining a CUDA built-in that nvcc leaves as a call to a
/// declared function when it does not optimise (-Xcicc -O0): the atomics
/// (__uAtomicAdd, __iAtomicCAS_block, ...), the fences and a few more.
std::optional<std::string> builtinText(const std::string &Name) {
  if (Name == "__threadfence" || Name == "__threadfence_block" ||
      Name == "__threadfence_system") {
    const char *Bar = Name == "__threadfence"         ? "membar.gl"
                      : Name == "__threadfence_block" ? "membar.cta"
                                                      : "membar.sys";
    return fmt::format(".func {}()\n{{\n\t{};\n\tret;\n}}\n", Name, Bar);
  }
  if (Name == "__trap")
    return ".func __trap()\n{\n\ttrap;\n}\n";
  if (Name == "__umul24" || Name == "__mul24")
    return fmt::format(
        ".func (.param .b32 r) {}(.param .b32 a, .param .b32 b)\n{{\n"
        "\t.reg .b32 %v<3>;\n\tld.param.b32 %v0, [a];\n\tld.param.b32 %v1, "
        "[b];\n\tmul24.lo.{} %v2, %v0, %v1;\n\tst.param.b32 [r], %v2;\n"
        "\tret;\n}}\n",
        Name, Name == "__umul24" ? "u32" : "s32");
  // __<t>Atomic<Op>[_block|_system]
  size_t At = Name.find("Atomic");
  if (Name.compare(0, 2, "__") != 0 || At == std::string::npos)
    return std::nullopt;
  std::string T = Name.substr(2, At - 2);
  std::string Rest = Name.substr(At + 6);
  std::string Scope;
  for (auto [Suffix, S] : {std::pair{"_block", ".cta"}, std::pair{"_system", ".sys"}})
    if (Rest.size() > std::string_view(Suffix).size() &&
        Rest.compare(Rest.size() - std::string_view(Suffix).size(),
                     std::string::npos, Suffix) == 0) {
      Rest = Rest.substr(0, Rest.size() - std::string_view(Suffix).size());
      Scope = S;
    }
  static const std::map<std::string, std::string> Ops = {
      {"Add", "add"}, {"And", "and"}, {"CAS", "cas"}, {"Dec", "dec"},
      {"Exch", "exch"}, {"Inc", "inc"}, {"Max", "max"}, {"Min", "min"},
      {"Or", "or"}, {"Xor", "xor"}};
  auto Op = Ops.find(Rest);
  if (Op == Ops.end())
    return std::nullopt;
  bool Bitwise = Op->second == "and" || Op->second == "or" ||
                 Op->second == "xor" || Op->second == "exch" ||
                 Op->second == "cas";
  unsigned Bits;
  std::string Ty;
  if (T == "u" || T == "i") {
    Bits = 32;
    Ty = Bitwise ? "b32" : (T == "u" ? "u32" : "s32");
  } else if (T == "ull" || T == "ll" || T == "ill") {
    Bits = 64;
    Ty = Bitwise ? "b64" : (T == "ill" ? "s64" : "u64");
  } else if (T == "f") {
    Bits = 32;
    Ty = Bitwise ? "b32" : "f32";
  } else if (T == "d") {
    Bits = 64;
    Ty = "f64";
  } else if (T == "us") {
    Bits = 16;
    Ty = "b16";
  } else {
    return std::nullopt;
  }
  bool Cas = Op->second == "cas";
  std::string B = fmt::format("b{}", Bits);
  std::string Text = fmt::format(
      ".func (.param .{0} r) {1}(.param .b64 p, .param .{0} a{2})\n{{\n"
      "\t.reg .b64 %p;\n\t.reg .{0} %v<3>;\n"
      "\tld.param.b64 %p, [p];\n\tld.param.{0} %v0, [a];\n",
      B, Name, Cas ? fmt::format(", .param .{} c", B) : "");
  if (Cas)
    Text += fmt::format("\tld.param.{} %v1, [c];\n", B);
  Text += fmt::format("\tatom{}.{}.{} %v2, [%p], %v0{};\n", Scope, Op->second,
                      Ty, Cas ? ", %v1" : "");
  Text += fmt::format("\tst.param.{} [r], %v2;\n\tret;\n}}\n", B);
  return Text;
}

/// The definition of a built-in, parsed once.
const ptx::Function *builtin(const std::string &Name) {
  static std::map<std::string, std::unique_ptr<ptx::Module>> Cache;
  auto It = Cache.find(Name);
  if (It == Cache.end()) {
    std::unique_ptr<ptx::Module> M;
    if (std::optional<std::string> Text = builtinText(Name)) {
      auto File = std::make_shared<SourceFile>("<builtin " + Name + ">",
                                               ".version 8.0\n.target sm_90\n"
                                               ".address_size 64\n" +
                                                   *Text);
      DiagnosticEngine Diags;
      if (std::optional<ptx::Module> P = ptx::parseModule(File, Diags)) {
        for (ptx::ModuleItem &I : P->Items)
          clearRanges(I);
        M = std::make_unique<ptx::Module>(std::move(*P));
      }
    }
    It = Cache.emplace(Name, std::move(M)).first;
  }
  return It->second ? It->second->findFunction(Name) : nullptr;
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
      for (unsigned I = 0; I < G->Body.size(); ++I) {
        const auto *In = std::get_if<Instruction>(&G->Body[I]);
        if (!In || In->Op != Opcode::Call) {
          Body.push_back(G->Body[I]);
          Orig.push_back(Origins[I]);
          continue;
        }
        CallShape Call = shapeOf(*In);
        const ptx::Function *F = definitionOf(Src, Call.Callee);
        if (!Call.Indirect && (!F || !F->HasBody))
          if (const ptx::Function *B = builtin(Call.Callee))
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
          Why = "calls nested too deep";
        else if (G->Body.size() + F->Body.size() > MaxItems)
          Why = "the function would grow too large";
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
        std::vector<BodyItem> Copy = cloneBody(*F, R);
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
