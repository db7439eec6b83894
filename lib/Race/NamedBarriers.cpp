//===- NamedBarriers.cpp - bar.sync/bar.arrive with an id and a count -----===//
//
// A barrier with a thread count (`bar.sync a, b`, `bar.arrive a, b`,
// `bar.red.op p, a, b, c`, and their `barrier` forms) orders only the
// threads that take part in the same instance of barrier a: each instance
// (generation) completes once b threads have arrived, bar.sync and bar.red
// then wait for it, bar.arrive does not. So an access X of thread P is
// ordered before an access Y of thread Q when P arrives at a generation
// after X (any of the three) and Q waits on that generation before Y.
//
// Generations are matched through slots. Every barrier operation O gets an
// offset off(O); its instance in iteration j of the loop that holds the
// named barriers has slot j - off(O) (straight-line code: off(O)). The
// model holds when the analysis proves, for every two threads of a CTA,
//   - alignment: a thread that runs O at slot s on barrier v has a partner
//     operation on v at slot s in every other thread of the CTA;
//   - monotonicity: a thread's operations on one barrier come in strictly
//     increasing slots;
// and the count is the CTA's thread count. Then every generation of v is
// made of the operations at one slot, and the k-th operation of each
// thread on v is in generation k. Offsets are searched (0 to 3).
//
// Which slots order a pair is then a finite question for two accesses at
// most a few iterations apart ("near"); further apart, the slots looked at
// are those of the last iterations before the later access, enough to
// prove the pair ordered but not to show it unordered: such a witness is
// unknown, never a race.
//
//===----------------------------------------------------------------------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace incant::race {

namespace {
/// How many iterations before the later access the slots are looked for.
constexpr int NearSpan = 3;
/// Offsets searched per operation.
constexpr int MaxOffset = 3;
/// First encoder thread of the copies (0, 1 are the pair, 2 is
/// MemorySync's third thread).
constexpr unsigned FirstCopy = 3;
} // namespace

bool Checker::countedBarrier(unsigned Item) const {
  const ptx::Instruction &I = F.inst(Item);
  if (I.Op != ptx::Opcode::Bar)
    return false;
  size_t Counted = I.hasMod(".red") ? 4 : 2;
  return I.hasMod(".arrive") || I.Ops.size() >= Counted;
}

void Checker::collectNamed() {
  for (unsigned Item : F.instructions()) {
    if (!countedBarrier(Item) || O.Removed.count(Item))
      continue;
    const ptx::Instruction &I = F.inst(Item);
    NamedOp N;
    N.Item = Item;
    N.Waits = !I.hasMod(".arrive");
    unsigned First = I.hasMod(".red") ? 1 : 0;
    N.Id = TV.operand(Item, First);
    N.Count = TV.operand(Item, First + 1);
    Named.Ops.push_back(N);
  }
}

std::string Checker::namedText(const NamedOp &N) const {
  return fmt::format("{} at {}", ptx::printInstruction(F.inst(N.Item)),
                     whereText(N.Item));
}

bool Checker::namedProved(const Builder &B, std::string &Why) {
  Solved Sv = solve(B);
  if (Sv.Res.isUnsat())
    return true;
  if (!Sv.Res.isSat())
    Why = gaveUp(Sv.Res);
  return false;
}

Expr Checker::namedCopy(Encoder &Enc, unsigned K, unsigned Base,
                        const Expr &Iter, const std::vector<ExprId> &Es) {
  return loopCopy(Enc, K, Base, Iter, Named.Loop, Es, Named.Approx);
}

