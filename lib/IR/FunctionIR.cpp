//===- FunctionIR.cpp - CFG, dominators, loops, def-use of PTX ------------===//
#include "incant/IR/FunctionIR.h"
#include "incant/PTX/ModuleCheck.h"

#include <algorithm>
#include <cassert>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace incant::ir {

using ptx::BodyItem;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

const SourceFrame *DebugLoc::userFrame() const {
  if (!hasLine())
    return nullptr;
  const SourceFrame &Outer = Frames.back();
  for (const SourceFrame &Fr : Frames)
    if (Fr.FileIndex == Outer.FileIndex && Fr.Line != 0)
      return &Fr;
  return &Frames[0];
}

bool isSpecialRegister(std::string_view Name) {
  return ptx::isSpecialRegister(Name);
}

bool endsBlock(const Instruction &I) {
  switch (I.Op) {
  case Opcode::Bra:
  case Opcode::CmpBra:
  case Opcode::Brx:
  case Opcode::Ret:
  case Opcode::Exit:
  case Opcode::Trap:
    return true;
  default:
    return false;
  }
}

bool fallsThrough(const Instruction &I) {
  if (!endsBlock(I))
    return true;
  // A guarded branch or return may not be taken; a compare-and-branch
  // always has two ways out.
  return I.G.has_value() || I.Op == Opcode::CmpBra;
}

static const Instruction *asInst(const BodyItem &Item) {
  return std::get_if<Instruction>(&Item);
}

FunctionIR::FunctionIR(const ptx::Function &Fn,
                       const std::map<uint32_t, std::string> &Files,
                       const std::map<std::string, std::string> &DebugStrings)
    : F(&Fn) {
  const auto &Body = F->Body;
  InstSlot.assign(Body.size(), NoNode);
  for (unsigned I = 0; I < Body.size(); ++I)
    if (asInst(Body[I])) {
      InstSlot[I] = static_cast<unsigned>(Insts.size());
      Insts.push_back(I);
    }
  buildBlocks();
  buildCfg();
  DT = DominatorTree(G, entry());
  PDT = PostDominatorTree(G);
  LI = LoopInfo(G, DT);
  buildDefUse();
  buildLocs(Files, DebugStrings);
}

void FunctionIR::buildBlocks() {
  const auto &Body = F->Body;
  ItemBlock.assign(Body.size(), 0);
  Blocks.emplace_back();
  bool Ended = false;
  std::string PendingTable; // a label that a .branchtargets may follow
  for (unsigned I = 0; I < Body.size(); ++I) {
    const BodyItem &Item = Body[I];
    if (const auto *L = std::get_if<ptx::Label>(&Item)) {
      if (!Blocks.back().Insts.empty() || Ended) {
        Blocks.back().End = I;
        Blocks.emplace_back();
        Blocks.back().Begin = I;
        Ended = false;
      }
      Blocks.back().Labels.push_back(L->Name);
      LabelBlock.emplace(L->Name, static_cast<unsigned>(Blocks.size() - 1));
      PendingTable = L->Name;
    } else if (const Instruction *In = asInst(Item)) {
      if (Ended) {
        Blocks.back().End = I;
        Blocks.emplace_back();
        Blocks.back().Begin = I;
        Ended = false;
      }
      Blocks.back().Insts.push_back(I);
      Ended = endsBlock(*In);
      PendingTable.clear();
    } else if (const auto *D = std::get_if<ptx::RawDirective>(&Item)) {
      if (D->Name == ".branchtargets" && !PendingTable.empty()) {
        // `tbl: .branchtargets L1, L2;` names the targets of a brx.idx.
        std::vector<std::string> Targets;
        std::string Cur;
        auto Flush = [&] {
          size_t B = Cur.find_first_not_of(" \t\r\n");
          size_t E = Cur.find_last_not_of(" \t\r\n");
          if (B != std::string::npos)
            Targets.push_back(Cur.substr(B, E - B + 1));
          Cur.clear();
        };
        for (char C : D->Text) {
          if (C == ',')
            Flush();
          else
            Cur += C;
        }
        Flush();
        BranchTables[PendingTable] = std::move(Targets);
      }
      PendingTable.clear();
    }
    ItemBlock[I] = static_cast<unsigned>(Blocks.size() - 1);
  }
  Blocks.back().End = static_cast<unsigned>(Body.size());
}

