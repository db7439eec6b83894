//===- Witness.cpp - Witnesses, and synchronisation through memory --------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>

namespace incant::race {

//===-- Witnesses ---------------------------------------------------------===//

void Checker::fillThread(Encoder &Enc, const smt::Model &Mo, unsigned T,
                         unsigned Item,
                         ExprId Off, const std::vector<ExprId> &Es,
                         ThreadWitness &W,
                         std::vector<std::pair<std::string, int64_t>> &Params) {
  Frame Fr{T, NoNode};
  for (unsigned D = 0; D < 3; ++D) {
    W.Tid[D] = Mo.evalInt(Enc.tid(T, D)).value_or(0);
    W.Ctaid[D] = Mo.evalInt(Enc.ctaid(T, D)).value_or(0);
  }
  int64_t NX = Mo.evalInt(Enc.ntid(0)).value_or(1);
  int64_t NY = Mo.evalInt(Enc.ntid(1)).value_or(1);
  int64_t Linear = W.Tid[0] + NX * (W.Tid[1] + NY * W.Tid[2]);
  W.Warp = Linear / 32;
  W.Lane = Linear % 32;
  const auto &Loops = F.loops().loops();
  std::vector<unsigned> Ls;
  for (unsigned L = 0; L < Loops.size(); ++L)
    if (Loops[L].contains(F.blockOf(Item)))
      Ls.push_back(L);
  std::sort(Ls.begin(), Ls.end(), [&](unsigned A, unsigned B) {
    return Loops[A].Depth < Loops[B].Depth;
  });
  for (unsigned L : Ls) {
    unsigned H = Loops[L].Header;
    uint32_t Line = lineOf(F.blocks()[H].Begin);
    W.Iterations.emplace_back(Line, Mo.evalInt(Enc.iter(T, L)).value_or(0));
  }
  if (Off != NoExpr)
    W.Offset = Mo.evalInt(Enc.encode(Fr, Off)).value_or(0);
  std::set<unsigned> Syms;
  for (ExprId E : Es)
    for (unsigned Y : Pool.symbolsOf(E))
      Syms.insert(Y);
  for (unsigned Y : Syms) {
    const ir::Symbol &Sym = Pool.symbol(Y);
    Expr V = Enc.symbolVar(Fr, Y);
    if (Sym.K == ir::SymKind::Param) {
      std::string Name = Pool.symbolName(Y);
      if (std::none_of(Params.begin(), Params.end(),
                       [&](const auto &P) { return P.first == Name; }))
        Params.emplace_back(Name, Mo.evalInt(V).value_or(0));
    } else if (Sym.K == ir::SymKind::Opaque && !Sym.IsBool) {
      std::string What = Sym.Item < F.function().Body.size()
                             ? fmt::format("{} at {}", Sym.Name, whereText(Sym.Item))
                             : Sym.Name;
      W.Assumed.emplace_back(What, Mo.evalInt(V).value_or(0));
    } else if (Sym.K == ir::SymKind::Opaque) {
      std::string What = Sym.Item < F.function().Body.size()
                             ? fmt::format("{} at {}", Sym.Name, whereText(Sym.Item))
                             : Sym.Name;
      W.Assumed.emplace_back(What, Mo.evalBool(V).value_or(false));
    } else if (Sym.K == ir::SymKind::LoopVar) {
      W.Assumed.emplace_back(
          fmt::format("{} (changed by the loop at PTX line {})", Sym.Name,
                      lineOf(F.blocks()[Loops[Sym.Loop].Header].Begin)),
          Sym.IsBool ? int64_t(Mo.evalBool(V).value_or(false))
                     : Mo.evalInt(V).value_or(0));
    }
  }
}

Witness Checker::witness(Encoder &Enc, const smt::Model &Mo, unsigned ItemA,
                         unsigned ItemB,
                         ExprId OffA, ExprId OffB,
                         const std::vector<ExprId> &ExprsA,
                         const std::vector<ExprId> &ExprsB) {
  Witness W;
  for (unsigned D = 0; D < 3; ++D) {
    W.BlockDim[D] = Mo.evalInt(Enc.ntid(D)).value_or(1);
    W.GridDim[D] = Mo.evalInt(Enc.nctaid(D)).value_or(1);
  }
  fillThread(Enc, Mo, 0, ItemA, OffA, ExprsA, W.A, W.Params);
  fillThread(Enc, Mo, 1, ItemB, OffB, ExprsB, W.B, W.Params);
  return W;
}

//===-- Synchronisation through memory ------------------------------------===//

bool Checker::reaches(unsigned From, unsigned To) {
  unsigned NB = static_cast<unsigned>(F.blocks().size());
  if (BlockReach.empty()) {
    BlockReach.assign(NB, std::vector<char>(NB, 0));
    for (unsigned B = 0; B < NB; ++B) {
      std::vector<unsigned> Work(F.cfg().succs(B).begin(), F.cfg().succs(B).end());
      while (!Work.empty()) {
        unsigned X = Work.back();
        Work.pop_back();
        if (BlockReach[B][X])
          continue;
        BlockReach[B][X] = 1;
        for (unsigned Y : F.cfg().succs(X))
          Work.push_back(Y);
      }
    }
  }
  unsigned BF = F.blockOf(From), BT = F.blockOf(To);
  if (BF == BT && From < To)
    return true;
  return BlockReach[BF][BT] != 0;
}

std::string Checker::memorySync(unsigned I, unsigned J, Relation Rel) {
  // Fences and release/acquire operations can order the pair (message
  // passing, locks), given a strong access to communicate through; the
  // analysis does not model that. Their scope must include both threads,
  // or, for threads of two blocks, a third thread of the same block may
  // carry the order on (causality order is transitive) when some fence or
  // release in the kernel has gpu scope; not when a block has one thread.
  struct Op {
    unsigned Item;
    ptx::Scope Sc;
  };
  std::vector<Op> Release, Acquire;
  bool Comm = false, Wide = false;
  for (unsigned Item : F.instructions()) {
    const ptx::Instruction &In = F.inst(Item);
    ptx::Scope Sc = In.Sc;
    bool Fence = In.Op == ptx::Opcode::Membar ||
                 (In.Op == ptx::Opcode::Fence && !In.hasMod(".proxy"));
    bool Strong = In.Op == ptx::Opcode::Atom || In.Op == ptx::Opcode::Red ||
                  ((In.Op == ptx::Opcode::Ld || In.Op == ptx::Opcode::St) &&
                   In.S != ptx::Sem::None && In.S != ptx::Sem::Weak);
    if (Strong && (In.Op == ptx::Opcode::Atom || In.Op == ptx::Opcode::Red) &&
        Sc == ptx::Scope::None)
      Sc = ptx::Scope::GPU;
    if (In.S == ptx::Sem::Volatile)
      Sc = ptx::Scope::Sys;
    if (Sc == ptx::Scope::None)
      continue;
    bool Rel_ = Fence || In.S == ptx::Sem::Release || In.S == ptx::Sem::AcqRel ||
                In.S == ptx::Sem::SC;
    // A strong read may observe a flag that a fenced write set: with a
    // fence on the other side that is how many CUDA programs pass messages
    // (the PTX ISA wants an acquire or a fence on this side as well).
    bool StrongRead = Strong && In.Op != ptx::Opcode::St &&
                      In.Op != ptx::Opcode::Red;
    bool Acq = Fence || StrongRead || In.S == ptx::Sem::Acquire ||
               In.S == ptx::Sem::AcqRel || In.S == ptx::Sem::SC;
    Comm |= Strong && scopeIncludes(Sc, Rel);
    Wide |= Rel_ && scopeIncludes(Sc, Relation::OtherBlocks);
    if (Rel_)
      Release.push_back({Item, Sc});
    if (Acq)
      Acquire.push_back({Item, Sc});
  }
  if (!Comm)
    return "";
  bool OneThreadBlocks = true;
  for (const std::optional<int64_t> &D : O.Launch.Block)
    OneThreadBlocks &= D == std::optional<int64_t>(1);
  Wide &= !OneThreadBlocks;
  auto Usable = [&](const Op &O) { return scopeIncludes(O.Sc, Rel) || Wide; };
  unsigned X = Items[I].A.Item, Y = Items[J].A.Item;
  for (auto [A, B] : {std::pair{X, Y}, std::pair{Y, X}})
    for (const Op &Rl : Release)
      if (Usable(Rl) && reaches(A, Rl.Item))
        for (const Op &Aq : Acquire)
          if (Usable(Aq) && reaches(Aq.Item, B))
            return fmt::format(
                "may be ordered through the fence or atomic at {} and {} "
                "(synchronisation through memory is not modelled)",
                whereText(Rl.Item), whereText(Aq.Item));
  return "";
}

} // namespace incant::race
