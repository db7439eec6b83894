//===- Format.h - Values, states and conditions of a Program ----*- C++ -*-===//
//
// Shared by `incant check` (herd's output), `incant run` (litmus7's
// histogram), the campaign store and the bench programs: names come from
// the Program, in herd's spelling (`1:r0=1; x=2;`,
// `exists (1:r0=1 /\ 1:r2=0)`).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LITMUS_FORMAT_H
#define INCANT_LITMUS_FORMAT_H

#include "incant/Litmus/Program.h"

#include <string>
#include <vector>

namespace incant::litmus {

/// A value: an integer, or a location's name (plus `+offset`).
std::string formatValue(const Program &P, const Value &V);
/// `1:r0` or `x`.
std::string formatObserved(const Program &P, const Observed &O);
/// `1:r0=0; 1:r2=1;` for values parallel to P.Observe.
std::string formatState(const Program &P, const std::vector<Value> &Values);
/// The proposition alone: `1:r0=1 /\ 1:r2=0`.
std::string formatProposition(const Program &P, const Cond &C);
/// The quantified condition: `exists (1:r0=1 /\ 1:r2=0)`.
std::string formatCondition(const Program &P);
/// herd's (and litmus7's) word for the test kind: "Allowed" (exists),
/// "Forbidden" (~exists) or "Required" (forall).
const char *conditionKind(const Program &P);

} // namespace incant::litmus

#endif // INCANT_LITMUS_FORMAT_H