unsigned FunctionIR::blockOfLabel(std::string_view Label) const {
  auto It = LabelBlock.find(Label);
  return It == LabelBlock.end() ? NoNode : It->second;
}

void FunctionIR::buildCfg() {
  G = Digraph(static_cast<unsigned>(Blocks.size()));
  for (unsigned B = 0; B < Blocks.size(); ++B) {
    const BasicBlock &BB = Blocks[B];
    bool Next = true;
    if (!BB.Insts.empty()) {
      unsigned Last = BB.Insts.back();
      const Instruction &I = inst(Last);
      Next = fallsThrough(I);
      auto AddTarget = [&](const std::string &Name) {
        unsigned T = blockOfLabel(Name);
        if (T == NoNode)
          UnknownLabels.emplace_back(Last, Name);
        else
          G.addEdge(B, T);
      };
      if (I.Op == Opcode::Bra || I.Op == Opcode::CmpBra) {
        for (const Operand &O : I.Ops)
          if (O.K == Operand::Label)
            AddTarget(O.Name);
      } else if (I.Op == Opcode::Brx) {
        // brx.idx %r, table: the table's label names a .branchtargets list.
        for (const Operand &O : I.Ops) {
          if (O.K == Operand::Reg && isSpecialRegister(O.Name))
            continue;
          auto It = BranchTables.find(O.Name);
          if (It != BranchTables.end())
            for (const std::string &T : It->second)
              AddTarget(T);
        }
      }
    }
    if (Next && B + 1 < Blocks.size())
      G.addEdge(B, B + 1);
  }
  // Labels used by other instructions (a .branchtargets list, a call's
  // prototype is not a label operand) are checked too.
  for (unsigned Pos = 0; Pos < Insts.size(); ++Pos) {
    const Instruction &I = inst(Insts[Pos]);
    if (endsBlock(I))
      continue;
    for (const Operand &O : I.Ops)
      if (O.K == Operand::Label && blockOfLabel(O.Name) == NoNode)
        UnknownLabels.emplace_back(Insts[Pos], O.Name);
  }
}

bool FunctionIR::isInstruction(unsigned Item) const {
  return Item < InstSlot.size() && InstSlot[Item] != NoNode;
}

const Instruction &FunctionIR::inst(unsigned Item) const {
  assert(isInstruction(Item));
  return std::get<Instruction>(F->Body[Item]);
}

const DebugLoc &FunctionIR::loc(unsigned Item) const {
  assert(isInstruction(Item));
  return Locs[InstSlot[Item]];
}

bool FunctionIR::dominates(unsigned A, unsigned B) const {
  unsigned BA = blockOf(A), BB = blockOf(B);
  if (BA == BB)
    return A <= B && DT.reachable(BA);
  return DT.strictlyDominates(BA, BB);
}

//===-- Def-use -----------------------------------------------------------===//

/// Whether the instruction's first operand is where it writes a result.
static bool firstOperandIsDest(const Instruction &I) {
  switch (I.Op) {
  case Opcode::St:
  case Opcode::Red:
  case Opcode::Membar:
  case Opcode::Fence:
  case Opcode::Bra:
  case Opcode::CmpBra:
  case Opcode::Ret:
  case Opcode::Exit:
  case Opcode::Trap:
  case Opcode::Brx:
  case Opcode::BarWarp:
  case Opcode::BarrierCluster:
  case Opcode::CpAsync:
  case Opcode::Prefetch:
  case Opcode::Call:
    return false;
  case Opcode::Bar:
    return I.hasMod(".red"); // bar.red.popc.u32 %r1, 0, %p1
  default:
    return true;
  }
}

namespace {
/// Resolves names to registers through the scopes of `{ }`.
struct Scopes {
  std::vector<std::unordered_map<std::string, unsigned>> Stack{1};
  unsigned lookup(const std::string &Name) const {
    for (auto It = Stack.rbegin(); It != Stack.rend(); ++It)
      if (auto F = It->find(Name); F != It->end())
        return F->second;
    return NoNode;
  }
};
} // namespace

