//===- Rewriter.cpp - Editing a PTX module, and validating it -------------===//
#include "incant/IR/Rewriter.h"

#include <fmt/format.h>

#include <cassert>
#include <functional>
#include <set>

namespace incant::ir {

using ptx::BodyItem;
using ptx::Instruction;
using ptx::ModuleItem;
using ptx::Operand;

//===-- Clearing source ranges --------------------------------------------===//

static void clearRanges(Operand &O) {
  O.Range = {};
  for (Operand &E : O.Elems)
    clearRanges(E);
}

void clearRanges(Instruction &I) {
  I.Range = {};
  I.NameRange = {};
  for (ptx::Modifier &Mo : I.Mods)
    Mo.Range = {};
  if (I.G)
    I.G->Range = {};
  for (Operand &O : I.Ops)
    clearRanges(O);
}

void clearRanges(ptx::Variable &V) {
  V.Range = {};
  if (V.Init)
    clearRanges(*V.Init);
}

void clearRanges(BodyItem &Item) {
  std::visit(
      [](auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, Instruction> ||
                      std::is_same_v<T, ptx::Variable>) {
          clearRanges(N);
        } else if constexpr (std::is_same_v<T, ptx::CallPrototype>) {
          N.Range = {};
          for (ptx::Variable &V : N.Returns)
            clearRanges(V);
          for (ptx::Variable &V : N.Params)
            clearRanges(V);
          for (ptx::PerfDirective &P : N.Attrs)
            P.Range = {};
        } else {
          N.Range = {};
        }
      },
      Item);
}

void clearRanges(ModuleItem &Item) {
  std::visit(
      [](auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ptx::Variable>) {
          clearRanges(N);
        } else if constexpr (std::is_same_v<T, ptx::Function>) {
          N.Range = {};
          N.NameRange = {};
          for (ptx::Variable &V : N.Returns)
            clearRanges(V);
          for (ptx::Variable &V : N.Params)
            clearRanges(V);
          for (ptx::PerfDirective &P : N.Perf)
            P.Range = {};
          for (BodyItem &B : N.Body)
            clearRanges(B);
        } else {
          N.Range = {};
        }
      },
      Item);
}

//===-- Walking names -----------------------------------------------------===//

/// Calls \p Fn on every name an operand mentions (not labels).
static void forEachName(Operand &O, const std::function<void(std::string &)> &Fn) {
  switch (O.K) {
  case Operand::Reg:
  case Operand::Symbol:
  case Operand::Generic:
  case Operand::Address:
    Fn(O.Name);
    break;
  default:
    break;
  }
  for (Operand &E : O.Elems)
    forEachName(E, Fn);
}

static void forEachName(Instruction &I,
                        const std::function<void(std::string &)> &Fn) {
  if (I.G)
    Fn(I.G->Reg);
  for (Operand &O : I.Ops)
    forEachName(O, Fn);
}

static void forEachName(BodyItem &Item,
                        const std::function<void(std::string &)> &Fn) {
  if (auto *I = std::get_if<Instruction>(&Item))
    forEachName(*I, Fn);
  else if (auto *V = std::get_if<ptx::Variable>(&Item); V && V->Init)
    forEachName(*V->Init, Fn);
}

//===-- Rewriter ----------------------------------------------------------===//

Rewriter::Rewriter(ptx::Module &Mod, DiagnosticEngine &D)
    : M(&Mod), Diags(&D) {}

unsigned Rewriter::functionIndex(std::string_view Name) const {
  for (unsigned I = 0; I < M->Items.size(); ++I)
    if (const auto *F = std::get_if<ptx::Function>(&M->Items[I]);
        F && F->Name == Name && F->HasBody)
      return I;
  return NoNode;
}

unsigned Rewriter::functionIndex(const ptx::Function &Fn) const {
  for (unsigned I = 0; I < M->Items.size(); ++I)
    if (std::get_if<ptx::Function>(&M->Items[I]) == &Fn)
      return I;
  return NoNode;
}

std::shared_ptr<SourceFile> Rewriter::textFile(std::string_view Text) {
  return std::make_shared<SourceFile>("<rewrite>", std::string(Text));
}

std::optional<Instruction> Rewriter::parseInstruction(std::string_view Text) {
  auto File = textFile(Text);
  auto I = ptx::parseModuleInstruction(
      File, 0, static_cast<uint32_t>(File->text().size()), *Diags);
  if (I)
    clearRanges(*I);
  return I;
}

