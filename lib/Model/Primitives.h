//===- Primitives.h - The primitive sets and relations of an execution ----===//
//
// Fills a cat::Execution with every primitive the cat dialect names
// (cat::primitiveNames()): the parts fixed by the trace combination once per
// combination, the rf/co-derived ones per candidate, in place.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_MODEL_PRIMITIVES_H
#define INCANT_LIB_MODEL_PRIMITIVES_H

#include "incant/Cat/Model.h"
#include "incant/Model/Executions.h"

#include <optional>
#include <vector>

namespace incant::model {

class Primitives {
public:
  /// Builds the rf/co-independent primitives of one trace combination.
  /// Events 0..Locs-1 are the initial writes.
  void setUpCombination(const litmus::Program &P,
                        const std::vector<EventRef> &Events,
                        const std::vector<int32_t> &ThreadOf,
                        const std::vector<const Trace *> &Chosen,
                        const std::vector<int32_t> &Base);
  /// Sets rf, co, fr and their internal/external parts. \p Rf gives each
  /// read's write (-1 for non-reads), \p CoOrder each location's non-init
  /// writes in coherence order.
  void setCandidate(const std::vector<int32_t> &Rf,
                    const std::vector<std::vector<int32_t>> &CoOrder,
                    const std::vector<int32_t> &ThreadOf);
  const cat::Execution &execution() const { return *X; }

  /// The relations refilled per candidate.
  static constexpr unsigned NumDynamic = 9;
  static constexpr const char *DynamicNames[NumDynamic] = {
      "rf", "co", "fr", "rfe", "rfi", "coe", "coi", "fre", "fri"};

private:
  std::optional<cat::Execution> X;
  unsigned N = 0;
  unsigned NumLocs = 0;
  /// Where the dynamic relations sit in X.relations().
  int32_t DynamicSlot[NumDynamic] = {};
  cat::Relation Rf, Co, Fr;  ///< Scratch, per candidate.
  cat::Relation ExtRel, IntRel;
};

} // namespace incant::model

#endif // INCANT_LIB_MODEL_PRIMITIVES_H