Expr Checker::loopCopy(Encoder &Enc, unsigned K, unsigned Base,
                       const Expr &Iter, unsigned L,
                       const std::vector<ExprId> &Es, bool &Approx) {
  // Thread K is thread Base at iteration Iter of loop L: the same ids, the
  // same iterations of every other loop, the same values of everything
  // that does not change with that loop's iterations.
  std::vector<Expr> C;
  for (unsigned D = 0; D < 3; ++D) {
    C.push_back(Enc.tid(K, D).eq(Enc.tid(Base, D)));
    C.push_back(Enc.ctaid(K, D).eq(Enc.ctaid(Base, D)));
  }
  // What defines the copy is asserted, not part of the facts that say it
  // runs an operation: a negative iteration means no such copy.
  if (L != NoNode)
    C.push_back(Iter.ge(Expr::mkInt(0)).implies(Enc.iter(K, L).eq(Iter)));
  for (unsigned Y : Pool.symbolsOf(Es)) {
    const ir::Symbol &S = Pool.symbol(Y);
    if (L != NoNode && TV.variesIn(S, L)) {
      // A value of another iteration the analysis does not compute.
      if (S.K == ir::SymKind::Opaque || S.K == ir::SymKind::LoopVar)
        Approx = true;
      continue;
    }
    Expr A = Enc.symbolVar(Frame{K, NoNode}, Y),
         B = Enc.symbolVar(Frame{Base, NoNode}, Y);
    if (A.sort() == B.sort())
      C.push_back(A.eq(B));
  }
  return Expr::mkAnd(C);
}

Expr Checker::uniformIters(Encoder &Enc, unsigned A, unsigned B,
                           const std::vector<unsigned> &At) {
  return uniformItersBefore(Enc, A, B, At, Named.Loop);
}

Expr Checker::uniformItersBefore(Encoder &Enc, unsigned A, unsigned B,
                                 const std::vector<unsigned> &At, unsigned L) {
  // Two threads of one CTA run a loop whose entry and exits do not depend
  // on the thread equally often: the same counter once both have left it
  // (the loops before L, and before the items At, where the two threads
  // are).
  std::vector<Expr> C;
  const auto &Loops = F.loops().loops();
  for (unsigned L0 = 0; L0 < Loops.size(); ++L0) {
    const ir::Loop &Lp = Loops[L0];
    if (L == NoNode || L0 == L || Loops[L].contains(Lp.Header) ||
        !forwardReaches(Lp.Header, Loops[L].Header))
      continue;
    bool Left = true;
    for (unsigned Item : At)
      Left &= !Lp.contains(F.blockOf(Item)) &&
              forwardReaches(Lp.Header, F.blockOf(Item));
    if (!Left)
      continue;
    bool Uniform = U.control(Lp.Header) <= ir::Variance::Block;
    for (unsigned N : Lp.Nodes)
      for (unsigned S : F.cfg().succs(N))
        Uniform &= Lp.contains(S) || U.branch(N) <= ir::Variance::Block;
    if (Uniform)
      C.push_back(Enc.iter(A, L0).eq(Enc.iter(B, L0)));
  }
  return Expr::mkAnd(C);
}

Expr Checker::namedRuns(Encoder &Enc, unsigned T, const NamedOp &N) {
  Expr E = Enc.encode(Frame{T, NoNode}, TV.execCond(N.Item));
  if (Named.Loop != NoNode)
    E = E && Enc.encode(Frame{T, NoNode}, TV.loopEntryCond(Named.Loop));
  return E;
}

bool Checker::itemAfter(unsigned A, unsigned B) {
  return afterInPass(
      A, B, Named.Loop == NoNode ? NoNode : F.loops().loops()[Named.Loop].Header);
}

bool Checker::afterInPass(unsigned A, unsigned B, unsigned Header) {
  // Item A runs after item B in one iteration of the loop of Header (inner
  // loops may go round) when both run: a way from B to A that does not
  // come back to that header. Named barriers and mbarrier operations are in
  // no inner loop, so one of the two runs at most once in the iteration.
  unsigned BA = F.blockOf(A), BB = F.blockOf(B);
  if (BA == BB && A > B)
    return true;
  std::vector<char> &Seen = PassReach[{BB, Header}];
  if (Seen.empty()) {
    Seen.assign(F.blocks().size(), 0);
    std::vector<unsigned> Work;
    for (unsigned S : F.cfg().succs(BB))
      Work.push_back(S);
    while (!Work.empty()) {
      unsigned X = Work.back();
      Work.pop_back();
      if (Seen[X] || X == Header)
        continue;
      Seen[X] = 1;
      for (unsigned S : F.cfg().succs(X))
        Work.push_back(S);
    }
  }
  return Seen[BA] != 0;
}