bool Rewriter::checkFunc(unsigned Func, unsigned Item) {
  const auto *F = Func < M->Items.size()
                      ? std::get_if<ptx::Function>(&M->Items[Func])
                      : nullptr;
  if (!F || !F->HasBody) {
    Diags->error(fmt::format("rewrite: item {} of the module is not a "
                             "function with a body",
                             Func));
    return false;
  }
  if (Item > F->Body.size()) {
    Diags->error(fmt::format("rewrite: function {} has no body item {}",
                             F->Name, Item));
    return false;
  }
  return true;
}

bool Rewriter::queue(unsigned Func, unsigned Item, bool After, BodyItem New) {
  if (!checkFunc(Func, Item))
    return false;
  const auto &F = std::get<ptx::Function>(M->Items[Func]);
  if (After) {
    if (Item >= F.Body.size()) {
      Diags->error(fmt::format("rewrite: function {} has no body item {}",
                               F.Name, Item));
      return false;
    }
    if (const auto *I = std::get_if<Instruction>(&F.Body[Item]);
        I && !fallsThrough(*I)) {
      Diags->error(fmt::format(
          "rewrite: cannot insert after '{}' in {}: control never reaches "
          "the next instruction",
          ptx::printInstruction(*I), F.Name));
      return false;
    }
  }
  Slot &S = Pending[{Func, Item}];
  (After ? S.After : S.Before).push_back(std::move(New));
  return true;
}

bool Rewriter::insertBefore(unsigned Func, unsigned Item, BodyItem New) {
  return queue(Func, Item, false, std::move(New));
}

bool Rewriter::insertAfter(unsigned Func, unsigned Item, BodyItem New) {
  return queue(Func, Item, true, std::move(New));
}

bool Rewriter::insertBefore(unsigned Func, unsigned Item,
                            std::string_view Text) {
  if (!checkFunc(Func, Item))
    return false;
  auto I = parseInstruction(Text);
  return I && queue(Func, Item, false, std::move(*I));
}

bool Rewriter::insertAfter(unsigned Func, unsigned Item,
                           std::string_view Text) {
  if (!checkFunc(Func, Item))
    return false;
  auto I = parseInstruction(Text);
  return I && queue(Func, Item, true, std::move(*I));
}

bool Rewriter::insertAtBlockEntry(const FunctionIR &IR, unsigned Block,
                                  std::string_view Text) {
  unsigned Func = functionIndex(IR.function());
  if (Func == NoNode || Block >= IR.blocks().size()) {
    Diags->error("rewrite: no such function or block");
    return false;
  }
  const BasicBlock &B = IR.blocks()[Block];
  unsigned At = B.Insts.empty() ? B.End : B.Insts.front();
  return insertBefore(Func, At, Text);
}

void Rewriter::apply() {
  // Group by function, then rebuild each touched body once.
  std::set<unsigned> Funcs;
  for (auto &[Key, S] : Pending)
    Funcs.insert(Key.first);
  for (auto &[Func, Regs] : PendingRegs)
    Funcs.insert(Func);
  for (unsigned Func : Funcs) {
    auto &F = std::get<ptx::Function>(M->Items[Func]);
    std::vector<BodyItem> Out;
    Out.reserve(F.Body.size() + Pending.size());
    if (auto It = PendingRegs.find(Func); It != PendingRegs.end())
      for (ptx::Variable &V : It->second)
        Out.emplace_back(std::move(V));
    auto Slots = Pending.lower_bound({Func, 0});
    for (unsigned I = 0; I <= F.Body.size(); ++I) {
      Slot *S = nullptr;
      if (Slots != Pending.end() && Slots->first == std::make_pair(Func, I)) {
        S = &Slots->second;
        ++Slots;
      }
      if (S)
        for (BodyItem &B : S->Before)
          Out.push_back(std::move(B));
      if (I == F.Body.size())
        break;
      Out.push_back(std::move(F.Body[I]));
      if (S)
        for (BodyItem &B : S->After)
          Out.push_back(std::move(B));
    }
    F.Body = std::move(Out);
  }
  Pending.clear();
  PendingRegs.clear();
  if (!PendingItems.empty()) {
    size_t At = 0;
    while (At < M->Items.size() &&
           !std::holds_alternative<ptx::Function>(M->Items[At]))
      ++At;
    M->Items.insert(M->Items.begin() + static_cast<std::ptrdiff_t>(At),
                    std::make_move_iterator(PendingItems.begin()),
                    std::make_move_iterator(PendingItems.end()));
    PendingItems.clear();
  }
}

