//===- Format.h - Printing values, states and conditions of a Program -*- C++ -*-===//
//
// Shared by `incant check` (herd's output) and `incant run` (litmus7's
// histogram): names come from the Program, in herd's spelling
// (`1:r0=1; x=2;`, `exists (1:r0=1 /\ 1:r2=0)`).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_DRIVER_FORMAT_H
#define INCANT_DRIVER_FORMAT_H

#include "incant/Litmus/Program.h"

#include <string>
#include <vector>

namespace incant::driver {

/// A value: an integer, or a location's name (plus `+offset`).
std::string formatValue(const litmus::Program &P, const litmus::Value &V);
/// `1:r0` or `x`.
std::string formatObserved(const litmus::Program &P, const litmus::Observed &O);
/// `1:r0=0; 1:r2=1;` for values parallel to P.Observe.
std::string formatState(const litmus::Program &P,
                        const std::vector<litmus::Value> &Values);
/// The proposition alone: `1:r0=1 /\ 1:r2=0`.
std::string formatProposition(const litmus::Program &P, const litmus::Cond &C);
/// The quantified condition: `exists (1:r0=1 /\ 1:r2=0)`.
std::string formatCondition(const litmus::Program &P);
/// herd's word for the test kind: "Allowed" (exists, ~exists) or "Required" (forall).
const char *conditionKind(const litmus::Program &P);

} // namespace incant::driver

#endif // INCANT_DRIVER_FORMAT_H
