//===- Mbarriers.cpp - mbarrier phases, copy groups and what they order ---===//
//
// An mbarrier object (PTX ISA, "Parallel Synchronization and Communication
// Instructions: mbarrier") counts arrivals in phases: `mbarrier.init`
// sets the count, each phase completes once that many arrivals (and, with
// `expect_tx`, the announced bytes of its copies) have come, and
// `mbarrier.test_wait` / `try_wait` succeed once the phase their token (or
// their parity) names has completed. An arrive has release semantics and a
// successful wait acquire semantics (Memory Consistency Model, "Release and
// Acquire Patterns", "Morally strong": both at .cta scope by default), so an
// access X of thread P is ordered before an access Y of thread Q when P
// arrives in phase k after X and Q's wait that observed phase k completed
// comes before Y. A copy that completes on the barrier (a cp.async whose
// thread then runs cp.async.mbarrier.arrive, a bulk copy with
// .mbarrier::complete_tx::bytes) completes before its phase does; a copy
// in a group completes before its thread's cp.async.wait_group N lets it
// past once N younger groups were committed.
//
// Phases are matched through slots, as NamedBarriers.cpp matches
// generations: every arrival and wait O gets an offset, and its instance
// in iteration j of the loop that holds the operations has slot j - off(O)
// (before the loop: -1 - off(O)). The model holds when the solver proves,
// for the offsets found:
//   - count 1: one thread makes every arrival; count = the CTA's size:
//     every thread of the CTA arrives at every slot where one does;
//   - a thread's arrivals on one barrier come in increasing slots, and
//     between two of them it waits on the barrier at the first one's slot
//     or later (no arrival runs ahead into an earlier phase);
//   - cp.async.mbarrier.arrive is followed by its thread's arrival at the
//     same slot; a complete_tx copy follows its thread's expect_tx of at
//     least its size at the same slot;
//   - a token wait waits on its arrive's slot; a parity wait's parity is
//     that of its phase: after the thread's previous parity wait on the
//     barrier, at most one slot with arrivals lies between and the parity
//     flips exactly when one does, and a first wait has parity 0 with no
//     arrival before it.
// Slots with arrivals then are the phases in order, and a thread's
// successful wait at slot s means that every phase up to s has completed.
//
// A pair is then ordered when a route exists in either direction, looked
// for within a few iterations of each access: a release after the first
// access (an arrival, a CTA barrier; for a copy its completion, or a wait
// of its own thread that observed it followed by such a release) and a
// matching acquire before the second (a wait on the same barrier at that
// slot or later, the same barrier instance). A generic-proxy write and an
// access of the async proxy (the bulk copies) are ordered only with a
// fence.proxy.async on the way. What the model does not cover leaves the
// pair unknown, naming the instruction; routes are only used to prove.
//
//===----------------------------------------------------------------------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace incant::race {

namespace {
/// Iterations looked at after the first access and before the second.
constexpr int Window = 3;
/// Offsets searched per operation.
constexpr int MaxPhaseOffset = 2;
/// First encoder thread of the phase copies (after named barriers').
constexpr unsigned FirstPhaseCopy = 64;
/// The thread that makes every arrival, in the obligations (count 1).
constexpr unsigned ArriverThread = 2;

/// A variable's size in bytes, when its type and dimensions give it.
std::optional<int64_t> varBytes(const ptx::Variable &V) {
  size_t K = V.Type.find_first_of("0123456789");
  if (K == std::string::npos)
    return std::nullopt;
  int64_t B = std::stoll(V.Type.substr(K)) / 8 * (V.Vec ? V.Vec : 1);
  for (const std::optional<uint64_t> &D : V.Dims) {
    if (!D)
      return std::nullopt;
    B *= static_cast<int64_t>(*D);
  }
  return B > 0 ? std::optional<int64_t>(B) : std::nullopt;
}

bool hasModPrefix(const ptx::Instruction &I, std::string_view Prefix) {
  for (const ptx::Modifier &M : I.Mods)
    if (M.Text.rfind(Prefix, 0) == 0)
      return true;
  return false;
}

/// The index of the last Address operand, or -1.
int lastAddress(const ptx::Instruction &I) {
  int Out = -1;
  for (unsigned K = 0; K < I.Ops.size(); ++K)
    if (I.Ops[K].K == ptx::Operand::Address)
      Out = static_cast<int>(K);
  return Out;
}
} // namespace


bool Checker::phased() const {
  for (unsigned Item : F.instructions()) {
    ptx::Opcode Op = F.inst(Item).Op;
    if (Op == ptx::Opcode::Mbarrier || Op == ptx::Opcode::CpAsync)
      return true;
  }
  return false;
}

namespace {
bool isWaitInst(const ptx::Instruction &I) {
  return I.Op == ptx::Opcode::Mbarrier &&
         (I.hasMod(".try_wait") || I.hasMod(".test_wait"));
}
} // namespace

int Checker::phaseSegment(unsigned Item) {
  // In the loop (1); before it, in no loop but a wait's spin loop (0);
  // elsewhere (2).
  unsigned B = F.blockOf(Item);
  const auto &Loops = F.loops().loops();
  unsigned L = Phases.Loop;
  if (L != NoNode && Loops[L].contains(B))
    return 1;
  for (unsigned K = 0; K < Loops.size(); ++K) {
    if (!Loops[K].contains(B))
      continue;
    // A spin loop: a wait, and no other synchronisation or memory access.
    bool Wait = false, Other = false;
    for (unsigned N : Loops[K].Nodes)
      for (unsigned It = F.blocks()[N].Begin; It < F.blocks()[N].End; ++It) {
        if (!F.isInstruction(It))
          continue;
        const ptx::Instruction &I = F.inst(It);
        Wait |= isWaitInst(I);
        Other |= (I.Op == ptx::Opcode::Mbarrier && !isWaitInst(I)) ||
                 I.Op == ptx::Opcode::CpAsync || I.Op == ptx::Opcode::Bar ||
                 LoadAt.count(It);
      }
    if (!Wait || Other)
      return 2;
  }
  if (L == NoNode || forwardReaches(B, Loops[L].Header))
    return 0;
  return 2;
}

bool Checker::waitPassed(const PhaseOp &W, unsigned From, unsigned To) {
  // A walk over one pass (an iteration of the loop, or the code before it)
  // from From, or the pass's start, to To, or the pass's end, that never
  // takes a success edge of the wait.
  const auto &Blocks = F.blocks();
  unsigned Header =
      Phases.Loop == NoNode ? NoNode : F.loops().loops()[Phases.Loop].Header;
  unsigned Ref = From != NoNode ? From : To != NoNode ? To : W.Items[0];
  bool In = phaseSegment(Ref) == 1;
  unsigned Start = From != NoNode ? F.blockOf(From)
                   : In           ? Header
                                  : F.blockOf(F.instructions().front());
  unsigned First = From != NoNode ? From + 1 : Blocks[Start].Begin;
  std::vector<char> Seen(Blocks.size(), 0);
  std::vector<std::pair<unsigned, unsigned>> Work = {{Start, First}};
  while (!Work.empty()) {
    auto [B, Begin] = Work.back();
    Work.pop_back();
    if (To != NoNode && F.blockOf(To) == B && To >= Begin)
      return false;
    const auto &Succs = F.cfg().succs(B);
    if (Succs.empty() && To == NoNode && Header == NoNode)
      return false;
    for (unsigned S : Succs) {
      if (std::find(W.Success.begin(), W.Success.end(), std::make_pair(B, S)) !=
          W.Success.end())
        continue;
      if (S == Header) {
        if (To == NoNode)
          return false; // the pass ends without the wait
        continue;
      }
      if (!Seen[S]) {
        Seen[S] = 1;
        Work.emplace_back(S, Blocks[S].Begin);
      }
    }
  }
  return true;
}

/// The copies of threads one query uses: thread Base at its own iteration
/// plus D (or, Abs, at iteration -1 + D), each defined once.
struct Checker::PhaseCtx {
  /// One instance of an op: its thread (a copy of a base thread), its
  /// iteration (before the loop: -1), its slot, whether it runs, and what
  /// else must hold for it to be the instance asked for.
  struct Inst {
    const PhaseOp *P = nullptr;
    unsigned T = 0;
    Expr J, Slot, Runs;
    Expr Extra = Expr::mkBool(true);
  };
  Checker &C;
  Encoder &Enc;
  std::map<std::tuple<unsigned, int, int>, unsigned> Ids;
  unsigned Next = FirstPhaseCopy;
  std::vector<Expr> Defs;
  unsigned Free = 0;
  /// Iterations looked at for routes, and whether routes through the
  /// copying thread's own waits are too.
  int Span = Window;
  bool Deep = true;

  PhaseCtx(Checker &C, Encoder &Enc) : C(C), Enc(Enc) {}

