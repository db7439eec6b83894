//===- ModuleCheck.cpp - What a parsed PTX module must satisfy ------------===//
//
// checkModule (Module.h): every name an instruction uses is declared
// (registers in the function, ranges `%r<N>` to N-1, variables,
// parameters, functions), every branch target is a label of its function
// and no label is defined twice, no function is defined twice, a direct
// call names a function of the module, and `.reqntid`/`.maxntid` ask for
// a block CUDA can launch.
//
//===----------------------------------------------------------------------===//
#include "incant/PTX/ModuleCheck.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string_view>

namespace incant::ptx {

bool isSpecialRegister(std::string_view Name) {
  if (Name.size() < 2 || Name[0] != '%')
    return false;
  // %tid.x -> %tid
  if (size_t Dot = Name.find('.'); Dot != std::string_view::npos)
    Name = Name.substr(0, Dot);
  static const std::set<std::string_view, std::less<>> Names = {
      "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid",
      "%smid", "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_le",
      "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi",
      "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
      "%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size",
      "%current_graph_exec", "%is_explicit_cluster", "%clusterid",
      "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
      "%cluster_nctarank", "%reserved_smem_offset_begin",
      "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
      "%reserved_smem_offset_0", "%reserved_smem_offset_1"};
  if (Names.count(Name))
    return true;
  for (std::string_view Prefix : {"%pm", "%envreg"})
    if (Name.substr(0, Prefix.size()) == Prefix && Name.size() > Prefix.size() &&
        Name[Prefix.size()] >= '0' && Name[Prefix.size()] <= '9')
      return true;
  return false;
}

namespace {

/// The most threads of a block (CUDA, every compute capability PTX
/// targets), and of its z dimension.
constexpr uint64_t MaxBlockThreads = 1024, MaxBlockZ = 64;

class Checker {
public:
  Checker(const Module &M, DiagnosticEngine &D) : M(M), Diags(D) {}

  bool run() {
    // Every analysis names a kernel by its name.
    if (auto [Again, First] = redefinition(M); Again)
      return error(Again->NameRange,
                   fmt::format("function '{}' is defined twice (first at "
                               "line {})",
                               Again->Name, First->NameRange.Begin.Line));
    for (const ModuleItem &It : M.Items) {
      if (const auto *V = std::get_if<Variable>(&It))
        Global.insert(V->Name);
      else if (const auto *F = std::get_if<Function>(&It))
        Functions.insert(F->Name);
      else if (const auto *R = std::get_if<RawDirective>(&It);
               R && R->Name == ".alias")
        Functions.insert(std::string(firstName(R->Text)));
    }
    for (const ModuleItem &It : M.Items) {
      if (const auto *V = std::get_if<Variable>(&It)) {
        if (V->Init && !names(*V->Init, nullptr))
          return false;
      } else if (const auto *F = std::get_if<Function>(&It)) {
        if (!function(*F))
          return false;
      }
    }
    return true;
  }

private:
  /// Names declared in one function.
  struct Scope {
    std::set<std::string, std::less<>> Names, Labels;
    /// `%r<N>`: the prefix and N (the largest, if declared more than once).
    std::map<std::string, uint32_t, std::less<>> Ranges;
  };

  bool error(SourceRange R, std::string Msg) {
    Diags.error(M.File, R, std::move(Msg));
    return false;
  }

  static std::string_view firstName(std::string_view Text) {
    size_t B = Text.find_first_not_of(" \t\r\n");
    if (B == std::string_view::npos)
      return {};
    size_t E = Text.find_first_of(" \t\r\n,;", B);
    return Text.substr(B, E == std::string_view::npos ? E : E - B);
  }

  bool declared(std::string_view Name, const Scope *S) const {
    if (Name.empty() || Name == "_" || Name == "WARP_SZ" ||
        isSpecialRegister(Name))
      return true;
    // `%v.x`: a component of a vector register.
    if (size_t Dot = Name.find('.'); Dot != std::string_view::npos && Dot > 0)
      Name = Name.substr(0, Dot);
    if (Global.count(Name) || Functions.count(Name))
      return true;
    if (!S)
      return false;
    if (S->Names.count(Name) || S->Labels.count(Name))
      return true;
    // %r12 of `.reg .b32 %r<13>`: the prefix, then a number without
    // leading zeros below the range's count.
    size_t D = Name.size();
    while (D > 0 && Name[D - 1] >= '0' && Name[D - 1] <= '9')
      --D;
    if (D == Name.size() || D == 0 || (Name[D] == '0' && D + 1 != Name.size()) ||
        Name.size() - D > 9)
      return false;
    auto It = S->Ranges.find(Name.substr(0, D));
    return It != S->Ranges.end() &&
           std::stoul(std::string(Name.substr(D))) < It->second;
  }

