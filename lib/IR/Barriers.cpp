//===- Barriers.cpp - Barriers and the intervals between them -------------===//
#include "incant/IR/Barriers.h"
#include "incant/IR/ThreadValues.h"

#include <algorithm>

namespace incant::ir {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

const char *barrierKindName(BarrierKind K) {
  switch (K) {
  case BarrierKind::CTA: return "cta";
  case BarrierKind::Warp: return "warp";
  case BarrierKind::Grid: return "grid";
  case BarrierKind::Cluster: return "cluster";
  case BarrierKind::NoOrder: return "none";
  case BarrierKind::CopyWait: return "copy-wait";
  }
  return "?";
}

/// barrier.cluster.wait is a cluster barrier when the instruction before
/// it, in its block, is a barrier.cluster.arrive without .relaxed (its
/// release orders the thread's earlier accesses); every other cluster
/// barrier instruction orders nothing by itself.
static void classifyCluster(const FunctionIR &F, unsigned Item, Barrier &B) {
  const Instruction &I = F.inst(Item);
  if (I.hasMod(".arrive")) {
    B.Note = I.hasMod(".relaxed") ? "barrier.cluster.arrive.relaxed"
                                  : "barrier.cluster.arrive does not wait";
    return;
  }
  const std::vector<unsigned> &Insts = F.blocks()[F.blockOf(Item)].Insts;
  auto At = std::find(Insts.begin(), Insts.end(), Item);
  const Instruction *Prev =
      At != Insts.end() && At != Insts.begin() ? &F.inst(*(At - 1)) : nullptr;
  if (!Prev || Prev->Op != Opcode::BarrierCluster ||
      !Prev->hasMod(".arrive") || Prev->G) {
    B.Note = "barrier.cluster.wait not right after its arrive";
    return;
  }
  if (Prev->hasMod(".relaxed")) {
    B.Note = "after barrier.cluster.arrive.relaxed (no release)";
    return;
  }
  B.Kind = BarrierKind::Cluster;
}

/// Classifies one barrier instruction.
static Barrier classify(const FunctionIR &F, ThreadValues &TV, unsigned Item) {
  const Instruction &I = F.inst(Item);
  Barrier B;
  B.Item = Item;
  B.Kind = BarrierKind::NoOrder;
  if (I.G) {
    B.Note = "guarded";
    return B;
  }
  switch (I.Op) {
  case Opcode::Bar: {
    if (I.hasMod(".arrive")) {
      B.Note = I.Name + ".arrive does not wait";
      return B;
    }
    // bar.sync a{, b}; bar.red.op a{, b}, c (after the destination).
    size_t Counted = I.hasMod(".red") ? 4 : 2;
    if (I.Ops.size() >= Counted) {
      B.Note = "has a thread count";
      return B;
    }
    B.Kind = BarrierKind::CTA;
    return B;
  }
  case Opcode::BarWarp: {
    if (I.Ops.empty())
      return B;
    std::optional<int64_t> Mask = TV.pool().asConst(TV.operand(Item, 0));
    if (Mask && (*Mask & 0xFFFFFFFF) == 0xFFFFFFFF) {
      B.Kind = BarrierKind::Warp;
    } else {
      B.Note = "not the full warp mask";
    }
    return B;
  }
  case Opcode::BarrierCluster:
    classifyCluster(F, Item, B);
    return B;
  case Opcode::Mbarrier:
    B.Note = "mbarrier";
    return B;
  default:
    return B;
  }
}

/// Whether \p I is a gpu-scope release atomic (the arrival of grid.sync).
static bool isGpuRelease(const Instruction &I) {
  return (I.Op == Opcode::Atom || I.Op == Opcode::Red) &&
         (I.S == ptx::Sem::Release || I.S == ptx::Sem::AcqRel) &&
         I.Sc == ptx::Scope::GPU;
}

/// Whether \p I is a gpu-scope acquire load (the wait of grid.sync).
static bool isGpuAcquire(const Instruction &I) {
  return (I.Op == Opcode::Ld || I.Op == Opcode::Atom) &&
         (I.S == ptx::Sem::Acquire || I.S == ptx::Sem::AcqRel) &&
         I.Sc == ptx::Scope::GPU;
}

std::vector<Barrier> findBarriers(const FunctionIR &F, ThreadValues &TV) {
  std::vector<Barrier> Out;
  for (unsigned Item : F.instructions()) {
    Opcode Op = F.inst(Item).Op;
    if (Op == Opcode::Bar || Op == Opcode::BarWarp ||
        Op == Opcode::BarrierCluster || Op == Opcode::Mbarrier)
      Out.push_back(classify(F, TV, Item));
  }
  // grid.sync(): CTA barrier B1, then code that B1 dominates and the next
  // CTA barrier B2 post-dominates, holding a gpu-scope release atomic and a
  // gpu-scope acquire load in a loop, and no other memory access.
  for (size_t K = 0; K + 1 < Out.size(); ++K) {
    Barrier &B1 = Out[K];
    Barrier &B2 = Out[K + 1];
    if (B1.Kind != BarrierKind::CTA || B2.Kind != BarrierKind::CTA)
      continue;
    unsigned Blk1 = F.blockOf(B1.Item), Blk2 = F.blockOf(B2.Item);
    if (!F.dominates(B1.Item, B2.Item) ||
        !F.postDominators().postDominates(Blk2, Blk1))
      continue;
    bool Release = false, Acquire = false, Other = false;
    for (unsigned Item : F.instructions()) {
      unsigned Blk = F.blockOf(Item);
      bool Between = Item > B1.Item && Item < B2.Item &&
                     F.dominators().dominates(Blk1, Blk);
      if (!Between)
        continue;
      const Instruction &I = F.inst(Item);
      if (isGpuRelease(I))
        Release = true;
      else if (isGpuAcquire(I) && F.loops().depth(Blk) > F.loops().depth(Blk2))
        Acquire = true;
      else if (I.Op == Opcode::St || I.Op == Opcode::Atom ||
               I.Op == Opcode::Red || I.Op == Opcode::Call ||
               (I.Op == Opcode::Ld && I.ASpace != ptx::AddrSpace::Param))
        Other = true;
    }
    if (Release && Acquire && !Other) {
      B2.Kind = BarrierKind::Grid;
      B2.GridStart = B1.Item;
    }
  }
  return Out;
}

//===-- Intervals ---------------------------------------------------------===//

static bool ordersScope(BarrierKind K, PairScope S) {
  switch (K) {
  case BarrierKind::Grid: return true;
  case BarrierKind::Cluster: return S != PairScope::Grid;
  case BarrierKind::CTA:
  case BarrierKind::CopyWait: return S == PairScope::Warp || S == PairScope::CTA;
  case BarrierKind::Warp: return S == PairScope::Warp;
  case BarrierKind::NoOrder: return false;
  }
  return false;
}

BarrierIntervals::BarrierIntervals(const FunctionIR &Fn,
                                   const std::vector<Barrier> &Barriers,
                                   PairScope Scope)
    : F(&Fn) {
  size_t N = F->function().Body.size();
  IsBarrier.assign(N, 0);
  Reached.assign(N, {});
  Sources.push_back(NoNode);
  Starts.push_back(0);
  for (const Barrier &B : Barriers)
    if (ordersScope(B.Kind, Scope) && B.Item < N) {
      IsBarrier[B.Item] = B.Assumed ? 2 : 1;
      Sources.push_back(B.Item);
      Starts.push_back(B.Assumed ? B.Item : B.Item + 1);
    }

  // Synchronised loops: no cycle through the header avoids a barrier
  // block.
  const auto &Loops = F->loops().loops();
  std::vector<char> BarrierBlock(F->blocks().size(), 0);
  for (unsigned Src : Sources)
    if (Src != NoNode)
      BarrierBlock[F->blockOf(Src)] = 1;
  Sync.assign(Loops.size(), 0);
  for (unsigned L = 0; L < Loops.size(); ++L) {
    const Loop &Lp = Loops[L];
    if (BarrierBlock[Lp.Header]) {
      Sync[L] = 1;
      continue;
    }
    std::vector<char> Seen(F->blocks().size(), 0);
    std::vector<unsigned> Work = {Lp.Header};
    bool Cycle = false;
    while (!Work.empty() && !Cycle) {
      unsigned B = Work.back();
      Work.pop_back();
      for (unsigned S : F->cfg().succs(B)) {
        if (S == Lp.Header) {
          Cycle = true;
          break;
        }
        if (Lp.contains(S) && !BarrierBlock[S] && !Seen[S]) {
          Seen[S] = 1;
          Work.push_back(S);
        }
      }
    }
    Sync[L] = !Cycle;
  }

  // Per source, the synchronised loops around it (outermost first).
  SrcLoops.assign(Sources.size(), {});
  for (unsigned S = 0; S < Sources.size(); ++S) {
    if (Sources[S] == NoNode)
      continue;
    unsigned Blk = F->blockOf(Sources[S]);
    for (unsigned L = 0; L < Loops.size(); ++L)
      if (Sync[L] && Loops[L].contains(Blk))
        SrcLoops[S].push_back(L);
    std::sort(SrcLoops[S].begin(), SrcLoops[S].end(), [&](unsigned A, unsigned B) {
      return Loops[A].Depth < Loops[B].Depth;
    });
    if (SrcLoops[S].size() > 31)
      SrcLoops[S].resize(31);
  }

  for (unsigned L = 0; L < Loops.size() && EnteredLoops.size() < 32; ++L)
    if (Sync[L])
      EnteredLoops.push_back(L);
  for (unsigned S = 0; S < Sources.size(); ++S) {
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> Seen(
        F->blocks().size());
    if (Sources[S] == NoNode)
      walk(S, F->entry(), 0, Seen);
    else
      walk(S, F->blockOf(Sources[S]), Starts[S], Seen);
  }
}

void BarrierIntervals::walk(
    unsigned SourceIdx, unsigned Block, unsigned From,
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> &Seen) {
  struct State {
    unsigned Block, From;
    uint32_t Mask, Entered;
  };
  std::vector<State> Work = {{Block, From, 0, 0}};
  const auto &Loops = F->loops().loops();
  while (!Work.empty()) {
    State St = Work.back();
    Work.pop_back();
    const BasicBlock &BB = F->blocks()[St.Block];
    bool Stopped = false;
    for (unsigned Item : BB.Insts) {
      if (Item < St.From)
        continue;
      // A barrier ends the interval; the start of an assumed barrier's own
      // interval is the instruction after it.
      bool OwnStart = Item == St.From && St.From == Starts[SourceIdx] &&
                      IsBarrier[Item] == 2 && Sources[SourceIdx] == Item;
      if (IsBarrier[Item] && !OwnStart) {
        Stopped = true;
        break;
      }
      Reach R{SourceIdx, St.Mask, St.Entered};
      auto &List = Reached[Item];
      if (std::find(List.begin(), List.end(), R) == List.end())
        List.push_back(R);
    }
    if (Stopped)
      continue;
    for (unsigned S : F->cfg().succs(St.Block)) {
      uint32_t M = St.Mask, E = St.Entered;
      unsigned HeaderLoop = F->loops().loopWithHeader(S);
      if (HeaderLoop != NoNode && !Loops[HeaderLoop].contains(St.Block)) {
        auto It = std::find(EnteredLoops.begin(), EnteredLoops.end(), HeaderLoop);
        if (It != EnteredLoops.end())
          E |= 1u << (It - EnteredLoops.begin());
      }
      if (HeaderLoop != NoNode && Loops[HeaderLoop].contains(St.Block)) {
        // A back edge.
        const std::vector<unsigned> &SL = SrcLoops[SourceIdx];
        auto It = std::find(SL.begin(), SL.end(), HeaderLoop);
        if (It != SL.end()) {
          uint32_t Bit = 1u << (It - SL.begin());
          if (M & Bit)
            continue; // twice around: a barrier lies on the way
          M |= Bit;
        } else if (Sync[HeaderLoop]) {
          continue; // around a synchronised loop: passes a barrier
        }
      }
      auto &SeenMasks = Seen[S];
      if (SeenMasks.size() > 16)
        E = ~0u; // too many ways: say every loop may have been entered
      if (std::find(SeenMasks.begin(), SeenMasks.end(), std::make_pair(M, E)) !=
          SeenMasks.end())
        continue;
      SeenMasks.emplace_back(M, E);
      Work.push_back({S, 0, M, E});
    }
  }
}

static const std::vector<BarrierIntervals::Reach> NoReach;

const std::vector<BarrierIntervals::Reach> &
BarrierIntervals::reach(unsigned Item) const {
  return Item < Reached.size() ? Reached[Item] : NoReach;
}

bool BarrierIntervals::isBarrier(unsigned Item) const {
  return Item < IsBarrier.size() && IsBarrier[Item];
}

bool BarrierIntervals::mayShareInterval(unsigned A, unsigned B) const {
  for (const Reach &RA : reach(A))
    for (const Reach &RB : reach(B))
      if (RA.Source == RB.Source)
        return true;
  return false;
}

} // namespace incant::ir
