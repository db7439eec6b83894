//===- Divergence.cpp - Barriers some threads of a CTA miss ---------------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>

namespace incant::race {

//===-- Barrier divergence ------------------------------------------------===//

void Checker::checkBarrier(BarrierResult &B, const ir::Barrier &Bar) {
  bool GridWide = Bar.Kind == ir::BarrierKind::Grid;
  // A warp barrier (one repair assumes): the lanes of a warp must agree.
  Relation Among = GridWide                              ? Relation::OtherBlocks
                   : Bar.Kind == ir::BarrierKind::Warp ? Relation::SameWarp
                                                       : Relation::SameBlock;
  ir::Variance Need = GridWide ? ir::Variance::Grid : ir::Variance::Block;
  // A grid barrier is entered at the first bar.sync of its sequence; after
  // that, one thread of each CTA spins on a counter while the others wait
  // at the second, so whether a thread takes part is decided at the first.
  unsigned At = GridWide && Bar.GridStart != NoNode ? Bar.GridStart : Bar.Item;
  ir::Variance V = Bar.Assumed ? U.control(F.blockOf(At)) : U.exec(At);
  if (V <= Need) {
    B.V = Verdict::Safe;
    B.Reason = GridWide ? "reached under conditions the same for the whole grid"
                        : "reached under conditions the same for the whole CTA";
    return;
  }
  if (!multiThread()) {
    B.V = Verdict::Safe;
    B.Reason = "one thread per block";
    return;
  }
  ExprId Pc = Bar.Assumed ? TV.pathCond(F.blockOf(At)) : TV.execCond(At);
  std::vector<unsigned> Ls = loopsOf(At, {Pc});
  const auto &Loops = F.loops().loops();
  // For the description: the branches after which the barrier cannot be
  // reached (B took one of them), and the loops around it (B may have left
  // one early).
  unsigned BarBlock = F.blockOf(At);
  reaches(At, At); // computes the block reachability
  std::vector<std::pair<unsigned, unsigned>> Away;
  for (unsigned P = 0; P < F.blocks().size(); ++P) {
    const auto &Succs = F.cfg().succs(P);
    if (Succs.size() < 2 || !(P == BarBlock || BlockReach[P][BarBlock]))
      continue;
    for (unsigned S2 : Succs)
      if (S2 != BarBlock && !BlockReach[S2][BarBlock])
        Away.emplace_back(P, S2);
  }
  Builder Build = [&](Encoder &Enc) {
    Frame FA{0, NoNode}, FB{1, NoNode};
    std::vector<Expr> Q;
    Q.push_back(Enc.encode(FA, Pc));
    std::vector<Expr> ReachB = {Enc.encode(FB, Pc)};
    for (unsigned L : Ls) {
      Q.push_back(Enc.iterationExists(0, L));
      if (Loops[L].contains(BarBlock)) {
        // The same barrier instance: the same iteration of every loop
        // around it, which B may not have.
        ReachB.push_back(Enc.iterationExists(1, L));
        Q.push_back(Enc.iter(0, L).eq(Enc.iter(1, L)));
        Q.push_back(previousIterationAgrees(
            Enc, L, GridWide ? Relation::OtherBlocks : Relation::SameBlock));
      } else {
        Q.push_back(Enc.iterationExists(1, L));
      }
    }
    Q.push_back(!Expr::mkAnd(ReachB));
    if (GridWide) {
      std::vector<Expr> Diff;
      for (unsigned D = 0; D < 3; ++D) {
        Diff.push_back(Enc.tid(0, D).ne(Enc.tid(1, D)));
        Diff.push_back(Enc.ctaid(0, D).ne(Enc.ctaid(1, D)));
      }
      Q.push_back(Expr::mkOr(Diff));
    } else {
      Q.push_back(relationFacts(Enc, Among, /*AnyWarp=*/Among != Relation::SameWarp));
    }
    Relation Rel = Among;
    Q.push_back(sharing(Enc, {Pc}, {Pc}, Rel));
    // Values broadcast through memory (a flag thread 0 wrote before a
    // barrier) and reads of memory nothing writes agree.
    Q.push_back(consistency(Enc, {Pc}, {Pc}, OwnReads::Apart, Rel));
    for (auto [P, S2] : Away)
      Enc.encode(FB, Pool.land(TV.pathCond(P), TV.edgeCond(P, S2)));
    return Q;
  };
  Solved Sv = solve(Build);
  if (Sv.Res.isSat()) {
    Encoder &Enc = Sv.By->Enc;
    const smt::Model &Mo = Sv.Res.model();
    B.V = Verdict::Race;
    B.Reason = GridWide ? "two threads of the grid disagree on reaching it"
               : Among == Relation::SameWarp
                   ? "two lanes of one warp disagree on reaching it"
                   : "two threads of one CTA disagree on reaching it";
    if (O.Witnesses)
      B.W = witness(Enc, Mo, At, At, NoExpr, NoExpr, {Pc}, {Pc});
    Frame FB{1, NoNode};
    for (unsigned L : Ls)
      if (Loops[L].contains(BarBlock) &&
          Mo.evalBool(Enc.iterationExists(1, L)) == std::optional<bool>(false)) {
        unsigned Latch = Loops[L].Latches.front();
        B.Missed = fmt::format(
            "it has left the loop (at {}) after fewer iterations",
            whereText(F.blocks()[Latch].Insts.empty()
                          ? F.blocks()[Latch].Begin
                          : F.blocks()[Latch].Insts.back()));
        break;
      }
    for (auto [P, S2] : Away) {
      if (!B.Missed.empty())
        break;
      ExprId Took = Pool.land(TV.pathCond(P), TV.edgeCond(P, S2));
      if (Mo.evalBool(Enc.encode(FB, Took)) != std::optional<bool>(true))
        continue;
      unsigned Branch = F.blocks()[P].Insts.back();
      // Where it went: straight to the end of the thread, or on.
      bool Exits = false;
      for (unsigned Item : F.blocks()[S2].Insts) {
        ptx::Opcode Op = F.inst(Item).Op;
        if (Op == ptx::Opcode::Ret || Op == ptx::Opcode::Exit)
          Exits = true;
        if (Op == ptx::Opcode::Ld || Op == ptx::Opcode::St ||
            Op == ptx::Opcode::Atom || Op == ptx::Opcode::Red ||
            Op == ptx::Opcode::Call || Op == ptx::Opcode::Bar)
          break;
      }
      B.Missed = Exits ? fmt::format("it has exited (the branch at {} returns) "
                                     "before the barrier",
                                     whereText(Branch))
                       : fmt::format("it branches around the barrier at {}",
                                     whereText(Branch));
    }
    if (B.Missed.empty())
      B.Missed = "it takes a path that does not pass the barrier";
  } else if (Sv.Res.isUnsat()) {
    B.V = Verdict::Safe;
    B.Reason = "its condition is the same for every thread that gets there";
  } else {
    B.V = Verdict::Unknown;
    B.Reason = gaveUp(Sv.Res);
  }
}

} // namespace incant::race