bool Checker::alignedFamily(const std::vector<unsigned> &Fam, std::string &Why) {
  bool Loop = Named.Loop != NoNode;
  // Alignment: thread 0 runs Fam[X] at its slot; thread 1, any thread of
  // the CTA, runs no operation of the family on that barrier at that slot.
  for (unsigned X : Fam) {
    const NamedOp &OX = Named.Ops[X];
    Builder B = [&](Encoder &Enc) {
      std::vector<Expr> Q = {namedRuns(Enc, 0, OX)};
      for (unsigned D = 0; D < 3; ++D)
        Q.push_back(Enc.ctaid(0, D).eq(Enc.ctaid(1, D)));
      Q.push_back(uniformIters(Enc, 0, 1, {}));
      Expr Id = Enc.encode(Frame{0, NoNode}, OX.Id);
      unsigned K = FirstCopy;
      if (Loop)
        Q.push_back(Enc.iterationExists(0, Named.Loop));
      for (unsigned Y : Fam) {
        const NamedOp &OY = Named.Ops[Y];
        if (!Loop && OY.Off != OX.Off)
          continue;
        unsigned T = 1;
        std::vector<Expr> Has;
        if (Loop) {
          T = K++;
          Expr J = Enc.iter(0, Named.Loop) - Expr::mkInt(OX.Off - OY.Off);
          Has.push_back(J.ge(Expr::mkInt(0)));
          Has.push_back(Enc.iterationExists(T, Named.Loop));
          std::vector<ExprId> EsY = {TV.execCond(OY.Item), OY.Id,
                                     TV.loopEntryCond(Named.Loop)};
          Q.push_back(namedCopy(Enc, T, 1, J, EsY));
        }
        Has.push_back(namedRuns(Enc, T, OY));
        Has.push_back(Enc.encode(Frame{T, NoNode}, OY.Id).eq(Id));
        Q.push_back(!Expr::mkAnd(Has));
      }
      return Q;
    };
    if (!namedProved(B, Why)) {
      if (Why.empty())
        Why = fmt::format("{} has no partner in every thread of the block at "
                          "its generation",
                          namedText(OX));
      return false;
    }
  }
  // Monotonicity: a thread's operations on one barrier in increasing slots.
  for (unsigned X : Fam)
    for (unsigned Y : Fam) {
      if (X == Y && Loop)
        continue; // one operation in later iterations: later slots
      const NamedOp &OX = Named.Ops[X], &OY = Named.Ops[Y];
      bool After = X != Y && itemAfter(OY.Item, OX.Item);
      if (!Loop && (!After || OY.Off > OX.Off))
        continue;
      Builder B = [&](Encoder &Enc) {
        std::vector<Expr> Q = {namedRuns(Enc, 0, OX)};
        Expr IdX = Enc.encode(Frame{0, NoNode}, OX.Id);
        unsigned T = 0;
        if (Loop) {
          T = FirstCopy;
          Expr J1 = Enc.iter(0, Named.Loop);
          Expr J2 = Expr::mkFreshVar("named_j", smt::Sort::integer());
          std::vector<ExprId> EsY = {TV.execCond(OY.Item), OY.Id,
                                     TV.loopEntryCond(Named.Loop)};
          Q.push_back(Enc.iterationExists(0, Named.Loop));
          Q.push_back(J2.ge(Expr::mkInt(0)));
          Q.push_back(namedCopy(Enc, T, 0, J2, EsY));
          Q.push_back(Enc.iterationExists(T, Named.Loop));
          Expr Later = J1.lt(J2);
          if (After)
            Later = Later || J1.eq(J2);
          Q.push_back(Later);
          Q.push_back((J1 - Expr::mkInt(OX.Off)).ge(J2 - Expr::mkInt(OY.Off)));
        }
        Q.push_back(namedRuns(Enc, T, OY));
        Q.push_back(Enc.encode(Frame{T, NoNode}, OY.Id).eq(IdX));
        return Q;
      };
      if (!namedProved(B, Why)) {
        if (Why.empty())
          Why = fmt::format("{} and {} may meet one generation twice in one "
                            "thread",
                            namedText(OX), namedText(OY));
        return false;
      }
    }
  return true;
}