void FunctionIR::buildDefUse() {
  const auto &Body = F->Body;
  InstDefs.assign(Insts.size(), {});
  InstUses.assign(Insts.size(), {});
  Scopes S;
  std::unordered_set<std::string> Symbols; // parameters and variables
  for (const ptx::Variable &V : F->Params)
    Symbols.insert(V.Name);
  for (const ptx::Variable &V : F->Returns)
    Symbols.insert(V.Name);

  auto Declare = [&](const std::string &Name, const ptx::Variable &V,
                     unsigned Item) {
    Register R;
    R.Name = Name;
    R.Type = V.Type;
    R.DeclItem = Item;
    R.ScopeDepth = static_cast<unsigned>(S.Stack.size() - 1);
    S.Stack.back()[Name] = static_cast<unsigned>(Regs.size());
    Regs.push_back(std::move(R));
  };

  for (unsigned Item = 0; Item < Body.size(); ++Item) {
    const BodyItem &BI = Body[Item];
    if (std::holds_alternative<ptx::BlockBegin>(BI)) {
      S.Stack.emplace_back();
      continue;
    }
    if (std::holds_alternative<ptx::BlockEnd>(BI)) {
      if (S.Stack.size() > 1)
        S.Stack.pop_back();
      continue;
    }
    if (const auto *V = std::get_if<ptx::Variable>(&BI)) {
      if (V->Space == ptx::AddrSpace::Reg) {
        if (V->IsRange)
          for (uint32_t K = 0; K < V->RangeCount; ++K)
            Declare(V->Name + std::to_string(K), *V, Item);
        else
          Declare(V->Name, *V, Item);
      } else {
        Symbols.insert(V->Name);
      }
      continue;
    }
    const Instruction *I = asInst(BI);
    if (!I)
      continue;
    unsigned Pos = InstSlot[Item];

    auto Note = [&](const std::string &Name, bool IsDef) {
      if (Name.empty() || Name == "_")
        return;
      unsigned R = S.lookup(Name);
      if (R == NoNode) {
        if (!isSpecialRegister(Name) && !Symbols.count(Name))
          Unresolved.emplace_back(Item, Name);
        return;
      }
      auto &List = IsDef ? InstDefs[Pos] : InstUses[Pos];
      if (std::find(List.begin(), List.end(), R) == List.end())
        List.push_back(R);
    };
    // Walks an operand; names in it are defined if IsDef (the destination),
    // except address bases, which are always read.
    auto Walk = [&](auto &Self, const Operand &O, bool IsDef) -> void {
      switch (O.K) {
      case Operand::Reg:
        Note(O.Name, IsDef);
        break;
      case Operand::Symbol:
        Note(O.Name, false);
        break;
      case Operand::Address:
        Note(O.Name, false);
        for (const Operand &E : O.Elems)
          Self(Self, E, false);
        break;
      case Operand::Vector:
      case Operand::List:
      case Operand::Pair:
        for (const Operand &E : O.Elems)
          Self(Self, E, IsDef);
        break;
      case Operand::Generic:
        Note(O.Name, false);
        break;
      default:
        break;
      }
    };
    if (I->G)
      Note(I->G->Reg, false);
    for (unsigned K = 0; K < I->Ops.size(); ++K) {
      const Operand &O = I->Ops[K];
      bool IsDef = false;
      if (K == 0) {
        if (I->Op == Opcode::Call)
          IsDef = O.K == Operand::List;
        else
          IsDef = firstOperandIsDest(*I) &&
                  (O.K == Operand::Reg || O.K == Operand::Vector ||
                   O.K == Operand::Pair);
      }
      Walk(Walk, O, IsDef);
    }
    for (unsigned R : InstDefs[Pos])
      Regs[R].Defs.push_back(Item);
    for (unsigned R : InstUses[Pos])
      Regs[R].Uses.push_back(Item);
  }
}

