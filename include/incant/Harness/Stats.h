//===- Stats.h - Rates and confidence intervals of a run -------*- C++ -*-===//
#ifndef INCANT_HARNESS_STATS_H
#define INCANT_HARNESS_STATS_H

#include <cstdint>

namespace incant::harness {

/// A proportion with its Wilson score interval.
struct Proportion {
  double Rate = 0;  ///< k / n (0 when n = 0)
  double Low = 0;   ///< Lower end of the interval.
  double High = 0;  ///< Upper end of the interval.
};

/// k successes in n trials; Z is the normal quantile (1.96 for 95 %).
/// Unlike the normal approximation, the interval stays inside [0, 1] and is
/// not empty when k = 0: with no weak outcome in n instances, High is the
/// most the weak rate can plausibly be.
Proportion wilson(uint64_t K, uint64_t N, double Z = 1.96);

/// Events per second (0 when no time was measured).
double perSecond(uint64_t Count, double Seconds);

} // namespace incant::harness

#endif // INCANT_HARNESS_STATS_H