bool Checker::namedOffsets(const std::vector<unsigned> &Fam, std::string &Why) {
  // Every assignment of offsets 0..MaxOffset with a zero among them, fewest
  // and smallest first.
  size_t N = Fam.size();
  size_t Total = 1;
  for (size_t K = 0; K < N; ++K)
    Total *= MaxOffset + 1;
  std::vector<std::vector<int>> Cands;
  for (size_t C = 0; C < Total && Cands.size() < 64; ++C) {
    std::vector<int> Off(N);
    size_t V = C;
    for (size_t K = 0; K < N; ++K, V /= MaxOffset + 1)
      Off[K] = static_cast<int>(V % (MaxOffset + 1));
    if (*std::min_element(Off.begin(), Off.end()) == 0)
      Cands.push_back(Off);
  }
  std::stable_sort(Cands.begin(), Cands.end(),
                   [](const std::vector<int> &A, const std::vector<int> &B) {
                     return std::accumulate(A.begin(), A.end(), 0) <
                            std::accumulate(B.begin(), B.end(), 0);
                   });
  std::string First;
  for (const std::vector<int> &Off : Cands) {
    for (size_t K = 0; K < N; ++K)
      Named.Ops[Fam[K]].Off = Off[K];
    std::string W;
    if (alignedFamily(Fam, W))
      return true;
    if (First.empty())
      First = W;
  }
  Why = First;
  return false;
}

