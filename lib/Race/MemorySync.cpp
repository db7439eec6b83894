//===- MemorySync.cpp - Order through flags and locks ---------------------===//
//
// Synchronisation through memory, as the PTX ISA's memory consistency
// model defines it: a release pattern (a release write, or a fence and a
// strong write) synchronises with an acquire pattern (an acquire read, or
// a strong read and a fence) when the read observes the write (directly or
// through atomic read-modify-writes), the two morally strong; causality
// order is transitive. For a pair that barriers leave unordered, this file
// gives the facts every witness must satisfy if no such pattern orders it:
//
//   - flags: a thread that reaches its access only after an acquiring
//     read of a flag read a value that no release after the other access
//     wrote: the flag's initial value or a write not ordered after that
//     access (a third thread's, or one at too narrow a scope);
//   - locks: two threads inside critical sections of one spin lock (a
//     compare-and-swap loop, fences or acquire/release, the release write
//     after the access) hold different locks.
//
// Each fact is a necessary condition of an unordered pair, so adding it to
// a race query can only remove witnesses that these patterns order.
//
//===----------------------------------------------------------------------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace incant::race {

namespace {

unsigned scopeRank(ptx::Scope S) {
  switch (S) {
  case ptx::Scope::CTA:
    return 1;
  case ptx::Scope::Cluster:
    return 2;
  case ptx::Scope::GPU:
    return 3;
  case ptx::Scope::Sys:
    return 4;
  default:
    return 0;
  }
}

/// The scope that must include two threads: their CTA's when they are
/// known to share it, else the GPU's (cluster scope is not counted as
/// reaching other CTAs).
ptx::Scope scopeFor(bool SameBlock) {
  return SameBlock ? ptx::Scope::CTA : ptx::Scope::GPU;
}

bool isFence(const ptx::Instruction &In) {
  return In.Op == ptx::Opcode::Membar ||
         (In.Op == ptx::Opcode::Fence && !In.hasMod(".proxy") &&
          !In.hasMod(".mbarrier_init"));
}

bool releaseFence(const ptx::Instruction &In, ptx::Scope Need) {
  return isFence(In) && In.S != ptx::Sem::Acquire &&
         scopeRank(In.Sc) >= scopeRank(Need);
}

bool acquireFence(const ptx::Instruction &In, ptx::Scope Need) {
  return isFence(In) && In.S != ptx::Sem::Release &&
         scopeRank(In.Sc) >= scopeRank(Need);
}

bool releaseSem(ptx::Sem S) {
  return S == ptx::Sem::Release || S == ptx::Sem::AcqRel || S == ptx::Sem::SC;
}

bool acquireSem(ptx::Sem S) {
  return S == ptx::Sem::Acquire || S == ptx::Sem::AcqRel || S == ptx::Sem::SC;
}

/// A strong access's scope (volatile: relaxed at system scope; an atomic
/// with none written: gpu).
ptx::Scope strongScope(const ir::MemoryAccess &A) {
  if (A.Volatile)
    return ptx::Scope::Sys;
  if (A.Atomic && A.Scope == ptx::Scope::None)
    return ptx::Scope::GPU;
  return A.Strong ? A.Scope : ptx::Scope::None;
}

} // namespace

std::optional<int64_t> Checker::constOperand(unsigned Item, unsigned Idx) {
  if (Idx >= F.inst(Item).Ops.size())
    return std::nullopt;
  return Pool.asConst(TV.operand(Item, Idx));
}

//===-- Paths and threads -------------------------------------------------===//

bool Checker::allPathsPass(unsigned From, unsigned To,
                           const std::function<bool(unsigned)> &Pass,
                           bool Inclusive) {
  // Walk forward from just after From (from From itself when Inclusive);
  // a path ends at an item that passes, and fails when it meets To
  // (NoNode: the kernel's end).
  const auto &Blocks = F.blocks();
  std::vector<char> Seen(Blocks.size(), 0);
  std::vector<std::pair<unsigned, unsigned>> Work; // (block, first item)
  unsigned B0 = F.blockOf(From);
  Work.emplace_back(B0, Inclusive ? From : From + 1);
  while (!Work.empty()) {
    auto [B, Start] = Work.back();
    Work.pop_back();
    bool Stopped = false;
    for (unsigned It = Start; It < Blocks[B].End && !Stopped; ++It) {
      if (It == To)
        return false;
      if (F.isInstruction(It) && Pass(It))
        Stopped = true;
    }
    if (Stopped)
      continue;
    const auto &Succs = F.cfg().succs(B);
    if (Succs.empty() && To == NoNode)
      return false;
    for (unsigned S : Succs)
      if (!Seen[S]) {
        Seen[S] = 1;
        Work.emplace_back(S, Blocks[S].Begin);
      }
  }
  return true;
}