  unsigned header() const {
    return C.Phases.Loop == NoNode ? NoNode
                                   : C.F.loops().loops()[C.Phases.Loop].Header;
  }
  Expr iterAt(unsigned Base, bool Abs, int D) {
    return Abs || C.Phases.Loop == NoNode
               ? Expr::mkInt(-1 + D)
               : Enc.iter(Base, C.Phases.Loop) + Expr::mkInt(D);
  }
  unsigned copy(unsigned Base, int Kind, int D, const Expr &J) {
    if (Kind == 1 && D == 0)
      return Base;
    auto [It, New] = Ids.emplace(std::make_tuple(Base, Kind, D), Next);
    if (New) {
      ++Next;
      Defs.push_back(C.loopCopy(Enc, It->second, Base, J, C.Phases.Loop,
                                C.Phases.Exprs, C.Phases.Approx));
    }
    return It->second;
  }
  Expr runs(unsigned T, const PhaseOp &P) {
    Expr E = Enc.encode(Frame{T, NoNode}, C.TV.execCond(P.Items[0]));
    if (!P.Pro && C.Phases.Loop != NoNode)
      E = E &&
          Enc.encode(Frame{T, NoNode}, C.TV.loopEntryCond(C.Phases.Loop)) &&
          Enc.iterationExists(T, C.Phases.Loop);
    return E;
  }
  /// Op P of thread Base at its own iteration plus D (Abs: -1 + D); an op
  /// before the loop is at -1 whatever D.
  Inst at(const PhaseOp &P, unsigned Base, bool Abs, int D) {
    Inst I;
    I.P = &P;
    if (P.Pro) {
      I.T = Base;
      I.J = Expr::mkInt(-1);
      I.Runs = Enc.encode(Frame{Base, NoNode}, C.TV.execCond(P.Items[0]));
      I.Slot = Expr::mkInt(-1 - P.Off);
      return I;
    }
    I.J = iterAt(Base, Abs, D);
    I.T = copy(Base, Abs ? 2 : 1, D, I.J);
    I.Runs = I.J.ge(Expr::mkInt(0)) && runs(I.T, P);
    I.Slot = I.J - Expr::mkInt(P.Off);
    return I;
  }
  /// Op P of thread Base at a free iteration (a later or earlier instance).
  Inst anywhere(const PhaseOp &P, unsigned Base) {
    return atIter(P, Base, Expr::mkFreshVar("phase_j", smt::Sort::integer()));
  }
  /// Op P of thread Base at iteration J.
  Inst atIter(const PhaseOp &P, unsigned Base, const Expr &J) {
    if (P.Pro)
      return at(P, Base, true, 0);
    Inst I;
    I.P = &P;
    I.J = J;
    I.T = copy(Base, 3, static_cast<int>(Free++), I.J);
    I.Runs = I.J.ge(Expr::mkInt(0)) && runs(I.T, P);
    I.Slot = I.J - Expr::mkInt(P.Off);
    return I;
  }
  /// The instance of op P of thread Base at the slot of instance Ref
  /// (Ref's own thread is Base or shares its iteration, RefAbs/RefD).
  Inst atSlot(const PhaseOp &P, unsigned Base, const Inst &Ref, bool RefAbs,
              int RefD) {
    const PhaseOp &R = *Ref.P;
    Inst I;
    if (P.Pro)
      I = at(P, Base, true, 0);
    else if (R.Pro)
      I = at(P, Base, true, P.Off - R.Off);
    else
      I = at(P, Base, RefAbs, RefD - R.Off + P.Off);
    I.Extra = I.Slot.eq(Ref.Slot);
    return I;
  }
  Expr obj(const Inst &I) {
    return Enc.encode(Frame{I.T, NoNode}, I.P->Obj);
  }
  Expr sameObj(const Inst &A, const Inst &B) { return obj(A).eq(obj(B)); }
  /// Instance I is on the barrier that init C initialised.
  Expr isBarrier(const Inst &I, const PhaseCount &Cn) {
    return obj(I).eq(Enc.encode(Frame{I.T, NoNode}, Cn.Obj));
  }
  /// Thread T is one of those that arrive on the barrier of init C.
  Expr arrives(unsigned T, const PhaseCount &Cn) {
    if (Cn.Whole)
      return Expr::mkBool(true);
    Expr L = Enc.linearTid(T);
    int64_t Last = Cn.Lo + (Cn.N - 1) * Cn.Stride;
    Expr E = L.ge(Expr::mkInt(Cn.Lo)) && L.le(Expr::mkInt(Last));
    if (Cn.Stride > 1)
      E = E && (L - Expr::mkInt(Cn.Lo))
                   .mod(Expr::mkInt(Cn.Stride))
                   .eq(Expr::mkInt(0));
    return E;
  }
  /// Position (JA, A) comes after (JB, B) in one thread.
  Expr after(const Expr &JA, unsigned A, const Expr &JB, unsigned B) {
    Expr Later = JA.gt(JB);
    if (C.afterInPass(A, B, header()) && !(A == B))
      Later = Later || JA.eq(JB);
    return Later;
  }
  /// Wait instance W was passed between positions (JA, A) and (JB, B)
  /// (NoNode: the start or end of everything).
  Expr passed(const Inst &W, const Expr &JA, unsigned A, const Expr &JB,
              unsigned B) {
    const PhaseOp &P = *W.P;
    auto Ok = [&](unsigned From, unsigned To) {
      return Expr::mkBool(C.waitPassed(P, From, To));
    };
    std::vector<Expr> Cases;
    Expr JW = W.J;
    // Or: its instance ran (a wait in a branch, of one role), and every
    // way from its start to To (NoNode: the pass's end) passes it.
    unsigned First = P.Items[0];
    unsigned Header = header();
    auto Ran = [&](unsigned To) {
      if (To != NoNode && !C.afterInPass(To, First, Header))
        return Expr::mkBool(false);
      return W.Runs && Ok(First, To);
    };
    // Strictly inside: every way through its pass passes it.
    Expr Mid = Ok(NoNode, NoNode) || Ran(NoNode);
    if (A != NoNode)
      Mid = Mid && JW.gt(JA);
    if (B != NoNode)
      Mid = Mid && JW.lt(JB);
    Cases.push_back(Mid);
    bool AfterA = A != NoNode && C.afterInPass(First, A, Header);
    if (A != NoNode && C.phaseSegment(A) == C.phaseSegment(P.Items[0]))
      Cases.push_back(
          JW.eq(JA) && (B == NoNode ? Expr::mkBool(true) : JW.lt(JB)) &&
          (Ok(A, NoNode) || (AfterA ? Ran(NoNode) : Expr::mkBool(false))));
    if (B != NoNode && C.phaseSegment(B) == C.phaseSegment(P.Items[0]))
      Cases.push_back(JW.eq(JB) &&
                      (A == NoNode ? Expr::mkBool(true) : JW.gt(JA)) &&
                      (Ok(NoNode, B) || Ran(B)));
    if (A != NoNode && B != NoNode &&
        C.phaseSegment(A) == C.phaseSegment(P.Items[0]) &&
        C.phaseSegment(B) == C.phaseSegment(P.Items[0]))
      Cases.push_back(JW.eq(JA) && JW.eq(JB) && Ok(A, B));
    return (P.Pro ? Expr::mkBool(true) : JW.ge(Expr::mkInt(0))) &&
           Expr::mkOr(Cases);
  }
  /// Like after(), for an access that may sit in an inner loop: only when
  /// the order in the pass is one way.
  Expr strictlyAfter(const Expr &JA, unsigned A, const Expr &JB, unsigned B) {
    Expr Later = JA.gt(JB);
    if (C.afterInPass(A, B, header()) && !C.afterInPass(B, A, header()))
      Later = Later || JA.eq(JB);
    return Later;
  }
  /// The routes from thread S's access SA to thread D's access DA (Items
  /// indices).
  Expr route(unsigned S, unsigned SA, unsigned D, unsigned DA);
  /// The thread whose arrivals count for thread 0's waits: the one
  /// arriving thread (count 1), at thread 0's iteration, or thread 0.
  unsigned arriver(std::vector<Expr> &Q, const Inst &W) {
    const std::vector<PhaseCount> &Cs = C.Phases.Counts;
    if (std::all_of(Cs.begin(), Cs.end(),
                    [](const PhaseCount &Cn) { return Cn.Whole; }))
      return 0;
    // A thread of those that arrive on W's barrier (for a barrier of the
    // block's size, any).
    unsigned R = ArriverThread;
    for (unsigned D = 0; D < 3; ++D) {
      Q.push_back(Enc.ctaid(R, D).eq(Enc.ctaid(0, D)));
      Q.push_back(Enc.idFacts(R, D));
    }
    for (const PhaseCount &Cn : Cs) {
      if (Cn.Whole || (C.Phases.Mapped ? false : &Cn != &Cs[0]))
        continue;
      Expr Is = C.Phases.Mapped ? isBarrier(W, Cn) : Expr::mkBool(true);
      for (unsigned D = 0; D < 3; ++D)
        Q.push_back(Is.implies(Enc.tid(R, D).eq(Expr::mkInt(Cn.Rep[D]))));
    }
    if (C.Phases.Loop != NoNode)
      Q.push_back(Enc.iter(R, C.Phases.Loop).eq(Enc.iter(0, C.Phases.Loop)));
    Q.push_back(C.uniformItersBefore(Enc, 0, R, {}, C.Phases.Loop));
    return R;
  }
  /// A thread of thread 0's CTA, not otherwise constrained.
  unsigned freeThread(std::vector<Expr> &Facts) {
    unsigned T = Next++;
    for (unsigned D = 0; D < 3; ++D) {
      Facts.push_back(Enc.ctaid(T, D).eq(Enc.ctaid(0, D)));
      Facts.push_back(Enc.idFacts(T, D));
    }
    Facts.push_back(C.uniformItersBefore(Enc, 0, T, {}, C.Phases.Loop));
    return T;
  }
  /// That wait instance G (of thread 0) does not show the phase of
  /// arrival instance A complete through its own barrier: no arrival at
  /// G's slot on G's barrier, or one by a thread that did not wait on A's
  /// barrier at A's slot or later before it (within Reach iterations).
  /// Existential: to be used once, under one negation.
  Expr notRelayed(const Inst &G, const Inst &A, int Reach);
  std::vector<Expr> finish(std::vector<Expr> Q) {
    Q.insert(Q.end(), Defs.begin(), Defs.end());
    const auto &Ly = C.Phases.Layout;
    for (size_t A = 0; A < Ly.size(); ++A)
      for (size_t B = A + 1; B < Ly.size(); ++B) {
        Expr VA = Enc.symbolVar(Frame{0, NoNode}, Ly[A].first),
             VB = Enc.symbolVar(Frame{0, NoNode}, Ly[B].first);
        Q.push_back((VA + Expr::mkInt(Ly[A].second)).le(VB) ||
                    (VB + Expr::mkInt(Ly[B].second)).le(VA));
      }
    return Q;
  }
};