unsigned FunctionIR::findRegister(std::string_view Name) const {
  for (unsigned R = 0; R < Regs.size(); ++R)
    if (Regs[R].ScopeDepth == 0 && Regs[R].Name == Name)
      return R;
  return NoNode;
}

static const std::vector<unsigned> NoRegs;

const std::vector<unsigned> &FunctionIR::defs(unsigned Item) const {
  return isInstruction(Item) ? InstDefs[InstSlot[Item]] : NoRegs;
}

const std::vector<unsigned> &FunctionIR::uses(unsigned Item) const {
  return isInstruction(Item) ? InstUses[InstSlot[Item]] : NoRegs;
}

std::vector<unsigned> FunctionIR::reachingDefs(unsigned Reg,
                                               unsigned Item) const {
  assert(Reg < Regs.size() && isInstruction(Item));
  std::set<unsigned> Found;
  const std::vector<unsigned> &Defs = Regs[Reg].Defs;
  auto IsDef = [&](unsigned I) {
    return std::binary_search(Defs.begin(), Defs.end(), I);
  };
  // Scans the instructions of block B before body index Limit, last first;
  // true if an unguarded definition stops the walk.
  auto Scan = [&](unsigned B, unsigned Limit) {
    const auto &In = Blocks[B].Insts;
    for (auto It = In.rbegin(); It != In.rend(); ++It) {
      if (*It >= Limit || !IsDef(*It))
        continue;
      Found.insert(*It);
      if (!inst(*It).G)
        return true;
    }
    return false;
  };
  unsigned B0 = blockOf(Item);
  if (!Scan(B0, Item)) {
    std::vector<bool> Seen(Blocks.size(), false);
    std::vector<unsigned> Work(G.preds(B0).begin(), G.preds(B0).end());
    while (!Work.empty()) {
      unsigned B = Work.back();
      Work.pop_back();
      if (Seen[B])
        continue;
      Seen[B] = true;
      if (!Scan(B, ~0u))
        for (unsigned P : G.preds(B))
          Work.push_back(P);
    }
  }
  return {Found.begin(), Found.end()};
}

//===-- Source locations --------------------------------------------------===//

void FunctionIR::buildLocs(
    const std::map<uint32_t, std::string> &Files,
    const std::map<std::string, std::string> &DebugStrings) {
  Locs.assign(Insts.size(), {});
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;
  // The latest .loc at each position, to continue inlining chains.
  std::map<Key, const ptx::LocDirective *> Latest;
  const ptx::LocDirective *Cur = nullptr;
  DebugLoc CurLoc;

  auto Frame = [&](uint32_t File, uint32_t Line, uint32_t Col,
                   const ptx::LocDirective *Within) {
    SourceFrame Fr;
    Fr.FileIndex = File;
    if (auto It = Files.find(File); It != Files.end())
      Fr.File = It->second;
    Fr.Line = Line;
    Fr.Col = Col;
    if (Within && !Within->FunctionName.empty()) {
      auto It = DebugStrings.find(Within->FunctionName);
      if (It != DebugStrings.end() && Within->FunctionOffset >= 0 &&
          static_cast<size_t>(Within->FunctionOffset) <= It->second.size())
        Fr.Function = It->second.substr(Within->FunctionOffset);
    }
    return Fr;
  };
  auto Resolve = [&](const ptx::LocDirective &L) {
    DebugLoc D;
    D.Frames.push_back(Frame(L.File, L.Line, L.Col, &L));
    const ptx::LocDirective *At = &L;
    // A chain longer than this would be a cycle of call sites.
    for (unsigned Depth = 0; At && At->HasInlinedAt && Depth < 64; ++Depth) {
      auto It = Latest.find({At->InlinedFile, At->InlinedLine, At->InlinedCol});
      const ptx::LocDirective *Site =
          It == Latest.end() || It->second == At ? nullptr : It->second;
      D.Frames.push_back(
          Frame(At->InlinedFile, At->InlinedLine, At->InlinedCol, Site));
      At = Site;
    }
    return D;
  };

  for (unsigned Item = 0; Item < F->Body.size(); ++Item) {
    const BodyItem &BI = F->Body[Item];
    if (const auto *L = std::get_if<ptx::LocDirective>(&BI)) {
      Cur = L;
      CurLoc = Resolve(*L);
      Latest[{L->File, L->Line, L->Col}] = L;
      continue;
    }
    if (InstSlot[Item] != NoNode && Cur)
      Locs[InstSlot[Item]] = CurLoc;
  }
}

