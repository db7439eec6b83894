//===- Stats.cpp - Rates and confidence intervals ---------------------------===//
#include "incant/Harness/Stats.h"

#include <algorithm>
#include <cmath>

namespace incant::harness {

Proportion wilson(uint64_t K, uint64_t N, double Z) {
  Proportion P;
  if (N == 0) {
    P.High = 1;
    return P;
  }
  double n = double(N), p = double(K) / n, z2 = Z * Z;
  double Centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  double Half = Z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  P.Rate = p;
  P.Low = std::max(0.0, Centre - Half);
  P.High = std::min(1.0, Centre + Half);
  if (K == 0)
    P.Low = 0;
  if (K == N)
    P.High = 1;
  return P;
}

double perSecond(uint64_t Count, double Seconds) {
  return Seconds > 0 ? double(Count) / Seconds : 0;
}

} // namespace incant::harness