bool Checker::phaseWaitSites(const std::vector<unsigned> &Waits) {
  std::vector<PhaseOp> &Ops = Phases.Ops;
  auto Fail = [&](unsigned Item, const std::string &What) {
    Phases.Why = fmt::format("{} at {}: {}",
                             ptx::printInstruction(F.inst(Item)),
                             whereText(Item), What);
    return false;
  };
  auto Add = [&](unsigned Item) -> PhaseOp & {
    PhaseOp P;
    P.K = PhaseOp::Wait;
    P.Items = {Item};
    Ops.push_back(P);
    return Ops.back();
  };
  // Wait sites: the waits on one barrier with one token or parity (nvcc
  // peels the first try of a spin loop).
  for (unsigned W : Waits) {
    const ptx::Instruction &I = F.inst(W);
    if (I.Ops.size() < 3)
      return Fail(W, "a wait without a token or parity operand");
    ExprId Obj = TV.operand(W, 1), Arg = TV.operand(W, 2);
    bool Parity = I.hasMod(".parity");
    PhaseOp *Site = nullptr;
    for (PhaseOp &P : Ops)
      if (P.K == PhaseOp::Wait && P.Obj == Obj &&
          (Parity ? P.Parity == Arg : P.Parity == NoExpr && P.Token >= 0 &&
                                          TV.operand(P.Items[0], 2) == Arg))
        Site = &P;
    if (!Site) {
      Site = &Add(W);
      Site->Obj = Obj;
      Site->Acquire = !I.hasMod(".relaxed");
      if (Parity) {
        Site->Parity = Arg;
      } else {
        for (unsigned A = 0; A < Ops.size(); ++A) {
          const PhaseOp &P = Ops[A];
          if (!P.regular() || F.inst(P.Items[0]).Ops[0].Name == "_")
            continue;
          unsigned R = TV.regOf(P.Items[0], F.inst(P.Items[0]).Ops[0].Name);
          if (R != NoNode && TV.defined(P.Items[0], R) == Arg)
            Site->Token = static_cast<int>(A);
        }
        if (Site->Token < 0)
          return Fail(W, "a wait on a token that no arrive of the kernel "
                         "returns as it is");
      }
    } else {
      Site->Items.push_back(W);
    }
    // Its success edges: taken only when this try succeeded.
    unsigned R = TV.regOf(W, I.Ops[0].Name);
    if (R == NoNode)
      return Fail(W, "a wait whose result is not a predicate register");
    ExprId Done = TV.defined(W, R);
    unsigned BW = F.blockOf(W);
    for (unsigned S : F.cfg().succs(BW)) {
      ExprId Edge = TV.edgeCond(BW, S);
      Solved Sv = solve([&](Encoder &Enc) {
        Frame F0{0, NoNode};
        return std::vector<Expr>{Enc.encode(F0, Edge), !Enc.encode(F0, Done)};
      });
      if (Sv.Res.isUnsat())
        Site->Success.emplace_back(BW, S);
    }
  }
  return true;
}

void Checker::buildPhases() {
  Phases.Built = true;
  auto Fail = [&](unsigned Item, const std::string &What) {
    Phases.Why = fmt::format("{} at {}: {}",
                             ptx::printInstruction(F.inst(Item)),
                             whereText(Item), What);
  };
  std::vector<PhaseOp> &Ops = Phases.Ops;
  std::vector<unsigned> Inits, Waits;
  auto Add = [&](PhaseOp::Kind K, unsigned Item) -> PhaseOp & {
    PhaseOp P;
    P.K = K;
    P.Items = {Item};
    Ops.push_back(P);
    return Ops.back();
  };
  auto Const = [&](unsigned Item, unsigned Idx) -> std::optional<int64_t> {
    if (Idx >= F.inst(Item).Ops.size())
      return std::nullopt;
    return Pool.asConst(TV.operand(Item, Idx));
  };
  for (unsigned Item : F.instructions()) {
    const ptx::Instruction &I = F.inst(Item);
    if (I.Op == ptx::Opcode::Mbarrier) {
      if (I.hasMod(".shared::cluster") && !isWaitInst(I))
        return Fail(Item, "an mbarrier that may be another CTA's (.shared::"
                          "cluster), which the analysis does not follow");
      if (I.hasMod(".init")) {
        Inits.push_back(Item);
      } else if (I.hasMod(".pending_count")) {
        continue;
      } else if (isWaitInst(I)) {
        Waits.push_back(Item);
      } else if (I.hasMod(".arrive") && !I.hasMod(".noComplete") &&
                 I.Ops.size() >= 2) {
        PhaseOp &P = Add(I.hasMod(".expect_tx") ? PhaseOp::TxArrive
                                                : PhaseOp::Arrive,
                         Item);
        P.Obj = TV.operand(Item, 1);
        P.Release = !I.hasMod(".relaxed");
        if (P.K == PhaseOp::TxArrive) {
          P.Bytes = Const(Item, 2).value_or(-1);
        } else if (I.Ops.size() > 2 && Const(Item, 2) != std::optional<int64_t>(1)) {
          return Fail(Item, "an arrival count that is not 1");
        }
      } else {
        return Fail(Item, "an mbarrier operation the analysis does not follow "
                          "(arrive_drop, expect_tx or complete_tx on its "
                          "own, inval)");
      }
      continue;
    }
    if (I.Op == ptx::Opcode::Fence && I.hasMod(".proxy") && I.hasMod(".async")) {
      bool Shared = true;
      for (const ptx::Modifier &M : I.Mods)
        if (auto S = ptx::addrSpaceOf(M.Text))
          Shared = *S == AddrSpace::Shared || *S == AddrSpace::SharedCluster;
      if (Shared)
        Add(PhaseOp::ProxyFence, Item);
      continue;
    }
    if (I.Op != ptx::Opcode::CpAsync)
      continue;
    bool Bulk = I.hasMod(".bulk");
    if (I.hasMod(".mbarrier") && I.hasMod(".arrive")) {
      PhaseOp &P = Add(PhaseOp::AsyncArrive, Item);
      P.Obj = TV.operand(Item, 0);
      P.NoInc = I.hasMod(".noinc");
    } else if (I.hasMod(".commit_group")) {
      Add(Bulk ? PhaseOp::BulkCommit : PhaseOp::Commit, Item);
    } else if (I.hasMod(".wait_group") || I.hasMod(".wait_all")) {
      PhaseOp &P = Add(Bulk ? PhaseOp::BulkWait : PhaseOp::GroupWait, Item);
      P.Read = I.hasMod(".read");
      P.Pending = -1; // wait_all: every copy before it
      if (I.hasMod(".wait_group")) {
        std::optional<int64_t> N = Const(Item, 0);
        if (!N)
          return Fail(Item, "a group count that is not a constant");
        P.Pending = *N;
      }
    } else if (ir::isAsyncCopy(I) && hasModPrefix(I, ".mbarrier::")) {
      PhaseOp &P = Add(PhaseOp::TxCopy, Item);
      P.Obj = TV.operand(Item, static_cast<unsigned>(lastAddress(I)));
      if (!I.hasMod(".tensor"))
        P.Bytes = Const(Item, 2).value_or(-1);
    }
  }
  for (const ir::Barrier &B : Bars)
    if (B.Kind == ir::BarrierKind::CTA && !countedBarrier(B.Item))
      Add(PhaseOp::CtaBarrier, B.Item);
  if (!phaseWaitSites(Waits))
    return;
  // The loop that holds them, and where each is.
  const auto &Loops = F.loops().loops();
  for (PhaseOp &P : Ops) {
    if (P.K == PhaseOp::Wait || P.K == PhaseOp::CtaBarrier ||
        P.K == PhaseOp::ProxyFence)
      continue;
    unsigned L = F.loops().loopFor(F.blockOf(P.Items[0]));
    unsigned Top = L;
    while (Top != NoNode && Loops[Top].Parent != NoNode)
      Top = Loops[Top].Parent;
    if (Top == NoNode)
      continue;
    if (Phases.Loop != NoNode && Phases.Loop != Top)
      return Fail(P.Items[0], "mbarrier operations or copy groups in more than "
                              "one loop, whose phases are not matched");
    if (L != Top)
      return Fail(P.Items[0], "an mbarrier operation or copy group in a "
                              "nested loop, whose phases are not matched");
    Phases.Loop = Top;
  }
  // Barriers and fences elsewhere are only routes the analysis does not
  // use; other ops there are not followed. (Token waits refer to Ops
  // indices: the order is kept.)
  std::vector<PhaseOp> Kept;
  std::vector<int> NewIndex(Ops.size(), -1);
  for (unsigned K = 0; K < Ops.size(); ++K) {
    PhaseOp &P = Ops[K];
    int Seg = phaseSegment(P.Items[0]);
    bool Route = P.K == PhaseOp::CtaBarrier || P.K == PhaseOp::ProxyFence;
    bool Nested = Seg == 1 && F.loops().loopFor(F.blockOf(P.Items[0])) != Phases.Loop;
    if (Route && (Seg == 2 || Nested))
      continue;
    if (Seg == 2)
      return Fail(P.Items[0], "an mbarrier operation or copy group after the "
                              "loop that holds the others, or in another loop");
    P.Pro = Seg == 0;
    NewIndex[K] = static_cast<int>(Kept.size());
    Kept.push_back(P);
  }
  for (PhaseOp &P : Kept)
    if (P.Token >= 0)
      P.Token = NewIndex[static_cast<unsigned>(P.Token)];
  Ops = std::move(Kept);
  for (const PhaseOp &P : Ops) {
    for (unsigned Item : P.Items)
      Phases.Exprs.push_back(TV.execCond(Item));
    if (P.Obj != NoExpr)
      Phases.Exprs.push_back(P.Obj);
    if (P.Parity != NoExpr)
      Phases.Exprs.push_back(P.Parity);
  }
  phaseLayout(Inits);
  if (Phases.Loop != NoNode) {
    Phases.Exprs.push_back(TV.loopEntryCond(Phases.Loop));
    Phases.Exprs.push_back(TV.backEdgeCond(Phases.Loop));
  }
  if (!phaseInits(Inits) || !phaseSearch())
    return;
  Phases.Ok = true;
}