/// Names a function declares: parameters, registers (each of a range),
/// variables, labels.
static std::set<std::string, std::less<>>
functionNames(const ptx::Function &F) {
  std::set<std::string, std::less<>> Names;
  for (const ptx::Variable &V : F.Params)
    Names.insert(V.Name);
  for (const ptx::Variable &V : F.Returns)
    Names.insert(V.Name);
  for (const BodyItem &B : F.Body) {
    if (const auto *V = std::get_if<ptx::Variable>(&B)) {
      if (V->IsRange)
        for (uint32_t K = 0; K < V->RangeCount; ++K)
          Names.insert(V->Name + std::to_string(K));
      Names.insert(V->Name);
    } else if (const auto *L = std::get_if<ptx::Label>(&B)) {
      Names.insert(L->Name);
    }
  }
  return Names;
}

/// Names declared at module level: variables and functions.
static std::set<std::string, std::less<>>
moduleNames(const std::vector<ModuleItem> &Items) {
  std::set<std::string, std::less<>> Names;
  for (const ModuleItem &I : Items) {
    if (const auto *V = std::get_if<ptx::Variable>(&I))
      Names.insert(V->Name);
    else if (const auto *F = std::get_if<ptx::Function>(&I))
      Names.insert(F->Name);
  }
  return Names;
}

std::string Rewriter::addRegister(unsigned Func, std::string_view Type,
                                  std::string_view Prefix) {
  if (!checkFunc(Func, 0))
    return {};
  const auto &F = std::get<ptx::Function>(M->Items[Func]);
  auto Names = functionNames(F);
  for (const ptx::Variable &V : PendingRegs[Func])
    Names.insert(V.Name);
  auto Globals = moduleNames(M->Items);
  std::string Name;
  for (unsigned N = 0;; ++N) {
    Name = std::string(Prefix) + std::to_string(N);
    if (!Names.count(Name) && !Globals.count(Name))
      break;
  }
  ptx::Variable V;
  V.Space = ptx::AddrSpace::Reg;
  V.Type = std::string(Type);
  V.Name = Name;
  PendingRegs[Func].push_back(std::move(V));
  return Name;
}

bool Rewriter::addModuleText(std::string_view Text) {
  auto File = textFile(Text);
  std::optional<ptx::Module> Parsed = ptx::parseModule(File, *Diags);
  if (!Parsed)
    return false;
  auto Names = moduleNames(M->Items);
  for (const std::string &N : moduleNames(PendingItems))
    Names.insert(N);
  for (ModuleItem &I : Parsed->Items) {
    const std::string *Name = nullptr;
    if (const auto *V = std::get_if<ptx::Variable>(&I))
      Name = &V->Name;
    else if (const auto *F = std::get_if<ptx::Function>(&I))
      Name = &F->Name;
    else {
      Diags->error("rewrite: only variables and functions can be added to "
                   "a module");
      return false;
    }
    if (Names.count(*Name)) {
      Diags->error(fmt::format("rewrite: '{}' is already declared in the "
                               "module",
                               *Name));
      return false;
    }
  }
  for (ModuleItem &I : Parsed->Items) {
    clearRanges(I);
    PendingItems.push_back(std::move(I));
  }
  return true;
}

bool Rewriter::addParam(unsigned Func, std::string_view Decl) {
  if (!checkFunc(Func, 0))
    return false;
  // Read the declaration with the module grammar, as the parameter of a
  // throw-away function; the text keeps its own line for diagnostics.
  std::string Text = ".entry __incant_param(\n" + std::string(Decl) + "\n)\n{\n}\n";
  auto File = textFile(Text);
  std::optional<ptx::Module> Parsed = ptx::parseModule(File, *Diags);
  if (!Parsed)
    return false;
  const auto *Tmp = Parsed->Items.empty()
                        ? nullptr
                        : std::get_if<ptx::Function>(&Parsed->Items[0]);
  if (!Tmp || Tmp->Params.size() != 1) {
    Diags->error(fmt::format("rewrite: '{}' is not one parameter declaration",
                             Decl));
    return false;
  }
  auto &F = std::get<ptx::Function>(M->Items[Func]);
  ptx::Variable P = Tmp->Params[0];
  if (functionNames(F).count(P.Name)) {
    Diags->error(fmt::format("rewrite: {} already declares '{}'", F.Name,
                             P.Name));
    return false;
  }
  clearRanges(P);
  F.Params.push_back(std::move(P));
  return true;
}