//===-- Module ------------------------------------------------------------===//

std::map<std::string, std::string> readDebugStrings(std::string_view Text) {
  std::map<std::string, std::string> Out;
  std::string Label, Value;
  size_t I = 0, N = Text.size();
  auto IsIdent = [](char C) {
    return isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$' ||
           C == '%' || C == '.';
  };
  bool InB8 = false;
  while (I < N) {
    char C = Text[I];
    if (C == '\n') {
      InB8 = false;
      ++I;
      continue;
    }
    if (!IsIdent(C)) {
      ++I;
      continue;
    }
    size_t B = I;
    while (I < N && IsIdent(Text[I]))
      ++I;
    std::string_view Word = Text.substr(B, I - B);
    if (I < N && Text[I] == ':' && !isdigit(static_cast<unsigned char>(Word[0]))) {
      Label = std::string(Word);
      Value.clear();
      ++I;
      continue;
    }
    if (Word == ".b8") {
      InB8 = true;
      continue;
    }
    if (InB8 && !Label.empty() && isdigit(static_cast<unsigned char>(Word[0]))) {
      unsigned V = 0;
      for (char D : Word) {
        if (!isdigit(static_cast<unsigned char>(D)) || V > 255)
          break;
        V = V * 10 + static_cast<unsigned>(D - '0');
      }
      if (V == 0) {
        Out[Label] = Value;
        Label.clear();
        Value.clear();
      } else {
        Value += static_cast<char>(V);
      }
    }
  }
  return Out;
}

ModuleIR::ModuleIR(const ptx::Module &Mod) : M(&Mod) {
  for (const ptx::ModuleItem &Item : M->Items) {
    if (const auto *Fe = std::get_if<ptx::FileEntry>(&Item))
      Files[Fe->Index] = Fe->Path;
    else if (const auto *S = std::get_if<ptx::Section>(&Item);
             S && S->Name == ".debug_str")
      for (auto &[K, V] : readDebugStrings(S->Text))
        DebugStrings[K] = V;
  }
  for (const ptx::ModuleItem &Item : M->Items)
    if (const auto *Fn = std::get_if<ptx::Function>(&Item); Fn && Fn->HasBody)
      Funcs.emplace_back(*Fn, Files, DebugStrings);
}

const FunctionIR *ModuleIR::find(std::string_view Name) const {
  for (const FunctionIR &F : Funcs)
    if (F.name() == Name)
      return &F;
  return nullptr;
}

static bool mentionsName(const Operand &O, const std::string &Name) {
  if (O.Name == Name)
    return true;
  for (const Operand &E : O.Elems)
    if (mentionsName(E, Name))
      return true;
  return false;
}

unsigned FunctionIR::paramStoreBefore(unsigned Item, const std::string &Var,
                                      int64_t Offset) const {
  unsigned B = blockOf(Item);
  unsigned Limit = Item;
  for (unsigned Guard = 0; B != NoNode && Guard <= Blocks.size(); ++Guard) {
    const std::vector<unsigned> &In = Blocks[B].Insts;
    for (auto It = In.rbegin(); It != In.rend(); ++It) {
      if (*It >= Limit)
        continue;
      const ptx::Instruction &I = inst(*It);
      if (I.Op == ptx::Opcode::Call) {
        for (const Operand &O : I.Ops)
          if (mentionsName(O, Var))
            return NoNode;
        continue;
      }
      if (I.Op == ptx::Opcode::St && I.ASpace == ptx::AddrSpace::Param &&
          I.Ops.size() >= 2 && I.Ops[0].K == Operand::Address &&
          I.Ops[0].Name == Var && I.Ops[0].Value == Offset)
        return *It;
    }
    Limit = ~0u;
    B = DT.idom(B);
  }
  return NoNode;
}

} // namespace incant::ir
