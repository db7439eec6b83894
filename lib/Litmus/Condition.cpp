//===- Condition.cpp - Evaluating a litmus test's final condition ---------===//
#include "incant/Litmus/Condition.h"

#include <algorithm>
#include <cassert>

namespace incant::litmus {

unsigned termWidth(const Program &P, const Term &T) {
  switch (T.K) {
  case Term::Kind::Const:
    return 0;
  case Term::Kind::Reg:
    return P.Threads[size_t(T.Thread)].Regs[size_t(T.Index)].Bits;
  case Term::Kind::Loc:
    return P.Locs[size_t(T.Index)].Bits;
  }
  return 0;
}

bool equalAt(const Value &A, const Value &B, unsigned Bits) {
  if (A.isAddress() || B.isAddress())
    return A == B;
  if (Bits == 0 || Bits >= 64)
    return A.Int == B.Int;
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  return (uint64_t(A.Int) & Mask) == (uint64_t(B.Int) & Mask);
}

namespace {

/// The final value of a register or location term, or the constant.
const Value &valueOf(const Program &P, const Term &T,
                     std::span<const Value> Observed) {
  if (T.K == Term::Kind::Const)
    return T.V;
  int32_t Thread = T.K == Term::Kind::Reg ? T.Thread : -1;
  for (size_t I = 0; I != P.Observe.size() && I != Observed.size(); ++I)
    if (P.Observe[I].Thread == Thread && P.Observe[I].Index == T.Index)
      return Observed[I];
  assert(false && "the condition names something that is not observed");
  static const Value None;
  return None;
}

} // namespace

bool holds(const Program &P, const Cond &C, std::span<const Value> Observed) {
  switch (C.K) {
  case Cond::True:
    return true;
  case Cond::False:
    return false;
  case Cond::Eq: {
    unsigned WA = termWidth(P, C.Lhs), WB = termWidth(P, C.Rhs);
    unsigned W = WA == 0 ? WB : WB == 0 ? WA : std::min(WA, WB);
    return equalAt(valueOf(P, C.Lhs, Observed), valueOf(P, C.Rhs, Observed),
                   W);
  }
  case Cond::Not:
    assert(C.Kids.size() == 1);
    return !holds(P, C.Kids.front(), Observed);
  case Cond::And:
    return std::all_of(C.Kids.begin(), C.Kids.end(), [&](const Cond &K) {
      return holds(P, K, Observed);
    });
  case Cond::Or:
    return std::any_of(C.Kids.begin(), C.Kids.end(), [&](const Cond &K) {
      return holds(P, K, Observed);
    });
  }
  return false;
}

bool quantifierHolds(Quantifier Q, uint64_t Positive, uint64_t Negative) {
  switch (Q) {
  case Quantifier::Exists:
    return Positive > 0;
  case Quantifier::NotExists:
    return Positive == 0;
  case Quantifier::Forall:
    return Negative == 0;
  }
  return false;
}

} // namespace incant::litmus