/// If \p Name is \p From followed by digits (or equal to it when \p Whole),
/// the same with \p To instead of \p From.
static bool renamed(std::string &Name, std::string_view From,
                    std::string_view To, bool Range) {
  if (Name == From) {
    Name = std::string(To);
    return true;
  }
  if (!Range || Name.size() <= From.size() ||
      std::string_view(Name).substr(0, From.size()) != From)
    return false;
  for (size_t I = From.size(); I < Name.size(); ++I)
    if (Name[I] < '0' || Name[I] > '9')
      return false;
  Name = std::string(To) + Name.substr(From.size());
  return true;
}

bool Rewriter::renameRegister(unsigned Func, std::string_view From,
                              std::string_view To) {
  if (!checkFunc(Func, 0))
    return false;
  auto &F = std::get<ptx::Function>(M->Items[Func]);
  bool Range = false, Found = false;
  for (const BodyItem &B : F.Body)
    if (const auto *V = std::get_if<ptx::Variable>(&B);
        V && V->Space == ptx::AddrSpace::Reg && V->Name == From) {
      Found = true;
      Range |= V->IsRange;
    }
  std::vector<ptx::Variable> NoRegs;
  auto PR = PendingRegs.find(Func);
  std::vector<ptx::Variable> &Queued =
      PR == PendingRegs.end() ? NoRegs : PR->second;
  for (const ptx::Variable &V : Queued)
    Found |= V.Name == From;
  if (!Found) {
    Diags->error(fmt::format("rewrite: {} declares no register '{}'", F.Name,
                             From));
    return false;
  }
  auto Names = functionNames(F);
  for (const std::string &N : Names) {
    std::string Copy = N;
    // A name taken by To itself, or by To's range (To0, To1, ...).
    if (N == To || (Range && renamed(Copy, To, To, true))) {
      Diags->error(fmt::format("rewrite: {} already uses the name '{}'",
                               F.Name, N));
      return false;
    }
  }
  auto Fn = [&](std::string &Name) { renamed(Name, From, To, Range); };
  for (BodyItem &B : F.Body) {
    if (auto *V = std::get_if<ptx::Variable>(&B);
        V && V->Space == ptx::AddrSpace::Reg && V->Name == From)
      V->Name = std::string(To);
    forEachName(B, Fn);
  }
  for (ptx::Variable &V : Queued)
    if (V.Name == From)
      V.Name = std::string(To);
  for (auto &[Key, S] : Pending)
    if (Key.first == Func) {
      for (BodyItem &B : S.Before)
        forEachName(B, Fn);
      for (BodyItem &B : S.After)
        forEachName(B, Fn);
    }
  return true;
}

bool Rewriter::renameSymbol(std::string_view From, std::string_view To) {
  auto Names = moduleNames(M->Items);
  for (const std::string &N : moduleNames(PendingItems))
    Names.insert(N);
  if (!Names.count(From)) {
    Diags->error(fmt::format("rewrite: the module declares no '{}'", From));
    return false;
  }
  if (Names.count(To)) {
    Diags->error(fmt::format("rewrite: '{}' is already declared", To));
    return false;
  }
  auto Fn = [&](std::string &Name) {
    if (Name == From)
      Name = std::string(To);
  };
  auto RenameItem = [&](ModuleItem &I) {
    if (auto *V = std::get_if<ptx::Variable>(&I)) {
      Fn(V->Name);
      if (V->Init)
        forEachName(*V->Init, Fn);
    } else if (auto *F = std::get_if<ptx::Function>(&I)) {
      Fn(F->Name);
      for (BodyItem &B : F->Body)
        forEachName(B, Fn);
    }
  };
  for (ModuleItem &I : M->Items)
    RenameItem(I);
  for (ModuleItem &I : PendingItems)
    RenameItem(I);
  for (auto &[Key, S] : Pending) {
    for (BodyItem &B : S.Before)
      forEachName(B, Fn);
    for (BodyItem &B : S.After)
      forEachName(B, Fn);
  }
  return true;
}

