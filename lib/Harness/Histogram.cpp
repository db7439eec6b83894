//===- Histogram.cpp - Outcome counts and the condition ---------------------===//
#include "incant/Harness/Histogram.h"

#include <cassert>

namespace incant::harness {

void Histogram::add(const Outcome &O, uint64_t Count) {
  if (Count == 0)
    return;
  Counts[O] += Count;
  Total += Count;
}

void Histogram::merge(const Histogram &Other) {
  for (const auto &[O, N] : Other.Counts)
    add(O, N);
}

uint64_t Histogram::count(const Outcome &O) const {
  auto It = Counts.find(O);
  return It == Counts.end() ? 0 : It->second;
}

namespace {

/// The observed value of a register or location, if the condition's atom is
/// among the observed ones (lowering guarantees it is).
const litmus::Value *lookup(const litmus::Program &P, int32_t Thread,
                            int32_t Index, const Outcome &Values) {
  for (size_t I = 0; I < P.Observe.size() && I < Values.size(); ++I)
    if (P.Observe[I].Thread == Thread && P.Observe[I].Index == Index)
      return &Values[I];
  return nullptr;
}

} // namespace

bool evalCond(const litmus::Program &P, const litmus::Cond &C,
              const Outcome &Values) {
  switch (C.K) {
  case litmus::Cond::True:
    return true;
  case litmus::Cond::False:
    return false;
  case litmus::Cond::RegEq: {
    const litmus::Value *V = lookup(P, C.Thread, C.Reg, Values);
    assert(V && "condition names a register that is not observed");
    return V && *V == C.V;
  }
  case litmus::Cond::LocEq: {
    const litmus::Value *V = lookup(P, -1, C.Loc, Values);
    assert(V && "condition names a location that is not observed");
    return V && *V == C.V;
  }
  case litmus::Cond::Not:
    return !evalCond(P, C.Kids.at(0), Values);
  case litmus::Cond::And:
    for (const litmus::Cond &K : C.Kids)
      if (!evalCond(P, K, Values))
        return false;
    return true;
  case litmus::Cond::Or:
    for (const litmus::Cond &K : C.Kids)
      if (evalCond(P, K, Values))
        return true;
    return false;
  }
  return false;
}

Witnesses witnesses(const litmus::Program &P, const Histogram &H) {
  Witnesses W;
  for (const auto &[O, N] : H.outcomes())
    (evalCond(P, P.Condition, O) ? W.Positive : W.Negative) += N;
  switch (P.Q) {
  case litmus::Quantifier::Exists:
    W.Ok = W.Positive > 0;
    break;
  case litmus::Quantifier::NotExists:
    W.Ok = W.Positive == 0;
    break;
  case litmus::Quantifier::Forall:
    W.Ok = W.Negative == 0;
    break;
  }
  return W;
}

} // namespace incant::harness
