//===- Histogram.cpp - Outcome counts and the condition ---------------------===//
#include "incant/Harness/Histogram.h"

#include "incant/Litmus/Condition.h"
#include "incant/Litmus/Format.h"

#include <algorithm>

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

Witnesses witnesses(const litmus::Program &P, const Histogram &H) {
  Witnesses W;
  for (const auto &[O, N] : H.outcomes())
    (litmus::holds(P, P.Condition, O) ? W.Positive : W.Negative) += N;
  W.Ok = litmus::quantifierHolds(P.Q, W.Positive, W.Negative);
  return W;
}

std::vector<std::string> histogramLines(const litmus::Program &P,
                                        const Histogram &H) {
  size_t Width = 7;
  for (const auto &[O, N] : H.outcomes())
    Width = std::max(Width, std::to_string(N).size());
  std::vector<std::string> Lines;
  for (const auto &[O, N] : H.outcomes()) {
    std::string L = std::to_string(N);
    L.resize(Width + 1, ' ');
    L += litmus::holds(P, P.Condition, O) ? '*' : ':';
    L += '>';
    L += litmus::formatState(P, O);
    Lines.push_back(std::move(L));
  }
  return Lines;
}

} // namespace incant::harness
