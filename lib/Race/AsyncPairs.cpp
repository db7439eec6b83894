//===- AsyncPairs.cpp - Pairs with an asynchronous copy -------------------===//
//
// An asynchronous copy (ir::asyncCopies) reads and writes at some time
// between its issue and its completion. Barrier intervals place an access
// at its instruction, so for such a copy they order the issue only: a read
// of the destination after a __syncthreads() that follows the issue may
// still race with the copy. A pair that the intervals would call safe is
// therefore asked again without them; if the two accesses can then meet,
// the pair is asked with the routes of mbarrier phases, copy groups and
// barriers (Mbarriers.cpp): safe when one orders them, else unknown,
// naming the copy and what completes it, never safe. A pair that the
// intervals call a race is one only if it stays one with the copy's waits
// (mbarrier.try_wait, cp.async.wait_group, ...) taken as barriers too:
// the other thread then reaches its access with no wait since the issue.
//
// A cp.async copy is complete once its thread has passed cp.async.wait_all,
// or cp.async.wait_group N when N groups younger than the copy's are
// committed (commit_group after the copy, counted per path): a barrier that
// every path from the issue reaches only after such a wait orders the copy
// before what the other threads do after it, and a barrier that no path
// from the issue reaches orders what comes before the issue. With only
// those barriers, a pair the intervals call safe is safe; otherwise the
// rules above decide. A barrier
// repair assumes with cp.async.wait_all before it (BarrierKind::CopyWait)
// completes the copy too.
//
//===----------------------------------------------------------------------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