void Checker::phaseLayout(const std::vector<unsigned> &Inits) {
  std::vector<ExprId> Objs;
  for (unsigned I : Inits)
    Objs.push_back(TV.operand(I, 0));
  for (const PhaseOp &P : Phases.Ops)
    if (P.Obj != NoExpr)
      Objs.push_back(P.Obj);
  auto Find = [&](const std::string &Name) -> const ptx::Variable * {
    for (const ptx::ModuleItem &It : M.Items)
      if (const auto *V = std::get_if<ptx::Variable>(&It); V && V->Name == Name)
        return V;
    for (const ptx::BodyItem &It : TV.function().function().Body)
      if (const auto *V = std::get_if<ptx::Variable>(&It); V && V->Name == Name)
        return V;
    return nullptr;
  };
  for (unsigned Y : Pool.symbolsOf(Objs)) {
    const ir::Symbol &S = Pool.symbol(Y);
    if (S.K != ir::SymKind::VarAddr)
      continue;
    const ptx::Variable *V = Find(S.Name);
    if (!V || V->Space != AddrSpace::Shared)
      continue;
    if (std::optional<int64_t> B = varBytes(*V))
      Phases.Layout.emplace_back(Y, *B);
  }
}

std::string Checker::phaseText(const PhaseOp &P) const {
  return fmt::format("{} at {}", ptx::printInstruction(F.inst(P.Items[0])),
                     whereText(P.Items[0]));
}

bool Checker::phaseProved(const Builder &B, std::string &Why,
                          const std::string &What) {
  Solved Sv = solve(B);
  if (Sv.Res.isUnsat())
    return true;
  Why = Sv.Res.isSat() ? What : What + " (" + gaveUp(Sv.Res) + ")";
  return false;
}

bool Checker::phaseInits(const std::vector<unsigned> &Inits) {
  bool Mbarriers = std::any_of(Phases.Ops.begin(), Phases.Ops.end(),
                               [](const PhaseOp &P) {
                                 return P.K != PhaseOp::CtaBarrier &&
                                        P.K != PhaseOp::ProxyFence &&
                                        P.K != PhaseOp::Commit &&
                                        P.K != PhaseOp::GroupWait &&
                                        P.K != PhaseOp::BulkCommit &&
                                        P.K != PhaseOp::BulkWait;
                               });
  if (!Mbarriers)
    return true;
  if (Inits.empty()) {
    Phases.Why = "mbarrier operations with no mbarrier.init in the kernel "
                 "(barriers initialised elsewhere are not followed)";
    return false;
  }
  auto Fail = [&](unsigned Item, const std::string &What) {
    Phases.Why = fmt::format("{} at {}: {}",
                             ptx::printInstruction(F.inst(Item)),
                             whereText(Item), What);
    return false;
  };
  std::vector<PhaseCount> &Counts = Phases.Counts;
  for (unsigned I : Inits) {
    if (F.loops().loopFor(F.blockOf(I)) != NoNode)
      return Fail(I, "an mbarrier.init in a loop (a barrier used again after "
                     "initialising it anew), which the analysis does not "
                     "follow");
    PhaseCount C;
    C.Item = I;
    C.Obj = TV.operand(I, 0);
    ExprId Count = TV.operand(I, 1);
    std::string W;
    C.Whole = phaseProved(
        [&](Encoder &Enc) {
          Expr Size = Enc.ntid(0) * Enc.ntid(1) * Enc.ntid(2);
          return std::vector<Expr>{
              Enc.encode(Frame{0, NoNode}, Count).ne(Size)};
        },
        W, "");
    std::optional<int64_t> N = Pool.asConst(Count);
    if (!C.Whole && (!N || *N < 1))
      return Fail(I, "a count that is neither a constant nor the block's "
                     "number of threads: which threads arrive in a phase is "
                     "not followed");
    if (!C.Whole)
      C.N = *N;
    for (const PhaseOp &P : Phases.Ops) {
      if (!P.arrival() && P.K != PhaseOp::Wait)
        continue;
      for (unsigned Item : P.Items) {
        bool Before = F.blockOf(I) == F.blockOf(Item)
                          ? I < Item
                          : forwardReaches(F.blockOf(I), F.blockOf(Item));
        if (!Before || Cta->mayShareInterval(I, Item))
          return Fail(I, fmt::format("no barrier of the block between it and "
                                     "{}, which may use the barrier before "
                                     "it is initialised",
                                     phaseText(P)));
      }
    }
    Counts.push_back(C);
  }
  bool AllWhole = std::all_of(Counts.begin(), Counts.end(),
                              [](const PhaseCount &C) { return C.Whole; });
  if (AllWhole)
    return true;
  // Counts that are not the block's size: the barriers are told apart by
  // their addresses (each the same in every thread, no two alike), every
  // arrival is on one of them, and its threads are found.
  for (size_t K = 0; K < Counts.size(); ++K) {
    const PhaseCount &C = Counts[K];
    std::string W;
    if (!phaseProved(
            [&](Encoder &Enc) {
              std::vector<Expr> Q = {
                  Enc.encode(Frame{0, NoNode}, C.Obj)
                      .ne(Enc.encode(Frame{1, NoNode}, C.Obj))};
              for (unsigned D = 0; D < 3; ++D)
                Q.push_back(Enc.ctaid(0, D).eq(Enc.ctaid(1, D)));
              return Q;
            },
            W, ""))
      return Fail(C.Item, "a barrier whose address differs between threads, "
                          "among barriers of different counts");
    for (size_t K2 = K + 1; K2 < Counts.size(); ++K2)
      if (!phaseProved(
              [&](Encoder &Enc) {
                PhaseCtx X(*this, Enc);
                Frame F0{0, NoNode};
                return X.finish(
                    {Enc.encode(F0, C.Obj).eq(Enc.encode(F0, Counts[K2].Obj))});
              },
              W, ""))
        return Fail(C.Item,
                    fmt::format("it and {} at {} may initialise one "
                                "barrier",
                                ptx::printInstruction(F.inst(Counts[K2].Item)),
                                whereText(Counts[K2].Item)));
  }
  for (const PhaseOp &P : Phases.Ops) {
    if (!P.arrival() && P.K != PhaseOp::Wait)
      continue;
    std::string W;
    if (!phaseProved(
            [&](Encoder &Enc) {
              PhaseCtx X(*this, Enc);
              PhaseCtx::Inst I = X.at(P, 0, false, 0);
              std::vector<Expr> Q = {I.Runs};
              for (const PhaseCount &C : Counts)
                Q.push_back(!X.isBarrier(I, C));
              return X.finish(Q);
            },
            W, ""))
      return Fail(P.Items[0], "an mbarrier operation on a barrier that no "
                              "mbarrier.init of the kernel is shown to "
                              "initialise, among barriers of different "
                              "counts");
  }
  for (PhaseCount &C : Counts)
    if (!C.Whole && !phaseArrivers(C, C.N))
      return false;
  for (const PhaseCount &C : Counts)
    Phases.Mapped |= !C.sameSet(Counts[0]);
  return true;
}