void Checker::buildNamed() {
  Named.Built = true;
  auto Fail = [&](const NamedOp &N, const std::string &What) {
    Named.Why = fmt::format("{}: {}", namedText(N), What);
  };
  // Counts, ids, place.
  const auto &Loops = F.loops().loops();
  bool First = true;
  for (const NamedOp &N : Named.Ops) {
    std::optional<int64_t> C = Pool.asConst(N.Count);
    if (!C)
      return Fail(N, "a thread count that is not a constant");
    if (*C <= 0 || *C % 32)
      return Fail(N, fmt::format("a thread count ({}) that is not a multiple "
                                 "of the warp size (32)",
                                 *C));
    for (unsigned Y : Pool.symbolsOf(N.Id)) {
      const ir::Symbol &S = Pool.symbol(Y);
      if ((S.K == ir::SymKind::Opaque && !S.Uniform) ||
          S.K == ir::SymKind::LoopVar)
        return Fail(N, "a barrier id that is not a constant or a function of "
                       "the thread and iteration (it comes from memory or a "
                       "value the loop carries)");
    }
    unsigned L = F.loops().loopFor(F.blockOf(N.Item));
    if (First)
      Named.Loop = L;
    First = false;
    if (L != Named.Loop)
      return Fail(N, "named barriers in more than one loop (or inside and "
                     "outside of one), whose generations are not matched");
    if (L != NoNode && Loops[L].Parent != NoNode)
      return Fail(N, "a named barrier in a nested loop, whose generations are "
                     "not matched");
  }
  // The count is the CTA's size: every thread takes part.
  for (const NamedOp &N : Named.Ops) {
    int64_t C = *Pool.asConst(N.Count);
    std::string W;
    bool Whole = namedProved(
        [&](Encoder &Enc) {
          Expr Size = Enc.ntid(0);
          for (unsigned D = 1; D < 3; ++D)
            Size = Size * Enc.ntid(D);
          return std::vector<Expr>{Size.ne(Expr::mkInt(C))};
        },
        W);
    if (!Whole)
      return Fail(N, fmt::format("its count {} may not be the block's number of "
                                 "threads; which threads of a larger block take "
                                 "part is not followed",
                                 C));
  }
  // A barrier id that __syncthreads() or another barrier without a count
  // uses too.
  for (const ir::Barrier &B : Bars) {
    if (B.Assumed || countedBarrier(B.Item) ||
        F.inst(B.Item).Op != ptx::Opcode::Bar)
      continue;
    unsigned IdOp = F.inst(B.Item).hasMod(".red") ? 1 : 0;
    ExprId Id = TV.operand(B.Item, IdOp);
    for (const NamedOp &N : Named.Ops) {
      std::string W;
      bool Apart = namedProved(
          [&](Encoder &Enc) {
            return std::vector<Expr>{
                namedRuns(Enc, 0, N), Enc.encode(Frame{0, NoNode}, N.Id).eq(
                                          Enc.encode(Frame{1, NoNode}, Id))};
          },
          W);
      if (!Apart)
        return Fail(N, fmt::format("may use the barrier of {} at {}, which has "
                                   "no thread count",
                                   ptx::printInstruction(F.inst(B.Item)),
                                   whereText(B.Item)));
    }
  }
  // Families: operations whose ids may be equal.
  std::vector<unsigned> Fam(Named.Ops.size());
  std::iota(Fam.begin(), Fam.end(), 0u);
  std::function<unsigned(unsigned)> Root = [&](unsigned X) {
    return Fam[X] == X ? X : Fam[X] = Root(Fam[X]);
  };
  for (unsigned X = 0; X < Named.Ops.size(); ++X)
    for (unsigned Y = X + 1; Y < Named.Ops.size(); ++Y) {
      if (Root(X) == Root(Y))
        continue;
      const NamedOp &OX = Named.Ops[X], &OY = Named.Ops[Y];
      std::string W;
      bool Apart = namedProved(
          [&](Encoder &Enc) {
            std::vector<Expr> Q = {namedRuns(Enc, 0, OX), namedRuns(Enc, 1, OY)};
            for (unsigned D = 0; D < 3; ++D)
              Q.push_back(Enc.ctaid(0, D).eq(Enc.ctaid(1, D)));
            Q.push_back(uniformIters(Enc, 0, 1, {}));
            Q.push_back(Enc.encode(Frame{0, NoNode}, OX.Id)
                            .eq(Enc.encode(Frame{1, NoNode}, OY.Id)));
            return Q;
          },
          W);
      if (!Apart)
        Fam[Root(X)] = Root(Y);
    }
  std::map<unsigned, std::vector<unsigned>> Families;
  for (unsigned X = 0; X < Named.Ops.size(); ++X)
    Families[Root(X)].push_back(X);
  unsigned Index = 0;
  for (auto &[R, Members] : Families) {
    (void)R;
    if (Members.size() > 6)
      return Fail(Named.Ops[Members[0]],
                  "more than 6 operations on barriers that may be one");
    int64_t C = *Pool.asConst(Named.Ops[Members[0]].Count);
    for (unsigned X : Members) {
      Named.Ops[X].Family = Index;
      if (*Pool.asConst(Named.Ops[X].Count) != C)
        return Fail(Named.Ops[X], "a count that differs from another operation "
                                  "on the same barrier");
    }
    ++Index;
    std::string W;
    if (!namedOffsets(Members, W)) {
      Named.Why = "the generations of the named barriers are not matched: " + W;
      return;
    }
  }
  Named.Ok = true;
  for (const NamedOp &N : Named.Ops)
    Named.MaxOff = std::max(Named.MaxOff, N.Off);
}

