//===- Ignored.h - What of a test a memory model cannot see -----*- C++ -*-===//
//
// A cat model sees an execution only through the primitive sets and
// relations it names (cat::Model::usesPrimitive). An instruction whose
// effect shows only through primitives the model never names is checked as
// if it were not there (a fence, a barrier) or were weaker (an acquire read
// as a plain one, an atom as a read and a write): ASPLOS'15's PTX RMO, for
// one, names no fence.sc. `check` warns of each such feature, once per test,
// at the first instruction that has it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_MODEL_IGNORED_H
#define INCANT_MODEL_IGNORED_H

#include "incant/Cat/Model.h"
#include "incant/Litmus/Program.h"

#include <string>
#include <vector>

namespace incant::model {

struct IgnoredFeature {
  /// The first instruction that has it.
  const litmus::Op *First = nullptr;
  /// What of it the model cannot see: "the ordering" (a fence, a barrier),
  /// "the .acquire" (a memory order), "the scope .gpu", "the atomicity",
  /// "the proxy (ASYNC)".
  std::string What;
  /// The primitives any one of which would show it.
  std::vector<std::string> Through;
};

/// The features of \p P's instructions that \p M names no primitive of.
/// Cache operators and state spaces are left out: the PTX models give them
/// no ordering on purpose.
std::vector<IgnoredFeature> ignoredFeatures(const litmus::Program &P,
                                            const cat::Model &M);

} // namespace incant::model

#endif // INCANT_MODEL_IGNORED_H