bool Checker::phaseArrivers(PhaseCount &C, int64_t N) {
  auto Fail = [&](const std::string &What) {
    Phases.Why =
        fmt::format("{} at {}: {}", ptx::printInstruction(F.inst(C.Item)),
                    whereText(C.Item), What);
    return false;
  };
  // A thread that arrives on the barrier, whose linear id satisfies Cond.
  auto Arrives = [&](const std::function<Expr(const Expr &)> &Cond,
                     int64_t *Lin, int64_t *Tid) {
    Solved Sv = solve([&](Encoder &Enc) {
      PhaseCtx X(*this, Enc);
      std::vector<Expr> Any;
      for (const PhaseOp &P : Phases.Ops)
        if (P.counted()) {
          PhaseCtx::Inst I = X.at(P, 0, false, 0);
          Any.push_back(I.Runs && X.isBarrier(I, C));
        }
      return X.finish({Expr::mkOr(Any), Cond(Enc.linearTid(0))});
    });
    if (Sv.Res.isSat() && Lin) {
      const smt::Model &M = Sv.Res.model();
      *Lin = M.evalInt(Sv.By->Enc.linearTid(0)).value_or(-1);
      for (unsigned D = 0; D < 3 && Tid; ++D)
        Tid[D] = M.evalInt(Sv.By->Enc.tid(0, D)).value_or(0);
    }
    return Sv.Res;
  };
  auto Below = [&](int64_t Lo, int64_t Hi) { // the least id in (Lo, Hi]
    int64_t Best = Hi;
    for (int Steps = 0; Best > Lo + 1 && Steps < 24; ++Steps) {
      int64_t Mid = Lo + (Best - Lo) / 2, Lin = -1;
      smt::Result R = Arrives(
          [&](const Expr &L) {
            return L.gt(Expr::mkInt(Lo)) && L.le(Expr::mkInt(Mid));
          },
          &Lin, nullptr);
      if (R.isSat() && Lin > Lo && Lin <= Mid)
        Best = Lin;
      else if (R.isUnsat())
        Lo = Mid;
      else
        return int64_t(-1);
    }
    return Best;
  };
  int64_t First = -1;
  smt::Result R0 =
      Arrives([](const Expr &) { return Expr::mkBool(true); }, &First, C.Rep);
  if (R0.isUnsat())
    return true; // no arrivals: no phase completes
  if (!R0.isSat() || First < 0)
    return Fail("the threads that arrive on it are not found");
  C.Lo = Below(-1, First);
  if (C.Lo < 0)
    return Fail("the threads that arrive on it are not found");
  if (C.Lo != First) {
    int64_t Lin = -1;
    Arrives([&](const Expr &L) { return L.eq(Expr::mkInt(C.Lo)); }, &Lin,
            C.Rep);
  }
  if (N > 1) {
    int64_t Next = -1;
    smt::Result R1 = Arrives(
        [&](const Expr &L) { return L.gt(Expr::mkInt(C.Lo)); }, &Next, nullptr);
    if (R1.isUnsat())
      return Fail(fmt::format("a count of {}, but only the thread of linear "
                              "id {} arrives on it",
                              N, C.Lo));
    if (!R1.isSat() || Next <= C.Lo || (Next = Below(C.Lo, Next)) < 0)
      return Fail("the threads that arrive on it are not found");
    C.Stride = Next - C.Lo;
  }
  int64_t Last = C.Lo + (N - 1) * C.Stride;
  auto In = [&](const Expr &L) {
    Expr E = L.ge(Expr::mkInt(C.Lo)) && L.le(Expr::mkInt(Last));
    if (C.Stride > 1)
      E = E &&
          (L - Expr::mkInt(C.Lo)).mod(Expr::mkInt(C.Stride)).eq(Expr::mkInt(0));
    return E;
  };
  int64_t Other = -1;
  smt::Result R2 =
      Arrives([&](const Expr &L) { return !In(L); }, &Other, nullptr);
  if (!R2.isUnsat())
    return Fail(fmt::format(
        "a count of {}, but more threads than the {} of linear ids {}{} may "
        "arrive on it{}",
        N, N, C.Lo,
        N == 1 ? std::string()
               : fmt::format(", {}, ..., {}", C.Lo + C.Stride, Last),
        R2.isSat() && Other >= 0 ? fmt::format(" (linear id {})", Other)
                                 : " (" + gaveUp(R2) + ")"));
  std::string W;
  if (!phaseProved(
          [&](Encoder &Enc) {
            Expr Size = Enc.ntid(0) * Enc.ntid(1) * Enc.ntid(2);
            return std::vector<Expr>{Size.le(Expr::mkInt(Last))};
          },
          W, ""))
    return Fail(fmt::format("a count of {}, but the block may have fewer "
                            "threads (linear id {} is needed)",
                            N, Last));
  return true;
}

bool Checker::phaseSearch() {
  std::vector<unsigned> Free;
  for (unsigned K = 0; K < Phases.Ops.size(); ++K) {
    const PhaseOp &P = Phases.Ops[K];
    if (P.regular() || P.K == PhaseOp::AsyncArrive ||
        (P.K == PhaseOp::Wait && P.Parity != NoExpr))
      Free.push_back(K);
  }
  if (Free.size() > 6) {
    Phases.Why = "more than 6 mbarrier arrivals and parity waits, whose "
                 "phases are not matched";
    return false;
  }
  size_t Total = 1;
  for (size_t K = 0; K < Free.size(); ++K)
    Total *= MaxPhaseOffset + 1;
  std::vector<std::vector<int>> Cands;
  for (size_t C = 0; C < Total; ++C) {
    std::vector<int> Off(Free.size());
    size_t V = C;
    for (size_t K = 0; K < Free.size(); ++K, V /= MaxPhaseOffset + 1)
      Off[K] = static_cast<int>(V % (MaxPhaseOffset + 1));
    Cands.push_back(Off);
  }
  std::stable_sort(Cands.begin(), Cands.end(),
                   [](const std::vector<int> &A, const std::vector<int> &B) {
                     return std::accumulate(A.begin(), A.end(), 0) <
                            std::accumulate(B.begin(), B.end(), 0);
                   });
  if (Cands.size() > 64)
    Cands.resize(64);
  // Offsets under which every parity wait finds an arrival on its barrier
  // at its slot first, then those where a wait may also find none there
  // nor at an earlier one (the phase before the first), then the others
  // (which may still hold: only the order changes).
  auto Matched = [&](const std::vector<int> &Off, bool Before) {
    for (size_t K = 0; K < Free.size(); ++K)
      Phases.Ops[Free[K]].Off = Off[K];
    for (const PhaseOp &W : Phases.Ops) {
      if (W.K != PhaseOp::Wait || W.Parity == NoExpr)
        continue;
      Solved Sv = solve([&](Encoder &Enc) {
        PhaseCtx X(*this, Enc);
        PhaseCtx::Inst Wi = X.at(W, 0, false, 0);
        std::vector<Expr> Q = {Wi.Runs};
        unsigned R = X.arriver(Q, Wi);
        std::vector<Expr> Earlier;
        for (const PhaseOp &A : Phases.Ops)
          if (A.counted()) {
            PhaseCtx::Inst Ai = X.atSlot(A, R, Wi, false, 0);
            Q.push_back(!(Ai.Runs && Ai.Extra && X.sameObj(Ai, Wi)));
            for (int D = A.Pro ? 0 : -MaxPhaseOffset - 1;
                 D <= (A.Pro ? 0 : MaxPhaseOffset); ++D) {
              PhaseCtx::Inst Bi = X.at(A, R, A.Pro, D);
              Earlier.push_back(Bi.Runs && X.sameObj(Bi, Wi) &&
                                Bi.Slot.lt(Wi.Slot));
            }
          }
        if (Before)
          Q.push_back(Expr::mkOr(Earlier));
        return X.finish(Q);
      });
      if (!Sv.Res.isUnsat())
        return false;
    }
    return true;
  };
  std::string First;
  std::vector<char> Tried(Cands.size(), 0);
  for (size_t N = 0; N < 3 * Cands.size(); ++N) {
    size_t Index = N % Cands.size(), Tier = N / Cands.size();
    const std::vector<int> &Off = Cands[Index];
    if (Tried[Index] || (Tier < 2 && !Matched(Off, Tier == 1)))
      continue;
    Tried[Index] = 1;
    for (size_t K = 0; K < Free.size(); ++K)
      Phases.Ops[Free[K]].Off = Off[K];
    // What follows from them: a token wait is at its arrive's slot, a
    // complete_tx copy at that of the expect_tx before it.
    for (PhaseOp &P : Phases.Ops) {
      if (P.K == PhaseOp::Wait && P.Token >= 0)
        P.Off = Phases.Ops[static_cast<unsigned>(P.Token)].Off;
      if (P.K != PhaseOp::TxCopy)
        continue;
      for (const PhaseOp &T : Phases.Ops)
        if (T.K == PhaseOp::TxArrive && T.Pro == P.Pro &&
            afterInPass(P.Items[0], T.Items[0],
                        Phases.Loop == NoNode
                            ? NoNode
                            : F.loops().loops()[Phases.Loop].Header))
          P.Off = T.Off;
    }
    std::string W;
    if (phaseObligations(W)) {
      Phases.MaxOff = 0;
      for (const PhaseOp &P : Phases.Ops)
        Phases.MaxOff = std::max(Phases.MaxOff, P.Off);
      return true;
    }
    if (First.empty())
      First = W;
  }
  Phases.Why = First;
  return false;
}