Expr Checker::namedUnordered(Encoder &Enc, unsigned I, unsigned J) {
  // For each direction P -> Q, every route (P arrives after its access at
  // a slot where Q waits before its own) is ruled out; Near/Far: the pair
  // is (not) close enough that the routes looked at are all there are.
  unsigned XI = Items[I].A.Item, YI = Items[J].A.Item;
  unsigned L = Named.Loop;
  const auto &Loops = F.loops().loops();
  struct Side {
    bool In = false, Before = false, After = false;
  };
  auto Where = [&](unsigned Item) {
    Side S;
    if (L == NoNode)
      return S;
    unsigned B = F.blockOf(Item);
    S.In = Loops[L].contains(B);
    if (!S.In) {
      S.Before = forwardReaches(B, Loops[L].Header);
      for (unsigned N : Loops[L].Nodes)
        S.After |= forwardReaches(N, B);
    }
    return S;
  };
  Side Sx = Where(XI), Sy = Where(YI);
  unsigned NextCopy = FirstCopy + 8; // after alignedFamily's
  std::vector<Expr> Unordered, Close, Defs;
  // Thread Base at iteration J (one copy per key): its definition goes to
  // Defs, that iteration's existence to Facts.
  auto CopyAt = [&](std::map<int, unsigned> &Copies, int Key, unsigned Base,
                    const Expr &J, const NamedOp &N, std::vector<Expr> &Facts) {
    auto [It, New] = Copies.emplace(Key, NextCopy);
    if (New)
      ++NextCopy;
    Facts.push_back(J.ge(Expr::mkInt(0)));
    Facts.push_back(Enc.iterationExists(It->second, L));
    Defs.push_back(namedCopy(Enc, It->second, Base, J,
                             {TV.execCond(N.Item), N.Id, TV.loopEntryCond(L)}));
    return It->second;
  };
  for (unsigned Dir = 0; Dir < 2; ++Dir) {
    unsigned P = Dir, Q = 1 - Dir;
    unsigned PX = Dir ? YI : XI, QY = Dir ? XI : YI;
    Side SP = Dir ? Sy : Sx, SQ = Dir ? Sx : Sy;
    if (L == NoNode) {
      for (const NamedOp &A : Named.Ops)
        for (const NamedOp &W : Named.Ops) {
          if (!W.Waits || A.Family != W.Family || A.Off != W.Off ||
              !itemAfter(A.Item, PX) || !itemAfter(QY, W.Item))
            continue;
          Expr Route = namedRuns(Enc, P, A) && namedRuns(Enc, Q, W) &&
                       Enc.encode(Frame{P, NoNode}, A.Id)
                           .eq(Enc.encode(Frame{Q, NoNode}, W.Id));
          Unordered.push_back(!Route);
        }
      continue;
    }
    // No named barrier after P's access, or none before Q's.
    if (!(SP.In || SP.Before) || !(SQ.In || SQ.After))
      continue;
    Expr IQ = Enc.iter(Q, L);
    std::vector<Expr> QFacts;
    if (SQ.After)
      QFacts.push_back(!Enc.encode(Frame{Q, NoNode}, TV.backEdgeCond(L)));
    QFacts.push_back(Enc.iterationExists(Q, L));
    Expr Start = SP.In ? Enc.iter(P, L) : Expr::mkInt(0);
    int Span = NamedMode == NamedRegion::Any ? 0 : NearSpan + Named.MaxOff;
    Close.push_back((IQ - Start).le(Expr::mkInt(NearSpan)));
    std::map<int, unsigned> QCopy, PCopy;
    for (int D = 0; D <= Span; ++D) {
      Expr JW = IQ - Expr::mkInt(D);
      for (const NamedOp &W : Named.Ops) {
        if (!W.Waits || (D == 0 && SQ.In && !itemAfter(QY, W.Item)))
          continue;
        std::vector<Expr> WSide = QFacts;
        unsigned TW = D > 0 ? CopyAt(QCopy, D, Q, JW, W, WSide) : Q;
        WSide.push_back(namedRuns(Enc, TW, W));
        for (const NamedOp &A : Named.Ops) {
          if (A.Family != W.Family)
            continue;
          int Delta = -D - W.Off + A.Off; // ja = iQ + Delta
          Expr JA = IQ + Expr::mkInt(Delta);
          std::vector<Expr> Route = WSide;
          unsigned TA = CopyAt(PCopy, Delta, P, JA, A, Route);
          Route.push_back(namedRuns(Enc, TA, A));
          // After P's access: a later iteration, or later in its own.
          if (SP.In) {
            Expr Later = JA.gt(Enc.iter(P, L));
            if (itemAfter(A.Item, PX))
              Later = Later || JA.eq(Enc.iter(P, L));
            Route.push_back(Later);
          }
          Route.push_back(Enc.encode(Frame{TA, NoNode}, A.Id)
                              .eq(Enc.encode(Frame{TW, NoNode}, W.Id)));
          Unordered.push_back(!Expr::mkAnd(Route));
        }
      }
    }
  }
  Unordered.push_back(uniformIters(Enc, 0, 1, {XI, YI}));
  Unordered.insert(Unordered.end(), Defs.begin(), Defs.end());
  Expr Near = Expr::mkAnd(Close);
  Expr All = Expr::mkAnd(Unordered);
  switch (NamedMode) {
  case NamedRegion::Near: return All && Near;
  case NamedRegion::Far: return All && !Near;
  default: return All;
  }
}