bool Checker::mayRunBoth(unsigned P, unsigned Q, ThreadPair Who) {
  auto Key = std::make_tuple(P, Q, Who);
  if (auto It = RunBoth.find(Key); It != RunBoth.end())
    return It->second;
  Builder Build = [&](Encoder &Enc) {
    Frame F0{0, NoNode}, F1{1, NoNode};
    std::vector<Expr> Q2 = {Enc.encode(F0, TV.execCond(P)),
                            Enc.encode(F1, TV.execCond(Q))};
    std::vector<Expr> SameIds;
    for (unsigned D = 0; D < 3; ++D) {
      SameIds.push_back(Enc.tid(0, D).eq(Enc.tid(1, D)));
      SameIds.push_back(Enc.ctaid(0, D).eq(Enc.ctaid(1, D)));
    }
    if (Who == ThreadPair::Same)
      Q2.push_back(Expr::mkAnd(SameIds));
    else if (Who == ThreadPair::Distinct)
      Q2.push_back(!Expr::mkAnd(SameIds));
    else
      Q2.push_back(relationFacts(Enc, Relation::OtherBlocks, true));
    for (unsigned L : loopsOf(P, {}))
      Q2.push_back(Enc.iterationExists(0, L));
    for (unsigned L : loopsOf(Q, {}))
      Q2.push_back(Enc.iterationExists(1, L));
    return Q2;
  };
  Solved Sv = solve(Build);
  bool May = !Sv.Res.isUnsat();
  RunBoth[Key] = May;
  return May;
}

//===-- Flags -------------------------------------------------------------===//

std::vector<std::pair<unsigned, unsigned>> Checker::exitsOf(unsigned Loop) {
  const ir::Loop &L = F.loops().loops()[Loop];
  std::vector<std::pair<unsigned, unsigned>> Out;
  for (unsigned N : L.Nodes)
    for (unsigned S : F.cfg().succs(N))
      if (!L.contains(S))
        Out.emplace_back(N, S);
  return Out;
}

const std::vector<Checker::Guard> &Checker::guardsOf(unsigned Z) {
  // Strong reads that run before Z in every execution of it, whose value
  // Z's thread used to get there: in a loop that Z follows, or in Z's own
  // iteration. Asked for each query a pair builds: kept per item.
  auto [It, New] = Guards.try_emplace(Z);
  if (!New)
    return It->second;
  std::vector<Guard> &Out = It->second;
  const auto &Loops = F.loops().loops();
  unsigned BZ = F.blockOf(Z);
  for (unsigned K = 0; K < Items.size(); ++K) {
    const ir::MemoryAccess &R = Items[K].A;
    if (Items[K].Call || !R.Reads || R.Part != 0 || R.Item == Z ||
        scopeRank(strongScope(R)) == 0 || !F.dominates(R.Item, Z) ||
        F.defs(R.Item).empty())
      continue;
    Guard G;
    G.Read = K;
    unsigned LR = F.loops().loopFor(F.blockOf(R.Item));
    if (LR != NoNode && !Loops[LR].contains(BZ)) {
      unsigned Parent = Loops[LR].Parent;
      if (Parent != NoNode && !Loops[Parent].contains(BZ))
        continue;
      G.Loop = LR;
      G.Exits = exitsOf(LR);
    }
    Out.push_back(G);
  }
  return Out;
}

Expr Checker::guardFacts(Encoder &Enc, unsigned T, const Guard &G) {
  Frame FT{T, NoNode};
  std::vector<Expr> C;
  if (G.Loop != NoNode) {
    // The thread left the loop in its current iteration, by one of its
    // exits.
    C.push_back(Enc.iterationExists(T, G.Loop));
    std::vector<Expr> Left;
    for (auto [From, To] : G.Exits)
      Left.push_back(Enc.encode(FT, TV.pathCond(From)) &&
                     Enc.encode(FT, TV.edgeCond(From, To)));
    C.push_back(Expr::mkOr(Left));
  }
  return Expr::mkAnd(C);
}