bool Checker::phaseObligations(std::string &Why) {
  using Inst = PhaseCtx::Inst;
  const std::vector<PhaseOp> &Ops = Phases.Ops;
  unsigned Header =
      Phases.Loop == NoNode ? NoNode : F.loops().loops()[Phases.Loop].Header;
  auto Prove = [&](const std::function<std::vector<Expr>(PhaseCtx &)> &B,
                   const std::string &What) {
    return phaseProved(
        [&](Encoder &Enc) {
          PhaseCtx X(*this, Enc);
          return X.finish(B(X));
        },
        Why, What);
  };
  // A token wait: after its arrive in one pass, on the same barrier.
  for (const PhaseOp &W : Ops) {
    if (W.K != PhaseOp::Wait || W.Token < 0)
      continue;
    const PhaseOp &A = Ops[static_cast<unsigned>(W.Token)];
    for (unsigned Item : W.Items)
      if (A.Pro != W.Pro || !afterInPass(Item, A.Items[0], Header)) {
        Why = fmt::format("{} waits on the token of {} in another pass",
                          phaseText(W), phaseText(A));
        return false;
      }
    if (!Prove(
            [&](PhaseCtx &X) {
              Frame F0{0, NoNode};
              return std::vector<Expr>{X.Enc.encode(F0, W.Obj).ne(
                  X.Enc.encode(F0, A.Obj))};
            },
            fmt::format("{} may wait on another barrier than {}'s",
                        phaseText(W), phaseText(A))))
      return false;
  }
  // An op of thread 0 with a partner of the same thread at its slot, on
  // its barrier, after it (or before it).
  auto Partnered = [&](const PhaseOp &P,
                       const std::function<bool(const PhaseOp &)> &Fits,
                       bool After, const std::string &What) {
    return Prove(
        [&](PhaseCtx &X) {
          Inst I = X.at(P, 0, false, 0);
          std::vector<Expr> Q = {I.Runs};
          for (const PhaseOp &B : Ops)
            if (Fits(B)) {
              Inst Bi = X.atSlot(B, 0, I, false, 0);
              Expr Order = After ? X.after(Bi.J, B.Items[0], I.J, P.Items[0])
                                 : X.after(I.J, P.Items[0], Bi.J, B.Items[0]);
              Q.push_back(!(Bi.Runs && Bi.Extra && X.sameObj(Bi, I) && Order));
            }
          return Q;
        },
        What);
  };
  // cp.async.mbarrier.arrive: its thread arrives at the same slot after it.
  for (const PhaseOp &AA : Ops)
    if (AA.K == PhaseOp::AsyncArrive && !AA.NoInc &&
        !Partnered(
            AA, [](const PhaseOp &B) { return B.regular(); }, true,
            fmt::format("no arrival of the same thread on the barrier "
                        "follows {} in its phase",
                        phaseText(AA))))
      return false;
  // A complete_tx copy: after its thread's expect_tx of at least its size
  // at its slot, and the only such copy of the thread there.
  for (const PhaseOp &C : Ops) {
    if (C.K != PhaseOp::TxCopy)
      continue;
    Phases.AssumedBox |= C.Bytes < 0;
    auto Covers = [&](const PhaseOp &T) {
      return T.K == PhaseOp::TxArrive && T.Bytes >= 0 &&
             (C.Bytes < 0 || T.Bytes >= C.Bytes);
    };
    if (!Partnered(C, Covers, false,
                   fmt::format("{} follows no expect_tx of its thread in its "
                               "phase that announces its bytes",
                               phaseText(C))))
      return false;
    for (const PhaseOp &C2 : Ops) {
      if (C2.K != PhaseOp::TxCopy || &C2 == &C)
        continue;
      if (!Prove(
              [&](PhaseCtx &X) {
                Inst I = X.at(C, 0, false, 0);
                Inst I2 = X.atSlot(C2, 0, I, false, 0);
                return std::vector<Expr>{I.Runs, I2.Runs, I2.Extra,
                                         X.sameObj(I, I2)};
              },
              fmt::format("{} and {} may count their bytes in one phase",
                          phaseText(C), phaseText(C2))))
        return false;
    }
  }
  for (const PhaseOp &A : Ops) {
    if (!A.counted())
      continue;
    if (!phaseEveryArriver(A, Why))
      return false;
    for (const PhaseOp &B : Ops) {
      if (!B.arrival())
        continue;
      // Increasing slots, and a wait between two arrivals.
      if (B.counted() &&
          !Prove(
              [&](PhaseCtx &X) {
                Inst I = X.at(A, 0, false, 0), Bi = X.anywhere(B, 0);
                return std::vector<Expr>{
                    I.Runs, Bi.Runs, X.sameObj(I, Bi),
                    X.after(Bi.J, B.Items[0], I.J, A.Items[0]),
                    Bi.Slot.le(I.Slot)};
              },
              fmt::format("{} and {} may arrive in one phase, or out of "
                          "order, in one thread",
                          phaseText(A), phaseText(B))))
        return false;
      // The waits of the next iteration first (most kernels), then of a
      // few.
      // A wait on the barrier, or on one whose arrivals at the wait's slot
      // all come after their threads' waits on this barrier (the other
      // side of a producer/consumer ring: its phase completing shows this
      // one complete).
      auto Waited = [&](int Reach, bool Relay) {
        return Prove(
              [&](PhaseCtx &X) {
                Inst I = X.at(A, 0, false, 0), Bi = X.anywhere(B, 0);
                std::vector<Expr> Q = {
                    I.Runs, Bi.Runs, X.sameObj(I, Bi),
                    X.after(Bi.J, B.Items[0], I.J, A.Items[0]),
                    Bi.Slot.gt(I.Slot)};
                for (const PhaseOp &G : Ops) {
                  if (G.K != PhaseOp::Wait)
                    continue;
                  // Instances after A's, and before B's.
                  int Last = G.Pro ? 0 : B.Pro ? Reach : 2 * Reach + 1;
                  for (int D = 0; D <= Last; ++D) {
                    Inst Gi = D <= Reach ? X.at(G, 0, A.Pro, A.Pro ? D + 1 : D)
                                         : X.at(G, Bi.T, false, Reach + 1 - D);
                    Expr Passed =
                        X.passed(Gi, I.J, A.Items[0], Bi.J, B.Items[0]);
                    Expr Own = X.sameObj(Gi, I) && Gi.Slot.ge(I.Slot);
                    Q.push_back(Relay ? !Passed ||
                                            (!Own && X.notRelayed(Gi, I, Reach))
                                      : !(Passed && Own));
                  }
                }
                return Q;
              },
              fmt::format("after {}, its thread may arrive again ({}) without "
                          "waiting for the phase",
                          phaseText(A), phaseText(B)));
      };
      if (!Waited(1, false) && !Waited(Window, false) && !Waited(1, true) &&
          !Waited(Window, true))
        return false;
    }
  }
  for (const PhaseOp &W : Ops)
    if (W.K == PhaseOp::Wait && W.Parity != NoExpr &&
        !phaseParity(W, 2, Why) && !phaseParity(W, Window, Why))
      return false;
  return true;
}

bool Checker::phaseEveryArriver(const PhaseOp &A, std::string &Why) {
  using Inst = PhaseCtx::Inst;
  const std::vector<PhaseOp> &Ops = Phases.Ops;
  // Every thread of those that arrive on the barrier (for the block's
  // size, every thread) arrives at each slot where one does.
  for (const PhaseCount &Cn : Phases.Counts) {
    if (!Cn.Whole && Cn.N == 1)
      continue; // its one thread
    if (!Phases.Mapped && &Cn != &Phases.Counts[0])
      break;
    if (!phaseProved(
            [&](Encoder &Enc) {
              PhaseCtx X(*this, Enc);
              Inst I = X.at(A, 0, false, 0);
              std::vector<Expr> Q = {I.Runs, X.arrives(1, Cn)};
              if (Phases.Mapped)
                Q.push_back(X.isBarrier(I, Cn));
              for (unsigned D = 0; D < 3; ++D)
                Q.push_back(X.Enc.ctaid(0, D).eq(X.Enc.ctaid(1, D)));
              if (Phases.Loop != NoNode)
                Q.push_back(
                    X.Enc.iter(1, Phases.Loop).eq(X.Enc.iter(0, Phases.Loop)));
              Q.push_back(uniformItersBefore(X.Enc, 0, 1, {}, Phases.Loop));
              for (const PhaseOp &B : Ops)
                if (B.counted()) {
                  Inst Bi = X.atSlot(B, 1, I, false, 0);
                  Q.push_back(!(Bi.Runs && Bi.Extra && X.sameObj(Bi, I)));
                }
              return X.finish(Q);
            },
            Why,
            Cn.Whole
                ? fmt::format("{} has no partner in every thread of the "
                              "block at its phase",
                              phaseText(A))
                : fmt::format("{} has no partner at its phase in every "
                              "thread of the {} that arrive on its barrier",
                              phaseText(A), Cn.N)))
      return false;
  }
  return true;
}