//===-- Validation --------------------------------------------------------===//

unsigned validate(const ptx::Module &M, DiagnosticEngine &Diags) {
  unsigned Problems = 0;
  auto Report = [&](const ptx::Function *F, SourceRange R, std::string Msg,
                    const Instruction *I) {
    ++Problems;
    if (R.isValid() && M.File) {
      Diags.error(M.File, R, std::move(Msg));
      return;
    }
    std::string Where = F ? fmt::format("in {}", F->Name) : "in the module";
    if (I)
      Where += fmt::format(", '{}'", ptx::printInstruction(*I));
    Diags.error(fmt::format("{}: {}", Where, Msg));
  };

  std::set<std::string, std::less<>> Globals, Funcs;
  for (const ModuleItem &Item : M.Items) {
    const std::string *Name = nullptr;
    SourceRange R;
    if (const auto *V = std::get_if<ptx::Variable>(&Item)) {
      Name = &V->Name;
      R = V->Range;
    } else if (const auto *F = std::get_if<ptx::Function>(&Item)) {
      Funcs.insert(F->Name);
      // A declaration followed by the definition is fine.
      if (!F->HasBody)
        continue;
      Name = &F->Name;
      R = F->NameRange;
    }
    if (Name && !Globals.insert(*Name).second)
      Report(nullptr, R, fmt::format("'{}' is declared twice", *Name),
             nullptr);
  }
  for (const std::string &F : Funcs)
    Globals.insert(F);

  ModuleIR IR(M);
  for (const FunctionIR &FI : IR.functions()) {
    const ptx::Function &F = FI.function();
    // Labels and registers declared twice (registers only per scope).
    std::set<std::string, std::less<>> Labels;
    std::vector<std::set<std::string, std::less<>>> Scopes(1);
    for (const BodyItem &B : F.Body) {
      if (const auto *L = std::get_if<ptx::Label>(&B)) {
        if (!Labels.insert(L->Name).second)
          Report(&F, L->Range,
                 fmt::format("label '{}' is defined twice", L->Name), nullptr);
      } else if (std::holds_alternative<ptx::BlockBegin>(B)) {
        Scopes.emplace_back();
      } else if (std::holds_alternative<ptx::BlockEnd>(B)) {
        if (Scopes.size() > 1)
          Scopes.pop_back();
      } else if (const auto *V = std::get_if<ptx::Variable>(&B);
                 V && V->Space == ptx::AddrSpace::Reg) {
        std::vector<std::string> Names;
        if (V->IsRange)
          for (uint32_t K = 0; K < V->RangeCount; ++K)
            Names.push_back(V->Name + std::to_string(K));
        else
          Names.push_back(V->Name);
        for (const std::string &N : Names)
          if (!Scopes.back().insert(N).second) {
            Report(&F, V->Range,
                   fmt::format("register '{}' is declared twice", N), nullptr);
            break;
          }
      }
    }
    std::set<std::string, std::less<>> Prototypes;
    for (const BodyItem &B : F.Body)
      if (const auto *P = std::get_if<ptx::CallPrototype>(&B))
        Prototypes.insert(P->Name);

    for (const auto &[Item, Name] : FI.unresolvedNames()) {
      // WARP_SZ: PTX's predefined constant (nvcc writes warpSize so).
      if (Globals.count(Name) || Prototypes.count(Name) || Name == "WARP_SZ")
        continue;
      const Instruction &I = FI.inst(Item);
      std::string Msg;
      if (I.ASpace == ptx::AddrSpace::Param)
        Msg = fmt::format("parameter '{}' is not declared", Name);
      else if (!Name.empty() && Name[0] == '%')
        Msg = fmt::format("register '{}' is not declared", Name);
      else if (I.Op == ptx::Opcode::Call)
        Msg = fmt::format("function '{}' is not declared", Name);
      else
        Msg = fmt::format("'{}' is not declared", Name);
      Report(&F, I.Range, std::move(Msg), &I);
    }
    for (const auto &[Item, Name] : FI.unknownLabels()) {
      if (Prototypes.count(Name))
        continue;
      const Instruction &I = FI.inst(Item);
      Report(&F, I.Range, fmt::format("label '{}' is not defined in {}", Name,
                                      F.Name),
             &I);
    }
  }
  return Problems;
}

} // namespace incant::ir