Expr Checker::readValue(Encoder &Enc, unsigned T, unsigned Read) {
  unsigned Item = Items[Read].A.Item;
  return Enc.encode(Frame{T, NoNode}, TV.defined(Item, F.defs(Item)[0]));
}

ptx::Scope Checker::acquireNeed(unsigned Read) {
  // The scope an acquire of Read needs: its CTA's when every write of the
  // location is made in the reading thread's CTA.
  const ir::MemoryAccess &R = Items[Read].A;
  for (const Item &W : Items)
    if (W.A.Writes &&
        (W.Call || W.A.Object.K == ir::ObjectKind::Unknown ||
         W.A.Object == R.Object) &&
        mayRunBoth(W.A.Item, R.Item, ThreadPair::OtherBlocks))
      return ptx::Scope::GPU;
  return ptx::Scope::CTA;
}

bool Checker::acquireOrders(const Guard &G, unsigned Z, ptx::Scope Need) {
  // An acquire read, or a fence on every way from the read to Z; from a
  // loop, on every way from each exit that Z can be reached by.
  unsigned R = Items[G.Read].A.Item;
  if (acquireSem(F.inst(R).S))
    return true;
  auto Fenced = [&](unsigned It) { return acquireFence(F.inst(It), Need); };
  if (G.Loop == NoNode)
    return allPathsPass(R, Z, Fenced);
  for (const auto &Exit : G.Exits) {
    // Named copies: a lambda cannot capture structured bindings in clang
    // before 16.
    unsigned From = Exit.first, To = Exit.second;
    if (allPathsPass(F.blocks()[To].Begin, Z, Fenced, true))
      continue;
    Builder Build = [&](Encoder &Enc) {
      Frame F0{0, NoNode};
      return std::vector<Expr>{Enc.encode(F0, TV.execCond(Z)),
                               Enc.iterationExists(0, G.Loop),
                               Enc.encode(F0, TV.pathCond(From)),
                               Enc.encode(F0, TV.edgeCond(From, To))};
    };
    if (!solve(Build).Res.isUnsat())
      return false;
  }
  return true;
}

bool Checker::releaseOrders(unsigned X, unsigned Write, ptx::Scope Need) {
  const ptx::Instruction &In = F.inst(Items[Write].A.Item);
  if (releaseSem(In.S))
    return true;
  return allPathsPass(X, Items[Write].A.Item, [&](unsigned It) {
    return releaseFence(F.inst(It), Need);
  });
}

std::optional<int64_t> Checker::initialValue(const ir::MemoryObject &Obj) {
  if (Obj.K != ir::ObjectKind::Variable)
    return std::nullopt;
  const ptx::Variable *V = TV.findVariable(Obj.Name);
  if (!V || V->Space != AddrSpace::Global)
    return std::nullopt;
  if (!V->Init)
    return 0; // a module variable without initializer starts at zero
  if (V->Init->K == ptx::Operand::Imm && V->Dims.empty())
    return V->Init->Value;
  return std::nullopt;
}

