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
//===----------------------------------------------------------------------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>

namespace incant::race {

const ir::AsyncCopy *Checker::asyncOf(unsigned Index) const {
  if (Items[Index].Call)
    return nullptr;
  for (const ir::AsyncCopy &C : Asyncs)
    if (C.Item == Items[Index].A.Item)
      return &C;
  return nullptr;
}

Checker::Outcome Checker::pairQuery(unsigned I, unsigned J, Relation Rel,
                                    bool AnyWarp, bool WithAddress) {
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