bool Checker::phaseParity(const PhaseOp &W, int Reach, std::string &Why) {
  using Inst = PhaseCtx::Inst;
  // The thread's latest parity wait on the barrier before this one (in the
  // last Reach iterations, or before the loop): at most one slot with
  // arrivals lies between the two, and the parity flips exactly when one
  // does. With none, a wait within the first Reach iterations has parity
  // 0 and no arrival before its slot.
  std::vector<const PhaseOp *> Sites;
  for (const PhaseOp &P : Phases.Ops)
    if (P.K == PhaseOp::Wait && P.Parity != NoExpr)
      Sites.push_back(&P);
  unsigned Header =
      Phases.Loop == NoNode ? NoNode : F.loops().loops()[Phases.Loop].Header;
  return phaseProved(
      [&](Encoder &Enc) {
        PhaseCtx X(*this, Enc);
        Inst Wi = X.at(W, 0, false, 0);
        std::vector<Expr> Q = {Wi.Runs};
        unsigned R = X.arriver(Q, Wi);
        // Earlier waits, latest first.
        struct Prev {
          Inst I;
          int D;
        };
        std::vector<Prev> Prevs;
        for (int D = 0; D >= -Reach; --D)
          for (const PhaseOp *C : Sites) {
            if (C->Pro || (D == 0 && C == &W))
              continue;
            Prevs.push_back({X.at(*C, 0, W.Pro, D), D});
          }
        for (const PhaseOp *C : Sites)
          if (C->Pro && C != &W)
            Prevs.push_back({X.at(*C, 0, true, 0), -Reach - 1});
        std::stable_sort(Prevs.begin(), Prevs.end(),
                         [&](const Prev &A, const Prev &B) {
                           if (A.D != B.D)
                             return A.D > B.D;
                           return afterInPass(A.I.P->Items[0],
                                              B.I.P->Items[0], Header);
                         });
        std::vector<Expr> Defined;
        for (const Prev &P : Prevs)
          Defined.push_back(X.passed(P.I, Expr::mkInt(-2), NoNode, Wi.J,
                                     W.Items[0]) &&
                            X.sameObj(P.I, Wi));
        // Arrivals on the barrier (by R) and their slots.
        std::vector<Inst> Arr;
        for (const PhaseOp &A : Phases.Ops) {
          if (!A.counted())
            continue;
          if (A.Pro) {
            Arr.push_back(X.at(A, R, true, 0));
            continue;
          }
          for (int D = -Reach - MaxPhaseOffset; D <= MaxPhaseOffset; ++D)
            Arr.push_back(X.at(A, R, W.Pro, W.Pro ? D + 1 : D));
        }
        // The slots with arrivals in (Lo, the wait's slot]: the phases
        // since the one the earlier wait waited for (a wait at a slot
        // with no arrivals waits for the latest phase before it).
        auto Used = [&](const Expr &Lo, bool HasLo) {
          std::vector<Expr> Terms = {Expr::mkInt(0)};
          for (const Inst &A : Arr) {
            Expr In = A.Runs && X.sameObj(A, Wi) && A.Slot.le(Wi.Slot);
            if (HasLo)
              In = In && A.Slot.gt(Lo);
            Terms.push_back(Expr::ite(In, Expr::mkInt(1), Expr::mkInt(0)));
          }
          return Expr::mkAdd(Terms);
        };
        Expr PW = Enc.encode(Frame{Wi.T, NoNode}, W.Parity);
        Expr Two = Expr::mkInt(2), Zero = Expr::mkInt(0), One = Expr::mkInt(1);
        std::vector<Expr> Bad;
        std::vector<Expr> Later;
        for (size_t K = 0; K < Prevs.size(); ++K) {
          const Inst &C = Prevs[K].I;
          Expr U = Used(C.Slot, true);
          Expr PC = Enc.encode(Frame{C.T, NoNode}, C.P->Parity);
          Expr Latest = Defined[K] && Expr::mkAnd(Later);
          Bad.push_back(Latest && (U.gt(One) || !(PW - PC - U).mod(Two).eq(Zero)));
          Later.push_back(!Defined[K]);
        }
        Expr Early = W.Pro ? Expr::mkBool(true)
                           : Wi.J.le(Expr::mkInt(Reach));
        // A first wait: on phase 0 (parity 0, one slot with arrivals up
        // to its own), or on the one before it, complete from the start
        // (parity 1, none).
        Expr First = Used(Zero, false);
        Bad.push_back(Expr::mkAnd(Later) &&
                      (!Early || First.gt(One) ||
                       !PW.mod(Two).eq(Expr::ite(First.eq(One), Zero, One))));
        Q.push_back(Expr::mkOr(Bad));
        return X.finish(Q);
      },
      Why,
      fmt::format("the parity of {} may not be that of its phase", phaseText(W)));
}

namespace {
bool proxyFence(const ptx::Instruction &I) {
  if (I.Op != ptx::Opcode::Fence || !I.hasMod(".proxy") || !I.hasMod(".async"))
    return false;
  for (const ptx::Modifier &M : I.Mods)
    if (auto S = ptx::addrSpaceOf(M.Text))
      return *S == ptx::AddrSpace::Shared || *S == ptx::AddrSpace::SharedCluster;
  return true;
}
} // namespace

Expr Checker::PhaseCtx::notRelayed(const Inst &G, const Inst &A, int Reach) {
  const std::vector<PhaseOp> &Ops = C.Phases.Ops;
  // The slot has arrivals on G's barrier when one of the threads that
  // arrive on it (every one of them does, once one does) arrives there.
  std::vector<Expr> RF;
  unsigned R = freeThread(RF);
  for (const PhaseCount &Cn : C.Phases.Counts)
    if (!Cn.Whole)
      for (unsigned D = 0; D < 3; ++D)
        RF.push_back(
            isBarrier(G, Cn).implies(Enc.tid(R, D).eq(Expr::mkInt(Cn.Rep[D]))));
  std::vector<Expr> None = RF, Early;
  unsigned U = freeThread(Early);
  std::vector<Expr> Any;
  for (const PhaseOp &X : Ops) {
    if (!X.counted())
      continue;
    Expr J = G.Slot + Expr::mkInt(X.Off);
    Inst Rx = atIter(X, R, J);
    None.push_back(!(Rx.Runs && sameObj(Rx, G) && Rx.Slot.eq(G.Slot)));
    Inst Ux = atIter(X, U, J);
    std::vector<Expr> Q = {Ux.Runs, sameObj(Ux, G), Ux.Slot.eq(G.Slot)};
    for (const PhaseOp &H : Ops) {
      if (H.K != PhaseOp::Wait)
        continue;
      for (int D = 0; D <= (H.Pro || X.Pro ? 0 : Reach); ++D) {
        Inst Hi = at(H, Ux.T, X.Pro, X.Pro ? 0 : -D);
        Q.push_back(!(passed(Hi, Expr::mkInt(-2), NoNode, Ux.J, X.Items[0]) &&
                      sameObj(Hi, A) && Hi.Slot.ge(A.Slot)));
      }
    }
    Any.push_back(Expr::mkAnd(Q));
  }
  Early.push_back(Expr::mkOr(Any));
  return Expr::mkAnd(None) || Expr::mkAnd(Early);
}