  /// Every name in \p O is declared.
  bool names(const Operand &O, const Scope *S) {
    switch (O.K) {
    case Operand::Reg:
    case Operand::Symbol:
    case Operand::Address:
    case Operand::Generic:
      if (!declared(O.Name, S))
        return error(O.Range, fmt::format("'{}' is not declared", O.Name));
      break;
    case Operand::Label:
      if (S && !S->Labels.count(O.Name))
        return error(O.Range,
                     fmt::format("branch to '{}', which is not a label of "
                                 "this function",
                                 O.Name));
      break;
    default:
      break;
    }
    for (const Operand &E : O.Elems)
      if (!names(E, S))
        return false;
    return true;
  }

  bool blockSize(const Function &F, const PerfDirective &P) {
    if (P.Name != ".reqntid" && P.Name != ".maxntid")
      return true;
    if (P.Values.empty() || P.Values.size() > 3)
      return error(P.Range, fmt::format("{} takes 1 to 3 dimensions", P.Name));
    uint64_t Threads = 1;
    for (size_t I = 0; I < P.Values.size(); ++I) {
      uint64_t V = P.Values[I];
      if (V == 0 || V > (I == 2 ? MaxBlockZ : MaxBlockThreads))
        return error(P.Range,
                     fmt::format("{} of '{}': dimension {} is {}; CUDA allows "
                                 "1 to {}",
                                 P.Name, F.Name, "xyz"[I], V,
                                 I == 2 ? MaxBlockZ : MaxBlockThreads));
      Threads *= V;
    }
    if (Threads > MaxBlockThreads)
      return error(P.Range,
                   fmt::format("{} of '{}' asks for {} threads per block; CUDA "
                               "allows at most {}",
                               P.Name, F.Name, Threads, MaxBlockThreads));
    return true;
  }

  /// A direct call's target is a function of the module.
  bool callTarget(const Instruction &I) {
    for (const Operand &O : I.Ops) {
      if (O.K == Operand::List)
        continue;
      if ((O.K == Operand::Reg || O.K == Operand::Symbol) &&
          !O.Name.empty() && O.Name[0] != '%' && !Functions.count(O.Name))
        return error(O.Range,
                     fmt::format("call to '{}', which is not a function of "
                                 "the module (declare it with .func)",
                                 O.Name));
      return true;
    }
    return true;
  }

  bool function(const Function &F) {
    for (const PerfDirective &P : F.Perf)
      if (!blockSize(F, P))
        return false;
    if (!F.HasBody)
      return true;
    Scope S;
    for (const auto *List : {&F.Params, &F.Returns})
      for (const Variable &V : *List)
        S.Names.insert(V.Name);
    std::map<std::string_view, SourceRange> LabelAt;
    for (const BodyItem &BI : F.Body) {
      if (const auto *V = std::get_if<Variable>(&BI)) {
        if (V->IsRange) {
          uint32_t &N = S.Ranges[V->Name];
          N = std::max(N, V->RangeCount);
        } else {
          S.Names.insert(V->Name);
        }
      } else if (const auto *L = std::get_if<Label>(&BI)) {
        auto [It, New] = LabelAt.emplace(L->Name, L->Range);
        if (!New)
          return error(L->Range,
                       fmt::format("label '{}' is defined twice in '{}' "
                                   "(first at line {})",
                                   L->Name, F.Name, It->second.Begin.Line));
        S.Labels.insert(L->Name);
      } else if (const auto *P = std::get_if<CallPrototype>(&BI)) {
        S.Labels.insert(P->Name);
      }
    }
    for (const BodyItem &BI : F.Body) {
      const auto *I = std::get_if<Instruction>(&BI);
      if (!I || !I->Verbatim.empty())
        continue;
      if (I->G && !declared(I->G->Reg, &S))
        return error(I->G->Range,
                     fmt::format("'{}' is not declared", I->G->Reg));
      if (I->Op == Opcode::Call && !callTarget(*I))
        return false;
      for (const Operand &O : I->Ops)
        if (!names(O, &S))
          return false;
    }
    return true;
  }

  const Module &M;
  DiagnosticEngine &Diags;
  std::set<std::string, std::less<>> Global, Functions;
};

} // namespace

std::pair<const Function *, const Function *> redefinition(const Module &M) {
  std::map<std::string_view, const Function *> Defined;
  for (const ModuleItem &It : M.Items)
    if (const auto *F = std::get_if<Function>(&It); F && F->HasBody)
      if (auto [At, New] = Defined.emplace(F->Name, F); !New)
        return {F, At->second};
  return {nullptr, nullptr};
}

bool checkModule(const Module &M, DiagnosticEngine &Diags) {
  return Checker(M, Diags).run();
}

} // namespace incant::ptx
