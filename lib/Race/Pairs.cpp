//===- Pairs.cpp - Two accesses, two symbolic threads, one query ----------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>

namespace incant::race {

//===-- Encoding helpers --------------------------------------------------===//

void Checker::flush(Solving &Sv) {
  // A side condition or lemma that could not be built only constrains the
  // threads less: leaving it out can give a race or unknown, never safe.
  auto Add = [&](const Expr &E) {
    if (E.isValid())
      Sv.S.add(E);
  };
  for (const Expr &E : Sv.Enc.takeSideConditions())
    Add(E);
  for (const Expr &E : Sv.Enc.lemmas())
    Add(E);
  for (const Expr &E : Sv.Enc.takeSideConditions())
    Add(E);
}

LaunchConfig Checker::launchOf(const smt::Model &Mo, Encoder &E) {
  LaunchConfig L = O.Launch;
  for (unsigned D = 0; D < 3; ++D) {
    L.Block[D] = Mo.evalInt(E.ntid(D)).value_or(1);
    L.Grid[D] = Mo.evalInt(E.nctaid(D)).value_or(1);
  }
  for (unsigned Y = 0; Y < Pool.symbolCount(); ++Y) {
    const ir::Symbol &Sym = Pool.symbol(Y);
    if (Sym.K != ir::SymKind::Param)
      continue;
    std::string Key = Sym.Offset ? Sym.Name + "+" + std::to_string(Sym.Offset)
                                 : Sym.Name;
    if (!L.Params.count(Key))
      L.Params[Key] = Mo.evalInt(E.symbolVar(Frame{0, NoNode}, Y)).value_or(0);
  }
  return L;
}

unsigned Checker::queryMs() const {
  if (O.KernelSeconds <= 0)
    return O.TimeoutMs;
  double Left =
      O.KernelSeconds -
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (Left <= 0)
    return 0;
  return unsigned(std::clamp(Left * 1000, 1.0, double(O.TimeoutMs)));
}

Checker::Solved Checker::solve(const Builder &Build) {
  Solved Out;
  Solving &Mn = *Main;
  // Each check gets the query's limit or what is left of the kernel's,
  // whichever is less: the kernel's limit bounds all of its checks.
  // The limit is set only when it changes: setting a solver's parameters
  // again can change the models it finds.
  auto OutOfTime = [&](Solving &Sv) {
    unsigned Ms = queryMs();
    if (Ms == 0)
      return true;
    if (Ms != Sv.LimitMs) {
      Sv.S.setLimits(smt::Limits{Ms, 0});
      Sv.LimitMs = Ms;
    }
    return false;
  };
  // The launch of \p L (geometry and parameters) in the main encoder.
  auto SameLaunch = [&](LaunchConfig &L) {
    std::vector<Expr> Same;
    for (unsigned D = 0; D < 3; ++D) {
      Same.push_back(Mn.Enc.ntid(D).eq(Expr::mkInt(*L.Block[D])));
      Same.push_back(Mn.Enc.nctaid(D).eq(Expr::mkInt(*L.Grid[D])));
    }
    for (unsigned Y = 0; Y < Pool.symbolCount(); ++Y)
      if (Pool.symbol(Y).K == ir::SymKind::Param) {
        const ir::Symbol &Sym = Pool.symbol(Y);
        std::string Key = Sym.Offset ? Sym.Name + "+" + std::to_string(Sym.Offset)
                                     : Sym.Name;
        Same.push_back(Mn.Enc.symbolVar(Frame{0, NoNode}, Y)
                           .eq(Expr::mkInt(L.Params[Key])));
      }
    return Same;
  };
  // The query asked of a solver of its own for launch \p L, with shift
  // amounts \p Fixed as constants; none where it could not be built or
  // the time is out.
  auto Concrete = [&](const LaunchConfig &L,
                      const std::map<std::pair<Frame, ir::ExprId>, int64_t> &Fixed)
      -> std::unique_ptr<Solving> {
    auto Conc = std::make_unique<Solving>(TV, L, O.TimeoutMs);
    Conc->Enc.fixShifts(Fixed);
    std::vector<Expr> Q2 = Build(Conc->Enc);
    if (!std::all_of(Q2.begin(), Q2.end(), [](const Expr &E) { return E.isValid(); }) ||
        OutOfTime(*Conc))
      return nullptr;
    flush(*Conc);
    for (const Expr &E : Q2)
      Conc->S.add(E);
    return Conc;
  };
  if (OutOfTime(Mn)) {
    Out.Res = smt::Result::unknown(
        fmt::format("the kernel's time limit ran out (--kernel-time {})",
                    O.KernelSeconds));
    Out.By = &Mn;
    return Out;
  }
  std::vector<Expr> Q = Build(Mn.Enc);
  if (!std::all_of(Q.begin(), Q.end(), [](const Expr &E) { return E.isValid(); })) {
    flush(Mn);
    Out.Res = smt::Result::unknown("a formula the encoder could not build");
    Out.By = &Mn;
    return Out;
  }
  flush(Mn);
  Mn.S.push();
  for (const Expr &E : Q)
    Mn.S.add(E);
  Out.Res = Mn.S.check();
  Out.By = &Mn;

  // A model of the linear relaxation may not multiply correctly: solve
  // again with that model's geometry and parameters as constants, which
  // makes most products linear; else try another geometry.
  for (unsigned Try = 0; Try < 3 && Out.Res.isSat() &&
                         !Mn.Enc.validModel(Out.Res.model());
       ++Try) {
    LaunchConfig L = launchOf(Out.Res.model(), Mn.Enc);
    std::unique_ptr<Solving> Conc = Concrete(L, {});
    if (!Conc)
      break;
    smt::Result R2 = Conc->S.check();
    if (R2.isSat() && Conc->Enc.validModel(R2.model())) {
      Out.Res = R2;
      Out.By = Conc.get();
      Out.Own = std::move(Conc);
      Mn.S.pop();
      return Out;
    }
    // Only a geometry proved free of witnesses may be excluded: where the
    // concrete query gave up, or its model still does not multiply, the
    // pair stays undecided (unknown below), never safe.
    if (!R2.isUnsat())
      break;
    // Not with this geometry and these parameters: another one.
    std::vector<Expr> Same = SameLaunch(L);
    Mn.S.add(!Expr::mkAnd(Same));
    if (OutOfTime(Mn)) {
      Out.Res = smt::Result::unknown("the kernel's time limit ran out");
      break;
    }
    Out.Res = Mn.S.check();
  }
  // Shifts by amounts only the solver knows (geometric loop variables):
  // solve again with the model's amounts and geometry as constants, which
  // makes the shifted values constants; exclude each combination that has
  // no witness, until none is left (safe) or one has an exact witness.
  for (unsigned Try = 0; Try < 64 && Out.Res.isSat() &&
                         !Mn.Enc.validModel(Out.Res.model());
       ++Try) {
    const smt::Model &M = Out.Res.model();
    LaunchConfig L = launchOf(M, Mn.Enc);
    // Which shifts this query has: a fresh encoder of it alone.
    Solving Probe(TV, L, O.TimeoutMs);
    Build(Probe.Enc);
    std::map<std::pair<Frame, ir::ExprId>, int64_t> Amounts;
    std::vector<Expr> Same, Launch = SameLaunch(L);
    bool Ok = !Probe.Enc.variableShifts().empty();
    for (const auto &[Key, KP] : Probe.Enc.variableShifts()) {
      auto InMain = Mn.Enc.variableShifts().find(Key);
      std::optional<int64_t> V = InMain == Mn.Enc.variableShifts().end()
                                     ? std::nullopt
                                     : M.evalInt(InMain->second);
      Ok = Ok && V && *V < 62;
      if (!Ok)
        break;
      // A negative amount: a frame of an iteration before the first
      // (whose values do not count), left as it is.
      if (*V >= 0)
        Amounts[Key] = *V;
      Same.push_back(InMain->second.eq(Expr::mkInt(*V)));
    }
    if (!Ok || OutOfTime(Mn))
      break;
    // First with the launch as it is checked (an answer for every launch:
    // only the amounts are excluded), then with the model's.
    bool Excluded = false;
    for (bool ModelLaunch : {false, true}) {
      std::unique_ptr<Solving> Conc = Concrete(ModelLaunch ? L : O.Launch, Amounts);
      if (!Conc)
        break;
      smt::Result R2 = Conc->S.check();
      if (R2.isSat() && Conc->Enc.validModel(R2.model())) {
        Out.Res = R2;
        Out.By = Conc.get();
        Out.Own = std::move(Conc);
        Mn.S.pop();
        return Out;
      }
      if (R2.isUnsat()) {
        if (ModelLaunch)
          Same.insert(Same.end(), Launch.begin(), Launch.end());
        Excluded = true;
        break;
      }
      if (!R2.isSat())
        break; // gave up
    }
    if (!Excluded)
      break;
    Mn.S.add(!Expr::mkAnd(Same));
    if (OutOfTime(Mn))
      break;
    Out.Res = Mn.S.check();
  }
  if (Out.Res.isSat() && !Mn.Enc.validModel(Out.Res.model()))
    Out.Res = smt::Result::unknown(
        "no witness found with the products of unknowns made linear");
  Mn.S.pop();
  return Out;
}

std::string Checker::gaveUp(const smt::Result &Res) const {
  if (Res.isTimeout())
    return fmt::format("the solver ran out of its limit of {} ms per query "
                       "(--timeout)",
                       O.TimeoutMs);
  return "the solver gave up: " + Res.str();
}

Expr Checker::relationFacts(Encoder &Enc, Relation Rel, bool AnyWarp) {
  std::vector<Expr> Same, Diff;
  for (unsigned D = 0; D < 3; ++D) {
    Expr CA = Enc.ctaid(0, D), CB = Enc.ctaid(1, D);
    Same.push_back(CA.eq(CB));
    Diff.push_back(CA.ne(CB));
  }
  if (Rel == Relation::OtherBlocks)
    return Expr::mkOr(Diff);
  std::vector<Expr> TidDiff;
  for (unsigned D = 0; D < 3; ++D)
    TidDiff.push_back(Enc.tid(0, D).ne(Enc.tid(1, D)));
  Expr F = Expr::mkAnd(Same) && Expr::mkOr(TidDiff);
  if (AnyWarp)
    return F;
  Expr SameWarp = Enc.warp(0).eq(Enc.warp(1));
  return F && (Rel == Relation::SameWarp ? SameWarp : !SameWarp);
}

std::vector<unsigned> Checker::loopsOf(unsigned Item,
                                       const std::vector<ExprId> &Es) {
  std::set<unsigned> Ls;
  const auto &Loops = F.loops().loops();
  unsigned Blk = F.blockOf(Item);
  for (unsigned L = 0; L < Loops.size(); ++L)
    if (Loops[L].contains(Blk))
      Ls.insert(L);
  for (ExprId E : Es)
    for (unsigned Sym : Pool.symbolsOf(E)) {
      const ir::Symbol &Y = Pool.symbol(Sym);
      if (Y.K == ir::SymKind::Iter || Y.K == ir::SymKind::LoopVar)
        Ls.insert(Y.Loop);
    }
  return {Ls.begin(), Ls.end()};
}

Expr Checker::contexts(Encoder &Enc, unsigned I, unsigned J,
                       const ir::BarrierIntervals &BI,
                       std::vector<unsigned> &Sources,
                       std::set<unsigned> &Used) {
  const auto &Loops = F.loops().loops();
  unsigned IX = Items[I].A.Item, IY = Items[J].A.Item;
  unsigned BX = F.blockOf(IX), BY = F.blockOf(IY);
  std::vector<Expr> Alts;
  for (const auto &RX : BI.reach(IX))
    for (const auto &RY : BI.reach(IY)) {
      if (RX.Source != RY.Source)
        continue;
      unsigned Src = BI.sources()[RX.Source];
      if (std::find(Sources.begin(), Sources.end(), Src) == Sources.end())
        Sources.push_back(Src);
      const std::vector<unsigned> &SL = BI.sourceLoops(RX.Source);
      std::vector<Expr> C;
      for (unsigned L = 0; L < Loops.size(); ++L) {
        if (!BI.synchronised(L))
          continue;
        bool InX = Loops[L].contains(BX), InY = Loops[L].contains(BY);
        auto Pos = std::find(SL.begin(), SL.end(), L);
        if (Pos == SL.end()) {
          // The source is outside: the first iteration.
          if (InX)
            C.push_back(Enc.iter(0, L).eq(Expr::mkInt(0)));
          if (InY)
            C.push_back(Enc.iter(1, L).eq(Expr::mkInt(0)));
          continue;
        }
        // The source's loop: each access is in the source's iteration or
        // the next one (after the back edge). For an access after the loop
        // the counter is that of the iteration it left in.
        unsigned Bit = static_cast<unsigned>(Pos - SL.begin());
        int64_t DX = RX.Crossed >> Bit & 1, DY = RY.Crossed >> Bit & 1;
        C.push_back((Enc.iter(0, L) - Expr::mkInt(DX))
                        .eq(Enc.iter(1, L) - Expr::mkInt(DY)));
        // An access after the loop: its thread left in that iteration.
        if (!InX)
          C.push_back(!Enc.encode(Frame{0, NoNode}, TV.backEdgeCond(L)));
        if (!InY)
          C.push_back(!Enc.encode(Frame{1, NoNode}, TV.backEdgeCond(L)));
        Used.insert(L);
      }
      C.push_back(skipped(Enc, 0, IX, Src, BI, RX));
      C.push_back(skipped(Enc, 1, IY, Src, BI, RY));
      Alts.push_back(Expr::mkAnd(C));
    }
  return Expr::mkOr(Alts);
}

bool Checker::forwardReaches(unsigned From, unsigned To) {
  unsigned NB = static_cast<unsigned>(F.blocks().size());
  if (FwdReach.empty()) {
    FwdReach.assign(NB, std::vector<char>(NB, 0));
    const ir::DominatorTree &DT = F.dominators();
    for (unsigned B = 0; B < NB; ++B) {
      std::vector<unsigned> Work = {B};
      while (!Work.empty()) {
        unsigned X = Work.back();
        Work.pop_back();
        if (FwdReach[B][X])
          continue;
        FwdReach[B][X] = 1;
        for (unsigned Y : F.cfg().succs(X))
          if (!(DT.reachable(X) && DT.dominates(Y, X))) // not a back edge
            Work.push_back(Y);
      }
    }
  }
  return FwdReach[From][To] != 0;
}

Expr Checker::skipped(Encoder &Enc, unsigned T, unsigned Item,
                      unsigned SourceItem, const ir::BarrierIntervals &BI,
                      const ir::BarrierIntervals::Reach &RR) {
  // A synchronised loop that lies between the source and the access, on a
  // way the thread did not take (it skipped the loop): the thread's entry
  // condition of that loop is false. Only where the source, the access and
  // the loop share their enclosing loop and the way crossed no back edge
  // of it, so that "between" means one pass.
  const auto &Loops = F.loops().loops();
  unsigned BZ = F.blockOf(Item);
  unsigned BS = SourceItem == NoNode ? F.entry() : F.blockOf(SourceItem);
  unsigned Encl = SourceItem == NoNode ? NoNode : F.loops().loopFor(BS);
  if (F.loops().loopFor(BZ) != Encl)
    return Expr::mkBool(true);
  if (Encl != NoNode) {
    const std::vector<unsigned> &SL = BI.sourceLoops(RR.Source);
    auto Pos = std::find(SL.begin(), SL.end(), Encl);
    if (Pos == SL.end() || (RR.Crossed >> (Pos - SL.begin()) & 1))
      return Expr::mkBool(true);
  }
  std::vector<Expr> C;
  const std::vector<unsigned> &EL = BI.enteredLoops();
  for (unsigned K = 0; K < EL.size(); ++K) {
    unsigned L = EL[K];
    if (RR.Entered >> K & 1 || Loops[L].contains(BZ) || Loops[L].contains(BS) ||
        Loops[L].Parent != Encl)
      continue;
    // Between: the source reaches its header, and its exits reach the
    // access, without a back edge.
    if (!forwardReaches(BS, Loops[L].Header))
      continue;
    bool After = false;
    for (unsigned N : Loops[L].Nodes)
      for (unsigned S : F.cfg().succs(N))
        After |= !Loops[L].contains(S) && forwardReaches(S, BZ);
    if (After)
      C.push_back(!Enc.encode(Frame{T, NoNode}, TV.loopEntryCond(L)));
  }
  return Expr::mkAnd(C);
}

Expr Checker::sharing(Encoder &Enc, const std::vector<ExprId> &ExprsA,
                      const std::vector<ExprId> &ExprsB, Relation Rel) {
  // A loop-carried value the uniformity analysis calls uniform is the same
  // for both threads in the same iteration of its loop (and of the loops
  // around it): link every pair of instances the formulas made.
  (void)ExprsA;
  (void)ExprsB;
  ir::Variance Need = Rel == Relation::OtherBlocks ? ir::Variance::Grid
                                                   : ir::Variance::Block;
  const auto &Loops = F.loops().loops();
  std::vector<Expr> Out;
  const auto &Inst = Enc.loopVarInstances();
  for (const auto &A : Inst) {
    if (A.Fr.Thread != 0)
      continue;
    const ir::Symbol &Sym = Pool.symbol(A.Sym);
    if (carriedVariance(Sym) > Need ||
        (A.Fr.ShiftLoop != NoNode && A.Fr.ShiftLoop != Sym.Loop))
      continue;
    for (const auto &B : Inst) {
      if (B.Fr.Thread != 1 || B.Sym != A.Sym ||
          (B.Fr.ShiftLoop != NoNode && B.Fr.ShiftLoop != Sym.Loop))
        continue;
      std::vector<Expr> Eq = {A.Iter.eq(B.Iter)};
      for (unsigned L = 0; L < Loops.size(); ++L)
        if (L != Sym.Loop && Loops[L].contains(Loops[Sym.Loop].Header))
          Eq.push_back(Enc.iter(0, L).eq(Enc.iter(1, L)));
      Out.push_back(Expr::mkAnd(Eq).implies(A.Var.eq(B.Var)));
    }
  }
  return Expr::mkAnd(Out);
}

ir::Variance Checker::carriedVariance(const ir::Symbol &Sym) const {
  // What the loop's header reads: the definitions before the loop and
  // those on its back edges.
  const auto &Header = F.blocks()[F.loops().loops()[Sym.Loop].Header].Insts;
  return Header.empty() ? U.reg(Sym.Reg) : U.at(Sym.Reg, Header.front());
}

bool Checker::ticket(unsigned Item) const {
  return F.isInstruction(Item) && ir::ticketAtomic(F.inst(Item));
}

bool Checker::resetBefore(unsigned Write, const ir::MemoryObject &Obj) {
  // A reset of a block's counter (`if (tid == 0) count = 0;` then a
  // barrier) before every ticket atomic, none of them in a loop: the
  // tickets count on from it.
  if (Obj.Space != AddrSpace::Shared || F.loops().depth(F.blockOf(Write)) != 0)
    return false;
  for (const Item &T : Items)
    if (T.A.Writes && T.A.Object == Obj && ticket(T.A.Item) &&
        (F.loops().depth(F.blockOf(T.A.Item)) != 0 ||
         Cta->mayShareInterval(Write, T.A.Item) || !reaches(Write, T.A.Item) ||
         reaches(T.A.Item, Write)))
      return false;
  return true;
}

bool Checker::threadZeroRuns(unsigned Item) {
  // No launch and no block in which thread (0,0,0) misses the item.
  ExprId Pc = TV.execCond(Item);
  Builder Build = [&](Encoder &Enc) {
    Frame FA{0, NoNode};
    std::vector<Expr> Q = {!Enc.encode(FA, Pc)};
    for (unsigned D = 0; D < 3; ++D) {
      Expr T = Enc.tid(0, D);
      Q.push_back(T.eq(T.isBV() ? Expr::mkBV(0, T.bits()) : Expr::mkInt(0)));
    }
    return Q;
  };
  return solve(Build).Res.isUnsat();
}

std::optional<std::pair<int64_t, int64_t>>
Checker::ticketRange(unsigned Ticket) {
  // A block's counter reset to c (resetBefore), then K ticket atomics of
  // one step s, none in a loop: each thread runs each at most once, so
  // the tickets are c, c + s, ... below c + s * K * threads per block.
  const ir::MemoryObject &Obj = Items[Ticket].A.Object;
  std::optional<int64_t> Reset, Step;
  int64_t Atomics = 0;
  bool Runs = false;
  for (const Item &W : Items) {
    if (!W.A.Writes || !(W.A.Object == Obj))
      continue;
    if (W.Call || W.A.Bytes != 4)
      return std::nullopt;
    const ptx::Instruction &In = F.inst(W.A.Item);
    if (ticket(W.A.Item)) {
      if (In.Atom != ptx::AtomOp::Add || In.Ops.back().K != ptx::Operand::Imm ||
          In.Ops.back().Value <= 0 || (Step && *Step != In.Ops.back().Value))
        return std::nullopt;
      Step = In.Ops.back().Value;
      ++Atomics;
      continue;
    }
    std::optional<int64_t> C =
        In.Op == ptx::Opcode::St && In.Ops.size() == 2
            ? Pool.asConst(TV.operand(W.A.Item, 1))
            : std::nullopt;
    if (!C || (Reset && *Reset != *C) || !resetBefore(W.A.Item, Obj))
      return std::nullopt;
    Reset = C;
    Runs = Runs || threadZeroRuns(W.A.Item);
  }
  if (!Runs)
    return std::nullopt; // maybe no thread of a block resets it
  int64_t Threads = 1;
  for (unsigned D = 0; D < 3; ++D)
    Threads *= O.Launch.Block[D].value_or(1);
  if (!O.Launch.Block[0] || !O.Launch.Block[1] || !O.Launch.Block[2])
    Threads = O.Launch.MaxThreads;
  if (!Reset || !Step || *Reset < 0 || Threads <= 0 ||
      *Reset + *Step * Atomics * Threads >= (int64_t(1) << 31))
    return std::nullopt;
  return std::make_pair(*Reset, *Reset + *Step * Atomics * Threads);
}

bool Checker::monotoneTickets(unsigned Ticket) {
  // Every write of the ticket's memory is a ticket atomic that moves the
  // value the same way (adds of positive constants, or all negative):
  // then no two of them return one value. An atom.inc wraps: it must be
  // the only write there, and run few enough times.
  const ir::MemoryObject &Obj = Items[Ticket].A.Object;
  int Sign = 0;
  bool Inc = false;
  for (const Item &W : Items) {
    if (!W.A.Writes)
      continue;
    if (W.Call || W.A.Object.K == ir::ObjectKind::Unknown)
      return false;
    if (!(W.A.Object == Obj))
      continue;
    if (!ticket(W.A.Item) && resetBefore(W.A.Item, Obj))
      continue;
    if (!ticket(W.A.Item))
      return false;
    const ptx::Instruction &In = F.inst(W.A.Item);
    if (In.Atom == ptx::AtomOp::Inc) {
      if (W.A.Item != Items[Ticket].A.Item)
        return false;
      Inc = true;
      continue;
    }
    int64_t Step = In.Ops.back().Value;
    int S = (Step > 0) == (In.Atom == ptx::AtomOp::Add) ? 1 : -1;
    if (Sign != 0 && S != Sign)
      return false;
    Sign = S;
  }
  if (Inc)
    return Sign == 0 && incWindow(Ticket);
  return Sign != 0;
}

bool Checker::onceCas(unsigned K) {
  if (auto It = OnceCas.find(K); It != OnceCas.end())
    return It->second;
  bool &Out = OnceCas[K];
  Out = false;
  auto CasFrom = [&](unsigned X) -> std::optional<int64_t> {
    const ptx::Instruction &In = F.inst(Items[X].A.Item);
    if (Items[X].Call || In.Op != ptx::Opcode::Atom ||
        In.Atom != ptx::AtomOp::Cas || Items[X].A.Cond != NoExpr)
      return std::nullopt;
    std::optional<int64_t> E = constOperand(Items[X].A.Item, 2),
                           N = constOperand(Items[X].A.Item, 3);
    if (!E || !N || *E == *N)
      return std::nullopt;
    return E;
  };
  const ir::MemoryAccess &A = Items[K].A;
  std::optional<int64_t> E = CasFrom(K);
  std::optional<int64_t> At = A.Affine ? Pool.asConst(A.Offset) : std::nullopt;
  if (!E || !At || !A.Bytes || A.Object.K == ir::ObjectKind::Unknown)
    return Out;
  // Every write that may touch its bytes is such a compare-and-swap from
  // E: nothing ever stores E back.
  for (unsigned X = 0; X < Items.size(); ++X) {
    const ir::MemoryAccess &W = Items[X].A;
    if (!W.Writes)
      continue;
    if (Items[X].Call || W.Object.K == ir::ObjectKind::Unknown)
      return Out;
    if (!(W.Object == A.Object))
      continue;
    std::optional<int64_t> WC = W.Affine ? Pool.asConst(W.Offset) : std::nullopt;
    if (!WC || !W.Bytes)
      return Out;
    int64_t WAt = *WC;
    if (WAt + W.Bytes <= *At || *At + A.Bytes <= WAt)
      continue;
    if (CasFrom(X) != E || WAt != *At || W.Bytes != A.Bytes)
      return Out;
  }
  Out = true;
  return Out;
}

bool Checker::incWindow(unsigned Inc) {
  if (auto It = IncWindows.find(Inc); It != IncWindows.end())
    return It->second;
  bool &Out = IncWindows[Inc];
  const ir::MemoryAccess &A = Items[Inc].A;
  Out = false;
  if (!A.Affine || A.Cond != NoExpr ||
      F.loops().loopFor(F.blockOf(A.Item)) != NoNode ||
      F.inst(A.Item).Ops.size() < 3)
    return Out;
  ExprId Bound = TV.operand(A.Item, 2), Run = TV.execCond(A.Item);
  // The numbers of blocks and of threads in the grid, as the kernel's
  // expressions (the encoder relates their products).
  auto Sym = [&](ir::SymKind K, unsigned D) {
    ir::Symbol Y;
    Y.K = K;
    Y.Dim = static_cast<uint8_t>(D);
    return Pool.sym(Y);
  };
  ExprId BlockNumber = Pool.add(
      Sym(ir::SymKind::Ctaid, 0),
      Pool.mul(Sym(ir::SymKind::Nctaid, 0),
               Pool.add(Sym(ir::SymKind::Ctaid, 1),
                        Pool.mul(Sym(ir::SymKind::Nctaid, 1),
                                 Sym(ir::SymKind::Ctaid, 2)))));
  ExprId ThreadNumber = Pool.add(
      Pool.mul(BlockNumber,
               Pool.mul(Sym(ir::SymKind::Ntid, 0),
                        Pool.mul(Sym(ir::SymKind::Ntid, 1),
                                 Sym(ir::SymKind::Ntid, 2)))),
      Pool.add(Sym(ir::SymKind::Tid, 0),
               Pool.mul(Sym(ir::SymKind::Ntid, 0),
                        Pool.add(Sym(ir::SymKind::Tid, 1),
                                 Pool.mul(Sym(ir::SymKind::Ntid, 1),
                                          Sym(ir::SymKind::Tid, 2))))));
  // Two threads related by Rel both at the address, and (unless Number is
  // NoExpr) their numbers further apart than b, or their b different.
  auto Meet = [&](Relation Rel, ExprId Number) {
    Builder Build = [&](Encoder &Enc) {
      Frame F0{0, NoNode}, F1{1, NoNode};
      std::vector<Expr> Q = {Enc.encode(F0, Run), Enc.encode(F1, Run),
                             Enc.encode(F0, A.Offset).eq(Enc.encode(F1, A.Offset)),
                             relationFacts(Enc, Rel, true)};
      if (Number != NoExpr) {
        Expr B0 = Enc.encode(F0, Bound), B1 = Enc.encode(F1, Bound);
        Expr D = Enc.encode(F0, Number) - Enc.encode(F1, Number);
        Q.push_back(B0.ne(B1) || D.gt(B0) || (Expr::mkInt(0) - D).gt(B0));
      }
      return Q;
    };
    return solve(Build).Res;
  };
  // At most one thread of a block there: number the blocks.
  if (!multiThread() || Meet(Relation::SameBlock, NoExpr).isUnsat()) {
    Out = !multiBlock() || Meet(Relation::OtherBlocks, BlockNumber).isUnsat();
    return Out;
  }
  Out = Meet(Relation::SameBlock, ThreadNumber).isUnsat() &&
        (!multiBlock() || Meet(Relation::OtherBlocks, ThreadNumber).isUnsat());
  return Out;
}

std::vector<std::pair<unsigned, unsigned>>
Checker::loadsIn(const std::vector<ExprId> &Es) {
  std::vector<std::pair<unsigned, unsigned>> Out; // (symbol, Items index)
  for (unsigned Y : Pool.symbolsOf(Es)) {
    const ir::Symbol &S = Pool.symbol(Y);
    if (S.K != ir::SymKind::Opaque || S.Part != 0)
      continue;
    auto It = LoadAt.find(S.Item);
    if (It != LoadAt.end())
      Out.emplace_back(Y, It->second);
  }
  return Out;
}

bool Checker::broadcast(unsigned L, Relation Rel) {
  // No write to its memory that such two threads could make concurrently
  // with it: each write is ordered by a barrier before every thread's
  // load or after it, so all of them read one value in the same
  // iterations of the loops around the load (consistency() asks for
  // those). Never across blocks for shared memory (each block has its
  // own).
  const ir::MemoryAccess &A = Items[L].A;
  if (Items[L].Call || !A.Affine || A.Object.K == ir::ObjectKind::Unknown ||
      (Rel == Relation::OtherBlocks && sharedSpace(A.Space)))
    return false;
  const ir::BarrierIntervals &BI =
      Rel == Relation::OtherBlocks ? *Grid : *Cta;
  // A write through an unknown pointer reaches the load's memory unless
  // the two name different state spaces.
  auto MayAlias = [&](const ir::MemoryAccess &W) {
    if (W.Object.K != ir::ObjectKind::Unknown)
      return W.Object == A.Object;
    return W.Space == AddrSpace::Generic || A.Space == AddrSpace::Generic ||
           W.Space == A.Space ||
           (sharedSpace(W.Space) && sharedSpace(A.Space));
  };
  for (unsigned X = 0; X < Items.size(); ++X) {
    const Item &W = Items[X];
    if (W.A.Writes && !unchangingAtomic(X) && (W.Call || MayAlias(W.A)) &&
        (W.A.Async || BI.mayShareInterval(W.A.Item, A.Item)))
      return false;
  }
  return true;
}

bool Checker::unchangingAtomic(unsigned X) {
  if (Items[X].Call)
    return false;
  unsigned Item = Items[X].A.Item;
  const ptx::Instruction &In = F.inst(Item);
  if (In.Op != ptx::Opcode::Atom || In.Ops.size() != 3 ||
      (In.Atom != ptx::AtomOp::Add && In.Atom != ptx::AtomOp::Sub &&
       In.Atom != ptx::AtomOp::Or && In.Atom != ptx::AtomOp::Xor))
    return false;
  return constOperand(Item, 2) == std::optional<int64_t>(0);
}

std::optional<ir::Variance> Checker::loadVariance(unsigned Item) {
  // The loads (and atomics that change nothing) whose value every thread
  // of a block, or of the grid, reads alike at one address: memory the
  // kernel never writes, and values broadcast through memory (every write
  // of that memory is ordered by a barrier before or after the load).
  auto It = LoadAt.find(Item);
  if (It == LoadAt.end())
    return std::nullopt;
  unsigned L = It->second;
  const ir::MemoryAccess &A = Items[L].A;
  if (Items[L].Call || A.Object.K == ir::ObjectKind::Unknown ||
      !racySpace(A.Space) || A.Object.Space == AddrSpace::Local ||
      ticket(Item) || onceCas(L) || (A.Atomic && !unchangingAtomic(L)))
    return std::nullopt;
  bool Shared = sharedSpace(A.Space) || sharedSpace(A.Object.Space);
  if (ReadOnly[L])
    return Shared ? ir::Variance::Block : ir::Variance::Grid;
  if (!Shared && broadcast(L, Relation::OtherBlocks))
    return ir::Variance::Grid;
  if (broadcast(L, Relation::SameBlock))
    return ir::Variance::Block;
  return std::nullopt;
}

Expr Checker::previousIterationAgrees(Encoder &Enc, unsigned Loop,
                                      Relation Rel) {
  // Two threads in one iteration of Loop were in one iteration before it:
  // there, the loads of its exit condition that every thread reads alike
  // (memory nothing writes, a value broadcast after a barrier) agree.
  std::vector<Expr> Out;
  for (auto [Sym, Li] : loadsIn({TV.backEdgeCond(Loop)})) {
    const ir::MemoryAccess &A = Items[Li].A;
    if (ticket(A.Item) || onceCas(Li) || !A.Affine ||
        A.Object.K == ir::ObjectKind::Unknown ||
        F.loops().loopFor(F.blockOf(A.Item)) != Loop)
      continue;
    bool Alike = (ReadOnly[Li] &&
                  !(Rel == Relation::OtherBlocks && sharedSpace(A.Space))) ||
                 broadcast(Li, Rel);
    if (!Alike)
      continue;
    Frame F0{0, Loop}, F1{1, Loop};
    Expr V0 = Enc.symbolVar(F0, Sym), V1 = Enc.symbolVar(F1, Sym);
    if (V0.sort() == V1.sort())
      Out.push_back(Enc.encode(F0, A.Offset)
                        .eq(Enc.encode(F1, A.Offset))
                        .implies(V0.eq(V1)));
  }
  return Expr::mkAnd(Out);
}

namespace {
/// An instruction that synchronises nothing: arithmetic, control, plain
/// loads and stores (not a barrier, fence, atomic, strong access, call,
/// asynchronous copy, mbarrier operation or warp collective).
bool plainStep(const ptx::Instruction &In) {
  switch (In.Op) {
  case ptx::Opcode::Ld:
  case ptx::Opcode::Ldu:
  case ptx::Opcode::St:
    return !In.hasMod(".volatile") && !In.hasMod(".relaxed") &&
           !In.hasMod(".acquire") && !In.hasMod(".release") &&
           !In.hasMod(".async") && !In.hasMod(".mmio");
  case ptx::Opcode::Mov: case ptx::Opcode::Add: case ptx::Opcode::Sub:
  case ptx::Opcode::Mul: case ptx::Opcode::And: case ptx::Opcode::Or:
  case ptx::Opcode::Xor: case ptx::Opcode::Not: case ptx::Opcode::Cvt:
  case ptx::Opcode::Setp: case ptx::Opcode::Bra: case ptx::Opcode::CmpBra:
  case ptx::Opcode::Brx: case ptx::Opcode::Cvta: case ptx::Opcode::Prefetch:
  case ptx::Opcode::Activemask:
    return true;
  case ptx::Opcode::Other:
    // Arithmetic; an instruction of that class that touches memory
    // (a surface, a texture, a tensor map) is no plain step.
    return ptx::memoryUse(In).K == ptx::MemoryUse::None;
  default:
    return false;
  }
}
} // namespace

bool Checker::coherentReads(unsigned L1, unsigned L2) {
  const ir::MemoryAccess &A = Items[L1].A, &B = Items[L2].A;
  auto Plain = [](const ir::MemoryAccess &X) {
    return !X.Atomic && !X.Strong && !X.Volatile && !X.Async;
  };
  if (!Plain(A) || !Plain(B))
    return false;
  // A copy that completes later may land between the two reads.
  for (const Item &W : Items)
    if (W.A.Writes && W.A.Async && W.A.Object == A.Object)
      return false;
  for (unsigned X : F.instructions()) {
    if (!(reaches(A.Item, X) && reaches(X, B.Item)) &&
        !(reaches(B.Item, X) && reaches(X, A.Item)))
      continue;
    if (!plainStep(F.inst(X)))
      return false;
  }
  return true;
}

const std::vector<unsigned> &Checker::forwardedStores(unsigned L) {
  auto [It, New] = Forwards.try_emplace(L);
  std::vector<unsigned> &Out = It->second;
  if (!New)
    return Out;
  const ir::MemoryAccess &A = Items[L].A;
  auto Plain = [&](const ir::MemoryAccess &X) {
    return !X.Atomic && !X.Strong && !X.Volatile && !X.Async && X.Affine &&
           X.Cond == NoExpr && X.Object.K != ir::ObjectKind::Unknown &&
           F.loops().loopFor(F.blockOf(X.Item)) == NoNode;
  };
  if (Items[L].Call || !Plain(A) || F.inst(A.Item).Op != ptx::Opcode::Ld)
    return Out;
  const ptx::Instruction &Ld = F.inst(A.Item);
  for (unsigned K = 0; K < Items.size(); ++K) {
    const ir::MemoryAccess &W = Items[K].A;
    if (Items[K].Call || !W.Writes || !(W.Object == A.Object) || !Plain(W) ||
        W.Bytes != A.Bytes || !reaches(W.Item, A.Item) ||
        reaches(A.Item, W.Item))
      continue;
    const ptx::Instruction &St = F.inst(W.Item);
    if (St.Op != ptx::Opcode::St || St.Ops.size() != 2 ||
        St.Ops[1].K == ptx::Operand::Vector || St.Types != Ld.Types ||
        Ld.Types.empty())
      continue;
    // The value survives the store's width: a register of the store's
    // size, or constants that fit it.
    if (W.Bytes < 4) {
      ExprId V = TV.operand(W.Item, 1);
      std::vector<ExprId> Vals = {V};
      if (Pool.node(V).O == ir::Op::Select)
        Vals = {Pool.node(V).Ops[1], Pool.node(V).Ops[2]};
      int64_t Limit = int64_t(1) << (8 * W.Bytes - (Ld.Types[0].isSigned() ? 1 : 0));
      int64_t Low = Ld.Types[0].isSigned() ? -Limit : 0;
      bool Fits = true;
      for (ExprId E : Vals) {
        std::optional<int64_t> C = Pool.asConst(E);
        Fits &= C && *C >= Low && *C < Limit;
      }
      if (!Fits)
        continue;
    }
    // No other write of that memory by the thread between.
    bool Ok = true;
    for (const Item &X : Items)
      if (X.A.Writes && X.A.Item != W.Item &&
          (X.Call || X.A.Object.K == ir::ObjectKind::Unknown ||
           X.A.Object == A.Object) &&
          reaches(W.Item, X.A.Item) && reaches(X.A.Item, A.Item))
        Ok = false;
    // Plain steps, fences and at most one barrier between.
    std::vector<unsigned> Barriers;
    for (unsigned X : F.instructions()) {
      if (!Ok)
        break;
      if (X == W.Item || X == A.Item || !reaches(W.Item, X) ||
          !reaches(X, A.Item))
        continue;
      const ptx::Instruction &In = F.inst(X);
      switch (In.Op) {
      case ptx::Opcode::Bar:
      case ptx::Opcode::BarWarp:
      case ptx::Opcode::BarrierCluster:
        Barriers.push_back(X);
        break;
      case ptx::Opcode::Membar:
        break;
      case ptx::Opcode::Fence:
        Ok = !In.hasMod(".proxy") && !In.hasMod(".mbarrier_init");
        break;
      default:
        Ok = plainStep(In);
      }
    }
    for (unsigned B1 : Barriers)
      for (unsigned B2 : Barriers)
        Ok = Ok && !(B1 == B2 ? reaches(B1, B1) : reaches(B1, B2));
    if (Ok)
      Out.push_back(K);
  }
  return Out;
}

Expr Checker::consistency(Encoder &Enc, const std::vector<ExprId> &EA,
                          const std::vector<ExprId> &EB, OwnReads Own,
                          Relation Rel) {
  std::vector<std::pair<unsigned, unsigned>> LA = loadsIn(EA), LB = loadsIn(EB);
  std::vector<std::pair<unsigned, std::pair<unsigned, unsigned>>> All;
  for (const auto &L : LA)
    All.push_back({0, L});
  for (const auto &L : LB)
    All.push_back({1, L});
  std::vector<Expr> Out;
  // A thread's load returns its own earlier store (forwardedStores); the
  // loads that value depends on join the others.
  for (size_t P = 0; P < All.size() && All.size() < 64; ++P) {
    auto [T, L] = All[P];
    Frame Fr{T, NoNode};
    const ir::MemoryAccess &Ld = Items[L.second].A;
    for (unsigned K : forwardedStores(L.second)) {
      const ir::MemoryAccess &St = Items[K].A;
      ExprId Val = TV.operand(St.Item, 1), Run = TV.execCond(St.Item);
      Expr V = Enc.symbolVar(Fr, L.first), E = Enc.encode(Fr, Val);
      if (V.sort() != E.sort())
        continue;
      Out.push_back((Enc.encode(Fr, Run) &&
                     Enc.encode(Fr, St.Offset).eq(Enc.encode(Fr, Ld.Offset)))
                        .implies(V.eq(E)));
      for (const auto &M : loadsIn({Val, Run, St.Offset}))
        if (std::find(All.begin(), All.end(), std::pair{T, M}) == All.end())
          All.push_back({T, M});
    }
  }
  // Tickets of a reset block counter lie in its range.
  for (const auto &[T, L] : All)
    if (ticket(Items[L.second].A.Item))
      if (std::optional<std::pair<int64_t, int64_t>> Rg = ticketRange(L.second)) {
        Frame Fr{T, NoNode};
        Expr V = Enc.symbolVar(Fr, L.first);
        if (V.isBV() && V.bits() == 32)
          Out.push_back(V.uge(Expr::mkBV(static_cast<uint64_t>(Rg->first), 32)) &&
                        V.ult(Expr::mkBV(static_cast<uint64_t>(Rg->second), 32)));
        else if (V.isInt())
          Out.push_back(V.ge(Expr::mkInt(Rg->first)) &&
                        V.lt(Expr::mkInt(Rg->second)));
      }
  for (size_t P = 0; P < All.size(); ++P)
    for (size_t Q = P + 1; Q < All.size(); ++Q) {
      auto [TP, LP] = All[P];
      auto [TQ, LQ] = All[Q];
      if (TP != TQ && ticket(Items[LP.second].A.Item) &&
          ticket(Items[LQ.second].A.Item) &&
          Items[LP.second].A.Object == Items[LQ.second].A.Object &&
          monotoneTickets(LP.second)) {
        // Atomic tickets: two threads' results differ at one address when
        // every write there moves the value the same way (a reset between
        // would let them repeat), whether of one instruction or of two
        // (the copies of an unrolled loop's atomicAdd).
        const ir::MemoryAccess &T = Items[LP.second].A,
                               &T2 = Items[LQ.second].A;
        if (!T.Affine || !T2.Affine || T.Object.K == ir::ObjectKind::Unknown)
          continue;
        Frame FP{TP, NoNode}, FQ{TQ, NoNode};
        Expr VP = Enc.symbolVar(FP, LP.first), VQ = Enc.symbolVar(FQ, LQ.first);
        if (VP.sort() == VQ.sort())
          Out.push_back(Enc.encode(FP, T.Offset)
                            .eq(Enc.encode(FQ, T2.Offset))
                            .implies(VP.ne(VQ)));
        continue;
      }
      const ir::MemoryAccess &AP = Items[LP.second].A, &AQ = Items[LQ.second].A;
      if (onceCas(LP.second) && onceCas(LQ.second) &&
          !(TP == TQ && LP.first == LQ.first) &&
          Items[LP.second].A.Object == Items[LQ.second].A.Object) {
        // First writer wins: two such compare-and-swaps at one address do
        // not both find E.
        int64_t E = *constOperand(Items[LP.second].A.Item, 2);
        if (constOperand(Items[LQ.second].A.Item, 2) != E)
          continue;
        Frame FP{TP, NoNode}, FQ{TQ, NoNode};
        Expr VP = Enc.symbolVar(FP, LP.first), VQ = Enc.symbolVar(FQ, LQ.first);
        Expr C = Expr::mkInt(E);
        Out.push_back(Enc.encode(FP, Items[LP.second].A.Offset)
                          .eq(Enc.encode(FQ, Items[LQ.second].A.Offset))
                          .implies(!(VP.eq(C) && VQ.eq(C))));
        continue;
      }
      if (ticket(AP.Item) || ticket(AQ.Item) || onceCas(LP.second) ||
          onceCas(LQ.second))
        continue; // an atomic's result is not what memory holds after it
      if (!(AP.Object == AQ.Object) || !AP.Affine || !AQ.Affine ||
          AP.Object.K == ir::ObjectKind::Unknown || AP.Bytes != AQ.Bytes)
        continue;
      // Memory the kernel never writes reads the same for both threads,
      // unless it is shared memory of two blocks.
      bool Ok = ReadOnly[LP.second] &&
                !(TP != TQ && Rel == Relation::OtherBlocks &&
                  sharedSpace(AP.Space));
      // One load by two threads after the barrier that orders the writes.
      if (!Ok && TP != TQ && LP.second == LQ.second)
        Ok = broadcast(LP.second, Rel);
      if (!Ok && Own != OwnReads::Apart && TP == TQ && LP.first != LQ.first) {
        // No write by the thread to that memory between the two reads.
        Ok = true;
        unsigned I1 = AP.Item, I2 = AQ.Item;
        for (const Item &W : Items)
          if (W.A.Writes && (W.Call || W.A.Object == AP.Object) &&
              ((reaches(I1, W.A.Item) && reaches(W.A.Item, I2)) ||
               (reaches(I2, W.A.Item) && reaches(W.A.Item, I1))))
            Ok = false;
        if (Ok && Own == OwnReads::Coherent)
          Ok = coherentReads(LP.second, LQ.second);
      }
      if (!Ok)
        continue;
      Frame FP{TP, NoNode}, FQ{TQ, NoNode};
      Expr OP = Enc.encode(FP, AP.Offset), OQ = Enc.encode(FQ, AQ.Offset);
      Expr VP = Enc.symbolVar(FP, LP.first), VQ = Enc.symbolVar(FQ, LQ.first);
      // Two threads' instances of one load in a loop: the same iterations.
      std::vector<Expr> Same = {OP.eq(OQ)};
      if (TP != TQ && LP.second == LQ.second && !ReadOnly[LP.second])
        for (unsigned Lp = 0; Lp < F.loops().loops().size(); ++Lp)
          if (F.loops().loops()[Lp].contains(F.blockOf(AP.Item)))
            Same.push_back(Enc.iter(TP, Lp).eq(Enc.iter(TQ, Lp)));
      if (VP.sort() == VQ.sort())
        Out.push_back(Expr::mkAnd(Same).implies(VP.eq(VQ)));
    }
  return Expr::mkAnd(Out);
}

//===-- Pairs -------------------------------------------------------------===//

Checker::Outcome Checker::query(unsigned I, unsigned J, Relation Rel,
                                bool AnyWarp, bool WithAddress, bool Unordered) {
  Outcome Out;
  Out.Rel = Rel;
  const ir::MemoryAccess &X = Items[I].A, &Y = Items[J].A;
  const ir::BarrierIntervals &BI = IntervalsOverride ? *IntervalsOverride
                                   : AnyWarp         ? *Cta
                                                     : intervals(Rel);
  if (!Unordered && !BI.mayShareInterval(X.Item, Y.Item)) {
    Out.Reason = Rel == Relation::OtherBlocks
                     ? "separated by a grid-wide barrier"
                     : "ordered by a barrier";
    return Out;
  }
  ExprId PcX = TV.execCond(X.Item), PcY = TV.execCond(Y.Item);
  if (X.Cond != NoExpr)
    PcX = Pool.land(PcX, X.Cond);
  if (Y.Cond != NoExpr)
    PcY = Pool.land(PcY, Y.Cond);
  // Without addresses the question is whether two such threads run both
  // places at once: the same for every pair of accesses at those places.
  std::vector<uint64_t> Key;
  if (!WithAddress && !ClusterPair && !SyncFacts && !PhaseMode && !BenignMode &&
      NamedMode == NamedRegion::Off) {
    Key = placeKey(X.Item, PcX, BI, Unordered);
    std::vector<uint64_t> KY = placeKey(Y.Item, PcY, BI, Unordered);
    Key.insert(Key.end(), KY.begin(), KY.end());
    Key.push_back(uint64_t(Rel) << 2 | uint64_t(AnyWarp) << 1 | Unordered);
    Key.push_back(reinterpret_cast<uintptr_t>(&BI));
    if (auto Hit = Placed.find(Key); Hit != Placed.end())
      return Hit->second;
  }
  auto Remember = [&](Outcome Oc) {
    if (!Key.empty())
      Placed.emplace(Key, Oc);
    return Oc;
  };
  std::vector<ExprId> EA = {PcX}, EB = {PcY};
  if (WithAddress) {
    EA.push_back(X.Offset);
    EB.push_back(Y.Offset);
    EA.insert(EA.end(), X.Coords.begin(), X.Coords.end());
    EB.insert(EB.end(), Y.Coords.begin(), Y.Coords.end());
    if (BenignMode) {
      EA.push_back(X.Value);
      EB.push_back(Y.Value);
    }
  }
  bool First = true;
  OwnReads Own = OwnReads::Apart;
  Builder Build = [&](Encoder &Enc) {
    Frame FA{0, NoNode}, FB{1, NoNode};
    std::vector<Expr> Q;
    Q.push_back(Enc.encode(FA, PcX));
    Q.push_back(Enc.encode(FB, PcY));
    if (WithAddress) {
      Expr OffA = Enc.encode(FA, X.Offset), OffB = Enc.encode(FB, Y.Offset);
      Expr SA = Expr::mkInt(X.Bytes), SB = Expr::mkInt(Y.Bytes);
      Q.push_back(OffA.lt(OffB + SB) && OffB.lt(OffA + SA));
      // A surface element: the other coordinates agree.
      for (size_t K = 0; K < X.Coords.size() && K < Y.Coords.size(); ++K)
        Q.push_back(Enc.encode(FA, X.Coords[K]).eq(Enc.encode(FB, Y.Coords[K])));
      // Morally strong accesses that overlap completely do not race.
      if (X.Strong && Y.Strong && scopeIncludes(X.Scope, Rel) &&
          scopeIncludes(Y.Scope, Rel) && X.Bytes == Y.Bytes)
        Q.push_back(OffA.ne(OffB));
      // A benign pair stores one value to the same bytes.
      if (BenignMode)
        Q.push_back(!(OffA.eq(OffB) &&
                      Enc.encode(FA, X.Value).eq(Enc.encode(FB, Y.Value))));
    }
    Q.push_back(relationFacts(Enc, Rel, AnyWarp));
    if (ClusterPair)
      Q.push_back(clusterFacts(Enc, X, Y));
    std::vector<unsigned> Sources;
    std::set<unsigned> CtxLoops;
    if (!Unordered)
      Q.push_back(contexts(Enc, I, J, BI, Sources, CtxLoops));
    if (First)
      Out.Sources = Sources;
    First = false;
    std::vector<unsigned> LA = loopsOf(X.Item, EA), LB = loopsOf(Y.Item, EB);
    LA.insert(LA.end(), CtxLoops.begin(), CtxLoops.end());
    LB.insert(LB.end(), CtxLoops.begin(), CtxLoops.end());
    std::sort(LA.begin(), LA.end());
    LA.erase(std::unique(LA.begin(), LA.end()), LA.end());
    std::sort(LB.begin(), LB.end());
    LB.erase(std::unique(LB.begin(), LB.end()), LB.end());
    for (unsigned L : LA)
      Q.push_back(Enc.iterationExists(0, L));
    for (unsigned L : LB)
      Q.push_back(Enc.iterationExists(1, L));
    Q.push_back(sharing(Enc, EA, EB, Rel));
    Q.push_back(consistency(Enc, EA, EB, Own, Rel));
    if (SyncFacts)
      Q.push_back(unsynchronised(Enc, I, J, Rel));
    if (NamedMode != NamedRegion::Off && Rel != Relation::OtherBlocks)
      Q.push_back(namedUnordered(Enc, I, J));
    if (PhaseMode)
      Q.push_back(phaseUnordered(Enc, I, J));
    return Q;
  };
  // When the formulas mention loaded values, the witness asked for is one
  // where a thread's two reads of one location agree (unless it writes
  // there between). That query has every formula of the one without the
  // agreement, so its model is a model of that one too: the weaker query
  // is asked only when the stronger has no model.
  bool Loads = !loadsIn(EA).empty() || !loadsIn(EB).empty();
  Own = Loads ? OwnReads::Agree : OwnReads::Apart;
  Solved Sv = solve(Build);
  if (Loads && !Sv.Res.isSat()) {
    smt::Result Agreed = Sv.Res;
    Own = OwnReads::Apart;
    Sv = solve(Build);
    if (Sv.Res.isSat() && Agreed.isUnsat()) {
      // Is the other thread's write between the reads itself a race?
      Own = OwnReads::Coherent;
      if (solve(Build).Res.isUnsat()) {
        Out.V = Verdict::Safe;
        Out.Reason = "safe when two reads of a location by one thread, "
                     "with nothing synchronising between them, agree (a "
                     "write between them by another thread would race with "
                     "them, which its own pair decides)";
        return Remember(std::move(Out));
      }
      Out.V = Verdict::Unknown;
      Out.Reason = "a race only if another thread changes a location between "
                   "two reads by one thread (the loaded values decide)";
      return Remember(std::move(Out));
    }
    if (Sv.Res.isSat()) {
      // The witness with consistent reads could not be decided: the first
      // one alone is no evidence of a race.
      Out.V = Verdict::Unknown;
      Out.Reason = "on a witness whose reads agree, " + gaveUp(Agreed);
      return Remember(std::move(Out));
    }
  }
  if (Sv.Res.isSat() && !WithAddress) {
    // Both may run at once, with reads that agree: with addresses not
    // known the pair is unknown whether the model replays or not
    // (checkPair), so the model only tells how the threads are related.
    Witness W = witness(Sv.By->Enc, Sv.Res.model(), X.Item, Y.Item, NoExpr,
                        NoExpr, EA, EB);
    Out.V = Verdict::Race;
    Out.Rel = W.A.Ctaid != W.B.Ctaid ? Relation::OtherBlocks
              : W.A.Warp == W.B.Warp ? Relation::SameWarp
                                     : Relation::SameBlock;
    return Remember(std::move(Out));
  }
  if (Sv.Res.isSat() && !launchFits(Sv.By->Enc, Sv.Res.model())) {
    // The linear view of the block's size let the solver pick a block of
    // more threads than CUDA launches: ask again with one the witness's
    // first dimension keeps (its other two a line of at most the rest).
    int64_t Max = O.Launch.MaxThreads;
    int64_t BX = std::clamp<int64_t>(
        Sv.Res.model().evalInt(Sv.By->Enc.ntid(0)).value_or(1), 1, Max);
    Builder Narrow = [&](Encoder &Enc) {
      std::vector<Expr> Q = Build(Enc);
      Q.push_back(Enc.ntid(0).eq(Expr::mkInt(BX)));
      Q.push_back(Enc.ntid(1).le(Expr::mkInt(Max / BX)));
      Q.push_back(Enc.ntid(2).eq(Expr::mkInt(1)));
      return Q;
    };
    Solved Again = solve(Narrow);
    if (Again.Res.isSat())
      Sv = std::move(Again);
  }
  if (Sv.Res.isSat() && !replays(Sv.By->Enc, Sv.Res.model(), I, J, PcX, PcY,
                                 WithAddress)) {
    // A race is printed only with a witness that replays.
    Out.V = Verdict::Unknown;
    Out.Reason = "the solver's witness does not replay on the kernel's values "
                 "(it relies on an operation the encoding only bounds: a "
                 "shift by a variable amount or a bitwise operation of two "
                 "unknown values)";
    return Remember(std::move(Out));
  }
  if (Sv.Res.isSat()) {
    Encoder &Enc = Sv.By->Enc;
    const smt::Model &Mo = Sv.Res.model();
    Out.V = Verdict::Race;
    Witness W = witness(Enc, Mo, X.Item, Y.Item, WithAddress ? X.Offset : NoExpr,
                        WithAddress ? Y.Offset : NoExpr, EA, EB);
    bool SameCta = W.A.Ctaid == W.B.Ctaid;
    Out.Rel = !SameCta               ? Relation::OtherBlocks
              : W.A.Warp == W.B.Warp ? Relation::SameWarp
                                     : Relation::SameBlock;
    if (O.Witnesses)
      Out.W = std::move(W);
  } else if (Sv.Res.isUnsat()) {
    Out.V = Verdict::Safe;
    Out.Reason = WithAddress ? "the addresses never meet"
                             : "never run by two such threads at once";
  } else {
    Out.V = Verdict::Unknown;
    Out.Reason = gaveUp(Sv.Res);
  }
  return Remember(std::move(Out));
}

std::vector<uint64_t> Checker::placeKey(unsigned Item, ExprId Pc,
                                        const ir::BarrierIntervals &BI,
                                        bool Unordered) const {
  // What query() reads of an access when it leaves out the address: its
  // execution condition, its block (loops) and, when barriers order it,
  // how it is reached from each barrier.
  std::vector<uint64_t> Key = {Pc, F.blockOf(Item)};
  if (Unordered)
    return Key;
  const auto &Reach = BI.reach(Item);
  Key.push_back(Reach.size());
  for (const ir::BarrierIntervals::Reach &R : Reach)
    Key.push_back(uint64_t(R.Source) << 32 | R.Crossed),
        Key.push_back(R.Entered);
  return Key;
}

namespace {
template <typename Outcomes> bool allSafe(const Outcomes &Outs) {
  return std::all_of(Outs.begin(), Outs.end(),
                     [](const auto &Oc) { return Oc.V == Verdict::Safe; });
}
} // namespace

bool Checker::benignCandidate(const PairResult &P) const {
  // Only values computed without reading memory (constants, ids, sizes,
  // parameters): two loads of one address agree only while nothing writes
  // it between them, and this tolerance does not lean on that. Stores of
  // loaded values (the bytes a copy moves) stay races, as in GPUVerify.
  auto ReadsMemory = [&](ir::ExprId V) {
    return Pool.mentions(V, [](const ir::Symbol &S) {
      return S.K == ir::SymKind::Opaque && !S.Uniform;
    });
  };
  const ir::MemoryAccess &X = Items[P.First].A, &Y = Items[P.Second].A;
  return !O.NoBenign && !Items[P.First].Call && !Items[P.Second].Call &&
         X.Value != NoExpr && Y.Value != NoExpr && X.Bytes == Y.Bytes &&
         X.Bytes != 0 && !ReadsMemory(X.Value) && !ReadsMemory(Y.Value);
}

void Checker::benignPairs() {
  // Not where a safe verdict is vacuous or a call's barrier is not
  // followed (run() turns those safe pairs unknown before this).
  if (O.NoBenign || !O.Launch.Unsatisfiable.empty() || !CallNote.empty())
    return;
  // Asked after every other question, of a solver of their own: what they
  // leave in a solver (definitions, lemmas, terms) would change how it
  // answers the questions after them.
  std::unique_ptr<Solving> Benign;
  size_t Count = R.Pairs.size();
  for (size_t K = 0; K < Count; ++K) {
    const PairResult &P = R.Pairs[K];
    if (P.V != Verdict::Race || !benignCandidate(P))
      continue;
    if (!Benign)
      Benign = std::make_unique<Solving>(TV, O.Launch, O.TimeoutMs);
    std::swap(Main, Benign);
    BenignMode = true;
    unsigned First = P.First, Second = P.Second;
    checkPair(First, Second);
    BenignMode = false;
    std::swap(Main, Benign);
    if (R.Pairs.size() == Count)
      continue;
    bool Safe = R.Pairs.back().V == Verdict::Safe;
    R.Pairs.pop_back();
    if (!Safe)
      continue;
    PairResult &Q = R.Pairs[K];
    Q.V = Verdict::Safe;
    Q.W.reset();
    Q.Hint.clear();
    Q.Reason = "a benign race: both store the same value to the same bytes, "
               "which every order of the two leaves there "
               "(--no-benign-tolerance reports it)";
  }
}

void Checker::checkPair(unsigned I, unsigned J) {
  const ir::MemoryAccess &X = Items[I].A, &Y = Items[J].A;
  if (!X.Writes && !Y.Writes)
    return;
  // Tensor memory is touched only by tcgen05 instructions (and maybe by an
  // instruction the analysis does not know).
  if (X.TensorMemory != Y.TensorMemory && !X.AnyMemory && !Y.AnyMemory)
    return;
  if (O.PairFilter && !O.PairFilter(R.Accesses[I], R.Accesses[J]))
    return;
  if (Items[I].GridSync || Items[J].GridSync)
    return;
  if (!racySpace(X.Space) || !racySpace(Y.Space))
    return;
  // A .shared::cta address is a .shared::cluster address too.
  if (X.Space != AddrSpace::Generic && Y.Space != AddrSpace::Generic &&
      X.Space != Y.Space && !(sharedSpace(X.Space) && sharedSpace(Y.Space)))
    return;
  bool Known = X.Object.K != ir::ObjectKind::Unknown &&
               Y.Object.K != ir::ObjectKind::Unknown && !Items[I].Call &&
               !Items[J].Call;
  if (Known && !(X.Object == Y.Object))
    return;
  bool SharedMem = sharedSpace(X.Space) || sharedSpace(Y.Space);
  // In a cluster, shared memory is also reached from the cluster's other
  // CTAs (mapa, .shared::cluster).
  bool Remote = ClusterKernel && (remoteCapable(X) || remoteCapable(Y));
  if (!multiThread() && ((SharedMem && !Remote) || !multiBlock()))
    return; // one thread per block, and the memory is the block's own
  bool Affine = Known && R.Accesses[I].Affine && R.Accesses[J].Affine;

  PairResult P;
  P.First = I;
  P.Second = J;
  P.Kind = std::string(X.Writes ? "write" : "read") + "-" +
           (Y.Writes ? "write" : "read");
  std::vector<Relation> Rels;
  if (multiThread())
    Rels.push_back(Relation::SameBlock);
  if ((!SharedMem || Remote) && multiBlock())
    Rels.push_back(Relation::OtherBlocks);

  if ((X.Async || Y.Async) && !asyncOf(I) && !asyncOf(J)) {
    // Completed later (wgmma, tcgen05, st.async): no barrier orders it, so
    // only addresses that never meet make the pair safe. Asynchronous
    // copies are pairQuery's (AsyncPairs.cpp).
    const ir::MemoryAccess &A = X.Async ? X : Y;
    bool Apart = Affine;
    for (Relation Rel : Rels)
      Apart = Apart && query(I, J, Rel, true, true, true).V == Verdict::Safe;
    P.V = Apart ? Verdict::Safe : Verdict::Unknown;
    P.Reason = Apart ? "the addresses never meet"
                     : fmt::format("{} completes asynchronously (at a later "
                                 "wait or mbarrier), which the analysis does "
                                 "not follow: no barrier orders it",
                                 A.Event.Text);
    R.Pairs.push_back(std::move(P));
    return;
  }
  // One instance of a warp-collective instruction (wmma, ldmatrix, ...)
  // touches each byte once for the whole warp: its lanes do not race; one
  // work-group copy (OpenCL C) once for the whole work-group.
  bool OneCollective = I == J && X.Collective;
  bool OneGroupCopy = I == J && X.WorkGroup;

  // A race decides the pair (the first one found is the one reported):
  // the relations after it are not asked, unless named barriers may still
  // order it (namedRefine). Asked again with the facts of synchronisation
  // through memory, the first relation that is not safe decides.
  auto Decided = [&](const std::vector<Outcome> &Outs) {
    if (SyncFacts)
      return !allSafe(Outs);
    return Named.Ops.empty() &&
           std::any_of(Outs.begin(), Outs.end(),
                       [](const Outcome &Oc) { return Oc.V == Verdict::Race; });
  };
  auto Queries = [&] {
    std::vector<Outcome> Outs;
    for (Relation Rel : Rels) {
      if (Decided(Outs))
        break;
      if (X.Strong && Y.Strong && scopeIncludes(X.Scope, Rel) &&
          scopeIncludes(Y.Scope, Rel) && X.Bytes == Y.Bytes && !Affine) {
        Outcome Oc;
        Oc.Reason = "morally strong (atomic or scoped strong accesses)";
        Outs.push_back(Oc);
        continue;
      }
      if (Remote && (SharedMem || X.Rank != NoExpr || Y.Rank != NoExpr)) {
        Outs.push_back(
            clusterQuery(I, J, Rel, Rel == Relation::SameBlock, Affine));
      } else if (Rel == Relation::SameBlock && OneGroupCopy) {
        Outs.push_back(groupCopyAgrees(X.Item));
      } else if (Rel == Relation::SameBlock && OneCollective) {
        Outs.push_back(query(I, J, Relation::SameBlock, false, Affine));
      } else if (Rel == Relation::SameBlock && HasWarpBarriers) {
        // Lanes of one warp and threads of different warps are ordered by
        // different barriers.
        Outs.push_back(pairQuery(I, J, Relation::SameWarp, false, Affine));
        if (!Decided(Outs))
          Outs.push_back(pairQuery(I, J, Relation::SameBlock, false, Affine));
      } else if (Rel == Relation::SameBlock) {
        Outcome Oc = pairQuery(I, J, Relation::SameBlock, true, Affine);
        if (Oc.V == Verdict::Race && Oc.Rel == Relation::SameWarp && Affine &&
            !SyncFacts) {
          // Only lanes of one warp? Then the warp-synchronous idiom.
          Outcome Other = pairQuery(I, J, Relation::SameBlock, false, Affine);
          if (Other.V == Verdict::Safe)
            Oc.Reason = "intra-warp only";
          else if (Other.V == Verdict::Race)
            Oc = Other;
        }
        Outs.push_back(Oc);
      } else {
        Outs.push_back(pairQuery(I, J, Rel, false, Affine));
      }
    }
    return Outs;
  };
  std::vector<Outcome> Outs = Queries();
  namedRefine(Outs, Queries);
  phaseRefine(Outs, I, J, Affine);
  // Combine: a race if any, else unknown if any, else safe.
  const Outcome *Race = nullptr, *Unk = nullptr;
  for (const Outcome &Oc : Outs) {
    if (Oc.V == Verdict::Race && !Race)
      Race = &Oc;
    if (Oc.V == Verdict::Unknown && !Unk)
      Unk = &Oc;
  }
  if (Race && !Affine) {
    // Both may run at once, but the addresses are not known.
    P.V = Verdict::Unknown;
    P.Reason = R.Accesses[I].Affine ? R.Accesses[J].Why : R.Accesses[I].Why;
    if (P.Reason.empty())
      P.Reason = "the addresses are not known";
    P.Rel = Race->Rel;
    P.Sources = Race->Sources;
  } else if (Race && (X.Ticketed || Y.Ticketed)) {
    // The tickets differ, but a witness's values may not be ones the
    // atomics hand out.
    P.V = Verdict::Unknown;
    P.Reason = "a race only for some values of atomic tickets (which values "
               "the atomics hand out is not known)";
    P.Rel = Race->Rel;
    P.Sources = Race->Sources;
  } else if (Race) {
    P.V = Verdict::Race;
    P.Rel = Race->Rel;
    P.SameCluster = Race->SameCluster;
    P.W = Race->W;
    P.Sources = Race->Sources;
    if (BenignMode) {
      // benignPairs() asks only whether the pair is safe.
    } else if (std::string Sync = memorySync(I, J, Race->Rel); !Sync.empty()) {
      // Ask again without the witnesses that flags and locks order.
      SyncFacts = true;
      SyncWhy.clear();
      std::vector<Outcome> Again = Queries();
      SyncFacts = false;
      bool Synced = allSafe(Again);
      P.W.reset();
      P.V = Synced ? Verdict::Safe : Verdict::Unknown;
      P.Reason = Sync;
      if (Synced) {
        P.Reason = "ordered through memory: ";
        for (size_t K = 0; K < SyncWhy.size(); ++K)
          P.Reason += (K ? "; " : "") + SyncWhy[K];
      }
    } else if (Race->Reason == "intra-warp only" && X.Item != Y.Item) {
      P.Hint = "the two threads are lanes of one warp: under independent "
               "thread scheduling (sm_70 and later) lanes are not in lockstep, "
               "so this warp-synchronous code needs __syncwarp() between the "
               "accesses";
    } else if (X.Strong && Y.Strong && Race->Rel == Relation::OtherBlocks) {
      P.Hint = "both accesses are atomic or strong, but a .cta scope does not "
               "include threads of other blocks: use gpu scope (atomicAdd "
               "rather than atomicAdd_block)";
    } else if (X.Atomic != Y.Atomic) {
      P.Hint = "an atomic and a plain access to the same location race";
    } else if (Race->Rel == Relation::OtherBlocks) {
      P.Hint = "no barrier orders threads of different blocks";
    }
  } else if (Unk) {
    P.V = Verdict::Unknown;
    P.Reason = Unk->Reason;
    P.Sources = Unk->Sources;
  } else {
    P.V = Verdict::Safe;
    for (const Outcome &Oc : Outs)
      for (unsigned Src : Oc.Sources)
        if (std::find(P.Sources.begin(), P.Sources.end(), Src) == P.Sources.end())
          P.Sources.push_back(Src);
    std::set<std::string> Why;
    for (const Outcome &Oc : Outs)
      Why.insert(Oc.Reason);
    for (const std::string &W : Why)
      P.Reason += (P.Reason.empty() ? "" : "; ") + W;
  }
  R.Pairs.push_back(std::move(P));
}

//===-- OpenCL C's work-group copies --------------------------------------===//

ir::Variance Checker::callArgumentVariance(unsigned Item, unsigned K) {
  const ptx::Instruction &Call = F.inst(Item);
  const ptx::Operand *Args = nullptr;
  bool Callee = false;
  for (const ptx::Operand &O : Call.Ops) {
    if (O.K != ptx::Operand::List)
      Callee = true;
    else if (Callee && !Args)
      Args = &O;
  }
  if (!Args || K >= Args->Elems.size())
    return ir::Variance::Thread;
  const ptx::Operand &A = Args->Elems[K];
  if (A.K == ptx::Operand::Imm)
    return ir::Variance::Grid;
  if (A.K != ptx::Operand::Reg || A.Name.empty())
    return ir::Variance::Thread;
  if (A.Name[0] == '%') {
    unsigned R = F.findRegister(A.Name);
    return R == NoNode ? ir::Variance::Thread : U.at(R, Item);
  }
  // A parameter of the call sequence: what was stored into it.
  unsigned St = F.paramStoreBefore(Item, A.Name, 0);
  if (St == NoNode || F.inst(St).Ops.size() != 2)
    return ir::Variance::Thread;
  const ptx::Operand &V = F.inst(St).Ops[1];
  if (V.K == ptx::Operand::Imm)
    return ir::Variance::Grid;
  unsigned R = V.K == ptx::Operand::Reg ? F.findRegister(V.Name) : NoNode;
  return R == NoNode ? ir::Variance::Thread : U.at(R, St);
}

bool Checker::reachedByAll(unsigned Item) {
  if (U.exec(Item) <= ir::Variance::Block)
    return true;
  BarrierResult B;
  ir::Barrier Bar;
  Bar.Item = Item;
  checkBarrier(B, Bar);
  return B.V == Verdict::Safe;
}

Checker::Outcome Checker::groupCopyAgrees(unsigned Item) {
  // OpenCL C: every work-item of the work-group reaches the copy, and the
  // waits that may complete it, with the same arguments; then its
  // work-items move each element once.
  Outcome Oc;
  Oc.V = Verdict::Unknown;
  std::optional<ir::WorkGroupCopyCall> Call =
      ir::workGroupCopyCall(ir::calleeOf(F.inst(Item)));
  std::string Name = Call->Strided ? "async_work_group_strided_copy"
                                   : "async_work_group_copy";
  const ir::AsyncCopy *Copy = nullptr;
  for (const ir::AsyncCopy &C : Asyncs)
    if (C.Item == Item)
      Copy = &C;
  if (!reachedByAll(Item)) {
    Oc.Reason = fmt::format("the work-items of one work-group may disagree "
                            "on reaching {} at {} (OpenCL C requires all of "
                            "them or none)",
                            Name, whereText(Item));
    return Oc;
  }
  for (unsigned K = 0; K <= Call->EventArg; ++K) {
    // An event another copy returned is the work-group's.
    if (K == Call->EventArg && Copy && copyEvent(*Copy) != NoExpr)
      continue;
    if (callArgumentVariance(Item, K) > ir::Variance::Block) {
      Oc.Reason = fmt::format("the arguments of {} at {} may differ between "
                              "the work-items of one work-group (OpenCL C "
                              "requires the same values)",
                              Name, whereText(Item));
      return Oc;
    }
  }
  for (unsigned W : Copy ? Copy->Waits : std::vector<unsigned>()) {
    if (waitCompletes(*Copy, W) == std::optional<bool>(false))
      continue;
    if (!reachedByAll(W) ||
        callArgumentVariance(W, 0) > ir::Variance::Block ||
        callArgumentVariance(W, 1) > ir::Variance::Block) {
      Oc.Reason = fmt::format("the wait_group_events at {} that may complete "
                              "{} at {} is not reached by every work-item of "
                              "the work-group with the same arguments (OpenCL "
                              "C requires it)",
                              whereText(W), Name, whereText(Item));
      return Oc;
    }
  }
  Oc.V = Verdict::Safe;
  Oc.Reason = "one work-group copy: its work-items move each element once";
  return Oc;
}

} // namespace incant::race