Expr Checker::PhaseCtx::route(unsigned S, unsigned SA, unsigned D,
                              unsigned DA) {
  const std::vector<PhaseOp> &Ops = C.Phases.Ops;
  unsigned SI = C.Items[SA].A.Item, DI = C.Items[DA].A.Item;
  bool SAbs = C.phaseSegment(SI) == 0, DAbs = C.phaseSegment(DI) == 0;
  Expr JS = iterAt(S, SAbs, 0), JD = iterAt(D, DAbs, 0);
  const ir::AsyncCopy *Cp = C.asyncOf(SA);
  bool SBulk = Cp && C.F.inst(SI).hasMod(".bulk");
  // A generic write before an access of the async proxy (a bulk copy)
  // needs a fence.proxy.async between them.
  bool NeedFence = !Cp && C.Items[SA].A.Writes && C.asyncOf(DA) &&
                   C.F.inst(DI).hasMod(".bulk");
  auto Fenced = [&](unsigned Rel, const std::vector<unsigned> &Acq) {
    if (!NeedFence)
      return true;
    auto Fence = [&](unsigned It) { return proxyFence(C.F.inst(It)); };
    if (C.allPathsPass(SI, Rel, Fence))
      return true;
    for (unsigned A : Acq)
      if (!C.allPathsPass(A, DI, Fence)) {
        C.PhaseFenceWhy = fmt::format(
            "no fence.proxy.async between the write at {} and the "
            "asynchronous copy at {}",
            C.whereText(SI), C.whereText(DI));
        return false;
      }
    return true;
  };
  struct Release {
    Inst I;
    Expr Cond;
  };
  std::vector<Release> Rels;
  // Releases of S after position (J0, Item0), or after an observed wait.
  auto ReleasesAfter = [&](const Expr &Cond,
                           const std::function<Expr(const Inst &)> &After) {
    for (const PhaseOp &P : Ops) {
      if (!(P.regular() && P.Release) && P.K != PhaseOp::CtaBarrier)
        continue;
      for (int K = 0; K <= (P.Pro ? 0 : Span); ++K) {
        Inst Pi = at(P, S, SAbs, SAbs ? K + 1 : K);
        Rels.push_back({Pi, Cond && Pi.Runs && After(Pi)});
      }
    }
  };
  if (!Cp) {
    ReleasesAfter(Expr::mkBool(true), [&](const Inst &Pi) {
      return strictlyAfter(Pi.J, Pi.P->Items[0], JS, SI);
    });
  } else {
    // The copy's completion: its own complete_tx, or its thread's next
    // cp.async.mbarrier.arrive.
    std::vector<Release> Done;
    for (const PhaseOp &P : Ops) {
      if (P.K == PhaseOp::TxCopy && P.Items[0] == SI) {
        Inst Pi = at(P, S, SAbs, 0);
        Done.push_back({Pi, Pi.Runs});
      }
      if (P.K == PhaseOp::AsyncArrive && !SBulk)
        for (int K = 0; K <= (P.Pro ? 0 : Span); ++K) {
          Inst Pi = at(P, S, SAbs, SAbs ? K + 1 : K);
          Done.push_back(
              {Pi, Pi.Runs && strictlyAfter(Pi.J, P.Items[0], JS, SI)});
        }
    }
    // Waits of S that observe it: a group wait with enough younger
    // groups, or a wait on the barrier at the completion's slot or later.
    struct Seen {
      Inst I;
      Expr Cond;
    };
    std::vector<Seen> Obs;
    bool Grouped = !SBulk || C.F.inst(SI).hasMod(".bulk_group");
    for (const PhaseOp &GW : Ops) {
      bool Kind = SBulk ? GW.K == PhaseOp::BulkWait : GW.K == PhaseOp::GroupWait;
      if (!Kind || !Grouped || (GW.Read && C.Items[SA].A.Writes))
        continue;
      for (int K = 0; K <= (GW.Pro ? 0 : Span); ++K) {
        Inst Wi = at(GW, S, SAbs, SAbs ? K + 1 : K);
        Expr Cond = Wi.Runs && strictlyAfter(Wi.J, GW.Items[0], JS, SI);
        if (GW.Pending >= 0) {
          std::vector<Expr> Terms = {Expr::mkInt(0)};
          for (const PhaseOp &Cm : Ops) {
            if (Cm.K != (SBulk ? PhaseOp::BulkCommit : PhaseOp::Commit))
              continue;
            for (int K2 = 0; K2 <= (Cm.Pro ? 0 : K); ++K2) {
              Inst Ci = at(Cm, S, SAbs, SAbs ? K2 + 1 : K2);
              Expr Between = Ci.Runs && after(Ci.J, Cm.Items[0], JS, SI) &&
                             after(Wi.J, GW.Items[0], Ci.J, Cm.Items[0]);
              Terms.push_back(
                  Expr::ite(Between, Expr::mkInt(1), Expr::mkInt(0)));
            }
          }
          Cond = Cond && Expr::mkAdd(Terms).ge(Expr::mkInt(GW.Pending + 1));
        }
        Obs.push_back({Wi, Cond});
      }
    }
    for (const Release &R : Done)
      for (const PhaseOp &G : Ops) {
        if (!Deep)
          break;
        if (G.K != PhaseOp::Wait)
          continue;
        for (int K = 0; K <= (G.Pro ? 0 : Span); ++K) {
          Inst Gi = at(G, S, SAbs, SAbs ? K + 1 : K);
          Obs.push_back({Gi, R.Cond && passed(Gi, JS, SI, JS, NoNode) &&
                                 sameObj(Gi, R.I) && Gi.Slot.ge(R.I.Slot)});
        }
      }
    Rels = Done;
    for (const Seen &O : Obs)
      ReleasesAfter(O.Cond, [&](const Inst &Pi) {
        unsigned It = Pi.P->Items[0];
        bool Same = O.I.P->K == PhaseOp::Wait
                        ? C.waitPassed(*O.I.P, NoNode, It)
                        : C.afterInPass(It, O.I.P->Items[0], header());
        return Same ? Pi.J.ge(O.I.J) : Pi.J.gt(O.I.J);
      });
  }
  // Acquires of D before DA that match each release.
  std::vector<Expr> Routes;
  unsigned Header = header();
  for (const Release &R : Rels) {
    const PhaseOp &P = *R.I.P;
    if (P.K == PhaseOp::CtaBarrier) {
      if (!Fenced(P.Items[0], {P.Items[0]}))
        continue;
      bool Same = C.afterInPass(DI, P.Items[0], Header) &&
                  !C.afterInPass(P.Items[0], DI, Header) &&
                  C.phaseSegment(DI) == C.phaseSegment(P.Items[0]);
      Expr Past = JD.gt(R.I.J);
      if (Same)
        Past = Past || JD.eq(R.I.J);
      Routes.push_back(R.Cond && Past);
      continue;
    }
    for (const PhaseOp &G : Ops) {
      if (G.K != PhaseOp::Wait || !G.Acquire)
        continue;
      if (!Fenced(P.Items[0], G.Items))
        continue;
      for (int K = 0; K >= (G.Pro ? 0 : -Span); --K) {
        Inst Gi = at(G, D, DAbs, DAbs ? K + 1 : K);
        Routes.push_back(R.Cond &&
                         passed(Gi, Expr::mkInt(-2), NoNode, JD, DI) &&
                         sameObj(Gi, R.I) && Gi.Slot.ge(R.I.Slot));
      }
    }
  }
  return Expr::mkOr(Routes);
}

Expr Checker::phaseUnordered(Encoder &Enc, unsigned I, unsigned J) {
  PhaseCtx X(*this, Enc);
  X.Span = PhaseSpan;
  X.Deep = PhaseSpan >= Window;
  unsigned XI = Items[I].A.Item, YI = Items[J].A.Item;
  if (phaseSegment(XI) == 2 || phaseSegment(YI) == 2)
    return Expr::mkBool(true); // not followed: no route proved
  std::vector<Expr> Q = {!X.route(0, I, 1, J), !X.route(1, J, 0, I),
                         uniformItersBefore(Enc, 0, 1, {XI, YI}, Phases.Loop)};
  return Expr::mkAnd(X.finish(Q));
}

Checker::Outcome Checker::phaseQuery(unsigned I, unsigned J, Relation Rel,
                                     bool AnyWarp, bool WithAddress,
                                     const Outcome &Before) {
  if (Rel == Relation::OtherBlocks || !phased())
    return Before;
  if (!Phases.Built)
    buildPhases();
  Outcome Out = Before;
  Out.V = Verdict::Unknown;
  Out.W.reset();
  bool Copy = asyncOf(I) || asyncOf(J);
  std::string Lead =
      Copy ? Before.Reason
           : "an mbarrier wait may order the pair, which barriers alone do not";
  if (!Phases.Ok) {
    Out.Reason = Lead + "; the mbarrier phases are not followed: " + Phases.Why;
    return Out;
  }
  PhaseMode = true;
  PhaseFenceWhy.clear();
  // Routes of the next iteration first (most pairs), then of a few.
  PhaseSpan = 1;
  Outcome Oc = query(I, J, Rel, AnyWarp, WithAddress, true);
  if (Oc.V != Verdict::Safe) {
    PhaseSpan = Window;
    Oc = query(I, J, Rel, AnyWarp, WithAddress, true);
  }
  PhaseMode = false;
  if (Oc.V == Verdict::Safe) {
    Oc.Reason = "ordered by mbarrier phases, copy groups and barriers (a "
                "release after one access, completed before an acquire that "
                "comes before the other)";
    if (Phases.AssumedBox)
      Oc.Reason += ", assuming each tensor copy's box has the bytes its "
                   "expect_tx announces";
    return Oc;
  }
  if (Oc.V == Verdict::Unknown && Oc.Reason.find("time limit") != std::string::npos) {
    Out.Reason = Oc.Reason;
    return Out;
  }
  Out.Reason = Lead + fmt::format("; no mbarrier phase, copy group or barrier "
                                  "within {} iterations of the two accesses "
                                  "orders them",
                                  Window);
  if (!PhaseFenceWhy.empty())
    Out.Reason += " (" + PhaseFenceWhy + ")";
  return Out;
}

void Checker::phaseRefine(std::vector<Outcome> &Outs, unsigned I, unsigned J,
                          bool WithAddress) {
  if (asyncOf(I) || asyncOf(J) || !phased())
    return;
  for (Outcome &Oc : Outs) {
    if (Oc.V != Verdict::Race || Oc.Rel == Relation::OtherBlocks)
      continue;
    if (!Phases.Built)
      buildPhases();
    std::vector<ir::Barrier> With = Bars;
    for (const PhaseOp &P : Phases.Ops)
      for (unsigned W : P.Items)
        if (P.K == PhaseOp::Wait) {
          ir::Barrier B;
          B.Item = W;
          With.push_back(B);
        }
    if (With.size() == Bars.size())
      return; // no mbarrier waits
    if (!WaitIntervals) {
      std::sort(With.begin(), With.end(),
                [](const ir::Barrier &A, const ir::Barrier &B) {
                  return A.Item < B.Item;
                });
      WaitIntervals =
          std::make_unique<ir::BarrierIntervals>(F, With, ir::PairScope::CTA);
    }
    IntervalsOverride = WaitIntervals.get();
    Outcome Again = query(I, J, Relation::SameBlock, true, WithAddress);
    IntervalsOverride = nullptr;
    if (Again.V == Verdict::Race)
      continue; // no wait between: a race whatever the phases
    Oc = phaseQuery(I, J, Relation::SameBlock, true, WithAddress, Oc);
  }
}

} // namespace incant::race