std::optional<ExprId> Checker::writtenValue(unsigned Write, bool &Keeps) {
  // The value a strong write leaves; Keeps: an atomic that leaves the value
  // it found (an add of 0), which observation order passes through.
  Keeps = false;
  const ptx::Instruction &In = F.inst(Items[Write].A.Item);
  if (In.Op == ptx::Opcode::St && In.Ops.size() == 2 &&
      In.Ops[1].K != ptx::Operand::Vector)
    return TV.operand(Items[Write].A.Item, 1);
  if (In.Op != ptx::Opcode::Atom && In.Op != ptx::Opcode::Red)
    return std::nullopt;
  unsigned Last = static_cast<unsigned>(In.Ops.size()) - 1;
  std::optional<int64_t> Imm = constOperand(Items[Write].A.Item, Last);
  switch (In.Atom) {
  case ptx::AtomOp::Exch:
  case ptx::AtomOp::Cas: // writes its last operand, or nothing
    return TV.operand(Items[Write].A.Item, Last);
  case ptx::AtomOp::Add:
  case ptx::AtomOp::Sub:
  case ptx::AtomOp::Or:
  case ptx::AtomOp::Xor:
    Keeps = Imm == 0;
    return std::nullopt;
  case ptx::AtomOp::And:
    Keeps = Imm == -1;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

bool Checker::uniformValue(ExprId E) {
  for (unsigned Y : Pool.symbolsOf(E))
    if (Pool.symbol(Y).K != ir::SymKind::Param)
      return false;
  return true;
}

bool Checker::orderedAfter(unsigned X, unsigned Write, unsigned Read,
                           unsigned Depth) {
  // Every thread's Write comes after every thread's X in causality order,
  // in a release pattern that Read's thread can observe: by the thread of
  // X itself, after X and a release fence; or by a thread that got there
  // only through a flag that such a write set (Depth more links).
  auto Key = std::make_tuple(X, Write, Read, Depth);
  if (auto It = Ordered.find(Key); It != Ordered.end())
    return It->second;
  Ordered[Key] = false; // a cycle of links orders nothing
  const ir::MemoryAccess &W = Items[Write].A;
  unsigned WI = W.Item;
  ptx::Scope Need =
      scopeFor(!mayRunBoth(WI, Items[Read].A.Item, ThreadPair::OtherBlocks));
  bool Ok = false;
  if (scopeRank(strongScope(W)) >= scopeRank(Need)) {
    // By X's own thread: after X, with a release between.
    bool SameOk =
        !mayRunBoth(X, WI, ThreadPair::Same) ||
        (reaches(X, WI) && !reaches(WI, X) && releaseOrders(X, Write, Need));
    // By another thread: only after a flag that such a write set.
    bool OtherOk =
        !mayRunBoth(X, WI, ThreadPair::Distinct) ||
        barrierThenRelease(X, Write, Need) ||
        (Depth > 0 && linkedThroughFlag(X, WI, Write, Need, Depth - 1));
    Ok = SameOk && OtherOk;
  }
  Ordered[Key] = Ok;
  return Ok;
}

bool Checker::ctaBarrier(unsigned Item) const {
  for (const ir::Barrier &B : Bars)
    if (B.Item == Item && !B.Assumed && B.Kind == ir::BarrierKind::CTA &&
        B.Note.empty())
      return true;
  return false;
}

bool Checker::barrierThenRelease(unsigned X, unsigned Write, ptx::Scope Need) {
  // Cumulativity through a CTA barrier: every thread that makes Write is
  // in the CTA of X's thread, a barrier lies on every way from X to it,
  // and a release after that barrier. Outside loops, so that the barrier
  // is the one both threads pass in one phase.
  unsigned WI = Items[Write].A.Item;
  const ir::LoopInfo &LI = F.loops();
  if (LI.depth(F.blockOf(X)) != 0 || LI.depth(F.blockOf(WI)) != 0 ||
      mayRunBoth(X, WI, ThreadPair::OtherBlocks) ||
      !allPathsPass(X, WI, [&](unsigned It) { return ctaBarrier(It); }))
    return false;
  for (const ir::Barrier &B : Bars)
    if (ctaBarrier(B.Item) && reaches(X, B.Item) && reaches(B.Item, WI) &&
        (LI.depth(F.blockOf(B.Item)) != 0 ||
         !releaseOrders(B.Item, Write, Need)))
      return false;
  return true;
}

std::vector<Checker::Guard> Checker::barrierGuardsOf(unsigned Z) {
  // Spin loops on a strong read that some thread of the CTA leaves before
  // a CTA barrier on every way to Z, with an acquire between: what that
  // thread acquired, the barrier hands on to every thread of the CTA.
  std::vector<Guard> Out;
  const ir::LoopInfo &LI = F.loops();
  for (const ir::Barrier &B : Bars) {
    if (!ctaBarrier(B.Item) || LI.depth(F.blockOf(B.Item)) != 0 ||
        !F.dominates(B.Item, Z))
      continue;
    for (unsigned K = 0; K < Items.size(); ++K) {
      const ir::MemoryAccess &R = Items[K].A;
      if (Items[K].Call || !R.Reads || R.Part != 0 ||
          scopeRank(strongScope(R)) == 0 || F.defs(R.Item).empty() ||
          !reaches(R.Item, B.Item) || reaches(B.Item, R.Item))
        continue;
      unsigned LR = LI.loopFor(F.blockOf(R.Item));
      if (LR == NoNode || LI.loops()[LR].Parent != NoNode)
        continue;
      Guard G;
      G.Read = K;
      G.Loop = LR;
      G.Exits = exitsOf(LR);
      G.Barrier = B.Item;
      if (!acquireOrders(G, B.Item, acquireNeed(K)))
        continue;
      Out.push_back(G);
    }
  }
  return Out;
}

bool Checker::linkedThroughFlag(unsigned X, unsigned WI, unsigned Write,
                                ptx::Scope Need, unsigned Depth) {
  // A thread other than X's reaches its Write only after a guard whose
  // values are all ordered after X; the Write is its release.
  for (const Guard &G : guardsOf(WI)) {
    if (!acquireOrders(G, WI, acquireNeed(G.Read)) ||
        !releaseOrders(Items[G.Read].A.Item, Write, Need))
      continue;
    Builder Build = [&](Encoder &Enc) {
      Frame F0{0, NoNode}, F1{1, NoNode};
      std::vector<Expr> Q = {Enc.encode(F0, TV.execCond(X)),
                             Enc.encode(F1, TV.execCond(WI))};
      Q.push_back(guardFacts(Enc, 1, G));
      std::string Why;
      Q.push_back(unorderedRead(Enc, 1, G.Read, X, Depth, Why));
      for (unsigned L : loopsOf(X, {}))
        Q.push_back(Enc.iterationExists(0, L));
      for (unsigned L : loopsOf(WI, {}))
        Q.push_back(Enc.iterationExists(1, L));
      return Q;
    };
    if (solve(Build).Res.isUnsat())
      return true;
  }
  return false;
}

Expr Checker::unorderedRead(Encoder &Enc, unsigned T, unsigned Read, unsigned X,
                            unsigned Depth, std::string &Why) {
  // The values thread T's Read can return without synchronising with a
  // release ordered after X: the initial value and the writes that are
  // not such releases. True (no fact) when one of them is not known.
  const ir::MemoryAccess &R = Items[Read].A;
  std::vector<Expr> Vals;
  Expr V = readValue(Enc, T, Read);
  std::optional<int64_t> Init = initialValue(R.Object);
  if (!Init)
    return Expr::mkBool(true);
  Vals.push_back(V.eq(Expr::mkInt(*Init)));
  std::vector<unsigned> OrderedWrites;
  for (unsigned K = 0; K < Items.size(); ++K) {
    const Item &W = Items[K];
    if (!W.A.Writes)
      continue;
    if (W.Call || W.A.Object.K == ir::ObjectKind::Unknown)
      return Expr::mkBool(true);
    if (!(W.A.Object == R.Object))
      continue;
    // Thread T's own later writes are not what its read returns.
    if (W.A.Item != R.Item && !reaches(W.A.Item, R.Item) &&
        !mayRunBoth(W.A.Item, R.Item, ThreadPair::Distinct))
      continue;
    bool Keeps = false;
    std::optional<ExprId> Val = writtenValue(K, Keeps);
    if (Keeps)
      continue;
    if (orderedAfter(X, K, Read, Depth)) {
      OrderedWrites.push_back(W.A.Item);
      continue;
    }
    if (!Val || !uniformValue(*Val))
      return Expr::mkBool(true);
    Vals.push_back(V.eq(Enc.encode(Frame{T, NoNode}, *Val)));
  }
  if (OrderedWrites.empty())
    return Expr::mkBool(true);
  Why = fmt::format("the read of {} at {} waits for a value that only the "
                    "release at {} writes, after the other access "
                    "(assuming {} is {} at launch)",
                    R.Object.Name, whereText(R.Item),
                    whereText(OrderedWrites.front()), R.Object.Name, *Init);
  return Expr::mkOr(Vals);
}

//===-- Locks -------------------------------------------------------------===//

std::vector<Checker::LockValues> Checker::lockValues(unsigned Read) {
  unsigned At = Items[Read].A.Item;
  const ptx::Instruction &In = F.inst(At);
  if (In.Op != ptx::Opcode::Atom)
    return {};
  if (In.Atom == ptx::AtomOp::Cas) {
    std::optional<int64_t> Free = constOperand(At, 2), Taken = constOperand(At, 3);
    if (!Free || !Taken || *Free == *Taken)
      return {};
    return {{*Free, *Taken}};
  }
  std::optional<int64_t> Taken = constOperand(At, 2);
  if (In.Atom != ptx::AtomOp::Exch || !Taken)
    return {};
  std::vector<LockValues> Out;
  for (unsigned K = 0; K < Items.size(); ++K) {
    if (!Items[K].A.Writes || Items[K].Call ||
        !(Items[K].A.Object == Items[Read].A.Object))
      continue;
    bool Keeps = false;
    std::optional<ExprId> Val = writtenValue(K, Keeps);
    std::optional<int64_t> C = Val ? Pool.asConst(*Val) : std::nullopt;
    if (C && *C != *Taken &&
        std::none_of(Out.begin(), Out.end(),
                     [&](const LockValues &V) { return V.Free == *C; }))
      Out.push_back({*C, *Taken});
  }
  return Out;
}

std::optional<Checker::HeldLock> Checker::lockHeldAt(unsigned Z, ptx::Scope Need) {
  // A compare-and-swap or exchange spin loop that Z follows, the lock
  // still held at Z (no write to it between), and a fenced release of it
  // on every way on from Z.
  for (const Guard &G : guardsOf(Z)) {
    const ir::MemoryAccess &C = Items[G.Read].A;
    if (G.Loop == NoNode || !C.Affine ||
        scopeRank(strongScope(C)) < scopeRank(Need) ||
        !acquireOrders(G, Z, Need) || !heldUntil(G, Z))
      continue;
    for (const LockValues &V : lockValues(G.Read)) {
      if (!acquiredOnExit(G, V.Free, Z))
        continue;
      bool Released = allPathsPass(Z, NoNode, [&](unsigned It) {
        for (unsigned K = 0; K < Items.size(); ++K)
          if (Items[K].A.Item == It && Items[K].A.Writes &&
              Items[K].A.Object == C.Object) {
            bool Keeps = false;
            std::optional<ExprId> Val = writtenValue(K, Keeps);
            return Val && Items[K].A.Offset == C.Offset &&
                   Pool.asConst(*Val) == V.Free &&
                   scopeRank(strongScope(Items[K].A)) >= scopeRank(Need) &&
                   releaseOrders(Z, K, Need);
          }
        return false;
      });
      if (Released && lockDiscipline(G.Read, V.Free, V.Taken))
        return HeldLock{G, V};
    }
  }
  return std::nullopt;
}

bool Checker::heldUntil(const Guard &G, unsigned Z) {
  // No write of the lock between the compare-and-swap and Z.
  const ir::MemoryAccess &C = Items[G.Read].A;
  for (const Item &W : Items)
    if (W.A.Writes && W.A.Object == C.Object && W.A.Item != C.Item &&
        W.A.Item != Z && reaches(C.Item, W.A.Item) && reaches(W.A.Item, Z) &&
        !reaches(Z, W.A.Item))
      return false;
  return true;
}

bool Checker::acquiredOnExit(const Guard &G, int64_t Free, unsigned At) {
  // Reaching At after the spin loop means its compare-and-swap found the
  // lock free (a loop with a time-out exit reaches At only by the other).
  auto Key = std::make_tuple(G.Read, Free, At);
  if (auto It = Acquired.find(Key); It != Acquired.end())
    return It->second;
  unsigned Cas = Items[G.Read].A.Item;
  Builder Build = [&](Encoder &Enc) {
    return std::vector<Expr>{
        Enc.encode(Frame{0, NoNode}, TV.execCond(Cas)),
        Enc.encode(Frame{0, NoNode}, TV.execCond(At)), guardFacts(Enc, 0, G),
        readValue(Enc, 0, G.Read).ne(Expr::mkInt(Free))};
  };
  bool Yes = solve(Build).Res.isUnsat();
  Acquired[Key] = Yes;
  return Yes;
}

bool Checker::lockDiscipline(unsigned Acq, int64_t Free, int64_t Taken) {
  // Every write of the lock is a compare-and-swap from Free to Taken, an
  // exchange of Taken (which takes a free lock, and leaves a held one
  // held), or a write of Free that runs only after such an atomic found
  // the lock free (by the thread that holds the lock).
  const ir::MemoryAccess &C = Items[Acq].A;
  for (unsigned K = 0; K < Items.size(); ++K) {
    const Item &W = Items[K];
    if (!W.A.Writes)
      continue;
    if (W.Call || W.A.Object.K == ir::ObjectKind::Unknown)
      return false;
    if (!(W.A.Object == C.Object))
      continue;
    const ptx::Instruction &In = F.inst(W.A.Item);
    if (In.Op == ptx::Opcode::Atom && In.Atom == ptx::AtomOp::Cas) {
      if (constOperand(W.A.Item, 2) != Free ||
          constOperand(W.A.Item, 3) != Taken)
        return false;
      continue;
    }
    if (In.Op == ptx::Opcode::Atom && In.Atom == ptx::AtomOp::Exch &&
        constOperand(W.A.Item, 2) == Taken)
      continue;
    bool Keeps = false;
    std::optional<ExprId> Val = writtenValue(K, Keeps);
    if (Keeps)
      continue;
    if (!Val || Pool.asConst(*Val) != Free)
      return false;
    // Written only by a holder: after leaving a spin loop whose compare-
    // and-swap on the same address succeeded, the lock held until here.
    bool ByHolder = false;
    for (const Guard &G : guardsOf(W.A.Item)) {
      const ir::MemoryAccess &A = Items[G.Read].A;
      ptx::AtomOp Op = F.inst(A.Item).Atom;
      ByHolder |= G.Loop != NoNode && A.Object == C.Object &&
                  A.Offset == W.A.Offset && A.Writes &&
                  F.inst(A.Item).Op == ptx::Opcode::Atom &&
                  (Op == ptx::AtomOp::Cas ||
                   (Op == ptx::AtomOp::Exch &&
                    constOperand(A.Item, 2) == Taken)) &&
                  heldUntil(G, W.A.Item) && acquiredOnExit(G, Free, W.A.Item);
    }
    if (!ByHolder)
      return false;
  }
  return true;
}

//===-- The facts of a pair -----------------------------------------------===//

Expr Checker::unsynchronised(Encoder &Enc, unsigned I, unsigned J,
                             Relation Rel) {
  const ir::MemoryAccess &X = Items[I].A, &Y = Items[J].A;
  ptx::Scope Need = scopeFor(Rel != Relation::OtherBlocks);
  std::vector<Expr> Out;
  // Flags, either way round: thread T's access follows a guard whose
  // values only a release after the other access writes.
  bool BothStrong = scopeRank(strongScope(X)) >= scopeRank(Need) &&
                    scopeRank(strongScope(Y)) >= scopeRank(Need);
  for (unsigned T = 0; T < 2; ++T) {
    unsigned Z = T == 0 ? X.Item : Y.Item, Other = T == 0 ? Y.Item : X.Item;
    for (const Guard &G : guardsOf(Z)) {
      // Two strong accesses need no acquire fence: the PTX ISA orders
      // them as morally strong; the release side is what makes them a
      // hand-off rather than a volatile race.
      ptx::Scope AcqNeed = acquireNeed(G.Read);
      if (scopeRank(strongScope(Items[G.Read].A)) < scopeRank(AcqNeed) ||
          (!BothStrong && !acquireOrders(G, Z, AcqNeed)))
        continue;
      std::string Why;
      Expr Facts = unorderedRead(Enc, T, G.Read, Other, 3, Why);
      if (Why.empty())
        continue;
      Out.push_back(guardFacts(Enc, T, G) && Facts);
      if (std::find(SyncWhy.begin(), SyncWhy.end(), Why) == SyncWhy.end())
        SyncWhy.push_back(Why);
    }
  }
  // Flags a CTA's thread 0 waited for before a barrier that thread T
  // passed before its access: thread C of the encoding is that thread 0.
  for (unsigned T = 0; T < 2; ++T) {
    unsigned Z = T == 0 ? X.Item : Y.Item, Other = T == 0 ? Y.Item : X.Item;
    for (const Guard &G : barrierGuardsOf(Z)) {
      if (scopeRank(strongScope(Items[G.Read].A)) <
          scopeRank(acquireNeed(G.Read)))
        continue;
      std::string Why;
      Expr Facts = unorderedRead(Enc, 2, G.Read, Other, 3, Why);
      if (Why.empty())
        continue;
      std::vector<Expr> C;
      for (unsigned D = 0; D < 3; ++D) {
        C.push_back(Enc.idFacts(2, D));
        C.push_back(Enc.tid(2, D).eq(Expr::mkInt(0)));
        C.push_back(Enc.ctaid(2, D).eq(Enc.ctaid(T, D)));
      }
      Expr Runs =
          Enc.encode(Frame{2, NoNode}, TV.execCond(Items[G.Read].A.Item));
      C.push_back(Runs.implies(guardFacts(Enc, 2, G) && Facts));
      Out.push_back(Expr::mkAnd(C));
      Why = fmt::format("thread 0 of the block: {}; the barrier at {} passes "
                        "it on",
                        Why, whereText(G.Barrier));
      if (std::find(SyncWhy.begin(), SyncWhy.end(), Why) == SyncWhy.end())
        SyncWhy.push_back(Why);
    }
  }
  // Locks: both accesses in critical sections of one lock object.
  std::optional<HeldLock> LX = lockHeldAt(X.Item, Need),
                          LY = lockHeldAt(Y.Item, Need);
  if (LX && LY && Items[LX->G.Read].A.Object == Items[LY->G.Read].A.Object &&
      LX->V.Free == LY->V.Free && LX->V.Taken == LY->V.Taken) {
    // The atomic that let each thread in returned the free value.
    Expr Held0 = readValue(Enc, 0, LX->G.Read).eq(Expr::mkInt(LX->V.Free));
    Expr Held1 = readValue(Enc, 1, LY->G.Read).eq(Expr::mkInt(LY->V.Free));
    Expr A0 = Enc.encode(Frame{0, NoNode}, Items[LX->G.Read].A.Offset);
    Expr A1 = Enc.encode(Frame{1, NoNode}, Items[LY->G.Read].A.Offset);
    Out.push_back(guardFacts(Enc, 0, LX->G) && guardFacts(Enc, 1, LY->G) &&
                  (Held0 && Held1).implies(A0.ne(A1)));
    auto OpName = [&](unsigned Read) {
      return F.inst(Items[Read].A.Item).Atom == ptx::AtomOp::Cas
                 ? "compare-and-swap"
                 : "exchange";
    };
    std::string Second = whereText(Items[LY->G.Read].A.Item);
    if (std::string_view(OpName(LX->G.Read)) != OpName(LY->G.Read))
      Second = fmt::format("{} at {}", OpName(LY->G.Read), Second);
    std::string Why = fmt::format(
        "both accesses hold the lock {} ({} at {} and {}, released after a "
        "fence)",
        Items[LX->G.Read].A.Object.Name, OpName(LX->G.Read),
        whereText(Items[LX->G.Read].A.Item), Second);
    if (std::find(SyncWhy.begin(), SyncWhy.end(), Why) == SyncWhy.end())
      SyncWhy.push_back(Why);
  }
  return Expr::mkAnd(Out);
}

std::string Checker::memorySync(unsigned I, unsigned J, Relation Rel) {
  // Fences and release/acquire operations can order the pair (message
  // passing, locks), given a strong access to communicate through. Their
  // scope must include both threads, or, for threads of two blocks, a
  // third thread of the same block may carry the order on (causality
  // order is transitive) when some fence or release in the kernel has gpu
  // scope; not when a block has one thread.
  struct Op {
    unsigned Item;
    ptx::Scope Sc;
  };
  std::vector<Op> Release, Acquire;
  bool Comm = false, Wide = false;
  for (unsigned Item : F.instructions()) {
    const ptx::Instruction &In = F.inst(Item);
    ptx::Scope Sc = In.Sc;
    bool Fence = isFence(In);
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
    bool Rel_ = Fence || releaseSem(In.S);
    // A strong read may observe a flag that a fenced write set.
    bool StrongRead =
        Strong && In.Op != ptx::Opcode::St && In.Op != ptx::Opcode::Red;
    bool Acq = Fence || StrongRead || acquireSem(In.S);
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
                "may be ordered through the fence or atomic at {} and {}, "
                "but no flag hand-off or lock that the analysis follows "
                "orders every execution of the pair",
                whereText(Rl.Item), whereText(Aq.Item));
  return "";
}

} // namespace incant::race