void Checker::namedRefine(std::vector<Outcome> &Outs,
                          const std::function<std::vector<Outcome>()> &Again) {
  auto InCta = [](const Outcome &Oc) {
    return Oc.V == Verdict::Race && Oc.Rel != Relation::OtherBlocks;
  };
  if (Named.Ops.empty() || std::none_of(Outs.begin(), Outs.end(), InCta))
    return;
  if (!Named.Built)
    buildNamed();
  if (!Named.Ok) {
    for (Outcome &Oc : Outs)
      if (InCta(Oc)) {
        Oc.V = Verdict::Unknown;
        Oc.W.reset();
        Oc.Reason = "a named barrier may order the pair, which the analysis "
                    "does not follow: " +
                    Named.Why;
      }
    return;
  }
  // Anywhere first, with only the slots of the later access's own
  // iteration (fewer routes, so a proof holds for all of them): most pairs
  // the barriers order are done in one small query.
  NamedMode = NamedRegion::Any;
  std::vector<Outcome> Any = Again();
  bool Open = false;
  for (size_t K = 0; K < Outs.size() && K < Any.size(); ++K)
    Open |= InCta(Outs[K]) && Any[K].V != Verdict::Safe;
  std::vector<Outcome> Near, Far;
  bool Approx = false;
  if (Open) {
    NamedMode = NamedRegion::Near;
    Named.Approx = false;
    Near = Again();
    Approx = Named.Approx;
    bool Settled = true; // every open pair found racy near
    for (size_t K = 0; K < Outs.size() && K < Near.size(); ++K)
      Settled &= !InCta(Outs[K]) || Any[K].V == Verdict::Safe ||
                 (Near[K].V == Verdict::Race && !Approx);
    NamedMode = NamedRegion::Far;
    Far = Settled ? Near : Again();
  }
  NamedMode = NamedRegion::Off;
  for (size_t K = 0; K < Outs.size() && K < Any.size(); ++K) {
    if (!InCta(Outs[K]))
      continue;
    Outcome &Oc = Outs[K];
    if (Any[K].V == Verdict::Safe || K >= Near.size() || K >= Far.size()) {
      Oc.V = Any[K].V;
      Oc.W.reset();
      Oc.Reason = Any[K].V == Verdict::Safe
                      ? "ordered by named barriers (an arrival after one "
                        "access, a wait on the same generation before the "
                        "other)"
                      : Any[K].Reason;
      continue;
    }
    if (Near[K].V == Verdict::Race && !Approx) {
      Oc = Near[K];
    } else if (Near[K].V == Verdict::Race) {
      Oc.V = Verdict::Unknown;
      Oc.W.reset();
      Oc.Reason = "unordered by the named barriers only for some values the "
                  "loop loads in other iterations (which the analysis does "
                  "not compute)";
    } else if (Far[K].V == Verdict::Race) {
      Oc.V = Verdict::Unknown;
      Oc.W.reset();
      Oc.Reason = fmt::format(
          "no named-barrier generation of the last {} iterations before the "
          "later access orders the two; generations further back are not "
          "followed",
          NearSpan + Named.MaxOff + 1);
    } else if (Near[K].V == Verdict::Unknown || Far[K].V == Verdict::Unknown) {
      Oc = Near[K].V == Verdict::Unknown ? Near[K] : Far[K];
    } else {
      Oc.V = Verdict::Safe;
      Oc.W.reset();
      Oc.Reason = "ordered by named barriers (an arrival after one access, "
                  "a wait on the same generation before the other)";
    }
  }
}

} // namespace incant::race