namespace incant::race {

const ir::AsyncCopy *Checker::asyncOf(unsigned Index) const {
  if (Items[Index].Call)
    return nullptr;
  for (const ir::AsyncCopy &C : Asyncs)
    if (C.Item == Items[Index].A.Item)
      return &C;
  return nullptr;
}

const ir::AsyncCopy *Checker::groupCopyOf(unsigned Index) const {
  if (Items[Index].Call)
    return nullptr;
  for (const ir::AsyncCopy &C : Asyncs)
    if (C.Item == Items[Index].A.Item &&
        (C.How == ir::AsyncCompletion::Group ||
         C.How == ir::AsyncCompletion::WorkGroup))
      return &C;
  return nullptr;
}

//===-- OpenCL C's work-group copies and their events ---------------------===//

ExprId Checker::copyEvent(const ir::AsyncCopy &C) {
  if (!EventsRead) {
    EventsRead = true;
    // In body order: a copy given the event 0 makes a new one (its
    // result); one given another copy's event joins it and returns it.
    for (const ir::AsyncCopy &D : Asyncs) {
      if (D.How != ir::AsyncCompletion::WorkGroup)
        continue;
      std::optional<ir::WorkGroupCopyCall> Call =
          ir::workGroupCopyCall(ir::calleeOf(F.inst(D.Item)));
      ExprId Given = TV.callArgument(D.Item, Call->EventArg);
      ExprId Result = TV.callResult(D.Item);
      ExprId Ev = NoExpr;
      if (std::optional<int64_t> K =
              Given == NoExpr ? std::nullopt : Pool.asConst(Given);
          K && *K == 0)
        Ev = Result;
      else if (auto It = EventOf.find(Given); It != EventOf.end())
        Ev = It->second;
      CopyEvents[D.Item] = Ev;
      if (Ev != NoExpr && Result != NoExpr)
        EventOf[Result] = Ev;
    }
  }
  auto It = CopyEvents.find(C.Item);
  return It == CopyEvents.end() ? NoExpr : It->second;
}

namespace {

/// The one variable or parameter an affine address is based on (a term
/// of coefficient 1 that is the symbol alone), or none.
std::optional<ir::ExprId> baseOf(const ir::ExprPool &P, const ir::AffineForm &A) {
  std::optional<ir::ExprId> Base;
  for (const auto &[Prod, Coeff] : A.Terms) {
    const ir::Symbol *S = Prod.size() == 1 ? P.asSymbol(Prod[0]) : nullptr;
    if (S && Coeff == 1 &&
        (S->K == ir::SymKind::VarAddr || S->K == ir::SymKind::Param)) {
      if (Base)
        return std::nullopt;
      Base = Prod[0];
    }
  }
  return Base;
}

} // namespace

bool Checker::elsewhere(const ir::AffineForm &A, const ir::AffineForm &L) const {
  std::optional<ir::ExprId> BA = baseOf(Pool, A), BL = baseOf(Pool, L);
  return BA && BL && *BA != *BL;
}

std::optional<std::vector<ExprId>> Checker::waitedEvents(unsigned W) {
  ExprId N = TV.callArgument(W, 0), List = TV.callArgument(W, 1);
  std::optional<int64_t> Count = N == NoExpr ? std::nullopt : Pool.asConst(N);
  if (!Count || *Count < 0 || *Count > 64 || List == NoExpr)
    return std::nullopt;
  ir::AffineForm L = Pool.affine(List);
  std::vector<ExprId> Out;
  for (int64_t J = 0; J < *Count; ++J) {
    // The store that writes the slot list[J] last before the wait: it
    // comes before the wait on every path, and each other store of the
    // slot comes before it (and not again) or cannot reach the wait. A
    // store that may write the slot at another offset, or an address that
    // is not the list's plus a constant, leaves it unknown.
    std::vector<unsigned> Stores;
    for (unsigned S : F.instructions()) {
      const ptx::Instruction &I = F.inst(S);
      if (I.Op != ptx::Opcode::St || (I.ASpace != AddrSpace::Local &&
                                      I.ASpace != AddrSpace::Generic))
        continue;
      ir::AffineForm A = Pool.affine(TV.operand(S, 0));
      if (A.Terms != L.Terms) {
        if (elsewhere(A, L))
          continue; // another variable or a pointer parameter
        return std::nullopt;
      }
      int64_t D = A.Const - L.Const - 8 * J;
      unsigned Bytes = ir::accessBytes(I);
      if (D == 0 && Bytes == 8 && !I.G)
        Stores.push_back(S);
      else if (D < 8 && D + int64_t(Bytes) > 0)
        return std::nullopt;
    }
    unsigned Last = NoNode;
    for (unsigned S : Stores)
      if (F.dominates(S, W) && (Last == NoNode || F.dominates(Last, S)))
        Last = S;
    if (Last == NoNode)
      return std::nullopt;
    for (unsigned S : Stores)
      if (S != Last && !(F.dominates(S, Last) && !reaches(Last, S)) &&
          reaches(S, W))
        return std::nullopt;
    Out.push_back(TV.operand(Last, 1));
  }
  return Out;
}

std::optional<bool> Checker::waitCompletes(const ir::AsyncCopy &C,
                                           unsigned W) {
  ExprId Ev = copyEvent(C);
  std::optional<std::vector<ExprId>> Named = waitedEvents(W);
  if (Ev != NoExpr && Named &&
      std::any_of(Named->begin(), Named->end(), [&](ExprId N) {
        auto It = EventOf.find(N);
        return It != EventOf.end() && It->second == Ev;
      }))
    return true;
  if (Ev == NoExpr || !Named)
    return std::nullopt;
  return false;
}

bool Checker::eventsKnown(const ir::AsyncCopy &C) {
  for (unsigned W : C.Waits)
    if (!waitCompletes(C, W))
      return false;
  return true;
}

namespace {

bool groupInstruction(const ptx::Instruction &I, const char *Mod) {
  return I.Op == ptx::Opcode::CpAsync && !I.hasMod(".bulk") && I.hasMod(Mod);
}

/// Commits counted after a copy (more make no difference to a wait).
constexpr unsigned MaxCommits = 8;

/// Whether \p I completes a cp.async copy after which its thread has
/// committed \p Commits groups (the first holds the copy): wait_all does,
/// and wait_group N once N groups younger than the copy's are committed.
bool completesGroup(const ptx::Instruction &I, unsigned Commits) {
  if (groupInstruction(I, ".wait_all"))
    return true;
  if (!groupInstruction(I, ".wait_group"))
    return false;
  for (const ptx::Operand &O : I.Ops)
    if (O.K == ptx::Operand::Imm)
      return O.Value >= 0 && O.Value + 1 < MaxCommits &&
             Commits >= unsigned(O.Value) + 1;
  return false;
}

/// Follows every path from the instruction after \p Start: \p Visit gets
/// each instruction and the path's state, and gives the state after it,
/// or none where the path ends.
template <class State, class VisitFn>
void walkFrom(const ir::FunctionIR &F, unsigned Start, State S0,
              VisitFn Visit) {
  std::set<std::pair<unsigned, State>> Seen;
  std::vector<std::tuple<unsigned, size_t, State>> Work;
  const std::vector<unsigned> &First = F.blocks()[F.blockOf(Start)].Insts;
  size_t At = std::find(First.begin(), First.end(), Start) - First.begin();
  Work.emplace_back(F.blockOf(Start), At + 1, S0);
  while (!Work.empty()) {
    auto [B, Pos, S] = Work.back();
    Work.pop_back();
    const std::vector<unsigned> &Insts = F.blocks()[B].Insts;
    bool Alive = true;
    for (size_t K = Pos; K < Insts.size() && Alive; ++K) {
      std::optional<State> Next = Visit(Insts[K], S);
      Alive = Next.has_value();
      S = Next.value_or(S);
    }
    if (Alive)
      for (unsigned Succ : F.cfg().succs(B))
        if (Seen.insert({Succ, S}).second)
          Work.emplace_back(Succ, 0, S);
  }
}

} // namespace

std::set<std::pair<unsigned, bool>>
Checker::inFlightBarriers(const ir::AsyncCopy &C) {
  // Barriers by (item, assumed): an assumed one goes before its item.
  auto BarrierAt = [&](unsigned Item, bool Assumed) {
    for (const ir::Barrier &B : Bars)
      if (B.Item == Item && B.Assumed == Assumed)
        return &B;
    return static_cast<const ir::Barrier *>(nullptr);
  };
  bool WorkGroup = C.How == ir::AsyncCompletion::WorkGroup;
  // The barriers some path from the issue reaches before a completing wait.
  std::set<std::pair<unsigned, bool>> Drop;
  walkFrom(F, C.Item, 0u, [&](unsigned Item, unsigned Commits) -> std::optional<unsigned> {
    if (const ir::Barrier *B = BarrierAt(Item, true)) {
      if (B->Kind == ir::BarrierKind::CopyWait && !WorkGroup)
        return std::nullopt;
      Drop.insert({Item, true});
    }
    const ptx::Instruction &I = F.inst(Item);
    if (WorkGroup ? waitCompletes(C, Item) == std::optional<bool>(true)
                  : completesGroup(I, Commits))
      return std::nullopt;
    if (BarrierAt(Item, false))
      Drop.insert({Item, false});
    return groupInstruction(I, ".commit_group")
               ? std::min(Commits + 1, MaxCommits)
               : Commits;
  });
  return Drop;
}

const ir::BarrierIntervals &
Checker::copyIntervals(const std::vector<const ir::AsyncCopy *> &Cs,
                       ir::PairScope Scope) {
  std::vector<unsigned> Key;
  for (const ir::AsyncCopy *C : Cs)
    Key.push_back(C->Item);
  auto &BI = CopyIntervals[{Key, Scope}];
  if (BI)
    return *BI;
  std::set<std::pair<unsigned, bool>> Drop;
  for (const ir::AsyncCopy *C : Cs) {
    std::set<std::pair<unsigned, bool>> One = inFlightBarriers(*C);
    Drop.insert(One.begin(), One.end());
  }
  std::vector<ir::Barrier> With;
  for (const ir::Barrier &B : Bars)
    if (!Drop.count({B.Item, B.Assumed}))
      With.push_back(B);
  BI = std::make_unique<ir::BarrierIntervals>(F, With, Scope);
  return *BI;
}

Checker::Outcome
Checker::groupPairQuery(const std::vector<const ir::AsyncCopy *> &Cs,
                        unsigned I, unsigned J, Relation Rel, bool AnyWarp,
                        bool WithAddress) {
  ir::PairScope Scope = AnyWarp || Rel == Relation::SameBlock
                            ? ir::PairScope::CTA
                        : Rel == Relation::SameWarp ? ir::PairScope::Warp
                                                    : ir::PairScope::Grid;
  IntervalsOverride = &copyIntervals(Cs, Scope);
  Outcome Oc = query(I, J, Rel, AnyWarp, WithAddress);
  IntervalsOverride = nullptr;
  return Oc;
}

Checker::Outcome Checker::workGroupPairQuery(const ir::AsyncCopy *CI,
                                             const ir::AsyncCopy *CJ,
                                             unsigned I, unsigned J,
                                             Relation Rel, bool AnyWarp,
                                             bool WithAddress) {
  std::vector<const ir::AsyncCopy *> Cs;
  for (const ir::AsyncCopy *C : {CI, CJ})
    if (C && std::find(Cs.begin(), Cs.end(), C) == Cs.end())
      Cs.push_back(C);
  // Each copy in flight from its issue to the wait that names its event:
  // the barriers on the way do not order it.
  Outcome Oc = groupPairQuery(Cs, I, J, Rel, AnyWarp, WithAddress);
  if (Oc.V != Verdict::Race)
    return Oc;
  for (const ir::AsyncCopy *C : Cs)
    if (!eventsKnown(*C)) {
      Oc.V = Verdict::Unknown;
      Oc.W.reset();
      Oc.Reason = fmt::format(
          "the work-group copy at {} completes on {}, and which events "
          "that wait names is not known",
          whereText(C->Item), ir::asyncCompletionText(F, *C));
      break;
    }
  return Oc;
}

Checker::Outcome Checker::pairQuery(unsigned I, unsigned J, Relation Rel,
                                    bool AnyWarp, bool WithAddress) {
  // OpenCL C's work-group copies: in flight until a wait names them.
  const ir::AsyncCopy *WI = groupCopyOf(I), *WJ = groupCopyOf(J);
  auto WorkGroup = [](const ir::AsyncCopy *C) {
    return C && C->How == ir::AsyncCompletion::WorkGroup;
  };
  if ((WorkGroup(WI) || WorkGroup(WJ)) && (!asyncOf(I) || WorkGroup(WI)) &&
      (!asyncOf(J) || WorkGroup(WJ)))
    return workGroupPairQuery(WorkGroup(WI) ? WI : nullptr,
                              WorkGroup(WJ) ? WJ : nullptr, I, J, Rel,
                              AnyWarp, WithAddress);
  // One access a cp.async copy that its group completes (two copies: as
  // below): safe where the completing barriers order the pair.
  const ir::AsyncCopy *G = asyncOf(J) ? nullptr : groupCopyOf(I);
  if (!G && !asyncOf(I))
    G = groupCopyOf(J);
  if (G)
    if (Outcome Done = groupPairQuery({G}, I, J, Rel, AnyWarp, WithAddress);
        Done.V == Verdict::Safe)
      return Done;
  Outcome Oc = query(I, J, Rel, AnyWarp, WithAddress);
  const ir::AsyncCopy *C = asyncOf(I);
  if (!C)
    C = asyncOf(J);
  if (!C || Oc.V == Verdict::Unknown)
    return Oc;
  std::string Why = fmt::format(
      "the asynchronous copy at {} completes on {}: a barrier after its "
      "issue does not order the copy",
      whereText(C->Item), ir::asyncCompletionText(F, *C));
  if (Oc.V == Verdict::Race) {
    // Both in one interval of the issue: a race unless one of the copy's
    // waits comes between, so ask again with them as barriers too.
    if (C->Waits.empty())
      return Oc;
    ir::PairScope Scope = AnyWarp || Rel == Relation::SameBlock
                              ? ir::PairScope::CTA
                          : Rel == Relation::SameWarp ? ir::PairScope::Warp
                                                      : ir::PairScope::Grid;
    unsigned Index = static_cast<unsigned>(C - Asyncs.data());
    auto &BI = AsyncIntervals[{Index, Scope}];
    if (!BI) {
      std::vector<ir::Barrier> With = Bars;
      for (unsigned W : C->Waits) {
        ir::Barrier B;
        B.Item = W;
        B.Kind = ir::BarrierKind::CTA;
        With.push_back(B);
      }
      std::sort(With.begin(), With.end(),
                [](const ir::Barrier &A, const ir::Barrier &B) {
                  return A.Item < B.Item;
                });
      BI = std::make_unique<ir::BarrierIntervals>(F, With, Scope);
    }
    IntervalsOverride = BI.get();
    Outcome Again = query(I, J, Rel, AnyWarp, WithAddress);
    IntervalsOverride = nullptr;
    if (Again.V == Verdict::Race)
      return Again;
    Oc.V = Verdict::Unknown;
    Oc.W.reset();
    Oc.Reason = Why;
    return phaseQuery(I, J, Rel, AnyWarp, WithAddress, Oc);
  }
  Outcome Free = query(I, J, Rel, AnyWarp, WithAddress, true);
  if (Free.V == Verdict::Safe)
    return Oc;
  Free.V = Verdict::Unknown;
  Free.W.reset();
  Free.Reason = Why;
  return phaseQuery(I, J, Rel, AnyWarp, WithAddress, Free);
}

} // namespace incant::race
