//===- Condition.h - Evaluating a litmus test's final condition -*- C++ -*-===//
//
// The one evaluator of a Program's condition, used by the checker (model::),
// the harness histogram and every backend, so that a final state satisfies
// the condition or not whoever computed it.
//
// The equality rule (the register-width rule). Each side of a comparison is
// read at a width:
//  - a register at its declared width (1 for a predicate, 16, 32, 64);
//  - a location at its width, Location::Bits (32, or 64 when some access to
//    it or its initial value needs 64 bits);
//  - a constant has no width of its own.
// Two sides are equal when their low W bits are equal, W being the smallest
// width among the sides that have one; two constants compare exactly. So
// `0:r0=-1` holds for a .u32 register holding 0xffffffff, `P0:r1 == P1:r1`
// compares a .u16 and a .u32 register on 16 bits, and `0==0` always holds.
// An address equals only the same address (same location, same offset),
// whatever the widths.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LITMUS_CONDITION_H
#define INCANT_LITMUS_CONDITION_H

#include "incant/Litmus/Program.h"

#include <cstdint>
#include <span>

namespace incant::litmus {

/// The width at which \p T is compared; 0 for a constant (no width).
unsigned termWidth(const Program &P, const Term &T);

/// Whether \p A and \p B are equal at \p Bits bits (0: exactly).
bool equalAt(const Value &A, const Value &B, unsigned Bits);

/// Whether the proposition \p C holds of a final state. \p Observed holds the
/// final values of P.Observe, in order; lowering puts every register and
/// location a condition names in P.Observe.
bool holds(const Program &P, const Cond &C, std::span<const Value> Observed);

/// Whether a quantified condition holds, given the executions (or instances)
/// whose final state satisfies the proposition (\p Positive) and those whose
/// state does not (\p Negative): exists needs a positive one, ~exists none,
/// forall no negative one.
bool quantifierHolds(Quantifier Q, uint64_t Positive, uint64_t Negative);

} // namespace incant::litmus

#endif // INCANT_LITMUS_CONDITION_H
