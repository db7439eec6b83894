//===- Histogram.h - Outcome counts of a run, keyed by observed values -*- C++ -*-===//
//
// A backend counts outcomes on the device and returns (values, count) pairs;
// the values are those of Program::Observe, in order. Merging and the
// witness counts are computed here, the same for every backend; the
// condition is litmus::holds (Condition.h), as for the checker.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_HARNESS_HISTOGRAM_H
#define INCANT_HARNESS_HISTOGRAM_H

#include "incant/Litmus/Program.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace incant::harness {

using Outcome = std::vector<litmus::Value>;

class Histogram {
public:
  void add(const Outcome &O, uint64_t Count = 1);
  void merge(const Histogram &Other);
  uint64_t count(const Outcome &O) const;
  uint64_t total() const { return Total; }
  /// Outcomes in ascending order of their values.
  const std::map<Outcome, uint64_t> &outcomes() const { return Counts; }
  bool empty() const { return Counts.empty(); }

private:
  std::map<Outcome, uint64_t> Counts;
  uint64_t Total = 0;
};

/// litmus7's summary of a histogram against the test's condition.
struct Witnesses {
  uint64_t Positive = 0; ///< Instances whose outcome satisfies the proposition.
  uint64_t Negative = 0;
  bool Ok = false;       ///< The quantified condition held in this run.
};
Witnesses witnesses(const litmus::Program &P, const Histogram &H);

/// The histogram as litmus7 prints it, one line per outcome in outcomes()
/// order: the count left-aligned in a column as wide as the largest count
/// needs (litmus7's 8 characters at least, so a count never runs into the
/// marker), '*' when the outcome satisfies the condition and ':' when not,
/// '>', then the state.
std::vector<std::string> histogramLines(const litmus::Program &P,
                                        const Histogram &H);

} // namespace incant::harness

#endif // INCANT_HARNESS_HISTOGRAM_H
